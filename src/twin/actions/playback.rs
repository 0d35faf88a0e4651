//! Playing a plan in time, step by step: the order of head turns, arm motions and
//! gripper commands, and the moment each step's effect becomes true in the twin.
//! One sequence for every back end: the simulated arms here, the robot bridge.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use glam::Vec3;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::twin::kinematics::{translation, Joints, Motion, Side};
use crate::twin::world::Placement;
use crate::twin::Twin;

use super::search::{Plan, PlannedStep};
use super::simulate::Effect;
use super::{apply_effect, interrupted, Execution, Executor};

/// What moves the robot's parts: one arm motion, one gripper command, one head
/// turn at a time. Each returns one sentence on failure or cancel, leaving the
/// twin's joints where the part really stopped.
pub trait Actuators: Send + Sync {
    /// Turns the head to pan/tilt (rad).
    fn head<'a>(
        &'a self,
        pan: f32,
        tilt: f32,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = Result<(), String>> + Send + 'a;

    /// Follows one arm's timed trajectory.
    fn motion<'a>(
        &'a self,
        twin: &'a mut Twin,
        motion: &'a Motion,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = Result<(), String>> + Send + 'a;

    /// Closes (or opens) one hand on `object`.
    fn gripper<'a>(
        &'a self,
        twin: &'a mut Twin,
        side: Side,
        close: bool,
        object: &'a str,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = Result<(), String>> + Send + 'a;
}

/// Runs the plan's steps on `actuators`. The hand closes once it is at the object
/// (after the reach, before the lift) and opens at the put or hand-over point
/// (before the retreat); the effect becomes true in the twin right after.
pub async fn play<A: Actuators>(
    actuators: &A,
    twin: &mut Twin,
    plan: &Plan,
    cancel: &CancellationToken,
) -> Result<(), String> {
    for step in &plan.steps {
        if let Some((pan, tilt)) = step.sim.head {
            actuators.head(pan, tilt, cancel).await?;
        }
        let count = step.sim.motions.len();
        for (i, motion) in step.sim.motions.iter().enumerate() {
            if lets_go(step) && i + 1 == count && count > 1 {
                hand(actuators, twin, step, false, cancel).await?;
            }
            actuators.motion(twin, motion, cancel).await?;
            carry(twin);
            if grasps(step) && i + 2 == count {
                hand(actuators, twin, step, true, cancel).await?;
            }
        }
        if count <= 1 && (grasps(step) || lets_go(step)) {
            hand(actuators, twin, step, grasps(step), cancel).await?;
        } else if !grasps(step) && !lets_go(step) {
            take_effect(twin, step)?;
        }
    }
    Ok(())
}

fn grasps(step: &PlannedStep) -> bool {
    matches!(step.sim.effect, Effect::Grasped { .. })
}

fn lets_go(step: &PlannedStep) -> bool {
    matches!(
        step.sim.effect,
        Effect::Released { .. } | Effect::Given { .. }
    )
}

/// One gripper command of a step, then its effect.
async fn hand<A: Actuators>(
    actuators: &A,
    twin: &mut Twin,
    step: &PlannedStep,
    close: bool,
    cancel: &CancellationToken,
) -> Result<(), String> {
    let object = match step.sim.effect {
        Effect::Grasped { object, .. }
        | Effect::Released { object, .. }
        | Effect::Given { object, .. } => twin.world.object(object).name.clone(),
        _ => String::new(),
    };
    actuators
        .gripper(twin, step.variant.arm, close, &object, cancel)
        .await?;
    take_effect(twin, step)
}

/// Makes a step's effect true in the twin, and what the hand holds with it.
fn take_effect(twin: &mut Twin, step: &PlannedStep) -> Result<(), String> {
    apply_effect(&mut twin.world, &step.sim.effect)?;
    match step.sim.effect {
        Effect::Grasped { .. } => twin.holding = step.sim.state.holding,
        Effect::Released { .. } | Effect::Given { .. } => twin.holding = None,
        Effect::None | Effect::Poured { .. } => {}
    }
    Ok(())
}

