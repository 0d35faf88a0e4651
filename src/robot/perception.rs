//! What the robot perceives — joint states, ArUco markers on objects, tracked
//! bodies — kept as the latest message of each kind, and applied to the twin
//! only when asked (between actions), so that a plan never sees the world
//! change under it.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use glam::{Affine3A, EulerRot, Quat, Vec2, Vec3};
use serde::Deserialize;
use serde_json::Value;

use crate::twin::kinematics::Side;
use crate::twin::world::Placement;
use crate::twin::{Hand, ObjectId, PersonId, Twin};

use super::joints::JointMap;
use super::protocol::{ArucoMarkers, JointState, MarkerArray, Point};
use super::settings::PerceptionSettings;

/// Objects move in the twin only when their marker moved at least this far (m).
const OBJECT_DEADBAND_M: f32 = 0.01;
/// People move in the twin only when they moved this far (m) ...
const PERSON_DEADBAND_M: f32 = 0.02;
/// ... or turned this much (rad, 3°).
const PERSON_DEADBAND_RAD: f32 = 0.05;

/// Azure Kinect body-tracking joint indices (k4abt order).
mod k4a {
    pub const SHOULDER_LEFT: i64 = 5;
    pub const HAND_LEFT: i64 = 8;
    pub const SHOULDER_RIGHT: i64 = 12;
    pub const HAND_RIGHT: i64 = 15;
    pub const HEAD: i64 = 26;
    pub const EYE_LEFT: i64 = 28;
    pub const EYE_RIGHT: i64 = 30;
}

/// A tracked person, in the world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodySeen {
    /// Between the eyes (or the head joint when the eyes are missing).
    pub eyes: Vec3,
    /// The person's own left and right shoulders.
    pub shoulders: [Vec3; 2],
    /// The person's own left and right hands.
    pub hands: [Vec3; 2],
}

/// The latest perception, as received.
#[derive(Debug, Clone, Default)]
pub struct Perceived {
    /// Joint name → position (driver convention, rad).
    pub joints: HashMap<String, f64>,
    /// When the last joint state arrived.
    pub joints_at: Option<Instant>,
    /// Marker id → marker position in the world.
    pub markers: BTreeMap<i64, Vec3>,
    /// Tracked bodies by body id.
    pub bodies: BTreeMap<i64, BodySeen>,
    /// Whether any marker message arrived yet.
    pub markers_seen: bool,
    /// Whether any body-tracking message arrived yet.
    pub bodies_seen: bool,
    /// Grows with every message; tells whether anything new arrived.
    pub version: u64,
}

/// The camera's pose in the world.
pub fn world_from_camera(settings: &PerceptionSettings) -> Affine3A {
    let [x, y, z] = settings.world_from_camera_xyz.map(|v| v as f32);
    let [roll, pitch, yaw] = settings
        .world_from_camera_rpy_deg
        .map(|v| (v as f32).to_radians());
    Affine3A::from_rotation_translation(
        Quat::from_euler(EulerRot::ZYX, yaw, pitch, roll),
        Vec3::new(x, y, z),
    )
}

fn vec3(p: &Point) -> Option<Vec3> {
    let v = Vec3::new(p.x as f32, p.y as f32, p.z as f32);
    v.is_finite().then_some(v)
}

impl Perceived {
    /// Takes a `sensor_msgs/JointState`; returns false when it is not one.
    pub fn joint_state(&mut self, msg: &Value) -> bool {
        let Ok(state) = JointState::deserialize(msg) else {
            return false;
        };
        for (name, position) in state.name.iter().zip(state.position.iter()) {
            self.joints.insert(name.clone(), *position);
        }
        self.joints_at = Some(Instant::now());
        self.version += 1;
        true
    }

    /// Takes `ros2_aruco_interfaces/ArucoMarkers` seen by the camera.
    pub fn aruco(&mut self, msg: &Value, world_from_camera: &Affine3A) -> bool {
        let Ok(markers) = ArucoMarkers::deserialize(msg) else {
            return false;
        };
        for (id, pose) in markers.marker_ids.iter().zip(markers.poses.iter()) {
            if let Some(p) = vec3(&pose.position) {
                self.markers
                    .insert(*id, world_from_camera.transform_point3(p));
            }
        }
        self.markers_seen = true;
        self.version += 1;
        true
    }

