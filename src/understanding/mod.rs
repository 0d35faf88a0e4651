//! The understanding stage: from a turn and the world to a typed reading —
//! the speech act and its slots — from sentence templates kept as data
//! (`prompts/understanding.toml`) and the scene's vocabulary. It uses the twin
//! (vocabulary, grounding) and nothing above it.

pub mod ellipsis;
pub mod grammar;
pub mod hearing;
pub mod lexicon;
pub mod memory;
pub mod normalize;
pub mod reading;
pub mod repair;
pub mod template;

use std::collections::BTreeSet;
use std::sync::Arc;

pub use grammar::{Grammar, GrammarError};
pub use lexicon::Context;
use reading::FOLLOWED_UP;
pub use reading::{Act, Doubt, ObjectMention, PersonMention, Reading, Slots};

use crate::twin::grounding::{self, Addressee, Grounding};
use crate::twin::world::Object;
use crate::twin::World;
use lexicon::{Filler, Lexicon, SlotValue};
use template::SlotFiller;

/// One utterance of the dialogue, as the stage reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utterance<'a> {
    /// Who spoke.
    pub speaker: &'a str,
    /// Whom to.
    pub listener: &'a str,
    /// What they said.
    pub text: &'a str,
}

/// How much lower a reading about something the table lacks ranks.
const UNKNOWN_THING_PENALTY: i32 = 40;

/// How many earlier turns are searched for what "it" means.
const REFERENT_LOOKBACK: usize = 6;

/// The understanding stage: the loaded sentences.
#[derive(Debug, Clone)]
pub struct Understanding {
    grammar: Arc<Grammar>,
}

impl Understanding {
    /// A stage over loaded sentences.
    pub fn new(grammar: Grammar) -> Self {
        Self {
            grammar: Arc::new(grammar),
        }
    }

    /// Whether `text` asks: a question mark in any sentence, or a question's first word.
    pub fn is_a_question(&self, text: &str) -> bool {
        let opens = &self.grammar.memory.question_opens;
        // "Wo haben wir die Hefe bestellt? Das hat Felix dir doch gesagt."
        text.contains('?')
            || normalize::plain_words(text)
                .first()
                .is_some_and(|w| opens.contains(w))
    }

    /// The words of `text` that no sentence of the language has ("spare
    /// key"): what a question is about, for searching memory.
    pub fn topic_words(&self, text: &str) -> Option<String> {
        let known = &self.grammar.words;
        // A drink is a topic even where the sentences know its word ("glasses of
        // milk ... should I skip anybody?").
        let drinks = self.grammar.lists.get("liquid");
        let a_drink =
            |w: &String| drinks.is_some_and(|list| list.iter().any(|(_, words)| words.contains(w)));
        let words: Vec<String> = normalize::plain_words(text)
            .into_iter()
            .filter(|w| w.chars().count() > 2 && (!known.contains(w) || a_drink(w)))
            .collect();
        (!words.is_empty()).then(|| words.join(" "))
    }

    /// Whether `reading` of `text` was read over a word of its topic the table
    /// does not name ("where do the airbrush needles live?": "needles"): a
    /// question memory may answer rather than the table.
    pub fn reads_over_another_topic(&self, world: &World, reading: &Reading, text: &str) -> bool {
        if reading.skipped == 0 {
            return false;
        }
        let lexicon = Lexicon::new(world).with_sentence_words(&self.grammar.words);
        self.topic_words(text)
            .is_some_and(|words| words.split(' ').any(|w| !lexicon.names_table(w)))
    }

    /// The shipped sentences, loaded once per process (a failed load is retried).
    pub fn shipped() -> Result<Self, GrammarError> {
        static SHIPPED: std::sync::Mutex<Option<Understanding>> = std::sync::Mutex::new(None);
        let mut cached = SHIPPED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(stage) = cached.as_ref() {
            return Ok(stage.clone());
        }
        let stage = Grammar::shipped().map(Self::new)?;
        *cached = Some(stage.clone());
        Ok(stage)
    }

    /// The loaded sentences.
    pub fn grammar(&self) -> &Grammar {
        &self.grammar
    }

