//! The scene's vocabulary and how it fills slots: spans of a sentence grounded
//! to objects and people with the twin's grounding, pronouns resolved from
//! speaker, listener and the dialogue.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use super::grammar::{Grammar, SlotKind};
use super::reading::{ObjectMention, PersonMention};
use super::template::{self, SlotFiller};
use crate::twin::grounding::{self, Grounding};
use crate::twin::whereabouts::{self, Whereabouts};
use crate::twin::{ObjectId, World};

/// Who is talking to whom, and what "it" means.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// The speaker's scene name, when known.
    pub speaker: Option<String>,
    /// The listener's scene name (a person), when a person.
    pub listener_person: Option<String>,
    /// Whether the robot is addressed.
    pub robot_addressed: bool,
    /// The object last mentioned in the dialogue.
    pub referent: Option<String>,
    /// Whether the turn addresses its listener formally ("Sie", "Ihnen"):
    /// then "Ihre Tasse" with nobody else at the table is the listener's.
    pub formal: bool,
    /// The one person the turn names besides its speaker and listener
    /// ("Dilnoza needs the juice, can you get it to her?"): whom "her" means.
    pub named_person: Option<String>,
}

/// A filled slot.
#[derive(Debug, Clone, PartialEq)]
pub enum SlotValue {
    /// An object (or words for one).
    Object(ObjectMention),
    /// A person.
    Person(PersonMention),
    /// Several objects and words.
    Items(Vec<ObjectMention>),
    /// A word-list value.
    Value(String),
}

/// The vocabulary of a scene, built once per reading.
pub struct Lexicon<'w> {
    world: &'w World,
    vocabulary: BTreeSet<String>,
    person_words: BTreeSet<String>,
    robot_words: Vec<String>,
    /// Memo of `known` (edit distances are the costly part of a reading).
    known_memo: RefCell<HashMap<String, Option<String>>>,
    /// Memo of object grounding by the corrected words.
    grounded_memo: RefCell<HashMap<String, Option<Vec<String>>>>,
    /// Memo of every object the corrected words fit.
    fitting_memo: RefCell<HashMap<String, Vec<String>>>,
    /// The sentences' own words ("well", "sure"): never a thing's name misspelt.
    sentence_words: Option<&'w BTreeSet<String>>,
}

/// How a thing's name ends in the plural, as the sentences read it ("glasses", "cups").
pub const PLURAL_ENDINGS: [&str; 2] = ["es", "s"];

/// `word` as written, then without a plural ending: the forms a thing's name may take.
pub fn singular_forms(word: &str) -> impl Iterator<Item = &str> {
    std::iter::once(word).chain(
        PLURAL_ENDINGS
            .iter()
            .filter_map(move |e| word.strip_suffix(e)),
    )
}

impl<'w> Lexicon<'w> {
    /// The words of a scene's objects, people and robot.
    pub fn new(world: &'w World) -> Self {
        let mut vocabulary = BTreeSet::new();
        for object in world.objects() {
            vocabulary.extend(grounding::words(&object.name));
            vocabulary.extend(grounding::words(&object.kind.name));
            vocabulary.extend(object.kind.words.iter().flat_map(|w| grounding::words(w)));
            vocabulary.extend(object.properties.iter().flat_map(|w| grounding::words(w)));
            if let Some(liquid) = &object.contains {
                vocabulary.extend(grounding::words(liquid));
            }
        }
        let person_words = world
            .persons()
            .iter()
            .flat_map(|p| grounding::words(&p.name))
            .collect();
        Self {
            world,
            vocabulary,
            person_words,
            robot_words: grounding::words(&world.robot.name),
            known_memo: RefCell::default(),
            grounded_memo: RefCell::default(),
            fitting_memo: RefCell::default(),
            sentence_words: None,
        }
    }

    /// The lexicon that takes no word of the sentences for a misspelt name
    /// ("Ah well." names no bell).
    pub fn with_sentence_words(mut self, words: &'w BTreeSet<String>) -> Self {
        self.sentence_words = Some(words);
        self
    }

    /// The scene objects corrected words can mean (`None`: nothing like them).
    fn ground(&self, words: &str) -> Option<Vec<String>> {
        if let Some(hit) = self.grounded_memo.borrow().get(words) {
            return hit.clone();
        }
        let found = match grounding::object(self.world, words) {
            Grounding::Resolved(id) => Some(vec![self.world.object(id).name.clone()]),
            Grounding::Ambiguous(ids) => {
                // "the wine": the one that holds wine, not the wine glass.
                let said = grounding::words(words);
                let holding: Vec<_> = ids
                    .iter()
                    .filter(|id| {
                        self.world
                            .object(**id)
                            .contains
                            .as_deref()
                            .is_some_and(|liquid| {
                                let liquid = grounding::words(liquid);
                                said.iter().all(|w| liquid.contains(w))
                            })
                    })
                    .collect();
                match holding.as_slice() {
                    [one] => Some(vec![self.world.object(**one).name.clone()]),
                    _ => Some(
                        ids.into_iter()
                            .map(|id| self.world.object(id).name.clone())
                            .collect(),
                    ),
                }
            }
            Grounding::Unknown { .. } => None,
        };
        self.grounded_memo
            .borrow_mut()
            .insert(words.to_string(), found.clone());
        found
    }

