//! The sentence file (`prompts/understanding.toml`): normalising, slots, word
//! lists, filters, shared rules and the intents' templates, loaded and
//! validated once at start.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::reading::Act;
use super::template::{self, Element, Names};
use crate::twin::grounding::object_words;
use crate::twin::World;

/// The roles a pronoun or a bound person slot stands for (see `Lexicon::pronoun`).
pub const PERSON_ROLES: [&str; 5] = ["speaker", "listener", "other", "robot", "all"];

/// What a slot holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotKind {
    /// A scene object (or "it", from the dialogue).
    Object,
    /// A scene object, or words for one the table lacks.
    Thing,
    /// A scene object that holds a drink ("a coffee").
    Drink,
    /// What a container holds, as the scene says it ("oat milk"), or a drink
    /// of `[lists.liquid]` the table may lack ("tea").
    Liquid,
    /// A person at the table, the robot, or a pronoun for one.
    Person,
    /// A list of objects and words ("cola, fanta and lemonade").
    Items,
    /// A value of a word list of this file.
    List(String),
}

/// Which objects a filter word admits, by their property words.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    /// The object must have one of these words.
    #[serde(default)]
    pub has_any: Vec<String>,
    /// The object must have none of these words.
    #[serde(default)]
    pub lacks: Vec<String>,
    /// How the robot says it ("without sugar").
    pub say: String,
    /// How it is said of a thing, when not as `say` ("sugar-free": "the cola is not sugar-free").
    #[serde(default)]
    pub of_a_thing: Option<String>,
    /// Whether the twin can tell it of a thing: a claim that a thing passes
    /// ("the beer is alcohol-free") is checked only then (not heat: the twin has none).
    #[serde(default = "true_by_default")]
    pub checkable: bool,
    /// Whether wanting it says what someone must avoid (sugar, alcohol, dairy): a
    /// liking with it is kept for that person only; not so a hot drink.
    #[serde(default = "true_by_default")]
    pub restricts: bool,
}

fn true_by_default() -> bool {
    true
}

impl Filter {
    /// Whether an object with these words passes.
    pub fn admits(&self, words: &[String]) -> bool {
        let has = |w: &String| words.iter().any(|x| x.eq_ignore_ascii_case(w));
        (self.has_any.is_empty() || self.has_any.iter().any(has)) && !self.lacks.iter().any(has)
    }

    /// How a claim says it of a thing ("sugar-free"), else as the robot says it.
    pub fn said_of_a_thing(&self) -> &str {
        self.of_a_thing.as_deref().unwrap_or(&self.say)
    }

    /// Of `candidates`, those a claim that they pass ("the beer is alcohol-free")
    /// is known to get wrong: they have a word the filter lacks, or they miss the
    /// words it needs while something else on the table has them (the cola
    /// beside a cola zero). A scene that says nothing either way proves nothing.
    fn known_not_to_admit(&self, world: &World, candidates: &[String]) -> Vec<String> {
        if !self.checkable {
            return Vec::new();
        }
        let some_other_admitted = world.objects().iter().any(|o| {
            o.contains.is_some() && !self.has_any.is_empty() && self.admits(&object_words(o))
        });
        candidates
            .iter()
            .filter_map(|name| world.object_named(name).map(|id| world.object(id)))
            .filter(|o| {
                let words = object_words(o);
                let has = |w: &String| words.iter().any(|x| x.eq_ignore_ascii_case(w));
                !self.admits(&words) && (self.lacks.iter().any(has) || some_other_admitted)
            })
            .map(|o| o.name.clone())
            .collect()
    }

    /// Of `candidates`, those the claim is known to get wrong: that they do not
    /// pass (`negated`, "the oat milk is full of lactose"), else that they do.
    pub fn wrongly_claimed(
        &self,
        world: &World,
        candidates: &[String],
        negated: bool,
    ) -> Vec<String> {
        match negated {
            true => self.known_to_admit(world, candidates),
            false => self.known_not_to_admit(world, candidates),
        }
    }

