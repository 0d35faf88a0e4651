//! Requests: check who is hindered (or whether the robot reaches it, when
//! asked), explain, act, and say why when it cannot.

use serde_json::{json, Value};

use super::facts::{drinks, listing, no_hand_over_point, Hindrance, Listed};
use super::{call, Calls, RulesBrain, Situation};
use crate::twin::grounding::object_words;
use crate::understanding::{Act, ObjectMention};

/// Physical actions: a failed one is explained once, then the turn stops.
const ACTIONS: [&str; 4] = [
    "hand_object_over_to_person",
    "move_object_to_person",
    "move_object_away_from_person",
    "pour_into",
];

impl RulesBrain {
    /// "I see no banda here. On the table there are ...": asked for what the table lacks.
    fn no_such(&self, s: &Situation<'_>, listed: &[Listed], said: &ObjectMention) -> Calls {
        let here: Vec<String> = listed.iter().map(|o| self.speech.object(&o.name)).collect();
        let (thing, things) = (self.said_bare(said), self.speech.and_list(&here));
        self.ask(
            s,
            self.speech
                .say("help.no_such", &[("thing", &thing), ("things", &things)]),
        )
    }

    /// Help with a request (give, move, move away, pour, the same but ...).
    pub(super) fn request(&self, s: &Situation<'_>) -> Calls {
        let Some(listed) = s.dialogue.find("get_objects").map(|d| listing(&d.result)) else {
            return Some(vec![call("get_objects", json!({}))]);
        };
        let reading = &s.reading;
        let mention = match reading.act {
            Act::Pour => reading.slots.source.clone(),
            Act::PourSame => self.same_drink(s),
            _ => reading.slots.object.clone(),
        }
        .or_else(|| self.filtered_drink(s, &listed));
        let asked_for = whom(s)
            .or_else(|| s.sender.clone())
            .unwrap_or_else(|| "anyone".into());
        // "The drink he always has": the word "drink" names no drink; memory does.
        let mention =
            mention.filter(|m| !(reading.slots.memory.is_some() && self.is_category(&m.said)));
        let mention = match self.remembered(s, &listed, mention.as_ref(), &asked_for) {
            Err(calls) => return calls,
            Ok(Some(found)) => Some(found),
            Ok(None) => mention,
        };
        // "Something to drink" names no drink: ask among all of them.
        // Between people, the listener can ask; only the robot asked asks itself.
        let mention = mention.filter(|m| !(s.robot_addressed && self.is_category(&m.said)));
        // "Top me up": more of what is in their glass; "pour me one too, into
        // the big cup", its glass empty: one of what was poured last.
        let mention = match (mention, reading.act) {
            (None, Act::Pour) => self
                .refill(self.named_target(s).as_deref(), &listed, &asked_for)
                .or_else(|| self.same_drink(s)),
            (mention, _) => mention,
        };
        let Some(mention) = mention else {
            // "Fill my glass": with what?
            let drinks = drinks(&listed);
            let drinks = self.speech.or_list(&self.speech.nouns(&drinks));
            return self.ask(
                s,
                self.speech.say("help.which_drink", &[("drinks", &drinks)]),
            );
        };
        // A cup said that is none of the table's ("cola zero in Banda"): no
        // other cup is guessed for it; only asked itself does the robot say so.
        let lacking_target = reading
            .slots
            .target
            .as_ref()
            .filter(|t| reading.act == Act::Pour && t.candidates.is_empty() && !t.said.is_empty())
            .filter(|t| {
                let lexicon = crate::understanding::lexicon::Lexicon::new(&self.world);
                !t.said.split_whitespace().any(|w| lexicon.is_thing_word(w))
            });
        if let Some(target) = lacking_target {
            return if s.robot_named {
                self.no_such(s, &listed, target)
            } else {
                None
            };
        }
        let object = match mention.candidates.as_slice() {
            // "Give me a minute" to everyone or "give me a sec" to a person names
            // nothing the robot should answer: only asked itself does it say so.
            [] if !s.robot_named => return None,
            [] => return self.no_such(s, &listed, &mention),
            [one] => one.clone(),
            // Between people the listener can ask which one; asked, the robot does.
            several if s.robot_addressed => {
                let choices = self.speech.or_list(&self.naturals(several));
                return self.say(
                    s,
                    self.speech
                        .say("answer.which_one", &[("choices", &choices)]),
                );
            }
            _ => return None,
        };
        if let Some(calls) = self.ruled_out(s, &object, &asked_for) {
            return calls;
        }
        // "Another coffee, in the same cup as last time": the drink, poured into
        // the cup it was poured into then.
        let act = match reading.act {
            Act::Give
                if reading.slots.object.as_ref().is_some_and(|said| {
                    self.drink_in_cup_last_time(s, said, &object).is_some()
                }) =>
            {
                Act::Pour
            }
            // "My usual", where the usual is a drink in a cup of its own: poured into it.
            Act::Give if self.holds_a_drink(&listed, &object) && self.usual_cup(s).is_some() => {
                Act::Pour
            }
            act => act,
        };
        // Between people a hand-over or a move asks nothing of the robot when the
        // thing is in the hand of the one it is for ("wait, my phone") or of the
        // listener (handing over what is in one's hand needs no free hand), or
        // when it is meant for the listener ("help yourself to the red glass":
        // the robot helps the sender).
        let holds_it = |whom: &str| {
            listed
                .iter()
                .any(|o| o.name == object && o.held_by.as_deref() == Some(whom))
        };
        let asked_for = reading
            .slots
            .recipient
            .as_ref()
            .and_then(|r| r.name.as_deref());
        let listener = s.receiver.as_deref();
        let for_the_listener =
            asked_for.is_some_and(|r| Some(r) == listener && s.sender.as_deref() != Some(r));
        if matches!(act, Act::Give | Act::MoveTo)
            && !s.robot_addressed
            && (asked_for.is_some_and(holds_it)
                || listener.is_some_and(holds_it)
                || for_the_listener)
        {
            return None;
        }
        // A pour needs the glass named as much as the bottle: "fill the cup"
        // of three cups asks which, when the robot was asked.
        let pouring = matches!(act, Act::Pour | Act::PourSame);
        let targets = self.target_candidates(s);
        if pouring && s.robot_addressed && targets.len() > 1 {
            let choices = self.speech.or_list(&self.naturals(&targets));
            return self.say(
                s,
                self.speech
                    .say("answer.which_one", &[("choices", &choices)]),
            );
        }
        let target = pouring.then(|| self.named_target(s)).flatten();
        let hindrance = match self.checked(s, &object, target.as_deref())? {
            Ok(h) => h,
            Err(calls) => return calls,
        };
        let who_would_like = || {
            let thing = self.speech.object(&object);
            self.speech
                .say("help.who_would_like", &[("object", &thing)])
        };
        let Some(recipient) = whom(s) else {
            // Nobody knows who spoke (one microphone): ask, do nothing physical.
            return self.say_to(s, "All".into(), who_would_like());
        };
        // "In front of you", said to the robot: nothing is handed to the robot itself.
        if recipient == self.world.robot.name {
            return self.ask(s, who_would_like());
        }
        // Both of the recipient's hands are full: nothing can be handed over, so the
        // thing is set down within their reach instead.
        let holding = |o: &&Listed| o.held_by.as_deref() == Some(recipient.as_str());
        let act = match act {
            Act::Give if listed.iter().filter(holding).count() >= 2 => Act::MoveTo,
            act => act,
        };
        let plan = self.plan(s, act, &object, &recipient, &listed)?;
        if let Some(failed) = s
            .dialogue
            .done
            .iter()
            .find(|d| ACTIONS.contains(&d.name.as_str()) && !d.result.starts_with("You "))
        {
            // No point where both could hold it: set it down within their reach instead.
            if failed.name == "hand_object_over_to_person" && no_hand_over_point(&failed.result) {
                let args = json!({"object_name": object, "person_name": recipient});
                match s.dialogue.find_with("move_object_to_person", &args) {
                    None => return Some(vec![call("move_object_to_person", args)]),
                    Some(moved) if moved.result.starts_with("You ") => return None,
                    Some(_) => {}
                }
            }
            // Say why once, then stop.
            if s.dialogue.done.iter().filter(|d| d.name == "speak").count() >= 2 {
                return None;
            }
            let listener = s.sender_or_all();
            let reason = self.action_reason(&failed.result, &listener);
            let text = self.speech.say("help.cannot_help", &[("reason", &reason)]);
            return Some(vec![call(
                "speak",
                json!({"person_name": listener, "text": text}),
            )]);
        }
        if !s.dialogue.spoke() {
            let why = match (&s.receiver, s.robot_addressed) {
                (Some(receiver), false) => hindrance.explanation(receiver, &self.speech),
                _ => self.speech.word("help.you_asked").to_string(),
            };
            let liquid = listed
                .iter()
                .find(|o| o.name == object)
                .and_then(|o| o.contains.clone());
            let offer = self.offer(
                act,
                &object,
                liquid.as_deref(),
                &recipient,
                s.sender.as_deref(),
            );
            let offer = self.after_clearing(s, &object, offer);
            let text = self
                .speech
                .say("help.so_i_will", &[("why", &why), ("offer", &offer)]);
            return self.say(s, text);
        }
        plan.into_iter()
            .find(|(name, args)| s.dialogue.find_with(name, args).is_none())
            .map(|step| vec![step])
    }

