//! `attentive tool --scene S NAME [ARGS_JSON]`: one agent tool against a scene.

use std::process::ExitCode;

use anyhow::{bail, Context};
use serde_json::{json, Value};

use attentive::agent::tools;
use attentive::twin::Twin;

use crate::cli::ToolArgs;

/// Calls the tool and prints its text, or the contract's JSON object with `--json`.
pub fn run(args: &ToolArgs, json_output: bool) -> anyhow::Result<ExitCode> {
    let mut twin = Twin::load(&args.scene)?;
    let world = &mut twin.world;
    for change in &args.busy {
        let Some((person, object)) = change.split_once('=') else {
            bail!("--busy takes PERSON=OBJECT, e.g. --busy Daniel=smartphone (got '{change}')");
        };
        let person_id = world
            .person_named(person.trim())
            .with_context(|| format!("--busy: there is no person called '{person}'"))?;
        let object_id = world
            .object_named(object.trim())
            .with_context(|| format!("--busy: there is no object called '{object}'"))?;
        world
            .make_busy_with(person_id, object_id)
            .with_context(|| format!("--busy {change}"))?;
    }
    let call_args: Value = match &args.args {
        None => json!({}),
        Some(text) => serde_json::from_str(text).with_context(|| {
            format!("ARGS_JSON is not valid JSON: {text} (example: '{{\"person_name\":\"Daniel\",\"object_name\":\"red_glass\"}}')")
        })?,
    };
    let outcome = tools::call(&mut twin, &args.name, &call_args);
    if json_output {
        let line = json!({
            "tool": args.name,
            "args": call_args,
            "ok": outcome.ok,
            "text": outcome.text,
            "facts": outcome.facts,
        });
        println!("{line}");
    } else {
        println!("{}", outcome.text);
    }
    Ok(if outcome.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
