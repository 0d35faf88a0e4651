//! What a turn asks of the robot's memory, from phrase lists in the sentence
//! file's `[memory]` table: "remember that ...", "forget me", "what do you
//! remember about me", a yes to a question, and requests that refer to
//! memory ("my usual", "the glass I had last time").

use serde::Deserialize;

use crate::twin::grounding::{self, Grounding};
use crate::twin::World;

/// The `[memory]` phrases (already normalised words, as `heard` shows them).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryPhrases {
    /// Before a fact to keep: "remember that", "do not forget".
    #[serde(default)]
    pub remember: Vec<String>,
    /// Asking to be forgotten entirely.
    #[serde(default)]
    pub forget_everything: Vec<String>,
    /// Asking to forget the last fact.
    #[serde(default)]
    pub forget_that: Vec<String>,
    /// Questions about what is remembered; `{person}` stands for a name or "me".
    #[serde(default)]
    pub ask: Vec<String>,
    /// A whole reply that says yes.
    #[serde(default)]
    pub confirm: Vec<String>,
    /// Requests for what the person usually has.
    #[serde(default)]
    pub usual: Vec<String>,
    /// Requests for what they had before.
    #[serde(default)]
    pub last_time: Vec<String>,
    /// Words by which the speakers mean themselves ("me", "mich"): an `ask` about them, or a
    /// fact that starts with them, is about the speaker.
    #[serde(default)]
    pub me: Vec<String>,
    /// Openings of a request before a `remember` phrase ("could you", "please").
    #[serde(default)]
    pub remember_leads: Vec<String>,
    /// Phrases that say a thing asked for is wanted as the person has it
    /// ("the way I like it"): a request's mark, never a request alone.
    #[serde(default)]
    pub as_usual: Vec<String>,
    /// Phrases that end a turn and keep what was said before them ("..., merk dir das").
    #[serde(default)]
    pub remember_after: Vec<String>,
    /// Words that make a remembered fact an aversion ("never", "hate", "kein").
    #[serde(default)]
    pub aversion: Vec<String>,
}

/// What memory is asked for, besides the turn's reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryAsk {
    /// Keep `fact` (the words as said) about `about`.
    Remember { about: String, fact: String },
    /// Forget the speaker entirely (`true`) or the fact stored last.
    Forget { everything: bool },
    /// What is remembered about `about`.
    Ask { about: String },
    /// "Yes" to the robot's question.
    Confirm,
}

fn contains(heard: &str, phrase: &str) -> bool {
    format!(" {heard} ").contains(&format!(" {phrase} "))
}

impl MemoryPhrases {
    /// What the turn asks of memory; `heard` is the normalised text, `said` the original.
    pub fn read(&self, world: &World, speaker: &str, heard: &str, said: &str) -> Option<MemoryAsk> {
        // Every sentence of a yes is a yes ("Yes, I am sure." reads "i am sure | yes | i am sure").
        let parts: Vec<&str> = heard.split(" | ").map(str::trim).collect();
        if parts.iter().all(|part| self.confirms(part)) {
            return Some(MemoryAsk::Confirm);
        }
        let heard = heard.replace(" | ", " ");
        let heard = heard.trim();
        if self.forget_everything.iter().any(|p| contains(heard, p)) {
            return Some(MemoryAsk::Forget { everything: true });
        }
        if self.forget_that.iter().any(|p| contains(heard, p)) {
            return Some(MemoryAsk::Forget { everything: false });
        }
        // The whole turn, else one of its sentences ("What did Matteo have
        // last time, do you remember?").
        // As said, too: "weißt du noch" has lost its "noch" in the normalised text.
        let plain = super::normalize::plain_words(said).join(" ");
        let as_said = std::iter::once(plain.as_str());
        for text in std::iter::once(heard)
            .chain(parts.iter().copied())
            .chain(as_said)
        {
            for template in &self.ask {
                if let Some(who) = match_person(template, text) {
                    let about = self.person_named(world, speaker, &who)?;
                    return Some(MemoryAsk::Ask { about });
                }
            }
        }
        // "Could you keep in mind that ...": a request's opening before the phrase.
        let opened = self
            .remember_leads
            .iter()
            .filter_map(|lead| heard.strip_prefix(lead.as_str())?.strip_prefix(' '))
            .chain(std::iter::once(heard));
        let fact = match opened
            .flat_map(|heard| {
                self.remember
                    .iter()
                    .filter(move |p| heard == p.as_str() || heard.starts_with(&format!("{p} ")))
            })
            .max_by_key(|p| p.len())
        {
            Some(phrase) => words_after(said, phrase)?,
            None => {
                // As said, too: the normalised text has lost "so" and "instead".
                let plain = super::normalize::plain_words(said).join(" ");
                let ends = |text: &str, p: &str| {
                    let before = text.strip_suffix(p)?.strip_suffix(' ')?;
                    // "Do you remember that?" asks; it tells nothing to keep.
                    (!before.ends_with(" you")).then_some(())
                };
                let phrase = self
                    .remember_after
                    .iter()
                    .filter(|p| ends(heard, p).or_else(|| ends(&plain, p)).is_some())
                    .max_by_key(|p| p.len())?;
                let fact = words_before(said, phrase)?;
                self.without_a_trailing_lead(&fact)
            }
        };
        let first = fact.split_whitespace().next().unwrap_or_default();
        let about = self
            .person_named(world, speaker, first)
            .filter(|_| !self.me.contains(&first.to_lowercase()))
            .unwrap_or_else(|| speaker.to_string());
        Some(MemoryAsk::Remember { about, fact })
    }