    /// Of `candidates`, those a claim that they do not pass ("the oat milk is
    /// full of lactose") is known to get wrong: they have a word the filter needs,
    /// or they lack a word it excludes that the scene gives something else.
    fn known_to_admit(&self, world: &World, candidates: &[String]) -> Vec<String> {
        if !self.checkable {
            return Vec::new();
        }
        let scene_marks_lacked = world.objects().iter().any(|o| {
            let words = object_words(o);
            self.lacks.iter().any(|w| words.contains(w))
        });
        candidates
            .iter()
            .filter_map(|name| world.object_named(name).map(|id| world.object(id)))
            .filter(|o| {
                let words = object_words(o);
                self.admits(&words) && (!self.has_any.is_empty() || scene_marks_lacked)
            })
            .map(|o| o.name.clone())
            .collect()
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    normalize: Normalize,
    slots: BTreeMap<String, String>,
    #[serde(default)]
    lists: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    #[serde(default)]
    filters: BTreeMap<String, Filter>,
    #[serde(default)]
    rules: BTreeMap<String, String>,
    #[serde(rename = "intent")]
    intents: Vec<IntentFile>,
    #[serde(default)]
    memory: super::memory::MemoryPhrases,
}

/// How raw text becomes the words templates see.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Normalize {
    /// Written forms replaced before splitting ("i'd" -> "i would").
    #[serde(default)]
    pub contractions: BTreeMap<String, String>,
    /// Written forms replaced only inside a clause, neither first nor last
    /// ("ne" is "eine" in "machst du mir ne Cola", "nein" in "ne, danke").
    #[serde(default)]
    pub inside_a_clause: BTreeMap<String, String>,
    /// This language's words for the scene's words, replaced after the
    /// contractions ("rote" -> "red", "kaffeekanne" -> "coffee pot"): scenes
    /// name their things in one language, the sentences read them in any.
    #[serde(default)]
    pub vocabulary: BTreeMap<String, String>,
    /// Words and phrases dropped wherever they are (hesitations, "please").
    #[serde(default)]
    pub drop: Phrases,
    /// Words dropped inside a clause but kept as its first word (German "ja":
    /// a particle in "die ist ja leer", the answer in "Ja.").
    #[serde(default)]
    pub particles: Phrases,
    /// Phrases dropped at the start of a sentence, when something remains.
    #[serde(default)]
    pub leading: Phrases,
    /// Phrases dropped at the end of a sentence, when something remains.
    #[serde(default)]
    pub trailing: Phrases,
    /// Verbs read when said but never put in place of a word the recogniser
    /// heard: rare ones that sound like common words ("sling" / "something").
    #[serde(default)]
    pub verbs_never_guessed: Vec<String>,
    /// Particles of separable verbs: an infinitive with "zu" inside
    /// ("herüberzugeben") is read as the verb and its particle ("geben herüber").
    #[serde(default)]
    pub separable_particles: Vec<String>,
    /// Words that ask for some of a drink rather than point at one ("a
    /// coffee", "einen Kaffee"): a cup asked for after them is the one to pour into.
    #[serde(default)]
    pub indefinite_articles: Vec<String>,
    /// The word before an infinitive that ends a clause ("mir Kaffee in die
    /// Tasse zu gießen"): dropped, so the clause reads as the verb at its end.
    #[serde(default)]
    pub infinitive_marker: Option<String>,
    /// Endings that are a word of their own after any word ("the juice'll
    /// do" -> "the juice will do"), where no contraction spells the whole word.
    #[serde(default)]
    pub clitic_endings: BTreeMap<String, String>,
    /// Words that may start an object phrase without naming the object.
    #[serde(default)]
    pub determiners: Vec<String>,
    /// Possessives: the owner is the speaker (`my`), the listener (`your`) or another.
    #[serde(default)]
    pub possessives: BTreeMap<String, String>,
    /// Editing terms of a self-repair ("no sorry", "I mean", "uh"): between
    /// two phrases that start alike, the second takes the first one's place.
    #[serde(default)]
    pub repairs: Phrases,
    /// Words for the speaker's own one ("mine", "my glass"): before a thing
    /// that says which ("mine's got the fox on it"), it still names the thing alone.
    #[serde(default)]
    pub own_one: Phrases,
    /// Words after which an editing term is none ("what is *actually* in
    /// it", "the cola is *actually* warm"): a verb's adverb, no self-repair.
    #[serde(default)]
    pub no_repair_after: Vec<String>,
    /// Negations that go with the phrase a self-repair replaces ("nicht das
    /// Bier, ich mein das Wasser").
    #[serde(default)]
    pub repair_negations: Vec<String>,
    /// Words that open a question asking for facts ("what is", "when"): a
    /// sentence they open is read as no request by a loose, gapped match.
    #[serde(default)]
    pub question_words: Phrases,
    /// Parts of a person a thing stands by ("by my elbow" is by me).
    #[serde(default)]
    pub body_parts: Phrases,
    /// Words between a drink and the container it is in ("the milk *in* the
    /// bottle"): the words describe the container.
    #[serde(default)]
    pub contained_in: Phrases,
    /// Words that say a cup is the speaker's ("mine", "I'm the one with"):
    /// a drink asked for beside such a cup is poured into it.
    #[serde(default)]
    pub ones_own: Phrases,
    /// Words after which a request's verb is a noun ("this filling's like
    /// cement", "how much filling"): no loose, gapped match reads it as the verb.
    #[serde(default)]
    pub noun_markers: Vec<String>,
    /// Words that stand for a thing in a self-repair ("the red *one*"): they
    /// take the repaired thing's word ("the blue glass, no, the red glass").
    #[serde(default)]
    pub repair_pro_forms: Vec<String>,
    /// Words for what a thing holds, said in the thing's place after its own
    /// words ("the purple *stuff* by the robot": the purple bottle's).
    #[serde(default)]
    pub contents_words: Vec<String>,
    /// Words that follow a thing's word ("die Cola *ohne* Zucker"): a repair
    /// with one right after its determiner ("nicht die normale Cola, die ohne
    /// Zucker") takes the repaired thing's word before it.
    #[serde(default)]
    pub repair_after_the_thing: Vec<String>,
    /// Words that join the things of a list ("cola and fanta", "cola or fanta").
    #[serde(default)]
    pub conjunctions: Vec<String>,
    /// Sentences that leave out the kind an earlier sentence of the turn named
    /// ("Are there enough cups? How many are there?"): the kind goes where `_`
    /// stands, `#` is any one word ("there is only # _ left").
    #[serde(default)]
    pub kind_left_out: Vec<String>,
    /// Words an object phrase never contains (they belong to the sentence).
    #[serde(default)]
    pub not_in_objects: Vec<String>,
    /// Words that make what they are said with a request ("please"): a bare count
    /// said with one is an order ("one coffee, please"), not a claim.
    #[serde(default)]
    pub requests: Vec<String>,
    /// Words that refer to the last object mentioned ("it", "that one").
    #[serde(default)]
    pub referring: Vec<String>,
    /// Whole mentions of referring words that refer to nothing on their own
    /// ("the one": it wants "that" or what follows, "the one on the left").
    #[serde(default)]
    pub not_referring: Vec<String>,
    /// Words that address the listener formally ("können sie", "ihnen"): the
    /// robot answers in the same form.
    #[serde(default)]
    pub formal_address: Phrases,
    /// Words that open a clause narrowing what the one before asked ("a coffee,
    /// *but* in the small cup"): dropped right after a comma, so that the
    /// sentence also reads whole.
    #[serde(default)]
    pub narrowing: Vec<String>,
    /// Words opening a clause of its own ("move the jug away *before* her
    /// elbow finds it", "four glasses *and there* are three of us", "*weil*
    /// ich Durst hab"): inside a sentence, the clause breaks there as at a comma.
    #[serde(default)]
    pub clause_openers: Vec<String>,
    /// Words of a change of mind ("rather", "lieber", "scratch that"): a request
    /// in a later sentence with one takes the place of the one before ("Could
    /// you pass me the lager? Hmm, no. I'd rather have the tonic.").
    #[serde(default)]
    pub changes_mind: Phrases,
    /// Places off the table ("fridge", "Küche"): a gap over one reads no request
    /// for the table's things ("a beer from the fridge").
    #[serde(default)]
    pub elsewhere: Vec<String>,
    /// Words for the plain one of a thing and its variants ("the regular
    /// cola", "die normale"): of the things meant, the one whose name the
    /// others' names extend (cola, not cola zero; milk, not oat milk).
    #[serde(default)]
    pub plain: Vec<String>,
    /// Words that place a thing by a person ("next to me", "vor dir"): of the
    /// things the words before them fit, the one nearest that person.
    #[serde(default)]
    pub near_someone: Phrases,
    /// Words that place a thing at a person's side of the table, said before
    /// the person ("on Folake's side", "up your end"), and the words for a
    /// side said after them (`sides`).
    #[serde(default)]
    pub at_someones_side: Phrases,
    /// Words for a person's side of the table ("side", "end").
    #[serde(default)]
    pub sides: Vec<String>,
    /// Words said twice on purpose, kept twice ("Würden Sie sie mir geben?",
    /// "I think that that glass is mine"); any other word said twice is said once.
    #[serde(default)]
    pub repeatable: Vec<String>,
    /// Words that describe a thing by what it has or holds ("the glass with
    /// the star", "die Flasche mit dem roten Etikett"): read as "the star glass".
    #[serde(default)]
    pub with: Vec<String>,
    /// Words said before a person's name ("Uncle Emeka", "Frau Weber").
    #[serde(default)]
    pub titles: Vec<String>,
    /// Words before a role that names the other person ("unserem
    /// Schornsteinfeger", "our driver"): one or two words no thing of the
    /// table is called, after one of these, are read as the other person.
    #[serde(default)]
    pub role_determiners: Vec<String>,
    /// Pronouns that only ever name who does a thing ("du", "ich"): never
    /// whom it is for ("schenkst du dem Felix ..." pours for Felix).
    #[serde(default)]
    pub subject_pronouns: Vec<String>,
    /// Words after a role that say only where the person is from ("dem Mann
    /// vom Amt", "the man from the council"): the role is the word before.
    #[serde(default)]
    pub role_origins: Vec<String>,
    /// Words that make a thing the other of its kind ("the other one", "das
    /// andere Glas"): not the one talked of last.
    #[serde(default)]
    pub other: Vec<String>,
    /// What an "'s" joined to a word stands for ("schieb's" = "schieb es");
    /// without it the "'s" is a possessive and dropped ("Felix's glass").
    #[serde(default)]
    pub clitic_s: Option<String>,
    /// What an "'s" stands for by the word after it ("the bottle's just
    /// water": is; "Tamsin's got the jug": has); elsewhere `clitic_s` decides.
    #[serde(default)]
    pub clitic_s_before: BTreeMap<String, String>,
    /// Words that make the thing after them a landmark for another ("behind
    /// the drill", "hinter dem Karton"): not what an unread turn was about.
    #[serde(default)]
    pub landmarks: Phrases,
    /// Words between a thing and the landmark that places it ("the bottle
    /// *standing* behind the box"): they say nothing of which thing it is.
    #[serde(default)]
    pub placed_postures: Phrases,
    /// Words after a thing that say who holds it ("[that] {person} (have|are
    /// holding)", "die {person} in der Hand hast"): templates with a `{person}`
    /// slot; of the things the words before them fit, the one in that person's hand.
    #[serde(default)]
    pub held_by_someone: Vec<String>,
    /// Words that place a thing in the table's middle ("in the middle", "in der
    /// Mitte"): of the things the words before them fit, the one nearest its centre.
    #[serde(default)]
    pub in_the_middle: Phrases,
    /// Pronouns for people: the word and whom it means (speaker, listener, other, robot, all).
    #[serde(default)]
    pub pronouns: BTreeMap<String, String>,
    /// Words that open a clause which only adds to the one beside it ("a
    /// coffee, in the same cup"): the thing it names is no claim of its own.
    #[serde(default)]
    pub modifying: Vec<String>,
    /// How a recogniser writes a verb run together with what follows it: the
    /// ending it writes and the word it may stand for ("handed over" for "hand
    /// it over"; at a request's verb place also the bare verb, "passed the beer").
    #[serde(default)]
    pub fused: BTreeMap<String, String>,
    /// Words a recogniser may run together with the verb before them ("hammy"
    /// for "hand me"); the first also stands for the listener's pronoun heard
    /// where a request's recipient goes after "can you" ("can you ham you").
    #[serde(default)]
    pub run_together: Vec<String>,
    /// Words a recogniser writes for another that sounds the same ("the cola zero
    /// two" for "too"): tried in its place on a turn no sentence read whole.
    #[serde(default)]
    pub homophones: BTreeMap<String, String>,
    /// Words that follow a sentence's subject ("will", "is", "kann"): the word
    /// before one is no request's verb misheard ("Iveline won't see ..." is no
    /// "refill").
    #[serde(default)]
    pub subject_verbs: Vec<String>,
    /// Words never taken for a request's verb misheard: they say what someone
    /// wants or offers ("Want some oat milk?" is no "hand some oat milk").
    #[serde(default)]
    pub heard_as_said: Vec<String>,
}