    /// Takes the Azure Kinect's `body_tracking_data` (`id = body·100 + joint`).
    pub fn bodies(&mut self, msg: &Value, world_from_camera: &Affine3A) -> bool {
        let Ok(array) = MarkerArray::deserialize(msg) else {
            return false;
        };
        let mut joints: BTreeMap<i64, HashMap<i64, Vec3>> = BTreeMap::new();
        for m in array.markers.iter().filter(|m| m.action == 0) {
            if let Some(p) = vec3(&m.pose.position) {
                joints
                    .entry(m.id / 100)
                    .or_default()
                    .insert(m.id % 100, world_from_camera.transform_point3(p));
            }
        }
        for (body, j) in joints {
            let get = |k| j.get(&k).copied();
            let eyes = match (get(k4a::EYE_LEFT), get(k4a::EYE_RIGHT)) {
                (Some(l), Some(r)) => Some(0.5 * (l + r)),
                _ => get(k4a::HEAD),
            };
            if let (Some(eyes), Some(sl), Some(sr), Some(hl), Some(hr)) = (
                eyes,
                get(k4a::SHOULDER_LEFT),
                get(k4a::SHOULDER_RIGHT),
                get(k4a::HAND_LEFT),
                get(k4a::HAND_RIGHT),
            ) {
                self.bodies.insert(
                    body,
                    BodySeen {
                        eyes,
                        shoulders: [sl, sr],
                        hands: [hl, hr],
                    },
                );
            }
        }
        self.bodies_seen = true;
        self.version += 1;
        true
    }

    /// How old the joint states are (seconds), or `None` when none arrived.
    pub fn joints_age_s(&self) -> Option<f64> {
        self.joints_at.map(|t| t.elapsed().as_secs_f64())
    }
}

/// Applies the latest perception to the twin: the arms from the joint states,
/// people from tracked bodies, objects from markers, and who holds what.
/// Returns whether anything in the world changed.
pub fn apply(
    perceived: &Perceived,
    twin: &mut Twin,
    joint_map: &JointMap,
    settings: &PerceptionSettings,
    markers: &HashMap<i64, ObjectId>,
) -> bool {
    for side in [Side::Left, Side::Right] {
        if let Ok(q) = joint_map.arm(side).read(&perceived.joints) {
            twin.joints[side as usize] = q;
        }
    }
    let before = twin.world.clone();
    let matched = match_bodies(perceived, twin, settings.match_radius as f32);
    for (person, body) in &matched {
        let p = &mut twin.world.persons_mut()[person.0];
        let [sl, sr] = body.shoulders;
        let position = (0.5 * (sl + sr)).truncate();
        let right = (sr - sl).truncate();
        let yaw = if right.length() > 0.05 {
            let r = right.normalize();
            // right() = (f.y, -f.x), so the facing direction is (-r.y, r.x).
            r.x.atan2(-r.y)
        } else {
            p.yaw
        };
        let turned = Vec2::from_angle(yaw)
            .angle_to(Vec2::from_angle(p.yaw))
            .abs();
        // Tracker noise must not rewrite the world every frame.
        if position.distance(p.position) < PERSON_DEADBAND_M && turned < PERSON_DEADBAND_RAD {
            continue;
        }
        p.position = position;
        p.yaw = yaw;
        if right.length() > 0.05 {
            p.body.shoulder_width = right.length();
        }
        p.body.shoulder_height = 0.5 * (sl.z + sr.z);
        p.body.eye_height = body.eyes.z;
    }
    for (id, object) in markers {
        let Some(marker) = perceived.markers.get(id) else {
            continue;
        };
        if matches!(
            twin.world.object(*object).placement,
            Placement::InGripper { .. }
        ) {
            continue; // the robot holds it; its own joint states say where
        }
        let point = *marker - Vec3::Z * settings.marker_height as f32;
        match hand_near(
            &twin.world,
            &matched,
            *object,
            point,
            settings.hand_radius as f32,
        ) {
            Some((person, hand)) => {
                twin.world.object_mut(*object).placement = Placement::HeldBy { person, hand };
            }
            None => {
                let xy: Vec2 = point.truncate();
                let moved = match twin.world.object(*object).placement {
                    Placement::OnTable { position, .. } => {
                        position.distance(xy) >= OBJECT_DEADBAND_M
                    }
                    _ => true,
                };
                if moved && twin.world.table.contains(xy, 0.0) {
                    twin.world.place_on_table(*object, xy);
                }
            }
        }
    }
    twin.world != before
}

