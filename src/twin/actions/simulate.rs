//! From the world to obstacles, and from an elementary action's variant to
//! motion requests simulated with the robot's kinematics. A variant's result
//! is the next planning state, or its first violation.

use glam::{Affine3A, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::shape::SharedShape;

use crate::twin::kinds::{GraspType, ShapeTemplate};
use crate::twin::kinematics::{
    frame_from_z_x, translation, AttachedObject, IkOptions, IkTarget, Joints, Motion,
    MotionFailure, MotionOptions, MotionRequest, ObstacleSet, Obstacles as _, Robot, Side,
    Waypoint,
};
use crate::twin::world::{Placement, World};
use crate::twin::ObjectId;

use super::feedback::Cause;
use super::stages::{plan_step, Planning};
use super::variants::{get_variants, same_joints, Elementary, Variant};

/// Name of the table in obstacle sets and failure sentences.
pub const TABLE: &str = "table";
/// Distance of the pre-grasp pose from the grasp pose (m).
pub(super) const PRE_GRASP: f32 = 0.12;
/// Height of the hover pose above an object's top before a side grasp, metres.
pub(super) const HOVER_CLEAR: f32 = 0.06;
/// Height above the floor the hand rises to before going home: over bottles on the table.
pub(super) const TRANSIT_HEIGHT: f32 = 1.10;
/// Lift after grasping (m).
/// Height of the carried object's base above the table after lifting (m): clears the bottles.
pub(super) const LIFT_CLEAR: f32 = 0.28;
/// Tilt of the source while pouring (rad): past horizontal so that it empties.
pub(super) const POUR_TILT: f32 = 1.92;
/// Height of the source's mouth above the target's rim while pouring (m).
pub(super) const POUR_GAP: f32 = 0.06;

/// An object in one of the robot's hands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Holding {
    /// The object.
    pub object: ObjectId,
    /// The arm holding it.
    pub arm: Side,
    /// How it was grasped.
    pub grasp: GraspType,
    /// The object's upright centre frame in the hand frame.
    pub hand_from_centre: Affine3A,
}

/// The state a plan is searched over: the world as the steps so far leave it.
#[derive(Debug, Clone)]
pub struct PlanState {
    /// The world after the steps so far.
    pub world: World,
    /// Joints of the (left, right) arm.
    pub joints: [Joints; 2],
    /// What the robot holds.
    pub holding: Option<Holding>,
}

/// How a step changes the world when it is executed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Effect {
    /// Nothing moves in the world (gaze, point, pose).
    None,
    /// The object is now in the robot's hand.
    Grasped {
        object: ObjectId,
        arm: Side,
        base: Vec3,
    },
    /// The object stands on the table at a floor point.
    Released { object: ObjectId, spot: glam::Vec2 },
    /// The person holds the object.
    Given {
        object: ObjectId,
        person: crate::twin::PersonId,
    },
    /// The target received the source's liquid.
    Poured { source: ObjectId, target: ObjectId },
}

/// Aggregated margins of one or more motions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// Smallest normalised joint-limit margin (1 mid-range, 0 at a limit).
    pub joint_margin: f32,
    /// Smallest obstacle clearance (m).
    pub clearance: f32,
    /// Joint path length (rad).
    pub path: f32,
}

impl Metrics {
    /// No motion yet.
    pub const NONE: Metrics = Metrics {
        joint_margin: 1.0,
        clearance: f32::INFINITY,
        path: 0.0,
    };

    /// Both together: worst margins, summed path.
    pub fn and(self, o: Metrics) -> Metrics {
        Metrics {
            joint_margin: self.joint_margin.min(o.joint_margin),
            clearance: self.clearance.min(o.clearance),
            path: self.path + o.path,
        }
    }

    pub(super) fn of(m: &Motion) -> Metrics {
        Metrics {
            joint_margin: m.min_joint_margin,
            clearance: m.min_clearance,
            path: m.joint_path_length,
        }
    }
}

