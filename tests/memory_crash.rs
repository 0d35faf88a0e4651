//! Restart safety: the daemon is killed (SIGKILL) while people keep asking it
//! to remember things; the store then opens, passes SQLite's check, shows
//! every fact whole (its row and its index entry, and exactly one current fact
//! per topic: no half-applied supersession), and a restarted daemon runs with
//! memory on.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::daemon::Daemon;

use attentive::memory::Store;

fn remembered(log: &[Value]) -> usize {
    log.iter()
        .filter(|e| e["type"] == "tool_call" && e["name"] == "remember" && e["ok"] == true)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_during_writes_leaves_a_store_that_opens_with_nothing_half_written() {
    let state = tempfile::tempdir().expect("state folder");
    let mut daemon = Daemon::start(&["--no-audio", "--brain", "rules"], &[], state.path());
    for n in 1..=40 {
        let text = format!("Remember that my favourite drink is number {n} of the house specials.");
        let (status, _) = daemon
            .post(
                "/api/turns",
                &json!({"speaker": "Felix", "listener": "the_robot", "text": text}),
            )
            .await;
        assert_eq!(status, 202);
    }
    // Kill it while the queue is still being worked off.
    daemon
        .wait_for("a few facts stored", |log| remembered(log) >= 3)
        .await;
    daemon.signal("KILL");
    assert_eq!(
        daemon.wait_exit(Duration::from_secs(5)),
        None,
        "killed, no exit code"
    );
    let stored_before_kill = remembered(&daemon.log());
    drop(daemon);

    let store = Store::open(&state.path().join("memory.db")).expect("the store opens after a kill");
    let facts = store.all_facts().expect("facts");
    assert!(
        facts.len() >= stored_before_kill,
        "a committed fact was lost"
    );
    assert!(facts.len() < 40, "the kill came too late to test anything");
    for fact in &facts {
        assert!(
            fact.text.starts_with("my favourite drink is number ")
                && fact.text.ends_with("of the house specials"),
            "a fact is not whole: {:?}",
            fact.text
        );
    }
    let indexed = store
        .search("house specials", Some("Felix"), 1000)
        .expect("search");
    assert_eq!(
        indexed.len(),
        facts.len(),
        "every fact and only they are indexed"
    );
    let current = facts.iter().filter(|f| f.current()).count();
    assert_eq!(current, 1, "exactly one current fact on the topic");
    drop(store);

    let daemon = Daemon::start(&["--no-audio", "--brain", "rules"], &[], state.path());
    let (status, health) = daemon.get("/health").await;
    assert_eq!(status, 200);
    assert_eq!(health["memory"], "on", "{health}");
}
