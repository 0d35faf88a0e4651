//! A local fake OpenAI-compatible chat-completions server for tests.
//!
//! It listens on `127.0.0.1:0`, answers `POST …/chat/completions` (so both
//! `/v1/chat/completions` and `/chat/completions`) from a queue of scripted
//! responses (or a responder that reads each request), and records every
//! request. It speaks a minimal HTTP/1.1 (`Content-Length` bodies,
//! keep-alive). A request with `"stream": true` gets the same reply as
//! server-sent chunks, as OpenAI sends them (one per argument piece, then the
//! finish reason, the usage and `[DONE]`). Like a model, it can take its time:
//! a delay before the first token and one per chunk (a whole reply waits for
//! all its chunks). The server stops when the [`FakeLlm`] is dropped.
//!
//! ```ignore
//! let fake = FakeLlm::start(vec![Scripted::tool_calls(&[("speak", json!({"text": "hi"}))])]).await;
//! settings.base_url = Some(fake.base_url());
//! // ... run the code under test ...
//! assert_eq!(fake.bodies().len(), 1);
//! ```
#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// One scripted answer to one chat-completions request.
#[derive(Debug, Clone, PartialEq)]
pub enum Scripted {
    /// Answer with this status and JSON body.
    Json {
        /// HTTP status code.
        status: u16,
        /// JSON body.
        body: Value,
    },
    /// Answer with this status and raw body text (e.g. a non-JSON error page).
    Raw {
        /// HTTP status code.
        status: u16,
        /// Body text.
        body: String,
    },
    /// Never answer (keep the connection open until the server stops).
    Hang,
    /// Close the connection without answering.
    Close,
    /// Stream this completion, but stop after `keep` chunks: no finish
    /// reason, no `[DONE]`; the body ends there.
    Cut {
        /// The completion whose chunks are sent.
        body: Value,
        /// How many chunks are sent.
        keep: usize,
    },
}

impl Scripted {
    /// A 200 answer with this JSON body.
    pub fn ok(body: Value) -> Self {
        Scripted::Json { status: 200, body }
    }

    /// An answer with an OpenAI-style error body.
    pub fn error(status: u16, message: &str) -> Self {
        Scripted::Json {
            status,
            body: json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}}),
        }
    }

    /// An OpenAI-shaped reply with text content and `finish_reason: "stop"`.
    pub fn text(content: &str) -> Self {
        Scripted::ok(completion(
            json!({"role": "assistant", "content": content}),
            "stop",
        ))
    }

    /// An OpenAI-shaped reply with these tool calls (ids `call_1`, `call_2`, ...;
    /// arguments sent as JSON strings) and `finish_reason: "tool_calls"`.
    pub fn tool_calls(calls: &[(&str, Value)]) -> Self {
        let calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                json!({"id": format!("call_{}", i + 1), "type": "function",
                       "function": {"name": name, "arguments": args.to_string()}})
            })
            .collect();
        Scripted::ok(completion(
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
        ))
    }
}

/// A full OpenAI-shaped chat completion around `message`.
pub fn completion(message: Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 1_700_000_000u64,
        "model": "fake-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    })
}

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// Method, e.g. `POST`.
    pub method: String,
    /// Path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// Body parsed as JSON (`Value::Null` when empty or not JSON).
    pub body: Value,
}

impl Recorded {
    /// The value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Computes the answer to a request from its body (for a fake that behaves like a model).
pub type Responder = Arc<dyn Fn(&Value) -> Scripted + Send + Sync>;

#[derive(Default)]
struct State {
    script: VecDeque<Scripted>,
    fallback: Option<Scripted>,
    responder: Option<Responder>,
    recorded: Vec<Recorded>,
    pace: Pace,
    chunks_sent: usize,
}

/// How long the fake takes, like a model: before the first token, and per chunk.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pace {
    /// Before the first chunk (or the whole reply).
    pub first: std::time::Duration,
    /// For each further chunk; a whole reply waits for all of them.
    pub per_chunk: std::time::Duration,
}

