//! Who can reach or see a thing, claimed ("Daniel can't reach the fanta from
//! there"): checked against the twin like any claim about the table. A true
//! claim leaves the robot silent (a remark between people); a wrong one is
//! corrected; neither is ever a request.

use serde_json::json;

use super::facts::Hindrance;
use super::{call, Calls, RulesBrain, Situation};

impl RulesBrain {
    /// The claim in `s` about whether someone can reach or see one thing.
    /// Said of everyone ("none of us can reach the soda"), it is checked for
    /// each person, and the first who proves it wrong is named.
    pub(super) fn ability_claim(&self, s: &Situation<'_>) -> Calls {
        let slots = &s.reading.slots;
        let claimed = slots.person.as_ref().and_then(|p| p.name.clone())?;
        let people: Vec<String> = if claimed == "All" {
            self.world
                .persons()
                .iter()
                .map(|p| p.name.clone())
                .collect()
        } else {
            // A claim about the robot itself, or about a thing the turn does not
            // name as one, asks nothing of it.
            self.world.person_named(&claimed)?;
            vec![claimed]
        };
        let object = match slots.object.as_ref().map(|m| m.candidates.as_slice()) {
            Some([one]) => one.clone(),
            _ => return None,
        };
        let see = slots.ability.as_deref() == Some("see");
        let mut wrong = None;
        for person in people {
            let args = json!({"person_name": person, "object_name": object});
            let Some(check) = s.dialogue.find_with("check_hindering_reasons", &args) else {
                return Some(vec![call("check_hindering_reasons", args)]);
            };
            let h = Hindrance::from_check(&check.result, &person);
            let can = if see {
                h.cannot_see.is_none()
            } else {
                !h.cannot_reach
            };
            if can == slots.negated {
                wrong = Some((person, h, can));
                break;
            }
        }
        // True: a remark to the others (or to everyone) needs nothing; asked
        // of the robot itself, it agrees.
        let Some((person, h, can)) = wrong else {
            return if s.robot_named { self.agree(s) } else { None };
        };
        let key = match (see, can) {
            (true, true) => "correct.can_see",
            (true, false) => "correct.cannot_see",
            (false, true) => "correct.can_reach",
            (false, false) => "correct.cannot_reach",
        };
        let occluder = self.occluder(&h);
        let text = self.speech.say(
            key,
            &[
                ("person", &person),
                ("object", &self.speech.object(&object)),
                ("occluder", &occluder),
            ],
        );
        self.say_to(s, "All".into(), text)
    }
}
