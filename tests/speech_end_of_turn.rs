//! End of turn by what was said: real speech (espeak-ng) through the real VAD
//! and whisper; a turn whose words the understanding stage reads as complete
//! ends at a short pause, one that is not complete waits for the end-of-turn
//! silence. Nothing here measures time (see `tests/daemon_measure.rs`).

mod speech_support;

use attentive::daemon::audio::CompleteWords;
use attentive::frontend::{Listening, Turn, VAD_RATE};
use speech_support::{espeak, heard_texts, model_path, speech_bounds};

/// A request, a pause longer than `early_end_ms` and shorter than
/// `end_silence_ms`, and a remark: one utterance to the VAD alone.
fn request_pause_remark() -> Vec<f32> {
    request_then_remark(33)
}

/// The request, `pause_cs` hundredths of a second of silence, the remark.
fn request_then_remark(pause_cs: usize) -> Vec<f32> {
    let rate = VAD_RATE as usize;
    let spoken = |text: &str| {
        let x = espeak(text);
        let (start, end) = speech_bounds(&x);
        x[start..end].to_vec()
    };
    let mut audio = vec![0.0f32; rate / 2];
    audio.extend(spoken("Daniel, please hand me the red glass."));
    audio.extend(vec![0.0f32; rate * pause_cs / 100]);
    audio.extend(spoken("I left my phone over by the window."));
    audio.extend(vec![0.0f32; rate * 3 / 2]);
    audio
}

fn hear(complete: Option<&mut (dyn FnMut(&Turn) -> bool + Send)>) -> Vec<String> {
    let mut options = Listening {
        complete,
        ..Listening::default()
    };
    heard_texts(request_pause_remark(), VAD_RATE, 1, &mut options)
}

#[test]
fn complete_words_end_the_turn_at_a_short_pause() {
    let words = CompleteWords::load("en", "softdrinks").unwrap();
    let mut judged = Vec::new();
    let mut complete = |t: &Turn| {
        judged.push(t.text.clone());
        words.is_complete(t)
    };
    let turns = hear(Some(&mut complete));
    assert_eq!(turns.len(), 2, "the request ends at the pause: {turns:?}");
    assert!(turns[0].to_lowercase().contains("red glass"), "{turns:?}");
    assert!(turns[1].to_lowercase().contains("window"), "{turns:?}");
    assert!(
        judged
            .iter()
            .any(|t| t.to_lowercase().contains("red glass")),
        "the request's words were judged: {judged:?}"
    );
}

#[test]
fn words_not_complete_wait_for_the_end_of_turn_silence() {
    let mut asked = 0;
    let mut never = |_: &Turn| {
        asked += 1;
        false
    };
    let turns = hear(Some(&mut never));
    assert_eq!(turns.len(), 1, "one turn, request and remark: {turns:?}");
    assert!(turns[0].to_lowercase().contains("red glass"), "{turns:?}");
    assert!(turns[0].to_lowercase().contains("window"), "{turns:?}");
    assert!(asked >= 1, "the words at the pause were offered");
    // Without a judge nothing is offered early: the same one turn.
    assert_eq!(hear(None).len(), 1);
}

/// The turns `attentive listen --wav` hears in `audio`.
fn listen(audio: &[f32]) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("talk.wav");
    attentive::frontend::source::write_wav(&wav, audio, VAD_RATE, 1).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_attentive"))
        .args(["--json", "listen", "--scene", "softdrinks", "--wav"])
        .arg(&wav)
        .env("ATTENTIVE_WHISPER_MODEL", model_path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn listen_ends_a_complete_turn_early_as_the_daemon_does() {
    let turns = listen(&request_pause_remark());
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert_eq!(turns[0]["early"], true, "{turns:?}");
    assert!(turns[0]["recognition_ms"].as_f64().unwrap() > 0.0);
    // The remark began within the end-of-turn silence: the same person going
    // on, to whom the request was said (espeak-ng's "Daniel" is often heard
    // as "And you'll", so whoever that was).
    assert_eq!(turns[1]["continues"], true, "{turns:?}");
    assert_eq!(turns[1]["listener"], turns[0]["listener"], "{turns:?}");
    assert_eq!(turns[1]["speaker"], turns[0]["speaker"], "{turns:?}");
}

#[test]
fn speech_after_the_end_of_turn_silence_is_a_turn_of_its_own() {
    let turns = listen(&request_then_remark(150));
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert!(turns[1].get("continues").is_none(), "{turns:?}");
    assert_eq!(turns[1]["listener"], "All", "{turns:?}");
}
