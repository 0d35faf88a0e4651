//! The planner's stages. An elementary step is a sequence of named stages —
//! approach, grasp, lift, carry, release, retreat, home (and pour, point) —
//! each trying its ways in order of effort, its detour ladder: straight hand
//! paths first, then a direct joint-space move, then (with `Detours::On`) a
//! seeded RRT-Connect detour; a carry also tries the hand turned about the
//! object's upright axis. The first failure explains a refusal.

use glam::{Affine3A, Mat3A, Quat, Vec3};

use crate::twin::kinds::GraspType;
use crate::twin::kinematics::{
    frame_from_z_x, translation, Capsule, IkTarget, Motion, MotionFailure, ObstacleSet, Obstacles,
    Robot, Side, Waypoint,
};
use crate::twin::world::{Placement, World};
use crate::twin::ObjectId;

use super::feedback::Cause;
use super::simulate::{
    add_object, apply_pour, arm_hand, attached, carry_lift, centre_base, detour, holding_of,
    horizontal, index, joint_move, lift_over, motion_options, move_to_ik, obstacles,
    other_hand_takes, resting_pose, retreat, run, turned_about, with_translation,
    world_from_centre, Detours, Effect, Goal, Holding, Metrics, PlanState, Simulated, Tail,
    HOVER_CLEAR, LIFT_CLEAR, POUR_GAP, POUR_TILT, PRE_GRASP, PUT_TURNS_DEG, TABLE, TRANSIT_HEIGHT,
};
use super::variants::{hand_of, same_joints, target_point, Elementary, Variant};

/// A step being planned: the state after the motions so far, and those motions.
pub(super) struct Planning<'a> {
    robot: &'a Robot,
    obstacles: ObstacleSet,
    detours: Detours,
    next: PlanState,
    motions: Vec<Motion>,
}

impl<'a> Planning<'a> {
    /// Planning a step from `state`, trying as hard as `detours` says.
    pub(super) fn new(robot: &'a Robot, state: &PlanState, detours: Detours) -> Self {
        Self {
            robot,
            obstacles: obstacles(&state.world),
            detours,
            next: state.clone(),
            motions: Vec::new(),
        }
    }

    /// Whether joint-space detours may be searched.
    fn search(&self) -> bool {
        self.detours == Detours::On
    }

    /// A straight hand path of `side` from where it is now.
    fn run(
        &self,
        side: Side,
        waypoints: Vec<Waypoint>,
        carried: Option<crate::twin::kinematics::AttachedObject>,
    ) -> Result<Motion, MotionFailure> {
        run(
            self.robot,
            &self.next,
            &self.obstacles,
            side,
            waypoints,
            carried,
        )
    }

    /// A joint-space detour of `side` to `goal`, and the tail's motion from there.
    fn detour(
        &self,
        side: Side,
        goal: &Goal,
        carried: Option<&crate::twin::kinematics::AttachedObject>,
        label: &str,
        tail: Tail<'_>,
    ) -> Option<(Motion, Option<Motion>)> {
        let (robot, state, obstacles) = (self.robot, &self.next, &self.obstacles);
        detour(robot, state, obstacles, side, goal, carried, label, tail)
    }

    /// Adds a motion of `side`: the arm is now where it ends.
    fn moved(&mut self, side: Side, m: Motion) {
        self.next.joints[index(side)] = m.final_joints();
        self.motions.push(m);
    }

    /// The planned step: its motions, the state after them and what they did.
    pub(super) fn finish(self, effect: Effect, head: Option<(f32, f32)>) -> Simulated {
        let metrics = self
            .motions
            .iter()
            .fold(Metrics::NONE, |acc, m| acc.and(Metrics::of(m)));
        Simulated {
            motions: self.motions,
            state: self.next,
            effect,
            metrics,
            head,
        }
    }
}

