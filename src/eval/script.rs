//! Dialogue scripts (TOML, DESIGN.md "Dialogue scripts"): turns with scene
//! changes before them and the expected behaviour, validated as a whole.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::agent::Turn;
use crate::twin::World;

/// What the robot should do after a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    /// Stay out of it.
    Silent,
    /// Explain and act for the sender.
    Help,
    /// Answer (the robot was asked).
    Answer,
    /// Correct a mistake.
    Correct,
}

/// A scene change before a turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Before {
    /// The person.
    pub person: String,
    /// What they hold from now on (empty: they put everything down).
    pub holding: Vec<String>,
}

/// A fact the twin must show after a turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedState {
    /// The object.
    pub object: String,
    /// The liquid it must contain.
    pub contains: Option<String>,
    /// The person who must have it (holding it, or within reach on the table).
    pub at: Option<String>,
    /// The person who must no longer have it within reach (nor hold it).
    #[serde(default)]
    pub away_from: Option<String>,
}

/// One scripted turn.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptTurn {
    /// The human turn, `Felix said to Daniel: ...`.
    pub text: String,
    /// What the robot should do.
    pub expect: Expect,
    /// Scene changes first.
    #[serde(default)]
    pub before: Vec<Before>,
    /// The hindrance the explanation must name: busy, reach or see.
    pub expect_reason: Option<String>,
    /// Facts that must hold afterwards.
    #[serde(default)]
    pub expect_state: Vec<ExpectedState>,
    /// Words the robot must say.
    #[serde(default)]
    pub expect_speech: Vec<String>,
    /// Words the robot must not say (what it may not disclose to this speaker).
    #[serde(default)]
    pub forbid_speech: Vec<String>,
    /// A new session starts before this turn: the agent restarts with an empty
    /// history and the table reset to the scene, while memory persists.
    #[serde(default)]
    pub new_session: bool,
}

/// A dialogue script.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// Where it came from.
    pub path: PathBuf,
    /// Scene name or path (resolved against the script's folder).
    pub scene: String,
    /// Character, if the script fixes one.
    pub character: Option<String>,
    /// The language its turns are in (`language = "de"` at its top), if it says.
    pub language: Option<String>,
    /// The turns, parsed.
    pub turns: Vec<(Turn, ScriptTurn)>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    scene: String,
    character: Option<String>,
    language: Option<String>,
    #[serde(rename = "turn")]
    turns: Vec<ScriptTurn>,
}

/// Why a script is unusable: the file, the turn (1-based) and the reason.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// Unreadable.
    #[error("cannot read dialogue script {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not TOML of the script form.
    #[error("{path}: not a valid dialogue script: {message}")]
    Parse { path: PathBuf, message: String },
    /// A turn is wrong.
    #[error("{path}: turn {turn}: {reason}")]
    Turn {
        path: PathBuf,
        turn: usize,
        reason: String,
    },
}

impl Script {
    /// Reads and checks a script.
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let file: ScriptFile = toml::from_str(&text).map_err(|error| ScriptError::Parse {
            path: path.to_path_buf(),
            message: error.to_string().trim().replace('\n', " "),
        })?;
        let mut turns = Vec::new();
        for (i, turn) in file.turns.into_iter().enumerate() {
            let bad = |reason: String| ScriptError::Turn {
                path: path.to_path_buf(),
                turn: i + 1,
                reason,
            };
            let parsed = Turn::parse(&turn.text).map_err(|e| bad(e.to_string()))?;
            if let Some(reason) = &turn.expect_reason {
                if !["busy", "reach", "see"].contains(&reason.as_str()) {
                    return Err(bad(format!(
                        "expect_reason '{reason}' must be busy, reach or see"
                    )));
                }
            }
            for state in &turn.expect_state {
                if state.contains.is_none() && state.at.is_none() && state.away_from.is_none() {
                    return Err(bad(format!(
                        "expect_state for '{}' needs contains, at or away_from",
                        state.object
                    )));
                }
            }
            turns.push((parsed, turn));
        }
        if turns.is_empty() {
            return Err(ScriptError::Parse {
                path: path.to_path_buf(),
                message: "it has no [[turn]]".into(),
            });
        }
        // A scene given as a relative path is relative to the script.
        let scene = if file.scene.contains('/') || file.scene.ends_with(".toml") {
            path.parent()
                .unwrap_or(Path::new("."))
                .join(&file.scene)
                .display()
                .to_string()
        } else {
            file.scene
        };
        Ok(Self {
            path: path.to_path_buf(),
            scene,
            character: file.character,
            language: file.language,
            turns,
        })
    }

    /// Checks the names a script uses against its scene.
    pub fn check_names(&self, world: &World) -> Result<(), ScriptError> {
        for (i, (_, turn)) in self.turns.iter().enumerate() {
            let bad = |reason: String| ScriptError::Turn {
                path: self.path.clone(),
                turn: i + 1,
                reason,
            };
            for before in &turn.before {
                if world.person_named(&before.person).is_none() {
                    return Err(bad(format!(
                        "before: no person '{}' in scene {}",
                        before.person, world.name
                    )));
                }
                for object in &before.holding {
                    if world.object_named(object).is_none() {
                        return Err(bad(format!(
                            "before: no object '{object}' in scene {}",
                            world.name
                        )));
                    }
                }
            }
            for state in &turn.expect_state {
                if world.object_named(&state.object).is_none() {
                    return Err(bad(format!(
                        "expect_state: no object '{}' in scene {}",
                        state.object, world.name
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Applies a turn's `before` changes to the world.
pub fn apply_before(world: &mut World, before: &[Before]) -> Result<(), String> {
    for change in before {
        let person = world
            .person_named(&change.person)
            .ok_or_else(|| format!("no person '{}'", change.person))?;
        world.free_person(person);
        for name in &change.holding {
            let object = world
                .object_named(name)
                .ok_or_else(|| format!("no object '{name}'"))?;
            world
                .make_busy_with(person, object)
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
