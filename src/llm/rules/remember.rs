//! Memory, the rules brain's way: it keeps a fact when asked ("remember that
//! ..."), forgets on request (everything only after a yes), says what it
//! remembers to the person it is about, and looks memory up for requests that
//! need it ("my usual", "the glass I had last time", "something to drink").
//! Only the person's own words are acted on; hearsay is kept, never used.

use serde_json::json;

use super::facts::Listed;
use super::{call, Calls, RulesBrain, Situation};
use crate::twin::grounding::{self, Grounding};
use crate::understanding::{Act, ObjectMention};

/// Words that turn a preference into an aversion.
/// What a remembered fact says about drinks.
#[derive(Debug, Default)]
struct Preference {
    wanted: Vec<String>,
    avoided: Vec<String>,
    filter: Option<String>,
}

/// Whom a memory act is about.
fn about(s: &Situation<'_>) -> Option<String> {
    s.reading.slots.person.as_ref().and_then(|p| p.name.clone())
}

impl RulesBrain {
    /// Memory acts are for the robot; with memory off it says so.
    /// `Some` is then the turn's answer.
    fn unavailable(&self, s: &Situation<'_>, memory_off: &str) -> Option<Calls> {
        if !s.robot_addressed {
            return Some(None);
        }
        (!s.memory_on).then(|| self.say(s, self.speech.say(memory_off, &[])))
    }

    /// "Remember that ...": keep it, then say what was kept.
    pub(super) fn remember(&self, s: &Situation<'_>) -> Calls {
        if let Some(calls) = self.unavailable(s, "memory.off_remember") {
            return calls;
        }
        let about = about(s)?;
        let fact = s.reading.slots.fact.clone()?;
        let Some(done) = s.dialogue.find("remember") else {
            // "Update that": the fact takes the place of the newest one told on a topic of its own.
            let updates = self
                .understanding
                .grammar()
                .memory
                .updates(&s.dialogue.turn.text);
            let recalled = s.dialogue.find("recall");
            // A new usual that names no cup keeps the cup of the one it replaces.
            let drink_without_cup = self.topic_of(&fact) == "drink" && self.cup_in(&fact).is_none();
            if (updates || drink_without_cup) && recalled.is_none() {
                let args = json!({"query": "everything", "person_name": about});
                return Some(vec![call("recall", args)]);
            }
            let kept_cup = recalled
                .filter(|_| drink_without_cup)
                .and_then(|done| self.cup_in_facts(&done.result));
            let fact = match kept_cup {
                Some(cup) => self.speech.say(
                    "memory.fact_in_cup",
                    &[("fact", &fact), ("cup", &self.speech.object(&cup))],
                ),
                None => fact,
            };
            let own = self.topic_words(&fact).unwrap_or_default();
            let topic = recalled
                .and_then(|done| updated_note_topic(&done.result, &own))
                .unwrap_or_else(|| self.topic_of(&fact));
            let mut args = json!({"person_name": about, "fact": fact, "topic": topic});
            // What someone likes to drink is the table's to know (a host asks
            // "what's Mireille drinking these days?"), unless said to be private;
            // what they avoid, and why, stays theirs.
            let visibility = s.reading.slots.memory.as_deref();
            if visibility == Some("table")
                || (topic == "drink" && visibility != Some("private") && self.only_a_liking(&fact))
            {
                args["visibility"] = json!("table");
            }
            return Some(vec![call("remember", args)]);
        };
        let sender = s.sender.clone().unwrap_or_default();
        let text = if !done.result.starts_with("Stored") {
            done.result.clone()
        } else if done.result.contains("as hearsay") {
            self.speech.say("memory.hearsay", &[("about", &about)])
        } else {
            // As stored: with the cup a new usual kept from the old one.
            let stored = done.args["fact"].as_str().unwrap_or(&fact);
            let fact = self.speech.to_listener(stored);
            self.speech.say(
                "memory.will_remember",
                &[("fact", &fact), ("person", &sender)],
            )
        };
        self.say(s, text)
    }

