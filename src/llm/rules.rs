//! The `rules` brain: a deterministic baseline with no LLM. It speaks the same
//! `ChatBackend` trait and acts only through the agent's tools, so the loop,
//! its checks, guards and events are the same as with an LLM. It is labelled
//! as the rules baseline wherever it reports.
//!
//! Each call re-reads the dialogue: the last human turn says what was asked,
//! the tool results since then say what is known and done, and earlier turns
//! give "the same" its meaning. Recognised shapes: hand/pass/give/bring me X;
//! pour/fill X into my glass; "the same, but without sugar"; questions about
//! what there is to drink; a statement listing drinks that misses one; any
//! other question to the robot. Everything else: it stays silent.

use serde_json::{json, Value};

use super::{
    AssistantReply, ChatBackend, ChatMessage, ChatRequest, CompleteFuture, ToolCall, Usage,
};
use crate::agent::grounding::{self, Grounding};
use crate::agent::Turn;
use crate::twin::World;

/// Prefix of the loop's warning messages, which are not human turns.
const WARNING_PREFIX: &str = "Warning from the robot's control system";

/// What the brain knows of one object without asking: its name and words.
#[derive(Debug, Clone)]
struct Known {
    name: String,
    words: Vec<String>,
    liquid: Option<String>,
    vessel: bool,
}

/// The deterministic baseline brain.
#[derive(Debug, Clone)]
pub struct RulesBrain {
    world: World,
    objects: Vec<Known>,
}

/// One tool call made in the current turn, with its result.
#[derive(Debug, Clone)]
struct Done {
    name: String,
    args: Value,
    result: String,
}

/// What a human turn asks for.
#[derive(Debug, Clone, PartialEq)]
enum Intent {
    /// Pass an object to the sender.
    HandOver { object: String },
    /// Pour a drink into the sender's glass.
    Pour { source: String },
    /// A fresh glass of the previous drink's sugar-free twin.
    SameWithoutSugar,
    /// "What do we have to drink?"
    DrinksQuestion,
    /// "We have cola and fanta." (maybe missing one)
    DrinksStatement,
    /// Any other question to the robot.
    OtherQuestion,
    /// Nothing for the robot.
    Nothing,
}

impl RulesBrain {
    /// A rules brain for a scene; it knows the objects' names and words.
    pub fn new(world: &World) -> Self {
        let objects = world
            .objects()
            .iter()
            .map(|o| Known {
                name: o.name.clone(),
                words: grounding::words(&o.name)
                    .into_iter()
                    .chain(o.properties.iter().flat_map(|p| grounding::words(p)))
                    .collect(),
                liquid: o.contains.clone(),
                vessel: o.kind.drinking_vessel,
            })
            .collect();
        Self {
            world: world.clone(),
            objects,
        }
    }