    /// The words by which a listener may be addressed at either end of a sentence.
    pub fn vocatives(&self, context: &Context) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        if let Some(listener) = &context.listener_person {
            let name = grounding::words(listener);
            // A short form ("Dan" for Daniel) addresses them too.
            if let [one] = name.as_slice() {
                if one.chars().count() > 4 {
                    out.push(vec![one.chars().take(3).collect()]);
                }
            }
            out.push(name);
        }
        if context.robot_addressed {
            out.push(self.robot_words.clone());
            out.push(vec!["robot".to_string()]);
        }
        out
    }

    /// A word as the vocabulary knows it (plural, near miss), if it does.
    fn known(&self, word: &str) -> Option<String> {
        if let Some(hit) = self.known_memo.borrow().get(word) {
            return hit.clone();
        }
        let found = self.known_uncached(word);
        self.known_memo
            .borrow_mut()
            .insert(word.to_string(), found.clone());
        found
    }

    fn known_uncached(&self, word: &str) -> Option<String> {
        if let Some(spelt) = self.as_written(word) {
            return Some(spelt.to_string());
        }
        let length = word.chars().count();
        if length < 4 || self.sentence_words.is_some_and(|w| w.contains(word)) {
            return None;
        }
        let allowed = if length >= 7 { 2 } else { 1 };
        self.vocabulary
            .iter()
            .map(|v| (grounding::spelling_distance(word, v), v))
            .filter(|(d, _)| *d <= allowed)
            .min_by_key(|(d, _)| *d)
            .map(|(_, v)| v.clone())
    }

    /// Every scene object the corrected words fit, by name (what a count counts).
    fn fitting(&self, words: &str) -> Vec<String> {
        if let Some(hit) = self.fitting_memo.borrow().get(words) {
            return hit.clone();
        }
        let found: Vec<String> = grounding::objects_fitting(self.world, words)
            .into_iter()
            .map(|id| self.world.object(id).name.clone())
            .collect();
        self.fitting_memo
            .borrow_mut()
            .insert(words.to_string(), found.clone());
        found
    }

    /// Whether a word names something at the table: an object's word (as the
    /// recogniser may have misheard it), a person, the robot.
    pub fn names_table(&self, word: &str) -> bool {
        self.person_words.contains(word)
            || self.robot_words.iter().any(|w| w == word)
            || self.known(word).is_some()
    }

    /// The table's plain things and their variants: (cola_bottle,
    /// cola_zero_bottle) where every word of the one's name is in the other's.
    pub fn plain_siblings(&self) -> Vec<(String, String)> {
        let objects = self.world.objects();
        let words = |name: &str| {
            name.split('_')
                .map(str::to_string)
                .collect::<BTreeSet<String>>()
        };
        let mut pairs = Vec::new();
        for one in objects {
            for variant in objects {
                let (a, b) = (words(&one.name), words(&variant.name));
                if one.name != variant.name && a.len() < b.len() && a.is_subset(&b) {
                    pairs.push((one.name.clone(), variant.name.clone()));
                }
            }
        }
        pairs
    }

    /// Of `names`, those no other of them is a plainer form of (none dropped
    /// where none is plainer), by the table's [`Lexicon::plain_siblings`].
    pub fn plainest(siblings: &[(String, String)], names: &[String]) -> Vec<String> {
        names
            .iter()
            .filter(|n| {
                !siblings
                    .iter()
                    .any(|(one, variant)| variant == *n && names.contains(one))
            })
            .cloned()
            .collect()
    }

    /// Whether a word is one of the table's words for its things, as written
    /// or in the plural (no near misspellings: "while" is no "white").
    pub fn is_thing_word(&self, word: &str) -> bool {
        self.as_written(word).is_some()
    }

    /// The table's word `word` is, as written or in the plural.
    fn as_written<'a>(&self, word: &'a str) -> Option<&'a str> {
        singular_forms(word).find(|w| self.vocabulary.contains(*w))
    }

    /// Whether a word names a thing on the table (as the recogniser may have misheard it).
    pub fn names_thing(&self, word: &str) -> bool {
        self.known(word).is_some()
    }

    /// The other person: neither the speaker nor the listener, when exactly one.
    fn other_person(&self, context: &Context) -> Option<String> {
        let others: Vec<&str> = self
            .world
            .persons()
            .iter()
            .map(|p| p.name.as_str())
            .filter(|n| Some(*n) != context.speaker.as_deref())
            .filter(|n| Some(*n) != context.listener_person.as_deref())
            .collect();
        match others.as_slice() {
            [one] => Some(one.to_string()),
            _ => None,
        }
    }

    fn pronoun(&self, role: &str, context: &Context) -> Option<Option<String>> {
        Some(match role {
            "speaker" => context.speaker.clone(),
            "listener" if context.robot_addressed => Some(self.world.robot.name.clone()),
            "listener" => context.listener_person.clone(),
            "other" => self
                .other_person(context)
                .or_else(|| context.named_person.clone())
                .or_else(|| {
                    context
                        .formal
                        .then(|| context.listener_person.clone())
                        .flatten()
                }),
            "robot" => Some(self.world.robot.name.clone()),
            "all" => Some("All".to_string()),
            _ => return None,
        })
    }
}

/// Fills slots over one sentence, with a cache per span.
pub struct Filler<'a, 'w> {
    lexicon: &'a Lexicon<'w>,
    grammar: &'a Grammar,
    context: &'a Context,
    words: &'a [String],
    breaks: &'a [bool],
    cache: HashMap<(usize, usize, usize), Option<SlotValue>>,
}

impl<'a, 'w> Filler<'a, 'w> {
    /// A filler for one sentence.
    pub fn new(
        lexicon: &'a Lexicon<'w>,
        grammar: &'a Grammar,
        context: &'a Context,
        words: &'a [String],
        breaks: &'a [bool],
    ) -> Self {
        Self {
            lexicon,
            grammar,
            context,
            words,
            breaks,
            cache: HashMap::new(),
        }
    }

    fn object(&self, span: &[String], unknown_allowed: bool) -> Option<ObjectMention> {
        self.object_with(span, unknown_allowed, true)
    }