    /// "Forget that" / "forget me" (everything only after a yes).
    pub(super) fn forget(&self, s: &Situation<'_>, what: &str) -> Calls {
        if let Some(calls) = self.unavailable(s, "memory.off_forget") {
            return calls;
        }
        let sender = s.sender.clone()?;
        let Some(done) = s.dialogue.find("forget") else {
            return Some(vec![call(
                "forget",
                json!({"person_name": sender, "what": what}),
            )]);
        };
        let person: &[(&str, &str)] = &[("person", &sender)];
        let text = if done.result.starts_with("Not yet") {
            self.speech.say("memory.confirm_forget", person)
        } else if done.result.starts_with("Forgotten") {
            if what == "everything" {
                self.speech.say("memory.forgot_everything", person)
            } else {
                self.speech.say("memory.forgot_that", &[])
            }
        } else if done.result.starts_with("Nothing to forget") {
            self.speech.say("memory.nothing_to_forget", &[])
        } else {
            done.result.clone()
        };
        self.say(s, text)
    }

    /// "Yes": confirms the erasure the robot asked about, if it asked.
    pub(super) fn confirm(&self, s: &Situation<'_>) -> Calls {
        let asked = s
            .dialogue
            .done_before
            .iter()
            .rev()
            .find(|d| d.name == "forget")
            .is_some_and(|d| d.result.starts_with("Not yet"));
        if s.memory_on && asked {
            return self.forget(s, "everything");
        }
        self.not_understood(s)
    }

    /// "What do you remember about me?" — to the person it is about only.
    pub(super) fn ask_memory(&self, s: &Situation<'_>) -> Calls {
        if let Some(calls) = self.unavailable(s, "memory.off_recall") {
            return calls;
        }
        let about = about(s)?;
        let Some(done) = s.dialogue.find("recall") else {
            return Some(vec![call(
                "recall",
                json!({"query": "everything", "person_name": about}),
            )]);
        };
        let own = s.sender.as_deref() == Some(about.as_str());
        let facts = confirmed_facts(&done.result);
        let withheld = done.result.contains("\nWithheld:");
        // "Has Yewande said anything about where the scanner went?": nothing about
        // her, but what was told on the question's words may answer it.
        if facts.is_empty() && !own && !withheld && hearsay_facts(&done.result).is_empty() {
            if let Some(calls) = self.topic_answer(s) {
                return calls;
            }
        }
        let speech = &self.speech;
        let about_slot: &[(&str, &str)] = &[("about", &about)];
        let facts = facts.join("; ");
        let hearsay = if own {
            hearsay_facts(&done.result)
        } else {
            Vec::new()
        };
        let episode = done.result.lines().find(|l| l.starts_with("- episode"));
        let mut text = if facts.is_empty() && !(own && (episode.is_some() || !hearsay.is_empty())) {
            if own {
                speech.say("memory.nothing_about_you", &[])
            } else if withheld {
                String::new()
            } else {
                speech.say("memory.nothing_about", about_slot)
            }
        } else if own {
            let mut told = Vec::new();
            if !facts.is_empty() {
                told.push(speech.say("memory.you_told_me", &[("facts", &facts)]));
            }
            // What others said about them is theirs to hear, said as hearsay.
            for (teller, fact) in &hearsay {
                told.push(speech.say(
                    "memory.told_me_about_you",
                    &[("person", teller), ("facts", fact)],
                ));
            }
            if told.is_empty() {
                told.push(speech.say("memory.nothing_asked", &[]));
            }
            if let Some(deed) = episode.and_then(|e| self.episode_deed(e)) {
                told.push(speech.say("memory.last_time", &[("deed", &deed)]));
            }
            told.join(" ")
        } else {
            speech.say(
                "memory.told_everyone",
                &[("about", &about), ("facts", &facts)],
            )
        };
        if withheld && !own {
            let ask_them = speech.say("memory.withheld", about_slot);
            text = format!("{text} {ask_them}").trim().to_string();
        }
        self.say(s, text)
    }