    fn reply(&self, request: &ChatRequest) -> Vec<(String, Value)> {
        let Some((turn_at, turn)) = last_turn(&request.messages) else {
            return vec![stop()];
        };
        let done = done_since(&request.messages, turn_at);
        let earlier = done_since(&request.messages[..turn_at], 0);
        let robot_addressed = matches!(
            grounding::addressee(&self.world, &turn.listener),
            Grounding::Resolved(grounding::Addressee::Robot)
        );
        let intent = self.intent(&turn.text, robot_addressed);
        let next = match intent {
            Intent::Nothing => None,
            Intent::DrinksQuestion => self.drinks_question(&turn, robot_addressed, &done),
            Intent::DrinksStatement => self.drinks_statement(&turn, &done),
            Intent::OtherQuestion if robot_addressed => self.other_question(&turn, &done),
            Intent::OtherQuestion => None,
            Intent::HandOver { object } => {
                self.help(&turn, robot_addressed, &done, &object, "hand you", |me, facts| {
                    let object = facts.object.clone()?;
                    Some(vec![call(
                        "hand_object_over_to_person",
                        json!({"object_name": object, "person_name": me.sender(&turn)}),
                    )])
                })
            }
            Intent::Pour { source } => self.help(&turn, robot_addressed, &done, &source, "pour you some of", |me, facts| {
                let source = facts.object.clone()?;
                let target = me.senders_glass(&turn, &done)?;
                Some(vec![(
                    "pour_into".to_string(),
                    json!({"source_container_name": source, "target_container_name": target}),
                )])
            }),
            Intent::SameWithoutSugar => match self.sugar_free_twin(&earlier) {
                Some(source) => self.help(&turn, robot_addressed, &done, &source, "fill a fresh glass from", |me, facts| {
                    let source = facts.object.clone()?;
                    let glass = me.fresh_glass(&done)?;
                    Some(vec![
                        (
                            "pour_into".to_string(),
                            json!({"source_container_name": source, "target_container_name": glass}),
                        ),
                        (
                            "hand_object_over_to_person".to_string(),
                            json!({"object_name": glass, "person_name": me.sender(&turn)}),
                        ),
                    ])
                }),
                None => None,
            },
        };
        next.unwrap_or_else(|| vec![stop()])
    }

    /// The scene's name of the sender, or what the turn said.
    fn sender(&self, turn: &Turn) -> String {
        match grounding::person(&self.world, &turn.speaker) {
            Grounding::Resolved(id) => self.world.person(id).name.clone(),
            _ => turn.speaker.clone(),
        }
    }

    fn receiver(&self, turn: &Turn) -> Option<String> {
        match grounding::person(&self.world, &turn.listener) {
            Grounding::Resolved(id) => Some(self.world.person(id).name.clone()),
            _ => None,
        }
    }

    fn intent(&self, text: &str, robot_addressed: bool) -> Intent {
        let lower = text.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let has = |w: &str| words.contains(&w);
        if has("same")
            && (lower.contains("without sugar")
                || lower.contains("sugar-free")
                || lower.contains("no sugar"))
        {
            return Intent::SameWithoutSugar;
        }
        if has("pour") || has("fill") {
            if let Some(source) = between(&lower, &["pour ", "fill "], &[" into ", " in "]) {
                return Intent::Pour {
                    source: strip_fillers(&source),
                };
            }
        }
        for verb in ["hand", "pass", "give", "bring", "get"] {
            if has(verb) {
                if let Some(rest) = after_word(&lower, verb).and_then(|r| after_word(&r, "me")) {
                    let object = strip_fillers(&rest);
                    if !object.is_empty() {
                        return Intent::HandOver { object };
                    }
                }
            }
        }
        let question = lower.trim_end().ends_with('?')
            || [
                "what", "which", "do", "does", "is", "are", "can", "could", "how", "why",
            ]
            .iter()
            .any(|w| words.first() == Some(w));
        if question && has("drink") && (has("what") || has("which")) {
            return Intent::DrinksQuestion;
        }
        if !question
            && !self.drinks_mentioned(&lower).is_empty()
            && (has("have") || has("there") || has("options"))
        {
            return Intent::DrinksStatement;
        }
        if question && robot_addressed {
            return Intent::OtherQuestion;
        }
        Intent::Nothing
    }

    /// The drinks (liquids of pourable objects) a text names, longest names first.
    fn drinks_mentioned(&self, lower: &str) -> Vec<String> {
        let mut liquids: Vec<String> = self
            .objects
            .iter()
            .filter_map(|o| o.liquid.clone())
            .collect();
        liquids.sort_by_key(|l| std::cmp::Reverse(l.len()));
        liquids.dedup();
        let mut text = format!(" {} ", lower.replace(|c: char| !c.is_alphanumeric(), " "));
        let mut found = Vec::new();
        for liquid in liquids {
            let needle = format!(" {} ", liquid.to_lowercase());
            if text.contains(&needle) {
                found.push(liquid.clone());
                text = text.replace(&needle, " ");
            }
        }
        found
    }

