//! End to end: the built `attentive tool` binary on the shipped scenes, checking
//! the facts behind each situation of the paper's Fig. 3 (plus the sixth step).

use std::process::Command;

use serde_json::Value;

fn tool(args: &[&str]) -> (i32, Value, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_attentive"))
        .arg("--json")
        .arg("tool")
        .args(args)
        .output()
        .expect("run attentive");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let json = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    (output.status.code().unwrap_or(-1), json, stderr)
}

fn hindrance(person: &str, object: &str, extra: &[&str]) -> Value {
    let args = format!(r#"{{"person_name":"{person}","object_name":"{object}"}}"#);
    let mut all = vec!["--scene", "softdrinks"];
    all.extend_from_slice(extra);
    all.extend_from_slice(&["check_hindering_reasons", &args]);
    let (code, json, stderr) = tool(&all);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["tool"], "check_hindering_reasons");
    assert_eq!(json["ok"], true);
    json
}

#[test]
fn situation_1_daniel_is_free_to_answer() {
    let (code, json, _) = tool(&["is_person_busy_or_idle", r#"{"person_name":"Daniel"}"#]);
    assert_eq!(code, 0);
    assert_eq!(json["facts"]["busy"], false);
    assert_eq!(json["text"], "Daniel is idle.");
}

#[test]
fn situation_2_the_table_has_three_drinks() {
    let (_, json, _) = tool(&["--scene", "softdrinks", "get_objects"]);
    let text = json["text"].as_str().unwrap_or_default();
    for drink in ["cola_bottle", "cola_zero_bottle", "fanta_bottle"] {
        assert!(text.contains(drink), "{text}");
    }
}

#[test]
fn situation_3_daniel_cannot_reach_the_red_glass_but_the_robot_can() {
    let json = hindrance("Daniel", "the red glass", &[]);
    let facts = &json["facts"];
    assert_eq!(facts["object"], "red_glass");
    assert_eq!(facts["reachable"], false);
    assert_eq!(facts["visible"], true);
    assert_eq!(facts["busy"], false);
    assert!(json["text"]
        .as_str()
        .unwrap_or_default()
        .contains("cannot reach red_glass"));
    let (_, robot, _) = tool(&[
        "check_reach_object_for_robot",
        r#"{"object_name":"red_glass"}"#,
    ]);
    assert_eq!(robot["facts"]["reachable"], true);
    assert_eq!(robot["facts"]["method"], "inverse_kinematics");
}

#[test]
fn situation_4_daniel_is_busy_with_his_phone() {
    let json = hindrance("Daniel", "cola", &["--busy", "Daniel=smartphone"]);
    assert_eq!(json["facts"]["busy"], true);
    assert_eq!(json["facts"]["holding"][0], "smartphone");
    assert!(json["text"]
        .as_str()
        .unwrap_or_default()
        .contains("Daniel is busy"));
}

#[test]
fn situation_5_the_box_hides_the_cola_zero_from_felix() {
    let json = hindrance("Felix", "cola zero", &[]);
    assert_eq!(json["facts"]["object"], "cola_zero_bottle");
    assert_eq!(json["facts"]["visible"], false);
    assert_eq!(json["facts"]["occluded_by"], serde_json::json!(["box"]));
    assert!(json["text"]
        .as_str()
        .unwrap_or_default()
        .contains("hidden behind box"));
    // Daniel, across the table, sees it.
    assert_eq!(
        hindrance("Daniel", "cola_zero_bottle", &[])["facts"]["visible"],
        true
    );
}

#[test]
fn situation_6_the_people_the_robot_talks_with() {
    let (_, json, _) = tool(&["get_persons"]);
    assert_eq!(
        json["facts"]["persons"],
        serde_json::json!(["Felix", "Daniel"])
    );
}

#[test]
fn bad_input_gets_a_clear_answer() {
    // Unknown object: the tool answers, ok false, with the candidates.
    let (code, json, _) = tool(&[
        "check_hindering_reasons",
        r#"{"person_name":"Daniel","object_name":"sprite"}"#,
    ]);
    assert_eq!(code, 1);
    assert_eq!(json["ok"], false);
    assert!(json["text"]
        .as_str()
        .unwrap_or_default()
        .contains("no object called 'sprite'"));
    // Ambiguous: candidates, no guess.
    let (_, json, _) = tool(&[
        "check_hindering_reasons",
        r#"{"person_name":"Daniel","object_name":"glass"}"#,
    ]);
    assert!(json["text"]
        .as_str()
        .unwrap_or_default()
        .contains("red_glass or blue_glass"));
    // Missing argument.
    let (_, json, _) = tool(&["check_hindering_reasons", r#"{"person_name":"Daniel"}"#]);
    assert!(json["text"]
        .as_str()
        .unwrap_or_default()
        .contains("needs object_name"));
    // Not JSON, unknown scene, unknown tool.
    let (code, _, stderr) = tool(&["check_hindering_reasons", "{person_name: Daniel"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("not valid JSON"), "{stderr}");
    let (code, _, stderr) = tool(&["--scene", "kitchen", "get_objects"]);
    assert_ne!(code, 0);
    assert!(
        stderr.contains("no scene called 'kitchen'") && stderr.contains("softdrinks"),
        "{stderr}"
    );
    let (_, json, _) = tool(&["fly", "{}"]);
    assert!(json["text"]
        .as_str()
        .unwrap_or_default()
        .contains("no tool called 'fly'"));
}

#[test]
fn every_scenario_answers_for_its_objects() {
    for (scene, object) in [("coffee", "oat milk"), ("dinner", "the wine glass")] {
        let args = format!(r#"{{"person_name":"Felix","object_name":"{object}"}}"#);
        let (code, json, stderr) = tool(&["--scene", scene, "check_hindering_reasons", &args]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(json["ok"], true, "{json}");
    }
}
