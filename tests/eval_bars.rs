//! The CI bars of the evaluation with the `rules` baseline: at least 95 %
//! success in every case type of the paper's isolated grid, and 6/6 on the
//! situated sequence. Also the shape of the grid and of `attentive eval`'s output.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use attentive::agent::tools::ToolTexts;
use attentive::config::{AgentSettings, GuardSettings};
use attentive::eval::judge::Category;
use attentive::eval::report::Summary;
use attentive::eval::run::{self, Runner};
use attentive::language::Language;
use attentive::llm::rules::RulesBrain;
use attentive::llm::ChatBackend;
use attentive::twin::World;

fn rules(world: &World, language: &Language) -> Result<Box<dyn ChatBackend>, String> {
    Ok(Box::new(RulesBrain::new(world, language)))
}

fn runner() -> Runner<'static> {
    Runner {
        brain: &rules,
        character: "full".into(),
        language: "en".into(),
        texts: ToolTexts::load_default().expect("tool texts"),
        agent: AgentSettings::default(),
        guards: GuardSettings::default(),
        memory: true,
        local_first: false,
        name_enums: false,
        tape: None,
        progress: None,
    }
}

#[test]
fn the_grid_has_300_distinct_cases_with_the_papers_phrasings() {
    let grid = run::isolated_grid().expect("grid");
    assert_eq!(grid.len(), 300);
    let distinct: BTreeSet<String> = grid
        .iter()
        .map(|e| format!("{} {}", e.label, e.turns[0].turn.text))
        .collect();
    assert_eq!(distinct.len(), 300);
    // Natural names, not identifiers.
    assert!(grid.iter().all(|e| !e.turns[0].turn.text.contains('_')));
    assert!(grid
        .iter()
        .any(|e| e.turns[0].turn.text == "Daniel, could you hand me the red glass?"));
    let per_case = |case: &str| {
        grid.iter()
            .filter(|e| e.case.map(|c| c.as_str()) == Some(case))
            .count()
    };
    for case in ["visibility", "reachability", "busyness", "unobtrusive"] {
        assert_eq!(per_case(case), 75, "{case}");
    }
}

#[test]
fn the_rules_baseline_clears_the_bars() {
    let grid = run::isolated_grid().expect("grid");
    let judged = runner().run_all(&grid, 1, 2);
    let summary = Summary::of(&judged);
    for (case, counts) in &summary.rows {
        let rate = Summary::success_rate(counts);
        assert!(
            rate >= 0.95,
            "{case}: {:.1} % success\n{}",
            100.0 * rate,
            summary.table("isolated grid")
        );
    }
    assert_eq!(summary.rows.len(), 4);

    let situated = run::scripts(&[
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dialogues/situated.toml")
    ])
    .expect("situated script");
    let judged = runner().run_all(&situated, 1, 1);
    let successes = judged
        .iter()
        .filter(|j| j.verdict.category == Category::Success)
        .count();
    let failures: Vec<String> = judged
        .iter()
        .filter(|j| j.verdict.category != Category::Success)
        .map(|j| {
            format!(
                "turn {}: {:?} {}",
                j.turn, j.verdict.category, j.verdict.why
            )
        })
        .collect();
    assert_eq!(successes, 6, "{failures:#?}");
}

#[test]
fn eval_prints_judged_events_a_summary_and_writes_a_report() {
    let report = std::env::temp_dir().join(format!("attentive-report-{}.html", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "--json",
            "eval",
            "tests/dialogues/situated.toml",
            "tests/dialogues/corrections.toml",
            "--brain",
            "rules",
            "--report",
        ])
        .arg(&report)
        .output()
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
    let judged: Vec<&serde_json::Value> = lines.iter().filter(|l| l["type"] == "judged").collect();
    assert!(judged.len() >= 6);
    for j in &judged {
        for key in ["file", "turn", "expect", "category", "why"] {
            assert!(!j[key].is_null(), "{key} missing in {j}");
        }
    }
    let summary = lines.last().expect("summary");
    assert_eq!(summary["type"], "eval_summary");
    assert_eq!(summary["brain"], "rules baseline (no LLM)");
    assert_eq!(summary["turns"], judged.len());
    let html = std::fs::read_to_string(&report).expect("report written");
    assert!(html.contains("<svg") && html.contains("success"));
    let _ = std::fs::remove_file(&report);
}

#[test]
fn a_malformed_dialogue_is_rejected_with_file_turn_and_reason() {
    let dir = std::env::temp_dir().join(format!("attentive-bad-dialogue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        "scene = \"softdrinks\"\n[[turn]]\ntext = \"Felix said to Daniel: hi\"\nexpect = \"silent\"\n[[turn]]\ntext = \"hello there\"\nexpect = \"help\"\n",
    )
    .expect("write");
    let output = Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("eval")
        .arg(&file)
        .output()
        .expect("run attentive eval");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("bad.toml") && stderr.contains("turn 2") && stderr.contains("not a turn"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every turn of a dialogue under `tests/dialogues` is judged a success (the rules brain).
fn every_turn_succeeds(file: &str, turns: usize) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/dialogues")
        .join(file);
    let judged = runner().run_all(&run::scripts(&[script]).expect("script"), 1, 1);
    assert_eq!(judged.len(), turns);
    for j in &judged {
        assert_eq!(
            j.verdict.category,
            Category::Success,
            "turn {}: {}",
            j.turn,
            j.verdict.why
        );
    }
}

/// A hindered listener and a robot that cannot reach the thing either: the robot says
/// so at once (nothing moves), and still helps with what it reaches.
#[test]
fn the_robot_says_at_once_when_it_cannot_reach_the_thing_either() {
    every_turn_succeeds("robot_cannot_either.toml", 2);
}

/// "please" or "um" alone after a request (the early end of turn splits "..., please"):
/// the robot acts on the request and says nothing to the rest.
#[test]
fn fillers_and_politeness_alone_get_no_apology() {
    every_turn_succeeds("politeness_alone.toml", 3);
}

/// The tail of a request heard alone after a pause ("would you" heard "What do you?"):
/// no "Sorry, I did not understand" that would shut the microphone; a short turn that
/// follows nothing of the same person's still gets one.
#[test]
fn a_tail_heard_alone_gets_no_apology() {
    every_turn_succeeds("a_tail_heard_alone.toml", 3);
}

/// Both of the asker's hands full: the thing is set down within their reach instead of
/// handed over; asked for the glass they hold, the robot says "you are holding ...".
#[test]
fn hands_full_the_robot_sets_it_down_and_says_why_in_words() {
    every_turn_succeeds("hands_full.toml", 2);
}

/// "The glass" with two on the table, asked of the robot: it asks which one, in words
/// ("the red glass or the blue glass"), not in ids.
#[test]
fn the_robot_asks_which_one_in_words() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dialogues/ambiguity.toml");
    let judged = runner().run_all(&run::scripts(&[script]).expect("script"), 1, 1);
    assert_eq!(judged.len(), 1);
    assert_eq!(
        judged[0].verdict.category,
        Category::Success,
        "{}",
        judged[0].verdict.why
    );
}
