//! Joint-space planning for when the straight hand path collides: a
//! bidirectional RRT-Connect search (the `rrt` crate of the openrr project)
//! from the start to the goal joints, with the carried object attached to the
//! hand and the other arm, the table, the objects and the people as
//! obstacles; the path is shortcut with a seeded generator and timed with
//! minimum-jerk segments within the joint speed limit, and every sample is
//! checked again at the configured clearances.
//!
//! Deterministic: the caller gives a seed per request; the crate's sampler is
//! fed from that seed and shortcutting uses its own seeded generator (the
//! crate's `smooth_path` would draw from the thread's generator).

use std::cell::{Cell, RefCell};

use super::chain::Side;
use super::collision::Obstacles;
use super::ik::Lcg;
use super::joints::Joints;
use super::motion::{
    AttachedObject, Margins, Motion, MotionFailure, MotionOptions, MotionRequest, Sample, Violation,
};
use super::pose::min_jerk;
use super::robot::{Robot, StillArm};

/// A joint-space motion to plan.
#[derive(Debug, Clone)]
pub struct JointRequest {
    /// The moving arm.
    pub side: Side,
    /// Its joints at the start.
    pub start: Joints,
    /// Its joints at the goal.
    pub goal: Joints,
    /// The other arm's joints (held still).
    pub other_arm: Joints,
    /// Object carried in the hand, if any.
    pub attached: Option<AttachedObject>,
    /// Obstacles ignored for the whole motion.
    pub exclude: Vec<String>,
}

/// Search, smoothing and timing settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointPlanOptions {
    /// Seed of the sampler and the shortcutting (one per planning request).
    pub seed: u64,
    /// RRT step (rad, Euclidean in joint space).
    pub extend_rad: f32,
    /// RRT iterations.
    pub max_iterations: usize,
    /// Collision checks allowed for the search (bounds the time of impossible cases).
    pub max_checks: usize,
    /// Extra clearance (m) kept while searching, because the crate checks tree nodes and
    /// not the edges between them; the final trajectory is checked at the real clearance.
    pub search_margin: f32,
    /// Shortcut attempts.
    pub shortcut_tries: usize,
    /// Joint step (rad) at which straight joint segments are checked while shortcutting.
    pub check_step_rad: f32,
    /// Fastest joint speed of the timed trajectory (rad/s).
    pub max_joint_speed: f32,
}

impl Default for JointPlanOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            extend_rad: 0.12,
            max_iterations: 400,
            max_checks: 2500,
            search_margin: 0.012,
            shortcut_tries: 30,
            check_step_rad: 0.05,
            max_joint_speed: 1.0,
        }
    }
}

/// Why no joint-space path was found.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JointPlanError {
    /// The start itself violates a check.
    #[error("the start pose is not free: {0:?}")]
    StartBlocked(Violation),
    /// The goal itself violates a check.
    #[error("the goal pose is not free: {0:?}")]
    GoalBlocked(Violation),
    /// The search ran out of iterations or checks.
    #[error("no joint-space path was found")]
    NoPath,
    /// The timed trajectory failed its final check (a rare clipped edge).
    #[error("the timed path failed its check: {0}")]
    Trajectory(MotionFailure),
}

/// A seed for one planning request from its inputs (same request, same seed).
pub fn request_seed(label: &str, request: &JointRequest) -> u64 {
    // FNV-1a over the label and the joint values' bits.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    label.bytes().for_each(&mut eat);
    for q in request
        .start
        .iter()
        .chain(&request.goal)
        .chain(&request.other_arm)
    {
        q.to_bits().to_le_bytes().into_iter().for_each(&mut eat);
    }
    h
}

/// What every joint pose of a request is checked with.
struct JointChecks {
    still: StillArm,
    checked: MotionRequest,
    exclude: Vec<String>,
}

impl JointChecks {
    fn of(robot: &Robot, request: &JointRequest) -> Self {
        let mut exclude = request.exclude.clone();
        if let Some(a) = &request.attached {
            exclude.push(a.name.clone());
        }
        Self {
            still: robot.still_arm(request.side.other(), &request.other_arm),
            checked: MotionRequest {
                side: request.side,
                start: request.start,
                other_arm: request.other_arm,
                waypoints: Vec::new(),
                attached: request.attached.clone(),
                exclude: Vec::new(),
            },
            exclude,
        }
    }
}

