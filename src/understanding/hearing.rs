//! Correcting what the recogniser got nearly right, toward the table: a word or
//! word pair that sounds like one of the table's words ("mud" → mug, "phantom"
//! → fanta, "call as" → cola) is replaced when the understanding stage then
//! reads the turn better — never toward a word the table does not have.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use serde::Serialize;

use super::grammar::Grammar;
use super::reading::{Act, Reading};
use super::template::literal_words;
use super::{Understanding, Utterance};
use crate::phonetic::similarity;
use crate::twin::vocabulary::{table_words, TableWord, WordRole};
use crate::twin::World;

/// How alike a word the templates and the table do not know must sound to a
/// table word to be tried in its place.
const UNKNOWN_WORD_SIMILARITY: f32 = 0.6;
/// The same for a word the templates know ("last" may be meant): only a
/// strictly better reading takes it.
const KNOWN_WORD_SIMILARITY: f32 = 0.66;
/// An unknown word this alike is replaced even when the reading stays as good
/// (a name that only the listener depends on).
const SURE_SIMILARITY: f32 = 0.8;
/// How alike a word the sentences do not have must sound to one of their words
/// ("has" → pass) when it is a word of their own.
const SENTENCE_WORD_SIMILARITY: f32 = 0.66;
/// Most replacements tried per turn (each costs one reading, well under 1 ms).
const MAX_TRIES: usize = 64;
/// Sentence words tried in place of one heard word.
const SENTENCE_WORDS_PER_WORD: usize = 4;

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
    /// Taken even when the reading stays as good: an unknown word that sounds
    /// nearly like a table word.
    sure: bool,
}

impl Understanding {
    /// The turn's text corrected toward the table's vocabulary where the
    /// reading gets better; `earlier` gives "it" its meaning as in reading.
    pub fn correct_hearing(
        &self,
        world: &World,
        earlier: &[Utterance<'_>],
        turn: &Utterance<'_>,
    ) -> Corrected {
        let tokens = tokens(turn.text);
        let vocabulary = table_words(world);
        let words = known_words(self.grammar(), &vocabulary);
        let mut candidates = candidates(&tokens, &vocabulary, &words, world);
        // The table's words first when sure, then by how alike they sound.
        candidates.sort_by(|a, b| {
            b.sure
                .cmp(&a.sure)
                .then(b.similarity.total_cmp(&a.similarity))
                .then(a.len.cmp(&b.len))
        });
        let read = |text: &str| self.read_in_dialogue(world, earlier, &Utterance { text, ..*turn });
        let heard = read(turn.text);
        let mut best = quality(&heard);
        // A turn the stage reads in full is left as heard, but for sure names;
        // a remark becomes a request only when something of the table was heard as said.
        let read_in_full = best.0 && best.2 == Reverse(0);
        let anchored = tokens
            .iter()
            .any(|t| vocabulary.iter().any(|v| v.word == t.word));
        let mut taken: Vec<Candidate> = Vec::new();
        for candidate in candidates.into_iter().take(MAX_TRIES) {
            let overlaps = taken
                .iter()
                .any(|t| candidate.at < t.at + t.len && t.at < candidate.at + candidate.len);
            if overlaps {
                continue;
            }
            let mut trial = taken.clone();
            trial.push(candidate.clone());
            let reading = read(&apply(turn.text, &tokens, &trial));
            let score = quality(&reading);
            let invents_a_request =
                reading.act.is_request() && !heard.act.is_request() && !anchored;
            let allowed = candidate.sure || !invents_a_request;
            let better = score > best && (!read_in_full || candidate.sure);
            if allowed && (better || (score >= best && candidate.sure)) {
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
    known: BTreeSet<String>,
}

/// Every word a template or list of the sentences has, and the table's words.
fn known_words(grammar: &Grammar, vocabulary: &[TableWord]) -> Words {
    let mut known = BTreeSet::new();
    for sentence in &grammar.sentences {
        literal_words(&sentence.elements, &mut known);
    }
    for phrases in grammar.lists.values() {
        for (_, words) in phrases {
            known.extend(words.iter().map(|w| w.to_lowercase()));
        }
    }
    known.extend(grammar.verbs.iter().cloned());
    known.extend(vocabulary.iter().map(|t| t.word.clone()));
    Words {
        verbs: grammar.verbs.clone(),
        known,
    }
}

/// Words and word pairs that sound like one of the table's words, and single
/// words that sound like a word of the sentences ("has me" → pass me).
fn candidates(
    tokens: &[Token],
    vocabulary: &[TableWord],
    words: &Words,
    world: &World,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    for at in 0..tokens.len() {
        for len in 1..=2 {
            let Some(span) = tokens.get(at..at + len) else {
                continue;
            };
            if span
                .iter()
                .any(|t| vocabulary.iter().any(|v| v.word == t.word))
            {
                continue; // a table word is never replaced
            }
            let unknown = span.iter().all(|t| !words.known.contains(&t.word));
            let heard: Vec<&str> = span.iter().map(|t| t.word.as_str()).collect();
            let heard = heard.join(" ");
            let needed = if unknown {
                UNKNOWN_WORD_SIMILARITY
            } else {
                KNOWN_WORD_SIMILARITY
            };
            let table = vocabulary
                .iter()
                .map(|v| (spoken_form(v, world), similarity(&heard, &v.word)))
                .filter(|(_, s)| *s >= needed)
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((target, similarity)) = table {
                out.push(Candidate {
                    at,
                    len,
                    target,
                    similarity,
                    sure: unknown && similarity >= SURE_SIMILARITY,
                });
            }
            if len == 1 && heard.len() >= 3 {
                out.extend(sentence_words(&heard, unknown, words).into_iter().map(
                    |(target, similarity)| Candidate {
                        at,
                        len,
                        target,
                        similarity,
                        sure: false,
                    },
                ));
            }
        }
    }
    out
}

/// The sentences' verbs that `heard` sounds most like, when alike enough.
fn sentence_words(heard: &str, unknown: bool, words: &Words) -> Vec<(String, f32)> {
    let needed = if unknown {
        KNOWN_WORD_SIMILARITY
    } else {
        SENTENCE_WORD_SIMILARITY
    };
    let mut alike: Vec<(String, f32)> = words
        .verbs
        .iter()
        .filter(|w| w.len() >= 3 && w.as_str() != heard)
        .map(|w| (w.clone(), similarity(heard, w)))
        .filter(|(_, s)| *s >= needed)
        .collect();
    alike.sort_by(|a, b| b.1.total_cmp(&a.1));
    alike.truncate(SENTENCE_WORDS_PER_WORD);
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
        let stage = Understanding::shipped().unwrap();
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
        let c = correct("dinner", "Daniel", "Felix", "has me the wine bottle first");
        assert_eq!(
            c.text, "pass me the wine bottle first",
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