/// Puts the held object where the holding hand now is.
pub fn carry(twin: &mut Twin) {
    let (Some(held), Ok(robot)) = (twin.holding, &twin.robot) else {
        return;
    };
    let hand = robot
        .arm(held.arm)
        .world_from_hand(&twin.joints[held.arm as usize]);
    let centre = hand * held.hand_from_centre;
    let half_height = 0.5 * twin.world.object(held.object).shape().height();
    let object = twin.world.object_mut(held.object);
    if let Placement::InGripper { hand, .. } = object.placement {
        object.placement = Placement::InGripper {
            hand,
            base: translation(&centre) - Vec3::Z * half_height,
        };
    }
}

/// Timing of the simulated robot (`[sim]` in the settings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    /// Seconds of wall time per planned second (1 = as planned; 0 = at once).
    pub time_scale: f64,
    /// How often the joints advance while a part moves (Hz).
    pub rate_hz: f64,
    /// A hand closing or opening (planned seconds).
    pub gripper_s: f64,
    /// A head turn (planned seconds).
    pub head_s: f64,
}

impl Default for Pace {
    fn default() -> Self {
        Self {
            time_scale: 1.0,
            rate_hz: 50.0,
            gripper_s: 0.6,
            head_s: 0.5,
        }
    }
}

impl Pace {
    /// At once (evaluation, tests).
    pub const INSTANT: Pace = Pace {
        time_scale: 0.0,
        rate_hz: 50.0,
        gripper_s: 0.6,
        head_s: 0.5,
    };

    /// Planned seconds of a whole plan: head turns, arm motions and hands.
    pub fn planned_s(&self, plan: &Plan) -> f64 {
        plan.steps
            .iter()
            .map(|step| {
                let head = if step.sim.head.is_some() {
                    self.head_s
                } else {
                    0.0
                };
                let hand = if grasps(step) || lets_go(step) {
                    self.gripper_s
                } else {
                    0.0
                };
                let arms: f64 = step
                    .sim
                    .motions
                    .iter()
                    .map(|m| f64::from(m.duration_s))
                    .sum();
                head + hand + arms
            })
            .sum()
    }

    fn instant(&self) -> bool {
        !(self.time_scale.is_finite() && self.time_scale > 0.0)
    }

    fn tick(&self) -> Duration {
        Duration::from_secs_f64(1.0 / self.rate_hz.clamp(1.0, 1000.0))
    }
}

/// The robot's parts as they are now, for watchers (the page).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArmsNow {
    /// Joints of the (left, right) arm.
    pub joints: [Joints; 2],
    /// How closed each hand is (0 open, 1 closed).
    pub grippers: [f32; 2],
    /// The object in a hand and its base centre.
    pub carried: Option<(String, Vec3)>,
    /// Whether a part is moving.
    pub moving: bool,
    /// The planned path of the moving hand (world), while it moves.
    pub path: Arc<[Vec3]>,
}

/// The simulated robot: plays each trajectory at its planned timing (scaled by
/// [`Pace::time_scale`]), the joints advancing at [`Pace::rate_hz`]; a cancel
/// stops every part where it is, holding what it held.
#[derive(Debug)]
pub struct SimulatedRobot {
    pace: Pace,
    watchers: Option<watch::Sender<ArmsNow>>,
    grippers: Mutex<[f32; 2]>,
}

impl SimulatedRobot {
    /// A simulated robot with this timing.
    pub fn new(pace: Pace) -> Self {
        Self {
            pace,
            watchers: None,
            grippers: Mutex::new([0.0; 2]),
        }
    }

    /// Also tells `watchers` where the parts are at every tick.
    pub fn watched_by(mut self, watchers: watch::Sender<ArmsNow>) -> Self {
        self.watchers = Some(watchers);
        self
    }

