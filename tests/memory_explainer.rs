//! The failure explainer and the learned arm, against the mock robot over a
//! real WebSocket (on softdrinks, the fanta is the one bottle both arms can
//! hand over): a fault the twin cannot foresee (one arm's controller
//! aborts every goal, as near a joint limit) fails the first episode; a later
//! episode tries the other arm first and succeeds; the fix is then offered
//! with its record. A misleading stored fix with a poor record is retired and
//! forces nothing.

use std::time::Duration;

use attentive::agent::remembering::Remembering;
use attentive::agent::tools::ToolTexts;
use attentive::agent::{Agent, Character, Turn};
use attentive::config::{AgentSettings, GuardSettings};
use attentive::events::Event;
use attentive::language::Language;
use attentive::llm::rules::RulesBrain;
use attentive::memory::{Failure, Memory, MemorySettings};
use attentive::robot::mock::{Fault, MockRobot};
use attentive::robot::{RobotBridge, RobotSettings};
use attentive::twin::actions::{self, ActionRequest, Executor};
use attentive::twin::kinematics::Side;
use attentive::twin::Twin;
use tokio_util::sync::CancellationToken;

struct Rig {
    mock: MockRobot,
    agent: Agent,
    twin: Twin,
    memory: Memory,
    settings: RobotSettings,
    shutdown: CancellationToken,
    _dir: tempfile::TempDir,
}

impl Drop for Rig {
    fn drop(&mut self) {
        self.shutdown.cancel();
        self.mock.stop();
    }
}

async fn rig() -> Rig {
    let settings = RobotSettings {
        time_scale: 0.25,
        ..Default::default()
    };
    let mut twin = Twin::load("softdrinks").expect("scene");
    let mock = MockRobot::start(&twin, &settings, "127.0.0.1:0")
        .await
        .expect("mock starts");
    let shutdown = CancellationToken::new();
    let mut bridge = RobotBridge::start(&settings, &mock.url(), &twin.world, shutdown.clone())
        .expect("bridge starts");
    bridge
        .wait_ready(Duration::from_secs(10))
        .await
        .expect("bridge ready");
    bridge.perceive(&mut twin);
    let dir = tempfile::tempdir().expect("temporary folder");
    let memory = Memory::open(&dir.path().join("memory.db")).expect("memory");
    let english = Language::english().expect("English");
    let agent = Agent::new(
        Box::new(RulesBrain::new(&twin.world, &english)),
        Character::load("full", "the_robot").expect("character"),
        &ToolTexts::load_default().expect("tool texts"),
        "the_robot",
        AgentSettings::default(),
        GuardSettings::default(),
    )
    .with_shipped_understanding()
    .with_executor(Box::new(bridge))
    .with_memory(Remembering::new(memory.clone(), MemorySettings::default()));
    Rig {
        mock,
        agent,
        twin,
        memory,
        settings,
        shutdown,
        _dir: dir,
    }
}

impl Rig {
    async fn say(&mut self, text: &str) -> Vec<Event> {
        let turn = Turn::parse(text).expect("turn");
        let mut events = Vec::new();
        self.agent
            .handle_turn(&turn, &mut self.twin, &mut events)
            .await;
        events
    }

    fn new_session(&mut self) {
        self.agent.new_session();
        self.agent.perceive(&mut self.twin);
    }

    /// The arm the planner takes by itself for a hand-over.
    fn planned_arm(&self, object: &str, person: &str) -> Side {
        let request = ActionRequest::HandOver {
            object: self.twin.world.object_named(object).expect("object"),
            person: self.twin.world.person_named(person).expect("person"),
        };
        let (outcome, _) = actions::plan(&self.twin, request).expect("plannable");
        outcome.plan.expect("a plan").steps[0].variant.arm
    }

    fn controller(&self, arm: Side) -> String {
        match arm {
            Side::Left => self.settings.left_arm.action.clone(),
            Side::Right => self.settings.right_arm.action.clone(),
        }
    }

    fn always_abort(&self, arm: Side) {
        self.mock.fault_every_goal_of(
            &self.controller(arm),
            Some(Fault::Abort {
                after: 0.3,
                reason: "joint 4 near its limit".into(),
            }),
        );
    }

