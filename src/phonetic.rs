//! How alike two words sound, for words a recogniser got nearly right ("mud" for
//! mug, "phantom" for fanta, "then you'll" for Daniel). English spelling is
//! reduced to a sound key — consonants by place and manner, every vowel group
//! one vowel — and keys are compared by edit distance.

/// A sound key: one symbol per consonant sound, `a` per vowel group.
pub fn sound_key(text: &str) -> Vec<char> {
    let letters: Vec<char> = text
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .collect();
    let mut key: Vec<char> = Vec::with_capacity(letters.len());
    let mut i = 0;
    while i < letters.len() {
        let c = letters[i];
        let next = letters.get(i + 1).copied();
        let (symbol, used) = match (c, next) {
            ('p', Some('h')) => ('f', 2),
            ('t' | 'd', Some('h')) => ('t', 2),
            ('c' | 's', Some('h')) => ('j', 2),
            ('c', Some('k')) => ('k', 2),
            ('q', Some('u')) => ('k', 2),
            ('w', Some('h')) => ('w', 2),
            ('g', Some('h')) => ('h', 2),
            ('c', Some('e' | 'i' | 'y')) => ('s', 1),
            ('x', _) => ('s', 1), // "ks": the s carries the word
            ('a' | 'e' | 'i' | 'o' | 'u', _) => ('a', 1),
            // y between consonants, or at the end, is a vowel ("lily", "tyre").
            ('y', n) if i > 0 && !n.is_some_and(is_vowel) => ('a', 1),
            ('b' | 'p', _) => ('p', 1),
            ('d' | 't', _) => ('t', 1),
            ('g' | 'k' | 'c', _) => ('k', 1),
            ('f' | 'v', _) => ('f', 1),
            ('s' | 'z', _) => ('s', 1),
            ('j', _) => ('j', 1),
            (other, _) => (other, 1),
        };
        // Doubled letters and vowel groups are one sound; a final silent e adds none.
        let silent_e = symbol == 'a' && c == 'e' && i + 1 == letters.len() && key.len() > 1;
        if key.last() != Some(&symbol) && !silent_e {
            key.push(symbol);
        }
        i += used;
    }
    key
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// Sound similarity of two words or phrases, 0..1 (1: the same key).
pub fn similarity(a: &str, b: &str) -> f32 {
    let (ka, kb) = (sound_key(a), sound_key(b));
    let longest = ka.len().max(kb.len());
    if longest == 0 {
        return 0.0;
    }
    1.0 - edit_distance(&ka, &kb) as f32 / longest as f32
}

/// Edit distance (substitutions, deletions, insertions) between two sequences.
pub fn edit_distance<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mishearings_sound_alike() {
        for (heard, meant) in [
            ("mud", "mug"),
            ("phantom", "fanta"),
            ("call as", "cola"),
            ("color", "cola"),
            ("Askar", "Oskar"),
            ("Lina", "Lena"),
            ("then you'll", "Daniel"),
            ("part", "pot"),
            ("teeth", "tea"),
        ] {
            let s = similarity(heard, meant);
            assert!(s >= 0.6, "{heard} ~ {meant}: {s}");
        }
        // A lost first consonant and a swapped last one: alike, less so.
        assert!(similarity("last", "glass") >= 0.5);
    }

    #[test]
    fn different_words_do_not() {
        for (a, b) in [
            ("glass", "bottle"),
            ("milk", "coffee"),
            ("Felix", "Daniel"),
            ("could", "fanta"),
            ("please", "cola"),
        ] {
            let s = similarity(a, b);
            assert!(s < 0.5, "{a} ~ {b}: {s}");
        }
        assert_eq!(similarity("", ""), 0.0);
        assert_eq!(similarity("Fanta", "fanta"), 1.0);
    }
}
