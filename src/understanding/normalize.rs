//! From text as typed or recognised to the words templates see: lower case,
//! contractions spelt out, hesitations and "please" dropped, repeated words
//! collapsed, the listener's name as a vocative dropped, one list per sentence.

use std::borrow::Cow;

use super::grammar::Normalize;

/// The most words of one sentence that are read (the rest is ignored).
pub const MAX_WORDS: usize = 40;

/// Lower-case words of a phrase, split at anything but letters, digits and apostrophes.
pub fn plain_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['’', '‘', '`'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// One way to read a sentence: its words, and where commas stood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    /// The words.
    pub words: Vec<String>,
    /// `breaks[i]`: a comma stood right before word `i` (lists: "cola, cola zero").
    pub breaks: Vec<bool>,
    /// Which sentence of the turn it reads (0-based): a whole sentence and its clauses share it.
    pub sentence: usize,
    /// It says a change of mind (`[normalize] changes_mind`, looked for before any word is dropped).
    pub changes_mind: bool,
}

impl Words {
    /// The words joined by spaces.
    pub fn text(&self) -> String {
        self.words.join(" ")
    }
}

/// Marks between the clauses of a sentence (a dash as people type it, "the
/// rinse pot by your elbow — could you fill that one").
const CLAUSE_BREAKS: [char; 4] = [',', ':', '—', '–'];

/// The comma token inside normalising.
const COMMA: &str = ",";

/// The parts of a text in order, each read two ways: with the discourse
/// words at its ends ("thanks a lot") and without them ("hi, who are you" ->
/// "who are you"). The parts are its sentences, and after a sentence with
/// commas each of its clauses ("take the pot away from me, it is hot");
/// `vocatives` are the words by which the listener may be addressed.
pub fn sentences(rules: &Normalize, text: &str, vocatives: &[Vec<String>]) -> Vec<Vec<Words>> {
    let mut parts = Vec::new();
    let mut index = 0;
    for s in text.split(['.', '!', '?', ';', '\n']) {
        let s = &broken_before_clause_openers(&rules.clause_openers, s);
        let whole = sentence(rules, s, vocatives);
        if whole.is_empty() {
            continue;
        }
        let clauses: Vec<&str> = s.split(CLAUSE_BREAKS).collect();
        let start = parts.len();
        parts.push(whole);
        if clauses.len() > 1 {
            for clause in clauses {
                let read = sentence(rules, clause, vocatives);
                let only_a_name = read.iter().all(|w| vocatives.iter().any(|v| v == &w.words));
                if !read.is_empty() && !only_a_name {
                    parts.push(read);
                }
            }
        }
        for words in parts[start..].iter_mut().flatten() {
            words.sentence = index;
        }
        index += 1;
    }
    parts
}

/// `text` with a comma put before each of the `clause_openers` phrases inside
/// it (not at its start), so that the clause they open is read on its own
/// ("there's" after "and there" is still that phrase).
fn broken_before_clause_openers<'t>(clause_openers: &[String], text: &'t str) -> Cow<'t, str> {
    if clause_openers.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let bytes = text.as_bytes();
    let mut words_before = false;
    for (at, c) in text.char_indices() {
        let starts_word = c.is_alphanumeric()
            && text[..at]
                .chars()
                .next_back()
                .is_none_or(|p| !(p.is_alphanumeric() || p == '\''));
        if starts_word && words_before {
            let opens = clause_openers.iter().any(|phrase| {
                let end = at + phrase.len();
                end <= bytes.len()
                    && bytes[at..end].eq_ignore_ascii_case(phrase.as_bytes())
                    && text[end..]
                        .chars()
                        .next()
                        .is_none_or(|n| !n.is_alphanumeric())
            });
            let after_a_break = out
                .trim_end()
                .chars()
                .next_back()
                .is_some_and(|p| CLAUSE_BREAKS.contains(&p));
            if opens && !after_a_break {
                out.push_str(", ");
            }
        }
        words_before |= c.is_alphanumeric();
        out.push(c);
    }
    Cow::Owned(out)
}

