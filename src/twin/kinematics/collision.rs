//! Collision geometry: link capsules, capsule distances, the environment
//! trait the caller implements (or fills with [`ObstacleSet`]), and a
//! parry3d-backed obstacle set.

use glam::{Affine3A, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query;
use parry3d::shape::{Shape, SharedShape};

use super::chain::{ArmKinematics, LinkFrames};
use super::joints::Joints;
use super::model::CapsuleEnd;

/// A capsule in the world: segment `a`-`b` swept by a ball of `radius` (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule {
    /// Segment start.
    pub a: Vec3,
    /// Segment end.
    pub b: Vec3,
    /// Radius (m).
    pub radius: f32,
}

impl Capsule {
    /// Capsule from its segment and radius.
    pub fn new(a: Vec3, b: Vec3, radius: f32) -> Self {
        Self { a, b, radius }
    }

    /// The same capsule moved by `to_from_here` (e.g. from the hand frame to the world).
    pub fn transformed(&self, to_from_here: &Affine3A) -> Self {
        let (a, b) = (
            to_from_here.transform_point3(self.a),
            to_from_here.transform_point3(self.b),
        );
        Self::new(a, b, self.radius)
    }

    /// Surface distance to another capsule; negative when they overlap.
    pub fn distance(&self, other: &Capsule) -> f32 {
        segment_distance(self.a, self.b, other.a, other.b) - self.radius - other.radius
    }

    /// The smallest sphere about the segment's middle that holds the capsule.
    pub fn bounding_sphere(&self) -> Sphere {
        Sphere {
            center: (self.a + self.b) * 0.5,
            radius: 0.5 * self.a.distance(self.b) + self.radius,
        }
    }

    /// A lower bound of the surface distance to anything inside the sphere at `center`
    /// with `radius` (cheap: no GJK).
    pub fn sphere_distance_lower_bound(&self, center: Vec3, radius: f32) -> f32 {
        point_segment_distance(center, self.a, self.b) - radius - self.radius
    }

    /// The same capsule as a parry3d shape (to be used with the identity pose).
    pub fn to_parry(&self) -> parry3d::shape::Capsule {
        parry3d::shape::Capsule::new(self.a, self.b, self.radius)
    }
}

/// Distance between segments p1-q1 and p2-q2 (Ericson, Real-Time Collision Detection 5.1.9).
pub fn segment_distance(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> f32 {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    const EPS: f32 = 1e-12;
    let (s, t);
    if a <= EPS && e <= EPS {
        return r.length();
    }
    if a <= EPS {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= EPS {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s0 = if denom > EPS {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            s = s0;
            t = t0;
        }
    }
    ((p1 + d1 * s) - (p2 + d2 * t)).length()
}

/// Distance from `p` to the segment `a`-`b`: [`segment_distance`] with a point for the
/// first segment, in the same operations (the same bits), without its other cases.
pub fn point_segment_distance(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let d = b - a;
    let r = p - a;
    let e = d.length_squared();
    if e <= 1e-12 {
        return r.length();
    }
    let t = (d.dot(r) / e).clamp(0.0, 1.0);
    (p - (a + d * t)).length()
}

/// A sphere that bounds a shape: its distances from below, cheaply.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Centre (world).
    pub center: Vec3,
    /// Radius (m).
    pub radius: f32,
}

impl Sphere {
    /// A lower bound of the distance between what the two spheres hold.
    pub fn distance_lower_bound(&self, other: &Sphere) -> f32 {
        self.center.distance(other.center) - self.radius - other.radius
    }
}

/// Nearest obstacle to a probe shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Clearance {
    /// Surface distance (m); zero or negative means contact or penetration.
    pub distance: f32,
    /// Name of the nearest obstacle.
    pub obstacle: String,
}

/// The environment, owned by the caller (table, objects, people).
pub trait Obstacles {
    /// Nearest obstacle to `shape` placed at `world_from_shape`, ignoring obstacles named in
    /// `exclude`; `None` when no obstacle is left to check.
    fn clearance(
        &self,
        shape: &dyn Shape,
        world_from_shape: &Pose,
        exclude: &[String],
    ) -> Option<Clearance>;

