//! The development set of ordinary phrasings (tests/dialogues/phrasings,
//! written before the sentences were tuned): the rules brain helps, answers,
//! corrects and stays silent as people expect in at least 95 % of the turns,
//! and never intervenes where nobody needed help. The held-out set
//! (tests/dialogues/heldout) is never tuned on; its figure is reported in the
//! README, measured with `attentive eval tests/dialogues/heldout`. The long-tail
//! set (tests/dialogues/long_tail) is held too.

use std::process::Command;

/// The `judged` events of the rules brain on a folder of dialogues.
fn judged_turns(folder: &str) -> Vec<serde_json::Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--json", "eval", folder, "--brain", "rules"])
        .output()
        .expect("run attentive eval");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|l| l["type"] == "judged")
        .collect()
}

/// The turns not judged a success, one line each.
fn failures(judged: &[serde_json::Value]) -> Vec<String> {
    judged
        .iter()
        .filter(|j| j["category"] != "success")
        .map(|j| {
            format!(
                "{} turn {}: {} ({})",
                j["file"], j["turn"], j["category"], j["why"]
            )
        })
        .collect()
}

#[test]
fn the_development_set_holds_95_percent_and_no_needless_intervention() {
    let judged = judged_turns("tests/dialogues/phrasings");
    assert!(judged.len() >= 300, "only {} turns", judged.len());
    let failed = failures(&judged);
    let rate = 1.0 - failed.len() as f64 / judged.len() as f64;
    assert!(
        rate >= 0.95,
        "success {:.1} %:\n{}",
        100.0 * rate,
        failed.join("\n")
    );
    let needless: Vec<String> = judged
        .iter()
        .filter(|j| j["expect"] == "silent" && j["category"] != "success")
        .map(|j| format!("{} turn {}: {}", j["file"], j["turn"], j["why"]))
        .collect();
    assert!(
        needless.is_empty(),
        "needless interventions:\n{}",
        needless.join("\n")
    );
}

/// The kinds of talk added for the long tail (tests/dialogues/long_tail: count
/// claims, moving things along the table, "the bottle of beer"): at least 90 %,
/// and no needless intervention.
#[test]
fn the_long_tail_set_holds_90_percent_and_no_needless_intervention() {
    let judged = judged_turns("tests/dialogues/long_tail");
    assert!(judged.len() >= 25, "only {} turns", judged.len());
    let ok = judged.iter().filter(|j| j["category"] == "success").count();
    let rate = ok as f64 / judged.len() as f64;
    let failed = failures(&judged);
    assert!(
        rate >= 0.9,
        "success {:.1} %:\n{}",
        100.0 * rate,
        failed.join("\n")
    );
    assert!(
        judged
            .iter()
            .all(|j| j["expect"] != "silent" || j["category"] == "success"),
        "needless interventions:\n{}",
        failed.join("\n")
    );
}

/// The German development set (tests/sets/de_dev, written by a helper before any
/// German sentence existed; `language = "de"` in each script): its goal, at
/// least 95 %, and at most the one needless intervention it still makes ("ok
/// dann halt sprudel" read as asking for the soda; the goal is none). The
/// held-out set (tests/sets/de_heldout2; the first, tests/sets/de_heldout, is now
/// development data) is reported in the README.
#[test]
fn the_german_development_set_holds_its_floor() {
    let judged = judged_turns("tests/sets/de_dev");
    assert!(judged.len() >= 150, "only {} turns", judged.len());
    let failed = failures(&judged);
    let rate = 1.0 - failed.len() as f64 / judged.len() as f64;
    assert!(
        rate >= 0.95,
        "success {:.1} %:\n{}",
        100.0 * rate,
        failed.join("\n")
    );
    let needless = judged
        .iter()
        .filter(|j| j["expect"] == "silent" && j["category"] != "success")
        .count();
    assert!(
        needless <= 1,
        "{needless} needless interventions:\n{}",
        failed.join("\n")
    );
}

/// The second German development set (tests/sets/de_dev2, written by a helper
/// who never saw the code or the language data, weighted to wrong statements
/// about the table): 136 of 160 when it was added to the tests (from 96 before
/// any work on it), 144 since, and no needless intervention since "warte kurz
/// mein Handy", said while holding it, asks nothing. The floor keeps what was reached.
#[test]
fn the_second_german_development_set_holds_its_floor() {
    let judged = judged_turns("tests/sets/de_dev2");
    assert!(judged.len() >= 150, "only {} turns", judged.len());
    let failed = failures(&judged);
    let right = judged.len() - failed.len();
    assert!(right >= 144, "{right} right:\n{}", failed.join("\n"));
    let needless = judged
        .iter()
        .filter(|j| j["expect"] == "silent" && j["category"] != "success")
        .count();
    assert!(needless == 0, "{needless} needless:\n{}", failed.join("\n"));
}
