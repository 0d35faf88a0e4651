//! `attentive tool` runs action tools end to end on the twin.

use std::process::Command;

#[test]
fn hand_over_red_glass_to_felix_through_the_cli() {
    let out = Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "--json",
            "tool",
            "--scene",
            "softdrinks",
            "hand_object_over_to_person",
            r#"{"object_name":"red_glass","person_name":"Felix"}"#,
        ])
        .output()
        .expect("binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    assert_eq!(line["ok"], true, "{line}");
    assert!(
        line["text"]
            .as_str()
            .unwrap_or("")
            .starts_with("You handed red_glass to Felix"),
        "{line}"
    );
    assert!(
        line["facts"]["variants_tried"].as_u64().unwrap_or(0) > 0,
        "{line}"
    );
    assert!(line["facts"]["cost_formula"].is_string(), "{line}");
}
