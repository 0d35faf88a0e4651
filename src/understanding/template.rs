//! Sentence templates in the style of Home Assistant's hassil: literal words,
//! alternatives `(pass|hand|give)`, optional parts `[please]`, slots
//! `{object}`, shared rules `<request>` (expanded when the file is loaded) and
//! gaps `*` (any few words, so that a template can catch what exact ones miss).
//! A slot may be bound without words, `{person=listener}`: German "können Sie
//! …" says who is asked by the verb's form, not by a word a slot could take.

use std::collections::BTreeMap;

/// One element of a compiled template.
#[derive(Debug, Clone, PartialEq)]
pub enum Element {
    /// One literal word.
    Word(String),
    /// Alternatives, each a sequence; an empty sequence makes the choice optional.
    Choice(Vec<Vec<Element>>),
    /// A slot, filled from the scene or a word list.
    Slot(String),
    /// A slot bound to a value without taking words (`{person=listener}`).
    Bound(String, String),
    /// Any 0 to [`MAX_GAP`] words.
    Gap,
}

/// Every literal word of `elements`, in lower case, into `into`.
pub fn literal_words(elements: &[Element], into: &mut std::collections::BTreeSet<String>) {
    for e in elements {
        match e {
            Element::Word(w) => {
                into.insert(w.to_lowercase());
            }
            Element::Choice(options) => options.iter().for_each(|o| literal_words(o, into)),
            Element::Slot(_) | Element::Bound(..) | Element::Gap => {}
        }
    }
}

/// The most words one `*` may skip.
pub const MAX_GAP: usize = 8;

/// Why a template does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// Brackets do not pair.
    #[error("unbalanced '{0}'")]
    Unbalanced(char),
    /// A `<rule>` that the file does not define.
    #[error("unknown rule <{0}>")]
    UnknownRule(String),
    /// A `{slot}` that the file does not define.
    #[error("unknown slot {{{0}}}")]
    UnknownSlot(String),
    /// A rule that refers to itself.
    #[error("rule <{0}> refers to itself")]
    Recursive(String),
    /// Nothing to match.
    #[error("empty template")]
    Empty,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open(char),
    Close(char),
    Bar,
    Slot(String),
    Rule(String),
    Gap,
    Word(String),
}

fn tokenize(text: &str) -> Result<Vec<Token>, TemplateError> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    let mut word = String::new();
    let flush = |word: &mut String, tokens: &mut Vec<Token>| {
        if !word.is_empty() {
            tokens.push(Token::Word(std::mem::take(word).to_lowercase()));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '(' | '[' => {
                flush(&mut word, &mut tokens);
                tokens.push(Token::Open(c));
            }
            ')' | ']' => {
                flush(&mut word, &mut tokens);
                tokens.push(Token::Close(c));
            }
            '|' => {
                flush(&mut word, &mut tokens);
                tokens.push(Token::Bar);
            }
            '*' => {
                flush(&mut word, &mut tokens);
                tokens.push(Token::Gap);
            }
            '{' | '<' => {
                flush(&mut word, &mut tokens);
                let close = if c == '{' { '}' } else { '>' };
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some(n) if n == close => break,
                        Some(n) => name.push(n),
                        None => return Err(TemplateError::Unbalanced(c)),
                    }
                }
                let name = name.trim().to_string();
                tokens.push(if c == '{' {
                    Token::Slot(name)
                } else {
                    Token::Rule(name)
                });
            }
            c if c.is_whitespace() => flush(&mut word, &mut tokens),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut tokens);
    Ok(tokens)
}

/// What a template may refer to while it compiles.
pub struct Names<'a> {
    /// Rule name to its template text.
    pub rules: &'a BTreeMap<String, String>,
    /// Known slot names, and bound slots (`person=listener`) whose value the slot's kind knows.
    pub slots: &'a dyn Fn(&str) -> bool,
}

/// Compiles a template, expanding its rules.
pub fn compile(text: &str, names: &Names<'_>) -> Result<Vec<Element>, TemplateError> {
    let elements = compile_inner(text, names, &mut Vec::new())?;
    if elements.is_empty() {
        return Err(TemplateError::Empty);
    }
    Ok(elements)
}

fn compile_inner(
    text: &str,
    names: &Names<'_>,
    expanding: &mut Vec<String>,
) -> Result<Vec<Element>, TemplateError> {
    let tokens = tokenize(text)?;
    let mut at = 0;
    let elements = parse_sequence(&tokens, &mut at, names, expanding)?;
    match tokens.get(at) {
        None => Ok(elements),
        Some(Token::Close(c)) => Err(TemplateError::Unbalanced(*c)),
        Some(_) => Err(TemplateError::Unbalanced('|')),
    }
}