    /// "Something without sugar for me": the drinks the filter admits.
    /// Whether the words only name a category ("drink", "something to drink").
    fn is_category(&self, said: &str) -> bool {
        let said = said.trim_start_matches("the ").trim();
        self.understanding
            .grammar()
            .lists
            .get("category")
            .is_some_and(|list| list.iter().any(|(_, phrase)| phrase.join(" ") == said))
    }

    fn filtered_drink(&self, s: &Situation<'_>, listed: &[Listed]) -> Option<ObjectMention> {
        let name = s.reading.slots.filter.as_deref()?;
        let filter = self.understanding.grammar().filters.get(name)?;
        let candidates: Vec<String> = self
            .fitting(filter, listed)
            .into_iter()
            .filter(|name| !self.is_vessel(name))
            .collect();
        Some(ObjectMention {
            said: self
                .speech
                .say("names.something", &[("filter", &filter.say)]),
            candidates,
            owner: None,
            referred: false,
            left_out: None,
            every: Vec::new(),
        })
    }

    /// The one glass a pour names ("into the green mug"), if it names one.
    fn named_target(&self, s: &Situation<'_>) -> Option<String> {
        match self.target_candidates(s).as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// What the pour's target may be: the cups among the things the words fit,
    /// when they fit any ("the white one": the white tumbler, not the white mister).
    fn target_candidates(&self, s: &Situation<'_>) -> Vec<String> {
        let said = s
            .reading
            .slots
            .target
            .as_ref()
            .map(|t| t.candidates.clone())
            .unwrap_or_default();
        let cups: Vec<String> = said.iter().filter(|c| self.is_vessel(c)).cloned().collect();
        if cups.is_empty() {
            return said;
        }
        // "Fill her cup with what she normally has": memory may say which cup.
        let remembered = (cups.len() > 1 && s.reading.slots.memory.is_some())
            .then(|| self.remembered_cup(s, &cups))
            .flatten();
        remembered.map_or(cups, |cup| vec![cup])
    }

    /// The objects holding a drink that a filter admits, in scene order.
    pub(super) fn fitting(
        &self,
        filter: &crate::understanding::grammar::Filter,
        listed: &[Listed],
    ) -> Vec<String> {
        self.world
            .objects()
            .iter()
            .filter(|o| {
                listed
                    .iter()
                    .any(|l| l.name == o.name && l.contains.is_some())
            })
            .filter(|o| filter.admits(&object_words(o)))
            .map(|o| o.name.clone())
            .collect()
    }

    /// Asks the sender a question when it is the robot's business: it was
    /// asked, or the listener is busy. Otherwise silence.
    fn ask(&self, s: &Situation<'_>, question: String) -> Calls {
        if !s.robot_addressed {
            let receiver = s.receiver.clone()?;
            let Some(check) = s.dialogue.find("is_person_busy_or_idle") else {
                return Some(vec![call(
                    "is_person_busy_or_idle",
                    json!({"person_name": receiver}),
                )]);
            };
            if !check.result.contains("is busy") {
                return None;
            }
        }
        self.say(s, question)
    }

    /// The check before helping: the listener's hindrance, or the robot's reach
    /// when it was asked. `Ok` with what it found when help is due; `Err` with
    /// the next calls (the check itself, or saying why not); `None` to stay out.
    fn checked(
        &self,
        s: &Situation<'_>,
        object: &str,
        target: Option<&str>,
    ) -> Option<Result<Hindrance, Calls>> {
        match (&s.receiver, s.robot_addressed) {
            (Some(receiver), false) => {
                let mut hindrance = Hindrance::default();
                for thing in std::iter::once(object).chain(target) {
                    let args = json!({"person_name": receiver, "object_name": thing});
                    let Some(check) = s.dialogue.find_with("check_hindering_reasons", &args) else {
                        return Some(Err(Some(vec![call("check_hindering_reasons", args)])));
                    };
                    hindrance = Hindrance::from_check(&check.result, receiver);
                    if hindrance.hindered() {
                        break;
                    }
                }
                if !hindrance.hindered() {
                    return None;
                }
                // Offer help only where the robot can give it; else say why not, at once.
                let args = json!({"object_name": object});
                let Some(reach) = s.dialogue.find_with("check_reach_object_for_robot", &args)
                else {
                    return Some(Err(Some(vec![call("check_reach_object_for_robot", args)])));
                };
                if Hindrance::from_robot_check(&reach.result).object.is_none() {
                    let why = hindrance.explanation(receiver, &self.speech);
                    let result = reach.result.as_str();
                    let reason = self.robot_reason_in_words(result, &s.sender_or_all());
                    let reason = reason.unwrap_or_else(|| {
                        result
                            .split_once(": ")
                            .map_or(result, |(_, r)| r)
                            .to_string()
                    });
                    let why = self.speech.say(
                        "help.cannot_reach_either",
                        &[("why", &why), ("reason", &reason)],
                    );
                    return Some(Err(self.say(s, why)));
                }
                Some(Ok(hindrance))
            }
            _ => {
                let args = json!({"object_name": object});
                let Some(check) = s.dialogue.find_with("check_reach_object_for_robot", &args)
                else {
                    return Some(Err(Some(vec![call("check_reach_object_for_robot", args)])));
                };
                if Hindrance::from_robot_check(&check.result).object.is_none() {
                    let reason = self.robot_reason(&check.result, &s.sender_or_all());
                    let why = self.speech.say("help.cannot", &[("reason", &reason)]);
                    return Some(Err(self.say(s, why)));
                }
                // A cup beyond both arms cannot be poured into; one in a hand can.
                if let Some(target) = target {
                    let args = json!({"object_name": target});
                    let Some(check) = s.dialogue.find_with("check_reach_object_for_robot", &args)
                    else {
                        return Some(Err(Some(vec![call("check_reach_object_for_robot", args)])));
                    };
                    if check.result.contains("out of reach of both arms") {
                        let reason = self.robot_reason(&check.result, &s.sender_or_all());
                        let why = self.speech.say("help.cannot", &[("reason", &reason)]);
                        return Some(Err(self.say(s, why)));
                    }
                }
                Some(Ok(Hindrance::default()))
            }
        }
    }

    /// The tool calls that do what was asked.
    fn plan(
        &self,
        s: &Situation<'_>,
        act: Act,
        object: &str,
        recipient: &str,
        listed: &[Listed],
    ) -> Option<Vec<(String, Value)>> {
        let give = |o: &str| {
            call(
                "hand_object_over_to_person",
                json!({"object_name": o, "person_name": recipient}),
            )
        };
        Some(match act {
            Act::Give => vec![give(object)],
            Act::MoveTo => vec![call(
                "move_object_to_person",
                json!({"object_name": object, "person_name": recipient}),
            )],
            Act::MoveAway => {
                let person = s
                    .reading
                    .slots
                    .person
                    .as_ref()
                    .and_then(|p| p.name.clone())
                    .unwrap_or_else(|| recipient.to_string());
                vec![call(
                    "move_object_away_from_person",
                    json!({"object_name": object, "person_name": person}),
                )]
            }
            Act::Pour | Act::PourSame => {
                let (glass, fresh) = self.glass_for(s, object, recipient, listed)?;
                let pour = call(
                    "pour_into",
                    json!({"source_container_name": object, "target_container_name": glass}),
                );
                if fresh {
                    vec![pour, give(&glass)]
                } else {
                    vec![pour]
                }
            }
            _ => return None,
        })
    }

    /// The glass to pour into, and whether it must be handed over afterwards:
    /// the one named; else the one the recipient holds; else the one handed to
    /// them earlier; else an empty one nobody holds.
    fn glass_for(
        &self,
        s: &Situation<'_>,
        source: &str,
        recipient: &str,
        listed: &[Listed],
    ) -> Option<(String, bool)> {
        let entry = |name: &str| listed.iter().find(|o| o.name == name);
        let held_by_recipient =
            |name: &str| entry(name).is_some_and(|o| o.held_by.as_deref() == Some(recipient));
        let named = self.target_candidates(s);
        if let [one] = named.as_slice() {
            // A glass they named is filled where it is; they asked for no more
            // ("and hand it over" asks for that).
            return Some((one.clone(), false));
        }
        if let Some(cup) = self.usual_cup(s) {
            let fresh = !held_by_recipient(&cup);
            return Some((cup, fresh));
        }
        if let Some(cup) = self.cup_last_time(s).filter(|c| self.is_vessel(c)) {
            let fresh = !held_by_recipient(&cup);
            return Some((cup, fresh));
        }
        let pool: Vec<&Listed> = if named.is_empty() {
            listed.iter().filter(|o| self.is_vessel(&o.name)).collect()
        } else {
            named.iter().filter_map(|n| entry(n)).collect()
        };
        if let Some(held) = pool
            .iter()
            .find(|o| o.held_by.as_deref() == Some(recipient))
        {
            return Some((held.name.clone(), false));
        }
        let handed = s.dialogue.done_before.iter().rev().find_map(|d| {
            (d.name == "hand_object_over_to_person"
                && d.result.starts_with("You ")
                && d.args["person_name"] == recipient)
                .then(|| d.args["object_name"].as_str().map(str::to_string))
                .flatten()
        });
        if let Some(glass) = handed.filter(|g| pool.iter().any(|o| &o.name == g)) {
            return Some((glass.clone(), !held_by_recipient(&glass)));
        }
        // The cup poured into at the same person's turn just before ("milk in
        // first, into the small cup" — "and now the coffee"), where it stands.
        let free_or_theirs = |name: &str| {
            entry(name).is_some_and(|o| o.held_by.is_none() || held_by_recipient(name))
        };
        if let Some(cup) = self.poured_just_before(s).filter(|c| free_or_theirs(c)) {
            return Some((cup, false));
        }
        let drink = self
            .world
            .object_named(source)
            .and_then(|id| self.world.object(id).contains.clone());
        // More of what is in their glass: that glass ("pour me some more wine").
        if let Some(glass) = drink
            .as_deref()
            .and_then(|d| self.glass_of(recipient, listed, Some(d)))
        {
            return Some((glass, false));
        }
        // A fresh glass: one made for this drink (the wine glass for wine),
        // else one not made for another drink; of those, one set out at the
        // recipient's place ("the small cup is in front of him"), filled there.
        let fit = |name: &str| glass_fit(&self.world, name, drink.as_deref());
        let at_their_place = |name: &str| self.by_the_person(recipient, name);
        pool.iter()
            .filter(|o| o.empty && o.held_by.is_none())
            .max_by_key(|o| {
                (
                    fit(&o.name),
                    at_their_place(&o.name),
                    std::cmp::Reverse(listed.iter().position(|l| l.name == o.name)),
                )
            })
            .map(|o| (o.name.clone(), !at_their_place(&o.name)))
    }

    /// The container poured into at the turn before, when the same person said it.
    fn poured_just_before(&self, s: &Situation<'_>) -> Option<String> {
        let before = s.dialogue.earlier.last()?;
        if before.speaker != s.dialogue.turn.speaker {
            return None;
        }
        s.dialogue
            .done_last
            .iter()
            .rev()
            .find(|d| d.name == "pour_into" && d.result.starts_with("You "))
            .and_then(|d| d.args["target_container_name"].as_str())
            .filter(|cup| self.is_vessel(cup))
            .map(str::to_string)
    }

    /// Whether `name` holds a drink to pour (a bottle, a pot), not a cup to drink from.
    fn holds_a_drink(&self, listed: &[Listed], name: &str) -> bool {
        !self.is_vessel(name)
            && listed
                .iter()
                .any(|o| o.name == name && o.contains.is_some())
    }

    /// A drinking vessel, or an empty container set out to be filled (a
    /// beaker at a lab bench): what a drink is poured into.
    pub(super) fn receives(&self, name: &str) -> bool {
        self.world
            .object_named(name)
            .is_some_and(|id| self.world.object(id).receives_a_drink())
    }

    pub(super) fn is_vessel(&self, name: &str) -> bool {
        self.world
            .object_named(name)
            .is_some_and(|id| self.world.object(id).kind.drinking_vessel)
    }

    /// "The same, but without sugar": the drink poured before, or its variant
    /// that the filter admits and that shares the most words with it.
    fn same_drink(&self, s: &Situation<'_>) -> Option<ObjectMention> {
        let previous = s
            .dialogue
            .done_before
            .iter()
            .rev()
            .find(|d| d.name == "pour_into" && d.result.starts_with("You "))
            .and_then(|d| d.args["source_container_name"].as_str().map(str::to_string))?;
        let words_of = |name: &str| -> Vec<String> {
            self.world
                .object_named(name)
                .map(|id| object_words(self.world.object(id)))
                .unwrap_or_default()
        };
        let chosen = match s.reading.slots.filter.as_deref() {
            None => previous.clone(),
            Some(filter) => {
                let filter = self.understanding.grammar().filters.get(filter)?;
                let before = words_of(&previous);
                self.world
                    .objects()
                    .iter()
                    .filter(|o| o.name != previous && o.contains.is_some())
                    .filter(|o| filter.admits(&words_of(&o.name)))
                    .max_by_key(|o| {
                        words_of(&o.name)
                            .iter()
                            .filter(|w| before.contains(w))
                            .count()
                    })?
                    .name
                    .clone()
            }
        };
        Some(ObjectMention {
            said: "the same".into(),
            candidates: vec![chosen],
            owner: None,
            referred: true,
            left_out: None,
            every: Vec::new(),
        })
    }
}

/// How well a glass suits a drink: 2 made for it, 1 made for none, 0 made for another.
fn glass_fit(world: &crate::twin::World, glass: &str, drink: Option<&str>) -> u8 {
    let Some(id) = world.object_named(glass) else {
        return 1;
    };
    let words: Vec<String> = world
        .object(id)
        .properties
        .iter()
        .map(|p| p.to_lowercase())
        .collect();
    let drinks: Vec<String> = world
        .objects()
        .iter()
        .filter_map(|o| o.contains.clone())
        .collect();
    let names = |liquid: &str| {
        crate::twin::grounding::words(liquid)
            .iter()
            .any(|w| words.contains(w))
    };
    match drink {
        Some(d) if names(d) => 2,
        _ if drinks.iter().any(|d| names(d)) => 0,
        _ => 1,
    }
}

impl RulesBrain {
    /// The offer, after moving aside what the robot's check says stands in the way:
    /// people see other things move, so the robot says why first.
    fn after_clearing(&self, s: &Situation<'_>, object: &str, offer: String) -> String {
        let args = json!({"object_name": object});
        let moved = s
            .dialogue
            .find_with("check_reach_object_for_robot", &args)
            .map(|check| Hindrance::moved_aside_first(&check.result))
            .unwrap_or_default();
        if moved.is_empty() {
            return offer;
        }
        let things: Vec<String> = moved.iter().map(|id| self.speech.object(id)).collect();
        let things = self.speech.and_list(&things);
        self.speech.say(
            "help.offer_after_clearing",
            &[("things", &things), ("offer", &offer)],
        )
    }

