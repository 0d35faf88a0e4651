//! Which of the robot's arms reach an object.
//!
//! This is the workspace approximation of *Digital twin I*: a reach sphere
//! around each arm's shoulder, measured to the object's grasp region. The
//! planner's inverse kinematics refines it where it is available.

use glam::{Vec2, Vec3};

use super::geometry::grasp_slice;
use super::world::{Hand, ObjectId, World};

/// Shoulder of each arm in the robot's frame (x forward, y left, z up from the floor).
const SHOULDER_IN_ROBOT: [(Hand, Vec3); 2] = [
    (Hand::Left, Vec3::new(0.15, 0.22, 1.0)),
    (Hand::Right, Vec3::new(0.15, -0.22, 1.0)),
];
/// Reach of one arm from its shoulder to the palm, metres (Jaco Gen2: about 0.9 m
/// to the wrist; a grasp needs some margin).
const ARM_REACH: f32 = 0.80;

/// One arm's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmReach {
    /// Which arm.
    pub arm: Hand,
    /// Whether it reaches.
    pub reachable: bool,
    /// Distance from its shoulder to the grasp region, metres.
    pub distance: f32,
}

/// Shoulder of an arm in world.
pub fn shoulder(world: &World, arm: Hand) -> Vec3 {
    let robot = &world.robot;
    let rotation = Vec2::from_angle(robot.yaw);
    let local = SHOULDER_IN_ROBOT
        .iter()
        .find(|(h, _)| *h == arm)
        .map(|(_, p)| *p)
        .unwrap_or(Vec3::ZERO);
    (robot.position + rotation.rotate(local.truncate())).extend(local.z)
}

/// Reach of both arms to an object's grasp region.
pub fn arms(world: &World, object: ObjectId) -> [ArmReach; 2] {
    let slice = grasp_slice(world, object);
    [Hand::Left, Hand::Right].map(|arm| {
        let distance = slice.distance_to_point(shoulder(world, arm));
        ArmReach {
            arm,
            reachable: distance <= ARM_REACH,
            distance,
        }
    })
}
