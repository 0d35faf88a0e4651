//! [`Voice`]: the robot's voice as the rest of the program uses it: utterances
//! queued in order, synthesised, played, reported as events.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

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
    /// When [`Mouth::say`] was called.
    said: SystemTime,
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
        let engine: Arc<dyn SpeechEngine> = Arc::from(engine);
        // While the device opens, and never in the way of anything: the first
        // utterance waits for a warm-up still under way, or starts afresh after a failed one.
        tokio::spawn(warm_up(engine.clone()));
        let device = settings.device.clone();
        let playback = tokio::task::spawn_blocking(move || Playback::open(device.as_deref()))
            .await
            .map_err(|e| VoiceError::Device(format!("opening the output failed: {e}")))??;
        Ok(Voice::with_parts(engine, playback, settings, events))
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
            said: SystemTime::now(),
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

/// Gets `engine` ready to speak; says once how it went.
async fn warm_up(engine: Arc<dyn SpeechEngine>) {
    let started = Instant::now();
    match engine.warm_up().await {
        Ok(()) => tracing::info!(
            ms = started.elapsed().as_millis() as u64,
            "voice: {} is ready",
            engine.describe()
        ),
        Err(error) => tracing::warn!(
            "voice: {} could not get ready ahead ({error}); the first utterance tries again",
            engine.describe()
        ),
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

/// What is kept of the silence before an utterance's first word, in ms.
const LEAD_IN_MS: u32 = 10;

/// Synthesises and plays one utterance piece by piece ([`pieces`]): the first
/// plays as soon as it is synthesised, and each later one is synthesised while
/// the ones before it play. `Ok` also when it was hushed.
async fn speak_one(
    utterance: &Utterance,
    engine: &dyn SpeechEngine,
    playback: &Playback,
    shared: &Shared,
    gate: &MicGate,
    events: &mpsc::UnboundedSender<Event>,
) -> Result<(), VoiceError> {
    let cancel = &utterance.cancel;
    let mut pieces = pieces(&utterance.text).into_iter();
    let Some(first) = pieces.next() else {
        return Ok(());
    };
    if cancel.is_cancelled() {
        return Ok(());
    }
    let started = SystemTime::now();
    let pcm = match engine.synthesize(first, cancel).await {
        Err(VoiceError::Cancelled) => return Ok(()),
        other => other?,
    };
    if cancel.is_cancelled() {
        return Ok(());
    }
    let synthesised = SystemTime::now();
    // Piper begins with ~50 ms of silence; the pauses between pieces are kept.
    let pcm = pcm.without_leading_silence(LEAD_IN_MS);
    tracing::debug!(
        synth_ms = ms_between(started, synthesised),
        audio_ms = pcm.ms(),
        "voice: synthesised"
    );
    let mut length_ms = pcm.ms();
    let mut playing = playback.start(&pcm);
    shared.set_playing(Some(playing.stopper()));
    // A hush between the check above and now would have found nothing to stop.
    if cancel.is_cancelled() {
        playing.stop();
    }
    gate.begin();
    let mut rest = Ok(());
    for piece in pieces {
        let pcm = match engine.synthesize(piece, cancel).await {
            Ok(pcm) => pcm,
            Err(error) => {
                rest = Err(error);
                break;
            }
        };
        length_ms += pcm.ms();
        if !playing.append(&pcm) {
            rest = Err(VoiceError::Cancelled);
            break;
        }
    }
    // What was synthesised plays to its end, also when a later sentence failed.
    let played = match rest {
        Err(VoiceError::Cancelled) => false,
        _ => tokio::select! {
            played = playing.finished() => played,
            _ = cancel.cancelled() => false,
        },
    };
    if !played {
        playing.stop();
    }
    shared.set_playing(None);
    gate.end(Instant::now());
    if let Some(first) = playing.first_sample() {
        // The timeline of one utterance, for measuring (tests/daemon_measure.rs).
        let audible = playing.first_audible().unwrap_or(first);
        tracing::info!(
            at = %humantime::format_rfc3339_micros(first),
            audible_at = %humantime::format_rfc3339_micros(audible),
            said_ms = ms_between(utterance.said, first),
            queued_ms = ms_between(utterance.said, started),
            synth_ms = ms_between(started, synthesised),
            device_ms = ms_between(synthesised, first),
            "voice: first sample to the output"
        );
    }
    match rest {
        Ok(()) if played => {
            let _ = events.send(Event::Voice {
                text: utterance.text.clone(),
                ms: length_ms,
            });
            Ok(())
        }
        Ok(()) | Err(VoiceError::Cancelled) => Ok(()),
        Err(error) => Err(error),
    }
}

/// The pieces an utterance is synthesised in: its sentences, the first one cut
/// after its first clause ("You asked me," + "so I will hand you the red
/// glass.") when at least three words follow. Speech starts once the first
/// piece is synthesised, so a short first piece is heard soonest; the pause at
/// the cut is the comma's own (Piper: ~0.24 s cut, ~0.28 s whole).
pub fn pieces(text: &str) -> Vec<&str> {
    let mut pieces = sentences(text);
    if let Some(first) = pieces.first().copied() {
        if let Some((head, tail)) = first_clause(first) {
            pieces.splice(0..1, [head, tail]);
        }
    }
    pieces
}

/// `sentence` cut after its first `,`, `;` or `:` that a space follows, when
/// at least three words come after it.
fn first_clause(sentence: &str) -> Option<(&str, &str)> {
    let (at, mark) = sentence.char_indices().find(|&(i, c)| {
        matches!(c, ',' | ';' | ':')
            && sentence[i + c.len_utf8()..].starts_with(char::is_whitespace)
    })?;
    let (head, tail) = sentence.split_at(at + mark.len_utf8());
    let (head, tail) = (head.trim(), tail.trim());
    (head.chars().any(char::is_alphanumeric) && tail.split_whitespace().count() >= 3)
        .then_some((head, tail))
}

/// Words that end with a period without ending a sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "approx", "no",
];

/// Closing quotes and brackets that stay with the sentence before them.
const CLOSERS: &[char] = &['"', '\'', '\u{201d}', '\u{2019}', ')', ']'];

/// `text` cut after each sentence's final `.`, `!` or `?` (with its closing
/// quotes or brackets) where a space follows; not after an abbreviation such
/// as "Dr." or an initial. Each piece trimmed; no empty ones.
pub fn sentences(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut pieces = Vec::new();
    let mut from = 0;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if !matches!(c, '.' | '!' | '?') {
            i += 1;
            continue;
        }
        // The run of terminators and closers: "?!", "...", ".\"", ".)".
        let mut j = i + 1;
        while j < chars.len()
            && (matches!(chars[j].1, '.' | '!' | '?') || CLOSERS.contains(&chars[j].1))
        {
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |(k, _)| *k);
        let spaced = chars.get(j).is_none_or(|(_, c)| c.is_whitespace());
        let word = text[from..at]
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("");
        let initial = word.chars().count() == 1 && word.chars().all(char::is_uppercase);
        let abbreviation = c == '.'
            && j == i + 1
            && (initial || ABBREVIATIONS.contains(&word.to_lowercase().as_str()));
        if spaced && !abbreviation {
            let piece = text[from..end].trim();
            if !piece.is_empty() {
                pieces.push(piece);
            }
            from = end;
        }
        i = j;
    }
    let piece = text[from..].trim();
    if !piece.is_empty() {
        pieces.push(piece);
    }
    pieces
}

