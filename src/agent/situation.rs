//! The situation note (`agent.situation = "facts"`): before the first LLM
//! call of a turn, what the understanding stage read — who asks whom for
//! what — and the twin's answers the character would otherwise ask for, in
//! the words the query tools use. The LLM still decides what to do.

use serde_json::json;

use super::tools;
use super::turn::Turn;
use crate::twin::actions::off_the_runtime;
use crate::twin::grounding::{self, Addressee, Grounding};
use crate::twin::Twin;
use crate::understanding::{Act, ObjectMention, Reading};

/// What the note says, and whose hindrance it states (that counts as the check).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SituationNote {
    /// The note, without the control system's prefix.
    pub text: String,
    /// The person whose hindrances for the object the note states.
    pub checked: Option<String>,
}

/// Who a turn's listener is, for the note.
enum Listener {
    Robot,
    Person(String),
    Group,
}

/// The note for `turn`, read as `reading`; `None` when nothing was read
/// (small talk, statements, turns not understood).
pub fn note(twin: &mut Twin, turn: &Turn, reading: &Reading) -> Option<SituationNote> {
    let world = &twin.world;
    let speaker = match grounding::person(world, &turn.speaker) {
        Grounding::Resolved(id) => world.person(id).name.clone(),
        _ => "someone".to_string(),
    };
    let listener = match grounding::addressee(world, &turn.listener) {
        Grounding::Resolved(Addressee::Robot) => Listener::Robot,
        Grounding::Resolved(Addressee::Person(id)) => {
            Listener::Person(world.person(id).name.clone())
        }
        _ => Listener::Group,
    };
    let asked = match &listener {
        Listener::Robot => "you".to_string(),
        Listener::Person(name) => name.clone(),
        Listener::Group => "everyone".to_string(),
    };
    let what = asked_for(reading, &speaker)?;
    let mut sentences = vec![format!("{speaker} asks {asked} {what}.")];
    let object = match reading.referent() {
        Some(object) => object.to_string(),
        None => {
            if let Some(unclear) = unclear_object(reading) {
                sentences.push(unclear);
            }
            return Some(SituationNote {
                text: sentences.join(" "),
                checked: None,
            });
        }
    };
    if !reading.act.is_request() {
        return Some(SituationNote {
            text: sentences.join(" "),
            checked: None,
        });
    }
    let mut checked = None;
    if let Listener::Person(name) = &listener {
        if *name != speaker {
            let check = tools::call_query(
                &twin.world,
                "check_hindering_reasons",
                &json!({"person_name": name, "object_name": object}),
            );
            if check.ok {
                sentences.push(check.text);
                checked = Some(name.clone());
            }
        }
    }
    let reach = off_the_runtime(|| {
        tools::call(
            twin,
            "check_reach_object_for_robot",
            &json!({"object_name": object}),
        )
    });
    if reach.ok {
        sentences.push(reach.text);
    }
    Some(SituationNote {
        text: sentences.join(" "),
        checked,
    })
}

/// "for red_glass", "to pour cola_bottle into blue_glass", "where red_glass is":
/// what the reading asks, after "Felix asks Daniel".
fn asked_for(reading: &Reading, speaker: &str) -> Option<String> {
    let slots = &reading.slots;
    let said = |m: Option<&ObjectMention>| m.map(mention).unwrap_or_else(|| "something".into());
    let person = |m: &Option<crate::understanding::PersonMention>| {
        m.as_ref()
            .and_then(|p| p.name.clone())
            .unwrap_or_else(|| speaker.to_string())
    };
    let object = said(reading.main_object());
    Some(match reading.act {
        Act::Give => {
            let to = person(&slots.recipient);
            if to == speaker {
                format!("for {object}")
            } else {
                format!("to give {object} to {to}")
            }
        }
        Act::MoveTo => format!("to move {object} to {}", person(&slots.recipient)),
        Act::MoveAway => format!(
            "to move {object} away from {}",
            person(&slots.person.clone().or(slots.recipient.clone()))
        ),
        Act::Pour => format!(
            "to pour {} into {}",
            said(slots.source.as_ref().or(slots.object.as_ref())),
            said(slots.target.as_ref())
        ),
        Act::PourSame => format!("to pour the same into {}", said(slots.target.as_ref())),
        Act::AskWhere => format!("where {object} is"),
        Act::AskWhoHas => format!("who has {object}"),
        Act::AskContents => format!("what {object} holds"),
        Act::AskHave => format!("whether there is {object}"),
        Act::AskInventory => "what there is on the table".to_string(),
        _ => return None,
    })
}

/// An object as the note names it: the scene's name, or the candidates.
fn mention(m: &ObjectMention) -> String {
    match m.candidates.as_slice() {
        [one] => one.clone(),
        [] => format!("\"{}\"", m.said),
        many => format!("\"{}\"", m.said).to_string() + &format!(" ({})", many.join(" or ")),
    }
}

/// A sentence saying which object is unclear, when the reading has several candidates.
fn unclear_object(reading: &Reading) -> Option<String> {
    let m = reading.main_object()?;
    (m.candidates.len() > 1).then(|| {
        format!(
            "It is not clear which object \"{}\" means: {}.",
            m.said,
            m.candidates.join(" or ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::understanding::Understanding;

    fn note_for(scene: &str, line: &str) -> Option<SituationNote> {
        let mut twin = Twin::load(scene).expect("scene");
        let turn = Turn::parse(line).expect("turn");
        let stage = Understanding::shipped().expect("sentences");
        let reading = stage.read_in_dialogue(&twin.world, &[], &turn.utterance());
        note(&mut twin, &turn, &reading)
    }

    #[test]
    fn a_request_between_people_states_the_listeners_hindrances_and_the_robots_reach() {
        let note = note_for(
            "softdrinks",
            "Felix said to Daniel: Daniel, could you pass me the cola bottle?",
        )
        .expect("a note");
        assert!(
            note.text.starts_with("Felix asks Daniel for cola_bottle."),
            "{}",
            note.text
        );
        assert!(
            note.text.contains("Daniel can") || note.text.contains("Daniel cannot"),
            "{}",
            note.text
        );
        assert!(
            note.text.contains("the_robot can") || note.text.contains("the_robot cannot"),
            "{}",
            note.text
        );
        assert_eq!(note.checked.as_deref(), Some("Daniel"));
    }

    #[test]
    fn small_talk_gets_no_note_and_the_robot_asked_is_not_checked() {
        assert_eq!(
            note_for("softdrinks", "Felix said to Daniel: nice weather today"),
            None
        );
        let asked = note_for(
            "softdrinks",
            "Felix said to the_robot: please give me the cola bottle",
        )
        .expect("a note");
        assert!(
            asked.text.starts_with("Felix asks you for cola_bottle."),
            "{}",
            asked.text
        );
        assert_eq!(asked.checked, None);
    }
}
