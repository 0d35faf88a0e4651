//! Intake: every turn (spoken or posted) goes through here. Interrupt words
//! ("stop", "wait", "go on") become control commands at once; other turns wait
//! in one bounded queue, in order, for the agent worker.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::Notify;

use crate::agent::Turn;

/// What an interrupt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterruptKind {
    /// End the current episode and forget it.
    Stop,
    /// End the current episode but keep it to resume.
    Pause,
    /// Run the paused episode again.
    Resume,
}

impl InterruptKind {
    /// The word of the `interrupted` event and the API.
    pub fn as_str(self) -> &'static str {
        match self {
            InterruptKind::Stop => "stop",
            InterruptKind::Pause => "pause",
            InterruptKind::Resume => "resume",
        }
    }

    /// Parses the API's word.
    pub fn parse(word: &str) -> Option<Self> {
        match word.trim().to_lowercase().as_str() {
            "stop" => Some(Self::Stop),
            "pause" | "wait" => Some(Self::Pause),
            "resume" | "continue" => Some(Self::Resume),
            _ => None,
        }
    }
}

/// Words that may surround an interrupt without changing it.
const FILLERS: &[&str] = &[
    "hey",
    "ok",
    "okay",
    "oh",
    "please",
    "robot",
    "it",
    "that",
    "now",
    "a",
    "second",
    "moment",
    "sec",
    "minute",
    "just",
    "everyone",
    "everybody",
    "all",
    "guys",
    "you",
];

/// Whether a turn's text is only an interrupt ("Stop!", "Robot, wait a second",
/// "hold on", "go on please"). Longer sentences that merely contain the word
/// ("wait, where is the cola?") are ordinary turns.
pub fn interrupt_in(text: &str, robot_name: &str) -> Option<InterruptKind> {
    let lower = text.to_lowercase().replace(['_', '-'], " ");
    let robot_words = robot_name_words(robot_name);
    let words: Vec<String> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .filter(|w| !FILLERS.contains(w) && *w != "the" && !robot_words.iter().any(|r| r == w))
        .map(str::to_string)
        .collect();
    let phrase = words.join(" ");
    match phrase.as_str() {
        "stop" | "stop stop" | "halt" | "cancel" | "abort" | "never mind" | "nevermind" => {
            Some(InterruptKind::Stop)
        }
        "wait" | "wait wait" | "hold on" | "hang on" | "pause" | "one" => {
            Some(InterruptKind::Pause)
        }
        "continue" | "go on" | "carry on" | "resume" | "go ahead" | "keep going" => {
            Some(InterruptKind::Resume)
        }
        _ => None,
    }
}

