//! VAD and end of turn on synthetic speech with noise (issue 6).

mod speech_support;

use attentive::frontend::{Segmenter, VadSettings, VAD_RATE};
use speech_support::{espeak, noise, rms, speech_bounds};

const SENTENCES: &[&str] = &[
    "Daniel, could you pass me the red glass?",
    "What do we have to drink?",
    "I would like some cola, please.",
];

fn run(x: &[f32]) -> Vec<attentive::frontend::Utterance> {
    let mut seg = Segmenter::new(VadSettings::default());
    let mut out = Vec::new();
    for chunk in x.chunks(320) {
        out.extend(seg.push(chunk));
    }
    out.extend(seg.finish());
    out
}

#[test]
fn finds_each_utterance_within_150_ms_in_noise() {
    let rate = VAD_RATE as usize;
    let mut clean = vec![0.0f32; rate]; // 1 s lead-in
    let mut truth = Vec::new();
    for (i, s) in SENTENCES.iter().enumerate() {
        let x = espeak(s);
        let (a, b) = speech_bounds(&x);
        let off = clean.len();
        truth.push((
            (off + a) as f64 / rate as f64,
            (off + b) as f64 / rate as f64,
        ));
        clean.extend(&x);
        clean.extend(std::iter::repeat_n(0.0, rate + i * rate / 4)); // gaps 1.0-1.5 s
    }
    let speech_rms =
        rms(&clean[(truth[0].0 * rate as f64) as usize..(truth[0].1 * rate as f64) as usize]);
    let n = noise(clean.len(), speech_rms * 0.1, 7); // 20 dB SNR
    let noisy: Vec<f32> = clean.iter().zip(&n).map(|(a, b)| a + b).collect();

    let us = run(&noisy);
    let found: Vec<(f64, f64)> = us.iter().map(|u| (u.start_s, u.end_s)).collect();
    assert_eq!(us.len(), truth.len(), "found {found:?}, truth {truth:?}");
    for (u, (a, b)) in us.iter().zip(&truth) {
        assert!(
            (u.start_s - a).abs() <= 0.15,
            "start {} vs true {a}",
            u.start_s
        );
        assert!((u.end_s - b).abs() <= 0.15, "end {} vs true {b}", u.end_s);
        // The audio handed to the recogniser covers the speech.
        let audio_end = u.audio_start_s + u.samples.len() as f64 / rate as f64;
        assert!(u.audio_start_s <= *a && audio_end >= *b);
    }
}

#[test]
fn noise_and_silence_alone_give_no_utterance() {
    let rate = VAD_RATE as usize;
    assert!(run(&vec![0.0; 10 * rate]).is_empty(), "silence");
    assert!(run(&noise(10 * rate, 0.05, 3)).is_empty(), "white noise");
    // Hum plus noise, like a fan near the robot.
    let hum: Vec<f32> = noise(10 * rate, 0.02, 4)
        .iter()
        .enumerate()
        .map(|(t, n)| n + 0.05 * (std::f32::consts::TAU * 100.0 * t as f32 / rate as f32).sin())
        .collect();
    let found: Vec<(f64, f64)> = run(&hum).iter().map(|u| (u.start_s, u.end_s)).collect();
    assert!(found.is_empty(), "hum: {found:?}");
}
