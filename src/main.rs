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

/// Logs go to stderr so that `--json` output on stdout stays machine-readable;
/// under systemd (stderr connected to the journal, `JOURNAL_STREAM` set) they go
/// to journald natively, with levels and fields.
fn init_tracing(verbose: u8) {
    use tracing_subscriber::prelude::*;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("ATTENTIVE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let journald = std::env::var_os("JOURNAL_STREAM")
        .and_then(|_| tracing_journald::layer().ok())
        .map(|layer| layer.with_syslog_identifier("attentive".into()));
    let stderr = journald.is_none().then(|| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_target(false)
    });
    tracing_subscriber::registry()
        .with(filter)
        .with(journald)
        .with(stderr)
        .init();
}
