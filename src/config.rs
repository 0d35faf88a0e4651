//! Configuration: defaults, then one TOML file, then `ATTENTIVE_*` environment variables.
//!
//! The file is the one given explicitly (it must exist), else the first existing
//! of `./attentive.toml`, `$XDG_CONFIG_HOME/attentive/config.toml` (or
//! `~/.config/attentive/config.toml`), `/etc/attentive/config.toml`.
//! Environment variables use `__` between section and key:
//! `ATTENTIVE_LLM__BASE_URL`, `ATTENTIVE_LLM__MODEL`, `ATTENTIVE_AGENT__TURN_TIMEOUT_S`.
//! Variables starting with `ATTENTIVE_` but without `__` are not configuration
//! and are ignored. The API key is never part of the configuration: it is read
//! from the environment variable named by `llm.api_key_env`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::twin::actions::playback::Pace;

/// Base URL used when `llm.base_url` is unset but a key is present.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// Prefix of configuration environment variables.
pub const ENV_PREFIX: &str = "ATTENTIVE_";

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The explicitly given file does not exist.
    #[error("configuration file {0} does not exist")]
    MissingFile(PathBuf),
    /// The file or the environment could not be read or has a bad key or value.
    #[error("invalid configuration{}: {message}", origin_suffix(.origin))]
    Invalid {
        /// The file the error came from, if known.
        origin: Option<PathBuf>,
        /// What is wrong, naming the key.
        message: String,
    },
}

fn origin_suffix(origin: &Option<PathBuf>) -> String {
    origin
        .as_ref()
        .map(|p| format!(" ({} or ATTENTIVE_* variables)", p.display()))
        .unwrap_or_default()
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// The LLM endpoint.
    pub llm: LlmSettings,
    /// Limits of the agent loop.
    pub agent: AgentSettings,
    /// Guards of the agent.
    pub guards: GuardSettings,
    /// Text-only simulation defaults.
    pub sim: SimSettings,
    /// The speech front end.
    pub audio: crate::frontend::settings::AudioSettings,
    /// The daemon (`attentive run`).
    pub daemon: crate::daemon::settings::DaemonSettings,
    /// The robot's voice.
    pub voice: crate::voice::VoiceSettings,
    /// The robot bridge.
    pub robot: crate::robot::RobotSettings,
    /// Memory across sessions.
    pub memory: crate::memory::MemorySettings,
    /// The language people speak and the robot answers in: a folder under
    /// `languages/` (`en`, `de`) or a path to one; unset is English.
    pub language: Option<String>,
    /// The file the configuration was read from, if any (not a key).
    #[serde(skip)]
    pub source_file: Option<PathBuf>,
}

/// `[llm]`: the OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmSettings {
    /// Base URL of the chat-completions API (`None` = not configured).
    pub base_url: Option<String>,
    /// Model name.
    pub model: String,
    /// Name of the environment variable holding the API key.
    pub api_key_env: String,
    /// Sampling temperature.
    pub temperature: f32,
    /// Sampling seed, if the server supports it.
    pub seed: Option<u64>,
    /// Maximum tokens per completion (sent as `max_tokens`).
    pub max_tokens: u32,
    /// Timeout of one HTTP request, in seconds.
    pub request_timeout_s: f64,
    /// Retries after a failed request (timeouts, connection errors, 429, 5xx).
    pub retries: u32,
    /// Delay before the first retry, in milliseconds; doubled for each further retry.
    pub backoff_initial_ms: u64,
    /// `tool_choice`: `auto`, `required` or `none`; omitted when unset.
    pub tool_choice: Option<String>,
    /// `parallel_tool_calls` (several calls in one reply); omitted when unset
    /// or when no tools are sent, and dropped when the endpoint refuses it.
    pub parallel_tool_calls: Option<bool>,
    /// Stream replies, so the robot speaks while the model still writes the
    /// action; an endpoint that refuses is asked without from then on.
    pub stream: bool,
    /// `standard`, or `small` for small local models: forced tool calls, one
    /// call per reply and the `plan` note (each unless set here).
    pub profile: LlmProfile,
    /// The scene's names as enums in the tools' argument schemas.
    pub name_enums: Option<bool>,
}

/// Settings that suit a family of models, applied under the explicit ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmProfile {
    /// Hosted and large models: parallel tool calls, free tool choice.
    #[default]
    Standard,
    /// Small local models (1-8 B parameters): one forced tool call per reply,
    /// the `plan` situation note.
    Small,
}

