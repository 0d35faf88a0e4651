//! The agent's loop against a local OpenAI-compatible server started by the
//! test: the real HTTP client, the real tools, the real twin.

mod support;

use serde_json::{json, Value};

use attentive::agent::tools::ToolTexts;
use attentive::agent::{Agent, Character, EndReason, Turn};
use attentive::config::{AgentSettings, GuardSettings, LlmSettings};
use attentive::events::Event;
use attentive::llm::OpenAiCompatible;
use attentive::twin::Twin;
use support::fake_llm::{completion, FakeLlm, Scripted};

fn agent_for(server: &FakeLlm, timeout_s: f64, retries: u32) -> (Agent, Twin) {
    agent_streaming(server, timeout_s, retries, true)
}

fn agent_streaming(server: &FakeLlm, timeout_s: f64, retries: u32, stream: bool) -> (Agent, Twin) {
    let twin = Twin::load("softdrinks").expect("scene");
    let settings = LlmSettings {
        base_url: Some(server.base_url()),
        request_timeout_s: timeout_s,
        retries,
        backoff_initial_ms: 10,
        stream,
        ..LlmSettings::default()
    };
    let backend = OpenAiCompatible::from_settings(&settings).expect("backend");
    let character = Character::load("full", "the_robot").expect("character");
    let texts = ToolTexts::load_default().expect("tool texts");
    let agent = Agent::new(
        Box::new(backend),
        character,
        &texts,
        "the_robot",
        AgentSettings::default(),
        GuardSettings::default(),
    );
    (agent, twin)
}

fn turn(text: &str) -> Turn {
    Turn::parse(text).expect("turn")
}

fn warnings(events: &[Event]) -> Vec<String> {
    support::warning_kinds(events)
}

fn stop() -> Scripted {
    Scripted::tool_calls(&[("stop", json!({}))])
}

#[tokio::test]
async fn request_carries_character_tools_and_history_and_results_go_back_by_id() {
    let server = FakeLlm::start(vec![
        Scripted::tool_calls(&[("is_person_busy_or_idle", json!({"person_name": "Daniel"}))]),
        stop(),
        stop(),
    ])
    .await;
    let (mut agent, mut twin) = agent_for(&server, 5.0, 0);
    let mut events = Vec::new();
    let report = agent
        .handle_turn(
            &turn("Felix said to Daniel: Hey Daniel, what do we have to drink?"),
            &mut twin,
            &mut events,
        )
        .await;
    assert_eq!(report.reason, EndReason::Stop);
    assert_eq!(report.llm_calls, 2);
    agent
        .handle_turn(
            &turn("Daniel said to Felix: We have cola and fanta."),
            &mut twin,
            &mut events,
        )
        .await;
    let bodies = server.bodies();
    let first = &bodies[0];
    assert_eq!(first["messages"][0]["role"], "system");
    assert!(first["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .contains("robot called 'the_robot'"));
    assert_eq!(
        first["messages"][1]["content"],
        "Felix said to Daniel: Hey Daniel, what do we have to drink?"
    );
    let names: Vec<&str> = first["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(
        names.contains(&"check_hindering_reasons")
            && names.contains(&"stop")
            && names.contains(&"gaze")
    );
    // The second request carries the tool result with its call id.
    let second = &bodies[1]["messages"];
    let tool_message = second
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("tool message");
    assert_eq!(tool_message["tool_call_id"], "call_1");
    assert_eq!(tool_message["content"], "Daniel is idle.");
    // The next turn's request holds the whole history.
    let third: Vec<&Value> = bodies[2]["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .collect();
    assert!(third
        .iter()
        .any(|m| m["content"] == "Daniel said to Felix: We have cola and fanta."));
    assert!(third
        .iter()
        .any(|m| m["content"] == "Felix said to Daniel: Hey Daniel, what do we have to drink?"));
}

#[tokio::test]
async fn gaze_then_speech_then_action_whatever_order_the_llm_sent() {
    // A whole reply runs in the paper's order; a streamed one runs looking and
    // talking as each call arrives, and acts only after the speech.
    for (stream, expected) in [
        (
            false,
            [
                "check_hindering_reasons",
                "gaze",
                "speak",
                "hand_object_over_to_person",
                "stop",
            ],
        ),
        (
            true,
            [
                "check_hindering_reasons",
                "speak",
                "gaze",
                "hand_object_over_to_person",
                "stop",
            ],
        ),
    ] {
        look_talk_move_stop(stream, expected).await;
    }
}

async fn look_talk_move_stop(stream: bool, expected: [&str; 5]) {
    let server = FakeLlm::start(vec![
        Scripted::tool_calls(&[("check_hindering_reasons", json!({"person_name": "Daniel", "object_name": "red_glass"}))]),
        Scripted::tool_calls(&[
            ("hand_object_over_to_person", json!({"object_name": "red_glass", "person_name": "Felix"})),
            ("speak", json!({"person_name": "Felix", "text": "Daniel cannot reach the red glass; I will hand it to you."})),
            ("gaze", json!({"name": "Felix"})),
        ]),
        stop(),
    ])
    .await;
    let (mut agent, mut twin) = agent_streaming(&server, 5.0, 0, stream);
    let mut events = Vec::new();
    agent
        .handle_turn(
            &turn("Felix said to Daniel: Daniel, please hand me the red glass."),
            &mut twin,
            &mut events,
        )
        .await;
    let order: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(order, expected, "stream: {stream}");
    // Speech came before the action, so the explain-first guard let it through;
    // the model hears that it wrote the action first.
    assert!(!warnings(&events).contains(&"guard_explain_first".to_string()));
    assert!(warnings(&events).contains(&"action_before_speech".to_string()));
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Speech { to, .. } if to == "Felix")));
}

