//! How alike two words sound, for words a recogniser got nearly right ("mud" for
//! mug, "phantom" for fanta, "then you'll" for Daniel). English spelling is
//! reduced to a sound key — consonants by place and manner, vowel groups by
//! three coarse qualities — and keys are compared by a weighted edit distance
//! in which vowels and near consonants cost less than a different consonant.

/// One sound of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sound {
    /// A consonant class (`p` for p/b, `t` for t/d, `k` for k/g/c, `θ` for th ...).
    Consonant(char),
    /// A vowel group: `a` open, `e` front (e, i, y), `o` back (o, u).
    Vowel(char),
}

/// A sound key of English spelling.
fn sound_key(text: &str) -> Vec<Sound> {
    let letters: Vec<char> = text
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .collect();
    let mut key: Vec<Sound> = Vec::with_capacity(letters.len());
    let mut i = 0;
    while i < letters.len() {
        let (sound, used) = sound_at(&letters, i);
        // Doubled letters and vowel groups are one sound; a final silent e adds none.
        let silent_e = letters[i] == 'e' && i + 1 == letters.len() && key.len() > 1;
        let repeat = match (key.last(), sound) {
            (Some(Sound::Vowel(_)), Sound::Vowel(_)) => true,
            (Some(last), now) => *last == now,
            (None, _) => false,
        };
        if !repeat && !silent_e {
            key.push(sound);
        }
        i += used;
    }
    key
}

/// The sound at `letters[i]` and how many letters it takes.
fn sound_at(letters: &[char], i: usize) -> (Sound, usize) {
    use Sound::{Consonant as C, Vowel as V};
    let next = letters.get(i + 1).copied();
    match (letters[i], next) {
        ('p', Some('h')) => (C('f'), 2),
        ('t', Some('h')) => (C('θ'), 2),
        ('c' | 's', Some('h')) => (C('j'), 2),
        ('c', Some('k')) => (C('k'), 2),
        ('q', Some('u')) => (C('k'), 2),
        ('w', Some('h')) => (C('w'), 2),
        ('g', Some('h')) => (C('h'), 2),
        ('c', Some('e' | 'i' | 'y')) => (C('s'), 1),
        ('x', _) => (C('s'), 1),
        ('a', _) => (V('a'), 1),
        ('e' | 'i', _) => (V('e'), 1),
        ('o' | 'u', _) => (V('o'), 1),
        // y between consonants, or at the end, is a vowel ("lily", "tyre").
        ('y', n) if i > 0 && !n.is_some_and(|c| "aeiou".contains(c)) => (V('e'), 1),
        ('b' | 'p', _) => (C('p'), 1),
        ('d' | 't', _) => (C('t'), 1),
        ('g' | 'k' | 'c', _) => (C('k'), 1),
        ('f' | 'v', _) => (C('f'), 1),
        ('s' | 'z', _) => (C('s'), 1),
        (other, _) => (C(other), 1),
    }
}

/// Cost of hearing `b` for `a`.
fn substitution(a: Sound, b: Sound) -> f32 {
    use Sound::{Consonant as C, Vowel as V};
    match (a, b) {
        _ if a == b => 0.0,
        (V(_), V(_)) => 0.4,
        (C('θ'), C('t')) | (C('t'), C('θ')) => 0.5,
        (C('m'), C('n')) | (C('n'), C('m')) => 0.6,
        (C('p'), C('f')) | (C('f'), C('p')) => 0.6,
        // Stops heard at another place ("cuts" for "cups"), the commonest slip.
        (C('p' | 't' | 'k'), C('p' | 't' | 'k')) => 0.7,
        _ => 1.0,
    }
}

/// Cost of a sound heard that was not said, or lost.
fn insertion(s: Sound) -> f32 {
    match s {
        Sound::Vowel(_) | Sound::Consonant('y' | 'w' | 'h') => 0.5,
        Sound::Consonant(_) => 1.0,
    }
}

/// Sound similarity of two words or phrases, 0..1 (1: the same key).
pub fn similarity(a: &str, b: &str) -> f32 {
    let (ka, kb) = (sound_key(a), sound_key(b));
    let longest = ka.len().max(kb.len());
    if longest == 0 {
        return 0.0;
    }
    (1.0 - distance(&ka, &kb) / longest as f32).max(0.0)
}

