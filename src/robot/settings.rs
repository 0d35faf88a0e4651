//! `[robot]`: where the bridge is, which controllers and joints to drive, how
//! the driver's joint angles relate to the twin's, and where perception comes from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::twin::kinematics::{MAX_JOINTS, MIN_JOINTS};

/// The robot bridge's configuration (environment `ATTENTIVE_ROBOT__*`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RobotSettings {
    /// rosbridge WebSocket address, e.g. `ws://robot:9090`; none: actions run in the twin.
    pub url: Option<String>,
    /// The left arm's controller and joints.
    pub left_arm: ArmSettings,
    /// The right arm's controller and joints.
    pub right_arm: ArmSettings,
    /// The left hand's gripper action.
    pub left_hand: HandSettings,
    /// The right hand's gripper action.
    pub right_hand: HandSettings,
    /// The pan-tilt head.
    pub head: HeadSettings,
    /// `sensor_msgs/JointState` topic.
    pub joint_states: String,
    /// Joint states older than this refuse actions (ms).
    pub stale_after_ms: u64,
    /// How far a measured joint may be from the plan's end and still count as arrived (rad).
    pub joint_tolerance_rad: f64,
    /// Multiplies every planned duration (a real Jaco Gen2 turns at ~0.6 rad/s: use 3-4).
    pub time_scale: f64,
    /// Extra time a goal may take beyond its trajectory before it is cancelled (s).
    pub goal_timeout_slack_s: f64,
    /// Perception topics and the camera's pose.
    pub perception: PerceptionSettings,
}

impl Default for RobotSettings {
    fn default() -> Self {
        Self {
            url: None,
            left_arm: ArmSettings::named("left"),
            right_arm: ArmSettings::named("right"),
            left_hand: HandSettings::named("left"),
            right_hand: HandSettings::named("right"),
            head: HeadSettings::default(),
            joint_states: "/joint_states".into(),
            stale_after_ms: 500,
            joint_tolerance_rad: 0.05,
            time_scale: 1.0,
            goal_timeout_slack_s: 5.0,
            perception: PerceptionSettings::default(),
        }
    }
}

/// One arm: its `FollowJointTrajectory` action, joint names and conventions.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ArmSettings {
    /// The controller's action, e.g. `/left_arm_controller/follow_joint_trajectory`.
    pub action: String,
    /// The driver's joint names, base to tip, as many as the robot description's arm has.
    pub joints: Vec<String>,
    /// `driver = sign · twin + offset` per joint: the offsets (degrees).
    pub offset_deg: Vec<f64>,
    /// ... and the signs (+1 or -1).
    pub sign: Vec<f64>,
}

impl ArmSettings {
    fn named(side: &str) -> Self {
        Self {
            action: format!("/{side}_arm_controller/follow_joint_trajectory"),
            joints: (1..=7).map(|i| format!("{side}_joint_{i}")).collect(),
            offset_deg: vec![0.0; 7],
            sign: vec![1.0; 7],
        }
    }
}

impl Default for ArmSettings {
    fn default() -> Self {
        Self::named("left")
    }
}

/// One hand: its `control_msgs/action/GripperCommand` action.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct HandSettings {
    /// e.g. `/left_hand_controller/gripper_cmd`.
    pub action: String,
    /// Gripper position when closed on an object.
    pub closed_position: f64,
    /// Gripper position when open.
    pub open_position: f64,
    /// Grip force limit (N; 0 = the driver's default).
    pub max_effort: f64,
}

impl HandSettings {
    fn named(side: &str) -> Self {
        Self {
            action: format!("/{side}_hand_controller/gripper_cmd"),
            closed_position: 0.8,
            open_position: 0.0,
            max_effort: 10.0,
        }
    }
}

impl Default for HandSettings {
    fn default() -> Self {
        Self::named("left")
    }
}

/// The pan-tilt head as a joint trajectory controller.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct HeadSettings {
    /// The head controller's action.
    pub action: String,
    /// Pan joint name.
    pub pan_joint: String,
    /// Tilt joint name.
    pub tilt_joint: String,
    /// Time to turn the head (s, before `time_scale`).
    pub move_s: f64,
}

impl Default for HeadSettings {
    fn default() -> Self {
        Self {
            action: "/head_controller/follow_joint_trajectory".into(),
            pan_joint: "head_pan_joint".into(),
            tilt_joint: "head_tilt_joint".into(),
            move_s: 0.8,
        }
    }
}

