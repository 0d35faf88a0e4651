//! The situation note (`agent.situation = "facts"`): before the first LLM
//! call of a turn, what the understanding stage read — who asks whom for
//! what — and the twin's answers the character would otherwise ask for, in
//! the words the query tools use. The LLM still decides what to do.

use serde_json::json;

use super::statement;
use super::tools;
use super::turn::Turn;
use crate::language::Phrasebook;
use crate::twin::actions::off_the_runtime;
use crate::twin::grounding::{self, Addressee, Grounding};
use crate::twin::Twin;
use crate::understanding::grammar::Grammar;
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
/// (small talk, turns not understood). A statement about the table gets its
/// verdict from the twin. With `plan`, it ends with
/// the steps that would help, or says that nothing is needed.
pub fn note(
    twin: &mut Twin,
    language: (&Grammar, &Phrasebook),
    turn: &Turn,
    reading: &Reading,
    plan: bool,
) -> Option<SituationNote> {
    let (grammar, speech) = language;
    let world = &twin.world;
    let speaker = match grounding::person(world, &turn.speaker) {
        Grounding::Resolved(id) => world.person(id).name.clone(),
        _ => speech.word("note.someone").to_string(),
    };
    let listener = match grounding::addressee(world, &turn.listener) {
        Grounding::Resolved(Addressee::Robot) => Listener::Robot,
        Grounding::Resolved(Addressee::Person(id)) => {
            Listener::Person(world.person(id).name.clone())
        }
        _ => Listener::Group,
    };
    let asked = match &listener {
        Listener::Robot => speech.word("note.you").to_string(),
        Listener::Person(name) => name.clone(),
        Listener::Group => speech.word("note.everyone").to_string(),
    };
    if let Some(verdict) = statement::verdict(world, (grammar, speech), &speaker, reading) {
        return Some(SituationNote {
            text: verdict,
            checked: None,
        });
    }
    let Some(what) = asked_for(reading, &speaker, speech) else {
        return plan
            .then(|| between_people(reading, &speaker, &listener, speech))
            .flatten();
    };
    let mut sentences = vec![speech.say(
        "note.asks",
        &[("speaker", &speaker), ("listener", &asked), ("what", &what)],
    )];
    let object = match reading.referent() {
        Some(object) => object.to_string(),
        None => {
            if let Some(unclear) = unclear_object(reading, speech) {
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
    let mut hindered = None;
    if let Listener::Person(name) = &listener {
        if *name != speaker {
            let check = tools::call_query(
                &twin.world,
                "check_hindering_reasons",
                &json!({"person_name": name, "object_name": object}),
            );
            if check.ok {
                hindered = Some(reasons(&check.facts, speech));
                sentences.push(check.text);
                checked = Some(name.clone());
            }
        }
    }
    // Pouring needs the robot to take the source; everything else the object itself.
    let taken = match reading.act {
        Act::Pour => reading
            .slots
            .source
            .as_ref()
            .or(reading.slots.object.as_ref())
            .and_then(ObjectMention::resolved)
            .unwrap_or(&object)
            .to_string(),
        _ => object.clone(),
    };
    let reach = off_the_runtime(|| {
        tools::call(
            twin,
            "check_reach_object_for_robot",
            &json!({"object_name": taken}),
        )
    });
    if reach.ok {
        sentences.push(reach.text.clone());
    }
    if plan {
        let robot_reaches = reach
            .facts
            .get("reachable")
            .and_then(serde_json::Value::as_bool);
        let step = Step {
            speaker: &speaker,
            listener: &listener,
            hindered: hindered.as_ref(),
            robot_reaches: robot_reaches.unwrap_or(false),
            action: action_call(&twin.world, reading, &speaker, &object),
        };
        sentences.push(step.advice(&twin.world.robot.name, speech));
    }
    Some(SituationNote {
        text: sentences.join(" "),
        checked,
    })
}

/// With `plan`: a turn between people that asks nothing (small talk, thanks,
/// a turn not understood) needs nothing of the robot. Statements are left to
/// the LLM, which may have to correct them.
fn between_people(
    reading: &Reading,
    speaker: &str,
    listener: &Listener,
    speech: &Phrasebook,
) -> Option<SituationNote> {
    let Listener::Person(name) = listener else {
        return None;
    };
    let social = matches!(
        reading.act,
        Act::Thanks | Act::Greeting | Act::Farewell | Act::Refuse | Act::Unknown
    );
    social.then(|| SituationNote {
        text: speech.say(
            "note.between_people",
            &[("speaker", speaker), ("person", name)],
        ),
        checked: None,
    })
}

/// The listener's hindrances as the check found them (empty: nothing hinders).
fn reasons(facts: &serde_json::Value, speech: &Phrasebook) -> Vec<String> {
    let flag = |key: &str| facts.get(key).and_then(serde_json::Value::as_bool);
    [
        (flag("busy") == Some(true)).then_some("note.busy"),
        (flag("visible") == Some(false)).then_some("note.cannot_see"),
        (flag("reachable") == Some(false)).then_some("note.cannot_reach"),
    ]
    .into_iter()
    .flatten()
    .map(|key| speech.word(key).to_string())
    .collect()
}

/// The tool call that would do what was asked, written as the model writes it.
fn action_call(
    world: &crate::twin::World,
    reading: &Reading,
    speaker: &str,
    object: &str,
) -> Option<String> {
    let slots = &reading.slots;
    let named = |p: &Option<crate::understanding::PersonMention>| {
        p.as_ref()
            .and_then(|p| p.name.clone())
            .unwrap_or_else(|| speaker.to_string())
    };
    let call = |tool: &str, person: &str| {
        format!("{tool}(object_name=\"{object}\", person_name=\"{person}\")")
    };
    match reading.act {
        Act::Give => {
            let to = named(&slots.recipient);
            let busy =
                tools::call_query(world, "is_person_busy_or_idle", &json!({"person_name": to}))
                    .facts
                    .get("busy")
                    .and_then(serde_json::Value::as_bool)
                    .unwrap_or(false);
            let tool = if busy {
                "move_object_to_person"
            } else {
                "hand_object_over_to_person"
            };
            Some(call(tool, &to))
        }
        Act::MoveTo => Some(call("move_object_to_person", &named(&slots.recipient))),
        Act::MoveAway => Some(call(
            "move_object_away_from_person",
            &named(&slots.person.clone().or(slots.recipient.clone())),
        )),
        Act::Pour | Act::PourSame => {
            let source = slots
                .source
                .as_ref()
                .or(slots.object.as_ref())?
                .resolved()?;
            let target = slots.target.as_ref()?.resolved()?;
            Some(format!(
                "pour_into(source_container_name=\"{source}\", target_container_name=\"{target}\")"
            ))
        }
        _ => None,
    }
}

/// What the plan sentence is made of.
struct Step<'a> {
    speaker: &'a str,
    listener: &'a Listener,
    hindered: Option<&'a Vec<String>>,
    robot_reaches: bool,
    action: Option<String>,
}

impl Step<'_> {
    /// The steps that would help, or that nothing is needed.
    fn advice(&self, robot: &str, speech: &Phrasebook) -> String {
        let speaker = ("speaker", self.speaker);
        let action = self.action.as_deref().filter(|_| self.robot_reaches);
        if let (Listener::Person(name), Some(reasons)) = (self.listener, self.hindered) {
            if reasons.is_empty() {
                return speech.say("note.nothing_needed", &[("person", name)]);
            }
            let why = speech.say(
                "help.hindered",
                &[
                    ("person", name),
                    ("reasons", &reasons.join(speech.word("words.and"))),
                ],
            );
            return match action {
                Some(action) => speech.say(
                    "note.help_because",
                    &[speaker, ("why", &why), ("action", action)],
                ),
                None => speech.say(
                    "note.cannot_either",
                    &[speaker, ("why", &why), ("robot", robot)],
                ),
            };
        }
        match action {
            Some(action) => speech.say("note.will_do", &[speaker, ("action", action)]),
            None => speech.say("note.cannot", &[speaker]),
        }
    }
}

/// "for red_glass", "to pour cola_bottle into blue_glass", "where red_glass is":
/// what the reading asks, after "Felix asks Daniel".
fn asked_for(reading: &Reading, speaker: &str, speech: &Phrasebook) -> Option<String> {
    let slots = &reading.slots;
    let said = |m: Option<&ObjectMention>| {
        m.map(|m| mention(m, speech))
            .unwrap_or_else(|| speech.word("note.something").to_string())
    };
    let person = |m: &Option<crate::understanding::PersonMention>| {
        m.as_ref()
            .and_then(|p| p.name.clone())
            .unwrap_or_else(|| speaker.to_string())
    };
    let object = said(reading.main_object());
    let about = |key: &str| speech.say(key, &[("object", &object)]);
    let to = |key: &str, whom: &str| speech.say(key, &[("object", &object), ("person", whom)]);
    Some(match reading.act {
        Act::Give => {
            let whom = person(&slots.recipient);
            if whom == speaker {
                about("note.for")
            } else {
                to("note.give_to", &whom)
            }
        }
        Act::MoveTo => to("note.move_to", &person(&slots.recipient)),
        Act::MoveAway => to(
            "note.move_away",
            &person(&slots.person.clone().or(slots.recipient.clone())),
        ),
        Act::Pour => speech.say(
            "note.pour",
            &[
                (
                    "source",
                    &said(slots.source.as_ref().or(slots.object.as_ref())),
                ),
                ("target", &said(slots.target.as_ref())),
            ],
        ),
        Act::PourSame => speech.say(
            "note.pour_same",
            &[("target", &said(slots.target.as_ref()))],
        ),
        Act::AskWhere => about("note.where"),
        Act::AskWhoHas => about("note.who_has"),
        Act::AskContents => about("note.contents"),
        Act::AskHave => about("note.have"),
        Act::AskInventory => speech.word("note.inventory").to_string(),
        _ => return None,
    })
}

/// An object as the note names it: the scene's name, or the candidates.
fn mention(m: &ObjectMention, speech: &Phrasebook) -> String {
    match m.candidates.as_slice() {
        [one] => one.clone(),
        [] => speech.say("note.said", &[("said", &m.said)]),
        many => speech.say(
            "note.said_candidates",
            &[
                ("said", &m.said),
                ("candidates", &many.join(speech.word("words.or"))),
            ],
        ),
    }
}

/// A sentence saying which object is unclear, when the reading has several candidates.
fn unclear_object(reading: &Reading, speech: &Phrasebook) -> Option<String> {
    let m = reading.main_object()?;
    (m.candidates.len() > 1).then(|| {
        speech.say(
            "note.unclear",
            &[
                ("said", &m.said),
                ("candidates", &m.candidates.join(speech.word("words.or"))),
            ],
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note_for(scene: &str, line: &str) -> Option<SituationNote> {
        noted(&mut Twin::load(scene).expect("scene"), line, false)
    }

    fn noted(twin: &mut Twin, line: &str, plan: bool) -> Option<SituationNote> {
        let turn = Turn::parse(line).expect("turn");
        let english = crate::language::Language::english().expect("english");
        let stage = english.understanding();
        let reading = stage.read_in_dialogue(&twin.world, &[], &turn.utterance());
        note(
            twin,
            (stage.grammar(), english.speech()),
            &turn,
            &reading,
            plan,
        )
    }

    #[test]
    fn the_plan_says_what_would_help_or_that_nothing_is_needed() {
        let mut twin = Twin::load("softdrinks").expect("scene");
        // Daniel cannot reach the red glass: explain, hand it to Felix, stop.
        let help = noted(
            &mut twin,
            "Felix said to Daniel: could you hand me the red glass?",
            true,
        )
        .expect("a note");
        assert!(
            help.text.ends_with("What would help: speak to Felix and say that you help because Daniel cannot reach it; then hand_object_over_to_person(object_name=\"red_glass\", person_name=\"Felix\"); then stop."),
            "{}",
            help.text
        );
        // Felix asks Daniel for something Daniel can reach: nothing to do.
        let reachable = twin
            .world
            .object_ids()
            .map(|id| twin.world.object(id).name.clone())
            .find(|name| {
                let check = tools::call_query(
                    &twin.world,
                    "check_hindering_reasons",
                    &json!({"person_name": "Daniel", "object_name": name}),
                );
                check.facts.get("hindered") == Some(&json!(false))
            })
            .expect("an object Daniel can take");
        let line = format!(
            "Felix said to Daniel: Daniel, pass me the {}",
            reachable.replace('_', " ")
        );
        let nothing = noted(&mut twin, &line, true).expect("a note");
        assert!(
            nothing.text.ends_with(
                "What would help: nothing; Daniel can do it. Do not speak or act; only call stop."
            ),
            "{}",
            nothing.text
        );
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
    fn with_a_plan_talk_between_people_needs_nothing_of_the_robot() {
        let mut twin = Twin::load("softdrinks").expect("scene");
        let chat =
            noted(&mut twin, "Felix said to Daniel: nice weather today", true).expect("a note");
        assert!(chat.text.ends_with("only call stop."), "{}", chat.text);
        assert_eq!(
            noted(&mut twin, "Felix said to Daniel: nice weather today", false),
            None
        );
        assert_eq!(
            noted(
                &mut twin,
                "Felix said to the_robot: nice weather today",
                true
            ),
            None
        );
    }

    #[test]
    fn the_note_is_written_in_the_language_of_the_table() {
        let german = crate::language::Language::find("de").expect("german");
        let mut twin = Twin::load("softdrinks").expect("scene");
        let turn = Turn::parse("Felix said to Daniel: Daniel, gibst du mir mal das rote Glas?")
            .expect("turn");
        let stage = german.understanding();
        let reading = stage.read_in_dialogue(&twin.world, &[], &turn.utterance());
        let help = note(
            &mut twin,
            (stage.grammar(), german.speech()),
            &turn,
            &reading,
            true,
        )
        .expect("a note");
        assert!(
            help.text.starts_with("Felix bittet Daniel um red_glass."),
            "{}",
            help.text
        );
        assert!(
            help.text.contains("Was helfen würde: sprich zu Felix und sag, dass du hilfst, und warum: Daniel kann es nicht erreichen"),
            "{}",
            help.text
        );
        let statement =
            Turn::parse("Felix said to Daniel: es gibt keine Fanta mehr").expect("turn");
        let reading = stage.read_in_dialogue(&twin.world, &[], &statement.utterance());
        let verdict = note(
            &mut twin,
            (stage.grammar(), german.speech()),
            &statement,
            &reading,
            true,
        )
        .expect("a verdict");
        assert!(
            verdict.text.contains("die Aussage ist falsch"),
            "{}",
            verdict.text
        );
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
