//! Memory across sessions (issue 23): the people at the table, the facts they
//! asked the robot to keep, what it did for them (episodes) and what failed
//! (failures), in one SQLite file owned by one thread.
//!
//! Writes are deterministic: facts only through the `remember` tool (a
//! person's own statement is confirmed, anyone else's is hearsay), episodes
//! and failures from the agent's own events; nothing is extracted from
//! transcripts by a model. Reads are a short block about the people present,
//! the `recall` tool, and the failure explainer. Erasure leaves no copy in the
//! store (rows, full-text index, write-ahead log).

pub mod block;
pub mod explainer;
mod handle;
pub mod model;
pub mod recall;
pub mod redact;
mod schema;
pub mod settings;
mod store;
pub mod view;

pub use handle::Memory;
pub use model::{Episode, Erased, Fact, Failure, NewFact, Remembered, Visibility};
pub use settings::MemorySettings;
pub use store::Store;

use std::path::PathBuf;

/// Why the memory store cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The file cannot be opened or created.
    #[error("cannot open the memory store {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    /// The file is not a memory store, or is damaged.
    #[error("the memory store {path} is damaged or not a memory store ({reason}); move it away to start with an empty memory")]
    Corrupt { path: PathBuf, reason: String },
    /// The file was written by a newer version of attentive.
    #[error("the memory store {path} has schema version {found}, newer than this attentive knows ({known}); use a newer attentive or move the file away")]
    Newer {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    /// A statement failed.
    #[error("memory store: {context}: {source}")]
    Sql {
        context: &'static str,
        source: rusqlite::Error,
    },
    /// The owner thread is gone (it panicked or the store was closed).
    #[error("the memory store is closed")]
    Closed,
    /// A name or id that is not in memory.
    #[error("{0}")]
    NotFound(String),
}

/// Adds the failing statement's purpose to a rusqlite error.
pub(crate) trait SqlContext<T> {
    fn context(self, context: &'static str) -> Result<T, MemoryError>;
}

impl<T> SqlContext<T> for Result<T, rusqlite::Error> {
    fn context(self, context: &'static str) -> Result<T, MemoryError> {
        self.map_err(|source| MemoryError::Sql { context, source })
    }
}

/// Seconds since the Unix epoch, now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The calendar day (UTC) of a time, `YYYY-MM-DD`.
pub fn day(at: i64) -> String {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(at.max(0) as u64);
    humantime::format_rfc3339_seconds(time).to_string()[..10].to_string()
}
