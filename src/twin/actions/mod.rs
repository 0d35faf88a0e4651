//! Actions of the robot: composite actions (hand over, move to a person, pour,
//! point, gaze) planned as sequences of elementary actions whose variants are
//! simulated on the kinematic twin and ranked; the best runs, and the world is
//! checked afterwards against the expected outcome.
//!
//! Ranking: feasible variants first, then the lowest
//! `cost = 1.0·(1 − min_joint_margin) + 1.0·max(0, 0.05 − min_clearance_m)/0.05 + 0.05·joint_path_rad`
//! over the whole sequence (see [`search::COST_FORMULA`]).

pub mod feedback;
pub mod playback;
pub mod search;
pub mod simulate;
mod stages;
mod stopped;
pub mod variants;
pub mod verify;

#[cfg(test)]
mod tests;

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use serde_json::json;

use crate::twin::kinematics::{Robot, Side};
use crate::twin::world::{Placement, World};
use crate::twin::{Hand, ObjectId, PersonId, Twin};

use feedback::Cause;
pub use search::Plan;
use search::{search_remembering, table_spot, Simulations, BEAM, COST_FORMULA};
use simulate::{apply_pour, Effect, PlanState};
use variants::{get_variants, hand_of, ungraspable_reason, Elementary};

/// What to look or point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An object.
    Object(ObjectId),
    /// A person.
    Person(PersonId),
}

/// A composite action the agent asked for (names already grounded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionRequest {
    /// `hand_object_over_to_person`: get, pass, pose.
    HandOver { object: ObjectId, person: PersonId },
    /// `move_object_to_person`: get, put near the person, pose.
    MoveTo { object: ObjectId, person: PersonId },
    /// `move_object_away_from_person`: get, put out of the person's reach, pose.
    MoveAway { object: ObjectId, person: PersonId },
    /// `pour_into`: get the source, pour into the target, put the source back, pose.
    Pour { source: ObjectId, target: ObjectId },
    /// `point_at_object_or_person`.
    PointAt(Target),
    /// `gaze`.
    Gaze(Target),
}

/// The outcome of an action: the sentence the LLM reads, and facts.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionReport {
    /// Whether the action ran and the world now shows what it promised.
    pub ok: bool,
    /// One sentence: what happened, or why not and what would help.
    pub text: String,
    /// Chosen arm and grasp, cost, variants tried and feasible, planning time.
    pub facts: serde_json::Value,
}

/// How an executor's error says a person stopped it (not a failure of the robot).
const INTERRUPTED: &str = "interrupted: ";

/// An executor's error for a part a person stopped: `what` is one clause.
pub fn interrupted(what: &str) -> String {
    format!("{INTERRUPTED}{what}")
}

/// Whether an executor's error says a person stopped it.
pub fn is_interrupted(error: &str) -> bool {
    error.starts_with(INTERRUPTED)
}

/// The future of an execution: `Ok` when every step ran, else one sentence.
pub type Execution<'a> = Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>>;

/// Carries out a plan (in simulation, or on a robot).
pub trait Executor: Send + Sync {
    /// Why no action can start now (the robot is disconnected, its data stale), as one sentence.
    fn unavailable(&self) -> Option<String> {
        None
    }

    /// Whether it is only getting ready (a link that just came up, its first
    /// data on the way): an action then waits a moment instead of being refused.
    fn settling(&self) -> bool {
        false
    }

    /// Brings the twin up to date with what the robot perceives; called between
    /// actions only, so a plan never sees the world change under it. Returns
    /// whether the world changed.
    fn perceive(&mut self, _twin: &mut Twin) -> bool {
        false
    }

    /// Runs the plan's steps, changing the twin as they really happen (objects,
    /// and the arms' joints). On failure or cancel the error is one sentence and
    /// the twin shows where the robot really is.
    fn run<'a>(
        &'a mut self,
        twin: &'a mut Twin,
        plan: &'a Plan,
        cancel: &'a CancellationToken,
    ) -> Execution<'a>;
}

/// Execution in simulation: applies each step's effect to the world.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimulationExecutor;

impl SimulationExecutor {
    /// Applies the plan at once.
    pub fn apply(twin: &mut Twin, plan: &Plan) -> Result<(), String> {
        for s in &plan.steps {
            apply_effect(&mut twin.world, &s.sim.effect)?;
        }
        twin.joints = plan.end.joints;
        twin.holding = plan.end.holding;
        Ok(())
    }
}

impl Executor for SimulationExecutor {
    fn run<'a>(
        &'a mut self,
        twin: &'a mut Twin,
        plan: &'a Plan,
        _cancel: &'a CancellationToken,
    ) -> Execution<'a> {
        let result = Self::apply(twin, plan);
        Box::pin(std::future::ready(result))
    }
}

/// Applies one step's effect to the world.
pub fn apply_effect(world: &mut World, effect: &Effect) -> Result<(), String> {
    match *effect {
        Effect::None => {}
        Effect::Grasped { object, arm, base } => {
            world.object_mut(object).placement = Placement::InGripper {
                hand: hand_of(arm),
                base,
            };
        }
        Effect::Released { object, spot } => world.place_on_table(object, spot),
        Effect::Given { object, person } => {
            world
                .give_to_person(object, person)
                .map_err(|e| e.to_string())?;
        }
        Effect::Poured { source, target } => apply_pour(world, source, target),
    }
    Ok(())
}

