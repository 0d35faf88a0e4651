//! Correcting what the recogniser got nearly right, toward the table: a word or
//! word pair that sounds like one of the table's words ("mud" → mug, "phantom"
//! → fanta, "call as" → cola) is replaced when the understanding stage then
//! reads the turn better — never toward a word the table does not have.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use serde::Serialize;

use super::grammar::Grammar;
use super::reading::{Act, Reading};
use super::{Understanding, Utterance};
use crate::phonetic::similarity;
use crate::twin::vocabulary::{table_words, TableWord, WordRole};
use crate::twin::World;

/// How alike a word of a mention that names nothing at the table must sound
/// to a table word to be tried in its place ("some phantom" → fanta).
const DOUBTFUL_WORD_SIMILARITY: f32 = 0.6;
/// The same for a word unknown to the sentences in a turn none of them
/// matched: it must sound nearly the same.
const UNREAD_WORD_SIMILARITY: f32 = 0.75;
/// How alike a word unknown to the sentences must sound to one of their verbs.
const VERB_SIMILARITY: f32 = 0.6;
/// The rank of leaving out a first word no sentence knows, in a turn none of
/// them read: below every sound-alike ("Chain, there's only ..." for "Shame,
/// there's only ...": a filler the recogniser mangled, in front of a sentence).
const UNKNOWN_FIRST_WORD_RANK: f32 = 0.5;
/// Most replacements tried per turn (each costs one reading, well under 1 ms).
const MAX_TRIES: usize = 32;
/// Verbs tried in place of one heard word.
const VERBS_PER_WORD: usize = 3;

/// One replacement: what was heard, and what it was read as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Correction {
    /// The words as the recogniser wrote them.
    pub heard: String,
    /// The table's word put in their place.
    #[serde(rename = "as")]
    pub read_as: String,
}

/// A corrected text and its replacements (none: the text as heard).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corrected {
    /// The text to understand.
    pub text: String,
    /// What was replaced.
    pub corrections: Vec<Correction>,
}

/// A word of the text with its place.
#[derive(Debug, Clone)]
struct Token {
    start: usize,
    end: usize,
    word: String,
}

/// A replacement to try: `len` words from token `at` by `target`.
#[derive(Debug, Clone)]
struct Candidate {
    at: usize,
    len: usize,
    target: String,
    similarity: f32,
}

