//! One arm's kinematic chain: forward kinematics, link frames and the
//! geometric Jacobian, all in the world frame.

use glam::{Affine3A, Vec3, Vec3A};

use super::description::{LinkDescription, RobotDescription};
use super::pose::pose_from_xyz_rpy_deg;

/// Joints per arm (Jaco Gen2 7-DOF).
pub const DOF: usize = 7;
/// Chain frames: 0 = base, 1..=7 after each joint (7 = flange), 8 = hand (tool centre).
pub const FRAMES: usize = DOF + 2;
/// Index of the hand (tool-centre) frame in [`LinkFrames`].
pub const HAND_FRAME: usize = DOF + 1;

/// A joint vector in radians, in the description's zero convention.
pub type Joints = [f32; DOF];

/// World-frame transforms of every chain frame, `world_from_frame[i]`.
pub type LinkFrames = [Affine3A; FRAMES];

/// Which arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The robot's left arm (+y in the robot frame).
    Left,
    /// The robot's right arm (-y in the robot frame).
    Right,
}

impl Side {
    /// Both sides, left first.
    pub const BOTH: [Side; 2] = [Side::Left, Side::Right];

    /// "left" or "right".
    pub fn name(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
        }
    }

    /// The other arm.
    pub fn other(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Geometric Jacobian, 6 rows (linear velocity xyz, angular velocity xyz, world frame) by 7 joints.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jacobian(pub [[f32; DOF]; 6]);

/// Kinematics of one mounted arm; cheap to copy around, no allocation per query.
#[derive(Debug, Clone)]
pub struct ArmKinematics {
    /// Which arm this is.
    pub side: Side,
    /// Arm base in the world.
    pub world_from_base: Affine3A,
    /// Constant part Tz(d)·Tx(a)·Rx(alpha) of each DH row.
    dh_fixed: [Affine3A; DOF],
    /// theta offset of each joint (rad).
    theta_offset: Joints,
    /// Hand (tool centre) in the flange frame.
    flange_from_hand: Affine3A,
    /// Lower joint limits (rad).
    pub lower: Joints,
    /// Upper joint limits (rad).
    pub upper: Joints,
    /// Joint has no hard stop (its range is only a planning bound).
    pub continuous: [bool; DOF],
    /// Home joint pose (rad).
    pub home: Joints,
    /// Pose out of the other arm's way (rad), when the description has one.
    pub aside: Option<Joints>,
    /// Link capsule geometry.
    pub links: Vec<LinkDescription>,
    /// `skip[i][j]`: links i and j are never checked against each other.
    pub(crate) skip: Vec<Vec<bool>>,
}

impl ArmKinematics {
    /// Builds one arm of a validated description, placed by `world_from_robot`.
    pub fn new(description: &RobotDescription, side: Side, world_from_robot: &Affine3A) -> Self {
        let arm = match side {
            Side::Left => &description.arms.left,
            Side::Right => &description.arms.right,
        };
        let robot_from_base = pose_from_xyz_rpy_deg(arm.mount_xyz, arm.mount_rpy_deg);
        let mut dh_fixed = [Affine3A::IDENTITY; DOF];
        let mut theta_offset = [0.0; DOF];
        let mut lower = [0.0; DOF];
        let mut upper = [0.0; DOF];
        let mut continuous = [false; DOF];
        // Validation guarantees exactly DOF joints; zip keeps this panic-free regardless.
        for (i, j) in description.chain.joints.iter().take(DOF).enumerate() {
            dh_fixed[i] = Affine3A::from_translation(Vec3::new(j.a, 0.0, j.d))
                * Affine3A::from_rotation_x(j.alpha_deg.to_radians());
            theta_offset[i] = j.theta_offset_deg.to_radians();
            lower[i] = j.min_deg.to_radians();
            upper[i] = j.max_deg.to_radians();
            continuous[i] = j.continuous;
        }
        Self {
            side,
            world_from_base: *world_from_robot * robot_from_base,
            dh_fixed,
            theta_offset,
            flange_from_hand: Affine3A::from_translation(Vec3::from_array(
                description.hand.tcp_offset,
            )),
            lower,
            upper,
            continuous,
            home: arm.home_deg.map(f32::to_radians),
            aside: arm.aside_deg.map(|a| a.map(f32::to_radians)),
            links: description.chain.links.clone(),
            skip: skip_matrix(description),
        }
    }

    /// World transform of every chain frame for joint vector `q`.
    pub fn link_frames(&self, q: &Joints) -> LinkFrames {
        let mut frames = [Affine3A::IDENTITY; FRAMES];
        let mut t = self.world_from_base;
        frames[0] = t;
        for i in 0..DOF {
            t = t * Affine3A::from_rotation_z(q[i] + self.theta_offset[i]) * self.dh_fixed[i];
            frames[i + 1] = t;
        }
        frames[HAND_FRAME] = t * self.flange_from_hand;
        frames
    }

    /// Hand (tool-centre) pose in the world.
    pub fn world_from_hand(&self, q: &Joints) -> Affine3A {
        self.link_frames(q)[HAND_FRAME]
    }

    /// Hand pose relative to the arm base.
    pub fn base_from_hand(&self, q: &Joints) -> Affine3A {
        self.world_from_base.inverse() * self.world_from_hand(q)
    }

    /// Geometric Jacobian of the hand frame origin for `q`.
    pub fn jacobian(&self, q: &Joints) -> Jacobian {
        jacobian_from_frames(&self.link_frames(q))
    }

    /// Joint vector clamped into the limits.
    pub fn clamp(&self, q: &Joints) -> Joints {
        let mut out = *q;
        for i in 0..DOF {
            out[i] = q[i].clamp(self.lower[i], self.upper[i]);
        }
        out
    }

    /// Index of the first joint outside its limits (with tolerance `eps` rad).
    pub fn limit_violation(&self, q: &Joints, eps: f32) -> Option<usize> {
        (0..DOF).find(|&i| q[i] < self.lower[i] - eps || q[i] > self.upper[i] + eps)
    }

    /// Normalised distance to the nearest limit: 1 at mid-range, 0 at a limit.
    pub fn joint_margin(&self, q: &Joints) -> f32 {
        (0..DOF)
            .map(|i| {
                let half = 0.5 * (self.upper[i] - self.lower[i]);
                ((q[i] - self.lower[i]).min(self.upper[i] - q[i]) / half).max(0.0)
            })
            .fold(1.0, f32::min)
    }
}

/// Jacobian from already computed frames (joint i turns about z of frame i-1).
pub fn jacobian_from_frames(frames: &LinkFrames) -> Jacobian {
    let p: Vec3A = frames[HAND_FRAME].translation;
    let mut j = [[0.0; DOF]; 6];
    for i in 0..DOF {
        let z: Vec3A = frames[i].matrix3.z_axis;
        let lin = z.cross(p - frames[i].translation);
        j[0][i] = lin.x;
        j[1][i] = lin.y;
        j[2][i] = lin.z;
        j[3][i] = z.x;
        j[4][i] = z.y;
        j[5][i] = z.z;
    }
    Jacobian(j)
}

/// Which link pairs self-collision ignores: those whose frame spans meet (they share a
/// joint) and those listed in `chain.ignore_pairs`.
fn skip_matrix(description: &RobotDescription) -> Vec<Vec<bool>> {
    let links = &description.chain.links;
    let index = |name: &str| links.iter().position(|l| l.name == name);
    let mut skip: Vec<Vec<bool>> = links
        .iter()
        .map(|a| {
            links
                .iter()
                .map(|b| {
                    let gap =
                        (b.from as isize - a.to as isize).max(a.from as isize - b.to as isize);
                    gap <= 1
                })
                .collect()
        })
        .collect();
    for [a, b] in &description.chain.ignore_pairs {
        if let (Some(i), Some(j)) = (index(a), index(b)) {
            skip[i][j] = true;
            skip[j][i] = true;
        }
    }
    skip
}
