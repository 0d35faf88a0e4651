//! Command-line definitions (clap). The subcommands and flags are the contract of DESIGN.md.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Attentive support for a group of people around a tabletop robot.
#[derive(Debug, Parser)]
#[command(name = "attentive", version, about)]
pub struct Cli {
    /// Print one JSON object per line on stdout (logs stay on stderr).
    #[arg(long, global = true)]
    pub json: bool,
    /// More log output on stderr (-v, -vv, -vvv); ATTENTIVE_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Configuration file (TOML), layered under ATTENTIVE_* environment variables.
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Text-only simulation: a REPL of turns, or a dialogue script.
    Sim(SimArgs),
    /// Call one agent tool against a scene and print its result.
    Tool(ToolArgs),
    /// Print the tool schemas exactly as they are sent to the LLM.
    Tools(ToolsArgs),
    /// Run dialogue scripts (or the paper's isolated grid) and judge every turn.
    Eval(EvalArgs),
    /// The speech front end alone: one turn per utterance.
    Listen(ListenArgs),
    /// The daemon.
    Run(RunArgs),
    /// Speak TEXT with the configured speech engine and output device.
    Say(SayArgs),
    /// What the understanding stage reads in turns: act, slots, the template that matched.
    Understand(UnderstandArgs),
    /// Configuration commands.
    Config(ConfigArgs),
    /// Measurement commands (e.g. `bench planner --tables 40 --seed 1`).
    Bench(BenchArgs),
    /// What the robot remembers (`<state_dir>/memory.db`): list, show, export, forget.
    Memory(MemoryArgs),
}

/// Arguments of `attentive memory`.
#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: MemoryCommand,
}

/// The memory commands; they work on the daemon's `<state_dir>/memory.db`.
#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// The people remembered, with their facts.
    List,
    /// Everything remembered about PERSON: facts (own and hearsay), episodes, failures.
    Show {
        /// The person's name.
        person: String,
    },
    /// Everything remembered about PERSON as one JSON document (for a person who asks for it).
    Export {
        /// The person's name.
        person: String,
    },
    /// Erases PERSON (or one fact with --fact ID) from the store and from the
    /// event log's day files; through the daemon when one runs on this state folder.
    Forget {
        /// The person to forget: their facts, facts others said about them, the
        /// episodes they asked for, their failures.
        #[arg(required_unless_present = "fact", conflicts_with = "fact")]
        person: Option<String>,
        /// Forget only this fact (its id, as `memory show` prints it).
        #[arg(long, value_name = "ID")]
        fact: Option<i64>,
    },
}

/// Arguments of `attentive bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// What to measure.
    #[command(subcommand)]
    pub command: BenchCommand,
}

/// The benchmarks.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Random ordinary tables: every object the robot reaches handed to and moved to every
    /// person; prints success rates, refusal reasons and planning-time percentiles.
    Planner {
        /// Number of random tables.
        #[arg(long, default_value_t = 40)]
        tables: u64,
        /// Seed of the first table (table k uses seed + k).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Planner threads (1 measures one core, as the README's figures do).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Print every failed case.
        #[arg(long)]
        failures: bool,
        /// Robot description (name under scenes/robots/ or a path) instead of the tables' own.
        #[arg(long)]
        robot: Option<String>,
        /// Also write each random table as a scene file into DIR (`random_<seed>.toml`),
        /// to look at a failed case with `attentive tool --scene`.
        #[arg(long, value_name = "DIR")]
        write_tables: Option<std::path::PathBuf>,
    },
}

/// Arguments of `attentive sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// Language people speak and the robot answers in (a folder under languages/ or a path;
    /// overrides the config's `language`).
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
    /// Scene name under scenes/ or a path to a scene file.
    #[arg(long)]
    pub scene: Option<String>,
    /// Character name under characters/ (full, relaxed, none) or a path.
    #[arg(long)]
    pub character: Option<String>,
    /// Brain: llm, rules, hybrid (rules for what it is sure of, the LLM for the rest) or scripted.
    #[arg(long)]
    pub brain: Option<String>,
    /// Dialogue script to run instead of the REPL.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// Canned responses for the scripted brain.
    #[arg(long)]
    pub responses: Option<PathBuf>,
    /// Remember across sessions in this memory store (SQLite; created if
    /// missing); `:session` in the REPL and `new_session` in a script start one.
    #[arg(long)]
    pub memory: Option<PathBuf>,
    /// OpenAI-compatible base URL (overrides llm.base_url).
    #[arg(long)]
    pub llm_url: Option<String>,
    /// Model name (overrides llm.model).
    #[arg(long)]
    pub model: Option<String>,
}