/// Plans one variant of a step as its stages.
pub(super) fn plan_step(
    p: &mut Planning<'_>,
    step: &Elementary,
    v: &Variant,
) -> Result<(Effect, Option<(f32, f32)>), Cause> {
    let effect = match *step {
        Elementary::Get { object, .. } => {
            let grasp = v.grasp.unwrap_or(GraspType::Side);
            let reach = approach(p, object, v.arm, grasp, v.direction_deg.unwrap_or(0.0))?;
            let holding = close_hand(p, object, v.arm, grasp, &reach);
            p.moved(v.arm, reach);
            let world = &p.next.world;
            let by = (world.table.height + LIFT_CLEAR - world.object_base(object).z).max(0.05);
            let base = lift(p, &holding, by)?;
            p.next.holding = Some(holding);
            Effect::Grasped {
                object,
                arm: v.arm,
                base,
            }
        }
        Elementary::Lift { object } => {
            let h = holding_of(&p.next, object)?;
            let world = &p.next.world;
            let by = world.table.height + LIFT_CLEAR - world.object_base(object).z;
            if by > 0.01 {
                lift(p, &h, by)?;
            }
            Effect::None
        }
        Elementary::PutAt { object, .. }
        | Elementary::PutNear { object, .. }
        | Elementary::PutAway { object, .. }
        | Elementary::PutAside { object, .. }
        | Elementary::Relay { object, .. } => {
            let h = holding_of(&p.next, object)?;
            let spot = v.point.ok_or(Cause::NoSpot)?;
            carry_to_spot(p, &h, spot)?;
            let spot = spot.truncate();
            release_on_table(p, object, spot);
            step_back(p, h.arm, object)?;
            if matches!(
                step,
                Elementary::Relay {
                    for_the_other_hand: true,
                    ..
                }
            ) {
                // A relay spot is one the other hand can take the object from (straight
                // hand paths, with this arm back at rest).
                other_hand_takes(p.robot, &p.next, object, h.arm.other())?;
            }
            Effect::Released { object, spot }
        }
        Elementary::Pass { object, person } => {
            let h = holding_of(&p.next, object)?;
            let point = v.point.ok_or(Cause::NoHandoverPoint)?;
            carry_to_person(p, &h, point)?;
            hand_over(p, object, person, point)?;
            step_back(p, h.arm, object)?;
            Effect::Given { object, person }
        }
        Elementary::Pour { source, target } => {
            let h = holding_of(&p.next, source)?;
            pour(p, &h, target, v.direction_deg.unwrap_or(0.0))?;
            Effect::Poured { source, target }
        }
        Elementary::Point(t) => {
            let spot = v.point.ok_or(Cause::NoSpot)?;
            point_at(p, v.arm, spot, target_point(&p.next.world, t))?;
            Effect::None
        }
        Elementary::Gaze(t) => {
            let a = p.robot.head_angles_towards(target_point(&p.next.world, t));
            if !a.within_limits {
                return Err(Cause::HeadLimit);
            }
            return Ok((Effect::None, Some((a.pan, a.tilt))));
        }
        Elementary::Pose => {
            home(p)?;
            Effect::None
        }
    };
    Ok((effect, None))
}

/// Approach: the hand to the grasp pose, coming from above the object. Its ladder:
/// straight hand paths (directly, then from the hover pose above the pre-grasp pose);
/// a joint-space move to the pre-grasp or hover pose and straight in; a detour over
/// or around what stands in the way to either and straight in. A two-finger hand tries
/// each of its grips in turn (see [`grips`]). Returns the motion that ends at the grasp;
/// a move or detour before it is already added.
fn approach(
    p: &mut Planning<'_>,
    object: ObjectId,
    arm: Side,
    grasp: GraspType,
    direction_deg: f32,
) -> Result<Motion, Cause> {
    let grips = grips(p, object, arm, grasp, direction_deg);
    let mut rungs = vec![Rung::Straight, Rung::JointMove];
    if p.search() {
        rungs.push(Rung::Detour);
    }
    // The first straight path's failure (of the first grip) explains a refusal.
    let mut first_failure = None;
    for rung in rungs {
        for grip in &grips {
            match approach_with(p, arm, grip, rung) {
                Ok(m) => return Ok(m),
                Err(e) => {
                    if first_failure.is_none() {
                        first_failure = e;
                    }
                }
            }
        }
    }
    Err(first_failure.map_or_else(
        || {
            let name = &p.next.world.object(object).name;
            Cause::OutOfReach(format!("{name} cannot be approached"))
        },
        Cause::from_failure,
    ))
}

/// How far a parallel hand's closing axis may tilt from level and still close across an
/// upright cylinder (degrees).
const GRIP_TILT_DEG: f32 = 30.0;

/// One way to hold an object: the pre-grasp, grasp and hover targets of the hand.
struct Grip {
    pre: IkTarget,
    at: IkTarget,
    hover: IkTarget,
    /// What the hand may touch on its last stretch (the object; the table for a top grasp).
    touching: Vec<String>,
}