    fn drinks_on_table(done: &[Done]) -> Option<Vec<String>> {
        let listing = done.iter().find(|d| d.name == "get_objects")?;
        let mut drinks = Vec::new();
        for part in listing.result.split("contains ").skip(1) {
            let liquid: String = part
                .chars()
                .take_while(|c| *c != ')' && *c != ',')
                .collect();
            if !drinks.contains(&liquid) {
                drinks.push(liquid);
            }
        }
        Some(drinks)
    }

    fn drinks_question(
        &self,
        turn: &Turn,
        robot_addressed: bool,
        done: &[Done],
    ) -> Option<Vec<(String, Value)>> {
        if !robot_addressed {
            let receiver = self.receiver(turn)?;
            let check = done.iter().find(|d| d.name == "is_person_busy_or_idle");
            match check {
                None => {
                    return Some(vec![call(
                        "is_person_busy_or_idle",
                        json!({"person_name": receiver}),
                    )])
                }
                Some(c) if !c.result.contains("is busy") => return None,
                Some(_) => {}
            }
        }
        let Some(drinks) = Self::drinks_on_table(done) else {
            return Some(vec![call("get_objects", json!({}))]);
        };
        if spoke(done) {
            return None;
        }
        Some(vec![call(
            "speak",
            json!({"person_name": self.sender(turn), "text": format!("We have {} to drink.", and_list(&drinks))}),
        )])
    }

    fn drinks_statement(&self, turn: &Turn, done: &[Done]) -> Option<Vec<(String, Value)>> {
        let Some(drinks) = Self::drinks_on_table(done) else {
            return Some(vec![call("get_objects", json!({}))]);
        };
        if spoke(done) {
            return None;
        }
        let said = self.drinks_mentioned(&turn.text.to_lowercase());
        let missing: Vec<String> = drinks.into_iter().filter(|d| !said.contains(d)).collect();
        if missing.is_empty() {
            return None;
        }
        Some(vec![call(
            "speak",
            json!({"person_name": "All", "text": format!("Sorry to interrupt: there is also {}.", and_list(&missing))}),
        )])
    }

    fn other_question(&self, turn: &Turn, done: &[Done]) -> Option<Vec<(String, Value)>> {
        if spoke(done) {
            return None;
        }
        let named = self.drinks_mentioned(&turn.text.to_lowercase());
        let text = if named.is_empty() {
            "I am the rules baseline and can only tell you about what is on this table.".to_string()
        } else {
            format!(
                "I am the rules baseline and only know this table: we have {} here. I have no further knowledge about it.",
                and_list(&named)
            )
        };
        Some(vec![call(
            "speak",
            json!({"person_name": self.sender(turn), "text": text}),
        )])
    }