    /// As [`Filler::object`]; `referent`: a thing named before narrows what the
    /// words fit ("that glass" after one was named).
    fn object_with(
        &self,
        span: &[String],
        unknown_allowed: bool,
        referent: bool,
    ) -> Option<ObjectMention> {
        if let Some(mention) = self.placed_by_someone(span, unknown_allowed) {
            return Some(mention);
        }
        if let Some(mention) = self.drink_in_its_container(span, unknown_allowed) {
            return Some(mention);
        }
        let rules = &self.grammar.normalize;
        let said = span.join(" ");
        let mut owner = None;
        let mut other = false;
        let mut rest = span;
        while let Some((first, tail)) = rest.split_first() {
            other |= rules.other.contains(first);
            if let Some(role) = rules.possessives.get(first) {
                owner = self.lexicon.pronoun(role, self.context).flatten();
            } else if !rules.determiners.contains(first) {
                break;
            }
            rest = tail;
        }
        // "Ready to get your hands dirty?" to the robot: it owns nothing on the table.
        if owner.as_deref() == Some(self.lexicon.world.robot.name.as_str()) {
            return None;
        }
        if let Some(mention) = self.plain_one(rest, &said, owner.clone()) {
            return Some(mention);
        }
        // "A drop in mine": a thing of the kind just talked of, theirs; only
        // after a word such as "in" ("that's mine" says whose, not which).
        let after_modifying = self
            .words
            .windows(2)
            .any(|w| rules.modifying.contains(&w[0]) && span.first() == Some(&w[1]));
        if let (true, Some(owner)) = (
            rest.is_empty() && span.len() == 1 && after_modifying,
            &owner,
        ) {
            let candidates = self.ones_like_the_referent();
            return Some(ObjectMention {
                said,
                every: candidates.clone(),
                candidates,
                owner: Some(owner.clone()),
                referred: false,
                left_out: None,
            });
        }
        let phrase = rest.join(" ");
        if (rules.referring.contains(&phrase)
            || (rest.is_empty() && other)
            || (rest.is_empty() && span.len() == 1 && rules.referring.contains(&said)))
            && !rules.not_referring.contains(&said)
        {
            let referent = self.context.referent.clone()?;
            let candidates = match other {
                true => self.others_of_its_kind(&referent),
                false => vec![referent.clone()],
            };
            return Some(ObjectMention {
                said,
                every: candidates.clone(),
                candidates,
                owner,
                referred: !other,
                left_out: None,
            });
        }
        // "two jars of jam", "the bottle of water": the jam jars, the water bottle.
        if let Some(of) = rest.iter().position(|w| w == "of") {
            if of > 0 && of + 1 < rest.len() {
                let turned: Vec<String> =
                    rest[of + 1..].iter().chain(&rest[..of]).cloned().collect();
                let mut mention = self.object(&turned, false)?;
                mention.said = said;
                mention.owner = owner.or(mention.owner);
                return Some(mention);
            }
        }
        // "The glass with the star", "the one with the moon": the star glass, the moon one.
        if let Some(with) = rest.iter().position(|w| rules.with.contains(w)) {
            let has: Vec<String> = rest[with + 1..]
                .iter()
                .skip_while(|w| rules.determiners.contains(*w))
                .cloned()
                .collect();
            let head = rest[..with].iter().filter(|w| *w != "one" && *w != "ones");
            if with > 0 && !has.is_empty() {
                let turned: Vec<String> = has.iter().chain(head).cloned().collect();
                let mut mention = self.object(&turned, false)?;
                // "the red glass with Ben" (fanta misheard) tells nothing apart.
                if mention.left_out.is_some() {
                    return None;
                }
                mention.said = said;
                mention.owner = owner.or(mention.owner);
                return Some(mention);
            }
        }
        if let [head @ .., last] = rest {
            let stands_in = last == "one" || last == "ones" || rules.contents_words.contains(last);
            if stands_in && !head.is_empty() {
                rest = head;
            }
        }
        // A word of the sentences that is also a kind of the table's ("can")
        // names the thing where it ends the mention ("the can next to Oskar").
        let names_a_kind =
            |at: usize, w: &String| at + 1 == rest.len() && self.lexicon.as_written(w).is_some();
        if rest.is_empty()
            || rest.iter().enumerate().any(|(at, w)| {
                (rules.not_in_objects.contains(w) && !names_a_kind(at, w))
                    || rules.determiners.contains(w)
                    || rules.possessives.contains_key(w)
                    || rules.pronouns.contains_key(w)
            }) && !self.is_a_phrase_of_the_table(rest)
        {
            return None;
        }
        let joined = grounding::compounds_joined(rest, |w| self.lexicon.as_written(w).is_some());
        let rest = &*joined;
        let known: Vec<Option<String>> = rest.iter().map(|w| self.lexicon.known(w)).collect();
        // One word the table does not know is left out ("the regular milk", "the orange soda").
        let unknown = known.iter().filter(|k| k.is_none()).count();
        let modifier = known.last().is_some_and(Option::is_some);
        let left_out = (unknown == 1 && rest.len() > 1 && modifier)
            .then(|| rest.iter().zip(&known).find(|(_, k)| k.is_none()))
            .flatten()
            .map(|(w, _)| w.clone());
        let known: Option<Vec<String>> = if left_out.is_some() {
            Some(known.into_iter().flatten().collect())
        } else {
            known.into_iter().collect()
        };
        // A thing the table lacks does not end in how full a thing is: "die
        // große voll" is the large cup, then "voll"; "die voll", that one.
        let ends_in_how_full = rest
            .last()
            .is_some_and(|w| self.list("fill", std::slice::from_ref(w)).is_some());
        let after_a_pronoun =
            span.len() > rest.len() && span.first().is_some_and(|w| rules.referring.contains(w));
        let unknown_allowed =
            unknown_allowed && !(ends_in_how_full && (rest.len() > 1 || after_a_pronoun));
        let candidates = match &known {
            Some(words) => match self.lexicon.ground(&words.join(" ")) {
                Some(candidates) => candidates,
                None if unknown_allowed => Vec::new(),
                None => return None,
            },
            None if unknown_allowed
                && rest.len() <= 3
                && !rest.iter().any(|w| self.lexicon.person_words.contains(w)) =>
            {
                Vec::new()
            }
            None => return None,
        };
        // Every object the words fit, for a count; then "that glass" after
        // one was named: the one named.
        let every = match &known {
            Some(words) if !candidates.is_empty() => self.lexicon.fitting(&words.join(" ")),
            _ => candidates.clone(),
        };
        let candidates = match &self.context.referent {
            // "My cup" says whose, not which was named last.
            Some(named)
                if referent
                    && !other
                    && owner.is_none()
                    && candidates.len() > 1
                    && candidates.contains(named) =>
            {
                vec![named.clone()]
            }
            _ => candidates,
        };
        // "The other glass": not the one talked of last.
        let candidates = match &self.context.referent {
            Some(named) if other && candidates.len() > 1 => {
                candidates.into_iter().filter(|c| c != named).collect()
            }
            _ => candidates,
        };
        // "My tea": the cup that holds it, not the pot it came from.
        let candidates = match owner.as_deref() {
            Some(person) => self.drink_of(person, rest).unwrap_or(candidates),
            None => candidates,
        };
        // "Your cup" of two cups: the one in that person's hand, or the one at
        // their place (a question where that is unclear); other things, and
        // what memory says more of ("my usual cup"), the one nearest their seat.
        let vessels = candidates.iter().all(|c| {
            self.lexicon
                .world
                .object_named(c)
                .is_some_and(|o| self.lexicon.world.object(o).kind.drinking_vessel)
        });
        let candidates = match owner.as_deref() {
            Some(person) if candidates.len() > 1 && vessels && left_out.is_none() => {
                self.at_the_place_of(person, candidates)
            }
            Some(person) if candidates.len() > 1 => self.nearest_to(person, candidates),
            _ => candidates,
        };
        Some(ObjectMention {
            said,
            candidates,
            owner,
            referred: false,
            left_out,
            every,
        })
    }

    /// "Dandelion and burdock", "gin and tonic": a content or property of the
    /// table said whole, function words and all.
    fn is_a_phrase_of_the_table(&self, words: &[String]) -> bool {
        if words.len() < 2 {
            return false;
        }
        let phrase = words.join(" ");
        self.lexicon.world.objects().iter().any(|o| {
            o.contains.as_deref() == Some(phrase.as_str()) || o.properties.contains(&phrase)
        })
    }