/// The grips of a grasp from `direction_deg`. A side grasp of a multi-finger hand wraps
/// the cylinder at any roll about the approach; a two-finger (parallel) hand must close
/// across it, its closing axis level, so it has two grips — upright and upside down, the
/// one nearer the hand's roll now first — and then the nearer one tilted either way.
fn grips(
    p: &Planning<'_>,
    object: ObjectId,
    arm: Side,
    grasp: GraspType,
    direction_deg: f32,
) -> Vec<Grip> {
    let world = &p.next.world;
    let o = world.object(object);
    let name = o.name.clone();
    let g = world.object_base(object) + Vec3::Z * o.kind.grasp_height;
    let d = horizontal(direction_deg);
    let top = world.object_top(object).z;
    match grasp {
        GraspType::Side => {
            if p.robot.hand.fingers != 2 {
                return wrapping_grips(p, object, arm, g, d);
            }
            let hand_y = arm_hand(p.robot, &p.next, arm).matrix3.y_axis;
            let first_up = hand_y.z >= 0.0;
            let tilt = GRIP_TILT_DEG * if first_up { 1.0 } else { -1.0 };
            // The hand frame of a grip: the approach along `d`, the closing axis level, the
            // hand upright or upside down, tilted about the approach by `tilt_deg`.
            let level = |up: bool, tilt_deg: f32| {
                let y = if up { Vec3::Z } else { -Vec3::Z };
                let y = Quat::from_axis_angle(d, tilt_deg.to_radians()) * y;
                frame_from_z_x(d, y.cross(d))
            };
            let levels = [
                level(first_up, 0.0),
                level(!first_up, 0.0),
                level(first_up, tilt),
                level(first_up, -tilt),
            ];
            let pitched = pitched_grips(p, world, object, arm, g, [levels[0], levels[1]]);
            pitched
                .into_iter()
                .chain(levels.map(|m| (m, g)))
                .map(|(m, at)| {
                    let approach = Vec3::from(m.z_axis);
                    let pre_at = at - approach * PRE_GRASP;
                    let hover_at = Vec3::new(pre_at.x, pre_at.y, (top + HOVER_CLEAR).max(pre_at.z));
                    let pose =
                        |at: Vec3| IkTarget::Pose(Affine3A::from_mat3_translation(m.into(), at));
                    Grip {
                        pre: pose(pre_at),
                        at: pose(at),
                        hover: pose(hover_at),
                        touching: vec![name.clone()],
                    }
                })
                .collect()
        }
        GraspType::Top => {
            // Closing direction across the object's short side; fingertips touch the table.
            let m = frame_from_z_x(-Vec3::Z, d);
            let pose = Affine3A::from_mat3_translation(m.into(), g);
            let pre = IkTarget::Pose(with_translation(&pose, g + Vec3::Z * PRE_GRASP));
            vec![Grip {
                pre,
                at: IkTarget::Pose(pose),
                hover: pre,
                touching: vec![name, TABLE.to_string()],
            }]
        }
    }
}

