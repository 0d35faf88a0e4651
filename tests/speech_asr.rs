//! Whisper recognition with the offline tiny.en model (issue 6).
//! Needs models/ggml-tiny.en.bin (or ATTENTIVE_WHISPER_MODEL): `bash scripts/ci-speech-setup.sh`.

mod speech_support;

use std::time::Instant;

use attentive::frontend::speaker::azimuth_of;
use attentive::frontend::{
    AsrSettings, AudioSettings, FrontEnd, FrontendError, Recognizer, WavSource,
};
use speech_support::{array_recording, espeak, model_path, noise, table, wer};

fn recognizer() -> Recognizer {
    Recognizer::with_model(&model_path(), &AsrSettings::default()).expect("model loads")
}

fn names() -> Vec<String> {
    vec!["Felix".into(), "Daniel".into()]
}

const CLEAR: &[&str] = &[
    "What do we have to drink?",
    "Could you pour some cola into my glass?",
    "I would like a glass of water, please.",
    "The bottle is next to the red glass.",
];

#[test]
fn clear_sentences_are_recognised_with_low_word_error_rate() {
    let mut r = recognizer();
    let mut total = 0.0;
    for s in CLEAR {
        let t = r.transcribe(&espeak(s), &names()).expect("transcribe");
        let e = wer(s, &t.text);
        eprintln!(
            "{s:?} -> {:?} (wer {e:.2}, conf {:.2}, no-speech {:.2}, {:?})",
            t.text, t.confidence, t.no_speech_prob, t.elapsed
        );
        assert!(t.rejected.is_none(), "{s:?} rejected: {:?}", t.rejected);
        total += e;
    }
    let mean = total / CLEAR.len() as f32;
    assert!(mean < 0.25, "mean WER {mean}");
}

const VOCATIVES: &[(&str, &str)] = &[
    ("Daniel", "Daniel, could you pass me the red glass?"),
    ("Felix", "Felix, is there any cola left?"),
    ("Daniel", "Daniel, what do we have to drink?"),
    ("Daniel", "Hey Daniel, pass me the glass."),
    ("Felix", "Felix, could you hand me the bottle?"),
];

fn names_heard(r: &mut Recognizer, names: &[String]) -> usize {
    VOCATIVES
        .iter()
        .filter(|(name, text)| {
            let t = r.transcribe(&espeak(text), names).expect("transcribe");
            eprintln!("prompt {}: {text:?} -> {:?}", !names.is_empty(), t.text);
            t.text
                .split_whitespace()
                .take(3)
                .any(|w| w.trim_matches(|c: char| !c.is_alphanumeric()) == *name)
        })
        .count()
}

#[test]
fn participant_names_in_the_prompt_are_heard_as_names() {
    let mut r = recognizer();
    let with = names_heard(&mut r, &names());
    let without = names_heard(&mut r, &[]);
    // Measured here: 4/5 both ways on espeak's voice (the prompt fixes "And you'll, could
    // you pass" but one other sentence flips), so only the absolute rate is asserted.
    eprintln!("names heard: {with}/5 with the prompt, {without}/5 without");
    assert!(
        with >= 4,
        "names heard: {with}/5 with the prompt, {without}/5 without"
    );
}

/// One person saying two sentences: both are theirs, both are kept (the
/// quieter-talker rule once left out every sentence after the first).
#[test]
fn every_sentence_of_one_speaker_is_kept() {
    let mut r = recognizer();
    for said in [
        "Sorry, hang on. I have to answer this message.",
        "There is only one glass. We will have to share it.",
    ] {
        let t = r.transcribe(&espeak(said), &names()).expect("transcribe");
        let last = said.rsplit(' ').next().unwrap_or_default();
        let last = last.trim_end_matches('.');
        assert!(
            t.text.to_lowercase().contains(last),
            "{said:?} heard as {:?}",
            t.text
        );
    }
}

/// A second person, 14 dB quieter, talking after the speaker: left out.
#[test]
fn a_quieter_talker_after_the_speaker_is_left_out() {
    let mut r = recognizer();
    let mut audio = espeak("Could you pass me the red glass?");
    audio.extend(vec![0.0; 4_000]);
    audio.extend(
        espeak("I would rather have the orange juice.")
            .iter()
            .map(|x| x * 0.2),
    );
    let t = r.transcribe(&audio, &names()).expect("transcribe");
    assert!(t.text.to_lowercase().contains("glass"), "{:?}", t.text);
    assert!(!t.text.to_lowercase().contains("juice"), "{:?}", t.text);
    // Heard alone, the quieter sentence is words, so the rule (not whisper) left it out.
    let alone = espeak("I would rather have the orange juice.");
    let alone: Vec<f32> = alone.iter().map(|x| x * 0.2).collect();
    let t = r.transcribe(&alone, &names()).expect("transcribe");
    assert!(t.text.to_lowercase().contains("juice"), "{:?}", t.text);
}

