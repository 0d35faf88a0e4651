//! Elementary actions and their variants: which arm, which grasp, which
//! target pose. Generation is pure geometry on the planning state; the
//! simulation decides feasibility.

use glam::{Vec2, Vec3};

use crate::twin::kinds::{GraspType, ShapeTemplate};
use crate::twin::kinematics::{segment_distance, Joints, Robot, Side};
use crate::twin::world::{Placement, World};
use crate::twin::{hindrance, robot_reach, Hand, ObjectId, PersonId};

use super::Target;

/// Horizontal approach offsets (deg) around the straight line from an arm's base to an object.
pub const SIDE_APPROACH_OFFSETS_DEG: [f32; 8] =
    [0.0, -35.0, 35.0, -70.0, 70.0, -110.0, 110.0, 180.0];
/// Pour directions (deg, world yaw of the tilt direction) tried around a target.
pub const POUR_DIRECTIONS_DEG: [f32; 6] = [0.0, 60.0, 120.0, 180.0, 240.0, 300.0];

/// An elementary action of a composite one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Elementary {
    /// Take an object from the table, with either arm or with the one given.
    Get { object: ObjectId, arm: Option<Side> },
    /// Set the held object down between the arms: for the other arm to take it over
    /// (a bimanual relay: one arm reaches the object, only the other the receiver), or,
    /// without `for_the_other_hand`, where this arm takes it again or a pour reaches it.
    Relay {
        object: ObjectId,
        for_the_other_hand: bool,
    },
    /// Raise the held object clear of the table (a stopped action left it low).
    Lift { object: ObjectId },
    /// Put the held object down at a floor point.
    PutAt { object: ObjectId, spot: Vec2 },
    /// Put the held object on the table within a person's reach.
    PutNear { object: ObjectId, person: PersonId },
    /// Put the held object on the table out of a person's reach.
    PutAway { object: ObjectId, person: PersonId },
    /// Put the held object down out of the way of another the robot is to take next
    /// (it stood round that one so that no grasp reached it).
    PutAside {
        object: ObjectId,
        clear_of: ObjectId,
    },
    /// Hand the held object over to a person.
    Pass { object: ObjectId, person: PersonId },
    /// Tilt the held source over a target container.
    Pour { source: ObjectId, target: ObjectId },
    /// Point the hand at something.
    Point(Target),
    /// Turn the head towards something.
    Gaze(Target),
    /// Move every arm that is away from home back to its home pose.
    Pose,
}

impl Elementary {
    /// The action's short name in facts.
    pub fn name(&self) -> &'static str {
        match self {
            Elementary::Get { .. } => "get",
            Elementary::PutAt { .. }
            | Elementary::PutNear { .. }
            | Elementary::PutAway { .. }
            | Elementary::PutAside { .. } => "put",
            Elementary::Relay { .. } => "relay",
            Elementary::Lift { .. } => "lift",
            Elementary::Pass { .. } => "pass",
            Elementary::Pour { .. } => "pour",
            Elementary::Point(_) => "point",
            Elementary::Gaze(_) => "gaze",
            Elementary::Pose => "pose",
        }
    }
}

/// One way to perform an elementary action.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variant {
    /// The arm that moves (the head for gaze: left by convention, unused).
    pub arm: Side,
    /// Grasp type, for `get`.
    pub grasp: Option<GraspType>,
    /// Horizontal direction (deg, world yaw) of the approach or pour tilt.
    pub direction_deg: Option<f32>,
    /// Target point: put spot, hand-over point or pointing hand position.
    pub point: Option<Vec3>,
}

impl Variant {
    /// The variant as JSON facts.
    pub fn facts(&self) -> serde_json::Value {
        let mut v = serde_json::json!({ "arm": self.arm.name() });
        if let Some(g) = self.grasp {
            v["grasp"] = g.as_str().into();
        }
        if let Some(d) = self.direction_deg {
            v["direction_deg"] = (d.round() as i64).into();
        }
        if let Some(p) = self.point {
            v["point"] = serde_json::json!([round3(p.x), round3(p.y), round3(p.z)]);
        }
        v
    }
}