/// A simulated, feasible variant.
#[derive(Debug, Clone)]
pub struct Simulated {
    /// The motions in order.
    pub motions: Vec<Motion>,
    /// State afterwards.
    pub state: PlanState,
    /// What execution must do to the world.
    pub effect: Effect,
    /// Margins of the motions.
    pub metrics: Metrics,
    /// Head pan/tilt for gaze (rad).
    pub head: Option<(f32, f32)>,
}

/// Simulation settings: a coarser step than the default keeps planning fast; the
/// motions are short (≤ 1.5 s per segment) so 60 ms still samples every 2-3 cm.
pub fn motion_options() -> MotionOptions {
    MotionOptions {
        step_s: 0.06,
        ..MotionOptions::default()
    }
}

/// Table, objects on the table and people (torso and head) as obstacles.
pub fn obstacles(world: &World) -> ObstacleSet {
    let mut set = ObstacleSet::new();
    let t = world.table;
    set.add_box(
        TABLE,
        Vec3::new(0.0, 0.0, 0.5 * t.height),
        Vec3::new(0.5 * t.size.x, 0.5 * t.size.y, 0.5 * t.height),
    );
    for id in world.object_ids() {
        let o = world.object(id);
        // What the robot carries moves with its hand; what a person holds moves with theirs:
        // people's arms and hands are not modelled (they make way for the robot), so an
        // object in a hand is no table obstacle either.
        if matches!(
            o.placement,
            Placement::InGripper { .. } | Placement::HeldBy { .. }
        ) {
            continue;
        }
        add_object(&mut set, world, id);
    }
    for p in world.persons() {
        // Seated torso from the seat to the shoulders, and the head.
        let torso = crate::twin::kinematics::Capsule::new(
            p.position.extend(0.45),
            p.position.extend(p.body.shoulder_height),
            crate::twin::world::TORSO_RADIUS,
        );
        set.add_capsule(p.name.clone(), torso);
        let head = crate::twin::kinematics::Capsule::new(
            p.position.extend(p.body.eye_height - 0.05),
            p.position.extend(p.body.eye_height + 0.1),
            0.1,
        );
        set.add_capsule(p.name.clone(), head);
    }
    set
}

/// An object as it stands, added to `set` under its name.
pub(super) fn add_object(set: &mut ObstacleSet, world: &World, id: ObjectId) {
    let o = world.object(id);
    let base = world.object_base(id);
    match o.shape() {
        ShapeTemplate::Cylinder { radius, height } => {
            set.add_cylinder(o.name.clone(), base, radius, height)
        }
        ShapeTemplate::Box { size } => set.add(
            o.name.clone(),
            SharedShape::cuboid(0.5 * size.x, 0.5 * size.y, 0.5 * size.z),
            Pose::from_parts(
                base + Vec3::Z * (0.5 * size.z),
                Quat::from_rotation_z(world.object_yaw(id)),
            ),
        ),
    }
}

/// Heights (m) the hand may wait above its home pose when someone has set a thing
/// down where it rests.
const REST_RAISES: [f32; 3] = [0.10, 0.16, 0.24];

/// Where `side` rests: its home pose, or, when something stands where the hand rests
/// there, the home pose raised just enough to keep clear of it (never pushing into it).
pub fn resting_pose(robot: &Robot, obstacles: &ObstacleSet, side: Side) -> Joints {
    let home = robot.home(side);
    let options = motion_options();
    if robot.touches(side, &home, obstacles, &options).is_none() {
        return home;
    }
    let arm = robot.arm(side);
    let hand = arm.world_from_hand(&home);
    for raise in REST_RAISES {
        let up = with_translation(&hand, translation(&hand) + Vec3::Z * raise);
        if let Ok(sol) = arm.solve_ik(&IkTarget::Pose(up), &home, &IkOptions::default()) {
            if robot.touches(side, &sol.q, obstacles, &options).is_none() {
                return sol.q;
            }
        }
    }
    home
}