    /// Reads the last of a dialogue's turns; the earlier ones give "it" its meaning.
    pub fn read_in_dialogue(
        &self,
        world: &World,
        earlier: &[Utterance<'_>],
        turn: &Utterance<'_>,
    ) -> Reading {
        let lexicon = Lexicon::new(world).with_sentence_words(&self.grammar.words);
        // Oldest first, so that "it" and the last request carry through the dialogue.
        let recent = &earlier[earlier.len().saturating_sub(REFERENT_LOOKBACK)..];
        let mut before = Before::default();
        for u in recent {
            let (reading, named) = self.read_naming(&lexicon, world, u, &before);
            // What an unread turn named is "it" for the next ("Ich trink lieber
            // Wasser." / "Kannst du mir das zuschieben?"); what one asks memory
            // to keep is not.
            let named = named.filter(|_| !reading.act.is_memory());
            if let Some(named) = reading.referent().map(str::to_string).or(named) {
                before.referent = Some(named);
            }
            // A question no template reads is still asked ("..., is there
            // still some in the bottle by you?").
            let asks = reading.act.is_question()
                || (reading.act == Act::Unknown && u.text.trim_end().ends_with('?'));
            before.question = asks.then(|| (u.speaker.to_string(), u.listener.to_string()));
            if let Some(named) = person_named_in(world, u) {
                before.person = Some(named);
            }
            // "Das Telefon verschwindet in der Schublade", read as a pour of
            // nothing the table has, is no request a later "me too" repeats.
            let of_nothing_here = names_only_what_the_table_lacks(&reading);
            before.request_was_last = reading.act.is_request() && !of_nothing_here;
            if matches!(reading.act, Act::Pour | Act::PourSame) && !of_nothing_here {
                before.pour = Some(reading.clone());
            }
            if reading.act.is_request() && !of_nothing_here {
                before.request = Some(reading);
                before.asked = Some((u.speaker.to_string(), u.listener.to_string()));
            }
        }
        // Only a request is put right by the next turn; a remark is followed by another.
        let joined = earlier
            .last()
            .filter(|_| before.request_was_last)
            .and_then(|u| self.joined_repair(u, turn));
        match joined {
            // The turn before is read again with this one putting it right.
            Some(text) => {
                let mut reading = self
                    .read_naming(
                        &lexicon,
                        world,
                        &Utterance {
                            text: &text,
                            ..*turn
                        },
                        &before,
                    )
                    .0;
                reading.matched = format!("{} (putting right the turn before)", reading.matched);
                reading
            }
            None => self.read_naming(&lexicon, world, turn, &before).0,
        }
    }

    /// Whether `turn` puts right `before`, the same person's turn to the same
    /// listener just before it ("Oh no, sorry, I meant the cola.").
    pub fn puts_right(&self, before: &Utterance<'_>, turn: &Utterance<'_>) -> bool {
        self.joined_repair(before, turn).is_some()
    }

    /// The two turns' texts as one, where `turn` puts `before` right.
    fn joined_repair(&self, before: &Utterance<'_>, turn: &Utterance<'_>) -> Option<String> {
        let same = before.speaker == turn.speaker && before.listener == turn.listener;
        same.then(|| repair::across_turns(&self.grammar.normalize, before.text, turn.text))?
    }

    /// Whether words as the stage heard them (a reading's `heard`) address the
    /// listener formally ("können sie mir ...", "ihnen").
    pub fn addresses_formally(&self, heard: &str) -> bool {
        let words: Vec<String> = heard.split_whitespace().map(str::to_string).collect();
        self.grammar
            .normalize
            .formal_address
            .0
            .iter()
            .any(|phrase| words.windows(phrase.len()).any(|w| w == phrase.as_slice()))
    }

    /// Whether the turn describes a thing by who holds it ("the bottle you've
    /// got"): its reading needs to know who holds what.
    pub fn names_a_holder(&self, world: &World, turn: &Utterance<'_>) -> bool {
        let lexicon = Lexicon::new(world);
        let context = context_of(world, turn, None);
        let grammar = &*self.grammar;
        let vocatives = lexicon.vocatives(&context);
        repair::sentences(&grammar.normalize, &grammar.words, turn.text, &vocatives)
            .iter()
            .flatten()
            .any(|words| {
                Filler::new(&lexicon, grammar, &context, &words.words, &words.breaks)
                    .names_a_holder()
            })
    }

    /// Reads one turn on its own.
    pub fn read(&self, world: &World, turn: &Utterance<'_>) -> Reading {
        self.read_in_dialogue(world, &[], turn)
    }

    /// Whether a turn's words are complete as they stand, so that the turn
    /// may end at a short pause: a known act the stage is sure of, not ending
    /// on a comma, an ellipsis, a word that joins the next (a conjunction) or
    /// a person's name ("Hey Daniel" is mostly followed by what Daniel should do),
    /// and no claim about the table, whose list may go on ("there's coffee ...
    /// milk and oat milk") and which needs no quick answer.
    pub fn reads_complete(&self, world: &World, turn: &Utterance<'_>) -> bool {
        let text = turn.text.trim_end();
        if text.ends_with(',') || text.ends_with("...") || text.ends_with('…') {
            return false;
        }
        let last = text
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("")
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        let named = |name: &str| grounding::words(name).contains(&last);
        if self.grammar.normalize.conjunctions.contains(&last)
            || world.persons().iter().any(|p| named(&p.name))
            || named(&world.robot.name)
        {
            return false;
        }
        // Whether the words are complete does not depend on who said them: a
        // speaker one microphone could not tell is read as someone at the table.
        let at_table = |name: &str| world.persons().iter().any(|p| p.name == name);
        let stand_in = world
            .persons()
            .iter()
            .find(|p| p.name != turn.listener)
            .map(|p| p.name.as_str());
        let speaker = match stand_in {
            Some(someone) if !at_table(turn.speaker) => someone,
            _ => turn.speaker,
        };
        let reading = self.read(world, &Utterance { speaker, ..*turn });
        reading.doubt.is_none() && reading.act != Act::Unknown && !reading.act.is_statement()
    }

    /// The reading, and the last thing the turn named where a part no template read named one.
    fn read_naming(
        &self,
        lexicon: &Lexicon<'_>,
        world: &World,
        turn: &Utterance<'_>,
        before: &Before,
    ) -> (Reading, Option<String>) {
        let mut last_named = None;
        let mut context = context_of(world, turn, before.referent.clone());
        let grammar = &*self.grammar;
        let vocatives = lexicon.vocatives(&context);
        let parts = repair::sentences(&grammar.normalize, &grammar.words, turn.text, &vocatives);
        let parts = ellipsis::kind_put_back(&grammar.normalize.kind_left_out, lexicon, parts);
        let heard = parts
            .iter()
            .filter_map(|variants| variants.last().map(normalize::Words::text))
            .collect::<Vec<_>>()
            .join(" | ");
        context.formal = self.addresses_formally(&heard);
        let mut best: Option<(Score, Reading)> = None;
        // Per sentence: its words, and whether the whole or a clause of it was read.
        let mut sentences: Vec<(String, bool)> = Vec::new();
        // Clauses no template read, of sentences not read whole.
        let mut clauses = Clauses::default();
        // Objects named by sentences no template read, with the sentence.
        let mut introduced: Vec<(usize, String)> = Vec::new();
        // The one object each read part is about, with the sentence.
        let mut things_named: Vec<(usize, String)> = Vec::new();
        // What each clause names, with its part and sentence.
        let mut named_by_clauses: Vec<(usize, (usize, String))> = Vec::new();
        // The first part read as naming what the table lacks, and the part read best.
        let mut lacking: Option<(usize, String)> = None;
        let mut best_part = 0;
        // The best reading took the place of an earlier request by a change of mind.
        let mut changed_mind_before = false;
        // The part that is the current sentence as a whole.
        let mut whole_part = 0;
        // Somewhere the turn changes its mind ("ach nee, lieber Wein"): an
        // editing term before that takes back nothing.
        let turn_changes_mind = parts.iter().flatten().any(|w| w.changes_mind);
        // A part that is only an editing term ("ach nee"): the turn puts itself right.
        let repaired = parts
            .iter()
            .flatten()
            .any(|w| grammar.normalize.repairs.has(&w.words));
        // "Ach nee, warte, ... Dann halt eine Cola.": a change of mind said in a
        // part of its own holds for the parts after it.
        let mut mind_changing = false;
        for (index, variants) in parts.iter().enumerate() {
            let Some(first) = variants.first() else {
                continue;
            };
            let whole = sentences.len() <= first.sentence;
            if whole {
                whole_part = index;
                sentences.resize(first.sentence + 1, (String::new(), false));
                sentences[first.sentence].0 = variants
                    .last()
                    .map(normalize::Words::text)
                    .unwrap_or_default();
            }
            // Within a turn, "it" may mean what an earlier part named.
            let mut part_best: Option<(Score, Reading)> = None;
            let beside_the_table =
                !whole && beside_a_claim(&grammar.normalize, lexicon, &parts, index);
            for words in variants {
                if let Some((score, reading)) =
                    self.best_match(lexicon, &context, words, &heard, beside_the_table)
                {
                    if part_best.as_ref().is_none_or(|(b, _)| score.beats(b)) {
                        part_best = Some((score, reading));
                    }
                }
            }
            let says_change_of_mind = variants.iter().any(|w| w.changes_mind);
            let changes_mind = says_change_of_mind || mind_changing;
            mind_changing |=
                says_change_of_mind && best.as_ref().is_some_and(|(_, b)| b.act.is_request());
            if let Some((score, reading)) = part_best {
                let another_drink = match (&best, later_drink(&reading)) {
                    (Some((_, earlier)), Some(drink)) if changes_mind => {
                        pour_with_another_drink(world, earlier, drink)
                    }
                    _ => None,
                };
                mind_changing &= another_drink.is_none();
                let reading = another_drink.unwrap_or(reading);
                if let Some(named) = reading.main_object().and_then(ObjectMention::resolved) {
                    things_named.push((first.sentence, named.to_string()));
                    if !whole {
                        named_by_clauses.push((index, (first.sentence, named.to_string())));
                    }
                }
                if let Some(named) = reading.referent() {
                    context.referent = Some(named.to_string());
                } else if names_what_the_table_lacks(&reading) {
                    // "I'd love some Vanna. Could you pour it ...": "it" is what was
                    // just named, which the table lacks, not what an earlier turn named.
                    context.referent = None;
                    lacking.get_or_insert((index, variants.last().unwrap_or(first).text()));
                }
                // A claim read from a whole sentence without gaps keeps its
                // place against a claim read from one of its clauses ("die
                // Flasche, die du hast, ist die Fanta": not "ist die Fanta").
                let whole_claim =
                    |b: &Reading| b.skipped == 0 && b.act.is_statement() && best_part == whole_part;
                // "Gibst du mir die Fanta? Nee, ...": an editing term alone takes
                // back nothing the turn asked; it is no refusal.
                let editing_term = !whole
                    && reading.act == Act::Refuse
                    && variants
                        .iter()
                        .any(|w| grammar.normalize.repairs.has(&w.words));
                // "Ins blaue, ach nee, das blaue ist ja Daniels": the repair goes on.
                let repair_goes_on = parts[index + 1..]
                    .iter()
                    .any(|p| p.first().is_some_and(|w| w.sentence == first.sentence));
                // "In deiner kleinen Tasse ist ja bloß Hafermilch. Wo ist denn dein
                // Kaffee geblieben?": between people, a question to the other keeps
                // the claim before it for the twin (one of reach asks for the thing).
                let question_after_a_claim = !context.robot_addressed
                    && reading.act.is_question()
                    && reading.act != Act::AskAbility;
                let kept = best.as_ref().is_some_and(|(_, b)| {
                    (question_after_a_claim && b.skipped == 0 && b.act.is_statement())
                        || (!whole && whole_claim(b) && reading.act.is_statement())
                        || (editing_term
                            && (changed_mind_before || turn_changes_mind || repair_goes_on)
                            && b.act.is_request())
                });
                let best_sentence = parts[best_part].first().map(|w| w.sentence);
                let changed_mind = reading.act.is_request()
                    && best.as_ref().is_some_and(|(_, b)| b.act.is_request())
                    && best_sentence.is_some_and(|s| s < first.sentence || best_part < index)
                    && changes_mind;
                // "No, better not, I'm up at six. Could I have the almonds instead?",
                // "Never mind. What's in the brown bottle?": what a refusal turned
                // down came before; what the turn asks comes after it.
                let asked_after_refusing = (reading.act.is_request() || reading.act.is_question())
                    && best.as_ref().is_some_and(|(_, b)| b.act == Act::Refuse)
                    && best_sentence.is_some_and(|s| s < first.sentence);
                let changed_mind = changed_mind || asked_after_refusing;
                mind_changing &= !changed_mind;
                // "I'd love some of that iced tea. Could you send the carafe up?":
                // the later sentence says how the drink asked for comes.
                let spelt_out = best
                    .as_ref()
                    .is_some_and(|(_, b)| hands_over_the_drink_asked_for(b, &reading));
                // "No need to pass Parveen anything, the mead's within her reach",
                // "Leave it, Imelda can just lean over and get the cider herself": a
                // refusal between people leaves the claim read whole after it for
                // the twin (the robot was asked nothing).
                let claim_beside_refusal = !context.robot_addressed
                    && reading.act.is_statement()
                    && reading.skipped == 0
                    && best.as_ref().is_some_and(|(_, b)| b.act == Act::Refuse);
                // "Desmond, the juice is right next to you. Any chance of pushing it
                // over?": where the thing is says why the request goes to them.
                let located = best
                    .as_ref()
                    .is_some_and(|(_, b)| says_where_the_requested_is(b, &reading));
                let request_located = best
                    .as_ref()
                    .is_some_and(|(_, b)| says_where_the_requested_is(&reading, b));
                // "Same again for me, robot. I'm on the zigzag one.": the later
                // sentence names the cup the same pour goes into.
                let cup_named = best
                    .as_ref()
                    .is_some_and(|(_, b)| names_the_cup_of(grammar, b, &reading));
                // "Du hast ja schon Fanta im blauen Glas. Lass die Flasche lieber
                // stehen.": between people, a refusal after a claim read whole leaves
                // the claim for the twin, as one before it does.
                let refusal_beside_claim = !context.robot_addressed
                    && reading.act == Act::Refuse
                    && best
                        .as_ref()
                        .is_some_and(|(_, b)| b.act.is_statement() && b.skipped == 0);
                let kept = kept || located || refusal_beside_claim;
                if changed_mind
                    || spelt_out
                    || claim_beside_refusal
                    || request_located
                    || cup_named
                    || !kept && best.as_ref().is_none_or(|(b, _)| score.beats(b))
                {
                    best = Some((score, reading));
                    best_part = index;
                    changed_mind_before = changed_mind;
                }
                clauses.read(first.sentence, whole);
                sentences[first.sentence].1 = true;
            } else if let Some((named, as_written)) = self.named_in(lexicon, &context, variants) {
                let drink = ObjectMention::only(named.clone(), &named);
                // Only the drink's own words ("lieber doch Wein"), not a remark about it.
                let only_named = variants.last().is_some_and(|w| w.words.len() <= 3);
                let another_drink = match &best {
                    Some((score, earlier)) if changes_mind && only_named => {
                        pour_with_another_drink(world, earlier, &drink).map(|r| (*score, r))
                    }
                    _ => None,
                };
                if let Some(poured) = another_drink {
                    mind_changing = false;
                    best = Some(poured);
                    sentences[first.sentence].1 = true;
                    continue;
                }
                // "See the little glass by Ana? Fill that one ...": the one just named;
                // a sentence with clauses leaves that to them, in their order ("pass it
                // this way, before it's all in boxes": "it" is no box).
                let has_clauses = parts
                    .get(index + 1)
                    .and_then(|v| v.first())
                    .is_some_and(|w| w.sentence == first.sentence);
                if !(whole && has_clauses) {
                    context.referent = Some(named.clone());
                }
                if as_written {
                    last_named = Some(named.clone());
                }
                if !whole {
                    named_by_clauses.push((index, (first.sentence, named.clone())));
                }
                introduced.push((first.sentence, named));
            } else if !whole {
                let words = variants.last().map_or(&[][..], |w| &w.words[..]);
                let strange = words.iter().any(|w| {
                    w.chars().all(char::is_alphabetic)
                        && !self.grammar.words.contains(w)
                        && !lexicon.names_table(w)
                });
                if strange {
                    clauses.unread(first.sentence, words.join(" "));
                }
            }
        }
        // A sentence that only named what "that one" then meant was read through it.
        if let Some((_, reading)) = &best {
            for (sentence, named) in &introduced {
                if refers_to(reading, named) {
                    sentences[*sentence].1 = true;
                }
            }
        }
        // "Pour me some riesling? The glass with the star is mine.": the one
        // vessel another sentence names is the cup the pour left open.
        if let Some((_, reading)) = &mut best {
            let best_sentence = parts[best_part].first().map(|w| w.sentence);
            let elsewhere: Vec<&(usize, String)> = things_named
                .iter()
                .chain(&introduced)
                .filter(|(sentence, _)| Some(*sentence) != best_sentence)
                // "..., er hat das große Glas vor sich": another clause of its sentence.
                .chain(
                    named_by_clauses
                        .iter()
                        .filter(|(part, (sentence, _))| {
                            *part != best_part && Some(*sentence) == best_sentence
                        })
                        .map(|(_, named)| named),
                )
                .collect();
            cup_and_drink_in_their_places(world, reading);
            let owned: Vec<&(usize, String)> = elsewhere
                .iter()
                .filter(|(sentence, _)| {
                    sentences
                        .get(*sentence)
                        .is_some_and(|(text, _)| says_its_ones_own(grammar, text))
                })
                .copied()
                .collect();
            drink_asked_into_ones_cup(world, grammar, reading, &owned);
            let before: Vec<&(usize, String)> = elsewhere
                .iter()
                .filter(|(sentence, _)| best_sentence.is_some_and(|best| *sentence < best))
                .copied()
                .collect();
            if let Some(sentence) =
                cup_asked_after_its_drink(world, grammar, reading, &before, &sentences)
            {
                sentences[sentence].1 = true;
            }
            if let Some(sentence) = ones_own_cup_for_the_same(world, reading, &owned) {
                sentences[sentence].1 = true;
            }
            source_elsewhere(world, reading, &elsewhere);
            // "Ins blaue, ach nee, ... In mein rotes natürlich.": put right, the last one.
            if let Some((sentence, target)) = target_elsewhere(world, reading, &elsewhere, repaired)
            {
                reading.slots.target = Some(target);
                sentences[sentence].1 = true;
            }
            narrow_to_the_holder(&grammar.normalize, world, reading);
            pour_from_the_bottle(world, reading);
        }
        // A sentence not read that names nothing at the table ("the worst.")
        // cannot change what the turn asks.
        let unread = sentences
            .into_iter()
            .find_map(|(text, read)| {
                let names = text.split(' ').any(|w| lexicon.names_table(w));
                (!read && names).then_some(text)
            })
            .or_else(|| clauses.strange_beside_a_read_one())
            // "There are no classes, just bottles": the claim read best leaves
            // aside a part that names what the table lacks (misheard, perhaps).
            .or_else(|| {
                lacking
                    .filter(|(part, _)| *part != best_part)
                    .map(|(_, text)| text)
            });
        let reading = match best {
            Some((_, mut reading)) => {
                reading.doubt = doubt_of(&reading, unread);
                reading
            }
            None => {
                let mut reading = Reading::unknown(heard.clone());
                // Talk that names nothing on the table asks nothing the robot could do.
                if !heard.split(' ').any(|w| lexicon.names_thing(w)) {
                    reading.doubt = Some(Doubt::NothingOnTheTable);
                } else if !self.asks_for_something(&heard, turn.text) {
                    reading.doubt = Some(Doubt::AsksNothing);
                }
                reading
            }
        };
        let reading = an_order_not_a_count(&grammar.normalize, turn, reading);
        // "Same again for me. I'm on the red one.": a follow-up naming its cup
        // takes up the request before, not what memory says was had last time.
        let takes_up_the_request = reading.act == Act::FollowUp
            && before.request.is_some()
            && reading.slots.target.as_ref().is_some_and(|t| !t.referred);
        let mut reading = if takes_up_the_request {
            reading
        } else {
            with_memory(grammar, world, turn, before.person.as_deref(), reading)
        };
        // "Could I have my usual?": what the table lacks by that name, memory says.
        if reading.act.is_request()
            && reading.slots.memory.is_some()
            && matches!(reading.doubt, Some(Doubt::Lacking { .. }))
        {
            reading.doubt = None;
        }
        let reading = match reading.act {
            // "Go on, which team did I end up with?": a bare go-ahead before a
            // question of its own urges the question; it takes up no request.
            Act::FollowUp if urges_a_question(grammar, &reading) => Reading {
                doubt: reading.doubt.clone(),
                ..Reading::unknown(reading.heard)
            },
            // "Go on then, Barnaby.": the one just asked lets the asker go ahead;
            // they join no request.
            Act::FollowUp
                if before.request.is_some()
                    && before.request_followed_by(turn).is_none()
                    && names_nothing(&reading) =>
            {
                answering(reading.heard, "request")
            }
            Act::FollowUp => {
                let request = before.followed_up_by(world, &reading);
                follow_up(world, reading, request, &context, grammar, false)
            }
            // A thing alone in reply to a question names what the question asked about.
            Act::Give
                if before.answers_the_question(turn)
                    && grammar.begins_with_a_slot(&reading.matched) =>
            {
                answering(reading.heard, "question")
            }
            // A thing alone after a request ("and the blue one for Sam") follows it up,
            // unless the one asked answers with it.
            Act::Give
                if before.request.is_some() && grammar.begins_with_a_slot(&reading.matched) =>
            {
                match before.request_followed_by(turn) {
                    Some(request) => {
                        follow_up(world, reading, Some(request), &context, grammar, true)
                    }
                    None => answering(reading.heard, "request"),
                }
            }
            _ => reading,
        };
        (reading, last_named)
    }

    /// Whether the words as heard (a reading's `heard`), or as said (where "please"
    /// is not yet dropped), ask for something.
    pub fn asks_for_something(&self, heard: &str, said: &str) -> bool {
        let said = said.to_lowercase();
        let said: Vec<&str> = said
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .collect();
        let heard: Vec<&str> = heard.split(' ').collect();
        self.grammar.asks_for_something(&heard) || self.grammar.asks_for_something(&said)
    }

    /// The one object a part no template read names, longest words first
    /// ("see the little glass by ana": the little glass), and whether a word
    /// named it as written (not a near miss: "come" for "coke").
    fn named_in(
        &self,
        lexicon: &Lexicon<'_>,
        context: &Context,
        variants: &[normalize::Words],
    ) -> Option<(String, bool)> {
        let words = variants.last()?;
        let mut filler = Filler::new(lexicon, &self.grammar, context, &words.words, &words.breaks);
        let n = words.words.len();
        let rules = &self.grammar.normalize;
        let landmark = |from: usize| {
            let mut at = from;
            while at > 0 && rules.determiners.contains(&words.words[at - 1]) {
                at -= 1;
            }
            (1..=at.min(3)).any(|len| rules.landmarks.has(&words.words[at - len..at]))
        };
        for len in (1..=n.min(4)).rev() {
            // A word of the sentences alone ("he can not have") names nothing.
            let sentence_word = |from: usize| {
                let word = &words.words[from];
                len == 1 && self.grammar.words.contains(word) && !lexicon.is_thing_word(word)
            };
            for from in (0..=n - len).filter(|&from| !landmark(from) && !sentence_word(from)) {
                if let Some(SlotValue::Object(mention)) = filler.fill("object", from, from + len) {
                    if let (Some(one), false) = (mention.resolved(), mention.referred) {
                        let span = &words.words[from..from + len];
                        let as_written = span.iter().any(|w| lexicon.is_thing_word(w));
                        return Some((one.to_string(), as_written));
                    }
                }
            }
        }
        None
    }

    /// The best template match of one reading of one part of a turn.
    fn best_match(
        &self,
        lexicon: &Lexicon<'_>,
        context: &Context,
        words: &normalize::Words,
        heard: &str,
        beside_the_table: bool,
    ) -> Option<(Score, Reading)> {
        let grammar = &*self.grammar;
        let mut filler = Filler::new(lexicon, grammar, context, &words.words, &words.breaks);
        let mut best: Option<(Score, Reading)> = None;
        for (index, sentence) in grammar.sentences.iter().enumerate() {
            if !template::may_match(&sentence.needs, &words.words)
                || (sentence.whole_sentence && beside_the_table)
            {
                continue;
            }
            let Some(found) = template::matches(&sentence.elements, &words.words, &mut filler)
            else {
                continue;
            };
            let mut slots = slots_of(found.slots, sentence.act, context);
            // "There's no big wine here", never "no a big wine".
            for item in &mut slots.unknown_items {
                *item = without_determiner(grammar, item);
            }
            // "You've got the big cup": the cup at their place is said to be the big one.
            if sentence.act == Act::StateWhich && slots.object.is_none() {
                slots.object = slots.person.as_ref().zip(slots.target.as_ref()).and_then(
                    |(person, target)| filler.of_kind_at(person.name.as_deref()?, target),
                );
            }
            // What someone drinks is in their glass: "jetzt trinkst du ja Cola Zero".
            if sentence.act == Act::StateContents {
                if let Some(person) = slots.person.as_ref().and_then(|p| p.name.as_deref()) {
                    let named = slots.object.as_ref().filter(|o| o.candidates.len() > 1);
                    if slots.object.is_none() || named.is_some() {
                        slots.object = filler.drinkers_vessel(person, named);
                    }
                }
            }
            // Nothing is poured into itself: "the teapot's got tea in it" is no pour;
            // a lone pronoun asks for nothing ("Und Sie, Roboter, können Sie
            // schwimmen?": its "Sie" is the listener, never the glass before).
            if pours_into_itself(&slots)
                || lone_pronoun_request(grammar, words, sentence.act, &slots)
            {
                continue;
            }
            // A reading about something the table lacks ranks below one about what is there.
            let lacking = [&slots.object, &slots.source, &slots.target]
                .into_iter()
                .flatten()
                .any(|o| o.candidates.is_empty());
            // Between people, words that only name a thing the table lacks ("prost",
            // "one sec") ask nothing: a template of slots alone needs a thing that is there.
            if lacking && sentence.needs.is_empty() && !context.robot_addressed {
                continue;
            }
            let score = Score {
                priority: sentence.priority - if lacking { UNKNOWN_THING_PENALTY } else { 0 },
                skipped: found.skipped,
                index,
            };
            if best.as_ref().is_some_and(|(b, _)| !score.beats(b)) {
                continue;
            }
            if gaps_mislead(grammar, words, &found.gaps, sentence.act, &slots) {
                continue;
            }
            let skipped: Vec<&String> = found
                .gaps
                .iter()
                .flat_map(|&(from, len)| &words.words[from..from + len])
                .collect();
            // "A beer from the fridge": a gap over a place off the table asks for
            // something the robot cannot reach, not for the table's beer.
            if sentence.act.is_request()
                && skipped
                    .iter()
                    .any(|w| grammar.normalize.elsewhere.contains(w))
            {
                continue;
            }
            // A gap that skipped words naming something at the table may have
            // skipped what was meant; other skipped words ("while I type") do not.
            let gap_word = skipped.into_iter().find(|w| lexicon.names_table(w));
            let reading = Reading {
                act: sentence.act,
                slots,
                matched: format!("{}: {}", sentence.act.as_str(), sentence.text),
                heard: heard.to_string(),
                doubt: gap_word.map(|word| Doubt::Gapped {
                    skipped: found.skipped,
                    word: word.clone(),
                }),
                skipped: found.skipped,
            };
            // "It's right in front of you": no claim of which one unless both
            // sides name things of one kind at the table.
            if reading.act == Act::StateWhich && reading.which_one().is_none() {
                continue;
            }
            best = Some((score, reading));
        }
        best
    }
}

/// Words said for a thing without the determiner they open with ("a big wine").
fn without_determiner(grammar: &Grammar, said: &str) -> String {
    match said.split_once(' ') {
        Some((first, rest)) if grammar.normalize.determiners.iter().any(|d| d == first) => {
            rest.to_string()
        }
        _ => said.to_string(),
    }
}

/// Whether a request was read from a clause that is one pronoun alone, after
/// any joining words ("und Sie").
fn lone_pronoun_request(
    grammar: &Grammar,
    words: &normalize::Words,
    act: Act,
    slots: &Slots,
) -> bool {
    let joining = &grammar.normalize.conjunctions;
    let mut said = words.words.iter().skip_while(|w| joining.contains(w));
    (act.is_request() || act == Act::FollowUp)
        && said.next().is_some()
        && said.next().is_none()
        && slots.object.as_ref().is_some_and(|o| o.referred)
}

/// Whether a match's gaps (`*`) skipped what the words mean:
/// - "Schieb mir die Zero rüber, ich will nicht so viel Zucker": a refusal's
///   verb and its "nicht" stand in one clause;
/// - "Gib mir die Cola nicht, die ist mir zu süß": a "nicht" that ends its
///   clause takes a request back; it is no "the cola, not the other";
/// - "Pass me the fan to while you're at it", misheard: a gap that skipped a
///   determiner and a word no sentence has skipped the thing meant, so the
///   "it" after it is not;
/// - "Give me a sec, I have to answer this": nor is an "it" or "this" of a
///   later clause, over a gap across the comma ("Die hätte ich gern, wenn Sie
///   so nett wären" keeps its "die").
fn gaps_mislead(
    grammar: &Grammar,
    words: &normalize::Words,
    gaps: &[(usize, usize)],
    act: Act,
    slots: &Slots,
) -> bool {
    let is_break = |i: usize| words.breaks.get(i).copied().unwrap_or(false);
    // The clause breaks inside a gap (one before its first word is outside it).
    let breaks_in =
        |&(from, len): &(usize, usize)| (from + 1..from + len).filter(move |&i| is_break(i));
    if act == Act::Refuse && gaps.iter().any(|g| breaks_in(g).next().is_some()) {
        return true;
    }
    // The speaker as a verb's subject ("ich"): the speaker does it themselves.
    let speaker_subject = |w: &String| {
        let rules = &grammar.normalize;
        rules.subject_pronouns.contains(w) && rules.pronouns.get(w).is_some_and(|r| r == "speaker")
    };
    // "Das Handy hol ich nachher ab": the speaker right after the verb; no
    // request puts "I" after its verb.
    let inverted = |&(from, len): &(usize, usize)| {
        len > 0
            && from > 0
            && speaker_subject(&words.words[from])
            && grammar.is_verb_word(&words.words[from - 1])
    };
    if act.is_request() && gaps.iter().any(inverted) {
        return true;
    }
    let ends_a_clause = |(i, w): (usize, &String)| {
        grammar.normalize.repair_negations.contains(w) && is_break(i + 1)
    };
    if act.is_request() && words.words.iter().enumerate().any(ends_a_clause) {
        return true;
    }
    // "Reicht das für die Jungfrau?": a gapped match in a question for facts.
    let loose = gaps.iter().any(|&(_, len)| len > 0);
    if act.is_request() && loose && grammar.normalize.question_words.opens(&words.words) {
        return true;
    }
    // A loose request that opens with a gap: not from a question for facts ("What's
    // the cut-off for getting the bags to the post office?"), nor with a noun for
    // its verb ("This filling's like cement").
    if let (true, Some(&(0, skipped))) = (act.is_request(), gaps.first()) {
        let rules = &grammar.normalize;
        let noun = skipped > 0 && rules.noun_markers.contains(&words.words[skipped - 1]);
        // "Warte, ich mach's auf", "I'm going to pour everyone some wine": the
        // speaker says what they do themselves (the last subject before the verb).
        let listener = |w: &String| rules.pronouns.get(w).is_some_and(|r| r == "listener");
        let last_subject = words.words[..skipped]
            .iter()
            .rev()
            .find(|w| rules.subject_pronouns.contains(*w) || listener(w));
        let by_the_speaker = last_subject.is_some_and(speaker_subject);
        if noun || by_the_speaker || rules.question_words.opens(&words.words) {
            return true;
        }
    }
    let referred: Vec<&ObjectMention> = [&slots.object, &slots.source, &slots.target]
        .into_iter()
        .flatten()
        .filter(|o| o.referred)
        .collect();
    if referred.is_empty() {
        return false;
    }
    let referred_at = referred
        .iter()
        .filter_map(|o| o.said.split_whitespace().last())
        .filter_map(|w| words.words.iter().rposition(|x| x == w))
        .max();
    // Of a claim or a request, only a thing skipped before the "it" can be
    // what it means ("it's white spirit for the door", "könnten Sie die mir
    // beim Telefonieren reichen"); a question's "it" may be none ("what's it
    // say for Leo this month?").
    let before_it = |from: usize| act.is_question() || referred_at.is_none_or(|at| from < at);
    let skipped_a_thing = gaps.iter().filter(|g| before_it(g.0)).any(|&(from, len)| {
        (from..from + len).any(|i| {
            grammar.normalize.determiners.contains(&words.words[i])
                && words
                    .words
                    .get(i + 1)
                    .is_some_and(|w| !grammar.words.contains(w))
        })
    });
    let a_later_clause =
        |g: &(usize, usize)| breaks_in(g).any(|i| referred_at.is_some_and(|at| at >= i));
    skipped_a_thing || gaps.iter().any(a_later_clause)
}

/// The clauses of a turn's sentences that no template read although another
/// clause of the same sentence was, and that hold a word neither the sentences
/// nor the table know ("chir there is, a bottle of red": a misheard "sure"
/// turns the bottle from a claim into a request).
#[derive(Default)]
struct Clauses {
    /// Sentences read whole, and sentences of which a clause was read.
    whole: BTreeSet<usize>,
    clause: BTreeSet<usize>,
    /// Unread clauses with a strange word: sentence and words.
    strange: Vec<(usize, String)>,
}

impl Clauses {
    fn read(&mut self, sentence: usize, whole: bool) {
        if whole {
            self.whole.insert(sentence);
        } else {
            self.clause.insert(sentence);
        }
    }