/// Milliseconds from `a` to `b` (0 when `b` is earlier), with a fraction.
fn ms_between(a: SystemTime, b: SystemTime) -> f64 {
    b.duration_since(a)
        .map_or(0.0, |d| (d.as_secs_f64() * 10_000.0).round() / 10.0)
}

#[cfg(test)]
mod tests {
    use super::{pieces, sentences};

    #[test]
    fn the_first_sentence_is_cut_after_its_first_clause() {
        assert_eq!(
            pieces("You asked me, so I will hand you the red glass. Daniel is busy, sorry."),
            vec![
                "You asked me,",
                "so I will hand you the red glass.",
                "Daniel is busy, sorry."
            ]
        );
        assert_eq!(
            pieces("Felix, I will hand you the red glass."),
            vec!["Felix,", "I will hand you the red glass."]
        );
        // Too little after the comma, or no space after it: one piece.
        assert_eq!(pieces("Thank you, Felix."), vec!["Thank you, Felix."]);
        assert_eq!(
            pieces("It weighs 1,500 grams in all."),
            vec!["It weighs 1,500 grams in all."]
        );
        assert_eq!(pieces("440 300"), vec!["440 300"]);
    }

    #[test]
    fn an_utterance_is_cut_into_its_sentences() {
        assert_eq!(
            sentences("Daniel is busy. I will hand you the red glass!  Is that fine?"),
            vec![
                "Daniel is busy.",
                "I will hand you the red glass!",
                "Is that fine?"
            ]
        );
        assert_eq!(
            sentences("You asked me, so I will hand you the red glass."),
            vec!["You asked me, so I will hand you the red glass."]
        );
        assert_eq!(sentences("440 300"), vec!["440 300"]);
        assert!(sentences("  ").is_empty());
    }

    #[test]
    fn abbreviations_numbers_and_quotes_stay_inside_their_sentence() {
        assert_eq!(
            sentences("Dr. Smith is 0.25 m away, e.g. too far. He said \"wait!\" Then he left..."),
            vec![
                "Dr. Smith is 0.25 m away, e.g. too far.",
                "He said \"wait!\"",
                "Then he left..."
            ]
        );
        assert_eq!(
            sentences("J. S. Bach wrote it?! Yes.\nNow."),
            vec!["J. S. Bach wrote it?!", "Yes.", "Now."]
        );
    }
}
