//! Self-repairs: "pass me the blue glass, no sorry, the red glass" asks for
//! the red glass. An editing term (`[normalize] repairs`: "no sorry", "I
//! mean", "uh", "or rather") between two phrases that start alike — with the
//! same word ("into the red glass, I mean into the blue glass") or each with a
//! determiner — puts the second in the first one's place (Levelt's reparandum,
//! editing term and repair). The text is repaired before it is read.

use std::collections::BTreeSet;

use super::grammar::Normalize;
use super::normalize::{self, Words};

/// How many words back the phrase being repaired may start.
const MAX_REPARANDUM: usize = 8;
/// The most words a repair said as a sentence of its own may have ("No
/// sorry, the cola zero."): more, and it is a sentence, not a repair.
const MAX_SENTENCE_REPAIR: usize = 4;

/// One word of the text, with where it stands.
#[derive(Debug)]
struct Token {
    start: usize,
    end: usize,
    word: String,
    /// A sentence ended between the word before and this one.
    after_sentence: bool,
    /// A comma (or dash, colon) stood between the word before and this one.
    after_comma: bool,
}

/// The text's words with their places.
fn tokens(text: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    let (mut sentence, mut comma) = (false, false);
    let mut start: Option<usize> = None;
    let is_word = |c: char| c.is_alphanumeric() || "'’".contains(c);
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (is_word(c), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                let word = normalize::plain_words(&text[from..at]).join(" ");
                if !word.is_empty() {
                    out.push(Token {
                        start: from,
                        end: at,
                        word,
                        after_sentence: sentence && !out.is_empty(),
                        after_comma: comma && !out.is_empty(),
                    });
                    (sentence, comma) = (false, false);
                }
                start = None;
            }
            _ => {}
        }
        if !is_word(c) {
            sentence |= ".!?;\n".contains(c);
            comma |= ",:—–".contains(c);
        }
    }
    out
}

/// The sentence parts of `text` as [`normalize::sentences`] gives them, with
/// a self-repair put right: each part's variants read the repaired text, and,
/// where words stood between the repaired phrase and the editing term
/// (German puts the verb last: "ins rote Glas gießen, äh, ins blaue Glas"),
/// also the repaired text that keeps them; the reading takes the better.
pub fn sentences(
    rules: &Normalize,
    template_words: &BTreeSet<String>,
    text: &str,
    vocatives: &[Vec<String>],
) -> Vec<Vec<Words>> {
    let negated = negated_repair(rules, text);
    let text = negated.as_deref().unwrap_or(text);
    let contrasted = without_a_contrast(rules, text);
    let text = contrasted.as_deref().unwrap_or(text);
    let Some(repair) = find(rules, text) else {
        return normalize::sentences(rules, text, vocatives);
    };
    let mut parts = normalize::sentences(rules, &repair.replaced(text), vocatives);
    if let Some(kept) = repair.keeping_between(text, template_words, rules) {
        let alternative = normalize::sentences(rules, &kept, vocatives);
        if alternative.len() == parts.len() {
            // The plain replacement last: it is the part's text as heard.
            for (part, mut other) in parts.iter_mut().zip(alternative) {
                other.append(part);
                *part = other;
            }
        }
    }
    parts
}

/// The most words of a contrast ("not in the large one").
const MAX_CONTRAST: usize = 6;

/// "In the small cup, not in the large one": a clause that ends a sentence
/// with what is *not* meant ("not" and, at most one word on, a determiner)
/// says nothing to do; the text without it, if it has one. "Not yet" and
/// "not now" have no determiner and stay.
fn without_a_contrast(rules: &Normalize, text: &str) -> Option<String> {
    let tokens = tokens(text);
    let at = (1..tokens.len()).find(|&i| {
        let t = &tokens[i];
        let clause_end = repair_end(&tokens, i);
        let ends_a_sentence = clause_end == tokens.len() || tokens[clause_end].after_sentence;
        let determiner_at = |k: usize| {
            tokens
                .get(k)
                .filter(|_| k < clause_end)
                .is_some_and(|d| rules.determiners.contains(&d.word))
        };
        t.after_comma
            && rules.repair_negations.contains(&t.word)
            && ends_a_sentence
            && clause_end - i <= MAX_CONTRAST
            && (determiner_at(i + 1) || determiner_at(i + 2))
    })?;
    // The contrast's last word; what follows it (the sentence's end) stays.
    let last = repair_end(&tokens, at) - 1;
    // Back to the comma before the contrast.
    let cut = text[..tokens[at].start].rfind([',', ':', '—', '–'])?;
    Some(format!("{}{}", &text[..cut], &text[tokens[last].end..]))
}

