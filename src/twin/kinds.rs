//! Object kinds: templates (shape, size, grasp affordances, container or not,
//! words people use) kept in `scenes/kinds.toml`, so that a scene names a kind
//! and overrides only what differs.

use std::collections::BTreeMap;
use std::path::Path;

use glam::Vec3;
use serde::Deserialize;

/// How a robot or human hand can take an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GraspType {
    /// Power grasp around a cylinder, approached from the side.
    Side,
    /// Pinch from above, for small or flat objects.
    Top,
}

impl GraspType {
    /// The word used in tool facts and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            GraspType::Side => "side",
            GraspType::Top => "top",
        }
    }
}

/// The solid an object occupies, in its own frame (base centre at the origin, z up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapeTemplate {
    /// An upright cylinder standing on its base.
    Cylinder { radius: f32, height: f32 },
    /// A box given by its full size before the object's yaw.
    Box { size: Vec3 },
}

impl ShapeTemplate {
    /// Height of the solid above its base.
    pub fn height(&self) -> f32 {
        match *self {
            ShapeTemplate::Cylinder { height, .. } => height,
            ShapeTemplate::Box { size } => size.z,
        }
    }

    /// Radius of the smallest vertical cylinder around the footprint.
    pub fn footprint_radius(&self) -> f32 {
        match *self {
            ShapeTemplate::Cylinder { radius, .. } => radius,
            ShapeTemplate::Box { size } => 0.5 * (size.x * size.x + size.y * size.y).sqrt(),
        }
    }
}

/// A kind of object: the template a scene object starts from.
#[derive(Debug, Clone, PartialEq)]
pub struct Kind {
    /// The kind's name, e.g. `bottle`.
    pub name: String,
    /// Shape and size.
    pub shape: ShapeTemplate,
    /// Where hands close on it, metres above its base.
    pub grasp_height: f32,
    /// How it can be grasped; empty when no hand can take it (e.g. a large box).
    pub grasps: Vec<GraspType>,
    /// Whether it can receive a liquid.
    pub container: bool,
    /// Whether a liquid can be poured out of it.
    pub pourable: bool,
    /// Whether people drink from it (a glass or a cup).
    pub drinking_vessel: bool,
    /// Words people use for it ("bottle", "phone").
    pub words: Vec<String>,
    /// Something of a person's own that they carry and put away (a phone):
    /// "phone's away" says where they put theirs, not that the table lacks it.
    pub personal: bool,
}

/// All kinds known to a scene, by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KindCatalog {
    kinds: BTreeMap<String, Kind>,
}

