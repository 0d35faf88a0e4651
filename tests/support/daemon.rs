//! Starts the built `attentive run` as a black box, like a user or systemd
//! would, and talks to it over HTTP; reads its event log from the state dir.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running daemon; killed when dropped.
pub struct Daemon {
    /// The process.
    pub child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Its state dir (event log under `events/`).
    pub state_dir: PathBuf,
    /// Lines it printed on stderr after the start-up line.
    pub stderr: mpsc::Receiver<String>,
    /// Lines it printed on stderr before the start-up line, and that line.
    pub startup: Vec<String>,
}

/// How long a test waits for something the daemon should do soon. Generous:
/// it bites only when something never happens, and a debug build's whisper on
/// a busy CI machine took 14 s for one utterance (a spoken correction test
/// gave up at 30 s there while it passes in 7 s here).
pub const PATIENCE: Duration = Duration::from_secs(120);

impl Daemon {
    /// Starts `attentive --json run --listen 127.0.0.1:0 ARGS` with `env`, logging into `state_dir`.
    pub fn start(args: &[&str], env: &[(&str, &str)], state_dir: &Path) -> Daemon {
        let mut command = Command::new(env!("CARGO_BIN_EXE_attentive"));
        command
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["--json", "run"])
            .args(args)
            .env("ATTENTIVE_DAEMON__STATE_DIR", state_dir)
            // Actions at once unless a test wants motion in time (it sets its own).
            .env("ATTENTIVE_SIM__TIME_SCALE", "0")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ATTENTIVE_LLM__BASE_URL")
            .env_remove("NOTIFY_SOCKET")
            .env_remove("JOURNAL_STREAM")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if !args.contains(&"--listen") {
            command.args(["--listen", "127.0.0.1:0"]);
        }
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("start attentive run");
        // stdout is the JSON event stream: every line must parse.
        let stdout = child.stdout.take().expect("stdout");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Err(e) = serde_json::from_str::<Value>(&line) {
                    panic!("stdout line is not JSON ({e}): {line}");
                }
            }
        });
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut startup = Vec::new();
        let base = loop {
            let line = rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("the daemon printed no address"));
            startup.push(line.clone());
            if let Some(at) = line.find("http://") {
                let url = line[at..].split_whitespace().next().unwrap_or("");
                break url.trim_end_matches('/').to_string();
            }
            assert!(
                !line.starts_with("error:"),
                "the daemon failed to start: {line}"
            );
        };
        Daemon {
            child,
            base,
            state_dir: state_dir.to_path_buf(),
            stderr: rx,
            startup,
        }
    }

    /// The URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// POSTs a JSON body; returns the status and the JSON answer.
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let response = reqwest::Client::new()
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("POST");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// GETs a JSON answer.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = reqwest::get(self.url(path)).await.expect("GET");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// Every complete line of the event log, parsed (panics on a line that is not JSON).
    pub fn log(&self) -> Vec<Value> {
        log_lines(&self.state_dir)
    }

    /// Waits until `done` holds for the log; returns the log then.
    pub async fn wait_for(&self, what: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let log = self.log();
            if done(&log) {
                return log;
            }
            assert!(
                Instant::now() < deadline,
                "gave up waiting for {what}; the log has:\n{}",
                log.iter()
                    .filter(|e| e["type"] != "state")
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Sends a signal to the process.
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// Waits for the process to exit, up to `bound`; returns its exit code.
    pub fn wait_exit(&mut self, bound: Duration) -> Option<i32> {
        let deadline = Instant::now() + bound;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Resident memory of the process in KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every line of the event log under `state_dir`, parsed, in file order.
pub fn log_lines(state_dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(state_dir.join("events"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        // Only complete lines: one may be half-written while we read.
        let complete = text.rfind('\n').map_or("", |at| &text[..at]);
        for line in complete.split('\n').filter(|l| !l.is_empty()) {
            let value: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("log line is not JSON ({e}): {line}"));
            out.push(value);
        }
    }
    out
}

/// The events of one type.
pub fn of_type<'a>(log: &'a [Value], kind: &str) -> Vec<&'a Value> {
    log.iter().filter(|e| e["type"] == kind).collect()
}
