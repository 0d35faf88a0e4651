//! Record and replay of LLM replies, as [`ChatBackend`] wrappers.
//!
//! Recording wraps the real backend and writes every request with its reply
//! to `DIR/episode-NNNNN.jsonl`, keyed by episode and call index and by a hash
//! of the canonical request (messages, tools and the model settings). Replay
//! answers from that folder with no network; a request whose hash differs from
//! the recorded one fails with "request differs at episode E, call C: <what
//! differs>", so a prompt, tool-text or scene change shows where it matters.
//!
//! One line per event of an episode file:
//! `{"episode":E,"label":L}` first, then `{"call":C,"hash":H,"request":R,"reply":A}`
//! (or `"error":{...}`, or `"cancelled":true` when the loop gave up waiting),
//! and `{"turn":T,"wall_us":N}` after each turn, so that a replay can report
//! the recorded run's latency.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde_json::{json, Value};

use super::{excerpt, AssistantReply, ChatBackend, ChatRequest, CompleteFuture, LlmError};

/// The recording's description file in its folder.
pub const META_FILE: &str = "recording.json";
/// The format written into [`META_FILE`].
pub const FORMAT: &str = "attentive-recording/1";

/// Why a recording cannot be made or read.
#[derive(Debug, thiserror::Error)]
pub enum TapeError {
    /// The folder or a file cannot be written or read.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was attempted.
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The folder already holds a recording (never overwritten).
    #[error("{0} already holds a recording; record into an empty or new folder")]
    Exists(PathBuf),
    /// The folder holds no recording of this format.
    #[error("{path} is not a recording of attentive eval: {detail}")]
    NotARecording {
        /// The folder.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
}

/// Record or replay, for a whole evaluation run.
#[derive(Debug, Clone)]
pub struct Tape {
    dir: PathBuf,
    replay: bool,
    settings: Value,
    meta: Value,
}

impl Tape {
    /// Starts a recording in `dir` (created if missing; it must not hold one).
    /// `settings` are the model settings every request's hash includes; `meta`
    /// describes the run (brain, characters, options) for people and for replay.
    pub fn record(dir: &Path, settings: Value, meta: Value) -> Result<Self, TapeError> {
        let meta_path = dir.join(META_FILE);
        if meta_path.exists() {
            return Err(TapeError::Exists(dir.to_path_buf()));
        }
        std::fs::create_dir_all(dir).map_err(|source| TapeError::Io {
            what: "cannot create the recording folder",
            path: dir.to_path_buf(),
            source,
        })?;
        let mut meta = meta;
        meta["format"] = json!(FORMAT);
        meta["settings"] = settings.clone();
        let text = serde_json::to_string_pretty(&meta).unwrap_or_default();
        std::fs::write(&meta_path, text + "\n").map_err(|source| TapeError::Io {
            what: "cannot write",
            path: meta_path,
            source,
        })?;
        Ok(Self {
            dir: dir.to_path_buf(),
            replay: false,
            settings,
            meta,
        })
    }

