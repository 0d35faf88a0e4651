//! What a turn asks of the robot's memory, from phrase lists in the sentence
//! file's `[memory]` table: "remember that ...", "forget me", "what do you
//! remember about me", a yes to a question, and requests that refer to
//! memory ("my usual", "the glass I had last time").

use std::collections::BTreeMap;

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
    /// Openings of a sentence that is itself a fact to keep, with the words
    /// they stand for in it ("switch my usual to" = "my usual is").
    #[serde(default)]
    pub remember_whole: BTreeMap<String, String>,
    /// Words of a sentence that only greets, no part of a fact told after it ("hello").
    #[serde(default)]
    pub greetings: Vec<String>,
    /// Request words that close such a sentence and are no part of the fact ("please").
    #[serde(default)]
    pub requests_at_the_end: Vec<String>,
    /// Asking to be forgotten entirely.
    #[serde(default)]
    pub forget_everything: Vec<String>,
    /// Asking to forget the last fact.
    #[serde(default)]
    pub forget_that: Vec<String>,
    /// Asking not to be left out ("don't forget me"): nothing asked of memory.
    #[serde(default)]
    pub not_forgetting: Vec<String>,
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
    /// Words after which an `aversion` word is none ("kick off with cranberry",
    /// "top it off with cream": "off" says when, not that it is disliked).
    #[serde(default)]
    pub not_aversion_after: Vec<String>,
    /// A clause that asks to keep what was said before it ("keep that in mind"),
    /// in plain lower-case words as said, between leads and tails.
    #[serde(default)]
    pub remember_cores: Vec<String>,
    /// Words that may close a `remember_cores` clause ("for me", "would you").
    #[serde(default)]
    pub remember_tails: Vec<String>,
    /// First words of a question ("which", "is"): one naming a person that no
    /// template reads asks what is remembered about them.
    #[serde(default)]
    pub question_opens: Vec<String>,
    /// Openings of a question after advice for someone named in it ("should i").
    #[serde(default)]
    pub advice: Vec<String>,
    /// Words for someone named before ("him", "her").
    #[serde(default)]
    pub someone: Vec<String>,
    /// Requests to make someone's usual ready ("pour {person} one").
    #[serde(default)]
    pub usual_for: Vec<String>,
    /// Words before a drink added to another ("with" oat milk): not the drink wanted.
    #[serde(default)]
    pub added_with: Vec<String>,
    /// Words of a clause that says what holds now ("from now on", "these days").
    #[serde(default)]
    pub now: Vec<String>,
    /// Words that say a fact is for the others too ("in case anyone asks").
    #[serde(default)]
    pub for_others: Vec<String>,
    /// Words that keep a fact to its teller ("don't tell anyone", "between
    /// us"); else a fact about nobody ("the spare key is under the flowerpot")
    /// is the table's, and one about someone only theirs.
    #[serde(default)]
    pub private: Vec<String>,
    /// Words that put a new fact in the place of the last one told ("update that").
    #[serde(default)]
    pub update: Vec<String>,
}

/// What memory is asked for, besides the turn's reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryAsk {
    /// Keep `fact` (the words as said) about `about`; `shared`: said to be for
    /// the others too ("in case anyone's looking for me"), so it may be told;
    /// `private`: said to be kept to the teller ("between us").
    Remember {
        about: String,
        fact: String,
        shared: bool,
        private: bool,
    },
    /// Forget the speaker entirely (`true`) or the fact stored last.
    Forget { everything: bool },
    /// What is remembered about `about`.
    Ask { about: String },
    /// "Yes" to the robot's question.
    Confirm,
}

/// Whether `phrase` stands in `heard` as whole words; in it `*` is any one
/// word, `**` up to four ("wipe everything ** about me").
fn contains(heard: &str, phrase: &str) -> bool {
    if !phrase.contains('*') {
        return format!(" {heard} ").contains(&format!(" {phrase} "));
    }
    let phrase: Vec<&str> = phrase.split_whitespace().collect();
    let heard: Vec<&str> = heard.split_whitespace().collect();
    (0..heard.len()).any(|at| starts_with(&heard[at..], &phrase))
}

