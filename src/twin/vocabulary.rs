//! The table's spoken vocabulary: the words people use for who and what is at
//! the table (names, objects by their natural words, contents, kinds, properties).
//! The recogniser is biased toward it and misheard words are corrected toward it.

use std::collections::BTreeSet;

use super::grounding::words;
use super::World;

/// What a word of the table's vocabulary names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WordRole {
    /// A person's or the robot's name.
    Name,
    /// A word for an object: its name, kind, contents or a property.
    Thing,
}

/// One word of the table's vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TableWord {
    /// Lower case, as it is spoken.
    pub word: String,
    /// What it names.
    pub role: WordRole,
}

/// Every word people may use at this table, without duplicates; words shorter
/// than three letters and digits are left out (they name nothing on their own).
pub fn table_words(world: &World) -> Vec<TableWord> {
    let mut names = BTreeSet::new();
    for person in world.persons() {
        names.extend(words(&person.name));
    }
    names.extend(words(&world.robot.name));
    let mut things = BTreeSet::new();
    for object in world.objects() {
        things.extend(words(&object.name));
        things.extend(object.kind.words.iter().flat_map(|w| words(w)));
        things.extend(words(&object.kind.name));
        if let Some(contents) = &object.contains {
            things.extend(words(contents));
        }
        things.extend(object.properties.iter().flat_map(|p| words(p)));
    }
    let useful = |w: &String| w.len() >= 3 && w.chars().all(char::is_alphabetic);
    let mut out: Vec<TableWord> = names
        .iter()
        .filter(|w| useful(w))
        .map(|w| TableWord {
            word: w.clone(),
            role: WordRole::Name,
        })
        .collect();
    out.extend(
        things
            .iter()
            .filter(|w| useful(w) && !names.contains(*w))
            .map(|w| TableWord {
                word: w.clone(),
                role: WordRole::Thing,
            }),
    );
    out
}

/// The table's things as people name them, for the recogniser's prompt: a
/// name of several words stays one phrase ("cola zero", "coffee pot"), so
/// that the recogniser does not write its words apart ("cola, zero");
/// contents first, then objects' names, then kinds' words; no duplicates.
pub fn prompt_things(world: &World) -> Vec<String> {
    let phrase = |text: &str| {
        let kept: Vec<String> = words(text)
            .into_iter()
            .filter(|w| w.chars().all(char::is_alphabetic))
            .collect();
        kept.join(" ")
    };
    let objects = world.objects();
    let contents = objects.iter().filter_map(|o| o.contains.as_deref());
    let names = objects.iter().map(|o| o.name.as_str());
    let kinds = objects
        .iter()
        .flat_map(|o| o.kind.words.iter().map(String::as_str));
    let mut out: Vec<String> = Vec::new();
    for text in contents.chain(names).chain(kinds) {
        let p = phrase(text);
        if p.len() >= 3 && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_of_several_words_is_one_phrase_of_the_prompt() {
        let world = crate::twin::scene::load("softdrinks").unwrap();
        let things = prompt_things(&world);
        assert!(things.contains(&"cola zero".to_string()), "{things:?}");
        assert!(things.contains(&"fanta".to_string()), "{things:?}");
        assert!(!things.contains(&"zero".to_string()), "{things:?}");
        assert!(!things
            .iter()
            .any(|t| t.contains('_') || t.chars().any(|c| c.is_ascii_digit())));
        let unique: BTreeSet<&String> = things.iter().collect();
        assert_eq!(unique.len(), things.len());
    }

    #[test]
    fn the_softdrinks_table_has_its_names_and_things() {
        let world = crate::twin::scene::load("softdrinks").unwrap();
        let vocabulary = table_words(&world);
        let has = |w: &str, role| vocabulary.iter().any(|t| t.word == w && t.role == role);
        assert!(has("felix", WordRole::Name) && has("daniel", WordRole::Name));
        assert!(has("robot", WordRole::Name));
        assert!(has("fanta", WordRole::Thing) && has("cola", WordRole::Thing));
        assert!(has("glass", WordRole::Thing));
        assert!(!vocabulary.iter().any(|t| t.word.len() < 3));
    }
}