impl Default for LlmSettings {
    fn default() -> Self {
        LlmSettings {
            base_url: None,
            model: "gpt-4o".into(),
            api_key_env: "OPENAI_API_KEY".into(),
            temperature: 0.0,
            seed: Some(42),
            max_tokens: 1024,
            request_timeout_s: 60.0,
            retries: 3,
            backoff_initial_ms: 500,
            tool_choice: None,
            parallel_tool_calls: Some(true),
            stream: true,
            profile: LlmProfile::Standard,
            name_enums: None,
        }
    }
}

impl LlmSettings {
    /// The settings with the profile applied: `small` forces a tool call
    /// (`tool_choice = "required"`) and one call per reply, where the
    /// configuration did not say otherwise. (Name enums were measured with it
    /// and did not help; they stay a setting of their own.)
    pub fn with_profile(&self) -> LlmSettings {
        let mut s = self.clone();
        if self.profile == LlmProfile::Small {
            s.tool_choice.get_or_insert_with(|| "required".to_string());
            if s.parallel_tool_calls == Some(true) {
                s.parallel_tool_calls = Some(false);
            }
        }
        s
    }

    /// Whether the tools' schemas list the scene's names as enums.
    pub fn uses_name_enums(&self) -> bool {
        self.with_profile().name_enums.unwrap_or(false)
    }

    /// The API key from the environment variable `api_key_env` (trimmed; empty counts as unset).
    pub fn read_api_key(&self) -> Option<String> {
        std::env::var(&self.api_key_env)
            .ok()
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
    }

    /// Whether an endpoint is configured: a base URL is set or the key variable is present
    /// (then the base URL defaults to [`OPENAI_BASE_URL`]).
    pub fn endpoint_configured(&self) -> bool {
        self.base_url.is_some() || self.read_api_key().is_some()
    }

    /// The base URL in effect: `base_url`, else [`OPENAI_BASE_URL`], without a trailing `/`.
    pub fn effective_base_url(&self) -> String {
        self.base_url
            .as_deref()
            .unwrap_or(OPENAI_BASE_URL)
            .trim_end_matches('/')
            .to_string()
    }
}

/// `[agent]`: limits of the LLM loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentSettings {
    /// LLM calls allowed per turn.
    pub max_llm_calls_per_turn: u32,
    /// Wall time allowed per turn, in seconds.
    pub turn_timeout_s: f64,
    /// How often the same tool call with the same arguments may repeat in a turn.
    pub max_identical_calls: u32,
    /// Messages kept in the history (older ones are dropped).
    pub history_max_messages: usize,
    /// The situation note before the first LLM call of a turn: `facts` (what
    /// was understood, and the twin's answers about it), `plan` (the facts and
    /// the steps that would help) or `off` (the paper's protocol). Unset: by
    /// `llm.profile` (`facts`; `plan` for `small`).
    pub situation: Option<Situation>,
    /// Put words of spoken turns right toward the table's vocabulary before reading them.
    pub correct_hearing: bool,
}

/// `agent.situation`: what the agent tells the LLM up front about a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Situation {
    /// What the understanding stage read, and the twin's answers about it.
    #[default]
    Facts,
    /// The facts, and the steps that would help (or that nothing is needed).
    Plan,
    /// Nothing: the LLM asks the tools itself, as in the paper.
    Off,
}

impl AgentSettings {
    /// The note in effect: the one set, else the profile's.
    pub fn situation_for(&self, profile: LlmProfile) -> Situation {
        self.situation.unwrap_or(match profile {
            LlmProfile::Standard => Situation::Facts,
            LlmProfile::Small => Situation::Plan,
        })
    }
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            max_llm_calls_per_turn: 10,
            turn_timeout_s: 120.0,
            max_identical_calls: 2,
            history_max_messages: 200,
            situation: None,
            correct_hearing: true,
        }
    }
}

/// `[guards]`: which guards of the agent are on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GuardSettings {
    /// No physical action before the robot explained itself in this turn.
    pub explain_first: bool,
    /// No help before the hindrance was checked, unless the robot was addressed.
    pub check_before_help: bool,
    /// Deliver objects to the sender, not the receiver.
    pub deliver_to_sender: bool,
}

impl Default for GuardSettings {
    fn default() -> Self {
        GuardSettings {
            explain_first: true,
            check_before_help: true,
            deliver_to_sender: true,
        }
    }
}

/// `[sim]`: defaults of `attentive sim`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimSettings {
    /// Scene name or path.
    pub scene: String,
    /// Character name or path.
    pub character: String,
    /// Brain (`llm`, `rules`, `scripted`); `None` = choose automatically.
    pub brain: Option<String>,
    /// Wall seconds per planned second when the simulated robot moves (`run`
    /// and the REPL; 1 = as planned, 0 = at once). `eval` always runs at once.
    pub time_scale: f64,
    /// How often the simulated joints advance (Hz).
    pub rate_hz: f64,
    /// A simulated hand closing or opening (planned seconds).
    pub gripper_s: f64,
    /// A simulated head turn (planned seconds).
    pub head_s: f64,
}

