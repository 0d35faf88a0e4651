//! [`OpenAiCompatible`]: any OpenAI-compatible chat-completions endpoint, through async-openai.
//!
//! The request is built as plain JSON and sent with async-openai's "bring your
//! own types" API (`create_byot`); the reply is taken as JSON and parsed by
//! [`super::lenient`], so that local servers' deviations are accepted.
//!
//! Key rule: the key is read from the environment variable named by
//! `llm.api_key_env`. It is required only for non-local hosts; for local hosts
//! (`localhost`, `*.localhost`, `*.local`, `*.internal`, single-label names such
//! as `gpu-box`, loopback, private and link-local addresses) a placeholder is
//! sent when the variable is unset.
//!
//! Timeouts: each attempt (HTTP request and reading the reply) is bounded by
//! `llm.request_timeout_s`. Note that async-openai 0.43 itself retries 429,
//! 5xx and connection errors up to 3 times (100/200/400 ms, or `Retry-After`)
//! inside one attempt; that cannot be switched off without its `middleware`
//! feature, and it is bounded by the same per-attempt timeout.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::Client;
use serde_json::{json, Map, Value};

use super::retry::RetryPolicy;
use super::{
    excerpt, lenient, whole_reply, AssistantReply, ChatBackend, ChatMessage, ChatRequest,
    CompleteFuture, LlmError, ReplyStream,
};
use crate::config::LlmSettings;

/// Key sent to local servers when no key variable is set.
const PLACEHOLDER_KEY: &str = "no-key";

/// A chat backend for any OpenAI-compatible endpoint.
pub struct OpenAiCompatible {
    client: Client<OpenAIConfig>,
    settings: LlmSettings,
    base_url: String,
    timeout: Duration,
    policy: RetryPolicy,
    /// The endpoint refused or ignored `stream: true`: later replies come whole.
    stream_refused: AtomicBool,
    /// The endpoint refused `parallel_tool_calls`: it is no longer sent.
    parallel_refused: AtomicBool,
}