    /// "The regular cola", "die normale": the plain one of the things the
    /// other words mean (of the table's plain ones, or the plain sibling of
    /// the thing just named, when no other word is said).
    fn plain_one(
        &self,
        rest: &[String],
        said: &str,
        owner: Option<String>,
    ) -> Option<ObjectMention> {
        let plain = &self.grammar.normalize.plain;
        if !rest.iter().any(|w| plain.contains(w)) {
            return None;
        }
        let others: Vec<String> = rest
            .iter()
            .filter(|w| !plain.contains(w))
            .cloned()
            .collect();
        let siblings = self.lexicon.plain_siblings();
        let meant: Vec<String> = if others.is_empty() {
            let named = self.context.referent.as_deref();
            match named.and_then(|n| siblings.iter().find(|(_, variant)| variant == n)) {
                Some((one, _)) => vec![one.clone()],
                None => siblings.iter().map(|(one, _)| one.clone()).collect(),
            }
        } else {
            let words = others
                .iter()
                .map(|w| self.lexicon.known(w))
                .collect::<Option<Vec<_>>>()?;
            self.lexicon.ground(&words.join(" "))?
        };
        // One plain thing with two variants (cola: zero, light) is one thing.
        let mut plainest = Lexicon::plainest(&siblings, &meant);
        plainest.sort();
        plainest.dedup();
        Some(ObjectMention {
            said: said.to_string(),
            every: plainest.clone(),
            candidates: plainest,
            owner,
            referred: false,
            left_out: None,
        })
    }

    /// "The jar next to me", "das Glas vor dir": the thing the words before the
    /// place fit, the one nearest that person when they fit several. "The bottle
    /// you've got", "die Flasche, die du hast": the one in that person's hand.
    fn placed_by_someone(&self, span: &[String], unknown_allowed: bool) -> Option<ObjectMention> {
        let (at, place) = self
            .in_the_middle(span)
            .map(|at| (at, Place::Middle))
            .or_else(|| {
                self.placed_near(span)
                    .or_else(|| self.at_the_side_of(span))
                    .map(|(at, person)| (at, Place::Near(person)))
            })
            .or_else(|| {
                self.held_by(span)
                    .map(|(at, person)| (at, Place::HeldBy(person)))
            })
            .or_else(|| {
                self.placed_by_a_thing(span)
                    .map(|(at, thing)| (at, Place::ByThing(thing)))
            })
            .or_else(|| {
                self.placed_by_a_stranger(span)
                    .map(|at| (at, Place::Unknown))
            })?;
        // The place says which, not the thing talked of before ("the bottle"
        // after the beer was named, then "the bottle in front of you").
        let mut mention = self.object_with(&span[..at], unknown_allowed, false)?;
        // Of every thing the words fit ("the bottle": each bottle), or of those
        // holding what they name ("der Wein da bei dir": the wine bottle, not the
        // wine glass).
        let fitting = if mention.every.is_empty() || mention.referred {
            std::mem::take(&mut mention.candidates)
        } else {
            match self.liquid(&span[..at]) {
                Some(liquid) => self.holding(&mention.every, &liquid),
                None => mention.every.clone(),
            }
        };
        mention.candidates = match place {
            Place::Near(person) => self.nearest_on_the_table(&person, fitting),
            // "Die Hafermilch, die du da hast" put down since: there is one.
            Place::HeldBy(person) => match self.in_hand_of(&person, fitting.clone()) {
                Some(held) => held,
                None if fitting.len() == 1 => fitting,
                None => return None,
            },
            Place::Middle => self.nearest_to_the_middle(fitting),
            Place::ByThing(landmark) => self.nearest_to_thing(&landmark, fitting),
            // "The steel flask by Willa": a name the table does not know says where
            // only a thing the words alone tell apart is.
            Place::Unknown if fitting.len() == 1 => fitting,
            Place::Unknown => return None,
        };
        mention.said = span.join(" ");
        Some(mention)
    }

    /// "The milk in the bottle", "der Kaffee in der Kanne": the container the
    /// words after `[normalize] contained_in` fit that holds the drink before it.
    fn drink_in_its_container(
        &self,
        span: &[String],
        unknown_allowed: bool,
    ) -> Option<ObjectMention> {
        let phrases = &self.grammar.normalize.contained_in.0;
        let (at, len) = (1..span.len().saturating_sub(1)).find_map(|at| {
            phrases
                .iter()
                .find(|p| span[at..].starts_with(p))
                .map(|p| (at, p.len()))
        })?;
        let liquid = self.liquid(&span[..at])?;
        let container = self.object_with(&span[at + len..], unknown_allowed, false)?;
        let world = self.lexicon.world;
        let holding: Vec<String> = container
            .every
            .iter()
            .filter(|name| {
                world
                    .object_named(name)
                    .is_some_and(|id| world.object(id).contains.as_deref() == Some(liquid.as_str()))
            })
            .cloned()
            .collect();
        if holding.is_empty() {
            return None;
        }
        Some(ObjectMention {
            said: span.join(" "),
            every: holding.clone(),
            candidates: holding,
            owner: None,
            referred: false,
            left_out: None,
        })
    }

    /// Of `candidates`, the one on the table nearest `person` ("the bottle here in
    /// front of me" is not the one in my hand); the one in their hand when none
    /// is on the table.
    fn nearest_on_the_table(&self, person: &str, candidates: Vec<String>) -> Vec<String> {
        let world = self.lexicon.world;
        let on_the_table = self.narrowed(&candidates, |o| world.holder(o).is_none());
        self.nearest_to(person, on_the_table)
    }

    /// Those of `names` whose objects pass `keep`; all of them when none does.
    fn narrowed(&self, names: &[String], keep: impl Fn(ObjectId) -> bool) -> Vec<String> {
        let world = self.lexicon.world;
        let kept: Vec<String> = names
            .iter()
            .filter(|name| world.object_named(name).is_some_and(&keep))
            .cloned()
            .collect();
        if kept.is_empty() {
            names.to_vec()
        } else {
            kept
        }
    }

    /// The thing of `named`'s kind (its last word: "the big cup" → every cup)
    /// in `person`'s hand, or else nearest their seat.
    pub fn of_kind_at(&self, person: &str, named: &ObjectMention) -> Option<ObjectMention> {
        let head = named.said.split_whitespace().last()?.to_string();
        let of_kind = self.object(std::slice::from_ref(&head), false)?.every;
        Some(self.nearest_of(person, String::new(), of_kind))
    }

    /// `person`'s one of `every`: the one in their hand, else the one nearest their seat.
    fn nearest_of(&self, person: &str, said: String, every: Vec<String>) -> ObjectMention {
        ObjectMention {
            said,
            candidates: self.nearest_to(person, every.clone()),
            owner: Some(person.to_string()),
            referred: false,
            left_out: None,
            every,
        }
    }

