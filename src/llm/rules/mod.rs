//! The `rules` brain: a deterministic baseline with no LLM. It speaks the same
//! `ChatBackend` trait and acts only through the agent's tools, so the loop,
//! its checks, guards and events are the same as with an LLM. It is labelled
//! as the rules baseline wherever it reports.
//!
//! Each call re-reads the dialogue: the understanding stage reads the last
//! human turn (earlier turns give "it" its meaning), the tool results since
//! then say what is known and done. For every reading it acts through the
//! tools: requests are checked (the listener's hindrance, or the robot's
//! reach when asked), explained and done; questions answered; wrong
//! statements corrected; greetings, thanks and questions about itself
//! answered. Addressed and not understood, it says so with an example; between
//! people with nothing to fix, it stays silent.

mod ability;
mod answer;
mod claim;
mod dialogue;
mod facts;
mod help;
mod location;
mod refill;
mod remember;

use serde_json::{json, Value};

use super::{AssistantReply, ChatBackend, ChatRequest, CompleteFuture, ToolCall, Usage};
use crate::agent::Turn;
use crate::language::{Language, Phrasebook};
use crate::twin::grounding::{self, Addressee, Grounding};
use crate::twin::World;
use crate::understanding::{Act, Reading, Understanding, Utterance};
use dialogue::Dialogue;

/// Tool calls for the next reply; `None` means stop.
type Calls = Option<Vec<(String, Value)>>;

/// The deterministic baseline brain.
#[derive(Debug, Clone)]
pub struct RulesBrain {
    world: World,
    understanding: Understanding,
    speech: std::sync::Arc<Phrasebook>,
    /// The same brain with the sentences for someone who addresses formally ("Sie").
    formal: Option<Box<RulesBrain>>,
}

/// One turn as the brain weighs it.
struct Situation<'a> {
    dialogue: &'a Dialogue,
    reading: Reading,
    /// The robot was addressed (or everyone, which includes it).
    robot_addressed: bool,
    /// The robot itself was addressed, not everyone: only then does it say
    /// that it did not understand, or that the table lacks what was asked for
    /// (a remark to everyone it cannot place is talk between people).
    robot_named: bool,
    /// The speaker's scene name, when known.
    sender: Option<String>,
    /// The listener, when a person.
    receiver: Option<String>,
    /// Memory's tools are offered.
    memory_on: bool,
}

impl Situation<'_> {
    /// Whom the robot speaks to: the sender, or everyone when unknown.
    fn sender_or_all(&self) -> String {
        self.sender.clone().unwrap_or_else(|| "All".into())
    }
}

impl RulesBrain {
    /// A rules brain for a scene, reading and answering in the given language.
    pub fn new(world: &World, language: &Language) -> Self {
        let plain = Self {
            world: world.clone(),
            understanding: language.understanding().clone(),
            speech: language.speech().clone(),
            formal: None,
        };
        let formal = language.speech().formal().map(|speech| {
            Box::new(Self {
                speech: std::sync::Arc::new(speech),
                ..plain.clone()
            })
        });
        Self { formal, ..plain }
    }

    fn reply(&self, dialogue: &Dialogue, memory_on: bool) -> Vec<(String, Value)> {
        // The turn is read on the table as this turn's listing shows it (what
        // "my tea" or "the bottle you've got" is); a turn that describes a thing
        // by who holds it asks for the listing first.
        let listed = match dialogue.find("get_objects") {
            Some(done) => self.as_listed(&done.result),
            None if self
                .understanding
                .names_a_holder(&self.world, &dialogue.turn.utterance()) =>
            {
                return vec![call("get_objects", json!({}))]
            }
            None => None,
        };
        let mut situation = self.situation(dialogue, listed.as_ref().unwrap_or(&self.world));
        situation.memory_on = memory_on;
        // "Können Sie ...": answered in the form it was asked in, or in the
        // form the speaker used before ("Ich meinte das Wasser" after "Könnten Sie").
        let formally = |text: &str| self.understanding.addresses_formally(text);
        let brain = match &self.formal {
            Some(formal)
                if formally(&situation.reading.heard)
                    || dialogue.earlier.iter().any(|t| {
                        t.speaker == dialogue.turn.speaker
                            && formally(
                                &crate::understanding::normalize::plain_words(&t.text).join(" "),
                            )
                    }) =>
            {
                formal
            }
            _ => self,
        };
        brain.next(&situation).unwrap_or_else(|| vec![stop()])
    }

