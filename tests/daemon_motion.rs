//! `attentive run` with the simulated robot moving in time: `joints` events go
//! live at the configured rate and never into the log; a stop halts the arm
//! where it is; a pause and a resume finish the same action.

mod support;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{json, Value};
use support::daemon::{of_type, Daemon};
use tokio::sync::mpsc;

const TURN: &str = "Daniel, please hand me the red glass.";

fn start(dir: &std::path::Path, joints_hz: &str) -> Daemon {
    Daemon::start(
        &["--no-audio", "--scene", "softdrinks"],
        &[
            ("ATTENTIVE_DAEMON__JOINTS_HZ", joints_hz),
            ("ATTENTIVE_SIM__TIME_SCALE", "1.0"),
        ],
        dir,
    )
}

/// Every SSE `data:` line, parsed, with when it arrived.
async fn subscribe(daemon: &Daemon) -> mpsc::UnboundedReceiver<(Instant, Value)> {
    let response = reqwest::get(daemon.url("/api/events"))
        .await
        .expect("GET /api/events");
    assert_eq!(response.status(), 200);
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut body = response.bytes_stream();
        let mut pending = String::new();
        while let Some(Ok(chunk)) = body.next().await {
            pending.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = pending.find('\n') {
                let line: String = pending.drain(..=end).collect();
                if let Some(data) = line.trim_end().strip_prefix("data: ") {
                    let event: Value = serde_json::from_str(data).expect("SSE data is JSON");
                    if tx.send((Instant::now(), event)).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

/// Reads events until one matches; returns it, with everything read so far.
async fn until(
    events: &mut mpsc::UnboundedReceiver<(Instant, Value)>,
    seen: &mut Vec<(Instant, Value)>,
    what: &str,
    matches: impl Fn(&Value) -> bool,
) -> (Instant, Value) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let next = tokio::time::timeout_at(deadline, events.recv()).await;
        let Ok(Some((at, event))) = next else {
            panic!("no {what} arrived; saw {} events", seen.len());
        };
        seen.push((at, event.clone()));
        if matches(&event) {
            return (at, event);
        }
    }
}

/// Waits for the arms at rest: the last joints event, which may come just
/// before or after the action's event.
async fn at_rest(
    events: &mut mpsc::UnboundedReceiver<(Instant, Value)>,
    seen: &mut Vec<(Instant, Value)>,
) {
    let last = seen.iter().rev().find(|(_, e)| is_joints(e));
    if last.is_none_or(|(_, e)| e["moving"] != false) {
        until(events, seen, "the arms at rest", |e| {
            is_joints(e) && e["moving"] == false
        })
        .await;
    }
}

fn is_joints(e: &Value) -> bool {
    e["type"] == "joints"
}

fn carrying(e: &Value, object: &str) -> bool {
    is_joints(e) && e["carried"]["object"] == object && e["moving"] == true
}

fn action(e: &Value) -> bool {
    e["type"] == "action"
}

async fn say(daemon: &Daemon) {
    let (status, _) = daemon
        .post(
            "/api/turns",
            &json!({"speaker": "Felix", "listener": "Daniel", "text": TURN}),
        )
        .await;
    assert_eq!(status, 202);
}

async fn interrupt(daemon: &Daemon, kind: &str) {
    let (status, answer) = daemon
        .post("/api/interrupt", &json!({"kind": kind, "by": "Felix"}))
        .await;
    assert_eq!(status, 202, "{answer}");
}

fn hand_positions(scene: &Value) -> Vec<Value> {
    scene["robot"]["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .map(|a| {
            a["points3"]
                .as_array()
                .expect("points3")
                .last()
                .cloned()
                .expect("hand")
        })
        .collect()
}

#[tokio::test]
async fn joints_go_live_at_the_configured_rate_and_stop_after_the_motion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let daemon = start(dir.path(), "10");
    let mut events = subscribe(&daemon).await;
    say(&daemon).await;
    let mut seen = Vec::new();
    let (_, done) = until(&mut events, &mut seen, "the action", action).await;
    assert_eq!(done["ok"], true, "{done}");
    // The arm at rest is the last joints event (it may come just before or after the action's).
    at_rest(&mut events, &mut seen).await;

    let joints: Vec<&(Instant, Value)> = seen.iter().filter(|(_, e)| is_joints(e)).collect();
    assert!(joints.len() >= 5, "{} joints events", joints.len());
    for (_, e) in &joints {
        assert!(e.get("seq").is_none(), "joints events are not logged: {e}");
        assert_eq!(e["arms"].as_object().map(|a| a.len()), Some(2));
        assert_eq!(e["arms"]["left"]["q"].as_array().map(Vec::len), Some(7));
        assert!(e["arms"]["right"]["frames"]
            .as_array()
            .is_some_and(|f| f.len() >= 2));
    }
    assert!(joints
        .iter()
        .any(|(_, e)| e["path"].as_array().is_some_and(|p| p.len() >= 2)));
    assert!(joints.iter().any(|(_, e)| carrying(e, "red_glass")));
    // The rate bound: at most one event per 1/10 s of the motion, by the log's clock.
    let log = daemon.log();
    let ts = |e: &Value| chrono_ms(e["ts"].as_str().expect("ts"));
    let spoke = of_type(&log, "speech")
        .last()
        .map(|e| ts(e))
        .expect("speech");
    let acted = of_type(&log, "action")
        .last()
        .map(|e| ts(e))
        .expect("action");
    let motion_s = (acted - spoke) as f64 / 1000.0;
    eprintln!(
        "{} joints events in a {motion_s:.1} s motion at 10 Hz",
        joints.len()
    );
    assert!(
        (joints.len() as f64) <= 10.0 * motion_s + 3.0,
        "{} joints events in a {motion_s:.1} s motion at 10 Hz",
        joints.len()
    );
    // Nothing in the log, and nothing more on the wire once the arm rests.
    assert!(of_type(&log, "joints").is_empty());
    let after = tokio::time::timeout(Duration::from_millis(1500), async {
        loop {
            match events.recv().await {
                Some((_, e)) if is_joints(&e) => return Some(e),
                Some(_) => continue,
                None => return None,
            }
        }
    })
    .await;
    assert!(after.is_err(), "joints after the motion: {after:?}");
}