impl Default for SimSettings {
    fn default() -> Self {
        let pace = Pace::default();
        SimSettings {
            scene: "softdrinks".into(),
            character: "full".into(),
            brain: None,
            time_scale: pace.time_scale,
            rate_hz: pace.rate_hz,
            gripper_s: pace.gripper_s,
            head_s: pace.head_s,
        }
    }
}

impl SimSettings {
    /// The simulated robot's timing.
    pub fn pace(&self) -> Pace {
        Pace {
            time_scale: self.time_scale,
            rate_hz: self.rate_hz,
            gripper_s: self.gripper_s,
            head_s: self.head_s,
        }
    }

    /// Checks the timing; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        let seconds = [
            ("time_scale", self.time_scale),
            ("gripper_s", self.gripper_s),
            ("head_s", self.head_s),
        ];
        for (key, value) in seconds {
            if !(value.is_finite() && value >= 0.0) {
                return Err(format!("sim.{key} must be a number of seconds, 0 or more"));
            }
        }
        if !(self.rate_hz.is_finite() && (1.0..=1000.0).contains(&self.rate_hz)) {
            return Err("sim.rate_hz must be between 1 and 1000".into());
        }
        Ok(())
    }
}

/// Rewrites floats that went through f32 -> f64 ("0.6000000238418579") in their
/// shortest f32 form ("0.6"), so that `config show` reads as it was written.
fn shortest_floats(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        let long_float = token.len() > 10 && token.contains('.') && !token.contains('"');
        match token.parse::<f64>() {
            Ok(v) if long_float && v.is_finite() => out.push_str(&format!("{:?}", v as f32)),
            _ => out.push_str(token),
        }
        token.clear();
    };
    for c in text.chars() {
        if c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+') {
            token.push(c);
        } else {
            flush(&mut token, &mut out);
            out.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

impl Settings {
    /// The configured language's code or folder (`en` when unset).
    pub fn language(&self) -> &str {
        self.language.as_deref().unwrap_or(crate::language::DEFAULT)
    }

    /// The agent's settings with the note the LLM profile asks for filled in.
    pub fn agent_settings(&self) -> AgentSettings {
        AgentSettings {
            situation: Some(self.agent.situation_for(self.llm.profile)),
            ..self.agent.clone()
        }
    }

    /// The brain to use: the one asked for, else `[sim] brain`, else the LLM
    /// when an endpoint is configured and the rules baseline otherwise.
    pub fn brain(&self, asked: Option<&str>) -> String {
        match asked.or(self.sim.brain.as_deref()) {
            Some(brain) => brain.to_string(),
            None if self.llm.endpoint_configured() => "llm".into(),
            None => "rules".into(),
        }
    }

    /// Load defaults, then the configuration file, then `ATTENTIVE_*` environment variables.
    pub fn load(explicit_file: Option<&Path>) -> Result<Settings, ConfigError> {
        let env: HashMap<String, String> = std::env::vars().collect();
        Self::load_with(explicit_file, &default_candidates(), &env)
    }

    /// [`Settings::load`] with the candidate files and the environment given
    /// explicitly (for tests and tools).
    pub fn load_with(
        explicit_file: Option<&Path>,
        candidates: &[PathBuf],
        env: &HashMap<String, String>,
    ) -> Result<Settings, ConfigError> {
        let file = match explicit_file {
            Some(path) if path.is_file() => Some(path.to_path_buf()),
            Some(path) => return Err(ConfigError::MissingFile(path.to_path_buf())),
            None => candidates.iter().find(|p| p.is_file()).cloned(),
        };

        let mut builder = config::Config::builder();
        if let Some(path) = &file {
            builder = builder.add_source(
                config::File::from(path.as_path())
                    .format(config::FileFormat::Toml)
                    .required(true),
            );
        }
        let env_map: config::Map<String, String> = env
            .iter()
            .filter(|(k, _)| {
                k.strip_prefix(ENV_PREFIX)
                    .is_some_and(|rest| rest.contains("__"))
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        builder = builder.add_source(
            config::Environment::with_prefix("ATTENTIVE")
                .prefix_separator("_")
                .separator("__")
                .try_parsing(true)
                .ignore_empty(true)
                .source(Some(env_map)),
        );

        let invalid = |e: config::ConfigError| ConfigError::Invalid {
            origin: file.clone(),
            message: e.to_string(),
        };
        let built = builder.build().map_err(invalid)?;
        let mut settings: Settings = built.try_deserialize().map_err(invalid)?;
        settings.source_file = file.clone();
        settings
            .validate()
            .map_err(|message| ConfigError::Invalid {
                origin: file.clone(),
                message,
            })?;
        Ok(settings)
    }

    fn validate(&self) -> Result<(), String> {
        let llm = &self.llm;
        if let Some(choice) = &llm.tool_choice {
            if !matches!(choice.as_str(), "auto" | "required" | "none") {
                return Err(format!(
                    "llm.tool_choice must be \"auto\", \"required\" or \"none\", not {choice:?}"
                ));
            }
        }
        if let Some(url) = &llm.base_url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "llm.base_url must start with http:// or https://, not {url:?}"
                ));
            }
        }
        if !(llm.request_timeout_s.is_finite() && llm.request_timeout_s > 0.0) {
            return Err("llm.request_timeout_s must be a positive number of seconds".into());
        }
        if !(llm.temperature.is_finite() && (0.0..=2.0).contains(&llm.temperature)) {
            return Err("llm.temperature must be between 0 and 2".into());
        }
        if llm.api_key_env.trim().is_empty() {
            return Err("llm.api_key_env must name an environment variable".into());
        }
        if !(self.agent.turn_timeout_s.is_finite() && self.agent.turn_timeout_s > 0.0) {
            return Err("agent.turn_timeout_s must be a positive number of seconds".into());
        }
        self.voice.validate()?;
        self.sim.validate()?;
        self.daemon.validate()
    }

    /// The effective configuration as TOML, without secrets (there are none in it:
    /// the key is only read from the environment); a comment line in `[llm]` tells
    /// whether the key variable is set. The output is itself a valid configuration file.
    pub fn show(&self) -> String {
        let mut out = String::from("# effective configuration");
        match &self.source_file {
            Some(p) => out.push_str(&format!(" (file: {})\n", p.display())),
            None => out.push_str(" (no file: defaults and environment)\n"),
        }
        let body = match toml::to_string(self) {
            Ok(text) => shortest_floats(&text),
            Err(e) => return format!("{out}# cannot render: {e}\n"),
        };
        let key_present = self.llm.read_api_key().is_some();
        let mut llm_note = format!("# api_key_present = {key_present}\n");
        if self.llm.base_url.is_none() {
            if self.llm.endpoint_configured() {
                llm_note.push_str(&format!("# base_url unset: using {OPENAI_BASE_URL}\n"));
            } else {
                llm_note.push_str("# base_url unset and no key: no LLM endpoint configured\n");
            }
        }
        for line in body.lines() {
            out.push_str(line);
            out.push('\n');
            if line.trim() == "[llm]" {
                out.push_str(&llm_note);
            }
        }
        out
    }
}

