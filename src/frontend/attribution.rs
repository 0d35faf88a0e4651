//! Who spoke when the direction of arrival cannot tell (one microphone): the
//! speaker named themselves, answered the robot's question, or is the only
//! other person at the table; else the configured fallback; else unknown.
//! Each answer says how it was found (`speaker_by` in the turn event).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::doa::Doa;
use super::listener::{resolve_listener, ListenerReason, ALL};
use super::participants::Participants;
use super::speaker::{resolve_speaker, UNKNOWN_SPEAKER};

/// How the speaker of a turn was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpeakerBy {
    /// The direction of arrival matched a person's head (a microphone array).
    Direction,
    /// The listener is known and exactly one other person is at the table.
    Elimination,
    /// The speaker said their own name ("Felix here, ...", "it's Felix").
    Named,
    /// A reply right after the robot asked that person a question.
    Answer,
    /// `audio.fallback_speaker`.
    Config,
    /// Nobody could tell.
    Unknown,
}

impl SpeakerBy {
    /// The name in events.
    pub fn as_str(self) -> &'static str {
        match self {
            SpeakerBy::Direction => "direction",
            SpeakerBy::Elimination => "elimination",
            SpeakerBy::Named => "named",
            SpeakerBy::Answer => "answer",
            SpeakerBy::Config => "config",
            SpeakerBy::Unknown => "unknown",
        }
    }
}

/// The robot's last question to a person, shared between the voice (which
/// asks) and the front end (which attributes the reply).
#[derive(Debug, Clone, Default)]
pub struct LastQuestion(Arc<Mutex<Option<(String, Instant)>>>);

impl LastQuestion {
    /// The robot just asked `person` something.
    pub fn asked(&self, person: &str) {
        if let Ok(mut last) = self.0.lock() {
            *last = Some((person.to_string(), Instant::now()));
        }
    }

    /// Whom the robot asked within `window` before `now`, if anyone.
    pub fn recent(&self, now: Instant, window: Duration) -> Option<String> {
        let last = self.0.lock().ok()?;
        let (person, at) = last.as_ref()?;
        (now.saturating_duration_since(*at) <= window).then(|| person.clone())
    }
}

/// Speaker and listener of one utterance, and how each was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    /// The speaker's name, or `unknown`.
    pub speaker: String,
    /// How.
    pub speaker_by: SpeakerBy,
    /// The listener (a person, the robot, or `All`).
    pub listener: String,
    /// How.
    pub listener_by: ListenerReason,
}

/// What attribution weighs besides the text.
pub struct Clues<'a> {
    /// The direction of arrival, when measured.
    pub doa: Option<&'a Doa>,
    /// The largest angle between a direction and a head that still matches.
    pub max_error_deg: f32,
    /// Half-angle of the gaze cone for the listener.
    pub cone_deg: f32,
    /// Whom the robot just asked, if within the answer window.
    pub asked: Option<String>,
    /// `audio.fallback_speaker`.
    pub fallback: Option<&'a str>,
}

/// Attributes an utterance: direction first (it wins whenever it is measured
/// and matches), then the speaker's own name, an answer, elimination, the
/// configured fallback.
pub fn attribute(text: &str, participants: &Participants, clues: &Clues<'_>) -> Attribution {
    let by_direction = resolve_speaker(clues.doa, participants, clues.max_error_deg, None);
    let (speaker, speaker_by) = if by_direction.name != UNKNOWN_SPEAKER {
        (by_direction.name, SpeakerBy::Direction)
    } else if let Some(name) = self_named(text, participants) {
        (name, SpeakerBy::Named)
    } else if let Some(asked) = clues
        .asked
        .clone()
        .filter(|a| participants.person(a).is_some())
    {
        (asked, SpeakerBy::Answer)
    } else if let Some(only) = eliminated(text, participants) {
        (only, SpeakerBy::Elimination)
    } else if let Some(fallback) = clues.fallback {
        (fallback.to_string(), SpeakerBy::Config)
    } else {
        (UNKNOWN_SPEAKER.to_string(), SpeakerBy::Unknown)
    };
    let (listener, listener_by) = resolve_listener(text, &speaker, participants, clues.cone_deg);
    Attribution {
        speaker,
        speaker_by,
        listener,
        listener_by,
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('\'', ""))
        .collect()
}

/// "Felix here, ...", "it's Felix", "this is Felix", "for me, Felix": the person named.
fn self_named(text: &str, participants: &Participants) -> Option<String> {
    let w = words(text);
    let is = |word: Option<&String>, name: &str| word.is_some_and(|x| x.eq_ignore_ascii_case(name));
    participants
        .people
        .iter()
        .find(|p| {
            let name = p.name.as_str();
            let at = |i: usize| w.get(i);
            (is(at(0), name) && at(1).is_some_and(|x| x == "here" || x == "speaking"))
                || (at(0).is_some_and(|x| x == "its") && is(at(1), name))
                || (at(0).is_some_and(|x| x == "it" || x == "this")
                    && at(1).is_some_and(|x| x == "is")
                    && is(at(2), name))
                || (w.len() >= 2 && is(w.last(), name) && w[w.len() - 2] == "me")
        })
        .map(|p| p.name.clone())
}