    fn unread(&mut self, sentence: usize, words: String) {
        self.strange.push((sentence, words));
    }

    /// The first strange clause left unread beside a clause that was read.
    fn strange_beside_a_read_one(self) -> Option<String> {
        self.strange.into_iter().find_map(|(sentence, words)| {
            (self.clause.contains(&sentence) && !self.whole.contains(&sentence)).then_some(words)
        })
    }
}

/// The last person a turn names by name, other than its speaker and listener.
fn person_named_in(world: &World, turn: &Utterance<'_>) -> Option<String> {
    memory::people_called(world, turn.text)
        .pop()
        .filter(|n| n != turn.speaker && n != turn.listener)
}

/// What earlier turns leave for the next: the object last named, the last request.
#[derive(Default)]
struct Before {
    referent: Option<String>,
    request: Option<Reading>,
    /// The last request for a drink.
    pour: Option<Reading>,
    /// Who asked the last request, and whom.
    asked: Option<(String, String)>,
    /// Who asked a question in the turn just before, and whom.
    question: Option<(String, String)>,
    /// The person an earlier turn was about ("What does Dario drink?"): "him" next.
    person: Option<String>,
    /// The turn just before asked for something.
    request_was_last: bool,
}

impl Before {
    /// The request a follow-up repeats: the last one; the last pour instead
    /// when the follow-up names only a cup to pour into ("und für mich auch
    /// einen, meine ist die kleine" after a bottle was handed over).
    fn followed_up_by(&self, world: &World, follow_up: &Reading) -> Option<&Reading> {
        let request = self.request.as_ref()?;
        let into_a_cup = follow_up.slots.object.is_none()
            && follow_up.slots.source.is_none()
            && follow_up
                .slots
                .target
                .as_ref()
                .and_then(ObjectMention::resolved)
                .and_then(|name| world.object_named(name))
                .is_some_and(|id| world.object(id).kind.drinking_vessel);
        let pouring = matches!(request.act, Act::Pour | Act::PourSame);
        match (&self.pour, into_a_cup && !pouring) {
            (Some(pour), true) => Some(pour),
            _ => Some(request),
        }
    }