/// Phrases of the file, split into words once when it is loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "Vec<String>")]
pub struct Phrases(pub Vec<Vec<String>>);

impl Phrases {
    /// Whether `words` are one of the phrases.
    pub fn has(&self, words: &[String]) -> bool {
        self.0.iter().any(|p| p.as_slice() == words)
    }

    /// Whether `words` begin with one of the phrases.
    pub fn opens(&self, words: &[String]) -> bool {
        self.0.iter().any(|p| words.starts_with(p))
    }

    /// Whether one of the phrases occurs anywhere in `words`.
    pub fn occur_in(&self, words: &[String]) -> bool {
        self.0
            .iter()
            .any(|p| !p.is_empty() && words.windows(p.len()).any(|w| w == p.as_slice()))
    }

    /// Whether `word` is one of the phrases of a single word.
    pub fn has_word(&self, word: &str) -> bool {
        self.0
            .iter()
            .any(|p| matches!(p.as_slice(), [only] if only == word))
    }
}

impl From<Vec<String>> for Phrases {
    /// Longest phrases first, so that "sure thing" is tried before "sure".
    fn from(phrases: Vec<String>) -> Self {
        let mut phrases: Vec<Vec<String>> = phrases
            .iter()
            .map(|p| super::normalize::plain_words(p))
            .filter(|words| !words.is_empty())
            .collect();
        phrases.sort_by_key(|words| std::cmp::Reverse(words.len()));
        Self(phrases)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IntentFile {
    act: Act,
    #[serde(default)]
    priority: i32,
    /// Read only from a whole sentence, or from a clause beside clauses that
    /// name nothing at the table (a bare "the cola, please").
    #[serde(default)]
    whole_sentence: bool,
    sentences: Vec<String>,
}

/// One compiled template of an intent.
#[derive(Debug, Clone)]
pub struct Sentence {
    /// The act it reads.
    pub act: Act,
    /// Higher wins when several templates match.
    pub priority: i32,
    /// The template as written, for the `matched` field.
    pub text: String,
    /// Compiled elements.
    pub elements: Vec<Element>,
    /// For each need, one of its words is in every match.
    pub needs: Vec<Vec<String>>,
    /// Not read from a clause beside another that names something at the
    /// table: "there's plenty the milk, look, and oat milk" is no request for
    /// the oat milk, however the first clause was misheard.
    pub whole_sentence: bool,
}

/// Words after a thing that say who holds it, compiled.
#[derive(Debug, Clone)]
pub struct HeldBy {
    /// The template.
    pub elements: Vec<Element>,
    /// Words it cannot match without.
    pub needs: Vec<Vec<String>>,
}

/// The loaded sentence file.
#[derive(Debug, Clone)]
pub struct Grammar {
    /// Normalising.
    pub normalize: Normalize,
    /// Slot name to kind.
    pub slots: BTreeMap<String, SlotKind>,
    /// List name to value to phrases (each already split into words).
    pub lists: BTreeMap<String, Vec<(String, Vec<String>)>>,
    /// Filter value to its meaning.
    pub filters: BTreeMap<String, Filter>,
    /// Every template, in file order.
    pub sentences: Vec<Sentence>,
    /// What asks something of memory.
    pub memory: super::memory::MemoryPhrases,
    /// The literal words of each shared rule (`give_verb`: give, pass ...).
    pub rule_words: BTreeMap<String, BTreeSet<String>>,
    /// `[normalize] held_by_someone`, compiled.
    pub held_by: Vec<HeldBy>,
    /// Every literal word of the templates and the lists, in lower case.
    pub words: BTreeSet<String>,
    /// The most words a person slot may take: a name with a title ("Uncle
    /// Emeka"), or the longest role of `[normalize] pronouns` ("dem jungen Mann").
    pub person_words: usize,
    /// Where it came from.
    pub path: PathBuf,
}

/// Why the sentence file cannot be used; names the file, the line and the reason.
#[derive(Debug, thiserror::Error)]
pub enum GrammarError {
    /// The file cannot be read.
    #[error("cannot read the sentence file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has unknown keys.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The TOML library's message, with line and column.
        message: String,
    },
    /// A template, slot or list is wrong.
    #[error("{path}:{line}: {what}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line of the offending text (1-based; 0 when not found).
        line: usize,
        /// What is wrong ("template \"...\"").
        what: String,
        /// Why.
        reason: String,
    },
}

