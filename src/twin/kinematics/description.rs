//! Robot description as data: the TOML file under `scenes/robots/`, loaded
//! with serde, its arms resolved from DH rows or from a URDF, and validated so
//! that kinematics code can trust it.

use std::collections::BTreeMap;
use std::path::Path;

use glam::{Affine3A, Vec3};
use serde::Deserialize;
use thiserror::Error;

pub use super::hand::{HandDescription, HandFile, PinchGrasp, PowerGrasp};
use super::joints::{Joints, MAX_JOINTS};
use super::model::{ArmModel, CapsuleEnd, JointModel, LinkCapsule};
use super::packages::PackageFolders;
use super::pose::pose_from_xyz_rpy_deg;
use super::urdf;

/// Fewest joints an arm may have: a hand pose needs six.
pub const MIN_JOINTS: usize = 6;

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
    /// The URDF it names cannot be read, parsed or used.
    #[error("{origin}: invalid URDF: {reason}")]
    Urdf {
        /// The URDF file.
        origin: String,
        /// What is wrong: the element and the reason.
        reason: String,
    },
}

/// A whole robot, resolved: torso, head, two arms, one hand model.
#[derive(Debug, Clone)]
pub struct RobotDescription {
    /// Robot name, for messages.
    pub name: String,
    /// The two arms.
    pub arms: ArmsDescription,
    /// The hand on each arm.
    pub hand: HandDescription,
    /// The pan-tilt head.
    pub head: HeadDescription,
    /// Static collision geometry of the torso (and head), in the robot frame.
    pub torso: TorsoDescription,
}

/// The description file as written: DH rows in `[chain]` and mounts per arm, or a
/// `urdf` file with each arm's base and tip links.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobotFile {
    /// Robot name, for messages.
    pub name: String,
    /// URDF file (relative to this file) that holds both arms, the torso and the head.
    #[serde(default)]
    pub urdf: Option<String>,
    /// Kinematic chain shared by both arms, as DH rows (without `urdf`).
    #[serde(default)]
    pub chain: Option<ChainDescription>,
    /// Where each arm is and where it rests.
    pub arms: ArmsFile,
    /// The hand on each arm.
    pub hand: HandFile,
    /// The pan-tilt head.
    pub head: HeadFile,
    /// Static collision geometry (with `urdf`, added to the URDF's own).
    #[serde(default)]
    pub torso: Option<TorsoDescription>,
    /// Folders (relative to this file) of the packages the URDF's `package://` meshes name.
    #[serde(default)]
    pub packages: BTreeMap<String, String>,
}

/// The two arms as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmsFile {
    /// Arm on the robot's left (+y).
    pub left: ArmFile,
    /// Arm on the robot's right (-y).
    pub right: ArmFile,
}

/// One arm as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmFile {
    /// DH form: arm base position in the robot frame (m).
    #[serde(default)]
    pub mount_xyz: Option<[f32; 3]>,
    /// DH form: arm base orientation in the robot frame, roll, pitch, yaw (degrees, R = Rz·Ry·Rx).
    #[serde(default)]
    pub mount_rpy_deg: Option<[f32; 3]>,
    /// URDF form: the link the arm starts at (fixed to the robot's root).
    #[serde(default)]
    pub base_link: Option<String>,
    /// URDF form: the tool-centre link, where an object sits in the closed hand.
    #[serde(default)]
    pub tip_link: Option<String>,
    /// Home joint pose (degrees), one value per joint.
    pub home_deg: Vec<f32>,
    /// Pose the arm steps aside to when the other arm must reach across where it rests
    /// (degrees): folded back beside the torso, clear of the table. Without one, an idle
    /// arm stays where it rests.
    #[serde(default)]
    pub aside_deg: Option<Vec<f32>>,
    /// URDF form: link pairs (capsule names) never checked against each other.
    #[serde(default)]
    pub ignore_pairs: Vec<[String; 2]>,
}

