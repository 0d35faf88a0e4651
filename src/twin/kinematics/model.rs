//! One arm as the kinematics uses it, whatever file it came from: a serial
//! chain of revolute joints, collision capsules fixed to its frames, and its
//! rest poses. DH rows and URDF chains both resolve into this.

use glam::{Affine3A, Vec3};

use super::joints::Joints;

/// One revolute joint of a chain.
///
/// Frame i = frame i-1 · `origin` · R(`axis`, q + `offset`) · `after`.
#[derive(Debug, Clone)]
pub struct JointModel {
    /// Joint name in the description ("j4", "left_elbow_joint").
    pub name: String,
    /// The joint frame in the previous frame at q = 0 (a URDF joint origin; identity for DH).
    pub origin: Affine3A,
    /// Rotation axis in the joint frame, unit length.
    pub axis: Vec3,
    /// Added to q before rotating (rad): the description's zero convention.
    pub offset: f32,
    /// Constant transform after the rotation (a DH row's Tz(d)·Tx(a)·Rx(alpha); identity for URDF).
    pub after: Affine3A,
    /// Lower limit (rad).
    pub lower: f32,
    /// Upper limit (rad).
    pub upper: f32,
    /// No hard stop: the range is only a planning bound.
    pub continuous: bool,
}

/// One end of a link capsule: a point fixed in a chain frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CapsuleEnd {
    /// Chain frame: 0 = arm base, i = after joint i, joints + 1 = tool centre.
    pub frame: usize,
    /// The point in that frame (m).
    pub point: Vec3,
}

/// A collision capsule of one arm link.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkCapsule {
    /// Name used in messages ("forearm").
    pub name: String,
    /// Segment start.
    pub start: CapsuleEnd,
    /// Segment end.
    pub end: CapsuleEnd,
    /// Radius (m).
    pub radius: f32,
    /// Lengthen (+) or shorten (-) the segment at its start (m).
    pub extend_start: f32,
    /// Lengthen (+) or shorten (-) the segment at its end (m).
    pub extend_end: f32,
}

impl LinkCapsule {
    /// Lowest and highest chain frame the capsule hangs on.
    pub fn frame_span(&self) -> (usize, usize) {
        let (a, b) = (self.start.frame, self.end.frame);
        (a.min(b), a.max(b))
    }
}

/// One arm, resolved from its description.
#[derive(Debug, Clone)]
pub struct ArmModel {
    /// Arm base in the robot frame.
    pub robot_from_base: Affine3A,
    /// Base to tip, moving joints only (fixed joints folded into the next origin).
    pub joints: Vec<JointModel>,
    /// Tool centre (where a held object sits) in the last joint's frame.
    pub last_from_hand: Affine3A,
    /// Link collision capsules.
    pub links: Vec<LinkCapsule>,
    /// Link pairs (by name) never checked against each other beyond the automatic ones.
    pub ignore_pairs: Vec<[String; 2]>,
    /// Home joint pose (rad).
    pub home: Joints,
    /// Pose out of the other arm's way (rad), when the description has one.
    pub aside: Option<Joints>,
}

impl ArmModel {
    /// Number of joints.
    pub fn dof(&self) -> usize {
        self.joints.len()
    }

    /// Lower limits (rad).
    pub fn lower(&self) -> Joints {
        self.joints.iter().map(|j| j.lower).collect()
    }

    /// Upper limits (rad).
    pub fn upper(&self) -> Joints {
        self.joints.iter().map(|j| j.upper).collect()
    }

    /// The first joint of `q` outside its limits (index, value, lower, upper), in radians.
    pub fn outside_limits(&self, q: &[f32]) -> Option<(usize, f32, f32, f32)> {
        self.joints
            .iter()
            .zip(q)
            .enumerate()
            .find(|(_, (j, v))| !(**v >= j.lower - 1e-6 && **v <= j.upper + 1e-6))
            .map(|(i, (j, v))| (i, *v, j.lower, j.upper))
    }
}
