//! What is remembered, as JSON for people to inspect (`GET /api/memory`,
//! `attentive memory export`). Times are seconds since the Unix epoch.

use serde_json::{json, Value};

use super::model::Fact;
use super::{MemoryError, Store};

/// One fact: `{"id","topic","text","said_by","said_to","at","confirmed","visibility","superseded_by"}`.
pub fn fact(f: &Fact) -> Value {
    json!({
        "id": f.id,
        "topic": f.topic,
        "text": f.text,
        "said_by": f.said_by,
        "said_to": f.said_to,
        "at": f.at,
        "confirmed": f.confirmed,
        "visibility": f.visibility,
        "superseded_by": f.superseded_by,
    })
}

/// Everything: `{"enabled":true,"people":[...],"episodes":[...],"failures":[...]}`;
/// each person with every fact about them (superseded ones too), newest first.
pub fn everything(store: &Store) -> Result<Value, MemoryError> {
    let mut people = Vec::new();
    for (name, first_seen, last_seen, _) in store.people()? {
        let facts: Vec<Value> = store.facts_about(&name, true)?.iter().map(fact).collect();
        people.push(json!({
            "name": name,
            "first_seen": first_seen,
            "last_seen": last_seen,
            "facts": facts,
        }));
    }
    Ok(json!({
        "enabled": true,
        "people": people,
        "episodes": store.all_episodes()?,
        "failures": store.all_failures()?,
    }))
}

/// One person with every fact about them, the episodes they asked for and
/// the failures of actions for them; `None` when nobody of that name is known.
pub fn person(store: &Store, name: &str) -> Result<Option<Value>, MemoryError> {
    let Some(stored) = store.person(name)? else {
        return Ok(None);
    };
    let (first_seen, last_seen) = store
        .people()?
        .into_iter()
        .find(|(n, ..)| *n == stored)
        .map_or((0, 0), |(_, first, last, _)| (first, last));
    let facts: Vec<Value> = store.facts_about(&stored, true)?.iter().map(fact).collect();
    let episodes = store.episodes_of(&stored, usize::MAX >> 1)?;
    let failures: Vec<_> = store
        .all_failures()?
        .into_iter()
        .filter(|f| {
            f.person
                .as_deref()
                .is_some_and(|p| p.eq_ignore_ascii_case(&stored))
        })
        .collect();
    Ok(Some(json!({
        "name": stored,
        "first_seen": first_seen,
        "last_seen": last_seen,
        "facts": facts,
        "episodes": episodes,
        "failures": failures,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{NewFact, Visibility};

    #[test]
    fn a_person_shows_own_facts_and_hearsay_with_who_said_them() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("memory.db")).unwrap();
        for (by, text, at) in [
            ("Daniel", "I only drink sugar-free", 10),
            ("Felix", "Daniel hates cola", 20),
        ] {
            store
                .remember(&NewFact {
                    person: "Daniel".into(),
                    topic: "drink".into(),
                    text: text.into(),
                    said_by: by.into(),
                    said_to: "the_robot".into(),
                    visibility: Visibility::OnlyForActing,
                    at,
                })
                .unwrap();
        }
        let daniel = person(&store, "daniel").unwrap().unwrap();
        assert_eq!(daniel["name"], "Daniel");
        let facts = daniel["facts"].as_array().unwrap();
        assert_eq!(facts.len(), 2);
        assert_eq!(facts[0]["said_by"], "Felix");
        assert_eq!(facts[0]["confirmed"], false);
        assert_eq!(facts[1]["visibility"], "self");
        assert!(person(&store, "Nobody").unwrap().is_none());
        let all = everything(&store).unwrap();
        assert_eq!(all["people"][0]["facts"].as_array().unwrap().len(), 2);
        assert_eq!(all["enabled"], true);
    }
}
