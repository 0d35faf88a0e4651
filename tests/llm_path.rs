//! The LLM path against a local OpenAI-compatible server started by the test
//! (real HTTP, real server-sent streams, the real agent, tools and twin): the
//! situation note, several calls in one reply, streaming (speaking before the
//! reply is finished, cut off, interrupted), bad replies, and the small-model
//! profile. Never against a live model.

mod support;

use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use attentive::agent::tools::{self, ToolTexts};
use attentive::agent::{Agent, Character, EndReason, EventSink, Turn};
use attentive::config::{AgentSettings, GuardSettings, LlmProfile, LlmSettings, Situation};
use attentive::events::Event;
use attentive::llm::OpenAiCompatible;
use attentive::twin::Twin;
use support::fake_llm::{completion, FakeLlm, Pace, Scripted};
use support::last_user;

const HAND_ME: &str = "Felix said to Daniel: Daniel, could you hand me the red glass, please?";

fn llm_settings(server: &FakeLlm) -> LlmSettings {
    LlmSettings {
        base_url: Some(server.base_url()),
        request_timeout_s: 10.0,
        retries: 0,
        ..LlmSettings::default()
    }
}

fn agent_with(llm: &LlmSettings, situation: Situation) -> (Agent, Twin) {
    let twin = Twin::load("softdrinks").expect("scene");
    let backend = OpenAiCompatible::from_settings(llm).expect("backend");
    let agent = Agent::new(
        Box::new(backend),
        Character::load("full", "the_robot").expect("character"),
        &ToolTexts::load_default().expect("tool texts"),
        "the_robot",
        AgentSettings {
            situation: Some(situation),
            ..AgentSettings::default()
        },
        GuardSettings::default(),
    )
    .with_shipped_understanding();
    let agent = if llm.uses_name_enums() {
        agent.with_scene_names(&twin.world)
    } else {
        agent
    };
    (agent, twin)
}

/// One "hand me the red glass" turn with the note on: how it ended, and its events.
async fn hand_me_once(llm: &LlmSettings) -> (attentive::agent::TurnReport, Vec<Event>) {
    let (mut agent, mut twin) = agent_with(llm, Situation::Facts);
    let mut events = Vec::new();
    let report = agent
        .handle_turn(&Turn::parse(HAND_ME).unwrap(), &mut twin, &mut events)
        .await;
    (report, events)
}

fn speak(text: &str) -> (&'static str, Value) {
    ("speak", json!({"person_name": "Felix", "text": text}))
}

fn hand_over() -> (&'static str, Value) {
    (
        "hand_object_over_to_person",
        json!({"object_name": "red_glass", "person_name": "Felix"}),
    )
}

fn stop() -> (&'static str, Value) {
    ("stop", json!({}))
}

fn kinds(events: &[Event]) -> Vec<String> {
    support::warning_kinds(events)
}

fn ran(events: &[Event]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall { name, ok, .. } => Some((name.clone(), *ok)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_hand_over_in_one_reply_ends_after_one_llm_call() {
    let server = FakeLlm::start(vec![Scripted::tool_calls(&[
        speak("Daniel cannot reach the red glass, so I will hand it to you."),
        hand_over(),
        stop(),
    ])])
    .await;
    let (report, events) = hand_me_once(&llm_settings(&server)).await;
    assert_eq!(report.reason, EndReason::Stop);
    assert_eq!(report.llm_calls, 1);
    assert_eq!(server.request_count(), 1);
    // The note counted as the check: nothing refused, the glass is with Felix.
    assert!(kinds(&events).is_empty(), "{:?}", kinds(&events));
    assert_eq!(
        ran(&events),
        [
            ("speak".into(), true),
            ("hand_object_over_to_person".into(), true),
            ("stop".into(), true)
        ]
    );
    let speech = events
        .iter()
        .position(|e| matches!(e, Event::Speech { .. }));
    let action = events
        .iter()
        .position(|e| matches!(e, Event::Action { .. }));
    assert!(speech < action, "speech first: {events:?}");
    assert!(server.bodies()[0]["stream"] == true);
}

#[tokio::test]
async fn the_note_states_what_was_read_and_the_twins_answers_in_the_tools_words() {
    let server = FakeLlm::start(vec![]).await;
    server.set_fallback(Scripted::tool_calls(&[stop()]));
    let (mut agent, mut twin) = agent_with(&llm_settings(&server), Situation::Facts);
    let expected_check = tools::call_query(
        &twin.world,
        "check_hindering_reasons",
        &json!({"person_name": "Daniel", "object_name": "red_glass"}),
    )
    .text;
    let mut events = Vec::new();
    for line in [HAND_ME, "Daniel said to Felix: What a lovely evening."] {
        agent
            .handle_turn(&Turn::parse(line).unwrap(), &mut twin, &mut events)
            .await;
    }
    let bodies = server.bodies();
    let first = last_user(&bodies[0]);
    let (said, note) = first
        .split_once("\n\nNote from the robot's control system: ")
        .expect("a note after the turn");
    assert_eq!(said, HAND_ME);
    assert!(
        note.starts_with("Felix asks Daniel for red_glass. "),
        "{note}"
    );
    assert!(
        note.contains(&expected_check),
        "{note}\n-- expected: {expected_check}"
    );
    assert!(
        note.contains("the_robot can reach red_glass with its"),
        "{note}"
    );
    // Small talk: nothing was read, so nothing is noted.
    assert_eq!(
        last_user(&bodies[1]),
        "Daniel said to Felix: What a lovely evening."
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Situation { text } if text == note)));
}

