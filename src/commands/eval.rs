//! `attentive eval`: dialogue scripts and the paper's isolated grid, judged.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::bail;

use attentive::agent::tools::ToolTexts;
use attentive::eval::report::Summary;
use attentive::eval::run::{self, Runner};
use attentive::llm::ChatBackend;
use attentive::twin::World;

use super::sim::{build_backend, settings_with};
use crate::cli::EvalArgs;

/// Runs the evaluation and prints verdicts and the summary.
pub fn run(args: &EvalArgs, json: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let settings = settings_with(config, &args.llm_url, &args.model)?;
    let brain = settings.brain(args.brain.as_deref());
    if brain == "scripted" {
        bail!("eval runs the llm or the rules brain; the scripted brain replays one script with `attentive sim --script`");
    }
    let character = args
        .character
        .clone()
        .unwrap_or_else(|| settings.sim.character.clone());
    let mut episodes = run::scripts(&args.paths)?;
    if args.isolated {
        episodes.extend(run::isolated_grid()?);
    }
    if episodes.is_empty() {
        bail!("nothing to evaluate: give dialogue scripts or folders (e.g. tests/dialogues), or --isolated");
    }
    let label = if brain == "rules" {
        "rules baseline (no LLM)".to_string()
    } else {
        brain.clone()
    };
    let make_brain = |world: &World| -> Result<Box<dyn ChatBackend>, String> {
        build_backend(&brain, &settings, None, world).map_err(|e| format!("{e:#}"))
    };
    // A brain that cannot start (no key, bad URL) is one clear error, not N failed episodes.
    if let Some(first) = episodes.first() {
        make_brain(&first.world).map_err(anyhow::Error::msg)?;
    }
    let runner = Runner {
        brain: &make_brain,
        character: character.clone(),
        texts: ToolTexts::load_default()?,
        agent: settings.agent.clone(),
        guards: settings.guards.clone(),
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let started = Instant::now();
    let judged = runner.run_all(&episodes, args.repeat, jobs);
    let elapsed = started.elapsed();
    let summary = Summary::of(&judged);
    if json {
        for j in &judged {
            println!("{}", j.to_json());
        }
        println!("{}", summary.to_json(&label, &character));
    } else {
        for j in &judged {
            // The grid is large: list only what did not succeed; scripts in full.
            if j.case.is_none() || j.verdict.category != attentive::eval::judge::Category::Success {
                println!(
                    "{} turn {}: {} ({:?}) - {}",
                    j.label,
                    j.turn,
                    j.verdict.category.as_str(),
                    j.expect,
                    j.verdict.why
                );
            }
        }
        println!();
        print!(
            "{}",
            summary.table(&format!(
                "brain: {label}, character: {character}, {} turns",
                judged.len()
            ))
        );
    }
    eprintln!(
        "{} turns in {:.1} s on {jobs} threads",
        judged.len(),
        elapsed.as_secs_f64()
    );
    if let Some(path) = &args.report {
        let title = format!("attentive evaluation: {label}, character {character}");
        std::fs::write(path, summary.html(&title))
            .map_err(|e| anyhow::anyhow!("cannot write the report {}: {e}", path.display()))?;
        eprintln!("report written to {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
