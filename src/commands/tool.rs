//! `attentive tool --scene S NAME [ARGS_JSON]`: one agent tool against a scene.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use serde_json::{json, Value};

use attentive::agent::tools::{self, ToolOutcome};
use attentive::config::Settings;
use attentive::robot::RobotBridge;
use attentive::twin::actions::Executor;
use attentive::twin::Twin;
use tokio_util::sync::CancellationToken;

use crate::cli::ToolArgs;

/// Calls the tool and prints its text, or the contract's JSON object with `--json`.
pub fn run(args: &ToolArgs, json_output: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let mut twin = Twin::load(&args.scene)?;
    // Only an explicit --robot moves an arm; a configured robot.url is the daemon's.
    let robot_url = args.robot.clone();
    let runtime = match &robot_url {
        Some(_) => Some(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?,
        ),
        None => None,
    };
    let mut bridge = match (&robot_url, &runtime) {
        (Some(url), Some(runtime)) => {
            let settings = Settings::load(config)?;
            if let Ok(robot) = &twin.robot {
                settings.robot.matches(robot)?;
            }
            let _guard = runtime.enter();
            let mut bridge =
                RobotBridge::start(&settings.robot, url, &twin.world, CancellationToken::new())?;
            runtime
                .block_on(bridge.wait_ready(Duration::from_secs(5)))
                .map_err(|reason| anyhow::anyhow!("{reason}"))?;
            // The scene as the robot perceives it, before any --busy change.
            bridge.perceive(&mut twin);
            Some(bridge)
        }
        _ => None,
    };
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
    let outcome: ToolOutcome = match (&mut bridge, &runtime) {
        (Some(bridge), Some(runtime)) => runtime.block_on(async {
            let cancel = CancellationToken::new();
            // Ctrl-C stops the arm safely through the goal's cancel.
            let stop = cancel.clone();
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    stop.cancel();
                }
            });
            tools::call_acting(&mut twin, &args.name, &call_args, bridge, &cancel).await
        }),
        _ => tools::call(&mut twin, &args.name, &call_args),
    };
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
