//! Where an interrupted action left things, in one sentence for the LLM and
//! the people: what the hands hold, and how far the object got.

use crate::twin::world::{Placement, World};
use crate::twin::{ObjectId, Twin};

use super::ActionRequest;

/// "I stopped with red_glass in my left hand, halfway to Felix."
pub fn where_stopped(twin: &Twin, before: &World, request: &ActionRequest) -> String {
    let world = &twin.world;
    let (object, towards) = match *request {
        ActionRequest::HandOver { object, person } | ActionRequest::MoveTo { object, person } => {
            (object, Some(person))
        }
        ActionRequest::MoveAway { object, .. } => (object, None),
        ActionRequest::Pour { source, .. } => (source, None),
        ActionRequest::PointAt(_) | ActionRequest::Gaze(_) => {
            return "I stopped where I was".to_string()
        }
    };
    let name = &world.object(object).name;
    let hand = match world.object(object).placement {
        Placement::InGripper { hand, .. } => hand,
        _ => return format!("I stopped before taking {name}; it is where it was"),
    };
    let held = format!("I stopped with {name} in my {} hand", hand.as_str());
    let Some(person) = towards else {
        return held;
    };
    let to = world.person(person);
    let progress = progress(before, world, object, to.position);
    format!("{held}, {}", how_far(progress, &to.name))
}

/// How much of the way (0..1) from where the object stood to the person it has come, on the floor plan.
fn progress(before: &World, now: &World, object: ObjectId, goal: glam::Vec2) -> f32 {
    let start = before.object_base(object).truncate();
    let here = now.object_base(object).truncate();
    let whole = start.distance(goal);
    if whole < 1e-3 {
        return 1.0;
    }
    (1.0 - here.distance(goal) / whole).clamp(0.0, 1.0)
}

fn how_far(progress: f32, person: &str) -> String {
    match progress {
        p if p < 0.15 => format!("just lifted, not yet on the way to {person}"),
        p if p < 0.4 => format!("about a third of the way to {person}"),
        p if p < 0.6 => format!("halfway to {person}"),
        p if p < 0.85 => format!("most of the way to {person}"),
        _ => format!("almost at {person}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_read_as_words() {
        assert_eq!(how_far(0.5, "Felix"), "halfway to Felix");
        assert_eq!(
            how_far(0.05, "Felix"),
            "just lifted, not yet on the way to Felix"
        );
        assert_eq!(how_far(0.95, "Felix"), "almost at Felix");
    }
}