/// Parses elements up to a closing bracket or bar (not consumed).
fn parse_sequence(
    tokens: &[Token],
    at: &mut usize,
    names: &Names<'_>,
    expanding: &mut Vec<String>,
) -> Result<Vec<Element>, TemplateError> {
    let mut out = Vec::new();
    while let Some(token) = tokens.get(*at) {
        match token {
            Token::Close(_) | Token::Bar => break,
            Token::Open(open) => {
                *at += 1;
                let mut alternatives = vec![parse_sequence(tokens, at, names, expanding)?];
                loop {
                    match tokens.get(*at) {
                        Some(Token::Bar) => {
                            *at += 1;
                            alternatives.push(parse_sequence(tokens, at, names, expanding)?);
                        }
                        Some(Token::Close(close)) if pairs(*open, *close) => {
                            *at += 1;
                            break;
                        }
                        _ => return Err(TemplateError::Unbalanced(*open)),
                    }
                }
                if *open == '[' {
                    alternatives.push(Vec::new());
                }
                out.push(Element::Choice(alternatives));
                continue;
            }
            Token::Slot(name) => {
                let (slot, bound) = match name.split_once('=') {
                    Some((slot, value)) => (slot.trim(), Some(value.trim())),
                    None => (name.as_str(), None),
                };
                if !(names.slots)(name) {
                    return Err(TemplateError::UnknownSlot(name.clone()));
                }
                out.push(match bound {
                    Some(value) => Element::Bound(slot.to_string(), value.to_string()),
                    None => Element::Slot(slot.to_string()),
                });
            }
            Token::Rule(name) => {
                if expanding.contains(name) {
                    return Err(TemplateError::Recursive(name.clone()));
                }
                let body = names
                    .rules
                    .get(name)
                    .ok_or_else(|| TemplateError::UnknownRule(name.clone()))?;
                expanding.push(name.clone());
                let inner = compile_inner(body, names, expanding)?;
                expanding.pop();
                out.push(Element::Choice(vec![inner]));
            }
            Token::Gap => out.push(Element::Gap),
            Token::Word(word) => out.push(Element::Word(word.clone())),
        }
        *at += 1;
    }
    Ok(out)
}

fn pairs(open: char, close: char) -> bool {
    matches!((open, close), ('(', ')') | ('[', ']'))
}

/// What every match of a template contains: for each need, one of its words
/// (a cheap test before matching: `(pass|hand)` needs "pass" or "hand").
pub fn needed_words(elements: &[Element]) -> Vec<Vec<String>> {
    let mut needs: Vec<Vec<String>> = Vec::new();
    for element in elements {
        match element {
            Element::Word(w) => needs.push(vec![w.clone()]),
            Element::Choice(alternatives) => {
                // Each alternative must bring a word of the union; an empty one brings none.
                let mut union: Vec<String> = Vec::new();
                let mut every = true;
                for alternative in alternatives {
                    match needed_words(alternative).into_iter().next() {
                        Some(words) => union.extend(words),
                        None => every = false,
                    }
                }
                if every && !union.is_empty() {
                    union.sort();
                    union.dedup();
                    needs.push(union);
                }
            }
            Element::Slot(_) | Element::Bound(..) | Element::Gap => {}
        }
    }
    needs
}

/// Whether `words` can match a template with these needs.
pub fn may_match(needs: &[Vec<String>], words: &[String]) -> bool {
    needs
        .iter()
        .all(|need| need.iter().any(|w| words.contains(w)))
}

/// Fills slots while a template is matched.
pub trait SlotFiller {
    /// The value type of a filled slot.
    type Value: Clone;
    /// The value of slot `name` over `words[from..to]`, if that span fits it.
    fn fill(&mut self, name: &str, from: usize, to: usize) -> Option<Self::Value>;
    /// The longest span a slot may take.
    fn max_span(&self, name: &str) -> usize;
    /// The value of slot `name` bound to `value` in the template, taking no
    /// words, if the slot's kind knows such a value.
    fn bound(&mut self, _name: &str, _value: &str) -> Option<Self::Value> {
        None
    }
    /// Whether a filled value names something at the table: a shorter span
    /// that does is tried before a longer one that does not ("the red torch
    /// | round to her side", not "the red torch round").
    fn grounded(&self, _value: &Self::Value) -> bool {
        true
    }
}

/// A successful match: filled slots in order, and the words skipped by gaps.
#[derive(Debug, Clone, PartialEq)]
pub struct Match<V> {
    /// Slot name and value, in sentence order.
    pub slots: Vec<(String, V)>,
    /// Words skipped by `*`.
    pub skipped: usize,
    /// Where the gaps skipped words: (first word, how many).
    pub gaps: Vec<(usize, usize)>,
}

