//! The robot's voice (DESIGN.md, "The daemon"): speech engines behind one
//! trait, playback with rodio, the [`Voice`] that the agent speaks through,
//! and the half-duplex gate and barge-in detector of the microphone.
//!
//! ```text
//! agent speak --Mouth::say--> Voice queue --SpeechEngine--> Pcm --Playback (rodio)--> loudspeaker
//!                                  |                                   |
//!                          Event::Warning (engine failed)     Event::Voice (played), MicGate closed
//! ```

pub mod engine;
pub mod openai;
pub mod pcm;
pub mod piper;
pub mod playback;
pub mod settings;
pub mod speech;
pub mod turn_taking;
pub mod wyoming;

pub use engine::{SpeechEngine, SynthFuture};
pub use pcm::Pcm;
pub use piper::PiperSpeech;
pub use playback::{Playback, Playing, Stopper, VirtualOutput};
pub use settings::{EngineKind, VoiceSettings};
pub use speech::Voice;
pub use turn_taking::{BargeIn, MicGate};

/// Why the voice could not speak; every message is one sentence a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum VoiceError {
    /// The engine's program is not installed.
    #[error(
        "the {engine} speech engine cannot run: the program {program:?} was not found ({hint})"
    )]
    MissingProgram {
        /// The engine.
        engine: &'static str,
        /// The program that was looked for.
        program: String,
        /// What to do.
        hint: String,
    },
    /// Something the engine needs besides its program is missing (a package, a voice).
    #[error("the {engine} speech engine cannot run: {detail}")]
    NotInstalled {
        /// The engine.
        engine: &'static str,
        /// What is missing and what to install, as one sentence.
        detail: String,
    },
    /// The engine's server could not be reached.
    #[error("the {engine} speech server at {address} cannot be reached: {detail}")]
    Unreachable {
        /// The engine.
        engine: &'static str,
        /// Where it was looked for.
        address: String,
        /// The cause.
        detail: String,
    },
    /// The engine answered, but not with usable audio.
    #[error("the {engine} speech engine returned audio that {detail}")]
    BadAudio {
        /// The engine.
        engine: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// The engine ran and failed.
    #[error("the {engine} speech engine failed: {detail}")]
    Engine {
        /// The engine.
        engine: &'static str,
        /// What went wrong.
        detail: String,
    },
    /// The engine took longer than `voice.timeout_s`.
    #[error("the {engine} speech engine took longer than {seconds} s (voice.timeout_s)")]
    Timeout {
        /// The engine.
        engine: &'static str,
        /// The bound.
        seconds: f64,
    },
    /// The speech was hushed before it was ready.
    #[error("the speech was cancelled")]
    Cancelled,
    /// The output device is missing or refused the stream.
    #[error("audio output: {0}")]
    Device(String),
    /// The `[voice]` configuration cannot work.
    #[error("{0}")]
    Config(String),
}