    /// "hand you the red glass", "pour Daniel some fanta".
    fn offer(
        &self,
        act: Act,
        object: &str,
        liquid: Option<&str>,
        recipient: &str,
        sender: Option<&str>,
    ) -> String {
        let thing = self.speech.object(object);
        let to_you = sender == Some(recipient);
        let whom = match to_you {
            true => self.speech.word("names.you"),
            false => recipient,
        };
        let key = match (act, liquid) {
            (Act::Give, _) if to_you => "help.offer_give_you",
            (Act::Give, _) => "help.offer_give",
            (Act::MoveTo, _) => "help.offer_move_to",
            (Act::MoveAway, _) => "help.offer_move_away",
            (Act::Pour, Some(_)) => "help.offer_pour",
            (Act::Pour, None) => "help.offer_pour_from",
            (_, Some(_)) => "help.offer_fill",
            (_, None) => "help.offer_fill_from",
        };
        self.speech.say(
            key,
            &[
                ("object", &thing),
                ("recipient", recipient),
                ("whom", whom),
                ("liquid", &self.speech.noun(liquid.unwrap_or_default())),
            ],
        )
    }
}

/// Whom a request is for: the person a thing is moved away from, else its
/// recipient. One thing goes to one person, so "pass us the fudge" is for the
/// speaker, who is one of "us".
fn whom(s: &Situation<'_>) -> Option<String> {
    let named = match s.reading.act {
        Act::MoveAway => s.reading.slots.person.as_ref(),
        _ => s.reading.slots.recipient.as_ref(),
    }
    .and_then(|r| r.name.clone());
    match named {
        Some(all) if all == "All" => s.sender.clone().or(Some(all)),
        named => named,
    }
}