impl Grammar {
    /// Whether the template a reading `matched` ("give: {object} for
    /// {recipient}") starts with a slot: no verb of its own before the thing.
    pub fn begins_with_a_slot(&self, matched: &str) -> bool {
        let text = matched.split_once(": ").map_or(matched, |(_, text)| text);
        let words_of = |alternative: &Vec<Element>| -> Option<Vec<String>> {
            let words: Option<Vec<String>> = alternative
                .iter()
                .map(|e| match e {
                    Element::Word(w) => Some(w.clone()),
                    _ => None,
                })
                .collect();
            words.filter(|w| !w.is_empty())
        };
        let all_in = |alternatives: &[Vec<Element>], phrases: &Phrases| {
            alternatives
                .iter()
                .all(|a| words_of(a).is_some_and(|w| phrases.has(&w)))
        };
        self.sentences.iter().filter(|s| s.text == text).any(|s| {
            match s.elements.split_first() {
                // "I meant the spotty mug": an editing term before the thing still names it alone.
                Some((Element::Choice(alternatives), rest))
                    if all_in(alternatives, &self.normalize.repairs) =>
                {
                    matches!(rest.first(), Some(Element::Slot(_)))
                }
                // So does the speaker's own one, whatever tells it apart ("mine's got the fox on it").
                Some((Element::Choice(alternatives), rest))
                    if all_in(alternatives, &self.normalize.own_one) =>
                {
                    rest.iter().any(|e| matches!(e, Element::Slot(_)))
                }
                first => matches!(first, Some((Element::Slot(_), _))),
            }
        })
    }

