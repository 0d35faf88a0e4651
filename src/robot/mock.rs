//! A mock robot that speaks rosbridge v2 over a real WebSocket: joint trajectory
//! controllers for both arms and the head, gripper actions for the hands (the
//! joints move along each trajectory in time and `/joint_states` follows them),
//! and a perception publisher (ArUco markers on the scene's objects, Azure Kinect
//! bodies for its people). It can be told to abort or reject the next goal, to
//! drop every connection, or to stop publishing joint states — the faults a real
//! lab has. Used by the tests and by `cargo run --example mock_robot`.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use glam::{Affine3A, Vec2, Vec3};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch, Notify};
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use crate::twin::kinematics::Side;
use crate::twin::{Hand, Twin};

use super::joints::JointMap;
use super::perception::world_from_camera;
use super::protocol::{self, STATUS_ABORTED, STATUS_CANCELED, STATUS_SUCCEEDED};
use super::settings::RobotSettings;

/// A goal the mock received, for tests to inspect.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalRecord {
    /// The action server it was sent to.
    pub action: String,
    /// Trajectory joint names (empty for a gripper goal).
    pub joint_names: Vec<String>,
    /// Each point's time from start (s).
    pub times: Vec<f64>,
    /// Each point's positions (driver convention, rad).
    pub positions: Vec<Vec<f64>>,
    /// The gripper goal's position, for a gripper goal.
    pub gripper_position: Option<f64>,
}

/// A fault to inject into the next goal.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Abort after this fraction of the trajectory, with the controller's text.
    Abort { after: f64, reason: String },
    /// Reject the goal (rosbridge's reply for a rejected goal).
    Reject,
}

struct Motion {
    goal_id: String,
    action: String,
    joints: Vec<String>,
    start: Vec<f64>,
    points: Vec<(f64, Vec<f64>)>,
    began: Instant,
    abort: Option<(f64, String)>,
    reply: mpsc::UnboundedSender<String>,
    result: Value,
}

impl Motion {
    fn duration(&self) -> f64 {
        self.points.last().map_or(0.0, |p| p.0)
    }

    /// Positions at `t` seconds, linear between points.
    fn at(&self, t: f64) -> Vec<f64> {
        let mut prev = (0.0, self.start.clone());
        for (pt, pos) in &self.points {
            if t <= *pt {
                let span = (pt - prev.0).max(1e-9);
                let f = ((t - prev.0) / span).clamp(0.0, 1.0);
                return prev
                    .1
                    .iter()
                    .zip(pos)
                    .map(|(a, b)| a + f * (b - a))
                    .collect();
            }
            prev = (*pt, pos.clone());
        }
        prev.1
    }
}

#[derive(Default)]
struct State {
    joints: BTreeMap<String, f64>,
    motions: Vec<Motion>,
    goals: Vec<GoalRecord>,
    fault: Option<Fault>,
    /// Faults of every goal sent to an action (a controller that always fails).
    standing_faults: BTreeMap<String, Fault>,
    joint_states_paused: bool,
    /// Marker id → position in the camera frame.
    markers: BTreeMap<i64, Vec3>,
    /// Body id → joint index → position in the camera frame.
    bodies: BTreeMap<i64, BTreeMap<i64, Vec3>>,
    /// Per hand (left, right): the marker it carries and the marker's offset from the hand (world).
    carried: [Option<(i64, Vec3)>; 2],
}