    /// Nearest obstacle to a world capsule (robot links).
    fn capsule_clearance(&self, capsule: &Capsule, exclude: &[String]) -> Option<Clearance> {
        self.clearance(&capsule.to_parry(), &Pose::IDENTITY, exclude)
    }
}

/// No environment at all.
impl Obstacles for () {
    fn clearance(&self, _: &dyn Shape, _: &Pose, _: &[String]) -> Option<Clearance> {
        None
    }
}

/// One named parry3d shape in the world.
#[derive(Clone)]
pub struct Obstacle {
    /// Name reported in clearances and failures.
    pub name: String,
    /// Shape in its own frame.
    pub shape: SharedShape,
    /// Where the shape is.
    pub world_from_shape: Pose,
    bound_center: Vec3,
    bound_radius: f32,
    local: Local,
}

/// An obstacle's shape in its own frame, when a capsule's distance to it needs no GJK.
#[derive(Debug, Clone, Copy)]
enum Local {
    /// A box with these half extents.
    Cuboid { half: Vec3 },
    /// A cylinder along local y (as parry's).
    Cylinder { half_height: f32, radius: f32 },
    /// A capsule.
    Capsule { a: Vec3, b: Vec3, radius: f32 },
    /// Anything else: GJK.
    Other,
}

impl Local {
    fn of(shape: &dyn Shape) -> Local {
        if let Some(c) = shape.as_cuboid() {
            Local::Cuboid {
                half: c.half_extents,
            }
        } else if let Some(c) = shape.as_cylinder() {
            Local::Cylinder {
                half_height: c.half_height,
                radius: c.radius,
            }
        } else if let Some(c) = shape.as_capsule() {
            Local::Capsule {
                a: c.segment.a,
                b: c.segment.b,
                radius: c.radius,
            }
        } else {
            Local::Other
        }
    }
}

/// Signed distance from a point to a box centred at the origin (negative inside).
fn cuboid_sdf(p: Vec3, half: Vec3) -> f32 {
    let q = p.abs() - half;
    q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
}

/// Signed distance from a point to a cylinder along y centred at the origin.
fn cylinder_sdf(p: Vec3, half_height: f32, radius: f32) -> f32 {
    let dr = (p.x * p.x + p.z * p.z).sqrt() - radius;
    let dy = p.y.abs() - half_height;
    dr.max(dy).min(0.0) + (dr.max(0.0).powi(2) + dy.max(0.0).powi(2)).sqrt()
}

/// The smallest value of a convex, 1-Lipschitz function of the point along the segment
/// `a`-`b` (golden-section search: a signed distance to a convex shape is both), or a
/// lower bound of it once that bound reaches `enough` (the caller needs no more).
fn min_along(a: Vec3, b: Vec3, enough: f32, f: impl Fn(Vec3) -> f32) -> f32 {
    const INV_PHI: f32 = 0.618_034;
    let at = |t: f32| f(a + (b - a) * t);
    let ends = at(0.0).min(at(1.0));
    let length = (b - a).length();
    if length < 1e-6 {
        return ends;
    }
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    let mut x1 = hi - INV_PHI * (hi - lo);
    let mut x2 = lo + INV_PHI * (hi - lo);
    let (mut f1, mut f2) = (at(x1), at(x2));
    // 0.618^24 of a half-metre link is 5 micrometres: far below any clearance that
    // matters, and a quarter fewer evaluations than going to float precision.
    for _ in 0..24 {
        // Every point of the bracket is within its width of x1 or x2, and the
        // function changes no faster than the distance along the segment.
        let bound = f1.min(f2) - (hi - lo) * length;
        if bound >= enough {
            return ends.min(bound);
        }
        if f1 <= f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - INV_PHI * (hi - lo);
            f1 = at(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + INV_PHI * (hi - lo);
            f2 = at(x2);
        }
    }
    ends.min(f1).min(f2)
}

