//! `[voice]` configuration of the robot's speech output.

use serde::{Deserialize, Serialize};

/// Which speech engine turns text into audio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EngineKind {
    /// espeak-ng as a subprocess (offline, the default).
    #[serde(rename = "espeak-ng")]
    EspeakNg,
    /// Any OpenAI-compatible `POST /v1/audio/speech` server.
    #[serde(rename = "openai")]
    OpenAi,
    /// A Wyoming TTS server over TCP (e.g. wyoming-piper on port 10200).
    #[serde(rename = "wyoming")]
    Wyoming,
    /// Any program that reads text on stdin and writes a WAV on stdout.
    #[serde(rename = "command")]
    Command,
    /// No voice: speech is only shown.
    #[serde(rename = "none")]
    None,
}

impl EngineKind {
    /// The name used in the configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::EspeakNg => "espeak-ng",
            EngineKind::OpenAi => "openai",
            EngineKind::Wyoming => "wyoming",
            EngineKind::Command => "command",
            EngineKind::None => "none",
        }
    }
}

/// Settings of the robot's voice: the `[voice]` section of the configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VoiceSettings {
    /// The speech engine.
    pub engine: EngineKind,
    /// Output device name (cpal id such as `pulse`, or part of its description);
    /// `None` plays on the default output device.
    pub device: Option<String>,
    /// A physical action waits until the speech before it has been played.
    pub wait_before_action: bool,
    /// Longest wait of an action for the speech before it, in seconds.
    pub wait_before_action_max_s: f64,
    /// Time after the robot's speech during which the microphone stays closed, in ms
    /// (output buffer plus room echo).
    pub tail_ms: u32,
    /// A person speaking over the robot this long (ms of voiced audio) stops its speech.
    pub barge_in_ms: u32,
    /// Longest time one synthesis may take (process, request, connection), in seconds.
    pub timeout_s: f64,
    /// `engine = "espeak-ng"`.
    pub espeak: EspeakSettings,
    /// `engine = "openai"`.
    pub openai: OpenAiVoiceSettings,
    /// `engine = "wyoming"`.
    pub wyoming: WyomingSettings,
    /// `engine = "command"`.
    pub command: CommandSettings,
}

/// `[voice.espeak]`: the espeak-ng subprocess.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EspeakSettings {
    /// The program (name on `PATH` or a path).
    pub program: String,
    /// Voice (`-v`), e.g. `en-us`, `en-gb`, `de`.
    pub voice: String,
    /// Speed in words per minute (`-s`).
    pub rate: u32,
    /// Pitch 0..99 (`-p`).
    pub pitch: u32,
}

/// `[voice.openai]`: an OpenAI-compatible speech server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenAiVoiceSettings {
    /// Base URL (`…/audio/speech` is appended), e.g. `http://localhost:8880/v1` for Kokoro-FastAPI.
    pub base_url: String,
    /// Model name, e.g. `kokoro`, `tts-1`.
    pub model: String,
    /// Voice name, e.g. `af_bella`, `alloy`.
    pub voice: String,
    /// Name of the environment variable holding the API key (local servers need none).
    pub api_key_env: String,
}

/// `[voice.wyoming]`: a Wyoming TTS server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WyomingSettings {
    /// `host:port` of the server.
    pub address: String,
    /// Voice name; `None` takes the server's default.
    pub voice: Option<String>,
}

/// `[voice.command]`: a program reading text on stdin and writing a WAV on stdout.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CommandSettings {
    /// The program (name on `PATH` or a path).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

impl Default for VoiceSettings {
    fn default() -> Self {
        Self {
            engine: EngineKind::EspeakNg,
            device: None,
            wait_before_action: true,
            wait_before_action_max_s: 15.0,
            tail_ms: 300,
            barge_in_ms: 500,
            timeout_s: 30.0,
            espeak: EspeakSettings::default(),
            openai: OpenAiVoiceSettings::default(),
            wyoming: WyomingSettings::default(),
            command: CommandSettings::default(),
        }
    }
}

impl Default for EspeakSettings {
    fn default() -> Self {
        Self {
            program: "espeak-ng".into(),
            voice: "en-us".into(),
            rate: 160,
            pitch: 50,
        }
    }
}

impl Default for OpenAiVoiceSettings {
    fn default() -> Self {
        Self {
            base_url: crate::config::OPENAI_BASE_URL.into(),
            model: "gpt-4o-mini-tts".into(),
            voice: "alloy".into(),
            api_key_env: "OPENAI_API_KEY".into(),
        }
    }
}

impl Default for WyomingSettings {
    fn default() -> Self {
        Self {
            address: "127.0.0.1:10200".into(),
            voice: None,
        }
    }
}

impl VoiceSettings {
    /// Checks values that the types alone do not; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.wait_before_action_max_s.is_finite() && self.wait_before_action_max_s > 0.0) {
            return Err(
                "voice.wait_before_action_max_s must be a positive number of seconds".into(),
            );
        }
        if !(self.timeout_s.is_finite() && self.timeout_s > 0.0) {
            return Err("voice.timeout_s must be a positive number of seconds".into());
        }
        if self.barge_in_ms == 0 {
            return Err("voice.barge_in_ms must be at least 1 ms".into());
        }
        match self.engine {
            EngineKind::EspeakNg if self.espeak.program.trim().is_empty() => {
                Err("voice.espeak.program must name the espeak-ng program".into())
            }
            EngineKind::EspeakNg if self.espeak.pitch > 99 => {
                Err("voice.espeak.pitch must be between 0 and 99".into())
            }
            EngineKind::OpenAi
                if !(self.openai.base_url.starts_with("http://")
                    || self.openai.base_url.starts_with("https://")) =>
            {
                Err(format!(
                    "voice.openai.base_url must start with http:// or https://, not {:?}",
                    self.openai.base_url
                ))
            }
            EngineKind::Wyoming if !self.wyoming.address.contains(':') => Err(format!(
                "voice.wyoming.address must be host:port (e.g. 127.0.0.1:10200), not {:?}",
                self.wyoming.address
            )),
            EngineKind::Command if self.command.program.trim().is_empty() => Err(
                "voice.command.program must name a program that reads text on stdin and writes a WAV on stdout"
                    .into(),
            ),
            _ => Ok(()),
        }
    }

    /// The bound of an action's wait for the speech before it; `None` when it does not wait.
    pub fn action_wait(&self) -> Option<std::time::Duration> {
        self.wait_before_action
            .then(|| std::time::Duration::from_secs_f64(self.wait_before_action_max_s.max(0.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_speak_with_espeak_and_wait_before_acting() {
        let s = VoiceSettings::default();
        assert_eq!(s.engine, EngineKind::EspeakNg);
        assert_eq!(s.tail_ms, 300);
        assert_eq!(s.barge_in_ms, 500);
        assert_eq!(
            s.action_wait(),
            Some(std::time::Duration::from_secs_f64(15.0))
        );
        assert!(s.validate().is_ok());
    }

    #[test]
    fn engine_names_are_those_of_the_configuration() {
        for kind in [
            EngineKind::EspeakNg,
            EngineKind::OpenAi,
            EngineKind::Wyoming,
            EngineKind::Command,
            EngineKind::None,
        ] {
            let text = serde_json::to_string(&kind).expect("serialize");
            assert_eq!(text, format!("\"{}\"", kind.as_str()));
        }
    }

    #[test]
    fn a_command_engine_needs_a_program() {
        let s = VoiceSettings {
            engine: EngineKind::Command,
            ..VoiceSettings::default()
        };
        let err = s.validate().expect_err("no program");
        assert!(err.contains("voice.command.program"), "{err}");
    }
}
