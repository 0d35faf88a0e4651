//! The judge: the paper's four categories for one turn, read from the turn's
//! events and the twin's state afterwards — never from the LLM's prose.
//!
//! - *success*: the right decision; when helping, an explanation naming the
//!   right reason before the first physical action, and the expected state holds.
//! - *partial*: the right decision, but no explanation before acting, the wrong
//!   reason, missing words, or the expected state only partly holds (e.g. the
//!   receiver got the object instead of the sender).
//! - *execution_error*: it decided to help, but an action failed or the turn hit a limit.
//! - *undesired*: it acted or spoke when it should not, or did nothing when it should help.

use serde::Serialize;

use super::script::{Expect, ExpectedState};
use crate::events::Event;
use crate::twin::{hindrance, World};

/// The paper's outcome categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Right decision, well executed.
    Success,
    /// Right decision, flawed execution or explanation.
    Partial,
    /// Tried to help, could not.
    ExecutionError,
    /// Wrong decision.
    Undesired,
}

impl Category {
    /// All categories, best first.
    pub const ALL: [Category; 4] = [
        Category::Success,
        Category::Partial,
        Category::ExecutionError,
        Category::Undesired,
    ];

    /// The category's name in events and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Success => "success",
            Category::Partial => "partial",
            Category::ExecutionError => "execution_error",
            Category::Undesired => "undesired",
        }
    }
}

/// A verdict with its one-line reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The category.
    pub category: Category,
    /// Why, in one line.
    pub why: String,
}

/// What a turn was expected to bring.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation<'a> {
    /// The decision.
    pub expect: Expect,
    /// The hindrance the explanation must name (busy, reach, see).
    pub reason: Option<&'a str>,
    /// Facts that must hold afterwards.
    pub state: &'a [ExpectedState],
    /// Words the robot must say.
    pub speech: &'a [String],
    /// Who asked (the sender).
    pub sender: &'a str,
    /// Who was asked (the receiver).
    pub receiver: &'a str,
}

/// Words that name each hindrance in an explanation.
fn reason_words(reason: &str) -> &'static [&'static str] {
    match reason {
        "busy" => &["busy", "phone", "occupied", "hands full"],
        "reach" => &["reach", "too far", "far away", "out of range"],
        "see" => &["see", "hidden", "behind", "visible", "blocked", "cover"],
        _ => &[],
    }
}

/// Judges one turn from its events (from `turn` to `episode_end`) and the world after it.
pub fn judge(events: &[Event], world: &World, expected: &Expectation<'_>) -> Verdict {
    let verdict = |category, why: String| Verdict { category, why };
    let speeches: Vec<(usize, &str)> = events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Event::Speech { text, .. } => Some((i, text.as_str())),
            _ => None,
        })
        .collect();
    // Physical actions: what the twin tried, successful or not (gaze and pointing are expressions).
    let actions: Vec<(usize, &str, bool, &str)> = events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Event::Action {
                name, ok, detail, ..
            } if !matches!(name.as_str(), "gaze" | "point_at_object_or_person") => {
                Some((i, name.as_str(), *ok, detail.as_str()))
            }
            _ => None,
        })
        .collect();
    let end_reason = events.iter().rev().find_map(|e| match e {
        Event::EpisodeEnd { reason, .. } => Some(reason.as_str()),
        _ => None,
    });
    let all_speech = speeches
        .iter()
        .map(|(_, t)| t.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    let missing_words: Vec<&String> = expected
        .speech
        .iter()
        .filter(|w| !all_speech.contains(&w.to_lowercase()))
        .collect();

    match expected.expect {
        Expect::Silent => {
            if let Some((_, name, _, _)) = actions.first() {
                verdict(
                    Category::Undesired,
                    format!("acted ({name}) although nobody needed help"),
                )
            } else if let Some((_, text)) = speeches.first() {
                verdict(
                    Category::Undesired,
                    format!("spoke although nobody needed help: \"{text}\""),
                )
            } else {
                verdict(Category::Success, "stayed silent".into())
            }
        }
        Expect::Answer | Expect::Correct => {
            let what = if expected.expect == Expect::Answer {
                "answered"
            } else {
                "corrected"
            };
            if speeches.is_empty() {
                verdict(
                    Category::Undesired,
                    format!("said nothing although it should have {what}"),
                )
            } else if !missing_words.is_empty() {
                verdict(
                    Category::Partial,
                    format!("{what}, but without the words {}", quoted(&missing_words)),
                )
            } else if let Some((_, name, _, _)) = actions.first() {
                verdict(
                    Category::Partial,
                    format!("{what}, but also acted ({name})"),
                )
            } else {
                verdict(Category::Success, what.to_string())
            }
        }
        Expect::Help => {
            if actions.is_empty() && speeches.is_empty() {
                return match end_reason {
                    Some(reason) if reason != "stop" && reason != "no_tool_call" => verdict(
                        Category::ExecutionError,
                        format!("did nothing visible; the turn ended with {reason}"),
                    ),
                    _ => verdict(
                        Category::Undesired,
                        "did nothing although help was needed".into(),
                    ),
                };
            }
            if let Some((_, name, _, detail)) = actions.iter().find(|(_, _, ok, _)| !ok) {
                return verdict(Category::ExecutionError, format!("{name} failed: {detail}"));
            }
            if let Some(reason) = end_reason.filter(|r| !matches!(*r, "stop" | "no_tool_call")) {
                return verdict(
                    Category::ExecutionError,
                    format!("the turn hit a limit ({reason})"),
                );
            }
            if actions.is_empty() && !expected.state.is_empty() {
                return verdict(
                    Category::Undesired,
                    "only talked although it should have acted".into(),
                );
            }
            let first_action = actions.first().map(|(i, _, _, _)| *i).unwrap_or(usize::MAX);
            let before: Vec<&str> = speeches
                .iter()
                .filter(|(i, _)| *i < first_action)
                .map(|(_, t)| *t)
                .collect();
            if !actions.is_empty() && before.is_empty() {
                return verdict(Category::Partial, "acted without explaining first".into());
            }
            let explanation = before.join(" ").to_lowercase();
            if let Some(reason) = expected.reason {
                if !reason_words(reason).iter().any(|w| explanation.contains(w)) {
                    return verdict(
                        Category::Partial,
                        format!("the explanation does not name the reason ({reason})"),
                    );
                }
            }
            if !missing_words.is_empty() {
                return verdict(
                    Category::Partial,
                    format!("helped, but without the words {}", quoted(&missing_words)),
                );
            }
            let failed: Vec<String> = expected
                .state
                .iter()
                .filter_map(|s| state_problem(world, s, expected))
                .collect();
            if failed.is_empty() {
                verdict(
                    Category::Success,
                    "explained the right reason, then helped".into(),
                )
            } else {
                verdict(Category::Partial, failed.join("; "))
            }
        }
    }
}

