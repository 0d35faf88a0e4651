//! How many cores other programs leave free, for the recogniser's threads.
//!
//! Measured here (`tests/daemon_measure.rs`, front end, tiny.en): on an idle
//! 2-core machine two threads bring end of speech → turn from ~560 to ~430 ms;
//! with one core busy they take it to ~1200 ms (ggml's workers spin-wait for
//! each other), where one thread keeps ~570 ms. So the count follows the load:
//! the idle share of the machine over the last window, which starts afresh
//! after each recognition so that the recogniser's own work does not count.

use std::time::{Duration, Instant};

/// How often `/proc/stat` is read at most; the load of the last such window decides.
const WINDOW: Duration = Duration::from_millis(500);
/// A core counts as free when at least this much of it was idle (the daemon's
/// own audio, page and sound server take a share of the second core).
const FREE_SHARE: f64 = 0.5;

/// CPU time so far, in clock ticks: the machine's total and idle.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ticks {
    total: u64,
    idle: u64,
}

/// The cores left free by other programs over the last window.
#[derive(Debug)]
pub struct FreeCores {
    cores: usize,
    last: Option<(Instant, Ticks)>,
    free: f64,
}

impl FreeCores {
    /// Starts with every core taken as free until the first window is in.
    pub fn new() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self {
            cores,
            last: None,
            free: cores as f64,
        }
    }

    /// Reads the load when a window has passed; cheap to call for every block of audio.
    pub fn observe(&mut self) {
        let now = Instant::now();
        if self.last.is_some_and(|(at, _)| now - at < WINDOW) {
            return;
        }
        let Some(ticks) = read_ticks() else {
            return;
        };
        if let Some((_, before)) = self.last {
            if let Some(free) = free_cores(before, ticks, self.cores) {
                self.free = free;
            }
        }
        self.last = Some((now, ticks));
    }

    /// Starts the next window afresh: called when the recogniser is done, so
    /// that its own work is not taken for another program's (and another
    /// recogniser of the same process, as the evaluation runs two, counts
    /// as busy).
    pub fn restart(&mut self) {
        self.last = read_ticks().map(|ticks| (Instant::now(), ticks));
    }

    /// Threads for the recogniser: one per free core, at least one, at most `max`.
    pub fn threads(&self, max: u32) -> u32 {
        threads_for(self.free, max)
    }
}

impl Default for FreeCores {
    fn default() -> Self {
        Self::new()
    }
}

/// One thread per core at least [`FREE_SHARE`] free, at least one, at most `max`.
fn threads_for(free: f64, max: u32) -> u32 {
    let whole = (free + (1.0 - FREE_SHARE)).floor().max(1.0);
    (whole as u32).clamp(1, max.max(1))
}

/// Cores idle between two readings.
fn free_cores(before: Ticks, now: Ticks, cores: usize) -> Option<f64> {
    let total = now.total.checked_sub(before.total)?;
    if total == 0 {
        return None;
    }
    let idle = now.idle.saturating_sub(before.idle);
    Some((idle as f64 / total as f64).min(1.0) * cores as f64)
}

fn read_ticks() -> Option<Ticks> {
    machine_ticks(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// The `cpu` line of `/proc/stat`: every field summed, and idle plus iowait.
fn machine_ticks(stat: &str) -> Option<Ticks> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let idle = fields.get(3)? + fields.get(4).copied().unwrap_or(0);
    // guest time is counted in user time already.
    let total = fields.iter().take(8).sum();
    Some(Ticks { total, idle })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_busy_elsewhere_leaves_one_thread() {
        // Two cores, one busy with another program: one free.
        assert_eq!(threads_for(1.0, 4), 1);
        assert_eq!(threads_for(1.2, 4), 1);
        assert_eq!(threads_for(1.6, 4), 2);
        // Both idle but for the VAD: two.
        assert_eq!(threads_for(1.85, 4), 2);
        assert_eq!(threads_for(2.0, 1), 1);
        assert_eq!(threads_for(0.1, 4), 1);
    }

    #[test]
    fn free_cores_are_the_idle_share() {
        let before = Ticks {
            total: 1000,
            idle: 500,
        };
        // 200 ticks over 2 cores, 120 of them idle.
        let now = Ticks {
            total: 1200,
            idle: 620,
        };
        let free = free_cores(before, now, 2).unwrap();
        assert!((free - 1.2).abs() < 1e-9, "{free}");
        assert_eq!(free_cores(now, before, 2), None);
        assert_eq!(free_cores(now, now, 2), None);
    }

    #[test]
    fn proc_files_are_read() {
        let stat = "cpu  4705 356 584 3699 23 0 35 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
        let t = machine_ticks(stat).unwrap();
        assert_eq!((t.total, t.idle), (4705 + 356 + 584 + 3699 + 23 + 35, 3722));
        assert_eq!(machine_ticks("garbage"), None);
        assert_eq!(machine_ticks("cpu  1 x 3"), None);
    }

    #[test]
    fn this_machine_is_read() {
        if cfg!(target_os = "linux") {
            assert!(read_ticks().is_some());
        }
        let mut cores = FreeCores::new();
        cores.observe();
        assert!(cores.threads(4) >= 1);
    }
}