    /// The common path of helping: check the receiver, explain, act, report failures.
    fn help(
        &self,
        turn: &Turn,
        robot_addressed: bool,
        done: &[Done],
        object: &str,
        offer: &str,
        act: impl Fn(&Self, &Facts) -> Option<Vec<(String, Value)>>,
    ) -> Option<Vec<(String, Value)>> {
        // Pouring and fresh glasses need to know who holds which glass.
        if done.iter().all(|d| d.name != "get_objects") {
            return Some(vec![call("get_objects", json!({}))]);
        }
        let receiver = if robot_addressed {
            None
        } else {
            self.receiver(turn)
        };
        let facts = match &receiver {
            Some(receiver) => {
                let Some(check) = done.iter().find(|d| d.name == "check_hindering_reasons") else {
                    return Some(vec![call(
                        "check_hindering_reasons",
                        json!({"person_name": receiver, "object_name": object}),
                    )]);
                };
                Facts::from_check(&check.result, receiver)
            }
            None => {
                let Some(check) = done
                    .iter()
                    .find(|d| d.name == "check_reach_object_for_robot")
                else {
                    return Some(vec![call(
                        "check_reach_object_for_robot",
                        json!({"object_name": object}),
                    )]);
                };
                let facts = Facts::from_robot_check(&check.result);
                if facts.object.is_none() && facts.ambiguous.is_none() {
                    // Asked directly but unable: say why, once.
                    if spoke(done) {
                        return None;
                    }
                    return Some(vec![call(
                        "speak",
                        json!({"person_name": self.sender(turn), "text": format!("Sorry, I cannot: {}", check.result)}),
                    )]);
                }
                facts
            }
        };
        if let Some(candidates) = &facts.ambiguous {
            // Ask only when it is the robot's business: it was asked, or the receiver cannot help.
            if spoke(done) || !(robot_addressed || self.receiver_busy(done)) {
                return None;
            }
            return Some(vec![call(
                "speak",
                json!({"person_name": self.sender(turn), "text": format!("Which one do you mean: {candidates}?")}),
            )]);
        }
        facts.object.as_ref()?;
        if !robot_addressed && !facts.hindered() {
            return None;
        }
        let plan = act(self, &facts)?;
        let mut remaining = plan
            .into_iter()
            .filter(|(name, args)| !done.iter().any(|d| &d.name == name && &d.args == args));
        if let Some(failed) = done
            .iter()
            .find(|d| is_action(&d.name) && !d.result.starts_with("You "))
        {
            // Say why once, then stop.
            if done.iter().filter(|d| d.name == "speak").count() >= 2 {
                return None;
            }
            return Some(vec![call(
                "speak",
                json!({"person_name": self.sender(turn), "text": format!("Sorry, I cannot help with that: {}", failed.result)}),
            )]);
        }
        if !spoke(done) {
            let thing = facts.object.as_deref().map(natural).unwrap_or_default();
            let why = match &receiver {
                Some(receiver) => facts.explanation(receiver),
                None => "you asked me".to_string(),
            };
            return Some(vec![call(
                "speak",
                json!({"person_name": self.sender(turn), "text": format!("{why}, so I will {offer} {thing}.")}),
            )]);
        }
        remaining.next().map(|step| vec![step])
    }

    fn receiver_busy(&self, done: &[Done]) -> bool {
        done.iter()
            .any(|d| d.name.starts_with("check") && d.result.contains("is busy"))
    }

    /// The glass the sender means by "my glass": the one they hold, else the one
    /// the robot handed them earlier, else the only empty glass.
    fn senders_glass(&self, turn: &Turn, done: &[Done]) -> Option<String> {
        let sender = self.sender(turn);
        let listing = &done.iter().find(|d| d.name == "get_objects")?.result;
        let vessels: Vec<&Known> = self.objects.iter().filter(|o| o.vessel).collect();
        let held = vessels.iter().find(|o| {
            entry(listing, &o.name).is_some_and(|e| e.contains(&format!("held by {sender}")))
        });
        if let Some(glass) = held {
            return Some(glass.name.clone());
        }
        let empty: Vec<&&Known> = vessels
            .iter()
            .filter(|o| entry(listing, &o.name).is_some_and(|e| e.contains("empty")))
            .collect();
        (empty.len() == 1).then(|| empty[0].name.clone())
    }

    /// An empty glass nobody holds, for a fresh drink.
    fn fresh_glass(&self, done: &[Done]) -> Option<String> {
        let listing = &done.iter().find(|d| d.name == "get_objects")?.result;
        self.objects
            .iter()
            .filter(|o| o.vessel)
            .find(|o| {
                entry(listing, &o.name)
                    .is_some_and(|e| e.contains("empty") && !e.contains("held by"))
            })
            .map(|o| o.name.clone())
    }

