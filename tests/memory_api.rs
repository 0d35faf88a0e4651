//! Memory through the daemon, as a black box: the `/api/memory` routes under
//! the API's rules, erasure that leaves no copy on the disk (the store, its
//! write-ahead log, the event log's day files), a damaged store that does not
//! stop the daemon, and `attentive memory` beside and without a daemon.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use support::daemon::{of_type, Daemon};
use support::fake_llm::{FakeLlm, Scripted};

use attentive::memory::{NewFact, Store, Visibility};

/// Stores facts before the daemon starts: (about, said by, topic, text).
fn seed(state: &Path, facts: &[(&str, &str, &str, &str)]) -> Vec<i64> {
    let mut store = Store::open(&state.join("memory.db")).expect("open the store");
    let ids = facts
        .iter()
        .enumerate()
        .map(|(i, (person, by, topic, text))| {
            store
                .remember(&NewFact {
                    person: person.to_string(),
                    topic: topic.to_string(),
                    text: text.to_string(),
                    said_by: by.to_string(),
                    said_to: "the_robot".into(),
                    visibility: Visibility::OnlyForActing,
                    at: 1_790_000_000 + i as i64,
                })
                .expect("remember")
                .fact
                .id
        })
        .collect();
    ids
}

fn rules(state: &Path) -> Daemon {
    Daemon::start(&["--no-audio", "--brain", "rules"], &[], state)
}

/// A daemon whose brain is the fake LLM.
fn with_llm(state: &Path, llm: &FakeLlm) -> Daemon {
    let url = llm.base_url();
    Daemon::start(
        &[
            "--no-audio",
            "--brain",
            "llm",
            "--llm-url",
            &url,
            "--model",
            "fake",
        ],
        &[("ATTENTIVE_LLM__RETRIES", "0")],
        state,
    )
}

async fn delete(daemon: &Daemon, path: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .delete(daemon.url(path))
        .send()
        .await
        .expect("DELETE");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Every file under `dir` (recursively) with its bytes.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read the folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path, bytes));
        }
    }
    out
}

/// The files under `state` that hold `word` (ASCII, any case).
fn holding(state: &Path, word: &str) -> Vec<PathBuf> {
    let word = word.to_ascii_lowercase().into_bytes();
    files_under(state)
        .into_iter()
        .filter(|(_, bytes)| {
            bytes
                .to_ascii_lowercase()
                .windows(word.len())
                .any(|w| w == word.as_slice())
        })
        .map(|(path, _)| path)
        .collect()
}

