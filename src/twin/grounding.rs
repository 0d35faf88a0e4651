//! Name grounding: matching what the LLM or a person said ("the fanta bottle",
//! "Cola Zero", "glasses") to scene entities, leniently but never by guessing.
//!
//! A query matches an entity when every word of it is one of the entity's
//! name words, kind words or property words. Among matches, the one whose
//! name has the fewest distinguishing words left unsaid wins ("cola" is the
//! cola bottle, not the cola zero bottle); a tie is ambiguous and returns the
//! candidates. Misspelt words are corrected to the nearest known word first.

use std::borrow::Cow;
use std::collections::BTreeSet;

use super::{ObjectId, PersonId, World};

/// Words that carry no meaning for grounding.
const FILLER_WORDS: &[&str] = &[
    "the", "a", "an", "some", "my", "your", "his", "her", "their", "our", "this", "that", "these",
    "those", "of", "please", "me", "to", "for",
];

/// What a name resolved to, or why it did not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grounding<T> {
    /// Exactly one entity.
    Resolved(T),
    /// Several entities fit equally well.
    Ambiguous(Vec<T>),
    /// None fits; the closest names first.
    Unknown { closest: Vec<T> },
}

/// Who a `person_name` argument can mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addressee {
    /// A person at the table.
    Person(PersonId),
    /// The robot itself.
    Robot,
    /// Everyone.
    All,
}

/// Splits a name or phrase into normalised words.
pub fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !FILLER_WORDS.contains(w))
        .map(str::to_string)
        .collect()
}

/// The nouns people call an object by its kind: the last word of each of the
/// kind's phrases ("bottle" of "cola bottle", "carafe").
pub fn kind_heads(o: &super::world::Object) -> impl Iterator<Item = String> + '_ {
    o.kind.words.iter().filter_map(|phrase| words(phrase).pop())
}

/// The words an object answers to in a filter: its properties (as written
/// and split into words) and its name's words, lower case.
pub fn object_words(o: &super::world::Object) -> Vec<String> {
    let mut out: Vec<String> = o.properties.iter().map(|p| p.to_lowercase()).collect();
    out.extend(o.properties.iter().flat_map(|p| words(p)));
    out.extend(words(&o.name));
    out
}

struct Entry<T> {
    id: T,
    name: String,
    name_words: Vec<String>,
    kind_words: Vec<String>,
    /// What people call the kind ("glass"), without the kind's own name
    /// ("wine_glass"): only these words may go unsaid without a penalty.
    spoken_kind_words: Vec<String>,
    property_words: Vec<String>,
    /// Words that only lead another in the kind's phrases ("bottle" of "bottle
    /// opener"): a query that ends with one does not name this thing.
    modifier_words: Vec<String>,
}

impl<T> Entry<T> {
    /// Whether people say `word` for this thing: a word of its name, its
    /// properties or what people call its kind.
    fn says(&self, word: &str) -> bool {
        self.name_words
            .iter()
            .chain(&self.spoken_kind_words)
            .chain(&self.property_words)
            .any(|v| v == word)
    }

    fn vocabulary(&self) -> impl Iterator<Item = &String> {
        self.name_words
            .iter()
            .chain(&self.kind_words)
            .chain(&self.property_words)
    }
}

fn object_entries(world: &World) -> Vec<Entry<ObjectId>> {
    world
        .object_ids()
        .map(|id| {
            let object = world.object(id);
            let spoken_kind_words: Vec<String> =
                object.kind.words.iter().flat_map(|w| words(w)).collect();
            let mut kind_words = spoken_kind_words.clone();
            kind_words.extend(words(&object.kind.name));
            let name_words = words(&object.name);
            let property_words: Vec<String> =
                object.properties.iter().flat_map(|p| words(p)).collect();
            let heads: BTreeSet<String> = kind_heads(object)
                .chain(name_words.iter().cloned())
                .chain(property_words.iter().cloned())
                .collect();
            let modifier_words = spoken_kind_words
                .iter()
                .filter(|w| !heads.contains(*w))
                .cloned()
                .collect();
            Entry {
                id,
                name: object.name.clone(),
                name_words,
                kind_words,
                spoken_kind_words,
                property_words,
                modifier_words,
            }
        })
        .collect()
}

