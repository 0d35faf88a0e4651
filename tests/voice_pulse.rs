//! The robot's voice on the real audio path without a sound card: a private
//! PulseAudio daemon with a null sink as the loudspeaker, its monitor recorded
//! with `parec` (as `tests/speech_capture.rs` does for the microphone). What
//! `attentive say` played is recognised back by the project's own recogniser.
//! (How fast a hush silences the robot is measured in `tests/voice_playback.rs`.)

mod speech_support;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use attentive::frontend::Recognizer;
use speech_support::{model_path, words_heard};

const RATE: u32 = 16_000;

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A PulseAudio daemon whose default sink is the null sink `speaker`; returns its server address.
fn start_pulse(dir: &Path) -> (Killed, String) {
    let socket = dir.join("native");
    let server = format!("unix:{}", socket.display());
    let child = Command::new("pulseaudio")
        .env("PULSE_RUNTIME_PATH", dir)
        .env("XDG_RUNTIME_DIR", dir)
        .args([
            "--daemonize=no",
            "--exit-idle-time=-1",
            "-n",
            "--log-target=stderr",
        ])
        .arg(format!(
            "--load=module-native-protocol-unix socket={} auth-anonymous=1",
            socket.display()
        ))
        .arg(format!(
            "--load=module-null-sink sink_name=speaker rate={RATE} channels=1"
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("pulseaudio not runnable ({e}): run `bash scripts/setup.sh`"));
    let daemon = Killed(child);
    let start = Instant::now();
    while !socket.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "pulseaudio did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    let ok = Command::new("pactl")
        .env("PULSE_SERVER", &server)
        .args(["set-default-sink", "speaker"])
        .status()
        .map(|s| s.success());
    assert!(matches!(ok, Ok(true)), "pactl set-default-sink failed");
    (daemon, server)
}

/// A recorder that is asked to finish (SIGTERM), so that it writes out what it buffered.
struct Recorder {
    child: Child,
    path: PathBuf,
    started: Instant,
}
impl Recorder {
    /// Waits until the file holds the audio up to now: on a loaded machine
    /// `parec` delivers late, and stopping it at once lost the sentence's end.
    fn catch_up(&self) {
        let wanted = |elapsed: Duration| {
            let seconds = elapsed.as_secs_f64() - 0.1;
            (seconds.max(0.0) * f64::from(RATE)) as u64 * 2
        };
        let covered = || {
            let len = std::fs::metadata(&self.path).map_or(0, |m| m.len());
            len >= wanted(self.started.elapsed())
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !covered() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// Records the loudspeaker's monitor into `path` (16 kHz mono s16le) until dropped.
fn record(server: &str, path: &Path) -> Recorder {
    let out = File::create(path).expect("recording file");
    let child = Command::new("parec")
        .env("PULSE_SERVER", server)
        .args(["--device=speaker.monitor", "--format=s16le", "--channels=1"])
        .arg("--latency-msec=50")
        .arg(format!("--rate={RATE}"))
        .stdout(out)
        .spawn()
        .expect("parec");
    // Let the recording stream start before anything plays: the monitor of
    // the null sink delivers silence as soon as parec is connected (a fixed
    // wait was too short once on a loaded machine, and the sentence was lost).
    let start = Instant::now();
    let recording = || std::fs::metadata(path).map_or(0, |m| m.len()) > u64::from(RATE) / 10;
    while !recording() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    // When the recording's first sample was taken, judged by what it holds now.
    let held = std::fs::metadata(path).map_or(0, |m| m.len()) / 2;
    let started = Instant::now() - Duration::from_secs_f64(held as f64 / f64::from(RATE));
    Recorder {
        child,
        path: path.to_path_buf(),
        started,
    }
}

fn read_raw(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).expect("recording");
    bytes
        .chunks_exact(2)
        .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0)
        .collect()
}

fn empty_config(dir: &Path) -> PathBuf {
    let path = dir.join("attentive.toml");
    std::fs::write(&path, "").expect("config");
    path
}

#[test]
fn what_attentive_say_plays_is_recognised_back() {
    let model = model_path();
    let dir = tempfile::tempdir().expect("tmp");
    let (_daemon, server) = start_pulse(dir.path());
    let raw = dir.path().join("spoken.raw");
    let recorder = record(&server, &raw);
    let text = "Felix, I will hand you the red glass because Daniel is busy.";
    let out = Command::new(env!("CARGO_BIN_EXE_attentive"))
        .env("PULSE_SERVER", &server)
        .arg("--config")
        .arg(empty_config(dir.path()))
        .args(["--json", "say", text, "--to", "Felix"])
        .output()
        .expect("attentive say");
    std::thread::sleep(Duration::from_millis(300));
    recorder.catch_up();
    drop(recorder);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "attentive say failed: {stderr}");
    let line: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("one JSON voice event");
    assert_eq!(line["type"], "voice");
    assert_eq!(line["text"], text);
    assert!(line["ms"].as_u64().unwrap_or(0) > 2000, "{line}");

    let audio = read_raw(&raw);
    let mut recognizer = Recognizer::with_model(&model, &Default::default()).expect("model");
    // The people of the scene go to the recogniser as the speech front end gives them.
    let names = ["Felix".to_string(), "Daniel".to_string()];
    let heard = recognizer.transcribe(&audio, &names).expect("recognition");
    let share = words_heard(text, &heard.text);
    assert!(
        share >= 0.8,
        "heard {:?} ({:.0} % of the words)",
        heard.text,
        share * 100.0
    );
}
