//! The speech engines behind one trait: text in, mono PCM out, cancellable.

use std::future::Future;
use std::pin::Pin;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use super::pcm::{decode_wav, Pcm};
use super::piper::PiperSpeech;
use super::settings::{EngineKind, VoiceSettings};
use super::VoiceError;

/// What [`SpeechEngine::synthesize`] returns.
pub type SynthFuture<'a> = Pin<Box<dyn Future<Output = Result<Pcm, VoiceError>> + Send + 'a>>;

/// What [`SpeechEngine::warm_up`] returns.
pub type WarmFuture<'a> = Pin<Box<dyn Future<Output = Result<(), VoiceError>> + Send + 'a>>;

/// Turns text into speech audio.
pub trait SpeechEngine: Send + Sync {
    /// The whole utterance as mono PCM. Ends early with [`VoiceError::Cancelled`]
    /// when `cancel` fires (a subprocess is killed, a connection dropped).
    fn synthesize<'a>(&'a self, text: &'a str, cancel: &'a CancellationToken) -> SynthFuture<'a>;
    /// A short description for logs, e.g. `espeak-ng (en-us)`.
    fn describe(&self) -> String;
    /// Gets ready to speak before anything is said (Piper starts its worker and
    /// loads the voice), so that the first utterance is as quick as the later
    /// ones. Nothing to do for most engines. A failure changes nothing: the
    /// first utterance gets ready by itself, as without a warm-up.
    fn warm_up(&self) -> WarmFuture<'_> {
        Box::pin(async { Ok(()) })
    }
}

/// The engine chosen by `[voice] engine`; `Ok(None)` for `none`.
///
/// Fails only on configuration that cannot work at all (e.g. the OpenAI
/// endpoint without a key); a missing program or a dead server shows when speaking.
/// `auto` checks for Piper once per process ([`super::piper::detect`], about
/// 0.1 s on this thread) and takes espeak-ng when it is not there.
pub fn from_settings(
    settings: &VoiceSettings,
) -> Result<Option<Box<dyn SpeechEngine>>, VoiceError> {
    let timeout = Duration::from_secs_f64(settings.timeout_s.max(0.001));
    Ok(match settings.engine {
        EngineKind::Auto => Some(match super::piper::detect(&settings.piper) {
            Some(model) => Box::new(PiperSpeech::new(&settings.piper, timeout).with_model(model)),
            None => Box::new(Espeak::new(&settings.espeak, timeout)),
        }),
        EngineKind::Piper => Some(Box::new(PiperSpeech::new(&settings.piper, timeout))),
        EngineKind::EspeakNg => Some(Box::new(Espeak::new(&settings.espeak, timeout))),
        EngineKind::Command => Some(Box::new(CommandEngine {
            program: settings.command.program.clone(),
            args: settings.command.args.clone(),
            timeout,
        })),
        EngineKind::OpenAi => Some(Box::new(super::openai::OpenAiSpeech::from_settings(
            &settings.openai,
            timeout,
        )?)),
        EngineKind::Wyoming => Some(Box::new(super::wyoming::WyomingSpeech::new(
            &settings.wyoming,
            timeout,
        ))),
        EngineKind::None => None,
    })
}

/// espeak-ng as a subprocess (so its GPL stays outside the binary): text on stdin, WAV on stdout.
#[derive(Debug, Clone)]
pub struct Espeak {
    program: String,
    args: Vec<String>,
    voice: String,
    timeout: Duration,
}

impl Espeak {
    /// The engine for `[voice.espeak]`.
    pub fn new(settings: &super::settings::EspeakSettings, timeout: Duration) -> Self {
        Self {
            program: settings.program.clone(),
            args: vec![
                "--stdout".into(),
                "-v".into(),
                settings.voice.clone(),
                "-s".into(),
                settings.rate.to_string(),
                "-p".into(),
                settings.pitch.to_string(),
                "--stdin".into(),
            ],
            voice: settings.voice.clone(),
            timeout,
        }
    }
}

impl SpeechEngine for Espeak {
    fn synthesize<'a>(&'a self, text: &'a str, cancel: &'a CancellationToken) -> SynthFuture<'a> {
        Box::pin(run_wav_program(
            "espeak-ng",
            &self.program,
            &self.args,
            text,
            self.timeout,
            cancel,
            "install the Debian package espeak-ng (apt-get install espeak-ng) or set voice.espeak.program",
        ))
    }

    fn describe(&self) -> String {
        format!("espeak-ng ({})", self.voice)
    }
}

/// Any program that reads text on stdin and writes a WAV on stdout (piper, a vendor's engine).
#[derive(Debug, Clone)]
pub struct CommandEngine {
    program: String,
    args: Vec<String>,
    timeout: Duration,
}

impl SpeechEngine for CommandEngine {
    fn synthesize<'a>(&'a self, text: &'a str, cancel: &'a CancellationToken) -> SynthFuture<'a> {
        Box::pin(run_wav_program(
            "command",
            &self.program,
            &self.args,
            text,
            self.timeout,
            cancel,
            "check voice.command.program",
        ))
    }

    fn describe(&self) -> String {
        format!("command ({})", self.program)
    }
}

