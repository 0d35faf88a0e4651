//! A joint vector of one arm: as many joints as the arm has (6 or 7 for the
//! arms in use), stored inline so that it stays `Copy` and costs no
//! allocation in the planner's inner loops.

use std::ops::{Deref, DerefMut};

/// Most joints one arm may have (a description with more is refused).
pub const MAX_JOINTS: usize = 8;

/// Joint positions of one arm in radians, in the description's zero convention.
#[derive(Clone, Copy)]
pub struct Joints {
    len: u8,
    q: [f32; MAX_JOINTS],
}

impl Joints {
    /// `n` joints at zero (`n` is capped at [`MAX_JOINTS`]).
    pub fn zeros(n: usize) -> Self {
        Self {
            len: n.min(MAX_JOINTS) as u8,
            q: [0.0; MAX_JOINTS],
        }
    }

    /// The joints of a slice (at most [`MAX_JOINTS`] are kept; descriptions are
    /// validated against that bound before any vector is built).
    pub fn from_slice(q: &[f32]) -> Self {
        let mut out = Self::zeros(q.len());
        let n = out.len();
        out.q[..n].copy_from_slice(&q[..n]);
        out
    }

    /// A vector of `n` joints whose joint `i` is `f(i)`.
    pub fn from_fn(n: usize, mut f: impl FnMut(usize) -> f32) -> Self {
        let mut out = Self::zeros(n);
        for (i, v) in out.iter_mut().enumerate() {
            *v = f(i);
        }
        out
    }
}

impl Default for Joints {
    /// No joints at all (a placeholder before an arm is known).
    fn default() -> Self {
        Self::zeros(0)
    }
}

impl Deref for Joints {
    type Target = [f32];

    fn deref(&self) -> &[f32] {
        &self.q[..self.len as usize]
    }
}

impl DerefMut for Joints {
    fn deref_mut(&mut self) -> &mut [f32] {
        &mut self.q[..self.len as usize]
    }
}

impl PartialEq for Joints {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Joints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a Joints {
    type Item = &'a f32;
    type IntoIter = std::slice::Iter<'a, f32>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<const N: usize> From<[f32; N]> for Joints {
    fn from(q: [f32; N]) -> Self {
        Self::from_slice(&q)
    }
}

impl FromIterator<f32> for Joints {
    fn from_iter<I: IntoIterator<Item = f32>>(iter: I) -> Self {
        let mut out = Self::zeros(0);
        for v in iter.into_iter().take(MAX_JOINTS) {
            out.q[out.len as usize] = v;
            out.len += 1;
        }
        out
    }
}

impl serde::Serialize for Joints {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_follows_the_arm_and_equality_ignores_spare_capacity() {
        let six = Joints::from([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(six.len(), 6);
        assert_eq!(six[5], 6.0);
        let mut seven = Joints::zeros(7);
        seven[6] = 1.0;
        assert_eq!(seven.len(), 7);
        assert_ne!(Joints::zeros(6), Joints::zeros(7));
        let collected: Joints = (0..20).map(|i| i as f32).collect();
        assert_eq!(collected.len(), MAX_JOINTS);
        assert_eq!(format!("{:?}", Joints::from([0.5, 1.0])), "[0.5, 1.0]");
        assert_eq!(
            serde_json::to_string(&six).unwrap_or_default(),
            "[1.0,2.0,3.0,4.0,5.0,6.0]"
        );
    }
}
