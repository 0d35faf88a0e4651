//! The driver's joint convention against the twin's: `driver = sign · twin + offset`
//! per joint, and reading one arm out of a `JointState`.

use std::collections::HashMap;

use crate::twin::kinematics::{Joints, Side};

use super::settings::{ArmSettings, RobotSettings};

/// One arm's joint names and convention.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmJoints {
    /// Driver joint names, base to tip.
    pub names: Vec<String>,
    offset_rad: Vec<f64>,
    sign: Vec<f64>,
}

impl ArmJoints {
    /// From validated settings.
    pub fn new(arm: &ArmSettings) -> Self {
        let n = arm.joints.len();
        let offset_rad = (0..n)
            .map(|i| arm.offset_deg.get(i).copied().unwrap_or(0.0).to_radians())
            .collect();
        let sign = (0..n)
            .map(|i| arm.sign.get(i).copied().unwrap_or(1.0))
            .collect();
        Self {
            names: arm.joints.clone(),
            offset_rad,
            sign,
        }
    }

    /// The driver's angles for twin joints.
    pub fn driver_from_twin(&self, q: &Joints) -> Vec<f64> {
        q.iter()
            .zip(self.sign.iter().zip(&self.offset_rad))
            .map(|(v, (sign, offset))| sign * f64::from(*v) + offset)
            .collect()
    }

    /// Twin joints for the driver's angles.
    pub fn twin_from_driver(&self, q: &[f64]) -> Joints {
        q.iter()
            .zip(self.sign.iter().zip(&self.offset_rad))
            .map(|(v, (sign, offset))| ((v - offset) * sign) as f32)
            .collect()
    }

    /// This arm's joints in a name → position map, or the names that are missing.
    pub fn read(&self, positions: &HashMap<String, f64>) -> Result<Joints, Vec<String>> {
        let mut q = vec![0.0; self.names.len()];
        let mut missing = Vec::new();
        for (i, name) in self.names.iter().enumerate() {
            match positions.get(name) {
                Some(v) if v.is_finite() => q[i] = *v,
                _ => missing.push(name.clone()),
            }
        }
        if missing.is_empty() {
            Ok(self.twin_from_driver(&q))
        } else {
            Err(missing)
        }
    }
}

/// Both arms.
#[derive(Debug, Clone, PartialEq)]
pub struct JointMap {
    left: ArmJoints,
    right: ArmJoints,
}

impl JointMap {
    /// From validated settings.
    pub fn new(settings: &RobotSettings) -> Self {
        Self {
            left: ArmJoints::new(&settings.left_arm),
            right: ArmJoints::new(&settings.right_arm),
        }
    }

    /// One arm.
    pub fn arm(&self, side: Side) -> &ArmJoints {
        match side {
            Side::Left => &self.left,
            Side::Right => &self.right,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinova_convention_round_trips() {
        // Jaco Gen2: joints 2, 4, 6 are 180 deg in Kinova's angles at the twin's zero.
        let arm = ArmSettings {
            action: String::new(),
            joints: (1..=7).map(|i| format!("j2s7s300_joint_{i}")).collect(),
            offset_deg: vec![0.0, 180.0, 0.0, 180.0, 0.0, 180.0, 0.0],
            sign: vec![1.0; 7],
        };
        let joints = ArmJoints::new(&arm);
        let q = Joints::from([0.1, -2.32, 0.3, 0.4, -0.5, 2.0, 0.7]);
        let driver = joints.driver_from_twin(&q);
        // Twin's -133 deg on joint 2 is Kinova's 47 deg, its lower limit.
        assert!((driver[1].to_degrees() - (180.0 - 132.9)).abs() < 0.1);
        let back = joints.twin_from_driver(&driver);
        assert_eq!(back.len(), 7);
        for i in 0..7 {
            assert!((back[i] - q[i]).abs() < 1e-5);
        }
    }

    #[test]
    fn missing_or_nan_joints_are_named() {
        let joints = ArmJoints::new(&ArmSettings::default());
        let mut positions: HashMap<String, f64> =
            (1..=6).map(|i| (format!("left_joint_{i}"), 0.0)).collect();
        positions.insert("left_joint_3".into(), f64::NAN);
        let missing = joints.read(&positions).unwrap_err();
        assert_eq!(missing, vec!["left_joint_3", "left_joint_7"]);
    }
}
