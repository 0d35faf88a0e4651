//! A voice for every person at the table, from one of the product's own speech
//! engines: different espeak-ng voices, or one voice at different pitch and tempo.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::frontend::resample::resample;
use crate::frontend::VAD_RATE;
use crate::voice::engine::{from_settings, Espeak};
use crate::voice::settings::{EngineKind, VoiceSettings};
use crate::voice::SpeechEngine;

use super::SpokenError;

/// Pitch-and-tempo factors given to the people in turn for an engine with one
/// voice (played faster raises the pitch too, as a tape does).
const SPEEDS: &[f32] = &[1.0, 0.91, 1.08, 0.85, 1.14];

/// One person's voice.
#[derive(Clone)]
pub struct CastVoice {
    engine: Arc<dyn SpeechEngine>,
    /// Pitch and tempo factor applied after synthesis.
    speed: f32,
    /// What it is, for the cache key and the report.
    pub describe: String,
}

/// The voices of one spoken run: person `i` of a table speaks with voice `i`.
pub struct VoiceCast {
    voices: Vec<CastVoice>,
}

impl VoiceCast {
    /// The cast for engine `kind` (`None`: the configured voice, Piper where present);
    /// with espeak-ng, `people` are the language's voices given to the people in turn.
    pub fn new(
        kind: Option<&str>,
        settings: &VoiceSettings,
        people: &[String],
    ) -> Result<Self, SpokenError> {
        let mut settings = settings.clone();
        if let Some(name) = kind {
            settings.engine = parse_engine(name)?;
        }
        if settings.engine == EngineKind::None {
            return Err(SpokenError::Voice(
                "the voice engine is `none`: a spoken evaluation needs a voice; \
                 give --spoken-voice espeak-ng (or piper, openai, wyoming, command)"
                    .into(),
            ));
        }
        let timeout = std::time::Duration::from_secs_f64(settings.timeout_s.max(1.0));
        if settings.engine == EngineKind::EspeakNg && people.is_empty() {
            return Err(SpokenError::Voice(
                "the language names no espeak-ng voices for people ([voice] people)".into(),
            ));
        }
        let voices = if settings.engine == EngineKind::EspeakNg {
            people
                .iter()
                .map(|v| {
                    let mut espeak = settings.espeak.clone();
                    espeak.voice = v.clone();
                    let engine = Espeak::new(&espeak, timeout);
                    CastVoice {
                        describe: engine.describe(),
                        engine: Arc::new(engine),
                        speed: 1.0,
                    }
                })
                .collect()
        } else {
            let engine: Arc<dyn SpeechEngine> = from_settings(&settings)
                .map_err(|e| SpokenError::Voice(e.to_string()))?
                .map(Arc::from)
                .ok_or_else(|| SpokenError::Voice("no voice engine configured".into()))?;
            SPEEDS
                .iter()
                .map(|s| CastVoice {
                    describe: format!("{} x{s}", engine.describe()),
                    engine: Arc::clone(&engine),
                    speed: *s,
                })
                .collect()
        };
        Ok(Self { voices })
    }

    /// The voice of the person at `index` (people in scene order; the second
    /// talker is the next one after them).
    pub fn voice(&self, index: usize) -> &CastVoice {
        &self.voices[index % self.voices.len()]
    }

    /// How the run's voices are described in the report.
    pub fn describe(&self) -> String {
        self.voices
            .iter()
            .map(|v| v.describe.clone())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl CastVoice {
    /// `text` spoken, as 16 kHz mono.
    pub fn speak(
        &self,
        runtime: &tokio::runtime::Runtime,
        text: &str,
    ) -> Result<Vec<f32>, SpokenError> {
        let cancel = CancellationToken::new();
        let pcm = runtime
            .block_on(self.engine.synthesize(text, &cancel))
            .map_err(|e| SpokenError::Voice(format!("{}: {e}", self.describe)))?;
        if pcm.samples.is_empty() || pcm.rate == 0 {
            // Nothing to say ("..."): silence, which the front end must not hear as a turn.
            tracing::info!(voice = %self.describe, text, "no audio for this text: silence");
            return Ok(Vec::new());
        }
        // Played at `speed` times the rate: faster and higher, or slower and lower.
        let played_rate = ((pcm.rate as f32) * self.speed).round().max(1.0) as u32;
        Ok(resample(&pcm.samples, played_rate, VAD_RATE))
    }
}

/// `--spoken-voice` as an engine of the `[voice]` configuration.
fn parse_engine(name: &str) -> Result<EngineKind, SpokenError> {
    let name = match name {
        "espeak" => "espeak-ng",
        other => other,
    };
    serde_json::from_value(serde_json::Value::String(name.to_string())).map_err(|_| {
        SpokenError::Voice(format!(
            "--spoken-voice {name:?} is no voice engine; use espeak-ng, piper, openai, wyoming or command"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_by_name_and_a_clear_error_otherwise() {
        assert_eq!(parse_engine("espeak").unwrap(), EngineKind::EspeakNg);
        assert_eq!(parse_engine("wyoming").unwrap(), EngineKind::Wyoming);
        let e = parse_engine("loudspeaker").unwrap_err().to_string();
        assert!(e.contains("loudspeaker") && e.contains("espeak-ng"), "{e}");
        let none = VoiceCast::new(Some("none"), &VoiceSettings::default(), &english_people());
        assert!(none.is_err());
        let nobody = VoiceCast::new(Some("espeak-ng"), &VoiceSettings::default(), &[]);
        assert!(nobody.is_err());
    }

    #[test]
    fn every_person_has_a_voice_and_neighbours_differ() {
        let people = english_people();
        let cast = VoiceCast::new(Some("espeak-ng"), &VoiceSettings::default(), &people).unwrap();
        assert_ne!(cast.voice(0).describe, cast.voice(1).describe);
        assert_eq!(cast.voice(0).describe, cast.voice(people.len()).describe);
    }

    fn english_people() -> Vec<String> {
        crate::language::Language::english()
            .expect("English")
            .voices()
            .people
            .clone()
    }
}
