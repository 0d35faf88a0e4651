//! Arms, body and head from a URDF (read with `urdf-rs`): the chain from an
//! arm's base link to its tip link becomes revolute joints with limits, each
//! link's collision geometry becomes capsules on the chain frame it moves with,
//! and links outside both arms become the static body.

use std::collections::HashMap;
use std::path::Path;

use glam::{Affine3A, Quat, Vec3};
use urdf_rs::{Geometry, JointType};

use super::description::{DescriptionError, FixedCapsule, HeadDescription};
use super::hand::FingerStroke;
use super::model::{CapsuleEnd, JointModel, LinkCapsule};
use super::packages::PackageFolders;

/// Planning range of a continuous joint (rad): one and a half turns each way, as the
/// DH descriptions give theirs.
const CONTINUOUS_RANGE: f32 = 3.0 * std::f32::consts::PI;

/// A parsed URDF with its links and joints indexed.
pub struct UrdfFile {
    /// The file, for errors.
    pub origin: String,
    dir: std::path::PathBuf,
    packages: PackageFolders,
    robot: urdf_rs::Robot,
    /// Joint index by child link.
    parent_joint: HashMap<String, usize>,
}

/// One arm's chain read from the URDF.
pub struct UrdfArm {
    /// Arm base in the robot (root link) frame.
    pub robot_from_base: Affine3A,
    /// Moving joints, base to tip.
    pub joints: Vec<JointModel>,
    /// Tool centre in the last moving joint's frame.
    pub last_from_hand: Affine3A,
    /// Collision capsules of the links that move with the arm.
    pub links: Vec<LinkCapsule>,
}