    /// Whether `words` ask for something: a verb of a request ("pass", "pour",
    /// "scoot"), "please", or a word that opens a request before a person ("could
    /// you", "can i"; "we'll never finish it" asks nothing). Talk that has none,
    /// between people, asks nothing of anyone ("ah no, we've got wine").
    pub fn asks_for_something(&self, words: &[&str]) -> bool {
        let in_rules = |w: &str, wanted: &dyn Fn(&str) -> bool| {
            self.rule_words
                .iter()
                .any(|(name, rule)| wanted(name) && rule.contains(w))
        };
        let verb = |name: &str| name.ends_with("_verb") || name.ends_with("_ing");
        let opener = |name: &str| name == "can_you";
        let person = |w: &str| {
            self.normalize
                .pronouns
                .get(w)
                .is_some_and(|role| role == "speaker" || role == "listener")
        };
        words.iter().enumerate().any(|(i, &w)| {
            let before_a_person = words.get(i + 1).is_some_and(|&next| person(next));
            (in_rules(w, &verb) && !person(w))
                || (in_rules(w, &opener) && before_a_person)
                || self.normalize.requests.iter().any(|r| r == w)
        })
    }

    /// Whether `word` is a verb of a request's rule ("hol", "pour").
    pub fn is_verb_word(&self, word: &str) -> bool {
        self.rule_words
            .iter()
            .any(|(name, rule)| name.ends_with("_verb") && rule.contains(word))
    }

