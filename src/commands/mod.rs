//! One function per subcommand; each returns the process exit code.

use std::process::ExitCode;

use attentive::agent::tools::ToolTexts;
use attentive::config::Settings;
use attentive::twin::scene;

use crate::cli::{Cli, Command, ConfigCommand};

mod bench;
mod eval;
mod listen;
mod memory;
mod run;
mod say;
mod sim;
mod tool;
mod understand;

/// Runs the chosen subcommand.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = cli.config.as_deref();
    match cli.command {
        Command::Tool(args) => tool::run(&args, cli.json, config),
        Command::Listen(args) => listen::run(&args, cli.json, config),
        Command::Say(args) => say::run(&args, cli.json, config),
        Command::Sim(args) => sim::run(&args, cli.json, config),
        Command::Tools(args) => {
            let world = scene::load(&args.scene)?;
            let schemas = ToolTexts::load_default()?.schemas(&world.robot.name);
            // Exactly the `tools` array of a chat-completions request.
            let tools: Vec<serde_json::Value> = schemas
                .iter()
                .map(|s| serde_json::json!({"type": "function", "function": {"name": s.name, "description": s.description, "parameters": s.parameters}}))
                .collect();
            if cli.json {
                for tool in &tools {
                    println!("{tool}");
                }
            } else {
                println!("{}", serde_json::to_string_pretty(&tools)?);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Config(args) => match args.command {
            ConfigCommand::Show => {
                print!("{}", Settings::load(config)?.show());
                Ok(ExitCode::SUCCESS)
            }
        },
        Command::Understand(args) => understand::run(&args, cli.json, config),
        Command::Eval(args) => eval::run(&args, cli.json, config),
        Command::Run(args) => run::run(&args, cli.json, config),
        Command::Bench(args) => bench::run(&args, cli.json),
        Command::Memory(args) => memory::run(&args, cli.json, config),
    }
}
