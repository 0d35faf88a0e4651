//! The robot bridge: a rosbridge client, the perception it keeps, and the
//! [`Executor`] that turns a planned action into controller goals — arm
//! trajectories, gripper commands, head turns — waits for each result, cancels
//! on interrupt, and checks the measured joints against the plan afterwards.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::events::Event;
use crate::twin::actions::playback::{self, Actuators};
use crate::twin::actions::{interrupted, is_interrupted, Execution, Executor, Plan};
use crate::twin::kinematics::{Joints, Motion, Side};
use crate::twin::{ObjectId, Twin, World};

use super::client::{BridgeError, ClientOptions, Goal, LinkStatus, Rosbridge};
use super::joints::JointMap;
use super::perception::{self, world_from_camera, Perceived};
use super::protocol::{self, STATUS_ABORTED, STATUS_CANCELED, STATUS_SUCCEEDED};
use super::settings::{HandSettings, RobotSettings, RobotSettingsError};

const FOLLOW_JOINT_TRAJECTORY: &str = "control_msgs/action/FollowJointTrajectory";
const GRIPPER_COMMAND: &str = "control_msgs/action/GripperCommand";

/// Why the bridge could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// `[robot]` is wrong.
    #[error(transparent)]
    Settings(#[from] RobotSettingsError),
    /// The URL is wrong.
    #[error(transparent)]
    Url(#[from] BridgeError),
    /// A marker names an object the scene does not have.
    #[error("[robot] perception.markers maps marker {id} to '{name}', which is not an object of this scene (objects: {known})")]
    UnknownObject {
        id: String,
        name: String,
        known: String,
    },
}

/// The head alone, for cues that must not wait for the agent (a glance at whoever just spoke).
#[derive(Clone)]
pub struct Head {
    client: Rosbridge,
    settings: super::settings::HeadSettings,
    time_scale: f64,
    robot: Arc<crate::twin::kinematics::Robot>,
    // Glances come from the microphone's own thread, outside the runtime.
    runtime: tokio::runtime::Handle,
}

impl Head {
    /// Turns the head towards a world point now; a later glance or gaze replaces it
    /// on the controller. A failure is logged, never raised: a cue is not an action.
    pub fn glance(&self, target: glam::Vec3) {
        let angles = self.robot.head_angles_towards(target);
        let goal = json!({"trajectory": {"joint_names": [self.settings.pan_joint, self.settings.tilt_joint],
            "points": [{"positions": [angles.pan, angles.tilt],
                        "time_from_start": protocol::duration(0.5 * self.settings.move_s * self.time_scale)}]}});
        let mut goal = self
            .client
            .send_goal(&self.settings.action, FOLLOW_JOINT_TRAJECTORY, &goal);
        self.runtime.spawn(async move {
            match tokio::time::timeout(Duration::from_secs(5), goal.end()).await {
                Ok(Ok(end)) if end.status == STATUS_SUCCEEDED => {}
                other => tracing::debug!(?other, "the head's glance did not complete"),
            }
        });
    }
}

/// The robot's measured arms, readable apart from the bridge (the page follows them live).
#[derive(Clone)]
pub struct MeasuredArms {
    perceived: Arc<Mutex<Perceived>>,
    joint_map: JointMap,
}

impl MeasuredArms {
    /// Both arms' last measured joints (twin convention), when the joint states name them all.
    pub fn now(&self) -> Option<[Joints; 2]> {
        let p = lock(&self.perceived);
        let arm = |side| self.joint_map.arm(side).read(&p.joints).ok();
        Some([arm(Side::Left)?, arm(Side::Right)?])
    }
}

/// The bridge to one robot.
pub struct RobotBridge {
    client: Rosbridge,
    settings: RobotSettings,
    joint_map: JointMap,
    perceived: Arc<Mutex<Perceived>>,
    markers: HashMap<i64, ObjectId>,
    updates: watch::Receiver<u64>,
}

fn lock(p: &Mutex<Perceived>) -> MutexGuard<'_, Perceived> {
    // Perception is plain data overwritten by each message; a poisoned lock holds valid data.
    p.lock().unwrap_or_else(|e| e.into_inner())
}

fn slot(side: Side) -> usize {
    match side {
        Side::Left => 0,
        Side::Right => 1,
    }
}