impl Obstacle {
    /// Signed surface distance to a capsule (negative when they overlap): closed forms for
    /// boxes, cylinders and capsules, GJK for other shapes; for boxes and cylinders a
    /// lower bound instead once that bound reaches `enough`.
    fn capsule_distance(&self, c: &Capsule, enough: f32) -> f32 {
        let a = self.world_from_shape.inverse_transform_point(c.a);
        let b = self.world_from_shape.inverse_transform_point(c.b);
        match self.local {
            Local::Cuboid { half } => {
                min_along(a, b, enough + c.radius, |p| cuboid_sdf(p, half)) - c.radius
            }
            Local::Cylinder {
                half_height,
                radius,
            } => {
                let sdf = |p| cylinder_sdf(p, half_height, radius);
                min_along(a, b, enough + c.radius, sdf) - c.radius
            }
            Local::Capsule { a: p, b: q, radius } => {
                segment_distance(a, b, p, q) - radius - c.radius
            }
            Local::Other => signed_distance(
                &Pose::IDENTITY,
                &c.to_parry(),
                &self.world_from_shape,
                self.shape.as_ref(),
            ),
        }
    }
}

impl std::fmt::Debug for Obstacle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Obstacle")
            .field("name", &self.name)
            .field("world_from_shape", &self.world_from_shape)
            .finish_non_exhaustive()
    }
}

/// A simple list of parry3d obstacles implementing [`Obstacles`].
#[derive(Debug, Clone, Default)]
pub struct ObstacleSet {
    /// The obstacles, in insertion order.
    pub obstacles: Vec<Obstacle>,
}

impl ObstacleSet {
    /// Empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds any parry3d shape.
    pub fn add(&mut self, name: impl Into<String>, shape: SharedShape, world_from_shape: Pose) {
        let bound = shape.compute_bounding_sphere(&world_from_shape);
        let local = Local::of(shape.as_ref());
        self.obstacles.push(Obstacle {
            name: name.into(),
            shape,
            world_from_shape,
            bound_center: bound.center,
            bound_radius: bound.radius,
            local,
        });
    }

    /// Adds an axis-aligned box given its centre and half extents.
    pub fn add_box(&mut self, name: impl Into<String>, center: Vec3, half_extents: Vec3) {
        self.add(
            name,
            SharedShape::cuboid(half_extents.x, half_extents.y, half_extents.z),
            Pose::from_translation(center),
        );
    }

    /// Adds an upright cylinder standing on `bottom_center`.
    pub fn add_cylinder(
        &mut self,
        name: impl Into<String>,
        bottom_center: Vec3,
        radius: f32,
        height: f32,
    ) {
        // parry cylinders run along local y; turn y up to world z.
        let pose = Pose::from_parts(
            bottom_center + Vec3::Z * (0.5 * height),
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        );
        self.add(name, SharedShape::cylinder(0.5 * height, radius), pose);
    }

    /// Adds a capsule given in world coordinates.
    pub fn add_capsule(&mut self, name: impl Into<String>, capsule: Capsule) {
        self.add(
            name,
            SharedShape::capsule(capsule.a, capsule.b, capsule.radius),
            Pose::IDENTITY,
        );
    }

    /// Removes every obstacle with this name; returns how many were removed.
    pub fn remove(&mut self, name: &str) -> usize {
        let before = self.obstacles.len();
        self.obstacles.retain(|o| o.name != name);
        before - self.obstacles.len()
    }
}

/// Signed distance between two placed shapes (negative = penetration depth).
pub fn signed_distance(pose1: &Pose, shape1: &dyn Shape, pose2: &Pose, shape2: &dyn Shape) -> f32 {
    match query::distance(pose1, shape1, pose2, shape2) {
        Ok(d) if d.distance > 0.0 => d.distance,
        Ok(_) => match query::contact(pose1, shape1, pose2, shape2, 0.0) {
            Ok(Some(c)) => c.dist.min(0.0),
            _ => 0.0,
        },
        // Unsupported shape pairs are treated as touching: unsafe to assume clearance.
        Err(_) => 0.0,
    }
}