struct Shared {
    state: Mutex<State>,
    robot: Option<Arc<crate::twin::kinematics::Robot>>,
    joint_map: JointMap,
    settings: RobotSettings,
    camera_from_world: Affine3A,
    marker_of: HashMap<String, i64>,
    body_of: HashMap<String, i64>,
    table_height: f32,
    goal_arrived: Notify,
    drop_epoch: watch::Sender<u64>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the mock's plain data invalid.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The running mock; dropping it does not stop it, `stop` does.
#[derive(Clone)]
pub struct MockRobot {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: CancellationToken,
}

/// Why the mock could not start.
#[derive(Debug, thiserror::Error)]
#[error("the mock robot cannot listen on {addr}: {source}")]
pub struct MockError {
    addr: String,
    source: std::io::Error,
}

/// Joint indices of the Azure Kinect body tracker that the mock publishes.
const BODY_JOINTS: [i64; 7] = [5, 8, 12, 15, 26, 28, 30];

impl MockRobot {
    /// Starts a mock robot for the scene of `twin` on `addr` (port 0: any free port).
    pub async fn start(
        twin: &Twin,
        settings: &RobotSettings,
        addr: &str,
    ) -> Result<Self, MockError> {
        let listener = TcpListener::bind(addr).await.map_err(|source| MockError {
            addr: addr.to_string(),
            source,
        })?;
        let local = listener.local_addr().map_err(|source| MockError {
            addr: addr.to_string(),
            source,
        })?;
        let map = JointMap::new(settings);
        let mut state = State::default();
        for side in [Side::Left, Side::Right] {
            let arm = map.arm(side);
            let driver = arm.driver_from_twin(&twin.joints[slot(side)]);
            for (name, v) in arm.names.iter().zip(driver) {
                state.joints.insert(name.clone(), v);
            }
            state
                .joints
                .insert(format!("{}_hand_finger_joint", side.name()), 0.0);
        }
        state.joints.insert(settings.head.pan_joint.clone(), 0.0);
        state.joints.insert(settings.head.tilt_joint.clone(), 0.0);
        let camera_from_world = world_from_camera(&settings.perception).inverse();
        let mut marker_of = HashMap::new();
        for (id, name) in &settings.perception.markers {
            if let Ok(id) = id.trim().parse::<i64>() {
                marker_of.insert(name.clone(), id);
            }
        }
        let world = &twin.world;
        for object in world.object_ids() {
            let o = world.object(object);
            if let Some(id) = marker_of.get(&o.name) {
                let p =
                    world.object_base(object) + Vec3::Z * settings.perception.marker_height as f32;
                state
                    .markers
                    .insert(*id, camera_from_world.transform_point3(p));
            }
        }
        let mut body_of = HashMap::new();
        for (i, person) in world.person_ids().enumerate() {
            let id = i as i64 + 1;
            let p = world.person(person);
            body_of.insert(p.name.clone(), id);
            let [right_shoulder, left_shoulder] = p.shoulders();
            let rest = |side: f32| {
                (p.position + 0.3 * p.facing() + side * 0.22 * p.right())
                    .extend(world.table.height + 0.05)
            };
            let mut hands = [rest(-1.0), rest(1.0)];
            for (object, hand) in world.held_by(person) {
                let at = world.object_centre(object);
                match hand {
                    Hand::Left => hands[0] = at,
                    Hand::Right => hands[1] = at,
                }
            }
            let eyes = p.eyes();
            let eye_offset = 0.03 * p.right().extend(0.0);
            let joints: BTreeMap<i64, Vec3> = [
                (5, left_shoulder),
                (8, hands[0]),
                (12, right_shoulder),
                (15, hands[1]),
                (26, eyes + Vec3::Z * 0.02),
                (28, eyes - eye_offset),
                (30, eyes + eye_offset),
            ]
            .into_iter()
            .map(|(k, v)| (k, camera_from_world.transform_point3(v)))
            .collect();
            state.bodies.insert(id, joints);
        }
        let (drop_epoch, _) = watch::channel(0);
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            robot: twin.robot.as_ref().ok().cloned(),
            joint_map: JointMap::new(settings),
            settings: settings.clone(),
            camera_from_world,
            marker_of,
            body_of,
            table_height: world.table.height,
            goal_arrived: Notify::new(),
            drop_epoch,
        });
        let stop = CancellationToken::new();
        tokio::spawn(accept(listener, Arc::clone(&shared), stop.clone()));
        tokio::spawn(simulate(Arc::clone(&shared), stop.clone()));
        Ok(Self {
            addr: local,
            shared,
            stop,
        })
    }

    /// The WebSocket URL to give `--robot`.
    pub fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }

    /// Stops serving; open connections close.
    pub fn stop(&self) {
        self.stop.cancel();
    }

    /// The goals received so far.
    pub fn goals(&self) -> Vec<GoalRecord> {
        self.shared.state().goals.clone()
    }

    /// Waits until the next goal arrives.
    pub async fn goal_arrived(&self) {
        self.shared.goal_arrived.notified().await;
    }

    /// Current joint positions (driver convention).
    pub fn joints(&self) -> BTreeMap<String, f64> {
        self.shared.state().joints.clone()
    }

    /// Whether any controller is moving.
    pub fn moving(&self) -> bool {
        !self.shared.state().motions.is_empty()
    }

    /// Injects a fault into the next goal.
    pub fn fault_next_goal(&self, fault: Fault) {
        self.shared.state().fault = Some(fault);
    }

    /// Injects a fault into every goal of one action from now on (e.g. an arm's
    /// controller that aborts near a joint limit the twin does not know); `None` clears it.
    pub fn fault_every_goal_of(&self, action: &str, fault: Option<Fault>) {
        let mut state = self.shared.state();
        match fault {
            Some(f) => state.standing_faults.insert(action.to_string(), f),
            None => state.standing_faults.remove(action),
        };
    }

    /// Drops every open connection at once, without a close frame (a network fault).
    pub fn drop_connections(&self) {
        self.shared.drop_epoch.send_modify(|e| *e += 1);
    }

    /// Stops (or resumes) publishing `/joint_states`.
    pub fn pause_joint_states(&self, paused: bool) {
        self.shared.state().joint_states_paused = paused;
    }

    /// Moves an object's marker to a floor point on the table; false for an unmarked object.
    pub fn move_object(&self, object: &str, to: Vec2) -> bool {
        let Some(id) = self.shared.marker_of.get(object) else {
            return false;
        };
        let p = to.extend(self.shared.table_height)
            + Vec3::Z * self.shared.settings.perception.marker_height as f32;
        let camera = self.shared.camera_from_world.transform_point3(p);
        self.shared.state().markers.insert(*id, camera);
        true
    }

    /// Puts a person's hand at a world point; false for an unknown person.
    pub fn move_hand(&self, person: &str, hand: Hand, to: Vec3) -> bool {
        let Some(id) = self.shared.body_of.get(person) else {
            return false;
        };
        let joint = match hand {
            Hand::Left => 8,
            Hand::Right => 15,
        };
        let camera = self.shared.camera_from_world.transform_point3(to);
        if let Some(body) = self.shared.state().bodies.get_mut(id) {
            body.insert(joint, camera);
        }
        true
    }
}

