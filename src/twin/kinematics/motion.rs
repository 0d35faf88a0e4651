//! Motion simulation: a timed minimum-jerk Cartesian trajectory through
//! waypoints, tracked by IK at a fixed step, with joint-limit, speed,
//! self-collision and environment checks at every sample. The first
//! violation stops the motion and says why.

use glam::{Affine3A, Vec3};
use parry3d::math::Pose;
use parry3d::shape::SharedShape;
use thiserror::Error;

use super::chain::Side;
use super::collision::{signed_distance, Obstacles};
use super::ik::{IkError, IkOptions, IkTarget};
use super::joints::Joints;
use super::pose::{interpolate, min_jerk, rotation, translation};
use super::robot::{Robot, StillArm};

/// One Cartesian goal of a motion, reached `duration_s` after the previous one.
#[derive(Debug, Clone)]
pub struct Waypoint {
    /// Name used in messages ("approach", "grasp", "lift").
    pub label: String,
    /// Hand goal; free axes are fixed by IK at the start of the segment.
    pub target: IkTarget,
    /// Time to get there from the previous waypoint (s).
    pub duration_s: f32,
    /// Obstacles ignored while moving to this waypoint (e.g. the object being grasped).
    pub exclude: Vec<String>,
}

impl Waypoint {
    /// Waypoint without segment-specific exclusions.
    pub fn new(label: impl Into<String>, target: IkTarget, duration_s: f32) -> Self {
        Self {
            label: label.into(),
            target,
            duration_s,
            exclude: Vec::new(),
        }
    }

    /// Adds obstacles ignored during this segment.
    pub fn excluding(mut self, names: &[&str]) -> Self {
        self.exclude.extend(names.iter().map(|n| n.to_string()));
        self
    }
}

/// An object carried in the hand; its own collisions count.
#[derive(Clone)]
pub struct AttachedObject {
    /// Object name (also excluded from the arm's own obstacle checks).
    pub name: String,
    /// Shape in the object's frame.
    pub shape: SharedShape,
    /// Object frame in the hand frame.
    pub hand_from_object: Pose,
    /// Obstacles the object may touch (e.g. the table while placing).
    pub exclude: Vec<String>,
}

impl std::fmt::Debug for AttachedObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttachedObject")
            .field("name", &self.name)
            .field("hand_from_object", &self.hand_from_object)
            .field("exclude", &self.exclude)
            .finish_non_exhaustive()
    }
}

impl AttachedObject {
    /// An upright cylinder (e.g. a bottle) whose axis is `axis_in_hand`, centred at `center_in_hand`.
    pub fn cylinder(
        name: impl Into<String>,
        radius: f32,
        height: f32,
        center_in_hand: Vec3,
        axis_in_hand: Vec3,
    ) -> Self {
        // parry cylinders run along local y.
        let rot = glam::Quat::from_rotation_arc(Vec3::Y, axis_in_hand.normalize_or(Vec3::Y));
        Self {
            name: name.into(),
            shape: SharedShape::cylinder(0.5 * height, radius),
            hand_from_object: Pose::from_parts(center_in_hand, rot),
            exclude: Vec::new(),
        }
    }
}

/// What to simulate.
#[derive(Debug, Clone)]
pub struct MotionRequest {
    /// The moving arm.
    pub side: Side,
    /// Its joints at the start.
    pub start: Joints,
    /// The other arm's joints (held still; checked against).
    pub other_arm: Joints,
    /// Goals in order.
    pub waypoints: Vec<Waypoint>,
    /// Object carried in the hand, if any.
    pub attached: Option<AttachedObject>,
    /// Obstacles ignored for the whole motion.
    pub exclude: Vec<String>,
}

