//! One arm's kinematic chain: forward kinematics, link frames and the
//! geometric Jacobian, all in the world frame.

use glam::{Affine3A, Vec3, Vec3A};

use super::ik_memo::IkMemo;
use super::joints::{Joints, MAX_JOINTS};
use super::model::{ArmModel, JointModel, LinkCapsule};

/// Most chain frames one arm has: the base, one per joint, the hand.
pub const MAX_FRAMES: usize = MAX_JOINTS + 2;

/// World-frame transforms of every chain frame of one arm (`[i]` is `world_from_frame_i`:
/// 0 = base, i = after joint i, the last = hand), and each joint's world axis for the
/// Jacobian.
#[derive(Debug, Clone, Copy)]
pub struct LinkFrames {
    joints: usize,
    frames: [Affine3A; MAX_FRAMES],
    /// World direction of each joint's axis.
    axes: [Vec3A; MAX_JOINTS],
    /// A world point on each joint's axis.
    pivots: [Vec3A; MAX_JOINTS],
}

impl LinkFrames {
    /// The hand (tool-centre) frame.
    pub fn hand(&self) -> &Affine3A {
        &self.frames[self.joints + 1]
    }

    /// Every frame, base first, hand last.
    pub fn all(&self) -> &[Affine3A] {
        &self.frames[..self.joints + 2]
    }
}

impl std::ops::Index<usize> for LinkFrames {
    type Output = Affine3A;

    fn index(&self, i: usize) -> &Affine3A {
        &self.all()[i]
    }
}

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

/// Geometric Jacobian, 6 rows (linear velocity xyz, angular velocity xyz, world frame) by
/// the arm's joints (columns past them are zero).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jacobian(pub [[f32; MAX_JOINTS]; 6]);

/// Kinematics of one mounted arm; cheap to query, no allocation per query.
#[derive(Debug, Clone)]
pub struct ArmKinematics {
    /// Which arm this is.
    pub side: Side,
    /// Arm base in the world.
    pub world_from_base: Affine3A,
    /// The chain, base to tip.
    joints: Vec<JointModel>,
    /// Hand (tool centre) in the last joint's frame.
    last_from_hand: Affine3A,
    /// Lower joint limits (rad).
    pub lower: Joints,
    /// Upper joint limits (rad).
    pub upper: Joints,
    /// Joint has no hard stop (its range is only a planning bound).
    pub continuous: Vec<bool>,
    /// Home joint pose (rad).
    pub home: Joints,
    /// Pose out of the other arm's way (rad), when the description has one.
    pub aside: Option<Joints>,
    /// Link capsule geometry.
    pub links: Vec<LinkCapsule>,
    /// `skip[i][j]`: links i and j are never checked against each other.
    pub(crate) skip: Vec<Vec<bool>>,
    /// The capsules after the last joint, in the tool-centre frame.
    pub(super) hand_capsules: Vec<super::collision::Capsule>,
    /// Inverse-kinematics answers already given.
    pub(super) ik_memo: IkMemo,
}

impl ArmKinematics {
    /// Builds one arm of a validated description, placed by `world_from_robot`.
    pub fn new(model: &ArmModel, side: Side, world_from_robot: &Affine3A) -> Self {
        let mut arm = Self {
            side,
            world_from_base: *world_from_robot * model.robot_from_base,
            joints: model.joints.clone(),
            last_from_hand: model.last_from_hand,
            lower: model.lower(),
            upper: model.upper(),
            continuous: model.joints.iter().map(|j| j.continuous).collect(),
            home: model.home,
            aside: model.aside,
            links: model.links.clone(),
            skip: Vec::new(),
            hand_capsules: Vec::new(),
            ik_memo: IkMemo::default(),
        };
        arm.skip = skip_matrix(&arm, &model.ignore_pairs);
        arm.hand_capsules = arm.capsules_after_the_last_joint();
        arm
    }

    /// Number of joints.
    pub fn dof(&self) -> usize {
        self.joints.len()
    }

    /// Joint names, base to tip.
    pub fn joint_names(&self) -> impl Iterator<Item = &str> {
        self.joints.iter().map(|j| j.name.as_str())
    }

