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
use attentive::config::{LlmSettings, Settings};
use attentive::eval::figures::{self, CharacterRun};
use attentive::eval::judge::Category;
use attentive::eval::progress::ProgressBar;
use attentive::eval::report::Summary;
use attentive::eval::run::{self, Episode, Judged, Progress, Runner};
use attentive::eval::sample;
use attentive::eval::spoken::{
    hear_episodes, AudioCache, Room, SpokenOptions, SpokenSummary, VoiceCast,
};
use attentive::language::Language;
use attentive::llm::tape::Tape;
use attentive::llm::ChatBackend;
use attentive::twin::World;

use super::sim::{build_backend, settings_with};
use crate::cli::EvalArgs;

/// Runs the evaluation and prints verdicts and the summary.
pub fn run(args: &EvalArgs, json: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let mut plan = Plan::new(args, config)?;
    let episodes = run::with_characters(&episodes_of(args)?, &plan.characters);
    if args.spoken {
        hear_in_the_scripts_language(&mut plan.settings, &episodes)?;
    }
    let tape = open_tape(args, &plan, episodes.len())?;
    let replaying = tape.as_ref().is_some_and(Tape::is_replay);
    let make_brain = |world: &World, language: &Language| -> Result<Box<dyn ChatBackend>, String> {
        build_backend(&plan.brain, &plan.settings, None, world, language)
            .map_err(|e| format!("{e:#}"))
    };
    // A brain that cannot start (no key, bad URL) is one clear error, not N failed
    // episodes. A replay needs no brain at all.
    if let (Some(first), false) = (episodes.first(), replaying) {
        let language = Language::find(plan.settings.language())?;
        make_brain(&first.world, &language).map_err(anyhow::Error::msg)?;
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let spoken = match args.spoken {
        true => Some(hear(args, &plan.settings, &episodes, jobs)?),
        false => None,
    };
    let runs = episodes.len() * args.repeat.max(1) as usize * if spoken.is_some() { 2 } else { 1 };
    let terminal = std::io::stderr().is_terminal();
    let bar = (terminal || args.progress).then(|| ProgressBar::new(runs, terminal));
    let runner = Runner {
        brain: &make_brain,
        character: plan.default_character.clone(),
        language: plan.settings.language().to_string(),
        texts: ToolTexts::load_default()?,
        agent: plan.settings.agent_settings(),
        guards: plan.settings.guards.clone(),
        name_enums: plan.settings.llm.uses_name_enums(),
        memory: !args.no_memory && plan.settings.memory.enabled,
        local_first: plan.brain == "hybrid",
        tape,
        progress: bar.as_ref().map(|b| b as &dyn Progress),
    };
    let started = Instant::now();
    let judged = runner.run_all(&episodes, args.repeat, jobs);
    let spoken_judged = spoken
        .as_ref()
        .map(|(heard, _)| runner.run_all(heard, args.repeat, jobs));
    let elapsed = started.elapsed();
    if let Some(bar) = &bar {
        bar.finish();
    }
    // A spoken run is judged on what was heard; the typed run stands beside it.
    let shown = spoken_judged.as_ref().unwrap_or(&judged);
    let groups = plan.groups(shown);
    print_results(json, &plan, shown, &groups);
    if let (Some(spoken_judged), Some((_, describe))) = (&spoken_judged, &spoken) {
        print_spoken(json, &judged, spoken_judged, describe, &args.room);
    }
    eprintln!(
        "{} turns in {:.1} s on {jobs} threads{}",
        shown.len(),
        elapsed.as_secs_f64(),
        match (&args.record, &args.replay) {
            (Some(dir), _) => format!(", recorded into {}", dir.display()),
            (_, Some(dir)) => format!(", replayed from {} (wall times as recorded)", dir.display()),
            _ => String::new(),
        }
    );
    if let Some(path) = &args.report {
        write_report(path, &plan, &groups)?;
    }
    check_tape(shown, runs, replaying)?;
    Ok(ExitCode::SUCCESS)
}

/// What the options and the configuration decide before anything runs.
struct Plan {
    settings: Settings,
    brain: String,
    characters: Vec<String>,
    default_character: String,
    label: String,
}

impl Plan {
    fn new(args: &EvalArgs, config: Option<&Path>) -> anyhow::Result<Self> {
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
        let settings = settings_with(config, &args.llm_url, &model, &args.language)?;
        // An unknown language is one clear error before anything runs.
        Language::find(settings.language())?;
        let brain = args
            .brain
            .clone()
            .or_else(|| recorded_str("brain"))
            .unwrap_or_else(|| settings.brain(None));
        if brain == "scripted" {
            bail!("eval runs the llm, rules or hybrid brain; the scripted brain replays one script with `attentive sim --script`");
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
        let label = if brain == "rules" {
            "rules baseline (no LLM)".to_string()
        } else if brain == "hybrid" {
            "hybrid (local first, the LLM for the rest)".to_string()
        } else {
            brain.clone()
        };
        Ok(Self {
            settings,
            brain,
            characters,
            default_character,
            label,
        })
    }

    /// One group of judged turns per character asked for; without a list, one.
    fn groups<'a>(&self, judged: &'a [Judged]) -> Vec<(String, Vec<&'a Judged>)> {
        if self.characters.is_empty() {
            return vec![(self.default_character.clone(), judged.iter().collect())];
        }
        self.characters
            .iter()
            .map(|c| {
                (
                    c.clone(),
                    judged.iter().filter(|j| j.character == *c).collect(),
                )
            })
            .collect()
    }
}

/// The scripts and folders asked for, and the isolated grid (or a sample of it).
fn episodes_of(args: &EvalArgs) -> anyhow::Result<Vec<Episode>> {
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
    Ok(episodes)
}

/// The recording or replay asked for, if any.
fn open_tape(args: &EvalArgs, plan: &Plan, episodes: usize) -> anyhow::Result<Option<Tape>> {
    let tape_settings = request_settings(&plan.brain, &plan.settings.llm);
    Ok(match (&args.record, &args.replay) {
        (Some(dir), _) => Some(Tape::record(
            dir,
            tape_settings,
            json!({
                "brain": plan.brain,
                "characters": plan.characters,
                "paths": args.paths,
                "isolated": args.isolated,
                "sample": args.sample,
                "seed": args.seed,
                "repeat": args.repeat,
                "runs": episodes * args.repeat.max(1) as usize,
            }),
        )?),
        (None, Some(dir)) => Some(Tape::replay(dir, tape_settings)?),
        (None, None) => None,
    })
}

/// Every episode spoken and heard; also how the voices are described.
/// A spoken run hears one language: the scripts' own (`language = "de"`) when
/// the configuration and the command line name none.
fn hear_in_the_scripts_language(
    settings: &mut Settings,
    episodes: &[Episode],
) -> anyhow::Result<()> {
    let configured = settings.language().to_string();
    let mut languages: Vec<&str> = episodes
        .iter()
        .map(|e| e.language.as_deref().unwrap_or(&configured))
        .collect();
    languages.sort_unstable();
    languages.dedup();
    match languages.as_slice() {
        [] => Ok(()),
        [one] => {
            let language = Language::find(one)?;
            settings.language = Some(one.to_string());
            super::sim::speak_and_hear(settings, &language);
            Ok(())
        }
        many => bail!(
            "a spoken run hears one language at a time; these scripts are in {}",
            many.join(", ")
        ),
    }
}

fn hear(
    args: &EvalArgs,
    settings: &Settings,
    episodes: &[Episode],
    jobs: usize,
) -> anyhow::Result<(Vec<Episode>, String)> {
    let room: Room = args.room.parse()?;
    let mut audio = settings.audio.clone();
    if let Some(model) = &args.asr_model {
        audio.asr.model = model.clone();
    }
    let cache = match (&args.spoken_cache, args.no_spoken_cache) {
        (_, true) => None,
        (Some(dir), false) => Some(dir.clone()),
        (None, false) => AudioCache::default_dir(),
    };
    let language = Language::find(settings.language())?;
    let options = SpokenOptions {
        voice: args.spoken_voice.clone(),
        room,
        seed: args.seed,
        one_mic: args.one_mic,
        cache,
        audio,
        voice_settings: settings.voice.clone(),
        understanding: language.understanding().clone(),
    };
    let people = &language.voices().people;
    let cast = VoiceCast::new(options.voice.as_deref(), &options.voice_settings, people)?;
    let describe = cast.describe();
    let terminal = std::io::stderr().is_terminal();
    let bar = (terminal || args.progress).then(|| ProgressBar::new(episodes.len(), terminal));
    eprintln!(
        "speaking and hearing {} episodes ({describe}; room {room})",
        episodes.len()
    );
    let heard = hear_episodes(episodes, &cast, &options, jobs, &|| {
        if let Some(bar) = &bar {
            bar.episode_done(&[]);
        }
    })?;
    if let Some(bar) = &bar {
        bar.finish();
    }
    Ok((heard, describe))
}

/// Verdicts and one summary per character, as text or the contract's JSON.
fn print_results(json: bool, plan: &Plan, judged: &[Judged], groups: &[(String, Vec<&Judged>)]) {
    if json {
        for j in judged {
            println!("{}", j.to_json());
        }
        for (character, turns) in groups {
            let owned: Vec<Judged> = turns.iter().map(|j| (*j).clone()).collect();
            println!("{}", Summary::of(&owned).to_json(&plan.label, character));
        }
        return;
    }
    for j in judged {
        // The grid is large: list only what did not succeed; scripts in full.
        if j.case.is_none() || j.verdict.category != Category::Success {
            let who = if groups.len() > 1 {
                format!(" [{}]", j.character)
            } else {
                String::new()
            };
            let heard = match &j.heard {
                Some(h) if !h.heard => " [not heard]".to_string(),
                Some(h) => format!(" [heard {} -> {}: {:?}]", h.speaker, h.listener, h.text),
                None => String::new(),
            };
            println!(
                "{}{who} turn {}: {} ({:?}) - {}{heard}",
                j.label,
                j.turn,
                j.verdict.category.as_str(),
                j.expect,
                j.verdict.why
            );
        }
    }
    for (character, turns) in groups {
        let owned: Vec<Judged> = turns.iter().map(|j| (*j).clone()).collect();
        let summary = Summary::of(&owned);
        println!();
        print!(
            "{}",
            summary.table(&format!(
                "brain: {}, character: {character}, {} turns",
                plan.label,
                owned.len()
            ))
        );
        print!("{}", summary.cost_table());
    }
}

/// The spoken run beside the typed one.
fn print_spoken(json: bool, typed: &[Judged], spoken: &[Judged], voice: &str, room: &str) {
    let summary = SpokenSummary::of(typed, spoken);
    if json {
        println!("{}", summary.to_json(voice, room));
    } else {
        println!();
        print!(
            "{}",
            summary.table(&format!(
                "spoken ({voice}; room {room}) beside typed, the same turns"
            ))
        );
    }
}

fn write_report(path: &Path, plan: &Plan, groups: &[(String, Vec<&Judged>)]) -> anyhow::Result<()> {
    let names: Vec<&str> = groups.iter().map(|(c, _)| c.as_str()).collect();
    let title = format!(
        "attentive evaluation: {}, character {}",
        plan.label,
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
    Ok(())
}

/// Episodes that could not be recorded or replayed fail the command.
fn check_tape(judged: &[Judged], runs: usize, replaying: bool) -> anyhow::Result<()> {
    let problems: Vec<&str> = judged
        .iter()
        .filter_map(|j| j.tape_problem.as_deref())
        .collect();
    if let Some(first) = problems.first() {
        for problem in problems.iter().take(20) {
            eprintln!("{problem}");
        }
        bail!(
            "{} of {runs} episodes could not be {}; the first: {first}",
            problems.len(),
            if replaying { "replayed" } else { "recorded" },
        );
    }
    Ok(())
}

/// The model settings a recorded request's hash includes: a change to any of
/// them changes the replies, so a replay must notice it.
fn request_settings(brain: &str, llm: &LlmSettings) -> Value {
    let llm = &llm.with_profile();
    if brain == "llm" || brain == "hybrid" {
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