/// A running fake server; stops when dropped.
pub struct FakeLlm {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl FakeLlm {
    /// Start a server answering from `script`, in order. When the script is
    /// used up it answers 500 with a message saying so (see [`FakeLlm::set_fallback`]).
    pub async fn start(script: Vec<Scripted>) -> FakeLlm {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            script: script.into(),
            ..State::default()
        }));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            // Connection tasks live in this set: aborting the accept loop drops it,
            // which aborts them too.
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => {
                            connections.spawn(serve_connection(stream, shared.clone()));
                        }
                        Err(_) => break,
                    },
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
        });
        FakeLlm { addr, state, task }
    }

    /// Base URL to configure, e.g. `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Append an answer to the script.
    pub fn push(&self, answer: Scripted) {
        self.state.lock().unwrap().script.push_back(answer);
    }

    /// The answer given whenever the script is used up.
    pub fn set_fallback(&self, answer: Scripted) {
        self.state.lock().unwrap().fallback = Some(answer);
    }

    /// Answers computed from each request's body when the script is used up.
    pub fn set_responder(&self, responder: Responder) {
        self.state.lock().unwrap().responder = Some(responder);
    }

    /// How long answers take from now on.
    pub fn set_pace(&self, pace: Pace) {
        self.state.lock().unwrap().pace = pace;
    }

    /// All chat-completions requests received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().recorded.clone()
    }

    /// The JSON bodies of all chat-completions requests received so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.requests().into_iter().map(|r| r.body).collect()
    }

    /// Stream chunks written so far (all streams).
    pub fn chunks_sent(&self) -> usize {
        self.state.lock().unwrap().chunks_sent
    }

    /// Number of chat-completions requests received so far.
    pub fn request_count(&self) -> usize {
        self.state.lock().unwrap().recorded.len()
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serve requests on one connection until it closes or a script says otherwise.
async fn serve_connection(mut stream: TcpStream, state: Arc<Mutex<State>>) {
    let mut buf = Vec::new();
    loop {
        let Some(request) = read_request(&mut stream, &mut buf).await else {
            return;
        };
        if !request.path.ends_with("/chat/completions") {
            let status = if request.method == "POST" { 404 } else { 405 };
            let body = json!({"error": {"message": format!("fake_llm: no route {} {}", request.method, request.path)}});
            if write_response(&mut stream, status, &body.to_string())
                .await
                .is_err()
            {
                return;
            }
            continue;
        }
        let streamed = request.body.get("stream") == Some(&Value::Bool(true));
        let (answer, pace) = {
            let mut st = state.lock().unwrap();
            let body = request.body.clone();
            st.recorded.push(request);
            let answer = st
                .script
                .pop_front()
                .or_else(|| st.responder.as_ref().map(|r| r(&body)))
                .or_else(|| st.fallback.clone());
            (answer, st.pace)
        };
        let result = match answer {
            Some(Scripted::Json { status: 200, body }) if streamed => {
                let chunks = chunks_of(&body);
                let n = chunks.len();
                write_stream(&mut stream, &chunks, n, true, pace, &state).await;
                return;
            }
            Some(Scripted::Cut { body, keep }) => {
                write_stream(&mut stream, &chunks_of(&body), keep, false, pace, &state).await;
                return;
            }
            Some(Scripted::Json { status, body }) => {
                if status == 200 {
                    let n = chunks_of(&body).len() as u32;
                    tokio::time::sleep(pace.first + pace.per_chunk * n).await;
                }
                write_response(&mut stream, status, &body.to_string()).await
            }
            Some(Scripted::Raw { status, body }) => {
                write_response(&mut stream, status, &body).await
            }
            Some(Scripted::Hang) => {
                std::future::pending::<()>().await;
                return;
            }
            Some(Scripted::Close) => return,
            None => {
                let body = json!({"error": {"message": "fake_llm: no scripted response left", "type": "server_error"}});
                write_response(&mut stream, 500, &body.to_string()).await
            }
        };
        if result.is_err() {
            return;
        }
    }
}

/// A completion as the chunks OpenAI streams: the role (and text), each tool
/// call's name then its arguments in pieces, the finish reason, the usage.
pub fn chunks_of(body: &Value) -> Vec<Value> {
    let choice = &body["choices"][0];
    let message = &choice["message"];
    let wrap = |delta: Value| {
        json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    };
    let mut chunks = vec![wrap(
        json!({"role": "assistant", "content": message["content"]}),
    )];
    for (index, call) in message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        chunks.push(wrap(
            json!({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""}}]}),
        ));
        let args = call["function"]["arguments"]
            .as_str()
            .unwrap_or("{}")
            .to_string();
        let chars: Vec<char> = args.chars().collect();
        for piece in chars.chunks(12) {
            let piece: String = piece.iter().collect();
            chunks.push(wrap(
                json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
            ));
        }
    }
    chunks.push(
        json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}),
    );
    if body.get("usage").is_some() {
        chunks.push(
            json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk",
            "choices": [], "usage": body["usage"]}),
        );
    }
    chunks
}

/// Writes `keep` of `chunks` as server-sent events (then `[DONE]` when `done`)
/// and closes the connection, which ends the body.
async fn write_stream(
    stream: &mut TcpStream,
    chunks: &[Value],
    keep: usize,
    done: bool,
    pace: Pace,
    state: &Mutex<State>,
) {
    tokio::time::sleep(pace.first).await;
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for (i, chunk) in chunks.iter().take(keep).enumerate() {
        if i > 0 {
            tokio::time::sleep(pace.per_chunk).await;
        }
        if stream
            .write_all(format!("data: {chunk}\n\n").as_bytes())
            .await
            .is_err()
            || stream.flush().await.is_err()
        {
            return;
        }
        state.lock().unwrap().chunks_sent += 1;
    }
    if done {
        let _ = stream.write_all(b"data: [DONE]\n\n").await;
    }
    let _ = stream.flush().await;
    let _ = stream.shutdown().await;
}

/// Read one request (head + Content-Length body). `None` on EOF or garbage.
async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Recorded> {
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split_whitespace();
    let method = request_line.next()?.to_string();
    let path = request_line.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let body_start = head_end + 4;
    while buf.len() < body_start + length {
        let mut chunk = [0u8; 8192];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[body_start..body_start + length]).unwrap_or(Value::Null);
    buf.drain(..body_start + length);
    Some(Recorded {
        method,
        path,
        headers,
        body,
    })
}

async fn write_response(stream: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let content_type = if body.trim_start().starts_with(['{', '[']) {
        "application/json"
    } else {
        "text/plain"
    };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: keep-alive\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.flush().await
}
