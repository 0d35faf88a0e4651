//! The rows of the store, typed.

use serde::{Deserialize, Serialize};

/// Who may hear a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Used when acting for that person, never said to anyone else.
    #[serde(rename = "self")]
    OnlyForActing,
    /// May be said at the table (it was said to everyone).
    Table,
}

impl Visibility {
    /// The stored word.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::OnlyForActing => "self",
            Visibility::Table => "table",
        }
    }

    /// From the stored word (anything unknown is the safe choice).
    pub fn parse(word: &str) -> Self {
        match word {
            "table" => Visibility::Table,
            _ => Visibility::OnlyForActing,
        }
    }
}

/// A fact to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewFact {
    /// Whom it is about.
    pub person: String,
    /// Its topic; a newer fact on the same topic supersedes the older.
    pub topic: String,
    /// The fact, in the words the agent stored.
    pub text: String,
    /// Who said it (the person themselves, or someone else: hearsay).
    pub said_by: String,
    /// To whom it was said (`the_robot`, a person, `All`).
    pub said_to: String,
    /// Who may hear it.
    pub visibility: Visibility,
    /// When it was said (seconds since the epoch).
    pub at: i64,
}

/// A stored fact.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fact {
    /// Its id (for `forget --fact ID`).
    pub id: i64,
    /// Whom it is about.
    pub person: String,
    /// Its topic.
    pub topic: String,
    /// The fact.
    pub text: String,
    /// Who said it.
    pub said_by: String,
    /// To whom.
    pub said_to: String,
    /// When (seconds since the epoch).
    pub at: i64,
    /// The newer fact that replaced it, if any.
    pub superseded_by: Option<i64>,
    /// Who may hear it.
    pub visibility: Visibility,
    /// Said by the person themselves (else hearsay).
    pub confirmed: bool,
}

impl Fact {
    /// Whether it still holds (not superseded).
    pub fn current(&self) -> bool {
        self.superseded_by.is_none()
    }

    /// "Felix said on 2026-11-20: ..." or "Daniel said about Felix on ...: ...".
    pub fn sentence(&self) -> String {
        let day = super::day(self.at);
        if self.confirmed {
            format!("{} said on {day}: {}", self.person, self.text)
        } else {
            format!(
                "{} said about {} on {day} (not confirmed by {}): {}",
                self.said_by, self.person, self.person, self.text
            )
        }
    }
}

/// What storing a fact did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Remembered {
    /// The stored fact.
    pub fact: Fact,
    /// The facts it superseded.
    pub superseded: Vec<Fact>,
    /// A fact of the person's own on the topic that this hearsay does not override.
    pub kept_own: Option<Fact>,
}

/// One episode: a turn the robot acted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    /// Its id (0 before it is stored).
    pub id: i64,
    /// When it ended.
    pub at: i64,
    /// The scene.
    pub scene: String,
    /// The people at the table.
    pub present: Vec<String>,
    /// Who asked, when known.
    pub requester: Option<String>,
    /// What was said.
    pub asked: String,
    /// What the robot did, one sentence each ("handed red_glass to Daniel").
    pub done: Vec<String>,
    /// The objects it acted on.
    pub objects: Vec<String>,
    /// `done`, `failed`, `interrupted`, ...
    pub outcome: String,
}

/// One failed action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Its id (0 before it is stored).
    pub id: i64,
    /// When.
    pub at: i64,
    /// The action tool.
    pub tool: String,
    /// The cause's key: the twin's (`out_of_reach`, `collision`) or the robot's (`aborted`, `rejected`).
    pub cause: String,
    /// The object.
    pub object: String,
    /// Its kind (glass, bottle ...).
    pub object_kind: String,
    /// The arm that failed, when known.
    pub arm: Option<String>,
    /// The grasp, when known.
    pub grasp: Option<String>,
    /// What was said that led to it.
    pub request: String,
    /// For whom.
    pub person: Option<String>,
    /// What resolved it later (e.g. "the left arm"), when something did.
    pub fix: Option<String>,
    /// How often its fix was suggested.
    pub offered: i64,
    /// How often the action then succeeded.
    pub helped: i64,
}

/// What an erasure removed: the texts (for redacting logs) and the counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Erased {
    /// Facts removed.
    pub facts: usize,
    /// Episodes removed.
    pub episodes: usize,
    /// Failures removed.
    pub failures: usize,
    /// The person row removed.
    pub person: bool,
    /// Texts that must not survive elsewhere (event log, recordings).
    #[serde(skip)]
    pub texts: Vec<String>,
}