/// The grips of a hand that wraps an object (three fingers or more), free to roll about
/// the approach: level at the kind's grasp height; where the hand would sit on the table
/// there (a jar, a teacup: the grasp height is lower than the palm is thick), level at the
/// lowest hold up the object's side that clears it; then leaned down from above, as
/// [`pitched_grips`] leans a parallel hand, the forearm high over what stands around.
fn wrapping_grips(p: &Planning<'_>, object: ObjectId, arm: Side, g: Vec3, d: Vec3) -> Vec<Grip> {
    let world = &p.next.world;
    let name = world.object(object).name.clone();
    let top = world.object_top(object).z;
    let palm = p.robot.arm(arm).hand_capsules();
    let frame = |approach: Vec3| frame_from_z_x(approach, approach.cross(Vec3::Z));
    let hand_at =
        |approach: Vec3, at: Vec3| Affine3A::from_mat3_translation(frame(approach).into(), at);
    let table_clear = world.table.height + motion_options().min_clearance + TABLE_SLACK;
    let clears_table =
        |approach: Vec3, at: Vec3| lowest_point(palm, &hand_at(approach, at)) >= table_clear;
    let mut held = ObstacleSet::new();
    add_object(&mut held, world, object);
    let allowed = palm_depth(palm, &hand_at(d, g), &held) + PALM_SLACK;
    let highest = top - TOP_HOLD;
    let steps = ((highest - g.z) / HOLD_STEP).floor().max(0.0) as usize;
    // The lowest hold up the side where the hand clears the table and, leaned, sits no
    // deeper in the object than a level hand at the grasp height.
    let lowest_hold = |approach: Vec3| {
        (0..=steps)
            .map(|k| g + Vec3::Z * (k as f32 * HOLD_STEP))
            .find(|&at| {
                clears_table(approach, at)
                    && (approach == d || palm_depth(palm, &hand_at(approach, at), &held) <= allowed)
            })
    };
    let mut holds = Vec::new();
    holds.extend(lowest_hold(d).map(|at| (d, at)));
    let axis = d.cross(Vec3::Z);
    for deg in GRIP_PITCHES_DEG.iter().rev() {
        let leaned = Quat::from_axis_angle(axis, deg.to_radians()) * d;
        let leaned = if leaned.z <= 0.0 {
            leaned
        } else {
            Quat::from_axis_angle(axis, -deg.to_radians()) * d
        };
        holds.extend(lowest_hold(leaned).map(|at| (leaned, at)));
    }
    if holds.is_empty() {
        // No hold clears the table: the level one explains why.
        holds.push((d, g));
    }
    holds
        .into_iter()
        .map(|(approach, at)| {
            let pre_at = at - approach * PRE_GRASP;
            let hover_at = Vec3::new(pre_at.x, pre_at.y, (top + HOVER_CLEAR).max(pre_at.z));
            let free = |at: Vec3| IkTarget::approach(at, approach);
            Grip {
                pre: free(pre_at),
                at: free(at),
                hover: free(hover_at),
                touching: vec![name.clone()],
            }
        })
        .collect()
}

/// How much more than the motion's clearance a wrapping hand keeps above the table (m).
const TABLE_SLACK: f32 = 0.002;

/// The lowest point of the hand's capsules (`palm`, in the hand frame) with the hand at
/// `world_from_hand` (world z, m).
fn lowest_point(palm: &[Capsule], world_from_hand: &Affine3A) -> f32 {
    palm.iter()
        .map(|c| {
            let c = c.transformed(world_from_hand);
            c.a.z.min(c.b.z) - c.radius
        })
        .fold(f32::INFINITY, f32::min)
}

/// How far a parallel hand's side grip leans down from level (degrees): the hand comes
/// from above and the forearm stays high, over what stands around the object, where a
/// level grip brings the whole forearm down to the object's height.
const GRIP_PITCHES_DEG: [f32; 2] = [50.0, 20.0];
/// How much deeper the palm may sit in the held object than with a level grip (m).
const PALM_SLACK: f32 = 0.005;

/// The level grip frames (at the grasp point `g`) leaned down about their closing axis by
/// the steepest of [`GRIP_PITCHES_DEG`] that fits, each at the lowest grasp point up the
/// object (to [`TOP_HOLD`] below its top, at most [`MAX_RAISE`] above `g`) where the palm
/// sits no deeper in the object than a level grip's: a hand from above holds a glass
/// higher up, as a person's does, so that its palm clears the rim.
fn pitched_grips(
    p: &Planning<'_>,
    world: &World,
    object: ObjectId,
    arm: Side,
    g: Vec3,
    levels: [Mat3A; 2],
) -> Vec<(Mat3A, Vec3)> {
    let palm = p.robot.arm(arm).hand_capsules();
    let mut held = ObstacleSet::new();
    add_object(&mut held, world, object);
    let depth = |m: Mat3A, at: Vec3| {
        palm_depth(palm, &Affine3A::from_mat3_translation(m.into(), at), &held)
    };
    let highest = (world.object_top(object).z - TOP_HOLD).min(g.z + MAX_RAISE);
    let steps = ((highest - g.z) / HOLD_STEP).floor().max(0.0) as usize;
    levels
        .into_iter()
        .filter_map(|m| {
            let closing = Vec3::from(m.x_axis);
            let lean =
                |deg: f32| Mat3A::from_quat(Quat::from_axis_angle(closing, deg.to_radians())) * m;
            let allowed = depth(m, g) + PALM_SLACK;
            // The steepest lean whose palm clears the object somewhere up its side.
            GRIP_PITCHES_DEG.iter().find_map(|&deg| {
                // Lean the approach down, whichever way the closing axis points.
                let (one, other) = (lean(deg), lean(-deg));
                let pitched = if one.z_axis.z <= other.z_axis.z {
                    one
                } else {
                    other
                };
                (0..=steps)
                    .map(|k| g + Vec3::Z * (k as f32 * HOLD_STEP))
                    .find(|&at| depth(pitched, at) <= allowed)
                    .map(|at| (pitched, at))
            })
        })
        .collect()
}