/// "Oh no, sorry, I meant the cola." said as a turn of its own right after
/// one's own "Could you hand me the fanta?" (typed as a second message, or
/// split off by a microphone's early end of turn): the two texts joined, when
/// this one opens with an editing term and puts right something the one
/// before said; else `None`.
pub fn across_turns(rules: &Normalize, before: &str, text: &str) -> Option<String> {
    let words: Vec<String> = tokens(text).into_iter().map(|t| t.word).collect();
    let first = match after_editing_terms(rules, &words, 0) {
        Some(first) => first,
        None if words
            .first()
            .is_some_and(|w| rules.repair_negations.contains(w)) =>
        {
            0
        }
        None => return None,
    };
    // Only the thing put right, or "not X, Y": a longer turn says something
    // of its own ("Sorry, my wife is asking when I'll be home.").
    let negated = rules.repair_negations.contains(&words[first]);
    let most = if negated {
        2 * MAX_SENTENCE_REPAIR + 1
    } else {
        MAX_SENTENCE_REPAIR
    };
    if words.len() - first > most {
        return None;
    }
    let before = before.trim_end();
    // The first text must read as finished: a sentence end between the two.
    let ended = before.ends_with(['.', '!', '?']);
    let joined = format!(
        "{before}{} {}",
        if ended { "" } else { "." },
        text.trim_start()
    );
    let at = tokens(before).len();
    let repairs_it = (negated_repair(rules, &joined).is_some()
        && negated_repair(rules, before).is_none())
        || find(rules, &joined).is_some_and(|r| r.edit >= at && r.reparandum < at);
    repairs_it.then_some(joined)
}

/// "Pour me cola, no wait, not the cola, the zero": a repair that names what
/// it takes back ("not the cola") before what it puts in its place ("the
/// zero"). The text with the repair in the taken-back thing's place and the
/// editing terms and repair cut, if the taken-back words were said before.
fn negated_repair(rules: &Normalize, text: &str) -> Option<String> {
    let tokens = tokens(text);
    let words: Vec<String> = tokens.iter().map(|t| t.word.clone()).collect();
    let determiner = |w: &String| is_determiner(rules, w);
    (1..words.len()).find_map(|neg| {
        if !rules.repair_negations.contains(&words[neg]) {
            return None;
        }
        // The editing terms just before the negation, or it opens a sentence or clause.
        let edit = (0..neg)
            .find(|&e| after_editing_terms(rules, &words, e) == Some(neg))
            .or_else(|| (tokens[neg].after_sentence || tokens[neg].after_comma).then_some(neg))?;
        let comma = repair_end(&tokens, neg + 1);
        let end = repair_end(&tokens, comma);
        let (taken_back, repair) = (&words[neg + 1..comma], &words[comma..end]);
        if comma >= words.len() || !tokens[comma].after_comma {
            return None;
        }
        if repair.len() > MAX_SENTENCE_REPAIR || !short_phrase(rules, repair) {
            return None;
        }
        let core: Vec<&String> = taken_back.iter().skip_while(|w| determiner(w)).collect();
        if core.is_empty() || core.len() > MAX_SENTENCE_REPAIR {
            return None;
        }
        // The last place before the editing terms where the taken-back words were
        // said; or, said with more words now ("not the *normal* cola" after "cola"),
        // their end.
        let (said, core) = (1..=core.len()).rev().find_map(|n| {
            let core = &core[core.len() - n..];
            let said = (0..edit.checked_sub(n)? + 1)
                .rev()
                .find(|&k| words[k..k + n].iter().eq(core.iter().copied()))?;
            Some((said, core))
        })?;
        let mut from = said;
        if determiner(&words[comma]) {
            while from > 0 && determiner(&words[from - 1]) {
                from -= 1;
            }
        }
        let last = said + core.len() - 1;
        let tail = &text[tokens[end - 1].end..];
        let tail = if tail.chars().any(char::is_alphanumeric) {
            tail
        } else {
            ""
        };
        let repaired = with_the_thing(rules, repair, &words[last])
            .unwrap_or_else(|| text[tokens[comma].start..tokens[end - 1].end].to_string());
        let between = text[tokens[last].end..tokens[edit].start].trim_end();
        // "... cola? No, not ..., the zero one. In my glass.": one sentence end, not "?.".
        let tail = match between.ends_with(['.', '?', '!']) {
            true => tail.trim_start_matches(['.', '?', '!']),
            false => tail,
        };
        let before = text[..tokens[from].start].trim_end();
        let gap = if before.is_empty() { "" } else { " " };
        Some(format!("{before}{gap}{repaired}{between}{tail}"))
    })
}

