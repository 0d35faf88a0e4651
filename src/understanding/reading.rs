//! The typed reading of one turn: the speech act and its slots.

use serde::{Deserialize, Serialize};

/// What a turn does, as the understanding stage reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    /// Hand an object to someone (the speaker unless another recipient is named).
    Give,
    /// Move an object on the table to someone ("put the milk in front of Daniel").
    MoveTo,
    /// Move an object away from someone ("take the bottle away from me").
    MoveAway,
    /// Pour a drink into someone's glass.
    Pour,
    /// The same drink as before, but a variant (the `filter` slot says which).
    PourSame,
    /// What is there (to drink, on the table ...), maybe with a filter.
    AskInventory,
    /// Whether there is a particular thing ("do we have any fanta?").
    AskHave,
    /// Where an object is.
    AskWhere,
    /// Who has an object.
    AskWhoHas,
    /// Whether someone (or the robot) can see or reach an object.
    AskAbility,
    /// What a container holds.
    AskContents,
    /// How many there are of a kind ("how many glasses do we have?").
    AskCount,
    /// A claim about what there is ("we only have fanta", "there is cola and fanta").
    StateInventory,
    /// A claim that something is gone ("there is no beer left", "we are out of milk").
    StateAbsent,
    /// A claim about what a container holds ("both glasses are full").
    StateContents,
    /// A claim about how many there are ("we've got two mugs", "just the one teapot").
    StateCount,
    /// A claim about which one a thing is ("the glass in front of you is the red one").
    StateWhich,
    /// A claim about who can reach or see a thing ("Daniel can't reach the
    /// fanta from there"): `person`, `object`, `ability`, `negated`.
    StateAbility,
    /// A claim about where a thing is ("the milk is right here by me", "das
    /// Bier steht bei Felix"): `object`, `person`.
    StateLocation,
    /// Whose it is, in reply to the robot's question ("it is for me", "Felix").
    Claim,
    /// Thanks.
    Thanks,
    /// A greeting.
    Greeting,
    /// Goodbye.
    Farewell,
    /// "Who are you?"
    Identity,
    /// "What can you do?", "help".
    Capabilities,
    /// "Don't give me the cola", "no thanks": never an action.
    Refuse,
    /// "Remember that I only drink sugar-free": keep a fact (`fact`, about `person`).
    Remember,
    /// "Forget that" / "forget me" (`fact` = `that` or `everything`).
    Forget,
    /// "What do you remember about me?", "what does Daniel drink?" (about `person`).
    AskMemory,
    /// "Yes" to the robot's question.
    Confirm,
    /// A request that leaves the verb out after one ("me too", "and the apple
    /// for Ana"): read as that request with what it names put in.
    FollowUp,
    /// Nothing matched.
    Unknown,
}

impl Act {
    /// The act's name in the data file and in events.
    pub fn as_str(self) -> &'static str {
        match self {
            Act::Give => "give",
            Act::MoveTo => "move_to",
            Act::MoveAway => "move_away",
            Act::Pour => "pour",
            Act::PourSame => "pour_same",
            Act::AskInventory => "ask_inventory",
            Act::AskHave => "ask_have",
            Act::AskWhere => "ask_where",
            Act::AskWhoHas => "ask_who_has",
            Act::AskAbility => "ask_ability",
            Act::AskContents => "ask_contents",
            Act::AskCount => "ask_count",
            Act::StateInventory => "state_inventory",
            Act::StateAbsent => "state_absent",
            Act::StateContents => "state_contents",
            Act::StateCount => "state_count",
            Act::StateWhich => "state_which",
            Act::StateAbility => "state_ability",
            Act::StateLocation => "state_location",
            Act::Claim => "claim",
            Act::Thanks => "thanks",
            Act::Greeting => "greeting",
            Act::Farewell => "farewell",
            Act::Identity => "identity",
            Act::Capabilities => "capabilities",
            Act::Refuse => "refuse",
            Act::Remember => "remember",
            Act::Forget => "forget",
            Act::AskMemory => "ask_memory",
            Act::Confirm => "confirm",
            Act::FollowUp => "follow_up",
            Act::Unknown => "unknown",
        }
    }

    /// Whether the act is a claim about the table ("there is coffee, milk ..."):
    /// what it lists may go on after a pause.
    pub fn is_statement(self) -> bool {
        matches!(
            self,
            Act::StateInventory
                | Act::StateAbsent
                | Act::StateContents
                | Act::StateCount
                | Act::StateWhich
                | Act::StateAbility
                | Act::StateLocation
        )
    }

    /// Whether the act asks memory to keep, forget or tell something.
    pub fn is_memory(self) -> bool {
        matches!(self, Act::Remember | Act::Forget | Act::AskMemory)
    }

    /// Whether the act is a question about the table.
    pub fn is_question(self) -> bool {
        matches!(
            self,
            Act::AskInventory
                | Act::AskHave
                | Act::AskWhere
                | Act::AskWhoHas
                | Act::AskAbility
                | Act::AskContents
                | Act::AskCount
        )
    }

    /// Whether the act asks for a physical action.
    pub fn is_request(self) -> bool {
        matches!(
            self,
            Act::Give | Act::MoveTo | Act::MoveAway | Act::Pour | Act::PourSame
        )
    }
}