/// How far below its top a grip from above may hold an object at the highest (m).
const TOP_HOLD: f32 = 0.02;
/// How much higher than a level grip a grip from above may hold an object (m): near
/// the top of a cup or a glass, never by a bottle's neck.
const MAX_RAISE: f32 = 0.05;
/// Steps up the object when looking for where a grip from above holds it (m).
const HOLD_STEP: f32 = 0.005;

/// How deep the hand's capsules (`palm`, in the hand frame) sink into `held` with the hand
/// at `world_from_hand` (m; 0 when clear).
fn palm_depth(palm: &[Capsule], world_from_hand: &Affine3A, held: &ObstacleSet) -> f32 {
    palm.iter()
        .filter_map(|c| held.capsule_clearance(&c.transformed(world_from_hand), &[]))
        .fold(0.0, |deepest, cl| deepest.max(-cl.distance))
}

/// The rungs of the approach ladder, cheapest first; every grip tries a rung before
/// any grip tries the next.
#[derive(Clone, Copy, PartialEq)]
enum Rung {
    /// Straight hand paths, directly or from the hover pose.
    Straight,
    /// A joint-space move to the pre-grasp or hover pose, then straight in.
    JointMove,
    /// A searched detour to either, then straight in.
    Detour,
}

/// The hand's last stretches of one grip: straight in from the pre-grasp pose, and down
/// from the hover pose and in.
struct Stretches {
    into_grasp: Vec<Waypoint>,
    descend: Vec<Waypoint>,
}

impl Stretches {
    fn of(grip: &Grip) -> Self {
        let touching: Vec<&str> = grip.touching.iter().map(String::as_str).collect();
        let into_grasp = vec![Waypoint::new("grasp", grip.at, 0.8).excluding(&touching)];
        let mut descend = vec![Waypoint::new("approach", grip.pre, 0.8)];
        descend.extend(into_grasp.iter().cloned());
        Self {
            into_grasp,
            descend,
        }
    }
}

/// One rung of the approach ladder for one grip.
fn approach_with(
    p: &mut Planning<'_>,
    arm: Side,
    grip: &Grip,
    rung: Rung,
) -> Result<Motion, Option<MotionFailure>> {
    let (pre, hover) = (grip.pre, grip.hover);
    let Stretches {
        into_grasp,
        descend,
    } = Stretches::of(grip);
    match rung {
        Rung::Straight => {
            let mut from_above = vec![Waypoint::new("hover", hover, 1.5)];
            from_above.extend(descend.iter().cloned());
            let mut direct = vec![Waypoint::new("approach", pre, 1.5)];
            direct.extend(into_grasp.iter().cloned());
            let mut first_failure = None;
            for waypoints in [direct, from_above] {
                match p.run(arm, waypoints, None) {
                    Ok(m) => return Ok(m),
                    Err(e) => {
                        first_failure.get_or_insert(e);
                    }
                }
            }
            Err(first_failure)
        }
        Rung::JointMove => {
            for (via, label, rest) in [(&pre, "approach", &into_grasp), (&hover, "hover", &descend)]
            {
                let (robot, obstacles) = (p.robot, &p.obstacles);
                let Ok(to_via) = move_to_ik(robot, &p.next, obstacles, arm, via, label) else {
                    continue;
                };
                let mut after = p.next.clone();
                after.joints[index(arm)] = to_via.final_joints();
                if let Ok(m) = run(robot, &after, obstacles, arm, rest.clone(), None) {
                    p.moved(arm, to_via);
                    return Ok(m);
                }
            }
            Err(None)
        }
        Rung::Detour => {
            for (via, label, rest) in [(&hover, "hover", &descend), (&pre, "approach", &into_grasp)]
            {
                let tail: Tail = Some((rest, None));
                if let Some((to_via, Some(m))) = p.detour(arm, &Goal::Pose(*via), None, label, tail)
                {
                    p.moved(arm, to_via);
                    return Ok(m);
                }
            }
            Err(None)
        }
    }
}

/// Grasp: the hand closes where `reach` ends; from here the object moves with the hand.
fn close_hand(
    p: &Planning<'_>,
    object: ObjectId,
    arm: Side,
    grasp: GraspType,
    reach: &Motion,
) -> Holding {
    let hand = reach.final_world_from_hand;
    Holding {
        object,
        arm,
        grasp,
        hand_from_centre: hand.inverse() * world_from_centre(&p.next.world, object),
    }
}