/// The listener known from a vocative (the only clue without a speaker), and
/// exactly one other person at the table: that person spoke. Talking to the
/// robot or to everyone with one person at the table: that person.
fn eliminated(text: &str, participants: &Participants) -> Option<String> {
    let (listener, _) = resolve_listener(text, UNKNOWN_SPEAKER, participants, 0.0);
    let others: Vec<&str> = participants
        .people
        .iter()
        .map(|p| p.name.as_str())
        .filter(|n| !n.eq_ignore_ascii_case(&listener))
        .collect();
    let listener_known = listener != ALL;
    match others.as_slice() {
        [only] if listener_known || participants.people.len() == 1 => Some(only.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::doa::Doa;
    use crate::frontend::participants::{facing_from_yaw, Participant};
    use glam::Vec3;

    fn person(name: &str, x: f32, y: f32, yaw: f32) -> Participant {
        Participant {
            name: name.into(),
            head: Vec3::new(x, y, 1.2),
            facing: facing_from_yaw(yaw),
        }
    }

    fn table(names: &[(&str, f32, f32, f32)]) -> Participants {
        Participants {
            people: names
                .iter()
                .map(|(n, x, y, yaw)| person(n, *x, *y, *yaw))
                .collect(),
            robot: person("the_robot", -0.85, 0.0, 0.0),
            microphone_array_origin: Vec3::new(-0.85, 0.0, 1.0),
        }
    }

    fn two() -> Participants {
        table(&[("Felix", 0.0, 0.7, -90.0), ("Daniel", 0.0, -0.7, 90.0)])
    }

    fn three() -> Participants {
        table(&[
            ("Felix", 0.0, 0.7, -90.0),
            ("Daniel", 0.0, -0.7, 90.0),
            ("Anna", 0.8, 0.0, 180.0),
        ])
    }

    fn clues() -> Clues<'static> {
        Clues {
            doa: None,
            max_error_deg: 25.0,
            cone_deg: 30.0,
            asked: None,
            fallback: None,
        }
    }

    fn who(
        text: &str,
        participants: &Participants,
        clues: &Clues<'_>,
    ) -> (String, SpeakerBy, String) {
        let a = attribute(text, participants, clues);
        (a.speaker, a.speaker_by, a.listener)
    }

    #[test]
    fn two_people_and_a_named_listener_leave_the_other() {
        assert_eq!(
            who(
                "Daniel, could you hand me the red glass, please?",
                &two(),
                &clues()
            ),
            ("Felix".into(), SpeakerBy::Elimination, "Daniel".into())
        );
        // The robot addressed: still two people who could have spoken.
        assert_eq!(
            who("Robot, could you hand me the red glass?", &two(), &clues()).1,
            SpeakerBy::Unknown
        );
    }

    #[test]
    fn three_people_and_no_name_is_unknown_and_the_listener_is_never_the_speaker() {
        let (speaker, by, listener) = who(
            "Daniel, could you hand me the red glass?",
            &three(),
            &clues(),
        );
        assert_eq!((speaker.as_str(), by), ("unknown", SpeakerBy::Unknown));
        assert_eq!(listener, "Daniel");
        let (speaker, ..) = who("Daniel, pass me the cola", &two(), &clues());
        assert_ne!(speaker, "Daniel");
    }

    #[test]
    fn one_person_alone_talking_to_the_robot_is_that_person() {
        let alone = table(&[("Felix", 0.0, 0.7, -90.0)]);
        assert_eq!(
            who("Could you hand me the red glass?", &alone, &clues()),
            ("Felix".into(), SpeakerBy::Elimination, "All".into())
        );
    }

    #[test]
    fn people_who_name_themselves() {
        for text in [
            "Felix here, could you pass the cola?",
            "It's Felix. Pass the cola.",
            "this is for me, Felix",
        ] {
            assert_eq!(who(text, &three(), &clues()).0, "Felix", "{text}");
            assert_eq!(who(text, &three(), &clues()).1, SpeakerBy::Named, "{text}");
        }
        // Naming someone else is no self-naming.
        assert_eq!(
            who("Felix, pass the cola", &three(), &clues()).1,
            SpeakerBy::Unknown
        );
    }

    #[test]
    fn a_reply_to_the_robots_question_comes_from_the_one_asked() {
        let asked = Clues {
            asked: Some("Anna".into()),
            ..clues()
        };
        assert_eq!(who("the red one please", &three(), &asked).0, "Anna");
        assert_eq!(
            who("the red one please", &three(), &asked).1,
            SpeakerBy::Answer
        );
        let board = LastQuestion::default();
        board.asked("Anna");
        let now = Instant::now();
        assert_eq!(
            board.recent(now, Duration::from_secs(8)).as_deref(),
            Some("Anna")
        );
        assert_eq!(
            board.recent(now + Duration::from_secs(9), Duration::from_secs(8)),
            None
        );
    }

    #[test]
    fn the_fallback_and_then_the_direction_win_over_guessing() {
        let fallback = Clues {
            fallback: Some("Anna"),
            ..clues()
        };
        assert_eq!(
            who("pass the cola", &three(), &fallback).1,
            SpeakerBy::Config
        );
        // A measured direction towards Daniel beats the name said and the fallback.
        let participants = three();
        let daniel = participants.person("Daniel").expect("Daniel").head;
        let doa = Doa {
            azimuth_deg: super::super::speaker::azimuth_of(&participants, daniel),
            elevation_deg: 0.0,
            strength: 1.0,
        };
        let measured = Clues {
            doa: Some(&doa),
            ..fallback
        };
        assert_eq!(
            who("Felix here, pass the cola", &participants, &measured).0,
            "Daniel"
        );
        assert_eq!(
            who("Felix here, pass the cola", &participants, &measured).1,
            SpeakerBy::Direction
        );
    }
}
