//! One LLM reply within a turn. It is taken as it streams: looking and
//! talking (queries, gaze, speak) run as soon as each call is complete, so
//! the robot speaks while the model still writes the action; actions and
//! `stop` wait for the whole reply and run in the paper's order. A reply that
//! breaks off, repeats a call, acts before it speaks or stops in the middle
//! gets one warning back; nothing runs twice.

use std::collections::BTreeSet;
use std::time::Instant;

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::{canonical, rank, refuse, Agent, CallFlags, EndReason, EventSink, TurnState};
use crate::agent::tools::{self, ToolCategory};
use crate::events::Event;
use crate::llm::{
    AssistantReply, ChatBackend, ChatMessage, ChatRequest, LlmError, ReplyEvent, ToolCall,
};
use crate::twin::Twin;

/// A call that already ran, and what it returned.
pub(super) struct Ran {
    call: ToolCall,
    result: String,
    flags: CallFlags,
}

/// How taking one reply went.
pub(super) enum Taken {
    /// The whole reply; `ran` are its calls that already ran while it streamed.
    Reply {
        reply: AssistantReply,
        ran: Vec<Ran>,
    },
    /// The reply broke off; `ran` are the complete calls that ran.
    Cut { error: LlmError, ran: Vec<Ran> },
    /// The turn ends (interrupt, time) while the reply came.
    Ended { reason: EndReason, ran: Vec<Ran> },
    /// The LLM failed before any of its calls ran.
    Failed(LlmError),
}

/// What the loop does after a reply.
pub(super) enum Settled {
    /// Ask the LLM again.
    Next,
    /// The turn is over.
    End(EndReason),
}

/// Calls that may run before the reply is whole: they look or talk.
fn runs_early(name: &str) -> bool {
    matches!(
        tools::definition(name).map(|d| d.category),
        Some(ToolCategory::Query)
    ) || ["gaze", "speak"].contains(&name)
}

