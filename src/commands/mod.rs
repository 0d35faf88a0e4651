//! One function per subcommand; each returns the process exit code.

use std::process::ExitCode;

use crate::cli::{Cli, Command};

mod listen;
mod tool;

/// Runs the chosen subcommand.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Tool(args) => tool::run(&args, cli.json),
        Command::Listen(args) => listen::run(&args, cli.json, cli.config.as_deref()),
        Command::Sim(_) => not_built("sim", "issue 4"),
        Command::Tools(_) => not_built("tools", "issue 4"),
        Command::Eval(_) => not_built("eval", "issue 5"),
        Command::Run(_) => not_built("run", "the daemon issue"),
        Command::Config(_) => not_built("config", "issue 4"),
    }
}

fn not_built(command: &str, issue: &str) -> anyhow::Result<ExitCode> {
    eprintln!("attentive {command}: not built yet (comes with {issue}).");
    Ok(ExitCode::from(2))
}
