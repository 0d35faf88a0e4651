//! The agent's own cost per LLM round, without the LLM: the scripted brain
//! answers instantly, so the time is the loop, its checks, the tools it runs
//! and the event log.
//!
//! `cargo bench --bench agent` — one turn of three rounds (a hindrance check,
//! speech, stop) on softdrinks; divide by three for the cost per round.
//! It also prints the size of the system prompts and tool schemas as sent,
//! with an estimate of their tokens (characters / 4, stated as an estimate).
//! `cargo bench --bench agent -- rules` — one whole turn of the `rules` brain
//! (the local path of `--brain hybrid`): reading, the hindrance and reach
//! checks, speech and the planned hand-over, on softdrinks.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

use attentive::agent::tools::ToolTexts;
use attentive::agent::{Agent, Character, Turn};
use attentive::config::{AgentSettings, GuardSettings};
use attentive::events::Event;
use attentive::language::Language;
use attentive::llm::rules::RulesBrain;
use attentive::llm::scripted::ScriptedBrain;
use attentive::twin::Twin;

const RESPONSES: &str = r#"
[[turn]]
[[turn.reply]]
tool_calls = [{ name = "check_hindering_reasons", arguments = { person_name = "Daniel", object_name = "red_glass" } }]
[[turn.reply]]
tool_calls = [{ name = "speak", arguments = { person_name = "Felix", text = "Daniel cannot reach it." } }]
[[turn.reply]]
tool_calls = [{ name = "stop" }]
"#;

fn sizes() {
    let Ok(texts) = ToolTexts::load_default() else {
        return;
    };
    let schemas = serde_json::to_string(&texts.schemas("the_robot")).unwrap_or_default();
    eprintln!(
        "tool schemas: {} characters, about {} tokens (estimate: characters / 4)",
        schemas.len(),
        schemas.len() / 4
    );
    for name in ["full", "relaxed", "none"] {
        if let Ok(c) = Character::load(name, "the_robot") {
            eprintln!(
                "character {name}: {} characters, about {} tokens (estimate)",
                c.prompt.len(),
                c.prompt.len() / 4
            );
        }
    }
}

fn one_turn(c: &mut Criterion) {
    sizes();
    let (Ok(twin), Ok(texts), Ok(character), Ok(brain)) = (
        Twin::load("softdrinks"),
        ToolTexts::load_default(),
        Character::load("full", "the_robot"),
        ScriptedBrain::from_toml_str(RESPONSES, "bench"),
    ) else {
        eprintln!("run from the crate root");
        return;
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(_) => return,
    };
    let turn = Turn::parse("Felix said to Daniel: Daniel, please hand me the red glass.").ok();
    let Some(turn) = turn else { return };
    c.bench_function("agent turn, 3 LLM rounds, scripted brain", |b| {
        b.iter(|| {
            let mut agent = Agent::new(
                Box::new(brain.clone()),
                character.clone(),
                &texts,
                "the_robot",
                AgentSettings::default(),
                GuardSettings::default(),
            );
            let mut twin = twin.clone();
            let mut events: Vec<Event> = Vec::new();
            runtime.block_on(agent.handle_turn(black_box(&turn), &mut twin, &mut events))
        })
    });
}

fn one_rules_turn(c: &mut Criterion) {
    let (Ok(twin), Ok(texts), Ok(character), Ok(stage)) = (
        Twin::load("softdrinks"),
        ToolTexts::load_default(),
        Character::load("full", "the_robot"),
        Language::english(),
    ) else {
        eprintln!("run from the crate root");
        return;
    };
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let Ok(turn) = Turn::parse("Felix said to Daniel: Daniel, please hand me the red glass.")
    else {
        return;
    };
    c.bench_function("agent turn, rules brain, a hand-over", |b| {
        b.iter(|| {
            let mut agent = Agent::new(
                Box::new(RulesBrain::new(&twin.world, &stage)),
                character.clone(),
                &texts,
                "the_robot",
                AgentSettings::default(),
                GuardSettings::default(),
            )
            .with_understanding(stage.understanding().clone());
            let mut twin = twin.clone();
            let mut events: Vec<Event> = Vec::new();
            runtime.block_on(agent.handle_turn(black_box(&turn), &mut twin, &mut events))
        })
    });
}

criterion_group!(benches, one_turn, one_rules_turn);
criterion_main!(benches);
