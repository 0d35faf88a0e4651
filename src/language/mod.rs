//! Languages as data. A language is a folder, `languages/<code>/`, whose
//! `language.toml` names its parts: the sentences the understanding stage
//! reads, the robot's own sentences, the characters, the recogniser's code.
//! Adding a language is adding a folder; nothing here knows any one language.

mod phrasebook;
mod things;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Deserialize;

use crate::understanding::{Grammar, GrammarError, Understanding};
pub use phrasebook::{Phrasebook, PhrasebookError, Slots};
pub use things::capitalised;

/// The language used when none is configured.
pub const DEFAULT: &str = "en";

/// Why a language could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LanguageError {
    /// No folder of that name under `languages/`, and not a folder path.
    #[error("there is no language '{code}' (no folder {folder}); languages: {available}")]
    Unknown {
        /// The code asked for.
        code: String,
        /// Where its folder was looked for.
        folder: PathBuf,
        /// The codes that exist.
        available: String,
    },
    /// A file of the language cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `language.toml` is not valid (the message has line and column).
    #[error("{path}: {message}")]
    Manifest {
        /// The file.
        path: PathBuf,
        /// The TOML library's message.
        message: String,
    },
    /// The sentences do not load.
    #[error(transparent)]
    Sentences(#[from] GrammarError),
    /// The robot's own sentences do not load.
    #[error(transparent)]
    Speech(#[from] PhrasebookError),
}

/// `language.toml`: the language's name and where its parts are (relative to its folder).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// The language's own name ("English", "Deutsch").
    name: String,
    /// The recogniser's language code (whisper's, e.g. `en`, `de`).
    recogniser: String,
    /// The recogniser's prompt about the people (`{names}`), in this language.
    recogniser_people: String,
    /// The recogniser's prompt about the table's things (`{things}`).
    recogniser_things: String,
    /// The understanding stage's sentence file.
    #[serde(default = "default_sentences")]
    sentences: PathBuf,
    /// The robot's own sentences.
    #[serde(default = "default_speech")]
    speech: PathBuf,
    /// The folder of character prompts.
    #[serde(default = "default_characters")]
    characters: PathBuf,
    /// Words by which the evaluation recognises an explanation.
    judge: ExplanationWords,
    /// The voices that speak it.
    voice: Voices,
}

/// `[voice]` of `language.toml`: who speaks the language.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Voices {
    /// The robot's espeak-ng voice (`en-us`, `de`).
    pub espeak: String,
    /// espeak-ng voices for the people of a spoken evaluation, one per person in turn.
    pub people: Vec<String>,
    /// Whether the configured Piper voice speaks this language (else `auto` picks espeak-ng).
    #[serde(default)]
    pub piper: bool,
}

/// Words that name each hindrance in an explanation, and words of explaining at all;
/// matched as lower-case substrings of what the robot said.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplanationWords {
    /// The listener is busy.
    pub busy: Vec<String>,
    /// The listener cannot reach the thing.
    pub reach: Vec<String>,
    /// The listener cannot see the thing.
    pub see: Vec<String>,
    /// Any reason at all ("because").
    pub explaining: Vec<String>,
}

impl ExplanationWords {
    /// The words of a hindrance (`busy`, `reach`, `see`); none for another.
    pub fn of(&self, reason: &str) -> &[String] {
        match reason {
            "busy" => &self.busy,
            "reach" => &self.reach,
            "see" => &self.see,
            _ => &[],
        }
    }
}

fn default_sentences() -> PathBuf {
    "sentences.toml".into()
}
fn default_speech() -> PathBuf {
    "speech.toml".into()
}
fn default_characters() -> PathBuf {
    "characters".into()
}

/// A loaded language: its sentences read, its robot's sentences ready.
#[derive(Debug, Clone)]
pub struct Language {
    code: String,
    name: String,
    recogniser: String,
    recogniser_prompt: (String, String),
    characters: PathBuf,
    understanding: Understanding,
    speech: Arc<Phrasebook>,
    judge: Arc<ExplanationWords>,
    voices: Voices,
}

impl Language {
    /// A language by code (a folder under `<data root>/languages/`) or by a folder path;
    /// each is loaded once per process (a failed load is retried).
    pub fn find(code_or_folder: &str) -> Result<Self, LanguageError> {
        static LOADED: Mutex<Option<HashMap<PathBuf, Language>>> = Mutex::new(None);
        let folder = folder_of(code_or_folder)?;
        let mut loaded = LOADED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let cache = loaded.get_or_insert_with(HashMap::new);
        if let Some(language) = cache.get(&folder) {
            return Ok(language.clone());
        }
        let language = Self::load(&folder)?;
        cache.insert(folder, language.clone());
        Ok(language)
    }

