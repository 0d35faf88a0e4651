//! The rosbridge v2 protocol: the ops we send and receive, with the exact field
//! names of rosbridge_suite ≥ 2.0 (ROS 2 actions included), and the ROS message
//! shapes we use, as JSON.
//!
//! Pitfalls handled here (see research/robot-bridge.md §1): an `action_result`
//! with `result: true` still has to carry `status` 4 (SUCCEEDED); NaN arrives as
//! `null`; a server `publish` carries no `id`, so it is matched by topic; every
//! message type tolerates missing and unknown fields, since distros differ.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Value};

/// `action_msgs/GoalStatus`: the goal succeeded.
pub const STATUS_SUCCEEDED: i64 = 4;
/// `action_msgs/GoalStatus`: the goal was cancelled.
pub const STATUS_CANCELED: i64 = 5;
/// `action_msgs/GoalStatus`: the goal was aborted by the server.
pub const STATUS_ABORTED: i64 = 6;

/// A message from the server, parsed by its `op`.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A message on a subscribed topic (no `id`: match by topic).
    Publish { topic: String, msg: Value },
    /// The answer to `call_service`.
    ServiceResponse {
        id: Option<String>,
        service: String,
        values: Value,
        result: bool,
    },
    /// Feedback on an action goal.
    ActionFeedback { id: String, values: Value },
    /// The end of an action goal.
    ActionResult {
        id: String,
        action: String,
        values: Value,
        status: i64,
        result: bool,
    },
    /// A `status` op (rosbridge itself does not send these; other servers may).
    Status { level: String, msg: String },
}

/// Why a server message could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ProtocolError {
    /// Not JSON, or not an object.
    #[error("the robot bridge sent something that is not a JSON object: {0}")]
    NotJson(String),
    /// An op we do not handle.
    #[error("the robot bridge sent an op this client does not handle: {0}")]
    UnknownOp(String),
    /// A required field is missing or has the wrong type.
    #[error("the robot bridge's {op} message lacks a valid '{field}'")]
    Field { op: String, field: &'static str },
}

/// Reads one text frame from the server.
pub fn parse(text: &str) -> Result<Incoming, ProtocolError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| ProtocolError::NotJson(e.to_string()))?;
    let Value::Object(map) = value else {
        return Err(ProtocolError::NotJson(shorten(text)));
    };
    let op = map
        .get("op")
        .and_then(Value::as_str)
        .ok_or(ProtocolError::Field {
            op: "?".into(),
            field: "op",
        })?
        .to_string();
    let string = |field: &'static str| -> Result<String, ProtocolError> {
        map.get(field)
            .and_then(id_text)
            .ok_or_else(|| ProtocolError::Field {
                op: op.clone(),
                field,
            })
    };
    let values = map.get("values").cloned().unwrap_or(Value::Null);
    Ok(match op.as_str() {
        "publish" => Incoming::Publish {
            topic: string("topic")?,
            msg: map.get("msg").cloned().unwrap_or(Value::Null),
        },
        "service_response" => Incoming::ServiceResponse {
            id: map.get("id").and_then(id_text),
            service: string("service").unwrap_or_default(),
            values,
            result: map.get("result").and_then(Value::as_bool).unwrap_or(false),
        },
        "action_feedback" => Incoming::ActionFeedback {
            id: string("id")?,
            values,
        },
        "action_result" => Incoming::ActionResult {
            id: string("id")?,
            action: string("action").unwrap_or_default(),
            values,
            // A missing status is UNKNOWN (0), never success.
            status: map.get("status").and_then(Value::as_i64).unwrap_or(0),
            result: map.get("result").and_then(Value::as_bool).unwrap_or(false),
        },
        "status" => Incoming::Status {
            level: string("level").unwrap_or_default(),
            msg: string("msg").unwrap_or_default(),
        },
        other => return Err(ProtocolError::UnknownOp(other.to_string())),
    })
}

/// An `id` may be a string or a number.
fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn shorten(text: &str) -> String {
    text.chars().take(80).collect()
}

