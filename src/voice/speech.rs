//! [`Voice`]: the robot's voice as the rest of the program uses it: utterances
//! queued in order, synthesised, played, reported as events.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::engine::{self, SpeechEngine};
use super::playback::{Playback, Stopper};
use super::settings::VoiceSettings;
use super::turn_taking::{BargeIn, MicGate};
use super::VoiceError;
use crate::agent::Mouth;
use crate::events::Event;

/// The robot's voice: cheap to clone, `Send + Sync`.
///
/// Utterances play one after the other in the order of [`Mouth::say`]. When one
/// has played to its end the voice sends `Event::Voice { text, ms }`; when the
/// engine or the output fails it sends one `Event::Warning { kind: "voice", .. }`
/// and goes on with the next (the text was shown by the `speech` event anyway).
/// [`Mouth::hush`] stops the current utterance and drops the queued ones.
///
/// For the daemon:
/// * start it once with [`Voice::start`] (it opens the output device, which
///   takes a second or two with PulseAudio) and give a clone to the agent
///   (`Agent::with_mouth`) and one to the capture loop;
/// * in the capture loop, let frames reach the recogniser only while
///   [`Voice::gate`]`.is_open(frame_time)`, and feed the others to a
///   [`Voice::barge_in`] detector (see [`MicGate`] and [`BargeIn`]);
/// * on an interrupt ("stop", `POST /api/interrupt`), call [`Mouth::hush`].
#[derive(Clone)]
pub struct Voice {
    inner: Arc<Inner>,
}

struct Inner {
    /// `None` for a silent voice (`engine = "none"`).
    queue: Option<mpsc::UnboundedSender<Utterance>>,
    /// What the speaking task shares with every clone.
    shared: Arc<Shared>,
    /// Cancelled by `hush`; every utterance carries the token current when it was said.
    generation: Mutex<CancellationToken>,
    gate: MicGate,
    barge_in_ms: u32,
    description: String,
}

/// State of the speaking task that `say`, `hush` and `until_quiet` see.
struct Shared {
    /// Utterances said and not yet played, stopped or failed.
    pending: watch::Sender<usize>,
    /// Stops the utterance playing now, so that `hush` is heard at once
    /// (without waiting for the speaking task to be scheduled).
    playing: Mutex<Option<Stopper>>,
}

impl Shared {
    fn new() -> Arc<Shared> {
        Arc::new(Shared {
            pending: watch::Sender::new(0),
            playing: Mutex::new(None),
        })
    }

    fn set_playing(&self, stopper: Option<Stopper>) {
        *self.playing.lock().unwrap_or_else(|p| p.into_inner()) = stopper;
    }
}

struct Utterance {
    text: String,
    cancel: CancellationToken,
}

impl std::fmt::Debug for Voice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Voice")
            .field("engine", &self.inner.description)
            .field("pending", &*self.inner.shared.pending.borrow())
            .finish_non_exhaustive()
    }
}

impl Voice {
    /// The configured engine playing on the configured output device; events go
    /// to `events`. Must run inside a tokio runtime. Fails when the engine's
    /// configuration cannot work or the output device cannot be opened; with
    /// `engine = "none"` it is a silent voice and opens nothing.
    pub async fn start(
        settings: &VoiceSettings,
        events: mpsc::UnboundedSender<Event>,
    ) -> Result<Voice, VoiceError> {
        let Some(engine) = engine::from_settings(settings)? else {
            return Ok(Voice::silent(settings));
        };
        let device = settings.device.clone();
        let playback = tokio::task::spawn_blocking(move || Playback::open(device.as_deref()))
            .await
            .map_err(|e| VoiceError::Device(format!("opening the output failed: {e}")))??;
        Ok(Voice::with_parts(
            Arc::from(engine),
            playback,
            settings,
            events,
        ))
    }

    /// A voice from an engine and an output already made (tests, other outputs).
    /// Must be called inside a tokio runtime: it spawns the task that speaks.
    pub fn with_parts(
        engine: Arc<dyn SpeechEngine>,
        playback: Playback,
        settings: &VoiceSettings,
        events: mpsc::UnboundedSender<Event>,
    ) -> Voice {
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Shared::new();
        let gate = MicGate::new(settings.tail_ms);
        let description = format!("{} on {}", engine.describe(), playback.description());
        tokio::spawn(speak_queue(
            rx,
            engine,
            playback,
            shared.clone(),
            gate.clone(),
            events,
        ));
        Voice {
            inner: Arc::new(Inner {
                queue: Some(tx),
                shared,
                generation: Mutex::new(CancellationToken::new()),
                gate,
                barge_in_ms: settings.barge_in_ms,
                description,
            }),
        }
    }

