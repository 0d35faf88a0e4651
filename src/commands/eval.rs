//! `attentive eval`: dialogue scripts and the paper's isolated grid, judged,
//! with its cost; a stratified sample, several characters in one report, and
//! record / replay of every LLM reply.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context};
use serde_json::{json, Value};

use attentive::agent::tools::ToolTexts;
use attentive::config::LlmSettings;
use attentive::eval::figures::{self, CharacterRun};
use attentive::eval::judge::Category;
use attentive::eval::progress::ProgressBar;
use attentive::eval::report::Summary;
use attentive::eval::run::{self, Judged, Progress, Runner};
use attentive::eval::sample;
use attentive::llm::tape::Tape;
use attentive::llm::ChatBackend;
use attentive::twin::World;

use super::sim::{build_backend, settings_with};
use crate::cli::EvalArgs;

/// Runs the evaluation and prints verdicts and the summary.
pub fn run(args: &EvalArgs, json: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    // A replay defaults to the recorded brain and model: the same options replay the same run.
    let recorded = match &args.replay {
        Some(dir) => Some(Tape::read_meta(dir)?),
        None => None,
    };
    let recorded_str = |key: &str| -> Option<String> {
        let meta = recorded.as_ref()?;
        meta.get(key)
            .or_else(|| meta["settings"].get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let model = args.model.clone().or_else(|| recorded_str("model"));
    let settings = settings_with(config, &args.llm_url, &model)?;
    let brain = args
        .brain
        .clone()
        .or_else(|| recorded_str("brain"))
        .unwrap_or_else(|| settings.brain(None));
    if brain == "scripted" {
        bail!("eval runs the llm or the rules brain; the scripted brain replays one script with `attentive sim --script`");
    }
    let characters: Vec<String> = args
        .character
        .iter()
        .flat_map(|c| c.split(','))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    let default_character = characters
        .first()
        .cloned()
        .unwrap_or_else(|| settings.sim.character.clone());

    let mut episodes = run::scripts(&args.paths)?;
    if args.isolated {
        let grid = run::isolated_grid()?;
        let grid_size = grid.len();
        let grid = match args.sample {
            Some(n) => sample::stratified(grid, n, args.seed),
            None => grid,
        };
        if args.sample.is_some() {
            eprintln!(
                "a stratified sample of {} of the {grid_size} isolated cases (seed {})",
                grid.len(),
                args.seed
            );
        }
        episodes.extend(grid);
    }
    if episodes.is_empty() {
        bail!("nothing to evaluate: give dialogue scripts or folders (e.g. tests/dialogues), or --isolated");
    }
    let episodes = run::with_characters(&episodes, &characters);
    let label = if brain == "rules" {
        "rules baseline (no LLM)".to_string()
    } else {
        brain.clone()
    };

    let tape_settings = request_settings(&brain, &settings.llm);
    let tape = match (&args.record, &args.replay) {
        (Some(dir), _) => Some(Tape::record(
            dir,
            tape_settings,
            json!({
                "brain": brain,
                "characters": characters,
                "paths": args.paths,
                "isolated": args.isolated,
                "sample": args.sample,
                "seed": args.seed,
                "repeat": args.repeat,
                "runs": episodes.len() * args.repeat.max(1) as usize,
            }),
        )?),
        (None, Some(dir)) => Some(Tape::replay(dir, tape_settings)?),
        (None, None) => None,
    };
    let replaying = tape.as_ref().is_some_and(Tape::is_replay);

    let make_brain = |world: &World| -> Result<Box<dyn ChatBackend>, String> {
        build_backend(&brain, &settings, None, world).map_err(|e| format!("{e:#}"))
    };
    // A brain that cannot start (no key, bad URL) is one clear error, not N failed
    // episodes. A replay needs no brain at all.
    if let (Some(first), false) = (episodes.first(), replaying) {
        make_brain(&first.world).map_err(anyhow::Error::msg)?;
    }
    let runs = episodes.len() * args.repeat.max(1) as usize;
    let terminal = std::io::stderr().is_terminal();
    let bar = (terminal || args.progress).then(|| ProgressBar::new(runs, terminal));
    let runner = Runner {
        brain: &make_brain,
        character: default_character.clone(),
        texts: ToolTexts::load_default()?,
        agent: settings.agent_settings(),
        guards: settings.guards.clone(),
        name_enums: settings.llm.uses_name_enums(),
        memory: !args.no_memory && settings.memory.enabled,
        tape,
        progress: bar.as_ref().map(|b| b as &dyn Progress),
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let started = Instant::now();
    let judged = runner.run_all(&episodes, args.repeat, jobs);
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish();
    }

    // One summary per character asked for; without a list, one as before.
    let groups: Vec<(String, Vec<&Judged>)> = if characters.is_empty() {
        vec![(default_character.clone(), judged.iter().collect())]
    } else {
        characters
            .iter()
            .map(|c| {
                (
                    c.clone(),
                    judged.iter().filter(|j| j.character == *c).collect(),
                )
            })
            .collect()
    };
    if json {
        for j in &judged {
            println!("{}", j.to_json());
        }
        for (character, turns) in &groups {
            let owned: Vec<Judged> = turns.iter().map(|j| (*j).clone()).collect();
            println!("{}", Summary::of(&owned).to_json(&label, character));
        }
    } else {
        for j in &judged {
            // The grid is large: list only what did not succeed; scripts in full.
            if j.case.is_none() || j.verdict.category != Category::Success {
                let who = if groups.len() > 1 {
                    format!(" [{}]", j.character)
                } else {
                    String::new()
                };
                println!(
                    "{}{who} turn {}: {} ({:?}) - {}",
                    j.label,
                    j.turn,
                    j.verdict.category.as_str(),
                    j.expect,
                    j.verdict.why
                );
            }
        }
        for (character, turns) in &groups {
            let owned: Vec<Judged> = turns.iter().map(|j| (*j).clone()).collect();
            let summary = Summary::of(&owned);
            println!();
            print!(
                "{}",
                summary.table(&format!(
                    "brain: {label}, character: {character}, {} turns",
                    owned.len()
                ))
            );
            print!("{}", summary.cost_table());
        }
    }
    eprintln!(
        "{} turns in {:.1} s on {jobs} threads{}",
        judged.len(),
        elapsed.as_secs_f64(),
        match (&args.record, &args.replay) {
            (Some(dir), _) => format!(", recorded into {}", dir.display()),
            (_, Some(dir)) => format!(", replayed from {} (wall times as recorded)", dir.display()),
            _ => String::new(),
        }
    );
    if let Some(path) = &args.report {
        let names: Vec<&str> = groups.iter().map(|(c, _)| c.as_str()).collect();
        let title = format!(
            "attentive evaluation: {label}, character {}",
            names.join(", ")
        );
        let runs: Vec<CharacterRun> = groups
            .iter()
            .map(|(character, turns)| CharacterRun {
                character: character.clone(),
                judged: turns.clone(),
            })
            .collect();
        std::fs::write(path, figures::html(&title, &runs))
            .with_context(|| format!("cannot write the report {}", path.display()))?;
        eprintln!("report written to {}", path.display());
    }
    let problems: Vec<&str> = judged
        .iter()
        .filter_map(|j| j.tape_problem.as_deref())
        .collect();
    if !problems.is_empty() {
        for problem in problems.iter().take(20) {
            eprintln!("{problem}");
        }
        bail!(
            "{} of {runs} episodes could not be {}; the first: {}",
            problems.len(),
            if replaying { "replayed" } else { "recorded" },
            problems[0]
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The model settings a recorded request's hash includes: a change to any of
/// them changes the replies, so a replay must notice it.
fn request_settings(brain: &str, llm: &LlmSettings) -> Value {
    let llm = &llm.with_profile();
    if brain == "llm" {
        json!({
            "brain": brain,
            "model": llm.model,
            "temperature": llm.temperature,
            "seed": llm.seed,
            "max_tokens": llm.max_tokens,
            "tool_choice": llm.tool_choice,
            "parallel_tool_calls": llm.parallel_tool_calls,
        })
    } else {
        json!({ "brain": brain })
    }
}