/// `subscribe`, with rate limiting on the server side.
pub fn subscribe(topic: &str, msg_type: &str, throttle_rate_ms: u32, queue_length: u32) -> Value {
    json!({"op": "subscribe", "id": format!("sub:{topic}"), "topic": topic, "type": msg_type,
           "throttle_rate": throttle_rate_ms, "queue_length": queue_length})
}

/// `unsubscribe`.
pub fn unsubscribe(topic: &str) -> Value {
    json!({"op": "unsubscribe", "id": format!("sub:{topic}"), "topic": topic})
}

/// `advertise`.
pub fn advertise(topic: &str, msg_type: &str) -> Value {
    json!({"op": "advertise", "id": format!("adv:{topic}"), "topic": topic, "type": msg_type})
}

/// `publish` (client to server).
pub fn publish(topic: &str, msg: &Value) -> Value {
    json!({"op": "publish", "topic": topic, "msg": msg})
}

/// `call_service`.
pub fn call_service(id: &str, service: &str, args: &Value) -> Value {
    json!({"op": "call_service", "id": id, "service": service, "args": args})
}

/// `send_action_goal` (rosbridge ≥ 2.0): `args` is the goal.
pub fn send_action_goal(id: &str, action: &str, action_type: &str, goal: &Value) -> Value {
    json!({"op": "send_action_goal", "id": id, "action": action, "action_type": action_type,
           "args": goal, "feedback": true})
}

/// `cancel_action_goal`: the `id` is the goal's.
pub fn cancel_action_goal(id: &str, action: &str) -> Value {
    json!({"op": "cancel_action_goal", "id": id, "action": action})
}

/// `builtin_interfaces/Duration` (and `Time`): `{sec, nanosec}`.
pub fn duration(seconds: f64) -> Value {
    let seconds = seconds.max(0.0);
    let sec = seconds.floor();
    let nanosec = ((seconds - sec) * 1e9).round().min(999_999_999.0);
    json!({"sec": sec as i64, "nanosec": nanosec as u64})
}

/// Reads a `Duration`/`Time` in either spelling (`sec`/`nanosec` or `secs`/`nsecs`).
pub fn seconds(v: &Value) -> Option<f64> {
    let sec = v.get("sec").or_else(|| v.get("secs"))?.as_f64()?;
    let nsec = v
        .get("nanosec")
        .or_else(|| v.get("nsecs"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    Some(sec + nsec * 1e-9)
}

/// A float that may arrive as `null` (NaN or Inf on the ROS side).
fn nullable_f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

fn nullable_vec<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    let v: Option<Vec<Option<f64>>> = Option::deserialize(d)?;
    Ok(v.unwrap_or_default()
        .into_iter()
        .map(|x| x.unwrap_or(f64::NAN))
        .collect())
}

/// `std_msgs/Header`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Header {
    /// Stamp as `{sec, nanosec}`.
    pub stamp: Value,
    /// The frame the data is in.
    pub frame_id: String,
}

/// `sensor_msgs/JointState`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct JointState {
    /// Header.
    pub header: Header,
    /// Joint names.
    pub name: Vec<String>,
    /// Positions (rad), parallel to `name`; NaN where unknown.
    #[serde(deserialize_with = "nullable_vec")]
    pub position: Vec<f64>,
}

/// `geometry_msgs/Point` (and `Vector3`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Point {
    /// x (m).
    #[serde(deserialize_with = "nullable_f64")]
    pub x: f64,
    /// y (m).
    #[serde(deserialize_with = "nullable_f64")]
    pub y: f64,
    /// z (m).
    #[serde(deserialize_with = "nullable_f64")]
    pub z: f64,
}

/// `geometry_msgs/Quaternion`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Quaternion {
    /// x.
    #[serde(deserialize_with = "nullable_f64")]
    pub x: f64,
    /// y.
    #[serde(deserialize_with = "nullable_f64")]
    pub y: f64,
    /// z.
    #[serde(deserialize_with = "nullable_f64")]
    pub z: f64,
    /// w.
    #[serde(deserialize_with = "nullable_f64")]
    pub w: f64,
}

impl Default for Quaternion {
    fn default() -> Self {
        Self {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        }
    }
}