fn slot(side: Side) -> usize {
    match side {
        Side::Left => 0,
        Side::Right => 1,
    }
}

async fn accept(listener: TcpListener, shared: Arc<Shared>, stop: CancellationToken) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            conn = listener.accept() => match conn {
                Ok((stream, _)) => {
                    let shared = Arc::clone(&shared);
                    let stop = stop.clone();
                    tokio::spawn(async move {
                        if let Ok(socket) = tokio_tungstenite::accept_async(stream).await {
                            serve(socket, shared, stop).await;
                        }
                    });
                }
                Err(e) => tracing::warn!(error = %e, "mock robot: accept failed"),
            },
        }
    }
}

/// Moves every active trajectory along in time and reports the ends.
async fn simulate(shared: Arc<Shared>, stop: CancellationToken) {
    let mut tick = tokio::time::interval(Duration::from_millis(5));
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        let mut state = shared.state();
        let motions = std::mem::take(&mut state.motions);
        for m in motions {
            let t = m.began.elapsed().as_secs_f64();
            let aborted = m.abort.as_ref().filter(|(f, _)| t >= f * m.duration());
            let now = m.at(if aborted.is_some() {
                t.min(m.duration())
            } else {
                t
            });
            for (name, v) in m.joints.iter().zip(&now) {
                state.joints.insert(name.clone(), *v);
            }
            carry(&shared, &mut state);
            if let Some((_, reason)) = aborted {
                let result = json!({"op": "action_result", "id": m.goal_id, "action": m.action,
                    "values": {"error_code": -4, "error_string": reason}, "status": STATUS_ABORTED, "result": true});
                let _ = m.reply.send(result.to_string());
            } else if t >= m.duration() {
                let result = json!({"op": "action_result", "id": m.goal_id, "action": m.action,
                    "values": m.result, "status": STATUS_SUCCEEDED, "result": true});
                let _ = m.reply.send(result.to_string());
            } else {
                state.motions.push(m);
            }
        }
    }
}

struct Subscriptions {
    joint_states: bool,
    aruco: bool,
    bodies: bool,
}