/// Upright centre frame of an object as it stands now.
pub(super) fn world_from_centre(world: &World, object: ObjectId) -> Affine3A {
    Affine3A::from_rotation_translation(
        Quat::from_rotation_z(world.object_yaw(object)),
        world.object_centre(object),
    )
}

pub(super) fn attached(world: &World, h: &Holding, exclude: &[&str]) -> AttachedObject {
    let o = world.object(h.object);
    let (shape, local) = match o.shape() {
        // parry cylinders run along local y; the upright centre frame has z up.
        ShapeTemplate::Cylinder { radius, height } => (
            SharedShape::cylinder(0.5 * height, radius),
            Affine3A::from_quat(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
        ),
        ShapeTemplate::Box { size } => (
            SharedShape::cuboid(0.5 * size.x, 0.5 * size.y, 0.5 * size.z),
            Affine3A::IDENTITY,
        ),
    };
    let hand_from_object = h.hand_from_centre * local;
    AttachedObject {
        name: o.name.clone(),
        shape,
        hand_from_object: Pose::from_parts(
            translation(&hand_from_object),
            crate::twin::kinematics::rotation(&hand_from_object),
        ),
        exclude: exclude.iter().map(|s| s.to_string()).collect(),
    }
}

pub(super) fn index(side: Side) -> usize {
    match side {
        Side::Left => 0,
        Side::Right => 1,
    }
}

/// Runs one motion of `arm` from the state's joints.
pub(super) fn run(
    robot: &Robot,
    state: &PlanState,
    obstacles: &ObstacleSet,
    arm: Side,
    waypoints: Vec<Waypoint>,
    attached: Option<AttachedObject>,
) -> Result<Motion, MotionFailure> {
    let request = MotionRequest {
        side: arm,
        start: state.joints[index(arm)],
        other_arm: state.joints[index(arm.other())],
        waypoints,
        attached,
        exclude: Vec::new(),
    };
    robot.simulate(&request, obstacles, &motion_options())
}

pub(super) fn with_translation(t: &Affine3A, p: Vec3) -> Affine3A {
    Affine3A::from_mat3_translation(t.matrix3.into(), p)
}

pub(super) fn horizontal(deg: f32) -> Vec3 {
    let r = deg.to_radians();
    Vec3::new(r.cos(), r.sin(), 0.0)
}

/// The hand pose that grasps `object` in a `get` variant.
pub fn grasp_target(world: &World, object: ObjectId, v: &Variant) -> IkTarget {
    let o = world.object(object);
    let g = world.object_base(object) + Vec3::Z * o.kind.grasp_height;
    let d = horizontal(v.direction_deg.unwrap_or(0.0));
    match v.grasp.unwrap_or(GraspType::Side) {
        GraspType::Side => IkTarget::approach(g, d),
        GraspType::Top => {
            let m = frame_from_z_x(-Vec3::Z, d);
            IkTarget::Pose(Affine3A::from_mat3_translation(m.into(), g))
        }
    }
}

/// Simulates one variant of a step from a state, with joint-space detours where a
/// straight path collides; the first violation is the error.
pub fn simulate(
    robot: &Robot,
    state: &PlanState,
    step: &Elementary,
    v: &Variant,
) -> Result<Simulated, Cause> {
    simulate_with(robot, state, step, v, Detours::On)
}

/// How hard a variant is tried: each level adds to the one before, and costs more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detours {
    /// Straight hand paths and direct joint moves only, the hand as it holds the object
    /// (fast; the first try).
    Off,
    /// Also straight paths with the hand turned about a put object's upright axis.
    Turns,
    /// Also RRT-Connect detours with the carried object attached, where those collide.
    On,
}