/// What an "'s" stands for before `next`: by the word after it, else the language's own.
fn clitic_s<'a>(rules: &'a Normalize, next: Option<&String>) -> Option<&'a String> {
    next.and_then(|n| rules.clitic_s_before.get(n))
        .or(rules.clitic_s.as_ref())
}

/// A number a recogniser wrote with a leading zero ("cola 01"): said digit by digit.
fn leading_zero_digits(word: &str) -> bool {
    word.len() > 1 && word.starts_with('0') && word.chars().all(|c| c.is_ascii_digit())
}

/// A word with an ending that is a word of its own: "juice'll" -> "juice will".
fn clitic_ending(rules: &Normalize, word: &str) -> Option<Vec<String>> {
    rules.clitic_endings.iter().find_map(|(ending, full)| {
        let stem = word.strip_suffix(ending.as_str())?;
        (!stem.is_empty()).then(|| vec![stem.replace('\'', ""), full.clone()])
    })
}

/// A separable verb's infinitive with "zu" inside, as the verb and its
/// particle: "herüberzugeben" -> "geben herüber" (the longest particle first).
fn zu_infinitive(rules: &Normalize, word: &str) -> Option<Vec<String>> {
    rules
        .separable_particles
        .iter()
        .filter_map(|particle| {
            let verb = word.strip_prefix(particle.as_str())?.strip_prefix("zu")?;
            let is_verb = verb.chars().count() >= 4 && verb.ends_with("en");
            is_verb.then(|| (particle.len(), vec![verb.to_string(), particle.clone()]))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, words)| words)
}

/// The clause without the marker of the infinitive that ends it: "mir Kaffee
/// in die Tasse zu gießen" -> "mir Kaffee in die Tasse gießen".
fn without_infinitive_marker(rules: &Normalize, mut words: Vec<String>) -> Vec<String> {
    let Some(marker) = rules.infinitive_marker.as_deref() else {
        return words;
    };
    let ends_in_infinitive = words
        .last()
        .is_some_and(|w| w.chars().count() >= 5 && w.ends_with('n'));
    let before = words.len().checked_sub(2);
    if let Some(at) = before.filter(|&at| ends_in_infinitive && words[at] == marker) {
        words.remove(at);
    }
    words
}

/// Each digit as the language's contractions spell it ("01" -> "zero one").
fn spelt_digit_by_digit(rules: &Normalize, word: &str) -> Vec<String> {
    word.chars()
        .flat_map(|c| match rules.contractions.get(&c.to_string()) {
            Some(full) => plain_words(full),
            None => vec![c.to_string()],
        })
        .collect()
}