    /// For a request that needs memory: a `recall` first, then the object it
    /// points to. `Err` carries the call to make; `Ok(None)` when memory says nothing.
    pub(super) fn remembered(
        &self,
        s: &Situation<'_>,
        listed: &[Listed],
        mention: Option<&ObjectMention>,
        recipient: &str,
    ) -> Result<Option<ObjectMention>, Calls> {
        let refers = s.reading.slots.memory.as_deref();
        let ambiguous = mention.is_some_and(|m| m.candidates.len() > 1);
        // "My cup" was taken as the one at the seat; memory may know better.
        let owned = mention.is_some_and(|m| m.owner.is_some() && m.every.len() > 1);
        let needed = refers.is_some() || mention.is_none() || ambiguous || owned;
        if !s.memory_on || !needed || !matches!(s.reading.act, Act::Give | Act::Pour | Act::MoveTo)
        {
            return Ok(None);
        }
        let Some(done) = s.dialogue.find("recall") else {
            let query = mention.map_or("drink", |m| m.said.as_str());
            return Err(Some(vec![call(
                "recall",
                json!({"query": query, "person_name": recipient, "purpose": "acting"}),
            )]));
        };
        let candidates: Vec<String> = match mention {
            Some(m) if owned => m.every.clone(),
            Some(m) if !m.candidates.is_empty() => m.candidates.clone(),
            _ => listed
                .iter()
                .filter(|l| l.contains.is_some())
                .map(|l| l.name.clone())
                .collect(),
        };
        let episodes: Vec<&str> = done
            .result
            .lines()
            .filter(|l| l.starts_with("- episode"))
            .collect();
        let from_episodes = || {
            episodes
                .iter()
                .find_map(|line| candidates.iter().find(|c| mentions(line, c)).cloned())
        };
        let drinks: Vec<String> = listed
            .iter()
            .filter(|l| l.contains.is_some())
            .map(|l| l.name.clone())
            .collect();
        let chosen = if refers == Some("last_time") {
            from_episodes()
        } else {
            // A preference may point past what the words named ("something to drink").
            self.preferred(&confirmed_facts(&done.result), &drinks, listed)
                .filter(|n| {
                    mention.is_none_or(|m| {
                        m.candidates.contains(n)
                            || m.candidates.len() != 1
                            || owned && m.every.contains(n)
                    })
                })
                .or_else(|| (refers == Some("usual")).then(from_episodes).flatten())
        };
        Ok(chosen.map(|name| ObjectMention {
            said: self.speech.object(&name),
            candidates: vec![name],
            owner: None,
            referred: false,
            left_out: None,
            every: Vec::new(),
        }))
    }

    /// A request for someone else that what they told the robot rules out
    /// ("Can Daniel have some milk?" after Daniel's "milk makes me ill"):
    /// declined, their reason kept to them. `Some` is the turn's next step: a
    /// `recall` for acting for them first, then the answer.
    pub(super) fn ruled_out(
        &self,
        s: &Situation<'_>,
        object: &str,
        asked_for: &str,
    ) -> Option<Calls> {
        let target_owner = s
            .reading
            .slots
            .target
            .as_ref()
            .and_then(|t| t.owner.clone());
        let person = target_owner.unwrap_or_else(|| asked_for.to_string());
        let for_someone_else = s.sender.as_deref().is_some_and(|sender| sender != person);
        let a_person = self.world.person_named(&person).is_some();
        if !s.memory_on || !s.robot_addressed || !for_someone_else || !a_person {
            return None;
        }
        let Some(done) = s.dialogue.find("recall") else {
            return Some(Some(vec![call(
                "recall",
                json!({"query": "drink", "person_name": person, "purpose": "acting"}),
            )]));
        };
        let avoided = confirmed_facts(&done.result)
            .iter()
            .any(|fact| self.preference(fact).avoided.iter().any(|a| a == object));
        avoided.then(|| {
            let thing = self.speech.object(object);
            self.say(
                s,
                self.speech.say(
                    "memory.ruled_out",
                    &[("person", &person), ("object", &thing)],
                ),
            )
        })
    }