/// As [`simulate`] with the idle arm first stepping aside (when the robot has an aside
/// pose): tried when the variant failed with `cause` where the idle arm rests. The
/// failure with the idle arm aside is the truer cause; `cause` stays when it cannot move.
pub fn simulate_aside(
    robot: &Robot,
    state: &PlanState,
    step: &Elementary,
    v: &Variant,
    detours: Detours,
    cause: &Cause,
) -> Result<Simulated, Cause> {
    let obstacles = obstacles(&state.world);
    let Some(idle) = idle_arm_in_the_way(robot, state, &obstacles, step, v, detours, cause) else {
        return Err(cause.clone());
    };
    let Some((aside, moved)) = step_aside(robot, state, &obstacles, idle, detours) else {
        return Err(cause.clone());
    };
    let mut done = simulate_with(robot, &moved, step, v, detours)?;
    done.metrics = Metrics::of(&aside).and(done.metrics);
    done.motions.insert(0, aside);
    Ok(done)
}

/// The arm that does not act in `step`, when it is empty, where it rests, has somewhere
/// to step aside to, and the acting arm's failure is one that moving it may cure: the
/// idle arm was hit first on a straight path, or a detour ran short of free space.
fn idle_arm_in_the_way(
    robot: &Robot,
    state: &PlanState,
    obstacles: &ObstacleSet,
    step: &Elementary,
    v: &Variant,
    detours: Detours,
    cause: &Cause,
) -> Option<Side> {
    let curable = match cause {
        Cause::SelfCollision(_) => true,
        Cause::Collision(_) | Cause::OutOfReach(_) => detours == Detours::On,
        _ => false,
    };
    if !curable {
        return None;
    }
    let acting = match *step {
        Elementary::Get { .. } | Elementary::Point(_) => v.arm,
        Elementary::PutAt { object, .. }
        | Elementary::PutNear { object, .. }
        | Elementary::PutAway { object, .. }
        | Elementary::PutAside { object, .. }
        | Elementary::Relay { object, .. }
        | Elementary::Pass { object, .. }
        | Elementary::Lift { object }
        | Elementary::Pour { source: object, .. } => holding_of(state, object).ok()?.arm,
        Elementary::Gaze(_) | Elementary::Pose => return None,
    };
    let idle = acting.other();
    let aside = robot.aside(idle)?;
    let here = &state.joints[index(idle)];
    let holds = state.holding.is_some_and(|h| h.arm == idle);
    // The resting pose is solved only when the cheaper checks leave it to decide.
    let resting = || {
        same_joints(here, &robot.home(idle))
            || same_joints(here, &resting_pose(robot, obstacles, idle))
    };
    (!holds && !same_joints(here, &aside) && resting()).then_some(idle)
}

/// Moves the idle arm `side` to its aside pose: a joint move, or a detour around what
/// stands in the way; the motion and the state afterwards.
fn step_aside(
    robot: &Robot,
    state: &PlanState,
    obstacles: &ObstacleSet,
    side: Side,
    detours: Detours,
) -> Option<(Motion, PlanState)> {
    let aside = robot.aside(side)?;
    let motion = match joint_move(robot, state, obstacles, side, aside) {
        Ok(m) => m,
        Err(_) if detours == Detours::On => {
            detour(
                robot,
                state,
                obstacles,
                side,
                &Goal::Joints(aside),
                None,
                "aside",
                None,
            )?
            .0
        }
        Err(_) => return None,
    };
    let mut moved = state.clone();
    moved.joints[index(side)] = aside;
    Some((motion, moved))
}

/// As [`simulate`], choosing whether joint-space detours may be searched.
pub fn simulate_with(
    robot: &Robot,
    state: &PlanState,
    step: &Elementary,
    v: &Variant,
    detours: Detours,
) -> Result<Simulated, Cause> {
    let mut planning = Planning::new(robot, state, detours);
    let (effect, head) = plan_step(&mut planning, step, v)?;
    Ok(planning.finish(effect, head))
}

/// Turns (deg) of the hand about a put object's upright axis tried with straight paths,
/// the hand as it holds the object first.
pub(super) const PUT_TURNS_DEG: [f32; 5] = [0.0, 45.0, -45.0, 90.0, -90.0];