fn sentence(rules: &Normalize, text: &str, vocatives: &[Vec<String>]) -> Vec<Words> {
    let mut words: Vec<String> = Vec::new();
    for chunk in text.split(|c| CLAUSE_BREAKS.contains(&c) || ['(', ')', '"'].contains(&c)) {
        if !words.is_empty() && words.last().map(String::as_str) != Some(COMMA) {
            words.push(COMMA.to_string());
        }
        let plain = without_infinitive_marker(rules, plain_words(chunk));
        let last = plain.len().saturating_sub(1);
        for (at, word) in plain.iter().cloned().enumerate() {
            let inside = at > 0 && at < last;
            let contracted = match rules.inside_a_clause.get(&word) {
                Some(full) if inside => Some(full),
                _ => rules.contractions.get(&word),
            };
            let split = contracted
                .is_none()
                .then(|| zu_infinitive(rules, &word).or_else(|| clitic_ending(rules, &word)));
            let spelt = match (contracted, split.flatten()) {
                (Some(full), _) => plain_words(full),
                (None, Some(split)) => split,
                (None, None) if leading_zero_digits(&word) => spelt_digit_by_digit(rules, &word),
                (None, None) => match (word.strip_suffix("'s"), clitic_s(rules, plain.get(at + 1)))
                {
                    (Some(stem), Some(clitic)) => vec![stem.replace('\'', ""), clitic.to_string()],
                    (stem, _) => vec![stem.unwrap_or(&word).replace('\'', "")],
                },
            };
            let translated = spelt
                .into_iter()
                .flat_map(|w| match rules.vocabulary.get(&w) {
                    Some(scene_words) => plain_words(scene_words),
                    None => vec![w],
                });
            for w in translated {
                let inside = words.last().is_some_and(|last| last != COMMA);
                let particle = inside && rules.particles.has_word(&w);
                let stutter = words.last() == Some(&w) && !rules.repeatable.contains(&w);
                let narrowing =
                    words.last().is_some_and(|last| last == COMMA) && rules.narrowing.contains(&w);
                if w.is_empty() || particle || rules.drop.has_word(&w) || stutter || narrowing {
                    continue;
                }
                words.push(w);
                collapse_repeated_phrase(&mut words);
            }
        }
    }
    drop_phrases(rules, &mut words);
    words.truncate(MAX_WORDS);
    // "Daniel can't reach the fanta" heard without a comma: the name may be
    // the subject, not whom it is said to; read both ways.
    let named_first = vocatives.iter().any(|name| {
        !name.is_empty()
            && words.starts_with(name)
            && words.get(name.len()).is_some_and(|w| w != COMMA)
    });
    let subject = named_first.then(|| finish(&words)).flatten();
    trim_vocatives(&mut words, vocatives);
    let full = finish(&words);
    trim_discourse(rules, &mut words);
    trim_vocatives(&mut words, vocatives);
    let trimmed = finish(&words);
    let mut out: Vec<Words> = [subject, full, trimmed].into_iter().flatten().collect();
    out.dedup();
    let changes_mind = rules.changes_mind.occur_in(&plain_words(text));
    for words in &mut out {
        words.changes_mind = changes_mind;
    }
    out
}

/// Drops the phrases of several words in `drop` ("da komme ich nicht ran":
/// a reason said after a request, whose "nicht" is no refusal); single
/// words are dropped as they are read.
fn drop_phrases(rules: &Normalize, words: &mut Vec<String>) {
    for phrase in rules.drop.0.iter().filter(|p| p.len() > 1) {
        let mut at = 0;
        while at < words.len() {
            if words[at..].starts_with(phrase) {
                words.drain(at..at + phrase.len());
            } else {
                at += 1;
            }
        }
    }
}

/// "could you could you" -> "could you": a phrase of two or three words said twice.
fn collapse_repeated_phrase(words: &mut Vec<String>) {
    for n in [2, 3] {
        let len = words.len();
        if len >= 2 * n
            && words[len - n..] == words[len - 2 * n..len - n]
            && !words[len - 2 * n..].iter().any(|w| w == COMMA)
        {
            words.truncate(len - n);
            return;
        }
    }
}

/// The words without comma tokens, with where the commas stood.
fn finish(words: &[String]) -> Option<Words> {
    let mut out = Words {
        words: Vec::new(),
        breaks: Vec::new(),
        sentence: 0,
        changes_mind: false,
    };
    let mut comma = false;
    for w in words {
        if w == COMMA {
            comma = true;
        } else {
            out.breaks.push(comma && !out.words.is_empty());
            out.words.push(w.clone());
            comma = false;
        }
    }
    (!out.words.is_empty()).then_some(out)
}

fn content_len(words: &[String]) -> usize {
    words.iter().filter(|w| *w != COMMA).count()
}

fn trim_commas(words: &mut Vec<String>) {
    while words.first().map(String::as_str) == Some(COMMA) {
        words.remove(0);
    }
    while words.last().map(String::as_str) == Some(COMMA) {
        words.pop();
    }
}

