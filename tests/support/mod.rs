//! Shared helpers for integration tests: `mod support;` then `use support::fake_llm::...`.
#![allow(dead_code)]

pub mod daemon;
pub mod fake_llm;
pub mod pulse;

/// The kinds of the warnings among `events`, in order.
pub fn warning_kinds(events: &[attentive::events::Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            attentive::events::Event::Warning { kind, .. } => Some(kind.clone()),
            _ => None,
        })
        .collect()
}

/// The last user message of a chat-completions request body.
pub fn last_user(body: &serde_json::Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}