/// `world_from_hand` turned by `angle` (rad) about the vertical through `pivot`.
pub(super) fn turned_about(world_from_hand: &Affine3A, pivot: Vec3, angle: f32) -> Affine3A {
    if angle == 0.0 {
        return *world_from_hand;
    }
    Affine3A::from_translation(pivot)
        * Affine3A::from_rotation_z(angle)
        * Affine3A::from_translation(-pivot)
        * *world_from_hand
}

/// Room (m) kept beside a carried object's way when looking for what it must pass over.
const CARRY_ROOM: f32 = 0.04;
/// Height (m) a carried object's base keeps above what it passes over.
const CARRY_MARGIN: f32 = 0.03;

/// How much higher (m) than now the carried `object` (upright centre frame `centre`) must
/// go to pass over every object standing near its straight way to the floor point `to`;
/// zero when it is high enough already.
pub(super) fn carry_lift(
    world: &World,
    object: ObjectId,
    centre: &Affine3A,
    to: glam::Vec2,
) -> f32 {
    let from = translation(centre).truncate();
    let r = world.object(object).shape().footprint_radius();
    let base = translation(centre).z - 0.5 * world.object(object).shape().height();
    let mut needed = f32::NEG_INFINITY;
    for id in world.object_ids().filter(|&id| id != object) {
        let Placement::OnTable { position, .. } = world.object(id).placement else {
            continue;
        };
        let reach = r + world.object(id).shape().footprint_radius() + CARRY_ROOM;
        if super::variants::distance_to_segment(position, from, to) <= reach {
            needed = needed.max(world.object_top(id).z + CARRY_MARGIN);
        }
    }
    (needed - base).max(0.0)
}

/// A straight rise of the hand by `up` metres, when there is one to make.
pub(super) fn lift_over(hand: &Affine3A, up: f32) -> Vec<Waypoint> {
    if up <= 0.005 {
        return Vec::new();
    }
    let raised = with_translation(hand, translation(hand) + Vec3::Z * up);
    vec![Waypoint::new(
        "up over the way",
        IkTarget::Pose(raised),
        0.6,
    )]
}

/// Whether arm `side` can take `object` from where it stands, once the other arm rests.
pub(super) fn other_hand_takes(
    robot: &Robot,
    state: &PlanState,
    object: ObjectId,
    side: Side,
) -> Result<(), Cause> {
    let mut there = state.clone();
    let releasing = side.other();
    there.joints[index(releasing)] = resting_pose(robot, &obstacles(&state.world), releasing);
    let step = Elementary::Get {
        object,
        arm: Some(side),
    };
    let variants = get_variants(&state.world, robot, object, &[side]);
    let mut causes = Vec::new();
    for v in &variants {
        match simulate_with(robot, &there, &step, v, Detours::Off) {
            Ok(_) => return Ok(()),
            Err(c) => causes.push(c),
        }
    }
    // As the search goes on: with the resting arm stepped aside.
    for (v, c) in variants.iter().zip(&causes) {
        if simulate_aside(robot, &there, &step, v, Detours::Off, c).is_ok() {
            return Ok(());
        }
    }
    Err(causes.into_iter().next().unwrap_or(Cause::NoSpot))
}

/// Where a joint-space detour ends.
#[derive(Debug, Clone, Copy)]
pub(super) enum Goal {
    /// A hand pose (its IK solutions are tried in turn).
    Pose(IkTarget),
    /// Exact joints (home).
    Joints(Joints),
}

/// IK seeds tried for a detour's goal besides the current joints, and how far (rad) each
/// strays from them per joint: first postures near the current one (the arm gets home
/// from them the way it came), then far ones, because an arm over a tall box or around a
/// bottle is often in a posture far from where it is (elbow high, wrist turned).
const GOAL_SEEDS: [(usize, f32); 2] = [(5, 1.5), (25, 3.0)];

