//! A statement about the table checked against the twin before the LLM sees
//! it ("Felix says there is no milk; milk_bottle holds milk: the statement is
//! wrong."), as the rules brain checks it, so that a small model does not act
//! on a remark between people that is true, and knows what to correct when it
//! is not.

use crate::language::Phrasebook;
use crate::twin::grounding::object_words;
use crate::twin::World;
use crate::understanding::grammar::Grammar;
use crate::understanding::{Act, ObjectMention, Reading};

/// The statement's verdict in one sentence, or `None` when the reading is not
/// a statement about the table.
pub fn verdict(
    world: &World,
    language: (&Grammar, &Phrasebook),
    speaker: &str,
    reading: &Reading,
) -> Option<String> {
    let (grammar, speech) = language;
    let (claim, wrong) = match reading.act {
        Act::StateAbsent => absent(world, grammar, speech, reading)?,
        Act::StateInventory => inventory(world, speech, reading)?,
        Act::StateContents => contents(world, grammar, speech, reading)?,
        Act::StateCount => count(speech, reading)?,
        Act::StateWhich => which(speech, reading)?,
        Act::StateAbility => ability(world, speech, reading)?,
        Act::StateLocation => location(world, speech, reading)?,
        _ => return None,
    };
    let (speaker, claim) = (("speaker", speaker), ("claim", claim.as_str()));
    Some(match wrong {
        Some(fact) => speech.say("note.statement_wrong", &[speaker, claim, ("fact", &fact)]),
        None => speech.say("note.statement_right", &[speaker, claim]),
    })
}

/// What is claimed, and the fact that contradicts it (`None`: it is true).
type Checked = (String, Option<String>);

/// "There is no milk": wrong when a candidate is on the table.
fn absent(
    world: &World,
    grammar: &Grammar,
    speech: &Phrasebook,
    reading: &Reading,
) -> Option<Checked> {
    let comma = speech.word("words.list_comma");
    if reading.slots.object.is_none() && !reading.slots.items.is_empty() {
        return Some(several_absent(world, speech, reading));
    }
    let Some(mention) = reading.slots.object.as_ref() else {
        let filter_name = reading.slots.filter.as_deref()?;
        let filter = grammar.filters.get(filter_name)?;
        let fitting: Vec<String> = world
            .objects()
            .iter()
            .filter(|o| o.contains.is_some() && filter.admits(&object_words(o)))
            .map(|o| held(&o.name, o.contains.as_deref(), speech))
            .collect();
        let claim = speech.say("note.claim_nothing", &[("filter", &filter.say)]);
        return Some((claim, (!fitting.is_empty()).then(|| fitting.join(comma))));
    };
    let claim = speech.say("note.claim_none", &[("thing", &mention.said)]);
    let present = present(world, mention);
    let fact = present
        .iter()
        .find(|(_, liquid)| liquid.is_some())
        .or(present.first())
        .map(|(name, liquid)| held(name, liquid.as_deref(), speech));
    Some((claim, fact))
}

/// "The cola and the fanta are gone": wrong when any of them is on the table.
fn several_absent(world: &World, speech: &Phrasebook, reading: &Reading) -> Checked {
    let comma = speech.word("words.list_comma");
    let said: Vec<&str> = reading
        .slots
        .items
        .iter()
        .map(|m| m.said.as_str())
        .collect();
    let claim = speech.say("note.claim_none", &[("thing", &said.join(comma))]);
    let present: Vec<String> = reading
        .slots
        .items
        .iter()
        .flat_map(|m| present(world, m))
        .map(|(name, liquid)| held(&name, liquid.as_deref(), speech))
        .collect();
    (claim, (!present.is_empty()).then(|| present.join(comma)))
}