    /// Opens a recording in `dir` for replay. `settings` are today's model
    /// settings: when they differ from the recorded ones, the first request says so.
    pub fn replay(dir: &Path, settings: Value) -> Result<Self, TapeError> {
        let meta = Self::read_meta(dir)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            replay: true,
            settings,
            meta,
        })
    }

    /// The description of a recording in `dir` (brain, characters, options, settings).
    pub fn read_meta(dir: &Path) -> Result<Value, TapeError> {
        let path = dir.join(META_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| TapeError::Io {
            what: "cannot read the recording",
            path: path.clone(),
            source,
        })?;
        let meta: Value = serde_json::from_str(&text).map_err(|e| TapeError::NotARecording {
            path: dir.to_path_buf(),
            detail: format!("{META_FILE} is not JSON ({e})"),
        })?;
        if meta["format"] != FORMAT {
            return Err(TapeError::NotARecording {
                path: dir.to_path_buf(),
                detail: format!("{META_FILE} does not say format \"{FORMAT}\""),
            });
        }
        Ok(meta)
    }

    /// Whether this tape answers instead of the LLM.
    pub fn is_replay(&self) -> bool {
        self.replay
    }

    /// The run's description (for a replay: as recorded).
    pub fn meta(&self) -> &Value {
        &self.meta
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of episode `episode` (1-based).
    pub fn episode_path(&self, episode: usize) -> PathBuf {
        self.dir.join(format!("episode-{episode:05}.jsonl"))
    }

    /// The backend for episode `episode` (1-based, in the run's order) labelled
    /// `label`: recording wraps `real` (which it needs); replay ignores it.
    pub fn episode(
        &self,
        episode: usize,
        label: &str,
        real: Option<Box<dyn ChatBackend>>,
    ) -> Result<(Box<dyn ChatBackend>, EpisodeTape), TapeError> {
        let mut shared = Shared::new(episode, self.settings.clone());
        if self.replay {
            let shared = Arc::new(self.load(episode, label, shared)?);
            let backend = Replaying {
                shared: shared.clone(),
                reads_notes: self.meta["brain"] != "rules",
            };
            return Ok((Box::new(backend), EpisodeTape { shared }));
        }
        let Some(inner) = real else {
            return Err(TapeError::NotARecording {
                path: self.dir.clone(),
                detail: "recording needs a brain to record".into(),
            });
        };
        let path = self.episode_path(episode);
        let file = File::create(&path).map_err(|source| TapeError::Io {
            what: "cannot write",
            path: path.clone(),
            source,
        })?;
        shared.writer = Some(Mutex::new((path, BufWriter::new(file))));
        shared.write(&json!({"episode": episode, "label": label}));
        let shared = Arc::new(shared);
        let backend = Recording {
            inner,
            shared: shared.clone(),
        };
        Ok((Box::new(backend), EpisodeTape { shared }))
    }

    fn load(&self, episode: usize, label: &str, mut shared: Shared) -> Result<Shared, TapeError> {
        let path = self.episode_path(episode);
        let file = File::open(&path).map_err(|source| TapeError::Io {
            what: "no recording for this episode:",
            path: path.clone(),
            source,
        })?;
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|source| TapeError::Io {
                what: "cannot read",
                path: path.clone(),
                source,
            })?;
            if line.trim().is_empty() {
                continue;
            }
            let bad = |detail: String| TapeError::NotARecording {
                path: path.clone(),
                detail: format!("line {}: {detail}", n + 1),
            };
            let entry: Entry = serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?;
            match entry {
                Entry::Header {
                    label: recorded, ..
                } if recorded != label => {
                    *shared.problem.get_mut().unwrap_or_else(PoisonError::into_inner) = Some(format!(
                        "request differs at episode {episode}, call 1: this episode is \"{label}\" now but \"{recorded}\" in the recording; replay with the options of the recorded run"
                    ));
                }
                Entry::Header { .. } => {}
                Entry::Call(call) => shared.calls.push(call),
                Entry::Turn { turn, wall_us } => {
                    shared.turns.insert(turn, wall_us);
                }
            }
        }
        Ok(shared)
    }
}

/// The runner's handle on one episode's tape: turn timings and the first problem.
#[derive(Clone)]
pub struct EpisodeTape {
    shared: Arc<Shared>,
}

impl EpisodeTape {
    /// Records a turn's wall time (recording only; a replay ignores it).
    pub fn note_turn(&self, turn: usize, wall_us: u64) {
        if self.shared.writer.is_some() {
            self.shared
                .write(&json!({"turn": turn, "wall_us": wall_us}));
        }
    }

    /// The recorded wall time of a turn (replay only).
    pub fn recorded_wall_us(&self, turn: usize) -> Option<u64> {
        self.shared.turns.get(&turn).copied()
    }

    /// The first divergence or write failure, as a sentence.
    pub fn problem(&self) -> Option<String> {
        self.shared.problem()
    }
}

/// One line of an episode file.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Entry {
    Call(CallRecord),
    Turn {
        turn: usize,
        wall_us: u64,
    },
    Header {
        #[allow(dead_code)]
        episode: usize,
        label: String,
    },
}

#[derive(Debug, Deserialize)]
struct CallRecord {
    #[allow(dead_code)]
    call: u32,
    hash: String,
    request: Value,
    #[serde(default)]
    reply: Option<AssistantReply>,
    #[serde(default)]
    error: Option<LlmError>,
    #[serde(default)]
    cancelled: bool,
}

struct Shared {
    episode: usize,
    settings: Value,
    next_call: AtomicU32,
    problem: Mutex<Option<String>>,
    writer: Option<Mutex<(PathBuf, BufWriter<File>)>>,
    calls: Vec<CallRecord>,
    turns: BTreeMap<usize, u64>,
}

