//! Robot kinematics for the twin: a bimanual robot (any arms of 6 to 8
//! revolute joints, from DH rows or a URDF) described as data, forward and inverse kinematics, collision geometry
//! and timed motion simulation with feasibility checks.
//!
//! # Public API
//!
//! - [`RobotDescription::load`]`(path)` / [`RobotDescription::from_toml_str`]`(text, origin)`
//!   read `scenes/robots/*.toml`; errors are [`DescriptionError`] naming the file and reason.
//! - [`Robot::new`]`(&description, world_from_robot)` places the robot; use
//!   [`world_from_robot`]`(x, y, yaw)` for the scene's `robot.position`.
//!   [`Robot::arm`]`(Side)` gives an [`ArmKinematics`]:
//!   - `world_from_hand(&q)`, `base_from_hand(&q)`, `link_frames(&q)` (joints + 2 world frames),
//!     `jacobian(&q)` ([`Jacobian`], 6 x joints, world frame), `capsules(&q)`, `joint_margin(&q)`;
//!   - `solve_ik(&IkTarget, &seed, &IkOptions) -> Result<IkSolution, IkError>` with targets
//!     [`IkTarget::Pose`], [`IkTarget::Position`], [`IkTarget::approach`] (position + hand
//!     z axis, free about it) and [`IkTarget::pose_free_about`] (pose, free about a world axis).
//! - [`Robot::self_clearance`]`(&q_left, &q_right)` → nearest pair of robot parts.
//! - [`Obstacles`] is the environment trait the caller implements; [`ObstacleSet`] is a
//!   ready parry3d implementation (`add_box`, `add_cylinder`, `add_capsule`, `add`).
//! - [`Robot::simulate`]`(&MotionRequest, &dyn Obstacles, &MotionOptions)` →
//!   `Result<`[`Motion`]`, `[`MotionFailure`]`>`; the failure's `Display` is one sentence
//!   ("the left forearm would hit box").
//! - [`Robot::plan_joint_motion`]`(&JointRequest, &dyn Obstacles, &MotionOptions, &JointPlanOptions)`
//!   → a timed joint-space [`Motion`] around obstacles (RRT-Connect, seeded, shortcut), for
//!   when a straight hand path collides.
//! - [`Robot::head_angles_towards`]`(point)` → pan/tilt for gazing.
//!
//! # Conventions
//!
//! - Joint vectors are [`Joints`] in radians, one value per joint of the arm, in the
//!   description's zero convention (for the Jaco's DH table: the arm stretched straight along
//!   the base z axis, Kinova's 180° for joints 2, 4 and 6; for a URDF: the URDF's zero).
//! - Frames: 0 = arm base, 1..=n after each joint, n + 1 = hand (tool centre between
//!   the fingers). Hand frame: z = approach direction out of the palm, x = closing direction.
//! - Transforms are named `a_from_b` (maps b coordinates into a).

mod chain;
mod collision;
mod description;
mod hand;
mod ik;
mod ik_memo;
mod joint_planner;
mod joints;
mod model;
mod motion;
mod packages;
mod pose;
mod robot;
mod urdf;

#[cfg(test)]
mod tests;

pub use chain::{jacobian_from_frames, ArmKinematics, Jacobian, LinkFrames, Side, MAX_FRAMES};
pub use collision::{
    point_segment_distance, segment_distance, signed_distance, Capsule, Clearance, Obstacle,
    ObstacleSet, Obstacles, Sphere,
};
pub use description::{
    ArmFile, ArmsDescription, ArmsFile, ChainDescription, DescriptionError, FixedCapsule,
    HandDescription, HandFile, HeadDescription, HeadFile, JointDescription, LinkDescription,
    PinchGrasp, PowerGrasp, RobotDescription, RobotFile, TorsoDescription, MIN_JOINTS,
};
pub use ik::{IkError, IkOptions, IkSolution, IkTarget, Lcg};
pub use joint_planner::{request_seed, JointPlanError, JointPlanOptions, JointRequest};
pub use joints::{Joints, MAX_JOINTS};
pub use model::{ArmModel, CapsuleEnd, JointModel, LinkCapsule};
pub use motion::{
    AttachedObject, Motion, MotionFailure, MotionOptions, MotionRequest, Sample, Violation,
    Waypoint,
};
pub use packages::PackageFolders;
pub use pose::{
    axis_error, frame_from_z_x, interpolate, min_jerk, pose_from_xyz_rpy_deg, quat_from_rpy_deg,
    rotation, rotation_error, translation, world_from_robot,
};
pub use robot::{HeadAngles, Robot, SelfClearance, StillArm};

/// The shipped description, relative to the crate root.
pub const DEFAULT_DESCRIPTION: &str = "scenes/robots/jaco2_bimanual.toml";