/// The head as written: its pan-tilt centre and ranges, or (URDF form) its joints.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadFile {
    /// Pan-tilt centre in the robot frame (m).
    #[serde(default)]
    pub position: Option<[f32; 3]>,
    /// Pan range about z, 0 = looking along robot +x (degrees).
    #[serde(default)]
    pub pan_limits_deg: Option<[f32; 2]>,
    /// Tilt range, positive looks up (degrees).
    #[serde(default)]
    pub tilt_limits_deg: Option<[f32; 2]>,
    /// URDF form: the pan joint (about the robot's z).
    #[serde(default)]
    pub pan_joint: Option<String>,
    /// URDF form: the tilt joint.
    #[serde(default)]
    pub tilt_joint: Option<String>,
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
/// Frame indices: 0 = arm base, i = after joint i (the last = flange), then the tool centre.
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
    /// Base to flange, one row per joint.
    pub joints: Vec<JointDescription>,
    /// Link collision capsules.
    pub links: Vec<LinkDescription>,
    /// Link pairs never checked against each other beyond those sharing a joint
    /// (e.g. forearm and hand, kept apart by the joint-6 limits).
    #[serde(default)]
    pub ignore_pairs: Vec<[String; 2]>,
}

/// The two arms, resolved.
#[derive(Debug, Clone)]
pub struct ArmsDescription {
    /// Arm on the robot's left (+y).
    pub left: ArmModel,
    /// Arm on the robot's right (-y).
    pub right: ArmModel,
}

impl HeadFile {
    /// The head as written out (centre and ranges), when all three are given.
    fn as_written(&self) -> Option<HeadDescription> {
        Some(HeadDescription {
            position: self.position?,
            pan_limits_deg: self.pan_limits_deg?,
            tilt_limits_deg: self.tilt_limits_deg?,
            joints: self
                .pan_joint
                .clone()
                .zip(self.tilt_joint.clone())
                .map(|(p, t)| [p, t]),
        })
    }
}