/// Drops the listener's name at either end ("Daniel, ...", "..., robot") or
/// set off by commas inside ("me too, robot, in the big cup"), not after a
/// preposition ("pass it to Daniel").
fn trim_vocatives(words: &mut Vec<String>, vocatives: &[Vec<String>]) {
    trim_commas(words);
    for name in vocatives.iter().filter(|n| !n.is_empty()) {
        drop_inside_commas(words, name);
        if content_len(words) > name.len() && words.starts_with(name) {
            words.drain(..name.len());
            trim_commas(words);
        }
        let n = words.len();
        let after_preposition = n > name.len()
            && ["to", "for", "from", "at", "with", "and", "by", "near", "of"]
                .contains(&words[n - name.len() - 1].as_str());
        if content_len(words) > name.len() && words.ends_with(name) && !after_preposition {
            words.truncate(n - name.len());
            trim_commas(words);
        }
    }
}

/// Drops `name` wherever it stands alone between two commas, with one of them.
fn drop_inside_commas(words: &mut Vec<String>, name: &[String]) {
    let n = name.len();
    while let Some(at) = (1..words.len().saturating_sub(n))
        .find(|&at| words[at - 1] == COMMA && words[at..at + n] == *name && words[at + n] == COMMA)
    {
        words.drain(at..=at + n);
    }
}

