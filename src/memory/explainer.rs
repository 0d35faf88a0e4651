//! The failure explainer (Colombani et al.): when an action fails, past
//! failures of the same tool with the same cause on the same kind of object
//! are looked up exactly; the best-tried fix among them is offered once, with
//! its track record and a disclaimer. A fix that keeps failing is retired.

use super::model::Failure;
use super::{day, MemoryError, Store};

/// A fix is retired after this many offers when it helped less than `RETIRE_BELOW`.
const RETIRE_AFTER: i64 = 3;
const RETIRE_BELOW: f64 = 0.3;

/// A suggestion drawn from a past failure.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// The failure it comes from (its counts go up when it is offered).
    pub failure: i64,
    /// The fix, as stored ("using the left arm").
    pub fix: String,
    /// The sentence appended to the failed tool's result.
    pub text: String,
    /// Whether its record is good enough to act on without thinking twice.
    pub trusted: bool,
}

/// Whether a fix is retired.
pub fn retired(f: &Failure) -> bool {
    f.offered >= RETIRE_AFTER && (f.helped as f64) < RETIRE_BELOW * f.offered as f64
}

fn record(f: &Failure) -> String {
    if f.offered == 0 {
        "not tried since".into()
    } else {
        format!("helped {} of {} times", f.helped, f.offered)
    }
}

/// At most one suggestion for a failure of `tool` with `cause` on an object of `kind`.
pub fn suggest(
    store: &Store,
    tool: &str,
    cause: &str,
    kind: &str,
) -> Result<Option<Suggestion>, MemoryError> {
    let candidates: Vec<Failure> = store
        .failures_like(tool, cause, kind)?
        .into_iter()
        .filter(|f| f.fix.is_some())
        .collect();
    // Laplace-smoothed success rate, then the newest.
    let score = |f: &Failure| (f.helped as f64 + 1.0) / (f.offered as f64 + 2.0);
    let best = candidates
        .iter()
        .filter(|f| !retired(f))
        .max_by(|a, b| score(a).total_cmp(&score(b)).then(a.at.cmp(&b.at)));
    if let Some(f) = best {
        let fix = f.fix.clone().unwrap_or_default();
        let text = format!(
            "Earlier, in a similar case ({tool}, {}, {} on {}), {fix} worked ({}). \
             Past experience may not apply here.",
            f.cause,
            f.object,
            day(f.at),
            record(f)
        );
        return Ok(Some(Suggestion {
            failure: f.id,
            fix,
            text,
            trusted: f.offered == 0 || score(f) >= 0.5,
        }));
    }
    // Only retired fixes: say so, so that nobody tries them again blindly.
    Ok(candidates.first().map(|f| {
        let fix = f.fix.clone().unwrap_or_default();
        Suggestion {
            failure: f.id,
            text: format!(
                "A fix tried before for this failure ({fix}) {}; it is not suggested any more.",
                record(f)
            ),
            fix,
            trusted: false,
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(fix: &str, offered: i64, helped: i64) -> Failure {
        Failure {
            id: 0,
            at: 1_790_000_000,
            tool: "pour_into".into(),
            cause: "collision:blue_glass".into(),
            object: "cola_bottle".into(),
            object_kind: "bottle".into(),
            arm: Some("left".into()),
            grasp: None,
            request: "pour me a cola".into(),
            person: None,
            fix: Some(fix.into()),
            offered,
            helped,
        }
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("memory.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn the_best_tried_fix_is_offered_with_its_record_and_a_disclaimer() {
        let (_dir, mut s) = store();
        s.record_failure(&failure("first: moved blue_glass away from Felix", 3, 2))
            .unwrap();
        s.record_failure(&failure("using the right arm", 3, 1))
            .unwrap();
        let got = suggest(&s, "pour_into", "collision:blue_glass", "bottle")
            .unwrap()
            .unwrap();
        assert!(
            got.text.contains("moved blue_glass away") && got.text.contains("helped 2 of 3 times"),
            "{}",
            got.text
        );
        assert!(got.text.contains("Past experience may not apply here"));
        // Another cause or kind: nothing.
        assert!(suggest(&s, "pour_into", "out_of_reach", "bottle")
            .unwrap()
            .is_none());
        assert!(suggest(&s, "pour_into", "collision:blue_glass", "glass")
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_fix_that_keeps_failing_is_retired_and_reported_as_such() {
        let (_dir, mut s) = store();
        s.record_failure(&failure("using the right arm", 4, 0))
            .unwrap();
        let got = suggest(&s, "pour_into", "collision:blue_glass", "bottle")
            .unwrap()
            .unwrap();
        assert!(!got.trusted);
        assert!(
            got.text.contains("helped 0 of 4 times") && got.text.contains("not suggested any more"),
            "{}",
            got.text
        );
    }
}