fn round3(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

/// The robot hand matching a twin hand.
pub fn side_of(hand: Hand) -> Side {
    match hand {
        Hand::Left => Side::Left,
        Hand::Right => Side::Right,
    }
}

/// The twin hand matching a robot arm.
pub fn hand_of(side: Side) -> Hand {
    match side {
        Side::Left => Hand::Left,
        Side::Right => Hand::Right,
    }
}

/// Why an object cannot be taken by the robot's hands at all, if so.
pub fn ungraspable_reason(world: &World, robot: &Robot, object: ObjectId) -> Option<String> {
    let o = world.object(object);
    let name = &o.name;
    if !o.graspable() {
        return Some(format!(
            "{name} cannot be grasped: it is too large for the robot's hands."
        ));
    }
    let fits = o.kind.grasps.iter().any(|g| match (g, o.shape()) {
        (GraspType::Side, ShapeTemplate::Cylinder { radius, .. }) => (robot.hand.power.min_diameter
            ..=robot.hand.power.max_diameter)
            .contains(&(2.0 * radius)),
        (GraspType::Top, ShapeTemplate::Box { size }) => {
            size.x.min(size.y) <= robot.hand.pinch.max_width
        }
        (GraspType::Top, ShapeTemplate::Cylinder { radius, .. }) => {
            2.0 * radius <= robot.hand.pinch.max_width
        }
        (GraspType::Side, ShapeTemplate::Box { size }) => {
            size.x.min(size.y) <= robot.hand.power.max_diameter
        }
    });
    (!fits).then(|| format!("{name} cannot be grasped: it is too large for the robot's hands."))
}

/// Both arms, the one whose base is nearer to `object` first: it is the likelier
/// to reach it, so costly efforts (detours) try its variants first.
pub fn arms_nearest_first(world: &World, robot: &Robot, object: ObjectId) -> [Side; 2] {
    let at = world.object_base(object).truncate();
    let away = |side: Side| {
        let base = robot.arm(side).world_from_base.translation;
        Vec3::from(base).truncate().distance(at)
    };
    let mut arms = Side::BOTH;
    arms.sort_by(|a, b| away(*a).total_cmp(&away(*b)));
    arms
}

/// Variants of `get`: the given arms x allowed grasps x approach directions.
pub fn get_variants(world: &World, robot: &Robot, object: ObjectId, arms: &[Side]) -> Vec<Variant> {
    let o = world.object(object);
    let base = world.object_base(object);
    let mut out = Vec::new();
    for &arm in arms {
        let shoulder = robot.arm(arm).world_from_base.translation;
        let to_object = (base - Vec3::from(shoulder)).truncate();
        let straight = to_object.y.atan2(to_object.x).to_degrees();
        for grasp in &o.kind.grasps {
            match grasp {
                GraspType::Side => {
                    for off in SIDE_APPROACH_OFFSETS_DEG {
                        out.push(Variant {
                            arm,
                            grasp: Some(GraspType::Side),
                            direction_deg: Some(straight + off),
                            point: None,
                        });
                    }
                }
                GraspType::Top => {
                    // The fingers close across the object's short side, either way round.
                    let yaw = world.object_yaw(object).to_degrees();
                    for flip in [0.0, 180.0] {
                        out.push(Variant {
                            arm,
                            grasp: Some(GraspType::Top),
                            direction_deg: Some(yaw + flip),
                            point: None,
                        });
                    }
                }
            }
        }
    }
    out
}

/// Hand-over and put candidates chosen at most this many per step (nearest first).
pub const MAX_CANDIDATES: usize = 10;
/// Smallest distance between two chosen candidates (m): spread out, so that one
/// obstacle does not block them all.
const CANDIDATE_SPACING: f32 = 0.07;
/// Reach of a robot arm from its shoulder for choosing candidates (m); the
/// simulation decides in the end.
const ROBOT_CANDIDATE_REACH: f32 = 0.85;

/// Heights of hand-over points above the table (m).
const HANDOVER_HEIGHTS: [f32; 5] = [0.18, 0.26, 0.34, 0.42, 0.50];
/// Hand-over points kept per height.
const PER_HEIGHT: usize = 3;

/// Whether a point lies within the workspace of either robot arm.
fn robot_may_reach(world: &World, point: Vec3) -> bool {
    [Hand::Left, Hand::Right]
        .into_iter()
        .any(|h| robot_reach::shoulder(world, h).distance(point) <= ROBOT_CANDIDATE_REACH)
}

/// Relay spots kept (the simulation decides among them).
const RELAY_CANDIDATES: usize = 6;
/// How far back towards a shoulder the way of a hand to a relay spot must be free (m).
const RELAY_CORRIDOR: f32 = 0.3;
/// Room beside that way for the hand (m).
const RELAY_HAND_ROOM: f32 = 0.05;

/// Free table spots where one arm can set `object` down for the other to take over:
/// within both arms' workspace, in front of the robot. Spots that both hands can come
/// to without passing close to another object come first, then those that one hand
/// can; among equals the most comfortable (centred, 0.5 m in front of the shoulders).
pub fn relay_spots(world: &World, object: ObjectId) -> Vec<Vec2> {
    let o = world.object(object);
    let radius = o.shape().footprint_radius();
    let grasp_z = world.table.height + o.kind.grasp_height;
    let shoulders = [Hand::Left, Hand::Right].map(|h| robot_reach::shoulder(world, h));
    let middle = 0.5 * (shoulders[0] + shoulders[1]);
    let forward = Vec2::from_angle(world.robot.yaw);
    let across = forward.perp();
    let comfortable = middle.truncate() + 0.5 * forward;
    let others: Vec<(Vec2, f32)> = world
        .object_ids()
        .filter(|&id| id != object)
        .filter_map(|id| match world.object(id).placement {
            Placement::OnTable { position, .. } => {
                Some((position, world.object(id).shape().footprint_radius()))
            }
            _ => None,
        })
        .collect();
    // How many hands come to the spot along a free way from their shoulder.
    let free_ways = |spot: Vec2| {
        shoulders
            .iter()
            .filter(|s| {
                let back = (s.truncate() - spot).normalize_or_zero() * RELAY_CORRIDOR;
                others.iter().all(|&(c, r)| {
                    distance_to_segment(c, spot, spot + back) > r + radius + RELAY_HAND_ROOM
                })
            })
            .count()
    };
    let mut all = Vec::new();
    for ahead in 0..=12 {
        for side in -5..=5 {
            let spot = middle.truncate()
                + (0.15 + 0.04 * ahead as f32) * forward
                + (0.04 * side as f32) * across;
            let grasp = spot.extend(grasp_z);
            if !world.table.contains(spot, radius + 0.03)
                || !spot_is_free(world, object, spot)
                || shoulders
                    .iter()
                    .any(|s| s.distance(grasp) > ROBOT_CANDIDATE_REACH - 0.05)
            {
                continue;
            }
            all.push((spot, free_ways(spot)));
        }
    }
    all.sort_by(|(a, fa), (b, fb)| {
        fb.cmp(fa)
            .then(a.distance(comfortable).total_cmp(&b.distance(comfortable)))
    });
    let mut out: Vec<Vec2> = Vec::new();
    for (spot, _) in all {
        if out.len() >= RELAY_CANDIDATES {
            break;
        }
        if out.iter().all(|o| o.distance(spot) >= PUT_SPACING) {
            out.push(spot);
        }
    }
    out
}

/// Distance from a point to the segment from `a` to `b` (floor plane).
pub fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let p = p.extend(0.0);
    segment_distance(p, p, a.extend(0.0), b.extend(0.0))
}

