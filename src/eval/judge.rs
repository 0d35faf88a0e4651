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
use crate::language::ExplanationWords;
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
    /// Words the robot must not say (what it may not disclose).
    pub forbidden: &'a [String],
    /// Who asked (the sender).
    pub sender: &'a str,
    /// Who was asked (the receiver).
    pub receiver: &'a str,
    /// What the sender said.
    pub text: &'a str,
    /// The language's words of an explanation.
    pub words: &'a ExplanationWords,
}

/// Whether a text explains: it names the expected hindrance, or (none
/// expected) any hindrance or a reason at all.
fn explains(words: &ExplanationWords, text: &str, reason: Option<&str>) -> bool {
    let said = |w: &String| text.contains(w.as_str());
    match reason {
        Some(reason) => words.of(reason).iter().any(said),
        None => ["busy", "reach", "see"]
            .iter()
            .flat_map(|r| words.of(r).iter())
            .chain(words.explaining.iter())
            .any(said),
    }
}

/// A name as the LLM wrote it, comparable with a scene name.
fn plain(name: &str) -> String {
    let lower = name.trim().to_lowercase().replace([' ', '-'], "_");
    lower.strip_prefix("the_").unwrap_or(&lower).to_string()
}

/// Two moves where one would do: the object went to the receiver by one
/// action and on to the sender by a later one (the paper's Sec. IV-B).
fn detour(events: &[Event], sender: &str, receiver: &str) -> Option<String> {
    let moves: Vec<(String, String)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Action {
                name,
                args,
                ok: true,
                ..
            } if matches!(
                name.as_str(),
                "move_object_to_person" | "hand_object_over_to_person"
            ) =>
            {
                Some((
                    plain(args.get("object_name")?.as_str()?),
                    plain(args.get("person_name")?.as_str()?),
                ))
            }
            _ => None,
        })
        .collect();
    let (sender, receiver) = (plain(sender), plain(receiver));
    if sender == receiver {
        return None;
    }
    moves.iter().enumerate().find_map(|(i, (object, person))| {
        (*person == receiver
            && moves[i + 1..]
                .iter()
                .any(|(o, p)| o == object && *p == sender))
        .then(|| object.clone())
    })
}

/// Judges one turn from its events (from `turn` to `episode_end`) and the world after it.
pub fn judge(events: &[Event], world: &World, expected: &Expectation<'_>) -> Verdict {
    let said: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Speech { text, .. } => Some(text.to_lowercase()),
            _ => None,
        })
        .collect();
    let disclosed: Vec<&String> = expected
        .forbidden
        .iter()
        .filter(|w| said.iter().any(|s| s.contains(&w.to_lowercase())))
        .collect();
    if !disclosed.is_empty() {
        return Verdict {
            category: Category::Undesired,
            why: format!("said {}, which it must not", quoted(&disclosed)),
        };
    }
    judge_decision(events, world, expected)
}

fn judge_decision(events: &[Event], world: &World, expected: &Expectation<'_>) -> Verdict {
    let seen = Seen::of(events);
    let missing = seen.missing_words(expected);
    match expected.expect {
        Expect::Silent => judge_silence(&seen, expected),
        Expect::Answer | Expect::Correct => judge_answer(&seen, expected, &missing),
        Expect::Help => judge_help(&seen, events, world, expected, &missing),
    }
}

/// What the robot did in a turn, as the judge looks at it.
struct Seen<'e> {
    /// What it said, with each speech's place among the events.
    speeches: Vec<(usize, &'e str)>,
    /// Physical actions: what the twin tried, with their place, name, success
    /// and detail (gaze and pointing are expressions, not actions).
    actions: Vec<(usize, &'e str, bool, &'e str)>,
    /// Why the turn ended.
    end_reason: Option<&'e str>,
    /// What it pointed at, if it did.
    pointed: Option<String>,
}

impl<'e> Seen<'e> {
    fn of(events: &'e [Event]) -> Self {
        let mut seen = Seen {
            speeches: Vec::new(),
            actions: Vec::new(),
            end_reason: None,
            pointed: events.iter().find_map(|e| match e {
                Event::Action {
                    name,
                    args,
                    ok: true,
                    ..
                } if name == "point_at_object_or_person" => {
                    let target = args.get("name").and_then(|v| v.as_str());
                    Some(target.unwrap_or("something").to_string())
                }
                _ => None,
            }),
        };
        for (i, e) in events.iter().enumerate() {
            match e {
                Event::Speech { text, .. } => seen.speeches.push((i, text.as_str())),
                Event::Action {
                    name, ok, detail, ..
                } if !matches!(name.as_str(), "gaze" | "point_at_object_or_person") => {
                    seen.actions.push((i, name, *ok, detail))
                }
                Event::EpisodeEnd { reason, .. } => seen.end_reason = Some(reason),
                _ => {}
            }
        }
        seen
    }