    /// The drinking vessel `person` drinks from, of `named`'s candidates or of
    /// all on the table: the one in their hand, else the one nearest their seat
    /// ("jetzt trinkst du ja Cola Zero", "hast du Wasser im Glas").
    pub fn drinkers_vessel(
        &self,
        person: &str,
        named: Option<&ObjectMention>,
    ) -> Option<ObjectMention> {
        let world = self.lexicon.world;
        let vessels: Vec<String> = match named {
            Some(mention) => mention.candidates.clone(),
            None => world
                .objects()
                .iter()
                .filter(|o| o.kind.drinking_vessel)
                .map(|o| o.name.clone())
                .collect(),
        };
        if vessels.is_empty() {
            return None;
        }
        let said = named.map(|m| m.said.clone()).unwrap_or_default();
        Some(self.nearest_of(person, said, vessels))
    }

    /// Where in `span` the words that place a thing in the table's middle begin.
    fn in_the_middle(&self, span: &[String]) -> Option<usize> {
        let middle = &self.grammar.normalize.in_the_middle.0;
        (1..span.len()).find(|&at| middle.iter().any(|p| span[at..] == p[..]))
    }

    /// Of `candidates`, the one nearest the table's centre (all of them when none is on the table).
    fn nearest_to_the_middle(&self, candidates: Vec<String>) -> Vec<String> {
        match self.on_the_table_nearest(glam::Vec2::ZERO, candidates.iter()) {
            Some(nearest) => vec![nearest],
            None => candidates,
        }
    }

