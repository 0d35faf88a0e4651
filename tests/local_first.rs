//! Local first (`--brain hybrid`) against a local OpenAI-compatible server
//! (real HTTP, the real agent, rules brain, tools and twin): a turn the
//! understanding stage is sure of makes no request; a turn the templates
//! cannot read makes one; the path is in the `understood` event; a statement
//! reaches the LLM with a note that says whether it is true.

mod support;

use serde_json::json;

use attentive::agent::tools::ToolTexts;
use attentive::agent::{Agent, Character, EndReason, Turn};
use attentive::config::{AgentSettings, GuardSettings, LlmSettings, Situation};
use attentive::events::Event;
use attentive::language::Language;
use attentive::llm::rules::RulesBrain;
use attentive::llm::OpenAiCompatible;
use attentive::twin::Twin;
use support::fake_llm::{FakeLlm, Scripted};
use support::last_user;

fn agent_on(server: &FakeLlm, twin: &Twin, local_first: bool) -> Agent {
    let llm = LlmSettings {
        base_url: Some(server.base_url()),
        request_timeout_s: 10.0,
        retries: 0,
        ..LlmSettings::default()
    };
    let backend = OpenAiCompatible::from_settings(&llm).expect("backend");
    let agent = Agent::new(
        Box::new(backend),
        Character::load("full", "the_robot").expect("character"),
        &ToolTexts::load_default().expect("tool texts"),
        "the_robot",
        AgentSettings {
            situation: Some(Situation::Facts),
            ..AgentSettings::default()
        },
        GuardSettings::default(),
    )
    .with_shipped_understanding();
    if local_first {
        let english = Language::english().expect("English");
        agent.with_local_first(Box::new(RulesBrain::new(&twin.world, &english)))
    } else {
        agent
    }
}

/// The path and its reason from the turn's `understood` event.
fn path(events: &[Event]) -> (Option<String>, Option<String>) {
    events
        .iter()
        .find_map(|e| match e {
            Event::Understood { path, why, .. } => Some((path.clone(), why.clone())),
            _ => None,
        })
        .unwrap_or_default()
}

