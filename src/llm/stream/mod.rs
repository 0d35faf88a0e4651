//! Streamed replies: server-sent chat-completion chunks assembled into tool
//! calls as each one completes, so the agent can speak while the model is
//! still writing the action after it.
//!
//! A call is complete when the stream moves on to the next call, or at the
//! end, and its arguments are whole JSON. The end of the stream must carry a
//! `finish_reason`; a stream that stops without one was cut off.

pub mod sse;

use std::pin::Pin;

use futures_util::Stream;
use serde_json::{json, Map, Value};

use super::{lenient, AssistantReply, LlmError, ToolCall};

/// What a streamed reply yields.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplyEvent {
    /// A tool call whose arguments are complete (streaming back ends only).
    Call(ToolCall),
    /// The whole reply, parsed as a non-streamed one; always last.
    Done(AssistantReply),
}

/// A reply as it arrives.
pub type ReplyStream<'a> = Pin<Box<dyn Stream<Item = Result<ReplyEvent, LlmError>> + Send + 'a>>;

/// One tool call being written by the model.
#[derive(Debug, Default, Clone)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
    announced: bool,
}

/// Assembles chat-completion chunks (`choices[0].delta`) into a reply.
#[derive(Debug, Default)]
pub struct ChunkAssembler {
    content: String,
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    usage: Option<Value>,
    chunks: usize,
}

impl ChunkAssembler {
    /// Chunks taken so far.
    pub fn chunks(&self) -> usize {
        self.chunks
    }

