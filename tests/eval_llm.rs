//! `attentive eval --brain llm` against a local OpenAI-compatible server that
//! always calls `stop`: the real client, loop and judge end to end. Such a
//! model never helps, so only the turns that expect silence succeed.

mod support;

use std::process::Command;

use serde_json::json;
use support::fake_llm::{FakeLlm, Scripted};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_llm_that_always_stops_is_judged_undesired_where_help_was_needed() {
    let server = FakeLlm::start(Vec::new()).await;
    server.set_fallback(Scripted::tool_calls(&[("stop", json!({}))]));
    let url = server.base_url();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_attentive"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "--json",
                "eval",
                "tests/dialogues/situated.toml",
                "--brain",
                "llm",
                "--llm-url",
                &url,
                "--model",
                "fake",
            ])
            .env_remove("OPENAI_API_KEY")
            .output()
    })
    .await
    .expect("join")
    .expect("run attentive eval");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let categories: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "judged")
        .map(|l| l["category"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        categories,
        [
            "success",
            "undesired",
            "undesired",
            "undesired",
            "undesired",
            "undesired"
        ]
    );
    let summary = lines.last().expect("summary");
    assert_eq!(summary["brain"], "llm");
    // Every turn asked the server once: the loop ended on stop each time.
    assert_eq!(server.request_count(), 6);
    let first = &server.bodies()[0];
    assert_eq!(first["model"], "fake");
}