/// An object as the turn mentions it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectMention {
    /// The words as said ("the red glass", "it").
    pub said: String,
    /// The scene objects it can mean: one when resolved, several when
    /// ambiguous, none when the table has nothing like it.
    pub candidates: Vec<String>,
    /// Whose it is, when said with a possessive ("my glass": the speaker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// "it" / "that one": taken from the dialogue.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub referred: bool,
    /// Every scene object the words fit, before the dialogue narrowed them to
    /// the one just named (what a count claim counts).
    #[serde(skip)]
    pub every: Vec<String>,
    /// A word the table does not know, left out to ground the rest ("the regular milk").
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub left_out: Option<String>,
}

impl ObjectMention {
    /// Words that mean exactly one scene object, `name`.
    pub fn only(said: String, name: &str) -> Self {
        ObjectMention {
            said,
            candidates: vec![name.to_string()],
            owner: None,
            referred: false,
            every: vec![name.to_string()],
            left_out: None,
        }
    }

    /// Every object the words fit, before "that one" narrowed them (what a count counts).
    pub fn every_fitting(&self) -> &[String] {
        if self.every.is_empty() {
            &self.candidates
        } else {
            &self.every
        }
    }

    /// The one object meant, when resolved.
    pub fn resolved(&self) -> Option<&str> {
        match self.candidates.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }
}

/// A person as the turn mentions them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonMention {
    /// The words as said ("me", "Daniel", "him").
    pub said: String,
    /// The scene's name of the person, or the robot's name; `None` when the
    /// words cannot be resolved ("him" with nobody else at the table).
    pub name: Option<String>,
}

/// The slots of a reading; only the act's own are set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slots {
    /// The object asked for, asked about or to be moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectMention>,
    /// What to pour from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<ObjectMention>,
    /// What to pour into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<ObjectMention>,
    /// Who gets it (requests) — the speaker unless another was named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recipient: Option<PersonMention>,
    /// Whom a question or a move away is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub person: Option<PersonMention>,
    /// Objects a statement or question names, in order.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub items: Vec<ObjectMention>,
    /// Words of things the table does not have ("lemonade"), from a statement or question.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub unknown_items: Vec<String>,
    /// A word-list value: `drink`, `food`, `all` (what there is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// A word-list value: `sugar_free`, `alcohol_free` ... (what there is, the same but ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// A word-list value: `see` or `reach`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ability: Option<String>,
    /// A word-list value: `full` or `empty` (what a container holds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fill: Option<String>,
    /// What a statement says a container holds, in the scene's words ("oat milk", "tea").
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub liquid: Option<String>,
    /// A word-list value: `elsewhere`, where a location claim puts a thing off
    /// the table ("the highlighters are still in the glovebox").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// A word-list value: how many a count claim says there are ("2").
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub count: Option<String>,
    /// "only": a statement claims to be complete.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub only: bool,
    /// "not": a claim says someone cannot (`state_ability`).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub negated: bool,
    /// A fact to remember, as said; or what to forget (`that`, `everything`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fact: Option<String>,
    /// A request that refers to memory: `usual` or `last_time`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub memory: Option<String>,
}

impl Slots {
    /// The mentions of things: object, source, target and the items listed.
    pub fn things(&self) -> impl Iterator<Item = &ObjectMention> {
        [&self.object, &self.source, &self.target]
            .into_iter()
            .flatten()
            .chain(&self.items)
    }
}

/// The reading of one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading {
    /// The speech act.
    pub act: Act,
    /// Its slots.
    pub slots: Slots,
    /// What matched: `intent: template` from the sentence file, or `none`.
    pub matched: String,
    /// The words the templates saw, after normalising.
    pub heard: String,
    /// Why the reading may not be what was meant; `None` when the stage is sure.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub doubt: Option<Doubt>,
    /// How many words gaps (`*`) of the match skipped: of two gapped readings
    /// of a misheard turn, the one that skips less read more of it.
    #[serde(skip)]
    pub skipped: usize,
}

