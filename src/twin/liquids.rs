//! Which liquids may be added to a drink already in a container
//! (`scenes/liquids.toml`): milk to coffee or tea. Data, not code.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;

/// Why the liquids file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LiquidsError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    /// The file is not valid TOML of the expected form.
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
}

/// What may be added to what.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Additions {
    /// A liquid that may be added, and the drinks it may be added to.
    #[serde(default)]
    added_to: BTreeMap<String, Vec<String>>,
}

impl Additions {
    /// Parses a liquids file's text; `origin` names it in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, LiquidsError> {
        toml::from_str(text).map_err(|e| LiquidsError::Parse {
            path: origin.to_string(),
            message: e.message().to_string(),
        })
    }

    /// Reads a liquids file.
    pub fn load(path: &Path) -> Result<Self, LiquidsError> {
        let text = std::fs::read_to_string(path).map_err(|source| LiquidsError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// The shipped additions, `<data root>/scenes/liquids.toml`, read once; a
    /// file that cannot be used is said once in the log and adds nothing.
    pub fn shipped() -> &'static Additions {
        static SHIPPED: OnceLock<Additions> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            let path = crate::paths::data_root().join("scenes/liquids.toml");
            Self::load(&path).unwrap_or_else(|e| {
                tracing::warn!("{e}; no liquid may be added to a drink");
                Additions::default()
            })
        })
    }

    /// Whether `liquid` may be added to a container holding `drink`.
    pub fn may_add(&self, liquid: &str, drink: &str) -> bool {
        self.added_to
            .get(liquid)
            .is_some_and(|drinks| drinks.iter().any(|d| d == drink))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_file_adds_milk_to_coffee_and_nothing_to_cola() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/liquids.toml");
        let additions = Additions::load(&path).expect("shipped liquids");
        assert!(additions.may_add("milk", "coffee"));
        assert!(additions.may_add("milk", "tea"));
        assert!(!additions.may_add("cola", "fanta"));
        assert!(!additions.may_add("coffee", "milk"));
    }

    #[test]
    fn a_broken_file_is_named_with_the_reason() {
        let e = Additions::from_toml_str("[added_to]\nmilk = 3\n", "liquids.toml")
            .expect_err("a number is no list");
        assert!(e.to_string().starts_with("liquids.toml: "), "{e}");
        let e = Additions::from_toml_str("[mixes]\n", "x.toml").expect_err("unknown table");
        assert!(e.to_string().contains("mixes"), "{e}");
    }
}
