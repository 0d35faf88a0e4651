//! `attentive understand` and the `understood` event, end to end through the binary.

use std::process::Command;

fn attentive(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("run attentive")
}

fn json_lines(output: &std::process::Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn understand_prints_act_slots_and_the_matching_template() {
    let output = attentive(&[
        "--json",
        "understand",
        "--scene",
        "coffee",
        "Felix said to the_robot: Put the milk in front of Daniel.",
        "Daniel -> Felix: uh could you pour me some of it",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = json_lines(&output);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["type"], "understood");
    assert_eq!(lines[0]["act"], "move_to");
    assert_eq!(lines[0]["slots"]["object"]["candidates"][0], "milk_bottle");
    assert_eq!(lines[0]["slots"]["recipient"]["name"], "Daniel");
    assert!(lines[0]["matched"]
        .as_str()
        .unwrap_or("")
        .starts_with("move_to: "));
    // "it" is the milk of the turn before; the recipient is the speaker.
    assert_eq!(lines[1]["act"], "pour");
    assert_eq!(lines[1]["slots"]["source"]["candidates"][0], "milk_bottle");
    assert_eq!(lines[1]["slots"]["recipient"]["name"], "Daniel");
}

#[test]
fn a_malformed_turn_or_sentence_file_is_a_clear_error() {
    let output = attentive(&["understand", "Felix says hello"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a turn"));

    let dir = tempfile::tempdir().expect("temp dir");
    let bad = dir.path().join("sentences.toml");
    std::fs::write(
        &bad,
        "[normalize]\n[slots]\nobject = \"object\"\n[[intent]]\nact = \"give\"\nsentences = [\"give me {object\"]\n",
    )
    .expect("write");
    let output = attentive(&[
        "understand",
        "--sentences",
        bad.to_str().expect("utf-8 path"),
        "Felix said to Daniel: hi",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("sentences.toml:6") && stderr.contains("unbalanced"),
        "{stderr}"
    );
}

#[test]
fn every_turn_of_a_simulation_carries_its_reading() {
    let output = attentive(&["--json", "sim", "--script", "tests/dialogues/situated.toml"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = json_lines(&output);
    let turns = lines.iter().filter(|l| l["type"] == "turn").count();
    let readings: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["type"] == "understood").collect();
    assert_eq!(turns, readings.len());
    let acts: Vec<&str> = readings.iter().filter_map(|r| r["act"].as_str()).collect();
    assert_eq!(
        acts,
        [
            "ask_inventory",
            "state_inventory",
            "give",
            "pour",
            "pour_same",
            "unknown"
        ]
    );
    // The reading comes right after its turn, before any tool call.
    let first_turn = lines
        .iter()
        .position(|l| l["type"] == "turn")
        .expect("turn");
    assert_eq!(lines[first_turn + 1]["type"], "understood");
}