/// The first `MAX_CANDIDATES` of `sorted`, keeping `CANDIDATE_SPACING` between them.
fn spread<T: Copy>(sorted: impl Iterator<Item = T>, at: impl Fn(T) -> Vec3) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for c in sorted {
        if out.len() >= MAX_CANDIDATES {
            break;
        }
        if out
            .iter()
            .all(|&o| at(o).distance(at(c)) >= CANDIDATE_SPACING)
        {
            out.push(c);
        }
    }
    out
}

/// Hand-over points in front of a person: a grid over the table within the person's
/// reach and the robot's workspace, the most comfortable for the person first
/// (about 35 cm in front of the chest, 25 cm above the table).
pub fn handover_points(world: &World, person: PersonId) -> Vec<Vec3> {
    let p = world.person(person);
    let reach = p.body.arm_reach - 0.05;
    let comfortable = (p.position + 0.35 * p.facing()).extend(world.table.height + 0.25);
    let mut all = Vec::new();
    for forward in [0.25, 0.32, 0.39, 0.46, 0.53] {
        for k in -4..=4 {
            let sideways = 0.08 * k as f32;
            for above in HANDOVER_HEIGHTS {
                let xy = p.position + forward * p.facing() + sideways * p.right();
                if !world.table.contains(xy, 0.0) {
                    continue;
                }
                let point = xy.extend(world.table.height + above);
                if p.shoulders().iter().any(|s| s.distance(point) <= reach)
                    && robot_may_reach(world, point)
                {
                    all.push(point);
                }
            }
        }
    }
    all.sort_by(|a, b| a.distance(comfortable).total_cmp(&b.distance(comfortable)));
    // A few per height: low points are comfortable, high ones pass over tall things.
    let mut out = Vec::new();
    for above in HANDOVER_HEIGHTS {
        let z = world.table.height + above;
        let level = all.iter().copied().filter(|p| (p.z - z).abs() < 1e-4);
        out.extend(spread(level, |p| p).into_iter().take(PER_HEIGHT));
    }
    out
}