async fn serve(
    socket: tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    let (mut sink, mut stream) = socket.split();
    let (reply, mut replies) = mpsc::unbounded_channel::<String>();
    let mut drops = shared.drop_epoch.subscribe();
    drops.borrow_and_update();
    let mut subs = Subscriptions {
        joint_states: false,
        aruco: false,
        bodies: false,
    };
    let mut joint_tick = tokio::time::interval(Duration::from_millis(20));
    let mut perception_tick = tokio::time::interval(Duration::from_millis(100));
    loop {
        let out: Option<String> = tokio::select! {
            _ = stop.cancelled() => {
                let _ = sink.close().await;
                return;
            }
            // A network fault: the socket just goes away.
            _ = drops.changed() => return,
            frame = stream.next() => match frame {
                Some(Ok(Message::Text(text))) => handle(text.as_str(), &shared, &reply, &mut subs),
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => None,
            },
            Some(r) = replies.recv() => Some(r),
            _ = joint_tick.tick() => subs.joint_states.then(|| joint_states(&shared)).flatten(),
            _ = perception_tick.tick() => {
                let mut frames = Vec::new();
                if subs.aruco {
                    frames.push(aruco(&shared));
                }
                if subs.bodies {
                    frames.push(bodies(&shared));
                }
                for f in frames {
                    if sink.send(Message::text(f)).await.is_err() {
                        return;
                    }
                }
                None
            }
        };
        if let Some(out) = out {
            if sink.send(Message::text(out)).await.is_err() {
                return;
            }
        }
    }
}

fn joint_states(shared: &Shared) -> Option<String> {
    let state = shared.state();
    if state.joint_states_paused {
        return None;
    }
    let names: Vec<&String> = state.joints.keys().collect();
    let positions: Vec<f64> = state.joints.values().copied().collect();
    let msg = json!({"header": {"stamp": stamp(), "frame_id": ""}, "name": names,
        "position": positions, "velocity": [], "effort": []});
    Some(json!({"op": "publish", "topic": shared.settings.joint_states, "msg": msg}).to_string())
}

fn aruco(shared: &Shared) -> String {
    let state = shared.state();
    let ids: Vec<i64> = state.markers.keys().copied().collect();
    let poses: Vec<Value> = state.markers.values().map(|p| pose(*p)).collect();
    let msg = json!({"header": {"stamp": stamp(), "frame_id": "camera"}, "marker_ids": ids, "poses": poses});
    json!({"op": "publish", "topic": shared.settings.perception.aruco_topic, "msg": msg})
        .to_string()
}

fn bodies(shared: &Shared) -> String {
    let state = shared.state();
    let mut markers = Vec::new();
    for (body, joints) in &state.bodies {
        for j in BODY_JOINTS {
            if let Some(p) = joints.get(&j) {
                markers.push(json!({"header": {"stamp": stamp(), "frame_id": "depth_camera_link"},
                    "ns": "", "id": body * 100 + j, "type": 2, "action": 0, "pose": pose(*p),
                    "scale": {"x": 0.05, "y": 0.05, "z": 0.05}, "lifetime": {"sec": 0, "nanosec": 250000000}}));
            }
        }
    }
    json!({"op": "publish", "topic": shared.settings.perception.body_topic, "msg": {"markers": markers}})
        .to_string()
}