impl Robot {
    /// Whether a request's goal is free, as [`Robot::plan_joint_motion`] checks it first
    /// (cheap: one pose, no search).
    pub fn joint_goal_free(
        &self,
        request: &JointRequest,
        obstacles: &dyn Obstacles,
        motion: &MotionOptions,
    ) -> Result<(), Violation> {
        let JointChecks {
            still,
            checked,
            exclude,
        } = JointChecks::of(self, request);
        let contacts =
            self.start_contacts(request.side, &request.start, obstacles, &exclude, motion);
        let ignored = (&exclude[..], &contacts[..]);
        self.check_sample(
            &checked,
            &request.goal,
            &still,
            obstacles,
            ignored,
            motion,
            &mut Margins::new(),
        )
    }

    /// Plans, smooths and times a joint-space motion around the obstacles.
    pub fn plan_joint_motion(
        &self,
        request: &JointRequest,
        obstacles: &dyn Obstacles,
        motion: &MotionOptions,
        options: &JointPlanOptions,
    ) -> Result<Motion, JointPlanError> {
        let arm = self.arm(request.side);
        let JointChecks {
            still,
            checked,
            exclude,
        } = JointChecks::of(self, request);
        let searching = MotionOptions {
            min_clearance: motion.min_clearance + options.search_margin,
            min_self_clearance: motion.min_self_clearance + 0.5 * options.search_margin,
            ..*motion
        };
        let contacts =
            self.start_contacts(request.side, &request.start, obstacles, &exclude, motion);
        let check = |q: &Joints, opts: &MotionOptions, margins: &mut Margins| {
            let ignored = (&exclude[..], &contacts[..]);
            self.check_sample(&checked, q, &still, obstacles, ignored, opts, margins)
        };
        check(&request.start, motion, &mut Margins::new()).map_err(JointPlanError::StartBlocked)?;
        check(&request.goal, motion, &mut Margins::new()).map_err(JointPlanError::GoalBlocked)?;

        let checks = Cell::new(0usize);
        let free = |q: &[f32]| -> bool {
            if checks.get() >= options.max_checks {
                return false;
            }
            checks.set(checks.get() + 1);
            let q = Joints::from_slice(q);
            check(&q, &searching, &mut Margins::new()).is_ok()
        };
        // Sample mostly in a box around start and goal (detours are local), sometimes anywhere.
        let (lo, hi) = sampling_box(&request.start, &request.goal, &arm.lower, &arm.upper);
        let rng = RefCell::new(Lcg::new(options.seed));
        let sample = || -> Vec<f32> {
            let mut r = rng.borrow_mut();
            let local = r.next_f32() < 0.8;
            (0..request.start.len())
                .map(|j| {
                    if local {
                        r.range(lo[j], hi[j])
                    } else {
                        let (l, h) = (
                            arm.lower[j].max(request.start[j] - std::f32::consts::PI),
                            arm.upper[j].min(request.start[j] + std::f32::consts::PI),
                        );
                        r.range(l, h)
                    }
                })
                .collect()
        };
        let mut path = rrt::dual_rrt_connect(
            &request.start[..],
            &request.goal[..],
            free,
            sample,
            options.extend_rad,
            options.max_iterations,
        )
        .map_err(|_| JointPlanError::NoPath)?;
        if path.first().map(Vec::as_slice) != Some(&request.start[..]) {
            path.insert(0, request.start.to_vec());
        }
        if path.last().map(Vec::as_slice) != Some(&request.goal[..]) {
            path.push(request.goal.to_vec());
        }
        let mut path: Vec<Joints> = path.iter().map(|q| Joints::from_slice(q)).collect();
        let segment_free = |a: &Joints, b: &Joints| {
            let n = (max_step(a, b) / options.check_step_rad).ceil().max(1.0) as usize;
            (1..n).all(|i| {
                let q = lerp(a, b, i as f32 / n as f32);
                check(&q, &searching, &mut Margins::new()).is_ok()
            })
        };
        shortcut(&mut path, segment_free, options);
        self.time_path(request, &path, motion, options, &check)
            .map_err(JointPlanError::Trajectory)
    }