/// Whether `heard` starts with `phrase` (with `*` and `**` as in [`contains`]).
fn starts_with(heard: &[&str], phrase: &[&str]) -> bool {
    match phrase.split_first() {
        None => true,
        Some((&"**", rest)) => (0..=4.min(heard.len())).any(|n| starts_with(&heard[n..], rest)),
        Some((p, rest)) => heard
            .split_first()
            .is_some_and(|(w, after)| (*p == "*" || w == p) && starts_with(after, rest)),
    }
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
        // "Don't forget me!" asks to be served, not remembered or forgotten.
        if self.not_forgetting.iter().any(|p| contains(heard, p)) {
            return None;
        }
        if self.forget_everything.iter().any(|p| contains(heard, p)) {
            return Some(MemoryAsk::Forget { everything: true });
        }
        let kept_before = self.kept_before(said);
        // "Scratch that, it's Thursdays now. Can you update that?" replaces; it erases nothing.
        if self.forget_that.iter().any(|p| contains(heard, p)) && kept_before.is_none() {
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
        let fact = match self.fact_said_whole(said) {
            Some(fact) => fact,
            None => self.fact_after_or_before(said, heard, opened, kept_before)?,
        };
        let fact = self.without_a_greeting(&fact);
        let first = fact.split_whitespace().next().unwrap_or_default();
        let about = self
            .person_named(world, speaker, first)
            .filter(|_| !self.me.contains(&first.to_lowercase()))
            .unwrap_or_else(|| speaker.to_string());
        // "in case anyone's looking for me": the phrase without the "'s".
        let plain: Vec<String> = super::normalize::plain_words(said)
            .into_iter()
            .map(|w| w.strip_suffix("'s").map(str::to_string).unwrap_or(w))
            .collect();
        let plain = plain.join(" ");
        let marked = |phrases: &[String]| phrases.iter().any(|p| contains(&plain, p));
        let private = marked(&self.private);
        let shared = marked(&self.for_others) || (!private && !self.names_someone(world, &fact));
        Some(MemoryAsk::Remember {
            about,
            fact,
            shared,
            private: private && !shared,
        })
    }

    /// A sentence that is itself a fact to keep ("Switch my usual to the
    /// blackcurrant squash, please."): the fact it states, in the words its
    /// opening stands for ("my usual is the blackcurrant squash").
    fn fact_said_whole(&self, said: &str) -> Option<String> {
        // A clause too: "I'm driving tomorrow, so from now on make mine cranberry juice";
        // and a sentence whose opening has a comma of its own: "Going forward, just water for me."
        let sentences = said.split(['.', '!', '?', ';']);
        let mut parts = sentences.flat_map(|s| {
            std::iter::once(s.replace(',', " ")).chain(s.split(',').map(str::to_string))
        });
        parts.find_map(|sentence| {
            let plain = super::normalize::plain_words(&sentence);
            let lead = self
                .remember_leads
                .iter()
                .map(|l| l.split(' ').collect::<Vec<_>>())
                .filter(|l| {
                    plain
                        .iter()
                        .map(String::as_str)
                        .take(l.len())
                        .eq(l.iter().copied())
                })
                .map(|l| l.len())
                .max()
                .unwrap_or(0);
            let words = &plain[lead..];
            let (opening, stands_for) = self
                .remember_whole
                .iter()
                .filter(|(o, _)| {
                    let o: Vec<&str> = o.split(' ').collect();
                    words.len() > o.len() && words.iter().take(o.len()).map(String::as_str).eq(o)
                })
                .max_by_key(|(o, _)| o.len())?;
            let mut rest = &words[opening.split(' ').count()..];
            while let Some((last, before)) = rest.split_last() {
                if !self.requests_at_the_end.contains(last) {
                    break;
                }
                rest = before;
            }
            (!rest.is_empty()).then(|| format!("{stands_for} {}", rest.join(" ")))
        })
    }

    /// `fact` without sentences before it that only greet ("Hallo! Ich trinke ...").
    fn without_a_greeting(&self, fact: &str) -> String {
        let mut rest = fact.trim();
        while let Some(end) = rest.find(['.', '!', '?']) {
            let words = super::normalize::plain_words(&rest[..end]);
            let greets = !words.is_empty() && words.iter().all(|w| self.greetings.contains(w));
            if !greets || rest[end + 1..].trim().is_empty() {
                break;
            }
            rest = rest[end + 1..].trim_start();
        }
        rest.to_string()
    }

    /// The fact after a `remember` phrase, or before a `remember_after` one.
    fn fact_after_or_before<'h>(
        &self,
        said: &str,
        heard: &'h str,
        opened: impl Iterator<Item = &'h str>,
        kept_before: Option<String>,
    ) -> Option<String> {
        Some(
            match opened
                .flat_map(|heard| {
                    self.remember
                        .iter()
                        .filter(move |p| heard == p.as_str() || heard.starts_with(&format!("{p} ")))
                })
                .max_by_key(|p| p.len())
            {
                Some(phrase) => self.without_leading_tails(&words_after(said, phrase)?),
                None if kept_before.is_some() => kept_before?,
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
            },
        )
    }

    /// Whether `said` asks for the last fact told to be put right ("Could you update that?").
    pub fn updates(&self, said: &str) -> bool {
        let plain = super::normalize::plain_words(said).join(" ");
        self.update.iter().any(|p| contains(&plain, p))
    }

    /// Whether a fact is about someone: the teller ("I", "my"), someone named
    /// before ("his") or a person at the table.
    fn names_someone(&self, world: &World, fact: &str) -> bool {
        super::normalize::plain_words(fact).iter().any(|w| {
            let w = w.to_lowercase();
            self.me.contains(&w)
                || self.someone.contains(&w)
                || world
                    .persons()
                    .iter()
                    .any(|p| p.name.eq_ignore_ascii_case(&w))
        })
    }

    /// "usual" or "last_time" when the turn refers to memory for what it wants;
    /// `said` the original words ("same again" has lost its "again" in `heard`).
    pub fn reference(&self, heard: &str, said: &str) -> Option<&'static str> {
        // With "|" at each clause's end: a phrase ending in "|" ("vom letzten |")
        // must end its clause ("vom letzten jahr" is no reference).
        let plain = clauses_of(said)
            .into_iter()
            .map(|(_, words)| words.join(" "))
            .filter(|clause| !clause.is_empty())
            .collect::<Vec<_>>()
            .join(" | ");
        let (heard, plain) = (format!("{heard} |"), format!("{plain} |"));
        let any = |phrases: &[String]| {
            phrases
                .iter()
                .any(|p| contains(&heard, p) || contains(&plain, p))
        };
        if any(&self.last_time) {
            Some("last_time")
        } else if any(&self.usual) || any(&self.as_usual) {
            Some("usual")
        } else {
            None
        }
    }

    /// Whether the turn's reference to memory asks for something by itself
    /// ("my usual, please"), not only says how ("the way I like it").
    pub fn asks_by_itself(&self, heard: &str, said: &str) -> bool {
        let plain = super::normalize::plain_words(said).join(" ");
        self.last_time
            .iter()
            .chain(&self.usual)
            .any(|p| contains(heard, p) || contains(&plain, p))
    }

    /// What was said before a clause that asks to keep it ("I'm in the attic
    /// room. Remember that for me, would you?" → "I'm in the attic room").
    fn kept_before(&self, said: &str) -> Option<String> {
        let clauses = clauses_of(said);
        let (start, _) = clauses
            .iter()
            .skip(1)
            .find(|(_, words)| self.asks_to_keep(words))?;
        let fact = said[..*start].trim_end_matches(|c: char| !c.is_alphanumeric());
        // "Scratch that, ...": the words that take the old fact back are no part of the new.
        let fact = match clauses.first() {
            Some((_, first)) if self.forget_that.contains(&first.join(" ")) => {
                clauses.get(1).map_or(fact, |(second, _)| {
                    fact[(*second).min(fact.len())..].trim_start()
                })
            }
            _ => fact,
        };
        let fact = self.without_a_trailing_lead(fact);
        (fact.split_whitespace().count() >= 2).then_some(fact)
    }

    /// Whether a clause's words are a `remember_cores` phrase between leads and tails.
    fn asks_to_keep(&self, words: &[String]) -> bool {
        let mut words: &[String] = words;
        let starts = |words: &[String], p: &str| {
            let p: Vec<&str> = p.split_whitespace().collect();
            words.len() >= p.len() && words.iter().zip(&p).all(|(w, p)| w == p)
        };
        while let Some(lead) = self
            .remember_leads
            .iter()
            .filter(|l| starts(words, l))
            .map(|l| l.split_whitespace().count())
            .max()
        {
            words = &words[lead..];
        }
        let tails_only = |rest: &[String]| {
            let mut rest = rest;
            while !rest.is_empty() {
                // A tail ending in "**" takes the rest ("instead of the mug").
                let open = |t: &&String| t.strip_suffix(" **").is_some_and(|t| starts(rest, t));
                if self.remember_tails.iter().any(|t| open(&t)) {
                    return true;
                }
                let Some(n) = self
                    .remember_tails
                    .iter()
                    .filter(|t| starts(rest, t))
                    .map(|t| t.split_whitespace().count())
                    .max()
                else {
                    return false;
                };
                rest = &rest[n..];
            }
            true
        };
        self.remember_cores
            .iter()
            .filter(|core| starts(words, core))
            .any(|core| tails_only(&words[core.split_whitespace().count()..]))
    }

    /// The person a question asks memory about: one after advice for them ("should
    /// I pour Daniel some red?"), or, when `unread`, any question naming one.
    pub fn asked_about(
        &self,
        world: &World,
        scene_words: &BTreeMap<String, String>,
        speaker: &str,
        said: &str,
        unread: bool,
    ) -> Option<String> {
        // A recogniser's text with no punctuation at all.
        let unpunctuated = !said.contains(['.', ',', '!', '?']);
        clauses_with_ends(said)
            .into_iter()
            .find_map(|(start, words, end)| {
                let joined = words.join(" ");
                let advice = self
                    .advice
                    .iter()
                    .any(|a| joined == *a || joined.starts_with(&format!("{a} ")));
                // "Could you wipe ...?" asks the robot to do something; it asks nothing of memory.
                let a_request = words.get(1).is_some_and(|w| w == "you")
                    && words.first().is_some_and(|w| {
                        self.remember_leads
                            .iter()
                            .any(|l| l.split_whitespace().next() == Some(w.as_str()))
                    });
                // Written as a question; or, unpunctuated, opened as one.
                let question = unread
                    && !a_request
                    && (end == '?'
                        || unpunctuated
                            && words
                                .first()
                                .is_some_and(|w| self.question_opens.contains(w)));
                if !advice && !question {
                    return None;
                }
                // "What's in the tall carafe over by Ottilie?" asks about the table.
                if question
                    && !advice
                    && names_a_thing(world, scene_words, &sentence_at(said, start))
                {
                    return None;
                }
                let named = words
                    .iter()
                    .find_map(|w| person_called(world, w))
                    .filter(|name| !advice || name != speaker);
                // "What have you got in your head about me?"
                let about_me = || {
                    words
                        .windows(2)
                        .any(|w| {
                            matches!(w[0].as_str(), "about" | "on" | "of")
                                && self.me.contains(&w[1])
                        })
                        .then(|| speaker.to_string())
                };
                // "I've made Lorcan a cooler. Is it alright to give it to him?"
                let named_in_the_turn = || {
                    people_called(world, said)
                        .into_iter()
                        .find(|name| name != speaker)
                };
                named
                    .or_else(|| (question && !advice).then(about_me).flatten())
                    .or_else(|| advice.then(named_in_the_turn).flatten())
            })
    }

    /// Whose usual a request makes ready ("pour him one", "get Daniel set up");
    /// `named_before`: the person an earlier turn named, for "him" and "her";
    /// `others`: everyone at the table but the speaker and the listener.
    pub fn usual_for(
        &self,
        world: &World,
        speaker: &str,
        said: &str,
        named_before: Option<&str>,
        others: &[String],
    ) -> Option<String> {
        let plain = super::normalize::plain_words(said);
        let who = self.usual_for.iter().find_map(|template| {
            let template: Vec<&str> = template.split_whitespace().collect();
            (0..plain.len()).find_map(|at| {
                let rest: Vec<&str> = plain[at..].iter().map(String::as_str).collect();
                (0..=rest.len()).find_map(|end| person_in(&template, &rest[..end]))
            })
        })?;
        let first = who.split_whitespace().next()?;
        if self.someone.iter().any(|w| w == first) {
            // "Mireille's up to her elbows. Get her ...": named in this turn, else before.
            let named_now = people_called(world, said)
                .into_iter()
                .rev()
                .find(|n| n != speaker);
            return named_now
                .or_else(|| named_before.filter(|n| *n != speaker).map(str::to_string))
                .or_else(|| match others {
                    [one] => Some(one.clone()),
                    _ => None,
                });
        }
        self.person_named(world, speaker, first)
    }
}