/// Free table spots for putting `object` down within a person's reach and the robot's
/// workspace: a 4 cm grid over the table, nearest to the person first.
pub fn put_spots_near(world: &World, object: ObjectId, person: PersonId) -> Vec<Vec2> {
    let p = world.person(person);
    let grasp_z = world.table.height + world.object(object).kind.grasp_height;
    // Cheap filter first: within a shoulder's reach of the person.
    let mut all: Vec<Vec2> = free_table_spots(world, object)
        .into_iter()
        .filter(|spot| {
            let grasp = spot.extend(grasp_z);
            p.shoulders()
                .iter()
                .any(|s| s.distance(grasp) <= p.body.arm_reach)
        })
        .collect();
    all.sort_by(|a, b| a.distance(p.position).total_cmp(&b.distance(p.position)));
    let mut probe = world.clone();
    let reachable = all.into_iter().filter(|&spot| {
        probe.place_on_table(object, spot);
        hindrance::reaches(&probe, person, object).reachable
    });
    // Wider apart than hand-over points: a tall box blocks every spot just behind it.
    spaced(reachable, MAX_CANDIDATES + 2)
}

/// Free spots on the table out of a person's reach that the robot may reach,
/// nearest to the robot first (where it would keep a thing nobody should touch).
pub fn put_spots_away(world: &World, object: ObjectId, person: PersonId) -> Vec<Vec2> {
    let mut probe = world.clone();
    let mut all: Vec<Vec2> = free_table_spots(world, object)
        .into_iter()
        .filter(|&spot| {
            probe.place_on_table(object, spot);
            !hindrance::reaches(&probe, person, object).reachable
        })
        .collect();
    let robot = world.robot.position;
    all.sort_by(|a, b| a.distance(robot).total_cmp(&b.distance(robot)));
    spaced(all, MAX_CANDIDATES + 2)
}

/// Free spots the robot may reach where `object` stands clear of `clear_of` (a hand's
/// width between them), nearest to where it stands first: a short move aside.
pub fn put_spots_aside(world: &World, object: ObjectId, clear_of: ObjectId) -> Vec<Vec2> {
    let radius = world.object(object).shape().footprint_radius();
    // Where it stood (it is in the hand by now) and where the other stands.
    let from = world.object_base(object).truncate();
    let kept = world.object_base(clear_of).truncate();
    let room = radius + world.object(clear_of).shape().footprint_radius() + ASIDE_ROOM;
    // Off the ways from the shoulders to the other one, where the hand goes.
    let shoulders = [Hand::Left, Hand::Right].map(|h| robot_reach::shoulder(world, h).truncate());
    let off_the_way = |spot: Vec2| {
        shoulders
            .iter()
            .all(|&s| distance_to_segment(spot, s, kept) >= radius + ASIDE_ROOM)
    };
    let mut all: Vec<Vec2> = free_table_spots(world, object)
        .into_iter()
        .filter(|&spot| spot.distance(kept) >= room && off_the_way(spot))
        .collect();
    all.sort_by(|a, b| a.distance(from).total_cmp(&b.distance(from)));
    spaced(all, MAX_CANDIDATES)
}

/// Points of a 4 cm grid over the table where `object` would stand on the table clear
/// of its edge and of every other thing, at a grasp height the robot may reach.
fn free_table_spots(world: &World, object: ObjectId) -> Vec<Vec2> {
    let o = world.object(object);
    let radius = o.shape().footprint_radius();
    let grasp_z = world.table.height + o.kind.grasp_height;
    let (hx, hy) = (0.5 * world.table.size.x, 0.5 * world.table.size.y);
    let step = 0.04;
    let (nx, ny) = ((2.0 * hx / step) as i32, (2.0 * hy / step) as i32);
    (0..=nx)
        .flat_map(|ix| (0..=ny).map(move |iy| (ix, iy)))
        .map(|(ix, iy)| Vec2::new(-hx + step * ix as f32, -hy + step * iy as f32))
        .filter(|&spot| {
            world.table.contains(spot, radius + 0.03)
                && spot_is_free(world, object, spot)
                && robot_may_reach(world, spot.extend(grasp_z))
        })
        .collect()
}

