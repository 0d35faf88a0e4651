//! The agent speaks through its mouth and lets the explanation be heard before
//! the arm moves (voice.wait_before_action), within a bound; the twin an
//! action leaves is shown before the action is told (the page reads the scene
//! on the `action` event).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use attentive::agent::tools::ToolTexts;
use attentive::agent::{Agent, Character, EventSink, Mouth, Turn};
use attentive::config::{AgentSettings, GuardSettings};
use attentive::events::Event;
use attentive::llm::scripted::ScriptedBrain;
use attentive::twin::Twin;

type Log = Arc<Mutex<Vec<String>>>;

/// A mouth that takes `speaking` to say anything, and logs what happens.
struct SlowMouth {
    log: Log,
    speaking: Option<Duration>,
}

impl Mouth for SlowMouth {
    fn say(&self, to: &str, text: &str) {
        self.log
            .lock()
            .unwrap()
            .push(format!("say to {to}: {text}"));
    }
    fn until_quiet(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            match self.speaking {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
            self.log.lock().unwrap().push("quiet".into());
        })
    }
    fn hush(&self) {}
}

/// Events into the same log, so the order against the mouth shows.
struct Logged(Log);
impl EventSink for Logged {
    fn emit(&mut self, event: Event) {
        match event {
            Event::Action { name, .. } => self.0.lock().unwrap().push(format!("action {name}")),
            Event::Warning { kind, .. } => self.0.lock().unwrap().push(format!("warning {kind}")),
            _ => {}
        }
    }

    fn twin_changed(&mut self, twin: &Twin) {
        let Event::State { objects, .. } = twin.state_event() else {
            return;
        };
        let holder = objects
            .get("red_glass")
            .and_then(|o| o.held_by.clone())
            .unwrap_or_else(|| "nobody".into());
        self.0
            .lock()
            .unwrap()
            .push(format!("twin: red_glass held by {holder}"));
    }
}

const SCRIPT: &str = r#"
[[turn]]
[[turn.reply]]
tool_calls = [{ name = "check_hindering_reasons", arguments = { person_name = "Daniel", object_name = "red_glass" } }]
[[turn.reply]]
tool_calls = [
  { name = "speak", arguments = { text = "Daniel cannot reach the red glass, so I will hand it to you, Felix.", person_name = "Felix" } },
  { name = "hand_object_over_to_person", arguments = { object_name = "red_glass", person_name = "Felix" } },
]
[[turn.reply]]
tool_calls = [{ name = "stop" }]
"#;

async fn run(mouth: SlowMouth, wait: Option<Duration>) -> Vec<String> {
    let log = mouth.log.clone();
    let brain = ScriptedBrain::from_toml_str(SCRIPT, "test").expect("script");
    let texts = ToolTexts::load_default().expect("tool texts");
    let character = Character::load("full", "the_robot").expect("character");
    let mut agent = Agent::new(
        Box::new(brain),
        character,
        &texts,
        "the_robot",
        AgentSettings::default(),
        GuardSettings::default(),
    )
    .with_mouth(Arc::new(mouth), wait);
    let mut twin = Twin::load("softdrinks").expect("scene");
    let turn =
        Turn::parse("Felix said to Daniel: Daniel, please hand me the red glass.").expect("turn");
    agent
        .handle_turn(&turn, &mut twin, &mut Logged(log.clone()))
        .await;
    let out = log.lock().unwrap().clone();
    out
}

#[tokio::test]
async fn the_arm_waits_until_the_explanation_was_heard() {
    let log = Log::default();
    let mouth = SlowMouth {
        log: log.clone(),
        speaking: Some(Duration::from_millis(200)),
    };
    let seen = run(mouth, Some(Duration::from_secs(5))).await;
    assert_eq!(
        seen,
        [
            "say to Felix: Daniel cannot reach the red glass, so I will hand it to you, Felix.",
            "quiet",
            "twin: red_glass held by Felix",
            "action hand_object_over_to_person",
        ]
    );
}

#[tokio::test]
async fn the_wait_is_bounded() {
    let log = Log::default();
    let mouth = SlowMouth {
        log: log.clone(),
        speaking: None,
    };
    let seen = run(mouth, Some(Duration::from_millis(100))).await;
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen[0].starts_with("say to Felix"));
    assert_eq!(
        seen[1..],
        [
            "warning voice",
            "twin: red_glass held by Felix",
            "action hand_object_over_to_person"
        ]
    );
}

#[tokio::test]
async fn without_wait_before_action_the_arm_does_not_wait() {
    let log = Log::default();
    let mouth = SlowMouth {
        log: log.clone(),
        speaking: None,
    };
    let seen = run(mouth, None).await;
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(
        seen[1..],
        [
            "twin: red_glass held by Felix",
            "action hand_object_over_to_person"
        ]
    );
}
