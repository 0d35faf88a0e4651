//! Robot description as data: the TOML file under `scenes/robots/`, loaded
//! with serde and validated so that kinematics code can trust it.

use std::path::Path;

use serde::Deserialize;
use thiserror::Error;

use super::chain::DOF;

/// Why a robot description could not be used; always names its origin (file).
#[derive(Debug, Error)]
pub enum DescriptionError {
    /// The file could not be read.
    #[error("{origin}: cannot read robot description: {source}")]
    Io {
        /// File or other origin of the text.
        origin: String,
        /// Underlying I/O error.
        source: std::io::Error,
    },
    /// The text is not valid TOML for a robot description.
    #[error("{origin}: invalid robot description: {source}")]
    Parse {
        /// File or other origin of the text.
        origin: String,
        /// Underlying TOML error (carries line and column).
        source: toml::de::Error,
    },
    /// The values parse but make no sense (e.g. a joint whose minimum exceeds its maximum).
    #[error("{origin}: invalid robot description: {reason}")]
    Invalid {
        /// File or other origin of the text.
        origin: String,
        /// What is wrong, in words.
        reason: String,
    },
}

/// A whole robot: torso, head, two arms sharing one chain model, one hand model.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobotDescription {
    /// Robot name, for messages.
    pub name: String,
    /// Kinematic chain shared by both arms.
    pub chain: ChainDescription,
    /// Mounts and home poses of the two arms.
    pub arms: ArmsDescription,
    /// The three-finger hand on each arm.
    pub hand: HandDescription,
    /// The pan-tilt head.
    pub head: HeadDescription,
    /// Static collision geometry of the torso (and head), in the robot frame.
    pub torso: TorsoDescription,
}

/// One revolute joint as a classic Denavit-Hartenberg row plus its limits.
///
/// Frame i = frame i-1 · Rz(q + theta_offset) · Tz(d) · Tx(a) · Rx(alpha).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointDescription {
    /// Joint name, e.g. "j4".
    pub name: String,
    /// Offset along the joint axis (m).
    pub d: f32,
    /// Offset along the common normal (m).
    pub a: f32,
    /// Twist to the next joint axis (degrees).
    pub alpha_deg: f32,
    /// Added to q before rotating (degrees); defines the zero convention.
    #[serde(default)]
    pub theta_offset_deg: f32,
    /// Lower limit (degrees, in this file's zero convention).
    pub min_deg: f32,
    /// Upper limit (degrees).
    pub max_deg: f32,
    /// Continuous joints (no hard stop) carry a wide finite range for planning.
    #[serde(default)]
    pub continuous: bool,
}

/// A collision capsule of one arm link, spanning two chain frame origins.
///
/// Frame indices: 0 = arm base, i = after joint i (1..=7, 7 = flange), 8 = tool centre.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkDescription {
    /// Human name used in messages ("forearm").
    pub name: String,
    /// Frame whose origin starts the segment.
    pub from: usize,
    /// Frame whose origin ends the segment.
    pub to: usize,
    /// Capsule radius (m).
    pub radius: f32,
    /// Lengthen (+) or shorten (-) the segment at its start (m).
    #[serde(default)]
    pub extend_start: f32,
    /// Lengthen (+) or shorten (-) the segment at its end (m).
    #[serde(default)]
    pub extend_end: f32,
}

/// The arm model both arms share.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainDescription {
    /// Exactly seven joints, base to flange.
    pub joints: Vec<JointDescription>,
    /// Link collision capsules.
    pub links: Vec<LinkDescription>,
    /// Link pairs never checked against each other beyond those sharing a joint
    /// (e.g. forearm and hand, kept apart by the joint-6 limits).
    #[serde(default)]
    pub ignore_pairs: Vec<[String; 2]>,
}

/// Where one arm is mounted and where it rests.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmDescription {
    /// Arm base position in the robot frame (m).
    pub mount_xyz: [f32; 3],
    /// Arm base orientation in the robot frame: roll, pitch, yaw (degrees, R = Rz·Ry·Rx).
    pub mount_rpy_deg: [f32; 3],
    /// Home joint pose (degrees).
    pub home_deg: [f32; DOF],
    /// Pose the arm steps aside to when the other arm must reach across where it rests
    /// (degrees): folded back beside the torso, clear of the table. Without one, an idle
    /// arm stays where it rests.
    #[serde(default)]
    pub aside_deg: Option<[f32; DOF]>,
}

/// The two arms.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmsDescription {
    /// Arm on the robot's left (+y).
    pub left: ArmDescription,
    /// Arm on the robot's right (-y).
    pub right: ArmDescription,
}

/// Power grasp: fingers wrap a cylinder approached from its side.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerGrasp {
    /// Smallest cylinder diameter held securely (m).
    pub min_diameter: f32,
    /// Largest cylinder diameter the fingers close around (m).
    pub max_diameter: f32,
}

/// Pinch (top) grasp: fingertips hold small or flat objects.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinchGrasp {
    /// Widest object the fingertips span (m).
    pub max_width: f32,
}

/// Three-finger hand. Hand frame: z = approach (out of the palm), x = closing direction.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandDescription {
    /// Number of fingers (informational).
    pub fingers: u32,
    /// Tool centre (between the fingers) in the flange frame (m).
    pub tcp_offset: [f32; 3],
    /// Side grasp of cylinders.
    pub power: PowerGrasp,
    /// Fingertip grasp of small or flat objects.
    pub pinch: PinchGrasp,
}

/// Pan-tilt head.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadDescription {
    /// Pan-tilt centre in the robot frame (m).
    pub position: [f32; 3],
    /// Pan range about z, 0 = looking along robot +x (degrees).
    pub pan_limits_deg: [f32; 2],
    /// Tilt range, positive looks up (degrees).
    pub tilt_limits_deg: [f32; 2],
}

