//! The robot bridge against the REAL rosbridge server (rosbridge_suite on ROS 2
//! Jazzy rclpy, from `../shared/tools/ros2/setup.sh`) and the project's rclpy
//! fake robot (`tests/support/ros_fake_robot.py`): the scenarios of
//! `tests/robot_bridge.rs` (which runs them against the Rust mock) with real
//! action servers, real goal cancels and a real server process to kill.
//!
//! One stack for the whole file, the scenarios in sequence: a ROS stack costs a
//! good part of a core, and the suite shares two. Without the ROS 2 setup (a
//! plain clone) the test says so in one line and passes; CI always has it.

#[path = "support/ros2.rs"]
mod ros2;

use std::time::{Duration, Instant};

use attentive::agent::tools::{self, ToolOutcome};
use attentive::events::Event;
use attentive::robot::client::BridgeError;
use attentive::robot::joints::JointMap;
use attentive::robot::protocol::STATUS_SUCCEEDED;
use attentive::robot::settings::HandSettings;
use attentive::robot::{RobotBridge, RobotSettings};
use attentive::twin::actions::Executor;
use attentive::twin::kinematics::{Joints, Side};
use attentive::twin::Twin;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use ros2::Stack;

const SCENE: &str = "softdrinks";
const FJT: &str = "control_msgs/action/FollowJointTrajectory";
/// Bound on anything that should happen soon on a loaded 2-core machine (hangs, not speed).
const PATIENCE: Duration = Duration::from_secs(60);

fn settings() -> RobotSettings {
    let mut s = RobotSettings {
        // The fake robot moves in real time; half the planned durations keep the test short
        // and leave trajectories long enough to stop one in the middle.
        time_scale: 0.5,
        ..Default::default()
    };
    // A Kinova Jaco Gen2's own convention (README, *The robot*), so that the joint map
    // is exercised both ways: the fake robot only ever sees driver angles.
    for arm in [&mut s.left_arm, &mut s.right_arm] {
        arm.offset_deg = vec![0.0, 180.0, 0.0, 180.0, 0.0, 180.0, 0.0];
    }
    // The fake robot has no camera: no perception topics to wait for.
    s.perception.aruco_topic.clear();
    s.perception.body_topic.clear();
    s
}

fn arm_action(s: &RobotSettings, side: Side) -> &str {
    match side {
        Side::Left => &s.left_arm.action,
        Side::Right => &s.right_arm.action,
    }
}

fn arm_joints(s: &RobotSettings, side: Side) -> &[String] {
    match side {
        Side::Left => &s.left_arm.joints,
        Side::Right => &s.right_arm.joints,
    }
}

fn hand(s: &RobotSettings, side: Side) -> &HandSettings {
    match side {
        Side::Left => &s.left_hand,
        Side::Right => &s.right_hand,
    }
}

fn finger_joint(side: Side) -> String {
    format!("{}_hand_finger_joint", side.name())
}

/// The fake robot's configuration: the controllers named by the settings, and every joint
/// at the twin's home pose in the driver's convention.
fn fake_robot_config(s: &RobotSettings, home: &[Joints; 2]) -> Value {
    let map = JointMap::new(s);
    let mut start = serde_json::Map::new();
    for side in [Side::Left, Side::Right] {
        let driver = map.arm(side).driver_from_twin(&home[side as usize]);
        for (name, q) in arm_joints(s, side).iter().zip(driver) {
            start.insert(name.clone(), q.into());
        }
        start.insert(finger_joint(side), hand(s, side).open_position.into());
    }
    start.insert(s.head.pan_joint.clone(), 0.0.into());
    start.insert(s.head.tilt_joint.clone(), 0.0.into());
    json!({
        "arms": {
            (arm_action(s, Side::Left)): arm_joints(s, Side::Left),
            (arm_action(s, Side::Right)): arm_joints(s, Side::Right),
            (s.head.action.clone()): [s.head.pan_joint, s.head.tilt_joint],
        },
        "hands": {
            (hand(s, Side::Left).action.as_str()): finger_joint(Side::Left),
            (hand(s, Side::Right).action.as_str()): finger_joint(Side::Right),
        },
        "start": start,
        "joint_states": s.joint_states,
        "rate_hz": 25,
    })
}