/// Why an expected fact does not hold, if it does not.
fn state_problem(world: &World, expected: &ExpectedState, who: &Expectation<'_>) -> Option<String> {
    let Some(object) = world.object_named(&expected.object) else {
        return Some(format!("{} is not in the scene", expected.object));
    };
    if let Some(liquid) = &expected.contains {
        let contains = world.object(object).contains.clone();
        if contains.as_deref() != Some(liquid.as_str()) {
            return Some(format!(
                "{} contains {} instead of {liquid}",
                expected.object,
                contains.unwrap_or_else(|| "nothing".into())
            ));
        }
    }
    if let Some(person) = &expected.at {
        let Some(person_id) = world.person_named(person) else {
            return Some(format!("{person} is not in the scene"));
        };
        let holder = world.holder(object);
        let at_person = holder == Some(person_id)
            || (holder.is_none() && hindrance::reaches(world, person_id, object).reachable);
        if !at_person {
            let receiver_got_it = world
                .person_named(who.receiver)
                .is_some_and(|r| holder == Some(r) && person == who.sender);
            return Some(if receiver_got_it {
                format!(
                    "{} went to {} (the receiver) instead of {person}",
                    expected.object, who.receiver
                )
            } else {
                format!("{} is not at {person}", expected.object)
            });
        }
    }
    None
}

