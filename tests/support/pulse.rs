//! A private PulseAudio for tests that need the real audio path without a sound
//! card: null sinks as loudspeakers and microphones, their monitors as sources.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process killed when dropped.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `pactl ARGS` against `server`; panics with the arguments on failure.
pub fn pactl(server: &str, args: &[&str]) {
    let ok = Command::new("pactl")
        .env("PULSE_SERVER", server)
        .args(args)
        .status();
    assert!(matches!(ok, Ok(s) if s.success()), "pactl {args:?} failed");
}

/// Starts PulseAudio in `dir` with one null sink per `module-null-sink` argument
/// string in `sinks` (e.g. `"sink_name=speaker rate=16000 channels=1"`), sets the
/// default sink and source, and returns it with its server address.
pub fn start(
    dir: &Path,
    sinks: &[&str],
    default_sink: &str,
    default_source: &str,
) -> (Killed, String) {
    let socket = dir.join("native");
    let server = format!("unix:{}", socket.display());
    let mut command = Command::new("pulseaudio");
    command
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
        ));
    for sink in sinks {
        command.arg(format!("--load=module-null-sink {sink}"));
    }
    let child = command
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
    pactl(&server, &["set-default-sink", default_sink]);
    pactl(&server, &["set-default-source", default_source]);
    (daemon, server)
}