    /// The drink the newest of the person's own facts points to.
    fn preferred(
        &self,
        facts: &[String],
        candidates: &[String],
        listed: &[Listed],
    ) -> Option<String> {
        let mut avoided: Vec<String> = Vec::new();
        for fact in facts {
            let p = self.preference(fact);
            avoided.extend(p.avoided.iter().cloned());
            if let Some(w) = p
                .wanted
                .iter()
                .find(|w| candidates.contains(w) && !avoided.contains(w))
            {
                return Some(w.clone());
            }
            if let Some(filter) = p
                .filter
                .as_deref()
                .and_then(|f| self.understanding.grammar().filters.get(f))
            {
                let fitting: Vec<String> = self
                    .fitting(filter, listed)
                    .into_iter()
                    .filter(|n| candidates.contains(n) && !avoided.contains(n))
                    .collect();
                if let [one] = fitting.as_slice() {
                    return Some(one.clone());
                }
            }
        }
        None
    }

    /// What a fact says about drinks on this table, sentence by sentence:
    /// "I've gone off tea. It's orange juice for me now" avoids the tea and
    /// wants the juice.
    fn preference(&self, fact: &str) -> Preference {
        let mut merged = Preference::default();
        let now = &self.understanding.grammar().memory.now;
        for sentence in fact.split(['.', ';', '!', '?', '—']) {
            let p = self.preference_of_sentence(sentence);
            // "The rooibos keeps me awake. Make it kombucha from now on.": the
            // sentence that says what holds now names the drink wanted first.
            let says_now = crate::understanding::normalize::plain_words(sentence)
                .iter()
                .any(|w| now.contains(w));
            if says_now {
                merged.wanted.splice(0..0, p.wanted);
            } else {
                merged.wanted.extend(p.wanted);
            }
            merged.avoided.extend(p.avoided);
            merged.filter = merged.filter.or(p.filter);
        }
        merged
    }

    /// What one sentence of a fact says about drinks on this table. A word of
    /// aversion holds for its clause and the clauses after it ("I stick to
    /// lemonade, in the green mug, never tea": the lemonade wanted, the tea
    /// avoided; "milk makes me ill", "no coffee, tea or milk": all avoided).
    fn preference_of_sentence(&self, fact: &str) -> Preference {
        let grammar = self.understanding.grammar();
        let memory = &grammar.memory;
        let averse = |said: &[String]| {
            said.iter().enumerate().any(|(at, w)| {
                let cancelled = at > 0 && memory.not_aversion_after.contains(&said[at - 1]);
                memory.aversion.contains(w) && !cancelled
            })
        };
        // In the scene's words, as the sentences read them ("zuckerfreie" -> "sugar free").
        // With each word, whether its clause says what holds now ("so it's hot
        // chocolate from now on": a change of mind names the new drink there)
        // and whether it is said with aversion.
        let mut words: Vec<String> = Vec::new();
        let mut now: Vec<bool> = Vec::new();
        let mut against: Vec<bool> = Vec::new();
        let mut averse_so_far = false;
        for clause in fact.to_lowercase().split([',', ';', ':']) {
            let clause_words: Vec<String> = clause
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .flat_map(|w| match grammar.normalize.vocabulary.get(w) {
                    Some(scene_words) => {
                        scene_words.split_whitespace().map(str::to_string).collect()
                    }
                    None => vec![w.to_string()],
                })
                .collect();
            // As written, too: "can't" is split into "can" and "t" above.
            averse_so_far |= averse(&clause_words)
                || averse(&crate::understanding::normalize::plain_words(clause));
            let says_now = clause_words.iter().any(|w| memory.now.contains(w));
            now.extend(std::iter::repeat_n(says_now, clause_words.len()));
            against.extend(std::iter::repeat_n(averse_so_far, clause_words.len()));
            words.extend(clause_words);
        }
        let joined = format!(" {} ", words.join(" "));
        let filter = grammar
            .lists
            .get("filter")
            .and_then(|list| {
                list.iter()
                    .find(|(_, phrase)| joined.contains(&format!(" {} ", phrase.join(" "))))
            })
            .map(|(value, _)| value.clone());
        // Longest names first; a word named as part of one ("ginger beer") names
        // nothing else ("beer"), and several things may be named ("ginger beer,
        // in the blue glass").
        // ((not said to hold now, added to another, where), what, avoided):
        // "coffee with oat milk" wants the coffee, the oat milk only with it.
        let mut found: Vec<((bool, bool, usize), String, bool)> = Vec::new();
        let mut named = vec![false; words.len()];
        for n in (1..=3).rev() {
            for at in 0..words.len().saturating_sub(n - 1) {
                if named[at..at + n].iter().any(|&w| w) {
                    continue;
                }
                let gram = words[at..at + n].join(" ");
                if let Some(id) = self.drink_or_thing(&gram) {
                    named[at..at + n].fill(true);
                    let name = self.world.object(id).name.clone();
                    if !found.iter().any(|(_, n, _)| *n == name) {
                        let added = words[at.saturating_sub(4)..at]
                            .iter()
                            .any(|w| memory.added_with.contains(w));
                        found.push(((!now[at], added, at), name, against[at]));
                    }
                }
            }
        }
        found.sort_by_key(|(key, ..)| *key);
        let (avoided, wanted): (Vec<_>, Vec<_>) = found.into_iter().partition(|(.., a)| *a);
        let names = |found: Vec<(_, String, bool)>| found.into_iter().map(|(_, n, _)| n).collect();
        let wanted: Vec<String> = names(wanted);
        Preference {
            filter: filter.filter(|_| !against.iter().any(|&a| a)),
            avoided: names(avoided),
            wanted,
        }
    }

