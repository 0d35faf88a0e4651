//! The paper's six-step situated sequence end to end through the built binary:
//! the scripted brain replays a well-behaved LLM, the loop runs its calls on
//! the twin, and the twin ends in the expected state.

use std::process::Command;

use serde_json::Value;

fn run_situated() -> Vec<Value> {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(root)
        .args([
            "--json",
            "sim",
            "--brain",
            "scripted",
            "--script",
            "tests/dialogues/situated.toml",
            "--responses",
            "tests/fixtures/situated_responses.toml",
        ])
        .output()
        .expect("run attentive");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

#[test]
fn the_situated_sequence_ends_in_the_expected_state() {
    let events = run_situated();
    let turns = events.iter().filter(|e| e["type"] == "turn").count();
    assert_eq!(turns, 6);
    assert_eq!(
        events
            .iter()
            .filter(|e| e["type"] == "episode_end" && e["reason"] == "stop")
            .count(),
        6
    );
    // Every action succeeded and no guard had to step in.
    let actions: Vec<&Value> = events.iter().filter(|e| e["type"] == "action").collect();
    assert!(actions.iter().all(|a| a["ok"] == true), "{actions:#?}");
    assert!(
        !events.iter().any(|e| e["type"] == "warning"),
        "unexpected warnings"
    );
    let state = events.last().expect("events");
    assert_eq!(state["type"], "state");
    assert_eq!(state["objects"]["red_glass"]["held_by"], "Felix");
    assert_eq!(state["objects"]["red_glass"]["contains"], "cola");
    assert_eq!(state["objects"]["blue_glass"]["held_by"], "Daniel");
    assert_eq!(state["objects"]["blue_glass"]["contains"], "cola zero");
    // The bottles went back to the table.
    assert_eq!(state["objects"]["cola_zero_bottle"]["held_by"], Value::Null);
    assert_eq!(state["persons"]["Daniel"]["busy"], true);
}

#[test]
fn the_robot_explains_before_it_acts_and_stays_silent_in_step_one() {
    let events = run_situated();
    let mut turn = 0;
    let mut spoke_in_turn = false;
    for event in &events {
        match event["type"].as_str() {
            Some("turn") => {
                turn += 1;
                spoke_in_turn = false;
            }
            Some("speech") => {
                assert_ne!(turn, 1, "the robot must not speak in step 1");
                spoke_in_turn = true;
            }
            Some("action") if event["name"] != "gaze" => {
                assert!(
                    spoke_in_turn,
                    "turn {turn}: acted before explaining: {event}"
                )
            }
            _ => {}
        }
    }
}