/// Whether `words` name a thing on the table by what people call it (its
/// kind's head noun or its name's last word, in the singular or plural).
/// `scene_words` translates the language's words into the scene's ("glas" → "glass").
fn names_a_thing(world: &World, scene_words: &BTreeMap<String, String>, words: &[String]) -> bool {
    let heads: Vec<String> = world
        .objects()
        .iter()
        .flat_map(|o| grounding::kind_heads(o).chain(grounding::words(&o.name).pop()))
        .collect();
    let translated = words.iter().flat_map(|w| match scene_words.get(w) {
        Some(scene) => super::normalize::plain_words(scene),
        None => vec![w.clone()],
    });
    translated.into_iter().any(|w| {
        crate::understanding::lexicon::singular_forms(&w)
            .any(|form| heads.iter().any(|h| h == form))
    })
}

/// The person at the table a word names ("Daniel", "Daniel's"), if any.
/// The people the words of `text` name by name, in the order said.
pub fn people_called(world: &World, text: &str) -> Vec<String> {
    super::normalize::plain_words(text)
        .iter()
        .filter_map(|w| person_called(world, w))
        .collect()
}

pub fn person_called(world: &World, word: &str) -> Option<String> {
    let word = word.strip_suffix("'s").unwrap_or(word);
    match grounding::person(world, word) {
        Grounding::Resolved(id) => Some(world.person(id).name.clone()),
        _ => None,
    }
}