/// Milliseconds of the day of an RFC 3339 `ts` ("2026-11-24T18:52:04.105Z").
fn chrono_ms(ts: &str) -> i64 {
    let time = ts.split('T').nth(1).expect("time").trim_end_matches('Z');
    let mut parts = time.split(':');
    let h: i64 = parts.next().and_then(|p| p.parse().ok()).expect("h");
    let m: i64 = parts.next().and_then(|p| p.parse().ok()).expect("m");
    let s: f64 = parts.next().and_then(|p| p.parse().ok()).expect("s");
    (h * 3600 + m * 60) * 1000 + (s * 1000.0).round() as i64
}

#[tokio::test]
async fn a_stop_halts_the_arm_where_it_is_holding_the_glass() {
    let dir = tempfile::tempdir().expect("tempdir");
    let daemon = start(dir.path(), "20");
    let (_, scene) = daemon.get("/api/scene").await;
    let home = hand_positions(&scene);
    let mut events = subscribe(&daemon).await;
    say(&daemon).await;
    let mut seen = Vec::new();
    until(&mut events, &mut seen, "the glass on its way", |e| {
        carrying(e, "red_glass")
    })
    .await;
    let asked = Instant::now();
    interrupt(&daemon, "stop").await;
    let (halted, rest) = until(&mut events, &mut seen, "the arm at rest", |e| {
        is_joints(e) && e["moving"] == false
    })
    .await;
    eprintln!(
        "figure: stop -> arm halted (simulated robot, through the daemon): {} ms",
        halted.duration_since(asked).as_millis()
    );
    // The action's event may have come before the arm's last joints.
    let done = match seen.iter().find(|(_, e)| action(e)) {
        Some((_, e)) => e.clone(),
        None => until(&mut events, &mut seen, "the action", action).await.1,
    };
    assert_eq!(done["ok"], false);
    let detail = done["detail"].as_str().expect("detail");
    assert!(
        detail.starts_with("Interrupted: I stopped with red_glass in my"),
        "{detail}"
    );
    assert_eq!(rest["carried"]["object"], "red_glass");
    let (_, state) = daemon.get("/api/state").await;
    assert_eq!(
        state["objects"]["red_glass"]["held_by"], "the_robot",
        "{state}"
    );
    let (_, scene) = daemon.get("/api/scene").await;
    assert_ne!(
        hand_positions(&scene),
        home,
        "the arm stays where it stopped"
    );
}

