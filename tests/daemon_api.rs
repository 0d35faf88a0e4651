//! `attentive run` as a black box: turns in over HTTP, events out of the log
//! and the SSE stream, bad input, a dead or hanging LLM, interrupts, signals.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::daemon::{of_type, Daemon};
use support::fake_llm::{FakeLlm, Scripted};

fn rules(state: &std::path::Path) -> Daemon {
    Daemon::start(&["--no-audio", "--brain", "rules"], &[], state)
}

/// A daemon whose brain is the local OpenAI-compatible test server.
fn with_llm(state: &std::path::Path, llm: &FakeLlm, turn_timeout_s: &str) -> Daemon {
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
        &[
            ("ATTENTIVE_AGENT__TURN_TIMEOUT_S", turn_timeout_s),
            ("ATTENTIVE_LLM__RETRIES", "0"),
        ],
        state,
    )
}

fn stop_call() -> Scripted {
    Scripted::tool_calls(&[("stop", json!({}))])
}

fn ends(log: &[Value]) -> Vec<String> {
    of_type(log, "episode_end")
        .iter()
        .map(|e| e["reason"].as_str().unwrap_or("").to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_posted_turn_is_answered_and_every_event_is_logged_with_seq_and_ts() {
    let state = tempfile::tempdir().unwrap();
    let daemon = rules(state.path());
    let (status, health) = daemon.get("/health").await;
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    let (status, answer) = daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to Daniel: Daniel, please hand me the red glass."}),
        )
        .await;
    assert_eq!(status, 202, "{answer}");
    assert_eq!(answer["accepted"], true);
    let seq = answer["seq"].as_u64().expect("seq");
    let log = daemon
        .wait_for("the episode's end", |l| {
            !of_type(l, "episode_end").is_empty()
        })
        .await;
    let turn = log
        .iter()
        .find(|e| e["seq"] == seq)
        .expect("the turn's seq is in the log");
    assert_eq!(turn["type"], "turn");
    assert_eq!(turn["speaker"], "Felix");
    // The robot explained, then handed the glass to Felix.
    let speech = of_type(&log, "speech");
    assert!(!speech.is_empty(), "the robot said why it helps");
    let action = of_type(&log, "action");
    assert!(action.iter().any(|a| a["ok"] == true), "{action:?}");
    let seqs: Vec<u64> = log.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(
        seqs.windows(2).all(|w| w[1] == w[0] + 1),
        "seq grows by one: {seqs:?}"
    );
    assert!(log
        .iter()
        .all(|e| e["ts"].as_str().is_some_and(|t| t.ends_with('Z'))));
    // The state now has the glass at Felix.
    let (_, state) = daemon.get("/api/state").await;
    assert_eq!(state["objects"]["red_glass"]["held_by"], "Felix");
    // The layout the page draws.
    let (_, scene) = daemon.get("/api/scene").await;
    assert_eq!(scene["persons"].as_array().map(Vec::len), Some(2));
    assert_eq!(scene["robot"]["arms"].as_array().map(Vec::len), Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_a_sentence_and_the_daemon_keeps_serving() {
    let state = tempfile::tempdir().unwrap();
    let daemon = rules(state.path());
    let client = reqwest::Client::new();
    let raw = |body: Vec<u8>| {
        client
            .post(daemon.url("/api/turns"))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (b"{not json".to_vec(), 400, "JSON"),
        (
            br#"{"speaker":"Felix","text":"hi"}"#.to_vec(),
            400,
            "Felix said to Daniel",
        ),
        (
            br#"{"text":"Bob said to Daniel: hi"}"#.to_vec(),
            400,
            "Felix, Daniel",
        ),
        (
            br#"{"text":"Felix said to Zorro: hi"}"#.to_vec(),
            400,
            "unknown listener",
        ),
        (br#"{"text":"no colon here"}"#.to_vec(), 400, "not a turn"),
        (
            br#"{"text":"Felix said to Daniel: hi","mood":"x"}"#.to_vec(),
            400,
            "mood",
        ),
        (
            b"{\"text\":\"Felix said to Daniel: \xff\xfe\"}".to_vec(),
            400,
            "UTF-8",
        ),
    ];
    for (body, want, words) in cases {
        let shown = String::from_utf8_lossy(&body[..body.len().min(60)]).to_string();
        let response = raw(body).await.expect("request");
        let status = response.status().as_u16();
        let answer: Value = response.json().await.unwrap_or(Value::Null);
        assert_eq!(status, want, "{shown}: {answer}");
        let error = answer["error"].as_str().unwrap_or("");
        assert!(
            error.contains(words),
            "{shown}: {error:?} should mention {words:?}"
        );
    }
    // 10 MB, announced the way curl sends large bodies (Expect: 100-continue):
    // the daemon refuses before reading it.
    let (status, answer) = tokio::task::block_in_place(|| oversized(&daemon.base, 10 << 20));
    assert_eq!(status, 413, "{answer}");
    assert!(answer.contains("too large"), "{answer}");
    let (status, answer) = daemon
        .post("/api/scene", &json!({"person": "Zorro", "holding": []}))
        .await;
    assert_eq!(status, 400);
    assert!(
        answer["error"].as_str().unwrap().contains("Felix, Daniel"),
        "{answer}"
    );
    let (status, answer) = daemon
        .post(
            "/api/scene",
            &json!({"person": "Daniel", "holding": ["unicorn"]}),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        answer["error"].as_str().unwrap().contains("smartphone"),
        "{answer}"
    );
    let (status, answer) = daemon
        .post("/api/interrupt", &json!({"kind": "explode"}))
        .await;
    assert_eq!(status, 400);
    assert!(
        answer["error"].as_str().unwrap().contains("stop"),
        "{answer}"
    );
    // Still serving, and a good change works.
    let (status, state) = daemon
        .post(
            "/api/scene",
            &json!({"person": "Daniel", "holding": ["smartphone"]}),
        )
        .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["persons"]["Daniel"]["busy"], true);
    let (status, _) = daemon.get("/health").await;
    assert_eq!(status, 200);
}

/// POSTs a body of `len` bytes with `Expect: 100-continue`; returns the status and body.
fn oversized(base: &str, len: usize) -> (u16, String) {
    use std::io::{Read, Write};
    let addr = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /api/turns HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_llm_times_out_and_turns_posted_meanwhile_run_in_order() {
    let llm = FakeLlm::start(vec![Scripted::Hang, stop_call(), stop_call()]).await;
    let state = tempfile::tempdir().unwrap();
    let daemon = with_llm(state.path(), &llm, "2");
    for text in ["one", "two", "three"] {
        let (status, _) = daemon
            .post(
                "/api/turns",
                &json!({"speaker": "Felix", "listener": "Daniel", "text": text}),
            )
            .await;
        assert_eq!(status, 202);
    }
    let log = daemon
        .wait_for("three episodes", |l| of_type(l, "episode_end").len() == 3)
        .await;
    assert_eq!(ends(&log), ["timeout", "stop", "stop"]);
    // Every turn entered the history in order: the last request carries all three.
    let bodies = llm.bodies();
    let last = bodies.last().expect("requests").to_string();
    let (a, b, c) = (
        last.find("said to Daniel: one"),
        last.find("said to Daniel: two"),
        last.find("said to Daniel: three"),
    );
    assert!(a < b && b < c && a.is_some(), "history order in {last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_llm_ends_the_turn_with_llm_error_and_the_next_turn_works() {
    let llm = FakeLlm::start(vec![Scripted::Close, stop_call()]).await;
    let state = tempfile::tempdir().unwrap();
    let daemon = with_llm(state.path(), &llm, "20");
    daemon
        .post("/api/turns", &json!({"text": "Felix -> Daniel: hello"}))
        .await;
    daemon
        .wait_for("the first episode", |l| {
            of_type(l, "episode_end").len() == 1
        })
        .await;
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix -> Daniel: hello again"}),
        )
        .await;
    let log = daemon
        .wait_for("the second episode", |l| {
            of_type(l, "episode_end").len() == 2
        })
        .await;
    assert_eq!(ends(&log), ["llm_error", "stop"]);
    let warning = of_type(&log, "warning");
    assert!(
        warning.iter().any(|w| w["kind"] == "llm_error"),
        "{warning:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_interrupts_the_episode_and_the_next_request_is_told_who_stopped_what() {
    let llm = FakeLlm::start(vec![Scripted::Hang, stop_call()]).await;
    let state = tempfile::tempdir().unwrap();
    let daemon = with_llm(state.path(), &llm, "60");
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to Daniel: Daniel, pass me the fanta please"}),
        )
        .await;
    daemon
        .wait_for("the LLM request", |_| llm.request_count() == 1)
        .await;
    // Said, not clicked: a spoken "stop" arrives as a turn.
    let (status, answer) = daemon
        .post(
            "/api/turns",
            &json!({"text": "Daniel said to the_robot: Stop!"}),
        )
        .await;
    assert_eq!(status, 202);
    assert_eq!(answer["interrupt"], "stop", "{answer}");
    let log = daemon
        .wait_for("the interrupted end", |l| {
            !of_type(l, "episode_end").is_empty()
        })
        .await;
    assert_eq!(ends(&log), ["interrupted"]);
    let interrupted = of_type(&log, "interrupted");
    assert_eq!(interrupted[0]["by"], "Daniel");
    assert_eq!(interrupted[0]["kind"], "stop");
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix -> Daniel: so, how was your day?"}),
        )
        .await;
    daemon
        .wait_for("the next episode", |l| of_type(l, "episode_end").len() == 2)
        .await;
    let next = llm.bodies()[1].to_string();
    assert!(
        next.contains("Daniel stopped you") && next.contains("pass me the fanta"),
        "the next request says what was interrupted and by whom: {next}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_then_resume_runs_the_paused_turn_again() {
    let llm = FakeLlm::start(vec![Scripted::Hang, stop_call()]).await;
    let state = tempfile::tempdir().unwrap();
    let daemon = with_llm(state.path(), &llm, "60");
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to Daniel: could you pour me some cola?"}),
        )
        .await;
    daemon
        .wait_for("the LLM request", |_| llm.request_count() == 1)
        .await;
    let (status, answer) = daemon
        .post("/api/interrupt", &json!({"kind": "pause", "by": "Felix"}))
        .await;
    assert_eq!(status, 202, "{answer}");
    daemon
        .wait_for("the paused end", |l| ends(l) == ["interrupted"])
        .await;
    let (status, _) = daemon
        .post("/api/turns", &json!({"text": "Felix -> the_robot: go on"}))
        .await;
    assert_eq!(status, 202);
    let log = daemon
        .wait_for("the resumed episode", |l| ends(l).len() == 2)
        .await;
    assert_eq!(ends(&log), ["interrupted", "stop"]);
    let kinds: Vec<&str> = of_type(&log, "interrupted")
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["pause", "resume"]);
    let resumed = llm.bodies()[1].to_string();
    assert!(
        resumed.contains("go on with what you paused") && resumed.contains("pour me some cola"),
        "{resumed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_replays_from_last_event_id_then_goes_live() {
    use futures_util::StreamExt;
    let state = tempfile::tempdir().unwrap();
    let daemon = rules(state.path());
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to Daniel: Daniel, please hand me the red glass."}),
        )
        .await;
    let log = daemon
        .wait_for("an episode", |l| !of_type(l, "episode_end").is_empty())
        .await;
    let from = log[2]["seq"].as_u64().unwrap();
    let last = log.last().unwrap()["seq"].as_u64().unwrap();
    let response = reqwest::Client::new()
        .get(daemon.url("/api/events"))
        .header("Last-Event-ID", from.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    let mut ids: Vec<u64> = Vec::new();
    let mut posted = false;
    while ids.last().copied().unwrap_or(0) < last + 1 {
        let chunk = tokio::time::timeout(Duration::from_secs(20), stream.next())
            .await
            .expect("events keep coming")
            .expect("stream open")
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
        ids = text
            .lines()
            .filter_map(|l| l.strip_prefix("id: ").or_else(|| l.strip_prefix("id:")))
            .filter_map(|v| v.trim().parse().ok())
            .collect();
        if !posted && ids.last() == Some(&last) {
            // The backlog is through; now a live event.
            daemon
                .post(
                    "/api/scene",
                    &json!({"person": "Daniel", "holding": ["smartphone"]}),
                )
                .await;
            posted = true;
        }
    }
    let expected: Vec<u64> = (from + 1..=last + 1).collect();
    assert_eq!(&ids[..expected.len()], &expected[..], "no gap, no repeat");
    for line in text
        .lines()
        .filter_map(|l| l.strip_prefix("data: ").or_else(|| l.strip_prefix("data:")))
    {
        let event: Value = serde_json::from_str(line.trim()).expect("data is the event's JSON");
        assert!(event["seq"].is_u64() && event["type"].is_string());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_an_open_event_stream_and_a_running_episode_exits_zero_with_the_log_complete()
{
    let llm = FakeLlm::start(vec![Scripted::Hang]).await;
    let state = tempfile::tempdir().unwrap();
    let mut daemon = with_llm(state.path(), &llm, "60");
    // An open SSE stream is the known way to hang a graceful shutdown.
    let stream = reqwest::Client::new()
        .get(daemon.url("/api/events"))
        .send()
        .await
        .unwrap();
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix -> Daniel: pass the cola"}),
        )
        .await;
    daemon
        .wait_for("the LLM request", |_| llm.request_count() == 1)
        .await;
    daemon.signal("TERM");
    let code = tokio::task::block_in_place(|| daemon.wait_exit(Duration::from_secs(10)));
    assert_eq!(code, Some(0), "a clean exit within the shutdown bound");
    drop(stream);
    let log = support::daemon::log_lines(state.path());
    assert_eq!(ends(&log), ["interrupted"]);
    assert_eq!(of_type(&log, "interrupted")[0]["by"], "shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_episode_leaves_a_readable_log_and_a_restart_continues_the_seq() {
    let llm = FakeLlm::start(vec![Scripted::Hang, stop_call()]).await;
    let state = tempfile::tempdir().unwrap();
    let mut daemon = with_llm(state.path(), &llm, "60");
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix -> Daniel: pass the cola"}),
        )
        .await;
    daemon
        .wait_for("the LLM request", |_| llm.request_count() == 1)
        .await;
    daemon.signal("KILL");
    tokio::task::block_in_place(|| daemon.wait_exit(Duration::from_secs(10)));
    // Every complete line parses (log_lines panics otherwise).
    let before = support::daemon::log_lines(state.path());
    let max = before
        .iter()
        .filter_map(|e| e["seq"].as_u64())
        .max()
        .unwrap();
    drop(daemon);
    let daemon = with_llm(state.path(), &llm, "60");
    let (_, answer) = daemon
        .post("/api/turns", &json!({"text": "Felix -> Daniel: again"}))
        .await;
    assert!(
        answer["seq"].as_u64().unwrap() > max,
        "{answer} after {max}"
    );
    let log = daemon
        .wait_for("the episode after the restart", |l| !ends(l).is_empty())
        .await;
    let seqs: Vec<u64> = log.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[1] > w[0]), "{seqs:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_turns_keeps_the_queue_bound_and_reports_the_overflow() {
    let state = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(
        &["--no-audio", "--brain", "rules"],
        &[("ATTENTIVE_DAEMON__QUEUE_CAPACITY", "16")],
        state.path(),
    );
    let warm = daemon.rss_kib();
    let client = reqwest::Client::new();
    for n in 0..1000 {
        let response = client
            .post(daemon.url("/api/turns"))
            .json(&json!({"text": format!("Felix said to Daniel: Daniel, please hand me the red glass ({n}).")}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 202);
    }
    let (_, health) = daemon.get("/health").await;
    assert!(health["queued"].as_u64().unwrap() <= 16, "{health}");
    let log = daemon
        .wait_for("the queue to drain", |l| {
            let turns = of_type(l, "turn").len();
            let dropped = of_type(l, "warning")
                .iter()
                .filter(|w| w["kind"] == "queue_overflow")
                .count();
            turns == 1000 && ends(l).len() + dropped == 1000
        })
        .await;
    let dropped = of_type(&log, "warning")
        .iter()
        .filter(|w| w["kind"] == "queue_overflow")
        .count();
    assert!(dropped > 0, "a flood overflows a queue of 16");
    let grown = daemon.rss_kib().saturating_sub(warm);
    assert!(grown < 64 * 1024, "resident memory grew by {grown} KiB");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_loopback_the_daemon_needs_a_token_and_checks_it() {
    let state = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "--no-audio", "--listen", "0.0.0.0:0"])
        .env("ATTENTIVE_DAEMON__STATE_DIR", state.path())
        .env_remove("ATTENTIVE_API_TOKEN")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("ATTENTIVE_API_TOKEN"), "{err}");
    // With a token: only requests that carry it are served.
    let daemon = Daemon::start(
        &["--no-audio", "--listen", "0.0.0.0:0"],
        &[("ATTENTIVE_API_TOKEN", "s3cret")],
        state.path(),
    );
    let url = daemon.url("/health").replace("0.0.0.0", "127.0.0.1");
    let client = reqwest::Client::new();
    assert_eq!(
        client.get(&url).send().await.unwrap().status().as_u16(),
        401
    );
    let ok = client.get(&url).bearer_auth("s3cret").send().await.unwrap();
    assert_eq!(ok.status().as_u16(), 200);
}