    /// "usual" or "last_time" when the turn refers to memory for what it wants.
    pub fn reference(&self, heard: &str) -> Option<&'static str> {
        if self.last_time.iter().any(|p| contains(heard, p)) {
            Some("last_time")
        } else if self
            .usual
            .iter()
            .chain(&self.as_usual)
            .any(|p| contains(heard, p))
        {
            Some("usual")
        } else {
            None
        }
    }

    /// Whether the turn's reference to memory asks for something by itself
    /// ("my usual, please"), not only says how ("the way I like it").
    pub fn asks_by_itself(&self, heard: &str) -> bool {
        self.last_time
            .iter()
            .chain(&self.usual)
            .any(|p| contains(heard, p))
    }
}

/// The person word(s) where the template has `{person}`.
fn match_person(template: &str, heard: &str) -> Option<String> {
    let template: Vec<&str> = template.split_whitespace().collect();
    let heard: Vec<&str> = heard.split_whitespace().collect();
    person_in(&template, &heard)
}

/// Matches `heard` against `template` word by word: `*` is one word (any
/// words when it ends the template), `{person}` one or two words, returned.
fn person_in(template: &[&str], heard: &[&str]) -> Option<String> {
    match template.split_first() {
        None => heard.is_empty().then(String::new),
        Some((&"*", [])) => (!heard.is_empty()).then(String::new),
        Some((&"*", rest)) => person_in(rest, heard.get(1..)?),
        Some((&"{person}", rest)) => (1..=2.min(heard.len())).find_map(|n| {
            person_in(rest, &heard[n..])?;
            Some(heard[..n].join(" "))
        }),
        Some((word, rest)) => (heard.first()? == word)
            .then(|| person_in(rest, &heard[1..]))
            .flatten(),
    }
}

impl MemoryPhrases {
    /// The fact without a request's opening left at its end ("..., near me.
    /// Please" before "remember that").
    fn without_a_trailing_lead(&self, fact: &str) -> String {
        let fact = fact.trim_end_matches(|c: char| !c.is_alphanumeric());
        let ends_with = |lead: &&String| {
            let cut = fact.len().saturating_sub(lead.len() + 1);
            fact.is_char_boundary(cut)
                && fact[cut..].starts_with(|c: char| !c.is_alphanumeric())
                && fact[cut + 1..].eq_ignore_ascii_case(lead)
        };
        match self
            .remember_leads
            .iter()
            .filter(ends_with)
            .max_by_key(|l| l.len())
        {
            Some(lead) => fact[..fact.len() - lead.len()]
                .trim_end_matches(|c: char| !c.is_alphanumeric())
                .to_string(),
            None => fact.to_string(),
        }
    }

    /// Whether `text` is yes phrases one after another ("go ahead wipe it").
    fn confirms(&self, text: &str) -> bool {
        let words: Vec<&str> = text.split_whitespace().collect();
        // can[i]: the first i words are yes phrases.
        let mut can = vec![false; words.len() + 1];
        can[0] = true;
        for end in 1..=words.len() {
            can[end] = (0..end).any(|start| {
                can[start]
                    && self
                        .confirm
                        .iter()
                        .any(|p| p == &words[start..end].join(" "))
            });
        }
        !words.is_empty() && can[words.len()]
    }

    /// The person a word names: the speaker for [`MemoryPhrases::me`], else a name at the table.
    fn person_named(&self, world: &World, speaker: &str, said: &str) -> Option<String> {
        let said = said.trim_matches(|c: char| !c.is_alphanumeric());
        if self.me.contains(&said.to_lowercase()) {
            return Some(speaker.to_string());
        }
        match grounding::person(world, said) {
            Grounding::Resolved(id) => Some(world.person(id).name.clone()),
            _ => None,
        }
    }
}

/// The original words after the phrase's last word ("Remember that I only
/// drink sugar-free." → "I only drink sugar-free"), without edge punctuation.
fn words_after(said: &str, phrase: &str) -> Option<String> {
    let last = phrase.split_whitespace().last()?;
    let lower = said.to_lowercase();
    let (_, end) = *whole_words(&lower, last).first()?;
    let fact = original(said, &lower, end, |source| &source[end..])?;
    let fact = fact.strip_prefix("that ").unwrap_or(&fact).trim();
    (fact.split_whitespace().count() >= 2).then(|| fact.to_string())
}