    /// Whether `turn` is the one just asked a question answering its asker
    /// ("Are there still sprinkles?" — "Loads. The rainbow ones.").
    fn answers_the_question(&self, turn: &Utterance<'_>) -> bool {
        self.question
            .as_ref()
            .is_some_and(|(asker, asked)| asked == turn.speaker && asker == turn.listener)
    }

    /// The last request, unless `turn` is its listener answering its sender: "tea
    /// would be lovely" to the one who offered to pour accepts, and asks nothing more.
    fn request_followed_by(&self, turn: &Utterance<'_>) -> Option<&Reading> {
        let replies = self
            .asked
            .as_ref()
            .is_some_and(|(asker, asked)| asked == turn.speaker && asker == turn.listener);
        self.request.as_ref().filter(|_| !replies)
    }
}

/// Whether another clause of the sentence of `parts[index]` (a clause) names
/// a thing at the table and is not opened by a modifying word: then it is a
/// claim of its own ("there's plenty the milk, look, and oat milk", misheard),
/// and the clause is no bare request beside it; "a coffee, in the same cup"
/// names the cup only to add to the request.
fn beside_a_claim(
    rules: &grammar::Normalize,
    lexicon: &Lexicon<'_>,
    parts: &[Vec<normalize::Words>],
    index: usize,
) -> bool {
    let Some(sentence) = parts[index].first().map(|w| w.sentence) else {
        return false;
    };
    let claims = |words: &normalize::Words| {
        let modifying = words
            .words
            .first()
            .is_some_and(|w| rules.modifying.contains(w));
        !modifying && words.words.iter().any(|w| lexicon.is_thing_word(w))
    };
    // The sentence's first part is the whole sentence; the clauses follow it.
    let clauses = parts
        .iter()
        .enumerate()
        .filter(|(_, p)| p.first().is_some_and(|w| w.sentence == sentence))
        .skip(1);
    clauses
        .filter(|(i, _)| *i != index)
        .any(|(_, p)| p.last().is_some_and(claims))
}

/// The one asked answering the asker without a verb ("tea would be lovely" to a
/// request, "loads, the rainbow ones" to a question): nothing asked, and sure of it.
fn answering(heard: String, to: &str) -> Reading {
    Reading {
        matched: format!("an answer to the {to} before"),
        doubt: None,
        ..Reading::unknown(heard)
    }
}

/// A follow-up that leaves the verb out ("me too, in the green one", "and the
/// apple for Ana", "a bit more"): the last request, with what this turn names
/// put in its place; for the speaker unless it names another. Without a
/// request before it, it is not understood. A `bare` thing ("and the wine for
/// Daniel", a request of its own without one before it) follows a pour only
/// as a glass to pour into; a bottle or anything else is handed over.
fn follow_up(
    world: &World,
    reading: Reading,
    request: Option<&Reading>,
    context: &Context,
    grammar: &Grammar,
    bare: bool,
) -> Reading {
    let Some(request) = request else {
        return Reading::unknown(reading.heard);
    };
    let pouring = matches!(request.act, Act::Pour | Act::PourSame);
    // "What about one for me?" after a pour: "one" is another serving, not the glass named last.
    let serving = |o: &ObjectMention| {
        pouring && o.referred && grammar.normalize.repair_pro_forms.contains(&o.said)
    };
    let recipient = reading
        .slots
        .recipient
        .clone()
        .unwrap_or_else(|| PersonMention {
            said: String::new(),
            name: context.speaker.clone(),
        });
    let mut slots = request.slots.clone();
    let said = reading.slots.clone();
    let mut target = said.target;
    let said_object = said.object.filter(|o| !serving(o));
    let names_object = said_object.is_some();
    if let Some(object) = said_object {
        let thing = object
            .resolved()
            .and_then(|name| world.object_named(name))
            .map(|id| world.object(id));
        let holds_drink = thing.is_some_and(|o| o.contains.is_some());
        let vessel = thing.is_some_and(|o| o.receives_a_drink());
        let drinking_vessel = thing.is_some_and(|o| o.kind.drinking_vessel);
        match (pouring, holds_drink, vessel) {
            // A cup is poured into, whatever it holds now (turns before are read on today's table).
            (true, _, true) if bare && drinking_vessel => target = Some(object),
            (true, true, _) if !bare => slots.source = Some(object),
            (true, false, true) => target = Some(object),
            // Nothing to pour into ("and the apple for Ana" after a pour): handed over.
            (true, ..) => return given(reading, object, recipient),
            (false, ..) => slots.object = Some(object),
        }
    }
    // "Me too, a coffee in the large cup" after a hand-over: a drink and a cup asked a pour.
    let act = if !pouring && said.source.is_some() && !names_object {
        slots.object = None;
        Act::Pour
    } else {
        request.act
    };
    let pouring = pouring || act == Act::Pour;
    slots.source = said.source.or(slots.source);
    // Poured for someone else without a cup named: a fresh one, not the last one.
    let other = recipient.name != slots.recipient.as_ref().and_then(|r| r.name.clone());
    if pouring && other && target.is_none() {
        slots.target = None;
    }
    slots.target = target.or(slots.target);
    slots.recipient = Some(recipient);
    Reading {
        act,
        slots,
        matched: format!(
            "{FOLLOWED_UP}of {}: {}",
            request.act.as_str(),
            reading.matched
        ),
        heard: reading.heard,
        doubt: reading.doubt,
        skipped: reading.skipped,
    }
}

/// Whether a follow-up names nothing of its own and another part of the turn,
/// left unread for a word neither the sentences nor the table know, opens with
/// a question word: a question about something else, which the go-ahead urges.
fn urges_a_question(grammar: &Grammar, reading: &Reading) -> bool {
    let Some(Doubt::UnreadPart { part }) = &reading.doubt else {
        return false;
    };
    let words: Vec<String> = part.split(' ').map(str::to_string).collect();
    let asks = grammar.normalize.question_words.opens(&words)
        || words
            .first()
            .is_some_and(|w| grammar.memory.question_opens.contains(w));
    let slots = &reading.slots;
    asks && slots.things().next().is_none() && slots.recipient.is_none()
}

/// "Same for me, please. I've got the straight glass.": a pour whose cup was only
/// referred to ("same") goes into the one cup another sentence says is one's own
/// (that sentence, read through it, is returned).
fn ones_own_cup_for_the_same(
    world: &World,
    reading: &mut Reading,
    owned: &[&(usize, String)],
) -> Option<usize> {
    // A bare "same" is read as a thing given, and becomes a pour's cup after a pour.
    let slot = match reading.act {
        Act::Pour | Act::PourSame | Act::FollowUp => &mut reading.slots.target,
        Act::Give => &mut reading.slots.object,
        _ => return None,
    };
    let vessel = |name: &str| {
        world
            .object_named(name)
            .is_some_and(|id| world.object(id).kind.drinking_vessel)
    };
    let referred_cup = slot
        .as_ref()
        .is_some_and(|t| t.referred && t.resolved().is_some_and(vessel));
    if !referred_cup {
        return None;
    }
    let cups: Vec<&(usize, String)> = owned
        .iter()
        .copied()
        .filter(|(_, name)| {
            world
                .object_named(name)
                .is_some_and(|id| world.object(id).receives_a_drink())
        })
        .collect();
    let [(sentence, cup)] = cups.as_slice() else {
        return None;
    };
    *slot = Some(ObjectMention::only(cup.clone(), cup));
    Some(*sentence)
}

/// A follow-up naming a thing that cannot take the last request's act: that thing, handed over.
fn given(reading: Reading, object: ObjectMention, recipient: PersonMention) -> Reading {
    let mut slots = reading.slots;
    slots.object = Some(object);
    slots.target = None;
    slots.recipient = Some(recipient);
    Reading {
        act: Act::Give,
        slots,
        matched: format!("{FOLLOWED_UP}as give: {}", reading.matched),
        ..reading
    }
}

/// Which match wins: higher priority, then fewer skipped words, then file order.
#[derive(Debug, Clone, Copy)]
struct Score {
    priority: i32,
    skipped: usize,
    index: usize,
}

impl Score {
    fn beats(&self, other: &Score) -> bool {
        (
            self.priority,
            std::cmp::Reverse(self.skipped),
            std::cmp::Reverse(self.index),
        ) > (
            other.priority,
            std::cmp::Reverse(other.skipped),
            std::cmp::Reverse(other.index),
        )
    }
}

/// "One coffee, please" / "Einen Kaffee bitte": a count said with a request word
/// and nothing before it is an order of the thing for the speaker, not a claim
/// about how many there are ("There are two cups, please check" keeps its lead).
fn an_order_not_a_count(
    rules: &grammar::Normalize,
    turn: &Utterance<'_>,
    reading: Reading,
) -> Reading {
    // A template that starts with a gap, a slot or an optional part has no lead
    // ("there are", "we have") that would make it a claim.
    let template = reading.matched.split_once(": ").map_or("", |(_, t)| t);
    let bare = template.starts_with(['[', '{']);
    let asked = turn
        .text
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| rules.requests.iter().any(|r| r.eq_ignore_ascii_case(w)));
    if reading.act != Act::StateCount || !bare || !asked {
        return reading;
    }
    let Some(object) = reading.slots.object.clone() else {
        return reading;
    };
    Reading {
        act: Act::Give,
        slots: Slots {
            object: Some(object),
            recipient: Some(PersonMention {
                said: String::new(),
                name: Some(turn.speaker.to_string()),
            }),
            ..Slots::default()
        },
        matched: format!("an order, said with a request word: {}", reading.matched),
        ..reading
    }
}

