//! The store's schema, versioned with `PRAGMA user_version`; each migration
//! runs once, in one transaction.

/// Migrations in order; the schema version is the number applied.
pub const MIGRATIONS: &[&str] = &[
    // 1: people, facts, episodes, failures, one full-text index. Ids are never
    // reused, so a stale `forget --fact ID` cannot hit someone else's new fact.
    "CREATE TABLE person (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        aliases TEXT NOT NULL DEFAULT '',
        first_seen INTEGER NOT NULL,
        last_seen INTEGER NOT NULL
    );
    CREATE TABLE fact (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        person_id INTEGER NOT NULL REFERENCES person(id) ON DELETE CASCADE,
        topic TEXT NOT NULL,
        text TEXT NOT NULL,
        said_by TEXT NOT NULL,
        said_to TEXT NOT NULL,
        at INTEGER NOT NULL,
        superseded_by INTEGER,
        visibility TEXT NOT NULL CHECK (visibility IN ('self', 'table')),
        confirmed INTEGER NOT NULL
    );
    CREATE INDEX fact_person ON fact(person_id, topic);
    CREATE TABLE episode (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        scene TEXT NOT NULL,
        present TEXT NOT NULL,
        requester TEXT,
        asked TEXT NOT NULL,
        done TEXT NOT NULL,
        objects TEXT NOT NULL,
        outcome TEXT NOT NULL
    );
    CREATE INDEX episode_requester ON episode(requester COLLATE NOCASE, at);
    CREATE TABLE failure (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        tool TEXT NOT NULL,
        cause TEXT NOT NULL,
        object TEXT NOT NULL,
        object_kind TEXT NOT NULL,
        arm TEXT,
        grasp TEXT,
        request TEXT NOT NULL,
        person TEXT,
        fix TEXT,
        offered INTEGER NOT NULL DEFAULT 0,
        helped INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX failure_key ON failure(tool, cause, object_kind);
    CREATE VIRTUAL TABLE memory_text USING fts5(
        kind UNINDEXED, row UNINDEXED, person UNINDEXED, text,
        tokenize = 'porter unicode61'
    );
    INSERT INTO memory_text(memory_text, rank) VALUES ('secure-delete', 1);",
];

/// The schema version this build writes.
pub fn current() -> i64 {
    MIGRATIONS.len() as i64
}
