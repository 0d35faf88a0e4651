//! The character agent: prompt assembly, tools, the LLM loop, flow checks,
//! name grounding, guards and history.

pub mod grounding;
pub mod tools;
