//! `attentive say TEXT [--to PERSON] [--wav F]`: the robot's voice alone (issue 10).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use crate::cli::SayArgs;
use attentive::agent::Mouth;
use attentive::config::Settings;
use attentive::events::Event;
use attentive::frontend::source::write_wav;
use attentive::voice::{engine, Voice};

/// Audio still in the device and sound-server buffers when the last sample was
/// handed over; closing the stream earlier would cut the end of the sentence.
const DRAIN: Duration = Duration::from_millis(300);

/// Speaks the text on the configured output, or writes it to a WAV file.
pub fn run(args: &SayArgs, json: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let settings = Settings::load(config)?.voice;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let event = runtime.block_on(async {
        match &args.wav {
            Some(path) => {
                let engine = engine::from_settings(&settings)?.ok_or_else(|| {
                    anyhow::anyhow!(
                        "voice.engine is \"none\": there is no speech engine to write a WAV with"
                    )
                })?;
                let pcm = engine
                    .synthesize(&args.text, &CancellationToken::new())
                    .await?;
                write_wav(path, &pcm.samples, pcm.rate, 1)
                    .with_context(|| format!("writing {}", path.display()))?;
                Ok(Event::Voice {
                    text: args.text.clone(),
                    ms: pcm.ms(),
                })
            }
            None => play(&settings, &args.to, &args.text).await,
        }
    })?;
    if json {
        println!("{}", event.to_json_line());
    } else if let Event::Voice { ms, .. } = &event {
        match &args.wav {
            Some(path) => println!("wrote {} ({ms} ms of speech)", path.display()),
            None => println!("said to {}: {} ({ms} ms)", args.to, args.text),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Plays through the same [`Voice`] the daemon uses; its warning becomes the error.
async fn play(
    settings: &attentive::voice::VoiceSettings,
    to: &str,
    text: &str,
) -> anyhow::Result<Event> {
    let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let voice = Voice::start(settings, tx).await?;
    if !voice.is_audible() {
        anyhow::bail!("voice.engine is \"none\": there is no speech engine to speak with");
    }
    tracing::info!(voice = voice.describe(), "speaking");
    voice.say(to, text);
    voice.until_quiet().await;
    let mut played = None;
    while let Ok(event) = events.try_recv() {
        match event {
            Event::Warning { detail, .. } => anyhow::bail!(detail),
            voice_event @ Event::Voice { .. } => played = Some(voice_event),
            _ => {}
        }
    }
    tokio::time::sleep(DRAIN).await;
    played.context("the speech ended without being played")
}