impl Shared {
    fn new(episode: usize, settings: Value) -> Self {
        Self {
            episode,
            settings,
            next_call: AtomicU32::new(0),
            problem: Mutex::new(None),
            writer: None,
            calls: Vec::new(),
            turns: BTreeMap::new(),
        }
    }

    fn problem(&self) -> Option<String> {
        self.problem
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_problem(&self, text: String) {
        let mut slot = self.problem.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(text);
        }
    }

    /// Appends one line and flushes it, so an interrupted run keeps what it recorded.
    fn write(&self, line: &Value) {
        let Some(writer) = &self.writer else { return };
        let mut guard = writer.lock().unwrap_or_else(PoisonError::into_inner);
        let (path, out) = &mut *guard;
        let result = writeln!(out, "{}", canonical(line)).and_then(|()| out.flush());
        if let Err(e) = result {
            let text = format!("cannot write the recording {}: {e}", path.display());
            drop(guard);
            self.set_problem(text);
        }
    }

    fn request(&self, request: &ChatRequest) -> (Value, String) {
        let value = json!({
            "settings": self.settings,
            "messages": request.messages,
            "tools": request.tools,
        });
        let hash = format!("{:016x}", fnv1a64(canonical(&value).as_bytes()));
        (value, hash)
    }
}

/// Records every call of the wrapped backend.
struct Recording {
    inner: Box<dyn ChatBackend>,
    shared: Arc<Shared>,
}

/// Writes a call's line when the call ends, or `cancelled` when its future is dropped.
struct PendingCall<'a> {
    shared: &'a Shared,
    line: Option<Value>,
}

impl PendingCall<'_> {
    fn finish(mut self, outcome: &Result<AssistantReply, LlmError>) {
        if let Some(mut line) = self.line.take() {
            match outcome {
                Ok(reply) => line["reply"] = json!(reply),
                Err(error) => line["error"] = json!(error),
            }
            self.shared.write(&line);
        }
    }
}

impl Drop for PendingCall<'_> {
    fn drop(&mut self) {
        if let Some(mut line) = self.line.take() {
            line["cancelled"] = json!(true);
            self.shared.write(&line);
        }
    }
}

impl ChatBackend for Recording {
    fn complete<'a>(&'a self, request: &'a ChatRequest) -> CompleteFuture<'a> {
        Box::pin(async move {
            let call = self.shared.next_call.fetch_add(1, Ordering::SeqCst) + 1;
            let (value, hash) = self.shared.request(request);
            let pending = PendingCall {
                shared: &self.shared,
                line: Some(json!({"call": call, "hash": hash, "request": value})),
            };
            let outcome = self.inner.complete(request).await;
            pending.finish(&outcome);
            outcome
        })
    }

    fn describe(&self) -> String {
        format!("{} (recording)", self.inner.describe())
    }

    fn reads_notes(&self) -> bool {
        self.inner.reads_notes()
    }
}

/// Answers from a recorded episode.
struct Replaying {
    shared: Arc<Shared>,
    /// The recorded brain read the note (every brain but the rules brain).
    reads_notes: bool,
}

impl ChatBackend for Replaying {
    fn complete<'a>(&'a self, request: &'a ChatRequest) -> CompleteFuture<'a> {
        Box::pin(async move {
            let shared = &self.shared;
            let call = shared.next_call.fetch_add(1, Ordering::SeqCst) + 1;
            if let Some(problem) = shared.problem() {
                return Err(LlmError::Replay { detail: problem });
            }
            let (value, hash) = shared.request(request);
            let diverge = |what: String| {
                let detail = format!(
                    "request differs at episode {}, call {call}: {what}",
                    shared.episode
                );
                shared.set_problem(detail.clone());
                Err(LlmError::Replay { detail })
            };
            let Some(recorded) = shared.calls.get(call as usize - 1) else {
                return diverge(format!(
                    "the recording ends after {} calls of this episode",
                    shared.calls.len()
                ));
            };
            if recorded.hash != hash {
                return diverge(what_differs(&recorded.request, &value));
            }
            if recorded.cancelled {
                // The recorded loop gave up waiting for this reply: so does the replay.
                std::future::pending::<()>().await;
            }
            match (&recorded.reply, &recorded.error) {
                (Some(reply), _) => Ok(reply.clone()),
                (None, Some(error)) => Err(error.clone()),
                (None, None) => diverge("the recording holds no reply for this call".into()),
            }
        })
    }

