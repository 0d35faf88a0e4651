//! Where a thing is, claimed ("the cola zero is right here by me", "die
//! Milch steht doch bei dir"): checked against the twin like any claim about
//! the table. A true claim leaves the robot silent; a wrong one is corrected
//! with where the thing is (in whose hand, or by whom).

use serde_json::json;

use super::{call, Calls, RulesBrain, Situation};
use crate::twin::whereabouts::{self, Whereabouts};

impl RulesBrain {
    /// The claim in `s` that one thing is by one person.
    pub(super) fn location_claim(&self, s: &Situation<'_>) -> Calls {
        let slots = &s.reading.slots;
        let off_the_table = slots.place.as_deref() == Some("elsewhere");
        let person = slots.person.as_ref().and_then(|p| p.name.clone());
        if person.is_none() && !off_the_table {
            return None;
        }
        // "It's right in front of you": which thing "it" is, is less sure than
        // where it is said to be; nothing is corrected on a guess.
        let object = match slots
            .object
            .as_ref()
            .filter(|m| !m.referred)?
            .candidates
            .as_slice()
        {
            [one] => one.clone(),
            _ => return None,
        };
        let Some(listing) = s.dialogue.find("get_objects") else {
            return Some(vec![call("get_objects", json!({}))]);
        };
        let world = self
            .as_listed(&listing.result)
            .unwrap_or_else(|| self.world.clone());
        let o = world.object_named(&object)?;
        // "Still in the glovebox": wherever it is at the table, the claim is wrong.
        let found = match person {
            Some(person) => match whereabouts::is_by(&world, world.person_named(&person)?, o) {
                Ok(()) => return if s.robot_named { self.agree(s) } else { None },
                Err(found) => found,
            },
            None => whereabouts::of(&world, o)?,
        };
        let (key, who) = match found {
            Whereabouts::HeldBy(holder) => ("correct.location_held", holder),
            Whereabouts::By(nearest) => ("correct.location_by", nearest),
        };
        let text = self.speech.say(
            key,
            &[
                ("object", &self.speech.object(&object)),
                ("person", &world.person(who).name),
            ],
        );
        self.say_to(s, "All".into(), text)
    }
}