    /// Of `candidates`, the one standing on the table nearest `at`, if any stands there.
    fn on_the_table_nearest<'c>(
        &self,
        at: glam::Vec2,
        candidates: impl Iterator<Item = &'c String>,
    ) -> Option<String> {
        let world = self.lexicon.world;
        let distance = |name: &String| {
            world
                .object_named(name)
                .filter(|&o| world.holder(o).is_none())
                .map_or(f32::INFINITY, |o| {
                    (world.object_base(o).truncate() - at).length()
                })
        };
        candidates
            .filter(|c| distance(c).is_finite())
            .min_by(|a, b| distance(a).total_cmp(&distance(b)))
            .cloned()
    }

    /// Where in `span` the words that place a thing by another begin ("the
    /// bottle [standing] behind the box"), and the one thing they name.
    fn placed_by_a_thing(&self, span: &[String]) -> Option<(usize, String)> {
        let normalize = &self.grammar.normalize;
        (1..span.len()).find_map(|at| {
            let landmark = normalize
                .landmarks
                .0
                .iter()
                .find(|p| span[at..].starts_with(p))?;
            let rest = &span[at + landmark.len()..];
            let thing = self.object_with(rest, false, false)?;
            let [only] = &thing.candidates[..] else {
                return None;
            };
            let posture = |i: usize| normalize.placed_postures.has_word(&span[i]);
            let start = (1..at)
                .rev()
                .take_while(|&i| posture(i))
                .last()
                .unwrap_or(at);
            (!thing.referred).then(|| (start, only.clone()))
        })
    }

    /// Of `candidates` but `landmark`, the one on the table nearest `landmark`.
    fn nearest_to_thing(&self, landmark: &str, candidates: Vec<String>) -> Vec<String> {
        let world = self.lexicon.world;
        let Some(by) = world.object_named(landmark) else {
            return candidates;
        };
        let at = world.object_base(by).truncate();
        let others = candidates.iter().filter(|c| c.as_str() != landmark);
        match self.on_the_table_nearest(at, others) {
            Some(nearest) => vec![nearest],
            None => candidates,
        }
    }

    /// Where in `span` the words that place a thing by a person begin ("in
    /// front of you"), and whom they name.
    fn placed_near(&self, span: &[String]) -> Option<(usize, String)> {
        let (at, len) = (1..span.len()).find_map(|at| {
            self.grammar
                .normalize
                .near_someone
                .0
                .iter()
                .find(|p| {
                    let named = span.len().saturating_sub(at + p.len());
                    span[at..].starts_with(p) && (1..=2).contains(&named)
                })
                .map(|p| (at, p.len()))
        })?;
        // "by Vusi", "by the robot", "vor dem Daniel"; "by my elbow": by me.
        let who = &span[at + len..];
        let name = match self.person(who).and_then(|p| p.name) {
            Some(name) => name,
            None => self.owner_of_body_part(who)?,
        };
        Some((at, name))
    }

    /// Where in `span` a place by someone the table does not know begins: a
    /// nickname ("by Willa", "next to Mum"), one or two words that name no one
    /// and nothing of the table.
    fn placed_by_a_stranger(&self, span: &[String]) -> Option<usize> {
        let normalize = &self.grammar.normalize;
        (1..span.len()).find_map(|at| {
            normalize.near_someone.0.iter().find_map(|p| {
                let who = span[at..].strip_prefix(&p[..])?;
                let unknown = |w: &String| {
                    !normalize.determiners.contains(w)
                        && !normalize.possessives.contains_key(w)
                        && !normalize.pronouns.contains_key(w)
                        && !normalize.not_in_objects.contains(w)
                        && !self.lexicon.person_words.contains(w)
                        && self.lexicon.known(w).is_none()
                };
                ((1..=2).contains(&who.len()) && who.iter().all(unknown)).then_some(at)
            })
        })
    }

    /// Whom "my elbow", "her left hand" name (`[normalize] body_parts`).
    fn owner_of_body_part(&self, words: &[String]) -> Option<String> {
        let normalize = &self.grammar.normalize;
        // "at Daniel's elbow", heard "at daniel elbow": the name before the part.
        if let Some((part, name)) = words.split_last() {
            if normalize.body_parts.has(std::slice::from_ref(part)) {
                if let Some(named) = self.person(name).and_then(|p| p.name) {
                    return Some(named);
                }
            }
        }
        let (first, part) = words.split_first()?;
        let role = normalize.possessives.get(first)?;
        if !normalize.body_parts.has(part) {
            return None;
        }
        self.lexicon.pronoun(role, self.context)?
    }

    /// Where in `span` the words that place a thing at someone's side of the
    /// table begin ("on Folake's side", "up your end"), and whom they name.
    fn at_the_side_of(&self, span: &[String]) -> Option<(usize, String)> {
        let normalize = &self.grammar.normalize;
        (1..span.len()).find_map(|at| {
            normalize.at_someones_side.0.iter().find_map(|p| {
                let rest = span[at..].strip_prefix(&p[..])?;
                let (side, who) = rest.split_last()?;
                if !normalize.sides.contains(side) || !(1..=2).contains(&who.len()) {
                    return None;
                }
                let name = match (who, normalize.possessives.get(who[0].as_str())) {
                    ([_], Some(role)) => self.lexicon.pronoun(role, self.context)??,
                    _ => self.person(who)?.name?,
                };
                Some((at, name))
            })
        })
    }

    /// Where in `span` the words that say who holds a thing begin ("you've got",
    /// "die du in der Hand hast"), and whom they name.
    fn held_by(&self, span: &[String]) -> Option<(usize, String)> {
        // Most spans lack every word such a phrase needs.
        let held = &self.grammar.held_by;
        if !held.iter().any(|h| template::may_match(&h.needs, span)) {
            return None;
        }
        (1..span.len()).find_map(|at| Some((at, self.holder_named(&span[at..])?)))
    }

    /// Whom `words`, all of them, name as holding a thing ("you've got").
    fn holder_named(&self, words: &[String]) -> Option<String> {
        let mut holder = Holder {
            filler: self,
            words,
        };
        self.grammar.held_by.iter().find_map(|held| {
            let found = template::matches(&held.elements, words, &mut holder)?;
            found.slots.into_iter().next().map(|(_, person)| person)
        })
    }

    /// Whether the sentence describes a thing by who holds it ("the bottle you've
    /// got"): who holds what must be known before it is read.
    pub fn names_a_holder(&self) -> bool {
        // Every span after a first word ends some prefix of the sentence.
        (2..=self.words.len()).any(|to| self.held_by(&self.words[..to]).is_some())
    }

    /// The drinking vessel nearest `person` that holds the liquid `words` name
    /// ("my tea"), when one does.
    fn drink_of(&self, person: &str, words: &[String]) -> Option<Vec<String>> {
        let liquid = self.liquid(words)?;
        let world = self.lexicon.world;
        let vessels: Vec<String> = world
            .objects()
            .iter()
            .filter(|o| o.kind.drinking_vessel && o.contains.as_deref() == Some(liquid.as_str()))
            .map(|o| o.name.clone())
            .collect();
        (!vessels.is_empty()).then(|| self.nearest_to(person, vessels))
    }

    /// What "mine" stands for after "in": the things of the kind just talked
    /// of when a drink is poured into it, else everything a drink is poured into.
    fn ones_like_the_referent(&self) -> Vec<String> {
        let world = self.lexicon.world;
        let receives = |name: &str| {
            world
                .object_named(name)
                .is_some_and(|id| world.object(id).receives_a_drink())
        };
        match self.context.referent.as_deref().filter(|r| receives(r)) {
            Some(referent) => {
                let mut kind = self.others_of_its_kind(referent);
                kind.push(referent.to_string());
                kind
            }
            None => world
                .objects()
                .iter()
                .filter(|o| o.receives_a_drink())
                .map(|o| o.name.clone())
                .collect(),
        }
    }

    /// The things of `name`'s kind but it ("the other one" after the small beaker).
    fn others_of_its_kind(&self, name: &str) -> Vec<String> {
        let world = self.lexicon.world;
        let Some(kind) = world
            .object_named(name)
            .map(|id| &world.object(id).kind.name)
        else {
            return Vec::new();
        };
        world
            .objects()
            .iter()
            .filter(|o| &o.kind.name == kind && o.name != name)
            .map(|o| o.name.clone())
            .collect()
    }

    /// Of `candidates`, those `person` holds; `None` when they hold none of them.
    fn in_hand_of(&self, person: &str, candidates: Vec<String>) -> Option<Vec<String>> {
        let world = self.lexicon.world;
        let id = world.person_named(person)?;
        let held: Vec<String> = candidates
            .into_iter()
            .filter(|name| {
                world
                    .object_named(name)
                    .is_some_and(|o| world.holder(o) == Some(id))
            })
            .collect();
        (!held.is_empty()).then_some(held)
    }

    /// Those of `names` that hold `liquid`; all of them when none does.
    fn holding(&self, names: &[String], liquid: &str) -> Vec<String> {
        let world = self.lexicon.world;
        self.narrowed(names, |o| {
            world.object(o).contains.as_deref() == Some(liquid)
        })
    }

    /// Of `candidates`, the one `person` holds, else the one at their place (of
    /// those no one else sits nearer to, when exactly one); all of them when
    /// that is no one or more than one: "my tumbler" of two by my seat is a question.
    fn at_the_place_of(&self, person: &str, candidates: Vec<String>) -> Vec<String> {
        let world = self.lexicon.world;
        let Some(id) = world.person_named(person) else {
            return candidates;
        };
        let whereabouts = |c: &String| whereabouts::of(world, world.object_named(c)?);
        if let Some(held) = candidates
            .iter()
            .find(|c| whereabouts(c) == Some(Whereabouts::HeldBy(id)))
        {
            return vec![held.clone()];
        }
        let mine: Vec<&String> = candidates
            .iter()
            .filter(|c| whereabouts(c) == Some(Whereabouts::By(id)))
            .collect();
        match mine.as_slice() {
            [one] => vec![(*one).clone()],
            _ => candidates,
        }
    }

    /// Of `candidates`, the one `person` holds, else the one nearest their seat
    /// (the robot's base for the robot); all of them when it is nobody at the table.
    fn nearest_to(&self, person: &str, candidates: Vec<String>) -> Vec<String> {
        let world = self.lexicon.world;
        let id = world.person_named(person);
        let seat = match id {
            Some(id) => world.person(id).position,
            None if person == world.robot.name => world.robot.position,
            None => return candidates,
        };
        let distance = |name: &String| {
            world.object_named(name).map_or(f32::INFINITY, |o| {
                if id.is_some() && world.holder(o) == id {
                    return 0.0;
                }
                let base = world.object_base(o);
                (base.x - seat.x).hypot(base.y - seat.y)
            })
        };
        match candidates
            .iter()
            .min_by(|a, b| distance(a).total_cmp(&distance(b)))
        {
            Some(nearest) => vec![nearest.clone()],
            None => candidates,
        }
    }

    /// A drink: an object phrase that only things holding a liquid fit ("a coffee").
    fn drink(&self, span: &[String]) -> Option<ObjectMention> {
        let mut mention = self.object(span, false)?;
        let world = self.lexicon.world;
        mention.candidates.retain(|name| {
            world
                .object_named(name)
                .is_some_and(|id| world.object(id).contains.is_some())
        });
        (!mention.candidates.is_empty()).then_some(mention)
    }

    /// "oat milk", "the wine", "tea": what a container holds, as the scene
    /// says it; a drink of `[lists.liquid]` the table may lack is its list value.
    fn liquid(&self, span: &[String]) -> Option<String> {
        let rules = &self.grammar.normalize;
        let start = span
            .iter()
            .position(|w| !rules.determiners.contains(w))
            .unwrap_or(span.len());
        let phrase = span[start..].join(" ");
        let world = self.lexicon.world;
        let held = || world.objects().iter().filter_map(|o| o.contains.as_deref());
        if held().any(|liquid| liquid == phrase) {
            return Some(phrase);
        }
        // An object's property alone ("hot") names no liquid: a word of one must be said.
        let liquid_words = held()
            .flat_map(|liquid| liquid.split(' '))
            .collect::<Vec<_>>();
        let names_a_liquid = span[start..]
            .iter()
            .any(|w| liquid_words.contains(&w.as_str()));
        if let Some(mention) = names_a_liquid.then(|| self.drink(&span[start..])).flatten() {
            // "white wine" is not the table's red wine with a word left out.
            if mention.left_out.is_some() {
                if let Some(listed) = self.list("liquid", &span[start..]) {
                    return Some(listed);
                }
            }
            let mut named: Vec<&str> = mention
                .candidates
                .iter()
                .filter_map(|name| world.object_named(name))
                .filter_map(|id| world.object(id).contains.as_deref())
                .collect();
            named.sort_unstable();
            named.dedup();
            if let [one] = named.as_slice() {
                // "soda water" is not the table's tonic water: a word said that
                // neither the liquid nor its container has names another drink.
                let own = |w: &String| {
                    one.split(' ').any(|l| l == w)
                        || mention.candidates.iter().any(|name| {
                            world.object_named(name).is_some_and(|id| {
                                grounding::object_words(world.object(id)).contains(w)
                                    || world.object(id).kind.words.iter().any(|k| k == w)
                            })
                        })
                };
                if !span[start..].iter().all(own) {
                    if let Some(listed) = self.list("liquid", &span[start..]) {
                        return Some(listed);
                    }
                }
                return Some(one.to_string());
            }
        }
        self.list("liquid", &span[start..])
    }

    fn person(&self, span: &[String]) -> Option<PersonMention> {
        let said = span.join(" ");
        // "our guest", "dem Herrn": a person named by a role, as a pronoun.
        if let Some(role) = self.grammar.normalize.pronouns.get(said.as_str()) {
            let name = self.lexicon.pronoun(role, self.context)?;
            return Some(PersonMention { said, name });
        }
        if let Some(mention) = self.person_by_role(span, &said) {
            return Some(mention);
        }
        let word = match span {
            [word] => word,
            [the, word]
                if the == "the" && (word == "robot" || self.lexicon.robot_words.contains(word)) =>
            {
                word
            }
            // "dem Daniel", "Uncle Emeka": a name after an article or a title.
            [before, word]
                if (self.grammar.normalize.determiners.contains(before)
                    || self.grammar.normalize.titles.contains(before))
                    && self.lexicon.person_words.contains(word) =>
            {
                word
            }
            _ => return None,
        };
        if word.as_str() == "robot" || self.lexicon.robot_words.contains(word) {
            return Some(PersonMention {
                said,
                name: Some(self.lexicon.world.robot.name.clone()),
            });
        }
        if word.chars().count() < 3 {
            return None;
        }
        let id = match grounding::person(self.lexicon.world, word) {
            Grounding::Resolved(id) => id,
            _ => self.person_spelt_otherwise(word)?,
        };
        Some(PersonMention {
            said,
            name: Some(self.lexicon.world.person(id).name.clone()),
        })
    }

    /// "unserem Schornsteinfeger", "dem Herrn Kassenprüfer": a role no thing or
    /// person of the table is called, after a role determiner, is the other person.
    fn person_by_role(&self, span: &[String], said: &str) -> Option<PersonMention> {
        let rules = &self.grammar.normalize;
        let (first, role) = span.split_first()?;
        let role = self.without_origin(role);
        let is_role_word = |w: &String| {
            w.chars().count() >= 4
                && !self.lexicon.names_thing(w)
                && !self.lexicon.person_words.contains(w)
                && !self.lexicon.robot_words.contains(w)
                && !rules.determiners.contains(w)
                && !rules.pronouns.contains_key(w)
        };
        let known = role.iter().filter(|w| !rules.titles.contains(w));
        // "dem jungen Vater": a word before the role may say which; "der Herr
        // vom Schlüsseldienst": a title alone is the role.
        let fits = match known.clone().count() {
            0 => role.len() == 1,
            n => n <= 2,
        };
        if !rules.role_determiners.contains(first)
            || !(1..=2).contains(&role.len())
            || !known.clone().all(is_role_word)
            || !fits
        {
            return None;
        }
        let name = self.lexicon.pronoun("other", self.context)?;
        Some(PersonMention {
            said: said.to_string(),
            name,
        })
    }

    /// "Mann vom Amt": the role without the one word of where the person is from.
    fn without_origin<'s>(&self, role: &'s [String]) -> &'s [String] {
        for origin in &self.grammar.normalize.role_origins {
            let origin: Vec<&str> = origin.split_whitespace().collect();
            for at in 1..role.len() {
                let rest = &role[at..];
                let said_origin =
                    rest.len() == origin.len() + 1 && rest.iter().zip(&origin).all(|(w, o)| w == o);
                let place = rest.last().is_some_and(|w| !self.lexicon.names_thing(w));
                if said_origin && place {
                    return &role[..at];
                }
            }
        }
        role
    }

    /// The one person whose name sounds exactly as `word` but is spelt
    /// otherwise ("oscar" for Oskar, "lena" for Léna): a recogniser and
    /// people typing fast both spell names as they hear them.
    fn person_spelt_otherwise(&self, word: &str) -> Option<crate::twin::PersonId> {
        let world = self.lexicon.world;
        let mut same = world
            .person_ids()
            .filter(|&id| crate::phonetic::similarity(word, &world.person(id).name) >= 1.0);
        let id = same.next()?;
        same.next().is_none().then_some(id)
    }

    /// A list of things over `words[from..to]`, split at "and", "or" and commas.
    fn items(&self, from: usize, to: usize) -> Option<Vec<ObjectMention>> {
        let mut items = Vec::new();
        let mut start = from;
        for i in from..=to {
            let separator = i < to && self.grammar.normalize.conjunctions.contains(&self.words[i]);
            let comma = i < to && i > start && self.breaks.get(i).copied().unwrap_or(false);
            if i == to || separator || comma {
                if i > start {
                    let item = self.object(&self.words[start..i], true)?;
                    // "Shame, the cola and the fanta are gone": an opener is no thing.
                    let opener = self.grammar.normalize.leading.has(&self.words[start..i]);
                    if item.candidates.is_empty() && opener {
                        return None;
                    }
                    items.push(item);
                } else if i == to || !comma {
                    return None;
                }
                start = if separator { i + 1 } else { i };
            }
        }
        items
            .iter()
            .any(|i| !i.candidates.is_empty())
            .then_some(items)
    }

    /// "this" alone before a word that names something ("pass me this area")
    /// is that word's determiner, not "it": no slot is the one word.
    fn determines_the_next_word(&self, span: &[String], to: usize) -> bool {
        let rules = &self.grammar.normalize;
        let [word] = span else {
            return false;
        };
        let Some(next) = self.words.get(to) else {
            return false;
        };
        let function_word = |w: &String| {
            rules.not_in_objects.contains(w)
                || rules.determiners.contains(w)
                || rules.conjunctions.contains(w)
                || rules.pronouns.contains_key(w)
                || rules.referring.contains(w)
        };
        // A word of the sentences that names nothing at the table is a verb
        // ("das schieben rüber"), not the thing "das" goes with.
        let sentence_word =
            |w: &String| self.grammar.words.contains(w) && !self.lexicon.names_table(w);
        rules.referring.contains(word)
            && rules.determiners.contains(word)
            && !self.breaks.get(to).copied().unwrap_or(false)
            && !function_word(next)
            && !sentence_word(next)
    }

    fn list(&self, list: &str, span: &[String]) -> Option<String> {
        self.grammar
            .lists
            .get(list)?
            .iter()
            .find(|(_, phrase)| phrase.as_slice() == span)
            .map(|(value, _)| value.clone())
    }
}