#[tokio::test]
async fn flow_checks_warn_and_the_turn_goes_on() {
    let server = FakeLlm::start(vec![
        // A made-up final answer before anything was checked.
        Scripted::text("Daniel can surely answer that."),
        // An unknown tool and broken JSON arguments.
        Scripted::ok(completion(
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "fly_to_moon", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "is_person_busy_or_idle", "arguments": "{\"person_name\": Daniel"}}
            ]}),
            "tool_calls",
        )),
        Scripted::tool_calls(&[("is_person_busy_or_idle", json!({"person_name": "Daniel"}))]),
        stop(),
    ])
    .await;
    let (mut agent, mut twin) = agent_for(&server, 5.0, 0);
    let mut events = Vec::new();
    let report = agent
        .handle_turn(
            &turn("Felix said to Daniel: What do we have to drink?"),
            &mut twin,
            &mut events,
        )
        .await;
    assert_eq!(report.reason, EndReason::Stop);
    assert_eq!(report.llm_calls, 4);
    let kinds = warnings(&events);
    for kind in ["no_tool_call", "unknown_tool", "malformed_arguments"] {
        assert!(
            kinds.contains(&kind.to_string()),
            "missing {kind} in {kinds:?}"
        );
    }
    // The LLM read each warning: the unknown tool's result lists the real tools.
    let bodies = server.bodies();
    let last = bodies.last().expect("requests")["messages"].to_string();
    assert!(last.contains("There is no tool called 'fly_to_moon'"));
    assert!(last.contains("not valid JSON"));
}

#[tokio::test]
async fn the_explain_first_guard_refuses_an_early_action() {
    let server = FakeLlm::start(vec![
        Scripted::tool_calls(&[(
            "check_hindering_reasons",
            json!({"person_name": "Daniel", "object_name": "red_glass"}),
        )]),
        Scripted::tool_calls(&[(
            "hand_object_over_to_person",
            json!({"object_name": "red_glass", "person_name": "Felix"}),
        )]),
        stop(),
    ])
    .await;
    let (mut agent, mut twin) = agent_for(&server, 5.0, 0);
    let mut events = Vec::new();
    agent
        .handle_turn(
            &turn("Felix said to Daniel: Daniel, please hand me the red glass."),
            &mut twin,
            &mut events,
        )
        .await;
    assert!(warnings(&events).contains(&"guard_explain_first".to_string()));
    assert!(
        !events.iter().any(|e| matches!(e, Event::Action { .. })),
        "nothing moved"
    );
    let red_glass = twin.world.object_named("red_glass").expect("red glass");
    assert_eq!(twin.world.holder(red_glass), None);
}

