//! The SQLite store: one connection, owned by one thread (see `handle`).

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::model::{Episode, Erased, Fact, Failure, NewFact, Remembered, Visibility};
use super::schema;
use super::{MemoryError, SqlContext};

/// How a store in memory names its "file" in messages.
pub const IN_MEMORY: &str = ":memory:";

/// The memory store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

const FACT_COLUMNS: &str = "f.id, p.name, f.topic, f.text, f.said_by, f.said_to, f.at, \
     f.superseded_by, f.visibility, f.confirmed";

fn fact_from(row: &Row<'_>) -> rusqlite::Result<Fact> {
    Ok(Fact {
        id: row.get(0)?,
        person: row.get(1)?,
        topic: row.get(2)?,
        text: row.get(3)?,
        said_by: row.get(4)?,
        said_to: row.get(5)?,
        at: row.get(6)?,
        superseded_by: row.get(7)?,
        visibility: Visibility::parse(&row.get::<_, String>(8)?),
        confirmed: row.get(9)?,
    })
}

const EPISODE_COLUMNS: &str = "id, at, scene, present, requester, asked, done, objects, outcome";

fn episode_from(row: &Row<'_>) -> rusqlite::Result<Episode> {
    let list = |i: usize| -> rusqlite::Result<Vec<String>> {
        let text: String = row.get(i)?;
        Ok(serde_json::from_str(&text).unwrap_or_default())
    };
    Ok(Episode {
        id: row.get(0)?,
        at: row.get(1)?,
        scene: row.get(2)?,
        present: list(3)?,
        requester: row.get(4)?,
        asked: row.get(5)?,
        done: list(6)?,
        objects: list(7)?,
        outcome: row.get(8)?,
    })
}

const FAILURE_COLUMNS: &str = "id, at, tool, cause, object, object_kind, arm, grasp, request, \
     person, fix, offered, helped";

fn failure_from(row: &Row<'_>) -> rusqlite::Result<Failure> {
    Ok(Failure {
        id: row.get(0)?,
        at: row.get(1)?,
        tool: row.get(2)?,
        cause: row.get(3)?,
        object: row.get(4)?,
        object_kind: row.get(5)?,
        arm: row.get(6)?,
        grasp: row.get(7)?,
        request: row.get(8)?,
        person: row.get(9)?,
        fix: row.get(10)?,
        offered: row.get(11)?,
        helped: row.get(12)?,
    })
}

/// Runs a query and collects its rows; an error names what it was for.
fn rows<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    row: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    context: &'static str,
) -> Result<Vec<T>, MemoryError> {
    let mut stmt = conn.prepare(sql).context(context)?;
    let rows = stmt.query_map(params, row).context(context)?;
    rows.collect::<Result<_, _>>().context(context)
}

/// A full-text hit: which row, and its rank (lower is better).
#[derive(Debug, Clone, PartialEq)]
pub struct TextHit {
    /// `fact` or `episode`.
    pub kind: String,
    /// The row's id.
    pub row: i64,
}