/// "We only have fanta", "there is cola and lemonade": wrong when a thing
/// named is not here, or a complete list leaves a drink out.
fn inventory(world: &World, speech: &Phrasebook, reading: &Reading) -> Option<Checked> {
    let comma = speech.word("words.list_comma");
    let slots = &reading.slots;
    let mut said: Vec<String> = slots.items.iter().map(|m| m.said.clone()).collect();
    said.extend(slots.unknown_items.iter().cloned());
    if said.is_empty() {
        return None;
    }
    let claimed = if slots.only {
        "note.claim_only"
    } else {
        "note.claim_there_is"
    };
    let claim = speech.say(claimed, &[("things", &said.join(speech.word("words.and")))]);
    let mut facts = Vec::new();
    if !slots.unknown_items.is_empty() {
        let lacking = slots.unknown_items.join(speech.word("note.and_no"));
        facts.push(speech.say("note.table_lacks", &[("thing", &lacking)]));
    }
    let complete = slots.only || said.len() >= 2;
    let named: Vec<&str> = slots
        .items
        .iter()
        .flat_map(|m| m.candidates.iter().map(String::as_str))
        .collect();
    let left_out: Vec<String> = world
        .objects()
        .iter()
        .filter(|o| o.contains.is_some() && !named.contains(&o.name.as_str()))
        .filter(|o| !said_liquid(world, &named, o.contains.as_deref()))
        .map(|o| held(&o.name, o.contains.as_deref(), speech))
        .collect();
    if complete && !left_out.is_empty() {
        facts.push(speech.say("note.also", &[("things", &left_out.join(comma))]));
    }
    Some((claim, (!facts.is_empty()).then(|| facts.join("; "))))
}

/// Whether a liquid is already said through another container of it.
fn said_liquid(world: &World, named: &[&str], liquid: Option<&str>) -> bool {
    named.iter().any(|name| {
        world
            .object_named(name)
            .is_some_and(|id| world.object(id).contains.as_deref() == liquid)
    })
}

/// "Both glasses are full": wrong for each one that is not.
fn contents(
    world: &World,
    grammar: &Grammar,
    speech: &Phrasebook,
    reading: &Reading,
) -> Option<Checked> {
    let mention = reading.slots.object.as_ref()?;
    if let Some(liquid) = reading.slots.liquid.as_deref() {
        return Some(holding(
            world,
            speech,
            mention,
            liquid,
            reading.slots.negated,
        ));
    }
    if let (Some(filter), None) = (reading.slots.filter.as_deref(), &reading.slots.fill) {
        // "The beer is alcohol-free": wrong for what is known not to be.
        let filter = grammar.filters.get(filter)?;
        let said = [
            ("object", mention.said.as_str()),
            ("filter", filter.said_of_a_thing()),
        ];
        let negated = reading.slots.negated;
        let key = match negated {
            true => "note.claim_not_filter",
            false => "note.claim_filter",
        };
        let claim = speech.say(key, &said);
        let wrong = filter.wrongly_claimed(world, &mention.candidates, negated);
        let comma = speech.word("words.list_comma");
        return Some((claim, (!wrong.is_empty()).then(|| wrong.join(comma))));
    }
    let full = reading.slots.fill.as_deref() == Some("full");
    let claimed = if full {
        "note.claim_full"
    } else {
        "note.claim_empty"
    };
    let claim = speech.say(claimed, &[("object", &mention.said)]);
    let wrong: Vec<String> = present(world, mention)
        .into_iter()
        .filter(|(_, liquid)| liquid.is_some() != full)
        .map(|(name, liquid)| held_or_empty(&name, liquid.as_deref(), speech))
        .collect();
    let comma = speech.word("words.list_comma");
    Some((claim, (!wrong.is_empty()).then(|| wrong.join(comma))))
}

/// "There is tea in the big cup": wrong for each one that holds something
/// else; negated ("no tea in the big cup"), for each one that holds tea.
fn holding(
    world: &World,
    speech: &Phrasebook,
    mention: &ObjectMention,
    liquid: &str,
    negated: bool,
) -> Checked {
    let said = [("object", mention.said.as_str()), ("liquid", liquid)];
    let key = if negated {
        "note.claim_holds_none"
    } else {
        "note.claim_holds"
    };
    let claim = speech.say(key, &said);
    let wrong: Vec<String> = present(world, mention)
        .into_iter()
        .filter(|(_, held)| (held.as_deref() == Some(liquid)) == negated)
        .map(|(name, held)| held_or_empty(&name, held.as_deref(), speech))
        .collect();
    let comma = speech.word("words.list_comma");
    (claim, (!wrong.is_empty()).then(|| wrong.join(comma)))
}