/// Runs `program args`, writes `text` to its stdin, reads a WAV from its stdout.
async fn run_wav_program(
    engine: &'static str,
    program: &str,
    args: &[String],
    text: &str,
    timeout: Duration,
    cancel: &CancellationToken,
    hint: &str,
) -> Result<Pcm, VoiceError> {
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Cancelling or timing out drops the child: kill it rather than leave it talking.
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => VoiceError::MissingProgram {
                engine,
                program: program.to_string(),
                hint: hint.to_string(),
            },
            _ => VoiceError::Engine {
                engine,
                detail: format!("cannot start {program:?}: {e}"),
            },
        })?;
    let stdin = child.stdin.take();
    let input = text.as_bytes().to_vec();
    // Write while reading, so a long text cannot fill both pipes and stall.
    let write = async move {
        if let Some(mut stdin) = stdin {
            // A program that exits without reading all of its input is judged by its output.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        }
    };
    let run = async { tokio::join!(write, child.wait_with_output()).1 };
    let output = tokio::select! {
        _ = cancel.cancelled() => return Err(VoiceError::Cancelled),
        out = tokio::time::timeout(timeout, run) => match out {
            Err(_) => return Err(VoiceError::Timeout { engine, seconds: timeout.as_secs_f64() }),
            Ok(Err(e)) => return Err(VoiceError::Engine { engine, detail: format!("{program:?} failed: {e}") }),
            Ok(Ok(output)) => output,
        },
    };
    let stderr = last_line(&output.stderr);
    if !output.status.success() {
        return Err(VoiceError::Engine {
            engine,
            detail: format!(
                "{program:?} exited with {}{}",
                output.status,
                stderr.map(|s| format!(": {s}")).unwrap_or_default()
            ),
        });
    }
    if output.stdout.is_empty() {
        return Err(VoiceError::BadAudio {
            engine,
            detail: format!(
                "is empty{}",
                stderr
                    .map(|s| format!(" ({program} said: {s})"))
                    .unwrap_or_default()
            ),
        });
    }
    checked(engine, decode_wav(&output.stdout))
}

/// A decoded reply, or the engine's bad-audio error; silence of zero length is bad audio too.
pub(crate) fn checked(engine: &'static str, pcm: Result<Pcm, String>) -> Result<Pcm, VoiceError> {
    match pcm {
        Ok(pcm) if pcm.samples.is_empty() => Err(VoiceError::BadAudio {
            engine,
            detail: "contains no samples".into(),
        }),
        Ok(pcm) => Ok(pcm),
        Err(detail) => Err(VoiceError::BadAudio { engine, detail }),
    }
}

/// The last non-empty line of a program's stderr, shortened.
fn last_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?.trim();
    Some(line.chars().take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_missing_espeak_binary_is_one_clear_error() {
        let settings = super::super::settings::EspeakSettings {
            program: "/nonexistent/espeak-ng".into(),
            ..Default::default()
        };
        let engine = Espeak::new(&settings, Duration::from_secs(5));
        let err = engine
            .synthesize("Hello.", &CancellationToken::new())
            .await
            .expect_err("no program");
        let text = err.to_string();
        assert!(matches!(err, VoiceError::MissingProgram { .. }), "{text}");
        assert!(
            text.contains("/nonexistent/espeak-ng") && text.contains("apt-get install espeak-ng"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 1, "{text}");
    }

    #[tokio::test]
    async fn a_program_writing_garbage_is_bad_audio() {
        let engine = CommandEngine {
            program: "sh".into(),
            args: vec!["-c".into(), "cat >/dev/null; echo not a wav".into()],
            timeout: Duration::from_secs(5),
        };
        let err = engine
            .synthesize("Hello.", &CancellationToken::new())
            .await
            .expect_err("garbage");
        assert!(matches!(err, VoiceError::BadAudio { .. }), "{err}");
        assert!(err.to_string().contains("not a WAV"), "{err}");
    }

    #[tokio::test]
    async fn a_failing_program_says_why() {
        let engine = CommandEngine {
            program: "sh".into(),
            args: vec!["-c".into(), "echo 'voice model missing' >&2; exit 3".into()],
            timeout: Duration::from_secs(5),
        };
        let err = engine
            .synthesize("Hello.", &CancellationToken::new())
            .await
            .expect_err("exit 3");
        let text = err.to_string();
        assert!(
            text.contains("voice model missing") && text.contains('3'),
            "{text}"
        );
    }

    #[tokio::test]
    async fn cancelling_kills_a_slow_program() {
        let engine = CommandEngine {
            program: "sleep".into(),
            args: vec!["30".into()],
            timeout: Duration::from_secs(60),
        };
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            trigger.cancel();
        });
        let err = engine
            .synthesize("Hello.", &cancel)
            .await
            .expect_err("cancelled");
        assert!(matches!(err, VoiceError::Cancelled), "{err}");
    }

    #[tokio::test]
    async fn espeak_speaks_a_sentence() {
        let engine = Espeak::new(&Default::default(), Duration::from_secs(10));
        let pcm = engine
            .synthesize("I will hand you the red glass.", &CancellationToken::new())
            .await
            .expect("espeak-ng is installed by scripts/setup.sh");
        assert_eq!(pcm.rate, 22_050);
        // A seven-word sentence at 160 words per minute lasts a second or more.
        assert!(pcm.ms() > 1000, "{} ms", pcm.ms());
        let peak = pcm.samples.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        assert!(peak > 0.1, "peak {peak}");
    }
}