#[test]
fn silence_and_noise_do_not_become_text() {
    let mut r = recognizer();
    for (what, audio) in [
        ("silence", vec![0.0f32; 3 * 16_000]),
        ("white noise", noise(3 * 16_000, 0.05, 11)),
        ("faint noise", noise(2 * 16_000, 0.003, 12)),
    ] {
        let t = r.transcribe(&audio, &names()).expect("transcribe");
        assert!(
            t.accepted_text().is_none(),
            "{what} gave {:?} (conf {:.2}, no-speech {:.2})",
            t.text,
            t.confidence,
            t.no_speech_prob
        );
    }
}

/// A request said at 10 dB above white noise, and the same request clean.
fn noisy_and_clean(text: &str) -> (Vec<f32>, Vec<f32>) {
    let clean = espeak(text);
    let level = speech_support::rms(&clean) / 10f32.powf(10.0 / 20.0);
    let hiss = noise(clean.len(), level, 21);
    let noisy = clean.iter().zip(&hiss).map(|(s, n)| s + n).collect();
    (noisy, clean)
}

#[test]
fn noisy_speech_is_heard_with_the_noisy_model_and_clean_speech_with_the_quick_one() {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ggml-base.bin");
    assert!(
        base.is_file(),
        "{} missing: run `bash scripts/ci-speech-setup.sh`",
        base.display()
    );
    let settings = AsrSettings {
        noisy_model: base,
        ..AsrSettings::default()
    };
    let mut r = Recognizer::with_model(&model_path(), &settings).expect("models load");
    assert!(r.has_noisy_model());
    let said = "Could you pour some cola into my glass?";
    let (noisy, clean) = noisy_and_clean(said);
    let heard = r.transcribe(&noisy, &names()).expect("noisy");
    assert!(heard.noisy_model, "{heard:?}");
    assert!(heard.accepted_text().is_some(), "{heard:?}");
    eprintln!("noisy: {heard:?}");
    let heard = r.transcribe(&clean, &names()).expect("clean");
    assert!(!heard.noisy_model, "{heard:?}");
}

#[test]
fn a_missing_noisy_model_leaves_noisy_speech_to_the_main_model() {
    for noisy_model in ["models/no-such-model.bin".into(), model_path(), "".into()] {
        let settings = AsrSettings {
            noisy_model,
            ..AsrSettings::default()
        };
        let mut r = Recognizer::with_model(&model_path(), &settings).expect("main model loads");
        assert!(!r.has_noisy_model(), "{:?}", settings.noisy_model);
        let (noisy, _) = noisy_and_clean("Could you pour some cola into my glass?");
        let heard = r
            .transcribe(&noisy, &names())
            .expect("heard by the main model");
        assert!(!heard.noisy_model);
    }
}

#[test]
fn silence_and_noise_files_give_no_turns() {
    let s = AudioSettings::default();
    for (what, audio) in [
        ("silence", vec![0.0f32; 5 * 16_000]),
        ("noise", noise(5 * 16_000, 0.05, 5)),
    ] {
        let mut fe = FrontEnd::new(s.clone(), table(), recognizer());
        let mut turns = Vec::new();
        fe.run(&mut WavSource::from_samples(audio, 16_000, 1), |t| {
            turns.push(t.clone())
        })
        .expect("run");
        assert!(turns.is_empty(), "{what}: {turns:?}");
    }
}