    /// The sugar-free object that shares a word with the drink poured before.
    fn sugar_free_twin(&self, earlier: &[Done]) -> Option<String> {
        let previous = earlier
            .iter()
            .rev()
            .find(|d| d.name == "pour_into")
            .and_then(|d| d.args.get("source_container_name"))
            .and_then(Value::as_str)?;
        let previous = self.objects.iter().find(|o| o.name == previous)?;
        let free = |o: &Known| {
            o.words.iter().any(|w| w == "sugar" || w == "zero")
                && o.words.iter().any(|w| w == "free" || w == "zero")
        };
        self.objects
            .iter()
            .filter(|o| o.name != previous.name && o.liquid.is_some() && free(o))
            .max_by_key(|o| {
                o.words
                    .iter()
                    .filter(|w| previous.words.contains(w))
                    .count()
            })
            .map(|o| o.name.clone())
    }
}

/// What the checks said.
#[derive(Debug, Clone, Default)]
struct Facts {
    object: Option<String>,
    ambiguous: Option<String>,
    busy: bool,
    cannot_see: Option<String>,
    cannot_reach: bool,
}

impl Facts {
    fn from_check(text: &str, receiver: &str) -> Self {
        if let Some(rest) = text.split("could mean ").nth(1) {
            return Self {
                ambiguous: Some(rest.split(';').next().unwrap_or(rest).to_string()),
                ..Self::default()
            };
        }
        let object = text
            .split(&format!("{receiver} can see "))
            .nth(1)
            .or_else(|| text.split(&format!("{receiver} cannot see ")).nth(1))
            .map(|rest| {
                rest.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            });
        let cannot_see = text
            .split("hidden behind ")
            .nth(1)
            .map(|rest| rest.split('.').next().unwrap_or(rest).to_string());
        Self {
            object,
            ambiguous: None,
            busy: text.contains(&format!("{receiver} is busy")),
            cannot_see,
            cannot_reach: text.contains(&format!("{receiver} cannot reach")),
        }
    }

    fn from_robot_check(text: &str) -> Self {
        if let Some(rest) = text.split("could mean ").nth(1) {
            return Self {
                ambiguous: Some(rest.split(';').next().unwrap_or(rest).to_string()),
                ..Self::default()
            };
        }
        // Only "... can reach X with its ... arm." names an object the robot can take.
        let object = text.split(" can reach ").nth(1).map(|rest| {
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        });
        Self {
            object,
            ..Self::default()
        }
    }

    fn hindered(&self) -> bool {
        self.busy || self.cannot_see.is_some() || self.cannot_reach
    }

    /// "Daniel is busy and cannot reach the red glass".
    fn explanation(&self, receiver: &str) -> String {
        let thing = self.object.as_deref().map(natural).unwrap_or_default();
        let mut reasons = Vec::new();
        if self.busy {
            reasons.push("is busy".to_string());
        }
        if let Some(occluder) = &self.cannot_see {
            reasons.push(format!(
                "cannot see {thing} behind the {}",
                natural_bare(occluder)
            ));
        }
        if self.cannot_reach {
            reasons.push(if self.cannot_see.is_some() {
                "cannot reach it".to_string()
            } else {
                format!("cannot reach {thing}")
            });
        }
        format!("{receiver} {}", and_list(&reasons))
    }
}

fn last_turn(messages: &[ChatMessage]) -> Option<(usize, Turn)> {
    messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, m)| match m {
            ChatMessage::User { content } if !content.starts_with(WARNING_PREFIX) => {
                Turn::parse(content).ok().map(|t| (i, t))
            }
            _ => None,
        })
}

/// The tool calls made after message `from`, with their results.
fn done_since(messages: &[ChatMessage], from: usize) -> Vec<Done> {
    let mut done = Vec::new();
    for (i, m) in messages.iter().enumerate().skip(from) {
        if let ChatMessage::Assistant { tool_calls, .. } = m {
            for call in tool_calls {
                let result = messages[i + 1..]
                    .iter()
                    .find_map(|r| match r {
                        ChatMessage::Tool { call_id, content } if call_id == &call.id => {
                            Some(content.clone())
                        }
                        _ => None,
                    })
                    .unwrap_or_default();
                done.push(Done {
                    name: call.name.clone(),
                    args: serde_json::from_str(&call.arguments).unwrap_or(Value::Null),
                    result,
                });
            }
        }
    }
    done
}

