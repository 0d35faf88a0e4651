//! Live capture through cpal (issue 6). There is no sound card on the CI machines
//! (no /dev/snd, no ALSA loopback module), so the live test uses a private PulseAudio
//! daemon with a null sink whose monitor is the default source: cpal's ALSA backend
//! reaches it through the `pulse` ALSA plugin (libasound2-plugins), clocked in real time,
//! and `pacat` plays an espeak-ng sentence into it.

mod speech_support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use attentive::frontend::source::write_wav;
use attentive::frontend::{
    AudioSettings, AudioSource, CpalSource, FrontEnd, FrontendError, Recognizer,
};
use speech_support::{espeak, model_path, table, wer};

#[test]
fn a_wrong_device_name_is_a_clear_error() {
    let err = CpalSource::open(Some("no-such-microphone-xyz"), None).expect_err("no such device");
    let msg = err.to_string();
    assert!(matches!(err, FrontendError::Device(_)), "{msg}");
    assert!(
        msg.contains("no-such-microphone-xyz") || msg.contains("cannot list"),
        "{msg}"
    );
}

/// Stops a live source after `limit` of audio.
struct Limited {
    inner: CpalSource,
    frames_left: usize,
}

impl AudioSource for Limited {
    fn sample_rate(&self) -> u32 {
        self.inner.sample_rate()
    }
    fn channels(&self) -> usize {
        self.inner.channels()
    }
    fn next_block(&mut self) -> Result<Option<Vec<f32>>, FrontendError> {
        if self.frames_left == 0 {
            return Ok(None);
        }
        let b = self.inner.next_block()?;
        if let Some(b) = &b {
            self.frames_left = self
                .frames_left
                .saturating_sub(b.len() / self.inner.channels());
        }
        Ok(b)
    }
}

struct Daemon(Child);
impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn pactl(server: &str, args: &[&str]) {
    let ok = Command::new("pactl")
        .env("PULSE_SERVER", server)
        .args(args)
        .status()
        .map(|s| s.success());
    assert!(matches!(ok, Ok(true)), "pactl {args:?} failed");
}

fn start_pulse(dir: &Path) -> (Daemon, String) {
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
        .arg("--load=module-null-sink sink_name=vmic rate=16000 channels=1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("pulseaudio not runnable ({e}): run `bash scripts/ci-speech-setup.sh`")
        });
    let daemon = Daemon(child);
    let start = Instant::now();
    while !socket.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "pulseaudio did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    pactl(&server, &["set-default-source", "vmic.monitor"]);
    (daemon, server)
}

#[test]
fn live_capture_from_a_virtual_microphone_gives_a_turn() {
    let model = model_path();
    let dir = tempfile::tempdir().expect("tmp");
    let (_daemon, server) = start_pulse(dir.path());
    // The ALSA pulse plugin inside this process finds the daemon through this variable.
    std::env::set_var("PULSE_SERVER", &server);

    let text = "Hey Daniel, could you pass me the red glass?";
    let wav = dir.path().join("say.wav");
    write_wav(&wav, &espeak(text), 16_000, 1).expect("wav");

    let source = CpalSource::open(None, None).expect("the virtual microphone opens");
    let rate = source.sample_rate();
    let mut player = Command::new("pacat")
        .env("PULSE_SERVER", &server)
        .args(["--playback", "-d", "vmic", "--file-format=wav"])
        .arg(&wav)
        .spawn()
        .expect("pacat");
    let mut limited = Limited {
        inner: source,
        frames_left: rate as usize * 6,
    };
    let recognizer = Recognizer::with_model(&model, &Default::default()).expect("model");
    let mut fe = FrontEnd::new(AudioSettings::default(), table(), recognizer);
    let mut turns = Vec::new();
    fe.run(&mut limited, |t| turns.push(t.clone()))
        .expect("live run");
    let _ = player.wait();
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert!(wer(text, &turns[0].text) < 0.25, "{:?}", turns[0].text);
    assert_eq!(turns[0].listener, "Daniel");
}