fn pose(p: Vec3) -> Value {
    json!({"position": {"x": p.x, "y": p.y, "z": p.z}, "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0}})
}

fn stamp() -> Value {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    json!({"sec": now.as_secs(), "nanosec": now.subsec_nanos()})
}

/// Handles one client frame; returns an immediate reply, if any.
fn handle(
    text: &str,
    shared: &Shared,
    reply: &mpsc::UnboundedSender<String>,
    subs: &mut Subscriptions,
) -> Option<String> {
    let msg: Value = serde_json::from_str(text).ok()?;
    let op = msg.get("op").and_then(Value::as_str)?;
    let settings = &shared.settings;
    match op {
        "subscribe" | "unsubscribe" => {
            let on = op == "subscribe";
            let topic = msg.get("topic").and_then(Value::as_str)?;
            if topic == settings.joint_states {
                subs.joint_states = on;
            } else if topic == settings.perception.aruco_topic {
                subs.aruco = on;
            } else if topic == settings.perception.body_topic {
                subs.bodies = on;
            }
            None
        }
        "call_service" => Some(
            json!({"op": "service_response", "id": msg.get("id"), "service": msg.get("service"),
                "values": "the mock robot serves no services", "result": false})
            .to_string(),
        ),
        "send_action_goal" => send_goal(&msg, shared, reply),
        "cancel_action_goal" => {
            let id = msg.get("id").and_then(Value::as_str)?;
            let mut state = shared.state();
            let index = state.motions.iter().position(|m| m.goal_id == id)?;
            let m = state.motions.remove(index);
            Some(
                json!({"op": "action_result", "id": m.goal_id, "action": m.action,
                    "values": {"error_code": 0, "error_string": "cancelled"}, "status": STATUS_CANCELED, "result": true})
                .to_string(),
            )
        }
        _ => None,
    }
}

fn send_goal(
    msg: &Value,
    shared: &Shared,
    reply: &mpsc::UnboundedSender<String>,
) -> Option<String> {
    let id = msg.get("id").and_then(Value::as_str)?.to_string();
    let action = msg.get("action").and_then(Value::as_str)?.to_string();
    let goal = msg.get("args").cloned().unwrap_or(Value::Null);
    let settings = &shared.settings;
    let rejected = |why: &str| {
        Some(
            json!({"op": "action_result", "id": id, "action": action, "values": why, "status": 0, "result": false})
                .to_string(),
        )
    };
    let grippers = [
        (&settings.left_hand.action, "left"),
        (&settings.right_hand.action, "right"),
    ];
    let trajectories = [
        &settings.left_arm.action,
        &settings.right_arm.action,
        &settings.head.action,
    ];
    let mut state = shared.state();
    let fault = state
        .fault
        .take()
        .or_else(|| state.standing_faults.get(&action).cloned());
    let (record, joints, points, result) = if let Some((_, side)) =
        grippers.iter().find(|(a, _)| **a == action)
    {
        let position = goal
            .pointer("/command/position")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let hand = if *side == "left" {
            Side::Left
        } else {
            Side::Right
        };
        if fault.is_none() {
            grip(shared, &mut state, hand, position > 0.1);
        }
        let record = GoalRecord {
            action: action.clone(),
            joint_names: Vec::new(),
            times: Vec::new(),
            positions: Vec::new(),
            gripper_position: Some(position),
        };
        let result = json!({"position": position, "effort": 0.0, "stalled": position > 0.1, "reached_goal": position <= 0.1});
        (
            record,
            vec![format!("{side}_hand_finger_joint")],
            vec![(0.3, vec![position])],
            result,
        )
    } else if trajectories.contains(&&action) {
        let trajectory = goal.get("trajectory").cloned().unwrap_or(Value::Null);
        let names: Vec<String> = trajectory
            .get("joint_names")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let mut points = Vec::new();
        for p in trajectory
            .get("points")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let t = p
                .get("time_from_start")
                .and_then(protocol::seconds)
                .unwrap_or(-1.0);
            let pos: Vec<f64> = p
                .get("positions")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect())
                .unwrap_or_default();
            points.push((t, pos));
        }
        let record = GoalRecord {
            action: action.clone(),
            joint_names: names.clone(),
            times: points.iter().map(|p| p.0).collect(),
            positions: points.iter().map(|p| p.1.clone()).collect(),
            gripper_position: None,
        };
        state.goals.push(record.clone());
        shared.goal_arrived.notify_waiters();
        // What a joint trajectory controller checks before accepting a goal.
        let known = names.iter().all(|n| state.joints.contains_key(n));
        let increasing = points.windows(2).all(|w| w[1].0 > w[0].0)
            && points.first().is_some_and(|p| p.0 >= 0.0);
        let sized = points
            .iter()
            .all(|p| p.1.len() == names.len() && p.1.iter().all(|v| v.is_finite()));
        if names.is_empty() || points.is_empty() || !known || !increasing || !sized {
            return rejected("Action goal was rejected");
        }
        let result = json!({"error_code": 0, "error_string": ""});
        return start(
            &mut state,
            fault,
            Motion {
                goal_id: id,
                action,
                joints: names,
                start: Vec::new(),
                points,
                began: Instant::now(),
                abort: None,
                reply: reply.clone(),
                result,
            },
        );
    } else {
        return rejected("Action goal was rejected: no such action server");
    };
    state.goals.push(record.clone());
    shared.goal_arrived.notify_waiters();
    start(
        &mut state,
        fault,
        Motion {
            goal_id: id,
            action,
            joints,
            start: Vec::new(),
            points,
            began: Instant::now(),
            abort: None,
            reply: reply.clone(),
            result,
        },
    )
}