/// The reading, read again for what it asks of memory: a memory act replaces
/// it; else [`with_memory_reference`].
fn with_memory(
    grammar: &Grammar,
    world: &World,
    turn: &Utterance<'_>,
    named_before: Option<&str>,
    reading: Reading,
) -> Reading {
    use memory::MemoryAsk;
    let phrases = &grammar.memory;
    let person = |name: String| PersonMention {
        said: name.clone(),
        name: Some(name),
    };
    let (act, slots) = match phrases.read(world, turn.speaker, &reading.heard, turn.text) {
        Some(MemoryAsk::Remember {
            about,
            fact,
            shared,
            private,
        }) => (
            Act::Remember,
            Slots {
                person: Some(person(about)),
                fact: Some(fact),
                // Who may hear it: "table" when said to be for the others too,
                // "private" when said to be kept to the teller.
                memory: match (shared, private) {
                    (true, _) => Some("table".to_string()),
                    (_, true) => Some("private".to_string()),
                    _ => None,
                },
                ..Slots::default()
            },
        ),
        // "No, scratch that, it's the milk I'm after": a request taken back and
        // said again, not a fact to forget.
        Some(MemoryAsk::Forget { everything: false }) if reading.act.is_request() => {
            return reading;
        }
        Some(MemoryAsk::Forget { everything }) => (
            Act::Forget,
            Slots {
                fact: Some(if everything { "everything" } else { "that" }.into()),
                ..Slots::default()
            },
        ),
        Some(MemoryAsk::Ask { about }) => (
            Act::AskMemory,
            Slots {
                person: Some(person(about)),
                ..Slots::default()
            },
        ),
        Some(MemoryAsk::Confirm) => (Act::Confirm, Slots::default()),
        None => match asks_memory_about(grammar, world, turn, &reading) {
            Some(about) => (
                Act::AskMemory,
                Slots {
                    person: Some(person(about)),
                    ..Slots::default()
                },
            ),
            None => {
                return with_memory_reference(grammar, world, turn, named_before, reading);
            }
        },
    };
    Reading {
        act,
        slots,
        matched: "memory".into(),
        heard: reading.heard,
        // A memory phrase is a full match of its own.
        doubt: None,
        skipped: 0,
    }
}