    /// Takes one chunk; returns the calls it completed (those before the one now written).
    pub fn push(&mut self, chunk: &Value) -> Result<Vec<ToolCall>, LlmError> {
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(LlmError::BadResponse {
                detail: format!(
                    "the server reported an error mid-stream: {}",
                    super::excerpt(&error.to_string(), 300)
                ),
            });
        }
        self.chunks += 1;
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(Vec::new());
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
        let Some(delta) = choice.get("delta").or_else(|| choice.get("message")) else {
            return Ok(Vec::new());
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.content.push_str(text);
        }
        let mut started_new = false;
        for part in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            started_new |= self.take_call_part(part);
        }
        // Every call before the one being written is complete.
        let written = if started_new || self.finish_reason.is_some() {
            self.calls
                .len()
                .saturating_sub(usize::from(self.finish_reason.is_none()))
        } else {
            0
        };
        Ok(self.announce_up_to(written))
    }

    /// Adds one `tool_calls[]` delta; true when it opened a new call.
    fn take_call_part(&mut self, part: &Value) -> bool {
        let index = part
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok());
        let id = part
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        // A new call: a higher index, or (servers without indexes) a new id.
        let slot = match index {
            Some(i) => i,
            None if id.is_some() && self.calls.last().and_then(|c| c.id.as_deref()) != id => {
                self.calls.len()
            }
            None => self.calls.len().saturating_sub(1),
        };
        let opened = slot >= self.calls.len();
        while self.calls.len() <= slot {
            self.calls.push(PartialCall::default());
        }
        let call = &mut self.calls[slot];
        if let Some(id) = id {
            call.id.get_or_insert_with(|| id.to_string());
        }
        let function = part.get("function").unwrap_or(part);
        if let Some(name) = function.get("name").and_then(Value::as_str) {
            call.name.push_str(name);
        }
        match function.get("arguments") {
            Some(Value::String(text)) => call.arguments.push_str(text),
            Some(Value::Null) | None => {}
            Some(other) => call.arguments.push_str(&other.to_string()),
        }
        opened
    }

    fn announce_up_to(&mut self, written: usize) -> Vec<ToolCall> {
        let mut done = Vec::new();
        for (index, call) in self.calls.iter_mut().enumerate().take(written) {
            if call.announced || call.name.is_empty() {
                continue;
            }
            let arguments = if call.arguments.trim().is_empty() {
                "{}"
            } else {
                call.arguments.as_str()
            };
            // Malformed arguments are left to the whole reply (the agent warns once).
            if serde_json::from_str::<Value>(arguments).is_err() {
                continue;
            }
            call.announced = true;
            done.push(ToolCall {
                id: call_id(call.id.as_deref(), index),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
        }
        done
    }

    /// The whole reply once the stream ended; an error when it was cut off.
    pub fn finish(self) -> Result<AssistantReply, LlmError> {
        if self.finish_reason.is_none() {
            let detail = if self.chunks == 0 {
                "the stream ended before the first chunk".to_string()
            } else {
                format!(
                    "the stream ended after {} chunks, before the reply was finished{}",
                    self.chunks,
                    self.cut_call()
                )
            };
            return Err(LlmError::Cut { detail });
        }
        lenient::parse_reply(&self.completion())
    }

    fn cut_call(&self) -> String {
        match self.calls.iter().rev().find(|c| !c.announced) {
            Some(call) if !call.name.is_empty() => format!(" (in the middle of {})", call.name),
            _ => String::new(),
        }
    }

    /// The chunks as one non-streamed completion body.
    fn completion(&self) -> Value {
        let calls: Vec<Value> = self
            .calls
            .iter()
            .enumerate()
            .map(|(index, c)| {
                json!({"id": call_id(c.id.as_deref(), index), "type": "function",
                       "function": {"name": c.name, "arguments": c.arguments}})
            })
            .collect();
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        message.insert("content".into(), json!(self.content));
        if !calls.is_empty() {
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        let mut body = json!({"choices": [{"index": 0, "message": message,
                                           "finish_reason": self.finish_reason}]});
        if let Some(usage) = &self.usage {
            body["usage"] = usage.clone();
        }
        body
    }
}

/// The id a call is known by: the server's, else `call_<index>` as in [`lenient`].
fn call_id(id: Option<&str>, index: usize) -> String {
    match id {
        Some(id) if !id.trim().is_empty() => id.to_string(),
        _ => format!("call_{index}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_part(index: u64, id: Option<&str>, name: Option<&str>, args: &str) -> Value {
        let mut function = json!({"arguments": args});
        if let Some(name) = name {
            function["name"] = json!(name);
        }
        let mut part = json!({"index": index, "function": function});
        if let Some(id) = id {
            part["id"] = json!(id);
            part["type"] = json!("function");
        }
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [part]}}]})
    }

    #[test]
    fn a_call_is_announced_when_the_next_one_starts() {
        let mut a = ChunkAssembler::default();
        assert!(a
            .push(&call_part(
                0,
                Some("c1"),
                Some("speak"),
                "{\"person_name\":"
            ))
            .unwrap()
            .is_empty());
        assert!(a
            .push(&call_part(0, None, None, "\"Felix\",\"text\":\"Here.\"}"))
            .unwrap()
            .is_empty());
        let done = a
            .push(&call_part(
                1,
                Some("c2"),
                Some("hand_object_over_to_person"),
                "",
            ))
            .unwrap();
        assert_eq!(done.len(), 1);
        assert_eq!(
            (done[0].id.as_str(), done[0].name.as_str()),
            ("c1", "speak")
        );
        a.push(&call_part(
            1,
            None,
            None,
            "{\"object_name\":\"red_glass\",\"person_name\":\"Felix\"}",
        ))
        .unwrap();
        let last = a
            .push(
                &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
                          "usage": {"prompt_tokens": 100, "completion_tokens": 20}}),
            )
            .unwrap();
        assert_eq!(last.len(), 1);
        assert_eq!(last[0].name, "hand_object_over_to_person");
        let reply = a.finish().unwrap();
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(reply.tool_calls[0].id, "c1");
        assert_eq!(reply.usage.map(|u| u.prompt_tokens), Some(100));
    }

    #[test]
    fn a_stream_without_a_finish_reason_was_cut_off() {
        let mut a = ChunkAssembler::default();
        a.push(&call_part(
            0,
            Some("c1"),
            Some("speak"),
            "{\"person_name\":\"Fe",
        ))
        .unwrap();
        let err = a.finish().unwrap_err();
        assert!(matches!(err, LlmError::Cut { .. }), "{err}");
        assert!(err.to_string().contains("speak"), "{err}");
        assert!(ChunkAssembler::default()
            .finish()
            .unwrap_err()
            .to_string()
            .contains("before the first chunk"));
    }

    #[test]
    fn malformed_arguments_are_not_announced_early() {
        let mut a = ChunkAssembler::default();
        a.push(&call_part(0, None, Some("speak"), "{not json"))
            .unwrap();
        let done = a.push(&call_part(1, None, Some("stop"), "{}")).unwrap();
        assert!(done.is_empty());
        let end = a
            .push(&json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}))
            .unwrap();
        assert_eq!(end.len(), 1);
        let reply = a.finish().unwrap();
        assert_eq!(reply.tool_calls[0].arguments, "{not json");
        assert_eq!(reply.tool_calls[1].id, "call_1");
    }

    #[test]
    fn text_content_is_kept_and_errors_mid_stream_are_errors() {
        let mut a = ChunkAssembler::default();
        a.push(&json!({"choices": [{"delta": {"content": "Hel"}}]}))
            .unwrap();
        a.push(&json!({"choices": [{"delta": {"content": "lo"}, "finish_reason": "stop"}]}))
            .unwrap();
        assert_eq!(a.finish().unwrap().content.as_deref(), Some("Hello"));
        let mut b = ChunkAssembler::default();
        assert!(b
            .push(&json!({"error": {"message": "overloaded"}}))
            .is_err());
    }
}
