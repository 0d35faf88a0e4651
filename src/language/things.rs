//! How a language names the table's things: from an id such as `red_glass`
//! to "the red glass" or, with a gender, an article per case and adjective
//! endings, "das rote Glas" / "dem roten Glas". The words come from the
//! `[things]` table of a language's `speech.toml`; a language without one says
//! the id's words after `names.object`.
//!
//! Names travel inside sentences as marks (`object()` in the phrasebook), so
//! that the sentence that finally says them picks the case: `{object:dat}`.

use std::collections::BTreeMap;

use serde::Deserialize;

/// Opens a thing's mark; the id follows, then [`CLOSE`].
pub const THING: char = '\u{E000}';
/// Opens a thing's mark said with a capital at the start of a sentence.
pub const THING_CAPITAL: char = '\u{E002}';
/// Opens a bare noun's mark (a drink: "Kaffee"), said without an article.
pub const NOUN: char = '\u{E003}';
/// Closes a mark.
pub const CLOSE: char = '\u{E001}';

/// The grammatical case a sentence asks for (`{object:acc}`); `nom` when none.
pub type Case = str;

/// `[things]` of a `speech.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThingWords {
    /// The scene's nouns: word -> "gender noun" (`glass = "n Glas"`).
    #[serde(default)]
    pub nouns: BTreeMap<String, String>,
    /// The scene's adjectives: word -> stem (`red = "rot"`).
    #[serde(default)]
    pub adjectives: BTreeMap<String, String>,
    /// Definite articles: case -> gender -> article.
    #[serde(default)]
    pub articles: BTreeMap<String, BTreeMap<String, String>>,
    /// Adjective endings after the article: case -> gender -> ending.
    #[serde(default)]
    pub endings: BTreeMap<String, BTreeMap<String, String>>,
    /// Between the parts of a compound noun ("Cola" "Flasche" -> "Cola-Flasche").
    #[serde(default)]
    pub joiner: String,
    /// The gender of a noun the table does not list.
    #[serde(default)]
    pub gender: String,
    /// Drinks of several words said as one noun ("red wine" -> "Rotwein").
    #[serde(default)]
    pub compounds: BTreeMap<String, String>,
}

impl ThingWords {
    /// Whether the language inflects names (it lists nouns); else `names.object` says them.
    pub fn inflects(&self) -> bool {
        !self.nouns.is_empty()
    }

    /// "das rote Glas" for `red_glass` in `case`; "die Cola-Zero-Flasche".
    pub fn name(&self, id: &str, case: &Case) -> String {
        let words: Vec<&str> = id.split('_').filter(|w| !w.is_empty()).collect();
        let Some((noun_word, modifiers)) = words.split_last() else {
            return id.to_string();
        };
        let (gender, noun) = self.noun(noun_word);
        let mut adjectives = Vec::new();
        let mut front = Vec::new();
        for word in modifiers {
            match self.adjectives.get(*word) {
                Some(stem) => adjectives.push(format!("{stem}{}", self.ending(case, &gender))),
                None => front.push(self.noun(word).1),
            }
        }
        front.push(noun);
        let mut parts: Vec<String> = Vec::new();
        let article = self.pick(&self.articles, case, &gender);
        if !article.is_empty() {
            parts.push(article);
        }
        parts.extend(adjectives);
        parts.push(front.join(&self.joiner));
        parts.join(" ")
    }

    /// A noun on its own, without article ("Kaffee" for `coffee`).
    pub fn bare(&self, word: &str) -> String {
        if let Some(compound) = self.compounds.get(&word.replace('_', " ")) {
            return compound.clone();
        }
        word.split([' ', '_'])
            .map(|w| self.noun(w).1)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Gender and spelling of a noun; an unlisted one keeps its word, capitalised.
    fn noun(&self, word: &str) -> (String, String) {
        match self.nouns.get(word).and_then(|n| n.split_once(' ')) {
            Some((gender, noun)) => (gender.to_string(), noun.to_string()),
            None => (self.gender.clone(), capitalised(word)),
        }
    }

    fn ending(&self, case: &Case, gender: &str) -> String {
        self.pick(&self.endings, case, gender)
    }

    fn pick(
        &self,
        table: &BTreeMap<String, BTreeMap<String, String>>,
        case: &Case,
        gender: &str,
    ) -> String {
        table
            .get(case)
            .or_else(|| table.get("nom"))
            .and_then(|by_gender| by_gender.get(gender))
            .cloned()
            .unwrap_or_default()
    }
}

/// The text with its first letter in upper case.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Says every mark in `text`: `say_thing(id, capital)` for things, `say_noun` for nouns.
pub fn render(
    text: &str,
    say_thing: impl Fn(&str, bool) -> String,
    say_noun: impl Fn(&str) -> String,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find([THING, THING_CAPITAL, NOUN]) {
        out.push_str(&rest[..open]);
        let kind = rest[open..].chars().next().unwrap_or(THING);
        let after = &rest[open + kind.len_utf8()..];
        let Some(close) = after.find(CLOSE) else {
            out.push_str(after);
            return out;
        };
        let inner = &after[..close];
        out.push_str(&match kind {
            NOUN => say_noun(inner),
            _ => say_thing(inner, kind == THING_CAPITAL),
        });
        rest = &after[close + CLOSE.len_utf8()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn german() -> ThingWords {
        let table = r#"
            joiner = "-"
            gender = "n"
            nouns = { glass = "n Glas", bottle = "f Flasche", box = "m Karton", coffee = "m Kaffee" }
            adjectives = { red = "rot", big = "groß" }
            articles = { nom = { m = "der", f = "die", n = "das" }, dat = { m = "dem", f = "der", n = "dem" } }
            endings = { nom = { m = "e", f = "e", n = "e" }, dat = { m = "en", f = "en", n = "en" } }
            compounds = { "red wine" = "Rotwein" }
        "#;
        toml::from_str(table).expect("table")
    }

    #[test]
    fn a_drink_of_several_words_is_one_noun_where_the_language_says_so() {
        let words = german();
        assert_eq!(words.bare("red wine"), "Rotwein");
        assert_eq!(words.bare("red_wine"), "Rotwein");
        assert_eq!(words.bare("cola zero"), "Cola Zero");
    }

    #[test]
    fn names_take_the_article_and_endings_of_their_gender_and_case() {
        let words = german();
        assert_eq!(words.name("red_glass", "nom"), "das rote Glas");
        assert_eq!(words.name("red_glass", "dat"), "dem roten Glas");
        assert_eq!(
            words.name("cola_zero_bottle", "nom"),
            "die Cola-Zero-Flasche"
        );
        assert_eq!(words.name("box", "dat"), "dem Karton");
        assert_eq!(words.bare("coffee"), "Kaffee");
        // A case the table lacks falls back to the nominative.
        assert_eq!(words.name("box", "gen"), "der Karton");
    }

    #[test]
    fn marks_are_said_where_they_stand() {
        let text = format!("{THING_CAPITAL}red_glass{CLOSE} holds {NOUN}coffee{CLOSE}.");
        let said = render(
            &text,
            |id, capital| match capital {
                true => format!("The {id}"),
                false => id.to_string(),
            },
            |noun| noun.to_uppercase(),
        );
        assert_eq!(said, "The red_glass holds COFFEE.");
        assert_eq!(
            render("broken \u{E000}mark", |i, _| i.into(), |n| n.into()),
            "broken mark"
        );
    }
}
