//! Shared helpers for integration tests: `mod support;` then `use support::fake_llm::...`.
#![allow(dead_code)]

pub mod daemon;
pub mod fake_llm;
pub mod pulse;