/// The words of the robot's name ("the_robot" -> the, robot), which may stand as a vocative.
fn robot_name_words(name: &str) -> Vec<String> {
    name.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A turn waiting for the worker, with the `seq` of its `turn` event.
#[derive(Debug, Clone, PartialEq)]
pub struct Queued {
    /// The turn.
    pub turn: Turn,
    /// The `seq` of its `turn` event in the log.
    pub seq: u64,
}

/// The bounded queue between intake and the worker.
#[derive(Debug)]
pub struct TurnQueue {
    capacity: usize,
    turns: Mutex<VecDeque<Queued>>,
    ready: Notify,
}

impl TurnQueue {
    /// An empty queue holding at most `capacity` turns.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            turns: Mutex::new(VecDeque::new()),
            ready: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Queued>> {
        match self.turns.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Adds a turn; returns the oldest turn dropped to make room, if any.
    pub fn push(&self, item: Queued) -> Option<Queued> {
        let dropped = {
            let mut turns = self.lock();
            turns.push_back(item);
            if turns.len() > self.capacity {
                turns.pop_front()
            } else {
                None
            }
        };
        self.ready.notify_one();
        dropped
    }

    /// Turns waiting.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no turn waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes the oldest turn, if any.
    pub fn try_pop(&self) -> Option<Queued> {
        self.lock().pop_front()
    }

    /// Waits until a turn may be there (spurious wake-ups are possible: call `try_pop`).
    pub async fn wait(&self) {
        if !self.is_empty() {
            return;
        }
        self.ready.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_interrupts_are_recognised_and_sentences_are_not() {
        let r = "the_robot";
        assert_eq!(interrupt_in("Stop!", r), Some(InterruptKind::Stop));
        assert_eq!(
            interrupt_in("Robot, stop it.", r),
            Some(InterruptKind::Stop)
        );
        assert_eq!(interrupt_in("the robot stop", r), Some(InterruptKind::Stop));
        assert_eq!(interrupt_in("Wait a second", r), Some(InterruptKind::Pause));
        assert_eq!(
            interrupt_in("hold on, please", r),
            Some(InterruptKind::Pause)
        );
        assert_eq!(interrupt_in("OK, go on.", r), Some(InterruptKind::Resume));
        assert_eq!(interrupt_in("Continue", r), Some(InterruptKind::Resume));
        assert_eq!(interrupt_in("Wait, where is the cola?", r), None);
        assert_eq!(interrupt_in("Please pass me the red glass", r), None);
        assert_eq!(interrupt_in("Don't stop the music", r), None);
    }

    #[test]
    fn the_queue_keeps_order_and_drops_the_oldest_beyond_its_bound() {
        let q = TurnQueue::new(2);
        let item = |n: u64| Queued {
            turn: Turn::parse(&format!("Felix -> Daniel: turn {n}")).unwrap(),
            seq: n,
        };
        assert!(q.push(item(1)).is_none());
        assert!(q.push(item(2)).is_none());
        assert_eq!(q.push(item(3)).map(|d| d.seq), Some(1));
        assert_eq!(q.try_pop().map(|d| d.seq), Some(2));
        assert_eq!(q.try_pop().map(|d| d.seq), Some(3));
        assert!(q.try_pop().is_none());
    }
}

/// What became of a submitted turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Submitted {
    /// The `seq` of its `turn` event.
    pub seq: u64,
    /// The interrupt it carried, with what that did.
    pub interrupt: Option<(InterruptKind, String)>,
}

/// The one way in for turns and interrupts, shared by the HTTP API and the microphone.
#[derive(Clone)]
pub struct Intake {
    /// The event bus.
    pub bus: super::bus::Bus,
    /// Turns waiting for the worker.
    pub queue: std::sync::Arc<TurnQueue>,
    /// The running episode.
    pub episodes: std::sync::Arc<super::worker::Episodes>,
    /// Scene changes and resumes to the worker.
    pub control: tokio::sync::mpsc::Sender<super::worker::Control>,
    /// The robot's name (a vocative before "stop").
    pub robot_name: String,
    /// Cancelled when the daemon stops taking turns.
    pub closed: tokio_util::sync::CancellationToken,
    /// The robot's voice, hushed by stop and wait.
    pub voice: Option<crate::voice::Voice>,
    /// Turns the robot's head to whoever just stopped speaking (with a robot).
    pub glance: Option<Glance>,
    /// The last turn queued, with its `seq` (for correcting its speaker).
    pub last_turn: std::sync::Arc<std::sync::Mutex<Option<(u64, Turn)>>>,
    /// The language's sentences: a turn that puts right the one being acted on
    /// ("Oh no, sorry, I meant the oat milk.") stops it first.
    pub understanding: Option<crate::understanding::Understanding>,
}

/// The cue at the end of a person's speech: the robot's head turns to them.
#[derive(Clone)]
pub struct Glance {
    /// The robot's head.
    pub head: crate::robot::bridge::Head,
    /// Each person's eyes in the world.
    pub eyes: std::collections::HashMap<String, glam::Vec3>,
}

impl Glance {
    /// Looks at `speaker` if they are one of the scene's persons.
    pub fn at(&self, speaker: &str) {
        if let Some(eyes) = self.eyes.get(speaker) {
            self.head.glance(*eyes);
        }
    }
}

impl Intake {
    /// Logs the turn, then either interrupts (stop, wait, go on) or queues it.
    /// "Stop" while nothing runs, or "go on" while nothing is paused, is just
    /// talk: it is queued like any turn, so the agent hears it.
    pub fn submit(&self, turn: Turn) -> Result<Submitted, &'static str> {
        if self.closed.is_cancelled() {
            return Err("the daemon is shutting down and takes no more turns");
        }
        let speaking = self.voice.as_ref().is_some_and(|v| v.gate().is_speaking());
        let interrupt = interrupt_in(&turn.text, &self.robot_name).filter(|kind| match kind {
            InterruptKind::Resume => self.episodes.paused().is_some(),
            _ => self.episodes.busy() || speaking,
        });
        match interrupt {
            Some(kind) => {
                let seq = self.bus.publish(crate::events::Event::Turn {
                    speaker: turn.speaker.clone(),
                    listener: turn.listener.clone(),
                    text: turn.text.clone(),
                    speaker_by: turn.speaker_by.clone(),
                });
                let effect = self.interrupt(kind, &turn.speaker);
                Ok(Submitted {
                    seq,
                    interrupt: Some((kind, effect)),
                })
            }
            None => {
                if self.puts_right_the_running_turn(&turn) {
                    let effect = self.interrupt(InterruptKind::Stop, &turn.speaker);
                    tracing::info!(%effect, "a correction of the turn being handled");
                }
                let seq = super::worker::enqueue(&self.bus, &self.queue, turn.clone());
                if let Ok(mut last) = self.last_turn.lock() {
                    *last = Some((seq, turn));
                }
                Ok(Submitted {
                    seq,
                    interrupt: None,
                })
            }
        }
    }

    /// Whether `turn` puts right the turn the running episode handles, by the
    /// same person to the same listener: what that episode does is not wanted.
    fn puts_right_the_running_turn(&self, turn: &Turn) -> bool {
        let (Some(stage), Some(running)) = (&self.understanding, self.episodes.running_turn())
        else {
            return false;
        };
        stage.puts_right(&running.utterance(), &turn.utterance())
    }

    /// Corrects who said the last turn: a `speaker_corrected` event, then the
    /// same turn again as said by `speaker` (the agent is told why).
    pub fn correct_speaker(&self, speaker: &str) -> Result<Submitted, String> {
        let last = self.last_turn.lock().ok().and_then(|l| l.clone());
        let Some((turn_seq, turn)) = last else {
            return Err("there is no turn to correct yet".into());
        };
        if turn.speaker == speaker {
            return Err(format!("the last turn is already {speaker}'s"));
        }
        self.bus.publish(crate::events::Event::SpeakerCorrected {
            turn_seq,
            speaker: speaker.to_string(),
            was: turn.speaker.clone(),
        });
        let corrected = Turn {
            speaker: speaker.to_string(),
            speaker_by: Some("corrected".into()),
            ..turn
        };
        self.submit(corrected).map_err(str::to_string)
    }

    /// Stops, pauses or resumes; returns what it did, in words.
    pub fn interrupt(&self, kind: InterruptKind, by: &str) -> String {
        match kind {
            InterruptKind::Stop | InterruptKind::Pause => {
                if let Some(voice) = &self.voice {
                    crate::agent::Mouth::hush(voice);
                }
                self.interrupt_episode(kind, by)
            }
            InterruptKind::Resume => {
                match self
                    .control
                    .try_send(super::worker::Control::Resume { by: by.to_string() })
                {
                    Ok(()) => "resuming what was paused, if anything".to_string(),
                    Err(_) => "the worker cannot take it now; try again".to_string(),
                }
            }
        }
    }

    fn interrupt_episode(&self, kind: InterruptKind, by: &str) -> String {
        match self.episodes.interrupt(kind, by) {
            Some(turn) => {
                self.bus.publish(crate::events::Event::Interrupted {
                    by: by.to_string(),
                    kind: kind.as_str().to_string(),
                });
                let verb = if kind == InterruptKind::Stop {
                    "stopped"
                } else {
                    "paused"
                };
                format!("{verb} the episode for \"{turn}\"")
            }
            None => "nothing was running; the robot stopped speaking".to_string(),
        }
    }
}
