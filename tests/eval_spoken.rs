//! The spoken evaluation end to end: turns synthesised with espeak-ng, heard
//! through the real VAD and whisper, judged, and reported beside the typed run;
//! bad options and a missing voice are one clear sentence each.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn attentive(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("run attentive")
}

/// Whether this machine has what a spoken run needs (setup.sh installs both).
fn speech_ready() -> bool {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ggml-tiny.en.bin");
    let espeak = Command::new("espeak-ng").arg("--version").output().is_ok();
    if !(model.is_file() && espeak) {
        println!("skipped: needs espeak-ng and models/ggml-tiny.en.bin (bash scripts/setup.sh)");
    }
    model.is_file() && espeak
}

fn lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn a_small_dialogue_is_spoken_heard_and_judged() {
    if !speech_ready() {
        return;
    }
    let cache = std::env::temp_dir().join(format!("attentive-spoken-ci-{}", std::process::id()));
    let cache_arg = cache.display().to_string();
    let args = [
        "--json",
        "eval",
        "tests/fixtures/spoken/softdrinks_spoken.toml",
        "--brain",
        "rules",
        "--spoken",
        "--spoken-voice",
        "espeak-ng",
        "--room",
        "quiet",
        "--spoken-cache",
        &cache_arg,
    ];
    let output = attentive(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let events = lines(&output);
    let judged: Vec<&Value> = events.iter().filter(|e| e["type"] == "judged").collect();
    assert_eq!(judged.len(), 3, "{events:?}");
    for j in &judged {
        assert!(
            j["heard"].is_object(),
            "a spoken turn without what was heard: {j}"
        );
    }
    // The question is heard, with its vocative; the empty turn is not heard and
    // the robot stays silent on it.
    let question = &judged[0]["heard"];
    assert_eq!(question["heard"], true, "{question}");
    assert_eq!(question["listener"], "the_robot", "{question}");
    assert!(
        question["text"]
            .as_str()
            .unwrap_or("")
            .to_lowercase()
            .contains("drink"),
        "{question}"
    );
    assert_eq!(judged[2]["heard"]["heard"], false, "{}", judged[2]);
    assert_eq!(judged[2]["category"], "success", "{}", judged[2]);

    let summary = events
        .iter()
        .find(|e| e["type"] == "spoken_summary")
        .expect("a spoken_summary line");
    assert_eq!(summary["turns"], 3);
    assert_eq!(summary["not_heard"], 1, "{summary}");
    let wer = summary["wer"].as_f64().expect("wer");
    assert!((0.0..=1.0).contains(&wer), "{summary}");
    assert_eq!(summary["listener"]["vocatives"], 1, "{summary}");
    assert!(
        summary["typed"]["success"].as_u64().unwrap_or(0) >= 2,
        "{summary}"
    );

    // A rerun takes the audio from the cache: the same heard text.
    let again = lines(&attentive(&args));
    let first_again = again
        .iter()
        .find(|e| e["type"] == "judged")
        .expect("judged");
    assert_eq!(first_again["heard"]["text"], question["text"]);
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn a_room_that_makes_no_sense_is_one_sentence() {
    for room in ["snr=loud", "echo=3", "windy", "reverb=-2"] {
        let output = attentive(&[
            "eval",
            "tests/fixtures/spoken/softdrinks_spoken.toml",
            "--brain",
            "rules",
            "--spoken",
            "--room",
            room,
        ]);
        assert!(!output.status.success());
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            err.contains("--room") && err.contains("preset"),
            "{room}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_voice_that_is_missing_is_one_sentence() {
    if !speech_ready() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("attentive-spoken-novoice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = dir.join("attentive.toml");
    std::fs::write(
        &config,
        "[voice]\nengine = \"command\"\n[voice.command]\nprogram = \"/nonexistent/tts\"\n",
    )
    .expect("config");
    let output = attentive(&[
        "--config",
        &config.display().to_string(),
        "eval",
        "tests/fixtures/spoken/softdrinks_spoken.toml",
        "--brain",
        "rules",
        "--spoken",
        "--no-spoken-cache",
    ]);
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("/nonexistent/tts"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let unknown = attentive(&[
        "eval",
        "tests/fixtures/spoken/softdrinks_spoken.toml",
        "--spoken",
        "--spoken-voice",
        "loudspeaker",
    ]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("loudspeaker"));
    let _ = std::fs::remove_dir_all(dir);
}