/// Plans, executes (in simulation) and verifies one action.
pub fn execute(twin: &mut Twin, request: ActionRequest) -> ActionReport {
    execute_inner(twin, request, &mut Vec::new())
}

fn failed(text: String, facts: serde_json::Value) -> ActionReport {
    ActionReport {
        ok: false,
        text,
        facts,
    }
}

/// Plans an action on the twin without changing it.
pub fn plan(
    twin: &Twin,
    request: ActionRequest,
) -> Result<(search::SearchOutcome, f64), ActionReport> {
    let robot = twin.robot.as_ref().map_err(|e| {
        failed(
            format!("I have no robot model: {e}."),
            json!({"error": "robot"}),
        )
    })?;
    let held = held_for(twin, &request);
    if let Err(text) = preconditions(&twin.world, robot, &request, held.map(|h| h.object)) {
        return Err(failed(
            text,
            json!({"error": "precondition", "cost_formula": COST_FORMULA}),
        ));
    }
    let steps = from_hand(composite(&twin.world, &request), held);
    let start = PlanState {
        world: twin.world.clone(),
        joints: twin.joints,
        holding: held,
    };
    let t0 = Instant::now();
    // Every search below starts from `start`: they share what they simulated.
    let known = Simulations::default();
    let search =
        |steps: &[Elementary]| search_remembering(robot, start.clone(), steps, BEAM, &known);
    let mut outcome = match preferring(twin.preferred_arm, &steps) {
        Some(preferred_steps) => {
            let preferred = search(&preferred_steps);
            if preferred.gets_home() {
                preferred
            } else {
                let any = search(&steps);
                if any.plan.is_err() && preferred.plan.is_ok() {
                    preferred
                } else {
                    any
                }
            }
        }
        None => search(&steps),
    };
    // A relay (for a pour: the other hand pours) that gets home beats a direct
    // plan that has to stay out.
    if !outcome.gets_home() {
        let other_way = match request {
            ActionRequest::Pour { source, target } if held.is_none() => {
                pour_with_the_other_hand(&search, source, target, &outcome).or_else(|| {
                    pour_into_the_target_brought_over(&search, robot, &start, source, target)
                })
            }
            _ => relay(&search, &request, &outcome),
        };
        if let Some(relayed) = other_way {
            if relayed.gets_home() || outcome.plan.is_err() {
                outcome = relayed;
            }
        }
    }
    if let Some(cleared) = clear_a_way(&search, &twin.world, robot, &steps, &outcome) {
        outcome = cleared;
    }
    Ok((outcome, t0.elapsed().as_secs_f64() * 1e3))
}

/// How many things standing round an object the robot moves aside at most, and how
/// many it tries for each of those moves.
const MOST_CLEARED: usize = 3;
const CLEARING_TRIES: usize = 4;

/// When every way to take the object hits things standing round it, the robot first
/// moves them aside one by one (those nearest to the robot first; each next one from
/// what the ways still hit), then does what was asked. `None` when the search failed
/// otherwise, or moving up to `MOST_CLEARED` things aside does not help.
fn clear_a_way(
    search: &dyn Fn(&[Elementary]) -> search::SearchOutcome,
    world: &World,
    robot: &Robot,
    steps: &[Elementary],
    failed: &search::SearchOutcome,
) -> Option<search::SearchOutcome> {
    let Err((Elementary::Get { object, .. }, causes)) = &failed.plan else {
        return None;
    };
    let object = *object;
    // The first grasp may be either arm's once the way is clear.
    let asked: Vec<Elementary> = steps
        .iter()
        .map(|s| match *s {
            Elementary::Get { object: o, .. } if o == object => Elementary::Get {
                object: o,
                arm: None,
            },
            other => other,
        })
        .collect();
    let mut moved: Vec<ObjectId> = Vec::new();
    let mut causes = causes.clone();
    for _ in 0..MOST_CLEARED {
        let mut still_blocked = None;
        let candidates = blockers(world, robot, object, &causes);
        for blocker in candidates
            .into_iter()
            .filter(|b| !moved.contains(b))
            .take(CLEARING_TRIES)
        {
            let tried: Vec<ObjectId> = moved.iter().copied().chain([blocker]).collect();
            let cleared: Vec<Elementary> = tried
                .iter()
                .flat_map(|&b| aside(b, object))
                .chain(asked.iter().copied())
                .collect();
            let outcome = search(&cleared);
            tracing::debug!(?tried, failed = ?outcome.plan.as_ref().err(), "clearing");
            match &outcome.plan {
                Ok(_) => return Some(outcome),
                Err((Elementary::Get { object: o, .. }, left)) if *o == object => {
                    still_blocked.get_or_insert((blocker, left.clone()));
                }
                Err(_) => {}
            }
        }
        let (blocker, left) = still_blocked?;
        moved.push(blocker);
        causes = left;
    }
    None
}

/// The steps that move `blocker` out of the way of `object`.
fn aside(blocker: ObjectId, object: ObjectId) -> [Elementary; 3] {
    [
        Elementary::Get {
            object: blocker,
            arm: None,
        },
        Elementary::PutAside {
            object: blocker,
            clear_of: object,
        },
        Elementary::Pose,
    ]
}

