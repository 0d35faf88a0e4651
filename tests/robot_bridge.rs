//! The robot bridge against the mock robot over a real WebSocket: actions become
//! controller goals, faults (abort, dropped connection, stale joint states,
//! interrupts) fail the action with a reason and the twin shows where the arm
//! really is, and perception moves objects and people — never during an action.

use std::time::Duration;

use attentive::agent::tools::{self, ToolOutcome};
use attentive::events::Event;
use attentive::robot::mock::{Fault, MockRobot};
use attentive::robot::{RobotBridge, RobotSettings};
use attentive::twin::actions::Executor;
use attentive::twin::kinematics::Side;
use attentive::twin::{Hand, Twin};
use glam::{Vec2, Vec3};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

fn settings() -> RobotSettings {
    // The mock moves in real time; a quarter of the planned durations keeps tests short.
    let mut s = RobotSettings {
        time_scale: 0.25,
        ..Default::default()
    };
    for (id, name) in [
        ("1", "cola_bottle"),
        ("2", "red_glass"),
        ("3", "blue_glass"),
        ("4", "smartphone"),
    ] {
        s.perception.markers.insert(id.into(), name.into());
    }
    // A camera 1.5 m above the table centre looking straight down, turned 90°.
    s.perception.world_from_camera_xyz = [0.0, 0.0, 2.25];
    s.perception.world_from_camera_rpy_deg = [180.0, 0.0, 90.0];
    s
}

struct Rig {
    mock: MockRobot,
    bridge: RobotBridge,
    twin: Twin,
    shutdown: CancellationToken,
}

impl Drop for Rig {
    fn drop(&mut self) {
        self.shutdown.cancel();
        self.mock.stop();
    }
}

async fn rig() -> Rig {
    let settings = settings();
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
    wait_for_perception(&bridge).await;
    bridge.perceive(&mut twin);
    Rig {
        mock,
        bridge,
        twin,
        shutdown,
    }
}

/// Waits until a few more perception messages have arrived.
async fn wait_for_perception(bridge: &RobotBridge) {
    let mut updates = bridge.updates();
    for _ in 0..12 {
        let _ = tokio::time::timeout(Duration::from_secs(2), updates.changed()).await;
    }
}

async fn hand_over(rig: &mut Rig, object: &str, person: &str) -> ToolOutcome {
    tools::call_acting(
        &mut rig.twin,
        "hand_object_over_to_person",
        &json!({"object_name": object, "person_name": person}),
        &mut rig.bridge,
        &CancellationToken::new(),
    )
    .await
}

fn arm_settings(s: &RobotSettings, arm: &str) -> (String, Vec<String>, String) {
    match arm {
        "left" => (
            s.left_arm.action.clone(),
            s.left_arm.joints.clone(),
            s.left_hand.action.clone(),
        ),
        _ => (
            s.right_arm.action.clone(),
            s.right_arm.joints.clone(),
            s.right_hand.action.clone(),
        ),
    }
}

fn side(arm: &str) -> Side {
    if arm == "left" {
        Side::Left
    } else {
        Side::Right
    }
}

