//! Feedback the LLM can act on: why a variant failed (as a countable cause) and
//! one sentence for the whole action, naming the cause and what would help.

use std::collections::BTreeMap;

use crate::twin::kinematics::{MotionFailure, Violation};
use crate::twin::World;

use super::variants::Elementary;

/// Why one variant is infeasible.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// IK cannot reach a pose (or only past a joint limit, or through a singularity).
    OutOfReach(String),
    /// An arm link or the carried object would hit this obstacle.
    Collision(String),
    /// Two robot parts would touch.
    SelfCollision(String),
    /// No put spot exists.
    NoSpot,
    /// No hand-over point exists.
    NoHandoverPoint,
    /// The receiver has no free hand.
    HandsFull,
    /// The step needs an object in the hand that is not there.
    NotHolding,
    /// The head cannot turn that far.
    HeadLimit,
}

impl Cause {
    /// The cause of a simulated motion's first violation.
    pub fn from_failure(f: MotionFailure) -> Cause {
        match &f.violation {
            Violation::Unreachable { .. }
            | Violation::JointLimit { .. }
            | Violation::TooFast { .. } => Cause::OutOfReach(f.cause()),
            Violation::Collision { obstacle, .. } => Cause::Collision(obstacle.clone()),
            Violation::SelfCollision { .. } => Cause::SelfCollision(f.cause()),
        }
    }

    /// Key for counting causes in facts (`reasons`).
    pub fn key(&self) -> String {
        match self {
            Cause::OutOfReach(_) => "out_of_reach".into(),
            Cause::Collision(o) => format!("collision:{o}"),
            Cause::SelfCollision(_) => "self_collision".into(),
            Cause::NoSpot => "no_spot".into(),
            Cause::NoHandoverPoint => "no_handover_point".into(),
            Cause::HandsFull => "hands_full".into(),
            Cause::NotHolding => "not_holding".into(),
            Cause::HeadLimit => "head_limit".into(),
        }
    }

    /// A short clause for messages.
    pub fn clause(&self) -> String {
        match self {
            Cause::OutOfReach(s) | Cause::SelfCollision(s) => s.clone(),
            Cause::Collision(o) => format!("every way would hit {o}"),
            Cause::NoSpot => "there is no free spot".into(),
            Cause::NoHandoverPoint => "there is no hand-over point".into(),
            Cause::HandsFull => "the receiver has both hands full".into(),
            Cause::NotHolding => "the object is not in my hand".into(),
            Cause::HeadLimit => "my head cannot turn that far".into(),
        }
    }
}

/// Counts of causes by key.
pub fn count(causes: &[Cause]) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for c in causes {
        *m.entry(c.key()).or_insert(0) += 1;
    }
    m
}

/// The obstacle hit most often, robot parts and people last (objects are what the LLM can move).
fn main_obstacle(causes: &[Cause], except: &str) -> Option<String> {
    let mut m: BTreeMap<&str, usize> = BTreeMap::new();
    for c in causes {
        if let Cause::Collision(o) = c {
            // Brushing the object being taken is a reach problem, not a blocker.
            if o == except {
                continue;
            }
            *m.entry(o.as_str()).or_insert(0) += 1;
        }
    }
    m.into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(o, _)| o.to_string())
}

/// Whether a hand-over failed only for want of a point where the person and
/// the robot's arm could both hold the thing (no point, or none the arm reaches).
pub fn no_handover_point(world: &World, step: &Elementary, causes: &[Cause]) -> bool {
    let Elementary::Pass { object, .. } = *step else {
        return false;
    };
    let subject = world.object(object).name.as_str();
    causes
        .iter()
        .all(|c| matches!(c, Cause::NoHandoverPoint) || for_want_of_reach(c, subject))
}

/// A cause that says only that the arm cannot get there: out of reach, or the
/// carried `subject` itself in the way.
fn for_want_of_reach(cause: &Cause, subject: &str) -> bool {
    matches!(cause, Cause::OutOfReach(_)) || matches!(cause, Cause::Collision(o) if o == subject)
}