/// The configuration files searched when none is given, in order.
pub fn default_candidates() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("attentive.toml")];
    match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(xdg) => out.push(PathBuf::from(xdg).join("attentive/config.toml")),
        None => {
            if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
                out.push(PathBuf::from(home).join(".config/attentive/config.toml"));
            }
        }
    }
    out.push(PathBuf::from("/etc/attentive/config.toml"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn file(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn defaults_without_file_or_env() {
        let s = Settings::load_with(None, &[], &env(&[])).unwrap();
        assert_eq!(s.llm, LlmSettings::default());
        assert_eq!(s.llm.model, "gpt-4o");
        assert_eq!(s.llm.seed, Some(42));
        assert_eq!(s.agent.max_llm_calls_per_turn, 10);
        assert!(s.guards.explain_first);
        assert_eq!(s.sim.scene, "softdrinks");
        assert_eq!(s.source_file, None);
    }

    #[test]
    fn file_overrides_defaults_and_env_overrides_file() {
        let f = file(
            "[llm]\nbase_url = \"http://127.0.0.1:8080/v1\"\nmodel = \"from-file\"\ntemperature = 1\n\
             tool_choice = \"required\"\n[agent]\nturn_timeout_s = 30\n",
        );
        let e = env(&[
            ("ATTENTIVE_LLM__MODEL", "from-env"),
            ("ATTENTIVE_LLM__PARALLEL_TOOL_CALLS", "false"),
            ("ATTENTIVE_AGENT__MAX_LLM_CALLS_PER_TURN", "4"),
            ("ATTENTIVE_LOG", "ignored: no section separator"),
            ("OTHER__VAR", "ignored"),
        ]);
        let s = Settings::load_with(Some(f.path()), &[], &e).unwrap();
        assert_eq!(s.llm.model, "from-env");
        assert_eq!(s.llm.base_url.as_deref(), Some("http://127.0.0.1:8080/v1"));
        assert_eq!(s.llm.temperature, 1.0);
        assert_eq!(s.llm.tool_choice.as_deref(), Some("required"));
        assert_eq!(s.llm.parallel_tool_calls, Some(false));
        assert_eq!(s.agent.turn_timeout_s, 30.0);
        assert_eq!(s.agent.max_llm_calls_per_turn, 4);
        assert_eq!(s.agent.max_identical_calls, 2);
        assert_eq!(s.source_file.as_deref(), Some(f.path()));
    }

    #[test]
    fn first_existing_candidate_is_used() {
        let f = file("[sim]\nscene = \"coffee\"\n");
        let candidates = vec![
            PathBuf::from("/nonexistent/attentive.toml"),
            f.path().into(),
        ];
        let s = Settings::load_with(None, &candidates, &env(&[])).unwrap();
        assert_eq!(s.sim.scene, "coffee");
    }

    #[test]
    fn explicit_file_must_exist() {
        let err = Settings::load_with(Some(Path::new("/nonexistent/x.toml")), &[], &env(&[]))
            .unwrap_err();
        assert!(matches!(err, ConfigError::MissingFile(_)));
        assert!(err.to_string().contains("/nonexistent/x.toml"));
    }

    #[test]
    fn unknown_key_is_named() {
        let f = file("[llm]\nmodle = \"x\"\n");
        let err = Settings::load_with(Some(f.path()), &[], &env(&[])).unwrap_err();
        assert!(err.to_string().contains("modle"), "{err}");
        let f = file("[lmm]\nmodel = \"x\"\n");
        let err = Settings::load_with(Some(f.path()), &[], &env(&[])).unwrap_err();
        assert!(err.to_string().contains("lmm"), "{err}");
        let err =
            Settings::load_with(None, &[], &env(&[("ATTENTIVE_LLM__MODLE", "x")])).unwrap_err();
        assert!(err.to_string().contains("modle"), "{err}");
    }

    #[test]
    fn wrong_type_is_named() {
        let f = file("[llm]\nretries = \"many\"\n");
        let err = Settings::load_with(Some(f.path()), &[], &env(&[])).unwrap_err();
        assert!(err.to_string().contains("retries"), "{err}");
        let err = Settings::load_with(
            None,
            &[],
            &env(&[("ATTENTIVE_AGENT__TURN_TIMEOUT_S", "soon")]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("turn_timeout_s"), "{err}");
    }

    #[test]
    fn bad_values_are_rejected() {
        let f = file("[llm]\ntool_choice = \"always\"\n");
        let err = Settings::load_with(Some(f.path()), &[], &env(&[])).unwrap_err();
        assert!(err.to_string().contains("tool_choice"), "{err}");
        let err = Settings::load_with(
            None,
            &[],
            &env(&[("ATTENTIVE_LLM__BASE_URL", "localhost:8080")]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("base_url"), "{err}");
    }

    #[test]
    fn show_renders_toml_without_secrets() {
        let mut s = Settings::default();
        s.llm.api_key_env = "ATTENTIVE_TEST_SHOW_KEY_UNSET".into();
        s.llm.base_url = Some("http://localhost:8080/v1".into());
        let text = s.show();
        assert!(
            text.contains("api_key_env = \"ATTENTIVE_TEST_SHOW_KEY_UNSET\""),
            "{text}"
        );
        assert!(text.contains("api_key_present = false"), "{text}");
        assert!(
            text.contains("base_url = \"http://localhost:8080/v1\""),
            "{text}"
        );
        assert!(text.contains("[guards]"), "{text}");
        // What `show` prints is itself a configuration file giving the same settings.
        let f = file(&text);
        let back = Settings::load_with(Some(f.path()), &[], &env(&[])).unwrap();
        assert_eq!(back.llm, s.llm);
        assert_eq!(back.agent, s.agent);
    }

    #[test]
    fn endpoint_configured_needs_url_or_key() {
        let mut llm = LlmSettings {
            api_key_env: "ATTENTIVE_TEST_ENDPOINT_KEY_UNSET".into(),
            ..LlmSettings::default()
        };
        assert!(!llm.endpoint_configured());
        assert_eq!(llm.effective_base_url(), OPENAI_BASE_URL);
        llm.base_url = Some("http://127.0.0.1:1234/v1/".into());
        assert!(llm.endpoint_configured());
        assert_eq!(llm.effective_base_url(), "http://127.0.0.1:1234/v1");
    }
}