    /// Minimum-jerk segments through the via points, each as slow as its largest joint
    /// move needs, every sample checked at the real clearances.
    fn time_path(
        &self,
        request: &JointRequest,
        path: &[Joints],
        motion: &MotionOptions,
        options: &JointPlanOptions,
        check: &dyn Fn(&Joints, &MotionOptions, &mut Margins) -> Result<(), Violation>,
    ) -> Result<Motion, MotionFailure> {
        let dt = motion.step_s.max(1e-3);
        let mut margins = Margins::new();
        let mut samples = vec![Sample {
            t: 0.0,
            q: request.start,
        }];
        let mut length = 0.0f32;
        for pair in path.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            // Peak speed of a minimum-jerk segment is 1.875 × its mean speed.
            let duration = (1.875 * max_step(&a, &b) / options.max_joint_speed).max(0.3);
            let n = (duration / dt).ceil().max(1.0) as usize;
            let mut prev = a;
            for i in 1..=n {
                let q = lerp(&a, &b, min_jerk(i as f32 / n as f32));
                let index = samples.len();
                check(&q, motion, &mut margins).map_err(|violation| MotionFailure {
                    side: request.side,
                    sample: index,
                    time_s: index as f32 * dt,
                    waypoint: 0,
                    violation,
                })?;
                length += distance(&prev, &q);
                prev = q;
                let t = samples.last().map_or(0.0, |s| s.t) + duration / n as f32;
                samples.push(Sample { t, q });
            }
        }
        let arm = self.arm(request.side);
        let last = samples.last().map_or(request.start, |s| s.q);
        Ok(Motion {
            side: request.side,
            duration_s: samples.last().map_or(0.0, |s| s.t),
            waypoint_samples: vec![samples.len() - 1],
            samples,
            min_joint_margin: margins.joint,
            min_clearance: margins.clearance,
            nearest_obstacle: margins.nearest,
            min_self_clearance: margins.self_clearance,
            joint_path_length: length,
            final_world_from_hand: arm.world_from_hand(&last),
        })
    }
}

/// Removes via points whose neighbours see each other along a free straight joint
/// segment; the pairs are drawn from a generator seeded per request.
fn shortcut(
    path: &mut Vec<Joints>,
    segment_free: impl Fn(&Joints, &Joints) -> bool,
    options: &JointPlanOptions,
) {
    let mut rng = Lcg::new(options.seed ^ 0x5107_7CA7);
    // The whole way in one straight line first: the commonest shortcut.
    if path.len() > 2 && segment_free(&path[0], &path[path.len() - 1]) {
        let (first, last) = (path[0], path[path.len() - 1]);
        *path = vec![first, last];
        return;
    }
    for _ in 0..options.shortcut_tries {
        if path.len() < 3 {
            return;
        }
        let i = ((rng.next_f32() * (path.len() - 2) as f32) as usize).min(path.len() - 3);
        let span = path.len() - i - 2;
        let j = i + 2 + ((rng.next_f32() * span as f32) as usize).min(span - 1);
        if segment_free(&path[i], &path[j]) {
            path.drain(i + 1..j);
        }
    }
}

fn sampling_box(start: &Joints, goal: &Joints, lower: &Joints, upper: &Joints) -> (Joints, Joints) {
    let mut lo = *start;
    let mut hi = *start;
    for j in 0..start.len() {
        lo[j] = (start[j].min(goal[j]) - 1.0).max(lower[j]);
        hi[j] = (start[j].max(goal[j]) + 1.0).min(upper[j]);
    }
    (lo, hi)
}

fn lerp(a: &Joints, b: &Joints, s: f32) -> Joints {
    let mut q = *a;
    for j in 0..q.len() {
        q[j] = a[j] + (b[j] - a[j]) * s;
    }
    q
}

