//! The spoken evaluation: every turn's words synthesised with a voice of the
//! speaker's own, placed in a room, and heard through the real front end (VAD,
//! whisper, listener from the vocative) before the brain gets them.

pub mod cache;
pub mod hear;
pub mod room;
pub mod score;
pub mod summary;
pub mod voices;

use std::path::PathBuf;

pub use cache::AudioCache;
pub use hear::{hear_episodes, HeardPart, HeardTurn};
pub use room::Room;
pub use score::HearingScore;
pub use summary::SpokenSummary;
pub use voices::VoiceCast;

/// Why a spoken evaluation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SpokenError {
    /// The voice engine is missing, misconfigured or failed.
    #[error("voice: {0}")]
    Voice(String),
    /// The recogniser or the front end failed.
    #[error("hearing: {0}")]
    Hearing(#[from] crate::frontend::FrontendError),
    /// The run's setup is not usable.
    #[error("{0}")]
    Setup(String),
}

/// How the turns are spoken and heard.
#[derive(Debug, Clone)]
pub struct SpokenOptions {
    /// The voice engine (`None`: the configured voice).
    pub voice: Option<String>,
    /// The room.
    pub room: Room,
    /// Seed of the room's noise, reverb and second talker.
    pub seed: u64,
    /// Find the speaker as with one microphone (attribution) instead of from the script.
    pub one_mic: bool,
    /// Where audio is kept between runs (`None`: nowhere).
    pub cache: Option<PathBuf>,
    /// The front end's settings (VAD, recogniser).
    pub audio: crate::frontend::AudioSettings,
    /// The voice settings the engines come from.
    pub voice_settings: crate::voice::VoiceSettings,
    /// The language's sentences: a turn whose words they read completely ends
    /// at a short pause, as in the daemon (`audio.vad.early_end_ms`).
    pub understanding: crate::understanding::Understanding,
}