/// Perception: ArUco markers for objects, body tracking for people.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PerceptionSettings {
    /// `ros2_aruco_interfaces/ArucoMarkers` topic; empty: objects are not tracked.
    pub aruco_topic: String,
    /// Marker id → object name.
    pub markers: BTreeMap<String, String>,
    /// Azure Kinect `visualization_msgs/MarkerArray` topic; empty: people are not tracked.
    pub body_topic: String,
    /// The camera's pose in the world: translation (m).
    pub world_from_camera_xyz: [f64; 3],
    /// ... and rotation as roll, pitch, yaw (degrees).
    pub world_from_camera_rpy_deg: [f64; 3],
    /// Height of a marker above the object's base (m); markers sit on the lid.
    pub marker_height: f64,
    /// An object this close to a person's hand is in that hand (m; the reference system's rule).
    pub hand_radius: f64,
    /// A tracked body is that scene person when its head is this close to their seat (m).
    pub match_radius: f64,
    /// Rate limit asked of the bridge for perception topics (ms).
    pub throttle_rate_ms: u32,
}

impl Default for PerceptionSettings {
    fn default() -> Self {
        Self {
            aruco_topic: "/aruco_markers".into(),
            markers: BTreeMap::new(),
            body_topic: "/body_tracking_data".into(),
            world_from_camera_xyz: [0.0, 0.0, 0.0],
            world_from_camera_rpy_deg: [0.0, 0.0, 0.0],
            marker_height: 0.0,
            hand_radius: 0.15,
            match_radius: 0.8,
            throttle_rate_ms: 50,
        }
    }
}

/// A problem in `[robot]`, as one sentence.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[error("[robot] {0}")]
pub struct RobotSettingsError(pub String);

impl RobotSettings {
    /// Checks that each arm names as many joints as the twin's robot has.
    pub fn matches(
        &self,
        robot: &crate::twin::kinematics::Robot,
    ) -> Result<(), RobotSettingsError> {
        use crate::twin::kinematics::Side;
        for (name, arm, side) in [
            ("left_arm", &self.left_arm, Side::Left),
            ("right_arm", &self.right_arm, Side::Right),
        ] {
            let twin = robot.arm(side).dof();
            if arm.joints.len() != twin {
                return Err(RobotSettingsError(format!(
                    "{name}.joints names {} joints, but {}'s {side} arm has {twin} ({})",
                    arm.joints.len(),
                    robot.name,
                    robot.arm(side).joint_names().collect::<Vec<_>>().join(", ")
                )));
            }
        }
        Ok(())
    }

    /// Checks the parts a typo would break at run time.
    pub fn validate(&self) -> Result<(), RobotSettingsError> {
        for (name, arm) in [("left_arm", &self.left_arm), ("right_arm", &self.right_arm)] {
            let n = arm.joints.len();
            if !(MIN_JOINTS..=MAX_JOINTS).contains(&n) {
                return Err(RobotSettingsError(format!(
                    "{name}.joints names {n} joints; an arm has {MIN_JOINTS} to {MAX_JOINTS}"
                )));
            }
            if arm.offset_deg.len() != n || arm.sign.len() != n {
                return Err(RobotSettingsError(format!(
                    "{name}.offset_deg and {name}.sign need {n} values each, one per joint"
                )));
            }
            if let Some(s) = arm.sign.iter().find(|s| (s.abs() - 1.0).abs() > 1e-9) {
                return Err(RobotSettingsError(format!(
                    "{name}.sign has {s}; each sign is 1 or -1"
                )));
            }
        }
        if !(self.time_scale.is_finite() && self.time_scale > 0.0) {
            return Err(RobotSettingsError(format!(
                "time_scale {} must be positive",
                self.time_scale
            )));
        }
        for (id, name) in &self.perception.markers {
            if id.trim().parse::<i64>().is_err() {
                return Err(RobotSettingsError(format!(
                    "perception.markers has key '{id}' for {name}; keys are marker ids (numbers)"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_contracts_names() {
        let s = RobotSettings::default();
        assert_eq!(
            s.left_arm.action,
            "/left_arm_controller/follow_joint_trajectory"
        );
        assert_eq!(s.right_arm.joints[6], "right_joint_7");
        assert_eq!(s.left_hand.action, "/left_hand_controller/gripper_cmd");
        assert_eq!(s.head.action, "/head_controller/follow_joint_trajectory");
        assert_eq!(s.joint_states, "/joint_states");
        assert!(s.validate().is_ok());
    }

    #[test]
    fn a_wrong_joint_count_or_sign_is_named() {
        let mut s = RobotSettings::default();
        s.left_arm.joints.truncate(5);
        assert!(s
            .validate()
            .unwrap_err()
            .0
            .contains("left_arm.joints names 5 joints"));
        let mut s = RobotSettings::default();
        s.left_arm.joints.pop();
        assert!(s.validate().unwrap_err().0.contains("need 6 values each"));
        s.left_arm.offset_deg.pop();
        s.left_arm.sign.pop();
        assert!(s.validate().is_ok(), "a six-joint arm is fine");
        let mut s = RobotSettings::default();
        s.right_arm.sign[2] = 0.5;
        assert!(s.validate().unwrap_err().0.contains("right_arm.sign"));
        let mut s = RobotSettings::default();
        s.perception
            .markers
            .insert("red".into(), "red_glass".into());
        assert!(s.validate().unwrap_err().0.contains("marker ids"));
    }
}