/// Where the words after a thing place it.
enum Place {
    /// By a person ("in front of you").
    Near(String),
    /// In a person's hand ("you've got").
    HeldBy(String),
    /// In the table's middle.
    Middle,
    /// By another thing ("behind the box").
    ByThing(String),
    /// By someone the table does not know ("by Willa").
    Unknown,
}

/// The most words a thing's slot takes, but for one said with who holds it.
const MAX_THING_WORDS: usize = 6;

/// Fills the `{person}` slot of a `held_by_someone` template with the name of
/// the person its words mean.
struct Holder<'f, 'a, 'w> {
    filler: &'f Filler<'a, 'w>,
    words: &'f [String],
}

impl SlotFiller for Holder<'_, '_, '_> {
    type Value = String;

    fn fill(&mut self, name: &str, from: usize, to: usize) -> Option<String> {
        (name == "person")
            .then(|| self.filler.person(&self.words[from..to]))
            .flatten()?
            .name
    }

    fn max_span(&self, _name: &str) -> usize {
        2
    }

    /// "die Sie haben": the verb's form says who holds it.
    fn bound(&mut self, name: &str, value: &str) -> Option<String> {
        (name == "person")
            .then(|| self.filler.lexicon.pronoun(value, self.filler.context))
            .flatten()
            .flatten()
    }
}