impl UrdfFile {
    /// Reads and indexes a URDF; a missing link, a link with two parents, a loop or
    /// more than one root is refused naming it.
    pub fn read(path: &Path, packages: PackageFolders) -> Result<Self, DescriptionError> {
        let origin = path.display().to_string();
        let fail = |reason: String| DescriptionError::Urdf {
            origin: origin.clone(),
            reason,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read it: {e}")))?;
        let robot = urdf_rs::read_from_string(&text).map_err(|e| fail(e.to_string()))?;
        let mut seen = HashMap::new();
        for l in &robot.links {
            if seen.insert(l.name.clone(), ()).is_some() {
                return Err(fail(format!("link '{}' is defined twice", l.name)));
            }
        }
        let mut parent_joint = HashMap::new();
        for (i, j) in robot.joints.iter().enumerate() {
            for link in [&j.parent.link, &j.child.link] {
                if !seen.contains_key(link) {
                    return Err(fail(format!(
                        "joint '{}' names the missing link '{link}'",
                        j.name
                    )));
                }
            }
            if parent_joint.insert(j.child.link.clone(), i).is_some() {
                return Err(fail(format!(
                    "link '{}' is the child of two joints (a loop)",
                    j.child.link
                )));
            }
        }
        let file = Self {
            dir: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
            packages,
            origin,
            robot,
            parent_joint,
        };
        for l in &file.robot.links {
            file.ancestors(&l.name)?;
        }
        let roots: Vec<&str> = file
            .robot
            .links
            .iter()
            .map(|l| l.name.as_str())
            .filter(|n| !file.parent_joint.contains_key(*n))
            .collect();
        if roots.len() != 1 {
            return Err(file.fail(format!(
                "expected one root link, found {}: {}",
                roots.len(),
                roots.join(", ")
            )));
        }
        Ok(file)
    }

    fn fail(&self, reason: String) -> DescriptionError {
        DescriptionError::Urdf {
            origin: self.origin.clone(),
            reason,
        }
    }

    /// Joints from the root down to `link` (root first); a loop is refused.
    fn ancestors(&self, link: &str) -> Result<Vec<&urdf_rs::Joint>, DescriptionError> {
        let mut out = Vec::new();
        let mut at = link;
        while let Some(&i) = self.parent_joint.get(at) {
            let j = &self.robot.joints[i];
            if out.len() > self.robot.joints.len() {
                return Err(self.fail(format!("the joints above link '{link}' form a loop")));
            }
            out.push(j);
            at = &j.parent.link;
        }
        out.reverse();
        Ok(out)
    }

    fn link(&self, name: &str) -> Result<&urdf_rs::Link, DescriptionError> {
        self.robot
            .links
            .iter()
            .find(|l| l.name == name)
            .ok_or_else(|| self.fail(format!("no link '{name}'")))
    }

    /// Whether the URDF has a link of this name.
    pub fn has_link(&self, name: &str) -> bool {
        self.link(name).is_ok()
    }

    /// Whether `link` hangs below `above` (a loop counts as not below).
    pub fn is_below(&self, link: &str, above: &str) -> bool {
        self.ancestors(link)
            .is_ok_and(|path| path.iter().any(|j| j.parent.link == above))
    }

    /// How far the hand at `tip` opens: the travel of the prismatic joints below the arm's
    /// last moving joint (a Franka Hand's two fingers of 4 cm open 8 cm); `None` without any.
    pub fn finger_stroke(&self, tip: &str) -> Result<Option<FingerStroke>, DescriptionError> {
        let to_tip = self.ancestors(tip)?;
        let Some(wrist) = to_tip
            .iter()
            .rev()
            .find(|j| matches!(j.joint_type, JointType::Revolute | JointType::Continuous))
        else {
            return Ok(None);
        };
        let mut width = 0.0;
        let mut joints = Vec::new();
        for j in &self.robot.joints {
            if j.joint_type != JointType::Prismatic
                || !self
                    .ancestors(&j.child.link)?
                    .iter()
                    .any(|a| a.name == wrist.name)
            {
                continue;
            }
            let travel = (j.limit.upper - j.limit.lower) as f32;
            if !(travel.is_finite() && travel > 0.0 && travel < 0.5) {
                return Err(self.fail(format!(
                    "finger joint '{}' needs <limit lower upper> with a travel under 0.5 m, got {} m",
                    j.name, travel
                )));
            }
            width += travel;
            joints.push(j.name.clone());
        }
        Ok((!joints.is_empty()).then_some(FingerStroke { width, joints }))
    }

    /// `link` in the root frame with every joint at zero.
    fn robot_from_link(&self, link: &str) -> Result<Affine3A, DescriptionError> {
        Ok(self
            .ancestors(link)?
            .iter()
            .fold(Affine3A::IDENTITY, |t, j| t * pose(&j.origin)))
    }

    /// The arm from `base` to `tip`; `tcp_offset` is added past the tip.
    pub fn arm(
        &self,
        base: &str,
        tip: &str,
        tcp_offset: [f32; 3],
    ) -> Result<UrdfArm, DescriptionError> {
        for (what, name) in [("base_link", base), ("tip_link", tip)] {
            if self.link(name).is_err() {
                return Err(self.fail(format!("{what} '{name}' is not a link of the URDF")));
            }
        }
        let to_base = self.ancestors(base)?;
        if let Some(j) = to_base.iter().find(|j| j.joint_type != JointType::Fixed) {
            return Err(self.fail(format!(
                "base_link '{base}' hangs below the moving joint '{}'; an arm's base must be fixed to the root",
                j.name
            )));
        }
        let to_tip = self.ancestors(tip)?;
        let below_base = match to_tip.iter().position(|j| j.parent.link == base) {
            Some(at) => &to_tip[at..],
            None if base == tip => &to_tip[to_tip.len()..],
            None => {
                return Err(self.fail(format!("tip_link '{tip}' is not below base_link '{base}'")))
            }
        };
        let mut joints = Vec::new();
        // Each chain link: its frame index and its pose in that frame.
        let mut on_chain: HashMap<&str, (usize, Affine3A)> = HashMap::new();
        on_chain.insert(base, (0, Affine3A::IDENTITY));
        let mut pending = Affine3A::IDENTITY;
        for j in below_base {
            let origin = pose(&j.origin);
            match j.joint_type {
                JointType::Fixed => pending *= origin,
                JointType::Revolute | JointType::Continuous => {
                    joints.push(self.revolute(j, pending * origin)?);
                    pending = Affine3A::IDENTITY;
                }
                ref other => {
                    return Err(self.fail(format!(
                        "joint '{}' is {other:?}; an arm may have revolute, continuous and fixed joints",
                        j.name
                    )))
                }
            }
            on_chain.insert(&j.child.link, (joints.len(), pending));
        }
        let last_from_hand = pending * Affine3A::from_translation(Vec3::from_array(tcp_offset));
        let links = self.arm_capsules(base, &on_chain)?;
        Ok(UrdfArm {
            robot_from_base: self.robot_from_link(base)?,
            joints,
            last_from_hand,
            links,
        })
    }

    fn revolute(
        &self,
        j: &urdf_rs::Joint,
        origin: Affine3A,
    ) -> Result<JointModel, DescriptionError> {
        let axis = Vec3::from_array(j.axis.xyz.0.map(|v| v as f32));
        if !axis.is_finite() || axis.length() < 1e-6 {
            return Err(self.fail(format!("joint '{}' has no usable axis", j.name)));
        }
        let continuous = j.joint_type == JointType::Continuous;
        let (lower, upper) = (j.limit.lower as f32, j.limit.upper as f32);
        let (lower, upper) = if continuous {
            (-CONTINUOUS_RANGE, CONTINUOUS_RANGE)
        } else if lower.is_finite() && upper.is_finite() && lower < upper {
            (lower, upper)
        } else {
            return Err(self.fail(format!(
                "joint '{}' is revolute without <limit lower upper> (lower {lower}, upper {upper}); only continuous joints may omit them",
                j.name
            )));
        };
        Ok(JointModel {
            name: j.name.clone(),
            origin,
            axis: axis.normalize(),
            offset: 0.0,
            after: Affine3A::IDENTITY,
            lower,
            upper,
            continuous,
        })
    }

    /// Capsules of every link below `base`, on the frame of its nearest chain ancestor.
    fn arm_capsules(
        &self,
        base: &str,
        on_chain: &HashMap<&str, (usize, Affine3A)>,
    ) -> Result<Vec<LinkCapsule>, DescriptionError> {
        let prefix = common_prefix(on_chain.keys().copied());
        let mut out = Vec::new();
        for link in &self.robot.links {
            let path = self.ancestors(&link.name)?;
            let in_arm = link.name == base || path.iter().any(|j| j.parent.link == base);
            if !in_arm || link.collision.is_empty() {
                continue;
            }
            // Walk up to the chain, collecting the off-chain joints' origins (at zero).
            let mut frame_from_link = Affine3A::IDENTITY;
            let mut at = link.name.as_str();
            let mut rest = path.iter().rev();
            let (frame, chain_from_at) = loop {
                if let Some(&(frame, t)) = on_chain.get(at) {
                    break (frame, t);
                }
                let Some(j) = rest.next() else {
                    return Err(
                        self.fail(format!("link '{}' is not attached to the arm", link.name))
                    );
                };
                frame_from_link = pose(&j.origin) * frame_from_link;
                at = &j.parent.link;
            };
            let frame_from_link = chain_from_at * frame_from_link;
            let name = display_name(&link.name, &prefix);
            let many = link.collision.len() > 1;
            for (k, c) in link.collision.iter().enumerate() {
                let (a, b, radius) = self.capsule_of(&link.name, &c.geometry)?;
                let t = frame_from_link * pose(&c.origin);
                let end = |p: Vec3| CapsuleEnd {
                    frame,
                    point: t.transform_point3(p),
                };
                out.push(LinkCapsule {
                    name: capsule_name(c.name.as_deref(), &name, many.then_some(k)),
                    start: end(a),
                    end: end(b),
                    radius,
                    extend_start: 0.0,
                    extend_end: 0.0,
                });
            }
        }
        Ok(out)
    }

    /// Capsules of the links outside every arm (below none of `arm_bases`), in the
    /// robot frame with every joint at zero.
    pub fn body_capsules(&self, arm_bases: &[&str]) -> Result<Vec<FixedCapsule>, DescriptionError> {
        let mut out = Vec::new();
        for link in &self.robot.links {
            let path = self.ancestors(&link.name)?;
            let in_arm = arm_bases.contains(&link.name.as_str())
                || path
                    .iter()
                    .any(|j| arm_bases.contains(&j.parent.link.as_str()));
            if in_arm {
                continue;
            }
            let robot_from_link = self.robot_from_link(&link.name)?;
            for (k, c) in link.collision.iter().enumerate() {
                let (a, b, radius) = self.capsule_of(&link.name, &c.geometry)?;
                let t = robot_from_link * pose(&c.origin);
                let many = link.collision.len() > 1;
                let name = capsule_name(
                    c.name.as_deref(),
                    &display_name(&link.name, ""),
                    many.then_some(k),
                );
                out.push(FixedCapsule {
                    name,
                    a: t.transform_point3(a).to_array(),
                    b: t.transform_point3(b).to_array(),
                    radius,
                });
            }
        }
        Ok(out)
    }

    /// The head from its pan and tilt joints: the tilt joint is the pan-tilt centre.
    pub fn head(&self, pan: &str, tilt: &str) -> Result<HeadDescription, DescriptionError> {
        let joint = |name: &str| {
            self.robot
                .joints
                .iter()
                .find(|j| j.name == name)
                .ok_or_else(|| self.fail(format!("head joint '{name}' is not in the URDF")))
        };
        let (p, t) = (joint(pan)?, joint(tilt)?);
        let robot_from_tilt = self.robot_from_link(&t.parent.link)? * pose(&t.origin);
        let limits = |j: &urdf_rs::Joint| -> Result<[f32; 2], DescriptionError> {
            let (lo, hi) = (j.limit.lower as f32, j.limit.upper as f32);
            if j.joint_type == JointType::Revolute && lo.is_finite() && hi.is_finite() && lo < hi {
                Ok([lo.to_degrees(), hi.to_degrees()])
            } else {
                Err(self.fail(format!(
                    "head joint '{}' needs to be revolute with limits",
                    j.name
                )))
            }
        };
        let tilt_axis =
            robot_from_tilt.transform_vector3(Vec3::from_array(t.axis.xyz.0.map(|v| v as f32)));
        // Turning about +y pitches the view down; "positive looks up" flips it.
        let [lo, hi] = limits(t)?;
        let tilt_limits_deg = if tilt_axis.y > 0.0 {
            [-hi, -lo]
        } else {
            [lo, hi]
        };
        Ok(HeadDescription {
            position: robot_from_tilt.translation.to_array(),
            pan_limits_deg: limits(p)?,
            tilt_limits_deg,
            joints: Some([pan.to_string(), tilt.to_string()]),
        })
    }

    /// A geometry's bounding capsule in its own frame: segment ends and radius.
    fn capsule_of(&self, link: &str, g: &Geometry) -> Result<(Vec3, Vec3, f32), DescriptionError> {
        let bad = |what: &str| self.fail(format!("link '{link}': {what}"));
        let capsule = match g {
            Geometry::Cylinder { radius, length } | Geometry::Capsule { radius, length } => {
                let h = Vec3::Z * (*length as f32 * 0.5);
                (-h, h, *radius as f32)
            }
            Geometry::Sphere { radius } => (Vec3::ZERO, Vec3::ZERO, *radius as f32),
            Geometry::Box { size } => {
                box_capsule(Vec3::from_array(size.0.map(|v| v as f32)) * 0.5, Vec3::ZERO)
            }
            Geometry::Mesh { filename, scale } => {
                let scale = scale
                    .as_ref()
                    .map_or(Vec3::ONE, |s| Vec3::from_array(s.0.map(|v| v as f32)));
                let (lo, hi) = self.mesh_bounds(link, filename)?;
                let (lo, hi) = (lo * scale, hi * scale);
                box_capsule(((hi - lo) * 0.5).abs(), (hi + lo) * 0.5)
            }
        };
        let (a, b, r) = capsule;
        if !(a.is_finite() && b.is_finite() && r.is_finite() && r > 0.0) {
            return Err(bad(
                "collision geometry with a non-positive or non-finite size",
            ));
        }
        Ok(capsule)
    }

    /// Axis-aligned bounds of an STL mesh (a path relative to the URDF, `file://` or
    /// `package://`).
    fn mesh_bounds(&self, link: &str, filename: &str) -> Result<(Vec3, Vec3), DescriptionError> {
        let bad = |why: String| self.fail(format!("link '{link}' mesh '{filename}': {why}"));
        let path = if filename.starts_with("package://") {
            self.packages.resolve(filename, &self.dir).map_err(bad)?
        } else {
            self.dir.join(filename.trim_start_matches("file://"))
        };
        if !filename.to_ascii_lowercase().ends_with(".stl") {
            return Err(bad(
                "only STL meshes are read; give the link a box, cylinder or sphere".into(),
            ));
        }
        let bytes = std::fs::read(&path).map_err(|e| bad(e.to_string()))?;
        stl_bounds(&bytes).ok_or_else(|| bad("not a readable STL file".into()))
    }
}

/// The bounding capsule of a box with half extents `half` centred at `centre`: along its
/// longest axis, as wide as the diagonal of the other two.
fn box_capsule(half: Vec3, centre: Vec3) -> (Vec3, Vec3, f32) {
    let axes = [Vec3::X, Vec3::Y, Vec3::Z];
    let long = (0..3).fold(0, |best, i| if half[i] > half[best] { i } else { best });
    let others: Vec<f32> = (0..3).filter(|&i| i != long).map(|i| half[i]).collect();
    let radius = others[0].hypot(others[1]);
    let h = axes[long] * half[long];
    (centre - h, centre + h, radius)
}

/// Bounds of an STL file's vertices, binary or ASCII.
fn stl_bounds(bytes: &[u8]) -> Option<(Vec3, Vec3)> {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let mut add = |v: Vec3| {
        lo = lo.min(v);
        hi = hi.max(v);
    };
    let count = bytes
        .get(80..84)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    match count {
        Some(n) if bytes.len() == 84 + 50 * n => {
            for tri in bytes[84..].chunks_exact(50) {
                for v in 0..3 {
                    let at = 12 + 12 * v;
                    let f = |k: usize| {
                        let b = &tri[at + 4 * k..at + 4 * k + 4];
                        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
                    };
                    add(Vec3::new(f(0), f(1), f(2)));
                }
            }
        }
        _ => {
            let text = std::str::from_utf8(bytes).ok()?;
            for line in text.lines() {
                let mut words = line.split_whitespace();
                if words.next() == Some("vertex") {
                    let v: Vec<f32> = words.filter_map(|w| w.parse().ok()).collect();
                    if v.len() == 3 {
                        add(Vec3::new(v[0], v[1], v[2]));
                    }
                }
            }
        }
    }
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

/// A URDF pose as a transform (rpy: roll about x, then pitch about y, then yaw about z).
fn pose(p: &urdf_rs::Pose) -> Affine3A {
    let [x, y, z] = p.xyz.0.map(|v| v as f32);
    let [r, pi, ya] = p.rpy.0.map(|v| v as f32);
    Affine3A::from_rotation_translation(
        Quat::from_euler(glam::EulerRot::ZYX, ya, pi, r),
        Vec3::new(x, y, z),
    )
}

/// The longest common prefix of the names, cut back to a word boundary ('_').
fn common_prefix<'a>(mut names: impl Iterator<Item = &'a str>) -> String {
    let Some(first) = names.next() else {
        return String::new();
    };
    let mut len = first.len();
    for n in names {
        len = first
            .bytes()
            .zip(n.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count();
    }
    first[..len]
        .rfind('_')
        .map_or(String::new(), |i| first[..=i].to_string())
}

/// A collision's own name when it has one ("elbow"), else its link's, numbered when the
/// link has several.
fn capsule_name(own: Option<&str>, link: &str, index: Option<usize>) -> String {
    match (own.filter(|n| !n.is_empty()), index) {
        (Some(own), _) => own.replace('_', " "),
        (None, Some(k)) => format!("{link} {}", k + 1),
        (None, None) => link.to_string(),
    }
}

/// "left_upper_arm_link" with prefix "left_" -> "upper arm".
fn display_name(link: &str, prefix: &str) -> String {
    let short = link.strip_prefix(prefix).unwrap_or(link);
    let short = short.strip_suffix("_link").unwrap_or(short);
    let short = if short.is_empty() { link } else { short };
    short.replace('_', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounding_capsules_contain_their_shapes() {
        let (a, b, r) = box_capsule(Vec3::new(0.1, 0.3, 0.05), Vec3::ZERO);
        assert_eq!(
            (a, b),
            (Vec3::new(0.0, -0.3, 0.0), Vec3::new(0.0, 0.3, 0.0))
        );
        assert!((r - 0.1f32.hypot(0.05)).abs() < 1e-6);
        assert_eq!(
            common_prefix(["left_a_link", "left_b"].into_iter()),
            "left_"
        );
        assert_eq!(display_name("left_upper_arm_link", "left_"), "upper arm");
    }

    #[test]
    fn ascii_and_binary_stl_bounds() {
        let ascii = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 2 -1\nendloop\nendfacet\nendsolid t\n";
        assert_eq!(
            stl_bounds(ascii.as_bytes()),
            Some((Vec3::new(0.0, 0.0, -1.0), Vec3::new(1.0, 2.0, 0.0)))
        );
        let mut bin = vec![0u8; 80];
        bin.extend(1u32.to_le_bytes());
        bin.extend([0u8; 12]);
        for v in [[0.0f32, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.25]] {
            v.iter().for_each(|f| bin.extend(f.to_le_bytes()));
        }
        bin.extend([0u8; 2]);
        assert_eq!(
            stl_bounds(&bin),
            Some((Vec3::ZERO, Vec3::new(0.5, 0.0, 0.25)))
        );
    }
}