/// A negated repair's words with the taken-back thing's word put in where it
/// has none: for its pro-form ("the zero *one*"), or after its determiner
/// before a word that follows a thing ("die ohne Zucker" → "die cola ohne
/// Zucker"); `None` when it names its thing itself.
fn with_the_thing(rules: &Normalize, repair: &[String], thing: &str) -> Option<String> {
    if let Some(at) = pro_form(rules, repair) {
        let mut words = repair.to_vec();
        words[at] = thing.to_string();
        return Some(words.join(" "));
    }
    match repair {
        [determiner, after, rest @ ..]
            if is_determiner(rules, determiner) && rules.repair_after_the_thing.contains(after) =>
        {
            let rest = rest.join(" ");
            Some(
                format!("{determiner} {thing} {after} {rest}")
                    .trim_end()
                    .to_string(),
            )
        }
        _ => None,
    }
}

/// A self-repair found in a text: word indices.
#[derive(Debug)]
struct Repair {
    tokens: Vec<Token>,
    /// The repair's pro-form ("the red *one*") and the word it stands for,
    /// the repaired phrase's last ("the blue *glass*").
    pro_form: Option<(usize, usize)>,
    /// Where the cut starts (the repaired phrase, or a negation before it).
    cut: usize,
    /// The repaired phrase's first word.
    reparandum: usize,
    /// The editing term's first word.
    edit: usize,
    /// The repair's first word, and one past its last (a comma, a sentence's end).
    repair: (usize, usize),
}

impl Repair {
    /// The text with the repaired phrase and the editing term left out.
    fn replaced(&self, text: &str) -> String {
        let cut = self.tokens[self.cut].start;
        format!("{}{}", &text[..cut], self.repair_text(text, text.len()))
    }

    /// The text from the repair's first word to byte `to`, its pro-form replaced.
    fn repair_text(&self, text: &str, to: usize) -> String {
        let t = &self.tokens;
        let from = t[self.repair.0].start;
        match self.pro_form {
            Some((one, head)) if t[one].end <= to => format!(
                "{}{}{}",
                &text[from..t[one].start],
                t[head].word,
                &text[t[one].end..to]
            ),
            _ => text[from..to].to_string(),
        }
    }

    /// The text with the repair in the repaired phrase's place and the words
    /// after that phrase kept, when they are words of the sentences (a verb)
    /// and the repair is as long as the phrase it repairs.
    fn keeping_between(
        &self,
        text: &str,
        template_words: &BTreeSet<String>,
        rules: &Normalize,
    ) -> Option<String> {
        let (first, end) = self.repair;
        let kept_from = self.reparandum + (end - first);
        let between = self.tokens.get(kept_from..self.edit)?;
        let verb_like =
            |t: &Token| template_words.contains(&t.word) && !rules.determiners.contains(&t.word);
        if between.is_empty() || !between.iter().all(verb_like) {
            return None;
        }
        let t = &self.tokens;
        Some(format!(
            "{}{} {}{}",
            &text[..t[self.cut].start],
            self.repair_text(text, t[end - 1].end),
            &text[between[0].start..between[between.len() - 1].end],
            &text[t[end - 1].end..],
        ))
    }
}

