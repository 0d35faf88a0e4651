//! `[memory]` settings.

use serde::{Deserialize, Serialize};

/// What the robot keeps across sessions, and for how long.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemorySettings {
    /// Remember people, facts, episodes and failures in `<state_dir>/memory.db`.
    pub enabled: bool,
    /// Episodes and failures older than this many days are deleted (facts stay until erased).
    pub retention_days: u32,
    /// At most this many facts per person in the block the agent sees.
    pub block_facts_per_person: usize,
}

impl Default for MemorySettings {
    fn default() -> Self {
        Self {
            enabled: true,
            retention_days: 90,
            block_facts_per_person: 3,
        }
    }
}