    fn failures(&self) -> Vec<Failure> {
        self.memory
            .run_blocking(|s| s.all_failures())
            .expect("store")
            .expect("failures")
    }
}

/// The hand-over's action event: whether it worked, and its sentence.
fn hand_over(events: &[Event]) -> (bool, String) {
    events
        .iter()
        .find_map(|e| match e {
            Event::Action {
                name, ok, detail, ..
            } if name == "hand_object_over_to_person" => Some((*ok, detail.clone())),
            _ => None,
        })
        .expect("a hand-over was tried")
}

fn hand_word(arm: Side) -> &'static str {
    match arm {
        Side::Left => "left hand",
        Side::Right => "right hand",
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_arm_that_worked_after_an_abort_is_tried_first_and_offered_with_its_record() {
    let mut rig = rig().await;
    let first = rig.planned_arm("fanta_bottle", "Felix");
    let other = first.other();
    rig.always_abort(first);

    // Session 1: the twin cannot know; the robot's controller aborts.
    let events = rig
        .say("Felix said to the_robot: Could you hand me the fanta?")
        .await;
    let (ok, detail) = hand_over(&events);
    assert!(!ok && detail.contains("aborted"), "{detail}");
    let failures = rig.failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].cause, "robot:aborted");
    assert_eq!(failures[0].arm.as_deref(), Some(first.name()));

    // Session 2: the same request; the other arm is tried first and works.
    // The fault was in that reach (a joint near its limit): the arm still goes
    // home, which the new plan asks of it.
    rig.mock.fault_every_goal_of(&rig.controller(first), None);
    rig.new_session();
    let events = rig
        .say("Felix said to the_robot: Could you hand me the fanta?")
        .await;
    let (ok, detail) = hand_over(&events);
    assert!(ok && detail.contains(hand_word(other)), "{detail}");
    let fix = format!("using the {} arm", other.name());
    assert_eq!(rig.failures()[0].fix.as_deref(), Some(fix.as_str()));

    // Session 3: the other arm fails too, on another bottle (one only that arm
    // reaches); the stored fix is offered once, with its record and the
    // disclaimer, appended to the failed action's result.
    // (Which bottle that is depends on how the twin grasps: the first one planned
    // with the other arm.)
    let (_, said) = [
        ("cola_zero_bottle", "the cola zero"),
        ("cola_bottle", "the cola"),
    ]
    .into_iter()
    .find(|(bottle, _)| rig.planned_arm(bottle, "Daniel") == other)
    .expect("a bottle the other arm takes for Daniel");
    rig.always_abort(other);
    rig.new_session();
    let events = rig
        .say(&format!(
            "Daniel said to the_robot: Could you hand me {said}?"
        ))
        .await;
    let (ok, detail) = hand_over(&events);
    assert!(!ok, "{detail}");
    assert!(
        detail.contains(&fix)
            && detail.contains("helped 0 of 1 times")
            && detail.contains("Past experience may not apply here"),
        "{detail}"
    );
    assert_eq!(detail.matches("Earlier, in a similar case").count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misleading_fix_with_a_poor_record_forces_nothing() {
    let mut rig = rig().await;
    let first = rig.planned_arm("fanta_bottle", "Felix");
    let other = first.other();
    // The other arm is the broken one, and a stored "fix" recommends it; it
    // was offered four times and never helped.
    rig.always_abort(other);
    let misleading = Failure {
        id: 0,
        at: attentive::memory::now() - 86_400,
        tool: "hand_object_over_to_person".into(),
        cause: "robot:aborted".into(),
        object: "cola_bottle".into(),
        object_kind: "bottle".into(),
        arm: Some(first.name().into()),
        grasp: None,
        request: "Could you hand me the cola?".into(),
        person: None,
        fix: Some(format!("using the {} arm", other.name())),
        offered: 4,
        helped: 0,
    };
    rig.memory
        .run_blocking(move |s| s.record_failure(&misleading))
        .expect("store")
        .expect("seeded");
    let events = rig
        .say("Felix said to the_robot: Could you hand me the fanta?")
        .await;
    let (ok, detail) = hand_over(&events);
    assert!(ok && detail.contains(hand_word(first)), "{detail}");
    // Its record was not counted up: it was never offered.
    assert_eq!(rig.failures()[0].offered, 4);
}