/// Bodies matched to the scene's persons: each person takes the nearest body
/// whose eyes are within `radius` of their seat, nearest pairs first.
fn match_bodies(perceived: &Perceived, twin: &Twin, radius: f32) -> Vec<(PersonId, BodySeen)> {
    let mut pairs: Vec<(f32, PersonId, i64)> = Vec::new();
    for person in twin.world.person_ids() {
        let seat = twin.world.person(person).position;
        for (id, body) in &perceived.bodies {
            let d = body.eyes.truncate().distance(seat);
            if d <= radius {
                pairs.push((d, person, *id));
            }
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut taken_people = Vec::new();
    let mut taken_bodies = Vec::new();
    let mut matched = Vec::new();
    for (_, person, body) in pairs {
        if taken_people.contains(&person) || taken_bodies.contains(&body) {
            continue;
        }
        taken_people.push(person);
        taken_bodies.push(body);
        if let Some(b) = perceived.bodies.get(&body) {
            matched.push((person, *b));
        }
    }
    matched
}

/// The person's hand the object sits in: within `radius` of a tracked hand that
/// holds nothing else.
fn hand_near(
    world: &crate::twin::World,
    matched: &[(PersonId, BodySeen)],
    object: ObjectId,
    point: Vec3,
    radius: f32,
) -> Option<(PersonId, Hand)> {
    let mut best: Option<(f32, PersonId, Hand)> = None;
    for (person, body) in matched {
        for (hand, at) in [(Hand::Left, body.hands[0]), (Hand::Right, body.hands[1])] {
            let d = at.distance(point);
            let other_in_hand = world
                .held_by(*person)
                .iter()
                .any(|(o, h)| *h == hand && *o != object);
            if d <= radius && !other_in_hand && best.is_none_or(|b| d < b.0) {
                best = Some((d, *person, hand));
            }
        }
    }
    best.map(|(_, p, h)| (p, h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robot::settings::RobotSettings;
    use serde_json::json;

    fn marker(id: i64, p: Vec3) -> Value {
        json!({"id": id, "action": 0, "pose": {"position": {"x": p.x, "y": p.y, "z": p.z}}})
    }

    fn body_msg(body: i64, eyes: Vec3, sl: Vec3, sr: Vec3, hl: Vec3, hr: Vec3) -> Value {
        json!({"markers": [
            marker(body * 100 + k4a::HEAD, eyes),
            marker(body * 100 + k4a::SHOULDER_LEFT, sl),
            marker(body * 100 + k4a::SHOULDER_RIGHT, sr),
            marker(body * 100 + k4a::HAND_LEFT, hl),
            marker(body * 100 + k4a::HAND_RIGHT, hr),
        ]})
    }

    #[test]
    fn a_marker_moves_its_object_and_a_hand_near_it_makes_the_person_busy() {
        let mut twin = Twin::load("softdrinks").unwrap();
        let settings = RobotSettings::default();
        let identity = Affine3A::IDENTITY;
        let bottle = twin.world.object_named("cola_bottle").unwrap();
        let felix = twin.world.person_named("Felix").unwrap();
        let markers: HashMap<i64, ObjectId> = [(3, bottle)].into();
        let mut p = Perceived::default();
        assert!(p.aruco(
            &json!({"marker_ids": [3], "poses": [{"position": {"x": 0.1, "y": 0.05, "z": 0.9}}]}),
            &identity
        ));
        let map = JointMap::new(&settings);
        assert!(apply(&p, &mut twin, &map, &settings.perception, &markers));
        assert_eq!(
            twin.world.object_base(bottle).truncate(),
            Vec2::new(0.1, 0.05)
        );
        // Felix's body, his left hand on the bottle.
        let seat = twin.world.person(felix).position;
        let s = seat.extend(1.3);
        let msg = body_msg(
            1,
            seat.extend(1.45),
            s + Vec3::Y * 0.2,
            s - Vec3::Y * 0.2,
            Vec3::new(0.1, 0.05, 0.92),
            s - Vec3::Y * 0.3,
        );
        assert!(p.bodies(&msg, &identity));
        apply(&p, &mut twin, &map, &settings.perception, &markers);
        assert!(twin.world.is_busy(felix));
        assert_eq!(twin.world.holder(bottle), Some(felix));
        // He puts it down 30 cm from his hands: free again, the bottle on the table.
        p.aruco(
            &json!({"marker_ids": [3], "poses": [{"position": {"x": 0.1, "y": -0.3, "z": 0.9}}]}),
            &identity,
        );
        let far = body_msg(
            1,
            seat.extend(1.45),
            s + Vec3::Y * 0.2,
            s - Vec3::Y * 0.2,
            s + Vec3::Y * 0.3,
            s - Vec3::Y * 0.3,
        );
        p.bodies(&far, &identity);
        apply(&p, &mut twin, &map, &settings.perception, &markers);
        assert_eq!(twin.world.holder(bottle), None);
        assert!(!twin.world.is_busy(felix));
    }

    #[test]
    fn a_body_far_from_every_seat_is_nobody() {
        let mut twin = Twin::load("softdrinks").unwrap();
        let settings = RobotSettings::default();
        let before = twin.world.clone();
        let mut p = Perceived::default();
        let far = Vec3::new(5.0, 5.0, 1.4);
        p.bodies(&body_msg(2, far, far, far, far, far), &Affine3A::IDENTITY);
        let changed = apply(
            &p,
            &mut twin,
            &JointMap::new(&settings),
            &settings.perception,
            &HashMap::new(),
        );
        assert!(!changed);
        assert_eq!(twin.world, before);
    }

    #[test]
    fn the_camera_transform_is_applied() {
        let s = PerceptionSettings {
            world_from_camera_xyz: [1.0, 0.0, 2.0],
            world_from_camera_rpy_deg: [0.0, 0.0, 90.0],
            ..Default::default()
        };
        let p = world_from_camera(&s).transform_point3(Vec3::X);
        assert!((p - Vec3::new(1.0, 1.0, 2.0)).length() < 1e-5);
    }
}
