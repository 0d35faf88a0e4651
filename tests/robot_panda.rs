//! Any robot: the Franka Panda pair rests safely, reads its hand from its finger joints,
//! plans on the shipped scenes' Panda variants (the fanta into the red glass included);
//! a scene finds its robot description beside it; a mistake in a description is blamed
//! on the description, not on the URDF.

use std::path::{Path, PathBuf};

use attentive::twin::actions::{execute, ActionRequest};
use attentive::twin::kinematics::{world_from_robot, Robot, RobotDescription, Side};
use attentive::twin::Twin;

#[path = "support/pairs.rs"]
mod pairs;

fn robots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/robots")
}

fn load(name: &str) -> RobotDescription {
    RobotDescription::load(robots_dir().join(format!("{name}.toml")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A fresh temporary folder for one test.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("attentive-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Every shipped pair, placed where the shipped scenes place it (table top 0.75 m, its
/// near edge 0.25 m in front of the robot).
#[test]
fn every_shipped_pair_rests_clear_of_itself_the_table_and_the_other_arm() {
    for name in ["jaco2_bimanual", "ur5e_bimanual", "panda_bimanual"] {
        let robot = Robot::new(&load(name), world_from_robot(-0.85, 0.0, 0.0));
        let home = [robot.home(Side::Left), robot.home(Side::Right)];
        let aside = [robot.aside(Side::Left), robot.aside(Side::Right)];
        // One arm steps aside while the other works from home.
        let mut pairs = vec![(home[0], home[1])];
        if let [Some(l), Some(r)] = aside {
            pairs.extend([(l, home[1]), (home[0], r)]);
        }
        for (l, r) in &pairs {
            let sc = robot.self_clearance(l, r);
            assert!(sc.distance > 0.03, "{name}: {sc:?}");
        }
        for side in Side::BOTH {
            let arm = robot.arm(side);
            for c in arm.capsules(&robot.home(side)) {
                let low = c.a.z.min(c.b.z) - c.radius;
                let over_table = c.a.x.max(c.b.x) + c.radius > -0.6;
                assert!(!over_table || low > 0.8, "{name} {side} home: {c:?}");
            }
            if let Some(q) = robot.aside(side) {
                for c in arm.capsules(&q) {
                    let front = c.a.x.max(c.b.x) + c.radius;
                    assert!(
                        front < -0.6 || c.a.z.min(c.b.z) - c.radius > 0.8,
                        "{name} {side} aside: {c:?}"
                    );
                }
            }
            assert!(arm.joint_margin(&robot.home(side)) > 0.2, "{name} {side}");
        }
    }
}

#[test]
fn the_franka_hand_opens_as_far_as_its_finger_joints_travel() {
    let panda = load("panda_bimanual");
    assert_eq!(panda.arms.left.dof(), 7);
    assert!((panda.hand.power.max_diameter - 0.08).abs() < 1e-6);
    assert!((panda.hand.pinch.max_width - 0.08).abs() < 1e-6);
    // A description promising more than the fingers open is refused, naming it.
    let dir = temp_dir("stroke");
    std::fs::copy(
        robots_dir().join("panda_bimanual.urdf"),
        dir.join("panda_bimanual.urdf"),
    )
    .expect("copy urdf");
    let text = std::fs::read_to_string(robots_dir().join("panda_bimanual.toml")).expect("toml");
    let wide = text.replace(
        "fingers = 2\n",
        "fingers = 2\npower = { min_diameter = 0.02, max_diameter = 0.10 }\n",
    );
    let path = dir.join("wide.toml");
    std::fs::write(&path, wide).expect("write");
    let e = RobotDescription::load(&path)
        .expect_err("too wide")
        .to_string();
    assert!(e.starts_with(&path.display().to_string()), "{e}");
    assert!(
        e.contains("hand.power.max_diameter 0.1 m is wider than the fingers open: 0.08 m"),
        "{e}"
    );
    assert!(e.contains("left_panda_finger_joint1"), "{e}");
}

#[test]
fn a_misspelt_link_is_blamed_on_the_description_that_names_it() {
    let dir = temp_dir("tip");
    std::fs::copy(
        robots_dir().join("panda_bimanual.urdf"),
        dir.join("panda_bimanual.urdf"),
    )
    .expect("copy urdf");
    let text = std::fs::read_to_string(robots_dir().join("panda_bimanual.toml")).expect("toml");
    for (from, to, says) in [
        (
            "tip_link = \"left_tcp\"",
            "tip_link = \"left_tcpp\"",
            "arms.left.tip_link 'left_tcpp' is not a link of",
        ),
        (
            "base_link = \"right_panda_link0\"",
            "base_link = \"right_panda_link9\"",
            "arms.right.base_link 'right_panda_link9' is not a link of",
        ),
        (
            "tip_link = \"left_tcp\"",
            "tip_link = \"right_tcp\"",
            "arms.left.tip_link 'right_tcp' is not below base_link 'left_panda_link0'",
        ),
    ] {
        let path = dir.join("misspelt.toml");
        std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
        let e = RobotDescription::load(&path)
            .expect_err("misspelt")
            .to_string();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
        assert!(e.contains(says), "{e}");
    }
}

#[test]
fn a_scene_finds_its_robot_description_beside_it() {
    let dir = temp_dir("beside");
    std::fs::copy(
        robots_dir().join("panda_bimanual.urdf"),
        dir.join("panda_bimanual.urdf"),
    )
    .expect("copy urdf");
    std::fs::copy(
        robots_dir().join("panda_bimanual.toml"),
        dir.join("lab_pair.toml"),
    )
    .expect("copy description");
    let scene = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/softdrinks_panda.toml"),
    )
    .expect("shipped scene");
    // By file name and by bare name, both beside the scene (the tests run elsewhere).
    for spec in ["lab_pair.toml", "lab_pair"] {
        let path = dir.join(format!("scene_{}.toml", spec.len()));
        let text = scene.replace(
            "description = \"panda_bimanual\"",
            &format!("description = {spec:?}"),
        );
        std::fs::write(&path, text).expect("write scene");
        let twin = Twin::load(&path.display().to_string()).expect("scene loads");
        let robot = twin
            .robot
            .as_ref()
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(robot.arm(Side::Left).dof(), 7);
    }
    // A shipped name still resolves under scenes/robots/ when nothing beside matches.
    let twin = Twin::load("softdrinks_panda").expect("shipped variant");
    assert!(twin.robot.is_ok());
}

/// The Panda pair on the shipped scenes' Panda variants: every object it reaches goes to
/// both people or is refused in one sentence; most succeed; it pours the fanta into the
/// red glass as the other pairs do.
#[test]
fn the_panda_pair_plans_and_pours_on_the_scene_variants() {
    let scenes = ["softdrinks_panda", "coffee_panda", "dinner_panda"];
    let (ok, cases) = pairs::plan_on_variants(&scenes, 7, 8);
    println!("Panda pair on the scene variants: {ok}/{cases}");
    // Issue 36's 95 %: with grips from above the pair does 51 of 52 (88 % before).
    assert!(ok * 100 >= cases * 95, "{ok}/{cases}");

    let mut twin = Twin::load("softdrinks_panda").expect("shipped variant");
    let (Some(fanta), Some(glass)) = (
        twin.world.object_named("fanta_bottle"),
        twin.world.object_named("red_glass"),
    ) else {
        panic!("the softdrinks objects");
    };
    let report = execute(
        &mut twin,
        ActionRequest::Pour {
            source: fanta,
            target: glass,
        },
    );
    assert!(report.ok, "{}", report.text);
    assert_eq!(twin.world.object(glass).contains.as_deref(), Some("fanta"));
}
