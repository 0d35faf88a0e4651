//! Half-duplex and barge-in: the microphone gate that keeps the robot from
//! hearing itself, and the detector that lets a person talk over it.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::speech::Voice;
use crate::agent::Mouth;

/// Whether the microphone's frames may reach the recogniser: closed while the
/// robot speaks and for `tail_ms` after (output buffer and room echo).
///
/// Cheap to clone and to ask (atomics). The daemon's capture loop asks
/// [`MicGate::is_open`] for every frame with the frame's capture time:
///
/// ```text
/// if gate.is_open(frame_time) { segmenter.push(frame) }          // normal listening
/// else if barge_in.feed(vad_voiced && !from_loudspeaker, frame_len, frame_time) {
///     // the person talked over the robot: speech is stopped and the gate is open;
///     // push the frames held during the barge-in, then keep listening
/// }
/// ```
#[derive(Debug, Clone)]
pub struct MicGate {
    state: Arc<GateState>,
}

#[derive(Debug)]
struct GateState {
    epoch: Instant,
    tail_ms: u64,
    /// Utterances playing now.
    speaking: AtomicUsize,
    /// Milliseconds after `epoch` until which the gate stays closed.
    quiet_until_ms: AtomicU64,
    /// A person barged in: open until the robot starts speaking again.
    barged: AtomicBool,
}

impl MicGate {
    /// A gate that is open, with a tail of `tail_ms` after each utterance.
    pub fn new(tail_ms: u32) -> MicGate {
        MicGate {
            state: Arc::new(GateState {
                epoch: Instant::now(),
                tail_ms: u64::from(tail_ms),
                speaking: AtomicUsize::new(0),
                quiet_until_ms: AtomicU64::new(0),
                barged: AtomicBool::new(false),
            }),
        }
    }

    /// Whether a microphone frame captured at `now` may reach the recogniser.
    pub fn is_open(&self, now: Instant) -> bool {
        let s = &self.state;
        s.barged.load(Ordering::SeqCst)
            || (s.speaking.load(Ordering::SeqCst) == 0
                && self.ms(now) >= s.quiet_until_ms.load(Ordering::SeqCst))
    }

    /// Whether the robot's speech is playing now (without the tail).
    pub fn is_speaking(&self) -> bool {
        self.state.speaking.load(Ordering::SeqCst) > 0
    }

    /// Opens the gate at once, until the robot next starts to speak (after a barge-in).
    pub fn open_now(&self) {
        self.state.barged.store(true, Ordering::SeqCst);
    }

    /// An utterance starts playing.
    pub(crate) fn begin(&self) {
        self.state.barged.store(false, Ordering::SeqCst);
        self.state.speaking.fetch_add(1, Ordering::SeqCst);
    }

    /// An utterance stopped playing at `at` (its end, or a stop).
    pub(crate) fn end(&self, at: Instant) {
        let until = self.ms(at) + self.state.tail_ms;
        self.state.quiet_until_ms.fetch_max(until, Ordering::SeqCst);
        let _ = self
            .state
            .speaking
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    }

    fn ms(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.state.epoch).as_millis() as u64
    }
}

/// Longest unvoiced stretch inside a barge-in (pauses between words, VAD flicker).
pub const BARGE_IN_MAX_GAP: Duration = Duration::from_millis(200);

/// Detects a person speaking over the robot and stops the robot's speech.
///
/// Feed it, frame by frame, the voice-activity decisions of the microphone
/// while the [`MicGate`] is closed. A frame counts as voiced only if the VAD
/// says so and (where the array can tell) its direction of arrival is not the
/// robot's own loudspeaker; the daemon passes `vad_voiced && !from_loudspeaker`.
/// When `barge_in_ms` of voiced audio have come with no gap longer than
/// [`BARGE_IN_MAX_GAP`], it hushes the voice, opens the gate and returns `true`
/// (once); the daemon then hands the held frames to the recogniser, so that
/// "stop" or "wait" is recognised and can interrupt the episode.
#[derive(Debug, Clone)]
pub struct BargeIn {
    voice: Voice,
    gate: MicGate,
    min_voiced: Duration,
    voiced: Duration,
    gap: Duration,
}

impl BargeIn {
    /// A detector that hushes `voice` after `barge_in_ms` of speech over it.
    pub fn new(voice: Voice, barge_in_ms: u32) -> BargeIn {
        BargeIn {
            gate: voice.gate(),
            voice,
            min_voiced: Duration::from_millis(u64::from(barge_in_ms.max(1))),
            voiced: Duration::ZERO,
            gap: Duration::ZERO,
        }
    }

    /// One frame of `frame` length captured at `now`; `true` when this frame
    /// completes a barge-in (the speech has been told to stop).
    pub fn feed(&mut self, voiced: bool, frame: Duration, now: Instant) -> bool {
        if self.gate.is_open(now) {
            // Nobody is talking over the robot while it is silent.
            self.reset();
            return false;
        }
        if voiced {
            self.voiced += frame;
            self.gap = Duration::ZERO;
        } else {
            self.gap += frame;
            if self.gap > BARGE_IN_MAX_GAP {
                self.reset();
            }
        }
        if self.voiced >= self.min_voiced {
            self.reset();
            self.voice.hush();
            self.gate.open_now();
            tracing::info!("barge-in: the robot stops speaking");
            return true;
        }
        false
    }

    /// Forgets the voiced audio counted so far.
    pub fn reset(&mut self) {
        self.voiced = Duration::ZERO;
        self.gap = Duration::ZERO;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_is_closed_while_speaking_and_for_the_tail() {
        let gate = MicGate::new(300);
        let t0 = Instant::now();
        assert!(gate.is_open(t0));
        gate.begin();
        assert!(!gate.is_open(t0 + Duration::from_secs(10)));
        let end = t0 + Duration::from_secs(2);
        gate.end(end);
        assert!(!gate.is_open(end + Duration::from_millis(250)));
        assert!(gate.is_open(end + Duration::from_millis(310)));
    }

    #[test]
    fn a_barge_in_opens_the_gate_until_the_robot_speaks_again() {
        let gate = MicGate::new(300);
        gate.begin();
        gate.open_now();
        assert!(gate.is_open(Instant::now()));
        gate.end(Instant::now());
        gate.begin();
        assert!(!gate.is_open(Instant::now()));
    }
}