fn resolve<T: Copy>(entries: &[Entry<T>], query: &str) -> Grounding<T> {
    let exact: Vec<T> = entries
        .iter()
        .filter(|e| e.name.eq_ignore_ascii_case(query.trim()))
        .map(|e| e.id)
        .collect();
    if exact.len() == 1 {
        return Grounding::Resolved(exact[0]);
    }
    let query_words = corrected_words(entries, query);
    if query_words.is_empty() {
        return Grounding::Unknown {
            closest: entries.iter().map(|e| e.id).collect(),
        };
    }
    let mut scored = scored(entries, &query_words);
    scored.sort_by_key(|(penalty, _)| *penalty);
    match scored.first() {
        None => Grounding::Unknown {
            closest: closest(entries, query),
        },
        Some(&(best, _)) => {
            let winners: Vec<T> = scored
                .iter()
                .filter(|(p, _)| *p == best)
                .map(|(_, id)| *id)
                .collect();
            if winners.len() == 1 {
                Grounding::Resolved(winners[0])
            } else {
                Grounding::Ambiguous(winners)
            }
        }
    }
}

/// Every entry all of whose query words it has, with its penalty: the
/// distinguishing name words the query left unsaid.
fn scored<T: Copy>(entries: &[Entry<T>], query_words: &[String]) -> Vec<(usize, T)> {
    let fitting: Vec<&Entry<T>> = entries
        .iter()
        .filter(|e| query_words.iter().all(|q| e.vocabulary().any(|v| v == q)))
        .collect();
    // A word only the kind's own name has ("glass" of `dimpled_glass_cider_jug`)
    // is no word people use for it: such a fit counts only when nothing else fits.
    let spoken: Vec<&Entry<T>> = fitting
        .iter()
        .copied()
        .filter(|e| query_words.iter().all(|q| e.says(q)))
        .collect();
    let fitting = if spoken.is_empty() { fitting } else { spoken };
    fitting
        .into_iter()
        .filter(|e| {
            query_words
                .last()
                .is_none_or(|q| !e.modifier_words.contains(q))
        })
        .map(|e| {
            // Name words beyond the kind that the query left unsaid; a property word
            // ("coke") matches but does not say a name word ("cola").
            let unsaid = e
                .name_words
                .iter()
                .filter(|w| !e.spoken_kind_words.contains(w) && !query_words.contains(w))
                .count();
            (unsaid, e.id)
        })
        .collect()
}

/// Every object the words fit, however many name words they leave unsaid
/// ("bottles": the cola, the cola zero and the fanta bottle): what a count counts.
pub fn objects_fitting(world: &World, query: &str) -> Vec<ObjectId> {
    let entries = object_entries(world);
    let query_words = corrected_words(&entries, query);
    if query_words.is_empty() {
        return Vec::new();
    }
    scored(&entries, &query_words)
        .into_iter()
        .map(|(_, id)| id)
        .collect()
}

/// How alike a short word must sound to a known one for one letter put for
/// another to be a slip ("bear" for beer, "bazil" for basil).
const SHORT_WORD_SOUND: f32 = 0.85;

/// How far apart two spellings are for correcting one into the other: the
/// Damerau-Levenshtein distance, except that in a short word (five letters or
/// fewer) one letter put for another that changes its sound is no slip but
/// another word ("cake" is no "case", "well" no "bell"); a letter missing,
/// doubled or swapped is, and so is one that sounds the same ("bear").
pub fn spelling_distance(word: &str, known: &str) -> usize {
    let d = strsim::damerau_levenshtein(word, known);
    let short = word.chars().count() <= 5;
    let substituted = || {
        let (mut a, mut b): (Vec<char>, Vec<char>) =
            (word.chars().collect(), known.chars().collect());
        a.sort_unstable();
        b.sort_unstable();
        a.len() == b.len() && a != b
    };
    if d == 1
        && short
        && substituted()
        && crate::phonetic::similarity(word, known) < SHORT_WORD_SOUND
    {
        2
    } else {
        d
    }
}

/// The query's words, each corrected toward the entries' vocabulary.
fn corrected_words<T>(entries: &[Entry<T>], query: &str) -> Vec<String> {
    let vocabulary: BTreeSet<&String> = entries.iter().flat_map(Entry::vocabulary).collect();
    // Only as spelt (or its plural), never a near miss: "the cup" is no "teacup".
    let spelt = |w: &str| {
        let c = correct(w, &vocabulary);
        vocabulary.iter().any(|v| **v == c) && w.starts_with(c.as_str())
    };
    compounds_joined(&words(query), spelt)
        .iter()
        .map(|w| correct(w, &vocabulary))
        .collect()
}

