//! Inverse kinematics: damped least squares (Levenberg-Marquardt style
//! adaptive damping) with joint clamping and null-space limit avoidance,
//! warm-started from a seed, with optional deterministic restarts.

use glam::{Affine3A, Vec3, Vec3A};
use thiserror::Error;

use super::chain::{jacobian_from_frames, ArmKinematics, LinkFrames};
use super::ik_memo::IkKey;
use super::joints::{Joints, MAX_JOINTS};
use super::pose::{axis_error, rotation_error};

/// What the hand should achieve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IkTarget {
    /// Full hand pose `world_from_hand`.
    Pose(Affine3A),
    /// Hand position only; any orientation.
    Position(Vec3),
    /// Hand position, and the hand-frame direction `hand_axis` pointing along the world
    /// direction `world_axis`; rotation about that axis is free.
    Axis {
        /// Tool-centre position in the world.
        position: Vec3,
        /// Unit direction in the hand frame.
        hand_axis: Vec3,
        /// Unit direction in the world.
        world_axis: Vec3,
    },
}

impl IkTarget {
    /// Hand at `position`, approaching (hand z) along `approach`, free rotation about the approach.
    pub fn approach(position: Vec3, approach: Vec3) -> Self {
        IkTarget::Axis {
            position,
            hand_axis: Vec3::Z,
            world_axis: approach.normalize_or(Vec3::Z),
        }
    }

    /// The orientation of `world_from_hand` up to any rotation about the world axis `axis`
    /// (e.g. a side grasp of a bottle may turn freely about world z).
    pub fn pose_free_about(world_from_hand: Affine3A, axis: Vec3) -> Self {
        let axis = axis.normalize_or(Vec3::Z);
        let hand_axis = world_from_hand.matrix3.inverse() * Vec3A::from(axis);
        IkTarget::Axis {
            position: Vec3::from(world_from_hand.translation),
            hand_axis: Vec3::from(hand_axis).normalize_or(Vec3::Z),
            world_axis: axis,
        }
    }

    /// Target tool-centre position.
    pub fn position(&self) -> Vec3 {
        match self {
            IkTarget::Pose(t) => Vec3::from(t.translation),
            IkTarget::Position(p) => *p,
            IkTarget::Axis { position, .. } => *position,
        }
    }

    /// Position residual (m) and orientation residual (rad) of a hand pose.
    pub fn residual(&self, world_from_hand: &Affine3A) -> (f32, f32) {
        let (e, _) = task_error(self, world_from_hand, 1.0);
        let p = Vec3::new(e[0], e[1], e[2]).length();
        let r = Vec3::new(e[3], e[4], e[5]).length();
        (p, r)
    }
}

/// Solver settings; the defaults suit table-top manipulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkOptions {
    /// Iterations per attempt.
    pub max_iterations: usize,
    /// Accepted position error (m).
    pub position_tolerance: f32,
    /// Accepted orientation error (rad).
    pub orientation_tolerance: f32,
    /// Extra attempts from home and pseudo-random seeds after the given seed fails.
    pub restarts: usize,
    /// Metres per radian when mixing orientation into the error.
    pub rotation_weight: f32,
    /// Strength of the null-space pull towards mid-range on limited joints.
    pub limit_avoidance: f32,
    /// Largest joint change per iteration (rad).
    pub max_step: f32,
    /// Largest total change of any joint from the seed (rad); bounds speed while tracking.
    pub max_travel: f32,
}

impl Default for IkOptions {
    fn default() -> Self {
        Self {
            max_iterations: 80,
            position_tolerance: 1e-3,
            orientation_tolerance: 1e-2,
            restarts: 6,
            rotation_weight: 0.3,
            limit_avoidance: 0.02,
            max_step: 0.35,
            max_travel: f32::INFINITY,
        }
    }
}

impl IkOptions {
    /// Settings for tracking a slowly moving target from the previous sample: no restarts,
    /// because a restart would jump to another arm configuration.
    pub fn tracking() -> Self {
        Self {
            restarts: 0,
            max_iterations: 40,
            ..Self::default()
        }
    }
}

/// A converged solution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkSolution {
    /// Joint vector within limits.
    pub q: Joints,
    /// Resulting hand pose.
    pub world_from_hand: Affine3A,
    /// Remaining position error (m).
    pub position_residual: f32,
    /// Remaining orientation error (rad).
    pub orientation_residual: f32,
    /// Iterations used, over all attempts.
    pub iterations: usize,
}

/// Why IK failed.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum IkError {
    /// No attempt met the tolerances; the best attempt is reported.
    #[error("inverse kinematics did not converge: {position_residual:.3} m and {orientation_residual:.3} rad off")]
    NotConverged {
        /// Best position error (m).
        position_residual: f32,
        /// Best orientation error (rad).
        orientation_residual: f32,
        /// Best joint vector found (within limits).
        best: Joints,
        /// A limited (non-continuous) joint resting on its limit in `best`, 0-based.
        at_limit: Option<usize>,
    },
}