fn max_step(a: &Joints, b: &Joints) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn distance(a: &Joints, b: &Joints) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f32>()
        .sqrt()
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use parry3d::math::Pose;

    use super::*;
    use crate::twin::kinematics::{
        world_from_robot, IkOptions, IkTarget, ObstacleSet, RobotDescription, Waypoint,
        DEFAULT_DESCRIPTION,
    };

    fn robot() -> Robot {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_DESCRIPTION);
        let d = RobotDescription::load(&path).unwrap_or_else(|e| panic!("{e}"));
        Robot::new(&d, world_from_robot(-0.85, 0.0, 0.0))
    }

    /// Table, and a box standing across the way between two points in front of the
    /// right arm: the arm passes over it, the carried bottle does not.
    fn world() -> ObstacleSet {
        let mut s = ObstacleSet::new();
        s.add_box(
            "table",
            Vec3::new(0.0, 0.0, 0.375),
            Vec3::new(0.6, 0.4, 0.375),
        );
        s.add_box(
            "box",
            Vec3::new(-0.25, -0.2, 0.85),
            Vec3::new(0.035, 0.12, 0.10),
        );
        s
    }

    fn bottle() -> AttachedObject {
        // Held at its middle, standing upright when the hand's y axis is world z.
        AttachedObject::cylinder("bottle", 0.035, 0.26, Vec3::ZERO, Vec3::Y)
    }

    fn solve(robot: &Robot, p: Vec3) -> Joints {
        let arm = robot.arm(Side::Right);
        let target = IkTarget::Axis {
            position: p,
            hand_axis: -Vec3::Y,
            world_axis: Vec3::Z,
        };
        match arm.solve_ik(&target, &arm.home, &IkOptions::default()) {
            Ok(s) => s.q,
            Err(e) => panic!("{p} is reachable: {e:?}"),
        }
    }

    fn request(robot: &Robot) -> JointRequest {
        JointRequest {
            side: Side::Right,
            start: solve(robot, Vec3::new(-0.42, -0.2, 1.05)),
            goal: solve(robot, Vec3::new(-0.08, -0.2, 1.05)),
            other_arm: robot.home(Side::Left),
            attached: Some(bottle()),
            exclude: Vec::new(),
        }
    }

    #[test]
    fn straight_carry_through_the_box_fails_and_the_joint_path_goes_over_or_around() {
        let robot = robot();
        let obstacles = world();
        let options = MotionOptions::default();
        let req = request(&robot);
        let goal_hand = robot.arm(Side::Right).world_from_hand(&req.goal);
        let straight = robot.simulate(
            &MotionRequest {
                side: Side::Right,
                start: req.start,
                other_arm: req.other_arm,
                waypoints: vec![Waypoint::new("across", IkTarget::Pose(goal_hand), 1.5)],
                attached: req.attached.clone(),
                exclude: Vec::new(),
            },
            &obstacles,
            &options,
        );
        match straight {
            Err(MotionFailure {
                violation: Violation::Collision { obstacle, .. },
                ..
            }) => assert_eq!(obstacle, "box"),
            other => panic!("the straight carry must hit the box: {other:?}"),
        }
        let plan = JointPlanOptions {
            seed: request_seed("across", &req),
            ..JointPlanOptions::default()
        };
        let motion = robot
            .plan_joint_motion(&req, &obstacles, &options, &plan)
            .unwrap_or_else(|e| panic!("a way over or around the box: {e}"));
        assert_eq!(motion.final_joints(), req.goal);
        // Every sample, checked independently: limits, links, and the carried bottle.
        let arm = robot.arm(Side::Right);
        let carried = bottle();
        for s in &motion.samples {
            assert!(arm.limit_violation(&s.q, 1e-4).is_none());
            for c in arm.capsules(&s.q) {
                let d = obstacles
                    .capsule_clearance(&c, &[])
                    .map_or(1.0, |c| c.distance);
                assert!(d >= options.min_clearance, "link at {d} m at t = {}", s.t);
            }
            let frames = arm.link_frames(&s.q);
            let hand = Pose::from_parts(
                crate::twin::kinematics::translation(frames.hand()),
                crate::twin::kinematics::rotation(frames.hand()),
            );
            let pose = hand * carried.hand_from_object;
            let d = obstacles
                .clearance(carried.shape.as_ref(), &pose, &[])
                .map_or(1.0, |c| c.distance);
            assert!(d >= options.min_clearance, "bottle at {d} m at t = {}", s.t);
        }
        // Timed within the speed limit.
        for w in motion.samples.windows(2) {
            let dt = w[1].t - w[0].t;
            let fastest = max_step(&w[0].q, &w[1].q) / dt;
            assert!(fastest <= plan.max_joint_speed * 1.05, "{fastest} rad/s");
        }
    }

    #[test]
    fn the_same_request_plans_the_same_path() {
        let robot = robot();
        let obstacles = world();
        let req = request(&robot);
        let plan = JointPlanOptions {
            seed: request_seed("across", &req),
            ..JointPlanOptions::default()
        };
        let a = robot.plan_joint_motion(&req, &obstacles, &MotionOptions::default(), &plan);
        let b = robot.plan_joint_motion(&req, &obstacles, &MotionOptions::default(), &plan);
        let (a, b) = (a.expect("plans"), b.expect("plans"));
        assert_eq!(a.samples, b.samples);
    }

    #[test]
    fn a_goal_inside_an_obstacle_is_refused_at_once() {
        let robot = robot();
        let mut obstacles = world();
        let mut req = request(&robot);
        let goal = robot.arm(Side::Right).world_from_hand(&req.goal);
        obstacles.add_box(
            "wall",
            crate::twin::kinematics::translation(&goal),
            Vec3::splat(0.05),
        );
        req.attached = None;
        let r = robot.plan_joint_motion(
            &req,
            &obstacles,
            &MotionOptions::default(),
            &JointPlanOptions::default(),
        );
        assert!(matches!(r, Err(JointPlanError::GoalBlocked(_))), "{r:?}");
    }
}
