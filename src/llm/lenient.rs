//! Lenient parsing of chat-completion responses.
//!
//! Local servers (llama.cpp, Ollama, vLLM, ...) deviate from the OpenAI schema:
//! missing `id`/`created`/`object`/`usage`, unknown `finish_reason` (`eos`),
//! `arguments` sent as a JSON object, `content` null or missing or a list of
//! parts, tool calls without `type` or `id`. All of these are accepted here.

use serde_json::Value;

use super::{excerpt, AssistantReply, LlmError, ToolCall, Usage};

/// Parse a chat-completion response body (already JSON) into an [`AssistantReply`].
pub fn parse_reply(body: &Value) -> Result<AssistantReply, LlmError> {
    let root = body
        .as_object()
        .ok_or_else(|| bad("the body is not a JSON object", body))?;
    if let Some(err) = root.get("error").filter(|e| !e.is_null()) {
        let message = err
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| err.to_string());
        return Err(LlmError::BadResponse {
            detail: format!("the server reported an error: {}", excerpt(&message, 300)),
        });
    }
    let choice = root
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .ok_or_else(|| bad("no `choices`", body))?;
    let message = choice
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| bad("the first choice has no `message`", body))?;

    let content = parse_content(message.get("content"));
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for (index, call) in calls.iter().enumerate() {
            tool_calls.push(parse_tool_call(call, index));
        }
    }
    // Legacy single `function_call` (pre-tools OpenAI API, some old servers).
    if tool_calls.is_empty() {
        if let Some(call) = message.get("function_call").filter(|c| c.is_object()) {
            tool_calls.push(parse_function(call, None, 0));
        }
    }
    let finish_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(str::to_string);
    let usage = root.get("usage").filter(|u| u.is_object()).map(|u| Usage {
        prompt_tokens: count(u.get("prompt_tokens")),
        completion_tokens: count(u.get("completion_tokens")),
    });
    Ok(AssistantReply {
        content,
        tool_calls,
        finish_reason,
        usage,
    })
}

fn bad(what: &str, body: &Value) -> LlmError {
    LlmError::BadResponse {
        detail: format!("{what} in {}", excerpt(&body.to_string(), 300)),
    }
}

/// Content as text: a string, or the concatenated text of a list of parts; empty is `None`.
fn parse_content(content: Option<&Value>) -> Option<String> {
    let text = match content? {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                other => other.get("text").and_then(Value::as_str),
            })
            .collect::<Vec<_>>()
            .join(""),
        _ => return None,
    };
    if text.trim().is_empty() {
        None
    } else {
        Some(text)
    }
}

fn parse_tool_call(call: &Value, index: usize) -> ToolCall {
    let id = call.get("id").and_then(Value::as_str);
    // Standard shape: {"id", "type", "function": {"name", "arguments"}}; some
    // servers flatten name and arguments into the call itself.
    match call.get("function").filter(|f| f.is_object()) {
        Some(function) => parse_function(function, id, index),
        None => parse_function(call, id, index),
    }
}

fn parse_function(function: &Value, id: Option<&str>, index: usize) -> ToolCall {
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let arguments = match function.get("arguments") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => "{}".to_string(),
        Some(other) => other.to_string(),
    };
    let id = match id {
        Some(id) if !id.trim().is_empty() => id.to_string(),
        _ => format!("call_{index}"),
    };
    ToolCall {
        id,
        name,
        arguments,
    }
}

fn count(value: Option<&Value>) -> u32 {
    value
        .and_then(Value::as_u64)
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_shape_with_two_tool_calls() {
        let body = json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "speak", "arguments": "{\"text\":\"hi\"}"}},
                    {"id": "call_b", "type": "function", "function": {"name": "stop", "arguments": "{}"}}
                ]}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        });
        let reply = parse_reply(&body).unwrap();
        assert_eq!(reply.content, None);
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(reply.tool_calls[0].arguments, "{\"text\":\"hi\"}");
        assert_eq!(reply.tool_calls[1].id, "call_b");
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            reply.usage,
            Some(Usage {
                prompt_tokens: 10,
                completion_tokens: 5
            })
        );
    }

    #[test]
    fn llama_cpp_shape() {
        let body = json!({
            "choices": [{"finish_reason": "eos", "message": {
                "tool_calls": [{"function": {"name": "speak", "arguments": {"text": "hi"}}}]}}]
        });
        let reply = parse_reply(&body).unwrap();
        assert_eq!(reply.tool_calls[0].id, "call_0");
        assert_eq!(reply.tool_calls[0].arguments, "{\"text\":\"hi\"}");
        assert_eq!(reply.finish_reason.as_deref(), Some("eos"));
        assert_eq!(reply.usage, None);
        assert_eq!(reply.content, None);
    }

    #[test]
    fn content_parts_flat_calls_and_legacy_function_call() {
        let body = json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, "b"],
            "tool_calls": [{"name": "gaze", "arguments": null, "id": ""}]}}]});
        let reply = parse_reply(&body).unwrap();
        assert_eq!(reply.content.as_deref(), Some("ab"));
        assert_eq!(reply.tool_calls[0].name, "gaze");
        assert_eq!(reply.tool_calls[0].arguments, "{}");
        assert_eq!(reply.tool_calls[0].id, "call_0");

        let body = json!({"choices": [{"message": {"content": "",
            "function_call": {"name": "stop", "arguments": "{}"}}}]});
        let reply = parse_reply(&body).unwrap();
        assert_eq!(reply.content, None);
        assert_eq!(reply.tool_calls[0].name, "stop");
    }

    #[test]
    fn rejects_what_is_not_a_completion() {
        assert!(matches!(
            parse_reply(&json!([1])),
            Err(LlmError::BadResponse { .. })
        ));
        assert!(matches!(
            parse_reply(&json!({"choices": []})),
            Err(LlmError::BadResponse { .. })
        ));
        let err = parse_reply(&json!({"error": {"message": "model not loaded"}})).unwrap_err();
        assert!(err.to_string().contains("model not loaded"));
    }
}