/// The first `most` of `sorted`, keeping `PUT_SPACING` between them.
fn spaced(sorted: impl IntoIterator<Item = Vec2>, most: usize) -> Vec<Vec2> {
    let mut out: Vec<Vec2> = Vec::new();
    for spot in sorted {
        if out.len() >= most {
            break;
        }
        if out.iter().all(|o| o.distance(spot) >= PUT_SPACING) {
            out.push(spot);
        }
    }
    out
}

/// Room left between a thing moved aside and the one it was in the way of (m): a hand's width.
const ASIDE_ROOM: f32 = 0.12;

/// Smallest distance between two chosen put spots (m).
const PUT_SPACING: f32 = 0.10;

/// Whether `object` standing at `spot` keeps 2 cm from every other object on the table.
pub fn spot_is_free(world: &World, object: ObjectId, spot: Vec2) -> bool {
    let r = world.object(object).shape().footprint_radius();
    world.object_ids().filter(|&id| id != object).all(|id| {
        let other = world.object(id);
        match other.placement {
            Placement::OnTable { position, .. } => {
                position.distance(spot) > r + other.shape().footprint_radius() + 0.02
            }
            _ => true,
        }
    })
}

/// Variants of `put` at given spots with the arm that holds the object.
pub fn put_variants(arm: Side, spots: &[Vec2], table_height: f32) -> Vec<Variant> {
    spots
        .iter()
        .map(|s| Variant {
            arm,
            grasp: None,
            direction_deg: None,
            point: Some(s.extend(table_height)),
        })
        .collect()
}

/// Variants of `pass` with the arm that holds the object.
pub fn pass_variants(arm: Side, points: &[Vec3]) -> Vec<Variant> {
    points
        .iter()
        .map(|&p| Variant {
            arm,
            grasp: None,
            direction_deg: None,
            point: Some(p),
        })
        .collect()
}

/// Variants of `pour` with the arm that holds the source: tilt directions around the target.
pub fn pour_variants(arm: Side) -> Vec<Variant> {
    POUR_DIRECTIONS_DEG
        .iter()
        .map(|&d| Variant {
            arm,
            grasp: None,
            direction_deg: Some(d),
            point: None,
        })
        .collect()
}

/// Variants of `point`: both arms x two distances of the hand from the shoulder.
/// How far short of its target a pointing hand stops, metres.
const POINT_STANDOFF: f32 = 0.15;

/// Pointing variants: each arm, hand at a few distances towards the target.
pub fn point_variants(robot: &Robot, target: Vec3, table_height: f32) -> Vec<Variant> {
    let mut out = Vec::new();
    for arm in Side::BOTH {
        let b = &robot.arm(arm).world_from_base;
        // Measured from the shoulder (first joint's top), not the mount.
        let base = Vec3::from(b.translation) + Vec3::from(b.matrix3.z_axis) * 0.2755;
        // The hand stops well short of the target (pointing, not touching).
        let to_target = (target - base).length();
        let longest = (to_target - POINT_STANDOFF).max(0.45);
        for distance in [0.45f32, 0.55, 0.65].map(|d| d.min(longest)) {
            let dir = (target - base).normalize_or(Vec3::X);
            let mut p = base + dir * distance;
            // Stay above the tallest things on the table while pointing at them.
            p.z = p.z.max(table_height + 0.32);
            out.push(Variant {
                arm,
                grasp: None,
                direction_deg: None,
                point: Some(p),
            });
        }
    }
    out
}

/// The point a target stands for: an object's centre, or a person's chest.
pub fn target_point(world: &World, target: Target) -> Vec3 {
    match target {
        Target::Object(o) => world.object_centre(o),
        Target::Person(p) => {
            let person = world.person(p);
            person.position.extend(person.body.shoulder_height - 0.1)
        }
    }
}

/// Whether two joint vectors are the same pose (within 1 mrad per joint).
pub fn same_joints(a: &Joints, b: &Joints) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-3)
}