fn speech(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Speech { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

async fn say(agent: &mut Agent, twin: &mut Twin, line: &str) -> (EndReason, u32, Vec<Event>) {
    let mut events = Vec::new();
    let turn = Turn::parse(line).expect("turn");
    let report = agent.handle_turn(&turn, twin, &mut events).await;
    (report.reason, report.llm_calls, events)
}

#[tokio::test]
async fn an_understood_turn_makes_no_request() {
    let server = FakeLlm::start(Vec::new()).await;
    let mut twin = Twin::load("softdrinks").expect("scene");
    let mut agent = agent_on(&server, &twin, true);
    let (reason, llm_calls, events) = say(
        &mut agent,
        &mut twin,
        "Felix said to the_robot: could you hand me the red glass?",
    )
    .await;
    assert_eq!(server.request_count(), 0);
    assert_eq!(llm_calls, 0);
    assert_eq!(reason, EndReason::Stop);
    let (path, why) = path(&events);
    assert_eq!(path.as_deref(), Some("local"));
    assert!(why.unwrap_or_default().starts_with("sure: give"));
    assert_eq!(
        twin.world
            .object_named("red_glass")
            .and_then(|id| twin.world.holder(id))
            .map(|p| twin.world.person(p).name.clone())
            .as_deref(),
        Some("Felix"),
        "{events:?}"
    );
    // Thanks, between people: no request, no words.
    let (_, _, events) = say(&mut agent, &mut twin, "Felix said to Daniel: thanks a lot").await;
    assert_eq!(server.request_count(), 0);
    assert!(speech(&events).is_empty(), "{events:?}");
}

#[tokio::test]
async fn a_turn_the_templates_cannot_read_goes_to_the_llm_with_its_reason() {
    let server = FakeLlm::start(vec![Scripted::tool_calls(&[
        (
            "speak",
            json!({"person_name": "Felix", "text": "I am not sure what you mean; which bottle?"}),
        ),
        ("stop", json!({})),
    ])])
    .await;
    let mut twin = Twin::load("softdrinks").expect("scene");
    let mut agent = agent_on(&server, &twin, true);
    let (reason, llm_calls, events) = say(
        &mut agent,
        &mut twin,
        "Felix said to the_robot: could you scoot the fizzy orange stuff over my way",
    )
    .await;
    assert_eq!(server.request_count(), 1);
    assert_eq!(llm_calls, 1);
    assert_eq!(reason, EndReason::Stop);
    let (path, why) = path(&events);
    assert_eq!(path.as_deref(), Some("llm"), "{why:?}");
    assert!(why.is_some_and(|w| !w.is_empty()));
    // The LLM's words, not a canned "I did not understand".
    assert_eq!(
        speech(&events),
        ["I am not sure what you mean; which bottle?"]
    );
}

#[tokio::test]
async fn an_answer_to_the_llms_question_goes_back_to_the_llm() {
    let server = FakeLlm::start(vec![
        Scripted::tool_calls(&[
            (
                "speak",
                json!({"person_name": "All", "text": "Who is the drink for?"}),
            ),
            ("stop", json!({})),
        ]),
        Scripted::tool_calls(&[("stop", json!({}))]),
    ])
    .await;
    let mut twin = Twin::load("softdrinks").expect("scene");
    let mut agent = agent_on(&server, &twin, true);
    say(
        &mut agent,
        &mut twin,
        "someone said to the_robot: could I get something bubbly",
    )
    .await;
    let (_, _, events) = say(
        &mut agent,
        &mut twin,
        "Felix said to the_robot: it is for me",
    )
    .await;
    assert_eq!(server.request_count(), 2, "{events:?}");
    assert_eq!(path(&events).0.as_deref(), Some("llm"));
}

#[tokio::test]
async fn a_statement_reaches_the_llm_with_its_verdict() {
    let server = FakeLlm::start(vec![
        Scripted::tool_calls(&[("stop", json!({}))]),
        Scripted::tool_calls(&[("stop", json!({}))]),
    ])
    .await;
    let mut twin = Twin::load("softdrinks").expect("scene");
    // The LLM brain alone: every turn is a request, each with its note.
    let mut agent = agent_on(&server, &twin, false);
    let (_, _, events) = say(
        &mut agent,
        &mut twin,
        "Felix said to Daniel: there is no fanta left",
    )
    .await;
    assert_eq!(path(&events).0, None, "no path without local first");
    say(
        &mut agent,
        &mut twin,
        "Felix said to Daniel: we are out of beer",
    )
    .await;
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    let wrong = last_user(&bodies[0]);
    assert!(
        wrong.contains("fanta_bottle holds fanta: the statement is wrong"),
        "{wrong}"
    );
    let right = last_user(&bodies[1]);
    assert!(right.contains("the statement is right"), "{right}");
}

#[tokio::test]
async fn a_question_no_template_reads_that_memory_answers_stays_local() {
    use attentive::agent::remembering::Remembering;
    use attentive::memory::{Memory, MemorySettings};
    // One scripted answer: only the question memory has nothing on may reach it.
    let server = FakeLlm::start(vec![Scripted::tool_calls(&[
        (
            "speak",
            json!({"person_name": "Daniel", "text": "I do not know, sorry."}),
        ),
        ("stop", json!({})),
    ])])
    .await;
    let mut twin = Twin::load("softdrinks").expect("scene");
    let dir = tempfile::tempdir().expect("temporary folder");
    let memory = Memory::open(&dir.path().join("memory.db")).expect("memory");
    let mut agent = agent_on(&server, &twin, true)
        .with_memory(Remembering::new(memory, MemorySettings::default()));
    let told = "Felix said to the_robot: If Daniel asks, the pub quiz is on Wednesday next week. Remember that, please.";
    let (_, _, events) = say(&mut agent, &mut twin, told).await;
    assert_eq!(path(&events).0.as_deref(), Some("local"), "{events:?}");
    let asked =
        "Daniel said to the_robot: Which night is the pub quiz next week, do you happen to know?";
    let (_, llm_calls, events) = say(&mut agent, &mut twin, asked).await;
    assert_eq!((server.request_count(), llm_calls), (0, 0), "{events:?}");
    let (path_taken, why) = path(&events);
    assert_eq!(path_taken.as_deref(), Some("local"));
    assert_eq!(why.as_deref(), Some("a question memory answers"));
    assert!(
        speech(&events).iter().any(|s| s.contains("Wednesday")),
        "{events:?}"
    );
    // A question read over words the table does not name ("pub quiz") is
    // asked of memory before the table: it answers, not the cola's place.
    let read_over =
        "Daniel said to the_robot: Where does the pub quiz happen, near the cola place?";
    let (_, llm_calls, events) = say(&mut agent, &mut twin, read_over).await;
    assert_eq!((server.request_count(), llm_calls), (0, 0), "{events:?}");
    assert!(
        speech(&events).iter().any(|s| s.contains("Wednesday")),
        "{events:?}"
    );
    // Nothing remembered on it: the LLM answers.
    let other = "Daniel said to the_robot: Which train goes to the stadium on Saturdays?";
    let (_, _, events) = say(&mut agent, &mut twin, other).await;
    assert_eq!(server.request_count(), 1);
    assert_eq!(path(&events).0.as_deref(), Some("llm"), "{events:?}");
}
