//! Scene files (TOML, DESIGN.md "Scene files"): parsed, validated as a whole,
//! and turned into a `World`. A bad file is rejected whole, with every problem
//! named by file, entry and reason.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use serde::Deserialize;

use super::geometry::object_solid;
use super::kinds::{check_shape, Kind, KindCatalog, ShapeTemplate};
use super::world::{
    Body, Hand, Object, ObjectId, Person, PersonId, Placement, RobotPlacement, Table, World,
    TORSO_RADIUS,
};

/// A hand holds one object; people have two.
const HANDS_PER_PERSON: usize = 2;
/// Objects closer than this count as overlapping (a sheet of paper apart is fine).
const OVERLAP_TOLERANCE: f32 = 1e-4;

/// One problem in a scene file.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The entry, e.g. `object 'red_glass'` or `person 'Felix'`.
    pub entry: String,
    /// What is wrong.
    pub reason: String,
}

/// Why a scene could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("cannot read scene file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// No scene of that name.
    #[error("there is no scene called '{name}' (no file {path}); scenes: {available}")]
    Unknown {
        name: String,
        path: PathBuf,
        available: String,
    },
    /// Not TOML of the scene form.
    #[error("{path}: not a valid scene file: {message}")]
    Parse { path: PathBuf, message: String },
    /// The kinds file the scene uses is broken.
    #[error(transparent)]
    Kinds(#[from] super::kinds::KindError),
    /// The scene parsed but is inconsistent.
    #[error("{path}: {}", ProblemList(.problems))]
    Invalid {
        path: PathBuf,
        problems: Vec<Problem>,
    },
}

struct ProblemList<'a>(&'a [Problem]);

