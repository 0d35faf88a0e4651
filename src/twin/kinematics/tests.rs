//! Cross-module tests against the shipped description.

use glam::Vec3;

use super::*;

fn description() -> RobotDescription {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_DESCRIPTION);
    match RobotDescription::load(&path) {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    }
}

fn robot() -> Robot {
    Robot::new(&description(), world_from_robot(-0.8, 0.0, 0.0))
}

#[test]
#[ignore]
fn explore() {
    let r = robot();
    let arm = r.arm(Side::Left);
    let f = arm.link_frames(&[0.0; 7]);
    for (i, t) in f.iter().enumerate() {
        println!("{i} {:?}", Vec3::from(t.translation));
    }
}