#[tokio::test]
async fn with_the_note_off_the_turn_goes_to_the_llm_as_in_the_paper() {
    let server = FakeLlm::start(vec![
        Scripted::tool_calls(&[speak("I will hand it to you."), hand_over()]),
        Scripted::tool_calls(&[(
            "check_hindering_reasons",
            json!({"person_name": "Daniel", "object_name": "red_glass"}),
        )]),
        Scripted::tool_calls(&[hand_over(), stop()]),
    ])
    .await;
    let (mut agent, mut twin) = agent_with(&llm_settings(&server), Situation::Off);
    let mut events = Vec::new();
    let report = agent
        .handle_turn(&Turn::parse(HAND_ME).unwrap(), &mut twin, &mut events)
        .await;
    assert_eq!(last_user(&server.bodies()[0]), HAND_ME);
    // Without the note the hand-over before a check is refused, then done after it.
    assert!(kinds(&events).contains(&"guard_check_first".to_string()));
    assert_eq!(report.reason, EndReason::Stop);
    assert_eq!(report.llm_calls, 3);
    assert!(!events.iter().any(|e| matches!(e, Event::Situation { .. })));
}

/// Records when the robot spoke, in chunks the server had sent by then.
struct SpeechWatch {
    events: Vec<Event>,
    server: Arc<FakeLlm>,
    chunks_at_speech: Option<usize>,
    cancel_on_speech: Option<CancellationToken>,
}

impl EventSink for SpeechWatch {
    fn emit(&mut self, event: Event) {
        if matches!(event, Event::Speech { .. }) && self.chunks_at_speech.is_none() {
            self.chunks_at_speech = Some(self.server.chunks_sent());
            if let Some(cancel) = &self.cancel_on_speech {
                cancel.cancel();
            }
        }
        self.events.push(event);
    }
}

fn slow_hand_over_reply() -> Scripted {
    Scripted::tool_calls(&[
        speak("Daniel cannot reach the red glass, so I will hand it to you."),
        hand_over(),
        stop(),
    ])
}

#[tokio::test]
async fn the_robot_speaks_while_the_model_still_writes_the_action() {
    let reply = slow_hand_over_reply();
    let Scripted::Json { body, .. } = &reply else {
        unreachable!()
    };
    let total = support::fake_llm::chunks_of(body).len();
    let server = Arc::new(FakeLlm::start(vec![reply]).await);
    server.set_pace(Pace {
        first: std::time::Duration::from_millis(50),
        per_chunk: std::time::Duration::from_millis(40),
    });
    let (mut agent, mut twin) = agent_with(&llm_settings(&server), Situation::Facts);
    let mut watch = SpeechWatch {
        events: Vec::new(),
        server: server.clone(),
        chunks_at_speech: None,
        cancel_on_speech: None,
    };
    let report = agent
        .handle_turn(&Turn::parse(HAND_ME).unwrap(), &mut twin, &mut watch)
        .await;
    assert_eq!(report.reason, EndReason::Stop);
    let at = watch.chunks_at_speech.expect("the robot spoke");
    assert!(at < total - 3, "spoke after {at} of {total} chunks");
    assert!(ran(&watch.events).contains(&("hand_object_over_to_person".into(), true)));
}

