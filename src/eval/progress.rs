//! A progress bar for long evaluations, on stderr only (never in `--json`
//! stdout): cases done, success so far, and the estimated time left.

use std::io::Write;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::judge::Category;
use super::run::{Judged, Progress};

/// Counts and the last redraw.
#[derive(Debug)]
struct State {
    done: usize,
    turns: usize,
    successes: usize,
    last_draw: Option<Instant>,
}

/// A progress display for `total` episodes.
#[derive(Debug)]
pub struct ProgressBar {
    total: usize,
    started: Instant,
    /// A terminal: redraw one line in place; else print a line now and then.
    terminal: bool,
    state: Mutex<State>,
}

impl ProgressBar {
    /// A bar for `total` episodes; `terminal` redraws in place.
    pub fn new(total: usize, terminal: bool) -> Self {
        Self {
            total,
            started: Instant::now(),
            terminal,
            state: Mutex::new(State {
                done: 0,
                turns: 0,
                successes: 0,
                last_draw: None,
            }),
        }
    }

    /// The line shown after `done` episodes with these counts, `elapsed` in.
    pub fn line(&self, done: usize, turns: usize, successes: usize, elapsed: Duration) -> String {
        let width = 24;
        let filled = (width * done) / self.total.max(1);
        let success = if turns == 0 {
            "-".to_string()
        } else {
            format!("{:.1}%", 100.0 * successes as f64 / turns as f64)
        };
        let left = if done == 0 {
            "?".to_string()
        } else {
            let secs =
                elapsed.as_secs_f64() / done as f64 * (self.total - done.min(self.total)) as f64;
            duration(secs)
        };
        format!(
            "[{}{}] {done}/{} cases, success so far {success}, about {left} left",
            "#".repeat(filled),
            ".".repeat(width - filled),
            self.total
        )
    }

    /// Clears the bar (a terminal) at the end of the run.
    pub fn finish(&self) {
        if self.terminal {
            eprint!("\r\x1b[K");
            let _ = std::io::stderr().flush();
        }
    }
}

impl Progress for ProgressBar {
    fn episode_done(&self, judged: &[Judged]) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.done += 1;
        state.turns += judged.len();
        state.successes += judged
            .iter()
            .filter(|j| j.verdict.category == Category::Success)
            .count();
        let now = Instant::now();
        // A terminal at most 10 times a second; a log every 10 % (and at the end).
        let due = if self.terminal {
            state
                .last_draw
                .is_none_or(|t| now.duration_since(t) >= Duration::from_millis(100))
                || state.done == self.total
        } else {
            let step = (self.total / 10).max(1);
            state.done.is_multiple_of(step) || state.done == self.total
        };
        if !due {
            return;
        }
        state.last_draw = Some(now);
        let line = self.line(
            state.done,
            state.turns,
            state.successes,
            self.started.elapsed(),
        );
        if self.terminal {
            eprint!("\r\x1b[K{line}");
            let _ = std::io::stderr().flush();
        } else {
            eprintln!("{line}");
        }
    }
}

/// `1h02m`, `3m20s`, `12s`.
fn duration(secs: f64) -> String {
    let secs = secs.round() as u64;
    match secs {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_cases_success_and_time_left() {
        let bar = ProgressBar::new(300, false);
        assert_eq!(
            bar.line(100, 100, 95, Duration::from_secs(2000)),
            "[########................] 100/300 cases, success so far 95.0%, about 1h06m left"
        );
        assert_eq!(
            bar.line(0, 0, 0, Duration::ZERO),
            "[........................] 0/300 cases, success so far -, about ? left"
        );
        assert_eq!(duration(200.0), "3m20s");
    }
}
