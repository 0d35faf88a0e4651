//! The character agent: prompt assembly, tools, the LLM loop, flow checks,
//! name grounding, guards and history.

pub mod character;
pub mod episode;
pub mod local_first;
pub mod remembering;
pub mod situation;
pub mod statement;
pub mod tools;
pub mod turn;
pub mod voice;

/// Name grounding lives in the twin (the understanding stage uses it too).
pub use crate::twin::grounding;

pub use character::Character;
pub use episode::{Agent, EndReason, EventSink, TurnReport};
pub use turn::Turn;
pub use voice::Mouth;
