//! A kind left out: "Are there enough cups out? How many are there?" counts
//! the cups, "Somebody's gone off with a cup, there's only one left" claims
//! one cup. The kind an earlier part of the turn named is put where the
//! language's `[normalize] kind_left_out` patterns say it was left out.

use super::lexicon::Lexicon;
use super::normalize::Words;

/// The parts with the kind put back into those that left it out.
pub fn kind_put_back(
    patterns: &[String],
    lexicon: &Lexicon<'_>,
    mut parts: Vec<Vec<Words>>,
) -> Vec<Vec<Words>> {
    let patterns: Vec<Vec<&str>> = patterns
        .iter()
        .map(|p| p.split_whitespace().collect())
        .collect();
    let mut kind: Option<String> = None;
    for variants in &mut parts {
        if let Some(kind) = &kind {
            for words in variants.iter_mut() {
                if let Some(filled) = patterns
                    .iter()
                    .find_map(|p| filled_in(p, &words.words, kind))
                {
                    words.breaks.insert(filled.1, false);
                    words.words = filled.0;
                }
            }
        }
        if let Some(named) = variants.last().and_then(|w| head_kind(lexicon, &w.words)) {
            kind = Some(named);
        }
    }
    parts
}

/// The last word of the table's things that ends a run of them ("the red
/// glass": "glass"), as the earlier part said it.
fn head_kind(lexicon: &Lexicon<'_>, words: &[String]) -> Option<String> {
    (0..words.len())
        .rev()
        .find(|&at| {
            lexicon.is_thing_word(&words[at])
                && words
                    .get(at + 1)
                    .is_none_or(|next| !lexicon.is_thing_word(next))
        })
        .map(|at| words[at].clone())
}

/// `words` with `kind` put where `pattern` (which they open) has `_`, and where.
fn filled_in(pattern: &[&str], words: &[String], kind: &str) -> Option<(Vec<String>, usize)> {
    let said: Vec<&&str> = pattern.iter().filter(|p| **p != "_").collect();
    if words.len() < said.len() {
        return None;
    }
    let opens = said
        .iter()
        .zip(words)
        .all(|(p, w)| **p == "#" || **p == w.as_str());
    let at = pattern.iter().position(|p| *p == "_")?;
    if !opens {
        return None;
    }
    let mut filled = words.to_vec();
    filled.insert(at, kind.to_string());
    Some((filled, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn the_kind_goes_where_the_pattern_leaves_it_out() {
        let pattern = ["there", "is", "only", "#", "_", "left"];
        let (filled, at) = filled_in(
            &pattern,
            &words("there is only one left on the table"),
            "cup",
        )
        .unwrap();
        assert_eq!(filled.join(" "), "there is only one cup left on the table");
        assert_eq!(at, 4);
        assert!(filled_in(&pattern, &words("there is only one cup left"), "cup").is_none());
        assert!(filled_in(&pattern, &words("there is"), "cup").is_none());
    }
}
