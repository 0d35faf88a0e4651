//! The cost of an evaluation, as seed 003 reports it beside the success rate:
//! LLM calls, prompt and completion tokens as the endpoint reported them
//! (`usage`; a reply without it counts as missing, never estimated), and wall
//! time per turn (median, 95th percentile).

use serde_json::{json, Value};

/// What one turn cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TurnCost {
    /// LLM calls the loop made (as in `episode_end`).
    pub llm_calls: u32,
    /// Calls whose reply carried `usage`.
    pub calls_with_usage: u32,
    /// Prompt tokens over those calls.
    pub prompt_tokens: u64,
    /// Completion tokens over those calls.
    pub completion_tokens: u64,
    /// Wall time of the turn, in microseconds.
    pub wall_us: u64,
}

impl TurnCost {
    /// Calls whose reply did not say what it cost.
    pub fn calls_without_usage(&self) -> u32 {
        self.llm_calls.saturating_sub(self.calls_with_usage)
    }

    /// The turn's figures for its `judged` event; tokens are `null` when no
    /// call of the turn reported usage.
    pub fn to_json(&self) -> Value {
        let known = self.llm_calls == 0 || self.calls_with_usage > 0;
        json!({
            "llm_calls": self.llm_calls,
            "prompt_tokens": known.then_some(self.prompt_tokens),
            "completion_tokens": known.then_some(self.completion_tokens),
            "calls_without_usage": self.calls_without_usage(),
            "wall_ms": ms(self.wall_us),
        })
    }
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// Cost added up over turns (a case type, or a whole run).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CostSummary {
    /// Turns counted.
    pub turns: usize,
    /// LLM calls.
    pub llm_calls: u64,
    /// Calls without `usage`.
    pub calls_without_usage: u64,
    /// Prompt tokens reported.
    pub prompt_tokens: u64,
    /// Completion tokens reported.
    pub completion_tokens: u64,
    /// Turns all of whose calls reported usage (the per-turn token means use these).
    pub turns_with_usage: usize,
    /// Prompt tokens of those turns.
    pub prompt_tokens_full: u64,
    /// Completion tokens of those turns.
    pub completion_tokens_full: u64,
    /// Wall times per turn, microseconds, sorted.
    pub wall_us: Vec<u64>,
}

