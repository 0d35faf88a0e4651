//! `attentive run`: the daemon, with signals handled here (first: a clean
//! shutdown; second: exit at once).

use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;

use attentive::agent::EventSink;
use attentive::daemon::{self, Options};
use tokio_util::sync::CancellationToken;

use super::sim::{build_backend, settings_with, Printer};
use crate::cli::RunArgs;

/// Runs the daemon until SIGTERM or SIGINT.
pub fn run(args: &RunArgs, json: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let settings = settings_with(config, &args.llm_url, &args.model, &args.language)?;
    let language = attentive::language::Language::find(settings.language())?;
    let scene = args
        .scene
        .clone()
        .unwrap_or_else(|| settings.sim.scene.clone());
    let character = args
        .character
        .clone()
        .unwrap_or_else(|| settings.sim.character.clone());
    let brain = settings.brain(args.brain.as_deref());
    let world = attentive::twin::scene::load(&scene)?;
    let backend = build_backend(
        &brain,
        &settings,
        args.responses.as_deref(),
        &world,
        &language,
    )?;
    let options = Options {
        scene,
        character,
        brain: brain.clone(),
        listen: args.listen.clone(),
        no_audio: args.no_audio,
        wav: args.wav.clone(),
        robot: args.robot.clone(),
    };
    // The terminal sees every event: JSON lines with seq and ts, or readable lines.
    let printer = Mutex::new(Printer::new(json, &brain));
    let echo: daemon::bus::Echo = Box::new(move |logged, event| {
        if json {
            println!("{}", logged.line);
        } else if let Ok(mut printer) = printer.lock() {
            printer.emit(event.clone());
        }
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let shutdown = CancellationToken::new();
        tokio::spawn(signals(shutdown.clone()));
        let describe = backend.describe();
        daemon::run(
            settings,
            options,
            backend,
            Some(echo),
            shutdown,
            |started| {
                let line = format!(
                    "attentive run: the page and API are at http://{}/ (brain {brain}: {describe}; {}; event log in {})",
                    started.addr,
                    started.audio,
                    started.log_dir.display()
                );
                // People read stdout; with --json stdout is events only.
                if json {
                    eprintln!("{line}");
                } else {
                    println!("{line}");
                }
            },
        )
        .await?;
        Ok(ExitCode::SUCCESS)
    })
}

/// First SIGTERM/SIGINT: cancel (a clean shutdown); a second one: exit now.
async fn signals(shutdown: CancellationToken) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::error!("cannot install signal handlers; stop the daemon with SIGKILL");
        return;
    };
    for count in 0.. {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        if count == 0 {
            eprintln!("attentive run: stopping (a second signal exits at once)");
            shutdown.cancel();
        } else {
            eprintln!("attentive run: second signal, exiting now");
            std::process::exit(130);
        }
    }
}
