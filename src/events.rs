//! The event log: one JSON object per line (`--json`), the contract that
//! outside tests read (DESIGN.md, "JSON events").

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// One thing that happened, as printed with `--json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A human turn entered the agent.
    Turn {
        speaker: String,
        listener: String,
        text: String,
        /// How the speaker was found (spoken turns: direction, elimination,
        /// named, answer, config, unknown; `corrected` after a correction).
        #[serde(skip_serializing_if = "Option::is_none")]
        speaker_by: Option<String>,
    },
    /// A person corrected who said an earlier turn (one click on the page);
    /// the turn goes to the agent again as said by `speaker`.
    SpeakerCorrected {
        turn_seq: u64,
        speaker: String,
        was: String,
    },
    /// What the understanding stage read in a turn: the act, its slots, and
    /// the template or rule that matched.
    Understood {
        act: String,
        slots: Value,
        matched: String,
        heard: String,
        /// Words of a spoken turn put right toward the table before reading.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        corrected: Vec<crate::understanding::hearing::Correction>,
        /// The listener, where a second hearing taken names another than the
        /// turn's ("Hello, robot." heard the second time for "Hello, girl boy.").
        #[serde(skip_serializing_if = "Option::is_none", default)]
        listener: Option<String>,
        /// Local first (`--brain hybrid`): which brain took the turn, `local` or `llm`.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        path: Option<String>,
        /// Why the turn took that path.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        why: Option<String>,
    },
    /// The situation note the LLM read with a turn (`agent.situation = "facts"`):
    /// what was understood, and the twin's answers about it.
    Situation { text: String },
    /// Memory was erased on request; the event names no content, only counts.
    MemoryErased {
        facts: usize,
        episodes: usize,
        failures: usize,
    },
    /// A new session began: empty dialogue history, the table reset, memory kept.
    SessionStart,
    /// The agent called a tool.
    ToolCall {
        name: String,
        args: Value,
        ok: bool,
        result: String,
    },
    /// The robot spoke.
    Speech { to: String, text: String },
    /// The robot acted physically (or tried to).
    Action {
        name: String,
        args: Value,
        ok: bool,
        detail: String,
    },
    /// A flow check or guard fired.
    Warning { kind: String, detail: String },
    /// The agent finished a turn.
    EpisodeEnd { reason: String, llm_calls: u32 },
    /// A person stopped speaking; the robot is listening (before recognition).
    Listening { speaker: String },
    /// The current episode was interrupted (`kind`: stop, pause) or resumed.
    Interrupted { by: String, kind: String },
    /// The robot's speech was played aloud; `ms` is its length.
    Voice { text: String, ms: u64 },
    /// The robot bridge's status: connected, disconnected, stale, simulated.
    Robot { status: String, detail: String },
    /// The twin's state.
    State {
        objects: BTreeMap<String, ObjectState>,
        persons: BTreeMap<String, PersonState>,
    },
    /// Where the robot's parts are while they move: live only (SSE), at most
    /// `daemon.joints_hz` per second, never written to the event log.
    Joints {
        /// Each arm by side (`left`, `right`): joints and the twin's link frames.
        arms: BTreeMap<String, ArmPose>,
        /// How closed each hand is (0 open, 1 closed), by side.
        grippers: BTreeMap<String, f32>,
        /// The object in a hand and its base centre.
        carried: Option<Carried>,
        /// Whether a part is moving.
        moving: bool,
        /// The planned path of the moving hand (world, metres); empty at rest.
        path: Vec<[f32; 3]>,
    },
}

/// One arm in a `joints` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArmPose {
    /// Joint angles (rad), the twin's convention.
    pub q: Vec<f32>,
    /// The link frames' origins in world (metres), base to hand.
    pub frames: Vec<[f32; 3]>,
}

/// The carried object in a `joints` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Carried {
    /// Its name.
    pub object: String,
    /// Its base centre in world (metres).
    pub position: [f32; 3],
}

/// An object in a `state` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObjectState {
    /// Base centre in world, metres.
    pub position: [f32; 3],
    /// Who holds it: a person's name, or `the_robot` while in a gripper.
    pub held_by: Option<String>,
    /// The liquid it holds.
    pub contains: Option<String>,
    /// What was added to that liquid ("milk" in coffee); left out when nothing was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<String>,
    /// Which robot arms reach it.
    pub reachable_by: Vec<String>,
}

/// A person in a `state` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PersonState {
    /// What they hold.
    pub holding: Vec<String>,
    /// Whether they are busy.
    pub busy: bool,
}

impl Event {
    /// The event as one line of JSON.
    pub fn to_json_line(&self) -> String {
        // Serialising these plain types cannot fail; fall back to a warning line anyway.
        serde_json::to_string(self).unwrap_or_else(|error| {
            format!(r#"{{"type":"warning","kind":"serialize","detail":"{error}"}}"#)
        })
    }
}