impl Store {
    /// Opens (or creates) the store at `path` and brings its schema up to date.
    /// A damaged file, or one from a newer attentive, is an error naming the file.
    pub fn open(path: &Path) -> Result<Self, MemoryError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| MemoryError::Open {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })?;
        }
        let conn = Connection::open(path).map_err(|e| MemoryError::Open {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let mut store = Self {
            conn,
            path: path.to_path_buf(),
        };
        store.configure()?;
        store.migrate()?;
        Ok(store)
    }

    /// A store that lives in memory only and is gone when dropped (an evaluation's
    /// episode): the same schema and queries as a file, without the disk.
    pub fn open_in_memory() -> Result<Self, MemoryError> {
        let path = PathBuf::from(IN_MEMORY);
        let conn = Connection::open_in_memory().map_err(|e| MemoryError::Open {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        let mut store = Self { conn, path };
        store.configure()?;
        store.migrate()?;
        Ok(store)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn corrupt(&self, reason: impl ToString) -> MemoryError {
        MemoryError::Corrupt {
            path: self.path.clone(),
            reason: reason.to_string(),
        }
    }

    fn configure(&mut self) -> Result<(), MemoryError> {
        // The first statement that reads the file tells a damaged file apart.
        let check: String = self
            .conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(|e| self.corrupt(e))?;
        if check != "ok" {
            return Err(self.corrupt(check));
        }
        self.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| self.corrupt(e))?;
        for (name, value) in [
            ("secure_delete", "ON"),
            ("foreign_keys", "ON"),
            ("synchronous", "NORMAL"),
        ] {
            self.conn
                .pragma_update(None, name, value)
                .context("setting pragmas")?;
        }
        self.conn
            .busy_timeout(std::time::Duration::from_secs(5))
            .context("setting the busy timeout")?;
        Ok(())
    }

    fn migrate(&mut self) -> Result<(), MemoryError> {
        let found: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.corrupt(e))?;
        let known = schema::current();
        if found > known {
            return Err(MemoryError::Newer {
                path: self.path.clone(),
                found,
                known,
            });
        }
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(found as usize) {
            let tx = self.conn.transaction().context("starting a migration")?;
            tx.execute_batch(sql).map_err(|e| MemoryError::Corrupt {
                path: self.path.clone(),
                reason: format!("migration {} failed: {e}", i + 1),
            })?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)
                .context("recording the schema version")?;
            tx.commit().context("committing a migration")?;
        }
        Ok(())
    }

    /// Notes that a person was at the table (creates them on first sight).
    pub fn seen(&mut self, name: &str, at: i64) -> Result<i64, MemoryError> {
        self.conn
            .execute(
                "INSERT INTO person(name, first_seen, last_seen) VALUES (?1, ?2, ?2)
                 ON CONFLICT(name) DO UPDATE SET last_seen = max(last_seen, ?2)",
                params![name, at],
            )
            .context("noting a person")?;
        self.conn
            .query_row("SELECT id FROM person WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .context("finding a person")
    }

    /// The people remembered: name, first and last seen, and how many current facts.
    pub fn people(&self) -> Result<Vec<(String, i64, i64, i64)>, MemoryError> {
        rows(
            &self.conn,
            "SELECT p.name, p.first_seen, p.last_seen,
                    (SELECT count(*) FROM fact f WHERE f.person_id = p.id AND f.superseded_by IS NULL)
             FROM person p ORDER BY p.name",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            "listing people",
        )
    }

    /// The person's name as stored, when known.
    pub fn person(&self, name: &str) -> Result<Option<String>, MemoryError> {
        self.conn
            .query_row("SELECT name FROM person WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .optional()
            .context("finding a person")
    }

    /// Stores a fact. The person's own fact supersedes their older facts on the
    /// topic (and hearsay on it); hearsay supersedes only older hearsay and never
    /// the person's own.
    pub fn remember(&mut self, new: &NewFact) -> Result<Remembered, MemoryError> {
        let confirmed = new.said_by.eq_ignore_ascii_case(&new.person);
        let person_id = self.seen(&new.person, new.at)?;
        let current = self.facts_on(person_id, &new.topic)?;
        let kept_own = if confirmed {
            None
        } else {
            current.iter().find(|f| f.confirmed).cloned()
        };
        let superseded: Vec<Fact> = current
            .into_iter()
            .filter(|f| confirmed || !f.confirmed)
            .collect();
        // A person's update of what they let the table hear may be heard as well.
        let visibility = if confirmed
            && superseded
                .iter()
                .any(|f| f.confirmed && f.visibility == Visibility::Table)
        {
            Visibility::Table
        } else {
            new.visibility
        };
        let tx = self.conn.transaction().context("storing a fact")?;
        tx.execute(
            "INSERT INTO fact(person_id, topic, text, said_by, said_to, at, visibility, confirmed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                person_id,
                new.topic,
                new.text,
                new.said_by,
                new.said_to,
                new.at,
                visibility.as_str(),
                confirmed
            ],
        )
        .context("storing a fact")?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO memory_text(kind, row, person, text) VALUES ('fact', ?1, ?2, ?3)",
            params![id, new.person, format!("{} {}", new.topic, new.text)],
        )
        .context("indexing a fact")?;
        for old in &superseded {
            tx.execute(
                "UPDATE fact SET superseded_by = ?1 WHERE id = ?2",
                params![id, old.id],
            )
            .context("superseding a fact")?;
        }
        tx.commit().context("storing a fact")?;
        let fact = self
            .fact(id)?
            .ok_or_else(|| MemoryError::NotFound(format!("fact {id} vanished")))?;
        Ok(Remembered {
            fact,
            superseded,
            kept_own,
        })
    }

    fn facts_on(&self, person_id: i64, topic: &str) -> Result<Vec<Fact>, MemoryError> {
        let sql = format!(
            "SELECT {FACT_COLUMNS} FROM fact f JOIN person p ON p.id = f.person_id
             WHERE f.person_id = ?1 AND f.topic = ?2 AND f.superseded_by IS NULL"
        );
        rows(
            &self.conn,
            &sql,
            params![person_id, topic],
            fact_from,
            "reading facts",
        )
    }

    /// One fact by id.
    pub fn fact(&self, id: i64) -> Result<Option<Fact>, MemoryError> {
        let sql = format!(
            "SELECT {FACT_COLUMNS} FROM fact f JOIN person p ON p.id = f.person_id WHERE f.id = ?1"
        );
        self.conn
            .query_row(&sql, [id], fact_from)
            .optional()
            .context("reading a fact")
    }

    /// The facts about a person, newest first (superseded ones only when asked).
    pub fn facts_about(&self, name: &str, with_superseded: bool) -> Result<Vec<Fact>, MemoryError> {
        let sql = format!(
            "SELECT {FACT_COLUMNS} FROM fact f JOIN person p ON p.id = f.person_id
             WHERE p.name = ?1 AND (?2 OR f.superseded_by IS NULL)
             ORDER BY f.at DESC, f.id DESC"
        );
        rows(
            &self.conn,
            &sql,
            params![name, with_superseded],
            fact_from,
            "reading facts",
        )
    }

    /// Every fact, for inspection.
    pub fn all_facts(&self) -> Result<Vec<Fact>, MemoryError> {
        let sql = format!(
            "SELECT {FACT_COLUMNS} FROM fact f JOIN person p ON p.id = f.person_id ORDER BY f.id"
        );
        rows(&self.conn, &sql, [], fact_from, "reading facts")
    }

    /// Stores an episode; returns its id.
    pub fn record_episode(&mut self, episode: &Episode) -> Result<i64, MemoryError> {
        let json = |v: &Vec<String>| serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
        let tx = self.conn.transaction().context("storing an episode")?;
        tx.execute(
            "INSERT INTO episode(at, scene, present, requester, asked, done, objects, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                episode.at,
                episode.scene,
                json(&episode.present),
                episode.requester,
                episode.asked,
                json(&episode.done),
                json(&episode.objects),
                episode.outcome
            ],
        )
        .context("storing an episode")?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO memory_text(kind, row, person, text) VALUES ('episode', ?1, ?2, ?3)",
            params![
                id,
                episode.requester.clone().unwrap_or_default(),
                format!("{} {}", episode.asked, episode.done.join(" "))
            ],
        )
        .context("indexing an episode")?;
        tx.commit().context("storing an episode")?;
        Ok(id)
    }

    /// The latest episodes a person asked for, newest first.
    pub fn episodes_of(&self, name: &str, limit: usize) -> Result<Vec<Episode>, MemoryError> {
        let sql = format!(
            "SELECT {EPISODE_COLUMNS} FROM episode WHERE requester = ?1 COLLATE NOCASE
             ORDER BY at DESC, id DESC LIMIT ?2"
        );
        rows(
            &self.conn,
            &sql,
            params![name, limit as i64],
            episode_from,
            "reading episodes",
        )
    }

    /// Every episode, oldest first.
    pub fn all_episodes(&self) -> Result<Vec<Episode>, MemoryError> {
        let sql = format!("SELECT {EPISODE_COLUMNS} FROM episode ORDER BY id");
        rows(&self.conn, &sql, [], episode_from, "reading episodes")
    }

    /// Full-text search over facts and episodes (bm25), optionally about one person.
    pub fn search(
        &self,
        query: &str,
        person: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TextHit>, MemoryError> {
        let Some(expr) = match_expression(query) else {
            return Ok(Vec::new());
        };
        rows(
            &self.conn,
            "SELECT kind, row FROM memory_text
             WHERE memory_text MATCH ?1 AND (?2 IS NULL OR person = ?2 COLLATE NOCASE)
             ORDER BY rank LIMIT ?3",
            params![expr, person, limit as i64],
            |r| {
                Ok(TextHit {
                    kind: r.get(0)?,
                    row: r.get(1)?,
                })
            },
            "searching memory",
        )
    }

    /// One episode by id.
    pub fn episode(&self, id: i64) -> Result<Option<Episode>, MemoryError> {
        let sql = format!("SELECT {EPISODE_COLUMNS} FROM episode WHERE id = ?1");
        self.conn
            .query_row(&sql, [id], episode_from)
            .optional()
            .context("reading an episode")
    }

    /// Stores a failure; returns its id.
    pub fn record_failure(&mut self, failure: &Failure) -> Result<i64, MemoryError> {
        self.conn
            .execute(
                "INSERT INTO failure(at, tool, cause, object, object_kind, arm, grasp, request,
                                     person, fix, offered, helped)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    failure.at,
                    failure.tool,
                    failure.cause,
                    failure.object,
                    failure.object_kind,
                    failure.arm,
                    failure.grasp,
                    failure.request,
                    failure.person,
                    failure.fix,
                    failure.offered,
                    failure.helped
                ],
            )
            .context("storing a failure")?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Past failures of a tool with the same cause and kind of object, newest first.
    pub fn failures_like(
        &self,
        tool: &str,
        cause: &str,
        object_kind: &str,
    ) -> Result<Vec<Failure>, MemoryError> {
        let sql = format!(
            "SELECT {FAILURE_COLUMNS} FROM failure
             WHERE tool = ?1 AND cause = ?2 AND object_kind = ?3 ORDER BY at DESC, id DESC"
        );
        rows(
            &self.conn,
            &sql,
            params![tool, cause, object_kind],
            failure_from,
            "reading failures",
        )
    }

    /// Past failures of a tool on a kind of object, any cause, newest first.
    pub fn failures_of(&self, tool: &str, object_kind: &str) -> Result<Vec<Failure>, MemoryError> {
        let sql = format!(
            "SELECT {FAILURE_COLUMNS} FROM failure WHERE tool = ?1 AND object_kind = ?2
             ORDER BY at DESC, id DESC"
        );
        rows(
            &self.conn,
            &sql,
            params![tool, object_kind],
            failure_from,
            "reading failures",
        )
    }

    /// Every failure, oldest first.
    pub fn all_failures(&self) -> Result<Vec<Failure>, MemoryError> {
        let sql = format!("SELECT {FAILURE_COLUMNS} FROM failure ORDER BY id");
        rows(&self.conn, &sql, [], failure_from, "reading failures")
    }

    /// Records what resolved a failure (the first fix found is kept).
    pub fn resolve_failure(&mut self, id: i64, fix: &str) -> Result<(), MemoryError> {
        self.conn
            .execute(
                "UPDATE failure SET fix = coalesce(fix, ?2) WHERE id = ?1",
                params![id, fix],
            )
            .context("resolving a failure")?;
        Ok(())
    }

    /// Counts a suggestion offered from a failure, and whether it helped.
    pub fn count_offer(&mut self, id: i64, helped: bool) -> Result<(), MemoryError> {
        self.conn
            .execute(
                "UPDATE failure SET offered = offered + 1, helped = helped + ?2 WHERE id = ?1",
                params![id, helped as i64],
            )
            .context("counting a suggestion")?;
        Ok(())
    }

    /// Erases one fact everywhere in the store.
    pub fn forget_fact(&mut self, id: i64) -> Result<Erased, MemoryError> {
        let fact = self
            .fact(id)?
            .ok_or_else(|| MemoryError::NotFound(format!("no fact {id} in memory")))?;
        let tx = self.conn.transaction().context("forgetting a fact")?;
        tx.execute(
            "UPDATE fact SET superseded_by = NULL WHERE superseded_by = ?1",
            [id],
        )
        .context("forgetting a fact")?;
        tx.execute("DELETE FROM fact WHERE id = ?1", [id])
            .context("forgetting a fact")?;
        tx.execute(
            "DELETE FROM memory_text WHERE kind = 'fact' AND row = ?1",
            [id],
        )
        .context("forgetting a fact")?;
        tx.commit().context("forgetting a fact")?;
        let texts = super::redact::copies(std::slice::from_ref(&fact.text));
        self.redact_rows(&texts)?;
        self.scrub()?;
        Ok(Erased {
            facts: 1,
            texts: vec![fact.text],
            ..Erased::default()
        })
    }

    /// What people asked in episodes and failures may hold an erased fact's
    /// words ("I only drink sugar-free, so hand me the zero"): redacted there too.
    fn redact_rows(&mut self, texts: &[String]) -> Result<(), MemoryError> {
        let redact = |t: &str| super::redact::redact_text(t, texts);
        let tx = self.conn.transaction().context("redacting episodes")?;
        let episodes: Vec<(i64, String, String, String)> = rows(
            &tx,
            "SELECT id, asked, done, coalesce(requester, '') FROM episode",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            "redacting episodes",
        )?;
        for (id, asked, done, requester) in episodes {
            let (asked, n) = redact(&asked);
            if n == 0 {
                continue;
            }
            let done: Vec<String> = serde_json::from_str(&done).unwrap_or_default();
            tx.execute(
                "UPDATE episode SET asked = ?2 WHERE id = ?1",
                params![id, asked],
            )
            .context("redacting episodes")?;
            tx.execute(
                "UPDATE memory_text SET text = ?3 WHERE kind = 'episode' AND row = ?1 AND person = ?2",
                params![id, requester, format!("{asked} {}", done.join(" "))],
            )
            .context("redacting episodes")?;
        }
        let failures: Vec<(i64, String)> = rows(
            &tx,
            "SELECT id, request FROM failure",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
            "redacting failures",
        )?;
        for (id, request) in failures {
            let (request, n) = redact(&request);
            if n > 0 {
                tx.execute(
                    "UPDATE failure SET request = ?2 WHERE id = ?1",
                    params![id, request],
                )
                .context("redacting failures")?;
            }
        }
        tx.commit().context("redacting episodes")
    }

    /// Erases a person: their facts (and facts others said about them), the
    /// episodes they asked for, their failures; their name leaves the others'
    /// episodes too.
    pub fn forget_person(&mut self, name: &str) -> Result<Erased, MemoryError> {
        let stored = self
            .person(name)?
            .ok_or_else(|| MemoryError::NotFound(format!("nobody called {name} in memory")))?;
        let facts = self.facts_about(&stored, true)?;
        let episodes = self.episodes_of(&stored, usize::MAX >> 1)?;
        let mut erased = Erased {
            facts: facts.len(),
            episodes: episodes.len(),
            person: true,
            ..Erased::default()
        };
        erased.texts.extend(facts.iter().map(|f| f.text.clone()));
        let tx = self.conn.transaction().context("forgetting a person")?;
        for f in &facts {
            tx.execute(
                "DELETE FROM memory_text WHERE kind = 'fact' AND row = ?1",
                [f.id],
            )
            .context("forgetting a person")?;
        }
        for e in &episodes {
            tx.execute(
                "DELETE FROM memory_text WHERE kind = 'episode' AND row = ?1",
                [e.id],
            )
            .context("forgetting a person")?;
            tx.execute("DELETE FROM episode WHERE id = ?1", [e.id])
                .context("forgetting a person")?;
        }
        // Facts go with the person (ON DELETE CASCADE).
        tx.execute("DELETE FROM person WHERE name = ?1", [&stored])
            .context("forgetting a person")?;
        erased.failures = tx
            .execute(
                "DELETE FROM failure WHERE person = ?1 COLLATE NOCASE",
                [&stored],
            )
            .context("forgetting a person")?;
        tx.commit().context("forgetting a person")?;
        self.drop_from_present(&stored)?;
        self.scrub()?;
        Ok(erased)
    }

    fn drop_from_present(&mut self, name: &str) -> Result<(), MemoryError> {
        for episode in self.all_episodes()? {
            if episode.present.iter().any(|p| p.eq_ignore_ascii_case(name)) {
                let present: Vec<&String> = episode
                    .present
                    .iter()
                    .filter(|p| !p.eq_ignore_ascii_case(name))
                    .collect();
                self.conn
                    .execute(
                        "UPDATE episode SET present = ?2 WHERE id = ?1",
                        params![
                            episode.id,
                            serde_json::to_string(&present).unwrap_or_default()
                        ],
                    )
                    .context("forgetting a person")?;
            }
        }
        Ok(())
    }

    /// Deletes episodes and failures older than `days` days before `now`.
    pub fn prune(&mut self, days: u32, now: i64) -> Result<usize, MemoryError> {
        let before = now - i64::from(days) * 86_400;
        let tx = self.conn.transaction().context("pruning")?;
        tx.execute(
            "DELETE FROM memory_text WHERE kind = 'episode'
             AND row IN (SELECT id FROM episode WHERE at < ?1)",
            [before],
        )
        .context("pruning")?;
        let episodes = tx
            .execute("DELETE FROM episode WHERE at < ?1", [before])
            .context("pruning")?;
        let failures = tx
            .execute("DELETE FROM failure WHERE at < ?1", [before])
            .context("pruning")?;
        tx.commit().context("pruning")?;
        if episodes + failures > 0 {
            self.scrub()?;
        }
        Ok(episodes + failures)
    }

    /// Leaves no trace of deleted rows: the full-text index merged, the log
    /// checkpointed and emptied, the file rebuilt.
    fn scrub(&mut self) -> Result<(), MemoryError> {
        self.conn
            .execute_batch(
                "INSERT INTO memory_text(memory_text) VALUES ('optimize');
                 PRAGMA wal_checkpoint(TRUNCATE);
                 VACUUM;
                 PRAGMA wal_checkpoint(TRUNCATE);",
            )
            .context("scrubbing after an erasure")
    }
}