/// Pan-tilt head, resolved.
#[derive(Debug, Clone)]
pub struct HeadDescription {
    /// Pan-tilt centre in the robot frame (m).
    pub position: [f32; 3],
    /// Pan range about z, 0 = looking along robot +x (degrees).
    pub pan_limits_deg: [f32; 2],
    /// Tilt range, positive looks up (degrees).
    pub tilt_limits_deg: [f32; 2],
    /// The pan and tilt joints' names, when the description names them.
    pub joints: Option<[String; 2]>,
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
    /// Read, parse, resolve and validate a description file (a URDF it names is read
    /// relative to it).
    pub fn load(path: impl AsRef<Path>) -> Result<Self, DescriptionError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| DescriptionError::Io {
            origin: origin.clone(),
            source,
        })?;
        Self::from_toml_str(&text, &origin)
    }

    /// Parse, resolve and validate TOML text; `origin` names it in errors and, as a path,
    /// is where a URDF it names is looked for.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, DescriptionError> {
        let file: RobotFile = toml::from_str(text).map_err(|source| DescriptionError::Parse {
            origin: origin.to_string(),
            source,
        })?;
        let invalid = |reason: String| DescriptionError::Invalid {
            origin: origin.to_string(),
            reason,
        };
        let description = match (&file.urdf, &file.chain) {
            (Some(_), Some(_)) => {
                return Err(invalid("give either urdf or [chain], not both".to_string()))
            }
            (None, None) => {
                return Err(invalid(
                    "no arms: give urdf = \"FILE\" or a [chain] of DH rows".to_string(),
                ))
            }
            (None, Some(chain)) => Self::from_dh(&file, chain).map_err(invalid)?,
            (Some(urdf), None) => {
                let dir = Path::new(origin).parent().unwrap_or(Path::new("."));
                let named = file.packages.iter();
                let named = named.map(|(name, folder)| (name.clone(), dir.join(folder)));
                let packages = PackageFolders::from_env(named.collect());
                Self::from_urdf(&file, origin, &dir.join(urdf), packages)?
            }
        };
        description.validate().map_err(invalid)?;
        Ok(description)
    }

    /// Both arms from one table of DH rows and their mounts.
    fn from_dh(file: &RobotFile, chain: &ChainDescription) -> Result<Self, String> {
        validate_chain(chain)?;
        let arm = |side: &str, arm: &ArmFile| -> Result<ArmModel, String> {
            if arm.base_link.is_some() || arm.tip_link.is_some() {
                return Err(format!(
                    "arms.{side}: base_link and tip_link need urdf = \"FILE\""
                ));
            }
            let (Some(xyz), Some(rpy)) = (arm.mount_xyz, arm.mount_rpy_deg) else {
                return Err(format!("arms.{side} needs mount_xyz and mount_rpy_deg"));
            };
            if xyz.iter().chain(rpy.iter()).any(|v| !v.is_finite()) {
                return Err(format!("arms.{side} mount has a non-finite value"));
            }
            Ok(ArmModel {
                robot_from_base: pose_from_xyz_rpy_deg(xyz, rpy),
                joints: chain.joints.iter().map(dh_joint).collect(),
                last_from_hand: Affine3A::from_translation(Vec3::from_array(file.hand.tcp_offset)),
                links: chain.links.iter().map(dh_link).collect(),
                ignore_pairs: chain
                    .ignore_pairs
                    .iter()
                    .chain(&arm.ignore_pairs)
                    .cloned()
                    .collect(),
                home: degrees(&arm.home_deg),
                aside: arm.aside_deg.as_deref().map(degrees),
            })
        };
        let head = file
            .head
            .as_written()
            .ok_or("head needs position, pan_limits_deg and tilt_limits_deg")?;
        Ok(Self {
            name: file.name.clone(),
            arms: ArmsDescription {
                left: arm("left", &file.arms.left)?,
                right: arm("right", &file.arms.right)?,
            },
            hand: file.hand.resolve(None)?,
            head,
            torso: file.torso.clone().unwrap_or(TorsoDescription {
                capsules: Vec::new(),
            }),
        })
    }

    /// Both arms, the torso and the head from a URDF. A mistake in the description's own
    /// keys (link names, mounts, grasps) names the description (`origin`); one in the
    /// URDF names the URDF.
    fn from_urdf(
        file: &RobotFile,
        origin: &str,
        urdf_path: &Path,
        packages: PackageFolders,
    ) -> Result<Self, DescriptionError> {
        let robot = urdf::UrdfFile::read(urdf_path, packages)?;
        let invalid = |reason: String| DescriptionError::Invalid {
            origin: origin.to_string(),
            reason,
        };
        let mut strokes = Vec::new();
        let mut arm = |side: &str, arm: &ArmFile| -> Result<ArmModel, DescriptionError> {
            if arm.mount_xyz.is_some() || arm.mount_rpy_deg.is_some() {
                return Err(invalid(format!(
                    "arms.{side}: the URDF places the arm; remove mount_xyz and mount_rpy_deg"
                )));
            }
            let (base, tip) = Self::arm_links(side, arm, &robot).map_err(&invalid)?;
            let chain = robot.arm(base, tip, file.hand.tcp_offset)?;
            strokes.extend(robot.finger_stroke(tip)?);
            Ok(ArmModel {
                robot_from_base: chain.robot_from_base,
                joints: chain.joints,
                last_from_hand: chain.last_from_hand,
                links: chain.links,
                ignore_pairs: arm.ignore_pairs.clone(),
                home: degrees(&arm.home_deg),
                aside: arm.aside_deg.as_deref().map(degrees),
            })
        };
        let left = arm("left", &file.arms.left)?;
        let right = arm("right", &file.arms.right)?;
        // Both hands must hold what the description promises: the narrower one counts.
        let stroke = strokes
            .into_iter()
            .min_by(|a, b| a.width.total_cmp(&b.width));
        let hand = file.hand.resolve(stroke.as_ref()).map_err(&invalid)?;
        let on_arms: Vec<&str> = [&file.arms.left, &file.arms.right]
            .iter()
            .filter_map(|a| a.base_link.as_deref())
            .collect();
        let mut torso = robot.body_capsules(&on_arms)?;
        torso.extend(file.torso.iter().flat_map(|t| t.capsules.iter().cloned()));
        let head = match (&file.head.pan_joint, &file.head.tilt_joint) {
            (Some(pan), Some(tilt)) => robot.head(pan, tilt)?,
            _ => file.head.as_written().ok_or_else(|| {
                invalid("head needs pan_joint and tilt_joint (or position and limits)".into())
            })?,
        };
        Ok(Self {
            name: file.name.clone(),
            arms: ArmsDescription { left, right },
            hand,
            head,
            torso: TorsoDescription { capsules: torso },
        })
    }

    /// An arm's base and tip links as the description names them, checked against the URDF.
    fn arm_links<'a>(
        side: &str,
        arm: &'a ArmFile,
        robot: &urdf::UrdfFile,
    ) -> Result<(&'a str, &'a str), String> {
        let named = |key: &str, value: &'a Option<String>| -> Result<&'a str, String> {
            let name = value
                .as_deref()
                .ok_or_else(|| format!("arms.{side} needs {key} (a link of the URDF)"))?;
            if robot.has_link(name) {
                Ok(name)
            } else {
                Err(format!(
                    "arms.{side}.{key} '{name}' is not a link of {}",
                    robot.origin
                ))
            }
        };
        let base = named("base_link", &arm.base_link)?;
        let tip = named("tip_link", &arm.tip_link)?;
        if base != tip && !robot.is_below(tip, base) {
            return Err(format!(
                "arms.{side}.tip_link '{tip}' is not below base_link '{base}' in {}",
                robot.origin
            ));
        }
        Ok((base, tip))
    }

    /// Check ranges and consistency of the resolved robot; the reason names the item.
    fn validate(&self) -> Result<(), String> {
        for (side, arm) in [("left", &self.arms.left), ("right", &self.arms.right)] {
            validate_arm(side, arm)?;
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

fn degrees(values: &[f32]) -> Joints {
    values.iter().map(|v| v.to_radians()).collect()
}

fn dh_joint(j: &JointDescription) -> JointModel {
    JointModel {
        name: j.name.clone(),
        origin: Affine3A::IDENTITY,
        axis: Vec3::Z,
        offset: j.theta_offset_deg.to_radians(),
        after: Affine3A::from_translation(Vec3::new(j.a, 0.0, j.d))
            * Affine3A::from_rotation_x(j.alpha_deg.to_radians()),
        lower: j.min_deg.to_radians(),
        upper: j.max_deg.to_radians(),
        continuous: j.continuous,
    }
}

fn dh_link(l: &LinkDescription) -> LinkCapsule {
    LinkCapsule {
        name: l.name.clone(),
        start: CapsuleEnd {
            frame: l.from,
            point: Vec3::ZERO,
        },
        end: CapsuleEnd {
            frame: l.to,
            point: Vec3::ZERO,
        },
        radius: l.radius,
        extend_start: l.extend_start,
        extend_end: l.extend_end,
    }
}

/// The DH table itself: finite rows, increasing limits, links between existing frames.
fn validate_chain(chain: &ChainDescription) -> Result<(), String> {
    let joints = &chain.joints;
    if !(MIN_JOINTS..=MAX_JOINTS).contains(&joints.len()) {
        return Err(format!(
            "chain.joints has {} joints, expected {MIN_JOINTS} to {MAX_JOINTS}",
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
    let last = joints.len() + 1;
    for l in &chain.links {
        if l.from > last || l.to > last || l.from >= l.to {
            return Err(format!(
                "link '{}' spans frames {}..{}; need from < to <= {last}",
                l.name, l.from, l.to
            ));
        }
    }
    Ok(())
}

/// One resolved arm: joint count, links, rest poses inside the limits.
fn validate_arm(side: &str, arm: &ArmModel) -> Result<(), String> {
    let n = arm.dof();
    if !(MIN_JOINTS..=MAX_JOINTS).contains(&n) {
        return Err(format!(
            "arms.{side} has {n} moving joints, expected {MIN_JOINTS} to {MAX_JOINTS}"
        ));
    }
    if arm.links.is_empty() {
        return Err(format!("arms.{side} has no collision links"));
    }
    for l in &arm.links {
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
    for pair in &arm.ignore_pairs {
        for name in pair {
            if !arm.links.iter().any(|l| l.name == *name) {
                return Err(format!(
                    "arms.{side}: ignore_pairs names unknown link '{name}'"
                ));
            }
        }
    }
    let poses = std::iter::once(("home_deg", &arm.home))
        .chain(arm.aside.as_ref().map(|a| ("aside_deg", a)));
    for (pose, q) in poses {
        if q.len() != n {
            return Err(format!(
                "arms.{side}.{pose} has {} values for {n} joints",
                q.len()
            ));
        }
        if let Some((i, v, lo, hi)) = arm.outside_limits(q) {
            return Err(format!(
                "arms.{side}.{pose} joint {} = {} outside [{}, {}]",
                i + 1,
                round_deg(v),
                round_deg(lo),
                round_deg(hi)
            ));
        }
    }
    Ok(())
}

/// Degrees from radians, rounded to what a person wrote.
fn round_deg(rad: f32) -> f32 {
    (rad.to_degrees() * 1000.0).round() / 1000.0
}
