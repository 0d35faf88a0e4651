//! A stratified sample of the isolated grid (`--sample N --seed S`): the N
//! cases are spread evenly over the strata scenario x case type, and within a
//! stratum over layouts and phrasings; the same seed gives the same cases on
//! every machine and version (SplitMix64, no platform randomness).

use std::collections::BTreeMap;

use super::run::Episode;

/// SplitMix64: small, fast, and its sequence is fixed for a seed.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        // The modulo bias is below 2^-50 for the sizes used here.
        (self.next_u64() % n as u64) as usize
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// Picks `n` grid episodes, stratified by scenario x case type; episodes that
/// are not grid cases (dialogue scripts) are kept as they are. The result keeps
/// the grid's order. With `n` at least the grid's size, everything is kept.
pub fn stratified(episodes: Vec<Episode>, n: usize, seed: u64) -> Vec<Episode> {
    let grid_size = episodes.iter().filter(|e| e.cell.is_some()).count();
    if n >= grid_size {
        return episodes;
    }
    let mut rng = SplitMix64::new(seed);
    // Stratum -> indices of its episodes, in grid order.
    let mut strata: BTreeMap<(String, &'static str), Vec<usize>> = BTreeMap::new();
    for (i, e) in episodes.iter().enumerate() {
        if let (Some(cell), Some(case)) = (&e.cell, e.case) {
            strata
                .entry((cell.scenario.clone(), case.as_str()))
                .or_default()
                .push(i);
        }
    }
    let mut order: Vec<&(String, &'static str)> = strata.keys().collect();
    rng.shuffle(&mut order);
    let base = n / strata.len().max(1);
    let extra = n % strata.len().max(1);
    let mut quota: BTreeMap<(String, &'static str), usize> = BTreeMap::new();
    for (rank, key) in order.into_iter().enumerate() {
        quota.insert(key.clone(), base + usize::from(rank < extra));
    }
    let mut keep = vec![false; episodes.len()];
    for (key, members) in &strata {
        let want = quota.get(key).copied().unwrap_or(0).min(members.len());
        for i in balanced_pick(&episodes, members, want, &mut rng) {
            keep[i] = true;
        }
    }
    episodes
        .into_iter()
        .zip(keep)
        .filter(|(e, kept)| *kept || e.cell.is_none())
        .map(|(e, _)| e)
        .collect()
}

/// `want` members of one stratum, spread over layouts and phrasings: the k-th
/// pick takes layout `L[k mod a]` and phrasing `P[(k + k div a) mod b]` of
/// shuffled orders L and P, which covers every pair once before repeating one.
fn balanced_pick(
    episodes: &[Episode],
    members: &[usize],
    want: usize,
    rng: &mut SplitMix64,
) -> Vec<usize> {
    let mut layouts: Vec<usize> = members
        .iter()
        .filter_map(|&i| episodes[i].cell.as_ref().map(|c| c.layout))
        .collect();
    layouts.sort_unstable();
    layouts.dedup();
    let mut phrasings: Vec<usize> = members
        .iter()
        .filter_map(|&i| episodes[i].cell.as_ref().map(|c| c.phrasing))
        .collect();
    phrasings.sort_unstable();
    phrasings.dedup();
    rng.shuffle(&mut layouts);
    rng.shuffle(&mut phrasings);
    let (a, b) = (layouts.len().max(1), phrasings.len().max(1));
    let mut picked = Vec::with_capacity(want);
    for k in 0..a * b {
        if picked.len() == want {
            break;
        }
        let layout = layouts.get(k % a);
        let phrasing = phrasings.get((k + k / a) % b);
        if let Some(&i) = members.iter().find(|&&i| {
            episodes[i]
                .cell
                .as_ref()
                .is_some_and(|c| Some(&c.layout) == layout && Some(&c.phrasing) == phrasing)
        }) {
            picked.push(i);
        }
    }
    // A stratum that is not a full layout x phrasing grid: fill up at random.
    let mut rest: Vec<usize> = members
        .iter()
        .copied()
        .filter(|i| !picked.contains(i))
        .collect();
    rng.shuffle(&mut rest);
    picked.extend(rest.into_iter().take(want.saturating_sub(picked.len())));
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_is_fixed_for_a_seed() {
        // Reference values of SplitMix64 for seed 0.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }
}
