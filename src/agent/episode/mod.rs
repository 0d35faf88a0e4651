//! The agent's loop for one human turn: ask the LLM, run its tool calls in a
//! safe order through flow checks and guards, feed the results back, until
//! `stop` or a limit (DESIGN.md, "The agent").

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

mod reply;

use reply::Settled;

use super::character::Character;
use super::grounding::{self, Addressee, Grounding};
use super::local_first::{self, Path, Route};
use super::remembering::Remembering;
use super::situation;
use super::tools::{self, ToolCategory, ToolOutcome, ToolTexts};
use super::turn::Turn;
use super::voice::Mouth;
use crate::config::{AgentSettings, GuardSettings, Situation};
use crate::events::Event;
use crate::llm::{ChatBackend, ChatMessage, ChatRequest, ToolCall, ToolSchema};
use crate::twin::actions::{self, Executor, SimulationExecutor};
use crate::twin::Twin;
use crate::understanding::hearing::Correction;
use crate::understanding::{Understanding, Utterance};

/// Where events go: the terminal, a JSON log, or a test's vector.
pub trait EventSink {
    /// Records one event.
    fn emit(&mut self, event: Event);
    /// Sees the twin after an action or a gaze ran, before its `action` event:
    /// whoever reads the scene on that event finds the twin as it left it.
    fn twin_changed(&mut self, _twin: &Twin) {}
}

impl EventSink for Vec<Event> {
    fn emit(&mut self, event: Event) {
        self.push(event);
    }
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// The LLM called `stop`.
    Stop,
    /// The LLM replied without a tool call after it had acted or checked.
    NoToolCall,
    /// Too many LLM calls in this turn.
    LlmCallLimit,
    /// The turn's wall time (or the LLM's request time) ran out.
    Timeout,
    /// The LLM kept repeating the same call.
    RepeatedCalls,
    /// The LLM could not be reached or answered garbage.
    LlmError,
    /// A person (or the API) interrupted the turn.
    Interrupted,
}

impl EndReason {
    /// The word used in `episode_end` events.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Stop => "stop",
            EndReason::NoToolCall => "no_tool_call",
            EndReason::LlmCallLimit => "llm_call_limit",
            EndReason::Timeout => "timeout",
            EndReason::RepeatedCalls => "repeated_calls",
            EndReason::LlmError => "llm_error",
            EndReason::Interrupted => "interrupted",
        }
    }
}

/// The result of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnReport {
    /// Why it ended.
    pub reason: EndReason,
    /// LLM calls made.
    pub llm_calls: u32,
}

/// What the hearing of a spoken turn changed before it was read.
#[derive(Default, Clone, Copy)]
struct Heard<'a> {
    /// Words put right toward the table.
    corrections: &'a [Correction],
    /// The listener, where the hearing taken named another than the first.
    listener: Option<&'a str>,
}

/// The character agent with its dialogue history.
pub struct Agent {
    backend: Arc<dyn ChatBackend>,
    character: Character,
    schemas: Vec<ToolSchema>,
    settings: AgentSettings,
    guards: GuardSettings,
    history: Vec<ChatMessage>,
    /// The robot's voice, and how long an action waits for it (`None`: no wait).
    mouth: Option<(Arc<dyn Mouth>, Option<Duration>)>,
    /// Where actions run: the simulation, or a robot.
    executor: Box<dyn Executor>,
    /// Reads each turn for the `understood` event (`None`: no reading).
    understanding: Option<Understanding>,
    /// The language's sentences for the situation note (`None`: no note).
    speech: Option<Arc<crate::language::Phrasebook>>,
    /// Memory across sessions (`None`: off; its tools are not offered).
    memory: Option<Remembering>,
    /// This turn's block about the people present, from memory.
    memory_block: Option<String>,
    /// Local first: the brain for turns the understanding stage is sure of.
    local: Option<Arc<dyn ChatBackend>>,
    /// The path the last turn took (local first).
    last_path: Option<Path>,
}

/// What this turn has done so far, for the guards.
#[derive(Debug, Default)]
struct TurnState {
    spoke: bool,
    checked_receiver: bool,
    robot_addressed: bool,
    sender: Option<String>,
    receiver: Option<String>,
    /// The listener as said (`the_robot`, a person, `All`).
    listener_said: String,
    tools_run: u32,
    no_call_warnings: u32,
    repeat_warnings: u32,
    cut_warnings: u32,
    identical: BTreeMap<String, u32>,
    /// Local first: the path this turn takes.
    route: Option<Route>,
}