impl std::fmt::Debug for OpenAiCompatible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiCompatible")
            .field("base_url", &self.base_url)
            .field("model", &self.settings.model)
            .field("timeout", &self.timeout)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl OpenAiCompatible {
    /// Build the backend from `[llm]` settings; reads the key from the environment.
    ///
    /// Fails with [`LlmError::NoKey`] when the host is not local and the key
    /// variable is unset or empty, and with [`LlmError::Config`] for an unusable
    /// base URL or a key with characters not allowed in an HTTP header.
    pub fn from_settings(settings: &LlmSettings) -> Result<Self, LlmError> {
        Self::with_key(settings, settings.read_api_key())
    }

    /// Like [`OpenAiCompatible::from_settings`], with the key given instead of read.
    pub fn with_key(settings: &LlmSettings, key: Option<String>) -> Result<Self, LlmError> {
        let settings = &settings.with_profile();
        let base_url = settings.effective_base_url();
        let host = host_of(&base_url).ok_or_else(|| LlmError::Config {
            detail: format!("llm.base_url {base_url:?} is not an http(s) URL with a host"),
        })?;
        let key = match key.filter(|k| !k.trim().is_empty()) {
            Some(key) => key.trim().to_string(),
            None if is_local_host(&host) => PLACEHOLDER_KEY.to_string(),
            None => {
                return Err(LlmError::NoKey {
                    var: settings.api_key_env.clone(),
                })
            }
        };
        if !key.chars().all(|c| c == ' ' || c.is_ascii_graphic()) {
            return Err(LlmError::Config {
                detail: format!(
                    "the key in {} contains characters not allowed in an HTTP header",
                    settings.api_key_env
                ),
            });
        }
        if !(settings.request_timeout_s.is_finite() && settings.request_timeout_s > 0.0) {
            return Err(LlmError::Config {
                detail: "llm.request_timeout_s must be a positive number of seconds".into(),
            });
        }
        let config = OpenAIConfig::new()
            .with_api_base(base_url.clone())
            .with_api_key(key);
        Ok(OpenAiCompatible {
            client: Client::with_config(config)
                .with_http_service(async_openai::middleware::ReqwestService::default()),
            settings: settings.clone(),
            base_url,
            timeout: Duration::from_secs_f64(settings.request_timeout_s),
            policy: RetryPolicy {
                retries: settings.retries,
                initial_delay: Duration::from_millis(settings.backoff_initial_ms),
            },
            stream_refused: AtomicBool::new(false),
            parallel_refused: AtomicBool::new(false),
        })
    }

    /// The base URL requests go to (`…/chat/completions` is appended).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The JSON body sent for `request` (standard chat-completions shape).
    pub fn request_body(&self, request: &ChatRequest) -> Value {
        let s = &self.settings;
        let mut body = Map::new();
        body.insert("model".into(), json!(s.model));
        body.insert(
            "messages".into(),
            Value::Array(request.messages.iter().map(message_json).collect()),
        );
        body.insert("temperature".into(), json!(s.temperature));
        if let Some(seed) = s.seed {
            body.insert("seed".into(), json!(seed));
        }
        body.insert("max_tokens".into(), json!(s.max_tokens));
        body.insert("stream".into(), json!(false));
        if !request.tools.is_empty() {
            let tools = request
                .tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.name, "description": t.description, "parameters": t.parameters}})
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
            if let Some(choice) = &s.tool_choice {
                body.insert("tool_choice".into(), json!(choice));
            }
            if let Some(parallel) = s.parallel_tool_calls {
                if !self.parallel_refused.load(Ordering::Relaxed) {
                    body.insert("parallel_tool_calls".into(), json!(parallel));
                }
            }
        }
        Value::Object(body)
    }

    /// Whether replies are streamed: asked for, and not refused by the endpoint.
    pub fn streams(&self) -> bool {
        self.settings.stream && !self.stream_refused.load(Ordering::Relaxed)
    }

    /// The request body once more without what the endpoint refused: true when
    /// `error` says the endpoint does not know `parallel_tool_calls`.
    fn drop_refused_parameter(&self, error: &LlmError) -> bool {
        let LlmError::Http {
            status: 400,
            body_excerpt,
        } = error
        else {
            return false;
        };
        if body_excerpt.contains("parallel_tool_calls")
            && self.settings.parallel_tool_calls.is_some()
            && !self.parallel_refused.swap(true, Ordering::Relaxed)
        {
            tracing::warn!(
                target: "attentive::llm",
                "the endpoint refused parallel_tool_calls ({body_excerpt}); it is no longer sent"
            );
            return true;
        }
        false
    }

    /// Runs `attempt` on the request's body (`stream`: the streamed form), with
    /// retries; once more without a parameter the endpoint refused.
    async fn run_refusing<T, F, Fut>(
        &self,
        what: &str,
        request: &ChatRequest,
        stream: bool,
        attempt: F,
    ) -> Result<T, LlmError>
    where
        F: Fn(Value) -> Fut,
        Fut: std::future::Future<Output = Result<T, LlmError>>,
    {
        let body = self.body_for(request, stream);
        match self.policy.run(what, || attempt(body.clone())).await {
            Err(error) if self.drop_refused_parameter(&error) => {
                let body = self.body_for(request, stream);
                self.policy.run(what, || attempt(body.clone())).await
            }
            other => other,
        }
    }

    /// The request body, in its streamed form when `stream`.
    fn body_for(&self, request: &ChatRequest, stream: bool) -> Value {
        let mut body = self.request_body(request);
        if stream {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        body
    }

    /// One attempt: send, wait at most the request timeout, parse.
    async fn attempt(&self, body: Value) -> Result<AssistantReply, LlmError> {
        let chat = self.client.chat();
        let call = chat.create_byot::<Value, Value>(body);
        match tokio::time::timeout(self.timeout, call).await {
            Err(_elapsed) => Err(self.timeout_error()),
            Ok(Err(err)) => Err(self.map_error(err)),
            Ok(Ok(reply)) => lenient::parse_reply(&reply),
        }
    }

    fn map_error(&self, err: OpenAIError) -> LlmError {
        match err {
            OpenAIError::StreamError(e) => broken_stream(&e),
            OpenAIError::Reqwest(e) if e.is_timeout() => self.timeout_error(),
            OpenAIError::Reqwest(e) => LlmError::Connect {
                url: self.base_url.clone(),
                detail: error_chain(&e),
            },
            OpenAIError::ApiError(api) => LlmError::Http {
                status: api.status_code.as_u16(),
                body_excerpt: excerpt(&api.api_error.to_string(), 300),
            },
            OpenAIError::JSONDeserialize(e, content) => {
                error_from_body(&content).unwrap_or_else(|| LlmError::BadResponse {
                    detail: format!("not JSON ({e}): {}", excerpt(&content, 300)),
                })
            }
            other => LlmError::BadResponse {
                detail: excerpt(&other.to_string(), 300),
            },
        }
    }
}