/// Drops leading and trailing discourse words while something remains.
fn trim_discourse(rules: &Normalize, words: &mut Vec<String>) {
    loop {
        let before = words.len();
        // A phrase that is the whole clause ends the trimming on that side:
        // a shorter one must not cut it ("sure thing" is not "sure" + "thing").
        for phrase in &rules.leading.0 {
            if words.starts_with(phrase) {
                if content_len(words) <= phrase.len() {
                    break;
                }
                words.drain(..phrase.len());
                trim_commas(words);
            }
        }
        for phrase in &rules.trailing.0 {
            if words.ends_with(phrase) {
                if content_len(words) <= phrase.len() {
                    break;
                }
                words.truncate(words.len() - phrase.len());
                trim_commas(words);
            }
        }
        if words.len() == before {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Normalize {
        Normalize {
            contractions: [
                ("i'd", "i would"),
                ("don't", "do not"),
                ("what's", "what is"),
                ("0", "zero"),
                ("1", "one"),
            ]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
            drop: ["uh", "um", "please", "i cannot reach it"]
                .map(String::from)
                .to_vec()
                .into(),
            leading: ["hey", "so", "thanks"].map(String::from).to_vec().into(),
            trailing: ["now", "thanks"].map(String::from).to_vec().into(),
            ..Normalize::default()
        }
    }

    /// The last (most trimmed) reading of the first sentence.
    fn one(text: &str, vocative: &str) -> Vec<String> {
        let voc = vec![plain_words(vocative)];
        let all = sentences(&rules(), text, &voc);
        all.first()
            .and_then(|v| v.last())
            .map(|w| w.words.clone())
            .unwrap_or_default()
    }

    #[test]
    fn a_separable_verbs_infinitive_with_zu_is_the_verb_and_its_particle() {
        let rules = Normalize {
            separable_particles: ["her", "herüber", "ein"].map(String::from).to_vec(),
            ..rules()
        };
        let read = |text: &str| {
            let all = sentences(&rules, text, &[]);
            all.first()
                .and_then(|v| v.last())
                .map(|w| w.words.join(" "))
                .unwrap_or_default()
        };
        assert_eq!(read("sie mir herüberzugeben"), "sie mir geben herüber");
        assert_eq!(read("mir einzuschenken"), "mir schenken ein");
        // No verb after "zu", or no particle before it: the word stays.
        assert_eq!(read("herzu zucker einzige"), "herzu zucker einzige");
    }

    #[test]
    fn the_marker_of_an_infinitive_ending_a_clause_goes() {
        let rules = Normalize {
            infinitive_marker: Some("zu".to_string()),
            ..rules()
        };
        let read = |text: &str| {
            let all = sentences(&rules, text, &[]);
            all.first()
                .and_then(|v| v.last())
                .map(|w| w.words.join(" "))
                .unwrap_or_default()
        };
        assert_eq!(
            read("mir kaffee in die tasse zu gießen"),
            "mir kaffee in die tasse gießen"
        );
        // Not at the clause's end, or no infinitive after it: it stays.
        assert_eq!(read("zu gießen ist schön"), "zu gießen ist schön");
        assert_eq!(read("komm zu mir"), "komm zu mir");
        assert_eq!(read("geh zu ihm"), "geh zu ihm");
    }

    #[test]
    fn an_ending_that_is_a_word_of_its_own_is_spelt_out() {
        let rules = Normalize {
            clitic_endings: [("'ll", "will")]
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .into(),
            ..rules()
        };
        let all = sentences(&rules, "The juice'll do me", &[]);
        let read = all
            .first()
            .and_then(|v| v.last())
            .map(|w| w.words.join(" "));
        assert_eq!(read.as_deref(), Some("the juice will do me"));
    }

    #[test]
    fn recogniser_text_and_typed_text_read_alike() {
        let typed = one("Hey Daniel, could you pass me the cola, please?", "Daniel");
        let heard = one(
            "hey daniel uh could you could you pass me the the cola",
            "Daniel",
        );
        assert_eq!(typed, heard);
        assert_eq!(typed.join(" "), "could you pass me the cola");
    }

    #[test]
    fn a_particle_is_dropped_inside_a_clause_but_not_as_its_first_word() {
        let rules = Normalize {
            particles: ["ja"].map(String::from).to_vec().into(),
            ..rules()
        };
        let voc = vec![plain_words("x")];
        let read = |text: &str| -> Vec<String> {
            sentences(&rules, text, &voc)
                .iter()
                .filter_map(|v| v.first().map(Words::text))
                .collect()
        };
        assert_eq!(read("die ist ja leer"), ["die ist leer"]);
        assert_eq!(read("Ja."), ["ja"]);
        // After a comma "ja" opens a clause again.
        assert_eq!(read("gut, ja das stimmt")[0], "gut ja das stimmt");
    }

    #[test]
    fn phrases_of_several_words_are_dropped_wherever_they_stand() {
        assert_eq!(
            one("pass me the cola, i cannot reach it", "x").join(" "),
            "pass me the cola"
        );
        assert_eq!(
            one("i cannot reach it but pass me the cola", "x").join(" "),
            "but pass me the cola"
        );
        // Only the whole phrase: its words alone stay.
        assert_eq!(one("i cannot pass it", "x").join(" "), "i cannot pass it");
    }

    #[test]
    fn a_dash_parts_clauses_as_a_comma_does() {
        let voc = vec![plain_words("x")];
        let clauses = |text: &str| -> Vec<String> {
            sentences(&rules(), text, &voc)
                .iter()
                .filter_map(|v| v.last().map(Words::text))
                .collect()
        };
        let dashed = clauses("the pot by you — could you fill that one");
        assert_eq!(dashed, clauses("the pot by you, could you fill that one"));
        assert_eq!(dashed.len(), 3, "{dashed:?}");
        // A hyphen inside a word is no break.
        assert_eq!(clauses("a coca-cola please").len(), 1);
    }

    #[test]
    fn a_number_with_a_leading_zero_is_said_digit_by_digit() {
        assert_eq!(
            one("pass me the cola 01", "x").join(" "),
            "pass me the cola zero one"
        );
        assert_eq!(one("the cola 0", "x").join(" "), "the cola zero");
        assert_eq!(one("room 10", "x").join(" "), "room 10");
    }

    #[test]
    fn contractions_possessives_and_quotes() {
        assert_eq!(
            one("I’d like Felix's glass", "x").join(" "),
            "i would like felix glass"
        );
        assert_eq!(
            one("Don't give me the cola!", "x").join(" "),
            "do not give me the cola"
        );
    }

    #[test]
    fn an_apostrophe_s_is_a_word_where_the_language_says_so() {
        let german = Normalize {
            clitic_s: Some("es".to_string()),
            ..rules()
        };
        let read = sentences(&german, "Schieb's mir zu", &[]);
        let words = read.first().and_then(|v| v.last()).map(|w| w.text());
        assert_eq!(words.as_deref(), Some("schieb es mir zu"));
        assert_eq!(one("Pass Felix's glass", "x").join(" "), "pass felix glass");
    }

    #[test]
    fn an_apostrophe_s_before_a_verb_word_is_that_verb() {
        let english = Normalize {
            clitic_s_before: [("just", "is"), ("got", "has")]
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .into(),
            ..rules()
        };
        let read = |text| {
            let read = sentences(&english, text, &[]);
            read.first()
                .and_then(|v| v.last())
                .map(|w| w.text())
                .unwrap_or_default()
        };
        assert_eq!(read("The bottle's just water"), "the bottle is just water");
        assert_eq!(read("Tamsin's got the jug"), "tamsin has got the jug");
        assert_eq!(read("Tamsin's jug"), "tamsin jug");
    }

    #[test]
    fn a_name_after_a_preposition_is_no_vocative() {
        assert_eq!(
            one("pass it to Daniel", "Daniel").join(" "),
            "pass it to daniel"
        );
        assert_eq!(one("pass it Daniel", "Daniel").join(" "), "pass it");
        assert_eq!(one("Daniel", "Daniel").join(" "), "daniel");
    }

    #[test]
    fn a_name_set_off_by_commas_inside_is_a_vocative() {
        assert_eq!(
            one("me too, robot, in the big cup", "robot").join(" "),
            "me too in the big cup"
        );
        // Not a name that is part of what is said.
        assert_eq!(
            one("pour robot, the cola", "robot").join(" "),
            "pour robot the cola"
        );
    }

    #[test]
    fn a_clause_saying_why_breaks_off_as_at_a_comma() {
        let clause_openers = ["before", "so that"].map(String::from).to_vec();
        let broken = |t: &str| broken_before_clause_openers(&clause_openers, t).into_owned();
        assert_eq!(
            broken("Move the jug away before her elbow finds it"),
            "Move the jug away , before her elbow finds it"
        );
        assert_eq!(broken("Before you go, pass it"), "Before you go, pass it");
        assert_eq!(broken("pass it, before"), "pass it, before");
        assert_eq!(broken("pass it beforehand"), "pass it beforehand");
        assert_eq!(
            broken("tilt it So That it pours"),
            "tilt it , So That it pours"
        );
        let rules = Normalize {
            clause_openers,
            ..rules()
        };
        let voc = vec![plain_words("x")];
        let read = sentences(&rules, "move the jug before it falls", &voc);
        assert!(read
            .iter()
            .flatten()
            .any(|w| w.words.join(" ") == "move the jug"));
    }

    #[test]
    fn sentences_split_and_nothing_left_means_nothing() {
        let voc = vec![plain_words("Daniel")];
        let s = sentences(&rules(), "Thanks! Could you pass the fanta?", &voc);
        assert_eq!(s.len(), 2);
        assert!(sentences(&rules(), "?!. ..", &voc).is_empty());
        let long: String = (0..100).map(|i| format!("w{i} ")).collect();
        assert_eq!(
            sentences(&rules(), &long, &voc)[0][0].words.len(),
            MAX_WORDS
        );
    }

    #[test]
    fn both_readings_and_commas_are_kept() {
        let voc = vec![plain_words("Daniel")];
        let s = sentences(&rules(), "thanks, cola, cola zero and fanta", &voc);
        assert_eq!(s[0][0].text(), "thanks cola cola zero and fanta");
        assert_eq!(s[0][1].text(), "cola cola zero and fanta");
        assert_eq!(s[0][1].breaks, [false, true, false, false, false]);
    }
}
