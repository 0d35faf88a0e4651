//! `attentive`: attentive support for human-robot group interaction.
//!
//! The modules follow the data flow of DESIGN.md: `frontend` turns audio into
//! turns, `agent` decides with an LLM (`llm`) over the digital twin (`twin`),
//! `voice` speaks and `robot` moves the real arms; `eval` judges dialogues.

pub mod agent;
pub mod alsa_quiet;
pub mod config;
pub mod daemon;
pub mod eval;
pub mod events;
pub mod frontend;
pub mod language;
pub mod llm;
pub mod memory;
pub mod paths;
pub mod phonetic;
pub mod robot;
pub mod twin;
pub mod understanding;
pub mod voice;
pub mod web;