/// Order in which one reply's calls run: look, talk, then move; stop last.
fn rank(name: &str) -> u8 {
    match (name, tools::definition(name).map(|d| d.category)) {
        (_, Some(ToolCategory::Query | ToolCategory::Memory)) => 0,
        ("gaze", _) => 1,
        ("speak", _) => 2,
        ("point_at_object_or_person", _) => 3,
        (_, Some(ToolCategory::Action)) => 4,
        (_, None) => 5,
        (_, Some(ToolCategory::Stop)) => 6,
        (_, Some(ToolCategory::Expression)) => 3,
    }
}

impl Agent {
    /// An agent for one scene's robot.
    pub fn new(
        backend: Box<dyn ChatBackend>,
        character: Character,
        texts: &ToolTexts,
        robot_name: &str,
        settings: AgentSettings,
        guards: GuardSettings,
    ) -> Self {
        Self {
            backend: Arc::from(backend),
            character,
            schemas: texts.schemas(robot_name),
            settings,
            guards,
            history: Vec::new(),
            mouth: None,
            executor: Box::new(SimulationExecutor),
            understanding: None,
            speech: None,
            memory: None,
            memory_block: None,
            local: None,
            last_path: None,
        }
    }

    /// Local first: turns the understanding stage is sure of go to `local`
    /// (the rules brain) without an LLM request; the rest to the LLM.
    pub fn with_local_first(mut self, local: Box<dyn ChatBackend>) -> Self {
        self.local = Some(Arc::from(local));
        self
    }

    /// Remembers across sessions: offers `remember`, `recall` and `forget`,
    /// shows the block about the people present, writes episodes and failures.
    pub fn with_memory(mut self, memory: Remembering) -> Self {
        self.memory = Some(memory);
        self
    }

    /// The agent's memory, when on.
    pub fn memory(&self) -> Option<&Remembering> {
        self.memory.as_ref()
    }

    /// A new session: the dialogue is forgotten, memory is kept.
    pub fn new_session(&mut self) {
        self.history.clear();
        self.memory_block = None;
        if let Some(m) = &mut self.memory {
            m.new_session();
        }
    }

    /// Offers only the scene's names in the tools' arguments (enums; `llm.name_enums`).
    pub fn with_scene_names(mut self, world: &crate::twin::World) -> Self {
        tools::with_scene_names(&mut self.schemas, world);
        self
    }

    /// Acts through `executor` (a robot bridge) instead of the simulation.
    pub fn with_executor(mut self, executor: Box<dyn Executor>) -> Self {
        self.executor = executor;
        self
    }

    /// Brings the twin up to date with the executor's perception (between
    /// episodes; actions do it themselves before planning). Returns whether the
    /// world changed.
    pub fn perceive(&mut self, twin: &mut Twin) -> bool {
        self.executor.perceive(twin)
    }

    /// Speaks through `mouth`; a physical action first waits up to `wait_before_action`
    /// for the speech before it to be heard (`None`: it does not wait).
    pub fn with_mouth(
        mut self,
        mouth: Arc<dyn Mouth>,
        wait_before_action: Option<Duration>,
    ) -> Self {
        self.mouth = Some((mouth, wait_before_action));
        self
    }

    /// Who answers: the backend's description.
    pub fn describe(&self) -> String {
        self.backend.describe()
    }

    /// Forgets the dialogue.
    pub fn reset(&mut self) {
        self.history.clear();
    }

    /// The dialogue so far (without the system prompt).
    pub fn history(&self) -> &[ChatMessage] {
        &self.history
    }

    /// Adds a message from the robot's control system that the LLM reads on its
    /// next call (e.g. what an interrupt stopped, and who interrupted).
    pub fn note(&mut self, text: &str) {
        self.history.push(ChatMessage::User {
            content: format!("Note from the robot's control system: {text}"),
        });
    }

    /// The understanding stage turns are read with, if any.
    pub fn understanding(&self) -> Option<&Understanding> {
        self.understanding.as_ref()
    }

    /// Reads turns with this understanding stage (the `understood` event).
    pub fn with_understanding(mut self, understanding: Understanding) -> Self {
        self.understanding = Some(understanding);
        self
    }

    /// Reads turns in `language` and writes the situation note in it.
    pub fn with_language(mut self, language: &crate::language::Language) -> Self {
        self.speech = Some(language.speech().clone());
        self.with_understanding(language.understanding().clone())
    }