/// A reading memory asks nothing of, read again for a reference to it: "my
/// usual" / "last time" mark a request (and make one of a bare "my usual");
/// "pour him one" makes someone's usual ready.
fn with_memory_reference(
    grammar: &Grammar,
    world: &World,
    turn: &Utterance<'_>,
    named_before: Option<&str>,
    mut reading: Reading,
) -> Reading {
    let phrases = &grammar.memory;
    if let Some(whose) = usual_made_ready(grammar, world, turn, named_before, &reading) {
        reading.act = Act::Give;
        reading.doubt = None;
        reading.slots = Slots::default();
        reading.slots.recipient = Some(PersonMention {
            said: whose.clone(),
            name: Some(whose),
        });
        reading.slots.memory = Some("usual".to_string());
        return reading;
    }
    let heard = reading.heard.replace(" | ", " ");
    let Some(refers) = phrases.reference(&heard, turn.text) else {
        return reading;
    };
    // "My usual" is a request of its own, not a follow-up of the last one,
    // nor lost in the greeting or the thanks around it ("Morning! Can I
    // have my usual?", "The usual for me too, thanks.").
    if phrases.asks_by_itself(&heard, turn.text)
        && matches!(
            reading.act,
            Act::Unknown | Act::FollowUp | Act::Greeting | Act::Thanks
        )
    {
        reading.act = Act::Give;
        // The phrase is what was read: "could you sort me out
        // with my usual" leaves nothing in doubt that would not
        // be in doubt of "my usual, please".
        reading.doubt = None;
        reading.slots = Slots::default();
        reading.slots.recipient = Some(PersonMention {
            said: String::new(),
            name: Some(turn.speaker.to_string()),
        });
    }
    if reading.act.is_request() {
        reading.slots.memory = Some(refers.to_string());
        // The part left unread was the memory phrase, read here
        // ("in the same cup as before"): no doubt is left of it.
        if matches!(&reading.doubt, Some(Doubt::UnreadPart { part })
            if phrases.reference(part, "").is_some())
        {
            // (`doubt_of` keeps a doubt already set: clear it first.)
            reading.doubt = None;
            reading.doubt = doubt_of(&reading, None);
        }
    }
    reading
}

/// Whom a question asks memory about: advice for someone ("should I pour
/// Daniel some red?") whatever it was read as, or a question no template read
/// that names a person ("Which room is Henrike sleeping in?").
fn asks_memory_about(
    grammar: &Grammar,
    world: &World,
    turn: &Utterance<'_>,
    reading: &Reading,
) -> Option<String> {
    let unread = reading.act == Act::Unknown;
    // Asked of the robot only: between people the question is theirs, and what
    // it names stays "it" for the answer ("Loads. The rainbow ones.").
    let to_the_robot = matches!(
        grounding::addressee(world, turn.listener),
        Grounding::Resolved(Addressee::Robot)
    );
    if !to_the_robot || !(unread || reading.act.is_request() || reading.act.is_question()) {
        return None;
    }
    let scene_words = &grammar.normalize.vocabulary;
    grammar
        .memory
        .asked_about(world, scene_words, turn.speaker, turn.text, unread)
}

/// Whose usual a request makes ready ("pour him one then"), when nothing on
/// the table was read as what it wants.
fn usual_made_ready(
    grammar: &Grammar,
    world: &World,
    turn: &Utterance<'_>,
    named_before: Option<&str>,
    reading: &Reading,
) -> Option<String> {
    // "Pour him his regular": one word for the plain one of a thing, said as
    // someone's, names no thing of the table.
    let only_plain = |o: &ObjectMention| {
        let words: Vec<&str> = o.said.split_whitespace().collect();
        matches!(words.as_slice(), [whose, word]
            if grammar.normalize.possessives.contains_key(*whose)
                && grammar.normalize.plain.iter().any(|p| p == word))
    };
    let wants_nothing_named = match reading.act {
        Act::Unknown => true,
        // "Do me one in the wine glass as well": the request before, into a cup named.
        Act::FollowUp => reading.slots.target.is_none(),
        Act::Give | Act::Pour => [&reading.slots.object, &reading.slots.source]
            .into_iter()
            .flatten()
            .all(|o| o.resolved().is_none() || only_plain(o)),
        // A question misread around words that name nothing ("have her glass
        // ready" as "have ... ?"); never a claim ("both glasses are still some
        // of the regular coat", heard for "cola", asks for no usual).
        act if act.is_question() => reading
            .slots
            .object
            .as_ref()
            .is_some_and(|o| o.candidates.is_empty()),
        _ => false,
    };
    if !wants_nothing_named {
        return None;
    }
    let others: Vec<String> = world
        .persons()
        .iter()
        .map(|p| p.name.clone())
        .filter(|n| n != turn.speaker && n != turn.listener)
        .collect();
    grammar
        .memory
        .usual_for(world, turn.speaker, turn.text, named_before, &others)
}