/// Sampling and safety settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotionOptions {
    /// Sample period (s).
    pub step_s: f32,
    /// Smallest allowed distance to obstacles (m).
    pub min_clearance: f32,
    /// Smallest allowed distance between robot parts (m).
    pub min_self_clearance: f32,
    /// Fastest allowed joint speed (rad/s). The default (4) only catches jumps and flips
    /// near singularities; the real Jaco turns at most ~0.6-0.8 rad/s, so lower it (or
    /// lengthen durations) for realistic timing.
    pub max_joint_speed: f32,
    /// Allowed position deviation from the Cartesian path between waypoints (m); near
    /// singularities damped IK trades path accuracy for bounded joint speed.
    pub path_position_tolerance: f32,
    /// Allowed orientation deviation from the path between waypoints (rad).
    pub path_orientation_tolerance: f32,
    /// IK settings for solving each waypoint.
    pub waypoint_ik: IkOptions,
    /// IK settings for tracking between samples.
    pub tracking_ik: IkOptions,
}

impl Default for MotionOptions {
    fn default() -> Self {
        Self {
            step_s: 0.04,
            min_clearance: 0.01,
            min_self_clearance: 0.01,
            max_joint_speed: 4.0,
            path_position_tolerance: 0.02,
            path_orientation_tolerance: 0.15,
            waypoint_ik: IkOptions::default(),
            tracking_ik: IkOptions::tracking(),
        }
    }
}

/// One trajectory sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Time since the start (s).
    pub t: f32,
    /// Joint vector (rad).
    pub q: Joints,
}

/// A feasible simulated motion and its margins.
#[derive(Debug, Clone)]
pub struct Motion {
    /// The arm that moves.
    pub side: Side,
    /// Samples from t = 0 (the start) to the end.
    pub samples: Vec<Sample>,
    /// Sample index at which each waypoint is reached.
    pub waypoint_samples: Vec<usize>,
    /// Smallest normalised joint-limit margin (1 = mid-range, 0 = at a limit).
    pub min_joint_margin: f32,
    /// Smallest distance to any non-excluded obstacle (m); infinite without obstacles.
    pub min_clearance: f32,
    /// The obstacle at `min_clearance`.
    pub nearest_obstacle: Option<String>,
    /// Smallest distance between robot parts (m).
    pub min_self_clearance: f32,
    /// Sum of joint-space step lengths (rad).
    pub joint_path_length: f32,
    /// Total time (s).
    pub duration_s: f32,
    /// Hand pose at the end.
    pub final_world_from_hand: Affine3A,
}

impl Motion {
    /// Joints at the end.
    pub fn final_joints(&self) -> Joints {
        self.samples.last().map_or_else(Joints::default, |s| s.q)
    }

    /// Joints at time `t` (s), linear between samples; the ends outside.
    pub fn joints_at(&self, t: f32) -> Joints {
        let Some(first) = self.samples.first() else {
            return Joints::default();
        };
        let after = self.samples.partition_point(|s| s.t <= t);
        if after == 0 {
            return first.q;
        }
        let a = &self.samples[after - 1];
        let Some(b) = self.samples.get(after) else {
            return a.q;
        };
        let span = (b.t - a.t).max(f32::EPSILON);
        let f = ((t - a.t) / span).clamp(0.0, 1.0);
        Joints::from_fn(a.q.len(), |i| a.q[i] + f * (b.q[i] - a.q[i]))
    }
}

/// Why a motion is infeasible.
#[derive(Debug, Clone, PartialEq)]
pub enum Violation {
    /// IK cannot reach a waypoint or follow the path.
    Unreachable {
        /// Waypoint label.
        waypoint: String,
        /// Remaining position error (m).
        position_residual: f32,
        /// Remaining orientation error (rad).
        orientation_residual: f32,
    },
    /// A joint would have to go past its limit (0-based index).
    JointLimit {
        /// Joint index, 0-based.
        joint: usize,
    },
    /// A joint would move faster than allowed (near a singularity).
    TooFast {
        /// Joint index, 0-based.
        joint: usize,
        /// Required speed (rad/s).
        speed: f32,
    },
    /// Two robot parts would touch.
    SelfCollision {
        /// First part.
        a: String,
        /// Second part.
        b: String,
        /// Their distance (m).
        distance: f32,
    },
    /// An arm link or the carried object would hit an obstacle.
    Collision {
        /// "left forearm" or "carried bottle".
        part: String,
        /// Obstacle name.
        obstacle: String,
        /// Distance (m), below the allowed clearance.
        distance: f32,
    },
}