    /// Reads turns with the shipped English sentences; a sentence file that does
    /// not load is one warning in the log, and the agent runs without readings.
    pub fn with_shipped_understanding(self) -> Self {
        match crate::language::Language::english() {
            Ok(english) => self.with_language(&english),
            Err(error) => {
                tracing::warn!("no understanding stage: {error}");
                self
            }
        }
    }

    /// The turn as the LLM reads it. Said by nobody known (one microphone):
    /// `someone said to Daniel: ...`, after a note naming who could have said it.
    fn turn_message(&mut self, turn: &Turn, twin: &Twin) -> String {
        let robot = &twin.world.robot.name;
        if turn.speaker_by.as_deref() == Some("corrected") {
            self.note(&format!(
                "a person corrected who said the last turn: it was {}. It follows again with the right speaker.",
                turn.speaker
            ));
        }
        if person_name(twin, &turn.speaker).is_some() || turn.speaker.eq_ignore_ascii_case(robot) {
            return turn.to_string();
        }
        let listener = person_name(twin, &turn.listener);
        let could: Vec<String> = twin
            .world
            .persons()
            .iter()
            .map(|p| p.name.clone())
            .filter(|n| Some(n) != listener.as_ref())
            .collect();
        let could = match could.split_last() {
            None => "nobody at the table".to_string(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        };
        self.note(&format!(
            "nobody knows who said the next turn (one microphone); it could have been {could}. Before you do something for the speaker, ask who it is for (speak to All)."
        ));
        format!("someone said to {}: {}", turn.listener, turn.text)
    }

    /// The reading of `turn`, the dialogue so far giving "it" its meaning.
    /// A spoken turn with words the recogniser nearly got right put right
    /// toward the table; typed turns are taken as written, unless written as a
    /// recogniser writes (no capital, no punctuation: "could you past me the cup").
    fn corrected(&self, turn: &Turn, twin: &Twin) -> Option<(Turn, Vec<Correction>)> {
        let stage = self.understanding.as_ref()?;
        let typed = turn.speaker_by.is_none();
        let as_a_recogniser_writes = || {
            !turn
                .text
                .chars()
                .any(|c| c.is_uppercase() || matches!(c, '.' | ',' | '?' | '!' | ';' | ':'))
        };
        if !self.settings.correct_hearing || typed && !as_a_recogniser_writes() {
            return None;
        }
        let earlier = self.earlier_turns();
        let earlier: Vec<Utterance<'_>> = earlier.iter().map(Turn::utterance).collect();
        let corrected = if typed {
            stage.correct_typing(&twin.world, &earlier, &turn.utterance())
        } else {
            stage.correct_hearing_among(
                &twin.world,
                &earlier,
                &turn.utterance(),
                &turn.alternatives,
            )
        };
        if corrected.corrections.is_empty() {
            return None;
        }
        // The hearing taken names its own listener ("Hello, robot." heard
        // the second time for "Hello, girl boy.").
        let listener = corrected
            .alternative
            .and_then(|at| turn.alternative_listeners.get(at))
            .unwrap_or(&turn.listener);
        let turn = Turn {
            text: corrected.text,
            listener: listener.clone(),
            alternatives: Vec::new(),
            alternative_listeners: Vec::new(),
            ..turn.clone()
        };
        Some((turn, corrected.corrections))
    }

    fn earlier_turns(&self) -> Vec<Turn> {
        self.history
            .iter()
            .filter_map(|m| match m {
                ChatMessage::User { content } => Turn::parse_message(content).ok(),
                _ => None,
            })
            .collect()
    }

    fn understand(&self, turn: &Turn, twin: &Twin) -> Option<crate::understanding::Reading> {
        let stage = self.understanding.as_ref()?;
        let earlier: Vec<Turn> = self
            .history
            .iter()
            .filter_map(|m| match m {
                ChatMessage::User { content } => Turn::parse_message(content).ok(),
                _ => None,
            })
            .collect();
        let earlier: Vec<Utterance<'_>> = earlier.iter().map(Turn::utterance).collect();
        Some(stage.read_in_dialogue(&twin.world, &earlier, &turn.utterance()))
    }

    /// Handles one human turn against the twin, emitting events as it goes.
    pub async fn handle_turn(
        &mut self,
        turn: &Turn,
        twin: &mut Twin,
        events: &mut (dyn EventSink + Send),
    ) -> TurnReport {
        self.handle_turn_until(turn, twin, events, &CancellationToken::new())
            .await
    }

    /// As [`Agent::handle_turn`], stopped where it is when `cancel` fires.
    pub async fn handle_turn_until(
        &mut self,
        turn: &Turn,
        twin: &mut Twin,
        events: &mut (dyn EventSink + Send),
        cancel: &CancellationToken,
    ) -> TurnReport {
        events.emit(Event::Turn {
            speaker: turn.speaker.clone(),
            listener: turn.listener.clone(),
            text: turn.text.clone(),
            speaker_by: turn.speaker_by.clone(),
        });
        self.respond(turn, twin, events, cancel).await
    }

    /// Answers a turn whose `turn` event was already recorded. When `cancel`
    /// fires, the LLM request in flight is dropped, no further tool runs, and
    /// the turn ends as `interrupted` with a well-formed history.
    pub async fn respond(
        &mut self,
        turn: &Turn,
        twin: &mut Twin,
        events: &mut (dyn EventSink + Send),
        cancel: &CancellationToken,
    ) -> TurnReport {
        let turn_start = self.history.len();
        let corrected = self.corrected(turn, twin);
        let heard = match &corrected {
            Some((taken, corrections)) => Heard {
                corrections,
                listener: (taken.listener != turn.listener).then_some(taken.listener.as_str()),
            },
            None => Heard::default(),
        };
        let turn = corrected.as_ref().map_or(turn, |(taken, _)| taken);
        let mut state = self.open_turn(turn, heard, twin, events);
        let path = state.route.as_ref().map(|r| r.path);
        self.last_path = path.or(self.last_path);
        let backend = match (&self.local, path) {
            (Some(local), Some(Path::Local)) => Arc::clone(local),
            _ => Arc::clone(&self.backend),
        };
        let deadline =
            Instant::now() + Duration::from_secs_f64(self.settings.turn_timeout_s.max(0.001));
        let mut llm_calls = 0;
        let reason = loop {
            if cancel.is_cancelled() {
                break EndReason::Interrupted;
            }
            if llm_calls >= self.settings.max_llm_calls_per_turn {
                break EndReason::LlmCallLimit;
            }
            if Instant::now() >= deadline {
                break EndReason::Timeout;
            }
            let request = self.request();
            llm_calls += 1;
            let taken = self
                .take_reply(
                    backend.as_ref(),
                    &request,
                    twin,
                    &mut state,
                    events,
                    cancel,
                    deadline,
                )
                .await;
            match self.settle(taken, twin, &mut state, events, cancel).await {
                Settled::Next => continue,
                Settled::End(reason) => break reason,
            }
        };
        self.bound_history(turn_start);
        if let Some(m) = &mut self.memory {
            actions::off_the_runtime(|| m.close(reason.as_str(), twin));
        }
        // A turn taken locally asked no LLM.
        if path == Some(Path::Local) {
            llm_calls = 0;
        }
        events.emit(Event::EpisodeEnd {
            reason: reason.as_str().to_string(),
            llm_calls,
        });
        TurnReport { reason, llm_calls }
    }

    /// A question to the robot no template reads ("Which night is the quiz
    /// next week?") that memory has something on goes local: the rules brain
    /// answers it from memory at once, and a small model would not look.
    fn answered_from_memory(
        &self,
        turn: &Turn,
        twin: &Twin,
        reading: &crate::understanding::Reading,
        robot_addressed: bool,
        route: Route,
    ) -> Route {
        let (Some(memory), Some(stage)) = (&self.memory, &self.understanding) else {
            return route;
        };
        let text = turn.utterance().text;
        // Unread, or read over words the table does not name ("where do the
        // airbrush needles live?"): the rules brain asks memory first, too.
        let unread_question = route.path == Path::Llm
            && robot_addressed
            && (reading.act == crate::understanding::Act::Unknown
                || stage.reads_over_another_topic(&twin.world, reading, text))
            && stage.is_a_question(text);
        let Some(query) = unread_question.then(|| stage.topic_words(text)).flatten() else {
            return route;
        };
        let asker = person_name(twin, &turn.speaker);
        if actions::off_the_runtime(|| memory.knows_about(&query, asker.as_deref())) {
            Route {
                path: Path::Local,
                why: "a question memory answers".into(),
            }
        } else {
            route
        }
    }

    /// Records a turn in the history, with its reading (the `understood`
    /// event) and the situation note, and starts what the guards know of it.
    fn open_turn(
        &mut self,
        turn: &Turn,
        heard: Heard<'_>,
        twin: &mut Twin,
        events: &mut (dyn EventSink + Send),
    ) -> TurnState {
        let reading = self.understand(turn, twin);
        let route = match (&self.local, &reading) {
            (Some(_), Some(reading)) => {
                let robot_addressed = matches!(
                    grounding::addressee(&twin.world, &turn.listener),
                    Grounding::Resolved(Addressee::Robot | Addressee::All)
                );
                let asks = self.understanding.as_ref().is_some_and(|stage| {
                    stage.asks_for_something(&reading.heard, turn.utterance().text)
                });
                let said = local_first::Said {
                    robot_addressed,
                    asks,
                };
                let route = local_first::route(reading, self.last_path, said);
                Some(self.answered_from_memory(turn, twin, reading, robot_addressed, route))
            }
            (Some(_), None) => Some(Route {
                path: Path::Llm,
                why: "no understanding stage".into(),
            }),
            (None, _) => None,
        };
        if let Some(reading) = &reading {
            events.emit(Event::Understood {
                act: reading.act.as_str().to_string(),
                slots: serde_json::to_value(&reading.slots).unwrap_or_default(),
                matched: reading.matched.clone(),
                heard: reading.heard.clone(),
                corrected: heard.corrections.to_vec(),
                listener: heard.listener.map(str::to_string),
                path: route.as_ref().map(|r| r.path.as_str().to_string()),
                why: route.as_ref().map(|r| r.why.clone()),
            });
        }
        let mut content = self.turn_message(turn, twin);
        let local = route.as_ref().is_some_and(|r| r.path == Path::Local);
        let grammar = self.understanding.as_ref().map(Understanding::grammar);
        let language = grammar.zip(self.speech.as_deref());
        let situation = match (
            &reading,
            language,
            self.settings.situation.unwrap_or_default(),
        ) {
            (Some(_), _, Situation::Off) | (None, _, _) | (_, None, _) => None,
            // The rules brain asks the twin itself.
            _ if local || !self.backend.reads_notes() => None,
            (Some(reading), Some(language), wanted) => {
                situation::note(twin, language, turn, reading, wanted == Situation::Plan)
            }
        };
        if let Some(note) = &situation {
            content.push_str(super::turn::NOTE_SEPARATOR);
            content.push_str(&note.text);
            events.emit(Event::Situation {
                text: note.text.clone(),
            });
        }
        self.history.push(ChatMessage::User { content });
        let sender = person_name(twin, &turn.speaker);
        self.memory_block = self
            .memory
            .as_mut()
            .and_then(|m| actions::off_the_runtime(|| m.open(turn, sender.as_deref(), twin)));
        let mut state = TurnState {
            sender,
            listener_said: turn.listener.clone(),
            receiver: person_name(twin, &turn.listener),
            robot_addressed: matches!(
                grounding::addressee(&twin.world, &turn.listener),
                Grounding::Resolved(Addressee::Robot)
            ),
            route,
            ..TurnState::default()
        };
        // The note states the listener's hindrances: that is the check.
        state.checked_receiver = situation
            .and_then(|n| n.checked)
            .is_some_and(|p| Some(&p) == state.receiver.as_ref());
        state
    }

    fn request(&self) -> ChatRequest {
        let mut messages = Vec::with_capacity(self.history.len() + 1);
        messages.push(ChatMessage::System {
            content: self.character.prompt.clone(),
        });
        // After the static prompt, so that its prefix stays cacheable.
        if let Some(block) = &self.memory_block {
            messages.push(ChatMessage::System {
                content: block.clone(),
            });
        }
        messages.extend(self.history.iter().cloned());
        let memory_on = self.memory.is_some();
        ChatRequest {
            messages,
            tools: self
                .schemas
                .iter()
                .filter(|s| {
                    memory_on
                        || tools::definition(&s.name).map(|d| d.category)
                            != Some(ToolCategory::Memory)
                })
                .cloned()
                .collect(),
        }
    }

    /// A warning: an event, and a message the LLM reads on its next call.
    fn warn(&mut self, events: &mut dyn EventSink, kind: &str, text: &str) {
        events.emit(Event::Warning {
            kind: kind.to_string(),
            detail: text.to_string(),
        });
        self.history.push(ChatMessage::User {
            content: format!("Warning from the robot's control system: {text}"),
        });
    }

    /// Runs one call through the flow checks and guards; returns the text the LLM reads.
    async fn run_call(
        &mut self,
        call: &ToolCall,
        twin: &mut Twin,
        state: &mut TurnState,
        events: &mut (dyn EventSink + Send),
        cancel: &CancellationToken,
    ) -> (String, CallFlags) {
        let mut flags = CallFlags::default();
        let args: Value = match serde_json::from_str(if call.arguments.trim().is_empty() {
            "{}"
        } else {
            &call.arguments
        }) {
            Ok(v) => v,
            Err(error) => {
                let text = format!(
                    "The arguments of {} are not valid JSON ({error}); send a JSON object such as {}.",
                    call.name,
                    tools::definition(&call.name).map_or_else(|| "{}".to_string(), |d| d.example())
                );
                let raw = Value::String(call.arguments.clone());
                refuse(events, "malformed_arguments", &call.name, raw, &text);
                return (text, flags);
            }
        };
        let Some(definition) = tools::definition(&call.name) else {
            let outcome = tools::unknown_tool(&call.name);
            refuse(events, "unknown_tool", &call.name, args, &outcome.text);
            return (outcome.text, flags);
        };
        if let Err(error) = tools::Args::parse(definition, &args) {
            let text = error.to_string();
            refuse(events, "malformed_arguments", &call.name, args, &text);
            return (text, flags);
        }
        if definition.category == ToolCategory::Stop {
            flags.stop = true;
            events.emit(Event::ToolCall {
                name: call.name.clone(),
                args,
                ok: true,
                result: "Stopped.".into(),
            });
            return ("Stopped.".into(), flags);
        }
        // Repeated identical calls: a warning, then the end of the turn.
        let key = format!("{}{}", call.name, canonical(&args));
        let count = state.identical.entry(key).or_insert(0);
        *count += 1;
        if *count > self.settings.max_identical_calls.max(1) {
            state.repeat_warnings += 1;
            let text = format!(
                "You already called {} with these arguments {} times; do something else, or call stop.",
                call.name,
                *count - 1
            );
            refuse(events, "repeated_call", &call.name, args, &text);
            flags.end_repeated = state.repeat_warnings > 1;
            return (text, flags);
        }
        if let Some(refusal) = self.guard(definition.category, &call.name, &args, twin, state) {
            refuse(events, refusal.0, &call.name, args, &refusal.1);
            return (refusal.1, flags);
        }
        let outcome = self
            .run_tool(
                definition.category,
                &call.name,
                &args,
                twin,
                state,
                events,
                cancel,
            )
            .await;
        state.tools_run += 1;
        if definition.category == ToolCategory::Query && outcome.ok {
            if let (Some(receiver), Some(person)) = (
                &state.receiver,
                outcome.facts.get("person").and_then(Value::as_str),
            ) {
                if receiver == person {
                    state.checked_receiver = true;
                }
            }
        }
        if call.name == "speak" && outcome.ok {
            state.spoke = true;
            let to = outcome
                .facts
                .get("to")
                .and_then(Value::as_str)
                .unwrap_or("All");
            let text = outcome
                .facts
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if let Some((mouth, _)) = &self.mouth {
                mouth.say(to, text);
            }
            events.emit(Event::Speech {
                to: to.to_string(),
                text: text.to_string(),
            });
        }
        events.emit(Event::ToolCall {
            name: call.name.clone(),
            args: args.clone(),
            ok: outcome.ok,
            result: outcome.text.clone(),
        });
        if matches!(definition.category, ToolCategory::Action)
            || ["gaze", "point_at_object_or_person"].contains(&call.name.as_str())
        {
            events.twin_changed(twin);
            events.emit(Event::Action {
                name: call.name.clone(),
                args,
                ok: outcome.ok,
                detail: outcome.text.clone(),
            });
        }
        (outcome.text, flags)
    }

    /// Runs a checked call: memory tools on the store, actions with what memory
    /// learnt of past failures, everything else on the twin.
    #[allow(clippy::too_many_arguments)]
    async fn run_tool(
        &mut self,
        category: ToolCategory,
        name: &str,
        args: &Value,
        twin: &mut Twin,
        state: &TurnState,
        events: &mut (dyn EventSink + Send),
        cancel: &CancellationToken,
    ) -> ToolOutcome {
        let Some(memory) = self.memory.as_mut() else {
            return tools::call_acting(twin, name, args, self.executor.as_mut(), cancel).await;
        };
        match category {
            ToolCategory::Memory => {
                let said_to = person_name(twin, &state.listener_said)
                    .unwrap_or_else(|| state.listener_said.clone());
                let (outcome, erased) = actions::off_the_runtime(|| {
                    memory.call(name, args, state.sender.as_deref(), &said_to, twin)
                });
                if let Some(erased) = erased {
                    self.forget_in_history(&erased);
                    events.emit(Event::MemoryErased {
                        facts: erased.facts,
                        episodes: erased.episodes,
                        failures: erased.failures,
                    });
                }
                outcome
            }
            ToolCategory::Action => {
                actions::off_the_runtime(|| memory.before_action(name, args, twin));
                let mut outcome =
                    tools::call_acting(twin, name, args, self.executor.as_mut(), cancel).await;
                if let Some(memory) = self.memory.as_mut() {
                    actions::off_the_runtime(|| {
                        memory.after_action(name, args, &mut outcome, twin)
                    });
                }
                outcome
            }
            _ => tools::call_acting(twin, name, args, self.executor.as_mut(), cancel).await,
        }
    }

    /// Erased text leaves the dialogue too.
    fn forget_in_history(&mut self, erased: &crate::memory::Erased) {
        let redact = |text: &mut String| {
            *text = crate::memory::redact::redact_text(text, &erased.texts).0;
        };
        for message in &mut self.history {
            match message {
                ChatMessage::User { content } | ChatMessage::Tool { content, .. } => {
                    redact(content)
                }
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                    ..
                } => {
                    if let Some(c) = content {
                        redact(c);
                    }
                    for call in tool_calls {
                        redact(&mut call.arguments);
                    }
                }
                ChatMessage::System { content } => redact(content),
            }
        }
    }

