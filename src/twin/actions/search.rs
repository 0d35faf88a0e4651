//! Composite actions searched as a whole: a bounded beam over the steps'
//! variants. After each step the best `BEAM` partial plans survive, so that
//! the choice made for `get` keeps the later steps feasible.

use std::collections::HashMap;
use std::sync::Mutex;

use rayon::prelude::*;

use crate::twin::kinematics::{Robot, Side};
use crate::twin::world::Placement;

use super::feedback::Cause;
use super::simulate::{simulate_aside, simulate_with, Detours, Metrics, PlanState, Simulated};
use super::variants::{
    arms_nearest_first, get_variants, handover_points, pass_variants, point_variants,
    pour_variants, put_spots_aside, put_spots_away, put_spots_near, put_variants, relay_spots,
    target_point, Elementary, Variant,
};

/// Partial plans kept after each step.
pub const BEAM: usize = 3;
/// Weight of the joint-limit term.
pub const COST_A: f32 = 1.0;
/// Weight of the clearance term.
pub const COST_B: f32 = 1.0;
/// Clearance (m) below which the clearance term grows.
pub const COST_C: f32 = 0.05;
/// Weight per radian of joint path.
pub const COST_D: f32 = 0.05;
/// The ranking criterion, as stated in the facts.
pub const COST_FORMULA: &str =
    "cost = 1.0*(1 - min_joint_margin) + 1.0*max(0, 0.05 - min_clearance_m)/0.05 + 0.05*joint_path_rad";

/// Cost of a (partial) plan from its aggregated margins; lower is better.
pub fn cost(m: &Metrics) -> f32 {
    let clearance = if m.clearance.is_finite() {
        (COST_C - m.clearance).max(0.0) / COST_C
    } else {
        0.0
    };
    COST_A * (1.0 - m.joint_margin.clamp(0.0, 1.0)) + COST_B * clearance + COST_D * m.path
}

/// One chosen step of a plan.
#[derive(Debug, Clone)]
pub struct PlannedStep {
    /// What it does.
    pub step: Elementary,
    /// How.
    pub variant: Variant,
    /// Its simulation.
    pub sim: Simulated,
}

/// A complete feasible plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The steps in order.
    pub steps: Vec<PlannedStep>,
    /// Aggregated margins over all steps.
    pub metrics: Metrics,
    /// Its cost.
    pub cost: f32,
    /// The planning state after the last step.
    pub end: PlanState,
    /// Why the arms could not get back home after a task that was done: the plan then
    /// ends where the task ended, and the robot says it stays there.
    pub stays: Option<Vec<Cause>>,
}

/// What a search found and how much it tried.
#[derive(Debug, Clone)]
pub struct SearchOutcome {
    /// The best plan, or the step that had no feasible variant and its causes.
    pub plan: Result<Plan, (Elementary, Vec<Cause>)>,
    /// Variants simulated.
    pub tried: usize,
    /// Variants found feasible.
    pub feasible: usize,
    /// Every infeasible variant's cause.
    pub causes: Vec<Cause>,
    /// The arms with a feasible variant of the first step, cheapest first.
    pub first_step_arms: Vec<Side>,
    /// Whether a step before the last stopped short of simulating all its variants.
    pub cut_short: bool,
}

impl SearchOutcome {
    /// Whether it found a plan that gets the arms back home.
    pub fn gets_home(&self) -> bool {
        self.plan.as_ref().is_ok_and(|p| p.stays.is_none())
    }
}

#[derive(Clone)]
struct Node {
    state: PlanState,
    steps: Vec<PlannedStep>,
    metrics: Metrics,
    /// What led here from the start: the key of the simulation that made this node.
    key: u64,
}

/// The simulations one planning request has run, by what they started from and what they
/// tried. The wider search, the other arm's and the relay's searches start from the same
/// table and meet the same partial plans again; a simulation is deterministic (its
/// detours are seeded by the request), so its answer is the same the second time.
#[derive(Default)]
pub struct Simulations(Mutex<HashMap<u64, Result<Simulated, Cause>>>);

impl Simulations {
    /// The answer for `key`: remembered, or run now and remembered.
    fn answer(
        &self,
        key: u64,
        run: impl FnOnce() -> Result<Simulated, Cause>,
    ) -> Result<Simulated, Cause> {
        let known = self.0.lock().ok().and_then(|m| m.get(&key).cloned());
        if let Some(answer) = known {
            return answer;
        }
        let answer = run();
        if let Ok(mut m) = self.0.lock() {
            m.insert(key, answer.clone());
        }
        answer
    }
}