/// Why a reading is not sure: something a full, grounded template match
/// would not leave open. A sure reading can be acted on without an LLM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Doubt {
    /// No template matched.
    NotUnderstood,
    /// No template matched, and no word names a thing on the table.
    NothingOnTheTable,
    /// No template matched, and no word asks for anything (no request's verb, no
    /// "could you", no "please"): a remark.
    AsksNothing,
    /// A gap (`*`) of the match skipped a word that names something at the table.
    Gapped {
        /// How many words the gaps skipped.
        skipped: usize,
        /// The first skipped word that names something at the table.
        word: String,
    },
    /// Another part of the turn matched nothing: a sentence naming something at
    /// the table, or a clause beside the one read with a word nobody knows.
    UnreadPart {
        /// That part's words.
        part: String,
    },
    /// The turn names a thing the table does not have.
    Lacking {
        /// The words for it.
        said: String,
    },
    /// A word the table does not know was left out to ground a mention.
    LeftOut {
        /// The word.
        word: String,
    },
    /// A person mentioned is nobody at the table ("him" with nobody else).
    Unresolved {
        /// The words as said.
        said: String,
    },
}

impl Doubt {
    /// The doubt in a few words, for events and reports.
    pub fn describe(&self) -> String {
        match self {
            Doubt::NotUnderstood => "no template matched".into(),
            Doubt::NothingOnTheTable => {
                "no template matched, and nothing on the table is named".into()
            }
            Doubt::AsksNothing => "no template matched, and no word asks for anything".into(),
            Doubt::Gapped { skipped, word } => {
                format!("a gapped match skipped {skipped} words, \"{word}\" among them")
            }
            Doubt::UnreadPart { part } => format!("part of the turn was not read: \"{part}\""),
            Doubt::Lacking { said } => format!("the table has no \"{said}\""),
            Doubt::LeftOut { word } => format!("an unknown word was left out: \"{word}\""),
            Doubt::Unresolved { said } => format!("\"{said}\" is nobody at the table"),
        }
    }
}

/// How `matched` begins for a reading that follows up a request ("follow_up of
/// pour: ...", "follow_up as give: ..."); the template's own act is "follow_up:".
pub(super) const FOLLOWED_UP: &str = "follow_up ";

impl Reading {
    /// Of a claim about which one a thing is: the one described ("the glass
    /// in front of you") and those it is said to be ("the red one"), when both
    /// name things of the table and the described could have been one of them
    /// (a glass said to be a glass, never a glass said to be the fanta).
    pub fn which_one(&self) -> Option<(String, Vec<String>)> {
        let described = self.slots.object.as_ref()?;
        let claimed = self.slots.target.as_ref()?;
        let one = described.resolved()?;
        let comparable = claimed
            .candidates
            .iter()
            .any(|c| described.every_fitting().contains(c));
        (comparable && self.act == Act::StateWhich)
            .then(|| (one.to_string(), claimed.candidates.clone()))
    }

    /// Whether the turn had no words but fillers and politeness ("please"
    /// heard on its own after a pause, "um"): nothing was asked or said.
    pub fn said_nothing(&self) -> bool {
        self.act == Act::Unknown && self.heard.split('|').all(|part| part.trim().is_empty())
    }

    /// A turn nothing understood.
    pub fn unknown(heard: String) -> Self {
        Self {
            act: Act::Unknown,
            slots: Slots::default(),
            matched: "none".into(),
            heard,
            doubt: Some(Doubt::NotUnderstood),
            skipped: 0,
        }
    }

    /// Whether the reading follows up a request before it ("and the soda": its
    /// act and slots come from that request).
    pub fn follows_up(&self) -> bool {
        self.matched.starts_with(FOLLOWED_UP)
    }

    /// What "it" means after this reading: the glass just filled, else the
    /// object the reading is about, when resolved.
    pub fn referent(&self) -> Option<&str> {
        let filled = matches!(self.act, Act::Pour | Act::PourSame)
            .then(|| self.slots.target.as_ref().and_then(ObjectMention::resolved))
            .flatten();
        filled.or_else(|| self.main_object().and_then(ObjectMention::resolved))
    }

    /// The object the reading is mainly about, if any.
    pub fn main_object(&self) -> Option<&ObjectMention> {
        self.slots
            .object
            .as_ref()
            .or(self.slots.source.as_ref())
            .or(self.slots.items.first())
    }
}
