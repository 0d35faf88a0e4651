//! The `scripted` brain: canned replies per human turn, read from a TOML file,
//! for tests of the loop. It speaks the same `ChatBackend` trait as the LLM.
//!
//! ```toml
//! [[turn]]                      # one per human turn, in order
//! [[turn.reply]]                # the replies of that turn, one per LLM call
//! tool_calls = [{ name = "is_person_busy_or_idle", arguments = { person_name = "Daniel" } }]
//! [[turn.reply]]
//! tool_calls = [{ name = "stop" }]
//! ```
//! `arguments` may also be a string, sent as is (to test broken JSON). When a
//! turn's replies run out, the brain calls `stop`.

use std::path::Path;

use serde::Deserialize;

use super::{
    AssistantReply, ChatBackend, ChatMessage, ChatRequest, CompleteFuture, LlmError, ToolCall,
};

/// Prefix of the loop's warning messages, which are not human turns.
const WARNING_PREFIX: &str = "Warning from the robot's control system";

/// Canned replies, turn by turn.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedBrain {
    #[serde(default, rename = "turn")]
    turns: Vec<ScriptedTurn>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedTurn {
    #[serde(default, rename = "reply")]
    replies: Vec<ScriptedReply>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedReply {
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ScriptedCall>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedCall {
    name: String,
    #[serde(default)]
    arguments: Option<toml::Value>,
}

/// Why a script could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// Unreadable file.
    #[error("cannot read scripted responses {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    /// Not of the expected form.
    #[error("{path}: not valid scripted responses: {message}")]
    Parse { path: String, message: String },
}

impl ScriptedBrain {
    /// Reads canned replies from a file.
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
            path: origin.clone(),
            source,
        })?;
        Self::from_toml_str(&text, &origin)
    }

    /// Parses canned replies; `origin` names the text in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, ScriptError> {
        toml::from_str(text).map_err(|error| ScriptError::Parse {
            path: origin.to_string(),
            message: error.to_string().trim().replace('\n', " "),
        })
    }

    fn reply_for(&self, request: &ChatRequest) -> AssistantReply {
        // Which human turn this is, and how many replies it already got.
        let mut turn: Option<usize> = None;
        let mut replies_in_turn = 0;
        for message in &request.messages {
            match message {
                ChatMessage::User { content } if !content.starts_with(WARNING_PREFIX) => {
                    turn = Some(turn.map_or(0, |t| t + 1));
                    replies_in_turn = 0;
                }
                ChatMessage::Assistant { .. } => replies_in_turn += 1,
                _ => {}
            }
        }
        let scripted = turn
            .and_then(|t| self.turns.get(t))
            .and_then(|t| t.replies.get(replies_in_turn));
        match scripted {
            Some(reply) => AssistantReply {
                content: reply.content.clone(),
                tool_calls: reply
                    .tool_calls
                    .iter()
                    .enumerate()
                    .map(|(i, call)| ToolCall {
                        id: format!("call_{}_{}_{i}", turn.unwrap_or(0), replies_in_turn),
                        name: call.name.clone(),
                        arguments: match &call.arguments {
                            None => "{}".to_string(),
                            Some(toml::Value::String(raw)) => raw.clone(),
                            Some(value) => {
                                serde_json::to_string(value).unwrap_or_else(|_| "{}".into())
                            }
                        },
                    })
                    .collect(),
                finish_reason: Some("tool_calls".into()),
                usage: None,
            },
            None => AssistantReply {
                content: None,
                tool_calls: vec![ToolCall {
                    id: format!("call_{}_{}_stop", turn.unwrap_or(0), replies_in_turn),
                    name: "stop".into(),
                    arguments: "{}".into(),
                }],
                finish_reason: Some("tool_calls".into()),
                usage: None,
            },
        }
    }
}

impl ChatBackend for ScriptedBrain {
    fn complete<'a>(&'a self, request: &'a ChatRequest) -> CompleteFuture<'a> {
        let reply: Result<AssistantReply, LlmError> = Ok(self.reply_for(request));
        Box::pin(async move { reply })
    }

    fn describe(&self) -> String {
        format!("scripted brain ({} turns)", self.turns.len())
    }
}