#[test]
fn a_conversation_file_becomes_turns_with_speaker_listener_and_text() {
    let s = AudioSettings::default();
    let people = table();
    let rate = 16_000usize;
    let mut rec = Vec::new();
    for (who, text) in [
        ("Felix", "Hey Daniel, could you pass me the red glass?"),
        ("Daniel", "Robot, what do we have to drink?"),
    ] {
        let az = azimuth_of(&people, people.person(who).expect("person").head);
        let mut mono = vec![0.0; rate / 2];
        mono.extend(espeak(text));
        mono.extend(vec![0.0; rate]);
        rec.extend(array_recording(
            &mono,
            16_000,
            &s.mic_positions,
            az,
            25.0,
            Some((az + 80.0, 0.3, 0.004)),
        ));
    }
    let mut fe = FrontEnd::new(s, people, recognizer());
    let mut turns = Vec::new();
    let stats = fe
        .run(&mut WavSource::from_samples(rec, 16_000, 4), |t| {
            turns.push(t.clone())
        })
        .expect("run");
    let got: Vec<(String, String, String)> = turns
        .iter()
        .map(|t| (t.speaker.clone(), t.listener.clone(), t.text.clone()))
        .collect();
    assert_eq!(turns.len(), 2, "{got:?}");
    assert_eq!(
        (got[0].0.as_str(), got[0].1.as_str()),
        ("Felix", "Daniel"),
        "{got:?}"
    );
    assert_eq!(
        (got[1].0.as_str(), got[1].1.as_str()),
        ("Daniel", "the_robot"),
        "{got:?}"
    );
    assert!(
        wer("Hey Daniel, could you pass me the red glass?", &got[0].2) < 0.25,
        "{got:?}"
    );
    assert!(
        wer("Robot, what do we have to drink?", &got[1].2) < 0.25,
        "{got:?}"
    );
    assert!(turns[0].end_s < turns[1].start_s && turns[1].confidence > 0.5);
    eprintln!("{stats:?}");
}

#[test]
fn a_missing_model_is_a_clear_error() {
    let err = Recognizer::with_model(
        std::path::Path::new("/nonexistent/ggml.bin"),
        &AsrSettings::default(),
    )
    .expect_err("no model");
    assert!(matches!(err, FrontendError::Model { .. }));
    assert!(err.to_string().contains("build-whisper-model.sh"), "{err}");
    let dir = tempfile::tempdir().expect("tmp");
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, b"not a model").expect("write");
    assert!(Recognizer::with_model(&junk, &AsrSettings::default()).is_err());
}

#[test]
fn an_english_only_model_refuses_another_language() {
    let settings = AsrSettings {
        language: "de".into(),
        ..AsrSettings::default()
    };
    let err =
        Recognizer::with_model(&model_path(), &settings).expect_err("tiny.en hears no German");
    let said = err.to_string();
    assert!(
        said.contains("hears only English") && said.contains("ggml-base.bin"),
        "{said}"
    );
}

/// Measurement, not a check: `cargo test --release --test speech_asr -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_recognition_time_of_a_3_s_utterance() {
    let mut audio = espeak("Daniel, could you please pour some cola into my glass?");
    audio.resize(3 * 16_000, 0.0);
    for threads in [1, 2] {
        let mut r = recognizer();
        r.set_threads(threads);
        let _ = r.transcribe(&audio, &names()).expect("warm-up");
        let runs = 5;
        let start = Instant::now();
        let mut last = None;
        for _ in 0..runs {
            last = Some(r.transcribe(&audio, &names()).expect("transcribe"));
        }
        let per = start.elapsed().as_secs_f64() / runs as f64;
        let t = last.expect("ran");
        eprintln!(
            "threads {threads}: {per:.3} s per 3 s utterance, RTF {:.3}, audio_ctx {}, text {:?}",
            per / 3.0,
            t.audio_ctx,
            t.text
        );
    }
}

/// Measurement: time from the VAD closing an utterance to its turn, plus the end-of-turn
/// silence the VAD waits for; `cargo test --release --test speech_asr -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_end_of_speech_to_turn() {
    let s = AudioSettings::default();
    let people = table();
    let az = azimuth_of(&people, people.person("Felix").expect("Felix").head);
    let mut mono = vec![0.0; 8_000];
    mono.extend(espeak(
        "Daniel, could you please pour some cola into my glass?",
    ));
    mono.extend(vec![0.0; 16_000]);
    let rec = array_recording(&mono, 16_000, &s.mic_positions, az, 25.0, None);
    let end_silence = s.vad.end_silence_ms;
    let mut fe = FrontEnd::new(s, people, recognizer());
    let mut turns = Vec::new();
    let stats = fe
        .run(&mut WavSource::from_samples(rec, 16_000, 4), |t| {
            turns.push(t.clone())
        })
        .expect("run");
    eprintln!(
        "turns {turns:?}\nutterance closed -> turn: {:?}; end of speech -> turn: {:?} (+{end_silence} ms end-of-turn silence)",
        stats.max_turn_latency,
        stats.max_turn_latency + std::time::Duration::from_millis(end_silence as u64)
    );
}