    /// The one thing `words` name; of several, the one that holds a drink
    /// ("juice": the carton, not the juice glass).
    fn drink_or_thing(&self, words: &str) -> Option<crate::twin::ObjectId> {
        match grounding::object(&self.world, words) {
            Grounding::Resolved(id) => Some(id),
            Grounding::Ambiguous(ids) => {
                let mut holding = ids
                    .into_iter()
                    .filter(|&id| self.world.object(id).contains.is_some());
                let one = holding.next()?;
                holding.next().is_none().then_some(one)
            }
            _ => None,
        }
    }

    /// Whether `fact` only says which drink someone likes ("my usual is the
    /// squash"): no drink avoided, no kind of drink kept to, no word of aversion.
    fn only_a_liking(&self, fact: &str) -> bool {
        let p = self.preference(fact);
        let aversion = &self.understanding.grammar().memory.aversion;
        let averse = crate::understanding::normalize::plain_words(fact)
            .iter()
            .any(|w| aversion.contains(w));
        let restricts = p.filter.as_ref().is_some_and(|f| {
            let filters = &self.understanding.grammar().filters;
            filters.get(f).is_none_or(|filter| filter.restricts)
        });
        !p.wanted.is_empty() && p.avoided.is_empty() && !restricts && !averse
    }

    /// "drink" for a preference, which the next one replaces; else a note on
    /// the fact's own words ("note:opener-drawer-sink"), so that unrelated
    /// notes stand side by side.
    fn topic_of(&self, fact: &str) -> String {
        let p = self.preference(fact);
        let drinks = ["drink", "usual", "coffee", "tea", "milk", "sugar"];
        // A thing that holds no drink and is drunk from by nobody (a book, the
        // e-reader) makes no preference.
        let of_drinks = |names: &[String]| {
            names.iter().any(|name| {
                self.world.object_named(name).is_some_and(|id| {
                    let o = self.world.object(id);
                    o.contains.is_some() || o.kind.drinking_vessel
                })
            })
        };
        if of_drinks(&p.wanted)
            || of_drinks(&p.avoided)
            || p.filter.is_some()
            || crate::understanding::normalize::plain_words(fact)
                .iter()
                .any(|w| drinks.contains(&w.as_str()))
        {
            return "drink".into();
        }
        let words = self.topic_words(fact).unwrap_or_default();
        let key: Vec<&str> = words.split(' ').take(NOTE_TOPIC_WORDS).collect();
        format!("{NOTE}{}", key.join("-"))
            .trim_end_matches(':')
            .to_string()
    }
}

impl RulesBrain {
    /// A question to the robot that no template reads ("Where's the spare key
    /// kept?"): what memory keeps on its words, where the asker may hear it,
    /// answers it; `None` when memory has nothing on them.
    pub(super) fn remembered_answer(&self, s: &Situation<'_>) -> Option<Calls> {
        if !s.memory_on || !s.robot_named || !self.is_a_question(&s.dialogue.turn.text) {
            return None;
        }
        self.topic_answer(s)
    }