/// An FTS5 query from free words: each word quoted, any may match.
fn match_expression(query: &str) -> Option<String> {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .map(|w| format!("\"{}\"", w.to_lowercase()))
        .collect();
    (!words.is_empty()).then(|| words.join(" OR "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(person: &str, said_by: &str, topic: &str, text: &str, at: i64) -> NewFact {
        NewFact {
            person: person.into(),
            topic: topic.into(),
            text: text.into(),
            said_by: said_by.into(),
            said_to: "the_robot".into(),
            visibility: Visibility::OnlyForActing,
            at,
        }
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("memory.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn a_store_in_memory_keeps_facts_like_a_file_and_leaves_no_file() {
        let mut s = Store::open_in_memory().unwrap();
        assert_eq!(s.path(), Path::new(IN_MEMORY));
        s.remember(&fact("Felix", "Felix", "drink", "I love fanta", 10))
            .unwrap();
        let facts = s.facts_about("Felix", false).unwrap();
        assert_eq!(facts.len(), 1);
        assert_eq!(facts[0].text, "I love fanta");
        assert!(!Path::new(IN_MEMORY).exists());
    }

    #[test]
    fn a_newer_own_fact_supersedes_and_hearsay_never_overrides() {
        let (_dir, mut s) = store();
        s.remember(&fact("Felix", "Felix", "drink", "I love fanta", 10))
            .unwrap();
        let r = s
            .remember(&fact(
                "Felix",
                "Felix",
                "drink",
                "I drink cola zero now",
                20,
            ))
            .unwrap();
        assert_eq!(r.superseded.len(), 1);
        let h = s
            .remember(&fact("Felix", "Daniel", "drink", "Felix hates cola", 30))
            .unwrap();
        assert!(!h.fact.confirmed);
        assert_eq!(h.kept_own.unwrap().text, "I drink cola zero now");
        let current = s.facts_about("felix", false).unwrap();
        let texts: Vec<&str> = current.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(texts, ["Felix hates cola", "I drink cola zero now"]);
        // The person's own word then supersedes the hearsay.
        s.remember(&fact("Felix", "Felix", "drink", "I love cola", 40))
            .unwrap();
        let current = s.facts_about("Felix", false).unwrap();
        assert_eq!(current.len(), 1);
        assert_eq!(current[0].text, "I love cola");
    }

    #[test]
    fn an_update_of_what_the_table_may_hear_may_be_heard_too() {
        let (_dir, mut s) = store();
        let shared = NewFact {
            visibility: Visibility::Table,
            ..fact("Daniel", "Daniel", "note", "choir is on Tuesdays", 10)
        };
        s.remember(&shared).unwrap();
        let update = s
            .remember(&fact(
                "Daniel",
                "Daniel",
                "note",
                "choir is on Thursdays now",
                20,
            ))
            .unwrap();
        assert_eq!(update.fact.visibility, Visibility::Table);
        // Hearsay on the topic does not make the next own fact heard by all.
        let (_dir, mut s) = store();
        s.remember(&NewFact {
            visibility: Visibility::Table,
            ..fact("Daniel", "Felix", "note", "Daniel sings on Tuesdays", 10)
        })
        .unwrap();
        let own = s
            .remember(&fact(
                "Daniel",
                "Daniel",
                "note",
                "choir is on Thursdays",
                20,
            ))
            .unwrap();
        assert_eq!(own.fact.visibility, Visibility::OnlyForActing);
    }

    #[test]
    fn a_recall_for_acting_gives_what_was_told_for_acting_never_to_be_said() {
        let (_dir, mut s) = store();
        s.remember(&fact(
            "Fergus",
            "Fergus",
            "drink",
            "tea in the green mug",
            10,
        ))
        .unwrap();
        let asked =
            crate::memory::recall::recall(&s, "drink", Some("Fergus"), Some("Thandi"), false)
                .unwrap();
        assert!(!asked.text.contains("green mug"), "{}", asked.text);
        assert!(asked.text.contains("Withheld: 1"), "{}", asked.text);
        let acting =
            crate::memory::recall::recall(&s, "drink", Some("Fergus"), Some("Thandi"), true)
                .unwrap();
        assert!(
            acting.text.contains("(for acting only; never say it)"),
            "{}",
            acting.text
        );
        assert!(
            acting.text.contains("tea in the green mug"),
            "{}",
            acting.text
        );
        assert!(!acting.text.contains("Withheld"), "{}", acting.text);
    }

    #[test]
    fn search_ranks_by_words_and_filters_by_person() {
        let (_dir, mut s) = store();
        s.remember(&fact(
            "Felix",
            "Felix",
            "allergy",
            "I am allergic to peanuts",
            1,
        ))
        .unwrap();
        s.remember(&fact(
            "Daniel",
            "Daniel",
            "drink",
            "I only drink sugar-free",
            2,
        ))
        .unwrap();
        let hits = s.search("peanut allergy", None, 3).unwrap();
        assert_eq!(hits.len(), 1);
        assert!(s.search("peanuts", Some("Daniel"), 3).unwrap().is_empty());
        assert!(s.search("   ", None, 3).unwrap().is_empty());
    }

    #[test]
    fn forgetting_a_person_leaves_no_row_and_no_index_entry() {
        let (dir, mut s) = store();
        s.remember(&fact(
            "Daniel",
            "Daniel",
            "drink",
            "I only drink zebrafruit",
            2,
        ))
        .unwrap();
        s.remember(&fact("Felix", "Felix", "drink", "I love cola", 3))
            .unwrap();
        let erased = s.forget_person("daniel").unwrap();
        assert_eq!(erased.facts, 1);
        assert!(s.search("zebrafruit", None, 3).unwrap().is_empty());
        assert_eq!(s.facts_about("Felix", false).unwrap().len(), 1);
        drop(s);
        for name in ["memory.db", "memory.db-wal"] {
            if let Ok(bytes) = std::fs::read(dir.path().join(name)) {
                let found = bytes.windows(10).any(|w| w == b"zebrafruit");
                assert!(!found, "{name} still holds the erased text");
            }
        }
    }

    #[test]
    fn forgetting_a_fact_redacts_its_words_in_what_people_asked() {
        let (dir, mut s) = store();
        let r = s
            .remember(&fact(
                "Daniel",
                "Daniel",
                "drink",
                "I only drink quincejuice",
                2,
            ))
            .unwrap();
        let episode = Episode {
            id: 0,
            at: 3,
            scene: "softdrinks".into(),
            present: vec!["Daniel".into()],
            requester: Some("Daniel".into()),
            asked: "I only drink quincejuice, so hand me the zero".into(),
            done: vec!["handed cola_zero_bottle to Daniel".into()],
            objects: vec!["cola_zero_bottle".into()],
            outcome: "stop".into(),
        };
        s.record_episode(&episode).unwrap();
        s.forget_fact(r.fact.id).unwrap();
        let kept = &s.all_episodes().unwrap()[0];
        assert_eq!(kept.asked, "[erased], so hand me the zero");
        assert!(s.search("quincejuice", None, 3).unwrap().is_empty());
        drop(s);
        let bytes = std::fs::read(dir.path().join("memory.db")).unwrap();
        assert!(!bytes.windows(11).any(|w| w == b"quincejuice"));
    }

    #[test]
    fn a_file_that_is_not_a_store_is_one_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.db");
        std::fs::write(
            &path,
            b"this is not a database, not at all, not even close........",
        )
        .unwrap();
        let error = Store::open(&path).err().unwrap().to_string();
        assert!(
            error.contains("memory.db") && error.contains("damaged"),
            "{error}"
        );
    }

    #[test]
    fn a_newer_schema_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.db");
        drop(Store::open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let error = Store::open(&path).err().unwrap().to_string();
        assert!(error.contains("99") && error.contains("newer"), "{error}");
    }
}