/// Clearances are exact below this distance, metres; above it `clearance` may
/// report a lower bound (from bounding spheres) instead of the exact distance. The
/// planner ranks clearances only below 5 cm (its cost's clearance term) and refuses
/// below 1 cm, so nothing it decides changes above this.
pub const EXACT_WITHIN: f32 = 0.05;

impl Obstacles for ObstacleSet {
    fn clearance(
        &self,
        shape: &dyn Shape,
        world_from_shape: &Pose,
        exclude: &[String],
    ) -> Option<Clearance> {
        let probe = shape.compute_bounding_sphere(world_from_shape);
        let lower = |o: &Obstacle| SquaredBound {
            squared: (o.bound_center - probe.center).length_squared(),
            less: o.bound_radius + probe.radius,
        };
        self.nearest(exclude, lower, |o, _| {
            signed_distance(
                world_from_shape,
                shape,
                &o.world_from_shape,
                o.shape.as_ref(),
            )
        })
    }

    fn capsule_clearance(&self, capsule: &Capsule, exclude: &[String]) -> Option<Clearance> {
        // The bound from the obstacle's sphere to the link's segment is much tighter than
        // from sphere to sphere for long links (an upper arm is 41 cm).
        let axis = capsule.b - capsule.a;
        let per_length = if axis.length_squared() > 1e-12 {
            1.0 / axis.length_squared()
        } else {
            0.0
        };
        let lower = |o: &Obstacle| {
            let r = o.bound_center - capsule.a;
            let t = (axis.dot(r) * per_length).clamp(0.0, 1.0);
            SquaredBound {
                squared: (r - axis * t).length_squared(),
                less: o.bound_radius + capsule.radius,
            }
        };
        self.nearest(exclude, lower, |o, enough| {
            o.capsule_distance(capsule, enough)
        })
    }
}

/// A lower bound of a distance kept squared: `sqrt(squared) - less`.
#[derive(Debug, Clone, Copy)]
struct SquaredBound {
    squared: f32,
    less: f32,
}

impl SquaredBound {
    /// Whether the bound is at least `d`, without a square root where it can.
    fn at_least(&self, d: f32) -> bool {
        let reach = d + self.less;
        reach <= 0.0 || self.squared >= reach * reach
    }
}

impl ObstacleSet {
    /// The nearest obstacle to a probe, measured exactly by `distance` where the cheap
    /// lower bound `lower` cannot rule an obstacle out; `distance` may stop at a lower
    /// bound once it reaches the value it is given (the best so far, or `EXACT_WITHIN`).
    fn nearest(
        &self,
        exclude: &[String],
        lower: impl Fn(&Obstacle) -> SquaredBound,
        distance: impl Fn(&Obstacle, f32) -> f32,
    ) -> Option<Clearance> {
        let mut best: Option<(f32, &str)> = None;
        for o in &self.obstacles {
            // Skip what cannot beat the best, before any square root.
            let bound = lower(o);
            if let Some((d, _)) = best {
                if bound.at_least(d) {
                    continue;
                }
            }
            if exclude.contains(&o.name) {
                continue;
            }
            let lower = bound.squared.sqrt() - bound.less;
            // Far away, the bound is all anyone needs: nothing ranks or fails on
            // clearances this large, and the exact query is the planner's hot spot.
            if lower >= EXACT_WITHIN {
                best = Some((lower, &o.name));
                continue;
            }
            let enough = best.map_or(EXACT_WITHIN, |(b, _)| b.min(EXACT_WITHIN));
            let d = distance(o, enough);
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, &o.name));
            }
        }
        best.map(|(distance, name)| Clearance {
            distance,
            obstacle: name.to_string(),
        })
    }
}

/// A capsule end in the world; a frame origin is taken as it is (the DH links' ends).
fn capsule_end(frames: &LinkFrames, end: &CapsuleEnd) -> Vec3 {
    let frame = &frames[end.frame];
    if end.point == Vec3::ZERO {
        Vec3::from(frame.translation)
    } else {
        frame.transform_point3(end.point)
    }
}

