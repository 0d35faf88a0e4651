//! A human turn: `<speaker> said to <listener>: <text>`, also typed as
//! `<speaker> -> <listener>: <text>`.

use std::fmt;

/// One utterance of the group, as the agent receives it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Turn {
    /// Who spoke.
    pub speaker: String,
    /// Whom they spoke to (a person, the robot, or `All`).
    pub listener: String,
    /// What they said.
    pub text: String,
    /// How the speaker was found, for spoken turns (`speaker_by` in the turn event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker_by: Option<String>,
    /// For spoken turns: other texts the recogniser heard in the same audio,
    /// which the understanding stage may take instead where it reads them better.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
    /// The listener each of `alternatives` names, in the same order (empty:
    /// the turn's listener stands for every alternative).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternative_listeners: Vec<String>,
}

/// Why a line is not a turn; the message is the one-line hint for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    /// No `said to` or `->` form.
    #[error("not a turn: write 'Felix said to Daniel: text' or 'Felix -> Daniel: text'")]
    Form,
    /// A part is empty.
    #[error("the {0} is missing: write 'Felix said to Daniel: text'")]
    Empty(&'static str),
}

/// Between a turn and the situation note after it in the turn's message.
pub const NOTE_SEPARATOR: &str = "\n\nNote from the robot's control system: ";

impl Turn {
    /// The turn in a user message of the dialogue, without the situation note after it.
    pub fn parse_message(content: &str) -> Result<Self, TurnError> {
        Self::parse(content.split(NOTE_SEPARATOR).next().unwrap_or(content))
    }

    /// Parses `Felix said to Daniel: ...` or `Felix -> Daniel: ...`.
    pub fn parse(line: &str) -> Result<Self, TurnError> {
        let (head, text) = line.split_once(':').ok_or(TurnError::Form)?;
        let (speaker, listener) = if let Some((s, l)) = head.split_once("->") {
            (s, l)
        } else {
            let lower = head.to_lowercase();
            let at = lower.find(" said to ").ok_or(TurnError::Form)?;
            (&head[..at], &head[at + " said to ".len()..])
        };
        let (speaker, listener, text) = (speaker.trim(), listener.trim(), text.trim());
        if speaker.is_empty() {
            return Err(TurnError::Empty("speaker"));
        }
        if listener.is_empty() {
            return Err(TurnError::Empty("listener"));
        }
        if text.is_empty() {
            return Err(TurnError::Empty("text"));
        }
        Ok(Self {
            speaker: speaker.to_string(),
            listener: listener.to_string(),
            text: text.to_string(),
            speaker_by: None,
            alternatives: Vec::new(),
            alternative_listeners: Vec::new(),
        })
    }
}

impl Turn {
    /// The turn as the understanding stage reads it.
    pub fn utterance(&self) -> crate::understanding::Utterance<'_> {
        crate::understanding::Utterance {
            speaker: &self.speaker,
            listener: &self.listener,
            text: &self.text,
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} said to {}: {}",
            self.speaker, self.listener, self.text
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms() {
        let a = Turn::parse("Felix said to Daniel: Hey Daniel, what do we have to drink?")
            .expect("turn");
        assert_eq!(
            (a.speaker.as_str(), a.listener.as_str()),
            ("Felix", "Daniel")
        );
        assert_eq!(a.text, "Hey Daniel, what do we have to drink?");
        let b = Turn::parse("Felix -> the_robot: What do you know about mixing coke and fanta?")
            .expect("turn");
        assert_eq!(b.listener, "the_robot");
        assert_eq!(
            b.to_string(),
            "Felix said to the_robot: What do you know about mixing coke and fanta?"
        );
        // A colon inside the text stays in the text.
        let c = Turn::parse("Daniel -> Felix: ratio 1:2").expect("turn");
        assert_eq!(c.text, "ratio 1:2");
    }

    #[test]
    fn malformed_lines_get_a_hint() {
        assert_eq!(Turn::parse("hello there"), Err(TurnError::Form));
        assert_eq!(Turn::parse("Felix said Daniel: hi"), Err(TurnError::Form));
        assert_eq!(
            Turn::parse(" -> Daniel: hi"),
            Err(TurnError::Empty("speaker"))
        );
        assert_eq!(
            Turn::parse("Felix -> Daniel:   "),
            Err(TurnError::Empty("text"))
        );
    }
}
