//! `attentive understand`: what the understanding stage reads in turns, for
//! people writing sentences.

use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use attentive::agent::Turn;
use attentive::language::Language;
use attentive::twin::scene;
use attentive::understanding::{Grammar, Understanding, Utterance};

use crate::cli::UnderstandArgs;

/// Reads each turn (the earlier ones as its dialogue) and prints the reading.
pub fn run(args: &UnderstandArgs, json: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let world = scene::load(&args.scene)?;
    let stage = match &args.sentences {
        Some(path) => Understanding::new(Grammar::load(path)?),
        None => {
            let settings = super::sim::settings_with(config, &None, &None, &args.language)?;
            Language::find(settings.language())?.understanding().clone()
        }
    };
    let lines: Vec<String> = if args.turns.is_empty() {
        std::io::stdin()
            .lock()
            .lines()
            .collect::<Result<_, _>>()
            .context("reading turns from stdin")?
    } else {
        args.turns.clone()
    };
    let mut earlier: Vec<Turn> = Vec::new();
    let mut failed = false;
    for line in lines.iter().filter(|l| !l.trim().is_empty()) {
        let turn = match Turn::parse(line) {
            Ok(turn) => turn,
            Err(error) => {
                eprintln!("{line:?}: {error}");
                failed = true;
                continue;
            }
        };
        let before: Vec<Utterance<'_>> = earlier.iter().map(Turn::utterance).collect();
        let (turn, corrections) = if args.heard {
            let corrected = stage.correct_hearing(&world, &before, &turn.utterance());
            let turn = Turn {
                text: corrected.text,
                ..turn
            };
            (turn, corrected.corrections)
        } else {
            (turn, Vec::new())
        };
        let reading = stage.read_in_dialogue(&world, &before, &turn.utterance());
        if json {
            let event = serde_json::json!({
                "type": "understood",
                "turn": line,
                "act": reading.act.as_str(),
                "slots": reading.slots,
                "matched": reading.matched,
                "heard": reading.heard,
                "sure": reading.doubt.is_none(),
                "doubt": reading.doubt.as_ref().map(|d| d.describe()),
                "corrected": corrections,
            });
            println!("{event}");
        } else {
            println!("{line}");
            if !corrections.is_empty() {
                println!("  heard as: {}", turn.text);
                for c in &corrections {
                    println!("  corrected: {:?} -> {:?}", c.heard, c.read_as);
                }
            }
            println!("  act:     {}", reading.act.as_str());
            println!("  slots:   {}", serde_json::to_string(&reading.slots)?);
            println!("  matched: {}", reading.matched);
            println!("  heard:   {}", reading.heard);
            match &reading.doubt {
                None => println!("  sure:    yes"),
                Some(doubt) => println!("  sure:    no, {}", doubt.describe()),
            }
        }
        earlier.push(turn);
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