/// A named capsule fixed in the robot frame.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedCapsule {
    /// Name used in messages ("torso").
    pub name: String,
    /// Segment start in the robot frame (m).
    pub a: [f32; 3],
    /// Segment end in the robot frame (m).
    pub b: [f32; 3],
    /// Radius (m).
    pub radius: f32,
}

/// Static robot body geometry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorsoDescription {
    /// Capsules; arm links starting at frame 0 (mounted on the torso) are not checked against these.
    pub capsules: Vec<FixedCapsule>,
}

impl RobotDescription {
    /// Read, parse and validate a description file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, DescriptionError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| DescriptionError::Io {
            origin: origin.clone(),
            source,
        })?;
        Self::from_toml_str(&text, &origin)
    }

    /// Parse and validate TOML text; `origin` names it in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, DescriptionError> {
        let description: RobotDescription =
            toml::from_str(text).map_err(|source| DescriptionError::Parse {
                origin: origin.to_string(),
                source,
            })?;
        description
            .validate()
            .map_err(|reason| DescriptionError::Invalid {
                origin: origin.to_string(),
                reason,
            })?;
        Ok(description)
    }

    /// Check ranges and consistency; the reason names the offending item.
    fn validate(&self) -> Result<(), String> {
        let joints = &self.chain.joints;
        if joints.len() != DOF {
            return Err(format!(
                "chain.joints has {} joints, expected {DOF}",
                joints.len()
            ));
        }
        for (i, j) in joints.iter().enumerate() {
            let vals = [
                j.d,
                j.a,
                j.alpha_deg,
                j.theta_offset_deg,
                j.min_deg,
                j.max_deg,
            ];
            if vals.iter().any(|v| !v.is_finite()) {
                return Err(format!(
                    "joint {} ({}) has a non-finite value",
                    i + 1,
                    j.name
                ));
            }
            if j.min_deg >= j.max_deg {
                return Err(format!(
                    "joint {} ({}) has min_deg {} not below max_deg {}",
                    i + 1,
                    j.name,
                    j.min_deg,
                    j.max_deg
                ));
            }
        }
        if self.chain.links.is_empty() {
            return Err("chain.links is empty".into());
        }
        for l in &self.chain.links {
            if l.from > DOF + 1 || l.to > DOF + 1 || l.from >= l.to {
                return Err(format!(
                    "link '{}' spans frames {}..{}; need from < to <= {}",
                    l.name,
                    l.from,
                    l.to,
                    DOF + 1
                ));
            }
            if !(l.radius > 0.0 && l.radius < 0.5) {
                return Err(format!(
                    "link '{}' radius {} not in (0, 0.5) m",
                    l.name, l.radius
                ));
            }
            if !l.extend_start.is_finite() || !l.extend_end.is_finite() {
                return Err(format!("link '{}' has a non-finite extension", l.name));
            }
        }
        for pair in &self.chain.ignore_pairs {
            for name in pair {
                if !self.chain.links.iter().any(|l| l.name == *name) {
                    return Err(format!("chain.ignore_pairs names unknown link '{name}'"));
                }
            }
        }
        for (side, arm) in [("left", &self.arms.left), ("right", &self.arms.right)] {
            let finite = arm
                .mount_xyz
                .iter()
                .chain(arm.mount_rpy_deg.iter())
                .all(|v| v.is_finite());
            if !finite {
                return Err(format!("arms.{side} mount has a non-finite value"));
            }
            let poses = std::iter::once(("home_deg", &arm.home_deg))
                .chain(arm.aside_deg.as_ref().map(|a| ("aside_deg", a)));
            for (pose, degrees) in poses {
                for (i, (h, j)) in degrees.iter().zip(joints).enumerate() {
                    if !(*h >= j.min_deg && *h <= j.max_deg) {
                        return Err(format!(
                            "arms.{side}.{pose} joint {} = {h} outside [{}, {}]",
                            i + 1,
                            j.min_deg,
                            j.max_deg
                        ));
                    }
                }
            }
        }
        let hand = &self.hand;
        if hand.tcp_offset.iter().any(|v| !v.is_finite()) {
            return Err("hand.tcp_offset has a non-finite value".into());
        }
        let p = hand.power;
        if !(p.min_diameter > 0.0 && p.min_diameter <= p.max_diameter && p.max_diameter < 0.5) {
            return Err(format!(
                "hand.power needs 0 < min_diameter <= max_diameter < 0.5 m, got {}..{}",
                p.min_diameter, p.max_diameter
            ));
        }
        if !(hand.pinch.max_width > 0.0 && hand.pinch.max_width < 0.5) {
            return Err(format!(
                "hand.pinch.max_width {} not in (0, 0.5) m",
                hand.pinch.max_width
            ));
        }
        let head = &self.head;
        if head.position.iter().any(|v| !v.is_finite()) {
            return Err("head.position has a non-finite value".into());
        }
        for (what, [lo, hi]) in [("pan", head.pan_limits_deg), ("tilt", head.tilt_limits_deg)] {
            // Written so that NaN fails too.
            if lo.is_nan() || hi.is_nan() || lo >= hi {
                return Err(format!(
                    "head.{what}_limits_deg [{lo}, {hi}] is not increasing"
                ));
            }
        }
        for c in &self.torso.capsules {
            let finite = c.a.iter().chain(c.b.iter()).all(|v| v.is_finite());
            if !finite || c.radius.is_nan() || c.radius <= 0.0 {
                return Err(format!("torso capsule '{}' is malformed", c.name));
            }
        }
        Ok(())
    }
}