    /// What memory keeps on the words of the turn, where the asker may hear it
    /// (told by the asker, to the table, or about someone for the table); `None`
    /// when it keeps nothing on them.
    fn topic_answer(&self, s: &Situation<'_>) -> Option<Calls> {
        let query = self.topic_words(&s.dialogue.turn.text)?;
        // No one named: every fact the asker may hear.
        let args = json!({"query": query, "person_name": "All"});
        let Some(done) = s.dialogue.find_with("recall", &args) else {
            return Some(Some(vec![call("recall", args)]));
        };
        // The one sharing most of the question's words, the newest of those
        // ("which day is the rehearsal now?" after it was moved).
        let words: Vec<String> = crate::understanding::normalize::plain_words(&query);
        let shared = |fact: &str| {
            crate::understanding::normalize::plain_words(fact)
                .iter()
                .filter(|w| words.contains(w))
                .count()
        };
        let told = told_facts(&done.result)
            .into_iter()
            .chain(hearsay_facts(&done.result))
            .enumerate()
            .max_by_key(|(order, (_, fact))| {
                (
                    shared(fact),
                    newest_first(&done.result, fact),
                    std::cmp::Reverse(*order),
                )
            })
            .map(|(_, told)| told);
        let Some((teller, fact)) = told else {
            // Only what someone told it for themselves: theirs to tell.
            let owner = withheld_from(&done.result)?;
            return Some(self.say(s, self.speech.say("memory.withheld", &[("about", &owner)])));
        };
        let text = if s.sender.as_deref() == Some(teller.as_str()) {
            self.speech.say("memory.you_told_me", &[("facts", &fact)])
        } else {
            self.speech.say(
                "memory.told_me_about_you",
                &[("person", &teller), ("facts", &fact)],
            )
        };
        Some(self.say(s, text))
    }

    /// Whether `text` asks: a question mark, or a question's first word.
    fn is_a_question(&self, text: &str) -> bool {
        self.understanding.is_a_question(text)
    }

    /// What a question is about, for searching memory.
    fn topic_words(&self, text: &str) -> Option<String> {
        self.understanding.topic_words(text)
    }
}

/// Whose facts a `recall` result withheld ("Withheld: 1 thing(s) told for
/// acting only, by Felix; ..."), the first named.
fn withheld_from(result: &str) -> Option<String> {
    let line = result.lines().find(|l| l.starts_with("Withheld:"))?;
    let owners = line.split_once(", by ")?.1.split_once(';')?.0;
    owners.split(", ").next().map(str::to_string)
}

/// How a note's topic starts; the words that follow tell notes apart.
const NOTE: &str = "note:";
/// How many of a fact's own words name its note.
const NOTE_TOPIC_WORDS: usize = 3;

/// The topic of the note in a `recall` result that an update replaces: the
/// one sharing most of `words` (the update's own words), else the newest
/// (facts come newest first).
fn updated_note_topic(result: &str, words: &str) -> Option<String> {
    let notes: Vec<(&str, &str)> = result
        .lines()
        .filter_map(|l| l.strip_prefix("- fact "))
        .filter_map(|l| l.split_once(" [")?.1.split_once("] "))
        .filter(|(topic, _)| topic.starts_with("note"))
        .collect();
    let shared = |text: &str| {
        let text = text.to_lowercase();
        words
            .split(' ')
            .filter(|w| !w.is_empty() && text.contains(w))
            .count()
    };
    // `max_by_key` keeps the last of equals: reversed, the newest wins a tie.
    notes
        .iter()
        .rev()
        .max_by_key(|(_, text)| shared(text))
        .map(|(topic, _)| topic.to_string())
}

/// The number of the recall's fact line that holds `fact` (higher is newer).
fn newest_first(result: &str, fact: &str) -> u64 {
    result
        .lines()
        .filter(|l| l.ends_with(fact))
        .filter_map(|l| l.strip_prefix("- fact ")?.split(' ').next()?.parse().ok())
        .max()
        .unwrap_or(0)
}

