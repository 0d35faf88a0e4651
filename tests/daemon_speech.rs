//! `attentive run` with a microphone: a WAV file played in real time as the
//! microphone goes through the real VAD and whisper into a turn, and the agent
//! answers it; a missing microphone or model is one warning, typed turns work.

mod speech_support;
mod support;

use serde_json::json;
use speech_support::{espeak, model_path};
use support::daemon::{of_type, Daemon};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn speech_from_the_microphone_becomes_a_turn_after_a_listening_cue_and_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let mut audio = vec![0.0f32; 16_000];
    audio.extend(espeak("Daniel, please hand me the red glass."));
    audio.extend(vec![0.0f32; 2 * 16_000]);
    let wav = dir.path().join("mic.wav");
    attentive::frontend::source::write_wav(&wav, &audio, 16_000, 1).expect("write wav");
    let model = model_path();
    let state = dir.path().join("state");
    let daemon = Daemon::start(
        &["--brain", "rules", "--wav", wav.to_str().unwrap()],
        &[
            ("ATTENTIVE_WHISPER_MODEL", model.to_str().unwrap()),
            // One microphone cannot tell directions: the speaker is configured.
            ("ATTENTIVE_AUDIO__FALLBACK_SPEAKER", "Felix"),
        ],
        &state,
    );
    let log = daemon
        .wait_for("the spoken turn's episode", |l| {
            !of_type(l, "episode_end").is_empty()
        })
        .await;
    let listening = of_type(&log, "listening");
    let turn = of_type(&log, "turn");
    assert_eq!(
        listening.first().map(|e| e["speaker"].clone()),
        Some(json!("Felix")),
        "{log:?}"
    );
    assert!(
        listening[0]["seq"].as_u64() < turn[0]["seq"].as_u64(),
        "the cue comes before the turn"
    );
    let text = turn[0]["text"].as_str().unwrap().to_lowercase();
    assert!(text.contains("red glass"), "recognised: {text}");
    assert_eq!(
        turn[0]["listener"], "Daniel",
        "the vocative names the listener"
    );
    let actions = of_type(&log, "action");
    assert!(
        actions
            .iter()
            .any(|a| a["ok"] == true && a["name"] == "hand_object_over_to_person"),
        "{actions:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_microphone_or_model_is_one_warning_and_typed_turns_still_work() {
    for (key, value) in [
        ("ATTENTIVE_AUDIO__DEVICE", "no-such-microphone"),
        ("ATTENTIVE_WHISPER_MODEL", "/nonexistent/ggml-tiny.en.bin"),
    ] {
        let state = tempfile::tempdir().unwrap();
        let daemon = Daemon::start(&["--brain", "rules"], &[(key, value)], state.path());
        let (status, _) = daemon
            .post(
                "/api/turns",
                &json!({"text": "Felix said to Daniel: Daniel, please hand me the red glass."}),
            )
            .await;
        assert_eq!(status, 202);
        let log = daemon
            .wait_for("the typed turn's episode", |l| {
                !of_type(l, "episode_end").is_empty()
            })
            .await;
        let warnings: Vec<_> = of_type(&log, "warning")
            .into_iter()
            .filter(|w| w["kind"] == "microphone")
            .collect();
        assert_eq!(warnings.len(), 1, "{key}: {warnings:?}");
        assert!(
            warnings[0]["detail"]
                .as_str()
                .unwrap()
                .contains("Typed turns"),
            "{warnings:?}"
        );
        let (_, health) = daemon.get("/health").await;
        assert!(
            health["audio"].as_str().unwrap().contains("no microphone"),
            "{health}"
        );
    }
}
