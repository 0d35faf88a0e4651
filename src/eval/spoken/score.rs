//! How well a turn was heard: word errors against the script's text, the
//! table's names heard right, the listener found from a vocative.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::twin::vocabulary::TableWord;

/// The hearing figures of one turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HearingScore {
    /// Words of the script's text.
    pub words: usize,
    /// Substitutions, deletions and insertions against it.
    pub word_errors: usize,
    /// Occurrences of the table's names (people, objects, contents) in the script's text.
    pub names: usize,
    /// Of those, heard.
    pub names_heard: usize,
    /// Whether the script's text names its listener at the start (a vocative).
    pub vocative: bool,
    /// The listener found from the heard text is the script's.
    pub listener_right: bool,
    /// No turn came out of the audio.
    pub not_heard: bool,
}

/// Words for scoring: lower case, punctuation gone, small numbers as words.
pub fn score_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .map(|w| number_word(w).unwrap_or(w).to_string())
        .collect()
}

fn number_word(w: &str) -> Option<&'static str> {
    const WORDS: [&str; 11] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    w.parse::<usize>().ok().and_then(|n| WORDS.get(n).copied())
}

/// Word-level edit distance (substitutions, deletions, insertions).
pub fn word_errors(reference: &[String], heard: &[String]) -> usize {
    crate::phonetic::edit_distance(reference, heard)
}

/// Names of the table in `reference`, and how many of them `heard` has too
/// (each occurrence counted once).
pub fn names_heard(
    reference: &[String],
    heard: &[String],
    vocabulary: &[TableWord],
) -> (usize, usize) {
    let is_name = |w: &String| vocabulary.iter().any(|t| t.word == *w);
    let mut wanted: BTreeMap<&String, usize> = BTreeMap::new();
    for w in reference.iter().filter(|w| is_name(w)) {
        *wanted.entry(w).or_default() += 1;
    }
    let total = wanted.values().sum();
    let found = wanted
        .iter()
        .map(|(w, n)| (*n).min(heard.iter().filter(|h| h == w).count()))
        .sum();
    (total, found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twin::vocabulary::WordRole;

    fn w(text: &str) -> Vec<String> {
        score_words(text)
    }

    #[test]
    fn word_errors_count_edits() {
        assert_eq!(
            word_errors(&w("pass me the mug"), &w("Pass me the mug.")),
            0
        );
        assert_eq!(word_errors(&w("pass me the mug"), &w("pass me the mud")), 1);
        assert_eq!(
            word_errors(&w("daniel could you"), &w("then you'll could you")),
            2
        );
        assert_eq!(word_errors(&w("a b c"), &[]), 3);
        assert_eq!(word_errors(&[], &w("a b")), 2);
        assert_eq!(w("give me 2 cups"), w("give me two cups"));
    }

    #[test]
    fn names_are_counted_per_occurrence() {
        let vocabulary = ["fanta", "daniel"].map(|x| TableWord {
            word: x.into(),
            role: WordRole::Thing,
        });
        let (total, found) = names_heard(
            &w("Daniel, the fanta and the fanta"),
            &w("then you'll, the fanta and the phantom"),
            &vocabulary,
        );
        assert_eq!((total, found), (3, 1));
    }
}