    /// Before a physical action: lets the explanation be heard first, within the bound.
    async fn wait_for_speech(&self, tool: &str, events: &mut (dyn EventSink + Send)) {
        let Some((mouth, Some(bound))) = &self.mouth else {
            return;
        };
        if tools::definition(tool).map(|d| d.category) != Some(ToolCategory::Action) {
            return;
        }
        if tokio::time::timeout(*bound, mouth.until_quiet())
            .await
            .is_err()
        {
            events.emit(Event::Warning {
                kind: "voice".into(),
                detail: format!(
                    "The robot was still speaking after {:.1} s; {tool} goes ahead anyway.",
                    bound.as_secs_f64()
                ),
            });
        }
    }

    /// The guards of DESIGN.md; `Some((kind, message))` refuses the call.
    fn guard(
        &self,
        category: ToolCategory,
        name: &str,
        args: &Value,
        twin: &Twin,
        state: &TurnState,
    ) -> Option<(&'static str, String)> {
        if category != ToolCategory::Action {
            return None;
        }
        if self.guards.check_before_help && !state.robot_addressed && !state.checked_receiver {
            if let Some(receiver) = &state.receiver {
                return Some((
                    "guard_check_first",
                    format!(
                        "Refused: first check whether {receiver} is hindered (check_hindering_reasons or is_person_busy_or_idle for {receiver}); help only if {receiver} is hindered."
                    ),
                ));
            }
        }
        if self.guards.explain_first && !state.spoke {
            return Some((
                "guard_explain_first",
                format!("Refused: before {name}, call speak and explain to the humans why you help; then call {name} again."),
            ));
        }
        if self.guards.deliver_to_sender && !state.robot_addressed {
            if let (Some(sender), Some(receiver), Some(target)) = (
                &state.sender,
                &state.receiver,
                args.get("person_name")
                    .and_then(Value::as_str)
                    .and_then(|p| person_name(twin, p)),
            ) {
                if &target == receiver && sender != receiver {
                    return Some((
                        "guard_deliver_to_sender",
                        format!("Refused: {sender} asked for it, so deliver to {sender}, the sender, not to {receiver}. Make sure to always help the sender."),
                    ));
                }
            }
        }
        None
    }

