//! `attentive listen`: the speech front end alone (issue 6).

use std::path::Path;
use std::process::ExitCode;

use crate::cli::ListenArgs;

/// Prints one turn per utterance.
pub fn run(_args: &ListenArgs, _json: bool, _config: Option<&Path>) -> anyhow::Result<ExitCode> {
    eprintln!("attentive listen: not built yet (comes with issue 6).");
    Ok(ExitCode::from(2))
}