/// Confirmed facts in a `recall` result, with who told each, best first.
fn told_facts(result: &str) -> Vec<(String, String)> {
    facts_told(result, " said on ", ": ")
        .into_iter()
        .filter(|(teller, _)| !teller.starts_with('('))
        .collect()
}

/// (who said it, the fact) of a recall's fact lines of one form: `said` after
/// the teller ("- fact 1 [drink] Felix said on DAY: ..."), `opens` before the fact.
fn facts_told(result: &str, said: &str, opens: &str) -> Vec<(String, String)> {
    result
        .lines()
        .filter_map(|l| l.strip_prefix("- fact "))
        .filter_map(|l| {
            let (_, told) = l.split_once("] ")?;
            let (teller, rest) = told.split_once(said)?;
            let (_, fact) = rest.split_once(opens)?;
            Some((teller.to_string(), fact.to_string()))
        })
        .collect()
}

/// The person's own facts in a `recall` result, newest first.
fn confirmed_facts(result: &str) -> Vec<String> {
    facts_told(result, " said on ", ": ")
        .into_iter()
        .map(|(_, fact)| fact)
        .collect()
}

impl RulesBrain {
    /// Of several cups, the one a recalled fact names ("... jasmine tea in the
    /// red cup"), when exactly one is named.
    pub(super) fn remembered_cup(&self, s: &Situation<'_>, cups: &[String]) -> Option<String> {
        let recalled = s.dialogue.find("recall")?;
        let facts = confirmed_facts(&recalled.result).join(" ").to_lowercase();
        let named: Vec<&String> = cups
            .iter()
            .filter(|c| {
                let natural = self.speech.object(c).to_lowercase();
                let words = natural.split_once(' ').map_or(natural.as_str(), |(_, w)| w);
                facts.contains(words) || facts.contains(&super::facts::bare(c))
            })
            .collect();
        match named.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    }

    /// The cup "last time" refers to: the one the newest remembered pour went
    /// into ("I poured coffee_pot into small_cup"), when the turn says "last time".
    pub(super) fn cup_last_time(&self, s: &Situation<'_>) -> Option<String> {
        if s.reading.slots.memory.as_deref() != Some("last_time") {
            return None;
        }
        let recalled = s.dialogue.find("recall")?;
        recalled
            .result
            .lines()
            .filter(|l| l.starts_with("- episode"))
            .find_map(poured_into)
    }

    /// The cup the person's newest fact that names one keeps their drink in
    /// ("ginger beer in the clear glass"), when the turn asks for their usual.
    pub(super) fn usual_cup(&self, s: &Situation<'_>) -> Option<String> {
        if s.reading.slots.memory.as_deref() != Some("usual") {
            return None;
        }
        let recalled = s.dialogue.find("recall")?;
        self.cup_in_facts(&recalled.result)
    }

    /// The cup the newest of a recall's own facts that names one names.
    fn cup_in_facts(&self, result: &str) -> Option<String> {
        confirmed_facts(result)
            .iter()
            .find_map(|fact| self.cup_in(fact))
    }

    /// The cup a fact names as one a drink goes into ("... in the clear glass").
    fn cup_in(&self, fact: &str) -> Option<String> {
        self.preference(fact)
            .wanted
            .into_iter()
            .find(|w| self.receives(w))
    }

    /// The cup for a drink asked for by what it holds ("a coffee", not "the
    /// coffee pot") "in the same cup as last time"; `mention` as it was said.
    pub(super) fn drink_in_cup_last_time(
        &self,
        s: &Situation<'_>,
        mention: &ObjectMention,
        source: &str,
    ) -> Option<String> {
        let id = self.world.object_named(source)?;
        let liquid = self.world.object(id).contains.as_deref()?;
        let said_last = mention.said.split_whitespace().last()?;
        let liquid_last = liquid.split_whitespace().last()?;
        if said_last != liquid_last {
            return None;
        }
        self.cup_last_time(s).filter(|c| self.is_vessel(c))
    }
}