    /// Keeps the history within bounds, dropping the oldest tool chatter first.
    fn bound_history(&mut self, current_turn_start: usize) {
        let max = self.settings.history_max_messages.max(4);
        let mut protect = current_turn_start;
        while self.history.len() > max {
            // The oldest assistant message with tool calls before this turn, and its results.
            let group = self.history[..protect.min(self.history.len())].iter().position(
                |m| matches!(m, ChatMessage::Assistant { tool_calls, .. } if !tool_calls.is_empty()),
            );
            let remove = match group {
                Some(start) => {
                    let mut end = start + 1;
                    while matches!(self.history.get(end), Some(ChatMessage::Tool { .. })) {
                        end += 1;
                    }
                    start..end
                }
                None if protect > 0 => 0..1,
                None => break,
            };
            let n = remove.len();
            self.history.drain(remove);
            protect = protect.saturating_sub(n);
        }
    }
}

#[derive(Debug, Default)]
struct CallFlags {
    stop: bool,
    end_repeated: bool,
}

/// Records a call that was not run: a warning and the failed call, with the text the LLM reads.
fn refuse(events: &mut dyn EventSink, kind: &str, name: &str, args: Value, text: &str) {
    events.emit(Event::Warning {
        kind: kind.to_string(),
        detail: text.to_string(),
    });
    events.emit(Event::ToolCall {
        name: name.to_string(),
        args,
        ok: false,
        result: text.to_string(),
    });
}