/// "We've got three mugs": wrong when the table has another number of them.
fn count(speech: &Phrasebook, reading: &Reading) -> Option<Checked> {
    let mention = reading.slots.object.as_ref()?;
    let claimed: usize = reading.slots.count.as_deref()?.parse().ok()?;
    let every = mention.every_fitting();
    let thing = ("thing", mention.said.as_str());
    let claim = speech.say(
        "note.claim_count",
        &[("number", &claimed.to_string()), thing],
    );
    let fact = (every.len() != claimed).then(|| match every {
        [] => speech.say("note.table_lacks", &[thing]),
        names => speech.say(
            "note.table_has",
            &[
                ("number", &names.len().to_string()),
                ("objects", &names.join(speech.word("words.list_comma"))),
            ],
        ),
    });
    Some((claim, fact))
}

/// "The glass in front of you is the red one": wrong when the one described
/// is another.
fn which(speech: &Phrasebook, reading: &Reading) -> Option<Checked> {
    let (described, claimed) = reading.which_one()?;
    let or = speech.word("words.or");
    let claim = speech.say(
        "note.claim_which",
        &[("object", &described), ("claimed", &claimed.join(or))],
    );
    let fact = (!claimed.contains(&described)).then(|| speech.say("note.is_another", &[]));
    Some((claim, fact))
}

/// "Daniel cannot reach fanta_bottle": wrong when the twin says he can (and
/// the other ways round); only of one thing and someone at the table.
fn ability(world: &World, speech: &Phrasebook, reading: &Reading) -> Option<Checked> {
    let slots = &reading.slots;
    let person = world.person_named(slots.person.as_ref()?.name.as_deref()?)?;
    let object = match slots.object.as_ref()?.candidates.as_slice() {
        [one] => world.object_named(one)?,
        _ => return None,
    };
    let see = slots.ability.as_deref() == Some("see");
    let can = if see {
        crate::twin::hindrance::sees(world, person, object).visible
    } else {
        crate::twin::hindrance::reaches(world, person, object).reachable
    };
    let key = |can: bool| match (see, can) {
        (true, true) => "note.claim_sees",
        (true, false) => "note.claim_cannot_see",
        (false, true) => "note.claim_reaches",
        (false, false) => "note.claim_cannot_reach",
    };
    let said = |can: bool| {
        speech.say(
            key(can),
            &[
                ("person", &world.person(person).name),
                ("object", &world.object(object).name),
            ],
        )
    };
    let claimed = !slots.negated;
    Some((said(claimed), (can != claimed).then(|| said(can))))
}

/// "The milk is by me": wrong when it is in another's hand or by another.
fn location(world: &World, speech: &Phrasebook, reading: &Reading) -> Option<Checked> {
    use crate::twin::whereabouts::{self, Whereabouts};
    let slots = &reading.slots;
    let person = world.person_named(slots.person.as_ref()?.name.as_deref()?)?;
    let mention = slots.object.as_ref().filter(|m| !m.referred)?;
    let object = match mention.candidates.as_slice() {
        [one] => world.object_named(one)?,
        _ => return None,
    };
    let said = |key: &str, who: crate::twin::world::PersonId| {
        speech.say(
            key,
            &[
                ("person", &world.person(who).name),
                ("object", &world.object(object).name),
            ],
        )
    };
    let fact = whereabouts::is_by(world, person, object)
        .err()
        .map(|found| match found {
            Whereabouts::HeldBy(holder) => said("note.claim_held", holder),
            Whereabouts::By(nearest) => said("note.claim_by", nearest),
        });
    Some((said("note.claim_by", person), fact))
}