#[tokio::test]
async fn deliver_to_the_sender_and_check_first_guards() {
    let server = FakeLlm::start(vec![
        // Acting before any check of Daniel.
        Scripted::tool_calls(&[("speak", json!({"person_name": "All", "text": "I help."}))]),
        Scripted::tool_calls(&[(
            "hand_object_over_to_person",
            json!({"object_name": "red_glass", "person_name": "Felix"}),
        )]),
        Scripted::tool_calls(&[(
            "check_hindering_reasons",
            json!({"person_name": "Daniel", "object_name": "red_glass"}),
        )]),
        // Handing it to the receiver instead of the sender.
        Scripted::tool_calls(&[(
            "hand_object_over_to_person",
            json!({"object_name": "red_glass", "person_name": "Daniel"}),
        )]),
        stop(),
    ])
    .await;
    let (mut agent, mut twin) = agent_for(&server, 5.0, 0);
    let mut events = Vec::new();
    agent
        .handle_turn(
            &turn("Felix said to Daniel: Daniel, please hand me the red glass."),
            &mut twin,
            &mut events,
        )
        .await;
    let kinds = warnings(&events);
    assert!(
        kinds.contains(&"guard_check_first".to_string()),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&"guard_deliver_to_sender".to_string()),
        "{kinds:?}"
    );
}

#[tokio::test]
async fn a_server_error_is_retried() {
    let server = FakeLlm::start(vec![Scripted::error(500, "overloaded"), stop()]).await;
    let (mut agent, mut twin) = agent_for(&server, 5.0, 2);
    let mut events = Vec::new();
    let report = agent
        .handle_turn(&turn("Felix said to Daniel: Hi."), &mut twin, &mut events)
        .await;
    assert_eq!(report.reason, EndReason::Stop);
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn a_hanging_server_ends_the_turn_with_timeout_and_the_next_turn_works() {
    let server = FakeLlm::start(vec![Scripted::Hang, stop()]).await;
    let (mut agent, mut twin) = agent_for(&server, 1.0, 0);
    let mut events = Vec::new();
    let report = agent
        .handle_turn(&turn("Felix said to Daniel: Hi."), &mut twin, &mut events)
        .await;
    assert_eq!(report.reason, EndReason::Timeout);
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::EpisodeEnd { reason, .. } if reason == "timeout")));
    let report = agent
        .handle_turn(
            &turn("Felix said to Daniel: Hello again."),
            &mut twin,
            &mut events,
        )
        .await;
    assert_eq!(report.reason, EndReason::Stop);
}

#[tokio::test]
async fn a_llama_cpp_shaped_reply_is_accepted() {
    let server = FakeLlm::start(vec![Scripted::ok(json!({
        "choices": [{"index": 0, "finish_reason": "eos", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"function": {"name": "stop", "arguments": {}}}]}}]
    }))])
    .await;
    let (mut agent, mut twin) = agent_for(&server, 5.0, 0);
    let mut events = Vec::new();
    let report = agent
        .handle_turn(&turn("Felix said to Daniel: Hi."), &mut twin, &mut events)
        .await;
    assert_eq!(report.reason, EndReason::Stop);
}

#[tokio::test]
async fn repeating_the_same_call_warns_then_ends_the_turn() {
    let call = || Scripted::tool_calls(&[("get_objects", json!({}))]);
    let server = FakeLlm::start(vec![call(), call(), call(), call(), call(), call()]).await;
    let (mut agent, mut twin) = agent_for(&server, 5.0, 0);
    let mut events = Vec::new();
    let report = agent
        .handle_turn(&turn("Felix said to Daniel: Hi."), &mut twin, &mut events)
        .await;
    assert_eq!(report.reason, EndReason::RepeatedCalls);
    assert!(warnings(&events).contains(&"repeated_call".to_string()));
}