impl fmt::Display for ProblemList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, "; ")?;
            }
            write!(f, "{}: {}", p.entry, p.reason)?;
        }
        Ok(())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneFile {
    name: String,
    /// Kinds file, relative to the scene file; default `kinds.toml` beside it
    /// or in the shipped `scenes/`.
    kinds: Option<String>,
    table: TableEntry,
    robot: RobotEntry,
    #[serde(default)]
    person: Vec<PersonEntry>,
    #[serde(default)]
    object: Vec<ObjectEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableEntry {
    size: [f32; 2],
    height: f32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RobotEntry {
    name: String,
    position: [f32; 2],
    #[serde(default)]
    yaw_deg: f32,
    #[serde(default = "default_robot_description")]
    description: String,
}

fn default_robot_description() -> String {
    "jaco2_bimanual".to_string()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PersonEntry {
    name: String,
    position: [f32; 2],
    yaw_deg: f32,
    #[serde(default)]
    holding: Vec<String>,
    eye_height: Option<f32>,
    shoulder_height: Option<f32>,
    shoulder_width: Option<f32>,
    arm_reach: Option<f32>,
    #[serde(default)]
    busy: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ObjectEntry {
    name: String,
    kind: String,
    position: Option<[f32; 2]>,
    held_by: Option<String>,
    #[serde(default)]
    yaw_deg: f32,
    #[serde(default)]
    contains: String,
    #[serde(default)]
    properties: Vec<String>,
    radius: Option<f32>,
    height: Option<f32>,
    size: Option<[f32; 3]>,
    grasp_height: Option<f32>,
}

/// Loads a scene by name (under `scenes/`) or path.
pub fn load(spec: &str) -> Result<World, SceneError> {
    let path = crate::paths::resolve(spec, "scenes", "toml");
    if !path.exists() && !spec.contains('/') && !spec.ends_with(".toml") {
        return Err(SceneError::Unknown {
            name: spec.to_string(),
            path,
            available: crate::paths::available("scenes", "toml")
                .into_iter()
                .filter(|n| n != "kinds")
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    load_file(&path)
}

/// Loads and validates one scene file.
pub fn load_file(path: &Path) -> Result<World, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|source| SceneError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut file: SceneFile = toml::from_str(&text).map_err(|error| SceneError::Parse {
        path: path.to_path_buf(),
        message: error.to_string().trim().replace('\n', " "),
    })?;
    file.robot.description = description_beside(path, &file.robot.description);
    let kinds_path = match &file.kinds {
        Some(relative) => path.parent().unwrap_or(Path::new(".")).join(relative),
        None => {
            let beside = path.parent().unwrap_or(Path::new(".")).join("kinds.toml");
            if beside.exists() {
                beside
            } else {
                crate::paths::data_root().join("scenes/kinds.toml")
            }
        }
    };
    let kinds = KindCatalog::load(&kinds_path)?;
    build(file, &kinds).map_err(|problems| SceneError::Invalid {
        path: path.to_path_buf(),
        problems,
    })
}

/// The robot description a scene names, found beside the scene first (as the file
/// itself, or as `NAME.toml`), then as any other name or path (`paths::resolve`).
fn description_beside(scene: &Path, spec: &str) -> String {
    let dir = scene.parent().unwrap_or(Path::new("."));
    let as_file = dir.join(spec);
    let as_name = dir.join(format!("{spec}.toml"));
    [as_file, as_name]
        .into_iter()
        .find(|p| p.is_file())
        .map_or_else(|| spec.to_string(), |p| p.display().to_string())
}

/// Parses scene TOML text with a given kind catalog (for tests and generators).
pub fn from_toml_str(text: &str, kinds: &KindCatalog) -> Result<World, SceneError> {
    let path = PathBuf::from("<scene>");
    let file: SceneFile = toml::from_str(text).map_err(|error| SceneError::Parse {
        path: path.clone(),
        message: error.to_string().trim().replace('\n', " "),
    })?;
    build(file, kinds).map_err(|problems| SceneError::Invalid { path, problems })
}

/// What is wrong with a scene so far, and the names already taken.
#[derive(Default)]
struct Problems {
    list: Vec<Problem>,
    /// Names are unique across people, objects and the robot: grounding uses them.
    names: BTreeSet<String>,
}

impl Problems {
    fn add(&mut self, entry: impl Into<String>, reason: impl Into<String>) {
        self.list.push(Problem {
            entry: entry.into(),
            reason: reason.into(),
        });
    }

    fn check_unique(&mut self, what: &str, name: &str) {
        if name.trim().is_empty() {
            self.add(format!("{what} ''"), "has an empty name");
        } else if !self.names.insert(name.to_lowercase()) {
            self.add(
                format!("{what} '{name}'"),
                "duplicate name: every person, object and the robot need their own",
            );
        }
    }
}

fn build(file: SceneFile, kinds: &KindCatalog) -> Result<World, Vec<Problem>> {
    let mut problems = Problems::default();
    let table = table_of(&file.table, &mut problems);
    let robot = robot_of(&file.robot, &table, &mut problems);
    let persons: Vec<Person> = file
        .person
        .iter()
        .map(|entry| person_of(entry, &table, &mut problems))
        .collect();
    let person_index: BTreeMap<&str, PersonId> = file
        .person
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), PersonId(i)))
        .collect();
    let holder_of = holders(&file, &mut problems);
    let mut objects: Vec<Object> = file
        .object
        .iter()
        .filter_map(|entry| {
            problems.check_unique("object", &entry.name);
            let holder = holder_for(entry, &person_index, &holder_of, &mut problems);
            object_of(entry, kinds, holder, &mut problems)
        })
        .collect();
    assign_hands(&persons, &mut objects, &mut problems);
    let world = World::from_parts(file.name, table, robot, persons, objects);
    for p in table_problems(&world) {
        problems.add(p.entry, p.reason);
    }
    if problems.list.is_empty() {
        Ok(world)
    } else {
        Err(problems.list)
    }
}

fn table_of(entry: &TableEntry, problems: &mut Problems) -> Table {
    let table = Table {
        size: Vec2::from_array(entry.size),
        height: entry.height,
    };
    if !(table.size.min_element() > 0.0 && table.size.max_element() < 10.0) {
        problems.add("table", "size must be two positive lengths in metres");
    }
    if !(0.3..=1.5).contains(&table.height) {
        problems.add(
            "table",
            format!(
                "height {} m is not a table height (0.3 to 1.5 m)",
                table.height
            ),
        );
    }
    table
}

fn robot_of(entry: &RobotEntry, table: &Table, problems: &mut Problems) -> RobotPlacement {
    problems.check_unique("robot", &entry.name);
    let robot = RobotPlacement {
        name: entry.name.clone(),
        position: Vec2::from_array(entry.position),
        yaw: entry.yaw_deg.to_radians(),
        description: entry.description.clone(),
    };
    if table.distance_to(robot.position) < 0.1 {
        problems.add(format!("robot '{}'", robot.name), "stands inside the table");
    }
    robot
}

fn person_of(entry: &PersonEntry, table: &Table, problems: &mut Problems) -> Person {
    problems.check_unique("person", &entry.name);
    let defaults = Body::default();
    let body = Body {
        eye_height: entry.eye_height.unwrap_or(defaults.eye_height),
        shoulder_height: entry.shoulder_height.unwrap_or(defaults.shoulder_height),
        shoulder_width: entry.shoulder_width.unwrap_or(defaults.shoulder_width),
        arm_reach: entry.arm_reach.unwrap_or(defaults.arm_reach),
    };
    let label = format!("person '{}'", entry.name);
    let measures = [
        body.eye_height,
        body.shoulder_height,
        body.shoulder_width,
        body.arm_reach,
    ];
    if measures
        .iter()
        .any(|v| !(v.is_finite() && *v > 0.0 && *v < 3.0))
    {
        problems.add(label.clone(), "body measures must be positive metres");
    }
    let position = Vec2::from_array(entry.position);
    if table.distance_to(position) < TORSO_RADIUS {
        problems.add(
            label,
            format!(
                "sits inside the table at [{}, {}]: a person needs {TORSO_RADIUS} m from the table's edge",
                position.x, position.y
            ),
        );
    }
    Person {
        name: entry.name.clone(),
        position,
        yaw: entry.yaw_deg.to_radians(),
        body,
        busy_flag: entry.busy,
    }
}

/// Who holds what, from `holding` on people.
fn holders<'a>(file: &'a SceneFile, problems: &mut Problems) -> BTreeMap<&'a str, PersonId> {
    let mut holder_of: BTreeMap<&str, PersonId> = BTreeMap::new();
    for (i, entry) in file.person.iter().enumerate() {
        for held in &entry.holding {
            if !file.object.iter().any(|o| &o.name == held) {
                problems.add(
                    format!("person '{}'", entry.name),
                    format!("holds '{held}', which is not an object of this scene"),
                );
            } else if let Some(previous) = holder_of.insert(held, PersonId(i)) {
                if previous != PersonId(i) {
                    problems.add(
                        format!("object '{held}'"),
                        format!(
                            "is held by both {} and {}",
                            file.person[previous.0].name, entry.name
                        ),
                    );
                }
            }
        }
    }
    holder_of
}

/// The person holding an object: its `held_by`, agreeing with the people's `holding`.
fn holder_for(
    entry: &ObjectEntry,
    person_index: &BTreeMap<&str, PersonId>,
    holder_of: &BTreeMap<&str, PersonId>,
    problems: &mut Problems,
) -> Option<PersonId> {
    let label = format!("object '{}'", entry.name);
    let listed = holder_of.get(entry.name.as_str());
    let Some(name) = &entry.held_by else {
        return listed.copied();
    };
    let Some(&id) = person_index.get(name.as_str()) else {
        problems.add(
            label,
            format!("held_by names '{name}', who is not a person of this scene"),
        );
        return None;
    };
    if listed.is_some_and(|l| *l != id) {
        problems.add(
            label,
            format!("held_by '{name}' but listed in another person's holding"),
        );
    }
    Some(id)
}

/// One object: its kind with the entry's overrides, where it is, what it holds.
fn object_of(
    entry: &ObjectEntry,
    kinds: &KindCatalog,
    holder: Option<PersonId>,
    problems: &mut Problems,
) -> Option<Object> {
    let label = format!("object '{}'", entry.name);
    let Some(kind) = kinds.get(&entry.kind) else {
        problems.add(
            label,
            format!(
                "unknown kind '{}' (kinds: {})",
                entry.kind,
                kinds.names().collect::<Vec<_>>().join(", ")
            ),
        );
        return None;
    };
    let kind = kind_for(entry, kind.clone(), &label, problems);
    let contains = (!entry.contains.trim().is_empty()).then(|| entry.contains.trim().to_string());
    if contains.is_some() && !kind.container {
        problems.add(
            label.clone(),
            format!(
                "contains '{}' but a {} is not a container",
                entry.contains, kind.name
            ),
        );
    }
    let placement = match (entry.position, holder) {
        (Some(_), Some(_)) => {
            problems.add(
                label,
                "has both a position on the table and a holder; give one",
            );
            return None;
        }
        (None, None) => {
            problems.add(label, "needs a position on the table or a holder (held_by)");
            return None;
        }
        (Some(position), None) => Placement::OnTable {
            position: Vec2::from_array(position),
            yaw: entry.yaw_deg.to_radians(),
        },
        // Hands are assigned later, once every holder's objects are known.
        (None, Some(person)) => Placement::HeldBy {
            person,
            hand: Hand::Right,
        },
    };
    if matches!(placement, Placement::HeldBy { .. }) && kind.grasps.is_empty() {
        problems.add(
            label,
            format!("a {} is too large to hold in one hand", kind.name),
        );
    }
    Some(Object {
        name: entry.name.clone(),
        kind,
        placement,
        contains,
        added: Vec::new(),
        properties: entry.properties.iter().map(|p| p.to_lowercase()).collect(),
        used: false,
    })
}

/// The kind with what the entry overrides (radius, height, size, grasp height).
fn kind_for(entry: &ObjectEntry, mut kind: Kind, label: &str, problems: &mut Problems) -> Kind {
    kind.shape = match kind.shape {
        ShapeTemplate::Cylinder { radius, height } => {
            if entry.size.is_some() {
                problems.add(label, "a cylinder takes radius and height, not size");
            }
            ShapeTemplate::Cylinder {
                radius: entry.radius.unwrap_or(radius),
                height: entry.height.unwrap_or(height),
            }
        }
        ShapeTemplate::Box { size } => {
            if entry.radius.is_some() {
                problems.add(label, "a box takes size, not radius");
            }
            let mut size = entry.size.map(Vec3::from_array).unwrap_or(size);
            if let Some(height) = entry.height {
                size.z = height;
            }
            ShapeTemplate::Box { size }
        }
    };
    if let Err(reason) = check_shape(&kind.shape) {
        problems.add(label, reason);
    }
    if let Some(grasp_height) = entry.grasp_height {
        kind.grasp_height = grasp_height;
    }
    kind.grasp_height = kind.grasp_height.min(kind.shape.height());
    kind
}

/// Hands: right first, then left; a third object has no hand.
fn assign_hands(persons: &[Person], objects: &mut [Object], problems: &mut Problems) {
    for (person, holder) in persons.iter().enumerate() {
        let held: Vec<usize> = objects
            .iter()
            .enumerate()
            .filter(|(_, o)| matches!(o.placement, Placement::HeldBy { person: p, .. } if p.0 == person))
            .map(|(i, _)| i)
            .collect();
        if held.len() > HANDS_PER_PERSON {
            let names: Vec<&str> = held.iter().map(|&i| objects[i].name.as_str()).collect();
            problems.add(
                format!("person '{}'", holder.name),
                format!(
                    "holds {} objects ({}) but has only two hands",
                    held.len(),
                    names.join(", ")
                ),
            );
        }
        for (n, &i) in held.iter().enumerate() {
            let hand = if n == 0 { Hand::Right } else { Hand::Left };
            objects[i].placement = Placement::HeldBy {
                person: PersonId(person),
                hand,
            };
        }
    }
}

/// Objects on the table must stand on it entirely and must not overlap.
pub fn table_problems(world: &World) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut problem = |entry: String, reason: String| problems.push(Problem { entry, reason });
    let on_table: Vec<ObjectId> = world
        .object_ids()
        .filter(|&id| matches!(world.object(id).placement, Placement::OnTable { .. }))
        .collect();
    for &id in &on_table {
        let object = world.object(id);
        let Placement::OnTable { position, yaw } = object.placement else {
            continue;
        };
        let corners: Vec<Vec2> = match object.shape() {
            ShapeTemplate::Cylinder { radius, .. } => (0..16)
                .map(|i| {
                    let a = i as f32 * std::f32::consts::TAU / 16.0;
                    position + radius * Vec2::new(a.cos(), a.sin())
                })
                .collect(),
            ShapeTemplate::Box { size } => {
                let rotation = Vec2::from_angle(yaw);
                [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                    .into_iter()
                    .map(|(sx, sy)| {
                        position + rotation.rotate(Vec2::new(sx * 0.5 * size.x, sy * 0.5 * size.y))
                    })
                    .collect()
            }
        };
        if corners.iter().any(|c| !world.table.contains(*c, -1e-4)) {
            problem(
                format!("object '{}'", object.name),
                format!(
                    "stands off the table at [{}, {}] (the table spans x ±{} and y ±{})",
                    position.x,
                    position.y,
                    0.5 * world.table.size.x,
                    0.5 * world.table.size.y
                ),
            );
        }
    }
    for (n, &a) in on_table.iter().enumerate() {
        for &b in &on_table[n + 1..] {
            let distance = object_solid(world, a).distance_to(&object_solid(world, b));
            if distance < OVERLAP_TOLERANCE {
                problem(
                    format!("object '{}'", world.object(a).name),
                    format!("overlaps '{}'", world.object(b).name),
                );
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
name = "t"
[table]
size = [1.2, 0.8]
height = 0.75
[robot]
name = "the_robot"
position = [-0.85, 0.0]
[[person]]
name = "Felix"
position = [0.0, 0.7]
yaw_deg = -90
[[person]]
name = "Daniel"
position = [0.0, -0.7]
yaw_deg = 90
"#;

    fn kinds() -> KindCatalog {
        KindCatalog::load_shipped().expect("shipped kinds")
    }

    fn problems_of(extra: &str) -> String {
        match from_toml_str(&format!("{BASE}{extra}"), &kinds()) {
            Ok(_) => panic!("scene with {extra:?} was accepted"),
            Err(error) => error.to_string(),
        }
    }

    fn object(name: &str, kind: &str, rest: &str) -> String {
        format!("[[object]]\nname = \"{name}\"\nkind = \"{kind}\"\n{rest}\n")
    }

    #[test]
    fn shipped_scenes_load() {
        for name in ["softdrinks", "coffee", "dinner"] {
            let world = load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(world.persons().len(), 2);
            assert!(
                world.object_named("box").is_some() && world.object_named("smartphone").is_some()
            );
            assert_eq!(world.objects().len(), 7, "{name}");
        }
    }

    #[test]
    fn unknown_kind_names_the_object_and_the_kinds() {
        let message = problems_of(&object("vase", "vase", "position = [0.0, 0.0]"));
        assert!(
            message.contains("object 'vase'") && message.contains("unknown kind 'vase'"),
            "{message}"
        );
        assert!(message.contains("bottle"), "{message}");
    }

    #[test]
    fn duplicate_names_are_rejected() {
        let message = problems_of(&format!(
            "{}{}",
            object("cup", "cup", "position = [0.0, 0.0]"),
            object("cup", "cup", "position = [0.2, 0.0]")
        ));
        assert!(
            message.contains("object 'cup'") && message.contains("duplicate"),
            "{message}"
        );
        let message = problems_of(&object("Felix", "cup", "position = [0.0, 0.0]"));
        assert!(message.contains("duplicate"), "{message}");
    }

    #[test]
    fn objects_off_the_table_are_rejected() {
        let message = problems_of(&object("cup", "cup", "position = [0.59, 0.0]"));
        assert!(
            message.contains("object 'cup'") && message.contains("off the table"),
            "{message}"
        );
        // A turned box whose corner sticks out.
        let message = problems_of(&object(
            "box",
            "box",
            "position = [0.53, 0.0]\nyaw_deg = 45",
        ));
        assert!(message.contains("off the table"), "{message}");
    }

    #[test]
    fn overlapping_objects_are_rejected() {
        let message = problems_of(&format!(
            "{}{}",
            object("a", "bottle", "position = [0.0, 0.0]"),
            object("b", "glass", "position = [0.06, 0.0]")
        ));
        assert!(
            message.contains("object 'a'") && message.contains("overlaps 'b'"),
            "{message}"
        );
    }

    #[test]
    fn a_person_inside_the_table_is_rejected() {
        let message =
            problems_of("[[person]]\nname = \"Anna\"\nposition = [0.0, 0.3]\nyaw_deg = 0\n");
        assert!(
            message.contains("person 'Anna'") && message.contains("inside the table"),
            "{message}"
        );
    }

    #[test]
    fn held_by_nobody_is_rejected() {
        let message = problems_of(&object("cup", "cup", "held_by = \"Zoe\""));
        assert!(
            message.contains("object 'cup'") && message.contains("'Zoe'"),
            "{message}"
        );
        let message = problems_of(&format!(
            "{}[[person]]\nname = \"Anna\"\nposition = [0.8, 0.0]\nyaw_deg = 180\nholding = [\"ghost\"]\n",
            ""
        ));
        assert!(
            message.contains("person 'Anna'") && message.contains("'ghost'"),
            "{message}"
        );
    }

    #[test]
    fn more_objects_than_hands_are_rejected() {
        let message = problems_of(&format!(
            "{}{}{}",
            object("a", "cup", "held_by = \"Daniel\""),
            object("b", "cup", "held_by = \"Daniel\""),
            object("c", "smartphone", "held_by = \"Daniel\"")
        ));
        assert!(
            message.contains("person 'Daniel'") && message.contains("two hands"),
            "{message}"
        );
        let message = problems_of(&object("box", "box", "held_by = \"Daniel\""));
        assert!(message.contains("too large"), "{message}");
    }

    #[test]
    fn position_and_holder_conflict() {
        let message = problems_of(&object(
            "cup",
            "cup",
            "held_by = \"Daniel\"\nposition = [0.0, 0.0]",
        ));
        assert!(message.contains("both a position"), "{message}");
        let message = problems_of(&object("cup", "cup", ""));
        assert!(message.contains("needs a position"), "{message}");
    }

    #[test]
    fn contents_only_in_containers() {
        let message = problems_of(&object(
            "box",
            "box",
            "position = [0.0, 0.0]\ncontains = \"water\"",
        ));
        assert!(message.contains("not a container"), "{message}");
    }

    #[test]
    fn unknown_fields_and_bad_toml_name_the_file() {
        let error = from_toml_str(&format!("{BASE}colour = \"red\"\n"), &kinds()).unwrap_err();
        assert!(error.to_string().contains("colour"), "{error}");
        let error = load_file(Path::new("/nonexistent/scene.toml")).unwrap_err();
        assert!(
            error.to_string().contains("/nonexistent/scene.toml"),
            "{error}"
        );
        let error = load("no_such_scene").unwrap_err();
        assert!(error.to_string().contains("softdrinks"), "{error}");
    }

    #[test]
    fn all_problems_are_reported_at_once_and_nothing_is_loaded() {
        let message = problems_of(&format!(
            "{}{}",
            object("vase", "vase", "position = [0.0, 0.0]"),
            object("cup", "cup", "position = [0.59, 0.0]")
        ));
        assert!(
            message.contains("vase") && message.contains("off the table"),
            "{message}"
        );
    }
}
