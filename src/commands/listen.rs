//! `attentive listen`: the speech front end alone (issue 6).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::ListenArgs;
use attentive::daemon::audio::{table_things, CompleteWords};
use attentive::frontend::{
    participants_from_scene_file, FrontEnd, Heard, Listening, Recognizer, Turn,
};

/// Prints one turn per utterance of the WAV file, or of the live device until interrupted.
pub fn run(args: &ListenArgs, json: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let all = super::sim::settings_with(config, &None, &None, &args.language)?;
    let mut settings = all.audio.clone();
    if let Some(d) = &args.device {
        settings.device = Some(d.clone());
    }
    if let Some(t) = args.threads {
        settings.asr.threads = t;
    }
    let scene = attentive::paths::resolve(&args.scene, "scenes", "toml");
    let participants = participants_from_scene_file(&scene, settings.array_offset)
        .with_context(|| format!("loading the people of scene {:?}", args.scene))?;
    let recognizer = match &args.model {
        Some(m) => Recognizer::with_model(m, &settings.asr)?,
        None => Recognizer::new(&settings.asr)?,
    };
    let mut source = attentive::frontend::source::open_source(
        args.wav.as_ref(),
        settings.device.as_deref(),
        settings.sample_rate,
        settings.mic_positions.len(),
    )?;
    tracing::info!(
        rate = source.sample_rate(),
        channels = source.channels(),
        "listening{}",
        if args.wav.is_some() {
            " to the file"
        } else {
            " (Ctrl-C ends)"
        }
    );
    let mut frontend = FrontEnd::new(settings, participants, recognizer);
    // As in the daemon: the table's things for a second hearing of words not sure.
    frontend.set_vocabulary(&table_things(&scene));
    let mut print_err = None;
    // As in the daemon: a turn whose words are complete ends at a short pause.
    let words = CompleteWords::load(all.language(), &args.scene);
    let mut complete = words.map(|w| move |t: &Turn| w.is_complete(t));
    let mut options = Listening {
        complete: complete
            .as_mut()
            .map(|c| c as &mut (dyn FnMut(&Turn) -> bool + Send)),
        ..Listening::default()
    };
    let stats = frontend.listen(source.as_mut(), &mut options, |heard| {
        let Heard::Turn(turn) = heard else {
            return;
        };
        let line = if json {
            serde_json::to_string(turn).unwrap_or_else(|e| {
                format!("{{\"type\":\"warning\",\"kind\":\"json\",\"detail\":\"{e}\"}}")
            })
        } else {
            turn.to_string()
        };
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        // A closed pipe (| head) ends the run quietly instead of panicking in println!.
        if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
            print_err.get_or_insert(e);
        }
    })?;
    tracing::info!(?stats, "done");
    match print_err {
        Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("writing turns to stdout")
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}