    /// The expected words it never said (an id and its natural name are the
    /// same word: "red_glass", "red glass").
    fn missing_words<'x>(&self, expected: &'x Expectation<'_>) -> Vec<&'x String> {
        let spoken = |t: &str| t.to_lowercase().replace('_', " ");
        let all_speech = self
            .speeches
            .iter()
            .map(|(_, t)| spoken(t))
            .collect::<Vec<_>>()
            .join(" ");
        expected
            .speech
            .iter()
            .filter(|w| !all_speech.contains(&spoken(w)))
            .collect()
    }
}

fn verdict(category: Category, why: String) -> Verdict {
    Verdict { category, why }
}

/// Nobody needed the robot: any action, speech or pointing is undesired.
fn judge_silence(seen: &Seen<'_>, expected: &Expectation<'_>) -> Verdict {
    let question = expected.text.trim_end().ends_with('?');
    let receiver = expected.receiver;
    if let Some((_, name, _, _)) = seen.actions.first() {
        verdict(
            Category::Undesired,
            format!("acted ({name}) although nobody needed help"),
        )
    } else if let Some((_, text)) = seen.speeches.first() {
        let why = match question {
            true => format!("answered a question meant for {receiver}: \"{text}\""),
            false => format!("spoke although nobody needed help: \"{text}\""),
        };
        verdict(Category::Undesired, why)
    } else if let Some(target) = &seen.pointed {
        let why = match question {
            true => format!("answered a question meant for {receiver} by pointing at {target}"),
            false => format!("pointed at {target} although nobody needed help"),
        };
        verdict(Category::Undesired, why)
    } else {
        verdict(Category::Success, "stayed silent".into())
    }
}

/// An answer or a correction: said, with the expected words, without acting.
fn judge_answer(seen: &Seen<'_>, expected: &Expectation<'_>, missing: &[&String]) -> Verdict {
    let what = match expected.expect {
        Expect::Answer => "answered",
        _ => "corrected",
    };
    if seen.speeches.is_empty() {
        verdict(
            Category::Undesired,
            format!("said nothing although it should have {what}"),
        )
    } else if !missing.is_empty() {
        verdict(
            Category::Partial,
            format!("{what}, but without the words {}", quoted(missing)),
        )
    } else if let Some((_, name, _, _)) = seen.actions.first() {
        verdict(
            Category::Partial,
            format!("{what}, but also acted ({name})"),
        )
    } else {
        verdict(Category::Success, what.to_string())
    }
}