#[tokio::test]
async fn an_interrupt_drops_the_stream_and_nothing_moves() {
    let server = Arc::new(FakeLlm::start(vec![slow_hand_over_reply()]).await);
    server.set_fallback(Scripted::tool_calls(&[stop()]));
    server.set_pace(Pace {
        first: std::time::Duration::from_millis(20),
        per_chunk: std::time::Duration::from_millis(60),
    });
    let (mut agent, mut twin) = agent_with(&llm_settings(&server), Situation::Facts);
    let cancel = CancellationToken::new();
    let mut watch = SpeechWatch {
        events: Vec::new(),
        server: server.clone(),
        chunks_at_speech: None,
        cancel_on_speech: Some(cancel.clone()),
    };
    let turn = Turn::parse(HAND_ME).unwrap();
    let report = agent.respond(&turn, &mut twin, &mut watch, &cancel).await;
    assert_eq!(report.reason, EndReason::Interrupted);
    assert!(!watch
        .events
        .iter()
        .any(|e| matches!(e, Event::Action { .. })));
    let glass = twin
        .world
        .object_ids()
        .find(|id| twin.world.object(*id).name == "red_glass")
        .unwrap();
    assert!(matches!(
        twin.world.object(glass).placement,
        attentive::twin::world::Placement::OnTable { .. }
    ));
    // The history holds the speech that ran, with its result; the next turn works.
    let mut events = Vec::new();
    let report = agent
        .handle_turn(
            &Turn::parse("Felix said to Daniel: never mind.").unwrap(),
            &mut twin,
            &mut events,
        )
        .await;
    assert_eq!(report.reason, EndReason::Stop);
    let messages = server.bodies().last().unwrap()["messages"].clone();
    let speak_calls = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .count();
    assert_eq!(speak_calls, 1, "{messages}");
}

#[tokio::test]
async fn a_stream_cut_off_mid_reply_is_one_warning_and_nothing_runs_twice() {
    let body = match slow_hand_over_reply() {
        Scripted::Json { body, .. } => body,
        _ => unreachable!(),
    };
    let chunks = support::fake_llm::chunks_of(&body);
    // Cut in the middle of the hand-over's arguments: the speech is complete.
    let cut_at = chunks
        .iter()
        .position(|c| c.to_string().contains("hand_object_over_to_person"))
        .unwrap()
        + 2;
    let server = FakeLlm::start(vec![
        Scripted::Cut { body, keep: cut_at },
        Scripted::tool_calls(&[hand_over(), stop()]),
    ])
    .await;
    let (report, events) = hand_me_once(&llm_settings(&server)).await;
    assert_eq!(report.reason, EndReason::Stop);
    assert_eq!(report.llm_calls, 2);
    assert_eq!(kinds(&events), ["reply_cut_off"]);
    assert_eq!(
        ran(&events),
        [
            ("speak".into(), true),
            ("hand_object_over_to_person".into(), true),
            ("stop".into(), true)
        ]
    );
    let warning = last_user(&server.bodies()[1]);
    assert!(
        warning.contains("cut off") && warning.contains("speak"),
        "{warning}"
    );
}

#[tokio::test]
async fn a_stream_cut_off_twice_ends_the_turn() {
    let body = match slow_hand_over_reply() {
        Scripted::Json { body, .. } => body,
        _ => unreachable!(),
    };
    let server = FakeLlm::start(vec![]).await;
    server.set_fallback(Scripted::Cut { body, keep: 1 });
    let (report, events) = hand_me_once(&llm_settings(&server)).await;
    assert_eq!(report.reason, EndReason::LlmError);
    assert_eq!(report.llm_calls, 2);
    assert_eq!(kinds(&events), ["reply_cut_off", "llm_error"]);
    assert!(ran(&events).is_empty());
}