impl Understanding {
    /// The turn's text corrected toward the table's vocabulary where the
    /// reading gets better; `earlier` gives "it" its meaning as in reading.
    /// Only what the stage could not ground is put right: a turn it reads in
    /// full is left as heard.
    pub fn correct_hearing(
        &self,
        world: &World,
        earlier: &[Utterance<'_>],
        turn: &Utterance<'_>,
    ) -> Corrected {
        let read = |text: &str| self.read_in_dialogue(world, earlier, &Utterance { text, ..*turn });
        let heard = read(turn.text);
        let tokens = tokens(turn.text);
        let vocabulary = table_words(world);
        let words = known_words(self.grammar(), &vocabulary);
        let doubt = Doubt::of(&heard, &vocabulary);
        let mut candidates = candidates(&tokens, &vocabulary, &words, &doubt, world);
        candidates.sort_by(|a, b| {
            b.similarity
                .total_cmp(&a.similarity)
                .then(a.len.cmp(&b.len))
        });
        // A remark becomes a request only when something of the table was heard as said.
        let anchored = tokens
            .iter()
            .any(|t| vocabulary.iter().any(|v| v.word == t.word));
        let mut best = quality(&heard);
        let mut taken: Vec<Candidate> = Vec::new();
        for candidate in candidates.into_iter().take(MAX_TRIES) {
            let overlaps = taken
                .iter()
                .any(|t| candidate.at < t.at + t.len && t.at < candidate.at + candidate.len);
            if overlaps {
                continue;
            }
            let mut trial = taken.clone();
            trial.push(candidate);
            let reading = read(&apply(turn.text, &tokens, &trial));
            let score = quality(&reading);
            let invents_a_request =
                reading.act.is_request() && !heard.act.is_request() && !anchored;
            if score > best && !invents_a_request {
                best = score;
                taken = trial;
            }
        }
        taken.sort_by_key(|c| c.at);
        Corrected {
            text: apply(turn.text, &tokens, &taken),
            corrections: taken
                .iter()
                .map(|c| Correction {
                    heard: turn.text[tokens[c.at].start..tokens[c.at + c.len - 1].end].to_string(),
                    read_as: c.target.clone(),
                })
                .collect(),
        }
    }
}

/// What of a reading is in doubt: the words of mentions that name nothing at
/// the table, or the whole turn when no sentence matched.
struct Doubt {
    /// No sentence matched: only words unknown to the sentences are in doubt.
    unread: bool,
    /// Words of mentions that ground to nothing (none when read in full).
    words: BTreeSet<String>,
}

impl Doubt {
    fn of(reading: &Reading, vocabulary: &[TableWord]) -> Self {
        let s = &reading.slots;
        let mut said: Vec<&str> = [&s.object, &s.source, &s.target]
            .into_iter()
            .flatten()
            .chain(&s.items)
            .filter(|o| o.candidates.is_empty())
            .map(|o| o.said.as_str())
            .collect();
        said.extend(
            [&s.recipient, &s.person]
                .into_iter()
                .flatten()
                .filter(|p| p.name.is_none())
                .map(|p| p.said.as_str()),
        );
        said.extend(s.unknown_items.iter().map(String::as_str));
        let words = said
            .iter()
            .flat_map(|text| tokens(text))
            .map(|t| t.word)
            .filter(|w| w.len() >= 3 && !vocabulary.iter().any(|v| v.word == *w))
            .collect();
        Self {
            unread: reading.act == Act::Unknown,
            words,
        }
    }
}

/// How well a turn was read: a known act first, then mentions that name one
/// thing or person at the table, less those that name nothing there; last,
/// how many mentions name nothing.
fn quality(reading: &Reading) -> (bool, i32, Reverse<usize>) {
    let s = &reading.slots;
    let objects = [&s.object, &s.source, &s.target]
        .into_iter()
        .flatten()
        .chain(&s.items);
    let (mut score, mut lacking) = (0, s.unknown_items.len());
    for o in objects {
        score += match o.candidates.len() {
            1 => 2,
            0 => -2,
            _ => 1,
        };
        lacking += usize::from(o.candidates.is_empty());
    }
    for p in [&s.recipient, &s.person].into_iter().flatten() {
        score += if p.name.is_some() { 2 } else { -2 };
        lacking += usize::from(p.name.is_none());
    }
    score -= 2 * s.unknown_items.len() as i32;
    (reading.act != Act::Unknown, score, Reverse(lacking))
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let inside = c.is_alphanumeric() || (c == '\'' && start.is_some());
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let word = text[s..i].trim_end_matches('\'');
                out.push(Token {
                    start: s,
                    end: s + word.len(),
                    word: word.to_lowercase(),
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The sentences' verbs, and every word the sentences and the table know.
struct Words {
    verbs: BTreeSet<String>,
    openers: BTreeSet<String>,
    known: BTreeSet<String>,
}

impl Words {
    /// Whether the sentences or the table have the word ("there's": "there").
    fn knows(&self, word: &str) -> bool {
        self.known.contains(word)
            || word
                .split_once('\'')
                .is_some_and(|(stem, _)| self.known.contains(stem))
    }
}

/// Every word a template or list of the sentences has, and the table's words.
fn known_words(grammar: &Grammar, vocabulary: &[TableWord]) -> Words {
    let verbs = grammar.words_of_rules(|name| name.ends_with("_verb"));
    let mut known = grammar.words.clone();
    known.extend(verbs.iter().cloned());
    // "don't", "i'd", "cuz": written short, known in full; never a misheard verb.
    known.extend(grammar.normalize.contractions.keys().cloned());
    known.extend(vocabulary.iter().map(|t| t.word.clone()));
    // What may come before a request's verb: "can you", "could you please" ...
    let openers = grammar.words_of_rules(|name| name == "lead" || name == "can_you");
    Words {
        verbs,
        openers,
        known,
    }
}

/// Words and word pairs in doubt that sound like one of the table's words; in
/// a turn no sentence matched, words unknown to the sentences that sound nearly
/// like a table word, or, where a request's verb goes (first, or after "can
/// you" and a name), like one of the sentences' verbs ("force some" → pour some).
fn candidates(
    tokens: &[Token],
    vocabulary: &[TableWord],
    words: &Words,
    doubt: &Doubt,
    world: &World,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    for at in 0..tokens.len() {
        for len in 1..=2 {
            let Some(span) = tokens.get(at..at + len) else {
                continue;
            };
            let unknown = span.iter().all(|t| !words.knows(&t.word));
            let in_doubt = span.iter().all(|t| doubt.words.contains(&t.word));
            let needed = match (in_doubt, doubt.unread && unknown) {
                (true, _) => DOUBTFUL_WORD_SIMILARITY,
                (false, true) => UNREAD_WORD_SIMILARITY,
                (false, false) => continue,
            };
            let heard: Vec<&str> = span.iter().map(|t| t.word.as_str()).collect();
            let heard = heard.join(" ");
            let table = vocabulary
                .iter()
                .map(|v| (spoken_form(v, world), similarity(&heard, &v.word)))
                .filter(|(_, s)| *s >= needed)
                .max_by(|a, b| a.1.total_cmp(&b.1));
            out.extend(table.map(|(target, similarity)| Candidate {
                at,
                len,
                target,
                similarity,
            }));
            let opens = tokens[..at].iter().all(|t| {
                words.openers.contains(&t.word)
                    || vocabulary
                        .iter()
                        .any(|v| v.word == t.word && v.role == WordRole::Name)
            });
            if at == 0 && len == 1 && doubt.unread && unknown {
                out.push(Candidate {
                    at,
                    len,
                    target: String::new(),
                    similarity: UNKNOWN_FIRST_WORD_RANK,
                });
            }
            if len == 1 && doubt.unread && unknown && opens {
                out.extend(
                    verbs_like(&heard, words)
                        .into_iter()
                        .map(|(target, similarity)| Candidate {
                            at,
                            len,
                            target,
                            similarity,
                        }),
                );
            }
        }
    }
    out
}

/// The sentences' verbs that `heard` sounds most like, when alike enough.
fn verbs_like(heard: &str, words: &Words) -> Vec<(String, f32)> {
    let mut alike: Vec<(String, f32)> = words
        .verbs
        .iter()
        .filter(|w| w.len() >= 3 && w.as_str() != heard)
        .map(|w| (w.clone(), similarity(heard, w)))
        .filter(|(_, s)| *s >= VERB_SIMILARITY)
        .collect();
    alike.sort_by(|a, b| b.1.total_cmp(&a.1));
    alike.truncate(VERBS_PER_WORD);
    alike
}

/// A name as people write it (`Daniel`), other words in lower case.
fn spoken_form(word: &TableWord, world: &World) -> String {
    match word.role {
        WordRole::Name => world
            .persons()
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(&word.word))
            .map_or_else(|| word.word.clone(), |p| p.name.clone()),
        WordRole::Thing => word.word.clone(),
    }
}

/// The text with the candidates' words replaced.
fn apply(text: &str, tokens: &[Token], replacements: &[Candidate]) -> String {
    let mut sorted: Vec<&Candidate> = replacements.iter().collect();
    sorted.sort_by_key(|c| std::cmp::Reverse(c.at));
    let mut out = text.to_string();
    for c in sorted {
        let (start, end) = (tokens[c.at].start, tokens[c.at + c.len - 1].end);
        out.replace_range(start..end, &c.target);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn correct(scene: &str, speaker: &str, listener: &str, text: &str) -> Corrected {
        let world = crate::twin::scene::load(scene).unwrap();
        let stage = crate::language::Language::english()
            .unwrap()
            .understanding()
            .clone();
        stage.correct_hearing(
            &world,
            &[],
            &Utterance {
                speaker,
                listener,
                text,
            },
        )
    }

    #[test]
    fn a_contraction_is_a_known_word_not_a_misheard_verb() {
        let c = correct(
            "dinner",
            "Felix",
            "Daniel",
            "Why don't skeletons drink wine, they have nobody to drink with.",
        );
        assert!(c.corrections.is_empty(), "{:?}", c.corrections);
    }

    #[test]
    fn a_mangled_first_word_is_left_out_when_the_rest_then_reads() {
        let c = correct(
            "softdrinks",
            "Felix",
            "Daniel",
            "Chain there's only cola and fanta.",
        );
        assert_eq!(c.corrections.len(), 1, "{:?}", c.corrections);
        assert_eq!(c.corrections[0].heard, "Chain");
        // A first word the sentences know stays.
        let c = correct("softdrinks", "Felix", "Daniel", "Felix, there's only cola.");
        assert!(c.corrections.is_empty(), "{:?}", c.corrections);
    }

    #[test]
    fn tokens_keep_their_places() {
        let t = tokens("Then you'll, pass the 'mud'!");
        let words: Vec<&str> = t.iter().map(|t| t.word.as_str()).collect();
        assert_eq!(words, ["then", "you'll", "pass", "the", "mud"]);
        assert_eq!(&"Then you'll, pass the 'mud'!"[t[4].start..t[4].end], "mud");
    }

    #[test]
    fn a_misheard_drink_is_read_as_the_table_has_it() {
        let c = correct(
            "softdrinks",
            "Felix",
            "the_robot",
            "Can you pour me some phantom?",
        );
        assert_eq!(c.text, "Can you pour me some fanta?");
        assert_eq!(
            c.corrections,
            [Correction {
                heard: "phantom".into(),
                read_as: "fanta".into()
            }]
        );
    }

    #[test]
    fn a_misheard_verb_is_read_as_the_sentences_have_it() {
        let c = correct(
            "coffee",
            "Daniel",
            "the_robot",
            "force some coffee into my cup",
        );
        assert_eq!(
            c.text, "pour some coffee into my cup",
            "{:?}",
            c.corrections
        );
    }

    #[test]
    fn right_text_is_left_alone() {
        for text in [
            "Daniel, could you pass me the cola?",
            "thanks, that was the last one",
            "I think it will rain later",
            // Remarks from the development set that an earlier version "corrected".
            "My phone is over there next to you. Can you pass it?",
            "There's plenty of milk, look, and oatmilk too.",
            "I'm off dairy since last week, doctors' hoarders.",
            "I'm trying to cut down on sugar this month.",
        ] {
            let c = correct("softdrinks", "Felix", "Daniel", text);
            assert_eq!(c.text, text, "{:?}", c.corrections);
        }
    }

    #[test]
    fn nothing_is_corrected_toward_what_the_table_lacks() {
        // The coffee table has no fanta: "phantom" stays.
        let c = correct(
            "coffee",
            "Felix",
            "the_robot",
            "Can you pour me some phantom?",
        );
        assert!(
            c.corrections.iter().all(|x| x.read_as != "fanta"),
            "{:?}",
            c.corrections
        );
    }
}