/// The mention's objects on the table, with what each holds.
fn present(world: &World, mention: &ObjectMention) -> Vec<(String, Option<String>)> {
    mention
        .candidates
        .iter()
        .filter_map(|name| world.object_named(name))
        .map(|id| {
            let o = world.object(id);
            (o.name.clone(), o.contains.clone())
        })
        .collect()
}

/// "milk_bottle holds milk", "red_glass is empty".
fn held_or_empty(name: &str, liquid: Option<&str>, speech: &Phrasebook) -> String {
    match liquid {
        Some(_) => held(name, liquid, speech),
        None => speech.say("note.is_empty", &[("object", name)]),
    }
}

/// "milk_bottle holds milk", "cup_1 is here".
fn held(name: &str, liquid: Option<&str>, speech: &Phrasebook) -> String {
    match liquid {
        Some(liquid) => speech.say("note.holds", &[("object", name), ("liquid", liquid)]),
        None => speech.say("note.is_here", &[("object", name)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::understanding::Utterance;

    fn verdict_of(text: &str) -> Option<String> {
        let world = crate::twin::scene::load("softdrinks").expect("scene");
        let english = crate::language::Language::english().expect("english");
        let stage = english.understanding();
        let turn = Utterance {
            speaker: "Felix",
            listener: "Daniel",
            text,
        };
        let reading = stage.read(&world, &turn);
        verdict(
            &world,
            (stage.grammar(), english.speech()),
            "Felix",
            &reading,
        )
    }

    #[test]
    fn a_wrong_absence_of_several_things_names_each_one_there() {
        let note = verdict_of("the cola and the fanta are all gone").expect("a statement");
        assert!(note.contains("cola_bottle holds cola"), "{note}");
        assert!(note.contains("fanta_bottle holds fanta"), "{note}");
        assert!(note.ends_with("the statement is wrong."), "{note}");
    }

    #[test]
    fn a_wrong_absence_names_what_is_there() {
        let note = verdict_of("there is no fanta left").expect("a statement");
        assert!(note.contains("fanta_bottle holds fanta"), "{note}");
        assert!(note.ends_with("the statement is wrong."), "{note}");
    }

    #[test]
    fn a_thing_taken_for_another_is_wrong() {
        let note = verdict_of("the glass in front of you is the red one").expect("a statement");
        assert!(note.contains("blue_glass, is red_glass"), "{note}");
        assert!(note.ends_with("the statement is wrong."), "{note}");
        let note = verdict_of("the glass in front of me is the red one").expect("a statement");
        assert!(note.contains("the statement is right"), "{note}");
    }

    #[test]
    fn a_true_absence_is_right() {
        let note = verdict_of("we are out of beer").expect("a statement");
        assert!(note.contains("the statement is right"), "{note}");
    }

    #[test]
    fn a_complete_list_that_leaves_a_drink_out_is_wrong() {
        let note = verdict_of("we only have fanta").expect("a statement");
        assert!(note.contains("there is also"), "{note}");
        assert!(note.contains("cola_bottle holds cola"), "{note}");
        assert!(!note.contains("fanta_bottle holds"), "{note}");
    }

    #[test]
    fn full_glasses_that_are_empty_are_named() {
        let note = verdict_of("both glasses are full").expect("a statement");
        assert!(note.contains("is empty"), "{note}");
        assert!(note.contains("the statement is wrong"), "{note}");
    }

    #[test]
    fn what_a_container_is_said_to_hold_is_checked() {
        let note = verdict_of("the fanta bottle has cola in it").expect("a statement");
        assert!(note.contains("fanta_bottle holds fanta"), "{note}");
        assert!(note.contains("the statement is wrong"), "{note}");
        let note = verdict_of("there is fanta in the fanta bottle").expect("a statement");
        assert!(note.contains("the statement is right"), "{note}");
        let note = verdict_of("the red glass has tea in it").expect("a statement");
        assert!(note.contains("red_glass is empty"), "{note}");
    }

    #[test]
    fn a_request_is_no_statement() {
        assert_eq!(verdict_of("could you pass me the red glass"), None);
    }
}
