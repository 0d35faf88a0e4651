//! The whole robot placed in the world: both arms, torso and head, and the
//! self-collision checks between them.

use glam::{Affine3A, Vec3};

use super::chain::{ArmKinematics, Side};
use super::collision::{Capsule, Sphere};
use super::description::{HandDescription, HeadDescription, RobotDescription};
use super::joints::Joints;

/// The closest pair of robot parts.
#[derive(Debug, Clone, PartialEq)]
pub struct SelfClearance {
    /// Surface distance (m), negative when overlapping.
    pub distance: f32,
    /// First part ("left forearm", "torso").
    pub a: String,
    /// Second part.
    pub b: String,
}

/// A bimanual robot placed in the world.
#[derive(Debug, Clone)]
pub struct Robot {
    /// Name from the description.
    pub name: String,
    /// Robot frame in the world (floor point under the torso, x forward).
    pub world_from_robot: Affine3A,
    left: ArmKinematics,
    right: ArmKinematics,
    /// Static body capsules in the world, with names.
    pub torso: Vec<(String, Capsule)>,
    torso_spheres: Vec<Sphere>,
    /// Hand model (shared by both arms).
    pub hand: HandDescription,
    /// Head model (position in the robot frame).
    pub head: HeadDescription,
}

/// A robot part in a self-clearance check: an arm's link, or a capsule of the body.
#[derive(Debug, Clone, Copy)]
enum Part {
    Link(Side, usize),
    Body(usize),
}

/// The nearest pair of robot parts found so far.
#[derive(Debug, Clone, Copy)]
struct NearestPair {
    distance: f32,
    parts: Option<(Part, Part)>,
}

impl NearestPair {
    const NONE: NearestPair = NearestPair {
        distance: f32::INFINITY,
        parts: None,
    };

    /// Takes `other` if it is strictly nearer (a tie keeps what was found first).
    fn keep_nearer(&mut self, other: NearestPair) {
        if other.distance < self.distance {
            *self = other;
        }
    }

    /// Keeps the pair if it is nearer. A pair whose bounding spheres are farther apart
    /// than the nearest pair so far cannot be nearer: skipped without the exact
    /// distance (the same answer, faster).
    fn consider(
        &mut self,
        (p, ps): (&Capsule, &Sphere),
        (q, qs): (&Capsule, &Sphere),
        parts: (Part, Part),
    ) {
        if ps.distance_lower_bound(qs) >= self.distance {
            return;
        }
        let d = p.distance(q);
        if d < self.distance {
            *self = NearestPair {
                distance: d,
                parts: Some(parts),
            };
        }
    }
}

/// An arm that stays still while the other moves: its link capsules (description
/// order) and their bounding spheres, and the nearest pair among its own links and the
/// body, which do not change while it stays.
#[derive(Debug, Clone)]
pub struct StillArm {
    /// Which arm.
    pub side: Side,
    /// Its link capsules in the world.
    pub caps: Vec<Capsule>,
    spheres: Vec<Sphere>,
    nearest: NearestPair,
}

/// Pan and tilt (rad) that point the head at a world point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadAngles {
    /// Pan about z, 0 = robot +x.
    pub pan: f32,
    /// Tilt, positive up.
    pub tilt: f32,
    /// Both angles lie inside the head's limits (else they were clamped).
    pub within_limits: bool,
}

impl Robot {
    /// Places a validated description in the world.
    pub fn new(description: &RobotDescription, world_from_robot: Affine3A) -> Self {
        let torso = description
            .torso
            .capsules
            .iter()
            .map(|c| {
                let a = world_from_robot.transform_point3(Vec3::from_array(c.a));
                let b = world_from_robot.transform_point3(Vec3::from_array(c.b));
                (c.name.clone(), Capsule::new(a, b, c.radius))
            })
            .collect::<Vec<_>>();
        let torso_spheres = torso.iter().map(|(_, c)| c.bounding_sphere()).collect();
        Self {
            name: description.name.clone(),
            world_from_robot,
            left: ArmKinematics::new(&description.arms.left, Side::Left, &world_from_robot),
            right: ArmKinematics::new(&description.arms.right, Side::Right, &world_from_robot),
            torso,
            torso_spheres,
            hand: description.hand.clone(),
            head: description.head.clone(),
        }
    }

    /// One arm.
    pub fn arm(&self, side: Side) -> &ArmKinematics {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }

    /// Home joint pose of one arm.
    pub fn home(&self, side: Side) -> Joints {
        self.arm(side).home
    }

    /// Pose `side` steps aside to when the other arm reaches across, if it has one.
    pub fn aside(&self, side: Side) -> Option<Joints> {
        self.arm(side).aside
    }