/// Why the kinds file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KindError {
    /// The file could not be read.
    #[error("cannot read object kinds from {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    /// The file is not valid TOML of the expected form.
    #[error("{path}: not a valid kinds file: {message}")]
    Parse { path: String, message: String },
    /// One kind is inconsistent.
    #[error("{path}: kind '{kind}': {reason}")]
    Invalid {
        path: String,
        kind: String,
        reason: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindEntry {
    shape: String,
    radius: Option<f32>,
    height: Option<f32>,
    size: Option<[f32; 3]>,
    grasp_height: f32,
    #[serde(default)]
    grasps: Vec<GraspType>,
    #[serde(default)]
    container: bool,
    #[serde(default)]
    pourable: bool,
    #[serde(default)]
    drinking_vessel: bool,
    #[serde(default)]
    words: Vec<String>,
    #[serde(default)]
    personal: bool,
}

impl KindCatalog {
    /// Reads and validates a kinds file.
    pub fn load(path: &Path) -> Result<Self, KindError> {
        let text = std::fs::read_to_string(path).map_err(|source| KindError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// The shipped kinds, `<data root>/scenes/kinds.toml`.
    pub fn load_shipped() -> Result<Self, KindError> {
        Self::load(&crate::paths::data_root().join("scenes/kinds.toml"))
    }

    /// Parses and validates kinds from TOML text; `origin` names the text in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, KindError> {
        let entries: BTreeMap<String, KindEntry> =
            toml::from_str(text).map_err(|error| KindError::Parse {
                path: origin.to_string(),
                message: error.message().to_string(),
            })?;
        let mut kinds = BTreeMap::new();
        for (name, entry) in entries {
            let invalid = |reason: String| KindError::Invalid {
                path: origin.to_string(),
                kind: name.clone(),
                reason,
            };
            let shape = match entry.shape.as_str() {
                "cylinder" => {
                    let (Some(radius), Some(height)) = (entry.radius, entry.height) else {
                        return Err(invalid("a cylinder needs radius and height".into()));
                    };
                    ShapeTemplate::Cylinder { radius, height }
                }
                "box" => {
                    let Some(size) = entry.size else {
                        return Err(invalid("a box needs size = [x, y, z]".into()));
                    };
                    ShapeTemplate::Box {
                        size: Vec3::from_array(size),
                    }
                }
                other => {
                    return Err(invalid(format!(
                        "unknown shape '{other}' (use cylinder or box)"
                    )))
                }
            };
            check_shape(&shape).map_err(invalid)?;
            if !(0.0..=shape.height()).contains(&entry.grasp_height) {
                return Err(invalid(format!(
                    "grasp_height {} lies outside the object (height {})",
                    entry.grasp_height,
                    shape.height()
                )));
            }
            let mut words: Vec<String> = entry.words.iter().map(|w| w.to_lowercase()).collect();
            if words.is_empty() {
                words.push(name.replace('_', " "));
            }
            kinds.insert(
                name.clone(),
                Kind {
                    name,
                    shape,
                    grasp_height: entry.grasp_height,
                    grasps: entry.grasps,
                    container: entry.container,
                    pourable: entry.pourable,
                    drinking_vessel: entry.drinking_vessel,
                    words,
                    personal: entry.personal,
                },
            );
        }
        Ok(Self { kinds })
    }

    /// The kind called `name`.
    pub fn get(&self, name: &str) -> Option<&Kind> {
        self.kinds.get(name)
    }

    /// All kind names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.kinds.keys().map(String::as_str)
    }
}

/// Checks that sizes are positive and plausible for a tabletop object.
pub fn check_shape(shape: &ShapeTemplate) -> Result<(), String> {
    let dims: Vec<f32> = match *shape {
        ShapeTemplate::Cylinder { radius, height } => vec![radius, height],
        ShapeTemplate::Box { size } => size.to_array().to_vec(),
    };
    if dims.iter().any(|d| !d.is_finite() || *d <= 0.0) {
        return Err("sizes must be positive numbers of metres".into());
    }
    if dims.iter().any(|d| *d > 1.0) {
        return Err("sizes above 1 m are not tabletop objects (sizes are in metres)".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_kinds_load() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/kinds.toml");
        let catalog = KindCatalog::load(&path).expect("shipped kinds load");
        for kind in [
            "bottle",
            "glass",
            "wine_glass",
            "cup",
            "coffee_pot",
            "box",
            "smartphone",
        ] {
            assert!(catalog.get(kind).is_some(), "missing kind {kind}");
        }
        assert!(catalog.get("box").is_some_and(|k| k.grasps.is_empty()));
        assert!(catalog.get("glass").is_some_and(|k| k.container));
    }

    #[test]
    fn bad_kinds_are_rejected_with_the_kind_named() {
        let error = KindCatalog::from_toml_str(
            "[vase]\nshape = \"cone\"\ngrasp_height = 0.1\n",
            "test.toml",
        )
        .unwrap_err();
        assert!(error.to_string().contains("vase"), "{error}");
        assert!(error.to_string().contains("cone"), "{error}");
        let error = KindCatalog::from_toml_str(
            "[cup]\nshape = \"cylinder\"\nradius = 0.04\nheight = 0.1\ngrasp_height = 0.5\n",
            "test.toml",
        )
        .unwrap_err();
        assert!(error.to_string().contains("grasp_height"), "{error}");
    }
}
