//! LLM backends behind one trait ([`ChatBackend`]), and the chat types they share.
//!
//! [`OpenAiCompatible`] talks to any OpenAI-compatible chat-completions endpoint
//! (OpenAI, Azure, vLLM, llama.cpp server, Ollama) through async-openai, parses
//! replies leniently ([`lenient`]) and retries transient failures ([`retry`]).

pub mod lenient;
pub mod meter;
pub mod openai;
pub mod retry;
pub mod rules;
pub mod scripted;
pub mod stream;
pub mod tape;

pub use openai::OpenAiCompatible;
pub use stream::{ReplyEvent, ReplyStream};

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

/// One message of a chat conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    /// The system prompt (the character).
    System {
        /// Prompt text.
        content: String,
    },
    /// A user turn.
    User {
        /// Turn text.
        content: String,
    },
    /// An earlier assistant reply, with the tool calls it made.
    Assistant {
        /// Text of the reply, if any.
        content: Option<String>,
        /// Tool calls of the reply, in order.
        #[serde(default)]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    Tool {
        /// Id of the tool call this answers.
        call_id: String,
        /// Result text.
        content: String,
    },
}

/// One tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Call id (synthesized as `call_N` when the server sent none).
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Raw JSON text of the arguments exactly as received; if the server sent
    /// an object, its JSON text.
    pub arguments: String,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    /// Tool name.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON schema object of the arguments.
    pub parameters: serde_json::Value,
}

/// One chat-completion request: the conversation and the tools.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation so far, system prompt first.
    pub messages: Vec<ChatMessage>,
    /// Tools the model may call.
    pub tools: Vec<ToolSchema>,
}

/// The model's reply to one request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AssistantReply {
    /// Text of the reply, if any (empty text is reported as `None`).
    pub content: Option<String>,
    /// Tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Finish reason as sent by the server (`stop`, `tool_calls`, `eos`, ...).
    pub finish_reason: Option<String>,
    /// Token usage, when the server reported it.
    pub usage: Option<Usage>,
}

/// Token usage of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u32,
    /// Tokens in the completion.
    pub completion_tokens: u32,
}

/// Boxed future returned by [`ChatBackend::complete`].
pub type CompleteFuture<'a> =
    Pin<Box<dyn Future<Output = Result<AssistantReply, LlmError>> + Send + 'a>>;

/// A chat model: takes the conversation and tools, returns one reply.
pub trait ChatBackend: Send + Sync {
    /// Ask the model for the next reply.
    fn complete<'a>(&'a self, request: &'a ChatRequest) -> CompleteFuture<'a>;
    /// The next reply as it arrives: complete tool calls as soon as each is
    /// written (streaming back ends), then the whole reply. By default the
    /// whole reply at once.
    fn stream<'a>(&'a self, request: &'a ChatRequest) -> ReplyStream<'a> {
        whole_reply(self.complete(request))
    }
    /// One line for logs and banners, e.g. `llm gpt-4o at https://api.openai.com/v1`.
    fn describe(&self) -> String;
    /// Whether the brain reads the situation note (an LLM does; the rules
    /// brain asks the twin itself, so the note is not worked out for it).
    fn reads_notes(&self) -> bool {
        true
    }
}

/// A reply that arrives whole, as a stream of one [`ReplyEvent::Done`].
pub fn whole_reply(reply: CompleteFuture<'_>) -> ReplyStream<'_> {
    Box::pin(futures_util::stream::once(async move {
        reply.await.map(ReplyEvent::Done)
    }))
}

/// Why a chat completion failed. Messages never contain the API key.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LlmError {
    /// No answer within the request timeout.
    #[error("the LLM server at {url} did not answer within {timeout_s:.1} s")]
    Timeout {
        /// Base URL of the endpoint.
        url: String,
        /// The timeout that expired, in seconds.
        timeout_s: f64,
    },
    /// The connection could not be made or broke before an answer.
    #[error("cannot reach the LLM server at {url}: {detail}")]
    Connect {
        /// Base URL of the endpoint.
        url: String,
        /// What went wrong.
        detail: String,
    },
    /// The server answered with an HTTP error status.
    #[error("the LLM server answered HTTP {status}: {body_excerpt}")]
    Http {
        /// HTTP status code.
        status: u16,
        /// The start of the error message or body.
        body_excerpt: String,
    },
    /// The server answered, but not with a chat completion we understand.
    #[error("the LLM server sent a reply that is not a chat completion: {detail}")]
    BadResponse {
        /// What is wrong, with an excerpt of the body.
        detail: String,
    },
    /// A hosted endpoint needs a key and the key variable is unset or empty.
    #[error(
        "no API key: set the environment variable {var} (the key is read only from the environment) \
         or point llm.base_url at a local server"
    )]
    NoKey {
        /// Name of the environment variable that should hold the key.
        var: String,
    },
    /// The LLM settings are unusable (bad base URL, key with invalid characters, ...).
    #[error("LLM configuration error: {detail}")]
    Config {
        /// What is wrong.
        detail: String,
    },
    /// A streamed reply broke off before it was finished.
    #[error("the reply was cut off: {detail}")]
    Cut {
        /// Where it broke off.
        detail: String,
    },
    /// A replayed run cannot answer: the request differs from the recording,
    /// or the recording is missing or unreadable.
    #[error("{detail}")]
    Replay {
        /// The sentence saying where and what differs.
        detail: String,
    },
}

impl LlmError {
    /// True when the request timed out.
    pub fn is_timeout(&self) -> bool {
        matches!(self, LlmError::Timeout { .. })
    }

    /// True when retrying the same request may succeed: timeouts, connection
    /// errors, HTTP 429 and 5xx.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Timeout { .. } | LlmError::Connect { .. } => true,
            LlmError::Http { status, .. } => *status == 429 || (500..=599).contains(status),
            LlmError::BadResponse { .. }
            | LlmError::Cut { .. }
            | LlmError::NoKey { .. }
            | LlmError::Config { .. }
            | LlmError::Replay { .. } => false,
        }
    }
}

/// Shorten `text` to at most `max` characters (on a char boundary), adding `…` when cut.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        Some((idx, _)) => format!("{}…", &text[..idx]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_is_object_safe_and_errors_classify() {
        fn _takes(_: &dyn ChatBackend) {}
        let timeout = LlmError::Timeout {
            url: "http://x".into(),
            timeout_s: 1.0,
        };
        assert!(timeout.is_timeout() && timeout.is_retryable());
        assert!(!LlmError::NoKey { var: "K".into() }.is_retryable());
        assert_eq!(excerpt("  abcdef ", 3), "abc…");
        assert_eq!(excerpt("ab", 3), "ab");
    }

    #[test]
    fn messages_serialize_with_role_tags() {
        let m = ChatMessage::Tool {
            call_id: "c1".into(),
            content: "done".into(),
        };
        let v = serde_json::to_value(&m).unwrap();
        assert_eq!(v["role"], "tool");
        let back: ChatMessage = serde_json::from_value(v).unwrap();
        assert_eq!(back, m);
    }
}