/// A compound written apart ("oat cakes", "ear plugs": how recognisers and
/// people spell it) as the one word `known` knows, where the first part
/// alone is no word it knows.
/// Borrowed as given where nothing joins (the common case, on the matcher's path).
pub fn compounds_joined(words: &[String], known: impl Fn(&str) -> bool) -> Cow<'_, [String]> {
    let joins_next = |at: usize| {
        words
            .get(at + 1)
            .is_some_and(|next| !known(&words[at]) && known(&format!("{}{next}", words[at])))
    };
    if !(0..words.len()).any(joins_next) {
        return Cow::Borrowed(words);
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut at = 0;
    while at < words.len() {
        if joins_next(at) {
            out.push(format!("{}{}", words[at], words[at + 1]));
            at += 2;
        } else {
            out.push(words[at].clone());
            at += 1;
        }
    }
    Cow::Owned(out)
}

/// Corrects a word to a known one: plural forms, then near misses (one or two edits).
fn correct(word: &str, vocabulary: &BTreeSet<&String>) -> String {
    if vocabulary.iter().any(|v| v.as_str() == word) {
        return word.to_string();
    }
    for stem in [word.strip_suffix("es"), word.strip_suffix('s')]
        .into_iter()
        .flatten()
    {
        if vocabulary.iter().any(|v| v.as_str() == stem) {
            return stem.to_string();
        }
    }
    let allowed = if word.chars().count() >= 7 { 2 } else { 1 };
    if word.chars().count() >= 4 {
        let mut best: Option<(usize, &String)> = None;
        for v in vocabulary {
            let d = spelling_distance(word, v);
            if d <= allowed && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, v));
            }
        }
        if let Some((_, v)) = best {
            return v.to_string();
        }
    }
    word.to_string()
}

/// Entities ordered by similarity of their name to the query.
fn closest<T: Copy>(entries: &[Entry<T>], query: &str) -> Vec<T> {
    let q = query.to_lowercase().replace(' ', "_");
    let mut ranked: Vec<(f64, T)> = entries
        .iter()
        .map(|e| (strsim::jaro_winkler(&q, &e.name.to_lowercase()), e.id))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked.into_iter().map(|(_, id)| id).collect()
}

/// Grounds an object name.
pub fn object(world: &World, query: &str) -> Grounding<ObjectId> {
    resolve(&object_entries(world), query)
}

/// Grounds a person name (people only).
pub fn person(world: &World, query: &str) -> Grounding<PersonId> {
    let entries: Vec<Entry<PersonId>> = world
        .person_ids()
        .map(|id| Entry {
            id,
            name: world.person(id).name.clone(),
            name_words: words(&world.person(id).name),
            kind_words: Vec::new(),
            spoken_kind_words: Vec::new(),
            property_words: Vec::new(),
            modifier_words: Vec::new(),
        })
        .collect();
    resolve(&entries, query)
}

