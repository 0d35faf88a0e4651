//! Questions, statements, social talk and what was not understood.

use serde_json::json;

use super::facts::{bare, drinks, listing, Hindrance, Listed};
use super::{call, Calls, RulesBrain, Situation};
use crate::language::capitalised;
use crate::twin::whereabouts::{self, Whereabouts};
use crate::understanding::{Act, ObjectMention, PersonMention};

/// Whether the busy listener holds only what the question is about ("Is
/// there water?" to the one holding the carafe): their hands do not keep
/// them from answering.
fn holds_only_the_asked(s: &Situation<'_>, busy: &str) -> bool {
    let Some(asked) = s.reading.slots.object.as_ref() else {
        return false;
    };
    let Some((_, held)) = busy.split_once(" is holding ") else {
        return false;
    };
    held.trim_end_matches('.')
        .split(" and ")
        .all(|thing| asked.candidates.iter().any(|c| c == thing))
}

impl RulesBrain {
    /// Whether a question is the robot's to answer: asked, or the listener is
    /// busy. `Err` carries the check to make first.
    fn answers(&self, s: &Situation<'_>) -> Result<bool, Calls> {
        if s.robot_addressed {
            return Ok(true);
        }
        let Some(receiver) = s.receiver.clone() else {
            return Ok(false);
        };
        match s.dialogue.find("is_person_busy_or_idle") {
            None => Err(Some(vec![call(
                "is_person_busy_or_idle",
                json!({"person_name": receiver}),
            )])),
            Some(check) => {
                Ok(check.result.contains("is busy") && !holds_only_the_asked(s, &check.result))
            }
        }
    }

    /// The listing when a question is the robot's to answer; else the calls
    /// to make first (the busy check, the listing) or `None` to stay silent.
    fn answerable(&self, s: &Situation<'_>) -> Result<Vec<Listed>, Calls> {
        match self.answers(s)? {
            true => self.listed(s),
            false => Err(None),
        }
    }

    /// The listing, or the call to get it.
    fn listed(&self, s: &Situation<'_>) -> Result<Vec<Listed>, Calls> {
        match s.dialogue.find("get_objects") {
            Some(d) => Ok(listing(&d.result)),
            None => Err(Some(vec![call("get_objects", json!({}))])),
        }
    }

