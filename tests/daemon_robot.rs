//! `attentive run --robot` against the mock robot: the bridge's status reaches
//! the log, an action runs as controller goals, perception moves the twin while
//! idle, and a dropped connection is reported and recovered.

mod speech_support;
mod support;

use glam::Vec2;
use serde_json::{json, Value};
use support::daemon::{of_type, Daemon};

use attentive::config::Settings;
use attentive::robot::mock::MockRobot;
use attentive::twin::Twin;

const CONFIG: &str = r#"
[robot]
time_scale = 0.25

[robot.perception]
world_from_camera_xyz = [0.0, 0.0, 2.25]
world_from_camera_rpy_deg = [180.0, 0.0, 90.0]

[robot.perception.markers]
1 = "cola_bottle"
4 = "red_glass"
"#;

fn robot_events(log: &[Value], status: &str) -> usize {
    of_type(log, "robot")
        .iter()
        .filter(|e| e["status"] == status)
        .count()
}

fn position_of(state: &Value, object: &str) -> Option<Vec2> {
    let p = state["objects"][object]["position"].as_array()?;
    Some(Vec2::new(p[0].as_f64()? as f32, p[1].as_f64()? as f32))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_acts_through_the_robot_and_follows_its_perception() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("attentive.toml");
    std::fs::write(&config, CONFIG).unwrap();
    // The mock reads the same [robot] section as the daemon.
    let settings = Settings::load(Some(&config)).unwrap();
    assert_eq!(settings.robot.perception.markers.len(), 2);
    let twin = Twin::load("softdrinks").unwrap();
    let mock = MockRobot::start(&twin, &settings.robot, "127.0.0.1:0")
        .await
        .unwrap();
    let state = dir.path().join("state");
    let url = mock.url();
    let config_arg = config.to_string_lossy().to_string();
    let daemon = Daemon::start(
        &[
            "--config",
            &config_arg,
            "--no-audio",
            "--brain",
            "rules",
            "--robot",
            &url,
        ],
        &[],
        &state,
    );
    daemon
        .wait_for("the bridge to connect", |l| {
            robot_events(l, "connected") > 0
        })
        .await;
    let (_, health) = daemon.get("/health").await;
    assert_eq!(health["robot"], format!("rosbridge {url}"));

    // An action: goals reach the mock, and the twin shows the result.
    let (status, _) = daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to the_robot: please hand me the red glass"}),
        )
        .await;
    assert_eq!(status, 202);
    let log = daemon
        .wait_for("the episode's end", |l| {
            !of_type(l, "episode_end").is_empty()
        })
        .await;
    let actions = of_type(&log, "action");
    assert!(
        actions
            .iter()
            .any(|a| a["name"] == "hand_object_over_to_person" && a["ok"] == true),
        "{actions:?}"
    );
    assert!(mock.goals().len() >= 5, "{:?}", mock.goals());
    let (_, state_now) = daemon.get("/api/state").await;
    assert_eq!(state_now["objects"]["red_glass"]["held_by"], "Felix");

    // Idle: a moved marker moves the object in the daemon's twin.
    assert!(mock.move_object("cola_bottle", Vec2::new(-0.45, 0.35)));
    daemon
        .wait_for("the moved bottle", |l| {
            of_type(l, "state").iter().any(|s| {
                position_of(s, "cola_bottle")
                    .is_some_and(|p| p.distance(Vec2::new(-0.45, 0.35)) < 0.01)
            })
        })
        .await;
    // The glass stays in Felix's hand: perception agrees with what the robot did.
    let (_, state_now) = daemon.get("/api/state").await;
    assert_eq!(state_now["objects"]["red_glass"]["held_by"], "Felix");

    // A dropped connection is reported, and the bridge comes back by itself.
    mock.drop_connections();
    daemon
        .wait_for("disconnect and reconnect", |l| {
            robot_events(l, "disconnected") > 0 && robot_events(l, "connected") > 1
        })
        .await;
    mock.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_end_of_speech_the_robots_head_turns_to_the_speaker() {
    use speech_support::{espeak, model_path};
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("attentive.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let settings = Settings::load(Some(&config)).unwrap();
    let twin = Twin::load("softdrinks").unwrap();
    let mock = MockRobot::start(&twin, &settings.robot, "127.0.0.1:0")
        .await
        .unwrap();
    // Two seconds of silence first, so the bridge is connected when Felix speaks.
    let mut audio = vec![0.0f32; 2 * 16_000];
    audio.extend(espeak("Daniel, what time is it?"));
    audio.extend(vec![0.0f32; 2 * 16_000]);
    let wav = dir.path().join("mic.wav");
    attentive::frontend::source::write_wav(&wav, &audio, 16_000, 1).expect("write wav");
    let model = model_path();
    let (url, config_arg) = (mock.url(), config.to_string_lossy().to_string());
    let daemon = Daemon::start(
        &[
            "--config",
            &config_arg,
            "--brain",
            "rules",
            "--wav",
            wav.to_str().unwrap(),
            "--robot",
            &url,
        ],
        &[
            ("ATTENTIVE_WHISPER_MODEL", model.to_str().unwrap()),
            ("ATTENTIVE_AUDIO__FALLBACK_SPEAKER", "Felix"),
        ],
        &dir.path().join("state"),
    );
    daemon
        .wait_for("the listening cue", |l| !of_type(l, "listening").is_empty())
        .await;
    // Felix sits at y = +0.7, to the robot's left: the head pans left (positive).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let pan = loop {
        let head: Vec<_> = mock
            .goals()
            .into_iter()
            .filter(|g| g.action == settings.robot.head.action)
            .collect();
        if let Some(g) = head.first() {
            break g.positions[0][0];
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no head goal after the listening cue: {:?}",
            mock.goals()
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert!(pan > 0.3, "pan {pan} rad towards Felix");
    mock.stop();
}