    /// English, the shipped default.
    pub fn english() -> Result<Self, LanguageError> {
        Self::find(DEFAULT)
    }

    /// Loads the language in a folder (not cached).
    pub fn load(folder: &Path) -> Result<Self, LanguageError> {
        let path = folder.join("language.toml");
        let text = std::fs::read_to_string(&path).map_err(|source| LanguageError::Read {
            path: path.clone(),
            source,
        })?;
        let manifest: Manifest = toml::from_str(&text).map_err(|e| LanguageError::Manifest {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let code = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let understanding = Understanding::new(Grammar::load(&folder.join(&manifest.sentences))?);
        let speech = Phrasebook::load(&folder.join(&manifest.speech))?;
        Ok(Self {
            code,
            name: manifest.name,
            recogniser: manifest.recogniser,
            recogniser_prompt: (manifest.recogniser_people, manifest.recogniser_things),
            characters: folder.join(&manifest.characters),
            understanding,
            speech: Arc::new(speech),
            judge: Arc::new(manifest.judge),
            voices: manifest.voice,
        })
    }

    /// The code (the folder's name, e.g. `de`).
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The language's own name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The recogniser's language code.
    pub fn recogniser(&self) -> &str {
        &self.recogniser
    }

    /// The recogniser's prompt sentences: about the people (`{names}`), about the things (`{things}`).
    pub fn recogniser_prompt(&self) -> &(String, String) {
        &self.recogniser_prompt
    }

    /// The folder of character prompts.
    pub fn characters(&self) -> &Path {
        &self.characters
    }

    /// The understanding stage over this language's sentences.
    pub fn understanding(&self) -> &Understanding {
        &self.understanding
    }

    /// The robot's own sentences.
    pub fn speech(&self) -> &Arc<Phrasebook> {
        &self.speech
    }

    /// The voices that speak the language.
    pub fn voices(&self) -> &Voices {
        &self.voices
    }

    /// The words that make a sentence an explanation, for the evaluation.
    pub fn explanation_words(&self) -> &ExplanationWords {
        &self.judge
    }
}

/// The codes of the shipped languages (folders with a `language.toml`).
pub fn available() -> Vec<String> {
    let root = crate::paths::data_root().join("languages");
    let mut codes: Vec<String> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("language.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    codes.sort();
    codes
}

/// A code's folder, or the folder given as a path.
fn folder_of(code_or_folder: &str) -> Result<PathBuf, LanguageError> {
    let given = Path::new(code_or_folder);
    if code_or_folder.contains(std::path::MAIN_SEPARATOR) && given.is_dir() {
        return Ok(given.to_path_buf());
    }
    let folder = crate::paths::data_root()
        .join("languages")
        .join(code_or_folder);
    if is_code(code_or_folder) && folder.join("language.toml").is_file() {
        return Ok(folder);
    }
    Err(LanguageError::Unknown {
        code: code_or_folder.to_string(),
        folder,
        available: available().join(", "),
    })
}

/// A language code as folders are named: lower-case letters, digits, `-` or `_`.
fn is_code(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_loads_with_its_sentences_and_speech() {
        let english = Language::english().expect("English loads");
        assert_eq!(english.code(), "en");
        assert_eq!(english.recogniser(), "en");
        assert!(english.characters().join("full.txt").is_file());
        assert!(!english.understanding().grammar().sentences.is_empty());
    }

    #[test]
    fn an_unknown_code_names_the_languages_there_are() {
        let error = Language::find("xx")
            .expect_err("no such language")
            .to_string();
        assert!(error.contains("'xx'") && error.contains("en"), "{error}");
        let error = Language::find("../scenes")
            .expect_err("not a code")
            .to_string();
        assert!(error.contains("no language"), "{error}");
    }

    #[test]
    fn a_broken_manifest_is_named_with_its_line() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("language.toml"),
            "name = \"X\"\nrecogniser = 3\n",
        )
        .expect("write");
        let error = Language::load(dir.path()).expect_err("broken").to_string();
        assert!(
            error.contains("language.toml") && error.contains("line 2"),
            "{error}"
        );
    }
}