/// Lift: the held object straight up by `by` metres (it may leave the table's surface).
/// Returns where its base is then.
fn lift(p: &mut Planning<'_>, h: &Holding, by: f32) -> Result<Vec3, Cause> {
    let hand = arm_hand(p.robot, &p.next, h.arm);
    let up = with_translation(&hand, translation(&hand) + Vec3::Z * by);
    let carried = attached(&p.next.world, h, &[TABLE]);
    let waypoints = vec![Waypoint::new("lift", IkTarget::Pose(up), 0.8)];
    let m = p
        .run(h.arm, waypoints, Some(carried))
        .map_err(Cause::from_failure)?;
    let centre = m.final_world_from_hand * h.hand_from_centre;
    let base = centre_base(&p.next.world, h.object, &centre);
    p.next.world.object_mut(h.object).placement = Placement::InGripper {
        hand: hand_of(h.arm),
        base,
    };
    p.moved(h.arm, m);
    Ok(base)
}

/// Carry to a spot: over everything on the way, over the spot and down. Its ladder: the
/// hand as it holds the object; turned about the object's upright axis (`Detours::Turns`);
/// a detour to above the spot, the hand free about that axis, and straight down.
fn carry_to_spot(p: &mut Planning<'_>, h: &Holding, spot: Vec3) -> Result<(), Cause> {
    let world = &p.next.world;
    let object = h.object;
    let hand = arm_hand(p.robot, &p.next, h.arm);
    let centre = hand * h.hand_from_centre;
    let half = 0.5 * world.object(object).shape().height();
    // Object base 2 mm above the table: it is set down, not pushed in.
    let delta = spot.truncate().extend(spot.z + 0.002 + half) - translation(&centre);
    let straight_place = with_translation(&hand, translation(&hand) + delta);
    // Carry high enough for the object to pass over everything on its way (up first
    // where the lift was not enough), then over the spot and down.
    let up = carry_lift(world, object, &centre, spot.truncate());
    let carried = attached(world, h, &[TABLE]);
    let put_centre = translation(&(straight_place * h.hand_from_centre));
    let carry_turned = |turn: f32| {
        let turned = turned_about(&straight_place, put_centre, turn.to_radians());
        let above = with_translation(&turned, translation(&turned) + Vec3::Z * 0.08);
        let carry_z = (translation(&hand).z + up).max(translation(&above).z);
        let high = with_translation(&turned, translation(&turned).truncate().extend(carry_z));
        let mut waypoints = lift_over(&hand, up);
        waypoints.extend([
            Waypoint::new("over the spot", IkTarget::Pose(high), 1.5),
            Waypoint::new("above the spot", IkTarget::Pose(above), 0.6),
            Waypoint::new("put", IkTarget::Pose(turned), 0.6),
        ]);
        (p.run(h.arm, waypoints, Some(carried.clone())), turned)
    };
    // The failure with the hand as it holds the object explains a refusal.
    let (mut carry, mut place) = carry_turned(PUT_TURNS_DEG[0]);
    if carry.is_err() && p.detours >= Detours::Turns {
        if let Some(found) = PUT_TURNS_DEG[1..]
            .iter()
            .map(|&turn| carry_turned(turn))
            .find(|(m, _)| m.is_ok())
        {
            (carry, place) = found;
        }
    }
    let e = match carry {
        Ok(m) => {
            p.moved(h.arm, m);
            return Ok(());
        }
        Err(e) => e,
    };
    if !p.search() {
        return Err(Cause::from_failure(e));
    }
    let above = with_translation(&place, translation(&place) + Vec3::Z * 0.08);
    let goal = Goal::Pose(IkTarget::pose_free_about(above, Vec3::Z));
    let down = [Waypoint::new(
        "put",
        IkTarget::pose_free_about(place, Vec3::Z),
        0.6,
    )];
    let tail: Tail = Some((&down, Some(&carried)));
    match p.detour(h.arm, &goal, Some(&carried), "above the spot", tail) {
        Some((to_above, Some(m))) => {
            p.moved(h.arm, to_above);
            p.moved(h.arm, m);
            Ok(())
        }
        _ => Err(Cause::from_failure(e)),
    }
}