#[cfg(test)]
impl Simulations {
    /// How many answers are remembered.
    pub(super) fn remembered(&self) -> usize {
        self.0.lock().map_or(0, |m| m.len())
    }
}

/// The key of simulating `v` of `step` at effort `effort` from the node with key `from`.
fn simulation_key(from: u64, step: &Elementary, v: &Variant, effort: u8) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    // Debug text names every field, floats to the last bit that differs.
    (from, format!("{step:?}{v:?}"), effort).hash(&mut h);
    h.finish()
}

impl Node {
    /// The partial plan as a plan; `stays` says why it does not get home, if it does not.
    fn into_plan(self, stays: Option<Vec<Cause>>) -> Plan {
        Plan {
            cost: cost(&self.metrics),
            metrics: self.metrics,
            steps: self.steps,
            end: self.state,
            stays,
        }
    }
}

/// The variants of a step from a state; an empty list comes with its cause.
pub fn variants_for(
    robot: &Robot,
    state: &PlanState,
    step: &Elementary,
) -> Result<Vec<Variant>, Cause> {
    let w = &state.world;
    let held_arm = || state.holding.map(|h| h.arm).ok_or(Cause::NotHolding);
    let list = match *step {
        Elementary::Get { object, arm } => match arm {
            Some(arm) => get_variants(w, robot, object, &[arm]),
            None => get_variants(w, robot, object, &arms_nearest_first(w, robot, object)),
        },
        Elementary::Relay { object, .. } => {
            put_variants(held_arm()?, &relay_spots(w, object), w.table.height)
        }
        Elementary::PutAt { spot, .. } => put_variants(held_arm()?, &[spot], w.table.height),
        Elementary::PutNear { object, person } => put_variants(
            held_arm()?,
            &put_spots_near(w, object, person),
            w.table.height,
        ),
        Elementary::PutAway { object, person } => put_variants(
            held_arm()?,
            &put_spots_away(w, object, person),
            w.table.height,
        ),
        Elementary::PutAside { object, clear_of } => put_variants(
            held_arm()?,
            &put_spots_aside(w, object, clear_of),
            w.table.height,
        ),
        Elementary::Pass { person, .. } => {
            if w.free_hand(person).is_none() {
                return Err(Cause::HandsFull);
            }
            pass_variants(held_arm()?, &handover_points(w, person))
        }
        Elementary::Pour { .. } => pour_variants(held_arm()?),
        Elementary::Lift { .. } => vec![Variant {
            arm: held_arm()?,
            grasp: None,
            direction_deg: None,
            point: None,
        }],
        Elementary::Point(t) => point_variants(robot, target_point(w, t), w.table.height),
        Elementary::Gaze(_) | Elementary::Pose => {
            vec![Variant {
                arm: Side::Left,
                grasp: None,
                direction_deg: None,
                point: None,
            }]
        }
    };
    if list.is_empty() {
        return Err(match step {
            Elementary::Pass { .. } => Cause::NoHandoverPoint,
            _ => Cause::NoSpot,
        });
    }
    Ok(list)
}

/// How many feasible variants a step looks for before it stops simulating more.
#[derive(Debug, Clone, Copy)]
struct Breadth {
    /// Per partial plan and arm, with straight paths (or turned hands).
    straight: usize,
    /// Per step, with joint-space detours (costly).
    detours: usize,
}

/// Searches the steps as a whole from `start`, simulating the variants of each
/// surviving partial plan (in parallel) and keeping the best `beam` after each step.
/// First each step stops at the first few variants that work (`ENOUGH`, and one detour);
/// when a later step then has no way on, the search runs again simulating them all
/// (keeping up to `beam` detours).
pub fn search(robot: &Robot, start: PlanState, steps: &[Elementary], beam: usize) -> SearchOutcome {
    search_remembering(robot, start, steps, beam, &Simulations::default())
}