/// The things on the table (not held) the robot could move out of the way of
/// `object`: those its ways to grasp it hit and those standing within a hand's
/// width of it, nearest to the robot first.
fn blockers(world: &World, robot: &Robot, object: ObjectId, causes: &[Cause]) -> Vec<ObjectId> {
    let hit = |id: ObjectId| {
        causes
            .iter()
            .any(|c| matches!(c, Cause::Collision(name) if *name == world.object(id).name))
    };
    let at = world.object_base(object).truncate();
    let radius = world.object(object).shape().footprint_radius();
    let beside = |id: ObjectId| {
        let o = world.object(id);
        world.object_base(id).truncate().distance(at)
            <= radius + o.shape().footprint_radius() + HAND_WIDTH
    };
    let mut found: Vec<ObjectId> = world
        .object_ids()
        .filter(|&id| {
            id != object
                && matches!(world.object(id).placement, Placement::OnTable { .. })
                && (hit(id) || beside(id))
                && ungraspable_reason(world, robot, id).is_none()
        })
        .collect();
    let robot_at = world.robot.position;
    let distance = |id: ObjectId| world.object_base(id).truncate().distance(robot_at);
    found.sort_by(|&a, &b| distance(a).total_cmp(&distance(b)));
    found
}

/// Room a hand needs between two things to take one of them (m).
const HAND_WIDTH: f32 = 0.10;

/// Whether the robot can take `object` once it has moved things standing round it
/// aside: the arm that then takes it and the things moved, in order. Planned on the twin as a
/// hand-over would be (`None` when the object is reachable directly, or not even so).
pub fn reachable_once_cleared(twin: &Twin, object: ObjectId) -> Option<(Hand, Vec<ObjectId>)> {
    let robot = twin.robot.as_ref().ok()?;
    let start = PlanState {
        world: twin.world.clone(),
        joints: twin.joints,
        holding: None,
    };
    let known = Simulations::default();
    let search =
        |steps: &[Elementary]| search_remembering(robot, start.clone(), steps, BEAM, &known);
    let steps = [Elementary::Get { object, arm: None }, Elementary::Pose];
    let direct = search(&steps);
    let plan = clear_a_way(&search, &twin.world, robot, &steps, &direct)?
        .plan
        .ok()?;
    let moved = cleared(&plan);
    let taking = plan
        .steps
        .iter()
        .rev()
        .find(|s| matches!(s.step, Elementary::Get { object: o, .. } if o == object))?;
    Some((hand_of(taking.variant.arm), moved))
}

/// What the robot still holds from a stopped action, when this request is
/// about that object (the plan then starts with it in the hand).
fn held_for(twin: &Twin, request: &ActionRequest) -> Option<simulate::Holding> {
    let held = twin.holding?;
    let in_hand = matches!(
        twin.world.object(held.object).placement,
        Placement::InGripper { .. }
    );
    let about = match *request {
        ActionRequest::HandOver { object, .. }
        | ActionRequest::MoveTo { object, .. }
        | ActionRequest::MoveAway { object, .. } => object,
        ActionRequest::Pour { source, .. } => source,
        ActionRequest::PointAt(_) | ActionRequest::Gaze(_) => return None,
    };
    (in_hand && about == held.object).then_some(held)
}

/// The steps with the object already in the hand: instead of taking it, the
/// hand lifts it clear of the table (a stop may have left it just above).
fn from_hand(steps: Vec<Elementary>, held: Option<simulate::Holding>) -> Vec<Elementary> {
    let Some(held) = held else {
        return steps;
    };
    steps
        .into_iter()
        .map(|s| match s {
            Elementary::Get { object, .. } if object == held.object => Elementary::Lift { object },
            other => other,
        })
        .collect()
}

/// The steps with their first grasp made by `arm`, when a preference is set
/// and the grasp left the arm open.
fn preferring(arm: Option<Side>, steps: &[Elementary]) -> Option<Vec<Elementary>> {
    let arm = arm?;
    let mut steps = steps.to_vec();
    let first = steps
        .iter_mut()
        .find(|s| matches!(s, Elementary::Get { arm: None, .. }))?;
    if let Elementary::Get { object, .. } = *first {
        *first = Elementary::Get {
            object,
            arm: Some(arm),
        };
    }
    Some(steps)
}

/// The steps of a bimanual relay: `first` takes the object, sets it down between the
/// arms and goes home; the other arm takes it over and finishes with `last`.
pub fn relay_steps(object: ObjectId, first: Side, last: Elementary) -> Vec<Elementary> {
    vec![
        Elementary::Get {
            object,
            arm: Some(first),
        },
        Elementary::Relay {
            object,
            for_the_other_hand: true,
        },
        Elementary::Pose,
        Elementary::Get {
            object,
            arm: Some(first.other()),
        },
        last,
        Elementary::Pose,
    ]
}

