//! A person talking over the robot, on the real audio path without a sound card:
//! a private PulseAudio whose 4-channel null sink is the microphone array (its
//! monitor is the daemon's input) and whose mono null sink is the loudspeaker
//! (its monitor is recorded). Felix's "stop" arrives from his direction while
//! the robot speaks a long sentence: the robot falls silent long before the
//! sentence's end, and the daemon hears Felix.
//!
//! The latency (Felix's onset → the robot's silence) is printed, not asserted:
//! `cargo test --test daemon_barge_in -- --nocapture`. Written first, it failed on
//! two real defects of the live path: voice activity was only scored on whole VAD
//! frames inside each block (a device's 10 ms blocks have none), and a direction
//! check on every block made the microphone fall seconds behind real time.

mod speech_support;
mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use attentive::frontend::{participants_from_scene_file, AudioSettings};
use serde_json::json;
use speech_support::{array_recording, espeak, model_path};
use support::daemon::{of_type, Daemon};
use support::fake_llm::{FakeLlm, Scripted};
use support::pulse::{self, Killed};

/// PulseAudio with a mono loudspeaker sink and a 4-channel array sink whose monitor is the microphone.
fn start_pulse(dir: &Path) -> (Killed, String) {
    pulse::start(
        dir,
        &[
            "sink_name=speaker rate=16000 channels=1",
            "sink_name=array rate=16000 channels=4 channel_map=front-left,front-right,rear-left,rear-right",
        ],
        "speaker",
        "array.monitor",
    )
}

/// 10 ms RMS frames of 16 kHz s16le mono.
fn loudness(raw: &[u8]) -> Vec<f32> {
    let samples: Vec<f32> = raw
        .chunks_exact(2)
        .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0)
        .collect();
    samples
        .chunks(160)
        .map(|c| (c.iter().map(|s| s * s).sum::<f32>() / c.len() as f32).sqrt())
        .collect()
}

const LONG: &str = "Felix, while we wait, let me tell you about this table: the cola bottle \
stands near me, the fanta bottle is in the middle, the red glass is close to you, the blue \
glass is near Daniel, and the smartphone lies at the far end, next to the box of cereal.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn felix_talking_over_the_robot_silences_it_and_is_heard() {
    let dir = tempfile::tempdir().unwrap();
    let (_pulse, server) = start_pulse(dir.path());
    let llm = FakeLlm::start(vec![Scripted::tool_calls(&[(
        "speak",
        json!({"person_name": "Felix", "text": LONG}),
    )])])
    .await;
    llm.set_fallback(Scripted::tool_calls(&[("stop", json!({}))]));
    let model = model_path();
    let url = llm.base_url();
    let daemon = Daemon::start(
        &["--brain", "llm", "--llm-url", &url, "--model", "fake"],
        &[
            ("PULSE_SERVER", server.as_str()),
            ("ATTENTIVE_WHISPER_MODEL", model.to_str().unwrap()),
            // The robot's sentence is measured against espeak-ng's length of it below;
            // the default (`auto`) would speak with Piper where it is installed.
            ("ATTENTIVE_VOICE__ENGINE", "espeak-ng"),
        ],
        &dir.path().join("state"),
    );
    let (_, health) = daemon.get("/health").await;
    assert!(
        health["audio"].as_str().unwrap().contains("listening to"),
        "{health}"
    );

    // Record the loudspeaker and the array from now on, side by side, so that
    // the robot's silence and Felix's onset are read off one time axis.
    let record = |source: &str, file: &Path| {
        Killed(
            Command::new("parec")
                .env("PULSE_SERVER", &server)
                .args([
                    "-d",
                    source,
                    "--format=s16le",
                    "--rate=16000",
                    "--channels=1",
                    "--raw",
                ])
                .stdout(std::fs::File::create(file).unwrap())
                .spawn()
                .expect("parec"),
        )
    };
    let recording = dir.path().join("speaker.raw");
    let heard_by_array = dir.path().join("array.raw");
    let recorder = record("speaker.monitor", &recording);
    let array_recorder = record("array.monitor", &heard_by_array);
    let recording_started = Instant::now();
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to the_robot: tell me about the table"}),
        )
        .await;
    // Wait until the robot is audible, then let it talk 1.5 s.
    let robot_onset = loop {
        let raw = std::fs::read(&recording).unwrap_or_default();
        if let Some(i) = loudness(&raw).iter().position(|r| *r > 0.01) {
            break i as f64 * 0.01;
        }
        assert!(
            recording_started.elapsed() < Duration::from_secs(20),
            "the robot never spoke"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    tokio::time::sleep(Duration::from_millis(1500)).await;

    // Felix, from his seat, over the robot.
    let settings = AudioSettings::default();
    let scene = attentive::paths::resolve("softdrinks", "scenes", "toml");
    let participants = participants_from_scene_file(&scene, settings.array_offset).unwrap();
    let az = attentive::frontend::speaker::azimuth_of(
        &participants,
        participants.person("Felix").unwrap().head,
    );
    let lead = 0.2;
    let mut mono = vec![0.0f32; (lead * 16_000.0) as usize];
    mono.extend(espeak("Stop, please stop talking."));
    mono.extend(vec![0.0f32; 16_000]);
    let four = array_recording(&mono, 16_000, &settings.mic_positions, az, 25.0, None);
    let wav = dir.path().join("felix.wav");
    attentive::frontend::source::write_wav(&wav, &four, 16_000, 4).unwrap();
    // Kept for listening to by hand.
    let _ = std::fs::copy(
        &wav,
        concat!(env!("CARGO_TARGET_TMPDIR"), "/felix-over-the-robot.wav"),
    );
    let status = Command::new("pacat")
        .env("PULSE_SERVER", &server)
        // The array's own channel order, so PulseAudio does not remix the channels.
        .args([
            "--playback",
            "-d",
            "array",
            "--file-format=wav",
            "--channel-map=front-left,front-right,rear-left,rear-right",
        ])
        .arg(&wav)
        .status()
        .expect("pacat");
    assert!(status.success());
    let log = daemon
        .wait_for("Felix's turn", |l| {
            of_type(l, "turn")
                .iter()
                .any(|t| t["speaker"] == "Felix" && t["text"] != "tell me about the table")
        })
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(recorder);
    drop(array_recorder);

    let frames = loudness(&std::fs::read(&recording).unwrap());
    let robot_end = frames.iter().rposition(|r| *r > 0.01).unwrap_or(0) as f64 * 0.01;
    let felix_onset = loudness(&std::fs::read(&heard_by_array).unwrap())
        .iter()
        .position(|r| *r > 0.01)
        .map_or(f64::NAN, |i| i as f64 * 0.01);
    let full = espeak(LONG).len() as f64 / 16_000.0;
    let heard = robot_end - robot_onset;
    println!(
        "the robot spoke {heard:.2} s of a {full:.1} s sentence; Felix's onset at {felix_onset:.2} s, the robot silent at {robot_end:.2} s: {:.0} ms after his onset (the barge-in threshold is {} ms)",
        (robot_end - felix_onset) * 1000.0,
        attentive::voice::VoiceSettings::default().barge_in_ms
    );
    assert!(full > 10.0, "the sentence is long: {full:.1} s");
    assert!(
        heard < 0.5 * full,
        "the robot went on talking over Felix: {heard:.1} s of {full:.1} s"
    );
    let turn = of_type(&log, "turn")
        .into_iter()
        .find(|t| t["speaker"] == "Felix" && t["text"] != "tell me about the table")
        .unwrap()
        .clone();
    assert!(
        turn["text"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("stop"),
        "{turn}"
    );
}