/// One sentence for an elementary step none of whose variants is feasible.
pub fn step_failure(world: &World, step: &Elementary, causes: &[Cause]) -> String {
    let obj = |id: crate::twin::ObjectId| world.object(id).name.clone();
    let per = |id: crate::twin::PersonId| world.person(id).name.clone();
    let subject = match *step {
        Elementary::Get { object, .. }
        | Elementary::Relay { object, .. }
        | Elementary::Pass { object, .. }
        | Elementary::PutNear { object, .. }
        | Elementary::PutAway { object, .. }
        | Elementary::PutAside { object, .. }
        | Elementary::PutAt { object, .. } => obj(object),
        Elementary::Pour { source, .. } => obj(source),
        _ => String::new(),
    };
    let all_reach = !causes.is_empty() && causes.iter().all(|c| for_want_of_reach(c, &subject));
    let blocker = main_obstacle(causes, &subject);
    let first = causes
        .first()
        .map(Cause::clause)
        .unwrap_or_else(|| "no variant was found".into());
    match *step {
        Elementary::Get { object, .. } => {
            let name = obj(object);
            match blocker {
                _ if all_reach => format!("{name} is out of reach of both arms."),
                Some(o) => {
                    format!("{name} is blocked by {o}: every way to grasp it would hit {o}.")
                }
                None => format!("I cannot grasp {name}: {first}."),
            }
        }
        Elementary::Pass { object, person } => {
            let p = per(person);
            if causes.is_empty() || causes.iter().all(|c| matches!(c, Cause::NoHandoverPoint)) {
                format!("{p} cannot take it: there is no hand-over point within {p}'s reach.")
            } else if all_reach {
                format!("{p} cannot take it: there is no hand-over point within {p}'s reach that my arm reaches.")
            } else if let Some(o) = blocker {
                format!(
                    "I cannot hand {} to {p}: every way would hit {o}.",
                    obj(object)
                )
            } else {
                format!("I cannot hand {} to {p}: {first}.", obj(object))
            }
        }
        Elementary::PutNear { object, person } => {
            let p = per(person);
            if causes.is_empty() || causes.iter().all(|c| matches!(c, Cause::NoSpot)) {
                format!("There is no free spot on the table within {p}'s reach for {}; ask someone to make room.", obj(object))
            } else if all_reach {
                format!("I cannot put {} near {p}: no free spot within {p}'s reach is within my arm's reach.", obj(object))
            } else if let Some(o) = blocker {
                format!(
                    "I cannot put {} near {p}: every way would hit {o}.",
                    obj(object)
                )
            } else {
                format!("I cannot put {} near {p}: {first}.", obj(object))
            }
        }
        Elementary::PutAway { object, person } => {
            let p = per(person);
            if causes.is_empty() || causes.iter().all(|c| matches!(c, Cause::NoSpot)) {
                format!(
                    "There is no free spot on the table out of {p}'s reach where I could put {}.",
                    obj(object)
                )
            } else if let Some(o) = blocker.filter(|_| !all_reach) {
                format!(
                    "I cannot move {} away from {p}: every way would hit {o}.",
                    obj(object)
                )
            } else {
                format!("I cannot move {} away from {p}: {first}.", obj(object))
            }
        }
        Elementary::Relay { object, .. } => match blocker {
            Some(o) if !all_reach => format!(
                "I cannot pass {} from one hand to the other: every way would hit {o}.",
                obj(object)
            ),
            _ => format!(
                "I cannot pass {} from one hand to the other: {first}.",
                obj(object)
            ),
        },
        Elementary::PutAside { object, clear_of } => match blocker {
            Some(o) if !all_reach => format!(
                "I cannot move {} out of the way of {}: every way would hit {o}.",
                obj(object),
                obj(clear_of)
            ),
            _ => format!(
                "I cannot move {} out of the way of {}: {first}.",
                obj(object),
                obj(clear_of)
            ),
        },
        Elementary::PutAt { object, .. } => match blocker {
            Some(o) if !all_reach => format!(
                "I cannot put {} back: every way would hit {o}.",
                obj(object)
            ),
            _ => format!("I cannot put {} back: {first}.", obj(object)),
        },
        Elementary::Pour { source, target } => {
            let t = obj(target);
            if all_reach {
                format!("{t} is out of reach for pouring from {}.", obj(source))
            } else if let Some(o) = blocker {
                format!(
                    "I cannot pour from {} into {t}: every way would hit {o}.",
                    obj(source)
                )
            } else {
                format!("I cannot pour from {} into {t}: {first}.", obj(source))
            }
        }
        Elementary::Lift { object } => {
            format!("I cannot lift {} clear of the table: {first}.", obj(object))
        }
        Elementary::Point(_) => format!("I cannot point there: {first}."),
        Elementary::Gaze(_) => format!("I cannot look there: {first}."),
        Elementary::Pose => format!("I cannot return to my home pose: {first}."),
    }
}

/// After a task that was done: why the arm did not get back home, and that it stays.
pub fn stays_text(causes: &[Cause]) -> String {
    let why = match main_obstacle(causes, "") {
        Some(o) => format!("every way back would hit {o}"),
        None => causes
            .first()
            .map(Cause::clause)
            .unwrap_or_else(|| "no way back was found".into()),
    };
    format!("I could not get back to my home pose ({why}), so I stay where I am.")
}
