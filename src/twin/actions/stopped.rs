//! Where an interrupted action left things, in one sentence for the LLM and
//! the people: what the hands hold, and how far the object got.

use crate::twin::kinematics::{translation, Motion};
use crate::twin::world::Placement;
use crate::twin::Twin;

use super::search::Plan;
use super::simulate::Effect;
use super::ActionRequest;

/// "I stopped with red_glass in my left hand, halfway to Felix."
pub fn where_stopped(twin: &Twin, plan: &Plan, request: &ActionRequest) -> String {
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
    match (towards, progress(twin, plan)) {
        (Some(person), Some(progress)) => {
            format!("{held}, {}", how_far(progress, &world.person(person).name))
        }
        _ => held,
    }
}

/// How much of the way (0..1) the holding hand has come, from where it held
/// the object up to where the plan lets go of it.
fn progress(twin: &Twin, plan: &Plan) -> Option<f32> {
    let held = twin.holding?;
    let robot = twin.robot.as_ref().ok()?;
    let hand_at = |motion: &Motion| translation(&motion.final_world_from_hand);
    let lifted = plan
        .steps
        .iter()
        .find(|s| matches!(s.sim.effect, Effect::Grasped { .. }))
        .and_then(|s| s.sim.motions.last())
        .map(hand_at);
    let letting_go = plan
        .steps
        .iter()
        .find(|s| matches!(s.sim.effect, Effect::Given { .. } | Effect::Released { .. }))?;
    let count = letting_go.sim.motions.len();
    let goal = hand_at(letting_go.sim.motions.get(count.saturating_sub(2))?);
    let now = translation(
        &robot
            .arm(held.arm)
            .world_from_hand(&twin.joints[held.arm as usize]),
    );
    // A plan that starts with the object in the hand starts from the hand.
    let start = lifted.unwrap_or_else(|| {
        letting_go.sim.motions[0].samples.first().map_or(now, |s| {
            translation(&robot.arm(held.arm).world_from_hand(&s.q))
        })
    });
    let whole = start.distance(goal);
    if whole < 1e-3 {
        return Some(1.0);
    }
    Some((1.0 - now.distance(goal) / whole).clamp(0.0, 1.0))
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