/// "Gieß mir Bier ins große Glas, ach nee, lieber Wein": a drink named after
/// a change of mind, following a pour, is that pour with the other drink.
fn pour_with_another_drink(
    world: &World,
    earlier: &Reading,
    drink: &ObjectMention,
) -> Option<Reading> {
    if earlier.act != Act::Pour {
        return None;
    }
    let holds_a_drink = |name: &String| {
        world.object_named(name).is_some_and(|id| {
            let object = world.object(id);
            object.contains.is_some() && !object.kind.drinking_vessel
        })
    };
    if drink.candidates.is_empty() || !drink.candidates.iter().all(holds_a_drink) {
        return None;
    }
    let mut poured = earlier.clone();
    poured.slots.source = Some(drink.clone());
    Some(poured)
}

/// The thing a later part names alone, asked for as a bare request ("lieber
/// den Wein"), or read as a count of it ("lieber ein Bier": one beer).
fn later_drink(reading: &Reading) -> Option<&ObjectMention> {
    matches!(reading.act, Act::Give | Act::StateCount)
        .then_some(reading.slots.object.as_ref())
        .flatten()
}

/// Whether the one thing a reading pours from is the one thing it pours into.
fn pours_into_itself(slots: &Slots) -> bool {
    let source = slots.source.as_ref().and_then(ObjectMention::resolved);
    let target = slots.target.as_ref().and_then(ObjectMention::resolved);
    source.is_some() && source == target
}

/// Whether a reading means `name` by "it" / "that one".
fn refers_to(reading: &Reading, name: &str) -> bool {
    let slots = &reading.slots;
    [&slots.object, &slots.source, &slots.target]
        .into_iter()
        .flatten()
        .any(|m| m.referred && m.resolved() == Some(name))
}

/// What keeps a template match from being sure: a gap that skipped a word
/// naming something at the table (set by the match), another sentence of the
/// turn not read that names something at the table, a thing the table lacks, an unknown
/// word left out, a person who is nobody at the table.
fn doubt_of(reading: &Reading, unread: Option<String>) -> Option<Doubt> {
    if let Some(doubt) = &reading.doubt {
        return Some(doubt.clone());
    }
    if let Some(part) = unread {
        return Some(Doubt::UnreadPart { part });
    }
    let slots = &reading.slots;
    for mention in slots.things() {
        if mention.candidates.is_empty() {
            return Some(Doubt::Lacking {
                said: mention.said.clone(),
            });
        }
        if let Some(word) = &mention.left_out {
            return Some(Doubt::LeftOut { word: word.clone() });
        }
    }
    if let Some(said) = slots.unknown_items.first() {
        return Some(Doubt::Lacking { said: said.clone() });
    }
    let persons = [&slots.recipient, &slots.person].into_iter().flatten();
    for person in persons {
        if person.name.is_none() {
            return Some(Doubt::Unresolved {
                said: person.said.clone(),
            });
        }
    }
    None
}

/// Whether the thing a reading is mainly about was named but grounds to nothing.
fn names_what_the_table_lacks(reading: &Reading) -> bool {
    reading
        .main_object()
        .is_some_and(|o| !o.referred && o.candidates.is_empty())
}

/// "Is there any cola zero left in the bottle?": of the bottles, the one
/// that holds what the question names.
fn narrow_to_the_holder(rules: &grammar::Normalize, world: &World, reading: &mut Reading) {
    let (Act::AskContents, Some(liquid)) = (reading.act, reading.slots.liquid.clone()) else {
        return;
    };
    let Some(object) = reading.slots.object.as_mut() else {
        return;
    };
    // "Is that soda in the bottle at Daniel's elbow?": the place says which;
    // no other bottle is asked about.
    let said = normalize::plain_words(&object.said);
    if rules.near_someone.occur_in(&said) || rules.landmarks.occur_in(&said) {
        if object.resolved().is_some() {
            object.every = object.candidates.clone();
        }
        return;
    }
    let holds = |name: &str| {
        world
            .object_named(name)
            .is_some_and(|id| world.object(id).contains.as_deref() == Some(liquid.as_str()))
    };
    if object.resolved().is_some_and(holds) {
        return;
    }
    let holders: Vec<String> = object.every.iter().filter(|n| holds(n)).cloned().collect();
    if let [one] = holders.as_slice() {
        object.candidates = vec![one.clone()];
    }
}

/// A pour read with the drink in the cup's place ("schenk mir Kaffee ein")
/// or the cup in the drink's ("machst du mir die große voll"), the other
/// slot empty: a thing holding a drink it is not poured into is what is
/// poured; an empty thing a drink is poured into is where it goes.
fn cup_and_drink_in_their_places(world: &World, reading: &mut Reading) {
    if reading.act != Act::Pour {
        return;
    }
    let all = |mention: &Option<ObjectMention>, fits: &dyn Fn(&Object) -> bool| {
        mention.as_ref().is_some_and(|m| {
            !m.candidates.is_empty()
                && m.candidates.iter().all(|n| {
                    world
                        .object_named(n)
                        .is_some_and(|id| fits(world.object(id)))
                })
        })
    };
    let slots = &mut reading.slots;
    let a_drink = |o: &Object| o.contains.is_some() && !o.receives_a_drink();
    let an_empty_cup = |o: &Object| o.contains.is_none() && o.receives_a_drink();
    if slots.source.is_none() && all(&slots.target, &a_drink) {
        slots.source = slots.target.take();
    } else if slots.target.is_none() && all(&slots.source, &an_empty_cup) {
        slots.target = slots.source.take();
    }
}

/// "A drop in the blue glass" right after the red one was filled: the amount
/// is of the drink just poured, so it comes from the one container holding
/// that drink that is not for drinking from, never from the cup just filled.
fn pour_from_the_bottle(world: &World, reading: &mut Reading) {
    if reading.act != Act::Pour {
        return;
    }
    let Some(source) = reading.slots.source.as_mut().filter(|s| s.referred) else {
        return;
    };
    let Some(cup) = source.resolved().and_then(|n| world.object_named(n)) else {
        return;
    };
    let cup = world.object(cup);
    let Some(drink) = cup.contains.as_deref().filter(|_| cup.kind.drinking_vessel) else {
        return;
    };
    let bottles: Vec<String> = world
        .objects()
        .iter()
        .filter(|o| !o.kind.drinking_vessel && o.contains.as_deref() == Some(drink))
        .map(|o| o.name.clone())
        .collect();
    if let [bottle] = bottles.as_slice() {
        source.candidates = vec![bottle.clone()];
        source.every = vec![bottle.clone()];
    }
}

/// Whether `text` (a sentence's words) says a cup is the speaker's ("mine's the green one").
fn says_its_ones_own(grammar: &Grammar, text: &str) -> bool {
    let words: Vec<String> = text.split(' ').map(str::to_string).collect();
    (0..words.len()).any(|at| grammar.normalize.ones_own.opens(&words[at..]))
}

/// "Peppermint tea for me. I'm the one with the green cup.": a drink asked
/// for by its own words, beside the one cup another sentence says is the
/// speaker's, is poured into that cup (the cup is filled in by `target_elsewhere`).
fn drink_asked_into_ones_cup(
    world: &World,
    grammar: &Grammar,
    reading: &mut Reading,
    owned: &[&(usize, String)],
) {
    if reading.act != Act::Give {
        return;
    }
    let Some(object) = reading.slots.object.as_ref() else {
        return;
    };
    let Some(thing) = object
        .resolved()
        .and_then(|n| world.object_named(n))
        .map(|id| world.object(id))
    else {
        return;
    };
    let Some(drink) = thing
        .contains
        .as_deref()
        .filter(|_| !thing.kind.drinking_vessel)
    else {
        return;
    };
    let drink_words: Vec<&str> = drink.split(' ').collect();
    let said = normalize::plain_words(&object.said);
    // "eine echte Cola": the plain one of the drink is still the drink.
    let rules = &grammar.normalize;
    let words: Vec<&String> = said
        .iter()
        .filter(|w| !rules.determiners.contains(w) && !rules.plain.contains(w))
        .collect();
    let by_the_drink = !words.is_empty() && words.iter().all(|w| drink_words.contains(&w.as_str()));
    let cups = owned.iter().filter(|(_, name)| {
        world
            .object_named(name)
            .is_some_and(|id| world.object(id).receives_a_drink())
    });
    if !by_the_drink || cups.count() != 1 {
        return;
    }
    reading.act = Act::Pour;
    reading.slots.source = reading.slots.object.take();
}

/// "Ich nehm erst mal einen Kaffee. Die große Tasse bitte.": an empty cup
/// asked for after an earlier sentence (`before`) asked for one drink by the
/// drink's own words ("einen Kaffee") is the cup to pour it into; the
/// sentence that named it.
fn cup_asked_after_its_drink(
    world: &World,
    grammar: &Grammar,
    reading: &mut Reading,
    before: &[&(usize, String)],
    sentences: &[(String, bool)],
) -> Option<usize> {
    if reading.act != Act::Give {
        return None;
    }
    let cup = reading.slots.object.as_ref()?.resolved()?;
    let empty_cup = world.object_named(cup).map(|id| world.object(id))?;
    if !empty_cup.kind.drinking_vessel || empty_cup.contains.is_some() {
        return None;
    }
    let some_of = &grammar.normalize.indefinite_articles;
    let named_by_its_drink = |(sentence, name): &&&(usize, String)| {
        let drink = world
            .object_named(name)
            .map(|id| world.object(id))
            .filter(|o| !o.kind.drinking_vessel)
            .and_then(|o| o.contains.as_deref());
        let text = sentences.get(*sentence).map(|(text, _)| text.as_str());
        drink.zip(text).is_some_and(|(drink, text)| {
            let words: Vec<&str> = text.split(' ').collect();
            let drink: Vec<&str> = drink.split(' ').collect();
            words
                .windows(drink.len() + 1)
                .any(|w| some_of.iter().any(|a| a == w[0]) && w[1..] == drink[..])
        })
    };
    let mut drinks: Vec<&&(usize, String)> = before.iter().filter(named_by_its_drink).collect();
    drinks.dedup_by(|a, b| a.1 == b.1);
    let [(sentence, drink)] = drinks.as_slice() else {
        return None;
    };
    let said = world
        .object_named(drink)
        .and_then(|id| world.object(id).contains.clone())
        .unwrap_or_else(|| drink.to_string());
    reading.act = Act::Pour;
    reading.slots.target = reading.slots.object.take();
    reading.slots.source = Some(ObjectMention::only(said, drink));
    Some(*sentence)
}