fn quoted(words: &[&String]) -> String {
    words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn world_after(give_to: Option<&str>) -> World {
        let mut world = crate::twin::scene::load("softdrinks").expect("scene");
        if let Some(person) = give_to {
            let p = world.person_named(person).expect("person");
            let glass = world.object_named("red_glass").expect("glass");
            world.give_to_person(glass, p).expect("free hand");
        }
        world
    }

    fn speech(text: &str) -> Event {
        Event::Speech {
            to: "Felix".into(),
            text: text.into(),
        }
    }

    fn action(ok: bool, detail: &str) -> Event {
        Event::Action {
            name: "hand_object_over_to_person".into(),
            args: json!({"object_name": "red_glass", "person_name": "Felix"}),
            ok,
            detail: detail.into(),
        }
    }

    fn end(reason: &str) -> Event {
        Event::EpisodeEnd {
            reason: reason.into(),
            llm_calls: 3,
        }
    }

    fn help_red_glass(state: &[ExpectedState]) -> Expectation<'_> {
        Expectation {
            expect: Expect::Help,
            reason: Some("reach"),
            state,
            speech: &[],
            sender: "Felix",
            receiver: "Daniel",
        }
    }

    fn at_felix() -> Vec<ExpectedState> {
        vec![ExpectedState {
            object: "red_glass".into(),
            contains: None,
            at: Some("Felix".into()),
        }]
    }

    #[test]
    fn explained_then_helped_is_success() {
        let state = at_felix();
        let events = [
            speech("Daniel cannot reach the red glass, so I hand it to you."),
            action(true, "You handed red_glass to Felix."),
            end("stop"),
        ];
        let v = judge(
            &events,
            &world_after(Some("Felix")),
            &help_red_glass(&state),
        );
        assert_eq!(v.category, Category::Success, "{}", v.why);
    }

    #[test]
    fn helping_the_receiver_instead_of_the_sender_is_partial() {
        let state = at_felix();
        let events = [
            speech("Daniel cannot reach it."),
            action(true, "You handed red_glass to Daniel."),
            end("stop"),
        ];
        let v = judge(
            &events,
            &world_after(Some("Daniel")),
            &help_red_glass(&state),
        );
        assert_eq!(v.category, Category::Partial);
        assert!(
            v.why.contains("Daniel (the receiver) instead of Felix"),
            "{}",
            v.why
        );
    }

    #[test]
    fn acting_without_speaking_first_is_partial() {
        let state = at_felix();
        let events = [
            action(true, "done"),
            speech("Daniel could not reach it."),
            end("stop"),
        ];
        let v = judge(
            &events,
            &world_after(Some("Felix")),
            &help_red_glass(&state),
        );
        assert_eq!(v.category, Category::Partial);
        assert!(v.why.contains("without explaining"), "{}", v.why);
    }

    #[test]
    fn the_wrong_reason_is_partial() {
        let state = at_felix();
        let events = [
            speech("Daniel is on his phone."),
            action(true, "done"),
            end("stop"),
        ];
        let v = judge(
            &events,
            &world_after(Some("Felix")),
            &help_red_glass(&state),
        );
        assert_eq!(v.category, Category::Partial);
        assert!(v.why.contains("reason"), "{}", v.why);
    }

    #[test]
    fn a_refused_action_or_a_limit_is_an_execution_error() {
        let state = at_felix();
        let events = [
            speech("Daniel cannot reach it."),
            action(false, "red_glass is out of reach of both arms."),
            end("stop"),
        ];
        let v = judge(&events, &world_after(None), &help_red_glass(&state));
        assert_eq!(v.category, Category::ExecutionError);
        assert!(v.why.contains("out of reach"), "{}", v.why);
        let events = [speech("Daniel cannot reach it."), end("llm_call_limit")];
        let v = judge(&events, &world_after(None), &help_red_glass(&state));
        assert_eq!(v.category, Category::ExecutionError);
        let events = [end("timeout")];
        assert_eq!(
            judge(&events, &world_after(None), &help_red_glass(&state)).category,
            Category::ExecutionError
        );
    }

    #[test]
    fn doing_nothing_when_help_is_needed_is_undesired() {
        let state = at_felix();
        let v = judge(&[end("stop")], &world_after(None), &help_red_glass(&state));
        assert_eq!(v.category, Category::Undesired);
    }

    #[test]
    fn speaking_or_acting_when_it_should_stay_silent_is_undesired() {
        let silent = Expectation {
            expect: Expect::Silent,
            reason: None,
            state: &[],
            speech: &[],
            sender: "Felix",
            receiver: "Daniel",
        };
        let v = judge(
            &[speech("We have cola."), end("stop")],
            &world_after(None),
            &silent,
        );
        assert_eq!(v.category, Category::Undesired);
        let v = judge(
            &[action(true, "done"), end("stop")],
            &world_after(None),
            &silent,
        );
        assert_eq!(v.category, Category::Undesired);
        let v = judge(&[end("stop")], &world_after(None), &silent);
        assert_eq!(v.category, Category::Success);
    }

    #[test]
    fn corrections_need_their_words() {
        let words = vec!["cola zero".to_string()];
        let correct = Expectation {
            expect: Expect::Correct,
            reason: None,
            state: &[],
            speech: &words,
            sender: "Daniel",
            receiver: "Felix",
        };
        assert_eq!(
            judge(
                &[speech("There is also cola zero."), end("stop")],
                &world_after(None),
                &correct
            )
            .category,
            Category::Success
        );
        assert_eq!(
            judge(
                &[speech("You forgot something."), end("stop")],
                &world_after(None),
                &correct
            )
            .category,
            Category::Partial
        );
        assert_eq!(
            judge(&[end("stop")], &world_after(None), &correct).category,
            Category::Undesired
        );
    }

    #[test]
    fn a_state_that_only_partly_holds_is_partial() {
        let state = vec![
            ExpectedState {
                object: "red_glass".into(),
                contains: Some("cola".into()),
                at: None,
            },
            ExpectedState {
                object: "red_glass".into(),
                contains: None,
                at: Some("Felix".into()),
            },
        ];
        let events = [
            speech("Daniel cannot reach it."),
            action(true, "done"),
            end("stop"),
        ];
        let v = judge(
            &events,
            &world_after(Some("Felix")),
            &help_red_glass(&state),
        );
        assert_eq!(v.category, Category::Partial);
        assert!(
            v.why.contains("contains nothing instead of cola"),
            "{}",
            v.why
        );
    }
}