fn start(state: &mut State, fault: Option<Fault>, mut motion: Motion) -> Option<String> {
    match fault {
        Some(Fault::Reject) => {
            return Some(
                json!({"op": "action_result", "id": motion.goal_id, "action": motion.action,
                    "values": "Action goal was rejected", "status": 0, "result": false})
                .to_string(),
            )
        }
        Some(Fault::Abort { after, reason }) => motion.abort = Some((after, reason)),
        None => {}
    }
    motion.start = motion
        .joints
        .iter()
        .map(|n| state.joints.get(n).copied().unwrap_or(0.0))
        .collect();
    // A new goal on a controller preempts the one it was running.
    if let Some(i) = state.motions.iter().position(|m| m.action == motion.action) {
        let old = state.motions.remove(i);
        let _ = old.reply.send(
            json!({"op": "action_result", "id": old.goal_id, "action": old.action,
                "values": {"error_code": 0, "error_string": "preempted"}, "status": STATUS_CANCELED, "result": true})
            .to_string(),
        );
    }
    state.motions.push(motion);
    None
}

/// The tool centre of one arm in the world, from the mock's joints.
fn hand_position(shared: &Shared, state: &State, side: Side) -> Option<Vec3> {
    let robot = shared.robot.as_ref()?;
    let arm = shared.joint_map.arm(side);
    let driver: [f64; 7] = std::array::from_fn(|i| {
        arm.names
            .get(i)
            .and_then(|n| state.joints.get(n))
            .copied()
            .unwrap_or(0.0)
    });
    let q = arm.twin_from_driver(&driver);
    Some(robot.arm(side).world_from_hand(&q).translation.into())
}

/// Closing picks up the nearest marked object within 12 cm of the hand; opening
/// lets it go — into the nearest person's hand when let go in the air within their
/// arm's length, else onto the table.
fn grip(shared: &Shared, state: &mut State, side: Side, close: bool) {
    let Some(hand) = hand_position(shared, state, side) else {
        return;
    };
    let world_from_camera = shared.camera_from_world.inverse();
    if close {
        let nearest = state
            .markers
            .iter()
            .map(|(id, p)| (*id, world_from_camera.transform_point3(*p)))
            .map(|(id, p)| (id, p, p.distance(hand)))
            .filter(|(_, _, d)| *d < 0.12 + shared.settings.perception.marker_height as f32)
            .min_by(|a, b| a.2.total_cmp(&b.2));
        state.carried[slot(side)] = nearest.map(|(id, p, _)| (id, p - hand));
        return;
    }
    let Some((id, _)) = state.carried[slot(side)].take() else {
        return;
    };
    let Some(at) = state
        .markers
        .get(&id)
        .map(|p| world_from_camera.transform_point3(*p))
    else {
        return;
    };
    // Let go in the air: the nearest person within arm's length takes it (their
    // hand moves there); let go on the table: it stays where it was put.
    let lifted =
        at.z > shared.table_height + shared.settings.perception.marker_height as f32 + 0.04;
    let taker = state
        .bodies
        .iter()
        .flat_map(|(body, joints)| {
            [(5, 8), (12, 15)]
                .into_iter()
                .filter_map(move |(shoulder, hand)| {
                    joints
                        .get(&shoulder)
                        .map(|p| (*body, hand, world_from_camera.transform_point3(*p)))
                })
        })
        .map(|(body, hand, shoulder)| (body, hand, shoulder.distance(at)))
        .filter(|(_, _, d)| lifted && *d < 0.9)
        .min_by(|a, b| a.2.total_cmp(&b.2));
    match taker {
        Some((body, joint, _)) => {
            let camera = shared.camera_from_world.transform_point3(at);
            if let Some(joints) = state.bodies.get_mut(&body) {
                joints.insert(joint, camera);
            }
        }
        None => {
            let on_table = at.truncate().extend(shared.table_height)
                + Vec3::Z * shared.settings.perception.marker_height as f32;
            state
                .markers
                .insert(id, shared.camera_from_world.transform_point3(on_table));
        }
    }
}

/// Carried markers follow their hands.
fn carry(shared: &Shared, state: &mut State) {
    for side in [Side::Left, Side::Right] {
        if let Some((id, offset)) = state.carried[slot(side)] {
            if let Some(hand) = hand_position(shared, state, side) {
                let camera = shared.camera_from_world.transform_point3(hand + offset);
                state.markers.insert(id, camera);
            }
        }
    }
}
