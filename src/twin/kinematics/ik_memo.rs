//! A memo of one arm's inverse-kinematics answers. The planner asks the same arm for the
//! same target from the same seed many times: every rung of a stage's ladder and every
//! level of effort plans its approach again from the same joints (on the shipped tables
//! about two of three solves repeat an earlier one). `solve_ik` is a pure function of
//! the arm, the target, the seed and the options, so an answer kept is the answer.

use std::collections::HashMap;
use std::sync::Mutex;

use glam::Vec3;

use super::ik::{IkError, IkOptions, IkSolution, IkTarget};
use super::joints::{Joints, MAX_JOINTS};

/// Answers kept per arm before the memo starts afresh (a few MB at most).
const CAPACITY: usize = 16_384;

/// One solve's inputs, bit for bit (a different zero or NaN is only a miss).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct IkKey {
    target: [u32; 13],
    seed: [u32; MAX_JOINTS],
    seed_len: usize,
    options: [u64; 8],
}

impl IkKey {
    /// The key of `solve_ik(target, seed, options)`.
    pub(super) fn new(target: &IkTarget, seed: &Joints, options: &IkOptions) -> Self {
        let mut t = [0u32; 13];
        let mut put = |at: usize, v: Vec3| {
            t[at..at + 3].copy_from_slice(&[v.x.to_bits(), v.y.to_bits(), v.z.to_bits()]);
        };
        match target {
            IkTarget::Pose(pose) => {
                put(0, pose.matrix3.x_axis.into());
                put(3, pose.matrix3.y_axis.into());
                put(6, pose.matrix3.z_axis.into());
                put(9, pose.translation.into());
            }
            IkTarget::Position(p) => put(0, *p),
            IkTarget::Axis {
                position,
                hand_axis,
                world_axis,
            } => {
                put(0, *position);
                put(3, *hand_axis);
                put(6, *world_axis);
            }
        }
        t[12] = match target {
            IkTarget::Pose(_) => 0,
            IkTarget::Position(_) => 1,
            IkTarget::Axis { .. } => 2,
        };
        let mut seed_bits = [0u32; MAX_JOINTS];
        for (b, q) in seed_bits.iter_mut().zip(seed.iter()) {
            *b = q.to_bits();
        }
        let o = options;
        Self {
            target: t,
            seed: seed_bits,
            seed_len: seed.len(),
            options: [
                o.max_iterations as u64,
                u64::from(o.position_tolerance.to_bits()),
                u64::from(o.orientation_tolerance.to_bits()),
                o.restarts as u64,
                u64::from(o.rotation_weight.to_bits()),
                u64::from(o.limit_avoidance.to_bits()),
                u64::from(o.max_step.to_bits()),
                u64::from(o.max_travel.to_bits()),
            ],
        }
    }
}

/// What one solve answered.
pub(super) type IkAnswer = Result<IkSolution, IkError>;

/// The memo itself, shared by the planner's threads; a clone starts empty.
#[derive(Default)]
pub(super) struct IkMemo(Mutex<HashMap<IkKey, IkAnswer>>);

impl IkMemo {
    /// The kept answer for `key`, if any.
    pub(super) fn get(&self, key: &IkKey) -> Option<IkAnswer> {
        // A poisoned memo only means a panic elsewhere; its answers are still right.
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(key).copied()
    }

    /// Keeps `answer` for `key`.
    pub(super) fn put(&self, key: IkKey, answer: IkAnswer) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= CAPACITY {
            map.clear();
        }
        map.insert(key, answer);
    }
}

impl Clone for IkMemo {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for IkMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.0.lock().map_or(0, |m| m.len());
        write!(f, "IkMemo({kept} answers)")
    }
}