/// Joint-space goals for a hand pose, solved as they are asked for: the IK solution
/// nearest the current joints, then solutions from other seeds (another elbow or wrist
/// posture may be the free one), each distinct from those before.
fn ik_goals<'a>(
    robot: &'a Robot,
    state: &PlanState,
    side: Side,
    target: &'a IkTarget,
) -> impl Iterator<Item = Joints> + 'a {
    use crate::twin::kinematics::{IkOptions, Lcg};
    let arm = robot.arm(side);
    let here = state.joints[index(side)];
    let single = IkOptions {
        restarts: 0,
        ..IkOptions::default()
    };
    let mut rng = Lcg::new(0x1C_5EED);
    let spreads = GOAL_SEEDS
        .into_iter()
        .flat_map(|(count, spread)| std::iter::repeat_n(spread, count));
    let others = spreads.map(move |spread| {
        let mut seed = here;
        for (j, q) in seed.iter_mut().enumerate() {
            *q = (*q + rng.range(-spread, spread)).clamp(arm.lower[j], arm.upper[j]);
        }
        (seed, single)
    });
    let mut seen: Vec<Joints> = Vec::new();
    std::iter::once((here, IkOptions::default()))
        .chain(others)
        .filter_map(move |(seed, options)| arm.solve_ik(target, &seed, &options).ok())
        .filter_map(move |sol| {
            let fresh = seen.iter().all(|g| !same_joints_within(g, &sol.q, 0.2));
            fresh.then(|| {
                seen.push(sol.q);
                sol.q
            })
        })
}

fn same_joints_within(a: &Joints, b: &Joints, tolerance: f32) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < tolerance)
}

/// What must follow a detour: straight hand waypoints from its goal (the final approach),
/// checked before the detour is searched, so that no search goes where it cannot go on.
pub(super) type Tail<'a> = Option<(&'a [Waypoint], Option<&'a AttachedObject>)>;

/// A joint-space detour (RRT-Connect, shortcut, timed) from the arm's joints to `goal`,
/// trying the goal's free configurations in turn, and the tail's motion from there.
/// Seeded by the request, so the same scene plans the same way.
#[allow(clippy::too_many_arguments)]
pub(super) fn detour(
    robot: &Robot,
    state: &PlanState,
    obstacles: &ObstacleSet,
    side: Side,
    goal: &Goal,
    carried: Option<&AttachedObject>,
    label: &str,
    tail: Tail<'_>,
) -> Option<(Motion, Option<Motion>)> {
    use crate::twin::kinematics::{request_seed, JointPlanOptions, JointRequest};
    let goals: Box<dyn Iterator<Item = Joints>> = match goal {
        Goal::Pose(target) => Box::new(ik_goals(robot, state, side, target)),
        Goal::Joints(q) => Box::new(std::iter::once(*q)),
    };
    for goal in goals {
        let request = JointRequest {
            side,
            start: state.joints[index(side)],
            goal,
            other_arm: state.joints[index(side.other())],
            attached: carried.cloned(),
            exclude: Vec::new(),
        };
        // A goal in contact is refused before its final approach is simulated.
        if let Err(v) = robot.joint_goal_free(&request, obstacles, &motion_options()) {
            tracing::trace!(label, violation = ?v, "the detour's goal is not free");
            continue;
        }
        let then = match tail {
            Some((waypoints, attached)) => {
                let mut there = state.clone();
                there.joints[index(side)] = goal;
                match run(
                    robot,
                    &there,
                    obstacles,
                    side,
                    waypoints.to_vec(),
                    attached.cloned(),
                ) {
                    Ok(m) => Some(m),
                    Err(e) => {
                        tracing::debug!(label, error = %e, "the final approach from the detour's goal fails");
                        continue;
                    }
                }
            }
            None => None,
        };
        let options = JointPlanOptions {
            seed: request_seed(label, &request),
            ..JointPlanOptions::default()
        };
        match robot.plan_joint_motion(&request, obstacles, &motion_options(), &options) {
            Ok(m) => return Some((m, then)),
            Err(e) => tracing::debug!(label, error = %e, "no joint-space detour"),
        }
    }
    None
}