#[tokio::test]
async fn a_reply_that_repeats_acts_first_and_stops_midway_runs_each_call_once_in_order() {
    for stream in [false, true] {
        let server = FakeLlm::start(vec![Scripted::tool_calls(&[
            hand_over(),
            stop(),
            speak("I will hand you the red glass."),
            speak("I will hand you the red glass."),
            hand_over(),
        ])])
        .await;
        let llm = LlmSettings {
            stream,
            ..llm_settings(&server)
        };
        let (report, events) = hand_me_once(&llm).await;
        assert_eq!(report.reason, EndReason::Stop, "stream {stream}");
        assert_eq!(report.llm_calls, 1);
        let done: Vec<String> = ran(&events)
            .into_iter()
            .filter(|(_, ok)| *ok)
            .map(|(name, _)| name)
            .collect();
        assert_eq!(
            done,
            ["speak", "hand_object_over_to_person", "stop"],
            "stream {stream}"
        );
        let mut warned = kinds(&events);
        warned.sort();
        assert_eq!(
            warned,
            [
                "action_before_speech",
                "duplicate_call_in_reply",
                "duplicate_call_in_reply",
                "stop_not_last"
            ],
            "stream {stream}"
        );
    }
}

#[tokio::test]
async fn an_endpoint_that_refuses_streaming_or_parallel_calls_is_asked_without() {
    let server = FakeLlm::start(vec![]).await;
    server.set_responder(Arc::new(|body: &Value| {
        if body["stream"] == true {
            Scripted::error(400, "stream is not supported by this server")
        } else if body.get("parallel_tool_calls").is_some() {
            Scripted::error(
                400,
                "Unrecognized request argument supplied: parallel_tool_calls",
            )
        } else {
            Scripted::tool_calls(&[stop()])
        }
    }));
    let (mut agent, mut twin) = agent_with(&llm_settings(&server), Situation::Facts);
    let mut events = Vec::new();
    for _ in 0..2 {
        let report = agent
            .handle_turn(&Turn::parse(HAND_ME).unwrap(), &mut twin, &mut events)
            .await;
        assert_eq!(report.reason, EndReason::Stop);
    }
    let bodies = server.bodies();
    // stream refused, whole with parallel refused, whole without; then only the last form.
    assert_eq!(bodies.len(), 4, "{bodies:#?}");
    let last = bodies.last().unwrap();
    assert_eq!(last["stream"], false);
    assert!(last.get("parallel_tool_calls").is_none());
}

#[tokio::test]
async fn the_small_profile_forces_one_call_per_reply_and_name_enums_offer_only_the_scenes_names() {
    let server = FakeLlm::start(vec![Scripted::tool_calls(&[stop()])]).await;
    let llm = LlmSettings {
        profile: LlmProfile::Small,
        name_enums: Some(true),
        ..llm_settings(&server)
    };
    let (mut agent, mut twin) = agent_with(&llm, Situation::Facts);
    let mut events = Vec::new();
    agent
        .handle_turn(&Turn::parse(HAND_ME).unwrap(), &mut twin, &mut events)
        .await;
    let body = &server.bodies()[0];
    assert_eq!(body["tool_choice"], "required");
    assert_eq!(body["parallel_tool_calls"], false);
    let tools = body["tools"].as_array().unwrap();
    let params = |name: &str| {
        tools
            .iter()
            .find(|t| t["function"]["name"] == name)
            .map(|t| t["function"]["parameters"]["properties"].clone())
            .unwrap()
    };
    let hand = params("hand_object_over_to_person");
    assert!(hand["object_name"]["enum"]
        .as_array()
        .unwrap()
        .contains(&json!("red_glass")));
    assert!(!hand["person_name"]["enum"]
        .as_array()
        .unwrap()
        .contains(&json!("All")));
    assert!(params("speak")["person_name"]["enum"]
        .as_array()
        .unwrap()
        .contains(&json!("All")));
    assert!(params("speak")["text"].get("enum").is_none());
    // Unless asked for, the names stay free, with either profile.
    assert!(!LlmSettings::default().uses_name_enums());
    let small = LlmSettings {
        profile: LlmProfile::Small,
        ..LlmSettings::default()
    };
    assert!(!small.uses_name_enums());
    assert_eq!(
        small.with_profile().tool_choice.as_deref(),
        Some("required")
    );
    assert_eq!(completion(json!({}), "stop")["object"], "chat.completion");
}
