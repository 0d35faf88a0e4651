//! Memory in the daemon: the store in `<state_dir>/memory.db`, opened at
//! start-up (a store that cannot be used is one warning, and the daemon runs
//! on without memory), and erasure that leaves no copy in the event log.
//!
//! The daemon records no LLM tapes (only `attentive eval --record` does), so
//! the event log's day files are the only copies outside the store.

use crate::memory::redact::copies;
use std::path::Path;
use std::sync::Arc;

use super::bus::Bus;
use super::sentence;
use super::worker::Episodes;
use crate::agent::remembering::{Eraser, Remembering};
use crate::events::Event;
use crate::memory::{Erased, Memory, MemoryError, MemorySettings};

/// The store's file name in the state folder.
pub const FILE: &str = "memory.db";

/// Opens `<state_dir>/memory.db` when memory is on. When it cannot be used
/// (damaged, from a newer attentive, unwritable) one `warning` event says why,
/// naming the file, and the daemon runs without memory: `Err` carries the
/// sentence the memory routes answer with.
pub async fn open(
    settings: &MemorySettings,
    state_dir: &Path,
    bus: &Bus,
) -> Result<Memory, String> {
    if !settings.enabled {
        return Err(
            "memory is off (memory.enabled = false in the configuration); nothing is remembered"
                .into(),
        );
    }
    let path = state_dir.join(FILE);
    let opened = tokio::task::spawn_blocking(move || Memory::open(&path))
        .await
        .unwrap_or_else(|e| {
            Err(MemoryError::Open {
                path: state_dir.join(FILE),
                reason: format!("its start-up failed: {e}"),
            })
        });
    opened.map_err(|error| {
        let why = sentence(&error.to_string());
        bus.publish(Event::Warning {
            kind: "memory".into(),
            detail: format!(
                "{why}. The robot runs without memory until the file is fixed or moved away."
            ),
        });
        format!("memory is off: {why}")
    })
}

/// Erasure outside the store: the event log's day files.
#[derive(Clone)]
pub struct Redactor {
    bus: Bus,
}

impl Redactor {
    /// Redacts into the log behind `bus`.
    pub fn new(bus: Bus) -> Self {
        Self { bus }
    }

    /// Replaces the erased texts by `[erased]` in every day file; with `sticky`
    /// also in the lines the running episode writes later. A failure is one
    /// warning event (without the texts) and the error.
    pub fn redact(&self, erased: &Erased, sticky: bool) -> Result<usize, String> {
        match self.bus.redact(&copies(&erased.texts), sticky) {
            Ok(count) => {
                tracing::info!(
                    replaced = count,
                    "memory: erased texts redacted in the event log"
                );
                Ok(count)
            }
            Err(error) => {
                let why = format!("the event log could not be redacted after an erasure: {error}");
                self.bus.publish(Event::Warning {
                    kind: "memory".into(),
                    detail: why.clone(),
                });
                Err(why)
            }
        }
    }

    /// The agent's eraser (the `forget` tool): it redacts during the episode;
    /// the agent itself logs the `memory_erased` event.
    pub fn eraser(&self) -> Eraser {
        let redactor = self.clone();
        Arc::new(move |erased: &Erased| {
            let _ = redactor.redact(erased, true);
        })
    }
}

/// Why an erasure through the API did not happen or was not complete.
#[derive(Debug, thiserror::Error)]
pub enum EraseError {
    /// The store refused or does not know the name or id.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// Erased from the store, but a copy in the log could not be redacted.
    #[error("erased from memory, but {0}")]
    Log(String),
}

/// Memory as the API uses it: reads, and erasure with redaction and a
/// content-free `memory_erased` event.
#[derive(Clone)]
pub struct MemoryService {
    /// The store.
    pub memory: Memory,
    redactor: Redactor,
    bus: Bus,
    episodes: Arc<Episodes>,
}

impl MemoryService {
    /// The service over an opened store.
    pub fn new(memory: Memory, bus: Bus, episodes: Arc<Episodes>) -> Self {
        Self {
            memory,
            redactor: Redactor::new(bus.clone()),
            bus,
            episodes,
        }
    }

    /// Erases one fact.
    pub async fn forget_fact(&self, id: i64) -> Result<Erased, EraseError> {
        let erased = self.memory.run(move |s| s.forget_fact(id)).await??;
        self.after(erased).await
    }

    /// Erases a person: their facts, the episodes they asked for, their failures.
    pub async fn forget_person(&self, name: String) -> Result<Erased, EraseError> {
        let erased = self.memory.run(move |s| s.forget_person(&name)).await??;
        self.after(erased).await
    }

    /// Redacts the log (off the runtime), then logs `memory_erased`.
    async fn after(&self, erased: Erased) -> Result<Erased, EraseError> {
        // An episode running now may repeat the text: its later lines are redacted too.
        let sticky = self.episodes.busy();
        let (redactor, texts) = (self.redactor.clone(), erased.clone());
        let redacted = tokio::task::spawn_blocking(move || redactor.redact(&texts, sticky))
            .await
            .unwrap_or_else(|e| Err(format!("the redaction of the event log failed: {e}")));
        self.bus.publish(Event::MemoryErased {
            facts: erased.facts,
            episodes: erased.episodes,
            failures: erased.failures,
        });
        redacted.map_err(EraseError::Log)?;
        Ok(erased)
    }
}

/// Memory for the daemon when it is on and its store opens: the store, and
/// the agent's side of it (pruned now, redacting the log on `forget`).
/// Otherwise the sentence why not (already logged as a warning when it failed).
pub async fn start(
    settings: &MemorySettings,
    state_dir: &Path,
    bus: &Bus,
) -> Result<(Memory, Remembering), String> {
    let memory = open(settings, state_dir, bus).await?;
    let eraser = Redactor::new(bus.clone()).eraser();
    let (store, settings) = (memory.clone(), settings.clone());
    // Pruning old episodes touches the disk: off the runtime.
    let remembering =
        tokio::task::spawn_blocking(move || Remembering::new(store, settings).with_eraser(eraser))
            .await
            .map_err(|e| format!("memory is off: its start-up failed: {e}"))?;
    Ok((memory, remembering))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_is_also_found_as_said_back_and_as_heard() {
        let forms = copies(&["I only drink sugar-free, my usual.".to_string()]);
        assert_eq!(
            forms,
            [
                "I only drink sugar-free, my usual.",
                "i only drink sugar free my usual",
                "you only drink sugar-free, your usual.",
                "you only drink sugar free your usual",
            ]
        );
    }
}
