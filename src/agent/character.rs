//! Characters: the system prompt that shapes the robot (Listing 1 of the
//! paper and its variants), read from `characters/<name>.txt`. `{robot}`
//! becomes the scene's robot name.

use std::path::{Path, PathBuf};

/// Why a character could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CharacterError {
    /// No such file.
    #[error("there is no character '{name}' (no file {path}); characters: {available}")]
    Unknown {
        name: String,
        path: PathBuf,
        available: String,
    },
    /// The file could not be read.
    #[error("cannot read character {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is empty.
    #[error("character {path} is empty")]
    Empty { path: PathBuf },
}

/// A system prompt, ready for one robot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Character {
    /// The name it was loaded by (file stem or path).
    pub name: String,
    /// The system prompt.
    pub prompt: String,
}

impl Character {
    /// Loads a character by name (under `characters/`) or path, for the robot called `robot`.
    pub fn load(spec: &str, robot: &str) -> Result<Self, CharacterError> {
        Self::load_in(&crate::paths::data_root().join("characters"), spec, robot)
    }

    /// Loads a character by name from `folder` (a language's characters) or by path.
    pub fn load_in(folder: &Path, spec: &str, robot: &str) -> Result<Self, CharacterError> {
        let as_path = Path::new(spec);
        let path = if as_path.exists() || spec.contains('/') || spec.ends_with(".txt") {
            as_path.to_path_buf()
        } else {
            folder.join(format!("{spec}.txt"))
        };
        if !path.exists() {
            return Err(CharacterError::Unknown {
                name: spec.to_string(),
                path,
                available: crate::paths::available_in(folder, "txt").join(", "),
            });
        }
        let text = std::fs::read_to_string(&path).map_err(|source| CharacterError::Read {
            path: path.clone(),
            source,
        })?;
        if text.trim().is_empty() {
            return Err(CharacterError::Empty { path });
        }
        Ok(Self {
            name: spec.to_string(),
            prompt: text.trim().replace("{robot}", robot),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_paper_variants() {
        let full = Character::load("full", "the_robot").expect("full");
        let relaxed = Character::load("relaxed", "the_robot").expect("relaxed");
        let none = Character::load("none", "the_robot").expect("none");
        assert!(full.prompt.contains("'is_person_busy_or_idle'"));
        assert!(full.prompt.contains("robot called 'the_robot'"));
        // Relaxed: no tool named; none: nothing from "IMPORTANT" on.
        for tool in [
            "is_person_busy_or_idle",
            "hand_object_over_to_person",
            "'speak'",
            "'stop'",
        ] {
            assert!(!relaxed.prompt.contains(tool), "relaxed mentions {tool}");
        }
        assert!(full.prompt.contains("IMPORTANT: Obey the following rules:"));
        assert!(!none.prompt.contains("IMPORTANT"));
        assert!(full.prompt.starts_with(&none.prompt));
        let other = Character::load("full", "robbie").expect("full");
        assert!(other.prompt.contains("robot called 'robbie'"));
        let error = Character::load("grumpy", "the_robot").unwrap_err();
        assert!(error.to_string().contains("full"), "{error}");
    }

    #[test]
    fn a_language_has_its_own_characters() {
        let german = Path::new(env!("CARGO_MANIFEST_DIR")).join("languages/de/characters");
        let full = Character::load_in(&german, "full", "robbie").expect("German full");
        let none = Character::load_in(&german, "none", "robbie").expect("German none");
        assert!(full.prompt.contains("'robbie'") && full.prompt.contains("Deutsch"));
        assert!(full.prompt.contains("'is_person_busy_or_idle'"));
        assert!(full.prompt.starts_with(&none.prompt));
        let error = Character::load_in(&german, "grumpy", "robbie").unwrap_err();
        assert!(error.to_string().contains("small"), "{error}");
    }
}