impl ArmKinematics {
    /// World capsules of the links, in description order, from precomputed frames.
    pub fn capsules_from_frames(&self, frames: &LinkFrames) -> Vec<Capsule> {
        self.links
            .iter()
            .map(|l| {
                let a = capsule_end(frames, &l.start);
                let b = capsule_end(frames, &l.end);
                let dir = (b - a).normalize_or_zero();
                Capsule::new(a - dir * l.extend_start, b + dir * l.extend_end, l.radius)
            })
            .collect()
    }

    /// World capsules of the links for joint vector `q`.
    pub fn capsules(&self, q: &Joints) -> Vec<Capsule> {
        self.capsules_from_frames(&self.link_frames(q))
    }

    /// The capsules that move with the hand (links after the last joint: flange, palm),
    /// in the tool-centre frame: where the palm is for any hand pose.
    pub fn hand_capsules(&self) -> &[Capsule] {
        &self.hand_capsules
    }

    /// [`Self::hand_capsules`], worked out from the links (once, when the arm is built).
    pub(super) fn capsules_after_the_last_joint(&self) -> Vec<Capsule> {
        let frames = self.link_frames(&self.home);
        let hand_from_world = frames.hand().inverse();
        let after_last_joint = |end: &CapsuleEnd| end.frame >= self.dof();
        self.capsules_from_frames(&frames)
            .into_iter()
            .zip(&self.links)
            .filter(|(_, l)| after_last_joint(&l.start) && after_last_joint(&l.end))
            .map(|(c, _)| c.transformed(&hand_from_world))
            .collect()
    }

    /// Whether self-collision between links `i` and `j` is ignored (they share a joint or
    /// the description lists them in `chain.ignore_pairs`).
    pub fn links_adjacent(&self, i: usize, j: usize) -> bool {
        self.skip
            .get(i)
            .and_then(|row| row.get(j))
            .copied()
            .unwrap_or(true)
    }

    /// Link `i` is mounted on the torso (starts at the arm base).
    pub fn link_on_torso(&self, i: usize) -> bool {
        self.links[i].frame_span().0 == 0
    }