/// Arguments of `attentive tool`.
#[derive(Debug, Args)]
pub struct ToolArgs {
    /// Scene name under scenes/ or a path to a scene file.
    #[arg(long, default_value = "softdrinks")]
    pub scene: String,
    /// Tool name, e.g. check_hindering_reasons.
    pub name: String,
    /// Arguments as a JSON object, e.g. '{"person_name":"Daniel","object_name":"red_glass"}'.
    pub args: Option<String>,
    /// Scene changes before the call, e.g. --busy Daniel=smartphone.
    #[arg(long, value_name = "PERSON=OBJECT")]
    pub busy: Vec<String>,
    /// Execute actions through the robot bridge (rosbridge WebSocket URL, e.g.
    /// ws://127.0.0.1:9090) instead of in simulation; perception updates the scene first.
    #[arg(long, value_name = "URL")]
    pub robot: Option<String>,
}

/// Arguments of `attentive understand`.
#[derive(Debug, Args)]
pub struct UnderstandArgs {
    /// Language people speak and the robot answers in (a folder under languages/ or a path;
    /// overrides the config's `language`).
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
    /// Turns, each `Felix said to Daniel: ...` (or `Felix -> Daniel: ...`); earlier
    /// ones give "it" its meaning in later ones. Without any, turns are read from stdin.
    pub turns: Vec<String>,
    /// Scene name under scenes/ or a path to a scene file.
    #[arg(long, default_value = "softdrinks")]
    pub scene: String,
    /// The sentence file (default: prompts/understanding.toml).
    #[arg(long, value_name = "FILE")]
    pub sentences: Option<std::path::PathBuf>,
    /// Take the turns as a recogniser's transcripts: put right what was nearly
    /// heard toward the table, as for spoken turns, and show what was corrected.
    #[arg(long)]
    pub heard: bool,
}

/// Arguments of `attentive tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// Scene whose robot name the descriptions use.
    #[arg(long, default_value = "softdrinks")]
    pub scene: String,
}

/// Arguments of `attentive eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Language people speak and the robot answers in (a folder under languages/ or a path;
    /// overrides the config's `language`).
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
    /// Dialogue scripts or folders of them.
    pub paths: Vec<PathBuf>,
    /// Run the paper's isolated grid (3 scenarios x 5 layouts x 5 phrasings x 4 cases).
    #[arg(long)]
    pub isolated: bool,
    /// Brain: llm, rules, hybrid (rules for what it is sure of, the LLM for the rest) or scripted.
    #[arg(long)]
    pub brain: Option<String>,
    /// Character name or path; several separated by commas (full,relaxed,none)
    /// run one after the other into one report. Given here, it overrides a script's own.
    #[arg(long)]
    pub character: Option<String>,
    /// Repeat every script or case N times.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Run a stratified sample of N isolated cases (balanced over scenario x case type).
    #[arg(long, value_name = "N", requires = "isolated")]
    pub sample: Option<usize>,
    /// Seed of the sample (the same seed picks the same cases) and of --spoken's room.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Record every LLM request and reply into DIR (a new or empty folder).
    #[arg(long, value_name = "DIR", conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Answer from a recording in DIR instead of the LLM (same options as the recorded run);
    /// an episode whose request differs stops there, and the command fails naming it.
    #[arg(long, value_name = "DIR")]
    pub replay: Option<PathBuf>,
    /// Show a progress bar on stderr even when stderr is not a terminal.
    #[arg(long)]
    pub progress: bool,
    /// Episodes run in parallel.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Write a self-contained HTML report with stacked bars.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// OpenAI-compatible base URL (overrides llm.base_url).
    #[arg(long)]
    pub llm_url: Option<String>,
    /// Model name (overrides llm.model).
    #[arg(long)]
    pub model: Option<String>,
    /// Run without memory (each script otherwise remembers across its sessions,
    /// on a fresh temporary store).
    #[arg(long)]
    pub no_memory: bool,
    /// Speak every turn (a voice per person) and hear it through the real front end
    /// (VAD, whisper, listener from the vocative); reported beside the typed run.
    #[arg(long, conflicts_with_all = ["record", "replay"])]
    pub spoken: bool,
    /// The voice engine for --spoken: piper, espeak-ng, openai, wyoming or command
    /// (default: the configured voice, Piper where installed).
    #[arg(long, value_name = "ENGINE", requires = "spoken")]
    pub spoken_voice: Option<String>,
    /// The room for --spoken: quiet, noisy (10 dB SNR, reverb), babble (a second
    /// person at -10 dB), party (all three), or keys: "snr=10,reverb=0.5,talker=-10".
    #[arg(
        long,
        value_name = "ROOM",
        requires = "spoken",
        default_value = "quiet"
    )]
    pub room: String,
    /// With --spoken: find the speaker as one microphone does (attribution), not from the script.
    #[arg(long, requires = "spoken")]
    pub one_mic: bool,
    /// With --spoken: the whisper model (overrides audio.asr.model).
    #[arg(long, value_name = "FILE", requires = "spoken")]
    pub asr_model: Option<PathBuf>,
    /// With --spoken: where audio is kept between runs (default: ~/.cache/attentive/spoken).
    #[arg(long, value_name = "DIR", requires = "spoken")]
    pub spoken_cache: Option<PathBuf>,
    /// With --spoken: keep no audio between runs.
    #[arg(long, requires = "spoken", conflicts_with = "spoken_cache")]
    pub no_spoken_cache: bool,
}