    /// A voice that says nothing (no engine, no device); its gate is always open.
    pub fn silent(settings: &VoiceSettings) -> Voice {
        Voice {
            inner: Arc::new(Inner {
                queue: None,
                shared: Shared::new(),
                generation: Mutex::new(CancellationToken::new()),
                gate: MicGate::new(settings.tail_ms),
                barge_in_ms: settings.barge_in_ms,
                description: "none".into(),
            }),
        }
    }

    /// The microphone gate of half-duplex listening.
    pub fn gate(&self) -> MicGate {
        self.inner.gate.clone()
    }

    /// A barge-in detector for this voice with the configured `barge_in_ms`.
    pub fn barge_in(&self) -> BargeIn {
        BargeIn::new(self.clone(), self.inner.barge_in_ms)
    }

    /// Engine and output, for logs.
    pub fn describe(&self) -> &str {
        &self.inner.description
    }

    /// Whether it makes any sound (`false` for `engine = "none"`).
    pub fn is_audible(&self) -> bool {
        self.inner.queue.is_some()
    }
}

impl Mouth for Voice {
    fn say(&self, _to: &str, text: &str) {
        let Some(queue) = &self.inner.queue else {
            return;
        };
        if text.trim().is_empty() {
            return;
        }
        let cancel = self
            .inner
            .generation
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        self.inner.shared.pending.send_modify(|n| *n += 1);
        let utterance = Utterance {
            text: text.to_string(),
            cancel,
        };
        if queue.send(utterance).is_err() {
            // The speaking task is gone (runtime shutting down): nothing will play.
            self.inner
                .shared
                .pending
                .send_modify(|n| *n = n.saturating_sub(1));
        }
    }

    fn until_quiet(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let mut pending = self.inner.shared.pending.subscribe();
        Box::pin(async move {
            // An error means the voice is gone, which is quiet too.
            let _ = pending.wait_for(|n| *n == 0).await;
        })
    }

    fn hush(&self) {
        let mut generation = self
            .inner
            .generation
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        generation.cancel();
        *generation = CancellationToken::new();
        if let Some(stopper) = self
            .inner
            .shared
            .playing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            stopper.stop();
        }
    }
}

/// The task that speaks: one utterance at a time, in order.
async fn speak_queue(
    mut queue: mpsc::UnboundedReceiver<Utterance>,
    engine: Arc<dyn SpeechEngine>,
    playback: Playback,
    shared: Arc<Shared>,
    gate: MicGate,
    events: mpsc::UnboundedSender<Event>,
) {
    while let Some(utterance) = queue.recv().await {
        let spoken = speak_one(
            &utterance,
            engine.as_ref(),
            &playback,
            &shared,
            &gate,
            &events,
        );
        if let Err(error) = spoken.await {
            tracing::warn!("voice: {error}");
            let _ = events.send(Event::Warning {
                kind: "voice".into(),
                detail: format!(
                    "The robot could not say {:?} aloud: {error}.",
                    utterance.text
                ),
            });
        }
        shared.pending.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// Synthesises and plays one utterance; `Ok` also when it was hushed.
async fn speak_one(
    utterance: &Utterance,
    engine: &dyn SpeechEngine,
    playback: &Playback,
    shared: &Shared,
    gate: &MicGate,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<(), VoiceError> {
    if utterance.cancel.is_cancelled() {
        return Ok(());
    }
    let started = Instant::now();
    let pcm = match engine.synthesize(&utterance.text, &utterance.cancel).await {
        Err(VoiceError::Cancelled) => return Ok(()),
        other => other?,
    };
    if utterance.cancel.is_cancelled() {
        return Ok(());
    }
    tracing::debug!(
        synth_ms = started.elapsed().as_millis() as u64,
        audio_ms = pcm.ms(),
        "voice: synthesised"
    );
    let mut playing = playback.play(&pcm);
    shared.set_playing(Some(playing.stopper()));
    // A hush between the check above and now would have found nothing to stop.
    if utterance.cancel.is_cancelled() {
        playing.stop();
    }
    gate.begin();
    let played = tokio::select! {
        played = playing.finished() => played,
        _ = utterance.cancel.cancelled() => {
            playing.stop();
            false
        }
    };
    shared.set_playing(None);
    gate.end(Instant::now());
    if played {
        let _ = events.send(Event::Voice {
            text: utterance.text.clone(),
            ms: pcm.ms(),
        });
    }
    Ok(())
}
