//! The `recall` tool: exact filters first (the person, their facts and
//! episodes), then full-text ranking for the long tail. Who asks decides what
//! is told: facts given for acting go to their owner only.

use serde_json::{json, Value};

use super::model::{Episode, Fact, Visibility};
use super::{day, MemoryError, Store};

/// What `recall` answers: the text the agent reads, and structured facts.
#[derive(Debug, Clone, PartialEq)]
pub struct Recalled {
    /// One line per memory, or a plain "nothing remembered".
    pub text: String,
    /// The ids found and withheld.
    pub facts: Value,
}

/// A fact as one line the rules brain can read back: `- fact ID [topic] SENTENCE`.
pub fn fact_line(f: &Fact) -> String {
    fact_line_noted(f, "")
}

/// As [`fact_line`], with a note before the sentence ("(for acting only; never say it) ").
fn fact_line_noted(f: &Fact, note: &str) -> String {
    format!("- fact {} [{}] {note}{}", f.id, f.topic, f.sentence())
}

/// An episode as one line: `- episode ID [day] I handed red_glass to Daniel.`
pub fn episode_line(e: &Episode) -> String {
    let done = if e.done.is_empty() {
        "I did nothing".to_string()
    } else {
        format!("I {}", e.done.join(", then "))
    };
    let asked = e
        .requester
        .as_ref()
        .map(|r| format!(" ({r} asked: \"{}\")", e.asked))
        .unwrap_or_default();
    format!("- episode {} [{}] {done}{asked}.", e.id, day(e.at))
}

/// Answers `recall(query, person)` for `asker` (the turn's speaker, when known);
/// `for_acting`: the robot acts for `person` ("pour him his usual"), so what
/// they told it for acting is given too, marked as never to be said.
pub fn recall(
    store: &Store,
    query: &str,
    person: Option<&str>,
    asker: Option<&str>,
    for_acting: bool,
) -> Result<Recalled, MemoryError> {
    let person = match person.map(str::trim).filter(|p| !p.is_empty()) {
        Some(p) => match store.person(p)? {
            Some(stored) => Some(stored),
            None => {
                return Ok(Recalled {
                    text: format!("I remember nothing about {p}."),
                    facts: json!({"person": p, "facts": [], "episodes": []}),
                })
            }
        },
        None => None,
    };
    let own = |name: &str| asker.is_some_and(|a| a.eq_ignore_ascii_case(name));
    let mut facts: Vec<Fact> = Vec::new();
    let mut episodes: Vec<Episode> = Vec::new();
    if let Some(p) = &person {
        facts = store.facts_about(p, false)?;
        if own(p) {
            episodes = store.episodes_of(p, 3)?;
        }
    }
    for hit in store.search(query, person.as_deref(), 5)? {
        match hit.kind.as_str() {
            "fact" if !facts.iter().any(|f| f.id == hit.row) => {
                if let Some(f) = store.fact(hit.row)?.filter(Fact::current) {
                    facts.push(f);
                }
            }
            "episode" if !episodes.iter().any(|e| e.id == hit.row) => {
                if let Some(e) = store.episode(hit.row)? {
                    if e.requester.as_deref().is_some_and(own) {
                        episodes.push(e);
                    }
                }
            }
            _ => {}
        }
    }
    let (told, mut withheld): (Vec<Fact>, Vec<Fact>) = facts
        .into_iter()
        .partition(|f| own(&f.person) || f.visibility == Visibility::Table);
    let mut lines: Vec<String> = told.iter().map(fact_line).collect();
    let for_this_person = |f: &Fact| person.as_deref() == Some(f.person.as_str());
    if for_acting {
        let (usable, kept): (Vec<Fact>, Vec<Fact>) =
            withheld.into_iter().partition(for_this_person);
        withheld = kept;
        lines.extend(
            usable
                .iter()
                .map(|f| fact_line_noted(f, "(for acting only; never say it) ")),
        );
    }
    lines.extend(episodes.iter().map(episode_line));
    let about = person.clone().unwrap_or_else(|| "that".into());
    let mut text = if lines.is_empty() {
        format!("I remember nothing about {about}.")
    } else {
        format!(
            "Remembered about {about} (may be outdated):\n{}",
            lines.join("\n")
        )
    };
    if !withheld.is_empty() {
        let owners: Vec<&str> = withheld.iter().map(|f| f.person.as_str()).collect();
        text.push_str(&format!(
            "\nWithheld: {} thing(s) told for acting only, by {}; do not reveal them to {}.",
            withheld.len(),
            owners.join(", "),
            asker.unwrap_or("anyone else")
        ));
    }
    Ok(Recalled {
        text,
        facts: json!({
            "person": person,
            "facts": told.iter().map(|f| f.id).collect::<Vec<_>>(),
            "episodes": episodes.iter().map(|e| e.id).collect::<Vec<_>>(),
            "withheld": withheld.len(),
        }),
    })
}