/// Everything the scenarios share: the stack, one bridge to it, the twin's home pose.
struct Rig {
    stack: Stack,
    bridge: RobotBridge,
    settings: RobotSettings,
    map: JointMap,
    home: [Joints; 2],
    shutdown: CancellationToken,
}

impl Drop for Rig {
    fn drop(&mut self) {
        // The bridge's tasks end; the stack's Drop stops the processes by their ids.
        self.shutdown.cancel();
    }
}

impl Rig {
    async fn start(root: &std::path::Path) -> Self {
        let settings = settings();
        let twin = Twin::load(SCENE).expect("scene");
        let home = twin.joints;
        let stack = Stack::start(root, "robot_rosbridge", fake_robot_config(&settings, &home));
        let shutdown = CancellationToken::new();
        let bridge = RobotBridge::start(&settings, &stack.url(), &twin.world, shutdown.clone())
            .expect("bridge starts");
        let rig = Self {
            map: JointMap::new(&settings),
            stack,
            bridge,
            settings,
            home,
            shutdown,
        };
        rig.wait_for_robot().await;
        rig
    }

    /// Waits for DDS discovery through rosbridge: joint states flowing (the topic matched)
    /// and a goal answered by the head's server (rosbridge waits only 1 s for a server).
    async fn wait_for_robot(&self) {
        self.bridge
            .wait_ready(PATIENCE)
            .await
            .expect("joint states through rosbridge");
        let head = &self.settings.head;
        let deadline = Instant::now() + PATIENCE;
        loop {
            // The head where it is: a goal that moves nothing.
            let stay = json!({"trajectory": {"joint_names": [head.pan_joint, head.tilt_joint], "points": []}});
            match self.goal(&head.action, &stay).await {
                Ok(end) if end.status == STATUS_SUCCEEDED => return,
                other => {
                    eprintln!("  waiting for discovery: {other:?}");
                    assert!(
                        Instant::now() < deadline,
                        "the head's action server never answered through rosbridge: {other:?}"
                    );
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Sends one goal through the bridge's client and waits (bounded) for its end.
    async fn goal(
        &self,
        action: &str,
        goal: &Value,
    ) -> Result<attentive::robot::client::GoalEnd, BridgeError> {
        let mut goal = self.bridge.client().send_goal(action, FJT, goal);
        match tokio::time::timeout(Duration::from_secs(10), goal.end()).await {
            Ok(end) => end,
            Err(_) => {
                self.bridge.client().cancel_goal(&goal);
                Err(BridgeError::Timeout {
                    what: format!("a goal to {action}"),
                    seconds: 10.0,
                })
            }
        }
    }

    /// Brings both arms back to the twin's home (what an operator does between trials), so
    /// that each scenario plans from the same pose.
    async fn home_arms(&self) {
        for side in [Side::Left, Side::Right] {
            let q = self
                .map
                .arm(side)
                .driver_from_twin(&self.home[side as usize]);
            let goal = json!({"trajectory": {"joint_names": arm_joints(&self.settings, side),
                "points": [{"positions": q, "time_from_start": {"sec": 1, "nanosec": 0}}]}});
            let end = self
                .goal(arm_action(&self.settings, side), &goal)
                .await
                .expect("an arm goes home");
            assert_eq!(end.status, STATUS_SUCCEEDED, "home: {end:?}");
        }
        self.bridge
            .wait_ready(PATIENCE)
            .await
            .expect("joint states after homing");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    /// Both arms as the bridge measures them (twin convention).
    fn measured(&self) -> [Joints; 2] {
        self.bridge
            .measured_arms()
            .now()
            .expect("joint states name both arms")
    }

    /// A fresh twin of the scene, its arms where the robot's are.
    fn twin(&mut self) -> Twin {
        let mut twin = Twin::load(SCENE).expect("scene");
        self.bridge.perceive(&mut twin);
        twin
    }

    async fn act(
        &mut self,
        twin: &mut Twin,
        tool: &str,
        args: Value,
        cancel: &CancellationToken,
    ) -> ToolOutcome {
        tools::call_acting(twin, tool, &args, &mut self.bridge, cancel).await
    }

    async fn hand_over(&mut self, twin: &mut Twin, cancel: &CancellationToken) -> ToolOutcome {
        let args = json!({"object_name": "red_glass", "person_name": "Felix"});
        self.act(twin, "hand_object_over_to_person", args, cancel)
            .await
    }

    /// The hand-over from here, simulated on a twin of its own (the planner is
    /// deterministic): the arm it picks, and where that arm ends.
    fn simulate_hand_over(&mut self) -> (Side, Joints) {
        let mut twin = self.twin();
        let args = json!({"object_name": "red_glass", "person_name": "Felix"});
        let outcome = tokio::task::block_in_place(|| {
            tools::call(&mut twin, "hand_object_over_to_person", &args)
        });
        assert!(
            outcome.ok,
            "the hand-over plans in the twin: {}",
            outcome.text
        );
        let side = side_of(&outcome);
        (side, twin.joints[side as usize])
    }

    /// A twin-convention pose from the driver angles the fake robot recorded.
    fn twin_from_event(&self, side: Side, driver: &Value) -> Joints {
        let q: Vec<f64> = serde_json::from_value(driver.clone()).expect("positions");
        assert_eq!(q.len(), 7, "7 positions: {q:?}");
        self.map.arm(side).twin_from_driver(&q)
    }
}

/// The arm whose controller an event of the fake robot names, if any.
fn arm_of(s: &RobotSettings, event: &Value) -> Option<Side> {
    [Side::Left, Side::Right]
        .into_iter()
        .find(|&side| event["action"] == arm_action(s, side))
}

/// Whether the event is a goal that reached an arm's controller.
fn is_arm_goal(s: &RobotSettings, event: &Value) -> bool {
    event["event"] == "goal" && arm_of(s, event).is_some()
}

fn side_of(outcome: &ToolOutcome) -> Side {
    match outcome.facts["arm"].as_str() {
        Some("left") => Side::Left,
        Some("right") => Side::Right,
        other => panic!("no arm in the facts ({other:?}): {}", outcome.text),
    }
}

fn largest_difference(a: &Joints, b: &Joints) -> f32 {
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn assert_close(a: &Joints, b: &Joints, tolerance: f32, what: &str) {
    assert!(
        largest_difference(a, b) <= tolerance,
        "{what}: {a:?} vs {b:?}"
    );
}

/// The sentence a failed or refused action gives back: one line, one final full stop or none.
fn assert_one_sentence(text: &str) {
    assert!(!text.contains('\n'), "one line: {text}");
    assert!(
        text.matches(". ").count() == 0,
        "one sentence, not several: {text}"
    );
}

fn is(event: &Value, kind: &str, action: &str) -> bool {
    event["event"] == kind && event["action"] == action
}

async fn next_status(statuses: &mut mpsc::UnboundedReceiver<Event>, wanted: &str) -> String {
    loop {
        match tokio::time::timeout(PATIENCE, statuses.recv()).await {
            Ok(Some(Event::Robot { status, detail })) if status == wanted => return detail,
            Ok(Some(_)) => continue,
            other => panic!("no '{wanted}' robot event: {other:?}"),
        }
    }
}

/// A hand-over runs as controller goals on the real servers; the arm ends where the plan ends.
async fn hand_over_succeeds(rig: &mut Rig) {
    let (planned_side, planned_end) = rig.simulate_hand_over();
    let mut twin = rig.twin();
    let since = rig.stack.events().len();
    let outcome = rig.hand_over(&mut twin, &CancellationToken::new()).await;
    assert!(outcome.ok, "{}", outcome.text);
    let side = side_of(&outcome);
    assert_eq!(side, planned_side, "the arm of the simulated plan");
    assert_eq!(
        outcome.text,
        format!(
            "You handed red_glass to Felix with your {} hand.",
            side.name()
        )
    );
    let events = &rig.stack.events()[since..];
    assert!(
        events.iter().all(|e| e["event"] != "rejected"),
        "every goal names its controller's joints: {events:#?}"
    );
    let action = arm_action(&rig.settings, side);
    let goals: Vec<&Value> = events
        .iter()
        .filter(|e| is_arm_goal(&rig.settings, e))
        .collect();
    assert!(goals.len() >= 3, "reach, lift, carry...: {events:#?}");
    for g in &goals {
        assert_eq!(
            g["action"],
            action,
            "every arm goal on the {} arm's controller",
            side.name()
        );
        assert_eq!(g["joint_names"], json!(arm_joints(&rig.settings, side)));
        let times: Vec<f64> = serde_json::from_value(g["times"].clone()).expect("times");
        assert!(
            times[0] > 0.0 && times.windows(2).all(|w| w[1] > w[0]),
            "times increase from > 0: {times:?}"
        );
    }
    let succeeded = events.iter().filter(|e| is(e, "succeeded", action)).count();
    assert_eq!(
        succeeded,
        goals.len(),
        "every arm goal succeeded at the server: {events:#?}"
    );
    let grips: Vec<f64> = events
        .iter()
        .filter(|e| e["event"] == "gripper")
        .map(|e| {
            assert_eq!(e["action"], hand(&rig.settings, side).action);
            e["position"].as_f64().expect("gripper position")
        })
        .collect();
    let hand = hand(&rig.settings, side);
    assert_eq!(
        grips,
        vec![hand.closed_position, hand.open_position],
        "close on the glass, then open for Felix"
    );
    // The arm is where the plan ends, as measured through rosbridge (in the driver's
    // convention and back); the last trajectory the server got ends there; so does the twin.
    let measured = rig.measured()[side as usize];
    assert_close(&measured, &planned_end, 1e-4, "measured vs the plan's end");
    let last = goals.last().expect("an arm goal");
    assert_close(
        &rig.twin_from_event(side, &last["end"]),
        &planned_end,
        1e-4,
        "the last trajectory's end vs the plan's end",
    );
    assert_close(
        &twin.joints[side as usize],
        &measured,
        1e-3,
        "twin vs measured",
    );
    let felix = twin.world.person_named("Felix").expect("Felix");
    let glass = twin.world.object_named("red_glass").expect("red_glass");
    assert_eq!(twin.world.holder(glass), Some(felix));
    eprintln!(
        "hand-over: {} arm goals of {:?} s",
        goals.len(),
        goals
            .iter()
            .map(|g| g["duration"].as_f64().unwrap_or(0.0))
            .collect::<Vec<_>>()
    );
}

/// A gaze turns the head: its goal reaches the head's server and succeeds.
async fn gaze_turns_the_head(rig: &mut Rig) {
    let mut twin = rig.twin();
    let since = rig.stack.events().len();
    let outcome = rig
        .act(
            &mut twin,
            "gaze",
            json!({"name": "Felix"}),
            &CancellationToken::new(),
        )
        .await;
    assert!(outcome.ok, "{}", outcome.text);
    assert_eq!(outcome.text, "You looked at Felix.");
    let head = rig.settings.head.clone();
    let goal = rig
        .stack
        .wait_for_event(since, PATIENCE, |e| is(e, "goal", &head.action))
        .await;
    assert_eq!(
        goal["joint_names"],
        json!([head.pan_joint, head.tilt_joint])
    );
    let end: Vec<f64> = serde_json::from_value(goal["end"].clone()).expect("head angles");
    assert!(
        end[0].abs() > 0.05,
        "Felix is not straight ahead: pan {end:?}"
    );
    let done = rig
        .stack
        .wait_for_event(since, PATIENCE, |e| is(e, "succeeded", &head.action))
        .await;
    assert_eq!(done["at"], goal["end"], "the head is where it was sent");
}

/// A stop mid-trajectory cancels the goal at the server and the arm stays where it stopped.
async fn a_stop_cancels_the_goal_and_the_arm_stays(rig: &mut Rig) {
    rig.home_arms().await;
    let mut twin = rig.twin();
    let since = rig.stack.events().len();
    let cancel = CancellationToken::new();
    let (stack, settings, stop) = (&rig.stack, &rig.settings, cancel.clone());
    let watcher = async move {
        // An arm trajectory long enough to stop in its middle.
        let goal = stack
            .wait_for_event(since, PATIENCE, |e| {
                is_arm_goal(settings, e) && e["duration"].as_f64().is_some_and(|d| d >= 0.8)
            })
            .await;
        let duration = goal["duration"].as_f64().unwrap_or(0.0);
        tokio::time::sleep(Duration::from_secs_f64(0.4 * duration)).await;
        stop.cancel();
        goal
    };
    let args = json!({"object_name": "red_glass", "person_name": "Felix"});
    let outcome = tools::call_acting(
        &mut twin,
        "hand_object_over_to_person",
        &args,
        &mut rig.bridge,
        &cancel,
    );
    let (outcome, goal) = tokio::join!(outcome, watcher);
    assert!(!outcome.ok, "{}", outcome.text);
    eprintln!("  said: {}", outcome.text);
    assert!(
        outcome.text.starts_with("Interrupted: "),
        "{}",
        outcome.text
    );
    assert!(
        outcome.text.contains("stopped where it was"),
        "{}",
        outcome.text
    );
    let side = arm_of(&rig.settings, &goal).expect("an arm's goal");
    let action = arm_action(&rig.settings, side).to_string();
    // Cancelled at the real server, and nothing sent after it.
    let events = rig.stack.events();
    let at_goal = events[since..]
        .iter()
        .position(|e| *e == goal)
        .expect("the goal")
        + since;
    let after = &events[at_goal + 1..];
    assert!(
        after.first().is_some_and(|e| is(e, "canceled", &action)),
        "the goal was cancelled at the server: {after:#?}"
    );
    assert!(
        after
            .iter()
            .all(|e| e["event"] != "goal" && e["event"] != "gripper"),
        "nothing sent after the stop: {after:#?}"
    );
    // The joint states stop changing, where the server stopped the arm: neither at the
    // trajectory's start nor at its end.
    let stopped = rig.twin_from_event(side, &after[0]["at"]);
    let first = rig.measured()[side as usize];
    tokio::time::sleep(Duration::from_millis(500)).await;
    let second = rig.measured()[side as usize];
    assert_close(&first, &second, 1e-6, "the arm stands still");
    assert_close(
        &second,
        &stopped,
        1e-3,
        "measured vs where the server stopped",
    );
    let (start, end) = (
        rig.twin_from_event(side, &goal["start"]),
        rig.twin_from_event(side, &goal["end"]),
    );
    let i = (0..start.len())
        .max_by(|&a, &b| {
            (end[a] - start[a])
                .abs()
                .total_cmp(&(end[b] - start[b]).abs())
        })
        .unwrap_or(0);
    let fraction = (second[i] - start[i]) / (end[i] - start[i]);
    assert!(
        (0.05..0.95).contains(&fraction),
        "joint {} stopped {:.0} % of the way: {second:?} between {start:?} and {end:?}",
        i + 1,
        fraction * 100.0
    );
    assert_close(
        &twin.joints[side as usize],
        &second,
        1e-3,
        "twin vs measured",
    );
}

/// An aborted goal fails the action with the controller's reason.
async fn an_abort_carries_the_controllers_reason(rig: &mut Rig) {
    rig.home_arms().await;
    let mut twin = rig.twin();
    let abort = json!({"after": 0.5, "reason": "path tolerance violated"});
    rig.stack.set_faults(&json!({"abort": {
        (rig.settings.left_arm.action.clone()): abort, (rig.settings.right_arm.action.clone()): abort}}));
    let since = rig.stack.events().len();
    let outcome = rig.hand_over(&mut twin, &CancellationToken::new()).await;
    rig.stack.set_faults(&json!({}));
    assert!(!outcome.ok);
    eprintln!("  said: {}", outcome.text);
    assert!(
        outcome.text.contains("arm stopped")
            && outcome.text.contains("cm short of its goal")
            && outcome
                .text
                .contains("goal aborted by the controller (path tolerance violated)"),
        "{}",
        outcome.text
    );
    assert_one_sentence(&outcome.text);
    assert_eq!(outcome.facts["executed"], false);
    let aborted = rig
        .stack
        .wait_for_event(since, PATIENCE, |e| e["event"] == "aborted")
        .await;
    let side = arm_of(&rig.settings, &aborted).expect("an arm aborted");
    assert!(
        outcome.text.contains(&format!("the {} arm", side.name())),
        "{}",
        outcome.text
    );
    let glass = twin.world.object_named("red_glass").expect("red_glass");
    assert_eq!(twin.world.holder(glass), None, "nothing was grasped");
    let measured = rig.measured()[side as usize];
    assert_close(
        &measured,
        &rig.twin_from_event(side, &aborted["at"]),
        1e-3,
        "measured vs where it aborted",
    );
    assert_close(
        &twin.joints[side as usize],
        &measured,
        1e-3,
        "twin vs measured",
    );
}

/// A goal the controller rejects fails the action in one sentence; nothing moves.
async fn a_rejected_goal_fails_in_one_sentence(rig: &mut Rig) {
    rig.home_arms().await;
    let mut twin = rig.twin();
    rig.stack.set_faults(
        &json!({"reject": [rig.settings.left_arm.action, rig.settings.right_arm.action]}),
    );
    let since = rig.stack.events().len();
    let before = rig.measured();
    let outcome = rig.hand_over(&mut twin, &CancellationToken::new()).await;
    rig.stack.set_faults(&json!({}));
    assert!(!outcome.ok);
    eprintln!("  said: {}", outcome.text);
    assert!(
        outcome
            .text
            .contains("arm did not move: the robot refused the goal (Action goal was rejected)")
            && !outcome.text.contains("short of its goal"),
        "{}",
        outcome.text
    );
    assert_one_sentence(&outcome.text);
    let events = &rig.stack.events()[since..];
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "rejected" && e["why"] == "fault switch"),
        "rejected by the switch, not for its joint names: {events:#?}"
    );
    assert!(
        events.iter().all(|e| e["event"] != "goal"),
        "nothing ran: {events:#?}"
    );
    let after = rig.measured();
    assert_close(&after[0], &before[0], 1e-6, "left arm unmoved");
    assert_close(&after[1], &before[1], 1e-6, "right arm unmoved");
}

/// A goal to an arm whose action server is not there fails in one sentence; nothing moves.
async fn a_missing_action_server_fails_in_one_sentence(rig: &mut Rig) {
    rig.home_arms().await;
    let (side, _) = rig.simulate_hand_over();
    let action = arm_action(&rig.settings, side).to_string();
    let since = rig.stack.events().len();
    rig.stack.set_faults(&json!({"missing": [action]}));
    rig.stack
        .wait_for_event(since, PATIENCE, |e| {
            e["event"] == "servers"
                && !e["up"]
                    .as_array()
                    .is_some_and(|up| up.contains(&json!(action)))
        })
        .await;
    // rosbridge sees the server gone once DDS tells it; until then a goal would wait for it.
    let nothing =
        json!({"trajectory": {"joint_names": arm_joints(&rig.settings, side), "points": []}});
    let deadline = Instant::now() + PATIENCE;
    loop {
        match rig.goal(&action, &nothing).await {
            Err(BridgeError::Failed { detail, .. })
                if detail.contains("No action server available") =>
            {
                break
            }
            other => assert!(
                Instant::now() < deadline,
                "the server never went away: {other:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut twin = rig.twin();
    let since = rig.stack.events().len();
    let outcome = rig.hand_over(&mut twin, &CancellationToken::new()).await;
    rig.stack.set_faults(&json!({}));
    assert!(!outcome.ok);
    eprintln!("  said: {}", outcome.text);
    assert!(
        outcome.text.contains("No action server available"),
        "{}",
        outcome.text
    );
    assert!(
        outcome.text.contains(&format!(
            "the {} arm did not move: the robot refused the goal",
            side.name()
        )),
        "{}",
        outcome.text
    );
    assert_one_sentence(&outcome.text);
    let events = &rig.stack.events()[since..];
    assert!(
        events.iter().all(|e| e["event"] != "goal"),
        "nothing ran: {events:#?}"
    );
    // Back for the next scenarios.
    let deadline = Instant::now() + PATIENCE;
    loop {
        match rig.goal(&action, &nothing).await {
            Ok(end) if end.status == STATUS_SUCCEEDED => break,
            other => assert!(
                Instant::now() < deadline,
                "the server never came back: {other:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Stale joint states are reported and refuse actions; when they return, actions work again.
async fn stale_joint_states_refuse_actions(rig: &mut Rig) {
    rig.home_arms().await;
    let mut statuses = rig.bridge.status_events(rig.shutdown.clone());
    rig.stack.set_faults(&json!({"stale": true}));
    let detail = next_status(&mut statuses, "stale").await;
    assert!(detail.contains(&rig.settings.joint_states), "{detail}");
    let mut twin = rig.twin();
    let since = rig.stack.events().len();
    let outcome = rig.hand_over(&mut twin, &CancellationToken::new()).await;
    assert!(!outcome.ok);
    eprintln!("  said: {}", outcome.text);
    assert!(
        outcome
            .text
            .starts_with("I cannot move: the robot's joint states are")
            && outcome.text.contains("old"),
        "{}",
        outcome.text
    );
    assert!(
        rig.stack.events()[since..]
            .iter()
            .all(|e| e["event"] != "goal"),
        "nothing was sent"
    );
    rig.stack.set_faults(&json!({}));
    next_status(&mut statuses, "fresh").await;
    rig.bridge.wait_ready(PATIENCE).await.expect("fresh again");
    let mut twin = rig.twin();
    let outcome = rig.hand_over(&mut twin, &CancellationToken::new()).await;
    assert!(outcome.ok, "{}", outcome.text);
}

/// rosbridge killed mid-motion: the action fails (not counted as done), actions are refused
/// in one sentence while it is down, and after a restart on the same port the bridge
/// reconnects by itself and a hand-over works.
async fn a_killed_rosbridge_refuses_then_reconnects(rig: &mut Rig) {
    rig.home_arms().await;
    let mut statuses = rig.bridge.status_events(rig.shutdown.clone());
    let mut twin = rig.twin();
    let since = rig.stack.events().len();
    let outcome = {
        let Rig {
            stack,
            bridge,
            settings,
            ..
        } = &mut *rig;
        let killer = async {
            let goal = stack
                .wait_for_event(since, PATIENCE, |e| is_arm_goal(settings, e))
                .await;
            tokio::time::sleep(Duration::from_millis(100)).await;
            stack.kill_rosbridge();
            goal
        };
        let (args, cancel) = (
            json!({"object_name": "red_glass", "person_name": "Felix"}),
            CancellationToken::new(),
        );
        let acting = tools::call_acting(
            &mut twin,
            "hand_object_over_to_person",
            &args,
            bridge,
            &cancel,
        );
        let (outcome, goal) = tokio::join!(acting, killer);
        assert!(!outcome.ok, "{}", outcome.text);
        eprintln!("  said: {}", outcome.text);
        let arm = arm_of(settings, &goal).expect("an arm's goal").name();
        assert_eq!(
            outcome.text,
            format!("Execution failed: the connection to the robot dropped while the {arm} arm was under way; it is not done")
        );
        outcome
    };
    let glass = twin.world.object_named("red_glass").expect("red_glass");
    assert_eq!(
        twin.world.holder(glass),
        None,
        "not counted as done: {}",
        outcome.text
    );
    next_status(&mut statuses, "disconnected").await;
    // While it is down: refused, in one sentence, and nothing reaches the robot.
    let mut twin = rig.twin();
    let during = rig.stack.events().len();
    let refused = rig.hand_over(&mut twin, &CancellationToken::new()).await;
    assert!(!refused.ok);
    eprintln!("  said: {}", refused.text);
    let url = rig.stack.url();
    assert!(
        refused.text.starts_with(&format!(
            "I cannot move: the robot bridge at {url} is disconnected ("
        )) && refused.text.ends_with(")."),
        "{}",
        refused.text
    );
    assert_one_sentence(&refused.text);
    assert!(
        rig.stack.events()[during..]
            .iter()
            .all(|e| e["event"] != "goal"),
        "nothing was sent"
    );
    // Back on the same port: the bridge reconnects by itself, and once rosbridge's new node
    // has discovered the robot, a hand-over works.
    rig.stack.start_rosbridge();
    next_status(&mut statuses, "connected").await;
    rig.wait_for_robot().await;
    // The killed goal went on at the server (nobody cancelled it); wait for the arm to rest.
    let settings = &rig.settings;
    rig.stack
        .wait_for_event(since, PATIENCE, |e| {
            e["event"] == "succeeded" && arm_of(settings, e).is_some()
        })
        .await;
    rig.home_arms().await;
    let mut twin = rig.twin();
    let outcome = rig.hand_over(&mut twin, &CancellationToken::new()).await;
    assert!(outcome.ok, "after the restart: {}", outcome.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bridge_drives_the_fake_robot_through_the_real_rosbridge() {
    let Some(root) = ros2::setup_or_skip("robot_rosbridge") else {
        return;
    };
    let began = Instant::now();
    let mut rig = Rig::start(&root).await;
    eprintln!(
        "stack up at {} (domain {}) after {:.1} s",
        rig.stack.url(),
        rig.stack.domain(),
        began.elapsed().as_secs_f64()
    );
    macro_rules! scenario {
        ($name:ident) => {{
            let t = Instant::now();
            tokio::time::timeout(Duration::from_secs(180), $name(&mut rig))
                .await
                .unwrap_or_else(|_| panic!("{} hung", stringify!($name)));
            eprintln!(
                "{}: ok in {:.1} s",
                stringify!($name),
                t.elapsed().as_secs_f64()
            );
        }};
    }
    scenario!(hand_over_succeeds);
    scenario!(gaze_turns_the_head);
    scenario!(a_stop_cancels_the_goal_and_the_arm_stays);
    scenario!(an_abort_carries_the_controllers_reason);
    scenario!(a_rejected_goal_fails_in_one_sentence);
    scenario!(a_missing_action_server_fails_in_one_sentence);
    scenario!(stale_joint_states_refuse_actions);
    scenario!(a_killed_rosbridge_refuses_then_reconnects);
    eprintln!(
        "robot_rosbridge: all scenarios in {:.1} s",
        began.elapsed().as_secs_f64()
    );
}