    /// The shipped sentences under `<data root>/prompts/understanding.toml`.
    pub fn shipped() -> Result<Self, GrammarError> {
        Self::load(&crate::paths::data_root().join("prompts/understanding.toml"))
    }

    /// Loads and validates a sentence file.
    pub fn load(path: &Path) -> Result<Self, GrammarError> {
        let text = std::fs::read_to_string(path).map_err(|source| GrammarError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses and validates the text of a sentence file.
    pub fn parse(text: &str, path: &Path) -> Result<Self, GrammarError> {
        let file: File = toml::from_str(text).map_err(|e| GrammarError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let invalid = |needle: &str, what: String, reason: String| GrammarError::Invalid {
            path: path.to_path_buf(),
            line: line_of(text, needle),
            what,
            reason,
        };
        let mut slots = BTreeMap::new();
        for (name, kind) in &file.slots {
            if !super::SLOT_NAMES.contains(&name.as_str()) {
                return Err(invalid(
                    &format!("{name} ="),
                    format!("slot {name}"),
                    format!(
                        "not a field of the reading: use one of {}",
                        super::SLOT_NAMES.join(", ")
                    ),
                ));
            }
            let kind = match kind.as_str() {
                "object" => SlotKind::Object,
                "thing" => SlotKind::Thing,
                "drink" => SlotKind::Drink,
                "liquid" => SlotKind::Liquid,
                "person" => SlotKind::Person,
                "items" => SlotKind::Items,
                other => match other.strip_prefix("list:") {
                    Some(list) if file.lists.contains_key(list) => SlotKind::List(list.into()),
                    _ => {
                        return Err(invalid(
                            kind,
                            format!("slot {name}"),
                            format!("kind '{other}' is not object, thing, drink, liquid, person, items or list:<a list of [lists]>"),
                        ))
                    }
                },
            };
            slots.insert(name.clone(), kind);
        }
        for (list, values) in &file.lists {
            if values
                .values()
                .any(|phrases| phrases.iter().any(|p| p.trim().is_empty()))
            {
                return Err(invalid(
                    &format!("[lists.{list}]"),
                    format!("list {list}"),
                    "an empty phrase".into(),
                ));
            }
        }
        let lists: BTreeMap<String, Vec<(String, Vec<String>)>> = file
            .lists
            .iter()
            .map(|(name, values)| {
                let phrases = values
                    .iter()
                    .flat_map(|(value, phrases)| {
                        phrases
                            .iter()
                            .map(move |p| (value.clone(), super::normalize::plain_words(p)))
                    })
                    .collect();
                (name.clone(), phrases)
            })
            .collect();
        let known_slot = |name: &str| match name.split_once('=') {
            None => slots.contains_key(name),
            Some((slot, value)) => match slots.get(slot.trim()) {
                Some(SlotKind::Person) => PERSON_ROLES.contains(&value.trim()),
                Some(SlotKind::List(list)) => lists
                    .get(list)
                    .is_some_and(|phrases| phrases.iter().any(|(v, _)| v == value.trim())),
                _ => false,
            },
        };
        let names = Names {
            rules: &file.rules,
            slots: &known_slot,
        };
        let mut rule_words = BTreeMap::new();
        for (name, body) in &file.rules {
            let elements = template::compile(body, &names)
                .map_err(|e| invalid(body, format!("rule <{name}>"), e.to_string()))?;
            let mut words = BTreeSet::new();
            template::literal_words(&elements, &mut words);
            rule_words.insert(name.clone(), words);
        }
        let held_by = file
            .normalize
            .held_by_someone
            .iter()
            .map(|held| {
                let elements = template::compile(held, &names).map_err(|e| {
                    invalid(held, format!("held_by_someone \"{held}\""), e.to_string())
                })?;
                Ok(HeldBy {
                    needs: template::needed_words(&elements),
                    elements,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut sentences = Vec::new();
        for intent in &file.intents {
            if intent.sentences.is_empty() {
                return Err(invalid(
                    &format!("act = \"{}\"", intent.act.as_str()),
                    format!("intent {}", intent.act.as_str()),
                    "no sentences".into(),
                ));
            }
            for sentence in &intent.sentences {
                let elements = template::compile(sentence, &names).map_err(|e| {
                    invalid(sentence, format!("template \"{sentence}\""), e.to_string())
                })?;
                sentences.push(Sentence {
                    act: intent.act,
                    priority: intent.priority,
                    text: sentence.clone(),
                    needs: template::needed_words(&elements),
                    whole_sentence: intent.whole_sentence,
                    elements,
                });
            }
        }
        let mut words = BTreeSet::new();
        for sentence in &sentences {
            template::literal_words(&sentence.elements, &mut words);
        }
        for phrases in lists.values() {
            for (_, phrase) in phrases {
                words.extend(phrase.iter().map(|w| w.to_lowercase()));
            }
        }
        let person_words = file
            .normalize
            .pronouns
            .keys()
            .map(|k| k.split_whitespace().count())
            .chain(
                // A determiner, a role, the origin's words and one word it names.
                file.normalize
                    .role_origins
                    .iter()
                    .map(|o| o.split_whitespace().count() + 3),
            )
            .fold(2, usize::max);
        Ok(Self {
            person_words,
            normalize: file.normalize,
            slots,
            lists,
            filters: file.filters,
            sentences,
            memory: file.memory,
            rule_words,
            held_by,
            words,
            path: path.to_path_buf(),
        })
    }
}

impl Grammar {
    /// The words of the rules whose names pass `wanted`, together.
    pub fn words_of_rules(&self, wanted: impl Fn(&str) -> bool) -> BTreeSet<String> {
        self.rule_words
            .iter()
            .filter(|(name, _)| wanted(name))
            .flat_map(|(_, words)| words.iter().cloned())
            .collect()
    }
}

/// The 1-based line where `needle` first appears (0 when it does not).
fn line_of(text: &str, needle: &str) -> usize {
    text.find(needle)
        .map(|at| text[..at].matches('\n').count() + 1)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
[normalize]
[slots]
object = "object"
[[intent]]
act = "give"
sentences = ["give me {object}"]
"#;

    #[test]
    fn the_shipped_file_loads() {
        let grammar = Grammar::load(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts/understanding.toml"),
        )
        .expect("shipped sentences load");
        assert!(grammar.sentences.len() > 50);
    }

    #[test]
    fn errors_name_file_line_and_reason() {
        let path = Path::new("sentences.toml");
        assert!(Grammar::parse(MINIMAL, path).is_ok());
        let bad = MINIMAL.replace("give me {object}", "give me {place}");
        let error = Grammar::parse(&bad, path)
            .expect_err("unknown slot")
            .to_string();
        assert_eq!(
            error,
            "sentences.toml:7: template \"give me {place}\": unknown slot {place}"
        );
        // A bound slot must name a value its kind knows.
        let bound = MINIMAL
            .replace(
                "object = \"object\"",
                "object = \"object\"\nperson = \"person\"",
            )
            .replace("give me {object}", "give {person=listner} {object}");
        let error = Grammar::parse(&bound, path)
            .expect_err("unknown role")
            .to_string();
        assert!(error.ends_with("unknown slot {person=listner}"), "{error}");
        assert!(Grammar::parse(&bound.replace("listner", "listener"), path).is_ok());
        let bad = MINIMAL.replace("give me {object}", "(give|hand me {object}");
        let error = Grammar::parse(&bad, path)
            .expect_err("unbalanced")
            .to_string();
        assert!(
            error.contains(":7:") && error.contains("unbalanced '('"),
            "{error}"
        );
        let bad = MINIMAL.replace("\"give\"", "\"dance\"");
        let error = Grammar::parse(&bad, path)
            .expect_err("unknown act")
            .to_string();
        assert!(
            error.starts_with("sentences.toml: ") && error.contains("dance"),
            "{error}"
        );
        let bad = MINIMAL.replace("\"object\"", "\"place\"");
        let error = Grammar::parse(&bad, path)
            .expect_err("bad kind")
            .to_string();
        assert!(error.contains("kind 'place'"), "{error}");
        let missing = Grammar::load(Path::new("/nonexistent/understanding.toml"))
            .expect_err("missing")
            .to_string();
        assert!(
            missing.contains("/nonexistent/understanding.toml"),
            "{missing}"
        );
    }
}
