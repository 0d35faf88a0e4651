//! The digital twin: world model, geometry, human queries, robot kinematics,
//! action simulation and execution.

pub mod geometry;
pub mod hindrance;
pub mod kinds;
pub mod kinematics;
pub mod layouts;
pub mod robot_reach;
pub mod scene;
pub mod world;

pub use world::{Hand, ObjectId, PersonId, World};