/// Solves IK for `target` from the arm's joints and moves there in joint space.
pub(super) fn move_to_ik(
    robot: &Robot,
    state: &PlanState,
    obstacles: &ObstacleSet,
    side: Side,
    target: &IkTarget,
    label: &str,
) -> Result<Motion, MotionFailure> {
    use crate::twin::kinematics::{IkError, IkOptions, Violation};
    match robot
        .arm(side)
        .solve_ik(target, &state.joints[index(side)], &IkOptions::default())
    {
        Ok(sol) => joint_move(robot, state, obstacles, side, sol.q),
        Err(IkError::NotConverged {
            position_residual,
            orientation_residual,
            ..
        }) => Err(MotionFailure {
            side,
            sample: 0,
            time_s: 0.0,
            waypoint: 0,
            violation: Violation::Unreachable {
                waypoint: label.to_string(),
                position_residual,
                orientation_residual,
            },
        }),
    }
}

/// Moves one arm in joint space to `goal` (minimum-jerk), checking limits, self-collision
/// and obstacles at every sample: the way home need not be a straight line of the hand.
pub(super) fn joint_move(
    robot: &Robot,
    state: &PlanState,
    obstacles: &ObstacleSet,
    side: Side,
    goal: Joints,
) -> Result<Motion, MotionFailure> {
    use crate::twin::kinematics::{min_jerk, Obstacles, Sample, Violation};
    let opts = motion_options();
    let arm = robot.arm(side);
    let start = state.joints[index(side)];
    let other = state.joints[index(side.other())];
    let span = start
        .iter()
        .zip(&goal)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    // Slow enough to stay under 1 rad/s on the joint that moves most.
    let duration = (span / 1.0).max(1.0);
    let n = (duration / opts.step_s).ceil().max(1.0) as usize;
    let fail = |sample: usize, violation: Violation| MotionFailure {
        side,
        sample,
        time_s: sample as f32 * opts.step_s,
        waypoint: 0,
        violation,
    };
    let mut samples = Vec::with_capacity(n + 1);
    let (mut margin, mut clearance, mut nearest, mut self_cl, mut path) =
        (1.0f32, f32::INFINITY, None, f32::INFINITY, 0.0f32);
    let mut prev = start;
    for i in 0..=n {
        let s = min_jerk(i as f32 / n as f32);
        let mut q = start;
        for j in 0..q.len() {
            q[j] = start[j] + (goal[j] - start[j]) * s;
        }
        if let Some(j) = arm.limit_violation(&q, 1e-4) {
            return Err(fail(i, Violation::JointLimit { joint: j }));
        }
        let (ql, qr) = match side {
            Side::Left => (q, other),
            Side::Right => (other, q),
        };
        let sc = robot.self_clearance(&ql, &qr);
        if sc.distance < opts.min_self_clearance {
            return Err(fail(
                i,
                Violation::SelfCollision {
                    a: sc.a,
                    b: sc.b,
                    distance: sc.distance,
                },
            ));
        }
        self_cl = self_cl.min(sc.distance);
        for (k, c) in arm.capsules(&q).iter().enumerate() {
            if let Some(cl) = obstacles.capsule_clearance(c, &[]) {
                if cl.distance < opts.min_clearance {
                    return Err(fail(
                        i,
                        Violation::Collision {
                            part: arm.link_label(k),
                            obstacle: cl.obstacle,
                            distance: cl.distance,
                        },
                    ));
                }
                if cl.distance < clearance {
                    clearance = cl.distance;
                    nearest = Some(cl.obstacle);
                }
            }
        }
        margin = margin.min(arm.joint_margin(&q));
        path += prev
            .iter()
            .zip(&q)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f32>()
            .sqrt();
        prev = q;
        samples.push(Sample {
            t: i as f32 * duration / n as f32,
            q,
        });
    }
    Ok(Motion {
        side,
        samples,
        waypoint_samples: vec![n],
        min_joint_margin: margin,
        min_clearance: clearance,
        nearest_obstacle: nearest,
        min_self_clearance: self_cl,
        joint_path_length: path,
        duration_s: duration,
        final_world_from_hand: arm.world_from_hand(&goal),
    })
}