/// The twin's arm is where the mock's joints are (the convention is identity here).
fn assert_twin_arm_is_measured(rig: &Rig, arm: &str) {
    let (_, names, _) = arm_settings(&settings(), arm);
    let joints = rig.mock.joints();
    let measured: Vec<f64> = names.iter().map(|n| joints[n]).collect();
    let twin_q = rig.twin.joints[if arm == "left" { 0 } else { 1 }];
    for (m, &t) in measured.iter().zip(twin_q.iter()) {
        assert!(
            (m - f64::from(t)).abs() < 0.02,
            "{measured:?} vs {twin_q:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_over_runs_as_controller_goals_and_the_twin_ends_where_the_robot_is() {
    let mut rig = rig().await;
    let outcome = hand_over(&mut rig, "red_glass", "Felix").await;
    assert!(outcome.ok, "{}", outcome.text);
    assert_eq!(
        outcome.text,
        format!(
            "You handed red_glass to Felix with your {} hand.",
            outcome.facts["arm"].as_str().unwrap()
        )
    );
    let s = settings();
    let arm = outcome.facts["arm"].as_str().expect("arm fact").to_string();
    let (arm_action, joint_names, hand_action) = arm_settings(&s, &arm);
    let goals = rig.mock.goals();
    let arm_goals: Vec<_> = goals
        .iter()
        .filter(|g| g.action.ends_with("arm_controller/follow_joint_trajectory"))
        .collect();
    assert!(arm_goals.len() >= 3, "reach, lift, carry...: {goals:?}");
    let robot = rig.twin.robot.as_ref().expect("robot").clone();
    for g in &arm_goals {
        assert_eq!(
            g.action, arm_action,
            "every arm goal on the {arm} controller"
        );
        assert_eq!(g.joint_names, joint_names);
        assert!(g.times[0] > 0.0, "no point at t = 0: {:?}", g.times);
        assert!(
            g.times.windows(2).all(|w| w[1] > w[0]),
            "times increase: {:?}",
            g.times
        );
        for p in &g.positions {
            assert_eq!(p.len(), 7);
            let q: attentive::twin::kinematics::Joints = p.iter().map(|v| *v as f32).collect();
            assert_eq!(
                robot.arm(side(&arm)).limit_violation(&q, 1e-3),
                None,
                "within the joint limits: {p:?}"
            );
        }
    }
    let grips: Vec<f64> = goals
        .iter()
        .filter(|g| g.action == hand_action)
        .filter_map(|g| g.gripper_position)
        .collect();
    assert_eq!(
        grips,
        vec![s.left_hand.closed_position, s.left_hand.open_position],
        "close on the glass, then open for Felix"
    );
    // The twin: Felix holds it, and the arm is where the robot says it is.
    let felix = rig.twin.world.person_named("Felix").unwrap();
    let glass = rig.twin.world.object_named("red_glass").unwrap();
    assert_eq!(rig.twin.world.holder(glass), Some(felix));
    assert_twin_arm_is_measured(&rig, &arm);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_goal_fails_the_action_with_the_controllers_reason() {
    let mut rig = rig().await;
    rig.mock.fault_next_goal(Fault::Abort {
        after: 0.5,
        reason: "path tolerance violated".into(),
    });
    let outcome = hand_over(&mut rig, "red_glass", "Felix").await;
    assert!(!outcome.ok);
    assert!(
        outcome.text.contains("arm stopped")
            && outcome.text.contains("cm short of its goal")
            && outcome
                .text
                .contains("goal aborted by the controller (path tolerance violated)"),
        "{}",
        outcome.text
    );
    assert_eq!(outcome.facts["executed"], false);
    // Nothing was grasped; the twin's arm is where the robot stopped.
    let glass = rig.twin.world.object_named("red_glass").unwrap();
    assert_eq!(rig.twin.world.holder(glass), None);
    let arm = if outcome.text.contains("left arm") {
        "left"
    } else {
        "right"
    };
    assert_twin_arm_is_measured(&rig, arm);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_goal_fails_the_action() {
    let mut rig = rig().await;
    rig.mock.fault_next_goal(Fault::Reject);
    let outcome = hand_over(&mut rig, "red_glass", "Felix").await;
    assert!(!outcome.ok);
    assert!(
        outcome.text.contains("Action goal was rejected"),
        "{}",
        outcome.text
    );
    assert!(
        outcome
            .text
            .contains("arm did not move: the robot refused the goal (Action goal was rejected")
            && !outcome.text.contains("short of its goal"),
        "{}",
        outcome.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_mid_motion_fails_the_action_and_a_reconnect_recovers() {
    let mut rig = rig().await;
    let mut statuses = rig.bridge.status_events(rig.shutdown.clone());
    let mock = rig.mock.clone();
    let dropper = tokio::spawn(async move {
        mock.goal_arrived().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        mock.drop_connections();
    });
    let outcome = hand_over(&mut rig, "red_glass", "Felix").await;
    dropper.await.unwrap();
    assert!(!outcome.ok, "{}", outcome.text);
    assert!(
        outcome
            .text
            .contains("the connection to the robot dropped while the"),
        "{}",
        outcome.text
    );
    let glass = rig.twin.world.object_named("red_glass").unwrap();
    assert_eq!(rig.twin.world.holder(glass), None, "not counted as done");
    // The bridge says so, then reconnects by itself.
    let mut seen = Vec::new();
    while !seen.contains(&"connected".to_string()) || !seen.contains(&"disconnected".to_string()) {
        match tokio::time::timeout(Duration::from_secs(10), statuses.recv()).await {
            Ok(Some(Event::Robot { status, .. })) => seen.push(status),
            other => panic!("no reconnect: {other:?}, seen {seen:?}"),
        }
    }
    rig.bridge
        .wait_ready(Duration::from_secs(10))
        .await
        .expect("ready again");
    // The arm went on to where its trajectory ended; the twin plans from there.
    while rig.mock.moving() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    wait_for_perception(&rig.bridge).await;
    let again = hand_over(&mut rig, "red_glass", "Felix").await;
    assert!(again.ok, "{}", again.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_cancels_the_goal_and_the_arm_stays_where_it_stopped() {
    let mut rig = rig().await;
    let cancel = CancellationToken::new();
    let (mock, stop) = (rig.mock.clone(), cancel.clone());
    let halted = tokio::spawn(async move {
        mock.goal_arrived().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let asked = std::time::Instant::now();
        stop.cancel();
        // The figure of the closing note: stop -> the mock robot's arm halted.
        while mock.moving() && asked.elapsed() < Duration::from_secs(5) {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        asked.elapsed()
    });
    let outcome = tools::call_acting(
        &mut rig.twin,
        "hand_object_over_to_person",
        &json!({"object_name": "red_glass", "person_name": "Felix"}),
        &mut rig.bridge,
        &cancel,
    )
    .await;
    assert!(!outcome.ok);
    assert!(
        outcome.text.starts_with("Interrupted: "),
        "{}",
        outcome.text
    );
    assert!(!rig.mock.moving(), "the goal was cancelled on the robot");
    let halted = halted.await.expect("the stop task");
    eprintln!(
        "figure: stop -> arm halted (mock robot through rosbridge): {} ms",
        halted.as_millis()
    );
    let arm = if outcome.text.contains("left arm") {
        "left"
    } else {
        "right"
    };
    assert_twin_arm_is_measured(&rig, arm);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moved_marker_moves_the_object_but_never_during_an_action() {
    let mut rig = rig().await;
    let cola = rig.twin.world.object_named("cola_bottle").unwrap();
    let start = rig.twin.world.object_base(cola).truncate();
    assert!(
        start.distance(Vec2::new(-0.45, 0.25)) < 0.005,
        "perceived where the scene has it: {start}"
    );
    // Idle: a moved marker moves the object.
    assert!(rig.mock.move_object("cola_bottle", Vec2::new(-0.45, 0.35)));
    wait_for_perception(&rig.bridge).await;
    assert!(rig.bridge.perceive(&mut rig.twin));
    let moved = rig.twin.world.object_base(cola).truncate();
    assert!(moved.distance(Vec2::new(-0.45, 0.35)) < 0.005, "{moved}");
    // During an action: the marker moves once the arm is on its way ...
    let mock = rig.mock.clone();
    let mover = tokio::spawn(async move {
        mock.goal_arrived().await;
        mock.move_object("cola_bottle", Vec2::new(-0.45, 0.25));
    });
    let outcome = hand_over(&mut rig, "blue_glass", "Daniel").await;
    mover.await.unwrap();
    assert!(outcome.ok, "{}", outcome.text);
    // ... and the twin did not follow it while the plan ran.
    let during = rig.twin.world.object_base(cola).truncate();
    assert!(during.distance(Vec2::new(-0.45, 0.35)) < 0.005, "{during}");
    // Afterwards, it is applied.
    wait_for_perception(&rig.bridge).await;
    assert!(rig.bridge.perceive(&mut rig.twin));
    let after = rig.twin.world.object_base(cola).truncate();
    assert!(after.distance(Vec2::new(-0.45, 0.25)) < 0.005, "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_near_the_phone_makes_that_person_busy() {
    let mut rig = rig().await;
    let busy = |twin: &mut Twin| -> String {
        tools::call(
            twin,
            "is_person_busy_or_idle",
            &json!({"person_name": "Daniel"}),
        )
        .text
    };
    assert!(
        busy(&mut rig.twin).contains("idle"),
        "{}",
        busy(&mut rig.twin)
    );
    let phone = rig.twin.world.object_named("smartphone").unwrap();
    let at = rig.twin.world.object_centre(phone);
    assert!(rig
        .mock
        .move_hand("Daniel", Hand::Right, at + Vec3::new(0.0, 0.0, 0.05)));
    wait_for_perception(&rig.bridge).await;
    rig.bridge.perceive(&mut rig.twin);
    let text = busy(&mut rig.twin);
    assert!(
        text.contains("busy") && text.contains("smartphone"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_joint_states_refuse_actions_and_are_reported() {
    let mut rig = rig().await;
    let mut statuses = rig.bridge.status_events(rig.shutdown.clone());
    rig.mock.pause_joint_states(true);
    let stale = loop {
        match tokio::time::timeout(Duration::from_secs(5), statuses.recv()).await {
            Ok(Some(Event::Robot { status, detail })) if status == "stale" => break detail,
            Ok(Some(_)) => continue,
            other => panic!("no stale report: {other:?}"),
        }
    };
    assert!(stale.contains("/joint_states"), "{stale}");
    let before = rig.mock.goals().len();
    let outcome = hand_over(&mut rig, "red_glass", "Felix").await;
    assert!(!outcome.ok);
    assert!(
        outcome
            .text
            .starts_with("I cannot move: the robot's joint states are")
            && outcome.text.contains("old"),
        "{}",
        outcome.text
    );
    assert_eq!(rig.mock.goals().len(), before, "nothing was sent");
    // When they come back, actions work again.
    rig.mock.pause_joint_states(false);
    rig.bridge
        .wait_ready(Duration::from_secs(5))
        .await
        .expect("fresh again");
    let outcome = hand_over(&mut rig, "red_glass", "Felix").await;
    assert!(outcome.ok, "{}", outcome.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_that_cannot_connect_refuses_actions_in_one_sentence() {
    let settings = settings();
    let mut twin = Twin::load("softdrinks").unwrap();
    // A port nobody listens on.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("ws://{}", free.local_addr().unwrap());
    drop(free);
    let shutdown = CancellationToken::new();
    let mut bridge = RobotBridge::start(&settings, &url, &twin.world, shutdown.clone()).unwrap();
    let reason = bridge
        .wait_ready(Duration::from_millis(500))
        .await
        .unwrap_err();
    assert!(
        reason.starts_with("I cannot move: the robot bridge at ws://127.0.0.1:"),
        "{reason}"
    );
    let outcome = tools::call_acting(
        &mut twin,
        "hand_object_over_to_person",
        &json!({"object_name": "red_glass", "person_name": "Felix"}),
        &mut bridge,
        &CancellationToken::new(),
    )
    .await;
    assert!(!outcome.ok);
    assert!(
        outcome.text.starts_with("I cannot move"),
        "{}",
        outcome.text
    );
    shutdown.cancel();
    // A wrong address and an unknown marker object are start-up errors.
    assert!(RobotBridge::start(
        &settings,
        "http://robot",
        &twin.world,
        CancellationToken::new()
    )
    .err()
    .is_some_and(|e| e.to_string().contains("use ws://HOST:9090")));
    let mut wrong = settings.clone();
    wrong.perception.markers.insert("9".into(), "teapot".into());
    assert!(
        RobotBridge::start(&wrong, &url, &twin.world, CancellationToken::new())
            .err()
            .is_some_and(|e| e.to_string().contains("'teapot', which is not an object"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_command_hands_over_through_the_robot_end_to_end() {
    let settings = settings();
    let twin = Twin::load("softdrinks").unwrap();
    let mock = MockRobot::start(&twin, &settings, "127.0.0.1:0")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("attentive.toml");
    std::fs::write(&config, "[robot]\ntime_scale = 0.25\n").unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--json", "--config"])
        .arg(&config)
        .args([
            "tool",
            "--robot",
            &mock.url(),
            "hand_object_over_to_person",
            r#"{"object_name":"red_glass","person_name":"Felix"}"#,
        ])
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(line["ok"], true);
    assert!(line["text"]
        .as_str()
        .unwrap()
        .starts_with("You handed red_glass to Felix"));
    assert!(mock.goals().len() >= 5, "{:?}", mock.goals());
    // Without a robot there, the same call says why in one line and exits non-zero.
    mock.stop();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tool",
            "--robot",
            "ws://127.0.0.1:9",
            "hand_object_over_to_person",
            r#"{"object_name":"red_glass","person_name":"Felix"}"#,
        ])
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("I cannot move: the robot bridge at ws://127.0.0.1:9"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_service_call_comes_back_as_the_servers_sentence() {
    let rig = rig().await;
    let answer = rig
        .bridge
        .client()
        .call_service("/rosapi/topics", &json!({}), Duration::from_secs(2))
        .await;
    let error = answer.unwrap_err().to_string();
    assert_eq!(
        error,
        "the service /rosapi/topics failed: the mock robot serves no services"
    );
}