    /// World transform of every chain frame for joint vector `q`.
    pub fn link_frames(&self, q: &Joints) -> LinkFrames {
        let mut out = LinkFrames {
            joints: self.joints.len(),
            frames: [Affine3A::IDENTITY; MAX_FRAMES],
            axes: [Vec3A::Z; MAX_JOINTS],
            pivots: [Vec3A::ZERO; MAX_JOINTS],
        };
        let mut t = self.world_from_base;
        out.frames[0] = t;
        for (i, j) in self.joints.iter().enumerate() {
            let angle = q.get(i).copied().unwrap_or(0.0) + j.offset;
            // DH rows (identity origin, z axis) take the exact product they always took.
            if j.origin != Affine3A::IDENTITY {
                t *= j.origin;
            }
            out.pivots[i] = t.translation;
            if j.axis == Vec3::Z {
                out.axes[i] = t.matrix3.z_axis;
                // `t * Affine3A::from_rotation_z(angle)` with only the two columns that
                // change worked out: the same sums, a third of the products.
                let (sin, cos) = angle.sin_cos();
                let (x, y) = (t.matrix3.x_axis, t.matrix3.y_axis);
                t.matrix3.x_axis = x * cos + y * sin;
                t.matrix3.y_axis = x * -sin + y * cos;
                if j.after != Affine3A::IDENTITY {
                    t *= j.after;
                }
            } else {
                out.axes[i] = t.matrix3 * Vec3A::from(j.axis);
                t = t * Affine3A::from_axis_angle(j.axis, angle) * j.after;
            }
            out.frames[i + 1] = t;
        }
        out.frames[self.joints.len() + 1] = t * self.last_from_hand;
        out
    }

    /// Hand (tool-centre) pose in the world.
    pub fn world_from_hand(&self, q: &Joints) -> Affine3A {
        *self.link_frames(q).hand()
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
        for (i, v) in out.iter_mut().enumerate() {
            *v = v.clamp(self.lower[i], self.upper[i]);
        }
        out
    }

    /// Index of the first joint outside its limits (with tolerance `eps` rad).
    pub fn limit_violation(&self, q: &Joints, eps: f32) -> Option<usize> {
        (0..self.dof().min(q.len()))
            .find(|&i| q[i] < self.lower[i] - eps || q[i] > self.upper[i] + eps)
    }

    /// Normalised distance to the nearest limit: 1 at mid-range, 0 at a limit.
    pub fn joint_margin(&self, q: &Joints) -> f32 {
        (0..self.dof().min(q.len()))
            .map(|i| {
                let half = 0.5 * (self.upper[i] - self.lower[i]);
                ((q[i] - self.lower[i]).min(self.upper[i] - q[i]) / half).max(0.0)
            })
            .fold(1.0, f32::min)
    }
}

/// Jacobian from already computed frames (each joint turns about its world axis).
pub fn jacobian_from_frames(frames: &LinkFrames) -> Jacobian {
    let p: Vec3A = frames.hand().translation;
    let mut j = [[0.0; MAX_JOINTS]; 6];
    let axes = frames.axes.iter().zip(&frames.pivots).take(frames.joints);
    for (i, (&z, &pivot)) in axes.enumerate() {
        let lin = z.cross(p - pivot);
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
/// joint), those touching at the home pose (built to overlap where they join), and those
/// the description lists.
fn skip_matrix(arm: &ArmKinematics, ignore_pairs: &[[String; 2]]) -> Vec<Vec<bool>> {
    let links = &arm.links;
    let at_home = arm.capsules(&arm.home);
    let index = |name: &str| links.iter().position(|l| l.name == name);
    let mut skip: Vec<Vec<bool>> = links
        .iter()
        .enumerate()
        .map(|(i, a)| {
            links
                .iter()
                .enumerate()
                .map(|(j, b)| {
                    let (a_lo, a_hi) = a.frame_span();
                    let (b_lo, b_hi) = b.frame_span();
                    let gap = (b_lo as isize - a_hi as isize).max(a_lo as isize - b_hi as isize);
                    gap <= 1 || (i != j && at_home[i].distance(&at_home[j]) < 0.0)
                })
                .collect()
        })
        .collect();
    for [a, b] in ignore_pairs {
        if let (Some(i), Some(j)) = (index(a), index(b)) {
            skip[i][j] = true;
            skip[j][i] = true;
        }
    }
    skip
}
