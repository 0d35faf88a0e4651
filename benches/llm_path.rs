//! How soon the robot speaks and acts after a turn, with an LLM that takes
//! its time: a local OpenAI-compatible test double (real HTTP on loopback)
//! that answers like a model after 500 ms to the first token and 40 ms per
//! streamed chunk (a whole reply waits for all its chunks). It behaves as a
//! capable model does on a plain hand-over ("Daniel, could you hand me the
//! red glass?"): without the situation note it first checks the listener's
//! hindrances; it writes several calls in one reply when parallel calls are
//! allowed, else one per reply.
//!
//! `cargo bench --bench llm_path` prints, for each combination of the note,
//! parallel calls and streaming: turn → first `speech` event, turn → the
//! action's start, LLM calls, and prompt tokens per turn (the double counts
//! characters / 4 of what it was sent, an estimate). Medians of 5 turns.
//! The simulated action itself takes no time here.

#[path = "../tests/support/fake_llm.rs"]
mod fake_llm;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use attentive::agent::tools::ToolTexts;
use attentive::agent::{Agent, Character, EventSink, Turn};
use attentive::config::{AgentSettings, GuardSettings, LlmSettings, Situation};
use attentive::events::Event;
use attentive::llm::OpenAiCompatible;
use attentive::twin::Twin;
use fake_llm::{completion, FakeLlm, Pace, Scripted};

const TURN: &str = "Felix said to Daniel: Daniel, could you hand me the red glass, please?";
const RUNS: usize = 5;

/// The calls of this turn so far (after the last turn message), by name.
fn done_this_turn(messages: &[Value]) -> Vec<String> {
    let start = messages
        .iter()
        .rposition(|m| {
            m["role"] == "user"
                && m["content"]
                    .as_str()
                    .is_some_and(|c| c.contains(" said to "))
        })
        .unwrap_or(0);
    messages[start..]
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["function"]["name"].as_str().map(str::to_string))
        .collect()
}

/// The model: check (unless the note told it), speak, hand over, stop.
fn model(body: &Value) -> Scripted {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let noted = messages.iter().any(|m| {
        m["content"]
            .as_str()
            .is_some_and(|c| c.contains("Note from the robot's control system: Felix asks Daniel"))
    });
    let done = done_this_turn(&messages);
    let parallel = body["parallel_tool_calls"] != false;
    let steps: Vec<(&str, Value)> = vec![
        (
            "check_hindering_reasons",
            json!({"person_name": "Daniel", "object_name": "red_glass"}),
        ),
        (
            "speak",
            json!({"person_name": "Felix", "text": "Daniel cannot reach the red glass, so I will hand it to you."}),
        ),
        (
            "hand_object_over_to_person",
            json!({"object_name": "red_glass", "person_name": "Felix"}),
        ),
        ("stop", json!({})),
    ];
    let mut todo: Vec<(&str, Value)> = steps
        .into_iter()
        .filter(|(name, _)| !(noted && *name == "check_hindering_reasons"))
        .filter(|(name, _)| !done.iter().any(|d| d == name))
        .collect();
    // The check needs its answer before the model can decide the rest.
    let next: Vec<(&str, Value)> = match todo.first() {
        Some(("check_hindering_reasons", _)) => todo.drain(..1).collect(),
        _ if parallel => todo,
        _ => todo.drain(..1.min(todo.len())).collect(),
    };
    let prompt_chars = body["messages"].to_string().len() + body["tools"].to_string().len();
    let mut reply = match Scripted::tool_calls(&next) {
        Scripted::Json { body, .. } => body,
        _ => completion(json!({"role": "assistant", "content": ""}), "stop"),
    };
    reply["usage"] = json!({"prompt_tokens": prompt_chars / 4, "completion_tokens": 20});
    Scripted::ok(reply)
}

/// Times the first speech and the first action from the turn's start.
struct Clock {
    start: Instant,
    speech: Option<Duration>,
    action: Option<Duration>,
}

impl EventSink for Clock {
    fn emit(&mut self, event: Event) {
        match event {
            Event::Speech { .. } if self.speech.is_none() => {
                self.speech = Some(self.start.elapsed())
            }
            Event::ToolCall { name, ok: true, .. }
                if name == "hand_object_over_to_person" && self.action.is_none() =>
            {
                self.action = Some(self.start.elapsed())
            }
            _ => {}
        }
    }
}

struct Row {
    speech_ms: f64,
    action_ms: f64,
    calls: u32,
    prompt_tokens: u64,
}

async fn one_turn(server: &FakeLlm, situation: Situation, parallel: bool, stream: bool) -> Row {
    let llm = LlmSettings {
        base_url: Some(server.base_url()),
        parallel_tool_calls: Some(parallel),
        stream,
        retries: 0,
        ..LlmSettings::default()
    };
    let (backend, meter) = attentive::llm::meter::Metered::wrap(Box::new(
        OpenAiCompatible::from_settings(&llm).expect("backend"),
    ));
    let mut agent = Agent::new(
        Box::new(backend),
        Character::load("full", "the_robot").expect("character"),
        &ToolTexts::load_default().expect("tools"),
        "the_robot",
        AgentSettings {
            situation: Some(situation),
            ..AgentSettings::default()
        },
        GuardSettings::default(),
    )
    .with_shipped_understanding();
    let mut twin = Twin::load("softdrinks").expect("scene");
    let turn = Turn::parse(TURN).expect("turn");
    let mut clock = Clock {
        start: Instant::now(),
        speech: None,
        action: None,
    };
    let report = agent.handle_turn(&turn, &mut twin, &mut clock).await;
    let ms = |d: Option<Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0);
    Row {
        speech_ms: ms(clock.speech),
        action_ms: ms(clock.action),
        calls: report.llm_calls,
        prompt_tokens: meter.take().prompt_tokens,
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let server = FakeLlm::start(vec![]).await;
        let responder: fake_llm::Responder = Arc::new(model);
        server.set_responder(responder);
        server.set_pace(Pace {
            first: Duration::from_millis(500),
            per_chunk: Duration::from_millis(40),
        });
        println!("| situation | parallel | stream | turn → speech (ms) | turn → action (ms) | LLM calls | prompt tokens |");
        println!("|---|---|---|---:|---:|---:|---:|");
        for situation in [Situation::Off, Situation::Facts] {
            for parallel in [false, true] {
                for stream in [false, true] {
                    let mut runs = Vec::new();
                    for _ in 0..RUNS {
                        runs.push(one_turn(&server, situation, parallel, stream).await);
                    }
                    let speech = median(runs.iter().map(|r| r.speech_ms).collect());
                    let action = median(runs.iter().map(|r| r.action_ms).collect());
                    let calls = runs[0].calls;
                    let tokens = runs[0].prompt_tokens;
                    println!(
                        "| {} | {} | {} | {speech:.0} | {action:.0} | {calls} | {tokens} |",
                        if situation == Situation::Facts { "facts" } else { "off" },
                        if parallel { "on" } else { "off" },
                        if stream { "on" } else { "off" },
                    );
                }
            }
        }
    });
}
