//! The REPL of `attentive sim`: turns in both forms, commands, and malformed
//! lines that get a hint instead of an exit.

use std::io::Write;
use std::process::{Command, Stdio};

fn repl(input: &str, json: bool) -> (String, String, bool) {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut command = Command::new(env!("CARGO_BIN_EXE_attentive"));
    command.current_dir(root);
    if json {
        command.arg("--json");
    }
    let mut child = command
        .args([
            "sim",
            "--brain",
            "scripted",
            "--responses",
            "tests/fixtures/situated_responses.toml",
        ])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start attentive sim");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).expect("write stdin");
    }
    let output = child.wait_with_output().expect("sim ends");
    (
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
        output.status.success(),
    )
}

#[test]
fn turns_commands_and_hints() {
    let input = "Felix said to Daniel: Hey Daniel, what do we have to drink?\n\
                 this is not a turn\n\
                 :busy Daniel smartphone\n\
                 :busy Nobody smartphone\n\
                 :state\n\
                 :free Daniel\n\
                 :frobnicate\n\
                 :quit\n";
    let (stdout, stderr, ok) = repl(input, false);
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with("attentive sim: scene softdrinks, character full, brain scripted"),
        "{stdout}"
    );
    assert!(stdout.contains("Felix -> Daniel: Hey Daniel, what do we have to drink?"));
    assert!(stdout.contains("not a turn: write 'Felix said to Daniel: text'"));
    assert!(stdout.contains("Daniel now holds smartphone"));
    assert!(stdout.contains("no person 'Nobody'"));
    assert!(stdout.contains("Daniel: busy, holding smartphone"));
    assert!(stdout.contains("Daniel put down smartphone."));
    assert!(stdout.contains("unknown command ':frobnicate'"));
}

#[test]
fn json_events_and_the_arrow_form() {
    let (stdout, stderr, ok) = repl(
        "Felix -> Daniel: Hey Daniel, what do we have to drink?\n:state\n",
        true,
    );
    assert!(ok, "{stderr}");
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(events[0]["type"], "turn");
    assert_eq!(events[0]["speaker"], "Felix");
    assert!(events
        .iter()
        .any(|e| e["type"] == "episode_end" && e["reason"] == "stop"));
    assert_eq!(
        events.last().map(|e| e["type"].clone()),
        Some("state".into())
    );
    // The banner goes to stderr so that stdout stays pure JSON.
    assert!(stderr.contains("brain scripted"));
}

#[test]
fn without_options_sim_runs_softdrinks_with_the_rules_baseline_when_no_llm_is_configured() {
    let output = sim_without_llm(
        &[],
        b"Felix said to Daniel: Daniel, please hand me the red glass.\n:quit\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let first = stdout.lines().next().unwrap_or_default();
    assert!(
        first.contains("scene softdrinks")
            && first.contains("brain rules (rules baseline (no LLM))"),
        "{first}"
    );
    assert!(
        stdout.contains("robot hand_object_over_to_person: You handed red_glass to Felix"),
        "{stdout}"
    );
}

/// "There are no glasses": the rules brain names every empty glass still
/// there, not only the first it finds.
#[test]
fn a_wrong_absence_of_several_things_names_them_all() {
    let output = sim_without_llm(
        &["--brain", "rules", "--scene", "softdrinks"],
        b"Daniel said to Felix: there are no glasses left, they're all in the dishwasher\n:quit\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("the red glass and the blue glass are still here"),
        "{stdout}"
    );
}

/// The rules brain at the soft-drinks table, in German.
const GERMAN_SOFTDRINKS: &[&str] = &[
    "--brain",
    "rules",
    "--scene",
    "softdrinks",
    "--language",
    "de",
];

/// `attentive sim ARGS` with no LLM configured, `input` on its standard input.
fn sim_without_llm(args: &[&str], input: &[u8]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("sim")
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ATTENTIVE_LLM__BASE_URL")
        .env_remove("ATTENTIVE_SIM__BRAIN")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            if let Some(mut stdin) = child.stdin.take() {
                stdin.write_all(input)?;
            }
            child.wait_with_output()
        })
        .expect("run attentive sim")
}

/// "The cola and the fanta are all gone": each one still holding its drink is named.
#[test]
fn a_wrong_absence_of_several_drinks_names_what_each_holds() {
    let output = sim_without_llm(
        &["--brain", "rules", "--scene", "softdrinks"],
        b"Daniel said to Felix: the cola and the fanta are all gone\n:quit\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("there is still cola in the cola bottle and fanta in the fanta bottle"),
        "{stdout}"
    );
}

/// A pour needs the glass as much as the bottle: the listener reaching the milk
/// but not the mug is hindered; reaching both, not.
#[test]
fn a_pour_into_a_glass_the_listener_cannot_reach_is_helped() {
    let output = sim_without_llm(
        &[
            "--brain",
            "rules",
            "--scene",
            "tests/sets/newtables_dev/scenes/breakfast.toml",
        ],
        b"Ana said to Tomas: Tomas, could you fill the blue mug with milk for me?\n\
          Ana said to Tomas: Tomas, could you pour some milk into the green mug for me?\n:quit\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Tomas cannot reach the blue mug, so I will pour you some milk."),
        "{stdout}"
    );
    assert!(stdout.contains("into blue_mug"), "{stdout}");
    assert!(!stdout.contains("into green_mug"), "{stdout}");
}

/// A hand-over with no point where both could hold the thing sets it down
/// within the person's reach instead (the planner does, and says why).
#[test]
fn a_hand_over_without_a_hand_over_point_sets_the_thing_down_within_reach() {
    let output = sim_without_llm(
        &[
            "--brain",
            "rules",
            "--scene",
            "tests/sets/newtables_dev/scenes/breakfast.toml",
        ],
        b"Sam said to the_robot: Could you bring me the jam?\n\
          Sam said to the_robot: the butter as well?\n:quit\n",
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Sam could not take it from your hand anywhere your arm reaches"),
        "{stdout}"
    );
    assert!(
        stdout.contains("You put butter_dish on the table within Sam's reach"),
        "{stdout}"
    );
}

/// Asked with "Sie", the robot answers with "Sie"; asked with "du", with "du".
#[test]
fn the_robot_answers_in_the_form_it_was_asked_in() {
    let output = sim_without_llm(
        GERMAN_SOFTDRINKS,
        "Felix said to the_robot: Können Sie mir bitte das rote Glas reichen?\n\
         Daniel said to the_robot: Kannst du mir das blaue Glas geben?\n:quit\n"
            .as_bytes(),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(
            "Sie haben mich darum gebeten, deshalb werde ich Ihnen das rote Glas reichen."
        ),
        "{stdout}"
    );
    assert!(
        stdout
            .contains("Du hast mich darum gebeten, deshalb werde ich dir das blaue Glas reichen."),
        "{stdout}"
    );
}

/// "Help yourself to the fanta" between people asks nothing of the robot,
/// which helps the sender: no hand-over to the listener, and no guard's
/// refusal read out.
#[test]
fn a_thing_offered_to_the_listener_asks_nothing_of_the_robot() {
    let output = sim_without_llm(
        GERMAN_SOFTDRINKS,
        "Felix said to Daniel: Nimm dir doch das rote Glas.\n:quit\n".as_bytes(),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("understood give"), "{stdout}");
    assert!(!stdout.contains("robot says"), "{stdout}");
    assert!(!stdout.contains("Refused"), "{stdout}");
}