/// Release on the table: the hand opens, the object stands on the spot.
fn release_on_table(p: &mut Planning<'_>, object: ObjectId, spot: glam::Vec2) {
    p.next.world.place_on_table(object, spot);
    p.next.holding = None;
}

/// Carry to a person: over everything on the way, then to the hand-over point. Its
/// ladder: the straight hand path; a detour to the point.
fn carry_to_person(p: &mut Planning<'_>, h: &Holding, point: Vec3) -> Result<(), Cause> {
    let hand = arm_hand(p.robot, &p.next, h.arm);
    let target = IkTarget::pose_free_about(with_translation(&hand, point), Vec3::Z);
    let centre = hand * h.hand_from_centre;
    let up = carry_lift(&p.next.world, h.object, &centre, point.truncate());
    let mut waypoints = lift_over(&hand, up);
    let carry_z = translation(&hand).z + up;
    if up > 0.0 && carry_z > point.z {
        let over = point.truncate().extend(carry_z);
        waypoints.push(Waypoint::new(
            "over the hand-over point",
            IkTarget::pose_free_about(with_translation(&hand, over), Vec3::Z),
            1.2,
        ));
    }
    waypoints.push(Waypoint::new("hand-over", target, 1.5));
    let carried = attached(&p.next.world, h, &[]);
    let carry = match p.run(h.arm, waypoints, Some(carried.clone())) {
        Ok(m) => m,
        Err(e) if p.search() => p
            .detour(
                h.arm,
                &Goal::Pose(target),
                Some(&carried),
                "hand-over",
                None,
            )
            .map(|(m, _)| m)
            .ok_or_else(|| Cause::from_failure(e))?,
        Err(e) => return Err(Cause::from_failure(e)),
    };
    p.moved(h.arm, carry);
    Ok(())
}

/// Release to a person: the hand opens at the hand-over point, the person holds it.
fn hand_over(
    p: &mut Planning<'_>,
    object: ObjectId,
    person: crate::twin::PersonId,
    point: Vec3,
) -> Result<(), Cause> {
    let world = &mut p.next.world;
    world.object_mut(object).placement = Placement::OnTable {
        position: point.truncate(),
        yaw: 0.0,
    };
    world
        .give_to_person(object, person)
        .map_err(|_| Cause::HandsFull)?;
    p.next.holding = None;
    Ok(())
}

/// Retreat: the open hand backs away from what it let go of.
fn step_back(p: &mut Planning<'_>, arm: Side, object: ObjectId) -> Result<(), Cause> {
    let name = p.next.world.object(object).name.clone();
    let m = retreat(p.robot, &p.next, arm, &name).map_err(Cause::from_failure)?;
    p.moved(arm, m);
    Ok(())
}

/// Pour: the source above the target's mouth, tilted past horizontal, and upright
/// again. Its ladder: the straight hand path; a detour to the pre-pour pose.
fn pour(
    p: &mut Planning<'_>,
    h: &Holding,
    target: ObjectId,
    direction_deg: f32,
) -> Result<(), Cause> {
    let world = &p.next.world;
    let hand = arm_hand(p.robot, &p.next, h.arm);
    let centre_now = hand * h.hand_from_centre;
    let upright = crate::twin::kinematics::rotation(&centre_now);
    let u = horizontal(direction_deg);
    let tilt = Quat::from_axis_angle(Vec3::Z.cross(u), POUR_TILT) * upright;
    let half = 0.5 * world.object(h.object).shape().height();
    let mouth = world.object_top(target) + Vec3::Z * POUR_GAP;
    let centre_pour = mouth - (tilt * Vec3::Z) * half;
    let pour_centre = Affine3A::from_rotation_translation(tilt, centre_pour);
    let pre_centre = Affine3A::from_rotation_translation(upright, centre_pour + Vec3::Z * 0.06);
    let inv = h.hand_from_centre.inverse();
    let tname = world.object(target).name.clone();
    let carried = attached(world, h, &[]);
    let tilting = vec![
        Waypoint::new("pour", IkTarget::Pose(pour_centre * inv), 1.2).excluding(&[&tname]),
        Waypoint::new("upright", IkTarget::Pose(pre_centre * inv), 1.0).excluding(&[&tname]),
    ];
    let mut straight = vec![Waypoint::new(
        "pre-pour",
        IkTarget::Pose(pre_centre * inv),
        1.5,
    )];
    straight.extend(tilting.iter().cloned());
    let e = match p.run(h.arm, straight, Some(carried.clone())) {
        Ok(m) => {
            p.moved(h.arm, m);
            apply_pour(&mut p.next.world, h.object, target);
            return Ok(());
        }
        Err(e) => e,
    };
    if !p.search() {
        return Err(Cause::from_failure(e));
    }
    let goal = Goal::Pose(IkTarget::Pose(pre_centre * inv));
    let tail: Tail = Some((&tilting, Some(&carried)));
    match p.detour(h.arm, &goal, Some(&carried), "pre-pour", tail) {
        Some((to_pre, Some(m))) => {
            p.moved(h.arm, to_pre);
            p.moved(h.arm, m);
            apply_pour(&mut p.next.world, h.object, target);
            Ok(())
        }
        _ => Err(Cause::from_failure(e)),
    }
}

