//! Who is around the table, as the front end needs it: head positions and directions.
//!
//! The twin (`src/twin`) will feed this later; until then `participants_from_scene_file`
//! reads the few scene-file fields the front end needs.

use std::path::Path;

use glam::Vec3;
use serde::Deserialize;

use super::FrontendError;

/// Default eye height of a seated person (DESIGN.md, "The twin").
pub const DEFAULT_EYE_HEIGHT: f32 = 1.20;
/// Head height of the robot.
pub const ROBOT_HEAD_HEIGHT: f32 = 1.30;

/// One person (or the robot) with the head pose the front end reasons about.
#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    /// Name as used in turns (`Felix`, `the_robot`).
    pub name: String,
    /// Head position, world frame, metres.
    pub head: Vec3,
    /// Unit head direction, world frame.
    pub facing: Vec3,
}

/// The people and the robot, plus where the microphone array is.
#[derive(Debug, Clone, PartialEq)]
pub struct Participants {
    /// The people around the table (not the robot).
    pub people: Vec<Participant>,
    /// The robot, a possible listener.
    pub robot: Participant,
    /// Centre of the microphone array, world frame (its axes are the robot's: x forward, z up).
    pub microphone_array_origin: Vec3,
}

impl Participants {
    /// The person called `name` (case-insensitive).
    pub fn person(&self, name: &str) -> Option<&Participant> {
        self.people
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Everybody who can be addressed: the people, then the robot.
    pub fn everyone(&self) -> impl Iterator<Item = &Participant> {
        self.people.iter().chain(std::iter::once(&self.robot))
    }

    /// Names for the recogniser's initial prompt (robot name in spoken form).
    pub fn spoken_names(&self) -> Vec<String> {
        self.people.iter().map(|p| p.name.clone()).collect()
    }
}

/// A unit head direction from a yaw in degrees (0 = +x, counter-clockwise), level.
pub fn facing_from_yaw(yaw_deg: f32) -> Vec3 {
    let a = yaw_deg.to_radians();
    Vec3::new(a.cos(), a.sin(), 0.0)
}

#[derive(Deserialize)]
struct SceneFile {
    robot: RobotEntry,
    #[serde(default)]
    person: Vec<PersonEntry>,
}

#[derive(Deserialize)]
struct RobotEntry {
    name: String,
    position: [f32; 2],
}

#[derive(Deserialize)]
struct PersonEntry {
    name: String,
    position: [f32; 2],
    yaw_deg: f32,
    eye_height: Option<f32>,
}

/// Reads the people and the robot from a scene TOML file (`[robot]` and `[[person]]` only);
/// `array_offset` is the microphone array's position relative to the robot's floor point.
///
/// A stop-gap until the twin's scene loader exists; other scene fields are ignored.
pub fn participants_from_scene_file(
    path: &Path,
    array_offset: [f32; 3],
) -> Result<Participants, FrontendError> {
    let text = std::fs::read_to_string(path).map_err(|source| FrontendError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    participants_from_scene_str(&text, array_offset).map_err(|e| FrontendError::Scene {
        path: path.to_path_buf(),
        detail: e,
    })
}

/// Same as [`participants_from_scene_file`], from TOML text.
pub fn participants_from_scene_str(
    text: &str,
    array_offset: [f32; 3],
) -> Result<Participants, String> {
    let scene: SceneFile = toml::from_str(text).map_err(|e| e.message().to_string())?;
    let [rx, ry] = scene.robot.position;
    let robot = Participant {
        name: scene.robot.name,
        head: Vec3::new(rx, ry, ROBOT_HEAD_HEIGHT),
        facing: Vec3::X, // the robot faces +x (DESIGN.md)
    };
    let people = scene
        .person
        .into_iter()
        .map(|p| Participant {
            name: p.name,
            head: Vec3::new(
                p.position[0],
                p.position[1],
                p.eye_height.unwrap_or(DEFAULT_EYE_HEIGHT),
            ),
            facing: facing_from_yaw(p.yaw_deg),
        })
        .collect();
    Ok(Participants {
        people,
        robot,
        microphone_array_origin: Vec3::new(rx, ry, 0.0) + Vec3::from(array_offset),
    })
}
