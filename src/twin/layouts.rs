//! The paper's evaluation layouts (Section IV-B): for each scenario, 5 object
//! layouts x 4 cases of a request from a sender to a receiver about one
//! object. Each case is built so that the receiver has exactly the intended
//! hindrance and no other, and the robot can reach the object.
//!
//! Layout `i` asks for the `i`-th drink-related object of the scene and parks
//! the others on the sender's side in an order that differs per layout; the
//! requested object is then placed by a deterministic search over table
//! positions until the queries confirm the case. The layouts are chosen by
//! geometry alone (the receiver's hindrance, the robot's reach by inverse
//! kinematics), never by whether the planner succeeds.

use glam::Vec2;

use super::actions;
use super::hindrance;
use super::kinds::ShapeTemplate;
use super::robot_reach;
use super::scene::{self, SceneError};
use super::world::{ObjectId, PersonId, World};
use super::Twin;

/// The scenarios of the paper, by scene name.
pub const SCENARIOS: [&str; 3] = ["softdrinks", "coffee", "dinner"];
/// Layouts per scenario.
pub const LAYOUTS: usize = 5;
/// Who asks.
pub const SENDER: &str = "Felix";
/// Who is asked.
pub const RECEIVER: &str = "Daniel";

/// The four cases of the isolated interactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Case {
    /// The box hides the object from the receiver.
    Visibility,
    /// The object is out of the receiver's reach (within the robot's).
    Reachability,
    /// The receiver holds the phone.
    Busyness,
    /// Nothing hinders the receiver: the robot must stay out of it.
    Unobtrusive,
}

impl Case {
    /// All cases in the paper's order.
    pub const ALL: [Case; 4] = [
        Case::Visibility,
        Case::Reachability,
        Case::Busyness,
        Case::Unobtrusive,
    ];

    /// The case's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Case::Visibility => "visibility",
            Case::Reachability => "reachability",
            Case::Busyness => "busyness",
            Case::Unobtrusive => "unobtrusive",
        }
    }

    /// The hindrance word a helping explanation must name (`see`, `reach`, `busy`).
    pub fn reason(self) -> Option<&'static str> {
        match self {
            Case::Visibility => Some("see"),
            Case::Reachability => Some("reach"),
            Case::Busyness => Some("busy"),
            Case::Unobtrusive => None,
        }
    }
}

/// One generated situation.
#[derive(Debug, Clone)]
pub struct LayoutCase {
    /// Scene name.
    pub scenario: &'static str,
    /// Layout index, 0..5.
    pub layout: usize,
    /// The case.
    pub case: Case,
    /// The requested object.
    pub target: ObjectId,
    /// The world, ready for the request.
    pub world: World,
}

/// Why a case could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    /// The base scene failed to load.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The scene lacks what the cases need.
    #[error("scene '{scene}': {reason}")]
    Unsuitable { scene: String, reason: String },
    /// No position satisfies the case.
    #[error("scene '{scene}', layout {layout}, case {case}: no position of {object} gives exactly that hindrance")]
    NoPosition {
        scene: String,
        layout: usize,
        case: &'static str,
        object: String,
    },
}

/// Parking spots at the far end of the table, out of the receiver's sight lines
/// and the robot's working space.
const PARKING: [[f32; 2]; 8] = [
    [0.3, 0.3],
    [0.45, 0.3],
    [0.3, 0.12],
    [0.45, 0.12],
    [0.3, -0.12],
    [0.45, -0.3],
    [0.3, -0.3],
    [0.2, 0.3],
];
/// Where the box waits when it should hide nothing.
const BOX_PARKING: [f32; 2] = [0.53, 0.0];
/// Where the phone lies when the receiver is not busy.
const PHONE_PARKING: [f32; 2] = [0.18, -0.3];
/// Free space between the object and the box standing in front of it, tried in order.
const BOX_GAPS: [f32; 3] = [0.10, 0.05, 0.02];

