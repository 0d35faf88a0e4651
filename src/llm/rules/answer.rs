//! Questions, statements, social talk and what was not understood.

use serde_json::json;

use super::facts::{
    and_list, bare, drinks, listing, natural, naturals, or_list, Hindrance, Listed,
};
use super::{call, Calls, RulesBrain, Situation};
use crate::understanding::{Act, ObjectMention};

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
            Some(check) => Ok(check.result.contains("is busy")),
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
        let text = if let Some(filter_name) = &slots.filter {
            let grammar = self.understanding.grammar();
            let Some(filter) = grammar.filters.get(filter_name) else {
                return self.say(s, format!("We have {} to drink.", and_list(&all_drinks)));
            };
            let fitting = liquids(&self.fitting(filter, &listed), &listed);
            if fitting.is_empty() {
                format!(
                    "There is nothing {} here; we have {}.",
                    filter.say,
                    and_list(&all_drinks)
                )
            } else {
                format!(
                    "{}: we have {}.",
                    capitalised(&filter.say),
                    and_list(&fitting)
                )
            }
        } else if slots.category.as_deref() == Some("food") {
            format!(
                "There is nothing to eat on the table; to drink we have {}.",
                and_list(&all_drinks)
            )
        } else if slots.category.as_deref() == Some("drink")
            || !all_drinks.is_empty()
                && slots.category.is_none()
                && !s.reading.heard.contains("table")
        {
            format!("We have {} to drink.", and_list(&all_drinks))
        } else {
            let names: Vec<String> = listed.iter().map(describe).collect();
            format!("On the table there are {}.", and_list(&names))
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
                Some(liquid) => format!("Yes, there is {liquid} in {}.", natural(&l.name)),
                None => format!("Yes, there is {} on the table.", natural(&l.name)),
            },
            None => format!(
                "No, there is no {} here. We have {}.",
                said_bare(mention),
                and_list(&drinks(&listed))
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
            return self.say(s, format!("{holder} has {}.", natural(&object)));
        }
        let Some(sender) = s.sender.clone() else {
            return self.say(
                s,
                format!(
                    "{} is on the table; I am pointing at it.",
                    capitalised(&natural(&object))
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
        let mut text = format!("{} is on the table", capitalised(&natural(&object)));
        if let Some(occluder) = &h.cannot_see {
            text.push_str(&format!(", hidden from you behind the {}", bare(occluder)));
        }
        text.push_str(if h.cannot_reach {
            ", out of your reach; I am pointing at it."
        } else {
            ", within your reach; I am pointing at it."
        });
        self.say(s, text)
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
            Some(holder) => format!("{holder} has {}.", natural(&object)),
            None => format!("Nobody holds {}; it is on the table.", natural(&object)),
        };
        self.say(s, text)
    }

    /// "Can Daniel reach the red glass?", "can you see the cola zero?"
    pub(super) fn ability(&self, s: &Situation<'_>) -> Calls {
        if !s.robot_addressed {
            return None;
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
        let thing = natural(&object);
        if person == self.world.robot.name {
            if see {
                return self.say(s, format!("Yes, I can see {thing}."));
            }
            let args = json!({"object_name": object});
            let Some(check) = s.dialogue.find_with("check_reach_object_for_robot", &args) else {
                return Some(vec![call("check_reach_object_for_robot", args)]);
            };
            let text = if Hindrance::from_robot_check(&check.result).object.is_some() {
                format!("Yes, I can reach {thing}.")
            } else {
                format!("No: {}", check.result)
            };
            return self.say(s, text);
        }
        let args = json!({"person_name": person, "object_name": object});
        let Some(check) = s.dialogue.find_with("check_hindering_reasons", &args) else {
            return Some(vec![call("check_hindering_reasons", args)]);
        };
        let h = Hindrance::from_check(&check.result, &person);
        let text = match (see, &h.cannot_see, h.cannot_reach) {
            (true, None, _) => format!("Yes, {person} can see {thing}."),
            (true, Some(o), _) => format!(
                "No, {person} cannot see {thing}: it is hidden behind the {}.",
                bare(o)
            ),
            (false, _, false) => format!("Yes, {person} can reach {thing}."),
            (false, _, true) => format!("No, {person} cannot reach {thing}."),
        };
        self.say(s, text)
    }

    /// "What is in the blue glass?"
    pub(super) fn contents(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.answerable(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        let object = match self.asked_object(s, &listed) {
            Ok(o) => o,
            Err(calls) => return calls,
        };
        let thing = capitalised(&natural(&object));
        let text = match listed.iter().find(|l| l.name == object) {
            Some(Listed {
                contains: Some(liquid),
                ..
            }) => format!("{thing} contains {liquid}."),
            Some(Listed { empty: true, .. }) => format!("{thing} is empty."),
            _ => self.describe_object(&object),
        };
        self.say(s, text)
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
        let complete = slots.only || slots.items.len() + slots.unknown_items.len() >= 2;
        let missing: Vec<String> = drinks(&listed)
            .into_iter()
            .filter(|d| !said.contains(d))
            .collect();
        let mut corrections = Vec::new();
        if !slots.unknown_items.is_empty() {
            corrections.push(format!(
                "there is no {} here",
                and_list(&slots.unknown_items)
            ));
        }
        if complete && !said.is_empty() && !missing.is_empty() {
            corrections.push(format!("there is also {}", and_list(&missing)));
        }
        if corrections.is_empty() {
            return if s.robot_addressed {
                self.say(s, "Yes, that is right.".into())
            } else {
                None
            };
        }
        self.say_to(
            s,
            "All".into(),
            format!("Sorry to interrupt: {}.", and_list(&corrections)),
        )
    }

    /// "There is no beer left." — corrected when there is.
    pub(super) fn absence_claim(&self, s: &Situation<'_>) -> Calls {
        let listed = match self.listed(s) {
            Ok(l) => l,
            Err(calls) => return calls,
        };
        let Some(mention) = s.reading.slots.object.as_ref() else {
            return self.filtered_absence_claim(s, &listed);
        };
        let present: Vec<&Listed> = listed
            .iter()
            .filter(|l| mention.candidates.contains(&l.name))
            .collect();
        let text = match present
            .iter()
            .find(|l| l.contains.is_some())
            .or(present.first())
        {
            Some(Listed {
                name,
                contains: Some(liquid),
                ..
            }) => {
                format!(
                    "Sorry to interrupt: there is still {liquid} in {}.",
                    natural(name)
                )
            }
            Some(Listed { name, .. }) => {
                format!("Sorry to interrupt: {} is still here.", natural(name))
            }
            None if s.robot_addressed => {
                return self.say(
                    s,
                    format!("Right, there is no {} here.", said_bare(mention)),
                )
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
        let claimed_full = s.reading.slots.fill.as_deref() == Some("full");
        let said: Vec<&Listed> = listed
            .iter()
            .filter(|l| mention.candidates.contains(&l.name))
            .collect();
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
            return if s.robot_addressed && !said.is_empty() {
                self.say(s, "Yes, that is right.".into())
            } else {
                None
            };
        }
        let text = if claimed_full {
            let names: Vec<String> = wrong.iter().map(|l| natural(&l.name)).collect();
            let verb = if names.len() > 1 { "are" } else { "is" };
            format!("Sorry to interrupt: {} {verb} empty.", and_list(&names))
        } else {
            let parts: Vec<String> = wrong
                .iter()
                .map(|l| {
                    format!(
                        "{} in {}",
                        l.contains.clone().unwrap_or_default(),
                        natural(&l.name)
                    )
                })
                .collect();
            format!("Sorry to interrupt: there is still {}.", and_list(&parts))
        };
        self.say_to(s, "All".into(), text)
    }

    /// "We've got three mugs." — corrected when the table has another number of them.
    pub(super) fn count_claim(&self, s: &Situation<'_>) -> Calls {
        let mention = s.reading.slots.object.as_ref()?;
        let claimed: usize = s.reading.slots.count.as_deref()?.parse().ok()?;
        let there = mention.every_fitting();
        if there.len() == claimed {
            return if s.robot_addressed {
                self.say(s, "Yes, that is right.".into())
            } else {
                None
            };
        }
        let text = match there {
            [] => format!(
                "Sorry to interrupt: there is no {} here.",
                said_bare(mention)
            ),
            [one] => format!("Sorry to interrupt: there is only one, {}.", natural(one)),
            many => format!(
                "Sorry to interrupt: there are {}, {}.",
                number_word(many.len()),
                and_list(&naturals(many))
            ),
        };
        self.say_to(s, "All".into(), text)
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
        self.say_to(
            s,
            "All".into(),
            format!(
                "Sorry to interrupt: there is {}, {}.",
                and_list(&fitting),
                filter.say
            ),
        )
    }

    /// Thanks, greetings, goodbyes, who it is, what it can do, "no thanks":
    /// answered when addressed, silence between people.
    pub(super) fn social(&self, s: &Situation<'_>) -> Calls {
        if !s.robot_addressed {
            return None;
        }
        let robot = &self.world.robot.name;
        let text = match s.reading.act {
            Act::Thanks => "You are welcome.".to_string(),
            Act::Greeting => format!("Hello! I am {robot}, the robot at this table. Ask me for anything on it."),
            Act::Farewell => "Goodbye!".to_string(),
            Act::Identity => format!(
                "I am {robot}, the robot at this table, run by the rules baseline without a language model. I step in when someone cannot see or reach something or is busy, and I answer questions about the table."
            ),
            Act::Capabilities => self.capabilities(),
            _ => "All right, I will leave it.".to_string(),
        };
        self.say(s, text)
    }

    /// Addressed and not understood: one sentence with an example; between people, silence.
    pub(super) fn not_understood(&self, s: &Situation<'_>) -> Calls {
        if !s.robot_addressed {
            return None;
        }
        let example = self.example_object();
        self.say(
            s,
            format!(
                "Sorry, I did not understand that. You can say, for example: please hand me {example}, or: what is there to drink?"
            ),
        )
    }

    /// "The box is a cereal box.": what a thing without a drink is.
    fn describe_object(&self, name: &str) -> String {
        let thing = capitalised(&natural(name));
        let Some(object) = self
            .world
            .object_named(name)
            .map(|id| self.world.object(id))
        else {
            return format!("{thing} holds nothing to drink.");
        };
        match object.properties.first() {
            Some(word) => format!(
                "{thing} is a {word} {}, with nothing to drink in it.",
                bare(&object.kind.name)
            ),
            None => format!("{thing} holds nothing to drink."),
        }
    }

    fn capabilities(&self) -> String {
        let example = self.example_object();
        format!(
            "I can hand you things from the table, put them within your reach or take them away, pour drinks, and tell you what is on the table, where things are and who can reach them. Try: please hand me {example}."
        )
    }

    fn example_object(&self) -> String {
        self.world
            .objects()
            .iter()
            .find(|o| o.kind.drinking_vessel)
            .or(self.world.objects().first())
            .map(|o| natural(&o.name))
            .unwrap_or_else(|| "the glass".into())
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
            several => Pick::Done(self.say(
                s,
                format!("Which one do you mean: {}?", or_list(&naturals(several))),
            )),
        }
    }

    fn unknown_object(&self, s: &Situation<'_>, listed: &[Listed]) -> Calls {
        let said = s
            .reading
            .main_object()
            .map(said_bare)
            .unwrap_or_else(|| "such thing".into());
        let here: Vec<String> = listed.iter().map(|o| natural(&o.name)).collect();
        self.say(
            s,
            format!(
                "I see no {said} here. On the table there are {}.",
                and_list(&here)
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

fn describe(o: &Listed) -> String {
    match &o.contains {
        Some(liquid) => format!("{} with {liquid}", natural(&o.name)),
        None => natural(&o.name),
    }
}

fn said_bare(m: &ObjectMention) -> String {
    let said = m.said.as_str();
    ["the ", "any ", "some ", "a ", "an "]
        .iter()
        .find_map(|p| said.strip_prefix(p))
        .unwrap_or(said)
        .to_string()
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// "two", "three" ... (digits past twelve).
fn number_word(n: usize) -> String {
    const WORDS: [&str; 13] = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}