impl RobotBridge {
    /// Starts connecting (in the background) and subscribes to joint states and perception.
    pub fn start(
        settings: &RobotSettings,
        url: &str,
        world: &World,
        shutdown: CancellationToken,
    ) -> Result<Self, StartError> {
        settings.validate()?;
        let mut markers = HashMap::new();
        for (id, name) in &settings.perception.markers {
            let object = world
                .object_named(name)
                .ok_or_else(|| StartError::UnknownObject {
                    id: id.clone(),
                    name: name.clone(),
                    known: world
                        .objects()
                        .iter()
                        .map(|o| o.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })?;
            if let Ok(id) = id.trim().parse::<i64>() {
                markers.insert(id, object);
            }
        }
        let client = Rosbridge::connect(url, ClientOptions::default(), shutdown)?;
        let perceived = Arc::new(Mutex::new(Perceived::default()));
        let (version, updates) = watch::channel(0u64);
        let version = Arc::new(version);
        let camera = world_from_camera(&settings.perception);
        let throttle = settings.perception.throttle_rate_ms;
        {
            let (p, v) = (Arc::clone(&perceived), Arc::clone(&version));
            client.subscribe(
                &settings.joint_states,
                "sensor_msgs/msg/JointState",
                0,
                1,
                move |msg| {
                    let mut p = lock(&p);
                    if p.joint_state(msg) {
                        v.send_replace(p.version);
                    }
                },
            );
        }
        if !settings.perception.aruco_topic.is_empty() && !markers.is_empty() {
            let (p, v) = (Arc::clone(&perceived), Arc::clone(&version));
            client.subscribe(
                &settings.perception.aruco_topic,
                "ros2_aruco_interfaces/msg/ArucoMarkers",
                throttle,
                1,
                move |msg| {
                    let mut p = lock(&p);
                    if p.aruco(msg, &camera) {
                        v.send_replace(p.version);
                    }
                },
            );
        }
        if !settings.perception.body_topic.is_empty() {
            let (p, v) = (Arc::clone(&perceived), Arc::clone(&version));
            client.subscribe(
                &settings.perception.body_topic,
                "visualization_msgs/msg/MarkerArray",
                throttle,
                1,
                move |msg| {
                    let mut p = lock(&p);
                    if p.bodies(msg, &camera) {
                        v.send_replace(p.version);
                    }
                },
            );
        }
        Ok(Self {
            client,
            settings: settings.clone(),
            joint_map: JointMap::new(settings),
            perceived,
            markers,
            updates,
        })
    }

    /// The head, for glances outside actions (`None` without a robot model, or
    /// when called outside a tokio runtime).
    pub fn head(&self, twin: &Twin) -> Option<Head> {
        Some(Head {
            runtime: tokio::runtime::Handle::try_current().ok()?,
            client: self.client.clone(),
            settings: self.settings.head.clone(),
            time_scale: self.settings.time_scale,
            robot: Arc::clone(twin.robot.as_ref().ok()?),
        })
    }

    /// The rosbridge client (its status, and requests beyond actions).
    pub fn client(&self) -> &Rosbridge {
        &self.client
    }

    /// Changes whenever new perception arrived (to apply it when idle).
    pub fn updates(&self) -> watch::Receiver<u64> {
        self.updates.clone()
    }

    /// The measured arms, for watching them move.
    pub fn measured_arms(&self) -> MeasuredArms {
        MeasuredArms {
            perceived: self.perceived.clone(),
            joint_map: self.joint_map.clone(),
        }
    }

    /// Waits until connected and the joint states are fresh, at most `bound`;
    /// then up to one more second for the first markers and bodies, so that a
    /// first `perceive` sees the table (a perception topic that stays silent is
    /// logged, not fatal: the scene file's positions stand).
    pub async fn wait_ready(&self, bound: Duration) -> Result<(), String> {
        let deadline = Instant::now() + bound;
        loop {
            match self.unavailable() {
                None => break,
                Some(reason) if Instant::now() >= deadline => return Err(reason),
                Some(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
        let perception = &self.settings.perception;
        let want_markers = !perception.aruco_topic.is_empty() && !self.markers.is_empty();
        let want_bodies = !perception.body_topic.is_empty();
        let deadline = Instant::now() + Duration::from_secs(1);
        loop {
            let (markers, bodies) = {
                let p = lock(&self.perceived);
                (
                    p.markers_seen || !want_markers,
                    p.bodies_seen || !want_bodies,
                )
            };
            if markers && bodies {
                return Ok(());
            }
            if Instant::now() >= deadline {
                if !markers {
                    tracing::warn!(topic = %perception.aruco_topic, "no ArUco markers within 1 s; objects stay where the scene puts them");
                }
                if !bodies {
                    tracing::warn!(topic = %perception.body_topic, "no tracked bodies within 1 s; people stay where the scene puts them");
                }
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// `robot` events: connected, disconnected, stale joint states (and their return).
    /// The task ends with `shutdown`.
    pub fn status_events(&self, shutdown: CancellationToken) -> mpsc::UnboundedReceiver<Event> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut status = self.client.status();
        let perceived = Arc::clone(&self.perceived);
        let stale_after = Duration::from_millis(self.settings.stale_after_ms);
        let topic = self.settings.joint_states.clone();
        let url = self.client.url().to_string();
        tokio::spawn(async move {
            let mut stale = false;
            let mut tick = tokio::time::interval(Duration::from_millis(100));
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    changed = status.changed() => {
                        if changed.is_err() {
                            return;
                        }
                        let event = match &*status.borrow_and_update() {
                            LinkStatus::Connected => Some(("connected", format!("the robot bridge at {url} is connected"))),
                            LinkStatus::Disconnected(reason) => Some(("disconnected", format!("the robot bridge at {url} is disconnected: {reason}; actions are refused until it is back"))),
                            LinkStatus::Connecting => None,
                        };
                        if let Some((s, detail)) = event {
                            stale = false;
                            if tx.send(Event::Robot { status: s.into(), detail }).is_err() {
                                return;
                            }
                        }
                    }
                    _ = tick.tick() => {
                        if *status.borrow() != LinkStatus::Connected {
                            continue;
                        }
                        let age = lock(&perceived).joints_at.map(|t| t.elapsed());
                        let now_stale = age.is_some_and(|a| a > stale_after);
                        if now_stale != stale {
                            stale = now_stale;
                            let detail = if stale {
                                format!("joint states on {topic} are {:.1} s old; actions are refused until they arrive again", age.unwrap_or_default().as_secs_f64())
                            } else {
                                format!("joint states on {topic} arrive again")
                            };
                            let s = if stale { "stale" } else { "fresh" };
                            if tx.send(Event::Robot { status: s.into(), detail }).is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        });
        rx
    }

    /// The measured joints of one arm (twin convention), if fresh.
    fn measured(&self, side: Side) -> Result<Joints, String> {
        let p = lock(&self.perceived);
        self.joint_map.arm(side).read(&p.joints).map_err(|missing| {
            format!(
                "the joint states lack {}; check [robot] {}_arm.joints",
                missing.join(", "),
                side.name()
            )
        })
    }

    /// Waits (≤ 0.5 s) for a joint state that arrived after `after`, then reads the arm.
    async fn measured_after(&self, side: Side, after: Instant) -> Result<Joints, String> {
        let deadline = after + Duration::from_millis(500);
        loop {
            let fresh = lock(&self.perceived).joints_at.is_some_and(|t| t >= after);
            if fresh || Instant::now() >= deadline {
                return self.measured(side);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    fn trajectory_goal(&self, side: Side, motion: &Motion) -> Value {
        let arm = self.joint_map.arm(side);
        let scale = self.settings.time_scale;
        // The first sample is where the arm already is; a point at t = 0 would ask for a jump.
        let points: Vec<Value> = motion
            .samples
            .iter()
            .skip(1)
            .map(|s| {
                json!({"positions": arm.driver_from_twin(&s.q),
                       "time_from_start": protocol::duration(f64::from(s.t) * scale)})
            })
            .collect();
        json!({"trajectory": {"joint_names": arm.names, "points": points},
               "goal_time_tolerance": protocol::duration(0.5)})
    }

    fn hand(&self, side: Side) -> &HandSettings {
        match side {
            Side::Left => &self.settings.left_hand,
            Side::Right => &self.settings.right_hand,
        }
    }

    /// Sends one goal and waits for it; on cancel it cancels the goal and waits ≤ 1 s.
    async fn follow(
        &self,
        mut goal: Goal,
        what: &str,
        bound: Duration,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let ended = tokio::select! {
            end = goal.end() => end,
            _ = tokio::time::sleep(bound) => {
                self.client.cancel_goal(&goal);
                let _ = tokio::time::timeout(Duration::from_secs(1), goal.end()).await;
                return Err(format!("{what} did not finish within {:.1} s, so I cancelled it", bound.as_secs_f64()));
            }
            _ = cancel.cancelled() => {
                self.client.cancel_goal(&goal);
                let _ = tokio::time::timeout(Duration::from_secs(1), goal.end()).await;
                return Err(interrupted(&format!("{what} stopped where it was")));
            }
        };
        match ended {
            Ok(end) if end.status == STATUS_SUCCEEDED => Ok(()),
            Ok(end) => {
                let said = end
                    .values
                    .get("error_string")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default();
                Err(match end.status {
                    STATUS_ABORTED => format!("goal aborted by the controller{said}"),
                    STATUS_CANCELED => format!("goal cancelled on the robot's side{said}"),
                    s => format!("goal ended with status {s}{said}"),
                })
            }
            Err(BridgeError::Dropped { .. }) => Err(format!(
                "the connection to the robot dropped while {what} was under way; it is not done"
            )),
            // rosbridge's failure form: the goal never started (rejected, or no server).
            Err(BridgeError::Failed { detail, .. }) => Err(format!("{REFUSED} ({detail})")),
            Err(e) => Err(e.to_string()),
        }
    }

    async fn run_motion(
        &self,
        twin: &mut Twin,
        motion: &Motion,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let side = motion.side;
        let arm = side.name();
        let start = self.measured(side)?;
        let planned_start = motion.samples.first().map_or(start, |s| s.q);
        if let Some((i, d)) = largest_difference(&start, &planned_start) {
            if d > self.settings.joint_tolerance_rad as f32 {
                twin.joints[slot(side)] = start;
                return Err(format!(
                    "the {arm} arm is not where the plan starts (joint {} is {:.0}° away); nothing was moved",
                    i + 1,
                    d.to_degrees()
                ));
            }
        }
        let goal = self.client.send_goal(
            match side {
                Side::Left => &self.settings.left_arm.action,
                Side::Right => &self.settings.right_arm.action,
            },
            FOLLOW_JOINT_TRAJECTORY,
            &self.trajectory_goal(side, motion),
        );
        let bound = Duration::from_secs_f64(
            f64::from(motion.duration_s) * self.settings.time_scale
                + self.settings.goal_timeout_slack_s,
        );
        let result = self
            .follow(goal, &format!("the {arm} arm"), bound, cancel)
            .await;
        let ended = Instant::now();
        let measured = self.measured_after(side, ended).await;
        if let Ok(q) = measured {
            twin.joints[slot(side)] = q;
        }
        let planned_end = motion.final_joints();
        let short_cm = |q: &Joints| -> f32 {
            twin.robot.as_ref().map_or(0.0, |r| {
                let a = r.arm(side).world_from_hand(q).translation;
                let b = r.arm(side).world_from_hand(&planned_end).translation;
                (a - b).length() * 100.0
            })
        };
        match (result, measured) {
            (Err(reason), Ok(q)) if is_interrupted(&reason) => Err(interrupted(&format!(
                "the {arm} arm stopped where it was, {:.0} cm short of its goal",
                short_cm(&q)
            ))),
            (Err(reason), _) if reason.starts_with(REFUSED) => {
                Err(format!("the {arm} arm did not move: {reason}"))
            }
            (Err(reason), Ok(q)) if !reason.starts_with("the connection") => {
                Err(format!("the {arm} arm stopped {:.0} cm short of its goal: {reason}", short_cm(&q)))
            }
            (Err(reason), _) => Err(reason),
            (Ok(()), Err(e)) => Err(e),
            (Ok(()), Ok(q)) => match largest_difference(&q, &planned_end) {
                Some((i, d)) if d > self.settings.joint_tolerance_rad as f32 => Err(format!(
                    "the {arm} arm stopped {:.0} cm short of its goal: joint {} is {:.0}° from the plan",
                    short_cm(&q),
                    i + 1,
                    d.to_degrees()
                )),
                _ => Ok(()),
            },
        }
    }

    async fn run_gripper(
        &self,
        side: Side,
        close: bool,
        object: &str,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let hand = self.hand(side);
        let position = if close {
            hand.closed_position
        } else {
            hand.open_position
        };
        let goal = self.client.send_goal(
            &hand.action,
            GRIPPER_COMMAND,
            &json!({"command": {"position": position, "max_effort": hand.max_effort}}),
        );
        let what = format!(
            "the {} hand {} {object}",
            side.name(),
            if close { "closing on" } else { "letting go of" }
        );
        let bound = Duration::from_secs_f64(
            2.0 * self.settings.time_scale + self.settings.goal_timeout_slack_s,
        );
        self.follow(goal, &what, bound, cancel).await.map_err(|e| {
            if is_interrupted(&e) {
                interrupted(&format!("{what} stopped"))
            } else {
                format!("{what} failed: {e}")
            }
        })
    }

    async fn run_head(
        &self,
        pan: f32,
        tilt: f32,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let head = &self.settings.head;
        let goal = json!({"trajectory": {"joint_names": [head.pan_joint, head.tilt_joint],
            "points": [{"positions": [pan, tilt], "time_from_start": protocol::duration(head.move_s * self.settings.time_scale)}]}});
        let goal = self
            .client
            .send_goal(&head.action, FOLLOW_JOINT_TRAJECTORY, &goal);
        let bound = Duration::from_secs_f64(
            head.move_s * self.settings.time_scale + self.settings.goal_timeout_slack_s,
        );
        self.follow(goal, "the head", bound, cancel)
            .await
            .map_err(|e| {
                if is_interrupted(&e) {
                    e
                } else {
                    format!("the head did not turn: {e}")
                }
            })
    }
}

/// How a goal the robot never started (rejected, or no action server) is told.
const REFUSED: &str = "the robot refused the goal";

/// The joint that differs most, and by how much (rad).
fn largest_difference(a: &Joints, b: &Joints) -> Option<(usize, f32)> {
    (0..a.len().min(b.len()))
        .map(|i| (i, (a[i] - b[i]).abs()))
        .max_by(|x, y| x.1.total_cmp(&y.1))
}

impl Actuators for RobotBridge {
    fn head<'a>(
        &'a self,
        pan: f32,
        tilt: f32,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = Result<(), String>> + Send + 'a {
        self.run_head(pan, tilt, cancel)
    }

    fn motion<'a>(
        &'a self,
        twin: &'a mut Twin,
        motion: &'a Motion,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = Result<(), String>> + Send + 'a {
        self.run_motion(twin, motion, cancel)
    }

    fn gripper<'a>(
        &'a self,
        _twin: &'a mut Twin,
        side: Side,
        close: bool,
        object: &'a str,
        cancel: &'a CancellationToken,
    ) -> impl Future<Output = Result<(), String>> + Send + 'a {
        self.run_gripper(side, close, object, cancel)
    }
}

impl Executor for RobotBridge {
    fn settling(&self) -> bool {
        let status = self.client.status().borrow().clone();
        match status {
            LinkStatus::Connecting => true,
            LinkStatus::Connected => lock(&self.perceived).joints_age_s().is_none(),
            LinkStatus::Disconnected(_) => false,
        }
    }

    fn unavailable(&self) -> Option<String> {
        let status = self.client.status().borrow().clone();
        match status {
            LinkStatus::Connected => {}
            LinkStatus::Connecting => {
                return Some(format!(
                    "I cannot move: the robot bridge at {} is still connecting.",
                    self.client.url()
                ))
            }
            LinkStatus::Disconnected(reason) => {
                return Some(format!(
                    "I cannot move: the robot bridge at {} is disconnected ({reason}).",
                    self.client.url()
                ))
            }
        }
        let age = lock(&self.perceived).joints_age_s();
        let limit = self.settings.stale_after_ms as f64 / 1000.0;
        match age {
            None => {
                return Some(format!(
                    "I cannot move: no joint states have arrived on {} yet.",
                    self.settings.joint_states
                ))
            }
            Some(age) if age > limit => {
                return Some(format!(
                    "I cannot move: the robot's joint states are {:.0} ms old (the limit is {:.0} ms); is its joint_state_broadcaster running?",
                    age * 1000.0,
                    limit * 1000.0
                ))
            }
            Some(_) => {}
        }
        for side in [Side::Left, Side::Right] {
            if let Err(e) = self.measured(side) {
                return Some(format!("I cannot move: {e}."));
            }
        }
        None
    }

    fn perceive(&mut self, twin: &mut Twin) -> bool {
        let p = lock(&self.perceived);
        perception::apply(
            &p,
            twin,
            &self.joint_map,
            &self.settings.perception,
            &self.markers,
        )
    }

    fn run<'a>(
        &'a mut self,
        twin: &'a mut Twin,
        plan: &'a Plan,
        cancel: &'a CancellationToken,
    ) -> Execution<'a> {
        Box::pin(playback::play(&*self, twin, plan, cancel))
    }
}