/// Task error (position; weighted rotation) and the projector for the angular rows.
/// The projector is `None` for a full pose, `Some(Vec3::ZERO)`-like handling is encoded by `Mask`.
#[derive(Clone, Copy)]
enum Mask {
    Full,
    None,
    /// Free rotation about this (current, world) hand direction.
    FreeAbout(Vec3A),
}

fn task_error(target: &IkTarget, hand: &Affine3A, w: f32) -> ([f32; 6], Mask) {
    let p = Vec3::from(hand.translation);
    let (dp, dr, mask) = match target {
        IkTarget::Pose(t) => (
            Vec3::from(t.translation) - p,
            rotation_error(&hand.matrix3, &t.matrix3),
            Mask::Full,
        ),
        IkTarget::Position(pos) => (*pos - p, Vec3::ZERO, Mask::None),
        IkTarget::Axis {
            position,
            hand_axis,
            world_axis,
        } => {
            let u = hand.matrix3 * Vec3A::from(*hand_axis);
            (
                *position - p,
                axis_error(Vec3::from(u), *world_axis),
                Mask::FreeAbout(u),
            )
        }
    };
    ([dp.x, dp.y, dp.z, w * dr.x, w * dr.y, w * dr.z], mask)
}

fn norm2(e: &[f32; 6]) -> f32 {
    e.iter().map(|v| v * v).sum()
}

/// Cholesky factor of a 6x6 symmetric positive definite matrix.
struct Cholesky6([[f64; 6]; 6]);

// Index loops read like the textbook algorithm; iterators would obscure it.
#[allow(clippy::needless_range_loop)]
impl Cholesky6 {
    fn new(a: &[[f64; 6]; 6]) -> Option<Self> {
        let mut l = [[0.0f64; 6]; 6];
        for i in 0..6 {
            for j in 0..=i {
                let mut s = a[i][j];
                for k in 0..j {
                    s -= l[i][k] * l[j][k];
                }
                if i == j {
                    if s <= 0.0 {
                        return None;
                    }
                    l[i][i] = s.sqrt();
                } else {
                    l[i][j] = s / l[j][j];
                }
            }
        }
        Some(Self(l))
    }

    fn solve(&self, b: &[f64; 6]) -> [f64; 6] {
        let l = &self.0;
        let mut y = [0.0; 6];
        for i in 0..6 {
            let mut s = b[i];
            for k in 0..i {
                s -= l[i][k] * y[k];
            }
            y[i] = s / l[i][i];
        }
        let mut x = [0.0; 6];
        for i in (0..6).rev() {
            let mut s = y[i];
            for k in i + 1..6 {
                s -= l[k][i] * x[k];
            }
            x[i] = s / l[i][i];
        }
        x
    }
}

/// Tiny deterministic generator for restart seeds (no rand dependency).
#[derive(Debug, Clone)]
pub struct Lcg(u64);

impl Lcg {
    /// Generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// Uniform in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32) / ((1u64 << 24) as f32)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }
}

struct Attempt {
    q: Joints,
    frames: LinkFrames,
    pos: f32,
    rot: f32,
    cost: f32,
    iterations: usize,
}

impl ArmKinematics {
    /// Solves IK for `target`, starting from `seed` (clamped into the limits). An answer
    /// given before for the same inputs is given again without solving.
    pub fn solve_ik(
        &self,
        target: &IkTarget,
        seed: &Joints,
        options: &IkOptions,
    ) -> Result<IkSolution, IkError> {
        let key = IkKey::new(target, seed, options);
        if let Some(answer) = self.ik_memo.get(&key) {
            return answer;
        }
        let answer = self.solve_ik_afresh(target, seed, options);
        self.ik_memo.put(key, answer);
        answer
    }

    /// [`Self::solve_ik`] without the memo: what one solve costs.
    pub fn solve_ik_afresh(
        &self,
        target: &IkTarget,
        seed: &Joints,
        options: &IkOptions,
    ) -> Result<IkSolution, IkError> {
        let mut best: Option<Attempt> = None;
        let mut iterations = 0;
        let mut rng = Lcg::new(0x5EED);
        for attempt in 0..=options.restarts {
            let start = match attempt {
                0 => *seed,
                1 => self.home,
                _ => self.random_joints(&mut rng),
            };
            let a = self.solve_once(target, &start, options);
            iterations += a.iterations;
            if a.pos <= options.position_tolerance && a.rot <= options.orientation_tolerance {
                return Ok(IkSolution {
                    q: a.q,
                    world_from_hand: *a.frames.hand(),
                    position_residual: a.pos,
                    orientation_residual: a.rot,
                    iterations,
                });
            }
            if best.as_ref().is_none_or(|b| a.cost < b.cost) {
                best = Some(a);
            }
        }
        // `restarts` >= 0 means at least one attempt ran.
        let b = best.unwrap_or_else(|| self.solve_once(target, seed, options));
        let at_limit = (0..self.dof()).find(|&i| {
            !self.continuous[i]
                && (b.q[i] <= self.lower[i] + 1e-3 || b.q[i] >= self.upper[i] - 1e-3)
        });
        Err(IkError::NotConverged {
            position_residual: b.pos,
            orientation_residual: b.rot,
            best: b.q,
            at_limit,
        })
    }

