//! `attentive say` without a sound card: `--wav` writes what the robot would
//! say, and a missing espeak-ng is one clear error.

use std::process::Command;

fn say(dir: &std::path::Path, args: &[&str]) -> Command {
    let config = dir.join("attentive.toml");
    std::fs::write(&config, "").expect("config");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_attentive"));
    cmd.arg("--config").arg(config).arg("say").args(args);
    cmd
}

#[test]
fn say_wav_writes_what_espeak_ng_says() {
    let dir = tempfile::tempdir().expect("tmp");
    let wav = dir.path().join("said.wav");
    let text = "Daniel cannot reach the fanta bottle, so I will pass it to him.";
    let out = say(
        dir.path(),
        &[text, "--wav", wav.to_str().expect("utf-8 path")],
    )
    // Compared sample for sample with espeak-ng below; the default (`auto`) would
    // speak with Piper where it is installed.
    .env("ATTENTIVE_VOICE__ENGINE", "espeak-ng")
    .output()
    .expect("attentive say");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("wrote "));
    let written = hound::WavReader::open(&wav).expect("a WAV file");
    assert_eq!(
        (written.spec().sample_rate, written.spec().channels),
        (22_050, 1)
    );
    let written: Vec<i16> = written
        .into_samples()
        .collect::<Result<_, _>>()
        .expect("samples");
    // The same text through espeak-ng with the default [voice.espeak] settings.
    let direct = Command::new("espeak-ng")
        .args(["-v", "en-us", "-s", "160", "-p", "50", "--stdout", text])
        .output()
        .expect("espeak-ng");
    let direct: Vec<i16> = direct.stdout[44..]
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(written.len(), direct.len());
    // Sample for sample, within the rounding of the f32 round trip.
    assert!(written.iter().zip(&direct).all(|(a, b)| (a - b).abs() <= 1));
}

#[test]
fn a_missing_espeak_ng_is_one_clear_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let wav = dir.path().join("said.wav");
    // No espeak-ng on PATH, as on a machine without the package.
    let out = say(
        dir.path(),
        &["Hello.", "--wav", wav.to_str().expect("utf-8 path")],
    )
    .env("PATH", dir.path())
    .output()
    .expect("attentive say");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("espeak-ng")
            && stderr.contains("not found")
            && stderr.contains("apt-get install espeak-ng"),
        "{stderr}"
    );
    assert!(!wav.exists(), "no file is written when nothing was said");
}

#[test]
fn a_dead_speech_server_is_one_clear_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let wav = dir.path().join("said.wav");
    let out = say(
        dir.path(),
        &["Hello.", "--wav", wav.to_str().expect("utf-8 path")],
    )
    .env("ATTENTIVE_VOICE__ENGINE", "wyoming")
    .env("ATTENTIVE_VOICE__WYOMING__ADDRESS", "127.0.0.1:9")
    .output()
    .expect("attentive say");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("wyoming speech server at 127.0.0.1:9 cannot be reached"),
        "{stderr}"
    );
}