/// The first violation of a motion.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{}", self.cause())]
pub struct MotionFailure {
    /// The arm that was moving.
    pub side: Side,
    /// Sample index where it happens.
    pub sample: usize,
    /// Time of that sample (s).
    pub time_s: f32,
    /// Index of the waypoint being approached.
    pub waypoint: usize,
    /// What goes wrong.
    pub violation: Violation,
}

impl MotionFailure {
    /// One short sentence for people and LLMs.
    pub fn cause(&self) -> String {
        let arm = self.side.name();
        match &self.violation {
            Violation::Unreachable {
                waypoint,
                position_residual,
                ..
            } => {
                if *position_residual > 0.005 {
                    format!(
                        "the {arm} arm cannot reach the {waypoint} pose ({:.0} cm short)",
                        position_residual * 100.0
                    )
                } else {
                    format!("the {arm} arm cannot reach the {waypoint} pose with the required hand orientation")
                }
            }
            Violation::JointLimit { joint } => {
                format!("joint {} of the {arm} arm would pass its limit", joint + 1)
            }
            Violation::TooFast { joint, speed } => format!(
                "joint {} of the {arm} arm would have to turn too fast ({speed:.1} rad/s)",
                joint + 1
            ),
            Violation::SelfCollision { a, b, .. } => format!("the {a} would hit the {b}"),
            Violation::Collision { part, obstacle, .. } => {
                format!("the {part} would hit {obstacle}")
            }
        }
    }
}

fn to_pose(t: &Affine3A) -> Pose {
    Pose::from_parts(translation(t), rotation(t))
}

/// An obstacle an arm already touches (closer than the allowed clearance) where a
/// motion starts, and its distance then (m).
pub(super) type Contact = (String, f32);

/// How much closer than at the start a touched obstacle may come (m): numerics only.
const CONTACT_SLACK: f32 = 1e-3;

impl Robot {
    /// The obstacles the arm's links touch at `q`: someone may set a thing down right
    /// beside a resting hand, and the arm must still be able to move away from it
    /// (never closer than it started).
    pub(super) fn start_contacts(
        &self,
        side: Side,
        q: &Joints,
        obstacles: &dyn Obstacles,
        exclude: &[String],
        options: &MotionOptions,
    ) -> Vec<Contact> {
        let mut out: Vec<Contact> = Vec::new();
        for c in self.arm(side).capsules(q) {
            let mut past = exclude.to_vec();
            while let Some(cl) = obstacles.capsule_clearance(&c, &past) {
                if cl.distance >= options.min_clearance {
                    break;
                }
                match out.iter_mut().find(|(n, _)| *n == cl.obstacle) {
                    Some((_, d)) => *d = d.min(cl.distance),
                    None => out.push((cl.obstacle.clone(), cl.distance)),
                }
                past.push(cl.obstacle);
            }
        }
        out
    }

    /// The first obstacle the arm's links would touch (closer than the allowed
    /// clearance) in joint pose `q`, if any.
    pub fn touches(
        &self,
        side: Side,
        q: &Joints,
        obstacles: &dyn Obstacles,
        options: &MotionOptions,
    ) -> Option<String> {
        self.start_contacts(side, q, obstacles, &[], options)
            .into_iter()
            .next()
            .map(|(name, _)| name)
    }
}

/// Running minima over the samples.
pub(super) struct Margins {
    pub(super) joint: f32,
    pub(super) clearance: f32,
    pub(super) nearest: Option<String>,
    pub(super) self_clearance: f32,
}

