//! The `attentive` binary: command-line front door (see DESIGN.md, Contract).

mod cli;
mod commands;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    init_tracing(cli.verbose);
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(error) => {
            // The one place where errors reach the user: print the whole chain once.
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr so that `--json` output on stdout stays machine-readable.
fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("ATTENTIVE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}