/// The original words before the phrase's first word ("Ab jetzt trinke ich
/// Fanta, merk dir das." → "Ab jetzt trinke ich Fanta"), without edge punctuation.
fn words_before(said: &str, phrase: &str) -> Option<String> {
    let first = phrase.split_whitespace().next()?;
    let lower = said.to_lowercase();
    let (start, _) = *whole_words(&lower, first).last()?;
    let fact = original(said, &lower, start, |source| &source[..start])?;
    (fact.split_whitespace().count() >= 2).then_some(fact)
}

/// Where `word` stands in `lower` as a whole word: (start, end) byte ranges, in order.
fn whole_words(lower: &str, word: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = lower[at..].find(word) {
        let (start, end) = (at + i, at + i + word.len());
        let bounded = lower[..start]
            .chars()
            .last()
            .is_none_or(|c| !c.is_alphanumeric())
            && lower[end..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
        if bounded {
            found.push((start, end));
        }
        at = end;
    }
    found
}

/// The part `cut` of the original text, cut at byte `at` of its lower case,
/// without edge punctuation; lower-casing can change byte lengths outside ASCII,
/// and then the part is taken from the lower-case words.
fn original(said: &str, lower: &str, at: usize, cut: impl Fn(&str) -> &str) -> Option<String> {
    let source = if lower.len() == said.len() && said.is_char_boundary(at) {
        said
    } else {
        lower
    };
    let part = cut(source).trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ':' | '.' | '!' | '?' | ';' | '-')
    });
    (!part.is_empty()).then(|| part.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fact_is_the_words_after_the_phrase() {
        assert_eq!(
            words_after("Remember that I only drink sugar-free.", "remember that").as_deref(),
            Some("I only drink sugar-free")
        );
        assert_eq!(
            words_after("Don't forget, oat milk for me!", "do not forget").as_deref(),
            Some("oat milk for me")
        );
        assert_eq!(words_after("Remember.", "remember"), None);
        // Lower case longer than the text (İ): no slicing inside a character.
        assert_eq!(
            words_after("İİ remember that İ like çay", "remember that").as_deref(),
            Some("i̇ like çay")
        );
    }

    #[test]
    fn a_phrase_at_the_end_keeps_the_words_before_it() {
        assert_eq!(
            words_before(
                "Ab jetzt trinke ich lieber Fanta, merk dir das bitte.",
                "merk dir das"
            )
            .as_deref(),
            Some("Ab jetzt trinke ich lieber Fanta")
        );
        assert_eq!(words_before("Merk dir das.", "merk dir das"), None);
        assert_eq!(
            words_before("Über Çay: İch mag ihn, merk dir das", "merk dir das").as_deref(),
            Some("über çay: i̇ch mag ihn")
        );
    }

    #[test]
    fn a_request_left_before_the_phrase_is_no_part_of_the_fact() {
        let phrases = MemoryPhrases {
            remember_leads: ["please", "can you"].map(String::from).to_vec(),
            ..MemoryPhrases::default()
        };
        assert_eq!(
            phrases.without_a_trailing_lead("No latex near me. Please"),
            "No latex near me"
        );
        assert_eq!(
            phrases.without_a_trailing_lead("İ like tea. Can you"),
            "İ like tea"
        );
        assert_eq!(phrases.without_a_trailing_lead("Please"), "Please");
    }

    #[test]
    fn yes_phrases_one_after_another_confirm() {
        let phrases = MemoryPhrases {
            confirm: ["yes", "go ahead", "wipe it"].map(String::from).to_vec(),
            ..MemoryPhrases::default()
        };
        assert!(phrases.confirms("go ahead wipe it"));
        assert!(phrases.confirms("yes"));
        assert!(!phrases.confirms("go ahead and wipe it"));
        assert!(!phrases.confirms(""));
    }

    #[test]
    fn a_person_slot_takes_a_name_or_me() {
        assert_eq!(
            match_person("what does {person} drink", "what does daniel drink").as_deref(),
            Some("daniel")
        );
        assert_eq!(
            match_person(
                "what do you remember about {person}",
                "what do you remember about me"
            )
            .as_deref(),
            Some("me")
        );
        assert_eq!(
            match_person("what does {person} drink", "what do we drink"),
            None
        );
        assert_eq!(
            match_person(
                "weißt du noch wie {person} *",
                "weißt du noch wie ich meinen kaffee trinke"
            )
            .as_deref(),
            Some("ich")
        );
        assert_eq!(
            match_person("weißt du noch wie {person} *", "weißt du noch wie"),
            None
        );
    }
}