#[tokio::test]
async fn a_pause_then_resume_finishes_the_same_hand_over() {
    let dir = tempfile::tempdir().expect("tempdir");
    let daemon = start(dir.path(), "20");
    let mut events = subscribe(&daemon).await;
    say(&daemon).await;
    let mut seen = Vec::new();
    until(&mut events, &mut seen, "the glass on its way", |e| {
        carrying(e, "red_glass")
    })
    .await;
    interrupt(&daemon, "pause").await;
    let (_, paused) = until(&mut events, &mut seen, "the paused action", action).await;
    assert_eq!(paused["ok"], false, "{paused}");
    let (_, state) = daemon.get("/api/state").await;
    assert_eq!(state["objects"]["red_glass"]["held_by"], "the_robot");

    interrupt(&daemon, "resume").await;
    let (_, resumed) = until(&mut events, &mut seen, "the resumed action", action).await;
    assert_eq!(resumed["ok"], true, "{resumed}");
    assert_eq!(resumed["args"]["object_name"], "red_glass");
    let (_, state) = daemon.get("/api/state").await;
    assert_eq!(state["objects"]["red_glass"]["held_by"], "Felix", "{state}");
}

/// Beside a robot (here the mock, through rosbridge), the page follows the
/// measured joints live, and sees the arms come to rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beside_a_robot_the_measured_joints_go_live_too() {
    use attentive::config::Settings;
    use attentive::robot::mock::MockRobot;
    use attentive::twin::Twin;

    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("attentive.toml");
    std::fs::write(&config, "[robot]\ntime_scale = 0.5\n").expect("config");
    let settings = Settings::load(Some(&config)).expect("settings");
    let twin = Twin::load("softdrinks").expect("scene");
    let mock = MockRobot::start(&twin, &settings.robot, "127.0.0.1:0")
        .await
        .expect("mock robot");
    let url = mock.url();
    let config_arg = config.to_string_lossy().to_string();
    let state = dir.path().join("state");
    let daemon = Daemon::start(
        &[
            "--config",
            &config_arg,
            "--no-audio",
            "--scene",
            "softdrinks",
            "--robot",
            &url,
        ],
        &[],
        &state,
    );
    daemon
        .wait_for("the bridge to connect", |l| {
            of_type(l, "robot")
                .iter()
                .any(|e| e["status"] == "connected")
        })
        .await;
    let mut events = subscribe(&daemon).await;
    say(&daemon).await;
    let mut seen = Vec::new();
    until(&mut events, &mut seen, "a moving arm", |e| {
        is_joints(e) && e["moving"] == true
    })
    .await;
    let (_, done) = until(&mut events, &mut seen, "the action", action).await;
    assert_eq!(done["ok"], true, "{done}");
    at_rest(&mut events, &mut seen).await;
    let moving = seen
        .iter()
        .filter(|(_, e)| is_joints(e) && e["moving"] == true)
        .count();
    assert!(moving >= 5, "{moving} joints events while the robot moved");
    assert!(of_type(&daemon.log(), "joints").is_empty());
    mock.stop();
}