    /// "left forearm".
    pub fn link_label(&self, i: usize) -> String {
        format!("{} {}", self.side.name(), self.links[i].name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_distances_and_sphere_bounds_agree_with_the_exact_distances() {
        use crate::twin::kinematics::Lcg;
        let mut rng = Lcg::new(11);
        let mut p = || {
            Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            )
        };
        for k in 0..2000 {
            let (a, b, c, d, x) = (p(), p(), p(), p(), p());
            // A zero-length segment too, now and then.
            let b = if k % 50 == 0 { a } else { b };
            let general = segment_distance(x, x, a, b);
            assert_eq!(point_segment_distance(x, a, b).to_bits(), general.to_bits());
            let (one, two) = (Capsule::new(a, b, 0.03), Capsule::new(c, d, 0.05));
            let spheres = (one.bounding_sphere(), two.bounding_sphere());
            assert!(spheres.0.distance_lower_bound(&spheres.1) <= one.distance(&two) + 1e-6);
            let s = two.bounding_sphere();
            assert!(two.a.distance(s.center) + two.radius <= s.radius + 1e-6);
            assert!(
                one.sphere_distance_lower_bound(s.center, s.radius) <= one.distance(&two) + 1e-6
            );
        }
    }

    #[test]
    fn segment_distance_cases() {
        let d = segment_distance(
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(0.5, 1.0, 0.0),
            Vec3::new(0.5, 1.0, 1.0),
        );
        assert!((d - 1.0).abs() < 1e-6);
        let d = segment_distance(
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(3.0, 0.0, 0.0),
        );
        assert!((d - 1.0).abs() < 1e-6);
        let d = segment_distance(
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(0.5, -1.0, 0.0),
            Vec3::new(0.5, 1.0, 0.0),
        );
        assert!(d.abs() < 1e-6);
    }

    #[test]
    fn closed_form_capsule_distances_match_brute_force_and_never_exceed_gjk() {
        use crate::twin::kinematics::Lcg;
        let mut set = ObstacleSet::new();
        set.add_box(
            "table",
            Vec3::new(0.0, 0.0, 0.375),
            Vec3::new(0.6, 0.4, 0.375),
        );
        set.add(
            "box",
            SharedShape::cuboid(0.035, 0.1, 0.15),
            Pose::from_parts(Vec3::new(-0.2, 0.1, 0.9), Quat::from_rotation_z(0.7)),
        );
        set.add_cylinder("bottle", Vec3::new(0.1, -0.1, 0.75), 0.035, 0.26);
        set.add_capsule(
            "person",
            Capsule::new(Vec3::new(0.0, 0.7, 0.45), Vec3::new(0.0, 0.7, 1.05), 0.17),
        );
        let mut rng = Lcg::new(7);
        let mut compared = 0;
        for _ in 0..1500 {
            let p = |rng: &mut Lcg| {
                Vec3::new(
                    rng.range(-0.7, 0.7),
                    rng.range(-0.5, 0.9),
                    rng.range(0.6, 1.3),
                )
            };
            let c = Capsule::new(p(&mut rng), p(&mut rng), rng.range(0.02, 0.06));
            for o in &set.obstacles {
                let ours = o.capsule_distance(&c, f32::INFINITY);
                let gjk = signed_distance(
                    &Pose::IDENTITY,
                    &c.to_parry(),
                    &o.world_from_shape,
                    o.shape.as_ref(),
                );
                if gjk > 0.0 {
                    // Apart: GJK's closest points lie on the shapes, so it never reports
                    // less than the truth (it stops within its tolerance above it) ...
                    assert!(ours <= gjk + 1e-4, "{}: {ours} vs GJK {gjk}", o.name);
                    // ... and the truth is the nearest of the capsule axis's points, found
                    // by brute force with parry's exact point queries.
                    let brute = (0..=2000)
                        .map(|k| {
                            let p = c.a + (c.b - c.a) * (k as f32 / 2000.0);
                            o.shape.distance_to_point(&o.world_from_shape, p, true)
                        })
                        .fold(f32::INFINITY, f32::min)
                        - c.radius;
                    assert!((ours - brute).abs() < 1e-3, "{}: {ours} vs {brute}", o.name);
                    assert!(ours <= brute + 1e-5, "{}: {ours} vs {brute}", o.name);
                    // Asked only whether it is at least `enough` away: either the exact
                    // distance, or a bound at least that large and never above the truth.
                    let enough = rng.range(0.0, 0.1);
                    let bounded = o.capsule_distance(&c, enough);
                    let exact = (bounded - ours).abs() < 1e-6;
                    assert!(exact || (bounded >= enough && bounded <= ours + 1e-6));
                    compared += 1;
                } else {
                    // Touching or overlapping: never reported as clear.
                    assert!(ours <= 1e-4, "{}: {ours} vs {gjk}", o.name);
                }
            }
        }
        assert!(compared > 1000);
    }

    #[test]
    fn obstacle_set_reports_nearest_and_respects_exclusions() {
        let mut set = ObstacleSet::new();
        set.add_box("table", Vec3::new(0.0, 0.0, 0.7), Vec3::new(0.6, 0.4, 0.05));
        set.add_cylinder("bottle", Vec3::new(0.0, 0.0, 0.75), 0.04, 0.25);
        let probe = Capsule::new(Vec3::new(0.1, 0.0, 0.9), Vec3::new(0.3, 0.0, 0.9), 0.02);
        let c = set
            .capsule_clearance(&probe, &[])
            .expect("obstacles present");
        assert_eq!(c.obstacle, "bottle");
        assert!((c.distance - (0.1 - 0.04 - 0.02)).abs() < 2e-3, "{c:?}");
        let c = set
            .capsule_clearance(&probe, &["bottle".into()])
            .expect("table left");
        assert_eq!(c.obstacle, "table");
        let inside = Capsule::new(Vec3::new(0.0, 0.0, 0.7), Vec3::new(0.1, 0.0, 0.7), 0.02);
        let c = set
            .capsule_clearance(&inside, &["bottle".into()])
            .expect("table");
        assert!(c.distance < 0.0, "penetration is negative: {c:?}");
    }
}