/// The scene's name of a person mentioned as `name`, if it is one.
fn person_name(twin: &Twin, name: &str) -> Option<String> {
    match grounding::person(&twin.world, name) {
        Grounding::Resolved(id) => Some(twin.world.person(id).name.clone()),
        _ => None,
    }
}

fn canonical(args: &Value) -> String {
    // serde_json's maps are sorted, so this text is the same for equal arguments.
    args.to_string().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::scripted::ScriptedBrain;

    fn agent(max_messages: usize) -> (Agent, Twin) {
        let reply = "[[turn.reply]]\ntool_calls = [{ name = \"is_person_busy_or_idle\", arguments = { person_name = \"Daniel\" } }]\n[[turn.reply]]\ntool_calls = [{ name = \"stop\" }]\n";
        let script = format!("[[turn]]\n{reply}").repeat(4);
        let brain = ScriptedBrain::from_toml_str(&script, "test").expect("script");
        let texts = ToolTexts::load_default().expect("texts");
        let character = Character::load("full", "the_robot").expect("character");
        let settings = AgentSettings {
            history_max_messages: max_messages,
            ..AgentSettings::default()
        };
        let agent = Agent::new(
            Box::new(brain),
            character,
            &texts,
            "the_robot",
            settings,
            GuardSettings::default(),
        );
        (agent, Twin::load("softdrinks").expect("scene"))
    }

    #[tokio::test]
    async fn the_history_drops_old_tool_chatter_first_and_keeps_what_people_said() {
        let (mut agent, mut twin) = agent(8);
        let mut events = Vec::new();
        let lines = [
            "Felix said to Daniel: one",
            "Felix said to Daniel: two",
            "Felix said to Daniel: three",
            "Felix said to Daniel: four",
        ];
        for line in lines {
            let turn = Turn::parse(line).expect("turn");
            agent.handle_turn(&turn, &mut twin, &mut events).await;
        }
        let history = agent.history();
        assert!(history.len() <= 8, "{} messages", history.len());
        let said: Vec<&str> = history
            .iter()
            .filter_map(|m| match m {
                ChatMessage::User { content } => Some(content.as_str()),
                _ => None,
            })
            .collect();
        // The latest turns are all there; the oldest tool chatter went first.
        assert!(
            said.contains(&"Felix said to Daniel: four")
                && said.contains(&"Felix said to Daniel: three")
        );
        // Every tool result still follows the assistant message that asked for it.
        for (i, m) in history.iter().enumerate() {
            if let ChatMessage::Tool { call_id, .. } = m {
                let asked = history[..i].iter().rev().find_map(|p| match p {
                    ChatMessage::Assistant { tool_calls, .. } => {
                        Some(tool_calls.iter().any(|c| &c.id == call_id))
                    }
                    _ => None,
                });
                assert_eq!(asked, Some(true), "orphan tool result {call_id}");
            }
        }
    }

    #[test]
    fn calls_run_look_talk_move_stop() {
        let mut names = vec![
            "stop",
            "pour_into",
            "speak",
            "gaze",
            "check_hindering_reasons",
        ];
        names.sort_by_key(|n| rank(n));
        assert_eq!(
            names,
            [
                "check_hindering_reasons",
                "gaze",
                "speak",
                "pour_into",
                "stop"
            ]
        );
    }
}
