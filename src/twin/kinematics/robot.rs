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
            .collect();
        Self {
            name: description.name.clone(),
            world_from_robot,
            left: ArmKinematics::new(&description.arms.left, Side::Left, &world_from_robot),
            right: ArmKinematics::new(&description.arms.right, Side::Right, &world_from_robot),
            torso,
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
        let mut best: (f32, Option<(Part, Part)>) = (f32::INFINITY, None);
        // A pair whose bounding spheres are farther apart than the nearest pair so far
        // cannot be nearer: skipped without the exact distance (the same answer, faster).
        // Each sphere is found once; the parts are named once, at the end.
        let spheres = |caps: &[Capsule]| caps.iter().map(Capsule::bounding_sphere).collect();
        let spheres: [Vec<Sphere>; 2] = [spheres(left), spheres(right)];
        let torso: Vec<Sphere> = self
            .torso
            .iter()
            .map(|(_, t)| t.bounding_sphere())
            .collect();
        let mut consider = |(p, ps): (&Capsule, &Sphere), (q, qs): (&Capsule, &Sphere), parts| {
            if ps.distance_lower_bound(qs) >= best.0 {
                return;
            }
            let d = p.distance(q);
            if d < best.0 {
                best = (d, Some(parts));
            }
        };
        for (s, (side, caps)) in [(Side::Left, left), (Side::Right, right)]
            .into_iter()
            .enumerate()
        {
            let arm = self.arm(side);
            let link = |i: usize| (&caps[i], &spheres[s][i]);
            for i in 0..caps.len() {
                for j in i + 1..caps.len() {
                    if !arm.links_adjacent(i, j) {
                        consider(link(i), link(j), (Part::Link(side, i), Part::Link(side, j)));
                    }
                }
                if arm.link_on_torso(i) {
                    continue;
                }
                for (k, ((_, t), ts)) in self.torso.iter().zip(&torso).enumerate() {
                    consider(link(i), (t, ts), (Part::Link(side, i), Part::Body(k)));
                }
            }
        }
        for (i, a) in left.iter().zip(&spheres[0]).enumerate() {
            for (j, b) in right.iter().zip(&spheres[1]).enumerate() {
                consider(
                    a,
                    b,
                    (Part::Link(Side::Left, i), Part::Link(Side::Right, j)),
                );
            }
        }
        let name = |part: Part| match part {
            Part::Link(side, i) => self.arm(side).link_label(i),
            Part::Body(k) => self.torso[k].0.clone(),
        };
        let (a, b) = best
            .1
            .map_or((String::new(), String::new()), |(a, b)| (name(a), name(b)));
        SelfClearance {
            distance: best.0,
            a,
            b,
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