/// `geometry_msgs/Pose`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Pose {
    /// Position (m).
    pub position: Point,
    /// Orientation.
    pub orientation: Quaternion,
}

/// `ros2_aruco_interfaces/ArucoMarkers`: parallel ids and poses.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct ArucoMarkers {
    /// Header (the camera frame).
    pub header: Header,
    /// Marker ids.
    pub marker_ids: Vec<i64>,
    /// Marker poses in the header's frame.
    pub poses: Vec<Pose>,
}

/// One `visualization_msgs/Marker` (only the fields the body tracker fills that we use).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct Marker {
    /// Header (the depth camera frame).
    pub header: Header,
    /// `body_id * 100 + joint_index` for the Azure Kinect body tracker.
    pub id: i64,
    /// 0 add/modify, 2 delete, 3 delete all.
    pub action: i64,
    /// The joint's pose.
    pub pose: Pose,
}

/// `visualization_msgs/MarkerArray`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct MarkerArray {
    /// The markers.
    pub markers: Vec<Marker>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_with_result_true_but_status_aborted_is_kept_as_aborted() {
        let m = parse(r#"{"op":"action_result","id":"g1","action":"/a","values":{"error_code":-4,"error_string":"path tolerance"},"status":6,"result":true}"#).unwrap();
        match m {
            Incoming::ActionResult { status, result, .. } => {
                assert_eq!(status, STATUS_ABORTED);
                assert!(result);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_result_without_status_is_unknown_not_success() {
        let m = parse(
            r#"{"op":"action_result","id":7,"values":"Action goal was rejected","result":false}"#,
        )
        .unwrap();
        assert_eq!(
            m,
            Incoming::ActionResult {
                id: "7".into(),
                action: String::new(),
                values: json!("Action goal was rejected"),
                status: 0,
                result: false
            }
        );
    }

    #[test]
    fn nan_arrives_as_null_and_is_read_as_nan() {
        let js: JointState = serde_json::from_value(
            json!({"name":["a","b"],"position":[0.5,null],"velocity":[null,null]}),
        )
        .unwrap();
        assert_eq!(js.position[0], 0.5);
        assert!(js.position[1].is_nan());
        let p: Point = serde_json::from_value(json!({"x":null,"y":1.0})).unwrap();
        assert!(p.x.is_nan() && p.y == 1.0 && p.z == 0.0);
    }

    #[test]
    fn server_publish_has_no_id_and_is_matched_by_topic() {
        let m = parse(r#"{"op":"publish","topic":"/joint_states","msg":{"name":[]}}"#).unwrap();
        assert!(matches!(m, Incoming::Publish { topic, .. } if topic == "/joint_states"));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(matches!(parse("nope"), Err(ProtocolError::NotJson(_))));
        assert!(matches!(parse("[1]"), Err(ProtocolError::NotJson(_))));
        assert!(matches!(
            parse(r#"{"x":1}"#),
            Err(ProtocolError::Field { .. })
        ));
        assert!(matches!(
            parse(r#"{"op":"fly"}"#),
            Err(ProtocolError::UnknownOp(_))
        ));
        assert!(matches!(
            parse(r#"{"op":"publish"}"#),
            Err(ProtocolError::Field { .. })
        ));
    }

    #[test]
    fn durations_round_trip_in_both_spellings() {
        assert_eq!(duration(1.25), json!({"sec":1,"nanosec":250000000}));
        assert_eq!(seconds(&json!({"secs":2,"nsecs":500000000})), Some(2.5));
        assert_eq!(
            seconds(&duration(0.06)).map(|s| (s * 1e3).round()),
            Some(60.0)
        );
    }

    #[test]
    fn goal_op_has_the_exact_rosbridge_fields() {
        let g = send_action_goal(
            "g1",
            "/left_arm_controller/follow_joint_trajectory",
            "control_msgs/action/FollowJointTrajectory",
            &json!({}),
        );
        for field in ["op", "id", "action", "action_type", "args", "feedback"] {
            assert!(g.get(field).is_some(), "{field}");
        }
        let c = cancel_action_goal("g1", "/a");
        assert_eq!(c["op"], "cancel_action_goal");
        assert_eq!(c["id"], "g1");
    }
}