    fn describe(&self) -> String {
        format!("replay of episode {}", self.shared.episode)
    }

    fn reads_notes(&self) -> bool {
        self.reads_notes
    }
}

/// What differs between a recorded request and today's, in one phrase.
pub fn what_differs(recorded: &Value, now: &Value) -> String {
    if recorded["settings"] != now["settings"] {
        let (old, new) = (&recorded["settings"], &now["settings"]);
        let mut keys: Vec<&String> = old
            .as_object()
            .into_iter()
            .chain(new.as_object())
            .flat_map(|m| m.keys())
            .collect();
        keys.sort();
        keys.dedup();
        let changes: Vec<String> = keys
            .into_iter()
            .filter(|k| old[k.as_str()] != new[k.as_str()])
            .map(|k| format!("{k}: recorded {}, now {}", old[k.as_str()], new[k.as_str()]))
            .collect();
        return format!("the model settings differ ({})", changes.join("; "));
    }
    if let Some(tools) = tools_differ(&recorded["tools"], &now["tools"]) {
        return tools;
    }
    let empty = Vec::new();
    let old = recorded["messages"].as_array().unwrap_or(&empty);
    let new = now["messages"].as_array().unwrap_or(&empty);
    for (i, (a, b)) in old.iter().zip(new).enumerate() {
        if a == b {
            continue;
        }
        let what = match b["role"].as_str() {
            Some("system") => "the system prompt (character)".to_string(),
            Some("user") => format!("the user message (message {})", i + 1),
            Some("tool") => format!(
                "the result of tool call {} (message {})",
                b["call_id"].as_str().unwrap_or("?"),
                i + 1
            ),
            Some("assistant") => format!("the assistant message (message {})", i + 1),
            _ => format!("message {}", i + 1),
        };
        return format!("{what} differs: {}", text_difference(a, b));
    }
    if old.len() != new.len() {
        return format!(
            "the conversation has {} messages now and {} in the recording",
            new.len(),
            old.len()
        );
    }
    "the request's hash differs although it reads the same (a recording of another version?)".into()
}

fn tools_differ(old: &Value, new: &Value) -> Option<String> {
    let empty = Vec::new();
    let by_name = |v: &Value| -> BTreeMap<String, Value> {
        v.as_array()
            .unwrap_or(&empty)
            .iter()
            .map(|t| {
                (
                    t["name"].as_str().unwrap_or_default().to_string(),
                    t.clone(),
                )
            })
            .collect()
    };
    let (old, new) = (by_name(old), by_name(new));
    if let Some(name) = old.keys().find(|n| !new.contains_key(*n)) {
        return Some(format!("the tool {name} is no longer offered"));
    }
    if let Some(name) = new.keys().find(|n| !old.contains_key(*n)) {
        return Some(format!("the tool {name} is new"));
    }
    for (name, a) in &old {
        let b = &new[name];
        if a["description"] != b["description"] {
            return Some(format!(
                "the description of the tool {name} differs: {}",
                text_difference(&a["description"], &b["description"])
            ));
        }
        if a["parameters"] != b["parameters"] {
            return Some(format!(
                "the parameters of the tool {name} differ: {}",
                text_difference(&a["parameters"], &b["parameters"])
            ));
        }
    }
    None
}

/// `recorded "…", now "…"` around the first character that differs.
fn text_difference(a: &Value, b: &Value) -> String {
    let text = |v: &Value| match v.get("content").unwrap_or(v) {
        Value::String(s) => s.clone(),
        other => canonical(other),
    };
    let (a, b) = (text(a), text(b));
    let start = a
        .chars()
        .zip(b.chars())
        .take_while(|(x, y)| x == y)
        .count()
        .saturating_sub(20);
    let around = |s: &str| {
        let tail: String = s.chars().skip(start).collect();
        let cut = excerpt(&tail, 70);
        if start > 0 {
            format!("…{cut}")
        } else {
            cut
        }
    };
    format!("recorded \"{}\", now \"{}\"", around(&a), around(&b))
}