/// "Unser Gast hätte gern einen Kaffee. Füllen Sie ihm die große Tasse.": a
/// pour that names no drink takes the one drink another sentence names.
fn source_elsewhere(world: &World, reading: &mut Reading, elsewhere: &[&(usize, String)]) {
    if reading.act != Act::Pour || reading.slots.source.is_some() {
        return;
    }
    let target = reading
        .slots
        .target
        .as_ref()
        .and_then(ObjectMention::resolved);
    let mut drinks: Vec<&String> = elsewhere
        .iter()
        .map(|(_, name)| name)
        .filter(|name| Some(name.as_str()) != target)
        .filter(|name| {
            world.object_named(name).is_some_and(|id| {
                let o = world.object(id);
                o.contains.is_some() && !o.kind.drinking_vessel
            })
        })
        .collect();
    drinks.dedup();
    if let [drink] = drinks.as_slice() {
        let said = world
            .object_named(drink)
            .and_then(|id| world.object(id).contains.clone())
            .unwrap_or_else(|| drink.to_string());
        reading.slots.source = Some(ObjectMention::only(said, drink));
    }
}

/// For a pour whose cup is not said or not told apart ("into the glass"),
/// the one vessel the turn's other sentences name, and which sentence.
fn target_elsewhere(
    world: &World,
    reading: &Reading,
    elsewhere: &[&(usize, String)],
    repaired: bool,
) -> Option<(usize, ObjectMention)> {
    // A follow-up ("Could I have some as well? In the large glass.") is a pour once resolved.
    if !matches!(reading.act, Act::Pour | Act::FollowUp) {
        return None;
    }
    let open = reading
        .slots
        .target
        .as_ref()
        .is_none_or(|t| t.resolved().is_none());
    let source = reading
        .slots
        .source
        .as_ref()
        .and_then(ObjectMention::resolved);
    let vessel = |name: &str| {
        world
            .object_named(name)
            .is_some_and(|id| world.object(id).receives_a_drink())
    };
    let mut vessels: Vec<&&(usize, String)> = elsewhere
        .iter()
        .filter(|(_, name)| Some(name.as_str()) != source && vessel(name))
        .collect();
    // A sentence and its clause name the same.
    vessels.dedup_by(|a, b| a.1 == b.1);
    let one = match vessels.as_slice() {
        [one] => Some(*one),
        [_, _, ..] if repaired => vessels
            .iter()
            .max_by_key(|(sentence, _)| *sentence)
            .copied(),
        _ => None,
    };
    match one {
        Some((sentence, name)) if open => Some((
            *sentence,
            ObjectMention {
                referred: true,
                ..ObjectMention::only(name.clone(), name)
            },
        )),
        _ => None,
    }
}

fn context_of(world: &World, turn: &Utterance<'_>, referent: Option<String>) -> Context {
    let speaker = match grounding::person(world, turn.speaker) {
        Grounding::Resolved(id) => Some(world.person(id).name.clone()),
        _ => None,
    };
    let (listener_person, robot_addressed) = match grounding::addressee(world, turn.listener) {
        Grounding::Resolved(Addressee::Person(id)) => (Some(world.person(id).name.clone()), false),
        Grounding::Resolved(Addressee::Robot) => (None, true),
        _ => (None, false),
    };
    let named_person = named_in(
        world,
        turn,
        &[speaker.as_deref(), listener_person.as_deref()],
    );
    Context {
        speaker,
        listener_person,
        robot_addressed,
        referent,
        formal: false,
        named_person,
    }
}

/// The one person the turn's words name, besides those `known`.
fn named_in(world: &World, turn: &Utterance<'_>, known: &[Option<&str>]) -> Option<String> {
    let mut named = memory::people_called(world, turn.text);
    named.retain(|n| !known.contains(&Some(n.as_str())));
    named.sort();
    named.dedup();
    match <[String; 1]>::try_from(named) {
        Ok([one]) => Some(one),
        Err(_) => None,
    }
}

/// The reading's slots from the filled template slots; a request's recipient
/// is the speaker unless the turn named another.
fn slots_of(filled: Vec<(String, SlotValue)>, act: Act, context: &Context) -> Slots {
    let mut slots = Slots::default();
    for (name, value) in filled {
        match (name.as_str(), value) {
            ("object" | "thing", SlotValue::Object(o)) => slots.object = Some(o),
            ("source" | "drink", SlotValue::Object(o)) => slots.source = Some(o),
            ("target", SlotValue::Object(o)) => slots.target = Some(o),
            ("recipient", SlotValue::Person(p)) => slots.recipient = Some(p),
            ("person", SlotValue::Person(p)) => slots.person = Some(p),
            ("items", SlotValue::Items(items)) => {
                for item in items {
                    if item.candidates.is_empty() {
                        slots.unknown_items.push(item.said);
                    } else {
                        slots.items.push(item);
                    }
                }
            }
            ("category", SlotValue::Value(v)) => slots.category = Some(v),
            ("filter", SlotValue::Value(v)) => slots.filter = Some(v),
            ("ability", SlotValue::Value(v)) => slots.ability = Some(v),
            ("fill", SlotValue::Value(v)) => slots.fill = Some(v),
            ("liquid", SlotValue::Value(v)) => slots.liquid = Some(v),
            ("count", SlotValue::Value(v)) => slots.count = Some(v),
            ("place", SlotValue::Value(v)) => slots.place = Some(v),
            ("only", SlotValue::Value(_)) => slots.only = true,
            ("negated", SlotValue::Value(_)) => slots.negated = true,
            _ => {}
        }
    }
    if (act.is_request() || act == Act::Claim) && slots.recipient.is_none() {
        slots.recipient = Some(PersonMention {
            said: String::new(),
            name: context.speaker.clone(),
        });
    }
    if act == Act::MoveAway {
        let recipient = slots.recipient.take();
        slots.person = slots.person.take().or(recipient);
    }
    slots
}

/// Slot names a sentence file may define: the fields of [`Slots`].
pub const SLOT_NAMES: &[&str] = &[
    "object",
    "thing",
    "source",
    "drink",
    "liquid",
    "target",
    "recipient",
    "person",
    "items",
    "category",
    "filter",
    "ability",
    "fill",
    "count",
    "place",
    "only",
    "negated",
];

#[cfg(test)]
mod tests;

/// Whether everything a request names is something the table lacks
/// (and it names something).
fn names_only_what_the_table_lacks(reading: &Reading) -> bool {
    let s = &reading.slots;
    let mut named = [&s.object, &s.source, &s.target]
        .into_iter()
        .flatten()
        .peekable();
    named.peek().is_some() && named.all(|o| o.candidates.is_empty())
}

/// Whether `claim` says where the thing `request` asks for is: a claim of where it
/// stands beside a request for it never takes the request's place.
fn says_where_the_requested_is(request: &Reading, claim: &Reading) -> bool {
    let named = |r: &Reading| {
        r.main_object()
            .and_then(ObjectMention::resolved)
            .map(str::to_string)
    };
    request.act.is_request()
        && claim.act == Act::StateLocation
        && named(request).is_some_and(|thing| named(claim).as_deref() == Some(thing.as_str()))
}

/// Whether a reading names no thing of its own.
fn names_nothing(reading: &Reading) -> bool {
    let slots = &reading.slots;
    slots.object.is_none() && slots.source.is_none() && slots.target.is_none()
}

/// A follow-up that only names its cup ("I'm on the zigzag one") after one
/// that took up the request before without a cup ("Same again for me").
fn names_the_cup_of(grammar: &Grammar, earlier: &Reading, later: &Reading) -> bool {
    let slots = &later.slots;
    let cup_said = later.act == Act::FollowUp
        && slots.target.as_ref().is_some_and(|t| !t.referred)
        && slots.source.is_none()
        && slots.object.is_none();
    let no_cup = earlier.slots.target.as_ref().is_none_or(|t| t.referred);
    let thing_alone = earlier.act == Act::Give
        && earlier.slots.object.as_ref().is_some_and(|o| o.referred)
        && grammar.begins_with_a_slot(&earlier.matched);
    let follows_up = matches!(earlier.act, Act::FollowUp | Act::PourSame) || thing_alone;
    cup_said && no_cup && follows_up
}

/// A hand-over of the very container an earlier pour asked a drink from.
fn hands_over_the_drink_asked_for(earlier: &Reading, later: &Reading) -> bool {
    let source = earlier
        .slots
        .source
        .as_ref()
        .and_then(ObjectMention::resolved);
    let object = later
        .slots
        .object
        .as_ref()
        .and_then(ObjectMention::resolved);
    earlier.act == Act::Pour
        && earlier.slots.target.is_none()
        && later.act == Act::Give
        && source.is_some()
        && source == object
}
