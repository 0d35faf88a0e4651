//! Turns: the front end's output, as the contract's `turn` event.

use serde::Serialize;

/// One utterance attributed to a speaker and a listener.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Turn {
    /// Always `"turn"` (the contract's event type).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Who spoke (`unknown` when unresolved).
    pub speaker: String,
    /// How the speaker was found: direction, elimination, named, answer, config, unknown.
    pub speaker_by: super::SpeakerBy,
    /// Who was addressed (`All` when nobody in particular).
    pub listener: String,
    /// What was said.
    pub text: String,
    /// Start of speech, seconds from the start of the stream.
    pub start_s: f64,
    /// End of speech, seconds from the start of the stream.
    pub end_s: f64,
    /// Direction of arrival in degrees in the robot frame (0 = ahead, + = left), if measured.
    pub doa_deg: Option<f32>,
    /// Recogniser confidence: mean token probability, 0..1.
    pub confidence: f32,
    /// The recogniser's own text, when a misheard name in it was put right.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heard: Option<String>,
    /// Other texts the recogniser heard in the same audio (a second hearing
    /// with the table's things in the prompt), for the understanding stage to choose.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
    /// The listener each of `alternatives` names (its own vocative, else the
    /// gaze), in the same order: a name heard right only the second time
    /// ("Hello, robot." for "Hello, girl boy.") decides when that text is taken.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternative_listeners: Vec<String>,
    /// How long the recogniser took for it, ms.
    pub recognition_ms: f64,
    /// The turn ended at a short pause because its words were complete
    /// (`audio.vad.early_end_ms`), not after the end-of-turn silence.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub early: bool,
    /// It began within the end-of-turn silence after a turn that ended early:
    /// the same person going on, so it has that turn's speaker and listener
    /// ("Daniel, could you pass me the cola?" / "I can't reach it from here.").
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub continues: bool,
}

impl Turn {
    /// A turn event.
    pub fn new(speaker: String, listener: String, text: String) -> Self {
        Self {
            kind: "turn",
            speaker,
            speaker_by: super::SpeakerBy::Unknown,
            listener,
            text,
            start_s: 0.0,
            end_s: 0.0,
            doa_deg: None,
            confidence: 0.0,
            heard: None,
            alternatives: Vec::new(),
            alternative_listeners: Vec::new(),
            recognition_ms: 0.0,
            early: false,
            continues: false,
        }
    }
}

impl std::fmt::Display for Turn {
    /// `Felix said to Daniel: ...`, the form the simulator reads too.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} said to {}: {}",
            self.speaker, self.listener, self.text
        )
    }
}
