//! The block about the people present, placed after the static system prompt:
//! a few of each person's own current facts, with date and speaker, and what
//! the robot last did for them, framed as possibly outdated.

use super::model::Fact;
use super::{day, MemoryError, Store};

/// Topics that matter most come first (a constraint outranks a preference).
const FIRST_TOPICS: &[&str] = &["allergy", "diet", "health", "constraint"];

/// The block for the people present; `None` when nothing is remembered of anyone.
pub fn people_block(
    store: &Store,
    present: &[String],
    per_person: usize,
) -> Result<Option<String>, MemoryError> {
    let mut lines = Vec::new();
    for name in present {
        let mut facts: Vec<Fact> = store
            .facts_about(name, false)?
            .into_iter()
            .filter(|f| f.confirmed)
            .collect();
        facts.sort_by_key(|f| (!FIRST_TOPICS.contains(&f.topic.as_str()), -f.at, -f.id));
        facts.truncate(per_person);
        let last = store.episodes_of(name, 1)?.into_iter().next();
        if facts.is_empty() && last.is_none() {
            continue;
        }
        let mut parts: Vec<String> = facts
            .iter()
            .map(|f| {
                let private = if f.visibility == super::Visibility::OnlyForActing {
                    ", only for acting for them"
                } else {
                    ""
                };
                format!("on {} ({}{private}): \"{}\"", day(f.at), f.topic, f.text)
            })
            .collect();
        if let Some(e) = last.filter(|e| !e.done.is_empty()) {
            parts.push(format!(
                "last time ({}) you {}",
                day(e.at),
                e.done.join(", ")
            ));
        }
        lines.push(format!("- {name} said {}.", parts.join("; ")));
    }
    if lines.is_empty() {
        return Ok(None);
    }
    Ok(Some(format!(
        "Remembered from earlier sessions (may be outdated; people's own words; \
         never tell one person what another said only for acting for them):\n{}",
        lines.join("\n")
    )))
}