/// The first self-repair of `text`, if any.
fn find(rules: &Normalize, text: &str) -> Option<Repair> {
    if rules.repairs.0.is_empty() {
        return None;
    }
    let tokens = tokens(text);
    let words: Vec<String> = tokens.iter().map(|t| t.word.clone()).collect();
    (1..words.len())
        .filter(|&edit| !rules.no_repair_after.contains(&words[edit - 1]))
        .find_map(|edit| {
            let first = after_editing_terms(rules, &words, edit)?;
            let end = repair_end(&tokens, first);
            let reparandum = reparandum(rules, &words, &tokens, edit, first)?;
            // "No sorry, the cola zero." or "No, sorry. The small cup.": a
            // sentence of its own must be only a thing's phrase.
            let opens_a_sentence = tokens[edit].after_sentence || tokens[first].after_sentence;
            if opens_a_sentence && !short_phrase(rules, &words[first..end]) {
                return None;
            }
            let pro_form = match pro_form(rules, &words[first..end]) {
                // "a glass, um, the one I had last time" says which, it repairs nothing.
                Some(1) => return None,
                // "one cola, no, one fanta": a count, not a pro-form.
                Some(0) | None => None,
                Some(at) => Some((first + at, edit - 1)),
            };
            let negated = reparandum > 0 && rules.repair_negations.contains(&words[reparandum - 1]);
            Some((
                reparandum - usize::from(negated),
                reparandum,
                edit,
                (first, end),
                pro_form,
            ))
        })
        .map(|(cut, reparandum, edit, repair, pro_form)| Repair {
            tokens,
            pro_form,
            cut,
            reparandum,
            edit,
            repair,
        })
}

/// Where a pro-form stands in a repair ("the red one": 2), if one does.
fn pro_form(rules: &Normalize, repair: &[String]) -> Option<usize> {
    repair
        .iter()
        .position(|w| rules.repair_pro_forms.contains(w))
}

/// The first word after the editing terms starting at `at`, if any stand there.
fn after_editing_terms(rules: &Normalize, words: &[String], at: usize) -> Option<usize> {
    let mut next = at;
    while let Some(term) = rules
        .repairs
        .0
        .iter()
        .find(|t| words[next..].starts_with(t))
    {
        next += term.len();
        if next >= words.len() {
            return None;
        }
    }
    (next > at).then_some(next)
}

/// One past the last word of the clause `first` opens (a repair, a contrast):
/// the next comma or sentence end, or the text's end.
fn repair_end(tokens: &[Token], first: usize) -> usize {
    (first + 1..tokens.len())
        .find(|&i| tokens[i].after_comma || tokens[i].after_sentence)
        .unwrap_or(tokens.len())
}

/// Where the phrase being repaired starts: the nearest word before the
/// editing term at `edit` that is the repair's first word, else (when the
/// repair starts with a determiner) the nearest determiner with only words
/// of a thing between; within the sentence, with no list between ("the
/// cola and, uh, the fanta" is two things).
fn reparandum(
    rules: &Normalize,
    words: &[String],
    tokens: &[Token],
    edit: usize,
    first: usize,
) -> Option<usize> {
    let earliest = edit.saturating_sub(MAX_REPARANDUM);
    let all: Vec<usize> = (earliest..edit)
        .rev()
        .take_while(|&k| {
            !tokens[k + 1..edit].iter().any(|t| t.after_sentence)
                && !words[k + 1..edit]
                    .iter()
                    .any(|w| rules.conjunctions.contains(w))
        })
        .collect();
    let opener = &words[first];
    let determiner = |w: &String| is_determiner(rules, w);
    all.iter()
        .copied()
        .find(|&k| &words[k] == opener)
        .or_else(|| {
            determiner(opener).then_some(())?;
            all.into_iter().find(|&k| {
                determiner(&words[k])
                    && !words[k + 1..edit]
                        .iter()
                        .any(|w| rules.not_in_objects.contains(w))
            })
        })
}

