//! The spoken run beside the typed run of the same turns: hearing figures and
//! the judged categories of both.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::eval::judge::Category;
use crate::eval::report::Summary;
use crate::eval::run::Judged;

/// Hearing figures and the two runs' categories.
#[derive(Debug, Clone, PartialEq)]
pub struct SpokenSummary {
    /// Turns spoken.
    pub turns: usize,
    /// Words of the scripts and errors against them.
    pub words: usize,
    /// Word errors.
    pub word_errors: usize,
    /// The table's names said, and heard.
    pub names: (usize, usize),
    /// Turns opening with a vocative, and those whose listener was found right.
    pub vocatives: (usize, usize),
    /// Turns from which no turn came out.
    pub not_heard: usize,
    /// Recognition per turn, ms: median and 95th percentile.
    pub turn_ms: (f64, f64),
    /// Categories typed and spoken.
    pub typed: BTreeMap<Category, usize>,
    /// Categories spoken.
    pub spoken: BTreeMap<Category, usize>,
    /// Turns undesired spoken that were not undesired typed: a mishearing made the robot act wrongly.
    pub misheard_undesired: usize,
    /// Turns right typed and not spoken.
    pub lost: usize,
}

impl SpokenSummary {
    /// The figures of a spoken run and the typed run of the same episodes (same order).
    pub fn of(typed: &[Judged], spoken: &[Judged]) -> Self {
        let scores: Vec<_> = spoken.iter().filter_map(|j| j.heard.as_ref()).collect();
        let mut ms: Vec<f64> = scores
            .iter()
            .filter(|h| h.heard)
            .map(|h| h.turn_ms)
            .collect();
        ms.sort_by(f64::total_cmp);
        let at = |p: f64| {
            if ms.is_empty() {
                0.0
            } else {
                ms[((ms.len() - 1) as f64 * p).round() as usize]
            }
        };
        let pairs = typed.iter().zip(spoken);
        Self {
            turns: scores.len(),
            words: scores.iter().map(|h| h.score.words).sum(),
            word_errors: scores.iter().map(|h| h.score.word_errors).sum(),
            names: (
                scores.iter().map(|h| h.score.names).sum(),
                scores.iter().map(|h| h.score.names_heard).sum(),
            ),
            vocatives: (
                scores.iter().filter(|h| h.score.vocative).count(),
                scores
                    .iter()
                    .filter(|h| h.score.vocative && h.score.listener_right)
                    .count(),
            ),
            not_heard: scores.iter().filter(|h| h.score.not_heard).count(),
            turn_ms: (at(0.5), at(0.95)),
            typed: Summary::of(typed).overall(),
            spoken: Summary::of(spoken).overall(),
            misheard_undesired: pairs
                .clone()
                .filter(|(t, s)| {
                    s.verdict.category == Category::Undesired
                        && t.verdict.category != Category::Undesired
                })
                .count(),
            lost: pairs
                .filter(|(t, s)| {
                    t.verdict.category == Category::Success
                        && s.verdict.category != Category::Success
                })
                .count(),
        }
    }

    /// Word error rate, 0..1.
    pub fn wer(&self) -> f64 {
        self.word_errors as f64 / self.words.max(1) as f64
    }

    /// The terminal table: typed and spoken side by side, then hearing.
    pub fn table(&self, title: &str) -> String {
        let mut out = format!("{title}\n{:<16}{:>8}{:>8}\n", "category", "typed", "spoken");
        for c in Category::ALL {
            let n = |m: &BTreeMap<Category, usize>| m.get(&c).copied().unwrap_or(0);
            let _ = writeln!(
                out,
                "{:<16}{:>8}{:>8}",
                c.as_str(),
                n(&self.typed),
                n(&self.spoken)
            );
        }
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        let _ = writeln!(
            out,
            "word error rate {:.1} % ({} of {} words); names heard {}/{} ({:.0} %); listener from a vocative {}/{}; not heard {}; \
             right typed but not spoken {}; undesired only spoken {}; recognition median {:.0} ms, 95th {:.0} ms",
            100.0 * self.wer(),
            self.word_errors,
            self.words,
            self.names.1,
            self.names.0,
            pct(self.names.1, self.names.0),
            self.vocatives.1,
            self.vocatives.0,
            self.not_heard,
            self.lost,
            self.misheard_undesired,
            self.turn_ms.0,
            self.turn_ms.1,
        );
        out
    }

    /// The `spoken_summary` event.
    pub fn to_json(&self, voice: &str, room: &str) -> Value {
        let categories = |m: &BTreeMap<Category, usize>| {
            Category::ALL
                .iter()
                .map(|c| {
                    (
                        c.as_str().to_string(),
                        json!(m.get(c).copied().unwrap_or(0)),
                    )
                })
                .collect::<serde_json::Map<_, _>>()
        };
        json!({
            "type": "spoken_summary",
            "voice": voice,
            "room": room,
            "turns": self.turns,
            "wer": self.wer(),
            "words": self.words,
            "word_errors": self.word_errors,
            "names": {"said": self.names.0, "heard": self.names.1},
            "listener": {"vocatives": self.vocatives.0, "right": self.vocatives.1},
            "not_heard": self.not_heard,
            "turn_ms": {"median": self.turn_ms.0, "p95": self.turn_ms.1},
            "typed": categories(&self.typed),
            "spoken": categories(&self.spoken),
            "lost": self.lost,
            "misheard_undesired": self.misheard_undesired,
        })
    }
}
