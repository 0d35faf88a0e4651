//! The robot's own sentences as data (`speech.toml` of a language): each a
//! template with named slots, `"We have {drinks} to drink."`. The sentences the
//! code says, and the slots each may use, are listed here once, so that a
//! language file that lacks one, misspells one or uses a slot the code does not
//! fill is refused when it loads, with its file, line and reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::things::{self, ThingWords, CLOSE, NOUN, THING, THING_CAPITAL};

/// Slot values for one sentence: `[("drinks", "cola and fanta")]`.
pub type Slots<'a> = [(&'a str, &'a str)];

/// Every sentence the code says: `section.key` and the slots it fills.
const SENTENCES: &[(&str, &[&str])] = &[
    // How lists, numbers and things are said.
    ("words.and", &[]),
    ("words.or", &[]),
    ("words.list_comma", &[]),
    ("words.numbers", &[]),
    ("words.articles", &[]),
    ("names.object", &["name"]),
    ("names.with_contents", &["object", "liquid"]),
    ("names.drink_with", &["drink", "added"]),
    ("names.example", &[]),
    ("names.unknown_thing", &[]),
    ("names.you", &[]),
    ("names.something", &["filter"]),
    // Answers to questions about the table.
    ("answer.drinks", &["drinks"]),
    ("answer.nothing_fitting", &["filter", "drinks"]),
    ("answer.fitting", &["filter", "drinks"]),
    ("answer.nothing_to_eat", &["drinks"]),
    ("answer.on_the_table", &["things"]),
    ("answer.have_contents", &["liquid", "object"]),
    ("answer.which_hold", &["liquid", "objects"]),
    ("answer.none_hold", &["liquid"]),
    ("answer.have_object", &["object"]),
    ("answer.have_not", &["thing", "drinks"]),
    ("answer.holder_has", &["person", "object"]),
    ("answer.on_the_table_pointing", &["object", "place"]),
    ("answer.where_in_reach", &["object", "place"]),
    ("answer.where_out_of_reach", &["object", "place"]),
    (
        "answer.where_hidden_in_reach",
        &["object", "place", "occluder"],
    ),
    (
        "answer.where_hidden_out_of_reach",
        &["object", "place", "occluder"],
    ),
    ("answer.place_table", &[]),
    ("answer.place_before", &["person"]),
    ("answer.place_before_you", &[]),
    ("answer.nobody_holds", &["object"]),
    ("answer.nobody_holds_by", &["object", "person"]),
    ("answer.nobody_holds_by_you", &["object"]),
    ("answer.robot_sees", &["object"]),
    ("answer.robot_reaches", &["object"]),
    ("answer.robot_cannot_reach", &["reason"]),
    ("answer.person_sees", &["person", "object"]),
    (
        "answer.person_cannot_see",
        &["person", "object", "occluder"],
    ),
    ("answer.person_reaches", &["person", "object"]),
    ("answer.person_cannot_reach", &["person", "object"]),
    ("answer.contains", &["object", "liquid"]),
    ("answer.empty", &["object"]),
    ("answer.holds_nothing", &["object"]),
    ("answer.what_it_is", &["object", "property", "kind"]),
    ("answer.which_one", &["choices"]),
    ("answer.unknown_object", &["thing", "things"]),
    ("answer.right", &[]),
    ("answer.right_holds", &["parts"]),
    // Statements the twin contradicts.
    ("correct.interrupt", &["corrections"]),
    ("correct.no_such", &["things"]),
    ("correct.also", &["things"]),
    ("correct.still_in", &["liquid", "object"]),
    ("correct.still_here", &["object"]),
    ("correct.all_still_here", &["objects"]),
    ("correct.agreed_absent", &["thing"]),
    ("correct.is_empty", &["objects"]),
    ("correct.are_empty", &["objects"]),
    ("correct.liquid_in", &["liquid", "object"]),
    ("correct.still", &["parts"]),
    ("correct.not_filter", &["object", "filter"]),
    ("correct.is_filter", &["object", "filter"]),
    ("correct.holds", &["parts"]),
    ("correct.nothing_in", &["object"]),
    ("correct.none_of", &["thing"]),
    ("correct.only_one", &["object"]),
    ("correct.several", &["number", "objects"]),
    ("correct.is_another", &["object", "claimed"]),
    ("correct.there_is_fitting", &["drinks", "filter"]),
    ("answer.count_none", &["thing"]),
    ("answer.count_one", &["object"]),
    ("answer.count_several", &["number", "objects"]),
    ("correct.can_reach", &["person", "object", "occluder"]),
    ("correct.cannot_reach", &["person", "object", "occluder"]),
    ("correct.can_see", &["person", "object", "occluder"]),
    ("correct.cannot_see", &["person", "object", "occluder"]),
    ("correct.location_by", &["person", "object"]),
    ("correct.location_held", &["person", "object"]),
    // Help: why the listener is hindered, what the robot will do, why it cannot.
    ("help.reason_busy", &[]),
    ("help.reason_cannot_see", &["object", "occluder"]),
    ("help.reason_cannot_reach", &["object"]),
    ("help.reason_cannot_reach_it", &[]),
    ("help.hindered", &["person", "reasons"]),
    ("help.you_asked", &[]),
    ("help.so_i_will", &["why", "offer"]),
    ("help.offer_give_you", &["object"]),
    ("help.offer_give", &["object", "recipient"]),
    ("help.offer_move_to", &["object", "whom"]),
    ("help.offer_move_away", &["object"]),
    ("help.offer_pour", &["whom", "liquid"]),
    ("help.offer_pour_from", &["whom", "object"]),
    ("help.offer_fill", &["liquid", "whom"]),
    ("help.offer_fill_from", &["whom", "object"]),
    ("help.offer_after_clearing", &["things", "offer"]),
    ("help.cannot_reach_either", &["why", "reason"]),
    ("help.cannot", &["reason"]),
    // Why the robot cannot take a thing, said in the language (the tools answer in English).
    ("robot_reason.too_large", &["object"]),
    ("robot_reason.held_by", &["object", "person"]),
    ("robot_reason.out_of_reach", &["object"]),
    ("robot_reason.blocked", &["object", "things"]),
    // Why an action failed (the planner answers in English), said in the language.
    ("action_reason.in_the_way", &["object"]),
    ("action_reason.person_in_the_way", &["person"]),
    ("action_reason.table_in_the_way", &[]),
    ("action_reason.arms_in_the_way", &[]),
    ("action_reason.out_of_reach", &[]),
    ("action_reason.joint_limit", &[]),
    ("action_reason.no_handover_point", &["person"]),
    ("action_reason.no_spot", &[]),
    ("action_reason.hands_full", &["person"]),
    ("action_reason.person_in_the_way_you", &[]),
    ("action_reason.hands_full_you", &[]),
    ("action_reason.no_handover_point_you", &[]),
    ("action_reason.already_has_you", &["object"]),
    ("action_reason.you_hold", &["object"]),
    ("action_reason.already_has", &["person", "object"]),
    ("action_reason.already_in_hand", &["object"]),
    ("action_reason.already_full", &["object", "liquid"]),
    ("action_reason.empty", &["object"]),
    ("action_reason.not_a_container", &["object"]),
    ("action_reason.cannot_pour_from", &["object"]),
    ("help.cannot_help", &["reason"]),
    ("help.which_drink", &["drinks"]),
    ("help.no_such", &["thing", "things"]),
    ("help.who_would_like", &["object"]),
    ("help.for_whom", &[]),
    // Memory.
    ("memory.off_remember", &[]),
    ("memory.off_forget", &[]),
    ("memory.off_recall", &[]),
    ("memory.hearsay", &["about"]),
    ("memory.will_remember", &["fact", "person"]),
    ("memory.fact_in_cup", &["fact", "cup"]),
    ("memory.confirm_forget", &["person"]),
    ("memory.forgot_everything", &["person"]),
    ("memory.forgot_that", &[]),
    ("memory.nothing_to_forget", &[]),
    ("memory.nothing_about_you", &[]),
    ("memory.nothing_about", &["about"]),
    ("memory.nothing_asked", &[]),
    ("memory.you_told_me", &["facts"]),
    ("memory.last_time", &["deed"]),
    ("memory.told_me_about_you", &["person", "facts"]),
    ("memory.deed_handed", &["object", "person"]),
    ("memory.deed_moved", &["object", "person"]),
    ("memory.deed_moved_away", &["object", "person"]),
    ("memory.deed_poured", &["source", "target"]),
    ("memory.told_everyone", &["about", "facts"]),
    ("memory.ruled_out", &["person", "object"]),
    ("memory.withheld", &["about"]),
    // Social talk and talk about the robot itself.
    ("social.thanks", &[]),
    ("social.greeting", &["robot"]),
    ("social.greeting_unnamed", &[]),
    ("social.farewell", &[]),
    ("social.identity", &["robot"]),
    ("social.identity_unnamed", &[]),
    ("social.capabilities", &["example"]),
    ("social.declined", &[]),
    ("social.not_understood", &["example"]),
    // The situation note for the LLM (ids, not spoken names).
    ("note.someone", &[]),
    ("note.everyone", &[]),
    ("note.you", &[]),
    ("note.something", &[]),
    ("note.asks", &["speaker", "listener", "what"]),
    ("note.for", &["object"]),
    ("note.give_to", &["object", "person"]),
    ("note.move_to", &["object", "person"]),
    ("note.move_away", &["object", "person"]),
    ("note.pour", &["source", "target"]),
    ("note.pour_same", &["target"]),
    ("note.where", &["object"]),
    ("note.who_has", &["object"]),
    ("note.contents", &["object"]),
    ("note.have", &["object"]),
    ("note.inventory", &[]),
    ("note.said", &["said"]),
    ("note.said_candidates", &["said", "candidates"]),
    ("note.unclear", &["said", "candidates"]),
    ("note.between_people", &["speaker", "person"]),
    ("note.busy", &[]),
    ("note.cannot_see", &[]),
    ("note.cannot_reach", &[]),
    ("note.nothing_needed", &["person"]),
    ("note.help_because", &["speaker", "why", "action"]),
    ("note.cannot_either", &["speaker", "why", "robot"]),
    ("note.will_do", &["speaker", "action"]),
    ("note.cannot", &["speaker"]),
    ("note.statement_wrong", &["speaker", "claim", "fact"]),
    ("note.statement_right", &["speaker", "claim"]),
    ("note.claim_nothing", &["filter"]),
    ("note.claim_none", &["thing"]),
    ("note.claim_there_is", &["things"]),
    ("note.claim_only", &["things"]),
    ("note.claim_full", &["object"]),
    ("note.claim_empty", &["object"]),
    ("note.claim_filter", &["object", "filter"]),
    ("note.claim_not_filter", &["object", "filter"]),
    ("note.claim_holds", &["object", "liquid"]),
    ("note.claim_holds_none", &["object", "liquid"]),
    ("note.claim_count", &["number", "thing"]),
    ("note.claim_which", &["object", "claimed"]),
    ("note.claim_reaches", &["person", "object"]),
    ("note.claim_cannot_reach", &["person", "object"]),
    ("note.claim_by", &["person", "object"]),
    ("note.claim_held", &["person", "object"]),
    ("note.claim_sees", &["person", "object"]),
    ("note.claim_cannot_see", &["person", "object"]),
    ("note.is_another", &[]),
    ("note.table_lacks", &["thing"]),
    ("note.and_no", &[]),
    ("note.table_has", &["number", "objects"]),
    ("note.also", &["things"]),
    ("note.holds", &["object", "liquid"]),
    ("note.is_here", &["object"]),
    ("note.is_empty", &["object"]),
];