/// JSON text with object keys sorted at every level, whatever the map type.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// FNV-1a, 64 bits: a stable content hash (not a security measure).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{ChatMessage, ToolCall, ToolSchema, Usage};

    struct Echo;

    impl ChatBackend for Echo {
        fn complete<'a>(&'a self, request: &'a ChatRequest) -> CompleteFuture<'a> {
            let reply = AssistantReply {
                content: None,
                tool_calls: vec![ToolCall {
                    id: format!("c{}", request.messages.len()),
                    name: "stop".into(),
                    arguments: "{}".into(),
                }],
                finish_reason: Some("tool_calls".into()),
                usage: Some(Usage {
                    prompt_tokens: 40,
                    completion_tokens: 2,
                }),
            };
            Box::pin(async move { Ok(reply) })
        }
        fn describe(&self) -> String {
            "echo".into()
        }
    }

    fn request(tool_text: &str, turn: &str) -> ChatRequest {
        ChatRequest {
            messages: vec![
                ChatMessage::System {
                    content: "You are a robot.".into(),
                },
                ChatMessage::User {
                    content: turn.into(),
                },
            ],
            tools: vec![ToolSchema {
                name: "stop".into(),
                description: tool_text.into(),
                parameters: json!({"type": "object", "properties": {}}),
            }],
        }
    }

    #[tokio::test]
    async fn a_recording_replays_and_a_changed_tool_text_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let settings = json!({"model": "m", "temperature": 0.0});
        let tape = Tape::record(dir.path(), settings.clone(), json!({"brain": "llm"})).unwrap();
        let (backend, episode) = tape.episode(1, "case a", Some(Box::new(Echo))).unwrap();
        let recorded = backend
            .complete(&request("Stop when done.", "Felix said to Daniel: hi"))
            .await
            .unwrap();
        episode.note_turn(1, 1234);
        drop(backend);
        assert!(Tape::record(dir.path(), settings.clone(), json!({})).is_err());

        let replay = Tape::replay(dir.path(), settings.clone()).unwrap();
        let (backend, episode) = replay.episode(1, "case a", None).unwrap();
        let again = backend
            .complete(&request("Stop when done.", "Felix said to Daniel: hi"))
            .await
            .unwrap();
        assert_eq!(again, recorded);
        assert_eq!(episode.recorded_wall_us(1), Some(1234));
        assert_eq!(episode.problem(), None);

        let (backend, episode) = replay.episode(1, "case a", None).unwrap();
        let err = backend
            .complete(&request(
                "Call stop when you are done.",
                "Felix said to Daniel: hi",
            ))
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(
                "request differs at episode 1, call 1: the description of the tool stop differs"
            ),
            "{text}"
        );
        assert_eq!(episode.problem(), Some(text));

        let changed = Tape::replay(dir.path(), json!({"model": "m", "temperature": 0.5})).unwrap();
        let (backend, _) = changed.episode(1, "case a", None).unwrap();
        let err = backend
            .complete(&request("Stop when done.", "Felix said to Daniel: hi"))
            .await
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("the model settings differ (temperature: recorded 0.0, now 0.5)"),
            "{err}"
        );
        let (backend, _) = replay.episode(1, "case b", None).unwrap();
        let err = backend
            .complete(&request("Stop when done.", "Felix said to Daniel: hi"))
            .await
            .unwrap_err();
        assert!(
            err.to_string().contains("\"case b\" now but \"case a\""),
            "{err}"
        );
        assert!(replay.episode(2, "case c", None).is_err());
    }

    #[test]
    fn differences_name_the_message_and_the_text() {
        let a = json!({"settings": {}, "tools": [], "messages": [
            {"role": "system", "content": "x"},
            {"role": "tool", "call_id": "call_1", "content": "Daniel is busy with the phone."}]});
        let b = json!({"settings": {}, "tools": [], "messages": [
            {"role": "system", "content": "x"},
            {"role": "tool", "call_id": "call_1", "content": "Daniel is idle."}]});
        assert_eq!(
            what_differs(&a, &b),
            "the result of tool call call_1 (message 2) differs: recorded \"Daniel is busy with the phone.\", now \"Daniel is idle.\""
        );
        assert_eq!(
            canonical(&json!({"b": 1, "a": [true, null]})),
            r#"{"a":[true,null],"b":1}"#
        );
        assert_ne!(fnv1a64(b"a"), fnv1a64(b"b"));
    }
}