/// [`search`], answering the simulations `known` has run before (from the same `start`)
/// without running them again.
pub fn search_remembering(
    robot: &Robot,
    start: PlanState,
    steps: &[Elementary],
    beam: usize,
    known: &Simulations,
) -> SearchOutcome {
    let quick = Breadth {
        straight: ENOUGH,
        detours: 1,
    };
    let first = search_with(robot, start.clone(), steps, beam, quick, known);
    if first.gets_home() || !first.cut_short {
        return first;
    }
    let all = Breadth {
        straight: usize::MAX,
        detours: beam.max(1),
    };
    let mut wide = search_with(robot, start, steps, beam, all, known);
    // A plan that gets back home wins; one that stays out wins over none.
    if !wide.gets_home() && first.plan.is_ok() {
        return first;
    }
    wide.tried += first.tried;
    wide.feasible += first.feasible;
    wide
}

/// [`search`] at one breadth.
fn search_with(
    robot: &Robot,
    start: PlanState,
    steps: &[Elementary],
    beam: usize,
    breadth: Breadth,
    known: &Simulations,
) -> SearchOutcome {
    let mut cut_short = false;
    let mut beam_nodes = vec![Node {
        state: start,
        steps: Vec::new(),
        metrics: Metrics::NONE,
        key: 0,
    }];
    let mut tried = 0;
    let mut feasible = 0;
    let mut causes = Vec::new();
    let mut first_step_arms: Vec<Side> = Vec::new();
    for (k, step) in steps.iter().enumerate() {
        let mut jobs: Vec<(usize, Variant)> = Vec::new();
        let mut step_causes = Vec::new();
        for (i, n) in beam_nodes.iter().enumerate() {
            match variants_for(robot, &n.state, step) {
                Ok(vs) => jobs.extend(vs.into_iter().map(|v| (i, v))),
                Err(c) => step_causes.push(c),
            }
        }
        // Straight paths first, then turned hands, then the idle arm aside, and only when
        // none works, joint-space detours (in place, then with the idle arm aside),
        // variant by variant in order, until the beam is full.
        let t0 = std::time::Instant::now();
        let mut effort = "straight";
        let later = k + 1 < steps.len();
        let in_order =
            |detours| simulate_in_order(robot, &beam_nodes, step, &jobs, detours, breadth, known);
        let (mut results, mut stopped) = in_order(Detours::Off);
        if results.iter().all(|(_, _, r, _)| r.is_err()) && turns_may_help(step) {
            effort = "turned";
            (results, stopped) = in_order(Detours::Turns);
        }
        cut_short |= stopped && later;
        if needs_motion(step) {
            for (level_index, level) in EFFORTS.iter().enumerate() {
                if results.iter().any(|(_, _, r, _)| r.is_ok()) {
                    break;
                }
                effort = level.name;
                let enough = if level.detours == Detours::On {
                    breadth.detours.max(1)
                } else {
                    beam.max(1)
                };
                let mut found = 0;
                for (i, v, r, key) in results.iter_mut() {
                    if found >= enough {
                        cut_short |= later;
                        break;
                    }
                    let Err(cause) = r else { continue };
                    if !detour_may_help(cause) {
                        continue;
                    }
                    // Apart from the straight efforts' keys (the `Detours` levels), each has its own.
                    let effort_key = 10 + level_index as u8;
                    let retry_key = simulation_key(beam_nodes[*i].key, step, v, effort_key);
                    let retry = known.answer(retry_key, || {
                        level.retry(robot, &beam_nodes[*i].state, step, v, cause)
                    });
                    // With the idle arm aside, what still stops it is the truer cause.
                    if retry.is_ok() || level.aside {
                        found += usize::from(retry.is_ok());
                        *r = retry;
                        *key = retry_key;
                    }
                }
            }
        }
        tracing::debug!(
            step = step.name(),
            effort,
            variants = results.len(),
            feasible = results.iter().filter(|(_, _, r, _)| r.is_ok()).count(),
            ms = t0.elapsed().as_secs_f64() * 1e3,
            "step searched"
        );
        tried += results.len();
        let mut children = Vec::new();
        for (i, v, r, key) in results {
            match r {
                Ok(sim) => {
                    feasible += 1;
                    let parent = &beam_nodes[i];
                    let mut steps = parent.steps.clone();
                    let metrics = parent.metrics.and(sim.metrics);
                    let state = sim.state.clone();
                    steps.push(PlannedStep {
                        step: *step,
                        variant: v,
                        sim,
                    });
                    children.push(Node {
                        state,
                        steps,
                        metrics,
                        key,
                    });
                }
                Err(c) => step_causes.push(c),
            }
        }
        causes.extend(step_causes.iter().cloned());
        children.sort_by(|a, b| cost(&a.metrics).total_cmp(&cost(&b.metrics)));
        if k == 0 {
            for n in &children {
                if let Some(s) = n.steps.last() {
                    if !first_step_arms.contains(&s.variant.arm) {
                        first_step_arms.push(s.variant.arm);
                    }
                }
            }
        }
        if children.is_empty() {
            // The task is done when only the way home fails: it is not refused for that.
            if k + 1 == steps.len() && k > 0 && matches!(step, Elementary::Pose) {
                return SearchOutcome {
                    plan: Ok(beam_nodes.swap_remove(0).into_plan(Some(step_causes))),
                    tried,
                    feasible,
                    causes,
                    first_step_arms,
                    cut_short,
                };
            }
            return SearchOutcome {
                plan: Err((*step, step_causes)),
                tried,
                feasible,
                causes,
                first_step_arms,
                cut_short,
            };
        }
        beam_nodes = keep_both_arms(children, beam.max(1));
    }
    SearchOutcome {
        plan: Ok(beam_nodes.swap_remove(0).into_plan(None)),
        tried,
        feasible,
        causes,
        first_step_arms,
        cut_short,
    }
}

