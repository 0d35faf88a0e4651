//! The bridge to a physical robot through rosbridge v2 (ROS 2): trajectories
//! out to the arms', hands' and head's controllers, joint states and
//! perception (ArUco markers, tracked bodies) in. See research/robot-bridge.md.

pub mod bridge;
pub mod client;
pub mod joints;
pub mod mock;
pub mod perception;
pub mod protocol;
pub mod settings;

pub use bridge::RobotBridge;
pub use settings::RobotSettings;