impl ChatBackend for OpenAiCompatible {
    fn complete<'a>(&'a self, request: &'a ChatRequest) -> CompleteFuture<'a> {
        Box::pin(async move {
            tracing::debug!(
                target: "attentive::llm",
                model = %self.settings.model,
                url = %self.base_url,
                messages = request.messages.len(),
                tools = request.tools.len(),
                "chat completion request"
            );
            let reply = self
                .run_refusing("chat completion", request, false, |body| self.attempt(body))
                .await?;
            tracing::debug!(
                target: "attentive::llm",
                tool_calls = reply.tool_calls.len(),
                finish_reason = ?reply.finish_reason,
                usage = ?reply.usage,
                "chat completion reply"
            );
            Ok(reply)
        })
    }

    fn stream<'a>(&'a self, request: &'a ChatRequest) -> ReplyStream<'a> {
        if !self.streams() || request.tools.is_empty() {
            return whole_reply(self.complete(request));
        }
        super::stream::sse::reply_stream(self, request)
    }

    fn describe(&self) -> String {
        format!("llm {} at {}", self.settings.model, self.base_url)
    }
}

/// What the streaming side needs of the backend.
impl OpenAiCompatible {
    /// Opens a streamed reply: the HTTP request is answered, chunks to follow.
    pub(super) async fn open_stream(
        &self,
        request: &ChatRequest,
    ) -> Result<super::stream::sse::Chunks, LlmError> {
        let open = |body: Value| async move {
            let chat = self.client.chat();
            let call = chat.create_stream_byot::<Value, Value>(body);
            match tokio::time::timeout(self.timeout, call).await {
                Err(_elapsed) => Err(self.timeout_error()),
                Ok(Err(err)) => Err(self.map_error(err)),
                Ok(Ok(chunks)) => Ok(chunks),
            }
        };
        let chunks = self
            .run_refusing("chat completion stream", request, true, open)
            .await?;
        Ok(Box::pin(futures_util::StreamExt::map(chunks, |chunk| {
            chunk.map_err(|e| match e {
                OpenAIError::StreamError(e) => broken_stream(&e),
                other => LlmError::BadResponse {
                    detail: format!(
                        "a chunk that is not JSON: {}",
                        excerpt(&other.to_string(), 300)
                    ),
                },
            })
        })))
    }

    /// The error for a request that ran out of time.
    pub(super) fn timeout_error(&self) -> LlmError {
        LlmError::Timeout {
            url: self.base_url.clone(),
            timeout_s: self.timeout.as_secs_f64(),
        }
    }

    /// The per-request time bound.
    pub(super) fn request_timeout(&self) -> Duration {
        self.timeout
    }

    /// Streaming is refused from now on (the endpoint said no, or sent no stream).
    pub(super) fn refuse_streaming(&self, why: &str) {
        if !self.stream_refused.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                target: "attentive::llm",
                "the endpoint at {} does not stream ({why}); replies come whole from now on",
                self.base_url
            );
        }
    }

    /// Whether `error` says the endpoint cannot stream (rather than a passing failure).
    pub(super) fn refuses_streaming(error: &LlmError) -> bool {
        matches!(error, LlmError::Http { status: 400 | 404 | 405 | 415 | 422 | 501, body_excerpt }
            if body_excerpt.to_ascii_lowercase().contains("stream"))
    }
}

/// A stream that broke mid-reply.
fn broken_stream(error: &async_openai::error::StreamError) -> LlmError {
    LlmError::Cut {
        detail: format!("the stream broke: {}", excerpt(&error.to_string(), 300)),
    }
}

/// A message in chat-completions JSON.
fn message_json(message: &ChatMessage) -> Value {
    match message {
        ChatMessage::System { content } => json!({"role": "system", "content": content}),
        ChatMessage::User { content } => json!({"role": "user", "content": content}),
        ChatMessage::Assistant {
            content,
            tool_calls,
        } => {
            let mut m = Map::new();
            m.insert("role".into(), json!("assistant"));
            let content = match content {
                Some(text) => json!(text),
                // OpenAI wants content or tool calls; an empty reply becomes "".
                None if tool_calls.is_empty() => json!(""),
                None => Value::Null,
            };
            m.insert("content".into(), content);
            if !tool_calls.is_empty() {
                let calls = tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                               "function": {"name": c.name, "arguments": c.arguments}})
                    })
                    .collect();
                m.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(m)
        }
        ChatMessage::Tool { call_id, content } => {
            json!({"role": "tool", "tool_call_id": call_id, "content": content})
        }
    }
}