/// The target of an episode's pour: "... I poured coffee_pot into small_cup (...)".
fn poured_into(line: &str) -> Option<String> {
    let (_, deed) = line.split_once("] I poured ")?;
    let (_, rest) = deed.split_once(" into ")?;
    let cup = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()?;
    (!cup.is_empty()).then(|| cup.to_string())
}

/// What others said about the person: (who said it, the fact), from a recall's lines
/// ("- fact 1 [drink] Felix said about Daniel on DAY (not confirmed by Daniel): ...").
fn hearsay_facts(result: &str) -> Vec<(String, String)> {
    facts_told(result, " said about ", "): ")
}

impl RulesBrain {
    /// The first deed of an episode line ("... I handed red_glass to Daniel,
    /// then ..."), in the robot's words; `None` for a deed it has no words for.
    fn episode_deed(&self, line: &str) -> Option<String> {
        let deed = line.split_once("] I ")?.1;
        let deed = deed.split([',', '(', '.']).next()?.trim();
        // How the memory store writes each deed (`done_sentence`), and its
        // slots: the first a thing, the second a person or (a target) a thing.
        const DEEDS: [(&str, &str, &str, [&str; 2]); 4] = [
            (
                "handed ",
                " to ",
                "memory.deed_handed",
                ["object", "person"],
            ),
            (
                "poured ",
                " into ",
                "memory.deed_poured",
                ["source", "target"],
            ),
            (
                "moved ",
                " away from ",
                "memory.deed_moved_away",
                ["object", "person"],
            ),
            ("moved ", " to ", "memory.deed_moved", ["object", "person"]),
        ];
        DEEDS
            .iter()
            .find_map(|(verb, joint, key, [first, second])| {
                let (one, other) = deed.strip_prefix(verb)?.split_once(joint)?;
                let one = self.speech.object(one.trim());
                let other = match *second {
                    "person" => other.to_string(),
                    _ => self.speech.object(other.trim()),
                };
                Some(self.speech.say(key, &[(first, &one), (second, &other)]))
            })
    }
}

fn mentions(line: &str, name: &str) -> bool {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECALLED: &str = "Remembered about Felix (may be outdated):\n\
        - fact 3 [note:gift-lena-cupboard] Felix said on 2026-11-30: The gift for Lena is in the cupboard\n\
        - fact 1 [note:cellar-key-hook] Felix said on 2026-11-29: The cellar key hangs on the hook\n\
        - fact 2 [drink] Felix said on 2026-11-29: I take my coffee black";

    #[test]
    fn an_update_replaces_the_note_it_shares_words_with_else_the_newest() {
        assert_eq!(
            updated_note_topic(RECALLED, "cellar key drawer").as_deref(),
            Some("note:cellar-key-hook")
        );
        assert_eq!(
            updated_note_topic(RECALLED, "party").as_deref(),
            Some("note:gift-lena-cupboard")
        );
        assert_eq!(
            updated_note_topic("I remember nothing about Felix.", "key"),
            None
        );
    }

    #[test]
    fn told_and_withheld_facts_are_read_from_a_recall() {
        let told = told_facts(RECALLED);
        assert_eq!(told.len(), 3);
        assert_eq!(
            told[1],
            ("Felix".into(), "The cellar key hangs on the hook".into())
        );
        let withheld = "I remember nothing about that.\nWithheld: 1 thing(s) told for acting only, by Daniel, Felix; do not reveal them to Ana.";
        assert_eq!(withheld_from(withheld).as_deref(), Some("Daniel"));
        assert_eq!(withheld_from(RECALLED), None);
    }

    #[test]
    fn off_after_kick_says_when_not_a_dislike() {
        let world = crate::twin::scene::load("softdrinks").expect("scene");
        let english = crate::language::Language::english().expect("English");
        let brain = RulesBrain::new(&world, &english);
        let wanted = brain.preference("At parties I always kick off with fanta in the red glass");
        assert_eq!(
            wanted.wanted.first().map(String::as_str),
            Some("fanta_bottle")
        );
        assert!(wanted.avoided.is_empty());
        let gone_off = brain.preference("I have gone off fanta");
        assert_eq!(gone_off.avoided, vec!["fanta_bottle".to_string()]);
    }
}
