//! What hinders a person: whether they see an object, reach it, or are busy.
//! These three facts are what `check_hindering_reasons` reports.

use glam::Vec3;
use parry3d::query::Ray;

use super::geometry::{grasp_slice, object_solid};
use super::world::{ObjectId, PersonId, World};

/// Rays ending this close to the target's end are not blocked by what lies behind it.
const RAY_END_MARGIN: f32 = 1e-4;
/// Reach is compared with this tolerance so that "exactly at arm's length" counts.
const REACH_TOLERANCE: f32 = 1e-5;

/// Whether a person sees an object, and what is in the way.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sight {
    /// At least one of the sight lines (to the centre, to the top centre) is clear.
    pub visible: bool,
    /// Objects blocking every sight line, nearest to the eyes first (empty when visible).
    pub occluded_by: Vec<ObjectId>,
    /// Objects blocking some but not all sight lines, nearest first.
    pub partially_occluded_by: Vec<ObjectId>,
}

/// Whether a person reaches an object, and by how much.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    /// The grasp region lies within arm reach of a shoulder.
    pub reachable: bool,
    /// Shortest distance from a shoulder to the grasp region, metres.
    pub distance: f32,
    /// The person's arm reach, metres.
    pub arm_reach: f32,
    /// The object is in someone else's hand (then it is not reachable).
    pub held_by_other: bool,
}

/// All hindrances of a person, with an optional object.
#[derive(Debug, Clone, PartialEq)]
pub struct Hindrances {
    /// The person is busy (holding something, or flagged busy).
    pub busy: bool,
    /// What the person holds.
    pub holding: Vec<ObjectId>,
    /// Sight of the object, if one was asked about.
    pub sight: Option<Sight>,
    /// Reach of the object, if one was asked about.
    pub reach: Option<Reach>,
}

impl Hindrances {
    /// Whether anything hinders the person.
    pub fn hindered(&self) -> bool {
        self.busy
            || self.sight.as_ref().is_some_and(|s| !s.visible)
            || self.reach.as_ref().is_some_and(|r| !r.reachable)
    }
}

/// Whether `person` sees `object`: a sight line from the eyes to the object's
/// centre or top centre that no other object blocks (the viewer's own held
/// objects excepted).
pub fn sees(world: &World, person: PersonId, object: ObjectId) -> Sight {
    let eyes = world.person(person).eyes();
    if world.holder(object) == Some(person) {
        return Sight {
            visible: true,
            ..Sight::default()
        };
    }
    let targets = [world.object_centre(object), world.object_top(object)];
    // Per sight line: the blockers with their time of impact.
    let mut blocked_lines: Vec<Vec<(f32, ObjectId)>> = Vec::with_capacity(targets.len());
    for target in targets {
        blocked_lines.push(blockers(world, person, object, eyes, target));
    }
    let visible = blocked_lines.iter().any(Vec::is_empty);
    let mut first_hits: Vec<(f32, ObjectId)> = Vec::new();
    for (toi, id) in blocked_lines.iter().flatten() {
        match first_hits.iter_mut().find(|(_, other)| other == id) {
            Some(entry) => entry.0 = entry.0.min(*toi),
            None => first_hits.push((*toi, *id)),
        }
    }
    first_hits.sort_by(|a, b| a.0.total_cmp(&b.0));
    let ordered: Vec<ObjectId> = first_hits.into_iter().map(|(_, id)| id).collect();
    if visible {
        Sight {
            visible,
            occluded_by: Vec::new(),
            partially_occluded_by: ordered,
        }
    } else {
        Sight {
            visible,
            occluded_by: ordered,
            partially_occluded_by: Vec::new(),
        }
    }
}

/// Objects on the segment from `eyes` to `target`, with their time of impact in [0, 1].
fn blockers(
    world: &World,
    viewer: PersonId,
    target_object: ObjectId,
    eyes: Vec3,
    target: Vec3,
) -> Vec<(f32, ObjectId)> {
    let ray = Ray::new(eyes, target - eyes);
    world
        .object_ids()
        .filter(|&id| id != target_object && world.holder(id) != Some(viewer))
        .filter_map(|id| {
            object_solid(world, id)
                .cast(&ray, 1.0 - RAY_END_MARGIN)
                .map(|toi| (toi, id))
        })
        .collect()
}

/// Whether `person` reaches `object`: its grasp region lies within arm reach of a shoulder.
pub fn reaches(world: &World, person: PersonId, object: ObjectId) -> Reach {
    let p = world.person(person);
    let arm_reach = p.body.arm_reach;
    match world.holder(object) {
        Some(holder) if holder == person => Reach {
            reachable: true,
            distance: 0.0,
            arm_reach,
            held_by_other: false,
        },
        Some(_) => Reach {
            reachable: false,
            distance: f32::INFINITY,
            arm_reach,
            held_by_other: true,
        },
        None => {
            let slice = grasp_slice(world, object);
            let distance = p
                .shoulders()
                .into_iter()
                .map(|shoulder| slice.distance_to_point(shoulder))
                .fold(f32::INFINITY, f32::min);
            Reach {
                reachable: distance <= arm_reach + REACH_TOLERANCE,
                distance,
                arm_reach,
                held_by_other: false,
            }
        }
    }
}

/// Busy, sight and reach of a person, for an object if given.
pub fn check(world: &World, person: PersonId, object: Option<ObjectId>) -> Hindrances {
    Hindrances {
        busy: world.is_busy(person),
        holding: world.held_by(person).into_iter().map(|(id, _)| id).collect(),
        sight: object.map(|o| sees(world, person, o)),
        reach: object.map(|o| reaches(world, person, o)),
    }
}