/// When an arm takes the object but no arm that takes it brings it to the person (it
/// stands on one side of the table, the person sits on the other), one arm sets it down
/// between the arms and the other takes it over. `None` when that does not help either;
/// the direct attempt's reason then stands.
fn relay(
    search: &dyn Fn(&[Elementary]) -> search::SearchOutcome,
    request: &ActionRequest,
    direct: &search::SearchOutcome,
) -> Option<search::SearchOutcome> {
    let (object, last) = match *request {
        ActionRequest::HandOver { object, person } => (object, Elementary::Pass { object, person }),
        ActionRequest::MoveTo { object, person } => {
            (object, Elementary::PutNear { object, person })
        }
        _ => return None,
    };
    first_plan_by_arm(search, direct, |first| relay_steps(object, first, last))
}

/// The first plan found for the steps `steps_for` gives each arm that could take
/// the object in the direct attempt, counting what the direct attempt tried too.
fn first_plan_by_arm(
    search: &dyn Fn(&[Elementary]) -> search::SearchOutcome,
    direct: &search::SearchOutcome,
    steps_for: impl Fn(Side) -> Vec<Elementary>,
) -> Option<search::SearchOutcome> {
    let (mut tried, mut feasible) = (direct.tried, direct.feasible);
    for &first in &direct.first_step_arms {
        let attempt = search(&steps_for(first));
        tried += attempt.tried;
        feasible += attempt.feasible;
        if attempt.plan.is_ok() {
            return Some(search::SearchOutcome {
                tried,
                feasible,
                ..attempt
            });
        }
    }
    None
}

/// A relay of a pour's source: the hand that takes it sets it down between the
/// arms, the other takes it over, pours, and sets it down there again (the cup
/// may stand where only the other arm pours into it, behind something tall).
fn pour_with_the_other_hand_steps(
    source: ObjectId,
    target: ObjectId,
    first: Side,
) -> Vec<Elementary> {
    let mut steps = relay_steps(source, first, Elementary::Pour { source, target });
    // Before the way home: the source back on the table, where this hand reaches.
    let back = Elementary::Relay {
        object: source,
        for_the_other_hand: false,
    };
    steps.insert(steps.len() - 1, back);
    steps
}

/// The pour by the other hand, for each arm that could take the source; `None`
/// when that does not help either (the direct attempt's reason then stands).
fn pour_with_the_other_hand(
    search: &dyn Fn(&[Elementary]) -> search::SearchOutcome,
    source: ObjectId,
    target: ObjectId,
    direct: &search::SearchOutcome,
) -> Option<search::SearchOutcome> {
    first_plan_by_arm(search, direct, |first| {
        pour_with_the_other_hand_steps(source, target, first)
    })
}

/// A pour into a target brought over: one hand sets the target down between the arms,
/// the source is taken and poured from there and put back, and the first hand returns
/// the target to where it stood (a glass beyond the box, the bottle on the other side).
fn pour_into_the_target_brought_over_steps(
    source: ObjectId,
    target: ObjectId,
    (first, for_the_other_hand): (Side, bool),
    (source_spot, target_spot): (glam::Vec2, glam::Vec2),
) -> Vec<Elementary> {
    let target_by = |arm| Elementary::Get {
        object: target,
        arm: Some(arm),
    };
    let mut steps = vec![
        target_by(first),
        Elementary::Relay {
            object: target,
            for_the_other_hand,
        },
        Elementary::Pose,
    ];
    steps.extend(pour_steps(source, target, source_spot));
    steps.extend([
        target_by(first),
        Elementary::PutAt {
            object: target,
            spot: target_spot,
        },
        Elementary::Pose,
    ]);
    steps
}

/// A pour's steps: take the source, pour, put the source back on `spot`, go home.
fn pour_steps(source: ObjectId, target: ObjectId, spot: glam::Vec2) -> [Elementary; 4] {
    [
        Elementary::Get {
            object: source,
            arm: None,
        },
        Elementary::Pour { source, target },
        Elementary::PutAt {
            object: source,
            spot,
        },
        Elementary::Pose,
    ]
}

/// The pour into a target brought over, with the arm nearer the target first; `None`
/// when that does not help either (the direct attempt's reason then stands).
fn pour_into_the_target_brought_over(
    search: &dyn Fn(&[Elementary]) -> search::SearchOutcome,
    robot: &Robot,
    start: &PlanState,
    source: ObjectId,
    target: ObjectId,
) -> Option<search::SearchOutcome> {
    let spots = (table_spot(start, source)?, table_spot(start, target)?);
    // First where the other hand could take the glass (and so mostly pour into it);
    // then anywhere between the arms, for a pour by either hand.
    let arms = variants::arms_nearest_first(&start.world, robot, target);
    [true, false]
        .into_iter()
        .flat_map(|for_the_other_hand| arms.map(|first| (first, for_the_other_hand)))
        .map(|how| {
            search(&pour_into_the_target_brought_over_steps(
                source, target, how, spots,
            ))
        })
        .find(|attempt| attempt.plan.is_ok())
}

