//! `attentive eval` as an LLM user's research instrument: a stratified and
//! stable sample, the cost of every turn from the endpoint's `usage`, record
//! and replay (byte-identical with the endpoint gone; a changed tool text is a
//! divergence), and one report for several characters.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};
use support::fake_llm::{completion, FakeLlm, Scripted};

use attentive::eval::run;
use attentive::eval::sample;

fn attentive(args: &[&str], envs: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_attentive"));
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ATTENTIVE_HOME");
    for (key, value) in envs {
        command.env(key, value);
    }
    command.output().expect("run attentive")
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn the_sample_is_stratified_and_the_same_for_the_same_seed() {
    let grid = run::isolated_grid().expect("grid");
    let labels = |n, seed| -> Vec<String> {
        sample::stratified(grid.clone(), n, seed)
            .into_iter()
            .map(|e| e.label)
            .collect()
    };
    let first = labels(40, 7);
    assert_eq!(first.len(), 40);
    assert_eq!(first, labels(40, 7), "same seed, same cases");
    assert_ne!(first, labels(40, 8), "another seed, other cases");
    // 40 over 3 scenarios x 4 case types: 3 or 4 in each of the 12 strata.
    let mut strata: BTreeMap<String, usize> = BTreeMap::new();
    for label in &first {
        let parts: Vec<&str> = label.split('/').collect();
        *strata
            .entry(format!("{} {}", parts[0], parts[2]))
            .or_default() += 1;
    }
    assert_eq!(strata.len(), 12, "{strata:?}");
    assert!(strata.values().all(|n| (3..=4).contains(n)), "{strata:?}");
    // Within a stratum, layouts and phrasings are spread: 3 picks, 3 distinct of each.
    let twelve = labels(12, 3);
    for label in &twelve {
        let parts: Vec<&str> = label.split('/').collect();
        let same: Vec<&String> = twelve
            .iter()
            .filter(|l| l.starts_with(parts[0]) && l.contains(parts[2]))
            .collect();
        assert_eq!(same.len(), 1, "{twelve:?}");
    }
    let thirty_six = labels(36, 3);
    let stratum: Vec<&String> = thirty_six
        .iter()
        .filter(|l| l.starts_with("coffee/") && l.contains("/busyness/"))
        .collect();
    let layouts: std::collections::BTreeSet<&str> = stratum
        .iter()
        .map(|l| l.split('/').nth(1).unwrap_or(""))
        .collect();
    let phrasings: std::collections::BTreeSet<&str> = stratum
        .iter()
        .map(|l| l.split('/').nth(3).unwrap_or(""))
        .collect();
    assert_eq!((stratum.len(), layouts.len(), phrasings.len()), (3, 3, 3));
}

/// A model that checks Daniel, answers the robot-addressed turns with speech, and stops.
fn scripted_server_replies(server: &FakeLlm) {
    server.push(Scripted::tool_calls(&[(
        "check_hindering_reasons",
        json!({"person_name": "Daniel", "object_name": "red_glass"}),
    )]));
    // A server that leaves out `usage` on one reply: counted as missing.
    server.push(Scripted::ok(json!({
        "id": "x", "object": "chat.completion", "created": 1, "model": "fake",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "stop", "arguments": "{}"}}]}}]
    })));
    server.set_fallback(Scripted::ok(completion(
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "speak",
             "arguments": "{\"person_name\": \"All\", \"text\": \"We also have cola zero.\"}"}},
            {"id": "call_2", "type": "function", "function": {"name": "stop", "arguments": "{}"}}]}),
        "tool_calls",
    )));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cost_comes_from_usage_and_a_recording_replays_byte_identically() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tape = dir.path().join("tape");
    let tape_arg = tape.display().to_string();
    let server = FakeLlm::start(Vec::new()).await;
    scripted_server_replies(&server);
    let url = server.base_url();
    let record_args = [
        "--json",
        "eval",
        "tests/dialogues/situated.toml",
        "--brain",
        "llm",
        "--llm-url",
        &url,
        "--model",
        "fake",
        "--jobs",
        "1",
        "--record",
        &tape_arg,
    ];
    let args: Vec<String> = record_args.iter().map(|s| s.to_string()).collect();
    let recorded = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        attentive(&args, &[])
    })
    .await
    .expect("join");
    assert!(
        recorded.status.success(),
        "{}",
        String::from_utf8_lossy(&recorded.stderr)
    );
    let calls = server.request_count();
    drop(server); // the endpoint is gone from here on

    let lines = json_lines(&recorded);
    let judged: Vec<&Value> = lines.iter().filter(|l| l["type"] == "judged").collect();
    // Turn 1: check (usage 12 + 3), then stop without usage.
    assert_eq!(judged[0]["cost"]["llm_calls"], 2);
    assert_eq!(judged[0]["cost"]["prompt_tokens"], 12);
    assert_eq!(judged[0]["cost"]["completion_tokens"], 3);
    assert_eq!(judged[0]["cost"]["calls_without_usage"], 1);
    // Later turns: one reply with usage each.
    assert_eq!(judged[1]["cost"]["llm_calls"], 1);
    assert_eq!(judged[1]["cost"]["prompt_tokens"], 12);
    assert!(judged[1]["cost"]["wall_ms"].as_f64().is_some());
    let summary = lines.last().expect("summary");
    assert_eq!(summary["type"], "eval_summary");
    let cost = &summary["cost"];
    assert_eq!(cost["llm_calls"], calls);
    assert_eq!(cost["prompt_tokens"], 12 * (calls - 1));
    assert_eq!(cost["completion_tokens"], 3 * (calls - 1));
    assert_eq!(cost["calls_without_usage"], 1);
    assert!(cost["wall_ms"]["median"].as_f64().is_some());
    assert!(cost["wall_ms"]["p95"].as_f64().is_some());
    assert!(cost["by_case"]["help"]["llm_calls"].as_u64().is_some());

    // Replay: no endpoint, no --brain or --model: the recording knows them.
    let replayed = attentive(
        &[
            "--json",
            "eval",
            "tests/dialogues/situated.toml",
            "--replay",
            &tape_arg,
        ],
        &[],
    );
    assert!(
        replayed.status.success(),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&replayed.stdout),
        String::from_utf8_lossy(&recorded.stdout),
        "the replay prints exactly what the recorded run printed"
    );

    // A changed tool description: the replay names the first request it changes.
    let home = tempfile::tempdir().expect("temp home");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in ["scenes", "characters", "languages"] {
        std::os::unix::fs::symlink(root.join(folder), home.path().join(folder)).expect("link");
    }
    std::fs::create_dir(home.path().join("prompts")).expect("prompts");
    std::os::unix::fs::symlink(
        root.join("prompts/understanding.toml"),
        home.path().join("prompts/understanding.toml"),
    )
    .expect("link the sentences");
    let tools = std::fs::read_to_string(root.join("prompts/tools.toml")).expect("tools.toml");
    let changed = tools.replace(
        "You point at an object or a person, to show the humans what you mean.",
        "Point at an object or a person.",
    );
    assert_ne!(changed, tools);
    std::fs::write(home.path().join("prompts/tools.toml"), changed).expect("write tools");
    let diverged = attentive(
        &[
            "eval",
            "tests/dialogues/situated.toml",
            "--replay",
            &tape_arg,
        ],
        &[("ATTENTIVE_HOME", home.path())],
    );
    let stderr = String::from_utf8_lossy(&diverged.stderr);
    assert!(!diverged.status.success(), "{stderr}");
    assert!(
        stderr.contains("request differs at episode 1, call 1: the description of the tool point_at_object_or_person differs"),
        "{stderr}"
    );
}

