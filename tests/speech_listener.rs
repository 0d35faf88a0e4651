//! Listener resolution and the scene adapter (issue 6).

mod speech_support;

use attentive::frontend::participants::participants_from_scene_str;
use attentive::frontend::{resolve_listener, ListenerReason, Participant, ALL};
use glam::Vec3;
use speech_support::table;

fn listener(text: &str, speaker: &str) -> (String, ListenerReason) {
    resolve_listener(text, speaker, &table(), 30.0)
}

#[test]
fn a_vocative_at_the_start_decides() {
    assert_eq!(
        listener("Daniel, could you pass me the glass?", "Felix").0,
        "Daniel"
    );
    assert_eq!(
        listener("Hey Felix, is there any cola left?", "Daniel").0,
        "Felix"
    );
    // The robot, by its spoken name, even though Felix looks at Daniel.
    let (who, why) = listener("Robot, can you hand me the fanta?", "Felix");
    assert_eq!((who.as_str(), why), ("the_robot", ListenerReason::Vocative));
    assert_eq!(
        listener("The robot, could you help?", "Felix").0,
        "the_robot"
    );
    // A name later in the sentence is not a vocative: gaze decides (Felix faces Daniel).
    assert_eq!(
        listener("Could you ask the robot for the glass?", "Felix"),
        ("Daniel".into(), ListenerReason::Gaze)
    );
    // A slightly misrecognised name still counts.
    assert_eq!(listener("Danyel, the glass please.", "Felix").0, "Daniel");
}

#[test]
fn otherwise_the_person_in_the_gaze_cone_else_all() {
    let mut t = table();
    assert_eq!(
        resolve_listener("Pass me the glass.", "Felix", &t, 30.0).0,
        "Daniel"
    );
    // Felix turns to the robot's end of the table (robot about 49 degrees off his former gaze).
    let felix = t
        .people
        .iter_mut()
        .find(|p| p.name == "Felix")
        .expect("Felix");
    let to_robot = (Vec3::new(-0.8, 0.0, 1.3) - felix.head).normalize();
    felix.facing = Vec3::new(to_robot.x, to_robot.y, 0.0).normalize();
    assert_eq!(
        resolve_listener("Pass me the glass.", "Felix", &t, 30.0).0,
        "the_robot"
    );
    // Felix looks away from everybody: addressed to all.
    let felix = t
        .people
        .iter_mut()
        .find(|p| p.name == "Felix")
        .expect("Felix");
    felix.facing = Vec3::X;
    assert_eq!(
        resolve_listener("Pass me the glass.", "Felix", &t, 30.0),
        (ALL.into(), ListenerReason::Nobody)
    );
    // Outside the 30 degree cone is a miss, even though Daniel is nearest to the gaze.
    let felix = t
        .people
        .iter_mut()
        .find(|p| p.name == "Felix")
        .expect("Felix");
    felix.facing = Vec3::new(
        (-55f32).to_radians().cos(),
        (-55f32).to_radians().sin(),
        0.0,
    );
    assert_eq!(
        resolve_listener("Pass me the glass.", "Felix", &t, 30.0).0,
        ALL
    );
    // An unknown speaker has no gaze.
    assert_eq!(
        resolve_listener("Pass me the glass.", "unknown", &t, 30.0).0,
        ALL
    );
}

#[test]
fn scene_file_people_and_robot() {
    let scene = r#"
        name = "softdrinks"
        [table]
        size = [1.2, 0.8]
        [robot]
        name = "the_robot"
        position = [-0.8, 0.0]
        [[person]]
        name = "Felix"
        position = [0.0, 0.7]
        yaw_deg = -90
        [[person]]
        name = "Daniel"
        position = [0.0, -0.7]
        yaw_deg = 90
        eye_height = 1.1
        [[object]]
        name = "red_glass"
        kind = "glass"
        position = [0.25, 0.3]
    "#;
    let p = participants_from_scene_str(scene, [0.0, 0.0, 1.3]).expect("scene");
    assert_eq!(p.robot.name, "the_robot");
    assert_eq!(p.robot.head, Vec3::new(-0.8, 0.0, 1.3));
    assert_eq!(p.microphone_array_origin, Vec3::new(-0.8, 0.0, 1.3));
    let felix: &Participant = p.person("felix").expect("Felix");
    assert!((felix.facing - Vec3::new(0.0, -1.0, 0.0)).length() < 1e-5);
    assert_eq!(felix.head.z, 1.2);
    assert_eq!(p.person("Daniel").expect("Daniel").head.z, 1.1);
    assert!(participants_from_scene_str("[robot]\nname = 3", [0.0; 3]).is_err());
}