    /// The turn read and weighed: its reading, who speaks to whom.
    fn situation<'a>(&self, dialogue: &'a Dialogue, world: &World) -> Situation<'a> {
        let earlier: Vec<Utterance<'_>> = dialogue.earlier.iter().map(Turn::utterance).collect();
        let turn = &dialogue.turn;
        let reading = self
            .understanding
            .read_in_dialogue(world, &earlier, &turn.utterance());
        let addressee = grounding::addressee(&self.world, &turn.listener);
        Situation {
            dialogue,
            reading,
            robot_addressed: matches!(
                addressee,
                Grounding::Resolved(Addressee::Robot | Addressee::All)
            ),
            robot_named: matches!(addressee, Grounding::Resolved(Addressee::Robot)),
            memory_on: false,
            sender: person_name(&self.world, &turn.speaker),
            receiver: match addressee {
                Grounding::Resolved(Addressee::Person(id)) => {
                    Some(self.world.person(id).name.clone())
                }
                _ => None,
            },
        }
    }

    /// The scene with what a `get_objects` listing says each thing holds, and
    /// the things it says are held in their holders' hands (one that finds no
    /// free hand stays where it was); `None` when the listing shows the scene as it is.
    fn as_listed(&self, listing: &str) -> Option<World> {
        let listing = facts::listing(listing);
        let scene = &self.world;
        let changed = |listed: &facts::Listed| {
            scene.object_named(&listed.name).is_some_and(|o| {
                let holder = scene.holder(o).map(|p| scene.person(p).name.as_str());
                let o = scene.object(o);
                o.contains != listed.contains
                    || o.added != listed.added
                    || holder != listed.held_by.as_deref()
            })
        };
        if !listing.iter().any(changed) {
            return None;
        }
        let mut world = self.world.clone();
        for listed in listing {
            let Some(object) = world.object_named(&listed.name) else {
                continue;
            };
            world.fill(object, listed.contains);
            for liquid in &listed.added {
                world.add(object, liquid);
            }
            if let Some(person) = listed
                .held_by
                .as_deref()
                .and_then(|p| world.person_named(p))
            {
                world.give_to_person(object, person).ok();
            }
        }
        Some(world)
    }

    fn next(&self, s: &Situation<'_>) -> Calls {
        // A question about a thing the table lacks ("where is the spare key
        // kept?") may be one memory answers.
        let lacks = |m: &crate::understanding::ObjectMention| m.candidates.is_empty();
        // So may one read over words of another topic ("where do the airbrush
        // needles live?" is no question about the airbrush).
        let read_over = || {
            self.understanding.reads_over_another_topic(
                &self.world,
                &s.reading,
                &s.dialogue.turn.text,
            )
        };
        if s.reading.act.is_question()
            && (s.reading.slots.object.as_ref().is_some_and(lacks) || read_over())
        {
            if let Some(calls) = self.remembered_answer(s) {
                return calls;
            }
        }
        match s.reading.act {
            Act::Give | Act::MoveTo | Act::MoveAway | Act::Pour | Act::PourSame => self.request(s),
            Act::AskInventory => self.inventory(s),
            Act::AskHave => self.have(s),
            Act::AskWhere => self.where_is(s),
            Act::AskWhoHas => self.who_has(s),
            Act::AskAbility => self.ability(s),
            Act::AskContents => self.contents(s),
            Act::AskCount => self.count_question(s),
            Act::StateInventory => self.inventory_asked(s),
            Act::StateAbsent => self.absence_claim(s),
            Act::StateContents => self.contents_claim(s),
            Act::StateCount => self.count_claim(s),
            Act::StateWhich => self.which_claim(s),
            Act::StateAbility => self.ability_claim(s),
            Act::StateLocation => self.location_claim(s),
            Act::Claim => self.claim(s),
            Act::Thanks
            | Act::Greeting
            | Act::Farewell
            | Act::Identity
            | Act::Capabilities
            | Act::Refuse => self.social(s),
            Act::Remember => self.remember(s),
            Act::Forget => {
                let what = s
                    .reading
                    .slots
                    .fact
                    .clone()
                    .unwrap_or_else(|| "that".into());
                self.forget(s, &what)
            }
            Act::AskMemory => self.ask_memory(s),
            Act::Confirm => self.confirm(s),
            // A follow-up is read as its request; one without a request is not understood.
            Act::Unknown | Act::FollowUp => self
                .remembered_answer(s)
                .unwrap_or_else(|| self.not_understood(s)),
        }
    }

    /// One `speak` to the sender (or everyone), once per turn.
    fn say(&self, s: &Situation<'_>, text: String) -> Calls {
        self.say_to(s, s.sender_or_all(), text)
    }

    fn say_to(&self, s: &Situation<'_>, to: String, text: String) -> Calls {
        if s.dialogue.spoke() {
            return None;
        }
        Some(vec![call(
            "speak",
            json!({"person_name": to, "text": text}),
        )])
    }
}

fn person_name(world: &World, said: &str) -> Option<String> {
    match grounding::person(world, said) {
        Grounding::Resolved(id) => Some(world.person(id).name.clone()),
        _ => None,
    }
}

fn call(name: &str, args: Value) -> (String, Value) {
    (name.to_string(), args)
}

fn stop() -> (String, Value) {
    call("stop", json!({}))
}

impl ChatBackend for RulesBrain {
    fn complete<'a>(&'a self, request: &'a ChatRequest) -> CompleteFuture<'a> {
        let calls = match Dialogue::read(&request.messages) {
            Some(dialogue) => {
                let memory_on = request.tools.iter().any(|t| t.name == "recall");
                self.reply(&dialogue, memory_on)
            }
            None => vec![stop()],
        };
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

    fn reads_notes(&self) -> bool {
        false
    }
}