/// Moves the empty hand back from where it let go: 10 cm against the approach, 5 cm up.
pub(super) fn retreat(
    robot: &Robot,
    state: &PlanState,
    arm: Side,
    object: &str,
) -> Result<Motion, MotionFailure> {
    let hand = arm_hand(robot, state, arm);
    let z = Vec3::from(hand.matrix3.z_axis);
    let obstacles = obstacles(&state.world);
    // The object let go of may be brushed on the way out, but the hand must end clear
    // of it: every later motion counts it as an obstacle again.
    let mut just_released = ObstacleSet::new();
    just_released.obstacles = obstacles
        .obstacles
        .iter()
        .filter(|o| o.name == object)
        .cloned()
        .collect();
    let clear_at_end = |m: &Motion| {
        let q = m.final_joints();
        robot.arm(arm).capsules(&q).iter().all(|c| {
            just_released
                .capsule_clearance(c, &[])
                .is_none_or(|cl| cl.distance >= motion_options().min_clearance)
        })
    };
    // Back along the approach and a little up; else flat back, or back and higher.
    let mut first = None;
    for offset in [
        -z * 0.10 + Vec3::Z * 0.05,
        -z * 0.12,
        -z * 0.10 + Vec3::Z * 0.10,
        -z * 0.06 + Vec3::Z * 0.03,
    ] {
        let to = with_translation(&hand, translation(&hand) + offset);
        match run(
            robot,
            state,
            &obstacles,
            arm,
            vec![Waypoint::new("retreat", IkTarget::Pose(to), 0.8).excluding(&[object])],
            None,
        ) {
            Ok(m) if clear_at_end(&m) => return Ok(m),
            Ok(_) => {}
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    Err(first.unwrap_or(MotionFailure {
        side: arm,
        sample: 0,
        time_s: 0.0,
        waypoint: 0,
        violation: crate::twin::kinematics::Violation::Collision {
            part: format!("{} hand", arm.name()),
            obstacle: object.to_string(),
            distance: 0.0,
        },
    }))
}

pub(super) fn arm_hand(robot: &Robot, state: &PlanState, arm: Side) -> Affine3A {
    robot.arm(arm).world_from_hand(&state.joints[index(arm)])
}

pub(super) fn holding_of(state: &PlanState, object: ObjectId) -> Result<Holding, Cause> {
    state
        .holding
        .filter(|h| h.object == object)
        .ok_or(Cause::NotHolding)
}

pub(super) fn centre_base(world: &World, object: ObjectId, centre: &Affine3A) -> Vec3 {
    translation(centre) - Vec3::Z * (0.5 * world.object(object).shape().height())
}

/// The world effect of pouring: the target gets the source's liquid and counts as used;
/// a drinking vessel poured out is empty afterwards, a bottle holds more than one glass.
pub fn apply_pour(world: &mut World, source: ObjectId, target: ObjectId) {
    let additions = crate::twin::liquids::Additions::shipped();
    match (
        world.object(source).contains.clone(),
        world.object(target).contains.clone(),
    ) {
        // Coffee onto milk ("milk in first"): the coffee is the drink, the milk added.
        (Some(liquid), Some(drink))
            if additions.may_add(&drink, &liquid) && !additions.may_add(&liquid, &drink) =>
        {
            world.fill(target, Some(liquid));
            world.add(target, &drink);
        }
        (Some(liquid), Some(_)) => world.add(target, &liquid),
        (liquid, None) => world.fill(target, liquid),
        // Nothing poured leaves what is there.
        (None, Some(_)) => {}
    }
    world.object_mut(target).used = true;
    if world.object(source).kind.drinking_vessel {
        world.fill(source, None);
        world.object_mut(source).used = true;
    }
}