/// Grounds who someone speaks to: a person, the robot, or everyone.
pub fn addressee(world: &World, query: &str) -> Grounding<Addressee> {
    let q = words(query);
    if q.is_empty()
        || matches!(q.as_slice(), [w] if ["all", "everyone", "everybody", "both", "group"].contains(&w.as_str()))
    {
        return Grounding::Resolved(Addressee::All);
    }
    let robot_words = words(&world.robot.name);
    if q == robot_words || q == ["robot"] {
        return Grounding::Resolved(Addressee::Robot);
    }
    match person(world, query) {
        Grounding::Resolved(id) => Grounding::Resolved(Addressee::Person(id)),
        Grounding::Ambiguous(ids) => {
            Grounding::Ambiguous(ids.into_iter().map(Addressee::Person).collect())
        }
        Grounding::Unknown { closest } => Grounding::Unknown {
            closest: closest.into_iter().map(Addressee::Person).collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twin::scene;

    fn softdrinks() -> World {
        scene::load("softdrinks").expect("shipped scene loads")
    }

    fn name(world: &World, g: Grounding<ObjectId>) -> String {
        match g {
            Grounding::Resolved(id) => world.object(id).name.clone(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn lenient_object_names() {
        let w = softdrinks();
        for (query, expected) in [
            ("the fanta bottle", "fanta_bottle"),
            ("Fanta_Bottle", "fanta_bottle"),
            ("fanta", "fanta_bottle"),
            ("the_fanta_bottle", "fanta_bottle"),
            ("cola", "cola_bottle"),
            ("coke", "cola_bottle"),
            ("Cola Zero", "cola_zero_bottle"),
            ("the coke zero", "cola_zero_bottle"),
            ("the red glass", "red_glass"),
            ("coca cola", "cola_bottle"),
            ("red glasses", "red_glass"),
            ("the fanta botle", "fanta_bottle"),
            ("phone", "smartphone"),
            ("the cereal box", "box"),
        ] {
            assert_eq!(name(&w, object(&w, query)), expected, "query {query:?}");
        }
    }

    #[test]
    fn ambiguous_names_get_candidates_not_a_guess() {
        let w = softdrinks();
        match object(&w, "the glass") {
            Grounding::Ambiguous(ids) => {
                let mut names: Vec<&str> =
                    ids.iter().map(|id| w.object(*id).name.as_str()).collect();
                names.sort();
                assert_eq!(names, ["blue_glass", "red_glass"]);
            }
            other => panic!("expected ambiguity, got {other:?}"),
        }
    }

    #[test]
    fn a_word_that_only_leads_a_kind_phrase_does_not_name_it() {
        // The corkscrew's kind is also called "bottle opener".
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/sets/newtables_heldout5/scenes/tasting.toml");
        let w = scene::load_file(&path).expect("the tasting table loads");
        let named = |query: &str| -> Vec<String> {
            let mut names: Vec<String> = match object(&w, query) {
                Grounding::Resolved(id) => vec![w.object(id).name.clone()],
                Grounding::Ambiguous(ids) => {
                    ids.iter().map(|id| w.object(*id).name.clone()).collect()
                }
                Grounding::Unknown { .. } => Vec::new(),
            };
            names.sort();
            names
        };
        assert_eq!(named("the bottle"), ["riesling_bottle", "rioja_bottle"]);
        assert_eq!(named("the bottle opener"), ["corkscrew"]);
    }

    #[test]
    fn a_word_only_a_kind_name_has_yields_to_the_words_people_use() {
        // The cider jug's kind is `dimpled_glass_cider_jug`; people call the tumblers "glass".
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/sets/newtables_heldout9/scenes/pubquiz.toml");
        let w = scene::load_file(&path).expect("the pub quiz table loads");
        let mut glasses: Vec<String> = objects_fitting(&w, "glasses")
            .into_iter()
            .map(|id| w.object(id).name.clone())
            .collect();
        glasses.sort();
        assert_eq!(glasses, ["amber_glass", "blue_glass", "green_glass"]);
        assert!(matches!(object(&w, "a glass"), Grounding::Ambiguous(_)));
        assert_eq!(name(&w, object(&w, "the dimpled glass jug")), "cider");
    }

    #[test]
    fn a_short_word_spelt_with_another_sound_is_another_word() {
        for (word, known) in [("cake", "case"), ("well", "bell")] {
            assert_eq!(spelling_distance(word, known), 2, "{word} / {known}");
        }
        for (word, known) in [
            ("bear", "beer"),
            ("bazil", "basil"),
            ("mlik", "milk"),
            ("glas", "glass"),
        ] {
            assert_eq!(spelling_distance(word, known), 1, "{word} / {known}");
        }
    }

    #[test]
    fn a_compound_written_apart_is_the_one_word() {
        let world = scene::load("coffee").expect("shipped scene loads");
        assert_eq!(
            name(&world, object(&world, "the smart phone")),
            "smartphone"
        );
        // "oat" is a word of its own: "oat milk" stays two words and still fits.
        assert_eq!(name(&world, object(&world, "oat milk")), "oat_milk_bottle");
        // Never a near miss joined: "the cup" is no word of the table.
        let apart = vec!["the".to_string(), "cup".to_string()];
        assert_eq!(*compounds_joined(&apart, |w| w == "teacup"), apart[..]);
    }

    #[test]
    fn unknown_names_get_the_closest_first() {
        let w = softdrinks();
        match object(&w, "sprite") {
            Grounding::Unknown { closest } => assert!(!closest.is_empty()),
            other => panic!("expected unknown, got {other:?}"),
        }
    }

    #[test]
    fn addressees() {
        let w = softdrinks();
        assert_eq!(addressee(&w, "All"), Grounding::Resolved(Addressee::All));
        assert_eq!(
            addressee(&w, "the_robot"),
            Grounding::Resolved(Addressee::Robot)
        );
        let daniel = w.person_named("Daniel").expect("Daniel");
        assert_eq!(
            addressee(&w, "daniel"),
            Grounding::Resolved(Addressee::Person(daniel))
        );
        assert_eq!(
            addressee(&w, "Danial"),
            Grounding::Resolved(Addressee::Person(daniel))
        );
    }
}