/// All 20 cases of one scenario.
pub fn generate(scenario: &'static str) -> Result<Vec<LayoutCase>, LayoutError> {
    let base = scene::load(scenario)?;
    let unsuitable = |reason: &str| LayoutError::Unsuitable {
        scene: scenario.to_string(),
        reason: reason.to_string(),
    };
    let receiver = base
        .person_named(RECEIVER)
        .ok_or_else(|| unsuitable("no person Daniel"))?;
    let sender = base
        .person_named(SENDER)
        .ok_or_else(|| unsuitable("no person Felix"))?;
    let mut planner = Twin::from_world(base.clone());
    let occluder = base
        .object_named("box")
        .ok_or_else(|| unsuitable("no object box"))?;
    let phone = base
        .object_named("smartphone")
        .ok_or_else(|| unsuitable("no object smartphone"))?;
    let requested: Vec<ObjectId> = base
        .object_ids()
        .filter(|&id| id != occluder && id != phone)
        .collect();
    if requested.len() < LAYOUTS {
        return Err(unsuitable(
            "needs five objects besides the box and the smartphone",
        ));
    }
    let mut cases = Vec::with_capacity(LAYOUTS * Case::ALL.len());
    for layout in 0..LAYOUTS {
        let target = requested[layout];
        for case in Case::ALL {
            let people = (sender, receiver);
            let world = build_case(
                &base,
                &mut planner,
                layout,
                case,
                target,
                &requested,
                occluder,
                phone,
                people,
            )
            .ok_or_else(|| LayoutError::NoPosition {
                scene: scenario.to_string(),
                layout,
                case: case.as_str(),
                object: base.object(target).name.clone(),
            })?;
            cases.push(LayoutCase {
                scenario,
                layout,
                case,
                target,
                world,
            });
        }
    }
    Ok(cases)
}

/// The whole grid: 3 scenarios x 5 layouts x 4 cases.
pub fn generate_all() -> Result<Vec<LayoutCase>, LayoutError> {
    let mut all = Vec::new();
    for scenario in SCENARIOS {
        all.extend(generate(scenario)?);
    }
    Ok(all)
}

#[allow(clippy::too_many_arguments)]
fn build_case(
    base: &World,
    planner: &mut Twin,
    layout: usize,
    case: Case,
    target: ObjectId,
    requested: &[ObjectId],
    occluder: ObjectId,
    phone: ObjectId,
    (sender, receiver): (PersonId, PersonId),
) -> Option<World> {
    let mut world = base.clone();
    // Park the other objects; the rotation differs per layout.
    let others: Vec<ObjectId> = requested
        .iter()
        .copied()
        .filter(|&id| id != target)
        .collect();
    for (n, id) in others.iter().enumerate() {
        let spot = PARKING[(n * 2 + layout * 3) % PARKING.len()];
        world.place_on_table(*id, Vec2::from_array(spot));
    }
    world.place_on_table_turned(occluder, Vec2::from_array(BOX_PARKING), 0.0);
    world.place_on_table(phone, Vec2::from_array(PHONE_PARKING));
    world.free_person(receiver);
    if case == Case::Busyness {
        world.make_busy_with(receiver, phone).ok()?;
    }
    let eyes = world.person(receiver).eyes().truncate();
    // Visibility cases try a few box distances: farther leaves the hands room.
    let gaps: &[f32] = if case == Case::Visibility {
        &BOX_GAPS
    } else {
        &[0.0]
    };
    for (candidate, gap) in candidates(layout)
        .into_iter()
        .flat_map(|c| gaps.iter().map(move |g| (c, *g)))
    {
        let mut trial = world.clone();
        trial.place_on_table(target, candidate);
        if case == Case::Visibility {
            let towards_eyes = (eyes - candidate).normalize_or_zero();
            let box_depth = match trial.object(occluder).shape() {
                ShapeTemplate::Box { size } => size.x,
                other => 2.0 * other.footprint_radius(),
            };
            let distance = trial.object(target).shape().footprint_radius() + 0.5 * box_depth + gap;
            let box_at = candidate + towards_eyes * distance;
            // Face the box's broad side to the receiver.
            let yaw = towards_eyes.y.atan2(towards_eyes.x);
            trial.place_on_table_turned(occluder, box_at, yaw);
        }
        if !scene::table_problems(&trial).is_empty() {
            continue;
        }
        if !has_exactly(&trial, receiver, target, case) {
            continue;
        }
        // The robot must be able to help: some grasp of the object is within its arms'
        // reach by inverse kinematics. Geometry only, never whether the planner succeeds,
        // so that the grid measures the planner too.
        let _ = sender;
        planner.world = trial.clone();
        if !actions::grasp_reachable_by_ik(planner, target) {
            continue;
        }
        return Some(trial);
    }
    None
}

