//! The multi-session memory scripts (tests/dialogues/memory/) with the rules
//! brain: every turn succeeds with memory, and every script fails without it
//! (the check that each one needs memory at all). The held-out set
//! (tests/dialogues/memory_heldout/, written by someone who had not seen the
//! code) is reported by `attentive eval`, not asserted here.

use std::path::PathBuf;

use attentive::agent::tools::ToolTexts;
use attentive::config::{AgentSettings, GuardSettings};
use attentive::eval::judge::Category;
use attentive::eval::run::{self, Runner};
use attentive::language::Language;
use attentive::llm::rules::RulesBrain;
use attentive::llm::ChatBackend;
use attentive::twin::World;

fn rules(world: &World, language: &Language) -> Result<Box<dyn ChatBackend>, String> {
    Ok(Box::new(RulesBrain::new(world, language)))
}

fn runner(memory: bool) -> Runner<'static> {
    Runner {
        brain: &rules,
        character: "full".into(),
        language: "en".into(),
        texts: ToolTexts::load_default().expect("tool texts"),
        agent: AgentSettings::default(),
        guards: GuardSettings::default(),
        memory,
        name_enums: false,
        local_first: false,
        tape: None,
        progress: None,
    }
}

fn scripts() -> Vec<run::Episode> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dialogues/memory");
    let episodes = run::scripts(&[dir]).expect("memory scripts");
    assert!(episodes.len() >= 7, "the seven cases of issue 23");
    assert!(episodes
        .iter()
        .all(|e| e.turns.iter().any(|t| t.new_session)));
    episodes
}

#[test]
fn with_memory_every_turn_of_every_script_succeeds() {
    let runner = runner(true);
    for episode in scripts() {
        for judged in runner.run(&episode) {
            assert_eq!(
                judged.verdict.category,
                Category::Success,
                "{} turn {}: {}",
                episode.label,
                judged.turn,
                judged.verdict.why
            );
        }
    }
}

#[test]
fn without_memory_every_script_fails() {
    let runner = runner(false);
    for episode in scripts() {
        let judged = runner.run(&episode);
        assert!(
            judged
                .iter()
                .any(|j| j.verdict.category != Category::Success),
            "{} passes without memory: it does not test memory",
            episode.label
        );
    }
}

#[test]
fn an_erasure_leaves_no_copy_in_the_recording() {
    let dir = tempfile::tempdir().expect("folder");
    let tape = attentive::llm::tape::Tape::record(
        dir.path(),
        serde_json::json!({}),
        serde_json::json!({}),
    )
    .expect("recording");
    let runner = Runner {
        tape: Some(tape),
        ..runner(true)
    };
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dialogues/memory/forget_me.toml");
    let episodes = run::scripts(&[script]).expect("script");
    let judged = runner.run(&episodes[0]);
    assert!(judged
        .iter()
        .all(|j| j.verdict.category == Category::Success));
    let mut files = 0;
    for entry in std::fs::read_dir(dir.path())
        .expect("recording folder")
        .flatten()
    {
        let text = std::fs::read_to_string(entry.path()).expect("readable");
        files += 1;
        for erased in ["only drink sugar-free", "only drink sugar free"] {
            assert!(
                !text.to_lowercase().contains(erased),
                "{} still holds '{erased}'",
                entry.path().display()
            );
        }
    }
    assert!(files >= 2, "the recording was written");
}