/// Runs CPU-heavy planning without stalling the async tasks waiting on this worker
/// (the robot's joint states, the page's events): `block_in_place` on a multi-thread
/// runtime, directly anywhere else.
pub fn off_the_runtime<T>(work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

/// How long an action waits for an executor that is getting ready.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(2);

/// Plans, executes with `executor` (waiting for it) and verifies one action.
/// Perception is applied before planning, never during planning or execution.
pub async fn execute_on(
    twin: &mut Twin,
    request: ActionRequest,
    executor: &mut dyn Executor,
    cancel: &CancellationToken,
) -> ActionReport {
    let settle_until = std::time::Instant::now() + SETTLE;
    while executor.settling() && std::time::Instant::now() < settle_until {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    if let Some(reason) = executor.unavailable() {
        return failed(reason, json!({"error": "robot"}));
    }
    executor.perceive(twin);
    let (request, mut prepared) = match off_the_runtime(|| prepare_or_put_down(twin, request)) {
        Ok(p) => p,
        Err(report) => return report,
    };
    if let Err(e) = executor.run(twin, &prepared.plan, cancel).await {
        prepared.facts["executed"] = false.into();
        let Some(part) = e.strip_prefix(INTERRUPTED) else {
            return failed(format!("Execution failed: {e}"), prepared.facts);
        };
        prepared.facts["interrupted"] = true.into();
        let done = verify::check(&twin.world, &request, prepared.liquid.as_deref()).is_ok();
        let text = if done {
            let report = conclude(twin, request, prepared);
            return ActionReport {
                text: format!("{} Then I was interrupted: {part}.", report.text),
                ..report
            };
        } else {
            format!(
                "Interrupted: {} ({part}).",
                stopped::where_stopped(twin, &prepared.plan, &request)
            )
        };
        return failed(text, prepared.facts);
    }
    conclude(twin, request, prepared)
}

/// As [`execute`], and appends the executed plan's motions to `motions` (for checks
/// of every trajectory sample, e.g. by the planner benchmark).
pub fn execute_recording(
    twin: &mut Twin,
    request: ActionRequest,
    motions: &mut Vec<crate::twin::kinematics::Motion>,
) -> ActionReport {
    execute_inner(twin, request, motions)
}

fn execute_inner(
    twin: &mut Twin,
    request: ActionRequest,
    motions: &mut Vec<crate::twin::kinematics::Motion>,
) -> ActionReport {
    let (request, prepared) = match prepare_or_put_down(twin, request) {
        Ok(p) => p,
        Err(report) => return report,
    };
    motions.extend(
        prepared
            .plan
            .steps
            .iter()
            .flat_map(|s| s.sim.motions.iter().cloned()),
    );
    if let Err(e) = SimulationExecutor::apply(twin, &prepared.plan) {
        return failed(format!("Execution failed: {e}"), prepared.facts);
    }
    conclude(twin, request, prepared)
}

/// A feasible plan and what is known of it before execution.
struct Prepared {
    plan: Plan,
    facts: serde_json::Value,
    liquid: Option<String>,
}

/// As [`prepare`]; a hand-over that no point allows (the person cannot take it
/// anywhere the arm reaches) becomes putting the thing down within their reach,
/// the request then being that move.
fn prepare_or_put_down(
    twin: &Twin,
    request: ActionRequest,
) -> Result<(ActionRequest, Prepared), ActionReport> {
    let failure = match prepare(twin, request) {
        Ok(prepared) => return Ok((request, prepared)),
        Err(failure) => failure,
    };
    let ActionRequest::HandOver { object, person } = request else {
        return Err(failure.report);
    };
    if !failure.no_handover_point {
        return Err(failure.report);
    }
    let instead = ActionRequest::MoveTo { object, person };
    match prepare(twin, instead) {
        Ok(mut prepared) => {
            prepared.facts["put_down_instead_of_handing_over"] = true.into();
            Ok((instead, prepared))
        }
        Err(_) => Err(failure.report),
    }
}

/// Why [`prepare`] found no plan: the report, and whether only a hand-over
/// point was lacking.
struct Unprepared {
    report: ActionReport,
    no_handover_point: bool,
}

fn prepare(twin: &Twin, request: ActionRequest) -> Result<Prepared, Unprepared> {
    let unprepared = |report| Unprepared {
        report,
        no_handover_point: false,
    };
    let (outcome, ms) = plan(twin, request).map_err(unprepared)?;
    let mut facts = json!({
        "cost_formula": COST_FORMULA,
        "variants_tried": outcome.tried,
        "variants_feasible": outcome.feasible,
        "planning_ms": (ms * 10.0).round() / 10.0,
    });
    let plan = match outcome.plan {
        Ok(p) => p,
        Err((step, causes)) => {
            facts["failed_step"] = step.name().into();
            facts["reasons"] = json!(feedback::count(&outcome.causes));
            return Err(Unprepared {
                report: failed(feedback::step_failure(&twin.world, &step, &causes), facts),
                no_handover_point: feedback::no_handover_point(&twin.world, &step, &causes),
            });
        }
    };
    let liquid = match request {
        ActionRequest::Pour { source, .. } => twin.world.object(source).contains.clone(),
        _ => None,
    };
    describe_plan(&plan, &mut facts);
    let moved = cleared(&plan);
    if !moved.is_empty() {
        let names: Vec<&str> = moved
            .iter()
            .map(|&o| twin.world.object(o).name.as_str())
            .collect();
        facts["cleared"] = json!(names);
    }
    if let Some(causes) = &plan.stays {
        facts["stays"] = true.into();
        facts["home_reasons"] = json!(feedback::count(causes));
    }
    Ok(Prepared {
        plan,
        facts,
        liquid,
    })
}

/// Checks the world against what the action promised, after execution.
fn conclude(twin: &Twin, request: ActionRequest, prepared: Prepared) -> ActionReport {
    let Prepared {
        plan,
        mut facts,
        liquid,
    } = prepared;
    if let Err(mismatch) = verify::check(&twin.world, &request, liquid.as_deref()) {
        facts["mismatch"] = true.into();
        return failed(mismatch, facts);
    }
    let mut text = success_text(&twin.world, &request, &plan, liquid.as_deref());
    if let (true, ActionRequest::MoveTo { person, .. }) =
        (facts["put_down_instead_of_handing_over"] == true, request)
    {
        let p = &twin.world.person(person).name;
        text.push_str(&format!(
            " {p} could not take it from your hand anywhere your arm reaches."
        ));
    }
    if let Some(causes) = &plan.stays {
        text.push(' ');
        text.push_str(&feedback::stays_text(causes));
    }
    ActionReport {
        ok: true,
        text,
        facts,
    }
}

fn describe_plan(plan: &Plan, facts: &mut serde_json::Value) {
    let first = &plan.steps[0];
    if let Some(arm) = delivering_arm(plan) {
        facts["arm"] = arm.name().into();
    }
    if let Some((from, to)) = relayed(plan) {
        facts["relay"] = json!({"from": from.name(), "to": to.name()});
    }
    if let Some(side) = stepped_aside(plan) {
        facts["aside"] = side.name().into();
    }
    if let Some(g) = first.variant.grasp {
        facts["grasp"] = g.as_str().into();
    }
    facts["cost"] = ((plan.cost * 1000.0).round() / 1000.0).into();
    facts["steps"] = plan
        .steps
        .iter()
        .map(|s| {
            let mut v = json!({
                "action": s.step.name(),
                "cost": (search::cost(&s.sim.metrics) * 1000.0).round() / 1000.0,
                "motions": s.sim.motions.len(),
            });
            if !matches!(s.step, Elementary::Gaze(_) | Elementary::Pose) {
                v["variant"] = s.variant.facts();
            }
            if let Some((pan, tilt)) = s.sim.head {
                v["pan_deg"] = (pan.to_degrees().round() as i64).into();
                v["tilt_deg"] = (tilt.to_degrees().round() as i64).into();
            }
            v
        })
        .collect();
}

/// The arm of the last step that moves an arm (the one that hands over, puts or points).
fn delivering_arm(plan: &Plan) -> Option<Side> {
    plan.steps
        .iter()
        .rev()
        .find(|s| !matches!(s.step, Elementary::Gaze(_) | Elementary::Pose))
        .map(|s| s.variant.arm)
}

/// The idle arm that stepped aside for the other (it moves within a step of the other).
fn stepped_aside(plan: &Plan) -> Option<Side> {
    plan.steps
        .iter()
        .filter(|s| !matches!(s.step, Elementary::Gaze(_) | Elementary::Pose))
        .find_map(|s| {
            s.sim
                .motions
                .iter()
                .find(|m| m.side != s.variant.arm)
                .map(|m| m.side)
        })
}

/// What the plan moved aside first, in order, to take the object it was about.
fn cleared(plan: &Plan) -> Vec<ObjectId> {
    plan.steps
        .iter()
        .filter_map(|s| match s.step {
            Elementary::PutAside { object, .. } => Some(object),
            _ => None,
        })
        .collect()
}

/// Names joined for a sentence: "a", "a and b", "a, b and c".
pub fn and_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The plan's first relay step (an object set down between the arms).
fn first_relay(plan: &Plan) -> Option<&search::PlannedStep> {
    plan.steps
        .iter()
        .find(|s| matches!(s.step, Elementary::Relay { .. }))
}

/// What the plan's first relay sets down between the arms.
fn relayed_object(plan: &Plan) -> Option<ObjectId> {
    match first_relay(plan)?.step {
        Elementary::Relay { object, .. } => Some(object),
        _ => None,
    }
}

/// The arm of the plan's pour.
fn pouring_arm(plan: &Plan) -> Option<Side> {
    plan.steps
        .iter()
        .find(|s| matches!(s.step, Elementary::Pour { .. }))
        .map(|s| s.variant.arm)
}

/// The arm that set the object down and the arm that took it over, in a relay.
fn relayed(plan: &Plan) -> Option<(Side, Side)> {
    let from = first_relay(plan)?.variant.arm;
    Some((from, from.other()))
}

fn target_name(world: &World, t: Target) -> &str {
    match t {
        Target::Object(o) => &world.object(o).name,
        Target::Person(p) => &world.person(p).name,
    }
}

fn success_text(
    world: &World,
    request: &ActionRequest,
    plan: &Plan,
    liquid: Option<&str>,
) -> String {
    let arm = delivering_arm(plan).map_or("left", Side::name);
    // What stood in the way was moved aside first.
    let moved = cleared(plan);
    let cleared = if moved.is_empty() {
        String::new()
    } else {
        let names = moved.iter().map(|&o| world.object(o).name.as_str());
        format!(" after moving {} aside", and_list(names))
    };
    // A relay says how the object crossed from one hand to the other.
    let relay = relayed(plan).map_or(String::new(), |(from, _)| {
        format!(
            ", after your {} hand took it and set it down in the middle for your {}",
            from.name(),
            from.other().name()
        )
    });
    match *request {
        ActionRequest::HandOver { object, person } => format!(
            "You handed {} to {} with your {arm} hand{relay}{cleared}.",
            world.object(object).name,
            world.person(person).name
        ),
        ActionRequest::MoveTo { object, person } => format!(
            "You put {} on the table within {}'s reach with your {arm} hand{relay}{cleared}.",
            world.object(object).name,
            world.person(person).name
        ),
        ActionRequest::MoveAway { object, person } => format!(
            "You put {} on the table out of {}'s reach with your {arm} hand{cleared}.",
            world.object(object).name,
            world.person(person).name
        ),
        ActionRequest::Pour { source, target } => match relayed(plan) {
            Some((from, _)) if relayed_object(plan) == Some(target) => format!(
                "You set {} down between your arms with your {} hand, poured {} into it from {} with your {} hand, and put {} back and {} back where it stood.",
                world.object(target).name,
                from.name(),
                liquid.unwrap_or("it"),
                world.object(source).name,
                pouring_arm(plan).unwrap_or(from.other()).name(),
                world.object(source).name,
                world.object(target).name
            ),
            Some((from, to)) => format!(
                "You passed {} from your {} hand to your {} hand, poured {} into {} and set {} down between your arms.",
                world.object(source).name,
                from.name(),
                to.name(),
                liquid.unwrap_or("it"),
                world.object(target).name,
                world.object(source).name
            ),
            None => format!(
                "You poured {} from {} into {} with your {arm} hand and put {} back{cleared}.",
                liquid.unwrap_or("it"),
                world.object(source).name,
                world.object(target).name,
                world.object(source).name
            ),
        },
        ActionRequest::PointAt(t) => format!(
            "You pointed at {} with your {arm} hand.",
            target_name(world, t)
        ),
        ActionRequest::Gaze(t) => format!("You looked at {}.", target_name(world, t)),
    }
}

/// The elementary steps of a composite action.
pub fn composite(world: &World, request: &ActionRequest) -> Vec<Elementary> {
    match *request {
        ActionRequest::HandOver { object, person } => {
            vec![
                Elementary::Get { object, arm: None },
                Elementary::Pass { object, person },
                Elementary::Pose,
            ]
        }
        ActionRequest::MoveTo { object, person } => {
            vec![
                Elementary::Get { object, arm: None },
                Elementary::PutNear { object, person },
                Elementary::Pose,
            ]
        }
        ActionRequest::MoveAway { object, person } => {
            vec![
                Elementary::Get { object, arm: None },
                Elementary::PutAway { object, person },
                Elementary::Pose,
            ]
        }
        ActionRequest::Pour { source, target } => {
            let state = PlanState {
                world: world.clone(),
                joints: [crate::twin::kinematics::Joints::default(); 2],
                holding: None,
            };
            let spot = table_spot(&state, source).unwrap_or_default();
            pour_steps(source, target, spot).to_vec()
        }
        ActionRequest::PointAt(t) => vec![Elementary::Point(t), Elementary::Pose],
        ActionRequest::Gaze(t) => vec![Elementary::Gaze(t)],
    }
}

/// Why the action cannot even be tried, as one sentence; checked before planning.
pub fn preconditions(
    world: &World,
    robot: &Robot,
    request: &ActionRequest,
    in_hand: Option<ObjectId>,
) -> Result<(), String> {
    let name = |o: ObjectId| world.object(o).name.clone();
    let takeable = |o: ObjectId| -> Result<(), String> {
        if in_hand == Some(o) {
            return Ok(());
        }
        if let Some(reason) = ungraspable_reason(world, robot, o) {
            return Err(reason);
        }
        match world.object(o).placement {
            Placement::HeldBy { person, .. } => {
                let p = &world.person(person).name;
                Err(format!(
                    "{} is held by {p}; ask {p} to put it down.",
                    name(o)
                ))
            }
            Placement::InGripper { .. } => Err(format!("{} is already in my hand.", name(o))),
            Placement::OnTable { .. } => Ok(()),
        }
    };
    match *request {
        ActionRequest::HandOver { object, person } => {
            let p = &world.person(person).name;
            if world.holder(object) == Some(person) {
                return Err(format!("{p} already holds {}.", name(object)));
            }
            takeable(object)?;
            if world.free_hand(person).is_none() {
                return Err(format!(
                    "{p} has both hands full; ask {p} to put something down."
                ));
            }
            Ok(())
        }
        ActionRequest::MoveTo { object, .. } | ActionRequest::MoveAway { object, .. } => {
            takeable(object)
        }
        ActionRequest::Pour { source, target } => {
            let (s, t) = (world.object(source), world.object(target));
            if source == target {
                return Err(format!("{} cannot be poured into itself.", s.name));
            }
            if !t.kind.container {
                return Err(format!("{} is not a container.", t.name));
            }
            if !s.kind.pourable {
                return Err(format!("{} cannot be poured from.", s.name));
            }
            let Some(liquid) = &s.contains else {
                return Err(format!("{} is empty.", s.name));
            };
            // The same drink again tops the glass up ("a bit more"), milk may go
            // into coffee (`scenes/liquids.toml`); another drink would mix.
            let additions = crate::twin::liquids::Additions::shipped();
            let added = |held: &String| {
                t.holds(liquid)
                    || additions.may_add(liquid, held)
                    || additions.may_add(held, liquid)
            };
            if let Some(held) = t.contains.as_ref().filter(|held| !added(held)) {
                return Err(format!(
                    "{} already holds {held}; use an empty glass.",
                    t.name
                ));
            }
            takeable(source)
        }
        ActionRequest::PointAt(_) | ActionRequest::Gaze(_) => Ok(()),
    }
}

/// Which arm can take `object` now, from inverse kinematics: every `get` variant of
/// an arm is simulated from the current joints, the arm whose base is nearer first,
/// with straight paths for both arms before any costlier effort (detours); the first
/// arm that reaches ends the check (its reason is empty), otherwise each arm says why not.
pub fn arms_reaching(twin: &Twin, object: ObjectId) -> Vec<(Hand, bool, String)> {
    let world = &twin.world;
    let robot = match &twin.robot {
        Ok(r) => r,
        Err(e) => {
            return [Hand::Left, Hand::Right]
                .into_iter()
                .map(|h| (h, false, format!("no robot model: {e}")))
                .collect()
        }
    };
    let arms = variants::arms_nearest_first(world, robot, object);
    let ungraspable = ungraspable_reason(world, robot, object);
    // A thing too large for the hands and beyond both arms' workspace is
    // first of all out of reach: that is what a person asking needs to hear.
    if ungraspable.is_some()
        && crate::twin::robot_reach::arms(world, object)
            .iter()
            .all(|a| !a.reachable)
    {
        return arms
            .iter()
            .map(|&side| {
                (
                    hand_of(side),
                    false,
                    reach_reason(world, object, hand_of(side), &[]),
                )
            })
            .collect();
    }
    let blocked = ungraspable.or_else(|| match world.object(object).placement {
        Placement::HeldBy { person, .. } => Some(format!("held by {}", world.person(person).name)),
        _ => None,
    });
    if let Some(reason) = blocked {
        return vec![
            (hand_of(arms[0]), false, reason.clone()),
            (hand_of(arms[1]), false, reason),
        ];
    }
    let state = PlanState {
        world: world.clone(),
        joints: twin.joints,
        holding: None,
    };
    let step = Elementary::Get { object, arm: None };
    let variants = arms.map(|side| get_variants(world, robot, object, &[side]));
    let reason = |k: usize, causes: &[Cause]| reach_reason(world, object, hand_of(arms[k]), causes);
    // Straight paths, arm by arm: the reasons of the arms before one that reaches.
    let mut checked: Vec<(Hand, bool, String)> = Vec::new();
    let mut straight_causes = Vec::new();
    for (k, vs) in variants.iter().enumerate() {
        match search::first_straight(robot, &state, &step, vs) {
            Ok(_) => {
                checked.push((hand_of(arms[k]), true, String::new()));
                return checked;
            }
            Err(causes) => {
                checked.push((hand_of(arms[k]), false, reason(k, &causes)));
                straight_causes.push(causes);
            }
        }
    }
    // Then more effort, arm by arm: each arm's truest reason if none reaches.
    checked.clear();
    for (k, (vs, causes)) in variants.iter().zip(straight_causes).enumerate() {
        match search::first_with_effort(robot, &state, &step, vs, causes) {
            Ok(_) => {
                checked.push((hand_of(arms[k]), true, String::new()));
                return checked;
            }
            Err(causes) => checked.push((hand_of(arms[k]), false, reason(k, &causes))),
        }
    }
    checked
}

/// Whether some grasp pose of `object` (any arm, grasp and approach direction) has an
/// inverse-kinematics solution: geometry only, no collision checks (the evaluation
/// grid uses this, so that the grid can show the planner failing).
pub fn grasp_reachable_by_ik(twin: &Twin, object: ObjectId) -> bool {
    let Ok(robot) = &twin.robot else {
        return false;
    };
    let world = &twin.world;
    get_variants(world, robot, object, &Side::BOTH)
        .iter()
        .any(|v| {
            let arm = robot.arm(v.arm);
            let target = simulate::grasp_target(world, object, v);
            arm.solve_ik(
                &target,
                &arm.home,
                &crate::twin::kinematics::IkOptions::default(),
            )
            .is_ok()
        })
}

/// Why one arm cannot take an object, from its get variants' causes: out of reach, or
/// blocked by the things every way would hit.
fn reach_reason(world: &World, object: ObjectId, hand: Hand, causes: &[Cause]) -> String {
    let name = &world.object(object).name;
    let mut blockers: Vec<&str> = Vec::new();
    for c in causes {
        if let Cause::Collision(o) = c {
            if o != name && o != simulate::TABLE && !blockers.contains(&o.as_str()) {
                blockers.push(o);
            }
        }
    }
    if blockers.is_empty() {
        return match causes.first() {
            Some(Cause::OutOfReach(_)) | Some(Cause::Collision(_)) | None => {
                format!("out of reach of the {} arm", hand.as_str())
            }
            Some(other) => other.clause(),
        };
    }
    format!("blocked by {} on every side", and_list(blockers))
}