/// Weighted edit distance between two sound keys.
fn distance(ka: &[Sound], kb: &[Sound]) -> f32 {
    let mut row: Vec<f32> = std::iter::once(0.0)
        .chain(kb.iter().scan(0.0, |sum, s| {
            *sum += insertion(*s);
            Some(*sum)
        }))
        .collect();
    for x in ka {
        let mut diagonal = row[0];
        row[0] += insertion(*x);
        for (j, y) in kb.iter().enumerate() {
            let replaced = diagonal + substitution(*x, *y);
            diagonal = row[j + 1];
            row[j + 1] = replaced
                .min(row[j] + insertion(*y))
                .min(row[j + 1] + insertion(*x));
        }
    }
    row[kb.len()]
}

/// Most sounds at the end of a word a recogniser may drop ("fan" for fanta).
const LOST_ENDING: usize = 2;
/// Fewest sounds heard before such an ending.
const KEPT_BEFORE_A_LOST_ENDING: usize = 3;
/// Cost of each sound of a lost ending.
const LOST_ENDING_COST: f32 = 0.25;

/// As [`similarity`], but `meant`'s last sound or two, unheard, cost little:
/// recognisers drop a word's weak last syllable ("fan" for fanta, whose
/// vowel alone would make it "phone"). Never below [`similarity`].
pub fn similarity_losing_the_end(heard: &str, meant: &str) -> f32 {
    let (kh, km) = (sound_key(heard), sound_key(meant));
    let longest = kh.len().max(km.len());
    if longest == 0 {
        return 0.0;
    }
    let whole = (1.0 - distance(&kh, &km) / longest as f32).max(0.0);
    // A weak last syllable is open: it ends on a vowel ("-ta", "-a"), never
    // on a consonant ("smart-phone" is no "sword").
    let open_ending = matches!(km.last(), Some(Sound::Vowel(_)));
    if kh.len() < KEPT_BEFORE_A_LOST_ENDING || km.len() <= kh.len() || !open_ending {
        return whole;
    }
    let longest = longest as f32;
    (km.len()
        .saturating_sub(LOST_ENDING)
        .max(KEPT_BEFORE_A_LOST_ENDING)..km.len())
        .map(|kept| {
            let lost = (km.len() - kept) as f32 * LOST_ENDING_COST;
            let prefix = distance(&kh, &km[..kept]);
            1.0 - (prefix + lost) / longest
        })
        .fold(whole, f32::max)
        .max(0.0)
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
            ("fan to", "fanta"),
            ("coal a", "cola"),
            ("cuts", "cups"),
        ] {
            let s = similarity(heard, meant);
            assert!(s >= 0.6, "{heard} ~ {meant}: {s}");
        }
        // A stop at another place is nearer than a stop for a glide.
        assert!(similarity("cut", "cup") > similarity("cut", "cow"));
        // A lost first consonant: alike, less so.
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
            assert!(s < 0.6, "{a} ~ {b}: {s}");
        }
        assert_eq!(similarity("", ""), 0.0);
        assert_eq!(similarity("Fanta", "fanta"), 1.0);
    }

    #[test]
    fn a_lost_last_syllable_costs_little() {
        let fan = |meant| similarity_losing_the_end("fan", meant);
        assert!(
            fan("fanta") > fan("phone"),
            "{} {}",
            fan("fanta"),
            fan("phone")
        );
        assert_eq!(
            similarity_losing_the_end("mud", "mug"),
            similarity("mud", "mug")
        );
        // Too little heard to tell: "be" is not "beer".
        assert_eq!(
            similarity_losing_the_end("be", "beer"),
            similarity("be", "beer")
        );
        // Only an open syllable is weak.
        let sword = |meant| similarity_losing_the_end("sword", meant);
        assert_eq!(sword("smartphone"), similarity("sword", "smartphone"));
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance(&[1, 2, 3], &[1, 3]), 1);
        assert_eq!(edit_distance::<u8>(&[], &[1, 2]), 2);
    }
}