    /// Nearest pair among robot parts for both arms' joints: non-adjacent links of one arm,
    /// the two arms against each other, and arm links against the torso.
    pub fn self_clearance(&self, q_left: &Joints, q_right: &Joints) -> SelfClearance {
        let l = self.left.capsules(q_left);
        let r = self.right.capsules(q_right);
        self.self_clearance_of(&l, &r)
    }

    /// As [`Robot::self_clearance`], from precomputed link capsules (description order).
    pub fn self_clearance_of(&self, left: &[Capsule], right: &[Capsule]) -> SelfClearance {
        let still = self.still_arm_of(Side::Right, right.to_vec());
        self.self_clearance_moving(Side::Left, left, &still)
    }

    /// The arm at `q` that stays still while the other moves, with what in its
    /// self-clearance does not change while it stays (its own links and the body).
    pub fn still_arm(&self, side: Side, q: &Joints) -> StillArm {
        self.still_arm_of(side, self.arm(side).capsules(q))
    }

    fn still_arm_of(&self, side: Side, caps: Vec<Capsule>) -> StillArm {
        let spheres: Vec<Sphere> = caps.iter().map(Capsule::bounding_sphere).collect();
        let mut nearest = NearestPair::NONE;
        self.nearest_within_arm(side, (&caps, &spheres), &mut nearest);
        StillArm {
            side,
            caps,
            spheres,
            nearest,
        }
    }

    /// The self-clearance with the `moving` arm's links at `caps` and the other arm
    /// still: the moving arm against itself, the body and the still arm.
    pub fn self_clearance_moving(
        &self,
        moving: Side,
        caps: &[Capsule],
        still: &StillArm,
    ) -> SelfClearance {
        let spheres: Vec<Sphere> = caps.iter().map(Capsule::bounding_sphere).collect();
        let ours = (caps, &spheres[..]);
        let theirs = (&still.caps[..], &still.spheres[..]);
        // The pairs in the whole robot's order (the left arm's own, the right arm's own,
        // then left against right), so that a tie names the same pair as it always has.
        let mut best = NearestPair::NONE;
        let (left, right) = match moving {
            Side::Left => {
                self.nearest_within_arm(Side::Left, ours, &mut best);
                best.keep_nearer(still.nearest);
                (ours, theirs)
            }
            Side::Right => {
                best = still.nearest;
                self.nearest_within_arm(Side::Right, ours, &mut best);
                (theirs, ours)
            }
        };
        for (i, a) in left.0.iter().zip(left.1).enumerate() {
            for (j, b) in right.0.iter().zip(right.1).enumerate() {
                let parts = (Part::Link(Side::Left, i), Part::Link(Side::Right, j));
                best.consider(a, b, parts);
            }
        }
        let name = |part: Part| match part {
            Part::Link(side, i) => self.arm(side).link_label(i),
            Part::Body(k) => self.torso[k].0.clone(),
        };
        let (a, b) = best
            .parts
            .map_or((String::new(), String::new()), |(a, b)| (name(a), name(b)));
        SelfClearance {
            distance: best.distance,
            a,
            b,
        }
    }

    /// The nearest pair of one arm's non-adjacent links, and of its links and the body.
    fn nearest_within_arm(
        &self,
        side: Side,
        (caps, spheres): (&[Capsule], &[Sphere]),
        best: &mut NearestPair,
    ) {
        let arm = self.arm(side);
        let link = |i: usize| (&caps[i], &spheres[i]);
        for i in 0..caps.len() {
            for j in i + 1..caps.len() {
                if !arm.links_adjacent(i, j) {
                    best.consider(link(i), link(j), (Part::Link(side, i), Part::Link(side, j)));
                }
            }
            if arm.link_on_torso(i) {
                continue;
            }
            for (k, ((_, t), ts)) in self.torso.iter().zip(&self.torso_spheres).enumerate() {
                best.consider(link(i), (t, ts), (Part::Link(side, i), Part::Body(k)));
            }
        }
    }

    /// Pan and tilt that look at `target` (world), clamped into the head limits.
    pub fn head_angles_towards(&self, target: Vec3) -> HeadAngles {
        let head = self
            .world_from_robot
            .transform_point3(Vec3::from_array(self.head.position));
        let d = self
            .world_from_robot
            .inverse()
            .transform_vector3(target - head);
        let pan = d.y.atan2(d.x);
        let tilt = d.z.atan2(d.x.hypot(d.y));
        let [pl, ph] = self.head.pan_limits_deg.map(f32::to_radians);
        let [tl, th] = self.head.tilt_limits_deg.map(f32::to_radians);
        HeadAngles {
            pan: pan.clamp(pl, ph),
            tilt: tilt.clamp(tl, th),
            within_limits: (pl..=ph).contains(&pan) && (tl..=th).contains(&tilt),
        }
    }
}
