//! `[daemon]` configuration of `attentive run`.

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// When the event log is flushed to the disk (`fdatasync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FsyncPolicy {
    /// Never: a crash of the process loses nothing, a power cut may lose the page cache.
    None,
    /// At most once per `fsync_interval_ms`, when something was written.
    #[default]
    Interval,
    /// After every event.
    Every,
}

/// Settings of the daemon: the `[daemon]` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DaemonSettings {
    /// Address of the HTTP API and the page (loopback unless a token is configured).
    pub listen: String,
    /// Where the event log goes; unset: `$STATE_DIRECTORY`, else
    /// `$XDG_STATE_HOME/attentive`, else `~/.local/state/attentive`.
    pub state_dir: Option<PathBuf>,
    /// Flush policy of the event log.
    pub fsync: FsyncPolicy,
    /// Interval of the `interval` flush policy, in milliseconds.
    pub fsync_interval_ms: u64,
    /// Turns that may wait while an episode runs; the oldest are dropped beyond.
    pub queue_capacity: usize,
    /// Environment variable holding the bearer token required off loopback.
    pub token_env: String,
    /// Largest request body in bytes.
    pub max_body_bytes: usize,
    /// Seconds allowed for a clean shutdown before the process exits anyway.
    pub shutdown_timeout_s: f64,
    /// Silence in ms after speech before the `listening` cue (shorter than the end of turn).
    pub listening_pause_ms: u32,
    /// Most `joints` events per second while the robot moves (live only, not logged).
    pub joints_hz: f64,
    /// Where three.js (r111 or newer, `three.min.js` and `examples/js/`) is
    /// installed, for the page's 3D view; Debian's `libjs-three` puts it here.
    pub three_dir: PathBuf,
}

impl Default for DaemonSettings {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8765".into(),
            state_dir: None,
            fsync: FsyncPolicy::Interval,
            fsync_interval_ms: 1000,
            queue_capacity: 32,
            token_env: "ATTENTIVE_API_TOKEN".into(),
            max_body_bytes: 64 * 1024,
            shutdown_timeout_s: 5.0,
            listening_pause_ms: 100,
            joints_hz: 20.0,
            three_dir: PathBuf::from("/usr/share/javascript/three"),
        }
    }
}

impl DaemonSettings {
    /// Checks the values a person may get wrong; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if self.listen.parse::<SocketAddr>().is_err() {
            return Err(format!(
                "daemon.listen must be an address such as \"127.0.0.1:8765\", not {:?}",
                self.listen
            ));
        }
        if self.queue_capacity == 0 {
            return Err("daemon.queue_capacity must be at least 1".into());
        }
        if !(self.shutdown_timeout_s.is_finite() && self.shutdown_timeout_s > 0.0) {
            return Err("daemon.shutdown_timeout_s must be a positive number of seconds".into());
        }
        if !(self.joints_hz.is_finite() && (1.0..=100.0).contains(&self.joints_hz)) {
            return Err("daemon.joints_hz must be between 1 and 100 events per second".into());
        }
        if self.token_env.trim().is_empty() {
            return Err("daemon.token_env must name an environment variable".into());
        }
        Ok(())
    }

    /// The state directory after the systemd and XDG defaults.
    pub fn state_dir(&self) -> PathBuf {
        if let Some(dir) = &self.state_dir {
            return dir.clone();
        }
        let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(dir) = env("STATE_DIRECTORY") {
            // systemd may pass several, separated by ':'; the first is ours.
            let first = dir
                .to_string_lossy()
                .split(':')
                .next()
                .unwrap_or("")
                .to_string();
            return PathBuf::from(first);
        }
        if let Some(xdg) = env("XDG_STATE_HOME") {
            return PathBuf::from(xdg).join("attentive");
        }
        match env("HOME") {
            Some(home) => PathBuf::from(home).join(".local/state/attentive"),
            None => PathBuf::from("/var/lib/attentive"),
        }
    }
}