#[test]
fn several_characters_share_one_report_with_one_bar_each() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.html");
    let output = attentive(
        &[
            "--json",
            "eval",
            "tests/dialogues/situated.toml",
            "--isolated",
            "--sample",
            "12",
            "--brain",
            "rules",
            "--character",
            "full,relaxed,none",
            "--report",
            &report.display().to_string(),
        ],
        &[],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = json_lines(&output);
    let summaries: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "eval_summary")
        .collect();
    let characters: Vec<&str> = summaries
        .iter()
        .map(|s| s["character"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(characters, ["full", "relaxed", "none"]);
    // 12 isolated cases and the 6 situated steps per character.
    assert!(summaries.iter().all(|s| s["turns"] == 18), "{summaries:?}");
    let rules_tokens = &summaries[0]["cost"];
    assert_eq!(rules_tokens["prompt_tokens"], 0);
    assert_eq!(rules_tokens["calls_without_usage"], 0);

    let html = std::fs::read_to_string(&report).expect("report written");
    for case in ["visibility", "reachability", "busyness", "unobtrusive"] {
        let bars: Vec<&str> = ["full", "relaxed", "none"]
            .into_iter()
            .filter(|c| html.contains(&format!(r#"data-case="{case}" data-character="{c}""#)))
            .collect();
        assert_eq!(bars, ["full", "relaxed", "none"], "{case}");
        assert_eq!(html.matches(&format!(r#"data-case="{case}""#)).count(), 3);
    }
    for step in 1..=6 {
        let key = format!(r#"data-step="situated.toml step {step}""#);
        assert_eq!(html.matches(&key).count(), 3, "step {step}");
    }
}