/// Candidate positions for the requested object, in an order that depends on
/// the layout: the part of the table in front of the robot where its arms work.
fn candidates(layout: usize) -> Vec<Vec2> {
    const XS: usize = 12;
    let mut all = Vec::new();
    for iy in 0..15 {
        for ix in 0..XS {
            let x = -0.4 + 0.05 * ix as f32;
            let y = -0.35 + 0.05 * iy as f32;
            all.push(Vec2::new(x, y));
        }
    }
    // Start each layout somewhere else along the table.
    let offset = (layout * 5) % XS;
    all.sort_by_key(|p| {
        let ix = ((p.x + 0.4) / 0.05).round() as usize;
        (
            (ix + XS - offset) % XS,
            ((p.y + 0.35) / 0.05).round() as usize,
        )
    });
    all
}

/// Whether the receiver has exactly the hindrance of `case` for `target`, and
/// the robot could help.
pub fn has_exactly(world: &World, receiver: PersonId, target: ObjectId, case: Case) -> bool {
    let found = hindrance::check(world, receiver, Some(target));
    let Some(sight) = found.sight.as_ref() else {
        return false;
    };
    let clear_view = sight.visible && sight.partially_occluded_by.is_empty();
    let hidden = !sight.visible;
    let reachable = found.reach.is_some_and(|r| r.reachable);
    let robot_reaches = robot_reach::arms(world, target).iter().any(|a| a.reachable);
    let intended = match case {
        Case::Visibility => hidden && reachable && !found.busy,
        Case::Reachability => clear_view && !reachable && !found.busy,
        Case::Busyness => clear_view && reachable && found.busy,
        Case::Unobtrusive => clear_view && reachable && !found.busy,
    };
    intended && robot_reaches
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn all_sixty_cases_have_exactly_the_intended_hindrance() {
        let cases = generate_all().expect("grid generates");
        assert_eq!(cases.len(), 60);
        let mut distinct = BTreeSet::new();
        for c in &cases {
            let receiver = c.world.person_named(RECEIVER).expect("receiver");
            let found = hindrance::check(&c.world, receiver, Some(c.target));
            let sight = found.sight.clone().expect("sight");
            let reach = found.reach.expect("reach");
            let label = format!("{} layout {} {:?}", c.scenario, c.layout, c.case);
            match c.case {
                Case::Visibility => {
                    assert!(!sight.visible, "{label}");
                    assert!(!sight.occluded_by.is_empty(), "{label}");
                    assert!(reach.reachable && !found.busy, "{label}");
                }
                Case::Reachability => {
                    assert!(sight.visible && !reach.reachable && !found.busy, "{label}")
                }
                Case::Busyness => {
                    assert!(sight.visible && reach.reachable && found.busy, "{label}")
                }
                Case::Unobtrusive => {
                    assert!(sight.visible && reach.reachable && !found.busy, "{label}")
                }
            }
            assert!(
                robot_reach::arms(&c.world, c.target)
                    .iter()
                    .any(|a| a.reachable),
                "{label}: the robot must be able to help"
            );
            assert!(scene::table_problems(&c.world).is_empty(), "{label}");
            let target = c.world.object_base(c.target);
            distinct.insert(format!(
                "{} {} {:.2} {:.2}",
                c.scenario,
                c.world.object(c.target).name,
                target.x,
                target.y
            ));
        }
        // Layouts differ: the same case never repeats the same object at the same spot.
        assert!(
            distinct.len() >= 45,
            "only {} distinct placements",
            distinct.len()
        );
    }
}