/// An error status hidden in a body async-openai could not parse as an OpenAI
/// error (llama.cpp sends `{"error": {"code": 400, "message": ...}}`).
fn error_from_body(content: &str) -> Option<LlmError> {
    let value: Value = serde_json::from_str(content).ok()?;
    let error = value.get("error")?;
    let status = error
        .get("code")
        .and_then(|c| {
            c.as_u64()
                .or_else(|| c.as_str().and_then(|s| s.parse().ok()))
        })
        .filter(|c| (400..=599).contains(c))?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string());
    Some(LlmError::Http {
        status: u16::try_from(status).ok()?,
        body_excerpt: excerpt(&message, 300),
    })
}

/// The error and its causes, joined (reqwest's own message hides the cause).
pub(crate) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

/// The host of an http(s) URL (without port, brackets or user info), lowercased.
pub(crate) fn host_of(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        authority.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Whether a host is local: no key is required for it.
pub(crate) fn is_local_host(host: &str) -> bool {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return match ip {
            IpAddr::V4(v4) => is_local_v4(v4),
            IpAddr::V6(v6) => {
                v6.is_loopback()
                    || v6.is_unspecified()
                    || (v6.segments()[0] & 0xfe00) == 0xfc00 // unique local
                    || (v6.segments()[0] & 0xffc0) == 0xfe80 // link local
                    || v6.to_ipv4_mapped().is_some_and(is_local_v4)
            }
        };
    }
    host == "localhost"
        || [".localhost", ".local", ".internal", ".lan", ".home.arpa"]
            .iter()
            .any(|suffix| host.ends_with(suffix))
        || !host.contains('.')
}

fn is_local_v4(ip: Ipv4Addr) -> bool {
    ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_extracted() {
        assert_eq!(
            host_of("http://127.0.0.1:8080/v1").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(
            host_of("https://API.openai.com/v1").as_deref(),
            Some("api.openai.com")
        );
        assert_eq!(host_of("http://[::1]:11434/v1").as_deref(), Some("::1"));
        assert_eq!(
            host_of("http://u:p@gpu-box:8000").as_deref(),
            Some("gpu-box")
        );
        assert_eq!(host_of("localhost:8080"), None);
        assert_eq!(host_of("http:///v1"), None);
    }

    #[test]
    fn local_hosts_need_no_key() {
        for host in [
            "localhost",
            "127.0.0.1",
            "::1",
            "10.1.2.3",
            "192.168.0.7",
            "gpu-box",
            "ollama.local",
            "host.docker.internal",
            "0.0.0.0",
        ] {
            assert!(is_local_host(host), "{host}");
        }
        for host in ["api.openai.com", "8.8.8.8", "example.openai.azure.com"] {
            assert!(!is_local_host(host), "{host}");
        }
    }

    #[test]
    fn missing_key_for_hosted_endpoint_is_an_error() {
        let settings = LlmSettings::default();
        let err = OpenAiCompatible::with_key(&settings, None).unwrap_err();
        assert_eq!(
            err,
            LlmError::NoKey {
                var: "OPENAI_API_KEY".into()
            }
        );
        assert!(err.to_string().contains("OPENAI_API_KEY"));
        let ok = OpenAiCompatible::with_key(&settings, Some("sk-test".into())).unwrap();
        assert_eq!(ok.describe(), "llm gpt-4o at https://api.openai.com/v1");
        assert!(!format!("{ok:?}").contains("sk-test"));
        let err = OpenAiCompatible::with_key(&settings, Some("sk\ntest".into())).unwrap_err();
        assert!(matches!(err, LlmError::Config { .. }));
        assert!(!err.to_string().contains("sk"));
    }

    #[test]
    fn llama_cpp_error_bodies_keep_their_status() {
        let err = error_from_body(
            r#"{"error":{"code":400,"message":"bad grammar","type":"invalid_request_error"}}"#,
        );
        assert_eq!(
            err,
            Some(LlmError::Http {
                status: 400,
                body_excerpt: "bad grammar".into()
            })
        );
        assert_eq!(error_from_body("404 page not found"), None);
    }
}
