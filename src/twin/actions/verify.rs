//! The expected-outcome check after execution: the world must show what the
//! action promised, or the report says what differs instead of claiming success.

use crate::twin::hindrance;
use crate::twin::world::{Placement, World};
use crate::twin::ObjectId;

use super::ActionRequest;

/// Describes where an object is, for mismatch sentences.
fn whereabouts(world: &World, object: ObjectId) -> String {
    match world.object(object).placement {
        Placement::OnTable { .. } => "it is on the table".into(),
        Placement::HeldBy { person, .. } => format!("{} holds it", world.person(person).name),
        Placement::InGripper { hand, .. } => format!("it is still in my {} hand", hand.as_str()),
    }
}

/// Checks the promised outcome; `liquid` is what the source held before a pour.
/// The error is one sentence naming the mismatch.
pub fn check(world: &World, request: &ActionRequest, liquid: Option<&str>) -> Result<(), String> {
    match *request {
        ActionRequest::HandOver { object, person } => {
            if world.holder(object) == Some(person) {
                Ok(())
            } else {
                let (o, p) = (&world.object(object).name, &world.person(person).name);
                Err(format!(
                    "The hand-over did not work out: {p} does not hold {o}; {}.",
                    whereabouts(world, object)
                ))
            }
        }
        ActionRequest::MoveTo { object, person } => {
            let (o, p) = (&world.object(object).name, &world.person(person).name);
            if !matches!(world.object(object).placement, Placement::OnTable { .. }) {
                Err(format!(
                    "Moving {o} did not work out: {}.",
                    whereabouts(world, object)
                ))
            } else if !hindrance::reaches(world, person, object).reachable {
                Err(format!(
                    "Moving {o} did not work out: it stands out of {p}'s reach."
                ))
            } else {
                Ok(())
            }
        }
        ActionRequest::MoveAway { object, person } => {
            let (o, p) = (&world.object(object).name, &world.person(person).name);
            if !matches!(world.object(object).placement, Placement::OnTable { .. }) {
                Err(format!(
                    "Moving {o} away did not work out: {}.",
                    whereabouts(world, object)
                ))
            } else if hindrance::reaches(world, person, object).reachable {
                Err(format!(
                    "Moving {o} away did not work out: {p} can still reach it."
                ))
            } else {
                Ok(())
            }
        }
        ActionRequest::Pour { source, target } => {
            let t = world.object(target);
            match liquid {
                Some(l) if t.holds(l) => Ok(()),
                l => Err(format!(
                    "Pouring did not work out: {} should hold {} but holds {}.",
                    t.name,
                    l.unwrap_or("a drink"),
                    t.contents().unwrap_or_else(|| "nothing".into())
                )),
            }
            .and_then(|()| match world.object(source).placement {
                Placement::InGripper { .. } => Err(format!(
                    "Pouring did not work out: {} is still in my hand.",
                    world.object(source).name
                )),
                _ => Ok(()),
            })
        }
        ActionRequest::PointAt(_) | ActionRequest::Gaze(_) => Ok(()),
    }
}