/// Arguments of `attentive listen`.
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// Language people speak and the robot answers in (a folder under languages/ or a path;
    /// overrides the config's `language`).
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
    /// A WAV file (mono or multi-channel) instead of the live device.
    #[arg(long)]
    pub wav: Option<PathBuf>,
    /// Scene whose people are the candidate speakers and listeners.
    #[arg(long, default_value = "softdrinks")]
    pub scene: String,
    /// Input device name (overrides audio.device).
    #[arg(long)]
    pub device: Option<String>,
    /// ggml whisper model (overrides audio.asr.model and ATTENTIVE_WHISPER_MODEL).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Recogniser threads (overrides audio.asr.threads).
    #[arg(long)]
    pub threads: Option<u32>,
}

/// Arguments of `attentive say`.
#[derive(Debug, Args)]
pub struct SayArgs {
    /// What the robot says.
    pub text: String,
    /// Whom it says it to (shown in the output).
    #[arg(long, default_value = "All")]
    pub to: String,
    /// Write the audio to this WAV file instead of playing it.
    #[arg(long)]
    pub wav: Option<PathBuf>,
}

/// Arguments of `attentive run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Language people speak and the robot answers in (a folder under languages/ or a path;
    /// overrides the config's `language`).
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
    /// Scene name under scenes/ or a path to a scene file.
    #[arg(long)]
    pub scene: Option<String>,
    /// Character name under characters/ (full, relaxed, none) or a path.
    #[arg(long)]
    pub character: Option<String>,
    /// Brain: llm, rules, hybrid (rules for what it is sure of, the LLM for the rest) or scripted.
    #[arg(long)]
    pub brain: Option<String>,
    /// Address of the HTTP API and the page (overrides daemon.listen), e.g. 127.0.0.1:8765.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Do not open audio at all: typed turns only.
    #[arg(long)]
    pub no_audio: bool,
    /// Play a WAV file as the microphone (in real time) instead of the capture device.
    #[arg(long, value_name = "FILE", conflicts_with = "no_audio")]
    pub wav: Option<PathBuf>,
    /// The robot bridge (rosbridge WebSocket URL); without it actions execute in the twin.
    #[arg(long, value_name = "URL")]
    pub robot: Option<String>,
    /// Canned responses for the scripted brain.
    #[arg(long)]
    pub responses: Option<PathBuf>,
    /// OpenAI-compatible base URL (overrides llm.base_url).
    #[arg(long)]
    pub llm_url: Option<String>,
    /// Model name (overrides llm.model).
    #[arg(long)]
    pub model: Option<String>,
}

/// Arguments of `attentive config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: ConfigCommand,
}

/// Configuration subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration (no secrets).
    Show,
}