    /// Random joints inside the limits; continuous joints stay within one turn of zero.
    fn random_joints(&self, rng: &mut Lcg) -> Joints {
        let mut q = Joints::zeros(self.dof());
        for (i, qi) in q.iter_mut().enumerate() {
            let lo = self.lower[i].max(-std::f32::consts::PI);
            let hi = self.upper[i].min(std::f32::consts::PI);
            *qi = rng.range(lo, hi);
        }
        q
    }

    // Index loops mirror the matrix algebra (rows r, joints k).
    #[allow(clippy::needless_range_loop)]
    fn solve_once(&self, target: &IkTarget, seed: &Joints, o: &IkOptions) -> Attempt {
        let w = o.rotation_weight;
        let n = self.dof();
        let mut q = self.clamp(seed);
        let lo = Joints::from_fn(n, |i| self.lower[i].max(q[i] - o.max_travel));
        let hi = Joints::from_fn(n, |i| self.upper[i].min(q[i] + o.max_travel));
        let mut frames = self.link_frames(&q);
        let (mut e, mut mask) = task_error(target, frames.hand(), w);
        let mut cost = norm2(&e);
        let mut lambda: f32 = 0.01;
        let mut it = 0;
        let residual = |e: &[f32; 6]| {
            (
                Vec3::new(e[0], e[1], e[2]).length(),
                Vec3::new(e[3], e[4], e[5]).length() / w,
            )
        };
        while it < o.max_iterations {
            let (pe, re) = residual(&e);
            if pe <= o.position_tolerance && re <= o.orientation_tolerance {
                break;
            }
            it += 1;
            let mut j = jacobian_from_frames(&frames).0;
            for col in 0..n {
                let mut wv = Vec3A::new(j[3][col], j[4][col], j[5][col]) * w;
                match mask {
                    Mask::Full => {}
                    Mask::None => wv = Vec3A::ZERO,
                    Mask::FreeAbout(u) => wv -= u * u.dot(wv),
                }
                j[3][col] = wv.x;
                j[4][col] = wv.y;
                j[5][col] = wv.z;
            }
            // A = J J^T + lambda^2 I
            let mut a = [[0.0f64; 6]; 6];
            for r in 0..6 {
                for c in 0..=r {
                    let s: f32 = (0..n).map(|k| j[r][k] * j[c][k]).sum();
                    a[r][c] = s as f64;
                    a[c][r] = s as f64;
                }
                a[r][r] += (lambda * lambda) as f64;
            }
            let Some(chol) = Cholesky6::new(&a) else {
                break;
            };
            let y = chol.solve(&e.map(f64::from));
            let mut dq = [0.0f32; MAX_JOINTS];
            for (k, d) in dq.iter_mut().enumerate().take(n) {
                *d = (0..6).map(|r| j[r][k] * y[r] as f32).sum();
            }
            // Null-space pull towards mid-range of the limited joints, so the
            // redundancy is spent on keeping away from the stops.
            if o.limit_avoidance > 0.0 {
                let mut z = [0.0f32; MAX_JOINTS];
                for (i, zi) in z.iter_mut().enumerate().take(n) {
                    if !self.continuous[i] {
                        let mid = 0.5 * (self.lower[i] + self.upper[i]);
                        let half = 0.5 * (self.upper[i] - self.lower[i]);
                        *zi = -o.limit_avoidance * (q[i] - mid) / half;
                    }
                }
                let jz: [f64; 6] =
                    std::array::from_fn(|r| (0..n).map(|k| j[r][k] * z[k]).sum::<f32>() as f64);
                let yz = chol.solve(&jz);
                for k in 0..n {
                    dq[k] += z[k] - (0..6).map(|r| j[r][k] * yz[r] as f32).sum::<f32>();
                }
            }
            let biggest = dq.iter().fold(0.0f32, |m, d| m.max(d.abs()));
            if biggest > o.max_step {
                let s = o.max_step / biggest;
                dq.iter_mut().for_each(|d| *d *= s);
            }
            let mut q_new = q;
            for k in 0..n {
                q_new[k] = (q[k] + dq[k]).clamp(lo[k], hi[k]);
            }
            let frames_new = self.link_frames(&q_new);
            let (e_new, mask_new) = task_error(target, frames_new.hand(), w);
            let cost_new = norm2(&e_new);
            if cost_new < cost {
                q = q_new;
                frames = frames_new;
                e = e_new;
                mask = mask_new;
                cost = cost_new;
                lambda = (lambda * 0.5).max(1e-3);
            } else {
                lambda *= 4.0;
                if lambda > 5.0 {
                    break;
                }
            }
        }
        let (pos, rot) = residual(&e);
        Attempt {
            q,
            frames,
            pos,
            rot,
            cost,
            iterations: it,
        }
    }
}