/// Steps one match may take before it gives up (pathological input).
const STEP_BUDGET: usize = 20_000;

/// Matches a whole sentence against a template; the first match found, with
/// gaps as short and slots as long as they can be.
pub fn matches<F: SlotFiller>(
    template: &[Element],
    words: &[String],
    filler: &mut F,
) -> Option<Match<F::Value>> {
    let mut state = Search {
        words,
        filler,
        steps: 0,
        slots: Vec::new(),
        skipped: 0,
        gaps: Vec::new(),
    };
    let stack: Vec<&[Element]> = vec![template];
    if state.run(stack, 0) {
        Some(Match {
            slots: state.slots,
            skipped: state.skipped,
            gaps: state.gaps,
        })
    } else {
        None
    }
}

struct Search<'w, 'f, F: SlotFiller> {
    words: &'w [String],
    filler: &'f mut F,
    steps: usize,
    slots: Vec<(String, F::Value)>,
    skipped: usize,
    gaps: Vec<(usize, usize)>,
}

impl<F: SlotFiller> Search<'_, '_, F> {
    /// Matches the continuation `stack` (innermost sequence last) from word `at`.
    fn run(&mut self, mut stack: Vec<&[Element]>, at: usize) -> bool {
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            return false;
        }
        // The next element: the head of the innermost non-empty sequence.
        let (element, rest) = loop {
            match stack.pop() {
                None => return at == self.words.len(),
                Some([]) => continue,
                Some([first, rest @ ..]) => break (first, rest),
            }
        };
        stack.push(rest);
        match element {
            Element::Word(w) => self.words.get(at) == Some(w) && self.run(stack, at + 1),
            Element::Choice(alternatives) => alternatives.iter().any(|alternative| {
                let mut next = stack.clone();
                next.push(alternative);
                self.run(next, at)
            }),
            Element::Gap => {
                let most = MAX_GAP.min(self.words.len() - at);
                (0..=most).any(|skip| {
                    self.skipped += skip;
                    if skip > 0 {
                        self.gaps.push((at, skip));
                    }
                    let ok = self.run(stack.clone(), at + skip);
                    if !ok {
                        self.skipped -= skip;
                        if skip > 0 {
                            self.gaps.pop();
                        }
                    }
                    ok
                })
            }
            Element::Bound(name, value) => {
                let Some(value) = self.filler.bound(name, value) else {
                    return false;
                };
                self.slots.push((name.clone(), value));
                let ok = self.run(stack, at);
                if !ok {
                    self.slots.pop();
                }
                ok
            }
            Element::Slot(name) => {
                let most = self.filler.max_span(name).min(self.words.len() - at);
                let mut ungrounded = Vec::new();
                for len in (1..=most).rev() {
                    let Some(value) = self.filler.fill(name, at, at + len) else {
                        continue;
                    };
                    if !self.filler.grounded(&value) {
                        ungrounded.push((len, value));
                    } else if self.take_slot(name, value, &stack, at + len) {
                        return true;
                    }
                }
                ungrounded
                    .into_iter()
                    .any(|(len, value)| self.take_slot(name, value, &stack, at + len))
            }
        }
    }

    /// Goes on with slot `name` filled by `value` up to word `next`.
    fn take_slot(
        &mut self,
        name: &str,
        value: F::Value,
        stack: &[&[Element]],
        next: usize,
    ) -> bool {
        self.slots.push((name.to_string(), value));
        let ok = self.run(stack.to_vec(), next);
        if !ok {
            self.slots.pop();
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Colours;
    impl SlotFiller for Colours {
        type Value = usize;
        fn fill(&mut self, _name: &str, from: usize, to: usize) -> Option<usize> {
            // Only one-word spans fit, at any position.
            (to - from == 1).then_some(from)
        }
        fn max_span(&self, _name: &str) -> usize {
            3
        }
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn compiled(text: &str) -> Vec<Element> {
        let mut rules = BTreeMap::new();
        rules.insert("verb".to_string(), "(pass|hand|give)".to_string());
        rules.insert("loop".to_string(), "a <loop>".to_string());
        let slots = |n: &str| n == "object";
        compile(
            text,
            &Names {
                rules: &rules,
                slots: &slots,
            },
        )
        .expect("compiles")
    }

    #[test]
    fn alternatives_optionals_rules_and_slots() {
        let t = compiled("[could you] <verb> me [the] {object} [now]");
        for s in [
            "pass me the cola",
            "could you hand me cola now",
            "give me the x",
        ] {
            assert!(matches(&t, &words(s), &mut Colours).is_some(), "{s}");
        }
        for s in [
            "pass the cola",
            "could you pass me",
            "pass me the two colas",
        ] {
            assert!(matches(&t, &words(s), &mut Colours).is_none(), "{s}");
        }
        let m = matches(&t, &words("pass me the cola"), &mut Colours).expect("match");
        assert_eq!(m.slots, vec![("object".to_string(), 3)]);
    }

    #[test]
    fn gaps_skip_few_words_and_count_them() {
        let t = compiled("* <verb> * {object}");
        let m = matches(&t, &words("would you mind to pass over cola"), &mut Colours).expect("m");
        assert_eq!(m.skipped, 5);
        assert!(matches(&t, &words("cola"), &mut Colours).is_none());
    }

    #[test]
    fn needs_tell_cheaply_what_cannot_match() {
        let t = compiled("[could you] <verb> me [the] {object} now");
        let needs = needed_words(&t);
        assert!(needs.contains(&vec![
            "give".to_string(),
            "hand".to_string(),
            "pass".to_string()
        ]));
        assert!(may_match(&needs, &words("could you hand me the cola now")));
        assert!(!may_match(
            &needs,
            &words("could you throw me the cola now")
        ));
        assert!(!may_match(&needs, &words("pass me the cola")));
    }

    /// Fills any span with its length; only two-word spans name a thing at the table.
    struct TwoWordThings;
    impl SlotFiller for TwoWordThings {
        type Value = usize;
        fn fill(&mut self, _name: &str, from: usize, to: usize) -> Option<usize> {
            Some(to - from)
        }
        fn max_span(&self, _name: &str) -> usize {
            4
        }
        fn grounded(&self, value: &usize) -> bool {
            *value == 2
        }
    }

    #[test]
    fn a_slot_takes_a_shorter_span_the_table_has_before_a_longer_one_it_lacks() {
        let t = compiled("take {object} [round] to me");
        let taken = |s: &str| {
            matches(&t, &words(s), &mut TwoWordThings)
                .map(|m| m.slots[0].1)
                .expect("matches")
        };
        // "red torch" is there, "red torch round" is not: the optional word stays outside.
        assert_eq!(taken("take red torch round to me"), 2);
        // Nothing shorter is there: the longest span still fills the slot.
        assert_eq!(taken("take big red torch round to me"), 4);
    }

    #[test]
    fn bad_templates_say_why() {
        let rules = BTreeMap::from([("loop".to_string(), "a <loop>".to_string())]);
        let slots = |n: &str| n == "object";
        let names = Names {
            rules: &rules,
            slots: &slots,
        };
        assert_eq!(compile("(a|b", &names), Err(TemplateError::Unbalanced('(')));
        assert_eq!(compile("a]", &names), Err(TemplateError::Unbalanced(']')));
        assert_eq!(
            compile("<nope>", &names),
            Err(TemplateError::UnknownRule("nope".into()))
        );
        assert_eq!(
            compile("{place}", &names),
            Err(TemplateError::UnknownSlot("place".into()))
        );
        assert_eq!(
            compile("<loop>", &names),
            Err(TemplateError::Recursive("loop".into()))
        );
        assert_eq!(compile("  ", &names), Err(TemplateError::Empty));
    }

    /// Fills nothing from words; binds `{object=listener}` to 7.
    struct Binding;
    impl SlotFiller for Binding {
        type Value = usize;
        fn fill(&mut self, _name: &str, _from: usize, _to: usize) -> Option<usize> {
            None
        }
        fn max_span(&self, _name: &str) -> usize {
            1
        }
        fn bound(&mut self, name: &str, value: &str) -> Option<usize> {
            (name == "object" && value == "listener").then_some(7)
        }
    }

    #[test]
    fn a_bound_slot_takes_no_words() {
        let rules = BTreeMap::new();
        let slots = |n: &str| n == "object" || n == "object=listener" || n == "object=other";
        let names = Names {
            rules: &rules,
            slots: &slots,
        };
        let t = compile("can sie {object=listener} reach", &names).expect("compiles");
        let m = matches(&t, &words("can sie reach"), &mut Binding).expect("matches");
        assert_eq!(m.slots, vec![("object".to_string(), 7)]);
        // A value the filler does not bind never matches.
        let t = compile("can sie {object=other} reach", &names).expect("compiles");
        assert!(matches(&t, &words("can sie reach"), &mut Binding).is_none());
        assert_eq!(
            compile("{object=nobody}", &names),
            Err(TemplateError::UnknownSlot("object=nobody".into()))
        );
    }

    #[test]
    fn pathological_input_gives_up_instead_of_hanging() {
        let t = compiled("* * * * * * {object} * * * * * * x");
        let long: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        assert!(matches(&t, &long, &mut Colours).is_none());
    }
}