/// Point: the hand at `spot`, pointing at `at`. Its ladder: the straight hand path; a
/// joint-space move; a detour.
fn point_at(p: &mut Planning<'_>, arm: Side, spot: Vec3, at: Vec3) -> Result<(), Cause> {
    let dir = (at - spot).normalize_or(Vec3::X);
    let target = IkTarget::approach(spot, dir);
    let m = p
        .run(arm, vec![Waypoint::new("pointing", target, 1.5)], None)
        .or_else(|_| move_to_ik(p.robot, &p.next, &p.obstacles, arm, &target, "pointing"))
        .or_else(|e| {
            if !p.search() {
                return Err(e);
            }
            p.detour(arm, &Goal::Pose(target), None, "pointing", None)
                .map(|(m, _)| m)
                .ok_or(e)
        })
        .map_err(Cause::from_failure)?;
    p.moved(arm, m);
    Ok(())
}

/// Home: each arm not at rest rises clear of what it handled and goes to its resting
/// pose; an arm that stepped aside comes back last, once the other is out of its way.
fn home(p: &mut Planning<'_>) -> Result<(), Cause> {
    let robot = p.robot;
    let mut order = Side::BOTH;
    if robot
        .aside(Side::Left)
        .is_some_and(|a| same_joints(&p.next.joints[index(Side::Left)], &a))
    {
        order.reverse();
    }
    for side in order {
        let here = p.next.joints[index(side)];
        let rest = resting_pose(robot, &p.obstacles, side);
        if same_joints(&here, &robot.home(side)) || same_joints(&here, &rest) {
            continue;
        }
        rise(p, side);
        go_home(p, side, rest)?;
    }
    Ok(())
}

/// Up first, clear of the objects just handled: as high as their tops allow, else a
/// little up; where no rise works the arm goes home from where it is.
fn rise(p: &mut Planning<'_>, side: Side) {
    let hand = p
        .robot
        .arm(side)
        .world_from_hand(&p.next.joints[index(side)]);
    let here = translation(&hand);
    for rise in [(TRANSIT_HEIGHT - here.z).max(0.12), 0.25, 0.18, 0.12] {
        let up = with_translation(&hand, here + Vec3::Z * rise);
        let waypoints = vec![Waypoint::new("up", IkTarget::Pose(up), 0.6)];
        if let Ok(m) = p.run(side, waypoints, None) {
            p.moved(side, m);
            return;
        }
    }
}

/// To the resting pose. Its ladder: a joint-space sweep; a straight hand path; a detour
/// around what stands in the way (often what was just put down).
fn go_home(
    p: &mut Planning<'_>,
    side: Side,
    rest: crate::twin::kinematics::Joints,
) -> Result<(), Cause> {
    let m = match joint_move(p.robot, &p.next, &p.obstacles, side, rest) {
        Ok(m) => m,
        Err(e) => {
            let goal = p.robot.arm(side).world_from_hand(&rest);
            let waypoints = vec![Waypoint::new("home", IkTarget::Pose(goal), 1.5)];
            match p.run(side, waypoints, None) {
                Ok(m) => m,
                Err(_) if p.search() => p
                    .detour(side, &Goal::Joints(rest), None, "home", None)
                    .map(|(m, _)| m)
                    .ok_or_else(|| Cause::from_failure(e))?,
                Err(_) => return Err(Cause::from_failure(e)),
            }
        }
    };
    // Exactly home when the motion ends there, so that "at home" stays a plain comparison.
    let end = if m.samples.len() > 1 && same_joints(&m.final_joints(), &rest) {
        rest
    } else {
        m.final_joints()
    };
    p.motions.push(m);
    p.next.joints[index(side)] = end;
    Ok(())
}
