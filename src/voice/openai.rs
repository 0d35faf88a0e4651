//! An OpenAI-compatible speech server (`POST …/audio/speech`): OpenAI,
//! Kokoro-FastAPI, speaches, openedai-speech, LocalAI, through async-openai.
//!
//! The reply is asked for as WAV, because servers differ in the sample rate of
//! raw `pcm` (OpenAI 24 kHz, piper 22.05 kHz) and WAV says which it is.

use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::audio::{
    CreateSpeechRequestArgs, SpeechModel, SpeechResponseFormat, Voice,
};
use async_openai::Client;
use tokio_util::sync::CancellationToken;

use super::engine::{checked, SpeechEngine, SynthFuture};
use super::pcm::decode_wav;
use super::settings::OpenAiVoiceSettings;
use super::VoiceError;
use crate::llm::openai::{error_chain, host_of, is_local_host};

const ENGINE: &str = "openai";

/// The OpenAI-compatible speech engine.
pub struct OpenAiSpeech {
    client: Client<OpenAIConfig>,
    base_url: String,
    model: String,
    voice: String,
    timeout: Duration,
}

impl std::fmt::Debug for OpenAiSpeech {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSpeech")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("voice", &self.voice)
            .finish_non_exhaustive()
    }
}

impl OpenAiSpeech {
    /// The engine for `[voice.openai]`; the key comes from the variable `api_key_env`
    /// and is needed only for hosts that are not local.
    pub fn from_settings(
        settings: &OpenAiVoiceSettings,
        timeout: Duration,
    ) -> Result<Self, VoiceError> {
        let base_url = settings.base_url.trim_end_matches('/').to_string();
        let host = host_of(&base_url).ok_or_else(|| {
            VoiceError::Config(format!(
                "voice.openai.base_url {base_url:?} is not an http(s) URL with a host"
            ))
        })?;
        let key = std::env::var(&settings.api_key_env)
            .ok()
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty());
        let key = match key {
            Some(key) => key,
            None if is_local_host(&host) => "no-key".to_string(),
            None => {
                return Err(VoiceError::Config(format!(
                    "the openai speech engine at {base_url} needs an API key in the environment variable {} (voice.openai.api_key_env)",
                    settings.api_key_env
                )))
            }
        };
        let config = OpenAIConfig::new()
            .with_api_base(base_url.clone())
            .with_api_key(key);
        Ok(Self {
            // The plain reqwest service: no hidden retries, so a dead server is one quick warning.
            client: Client::with_config(config)
                .with_http_service(async_openai::middleware::ReqwestService::default()),
            base_url,
            model: settings.model.clone(),
            voice: settings.voice.clone(),
            timeout,
        })
    }

    async fn speak(&self, text: &str) -> Result<super::Pcm, VoiceError> {
        let request = CreateSpeechRequestArgs::default()
            .input(text)
            .model(SpeechModel::Other(self.model.clone()))
            .voice(Voice::Other(self.voice.clone()))
            .response_format(SpeechResponseFormat::Wav)
            .build()
            .map_err(|e| VoiceError::Engine {
                engine: ENGINE,
                detail: e.to_string(),
            })?;
        let response = self
            .client
            .audio()
            .speech()
            .create(request)
            .await
            .map_err(|e| self.error(e))?;
        checked(ENGINE, decode_wav(&response.bytes))
    }

    fn error(&self, error: OpenAIError) -> VoiceError {
        match error {
            OpenAIError::ApiError(api) => VoiceError::Engine {
                engine: ENGINE,
                detail: format!(
                    "the server at {} answered {} {}",
                    self.base_url,
                    api.status_code,
                    excerpt(&api.api_error.message)
                ),
            },
            OpenAIError::JSONDeserialize(_, content) => VoiceError::Engine {
                engine: ENGINE,
                detail: format!(
                    "the server at {} answered with an error that is not OpenAI's JSON: {}",
                    self.base_url,
                    excerpt(&content)
                ),
            },
            other => VoiceError::Unreachable {
                engine: ENGINE,
                address: self.base_url.clone(),
                detail: error_chain(&other),
            },
        }
    }
}

/// The first 200 characters of a server's text, on one line.
fn excerpt(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect();
    one_line.trim().to_string()
}

impl SpeechEngine for OpenAiSpeech {
    fn synthesize<'a>(&'a self, text: &'a str, cancel: &'a CancellationToken) -> SynthFuture<'a> {
        Box::pin(async move {
            tokio::select! {
                _ = cancel.cancelled() => Err(VoiceError::Cancelled),
                out = tokio::time::timeout(self.timeout, self.speak(text)) => out.unwrap_or(Err(
                    VoiceError::Timeout { engine: ENGINE, seconds: self.timeout.as_secs_f64() },
                )),
            }
        })
    }

    fn describe(&self) -> String {
        format!(
            "openai ({} at {}, voice {})",
            self.model, self.base_url, self.voice
        )
    }
}