impl Margins {
    /// Nothing seen yet.
    pub(super) fn new() -> Self {
        Self {
            joint: 1.0,
            clearance: f32::INFINITY,
            nearest: None,
            self_clearance: f32::INFINITY,
        }
    }
}

impl Robot {
    /// Simulates `request` against `obstacles`; the first violation is returned as an error.
    pub fn simulate(
        &self,
        request: &MotionRequest,
        obstacles: &dyn Obstacles,
        options: &MotionOptions,
    ) -> Result<Motion, MotionFailure> {
        let side = request.side;
        let arm = self.arm(side);
        let dt = options.step_s.max(1e-3);
        let fail = |sample: usize, waypoint: usize, violation: Violation| MotionFailure {
            side,
            sample,
            time_s: sample as f32 * dt,
            waypoint,
            violation,
        };
        let mut run =
            Tracking::start(self, request, obstacles, options).map_err(|v| fail(0, 0, v))?;
        let mut waypoint_samples = Vec::with_capacity(request.waypoints.len());
        let mut from = arm.world_from_hand(&run.q);
        for (k, wp) in request.waypoints.iter().enumerate() {
            let n = (wp.duration_s / dt).ceil().max(1.0) as usize;
            let seg_dt = wp.duration_s.max(dt) / n as f32;
            let end_index = run.samples.len() - 1 + n;
            let goal =
                waypoint_goal(arm, wp, &run.q, options).map_err(|v| fail(end_index, k, v))?;
            run.exclude.extend_from_slice(&wp.exclude);
            for s in 1..=n {
                let index = run.samples.len();
                let x = interpolate(&from, &goal, min_jerk(s as f32 / n as f32));
                run.step(x, seg_dt, s < n, &wp.label)
                    .map_err(|v| fail(index, k, v))?;
            }
            run.exclude.truncate(run.base_exclude);
            waypoint_samples.push(run.samples.len() - 1);
            from = goal;
        }
        Ok(run.finish(waypoint_samples))
    }

    /// All checks for one configuration of the moving arm.
    // Private helper of `simulate`; a context struct would only rename its locals.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_sample(
        &self,
        request: &MotionRequest,
        q: &Joints,
        still: &StillArm,
        obstacles: &dyn Obstacles,
        (exclude, contacts): (&[String], &[Contact]),
        options: &MotionOptions,
        margins: &mut Margins,
    ) -> Result<(), Violation> {
        let arm = self.arm(request.side);
        if let Some(j) = arm.limit_violation(q, 1e-4) {
            return Err(Violation::JointLimit { joint: j });
        }
        margins.joint = margins.joint.min(arm.joint_margin(q));
        let frames = arm.link_frames(q);
        let caps = arm.capsules_from_frames(&frames);
        let sc = self.self_clearance_moving(request.side, &caps, still);
        if sc.distance < options.min_self_clearance {
            return Err(Violation::SelfCollision {
                a: sc.a,
                b: sc.b,
                distance: sc.distance,
            });
        }
        margins.self_clearance = margins.self_clearance.min(sc.distance);
        let mut note = |d: f32, part: &dyn Fn() -> String, obstacle: String| {
            if d < options.min_clearance {
                return Err(Violation::Collision {
                    part: part(),
                    obstacle,
                    distance: d,
                });
            }
            if d < margins.clearance {
                margins.clearance = d;
                margins.nearest = Some(obstacle);
            }
            Ok(())
        };
        for (i, c) in caps.iter().enumerate() {
            let mut found = obstacles.capsule_clearance(c, exclude);
            // What the arm touched at the start may stay that close, never closer: look
            // past it to the next nearest obstacle.
            let mut past: Vec<String> = Vec::new();
            while let Some(cl) = &found {
                let tolerated = cl.distance < options.min_clearance
                    && contacts
                        .iter()
                        .any(|(n, d0)| *n == cl.obstacle && cl.distance >= d0 - CONTACT_SLACK);
                if !tolerated {
                    break;
                }
                if past.is_empty() {
                    past = exclude.to_vec();
                }
                past.push(cl.obstacle.clone());
                found = obstacles.capsule_clearance(c, &past);
            }
            if let Some(cl) = found {
                note(cl.distance, &|| arm.link_label(i), cl.obstacle)?;
            }
        }
        if let Some(obj) = &request.attached {
            let pose = to_pose(frames.hand()) * obj.hand_from_object;
            let part = || format!("carried {}", obj.name);
            let mut excl: Vec<String> = exclude.to_vec();
            excl.extend_from_slice(&obj.exclude);
            if let Some(cl) = obstacles.clearance(obj.shape.as_ref(), &pose, &excl) {
                note(cl.distance, &part, cl.obstacle)?;
            }
            let other = request.side.other();
            let other_arm = self.arm(other);
            let bound = obj.shape.compute_bounding_sphere(&pose);
            for (j, c) in still.caps.iter().enumerate() {
                // Only the threshold matters here: GJK only where the spheres allow contact.
                let far = c.sphere_distance_lower_bound(bound.center, bound.radius);
                if far >= options.min_self_clearance {
                    continue;
                }
                let d = signed_distance(&pose, obj.shape.as_ref(), &Pose::IDENTITY, &c.to_parry());
                if d < options.min_self_clearance {
                    return Err(Violation::SelfCollision {
                        a: part(),
                        b: other_arm.link_label(j),
                        distance: d,
                    });
                }
            }
        }
        Ok(())
    }
}