/// Why the robot's sentences cannot be used; names the file, the line and the reason.
#[derive(Debug, thiserror::Error)]
pub enum PhrasebookError {
    /// The file cannot be read.
    #[error("cannot read the robot's sentences {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not TOML of sections of sentences (the message has line and column).
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The TOML library's message.
        message: String,
    },
    /// A sentence is missing, unknown, or uses a slot the code does not fill.
    #[error("{path}:{line}: [{section}] {key}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line (1-based; 0 when the sentence is missing).
        line: usize,
        /// The section.
        section: String,
        /// The sentence's key.
        key: String,
        /// Why.
        reason: String,
    },
}

/// The robot's sentences of one language, checked against what the code says.
#[derive(Debug, Clone)]
pub struct Phrasebook {
    sentences: BTreeMap<String, String>,
    numbers: Vec<String>,
    things: ThingWords,
    perspective: BTreeMap<String, String>,
    /// Sentences as said to someone addressed formally (German "Sie"), by `section.key`.
    formal: BTreeMap<String, String>,
}

impl Phrasebook {
    /// Loads and checks a language's `speech.toml`.
    pub fn load(path: &Path) -> Result<Self, PhrasebookError> {
        let text = std::fs::read_to_string(path).map_err(|source| PhrasebookError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses and checks the text of a `speech.toml`.
    pub fn parse(text: &str, path: &Path) -> Result<Self, PhrasebookError> {
        let parse_error = |e: toml::de::Error| PhrasebookError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let mut file: toml::Table = toml::from_str(text).map_err(parse_error)?;
        let things: ThingWords = match file.remove("things") {
            Some(table) => table.try_into().map_err(parse_error)?,
            None => ThingWords::default(),
        };
        let perspective: BTreeMap<String, String> = match file.remove("perspective") {
            Some(table) => table.try_into().map_err(parse_error)?,
            None => BTreeMap::new(),
        };
        let formal: BTreeMap<String, String> = match file.remove("formal") {
            Some(table) => table.try_into().map_err(parse_error)?,
            None => BTreeMap::new(),
        };
        let file: BTreeMap<String, BTreeMap<String, String>> =
            toml::Value::Table(file).try_into().map_err(parse_error)?;
        let invalid = |section: &str, key: &str, reason: String| PhrasebookError::Invalid {
            path: path.to_path_buf(),
            line: line_of(text, section, key),
            section: section.to_string(),
            key: key.to_string(),
            reason,
        };
        let mut sentences = BTreeMap::new();
        for (section, keys) in &file {
            for (key, template) in keys {
                let full = format!("{section}.{key}");
                checked(&full, template).map_err(|reason| invalid(section, key, reason))?;
                sentences.insert(full, template.clone());
            }
        }
        if let Some((full, slots)) = SENTENCES.iter().find(|(k, _)| !sentences.contains_key(*k)) {
            let (section, key) = full.split_once('.').unwrap_or(("", full));
            let reason = match slots {
                [] => "missing".to_string(),
                slots => format!("missing (its slots: {})", slots.join(", ")),
            };
            return Err(invalid(section, key, reason));
        }
        for (full, template) in &formal {
            checked(full, template).map_err(|reason| PhrasebookError::Invalid {
                path: path.to_path_buf(),
                line: line_of(text, "formal", &format!("\"{full}\"")),
                section: "formal".into(),
                key: full.clone(),
                reason,
            })?;
        }
        let numbers = sentences
            .get("words.numbers")
            .map(|n| n.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        Ok(Self {
            sentences,
            numbers,
            things,
            perspective,
            formal,
        })
    }

    /// The sentences as said to someone addressed formally (German "Sie"):
    /// `[formal]` in place of the plain ones; `None` for a language without them.
    pub fn formal(&self) -> Option<Phrasebook> {
        if self.formal.is_empty() {
            return None;
        }
        let mut formal = self.clone();
        formal.sentences.extend(std::mem::take(&mut formal.formal));
        Some(formal)
    }

    /// The sentence `key` (`section.key`) with its slots filled; a slot
    /// written `{object:dat}` says the things in it in that case.
    pub fn say(&self, key: &str, slots: &Slots<'_>) -> String {
        let Some(template) = self.sentences.get(key) else {
            // Every key the code uses is checked at load; this is a missed entry in SENTENCES.
            tracing::error!(key, "a sentence the code says is not in SENTENCES");
            return key.to_string();
        };
        let mut out = String::with_capacity(template.len() + 32);
        let mut rest = template.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                out.push_str(&rest[open..]);
                return out;
            };
            let (name, case) = after[..close]
                .split_once(':')
                .unwrap_or((&after[..close], "nom"));
            if let Some((_, value)) = slots.iter().find(|(n, _)| *n == name) {
                out.push_str(&self.render(value, case));
            }
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// "a, b and c".
    pub fn and_list(&self, items: &[String]) -> String {
        self.list(items, "words.and")
    }

    /// "a, b or c".
    pub fn or_list(&self, items: &[String]) -> String {
        self.list(items, "words.or")
    }

    fn list(&self, items: &[String], last_word: &str) -> String {
        let comma = self.word("words.list_comma");
        match items.split_last() {
            None => String::new(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => {
                format!("{}{}{last}", rest.join(comma), self.word(last_word))
            }
        }
    }

    /// The fixed opening of a sentence, up to its first slot ("Who would like ").
    pub fn opening(&self, key: &str) -> &str {
        let template = self.word(key);
        template.split('{').next().unwrap_or(template)
    }

    /// A word or phrase of the language with no slots (`names.example`).
    pub fn word(&self, key: &str) -> &str {
        self.sentences.get(key).map_or("", String::as_str)
    }

    /// A thing by its id, said as the sentence it goes into asks:
    /// `red_glass` -> "the red glass", "dem roten Glas".
    pub fn object(&self, id: &str) -> String {
        format!("{THING}{id}{CLOSE}")
    }

    /// A thing at the start of a sentence: "The red glass ...".
    pub fn object_first(&self, id: &str) -> String {
        format!("{THING_CAPITAL}{id}{CLOSE}")
    }

    /// A drink or other noun said without an article: "cola", "Kaffee".
    pub fn noun(&self, word: &str) -> String {
        format!("{NOUN}{word}{CLOSE}")
    }

    /// Each of the words as a noun.
    pub fn nouns(&self, words: &[String]) -> Vec<String> {
        words.iter().map(|w| self.noun(w)).collect()
    }

    /// A drink with what was added to it: "coffee with milk"; the drink alone
    /// when nothing was.
    pub fn drink(&self, liquid: &str, added: &[String]) -> String {
        if added.is_empty() {
            return self.noun(liquid);
        }
        let added = self.and_list(&self.nouns(added));
        self.say(
            "names.drink_with",
            &[("drink", &self.noun(liquid)), ("added", &added)],
        )
    }

    /// A container with what it holds: "the red glass with cola".
    pub fn with_contents(&self, id: &str, liquid: &str) -> String {
        self.say(
            "names.with_contents",
            &[("object", &self.object(id)), ("liquid", &self.noun(liquid))],
        )
    }

    /// A slot's value with the things in it said in `case`.
    fn render(&self, value: &str, case: &str) -> String {
        things::render(
            value,
            |id, first| {
                let name = match self.things.inflects() {
                    true => self.things.name(id, case),
                    false => self.say("names.object", &[("name", &id.replace('_', " "))]),
                };
                match first {
                    true => things::capitalised(&name),
                    false => name,
                }
            },
            |noun| match self.things.inflects() {
                true => self.things.bare(noun),
                false => noun.to_string(),
            },
        )
    }

    /// What a person said of themselves, said back to them ([perspective]):
    /// "I only drink sugar-free" -> "you only drink sugar-free".
    pub fn to_listener(&self, said: &str) -> String {
        said.split_whitespace()
            .map(|w| {
                self.perspective
                    .get(&w.to_lowercase())
                    .cloned()
                    .unwrap_or_else(|| w.to_string())
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A number as a word ("two"), or its digits past the language's list.
    pub fn number(&self, n: usize) -> String {
        self.numbers
            .get(n)
            .cloned()
            .unwrap_or_else(|| n.to_string())
    }
}

/// The slot names of a template, in order, without their cases.
/// Why `template` cannot be the sentence `full` (`section.key`): one the robot
/// never says, or a slot the code does not fill.
fn checked(full: &str, template: &str) -> Result<(), String> {
    let Some((_, slots)) = SENTENCES.iter().find(|(k, _)| *k == full) else {
        return Err("not a sentence the robot says".into());
    };
    match slots_of(template).find(|s| !slots.contains(s)) {
        Some(slot) => Err(unknown_slot(slot, slots)),
        None => Ok(()),
    }
}

fn slots_of(template: &str) -> impl Iterator<Item = &str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(name, _)| name))
        .map(|slot| slot.split_once(':').map_or(slot, |(name, _)| name))
}

fn unknown_slot(slot: &str, slots: &[&str]) -> String {
    match slots {
        [] => format!("unknown slot {{{slot}}}: this sentence has no slots"),
        slots => format!(
            "unknown slot {{{slot}}}: use {}",
            slots
                .iter()
                .map(|s| format!("{{{s}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The line of `key =` inside `[section]` (1-based; 0 when not there).
fn line_of(text: &str, section: &str, key: &str) -> usize {
    let header = format!("[{section}]");
    let mut inside = false;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == header;
        } else if inside
            && line
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        {
            return n + 1;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn english() -> Phrasebook {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("languages/en/speech.toml");
        Phrasebook::load(&path).expect("English speech loads")
    }

    #[test]
    fn sentences_fill_their_slots_and_lists_join_as_the_language_does() {
        let speech = english();
        let drinks = speech.and_list(&["cola".into(), "fanta".into(), "water".into()]);
        assert_eq!(drinks, "cola, fanta and water");
        assert_eq!(
            speech.say("answer.drinks", &[("drinks", &drinks)]),
            "We have cola, fanta and water to drink."
        );
        let glass = speech.object("red_glass");
        assert_eq!(
            speech.say(
                "answer.empty",
                &[("object", &speech.object_first("red_glass"))]
            ),
            "The red glass is empty."
        );
        assert_eq!(
            speech.say("answer.robot_sees", &[("object", &glass)]),
            "Yes, I can see the red glass."
        );
        assert_eq!(speech.number(2), "two");
        assert_eq!(speech.number(40), "40");
    }

    #[test]
    fn a_missing_or_misspelt_sentence_is_named_with_file_line_and_reason() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("languages/en/speech.toml");
        let text = std::fs::read_to_string(&path).expect("read");
        let file = Path::new("speech.toml");
        let bad = text.replace("drinks = ", "drinkz = ");
        let error = Phrasebook::parse(&bad, file)
            .expect_err("misspelt")
            .to_string();
        assert!(
            error.starts_with("speech.toml:") && error.contains("[answer] drinkz: not a sentence"),
            "{error}"
        );
        let bad = text.replace("to drink.\"", "to {drunk}.\"");
        let error = Phrasebook::parse(&bad, file)
            .expect_err("bad slot")
            .to_string();
        assert!(error.contains("unknown slot {drunk}"), "{error}");
        let line = error
            .split(':')
            .nth(1)
            .and_then(|l| l.parse::<usize>().ok());
        assert!(line.is_some_and(|l| l > 0), "{error}");
        let bad: String = text
            .lines()
            .filter(|l| !l.starts_with("nothing_to_eat"))
            .map(|l| format!("{l}\n"))
            .collect();
        let error = Phrasebook::parse(&bad, file)
            .expect_err("missing")
            .to_string();
        assert!(
            error.contains("[answer] nothing_to_eat: missing (its slots: drinks)"),
            "{error}"
        );
    }

    #[test]
    fn formal_sentences_replace_the_plain_ones_and_are_checked() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("languages/de/speech.toml");
        let german = Phrasebook::load(&path).expect("German speech loads");
        assert_eq!(
            german.say("help.you_asked", &[]),
            "Du hast mich darum gebeten"
        );
        let formal = german.formal().expect("German has formal sentences");
        assert_eq!(
            formal.say("help.you_asked", &[]),
            "Sie haben mich darum gebeten"
        );
        // A sentence without a formal form stays as it is.
        assert_eq!(
            formal.say("social.thanks", &[]),
            german.say("social.thanks", &[])
        );
        assert!(english().formal().is_none());
        // A formal sentence the robot never says, or with a slot it lacks, is named.
        let text = std::fs::read_to_string(&path).expect("read");
        let file = Path::new("speech.toml");
        let bad = text.replace("\"help.you_asked\" =", "\"help.you_askd\" =");
        let error = Phrasebook::parse(&bad, file)
            .expect_err("misspelt")
            .to_string();
        assert!(
            error.contains("[formal] help.you_askd: not a sentence"),
            "{error}"
        );
        let bad = text.replace("\"Sie haben mich darum gebeten\"", "\"Sie, {person}\"");
        let error = Phrasebook::parse(&bad, file)
            .expect_err("bad slot")
            .to_string();
        assert!(error.contains("unknown slot {person}"), "{error}");
    }
}