/// Whether `word` opens a thing's phrase: a determiner or a possessive ("the", "my", "die").
fn is_determiner(rules: &Normalize, word: &str) -> bool {
    rules.determiners.iter().any(|d| d == word) || rules.possessives.contains_key(word)
}

/// Whether a repair said as a sentence of its own is only a thing's phrase.
fn short_phrase(rules: &Normalize, words: &[String]) -> bool {
    words.len() <= MAX_SENTENCE_REPAIR
        && words.iter().skip(1).all(|w| {
            !rules.not_in_objects.contains(w)
                || rules.determiners.contains(w)
                || rules.repair_pro_forms.contains(w)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Normalize {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Normalize {
            repairs: words(&[
                "no",
                "sorry",
                "i mean",
                "uh",
                "or rather",
                "nee",
                "äh",
                "ich mein",
                "wait",
            ])
            .into(),
            repair_negations: words(&["not", "nich"]),
            repair_pro_forms: words(&["one"]),
            determiners: words(&["the", "a", "das", "die"]),
            conjunctions: words(&["and"]),
            not_in_objects: words(&["me", "is", "and", "the", "a", "to", "for"]),
            ..Normalize::default()
        }
    }

    fn repaired(text: &str) -> String {
        find(&rules(), text).map_or(text.to_string(), |r| r.replaced(text))
    }

    #[test]
    fn a_contrast_that_ends_a_sentence_is_no_part_of_the_request() {
        let cut = |text: &str| without_a_contrast(&rules(), text);
        assert_eq!(
            cut("Pour me one, in the small cup, not in the large one.").as_deref(),
            Some("Pour me one, in the small cup.")
        );
        assert_eq!(
            cut("Gieß mir einen ein, in die kleine, nich die große").as_deref(),
            Some("Gieß mir einen ein, in die kleine")
        );
        assert_eq!(
            cut("A coffee, in the small cup, not the large one. Thanks!").as_deref(),
            Some("A coffee, in the small cup. Thanks!")
        );
        // No determiner: "not yet" says when, not what.
        assert_eq!(cut("Give me the milk, not yet."), None);
        // Not at the sentence's end: it may be a repair's first half.
        assert_eq!(cut("Pour me cola, not the cola, the zero."), None);
    }

    #[test]
    fn the_repair_takes_the_place_of_what_it_repairs() {
        assert_eq!(
            repaired("Daniel, could you pass me the blue glass, no sorry, the red glass?"),
            "Daniel, could you pass me the red glass?"
        );
        assert_eq!(
            repaired("pass me the fanta i mean the blue glass"),
            "pass me the blue glass"
        );
        assert_eq!(
            repaired("pour fanta into the red glass, I mean into the blue glass"),
            "pour fanta into the blue glass"
        );
        assert_eq!(repaired("hand me the, uh, the cola"), "hand me the cola");
        assert_eq!(
            repaired("hand me the cola, uh, or rather the fanta"),
            "hand me the fanta"
        );
        // A sentence of its own that is only a thing's phrase.
        assert_eq!(
            repaired("Can I have the cola? No sorry, the cola zero."),
            "Can I have the cola zero."
        );
        assert_eq!(
            repaired("Could you pour some coffee into the large cup? No, sorry. The small cup."),
            "Could you pour some coffee into The small cup."
        );
        // A negation before the repaired phrase goes with it.
        assert_eq!(
            repaired("äh sorry nich das bier ich mein das wasser"),
            "äh sorry das wasser"
        );
    }

    #[test]
    fn a_repair_that_names_what_it_takes_back_replaces_that() {
        let rules = rules();
        let repaired = |text: &str| negated_repair(&rules, text);
        assert_eq!(
            repaired("Can you pour me cola into my blue glass? No wait, not the cola, the zero.")
                .as_deref(),
            Some("Can you pour me the zero into my blue glass?")
        );
        assert_eq!(
            repaired("kannst du mir cola ins blaue glas schenken nee, nich die cola, die zero")
                .as_deref(),
            Some("kannst du mir die zero ins blaue glas schenken")
        );
        // Taken back with more words than were said ("the *normal* cola"), put
        // right with a pro-form or a word that follows a thing.
        let rules = Normalize {
            repair_after_the_thing: vec!["ohne".into()],
            ..rules
        };
        let repaired = |text: &str| negated_repair(&rules, text);
        assert_eq!(
            repaired("Could you pour me cola? No, not the normal cola, the zero one. In my glass.")
                .as_deref(),
            Some("Could you pour me the zero cola? In my glass.")
        );
        assert_eq!(
            repaired("Schenkst du mir Cola ein? Nee, nich die normale Cola, die ohne Zucker.")
                .as_deref(),
            Some("Schenkst du mir die cola ohne zucker ein?")
        );
        // Nothing taken back that was said before: no repair.
        for text in [
            "give me not the cola, the zero",
            "pass me the fanta. Not the cola, the zero.",
            "not",
            "no, not, ",
        ] {
            assert_eq!(repaired(text), None, "{text}");
        }
    }

    #[test]
    fn a_pro_form_in_the_repair_stands_for_the_repaired_thing() {
        assert_eq!(
            repaired("pass me the blue glass, no, the red one, please"),
            "pass me the red glass, please"
        );
        // A count is no pro-form.
        assert_eq!(repaired("one cola, no, one fanta"), "one fanta");
        // "the one ..." says which: no repair.
        let text = "Can I have a glass, um, the one I had last time?";
        assert_eq!(repaired(text), text);
    }

    #[test]
    fn no_repair_where_none_was_made() {
        for text in [
            "could you pass me the blue glass, no rush",
            "the cola and, uh, the fanta",
            "No, the fanta is for Daniel.",
            "Is the cola cold? No, sorry. The fanta is for Daniel.",
            "Do you want the cola? No, the fanta is for Daniel.",
            "sorry, the fanta is empty",
            "pass me the cola",
        ] {
            assert_eq!(repaired(text), text, "{text}");
        }
    }

    #[test]
    fn words_after_the_repaired_phrase_are_kept_as_an_alternative() {
        let rules = rules();
        let text = "kannst du mir fanta ins rote glas gießen, äh, ich mein ins blaue glas";
        let repair = find(&rules, text).expect("a repair");
        assert_eq!(repair.replaced(text), "kannst du mir fanta ins blaue glas");
        let template_words: BTreeSet<String> = ["gießen".to_string()].into();
        assert_eq!(
            repair
                .keeping_between(text, &template_words, &rules)
                .as_deref(),
            Some("kannst du mir fanta ins blaue glas gießen")
        );
        // A thing's own word is no verb to keep.
        let text = "pass me the big red glass, no, the blue one";
        let repair = find(&rules, text).expect("a repair");
        assert_eq!(repair.keeping_between(text, &BTreeSet::new(), &rules), None);
    }

    #[test]
    fn a_turn_that_opens_with_a_repair_puts_the_turn_before_right() {
        let r = rules();
        assert_eq!(
            across_turns(
                &r,
                "Could you hand me the fanta?",
                "Sorry, I mean the cola."
            )
            .as_deref(),
            Some("Could you hand me the fanta? Sorry, I mean the cola.")
        );
        assert_eq!(
            across_turns(&r, "pass me the fanta", "no, the cola").as_deref(),
            Some("pass me the fanta. no, the cola")
        );
        // Not opened by an editing term, or nothing in the turn before to repair.
        assert_eq!(
            across_turns(&r, "Could you hand me the fanta?", "The cola is mine."),
            None
        );
        assert_eq!(
            across_turns(&r, "How was your day?", "No, it was fine."),
            None
        );
        assert_eq!(across_turns(&r, "", "sorry"), None);
        assert_eq!(
            across_turns(
                &r,
                "We only have the one glass.",
                "Sorry, the wife asks when I get home."
            ),
            None
        );
    }

    #[test]
    fn odd_text_does_not_panic() {
        for text in [
            "",
            "no",
            "uh uh uh",
            "the no",
            "no the",
            "ich mein ich mein das",
            "…, no, ä",
        ] {
            let _ = repaired(text);
        }
    }
}