/// Feasible variants kept per partial plan and arm: the variants come in order of
/// preference (the straight approach, the spot nearest the person, the most comfortable
/// hand-over point), so the search stops at the first few that work.
pub const ENOUGH: usize = 2;

type Job = (usize, Variant);
/// A job's node, its variant, the answer, and the key of the simulation that gave it.
type Outcome = (usize, Variant, Result<Simulated, Cause>, u64);

/// Simulates the jobs at one level of effort, in order within each partial plan and arm
/// (those in parallel), until `breadth.straight` of each are feasible; the rest are not
/// simulated. Also says whether any were left.
fn simulate_in_order(
    robot: &Robot,
    nodes: &[Node],
    step: &Elementary,
    jobs: &[Job],
    detours: Detours,
    breadth: Breadth,
    known: &Simulations,
) -> (Vec<Outcome>, bool) {
    let mut groups: Vec<Vec<Job>> = Vec::new();
    for &(i, v) in jobs {
        match groups
            .iter_mut()
            .find(|g| g[0].0 == i && g[0].1.arm == v.arm)
        {
            Some(g) => g.push((i, v)),
            None => groups.push(vec![(i, v)]),
        }
    }
    let outcomes: Vec<Outcome> = groups
        .par_iter()
        .map(|group| {
            let mut out = Vec::new();
            let mut feasible = 0;
            for &(i, v) in group {
                if feasible >= breadth.straight {
                    break;
                }
                let key = simulation_key(nodes[i].key, step, &v, detours as u8);
                let r = known.answer(key, || {
                    simulate_with(robot, &nodes[i].state, step, &v, detours)
                });
                feasible += usize::from(r.is_ok());
                out.push((i, v, r, key));
            }
            out
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect();
    let left = outcomes.len() < jobs.len();
    (outcomes, left)
}

/// The first feasible variant of one step from `state`, planned as the search plans it
/// (straight paths for all variants first, then joint-space detours in order), or every
/// variant's cause. The reach query uses this, so it promises what acting does.
pub fn first_feasible(
    robot: &Robot,
    state: &PlanState,
    step: &Elementary,
    variants: &[Variant],
) -> Result<(Variant, Simulated), Vec<Cause>> {
    match first_straight(robot, state, step, variants) {
        Ok(found) => Ok(found),
        Err(causes) => first_with_effort(robot, state, step, variants, causes),
    }
}

/// The first variant feasible with a straight path, or every variant's cause.
pub fn first_straight(
    robot: &Robot,
    state: &PlanState,
    step: &Elementary,
    variants: &[Variant],
) -> Result<(Variant, Simulated), Vec<Cause>> {
    // A few at a time, as many as there are threads: the first feasible one
    // ends the search without simulating the rest (the same one as all at once).
    let mut causes = Vec::new();
    for chunk in variants.chunks(rayon::current_num_threads().max(1)) {
        let results: Vec<Result<Simulated, Cause>> = chunk
            .par_iter()
            .map(|v| simulate_with(robot, state, step, v, Detours::Off))
            .collect();
        for (v, r) in chunk.iter().zip(results) {
            match r {
                Ok(sim) => return Ok((*v, sim)),
                Err(c) => causes.push(c),
            }
        }
    }
    Err(causes)
}

/// The first variant feasible with more effort (the idle arm aside, detours), given
/// why each failed straight (`causes`, one per variant); or every variant's truest cause.
pub fn first_with_effort(
    robot: &Robot,
    state: &PlanState,
    step: &Elementary,
    variants: &[Variant],
    mut causes: Vec<Cause>,
) -> Result<(Variant, Simulated), Vec<Cause>> {
    for level in EFFORTS {
        for (v, c) in variants.iter().zip(causes.iter_mut()) {
            if !detour_may_help(c) {
                continue;
            }
            match level.retry(robot, state, step, v, c) {
                Ok(sim) => return Ok((*v, sim)),
                Err(truer) if level.aside => *c = truer,
                Err(_) => {}
            }
        }
    }
    Err(causes)
}

/// The best `beam` of `sorted` (cheapest first), with the best partial plan of each arm
/// among them: when every cheap plan uses one arm, a dead end of that arm later on (it
/// cannot get home past the other) must not end the search.
fn keep_both_arms(sorted: Vec<Node>, beam: usize) -> Vec<Node> {
    let arm = |n: &Node| n.steps.last().map(|s| s.variant.arm);
    let mut firsts: Vec<usize> = Vec::new();
    for (i, n) in sorted.iter().enumerate() {
        if !firsts.iter().any(|&f| arm(&sorted[f]) == arm(n)) {
            firsts.push(i);
        }
    }
    let mut keep: Vec<bool> = vec![false; sorted.len()];
    for &f in firsts.iter().take(beam) {
        keep[f] = true;
    }
    let mut left = beam.saturating_sub(firsts.len().min(beam));
    for k in keep.iter_mut() {
        if left == 0 {
            break;
        }
        if !*k {
            *k = true;
            left -= 1;
        }
    }
    sorted
        .into_iter()
        .zip(keep)
        .filter_map(|(n, k)| k.then_some(n))
        .collect()
}

/// Whether a step sets an object down (the hand may turn about its upright axis).
fn turns_may_help(step: &Elementary) -> bool {
    matches!(
        step,
        Elementary::PutAt { .. }
            | Elementary::PutNear { .. }
            | Elementary::PutAway { .. }
            | Elementary::PutAside { .. }
            | Elementary::Relay { .. }
    )
}

/// Whether a step moves an arm (gaze does not).
fn needs_motion(step: &Elementary) -> bool {
    !matches!(step, Elementary::Gaze(_))
}

/// Whether more effort could turn this failure into a success: collisions and paths
/// through singularities or limits can; a missing spot or a full hand cannot.
fn detour_may_help(cause: &Cause) -> bool {
    matches!(
        cause,
        Cause::Collision(_) | Cause::SelfCollision(_) | Cause::OutOfReach(_)
    )
}

/// One level of effort after straight paths (and turned hands) failed.
#[derive(Debug, Clone, Copy)]
struct Effort {
    /// How hard each variant is tried.
    detours: Detours,
    /// Whether the idle arm first steps aside.
    aside: bool,
    /// How the log names it.
    name: &'static str,
}

impl Effort {
    /// Tries a variant that failed with `cause` again at this level.
    fn retry(
        self,
        robot: &Robot,
        state: &PlanState,
        step: &Elementary,
        v: &Variant,
        cause: &Cause,
    ) -> Result<Simulated, Cause> {
        if self.aside {
            simulate_aside(robot, state, step, v, self.detours, cause)
        } else {
            simulate_with(robot, state, step, v, self.detours)
        }
    }
}

/// The efforts tried, in order, after straight paths (and turned hands) failed: the idle
/// arm aside with straight paths, joint-space detours in place, then detours with the
/// idle arm aside. Each level only where every earlier one failed.
const EFFORTS: [Effort; 3] = [
    Effort {
        detours: Detours::Turns,
        aside: true,
        name: "aside",
    },
    Effort {
        detours: Detours::On,
        aside: false,
        name: "detours",
    },
    Effort {
        detours: Detours::On,
        aside: true,
        name: "aside with detours",
    },
];

/// Where an object stands on the table, if it does (the spot to put a poured source back).
pub fn table_spot(state: &PlanState, object: crate::twin::ObjectId) -> Option<glam::Vec2> {
    match state.world.object(object).placement {
        Placement::OnTable { position, .. } => Some(position),
        _ => None,
    }
}