impl CostSummary {
    /// Adds up turns.
    pub fn of<'a>(turns: impl IntoIterator<Item = &'a TurnCost>) -> Self {
        let mut s = Self::default();
        for t in turns {
            s.turns += 1;
            s.llm_calls += u64::from(t.llm_calls);
            s.calls_without_usage += u64::from(t.calls_without_usage());
            s.prompt_tokens += t.prompt_tokens;
            s.completion_tokens += t.completion_tokens;
            if t.calls_without_usage() == 0 {
                s.turns_with_usage += 1;
                s.prompt_tokens_full += t.prompt_tokens;
                s.completion_tokens_full += t.completion_tokens;
            }
            s.wall_us.push(t.wall_us);
        }
        s.wall_us.sort_unstable();
        s
    }

    /// The `p`-th percentile of the turn wall times (nearest rank), in ms.
    pub fn wall_percentile_ms(&self, p: f64) -> Option<f64> {
        if self.wall_us.is_empty() {
            return None;
        }
        let rank = ((p / 100.0) * self.wall_us.len() as f64).ceil() as usize;
        let index = rank.clamp(1, self.wall_us.len()) - 1;
        Some(ms(self.wall_us[index]))
    }

    /// Mean LLM calls per turn.
    pub fn calls_per_turn(&self) -> f64 {
        self.llm_calls as f64 / self.turns.max(1) as f64
    }

    /// Mean (prompt, completion) tokens per turn over the turns that reported
    /// all their usage; `None` when none did.
    pub fn tokens_per_turn(&self) -> Option<(f64, f64)> {
        (self.turns_with_usage > 0).then(|| {
            let n = self.turns_with_usage as f64;
            (
                self.prompt_tokens_full as f64 / n,
                self.completion_tokens_full as f64 / n,
            )
        })
    }

    /// The `cost` object of `eval_summary`.
    pub fn to_json(&self) -> Value {
        let known = self.llm_calls == 0 || self.calls_without_usage < self.llm_calls;
        let per_turn = self.tokens_per_turn();
        let round = |x: f64| (x * 100.0).round() / 100.0;
        json!({
            "turns": self.turns,
            "llm_calls": self.llm_calls,
            "prompt_tokens": known.then_some(self.prompt_tokens),
            "completion_tokens": known.then_some(self.completion_tokens),
            "calls_without_usage": self.calls_without_usage,
            "per_turn": {
                "llm_calls": round(self.calls_per_turn()),
                "prompt_tokens": per_turn.map(|p| round(p.0)),
                "completion_tokens": per_turn.map(|p| round(p.1)),
            },
            "wall_ms": {
                "median": self.wall_percentile_ms(50.0),
                "p95": self.wall_percentile_ms(95.0),
                "total": ms(self.wall_us.iter().sum()),
            },
        })
    }

    /// One line of the terminal's cost table.
    pub fn table_row(&self, row: &str) -> String {
        let tokens = match self.tokens_per_turn() {
            Some((p, c)) => format!("{p:>10.0} {c:>10.1}"),
            None => format!("{:>10} {:>10}", "-", "-"),
        };
        let wall = |p| {
            self.wall_percentile_ms(p)
                .map_or("-".to_string(), |ms| format!("{:.2}", ms / 1000.0))
        };
        format!(
            "{row:<16}{:>7}{:>11.2} {tokens}{:>10}{:>10}{:>10}\n",
            self.turns,
            self.calls_per_turn(),
            wall(50.0),
            wall(95.0),
            self.calls_without_usage
        )
    }

    /// The header of the terminal's cost table.
    pub fn table_header() -> String {
        format!(
            "{:<16}{:>7}{:>11} {:>10} {:>10}{:>10}{:>10}{:>10}\n",
            "cost", "turns", "calls/turn", "prompt/t", "complet/t", "median s", "p95 s", "no usage"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(calls: u32, with: u32, prompt: u64, completion: u64, wall_ms: u64) -> TurnCost {
        TurnCost {
            llm_calls: calls,
            calls_with_usage: with,
            prompt_tokens: prompt,
            completion_tokens: completion,
            wall_us: wall_ms * 1000,
        }
    }

    #[test]
    fn sums_means_and_percentiles() {
        let turns: Vec<TurnCost> = (1..=20)
            .map(|i| turn(2, 2, 100, 10, i * 100))
            .chain([turn(3, 1, 50, 5, 5000)])
            .collect();
        let s = CostSummary::of(&turns);
        assert_eq!(s.turns, 21);
        assert_eq!(s.llm_calls, 43);
        assert_eq!(s.calls_without_usage, 2);
        assert_eq!(s.prompt_tokens, 2050);
        // The turn with missing usage is left out of the means, not guessed.
        assert_eq!(s.tokens_per_turn(), Some((100.0, 10.0)));
        assert_eq!(s.wall_percentile_ms(50.0), Some(1100.0));
        assert_eq!(s.wall_percentile_ms(95.0), Some(2000.0));
        let json = s.to_json();
        assert_eq!(json["completion_tokens"], 205);
        assert_eq!(json["per_turn"]["llm_calls"], 2.05);
    }

    #[test]
    fn a_server_without_usage_gives_null_tokens_not_zero() {
        let t = turn(2, 0, 0, 0, 10);
        assert_eq!(t.to_json()["prompt_tokens"], Value::Null);
        assert_eq!(t.to_json()["calls_without_usage"], 2);
        let s = CostSummary::of(&[t]);
        assert_eq!(s.to_json()["completion_tokens"], Value::Null);
        assert_eq!(s.to_json()["per_turn"]["prompt_tokens"], Value::Null);
        // The rules baseline reports zero tokens: known, and zero.
        let rules = turn(3, 3, 0, 0, 1);
        assert_eq!(rules.to_json()["prompt_tokens"], 0);
    }
}