fn spoke(done: &[Done]) -> bool {
    done.iter()
        .any(|d| d.name == "speak" && d.result.starts_with("You said"))
}

fn is_action(name: &str) -> bool {
    matches!(
        name,
        "hand_object_over_to_person" | "move_object_to_person" | "pour_into"
    )
}

fn call(name: &str, args: Value) -> (String, Value) {
    (name.to_string(), args)
}

fn stop() -> (String, Value) {
    call("stop", json!({}))
}

/// The `get_objects` entry of one object: "red_glass (contains cola, held by Felix)".
fn entry<'a>(listing: &'a str, name: &str) -> Option<&'a str> {
    let start = listing
        .find(&format!("{name} "))
        .or_else(|| listing.find(&format!("{name},")))?;
    let rest = &listing[start..];
    let end = if rest[name.len()..].starts_with(" (") {
        rest.find(')').map(|e| e + 1).unwrap_or(rest.len())
    } else {
        name.len()
    };
    Some(&rest[..end])
}

/// The text after the first whole-word occurrence of `word`.
fn after_word(text: &str, word: &str) -> Option<String> {
    let mut from = 0;
    while let Some(pos) = text[from..].find(word) {
        let at = from + pos;
        let before_ok = at == 0 || !text[..at].chars().last().is_some_and(char::is_alphanumeric);
        let end = at + word.len();
        let after_ok = !text[end..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric);
        if before_ok && after_ok {
            return Some(text[end..].to_string());
        }
        from = end;
    }
    None
}

/// The text between the first of `starts` and the next of `ends`.
fn between(text: &str, starts: &[&str], ends: &[&str]) -> Option<String> {
    let (s, start) = starts
        .iter()
        .filter_map(|s| text.find(s).map(|p| (s, p)))
        .min_by_key(|(_, p)| *p)?;
    let rest = &text[start + s.len()..];
    let end = ends.iter().filter_map(|e| rest.find(e)).min()?;
    Some(rest[..end].to_string())
}

/// An object phrase without politeness and punctuation.
fn strip_fillers(phrase: &str) -> String {
    let cut = phrase
        .split(['?', '.', '!', ','])
        .next()
        .unwrap_or(phrase)
        .replace(" please", "")
        .replace(" too", "");
    let words: Vec<&str> = cut
        .split_whitespace()
        .filter(|w| !["some", "a", "an", "the", "of", "bit"].contains(w))
        .collect();
    words.join(" ")
}

/// "red_glass" -> "the red glass".
fn natural(name: &str) -> String {
    format!("the {}", natural_bare(name))
}

fn natural_bare(name: &str) -> String {
    name.replace('_', " ")
}

/// "a, b and c".
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

impl ChatBackend for RulesBrain {
    fn complete<'a>(&'a self, request: &'a ChatRequest) -> CompleteFuture<'a> {
        let calls = self.reply(request);
        let reply = AssistantReply {
            content: None,
            tool_calls: calls
                .into_iter()
                .enumerate()
                .map(|(i, (name, args))| ToolCall {
                    id: format!("rules_{}_{i}", request.messages.len()),
                    name,
                    arguments: args.to_string(),
                })
                .collect(),
            finish_reason: Some("tool_calls".into()),
            // No language model: every call costs zero tokens (reported, not missing).
            usage: Some(Usage::default()),
        };
        Box::pin(async move { Ok(reply) })
    }

    fn describe(&self) -> String {
        "rules baseline (no LLM)".to_string()
    }
}