    fn grippers(&self) -> [f32; 2] {
        *self.grippers.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set_gripper(&self, side: Side, closed: f32) {
        self.grippers.lock().unwrap_or_else(|p| p.into_inner())[side as usize] = closed;
    }

    fn tell(&self, twin: &Twin, moving: bool, path: &Arc<[Vec3]>) {
        let Some(watchers) = &self.watchers else {
            return;
        };
        let carried = twin.holding.map(|h| {
            (
                twin.world.object(h.object).name.clone(),
                twin.world.object_base(h.object),
            )
        });
        watchers.send_replace(ArmsNow {
            joints: twin.joints,
            grippers: self.grippers(),
            carried,
            moving,
            path: path.clone(),
        });
    }

    /// Tells the watchers that nothing moves now.
    fn rest(&self, twin: &Twin) {
        self.tell(twin, false, &Arc::from(Vec::new()));
    }

    /// Waits one tick, or returns `false` at once when cancelled.
    async fn tick(&self, cancel: &CancellationToken) -> bool {
        tokio::select! {
            _ = cancel.cancelled() => false,
            _ = tokio::time::sleep(self.pace.tick()) => true,
        }
    }

    /// Wall seconds elapsed since `start`, in planned seconds.
    fn planned_since(&self, start: Instant) -> f32 {
        (start.elapsed().as_secs_f64() / self.pace.time_scale) as f32
    }
}

/// Every `n`-th sample's hand position, at most 32 points, for drawing.
fn hand_path(twin: &Twin, motion: &Motion) -> Arc<[Vec3]> {
    let Ok(robot) = &twin.robot else {
        return Arc::from(Vec::new());
    };
    let every = motion.samples.len().div_ceil(32).max(1);
    let arm = robot.arm(motion.side);
    let mut points: Vec<Vec3> = motion
        .samples
        .iter()
        .step_by(every)
        .map(|s| translation(&arm.world_from_hand(&s.q)))
        .collect();
    if let Some(last) = motion.samples.last() {
        points.push(translation(&arm.world_from_hand(&last.q)));
    }
    Arc::from(points)
}

impl Actuators for SimulatedRobot {
    async fn head(&self, _pan: f32, _tilt: f32, cancel: &CancellationToken) -> Result<(), String> {
        if self.pace.instant() {
            return Ok(());
        }
        let start = Instant::now();
        while f64::from(self.planned_since(start)) < self.pace.head_s {
            if !self.tick(cancel).await {
                return Err(interrupted("the head stopped where it was"));
            }
        }
        Ok(())
    }

    async fn motion(
        &self,
        twin: &mut Twin,
        motion: &Motion,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let side = motion.side;
        if self.pace.instant() {
            twin.joints[side as usize] = motion.final_joints();
            carry(twin);
            return Ok(());
        }
        let path = hand_path(twin, motion);
        let start = Instant::now();
        loop {
            let t = self.planned_since(start);
            twin.joints[side as usize] = motion.joints_at(t);
            carry(twin);
            if t >= motion.duration_s {
                self.rest(twin);
                return Ok(());
            }
            self.tell(twin, true, &path);
            if !self.tick(cancel).await {
                self.rest(twin);
                return Err(interrupted(&format!(
                    "the {} arm stopped where it was",
                    side.name()
                )));
            }
        }
    }

    async fn gripper(
        &self,
        twin: &mut Twin,
        side: Side,
        close: bool,
        object: &str,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let (from, to) = if close { (0.0, 1.0) } else { (1.0, 0.0) };
        let no_path: Arc<[Vec3]> = Arc::from(Vec::new());
        if !self.pace.instant() {
            let start = Instant::now();
            loop {
                let f = (f64::from(self.planned_since(start)) / self.pace.gripper_s).min(1.0);
                self.set_gripper(side, from + (to - from) * f as f32);
                self.tell(twin, f < 1.0, &no_path);
                if f >= 1.0 {
                    break;
                }
                if !self.tick(cancel).await {
                    self.tell(twin, false, &no_path);
                    let doing = if close { "closing on" } else { "letting go of" };
                    return Err(interrupted(&format!(
                        "the {} hand stopped {doing} {object}",
                        side.name()
                    )));
                }
            }
        }
        self.set_gripper(side, to);
        Ok(())
    }
}

impl Executor for SimulatedRobot {
    fn run<'a>(
        &'a mut self,
        twin: &'a mut Twin,
        plan: &'a Plan,
        cancel: &'a CancellationToken,
    ) -> Execution<'a> {
        Box::pin(async move {
            // The hands as the twin says (a reset or a scene edit may have emptied them).
            for side in Side::BOTH {
                let holds = twin.holding.is_some_and(|h| h.arm == side);
                self.set_gripper(side, if holds { 1.0 } else { 0.0 });
            }
            let played = play(&*self, twin, plan, cancel).await;
            self.rest(twin);
            played
        })
    }
}