impl Filler<'_, '_> {
    /// "Könnten Sie mir ...": a "Sie" that with the word before it addresses the
    /// listener is no thing said before ("sie" = "it").
    fn addresses_formally_at(&self, from: usize, to: usize) -> bool {
        to == from + 1
            && from > 0
            && self
                .grammar
                .normalize
                .formal_address
                .has(&self.words[from - 1..to])
    }
}

impl SlotFiller for Filler<'_, '_> {
    type Value = SlotValue;

    fn fill(&mut self, name: &str, from: usize, to: usize) -> Option<SlotValue> {
        let slot = super::SLOT_NAMES
            .iter()
            .position(|n| *n == name)
            .unwrap_or(usize::MAX);
        let key = (slot, from, to);
        if let Some(cached) = self.cache.get(&key) {
            return cached.clone();
        }
        let span = &self.words[from..to];
        let kind = self.grammar.slots.get(name)?;
        // Only a thing said with who holds it or where it stands ("the tall
        // flask in front of Theodora") takes more than six words.
        let thing = matches!(kind, SlotKind::Object | SlotKind::Thing | SlotKind::Drink);
        // (Where it stands only for a `{thing}`: a bare "the cola zero in front
        // of me" is no request to hand it over; "put" may have been misheard.)
        let described_at_length = |span: &[String]| {
            self.held_by(span).is_some()
                || (matches!(kind, SlotKind::Thing)
                    && (self.placed_near(span).is_some() || self.at_the_side_of(span).is_some()))
        };
        if self.determines_the_next_word(span, to)
            || (thing && span.len() > MAX_THING_WORDS && !described_at_length(span))
            || (thing && self.addresses_formally_at(from, to))
            // "Schenkst du ...": the one who pours is no recipient.
            || (name == "recipient"
                && matches!(span, [word] if self.grammar.normalize.subject_pronouns.contains(word)))
        {
            self.cache.insert(key, None);
            return None;
        }
        let value = match kind {
            SlotKind::Object => self.object(span, false).map(SlotValue::Object),
            SlotKind::Thing => self.object(span, true).map(SlotValue::Object),
            SlotKind::Drink => self.drink(span).map(SlotValue::Object),
            SlotKind::Liquid => self.liquid(span).map(SlotValue::Value),
            SlotKind::Person => self.person(span).map(SlotValue::Person),
            SlotKind::Items => self.items(from, to).map(SlotValue::Items),
            SlotKind::List(list) => self.list(list, span).map(SlotValue::Value),
        };
        self.cache.insert(key, value.clone());
        value
    }

    fn grounded(&self, value: &SlotValue) -> bool {
        !matches!(value, SlotValue::Object(m) if m.candidates.is_empty())
    }

    /// A person bound by a template to a pronoun's role ("können Sie …":
    /// `{person=listener}`), or a list's value said by the verb ("hast du
    /// leergetrunken": `{fill=empty}`).
    fn bound(&mut self, name: &str, value: &str) -> Option<SlotValue> {
        match self.grammar.slots.get(name)? {
            SlotKind::Person => Some(SlotValue::Person(PersonMention {
                said: String::new(),
                name: self.lexicon.pronoun(value, self.context)?,
            })),
            // The value is one of the list's: `Grammar::load` refuses others.
            SlotKind::List(_) => Some(SlotValue::Value(value.to_string())),
            _ => None,
        }
    }

    fn max_span(&self, name: &str) -> usize {
        match self.grammar.slots.get(name) {
            Some(SlotKind::Items) => 12,
            Some(SlotKind::Person) => self.grammar.person_words,
            Some(SlotKind::List(_)) => 4,
            // "die Flasche, die du in der Hand hast": a thing with who holds it.
            _ => MAX_THING_WORDS + 3,
        }
    }
}
