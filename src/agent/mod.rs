//! The character agent: prompt assembly, tools, the LLM loop, flow checks,
//! name grounding, guards and history.

pub mod character;
pub mod episode;
pub mod grounding;
pub mod tools;
pub mod turn;
pub mod voice;

pub use character::Character;
pub use episode::{Agent, EndReason, EventSink, TurnReport};
pub use turn::Turn;
pub use voice::Mouth;