/// The plain words of the sentence of `said` that holds byte offset `at`.
fn sentence_at(said: &str, at: usize) -> Vec<String> {
    let is_end = |c: char| matches!(c, '.' | '!' | '?');
    let start = said[..at].rfind(is_end).map_or(0, |i| i + 1);
    let end = said[at..].find(is_end).map_or(said.len(), |i| at + i);
    super::normalize::plain_words(&said[start..end])
}

/// The clauses of a text: where each starts (a byte offset) and its plain words.
fn clauses_of(said: &str) -> Vec<(usize, Vec<String>)> {
    clauses_with_ends(said)
        .into_iter()
        .map(|(start, words, _)| (start, words))
        .collect()
}

/// As [`clauses_of`], with the mark that ends each clause's sentence (`.`, `!`,
/// `?`, or `' '` at the end of the text).
fn clauses_with_ends(said: &str) -> Vec<(usize, Vec<String>, char)> {
    let mut clauses = Vec::new();
    let mut start = 0;
    for (i, c) in said.char_indices() {
        if matches!(c, '.' | ',' | '!' | '?' | ';' | ':' | '–' | '—') {
            clauses.push((start, super::normalize::plain_words(&said[start..i]), c));
            start = i + c.len_utf8();
        }
    }
    clauses.push((start, super::normalize::plain_words(&said[start..]), ' '));
    let mut sentence_end = ' ';
    for (_, _, end) in clauses.iter_mut().rev() {
        if matches!(*end, '.' | '!' | '?' | ' ') {
            sentence_end = *end;
        }
        *end = sentence_end;
    }
    clauses.retain(|(_, words, _)| !words.is_empty());
    clauses
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
    /// "Merk dir mal: ...": the fact without the particles the phrase was said with.
    fn without_leading_tails(&self, fact: &str) -> String {
        let mut rest = fact.trim_start_matches([':', ',', ' ']);
        while let Some(tail) = self.remember_tails.iter().find(|t| {
            rest.len() > t.len()
                && rest.is_char_boundary(t.len())
                && rest[..t.len()].eq_ignore_ascii_case(t)
                && rest[t.len()..].starts_with([':', ',', ' '])
        }) {
            rest = rest[tail.len()..].trim_start_matches([':', ',', ' ']);
        }
        rest.to_string()
    }

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
        person_called(world, said)
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
    fn a_sentence_that_is_itself_the_fact_is_kept_in_the_words_its_opening_stands_for() {
        let phrases = MemoryPhrases {
            remember_whole: [("switch my usual to".to_string(), "my usual is".to_string())].into(),
            remember_leads: vec!["could you".into()],
            requests_at_the_end: vec!["please".into()],
            ..MemoryPhrases::default()
        };
        let said = "Tea isn't doing it for me. Could you switch my usual to the squash, please?";
        assert_eq!(
            phrases.fact_said_whole(said).as_deref(),
            Some("my usual is the squash")
        );
        // The opening alone keeps nothing; another sentence keeps nothing either.
        assert_eq!(phrases.fact_said_whole("Switch my usual to, please."), None);
        assert_eq!(phrases.fact_said_whole("My usual is tea."), None);
    }

    #[test]
    fn an_opening_with_a_comma_of_its_own_still_opens_the_fact() {
        let phrases = MemoryPhrases {
            remember_whole: [("going forward just".to_string(), "my usual is".to_string())].into(),
            ..MemoryPhrases::default()
        };
        let said = "My dentist had words with me. Going forward, just water for me.";
        assert_eq!(
            phrases.fact_said_whole(said).as_deref(),
            Some("my usual is water for me")
        );
    }

    #[test]
    fn a_sentence_that_only_greets_is_no_part_of_the_fact() {
        let phrases = MemoryPhrases {
            greetings: vec!["hello".into(), "again".into()],
            ..MemoryPhrases::default()
        };
        assert_eq!(
            phrases.without_a_greeting("Hello again! I take my coffee black"),
            "I take my coffee black"
        );
        // A greeting alone stays; a sentence with more than a greeting stays.
        assert_eq!(phrases.without_a_greeting("Hello again!"), "Hello again!");
        assert_eq!(
            phrases.without_a_greeting("Hello Ottilie. I lent it to her"),
            "Hello Ottilie. I lent it to her"
        );
    }

    #[test]
    fn a_reference_phrase_ending_in_a_bar_must_end_its_clause() {
        let phrases = MemoryPhrases {
            last_time: vec!["vom letzten |".into()],
            ..MemoryPhrases::default()
        };
        let said = "Das Gleiche wie vom letzten, bitte.";
        assert_eq!(
            phrases.reference("das gleiche wie vom letzten | bitte", said),
            Some("last_time")
        );
        let said = "Hast du die Abrechnung vom letzten Jahr?";
        assert_eq!(
            phrases.reference("hast du die abrechnung vom letzten jahr", said),
            None
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

    fn keeping() -> MemoryPhrases {
        let list = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        MemoryPhrases {
            remember_leads: list(&["can you", "please"]),
            remember_cores: list(&[
                "remember that",
                "do remember that",
                "keep that in mind",
                "make a note of that",
            ]),
            remember_tails: list(&[
                "for me",
                "would you",
                "won't you",
                "please",
                "instead",
                "instead of **",
            ]),
            forget_that: list(&["scratch that"]),
            ..MemoryPhrases::default()
        }
    }

    #[test]
    fn a_clause_that_asks_to_keep_it_keeps_what_was_said_before() {
        let phrases = keeping();
        assert_eq!(
            phrases
                .kept_before("I'm in the attic room. Remember that for me, would you?")
                .as_deref(),
            Some("I'm in the attic room")
        );
        assert_eq!(
            phrases
                .kept_before("No wine for me tonight, I'm driving. Can you make a note of that?")
                .as_deref(),
            Some("No wine for me tonight, I'm driving")
        );
        // "Do you remember that?" asks; "remember that the pot is hot" is no clause of its own.
        assert_eq!(
            phrases.kept_before("We had cola. Do you remember that?"),
            None
        );
        assert_eq!(
            phrases.kept_before("Please, remember that the pot is hot."),
            None
        );
        // A tail that takes the rest: "instead of the mug".
        assert_eq!(
            phrases
                .kept_before("The flowery teacup for me now. Remember that instead of the mug.")
                .as_deref(),
            Some("The flowery teacup for me now")
        );
        // "Scratch that" takes the old fact back; it is no part of the new one.
        assert_eq!(
            phrases
                .kept_before("Scratch that, choir is on Thursdays now. Keep that in mind, please.")
                .as_deref(),
            Some("choir is on Thursdays now")
        );
    }

    #[test]
    fn wildcards_stand_for_one_word_or_up_to_four() {
        assert!(contains(
            "wipe everything you have got about me",
            "wipe everything ** about me"
        ));
        assert!(contains(
            "wipe everything about me",
            "wipe everything ** about me"
        ));
        assert!(!contains(
            "wipe the table and tell me about me",
            "wipe everything ** about me"
        ));
        assert!(contains("same as every monday", "same as every *"));
        assert!(!contains("same as every", "same as every *"));
    }

    #[test]
    fn advice_for_someone_and_questions_no_template_read_ask_about_them() {
        let world = crate::twin::scene::load("dinner").expect("the shipped dinner scene loads");
        let phrases = MemoryPhrases {
            advice: vec!["should i".into()],
            question_opens: vec!["where".into()],
            remember_leads: vec!["could you".into()],
            me: vec!["me".into()],
            ..MemoryPhrases::default()
        };
        let scene_words = BTreeMap::new();
        let asked = |said: &str, unread: bool| {
            phrases.asked_about(&world, &scene_words, "Felix", said, unread)
        };
        assert_eq!(
            asked("Should I pour Daniel some red?", false).as_deref(),
            Some("Daniel")
        );
        assert_eq!(
            asked("Where's Daniel's room?", true).as_deref(),
            Some("Daniel")
        );
        // A question about a thing on the table asks nothing of memory.
        assert_eq!(
            asked("What's in the tall glass next to Daniel?", true),
            None
        );
        assert_eq!(asked("Can Daniel actually see the bottles?", true), None);
        assert_eq!(
            asked("From where Daniel's sitting, can he see the bottles?", true),
            None
        );
        // Read as something else, a question is that; a request to the robot asks nothing of memory.
        assert_eq!(asked("Where's Daniel's room?", false), None);
        assert_eq!(asked("Could you wipe everything about Daniel?", true), None);
        assert_eq!(
            asked("What have you got on file about me?", true).as_deref(),
            Some("Felix")
        );
    }

    #[test]
    fn him_in_a_request_for_a_usual_is_the_person_named_before() {
        let world = crate::twin::scene::load("dinner").expect("the shipped dinner scene loads");
        let phrases = MemoryPhrases {
            someone: vec!["him".into(), "his".into()],
            usual_for: vec!["pour {person} one".into(), "get {person} ready".into()],
            ..MemoryPhrases::default()
        };
        let whose = |said: &str, before: Option<&str>, others: &[String]| {
            phrases.usual_for(&world, "Felix", said, before, others)
        };
        assert_eq!(
            whose("Go on, pour him one then.", Some("Daniel"), &[]).as_deref(),
            Some("Daniel")
        );
        assert_eq!(
            whose("Could you get his ready?", None, &["Daniel".to_string()]).as_deref(),
            Some("Daniel")
        );
        // Nobody named before and two others: "him" is nobody in particular.
        let two = ["Daniel".to_string(), "Ines".to_string()];
        assert_eq!(whose("Pour him one.", None, &two), None);
        assert_eq!(
            whose("Pour Daniel one.", None, &[]).as_deref(),
            Some("Daniel")
        );
        assert_eq!(whose("Pour me some cola.", Some("Daniel"), &[]), None);
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