/// A `memory_erased` event names no content: counts only.
fn assert_content_free(event: &Value) {
    let keys: Vec<&str> = event
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    for key in &keys {
        assert!(
            ["type", "facts", "episodes", "failures", "seq", "ts"].contains(key),
            "memory_erased carries {key}: {event}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_routes_list_show_and_erase_facts_and_people() {
    let state = tempfile::tempdir().unwrap();
    let ids = seed(
        state.path(),
        &[
            ("Daniel", "Daniel", "drink", "I only drink sugar-free"),
            ("Daniel", "Felix", "food", "Daniel hates olives"),
            ("Felix", "Felix", "allergy", "I am allergic to peanuts"),
        ],
    );
    let daemon = rules(state.path());

    let (status, all) = daemon.get("/api/memory").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["enabled"], true);
    let names: Vec<&str> = all["people"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Daniel", "Felix"]);
    let daniel = &all["people"][0];
    assert!(daniel["first_seen"].is_i64() && daniel["last_seen"].is_i64());
    let facts = daniel["facts"].as_array().unwrap();
    assert_eq!(facts.len(), 2);
    let hearsay = facts.iter().find(|f| f["id"] == ids[1]).unwrap();
    assert_eq!(hearsay["said_by"], "Felix");
    assert_eq!(hearsay["confirmed"], false);
    let own = facts.iter().find(|f| f["id"] == ids[0]).unwrap();
    for key in [
        "id",
        "topic",
        "text",
        "said_by",
        "said_to",
        "at",
        "confirmed",
        "visibility",
        "superseded_by",
    ] {
        assert!(own.get(key).is_some(), "a fact has {key}: {own}");
    }
    assert_eq!(own["text"], "I only drink sugar-free");
    assert_eq!(own["confirmed"], true);
    assert_eq!(own["visibility"], "self");
    assert!(own["superseded_by"].is_null());
    assert!(all["episodes"].is_array() && all["failures"].is_array());

    // One person, by any case of their name; an unknown one is a 404 sentence.
    let (status, person) = daemon.get("/api/memory/people/daniel").await;
    assert_eq!((status, person["name"].as_str()), (200, Some("Daniel")));
    assert_eq!(person["facts"].as_array().map(Vec::len), Some(2));
    let (status, unknown) = daemon.get("/api/memory/people/Bob").await;
    assert_eq!(status, 404);
    assert!(
        unknown["error"].as_str().unwrap().contains("Bob"),
        "{unknown}"
    );

    // One fact.
    let (status, erased) = delete(&daemon, &format!("/api/memory/facts/{}", ids[2])).await;
    assert_eq!(status, 200, "{erased}");
    assert_eq!(erased["facts"], 1);
    let (status, again) = delete(&daemon, &format!("/api/memory/facts/{}", ids[2])).await;
    assert_eq!(status, 404, "{again}");
    assert!(again["error"].is_string());
    let (status, bad) = delete(&daemon, "/api/memory/facts/the-first").await;
    assert_eq!(status, 400, "{bad}");
    let (_, felix) = daemon.get("/api/memory/people/Felix").await;
    assert_eq!(felix["facts"].as_array().map(Vec::len), Some(0));

    // A whole person: their facts and the hearsay about them.
    let (status, erased) = delete(&daemon, "/api/memory/people/Daniel").await;
    assert_eq!(status, 200, "{erased}");
    assert_eq!(
        (erased["facts"].as_u64(), erased["person"].as_bool()),
        (Some(2), Some(true))
    );
    assert_eq!(daemon.get("/api/memory/people/Daniel").await.0, 404);
    let (status, gone) = delete(&daemon, "/api/memory/people/Daniel").await;
    assert_eq!(status, 404, "{gone}");

    // Each erasure is logged, without its content.
    let log = daemon
        .wait_for("two memory_erased events", |l| {
            of_type(l, "memory_erased").len() == 2
        })
        .await;
    for event in of_type(&log, "memory_erased") {
        assert_content_free(event);
    }
    let (_, all) = daemon.get("/api/memory").await;
    let names: Vec<&str> = all["people"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Felix"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_memory_off_every_route_answers_409_under_the_token_rules() {
    let state = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(
        &["--no-audio", "--brain", "rules", "--listen", "0.0.0.0:0"],
        &[
            ("ATTENTIVE_MEMORY__ENABLED", "false"),
            ("ATTENTIVE_API_TOKEN", "s3cret"),
        ],
        state.path(),
    );
    let base = daemon.base.replace("0.0.0.0", "127.0.0.1");
    let client = reqwest::Client::new();
    // Without the token: 401, as on every other route.
    let status = client
        .get(format!("{base}/api/memory"))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16();
    assert_eq!(status, 401);
    for (method, path) in [
        (reqwest::Method::GET, "/api/memory"),
        (reqwest::Method::GET, "/api/memory/people/Daniel"),
        (reqwest::Method::DELETE, "/api/memory/people/Daniel"),
        (reqwest::Method::DELETE, "/api/memory/facts/1"),
    ] {
        let response = client
            .request(method.clone(), format!("{base}{path}"))
            .bearer_auth("s3cret")
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        assert_eq!(status, 409, "{method} {path}: {body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.starts_with("memory is off")),
            "{method} {path}: {body}"
        );
    }
    assert!(
        !state.path().join("memory.db").exists(),
        "memory off creates no store"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erased_fact_is_found_nowhere_on_the_disk() {
    let state = tempfile::tempdir().unwrap();
    let said = "I only drink zebrafruit juice";
    let llm = FakeLlm::start(vec![
        Scripted::tool_calls(&[(
            "remember",
            json!({"person_name": "Daniel", "fact": said, "topic": "drink"}),
        )]),
        Scripted::tool_calls(&[(
            "speak",
            json!({"person_name": "Daniel", "text": "I will remember that you only drink zebrafruit juice, Daniel."}),
        )]),
        Scripted::tool_calls(&[("stop", json!({}))]),
    ])
    .await;
    llm.set_fallback(Scripted::tool_calls(&[("stop", json!({}))]));
    let daemon = with_llm(state.path(), &llm);
    let (status, answer) = daemon
        .post(
            "/api/turns",
            &json!({"speaker": "Daniel", "listener": "the_robot", "text": format!("Remember that {said}.")}),
        )
        .await;
    assert_eq!(status, 202, "{answer}");
    daemon
        .wait_for("the remembering turn's end", |l| {
            !of_type(l, "episode_end").is_empty()
        })
        .await;
    // The text is in the event log (the turn, the tool call, the robot's words) and in the store.
    let (_, all) = daemon.get("/api/memory").await;
    let fact = &all["people"][0]["facts"][0];
    assert_eq!(fact["text"], said, "{all}");
    let log_files = holding(&state.path().join("events"), "zebrafruit");
    assert!(!log_files.is_empty(), "the turn is logged");

    let (status, erased) = delete(&daemon, &format!("/api/memory/facts/{}", fact["id"])).await;
    assert_eq!(
        (status, erased["facts"].as_u64()),
        (200, Some(1)),
        "{erased}"
    );
    let log = daemon
        .wait_for("the memory_erased event", |l| {
            !of_type(l, "memory_erased").is_empty()
        })
        .await;
    assert_content_free(of_type(&log, "memory_erased")[0]);

    // memory.db, memory.db-wal (if any), every day file: the text is nowhere.
    let files = files_under(state.path());
    assert!(files.iter().any(|(p, _)| p.ends_with("memory.db")));
    assert!(files
        .iter()
        .any(|(p, _)| p.extension().is_some_and(|e| e == "jsonl")));
    let left = holding(state.path(), "zebrafruit");
    assert!(left.is_empty(), "the erased text survives in {left:?}");
    // The log is still whole: every line parses, seq grows, and it goes on.
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to Daniel: Shall we start?"}),
        )
        .await;
    let log = daemon
        .wait_for("the next turn's end", |l| {
            of_type(l, "episode_end").len() == 2
        })
        .await;
    let seqs: Vec<u64> = log.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forgetting_through_the_agent_also_redacts_what_the_robot_says_after() {
    let state = tempfile::tempdir().unwrap();
    seed(
        state.path(),
        &[("Daniel", "Daniel", "drink", "I only drink kiwano juice")],
    );
    let llm = FakeLlm::start(vec![
        // Turn 1: Daniel mentions it to Felix; the robot stays out of it.
        Scripted::tool_calls(&[("stop", json!({}))]),
        // Turn 2: "forget that" -> forget, then the robot says what it forgot.
        Scripted::tool_calls(&[("forget", json!({"person_name": "Daniel", "what": "that"}))]),
        Scripted::tool_calls(&[(
            "speak",
            json!({"person_name": "Daniel", "text": "Done: I no longer know that you only drink kiwano juice."}),
        )]),
        Scripted::tool_calls(&[("stop", json!({}))]),
    ])
    .await;
    llm.set_fallback(Scripted::tool_calls(&[("stop", json!({}))]));
    let daemon = with_llm(state.path(), &llm);
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Daniel said to Felix: I only drink kiwano juice, you know."}),
        )
        .await;
    daemon
        .wait_for("the first turn's end", |l| {
            of_type(l, "episode_end").len() == 1
        })
        .await;
    assert!(!holding(&state.path().join("events"), "kiwano").is_empty());
    daemon
        .post(
            "/api/turns",
            &json!({"speaker": "Daniel", "listener": "the_robot", "text": "Please forget that."}),
        )
        .await;
    let log = daemon
        .wait_for("the forgetting turn's end", |l| {
            of_type(l, "episode_end").len() == 2
        })
        .await;
    let erased = of_type(&log, "memory_erased");
    assert_eq!(erased.len(), 1, "one memory_erased, from the agent");
    assert_content_free(erased[0]);
    let speech: Vec<&str> = of_type(&log, "speech")
        .iter()
        .filter_map(|s| s["text"].as_str())
        .collect();
    assert!(
        speech.iter().any(|s| s.contains("[erased]")),
        "the robot's words after the erasure are redacted as logged: {speech:?}"
    );
    let left = holding(state.path(), "kiwano");
    assert!(left.is_empty(), "the erased text survives in {left:?}");
    let (_, all) = daemon.get("/api/memory").await;
    assert_eq!(all["people"][0]["facts"].as_array().map(Vec::len), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_store_is_one_warning_naming_the_file_and_the_daemon_runs_on() {
    let state = tempfile::tempdir().unwrap();
    let path = state.path().join("memory.db");
    let garbage = b"this is not a database at all; it is a damaged memory file......".repeat(64);
    std::fs::write(&path, &garbage).unwrap();
    let daemon = rules(state.path());
    let log = daemon
        .wait_for("the memory warning", |l| {
            of_type(l, "warning").iter().any(|w| w["kind"] == "memory")
        })
        .await;
    let warnings: Vec<&Value> = of_type(&log, "warning")
        .into_iter()
        .filter(|w| w["kind"] == "memory")
        .collect();
    assert_eq!(warnings.len(), 1);
    let detail = warnings[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&path.display().to_string()) && detail.contains("damaged"),
        "{detail}"
    );
    // Still serving: health, turns, and the memory routes say why they cannot answer.
    let (status, health) = daemon.get("/health").await;
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    let (status, answer) = daemon.get("/api/memory").await;
    assert_eq!(status, 409, "{answer}");
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains(&path.display().to_string()));
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to Daniel: Daniel, please hand me the red glass."}),
        )
        .await;
    daemon
        .wait_for("the turn's end", |l| !of_type(l, "episode_end").is_empty())
        .await;
    // The damaged file is left as it was, for someone to look at.
    assert_eq!(std::fs::read(&path).unwrap(), garbage);
}

/// `attentive [--json] memory ARGS` on `state`: exit code, stdout, stderr.
fn cli(state: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env("ATTENTIVE_DAEMON__STATE_DIR", state)
        .env_remove("ATTENTIVE_API_TOKEN")
        .output()
        .expect("run attentive memory");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_shows_and_forgets_beside_a_running_daemon_and_without_one() {
    let state = tempfile::tempdir().unwrap();
    // No store yet: one sentence, a failure, nothing created.
    let (code, _, err) = cli(state.path(), &["memory", "list"]);
    assert_ne!(code, 0);
    assert!(err.contains("no memory store"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!state.path().join("memory.db").exists());

    let ids = seed(
        state.path(),
        &[
            ("Daniel", "Daniel", "drink", "I only drink rooibos tea"),
            ("Felix", "Felix", "drink", "I only drink tamarind soda"),
        ],
    );
    let daemon = rules(state.path());
    for text in [
        "Daniel said to Felix: I only drink rooibos tea.",
        "Felix said to Daniel: I only drink tamarind soda.",
    ] {
        daemon.post("/api/turns", &json!({ "text": text })).await;
    }
    daemon
        .wait_for("both turns", |l| of_type(l, "episode_end").len() == 2)
        .await;

    let (code, out, err) = cli(state.path(), &["memory", "show", "daniel"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("I only drink rooibos tea"), "{out}");
    let (code, out, _) = cli(state.path(), &["--json", "memory", "export", "Daniel"]);
    assert_eq!(code, 0);
    let export: Value = serde_json::from_str(out.trim()).expect("one JSON document");
    assert_eq!(export["facts"][0]["id"], ids[0]);
    let (code, _, err) = cli(state.path(), &["memory", "show", "Bob"]);
    assert_ne!(code, 0);
    assert!(err.contains("nobody called Bob"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // Beside the running daemon: through its API (it redacts and logs the event).
    let (code, out, err) = cli(state.path(), &["--json", "memory", "forget", "Daniel"]);
    assert_eq!(code, 0, "{err}");
    let answer: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(answer["facts"], 1, "{answer}");
    daemon
        .wait_for("the daemon's memory_erased", |l| {
            of_type(l, "memory_erased").len() == 1
        })
        .await;
    assert!(holding(state.path(), "rooibos").is_empty());

    // Without a daemon: the command redacts the day files and logs the event itself.
    drop(daemon);
    let (code, _, err) = cli(
        state.path(),
        &["memory", "forget", "--fact", &ids[1].to_string()],
    );
    assert_eq!(code, 0, "{err}");
    assert!(holding(state.path(), "tamarind").is_empty());
    let log = support::daemon::log_lines(state.path());
    let erased = of_type(&log, "memory_erased");
    assert_eq!(erased.len(), 2, "the command logged its erasure too");
    assert_content_free(erased[1]);
    let seqs: Vec<u64> = log.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[1] > w[0]), "{seqs:?}");
    let (code, _, err) = cli(state.path(), &["memory", "forget", "--fact", "999"]);
    assert_ne!(code, 0);
    assert!(err.contains("no fact 999"), "{err}");
}