    /// "What do we have to drink?", "is there anything without sugar?"
    pub(super) fn inventory(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.answerable(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        let slots = &s.reading.slots;
        let all_drinks = drinks(&listed);
        let speech = &self.speech;
        let drinks_said = speech.and_list(&speech.nouns(&all_drinks));
        let text = if let Some(filter_name) = &slots.filter {
            let grammar = self.understanding.grammar();
            let Some(filter) = grammar.filters.get(filter_name) else {
                let drinks = self.speech.and_list(&self.speech.nouns(&all_drinks));
                return self.say(s, self.speech.say("answer.drinks", &[("drinks", &drinks)]));
            };
            let fitting = liquids(&self.fitting(filter, &listed), &listed);
            if fitting.is_empty() {
                speech.say(
                    "answer.nothing_fitting",
                    &[("filter", &filter.say), ("drinks", &drinks_said)],
                )
            } else {
                speech.say(
                    "answer.fitting",
                    &[
                        ("filter", &capitalised(&filter.say)),
                        ("drinks", &speech.and_list(&speech.nouns(&fitting))),
                    ],
                )
            }
        } else if slots.category.as_deref() == Some("food") {
            speech.say("answer.nothing_to_eat", &[("drinks", &drinks_said)])
        } else if slots.category.as_deref() == Some("drink")
            || !all_drinks.is_empty()
                && slots.category.is_none()
                && !s.reading.heard.contains("table")
        {
            speech.say("answer.drinks", &[("drinks", &drinks_said)])
        } else {
            let names: Vec<String> = listed.iter().map(|o| self.describe(o)).collect();
            speech.say(
                "answer.on_the_table",
                &[("things", &speech.and_list(&names))],
            )
        };
        self.say(s, text)
    }

    /// "Do we have any fanta?"
    pub(super) fn have(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.answerable(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        let mention = s.reading.slots.object.as_ref()?;
        // Between people, a question about nothing at the table ("any ideas?")
        // is theirs: the robot answers for a busy listener only about the table.
        if !s.robot_addressed && mention.candidates.is_empty() {
            return None;
        }
        let found: Vec<&Listed> = listed
            .iter()
            .filter(|l| mention.candidates.contains(&l.name))
            .collect();
        let text = match found
            .iter()
            .find(|l| l.contains.is_some())
            .or(found.first())
        {
            Some(l) => match &l.contains {
                Some(liquid) => self.speech.say(
                    "answer.have_contents",
                    &[
                        ("liquid", &self.speech.drink(liquid, &l.added)),
                        ("object", &self.speech.object(&l.name)),
                    ],
                ),
                None => self.speech.say(
                    "answer.have_object",
                    &[("object", &self.speech.object(&l.name))],
                ),
            },
            None => self.speech.say(
                "answer.have_not",
                &[
                    ("thing", &self.said_bare(mention)),
                    (
                        "drinks",
                        &self.speech.and_list(&self.speech.nouns(&drinks(&listed))),
                    ),
                ],
            ),
        };
        self.say(s, text)
    }

    /// "Where is the red glass?"
    pub(super) fn where_is(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.answerable(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        let object = match self.asked_object(s, &listed) {
            Ok(o) => o,
            Err(calls) => return calls,
        };
        if let Some(holder) = listed
            .iter()
            .find(|l| l.name == object)
            .and_then(|l| l.held_by.clone())
        {
            return self.say(s, self.holder_has(&holder, &object));
        }
        let thing = self.speech.object_first(&object);
        let place = self.place_of(s, &object);
        let Some(sender) = s.sender.clone() else {
            return self.say(
                s,
                self.speech.say(
                    "answer.on_the_table_pointing",
                    &[("object", &thing), ("place", &place)],
                ),
            );
        };
        let args = json!({"person_name": sender, "object_name": object});
        let Some(check) = s.dialogue.find_with("check_hindering_reasons", &args) else {
            return Some(vec![call("check_hindering_reasons", args)]);
        };
        if s.dialogue.spoke() {
            let point = json!({"name": object});
            return s
                .dialogue
                .find_with("point_at_object_or_person", &point)
                .is_none()
                .then(|| vec![call("point_at_object_or_person", point)]);
        }
        let h = Hindrance::from_check(&check.result, &sender);
        let key = match (&h.cannot_see, h.cannot_reach) {
            (None, false) => "answer.where_in_reach",
            (None, true) => "answer.where_out_of_reach",
            (Some(_), false) => "answer.where_hidden_in_reach",
            (Some(_), true) => "answer.where_hidden_out_of_reach",
        };
        let occluder = self.occluder(&h);
        let text = self.speech.say(
            key,
            &[
                ("object", &thing),
                ("place", &place),
                ("occluder", &occluder),
            ],
        );
        self.say(s, text)
    }

    /// "on the table in front of Felix": where `object` stands, said by whom it
    /// stands clearly nearest ("in front of you" to the one asking), where the
    /// table was laid and the robot has not moved it since; else "on the table".
    fn place_of(&self, s: &Situation<'_>, object: &str) -> String {
        let world = &self.world;
        let moved = s
            .dialogue
            .done_before
            .iter()
            .chain(&s.dialogue.done)
            .any(|d| {
                d.name != "point_at_object_or_person"
                    && !d.name.starts_with("check_")
                    && d.args
                        .as_object()
                        .is_some_and(|args| args.values().any(|v| v.as_str() == Some(object)))
            });
        let Some(base) = world
            .object_named(object)
            .filter(|_| !moved)
            .map(|o| world.object_base(o))
        else {
            return self.speech.say("answer.place_table", &[]);
        };
        let mut by_distance: Vec<(f32, &str)> = world
            .persons()
            .iter()
            .map(|p| ((p.position - base.truncate()).length(), p.name.as_str()))
            .collect();
        by_distance.sort_by(|a, b| a.0.total_cmp(&b.0));
        match by_distance.as_slice() {
            [(near, person), rest @ ..]
                if *near < IN_FRONT_OF_M
                    && rest
                        .first()
                        .is_none_or(|(next, _)| next - near >= CLEARLY_NEARER_M) =>
            {
                if s.sender.as_deref() == Some(*person) {
                    self.speech.say("answer.place_before_you", &[])
                } else {
                    self.speech
                        .say("answer.place_before", &[("person", person)])
                }
            }
            _ => self.speech.say("answer.place_table", &[]),
        }
    }

    /// "Who has the smartphone?"
    pub(super) fn who_has(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.answerable(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        let object = match self.asked_object(s, &listed) {
            Ok(o) => o,
            Err(calls) => return calls,
        };
        let text = match listed
            .iter()
            .find(|l| l.name == object)
            .and_then(|l| l.held_by.clone())
        {
            Some(holder) => self.holder_has(&holder, &object),
            None => self.nobody_holds(s, &object),
        };
        self.say(s, text)
    }

    /// Nobody holds `object`: it is on the table, by the one it stands nearest.
    fn nobody_holds(&self, s: &Situation<'_>, object: &str) -> String {
        let world = s
            .dialogue
            .find("get_objects")
            .and_then(|l| self.as_listed(&l.result))
            .unwrap_or_else(|| self.world.clone());
        let thing = self.speech.object(object);
        let nearest = world
            .object_named(object)
            .and_then(|o| match whereabouts::of(&world, o)? {
                Whereabouts::By(p) => Some(world.person(p).name.clone()),
                Whereabouts::HeldBy(_) => None,
            });
        match nearest {
            Some(person) if Some(&person) == s.sender.as_ref() => self
                .speech
                .say("answer.nobody_holds_by_you", &[("object", &thing)]),
            Some(person) => self.speech.say(
                "answer.nobody_holds_by",
                &[("object", &thing), ("person", &person)],
            ),
            None => self
                .speech
                .say("answer.nobody_holds", &[("object", &thing)]),
        }
    }

    /// "Can Daniel reach the red glass?", "can you see the cola zero?"
    pub(super) fn ability(&self, s: &Situation<'_>) -> Calls {
        if !s.robot_addressed {
            return self.asked_for_by_reach(s);
        }
        let slots = &s.reading.slots;
        let object = match self.pick(s, slots.object.as_ref()) {
            Pick::One(o) => o,
            Pick::Missing => {
                return match self.listed(s) {
                    Ok(listed) => self.unknown_object(s, &listed),
                    Err(calls) => calls,
                }
            }
            Pick::Done(calls) => return calls,
        };
        let person = slots.person.as_ref().and_then(|p| p.name.clone())?;
        let see = slots.ability.as_deref() == Some("see");
        let thing = self.speech.object(&object);
        if person == self.world.robot.name {
            if see {
                return self.say(
                    s,
                    self.speech.say("answer.robot_sees", &[("object", &thing)]),
                );
            }
            let args = json!({"object_name": object});
            let Some(check) = s.dialogue.find_with("check_reach_object_for_robot", &args) else {
                return Some(vec![call("check_reach_object_for_robot", args)]);
            };
            let text = if Hindrance::from_robot_check(&check.result).object.is_some() {
                self.speech
                    .say("answer.robot_reaches", &[("object", &thing)])
            } else {
                self.speech.say(
                    "answer.robot_cannot_reach",
                    &[(
                        "reason",
                        &self.robot_reason(&check.result, &s.sender_or_all()),
                    )],
                )
            };
            return self.say(s, text);
        }
        let args = json!({"person_name": person, "object_name": object});
        let Some(check) = s.dialogue.find_with("check_hindering_reasons", &args) else {
            return Some(vec![call("check_hindering_reasons", args)]);
        };
        let h = Hindrance::from_check(&check.result, &person);
        let key = match (see, &h.cannot_see, h.cannot_reach) {
            (true, None, _) => "answer.person_sees",
            (true, Some(_), _) => "answer.person_cannot_see",
            (false, _, false) => "answer.person_reaches",
            (false, _, true) => "answer.person_cannot_reach",
        };
        let occluder = self.occluder(&h);
        let text = self.speech.say(
            key,
            &[
                ("person", &person),
                ("object", &thing),
                ("occluder", &occluder),
            ],
        );
        self.say(s, text)
    }

    /// "What is in the blue glass?"
    pub(super) fn contents(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.answerable(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        if let Some(calls) = self.which_hold(s, &listed) {
            return calls;
        }
        let object = match self.asked_object(s, &listed) {
            Ok(o) => o,
            Err(calls) => return calls,
        };
        let thing = self.speech.object_first(&object);
        let text = match listed.iter().find(|l| l.name == object) {
            Some(Listed {
                contains: Some(liquid),
                added,
                ..
            }) => self.speech.say(
                "answer.contains",
                &[
                    ("object", &thing),
                    ("liquid", &self.speech.drink(liquid, added)),
                ],
            ),
            Some(Listed { empty: true, .. }) => {
                self.speech.say("answer.empty", &[("object", &thing)])
            }
            _ => self.describe_object(&object),
        };
        self.say(s, text)
    }

    /// "Which glasses have cola in them?": of several things asked about with a
    /// drink, those that hold it; `None` for one thing or no drink said.
    fn which_hold(&self, s: &Situation<'_>, listed: &[Listed]) -> Option<Calls> {
        let slots = &s.reading.slots;
        let liquid = slots.liquid.as_deref()?;
        let several = slots.object.as_ref()?.every_fitting();
        if several.len() < 2 {
            return None;
        }
        let holds = |l: &&Listed| {
            l.contains
                .as_deref()
                .is_some_and(|c| c.starts_with(liquid) || c.split_whitespace().any(|w| w == liquid))
        };
        let holding: Vec<String> = listed
            .iter()
            .filter(|l| several.contains(&l.name))
            .filter(holds)
            .map(|l| l.name.clone())
            .collect();
        let speech = &self.speech;
        let drink = speech.drink(liquid, &[]);
        let text = match holding.as_slice() {
            [] => speech.say("answer.none_hold", &[("liquid", &drink)]),
            some => speech.say(
                "answer.which_hold",
                &[
                    ("liquid", &drink),
                    ("objects", &speech.and_list(&self.naturals(some))),
                ],
            ),
        };
        Some(self.say(s, text))
    }

    /// "Robot, we have beer?": a claim of one thing said to the robot as a
    /// question (its voice rose; the recogniser wrote "?") asks whether it is there.
    pub(super) fn inventory_asked(&self, s: &Situation<'_>) -> Calls {
        let slots = &s.reading.slots;
        let asked = s.robot_addressed
            && s.dialogue.turn.text.trim_end().ends_with('?')
            && slots.items.len() == 1
            && slots.unknown_items.is_empty()
            && !slots.only;
        if !asked {
            return self.inventory_claim(s);
        }
        let mut reading = s.reading.clone();
        reading.act = Act::AskHave;
        reading.slots.object = reading.slots.items.pop();
        self.have(&Situation {
            reading,
            receiver: s.receiver.clone(),
            sender: s.sender.clone(),
            ..*s
        })
    }

    /// "We only have fanta." — corrected when the table has more, or less.
    pub(super) fn inventory_claim(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.listed(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        let slots = &s.reading.slots;
        let liquid_of = |m: &ObjectMention| {
            m.candidates
                .iter()
                .find_map(|c| listed.iter().find(|l| &l.name == c)?.contains.clone())
        };
        let said: Vec<String> = slots.items.iter().filter_map(liquid_of).collect();
        // A list naming one thing twice ("milk, pot and milk", misheard) is no
        // careful count of what there is.
        let names_twice = (1..said.len()).any(|i| said[..i].contains(&said[i]));
        let complete =
            !names_twice && (slots.only || slots.items.len() + slots.unknown_items.len() >= 2);
        let missing: Vec<String> = drinks(&listed)
            .into_iter()
            .filter(|d| !said.contains(d))
            .collect();
        let mut corrections = Vec::new();
        let speech = &self.speech;
        if !slots.unknown_items.is_empty() {
            let things = speech.and_list(&slots.unknown_items);
            corrections.push(speech.say("correct.no_such", &[("things", &things)]));
        }
        if complete && !said.is_empty() && !missing.is_empty() {
            let things = speech.and_list(&speech.nouns(&missing));
            corrections.push(speech.say("correct.also", &[("things", &things)]));
        }
        if corrections.is_empty() {
            return self.agree(s);
        }
        let corrections = speech.and_list(&corrections);
        self.say_to(
            s,
            "All".into(),
            speech.say("correct.interrupt", &[("corrections", &corrections)]),
        )
    }

    /// "There is no beer left." — corrected when there is.
    pub(super) fn absence_claim(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.listed(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        let slots = &s.reading.slots;
        let mentions: Vec<&ObjectMention> = match (&slots.object, slots.items.as_slice()) {
            (Some(mention), _) => vec![mention],
            (None, []) => return self.filtered_absence_claim(s, &listed),
            (None, items) => items.iter().collect(),
        };
        let present: Vec<&Listed> = listed
            .iter()
            .filter(|l| mentions.iter().any(|m| m.candidates.contains(&l.name)))
            .collect();
        // "So, phone's away": where someone put their own thing, nothing the table lacks.
        let personal = |l: &&Listed| {
            self.world
                .object_named(&l.name)
                .is_some_and(|id| self.world.object(id).kind.personal)
        };
        if !present.is_empty() && present.iter().all(personal) {
            return None;
        }
        // "The cola and the fanta are all gone": what each still holds.
        if mentions.len() > 1 && present.iter().any(|l| l.contains.is_some()) {
            let held = present.iter().filter(|l| l.contains.is_some());
            let parts: Vec<String> = held.map(|l| self.held_in(l)).collect();
            let parts = self.speech.and_list(&parts);
            let text = self.speech.say("correct.still", &[("parts", &parts)]);
            return self.say_to(s, "All".into(), text);
        }
        // "There are no glasses": every empty one still here is named.
        if present.len() > 1 && present.iter().all(|l| l.contains.is_none()) {
            let names: Vec<String> = present
                .iter()
                .map(|l| self.speech.object(&l.name))
                .collect();
            let objects = self.speech.and_list(&names);
            let text = self
                .speech
                .say("correct.all_still_here", &[("objects", &objects)]);
            return self.say_to(s, "All".into(), text);
        }
        let text = match present
            .iter()
            .find(|l| l.contains.is_some())
            .or(present.first())
        {
            Some(Listed {
                name,
                contains: Some(liquid),
                ..
            }) => self.speech.say(
                "correct.still_in",
                &[
                    ("liquid", &self.speech.noun(liquid)),
                    ("object", &self.speech.object(name)),
                ],
            ),
            Some(Listed { name, .. }) => self.speech.say(
                "correct.still_here",
                &[("object", &self.speech.object(name))],
            ),
            None if s.robot_addressed => {
                let said: Vec<String> = mentions.iter().map(|m| self.said_bare(m)).collect();
                let thing = self.speech.and_list(&said);
                return self.say(
                    s,
                    self.speech
                        .say("correct.agreed_absent", &[("thing", &thing)]),
                );
            }
            None => return None,
        };
        self.say_to(s, "All".into(), text)
    }

    /// "Both glasses are full." — corrected when they are not.
    pub(super) fn contents_claim(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.listed(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        let mention = s.reading.slots.object.as_ref()?;
        let said: Vec<&Listed> = listed
            .iter()
            .filter(|l| mention.candidates.contains(&l.name))
            .collect();
        if let Some(liquid) = s.reading.slots.liquid.as_deref() {
            return self.holding_claim(s, &said, liquid);
        }
        if s.reading.slots.filter.is_some() && s.reading.slots.fill.is_none() {
            return self.property_claim(s, mention);
        }
        let claimed_full = s.reading.slots.fill.as_deref() == Some("full");
        let wrong: Vec<&&Listed> = said
            .iter()
            .filter(|l| {
                if claimed_full {
                    l.contains.is_none()
                } else {
                    l.contains.is_some()
                }
            })
            .collect();
        if wrong.is_empty() {
            return if said.is_empty() { None } else { self.agree(s) };
        }
        let text = if claimed_full {
            self.are_empty(&wrong)
        } else {
            let parts: Vec<String> = wrong.iter().map(|l| self.held_in(l)).collect();
            let parts = self.speech.and_list(&parts);
            self.speech.say("correct.still", &[("parts", &parts)])
        };
        self.say_to(s, "All".into(), text)
    }

    /// "The beer is alcohol-free." — corrected for each thing said that is known
    /// not to be; silence where the table cannot tell.
    fn property_claim(&self, s: &Situation<'_>, mention: &ObjectMention) -> Calls {
        let filter = self
            .understanding
            .grammar()
            .filters
            .get(s.reading.slots.filter.as_deref()?)?;
        // "The oat milk is full of lactose": a claim that it does not pass.
        let negated = s.reading.slots.negated;
        let wrong = filter.wrongly_claimed(&self.world, &mention.candidates, negated);
        let key = match negated {
            true => "correct.is_filter",
            false => "correct.not_filter",
        };
        if wrong.is_empty() {
            return None;
        }
        let names: Vec<String> = wrong.iter().map(|n| self.speech.object(n)).collect();
        let text = self.speech.say(
            key,
            &[
                ("object", &self.speech.and_list(&names)),
                ("filter", filter.said_of_a_thing()),
            ],
        );
        self.say_to(s, "All".into(), text)
    }

    /// "Sorry to interrupt: the red glass is empty." for the containers listed.
    fn are_empty(&self, empty: &[&&Listed]) -> String {
        let speech = &self.speech;
        let names: Vec<String> = empty.iter().map(|l| speech.object(&l.name)).collect();
        let key = match names.len() {
            1 => "correct.is_empty",
            _ => "correct.are_empty",
        };
        speech.say(key, &[("objects", &speech.and_list(&names))])
    }

    /// "cola in the red glass", or "nothing in the red glass".
    fn held_in(&self, listed: &Listed) -> String {
        let object = self.speech.object(&listed.name);
        match &listed.contains {
            Some(held) => self.speech.say(
                "correct.liquid_in",
                &[("liquid", &self.speech.noun(held)), ("object", &object)],
            ),
            None => self
                .speech
                .say("correct.nothing_in", &[("object", &object)]),
        }
    }

    /// "There is tea in the big cup." — corrected for each container that holds
    /// something else or nothing.
    /// Negated ("there's no coffee in your cup"), for each one that does hold it.
    fn holding_claim(&self, s: &Situation<'_>, said: &[&Listed], liquid: &str) -> Calls {
        let negated = s.reading.slots.negated;
        let wrong: Vec<&&Listed> = said
            .iter()
            .filter(|l| (l.contains.as_deref() == Some(liquid)) == negated)
            .collect();
        if wrong.is_empty() {
            return self.agree_holding(s, said);
        }
        let text = if wrong.iter().all(|l| l.contains.is_none()) {
            self.are_empty(&wrong)
        } else {
            let parts: Vec<String> = wrong.iter().map(|l| self.held_in(l)).collect();
            let parts = self.speech.and_list(&parts);
            self.speech.say("correct.holds", &[("parts", &parts)])
        };
        self.say_to(s, "All".into(), text)
    }

    /// "Yes, that is right: there is coffee in the coffee pot." to a true claim
    /// of what things hold said to the robot ("that's my coffee, right?" asks it).
    fn agree_holding(&self, s: &Situation<'_>, said: &[&Listed]) -> Calls {
        if said.is_empty() || !s.robot_addressed {
            return None;
        }
        let parts: Vec<String> = said.iter().map(|l| self.held_in(l)).collect();
        let parts = self.speech.and_list(&parts);
        self.say(
            s,
            self.speech.say("answer.right_holds", &[("parts", &parts)]),
        )
    }

    /// "The glass in front of you is the red one." — corrected when the thing
    /// described is another one of the kind named.
    pub(super) fn which_claim(&self, s: &Situation<'_>) -> Calls {
        let (described, claimed) = s.reading.which_one()?;
        if claimed.contains(&described) {
            return self.agree(s);
        }
        let speech = &self.speech;
        let named: Vec<String> = claimed.iter().map(|c| speech.object(c)).collect();
        let text = speech.say(
            "correct.is_another",
            &[
                ("object", &speech.object(&described)),
                ("claimed", &speech.or_list(&named)),
            ],
        );
        self.say_to(s, "All".into(), text)
    }

    /// "We've got three mugs." — corrected when the table has another number of them.
    pub(super) fn count_claim(&self, s: &Situation<'_>) -> Calls {
        let mention = s.reading.slots.object.as_ref()?;
        let claimed: usize = s.reading.slots.count.as_deref()?.parse().ok()?;
        let there = mention.every_fitting();
        if there.len() == claimed {
            return self.agree(s);
        }
        let keys = ["correct.none_of", "correct.only_one", "correct.several"];
        let text = self.how_many(mention, there, keys);
        self.say_to(s, "All".into(), text)
    }

    /// "How many glasses do we have?": the number and the things, when asked.
    pub(super) fn count_question(&self, s: &Situation<'_>) -> Calls {
        if !s.robot_addressed {
            return None;
        }
        let mention = s.reading.slots.object.as_ref()?;
        let keys = [
            "answer.count_none",
            "answer.count_one",
            "answer.count_several",
        ];
        let text = self.how_many(mention, mention.every_fitting(), keys);
        self.say(s, text)
    }

    /// How many of `mention` there are, by the sentences for none, one and
    /// several: "There are two: the red glass and the blue glass."
    fn how_many(&self, mention: &ObjectMention, there: &[String], keys: [&str; 3]) -> String {
        let speech = &self.speech;
        match there {
            [] => speech.say(keys[0], &[("thing", &self.said_bare(mention))]),
            [one] => speech.say(keys[1], &[("object", &speech.object(one))]),
            many => speech.say(
                keys[2],
                &[
                    ("number", &speech.number(many.len())),
                    ("objects", &speech.and_list(&self.naturals(many))),
                ],
            ),
        }
    }

    /// "There is nothing without alcohol." — corrected when there is.
    fn filtered_absence_claim(&self, s: &Situation<'_>, listed: &[Listed]) -> Calls {
        let filter = self
            .understanding
            .grammar()
            .filters
            .get(s.reading.slots.filter.as_deref()?)?;
        let fitting = liquids(&self.fitting(filter, listed), listed);
        if fitting.is_empty() {
            return None;
        }
        let drinks = self.speech.and_list(&self.speech.nouns(&fitting));
        self.say_to(
            s,
            "All".into(),
            self.speech.say(
                "correct.there_is_fitting",
                &[("drinks", &drinks), ("filter", &filter.say)],
            ),
        )
    }

    /// Thanks, greetings, goodbyes, who it is, what it can do, "no thanks":
    /// answered when addressed, silence between people.
    pub(super) fn social(&self, s: &Situation<'_>) -> Calls {
        if !s.robot_addressed {
            return None;
        }
        let name = &self.world.robot.name;
        // A name people gave it ("Robbie") is said; an id (`the_robot`) never is.
        let named = name.chars().next().is_some_and(char::is_uppercase);
        let robot: &[(&str, &str)] = &[("robot", name)];
        let about_itself = |key: &str| match named {
            true => self.speech.say(key, robot),
            false => self.speech.say(&format!("{key}_unnamed"), &[]),
        };
        let example = self.example_object();
        let text = match s.reading.act {
            Act::Thanks => self.speech.say("social.thanks", &[]),
            Act::Greeting => about_itself("social.greeting"),
            Act::Farewell => self.speech.say("social.farewell", &[]),
            Act::Identity => about_itself("social.identity"),
            Act::Capabilities => self
                .speech
                .say("social.capabilities", &[("example", &example)]),
            _ => self.speech.say("social.declined", &[]),
        };
        self.say(s, text)
    }

    /// Addressed and not understood: one sentence with an example; between
    /// people, in a remark to everyone, when nothing but fillers and
    /// politeness was said ("please" heard after a pause, "um"), and for a
    /// tail of the same person's turn before ([`is_a_tail`]), silence.
    pub(super) fn not_understood(&self, s: &Situation<'_>) -> Calls {
        if !s.robot_named || s.reading.said_nothing() || is_a_tail(s, &self.world.robot.name) {
            return None;
        }
        let example = self.example_object();
        self.say(
            s,
            self.speech
                .say("social.not_understood", &[("example", &example)]),
        )
    }

    /// "The box is a cereal box.": what a thing without a drink is.
    fn describe_object(&self, name: &str) -> String {
        let thing = self.speech.object_first(name);
        let object = self
            .world
            .object_named(name)
            .map(|id| self.world.object(id));
        match object.and_then(|o| Some((o.properties.first()?, o))) {
            Some((word, object)) => self.speech.say(
                "answer.what_it_is",
                &[
                    ("object", &thing),
                    ("property", word),
                    ("kind", &bare(&object.kind.name)),
                ],
            ),
            None => self
                .speech
                .say("answer.holds_nothing", &[("object", &thing)]),
        }
    }

    /// The natural name of what hides the thing, or nothing.
    pub(super) fn occluder(&self, h: &Hindrance) -> String {
        h.cannot_see
            .as_deref()
            .map(|o| self.speech.object(o))
            .unwrap_or_default()
    }

    /// "Yes, that is right." to a true claim said to the robot; nothing otherwise.
    pub(super) fn agree(&self, s: &Situation<'_>) -> Calls {
        if s.robot_addressed {
            self.say(s, self.speech.say("answer.right", &[]))
        } else {
            None
        }
    }

    /// "Daniel has the red glass."
    fn holder_has(&self, holder: &str, object: &str) -> String {
        self.speech.say(
            "answer.holder_has",
            &[("person", holder), ("object", &self.speech.object(object))],
        )
    }

    /// What was said for a thing, without its article: "the bubbly" -> "bubbly".
    pub(super) fn said_bare(&self, m: &ObjectMention) -> String {
        let said = m.said.as_str();
        let articles = self.speech.word("words.articles");
        articles
            .split_whitespace()
            .find_map(|a| said.strip_prefix(a)?.strip_prefix(' '))
            .unwrap_or(said)
            .to_string()
    }

    /// Natural names of objects by id.
    pub(super) fn naturals(&self, names: &[String]) -> Vec<String> {
        names.iter().map(|n| self.speech.object(n)).collect()
    }

    /// "the red glass with cola", or just its name.
    fn describe(&self, o: &Listed) -> String {
        match &o.contains {
            Some(liquid) => self.speech.with_contents(&o.name, liquid),
            None => self.speech.object(&o.name),
        }
    }

    fn example_object(&self) -> String {
        self.world
            .objects()
            .iter()
            .find(|o| o.kind.drinking_vessel)
            .or(self.world.objects().first())
            .map(|o| self.speech.object(&o.name))
            .unwrap_or_else(|| self.speech.word("names.example").to_string())
    }

    /// The one object a question is about; else the calls that say what the
    /// table has instead, or ask which one was meant.
    fn asked_object(&self, s: &Situation<'_>, listed: &[Listed]) -> Result<String, Calls> {
        match self.pick(s, s.reading.slots.object.as_ref()) {
            Pick::One(o) => Ok(o),
            Pick::Missing => Err(self.unknown_object(s, listed)),
            Pick::Done(calls) => Err(calls),
        }
    }

    /// The one object a question is about, or what to do instead.
    fn pick(&self, s: &Situation<'_>, mention: Option<&ObjectMention>) -> Pick {
        let Some(mention) = mention else {
            return Pick::Done(None);
        };
        match mention.candidates.as_slice() {
            [] => Pick::Missing,
            [one] => Pick::One(one.clone()),
            several => {
                let choices = self.speech.or_list(&self.naturals(several));
                Pick::Done(
                    self.say(
                        s,
                        self.speech
                            .say("answer.which_one", &[("choices", &choices)]),
                    ),
                )
            }
        }
    }

    fn unknown_object(&self, s: &Situation<'_>, listed: &[Listed]) -> Calls {
        // Between people, a thing the table does not show is the listener's to
        // answer for ("Where did you put the masking tape?"), busy or not.
        if !s.robot_addressed {
            return None;
        }
        let said = s
            .reading
            .main_object()
            .map(|m| self.said_bare(m))
            .unwrap_or_else(|| self.speech.word("names.unknown_thing").to_string());
        let here: Vec<String> =
            self.naturals(&listed.iter().map(|o| o.name.clone()).collect::<Vec<_>>());
        let things = self.speech.and_list(&here);
        self.say(
            s,
            self.speech.say(
                "answer.unknown_object",
                &[("thing", &said), ("things", &things)],
            ),
        )
    }
}

/// The object a question is about.
enum Pick {
    /// Exactly one.
    One(String),
    /// The table has nothing like it.
    Missing,
    /// Asked which one (or nothing to ask about): these calls instead.
    Done(Calls),
}

/// The liquids of the named objects, once each, in order.
fn liquids(names: &[String], listed: &[Listed]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for liquid in names
        .iter()
        .filter_map(|n| listed.iter().find(|l| &l.name == n)?.contains.clone())
    {
        if !out.contains(&liquid) {
            out.push(liquid);
        }
    }
    out
}

/// The farthest a thing stands from a person's seat to be "in front of" them, metres.
const IN_FRONT_OF_M: f32 = 0.7;
/// How much nearer one person it must stand than anyone else, metres.
const CLEARLY_NEARER_M: f32 = 0.2;

/// Most words a tail of the turn before may have ("would you", "for me then").
const TAIL_WORDS: usize = 3;

/// A few words no sentence reads, right after the same person's turn to the
/// same listener: the tail of that turn, heard as a turn of its own after a
/// pause ("count the glasses for me, | would you?" heard "What do you?").
/// Answering it would keep the half-duplex microphone shut while they go on.
/// A turn that names the robot ("Arigato, robot!") is said to it afresh, no tail.
fn is_a_tail(s: &Situation<'_>, robot: &str) -> bool {
    let turn = &s.dialogue.turn;
    let same_person =
        s.dialogue.earlier.last().is_some_and(|before| {
            before.speaker == turn.speaker && before.listener == turn.listener
        });
    if !same_person || turn.text.split_whitespace().count() > TAIL_WORDS {
        return false;
    }
    // "robot" of `the_robot`, also as the start of "Roboter".
    let robot_words: Vec<String> = crate::twin::grounding::words(robot)
        .into_iter()
        .filter(|w| w.chars().count() >= 4)
        .collect();
    !crate::twin::grounding::words(&turn.text)
        .iter()
        .any(|w| robot_words.iter().any(|r| w.starts_with(r.as_str())))
}

impl RulesBrain {
    /// "Wenjing, can I get at the jasmine tea?": asked of another person, a
    /// question whether the speaker reaches a thing asks that person for it;
    /// so does one whether the listener reaches it ("Morven, can you stretch
    /// to the whisky?"), for the speaker.
    fn asked_for_by_reach(&self, s: &Situation<'_>) -> Calls {
        let slots = &s.reading.slots;
        let asked = slots.person.as_ref().and_then(|p| p.name.clone());
        if s.receiver.is_none() || asked.is_none() {
            return None;
        }
        // "Can I reach the jug?" asks for it for the sender; "Morven, can you
        // stretch to the whisky?" asks the listener to pass it to the sender.
        let recipient = if asked == s.sender {
            slots.person.clone()
        } else if asked == s.receiver {
            s.sender.clone().map(|name| PersonMention {
                said: "me".into(),
                name: Some(name),
            })
        } else {
            return None;
        };
        if slots.ability.as_deref() != Some("reach") {
            return None;
        }
        let mut reading = s.reading.clone();
        reading.act = Act::Give;
        reading.slots.recipient = recipient;
        let asked = Situation {
            reading,
            receiver: s.receiver.clone(),
            sender: s.sender.clone(),
            ..*s
        };
        self.request(&asked)
    }
}