/// The hand pose of a waypoint, solved from `q`; a joint limit within reach is the reason
/// when the solve stops at one.
fn waypoint_goal(
    arm: &super::chain::ArmKinematics,
    wp: &Waypoint,
    q: &Joints,
    options: &MotionOptions,
) -> Result<Affine3A, Violation> {
    match arm.solve_ik(&wp.target, q, &options.waypoint_ik) {
        Ok(sol) => Ok(sol.world_from_hand),
        Err(IkError::NotConverged {
            at_limit: Some(j),
            position_residual,
            ..
        }) if position_residual < 0.15 => Err(Violation::JointLimit { joint: j }),
        Err(IkError::NotConverged {
            position_residual,
            orientation_residual,
            ..
        }) => Err(Violation::Unreachable {
            waypoint: wp.label.clone(),
            position_residual,
            orientation_residual,
        }),
    }
}

/// One motion being simulated: the arm's joints, the samples so far and their margins.
struct Tracking<'a> {
    robot: &'a Robot,
    request: &'a MotionRequest,
    obstacles: &'a dyn Obstacles,
    options: &'a MotionOptions,
    still: StillArm,
    contacts: Vec<Contact>,
    /// Obstacles not checked: the request's, the carried object, a waypoint's own.
    exclude: Vec<String>,
    /// How many of `exclude` hold for the whole motion.
    base_exclude: usize,
    margins: Margins,
    q: Joints,
    samples: Vec<Sample>,
    path: f32,
}

impl<'a> Tracking<'a> {
    /// The start sample, checked (with the first waypoint's exclusions).
    fn start(
        robot: &'a Robot,
        request: &'a MotionRequest,
        obstacles: &'a dyn Obstacles,
        options: &'a MotionOptions,
    ) -> Result<Self, Violation> {
        let side = request.side;
        let q = request.start;
        if let Some(j) = robot.arm(side).limit_violation(&q, 1e-4) {
            return Err(Violation::JointLimit { joint: j });
        }
        let mut exclude: Vec<String> = request.exclude.clone();
        exclude.extend(request.attached.as_ref().map(|a| a.name.clone()));
        let base_exclude = exclude.len();
        let first = request
            .waypoints
            .first()
            .map_or(&[][..], |w| &w.exclude[..]);
        exclude.extend_from_slice(first);
        let contacts = robot.start_contacts(side, &q, obstacles, &exclude, options);
        let mut run = Self {
            robot,
            request,
            obstacles,
            options,
            still: robot.still_arm(side.other(), &request.other_arm),
            contacts,
            exclude,
            base_exclude,
            margins: Margins::new(),
            q,
            samples: vec![Sample { t: 0.0, q }],
            path: 0.0,
        };
        run.check(&q)?;
        run.exclude.truncate(base_exclude);
        Ok(run)
    }