/// Help was due: acted successfully, explained the right reason first, by
/// the shortest way, with the expected words, leaving the table as expected.
fn judge_help(
    seen: &Seen<'_>,
    events: &[Event],
    world: &World,
    expected: &Expectation<'_>,
    missing: &[&String],
) -> Verdict {
    if let Some(failure) = help_not_given(seen, expected) {
        return failure;
    }
    if let Some(problem) = explanation_problem(seen, expected) {
        return problem;
    }
    if let Some(object) = detour(events, expected.sender, expected.receiver) {
        return verdict(
            Category::Partial,
            format!(
                "two moves where one would do: {object} went to {} (the receiver) first, then to {}",
                expected.receiver, expected.sender
            ),
        );
    }
    if !missing.is_empty() {
        return verdict(
            Category::Partial,
            format!("helped, but without the words {}", quoted(missing)),
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

/// Why no help came: nothing done, a failed action, a limit hit, or only talk.
fn help_not_given(seen: &Seen<'_>, expected: &Expectation<'_>) -> Option<Verdict> {
    if seen.actions.is_empty() && seen.speeches.is_empty() {
        return Some(match seen.end_reason {
            Some(reason) if reason != "stop" && reason != "no_tool_call" => verdict(
                Category::ExecutionError,
                format!("did nothing visible; the turn ended with {reason}"),
            ),
            _ => verdict(
                Category::Undesired,
                "did nothing although help was needed".into(),
            ),
        });
    }
    if let Some((_, name, _, detail)) = seen.actions.iter().find(|(_, _, ok, _)| !ok) {
        return Some(verdict(
            Category::ExecutionError,
            format!("{name} failed: {detail}"),
        ));
    }
    if let Some(reason) = seen
        .end_reason
        .filter(|r| !matches!(*r, "stop" | "no_tool_call"))
    {
        return Some(verdict(
            Category::ExecutionError,
            format!("the turn hit a limit ({reason})"),
        ));
    }
    (seen.actions.is_empty() && !expected.state.is_empty()).then(|| {
        verdict(
            Category::Undesired,
            "only talked although it should have acted".into(),
        )
    })
}

/// What is wrong with the explanation before the first action, if anything.
fn explanation_problem(seen: &Seen<'_>, expected: &Expectation<'_>) -> Option<Verdict> {
    let first_action = seen.actions.first().map_or(usize::MAX, |(i, _, _, _)| *i);
    let before: Vec<&str> = seen
        .speeches
        .iter()
        .filter(|(i, _)| *i < first_action)
        .map(|(_, t)| *t)
        .collect();
    let afterwards = seen
        .speeches
        .iter()
        .filter(|(i, _)| *i > first_action)
        .map(|(_, t)| t.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    let explanation = before.join(" ").to_lowercase();
    let acted = !seen.actions.is_empty();
    if acted
        && !explains(expected.words, &explanation, expected.reason)
        && explains(expected.words, &afterwards, expected.reason)
    {
        return Some(verdict(
            Category::Partial,
            "acted first and explained only afterwards (a posteriori)".into(),
        ));
    }
    if acted && before.is_empty() {
        return Some(verdict(
            Category::Partial,
            "acted without explaining first".into(),
        ));
    }
    let reason = expected.reason?;
    (!explains(expected.words, &explanation, Some(reason))).then(|| {
        verdict(
            Category::Partial,
            format!("the explanation does not name the reason ({reason})"),
        )
    })
}

/// Why an expected fact does not hold, if it does not.
fn state_problem(world: &World, expected: &ExpectedState, who: &Expectation<'_>) -> Option<String> {
    let Some(object) = world.object_named(&expected.object) else {
        return Some(format!("{} is not in the scene", expected.object));
    };
    if let Some(liquid) = &expected.contains {
        let o = world.object(object);
        if !o.holds(liquid) {
            return Some(format!(
                "{} contains {} instead of {liquid}",
                expected.object,
                o.contents().unwrap_or_else(|| "nothing".into())
            ));
        }
    }
    if let Some(person) = &expected.away_from {
        let Some(person_id) = world.person_named(person) else {
            return Some(format!("{person} is not in the scene"));
        };
        let held = world.holder(object) == Some(person_id);
        if held || hindrance::reaches(world, person_id, object).reachable {
            return Some(format!(
                "{} is still within {person}'s reach",
                expected.object
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

    fn english_words() -> &'static ExplanationWords {
        static WORDS: std::sync::OnceLock<ExplanationWords> = std::sync::OnceLock::new();
        WORDS.get_or_init(|| {
            crate::language::Language::english()
                .expect("English")
                .explanation_words()
                .clone()
        })
    }
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
            forbidden: &[],
            sender: "Felix",
            receiver: "Daniel",
            text: "Daniel, could you hand me the red glass?",
            words: english_words(),
        }
    }

    fn at_felix() -> Vec<ExpectedState> {
        vec![ExpectedState {
            object: "red_glass".into(),
            contains: None,
            at: Some("Felix".into()),
            away_from: None,
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
        assert!(v.why.contains("explained only afterwards"), "{}", v.why);
        let events = [action(true, "done"), end("stop")];
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
            forbidden: &[],
            sender: "Felix",
            receiver: "Daniel",
            text: "Please hand me the red glass.",
            words: english_words(),
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
    fn an_object_id_is_heard_in_its_natural_name() {
        let words = vec!["red_glass".to_string()];
        let answer = Expectation {
            expect: Expect::Answer,
            reason: None,
            state: &[],
            speech: &words,
            forbidden: &[],
            sender: "Felix",
            receiver: "the_robot",
            text: "Could you hand me the glass?",
            words: english_words(),
        };
        for said in [
            "Which one do you mean: the red glass or the blue glass?",
            "red_glass?",
        ] {
            let v = judge(&[speech(said), end("stop")], &world_after(None), &answer);
            assert_eq!(v.category, Category::Success, "{said}: {}", v.why);
        }
        let v = judge(
            &[speech("The blue glass?"), end("stop")],
            &world_after(None),
            &answer,
        );
        assert_ne!(v.category, Category::Success);
    }

    #[test]
    fn corrections_need_their_words() {
        let words = vec!["cola zero".to_string()];
        let correct = Expectation {
            expect: Expect::Correct,
            reason: None,
            state: &[],
            speech: &words,
            forbidden: &[],
            sender: "Daniel",
            receiver: "Felix",
            text: "We have two options, cola and fanta.",
            words: english_words(),
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
                away_from: None,
            },
            ExpectedState {
                object: "red_glass".into(),
                contains: None,
                at: Some("Felix".into()),
                away_from: None,
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

    fn hand_over(object: &str, person: &str) -> Event {
        Event::Action {
            name: "hand_object_over_to_person".into(),
            args: json!({"object_name": object, "person_name": person}),
            ok: true,
            detail: format!("You handed {object} to {person}."),
        }
    }

    #[test]
    fn an_explanation_only_after_acting_is_partial() {
        // Hand-made log: a cheerful word, the hand-over, then the reason.
        let state = at_felix();
        let events = [
            speech("Sure, here you go."),
            hand_over("red_glass", "Felix"),
            speech("Daniel could not reach the red glass, so I gave it to you."),
            end("stop"),
        ];
        let v = judge(
            &events,
            &world_after(Some("Felix")),
            &help_red_glass(&state),
        );
        assert_eq!(v.category, Category::Partial);
        assert!(v.why.contains("a posteriori"), "{}", v.why);
        // With no particular reason expected, an explanation afterwards is still late.
        let mut no_reason = help_red_glass(&state);
        no_reason.reason = None;
        let v = judge(&events, &world_after(Some("Felix")), &no_reason);
        assert_eq!(v.category, Category::Partial, "{}", v.why);
        // Explaining first stays a success.
        let events = [
            speech("Daniel cannot reach the red glass, so I hand it to you."),
            hand_over("red_glass", "Felix"),
            speech("Here you go."),
            end("stop"),
        ];
        let v = judge(&events, &world_after(Some("Felix")), &no_reason);
        assert_eq!(v.category, Category::Success, "{}", v.why);
    }

    #[test]
    fn two_moves_via_the_receiver_are_partial() {
        // Hand-made log: the glass goes to Daniel, then on to Felix, who asked for it.
        let state = at_felix();
        let events = [
            speech("Daniel cannot reach the red glass, so I help."),
            hand_over("red glass", "Daniel"),
            hand_over("the red_glass", "Felix"),
            end("stop"),
        ];
        let v = judge(
            &events,
            &world_after(Some("Felix")),
            &help_red_glass(&state),
        );
        assert_eq!(v.category, Category::Partial);
        assert_eq!(
            v.why,
            "two moves where one would do: red_glass went to Daniel (the receiver) first, then to Felix"
        );
        // One move to the sender is a success.
        let events = [
            speech("Daniel cannot reach the red glass, so I help."),
            hand_over("red_glass", "Felix"),
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
    fn answering_a_question_meant_for_the_listener_is_undesired() {
        // Hand-made log of the unobtrusive case: Felix asks Daniel; the robot answers.
        let question = Expectation {
            expect: Expect::Silent,
            reason: None,
            state: &[],
            speech: &[],
            forbidden: &[],
            sender: "Felix",
            receiver: "Daniel",
            text: "Hey Daniel, what do we have to drink?",
            words: english_words(),
        };
        let v = judge(
            &[speech("We have cola and fanta."), end("stop")],
            &world_after(None),
            &question,
        );
        assert_eq!(v.category, Category::Undesired);
        assert!(
            v.why.starts_with("answered a question meant for Daniel"),
            "{}",
            v.why
        );
        // Pointing at the drinks answers it too.
        let point = Event::Action {
            name: "point_at_object_or_person".into(),
            args: json!({"name": "cola_bottle"}),
            ok: true,
            detail: "You point at cola_bottle.".into(),
        };
        let v = judge(&[point, end("stop")], &world_after(None), &question);
        assert_eq!(v.category, Category::Undesired);
        assert_eq!(
            v.why,
            "answered a question meant for Daniel by pointing at cola_bottle"
        );
        // Looking at the speaker is attention, not an answer.
        let gaze = Event::Action {
            name: "gaze".into(),
            args: json!({"name": "Felix"}),
            ok: true,
            detail: "You look at Felix.".into(),
        };
        assert_eq!(
            judge(&[gaze, end("stop")], &world_after(None), &question).category,
            Category::Success
        );
    }
}
