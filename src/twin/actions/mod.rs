//! Actions of the robot: composite actions (hand over, move to a person, pour,
//! point, gaze) planned as sequences of elementary actions whose variants are
//! simulated on the kinematic twin and ranked; the best runs, and the world is
//! checked afterwards against the expected outcome.

use crate::twin::{ObjectId, PersonId};

/// What to look or point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An object.
    Object(ObjectId),
    /// A person.
    Person(PersonId),
}

/// A composite action the agent asked for (names already grounded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionRequest {
    /// `hand_object_over_to_person`: get, pass, pose.
    HandOver { object: ObjectId, person: PersonId },
    /// `move_object_to_person`: get, put near the person, pose.
    MoveTo { object: ObjectId, person: PersonId },
    /// `pour_into`: get the source, pour into the target, put the source back, pose.
    Pour { source: ObjectId, target: ObjectId },
    /// `point_at_object_or_person`.
    PointAt(Target),
    /// `gaze`.
    Gaze(Target),
}

/// The outcome of an action: the sentence the LLM reads, and facts.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionReport {
    /// Whether the action ran and the world now shows what it promised.
    pub ok: bool,
    /// One sentence: what happened, or why not and what would help.
    pub text: String,
    /// Chosen arm and grasp, cost, variants tried and feasible, planning time.
    pub facts: serde_json::Value,
}

/// Plans, executes (in simulation) and verifies one action.
pub fn execute(twin: &mut crate::twin::Twin, request: ActionRequest) -> ActionReport {
    // Replaced by the planner (issue 3).
    let _ = twin;
    ActionReport {
        ok: false,
        text: format!("{request:?} cannot be planned yet."),
        facts: serde_json::json!({}),
    }
}