    fn check(&mut self, q: &Joints) -> Result<(), Violation> {
        self.robot.check_sample(
            self.request,
            q,
            &self.still,
            self.obstacles,
            (&self.exclude, &self.contacts),
            self.options,
            &mut self.margins,
        )
    }

    /// The next sample, the hand at `x` after `seg_dt`; short of the path only on the way
    /// to a waypoint (`between`), never at it.
    fn step(
        &mut self,
        x: Affine3A,
        seg_dt: f32,
        between: bool,
        label: &str,
    ) -> Result<(), Violation> {
        let q_new = self.track(x, seg_dt, between, label)?;
        let mut step2 = 0.0;
        for j in 0..self.q.len() {
            let d = q_new[j] - self.q[j];
            step2 += d * d;
            let speed = d.abs() / seg_dt;
            if speed > self.options.max_joint_speed {
                return Err(Violation::TooFast { joint: j, speed });
            }
        }
        self.check(&q_new)?;
        self.path += step2.sqrt();
        self.q = q_new;
        let t = self.samples.last().map_or(0.0, |p| p.t) + seg_dt;
        self.samples.push(Sample { t, q: q_new });
        Ok(())
    }

    /// Joints that put the hand at `x`, at most the speed bound away from now.
    fn track(
        &self,
        x: Affine3A,
        seg_dt: f32,
        between: bool,
        label: &str,
    ) -> Result<Joints, Violation> {
        let options = self.options;
        let travel = options.max_joint_speed * seg_dt;
        let track = IkOptions {
            max_travel: travel,
            ..options.tracking_ik
        };
        let arm = self.robot.arm(self.request.side);
        let q = &self.q;
        match arm.solve_ik(&IkTarget::Pose(x), q, &track) {
            Ok(sol) => Ok(sol.q),
            Err(IkError::NotConverged {
                best,
                position_residual,
                orientation_residual,
                at_limit,
            }) => {
                let on_path = position_residual <= options.path_position_tolerance
                    && orientation_residual <= options.path_orientation_tolerance;
                let fastest = (0..q.len())
                    .map(|j| (j, (best[j] - q[j]).abs()))
                    .fold((0, 0.0f32), |a, b| if b.1 > a.1 { b } else { a });
                if on_path && between {
                    Ok(best)
                } else if let Some(j) = at_limit {
                    Err(Violation::JointLimit { joint: j })
                } else if fastest.1 >= travel * 0.999 {
                    // Held back by the speed bound: the path crosses a singularity.
                    Err(Violation::TooFast {
                        joint: fastest.0,
                        speed: fastest.1 / seg_dt,
                    })
                } else {
                    Err(Violation::Unreachable {
                        waypoint: label.to_string(),
                        position_residual,
                        orientation_residual,
                    })
                }
            }
        }
    }

    fn finish(self, waypoint_samples: Vec<usize>) -> Motion {
        Motion {
            side: self.request.side,
            duration_s: self.samples.last().map_or(0.0, |s| s.t),
            final_world_from_hand: self.robot.arm(self.request.side).world_from_hand(&self.q),
            samples: self.samples,
            waypoint_samples,
            min_joint_margin: self.margins.joint,
            min_clearance: self.margins.clearance,
            nearest_obstacle: self.margins.nearest,
            min_self_clearance: self.margins.self_clearance,
            joint_path_length: self.path,
        }
    }
}
