//! What the rules brain reads from a chat request: the human turns, and the
//! tool calls made since the last one with their results.

use serde_json::Value;

use crate::agent::Turn;
use crate::llm::ChatMessage;

/// Prefixes of the control system's messages, which are not human turns.
const SYSTEM_PREFIXES: [&str; 2] = [
    "Warning from the robot's control system",
    "Note from the robot's control system",
];

/// One tool call made, with its result.
#[derive(Debug, Clone)]
pub struct Done {
    /// Tool name.
    pub name: String,
    /// Arguments as sent.
    pub args: Value,
    /// The tool's text.
    pub result: String,
}

/// The dialogue as the brain sees it.
#[derive(Debug, Clone)]
pub struct Dialogue {
    /// Human turns before the current one, oldest first.
    pub earlier: Vec<Turn>,
    /// The turn being answered.
    pub turn: Turn,
    /// Calls made for this turn.
    pub done: Vec<Done>,
    /// Calls made for earlier turns.
    pub done_before: Vec<Done>,
    /// Calls made for the turn just before this one.
    pub done_last: Vec<Done>,
}

impl Dialogue {
    /// Reads a request's messages; `None` when there is no human turn.
    pub fn read(messages: &[ChatMessage]) -> Option<Self> {
        let turns: Vec<(usize, Turn)> = messages
            .iter()
            .enumerate()
            .filter_map(|(i, m)| match m {
                ChatMessage::User { content }
                    if !SYSTEM_PREFIXES.iter().any(|p| content.starts_with(p)) =>
                {
                    Turn::parse_message(content).ok().map(|t| (i, t))
                }
                _ => None,
            })
            .collect();
        let ((at, turn), earlier) = turns.split_last()?;
        let last_at = earlier.last().map_or(*at, |(i, _)| *i);
        Some(Self {
            earlier: earlier.iter().map(|(_, t)| t.clone()).collect(),
            turn: turn.clone(),
            done: done_in(messages, *at, messages.len()),
            done_before: done_in(messages, 0, *at),
            done_last: done_in(messages, last_at, *at),
        })
    }

    /// The first call of this turn to `tool`.
    pub fn find(&self, tool: &str) -> Option<&Done> {
        self.done.iter().find(|d| d.name == tool)
    }

    /// The first call of this turn to `tool` with these arguments.
    pub fn find_with(&self, tool: &str, args: &Value) -> Option<&Done> {
        self.done.iter().find(|d| d.name == tool && &d.args == args)
    }

    /// Whether the robot has said something in this turn.
    pub fn spoke(&self) -> bool {
        self.done
            .iter()
            .any(|d| d.name == "speak" && d.result.starts_with("You said"))
    }
}

/// The tool calls of messages `from..to`, with their results.
fn done_in(messages: &[ChatMessage], from: usize, to: usize) -> Vec<Done> {
    let mut done = Vec::new();
    for (i, m) in messages.iter().enumerate().take(to).skip(from) {
        if let ChatMessage::Assistant { tool_calls, .. } = m {
            for call in tool_calls {
                let result = messages[i + 1..]
                    .iter()
                    .find_map(|r| match r {
                        ChatMessage::Tool { call_id, content } if call_id == &call.id => {
                            Some(content.clone())
                        }
                        _ => None,
                    })
                    .unwrap_or_default();
                done.push(Done {
                    name: call.name.clone(),
                    args: serde_json::from_str(&call.arguments).unwrap_or(Value::Null),
                    result,
                });
            }
        }
    }
    done
}
