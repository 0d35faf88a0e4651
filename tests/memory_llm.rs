//! The memory scripts through the LLM path: real HTTP to an OpenAI-compatible
//! double whose "model" acts only on what its request holds — the turn, the
//! memory block after the character's prompt, the tools offered and the
//! results of the calls it made. With memory the scripts pass; without it the
//! same model fails them, because nothing in its requests tells it more.

mod support;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};
use support::fake_llm::{FakeLlm, Scripted};

use attentive::agent::tools::ToolTexts;
use attentive::config::{AgentSettings, GuardSettings, LlmSettings};
use attentive::eval::judge::Category;
use attentive::eval::run::{self, Runner};
use attentive::language::Language;
use attentive::llm::openai::OpenAiCompatible;
use attentive::llm::ChatBackend;
use attentive::twin::World;

/// The seven cases of issue 23.
const CASES: [&str; 7] = [
    "preference.toml",
    "last_time.toml",
    "update.toml",
    "abstention.toml",
    "hearsay.toml",
    "disclosure.toml",
    "forget_me.toml",
];

fn text_of(m: &Value) -> &str {
    m["content"].as_str().unwrap_or_default()
}

/// The reply of a model that follows its tools and reads its memory block.
fn model(body: &Value) -> Scripted {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let offered = |name: &str| {
        body["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == name))
    };
    let turn_at = messages
        .iter()
        .rposition(|m| m["role"] == "user" && text_of(m).contains(" said to "))
        .unwrap_or(0);
    let turn = text_of(&messages[turn_at])
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    let (speaker, said) = turn.split_once(" said to ").unwrap_or_default();
    let said = said.split_once(": ").map_or("", |(_, s)| s).to_lowercase();
    let done: Vec<&Value> = messages[turn_at..]
        .iter()
        .filter(|m| m["role"] == "assistant")
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .collect();
    let called = |name: &str| done.iter().any(|c| c["function"]["name"] == name);
    let results: String = messages[turn_at..]
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(text_of)
        .collect::<Vec<_>>()
        .join("\n");
    let block: String = messages
        .iter()
        .skip(1)
        .take_while(|m| m["role"] == "system")
        .map(text_of)
        .collect();
    let say = |text: &str| ("speak", json!({"person_name": speaker, "text": text}));
    let stop = ("stop", json!({}));
    if called("speak") {
        return Scripted::tool_calls(&[stop]);
    }
    if let Some(fact) = said
        .strip_prefix("remember that ")
        .or_else(|| said.strip_prefix("please remember that "))
    {
        let fact = fact.trim_end_matches('.');
        if offered("remember") && !called("remember") {
            let about = if fact.starts_with("i ") || fact.starts_with("my ") {
                speaker.to_string()
            } else {
                fact.split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string()
            };
            let about = about[..1].to_uppercase() + &about[1..];
            return Scripted::tool_calls(&[(
                "remember",
                json!({"person_name": about, "fact": fact, "topic": "drink"}),
            )]);
        }
        return Scripted::tool_calls(&[say(&format!("I will remember that, {speaker}.")), stop]);
    }
    // Forgetting: ask first; a yes to that question forgets.
    let asked_to_forget = messages[..turn_at]
        .iter()
        .rev()
        .take_while(|m| m["role"] != "user" || !text_of(m).contains(" said to "))
        .any(|m| m["role"] == "tool" && text_of(m).starts_with("Not yet"));
    if said.contains("forget me") || (said.starts_with("yes") && asked_to_forget) {
        if !offered("forget") {
            return Scripted::tool_calls(&[say("I keep nothing about you."), stop]);
        }
        if !called("forget") {
            return Scripted::tool_calls(&[(
                "forget",
                json!({"person_name": speaker, "what": "everything"}),
            )]);
        }
        let answer = if results.starts_with("Not yet") {
            format!("Shall I forget everything I know about you, {speaker}?")
        } else {
            format!("Done, {speaker}: I forgot everything about you.")
        };
        return Scripted::tool_calls(&[say(&answer), stop]);
    }
    // Questions about what is remembered: recall, then say only what it returned.
    if let Some(about) = said
        .strip_prefix("what does ")
        .and_then(|r| r.split_whitespace().next())
        .or_else(|| said.contains("remember about me").then_some(speaker))
    {
        let about = about[..1].to_uppercase() + &about[1..];
        if offered("recall") && !called("recall") {
            return Scripted::tool_calls(&[(
                "recall",
                json!({"query": "drink", "person_name": about}),
            )]);
        }
        let answer = if results.contains("Withheld") {
            format!("Please ask {about} yourself.")
        } else if results.starts_with("I remember nothing") || results.is_empty() {
            "I remember nothing about that.".to_string()
        } else {
            results.clone()
        };
        return Scripted::tool_calls(&[say(&answer), stop]);
    }
    // A request: what the block says about the speaker, else what recall found.
    let mine: String = block
        .lines()
        .filter(|l| l.starts_with(&format!("- {speaker} said")))
        .chain(results.lines())
        .collect::<Vec<_>>()
        .join("\n")
        .to_lowercase();
    let named = ["red_glass", "blue_glass"]
        .into_iter()
        .find(|n| said.contains(&n.replace('_', " ")));
    let wanted = if let Some(n) = named {
        Some(n.to_string())
    } else if said.contains("last time") {
        mine.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .find(|w| w.ends_with("_glass"))
            .map(str::to_string)
    } else if mine.contains("sugar-free") || mine.contains("cola zero") {
        Some("cola_zero_bottle".into())
    } else if mine.contains("fanta") {
        Some("fanta_bottle".into())
    } else if mine.contains("cola") {
        Some("cola_bottle".into())
    } else {
        None
    };
    match wanted {
        Some(object) => Scripted::tool_calls(&[
            say(&format!(
                "You asked me, so here is the {}.",
                object.replace('_', " ")
            )),
            (
                "hand_object_over_to_person",
                json!({"object_name": object, "person_name": speaker}),
            ),
            stop,
        ]),
        None if offered("recall") && !called("recall") => Scripted::tool_calls(&[(
            "recall",
            json!({"query": "drink last time", "person_name": speaker}),
        )]),
        None => {
            Scripted::tool_calls(&[say("What would you like: cola, cola zero or fanta?"), stop])
        }
    }
}

fn judged(server: &FakeLlm, memory: bool) -> Vec<(String, Vec<Category>)> {
    let llm = LlmSettings {
        base_url: Some(server.base_url()),
        request_timeout_s: 10.0,
        retries: 0,
        ..LlmSettings::default()
    };
    let brain = move |_: &World, _: &Language| -> Result<Box<dyn ChatBackend>, String> {
        Ok(Box::new(
            OpenAiCompatible::from_settings(&llm).map_err(|e| e.to_string())?,
        ))
    };
    let runner = Runner {
        brain: &brain,
        character: "full".into(),
        language: "en".into(),
        texts: ToolTexts::load_default().expect("tool texts"),
        agent: AgentSettings::default(),
        guards: GuardSettings::default(),
        memory,
        name_enums: false,
        local_first: false,
        tape: None,
        progress: None,
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dialogues/memory");
    CASES
        .iter()
        .map(|case| {
            let episodes = run::scripts(&[dir.join(case)]).expect("script");
            let categories = runner
                .run(&episodes[0])
                .into_iter()
                .map(|j| j.verdict.category)
                .collect();
            (case.to_string(), categories)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_llm_path_passes_the_memory_scripts_with_memory_and_fails_them_without() {
    let server = FakeLlm::start(vec![]).await;
    server.set_responder(Arc::new(model));
    let server = Arc::new(server);
    let s = Arc::clone(&server);
    let (with, without) =
        tokio::task::spawn_blocking(move || (judged(&s, true), judged(&s, false)))
            .await
            .expect("runs");
    let rate = |runs: &[(String, Vec<Category>)]| {
        let all: Vec<&Category> = runs.iter().flat_map(|(_, c)| c).collect();
        100.0 * all.iter().filter(|c| ***c == Category::Success).count() as f64 / all.len() as f64
    };
    eprintln!(
        "memory scripts through the LLM path: {:.1} % of turns with memory, {:.1} % without",
        rate(&with),
        rate(&without)
    );
    for (case, categories) in &with {
        assert!(
            categories.iter().all(|c| *c == Category::Success),
            "{case} with memory: {categories:?}"
        );
    }
    for (case, categories) in &without {
        assert!(
            categories.iter().any(|c| *c != Category::Success),
            "{case} passes without memory"
        );
    }
    // The block sits right after the character's prompt, where the prefix stays cacheable.
    let with_block = server
        .bodies()
        .into_iter()
        .find(|b| b["messages"][1]["role"] == "system")
        .expect("some request carried the memory block");
    assert!(text_of(&with_block["messages"][1]).starts_with("Remembered from earlier sessions"));
}