impl Agent {
    /// Takes the LLM's reply to `request`, running early calls as they complete.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn take_reply(
        &mut self,
        backend: &dyn ChatBackend,
        request: &ChatRequest,
        twin: &mut Twin,
        state: &mut TurnState,
        events: &mut (dyn EventSink + Send),
        cancel: &CancellationToken,
        deadline: Instant,
    ) -> Taken {
        let mut stream = backend.stream(request);
        let mut ran = Vec::new();
        let mut seen = BTreeSet::new();
        loop {
            let next = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Taken::Ended { reason: EndReason::Interrupted, ran },
                next = tokio::time::timeout_at(deadline.into(), stream.next()) => next,
            };
            let event = match next {
                Err(_elapsed) => {
                    return Taken::Ended {
                        reason: EndReason::Timeout,
                        ran,
                    }
                }
                Ok(None) => {
                    let error = LlmError::Cut {
                        detail: "the reply ended without its last part".into(),
                    };
                    return Taken::Cut { error, ran };
                }
                Ok(Some(event)) => event,
            };
            match event {
                Ok(ReplyEvent::Done(reply)) => return Taken::Reply { reply, ran },
                Ok(ReplyEvent::Call(call)) if runs_early(&call.name) => {
                    let (result, flags) = self
                        .run_in_reply(&call, &mut seen, twin, state, events, cancel)
                        .await;
                    ran.push(Ran {
                        call,
                        result,
                        flags,
                    });
                }
                // Actions and stop wait for the whole reply.
                Ok(ReplyEvent::Call(_)) => {}
                Err(error @ LlmError::Cut { .. }) => return Taken::Cut { error, ran },
                Err(error) if !ran.is_empty() => return Taken::Cut { error, ran },
                Err(error) => return Taken::Failed(error),
            }
        }
    }

    /// Records a reply in the history, runs what is left of it, and says how the turn goes on.
    pub(super) async fn settle(
        &mut self,
        taken: Taken,
        twin: &mut Twin,
        state: &mut TurnState,
        events: &mut (dyn EventSink + Send),
        cancel: &CancellationToken,
    ) -> Settled {
        match taken {
            Taken::Failed(error) => {
                let kind = if error.is_timeout() {
                    "llm_timeout"
                } else {
                    "llm_error"
                };
                events.emit(Event::Warning {
                    kind: kind.into(),
                    detail: error.to_string(),
                });
                Settled::End(if error.is_timeout() {
                    EndReason::Timeout
                } else {
                    EndReason::LlmError
                })
            }
            Taken::Ended { reason, ran } => {
                self.record_ran(None, &ran);
                Settled::End(reason)
            }
            Taken::Cut { error, ran } => {
                self.record_ran(None, &ran);
                if state.cut_warnings > 0 {
                    events.emit(Event::Warning {
                        kind: "llm_error".into(),
                        detail: error.to_string(),
                    });
                    return Settled::End(EndReason::LlmError);
                }
                state.cut_warnings += 1;
                let done = match ran.as_slice() {
                    [] => "None of its calls ran.".to_string(),
                    ran => format!(
                        "Its complete calls ran: {}.",
                        ran.iter()
                            .map(|r| r.call.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                self.warn(
                    events,
                    "reply_cut_off",
                    &format!("Your last reply was cut off ({error}). {done} Reply again with what is still to do."),
                );
                Settled::Next
            }
            Taken::Reply { reply, ran } => {
                self.settle_reply(reply, ran, twin, state, events, cancel)
                    .await
            }
        }
    }

    /// A whole reply: its calls that did not run yet run now, look-talk-move-stop.
    async fn settle_reply(
        &mut self,
        reply: AssistantReply,
        ran: Vec<Ran>,
        twin: &mut Twin,
        state: &mut TurnState,
        events: &mut (dyn EventSink + Send),
        cancel: &CancellationToken,
    ) -> Settled {
        let content = reply.content.clone().filter(|c| !c.trim().is_empty());
        if reply.tool_calls.is_empty() && ran.is_empty() {
            self.history.push(ChatMessage::Assistant {
                content,
                tool_calls: Vec::new(),
            });
            if state.tools_run > 0 || state.no_call_warnings > 0 {
                return Settled::End(EndReason::NoToolCall);
            }
            state.no_call_warnings += 1;
            self.warn(
                events,
                "no_tool_call",
                "You replied without calling a tool. Use the tools to check whether anyone needs help; speak only with the speak tool; call stop when you are finished.",
            );
            return Settled::Next;
        }
        let mut late_warnings = order_warnings(&reply.tool_calls);
        if content.is_some() {
            late_warnings.push((
                "answer_with_pending_calls",
                "Your text outside the tools is not heard by anyone; use speak to talk to the humans.".into(),
            ));
        }
        let ran_ids: BTreeSet<&str> = ran.iter().map(|r| r.call.id.as_str()).collect();
        let mut rest: Vec<ToolCall> = reply
            .tool_calls
            .iter()
            .filter(|c| !ran_ids.contains(c.id.as_str()))
            .cloned()
            .collect();
        self.record_ran(Some((content, &rest)), &ran);
        let mut seen: BTreeSet<String> = ran.iter().map(|r| call_key(&r.call)).collect();
        let mut stop = ran.iter().any(|r| r.flags.stop);
        let mut end = ran
            .iter()
            .any(|r| r.flags.end_repeated)
            .then_some(EndReason::RepeatedCalls);
        rest.sort_by_key(|c| rank(&c.name));
        for call in &rest {
            self.wait_for_speech(&call.name, events).await;
            if cancel.is_cancelled() {
                // Every call still gets its result, so the history stays well-formed.
                self.history.push(ChatMessage::Tool {
                    call_id: call.id.clone(),
                    content: "Not done: the humans interrupted you before this call ran.".into(),
                });
                end = Some(EndReason::Interrupted);
                continue;
            }
            let (result, flags) = self
                .run_in_reply(call, &mut seen, twin, state, events, cancel)
                .await;
            self.history.push(ChatMessage::Tool {
                call_id: call.id.clone(),
                content: result,
            });
            stop |= flags.stop;
            if flags.end_repeated {
                end.get_or_insert(EndReason::RepeatedCalls);
            }
        }
        for (kind, text) in late_warnings {
            self.warn(events, kind, &text);
        }
        match end {
            Some(reason) => Settled::End(reason),
            None if stop => Settled::End(EndReason::Stop),
            None => Settled::Next,
        }
    }

    /// The assistant message of a reply (the calls that ran, then `rest`) and
    /// the results of the calls that ran; nothing when nothing ran or is left.
    fn record_ran(&mut self, whole: Option<(Option<String>, &[ToolCall])>, ran: &[Ran]) {
        let (content, rest) = whole.unwrap_or((None, &[]));
        if ran.is_empty() && rest.is_empty() {
            return;
        }
        let mut calls: Vec<ToolCall> = ran.iter().map(|r| r.call.clone()).collect();
        calls.extend(rest.iter().cloned());
        self.history.push(ChatMessage::Assistant {
            content,
            tool_calls: calls,
        });
        for r in ran {
            self.history.push(ChatMessage::Tool {
                call_id: r.call.id.clone(),
                content: r.result.clone(),
            });
        }
    }

    /// Runs one call of a reply, unless the same call came earlier in it.
    async fn run_in_reply(
        &mut self,
        call: &ToolCall,
        seen: &mut BTreeSet<String>,
        twin: &mut Twin,
        state: &mut TurnState,
        events: &mut (dyn EventSink + Send),
        cancel: &CancellationToken,
    ) -> (String, CallFlags) {
        if !seen.insert(call_key(call)) {
            let text = format!(
                "Not run: {} with these arguments came earlier in the same reply, and ran once.",
                call.name
            );
            let args = serde_json::from_str(&call.arguments).unwrap_or_default();
            refuse(events, "duplicate_call_in_reply", &call.name, args, &text);
            return (text, CallFlags::default());
        }
        self.run_call(call, twin, state, events, cancel).await
    }
}

/// The key two calls share when they are the same call.
fn call_key(call: &ToolCall) -> String {
    let args = serde_json::from_str(&call.arguments)
        .map(|v| canonical(&v))
        .unwrap_or_else(|_| call.arguments.trim().to_string());
    format!("{}{args}", call.name)
}

/// Warnings about the order the model wrote a reply's calls in (they run in the paper's order).
fn order_warnings(calls: &[ToolCall]) -> Vec<(&'static str, String)> {
    let mut warnings = Vec::new();
    let category = |c: &ToolCall| tools::definition(&c.name).map(|d| d.category);
    let first_action = calls
        .iter()
        .position(|c| category(c) == Some(ToolCategory::Action));
    let first_speech = calls.iter().position(|c| c.name == "speak");
    if let (Some(action), Some(speech)) = (first_action, first_speech) {
        if action < speech {
            warnings.push((
                "action_before_speech",
                format!(
                    "In your last reply {} came before speak; it ran after speak. Explain first, then act.",
                    calls[action].name
                ),
            ));
        }
    }
    let last = calls.len().saturating_sub(1);
    if let Some(stop) = calls
        .iter()
        .position(|c| category(c) == Some(ToolCategory::Stop))
    {
        if stop < last {
            warnings.push((
                "stop_not_last",
                "In your last reply stop came before other calls; they ran first and stop last. Call stop only at the end.".into(),
            ));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, args: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
        }
    }

    #[test]
    fn acting_before_speaking_and_stopping_early_are_named() {
        let calls = [
            call("1", "stop", "{}"),
            call("2", "hand_object_over_to_person", "{}"),
            call("3", "speak", "{}"),
        ];
        let kinds: Vec<&str> = order_warnings(&calls).iter().map(|w| w.0).collect();
        assert_eq!(kinds, ["action_before_speech", "stop_not_last"]);
        let fine = [
            call("1", "speak", "{}"),
            call("2", "pour_into", "{}"),
            call("3", "stop", "{}"),
        ];
        assert!(order_warnings(&fine).is_empty());
    }

    #[test]
    fn the_same_call_is_the_same_whatever_the_spacing_or_key_order() {
        let a = call("1", "speak", r#"{"person_name": "Felix", "text": "Hi"}"#);
        let b = call("2", "speak", r#"{"text":"Hi","person_name":"Felix"}"#);
        assert_eq!(call_key(&a), call_key(&b));
        assert!(runs_early("speak") && runs_early("check_hindering_reasons"));
        assert!(!runs_early("hand_object_over_to_person") && !runs_early("stop"));
    }
}
