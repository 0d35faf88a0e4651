//! Robots from their URDF: the Jaco pair read from its URDF is the Jaco pair of the
//! DH table (joint for joint the same forward kinematics, the same capsules, the same
//! plans on the shipped scenes); malformed URDFs are refused naming the file, the
//! element and the reason; a six-joint pair plans on the shipped scenes.

use std::path::{Path, PathBuf};

use attentive::twin::kinematics::{
    world_from_robot, IkOptions, Joints, Lcg, Robot, RobotDescription, Side,
};
use attentive::twin::planner_bench::run_world;
use attentive::twin::Twin;
use glam::Vec3;

#[path = "support/pairs.rs"]
mod pairs;

fn robots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/robots")
}

fn load(name: &str) -> RobotDescription {
    RobotDescription::load(robots_dir().join(format!("{name}.toml")))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn placed(name: &str) -> Robot {
    Robot::new(&load(name), world_from_robot(-0.8, 0.1, 0.3))
}

fn random_joints(robot: &Robot, side: Side, rng: &mut Lcg) -> Joints {
    let arm = robot.arm(side);
    Joints::from_fn(arm.dof(), |i| {
        rng.range(arm.lower[i].max(-3.2), arm.upper[i].min(3.2))
    })
}

#[test]
fn the_jaco_urdf_and_the_dh_table_give_the_same_forward_kinematics() {
    let dh = placed("jaco2_bimanual");
    let urdf = placed("jaco2_bimanual_urdf");
    let mut rng = Lcg::new(7);
    let mut worst: f32 = 0.0;
    for side in Side::BOTH {
        let (a, b) = (dh.arm(side), urdf.arm(side));
        assert_eq!((a.dof(), b.dof()), (7, 7));
        assert_eq!(a.lower, b.lower, "{side} lower limits");
        assert_eq!(a.upper, b.upper, "{side} upper limits");
        assert_eq!(a.continuous, b.continuous);
        assert_eq!(a.home, b.home);
        assert_eq!(a.aside, b.aside);
        for _ in 0..300 {
            let q = random_joints(&dh, side, &mut rng);
            let (fa, fb) = (a.link_frames(&q), b.link_frames(&q));
            // DH frame i sits at the end of link i, where joint i + 1 turns: URDF frame i + 1.
            for i in 0..7 {
                let d = Vec3::from(fa[i].translation).distance(Vec3::from(fb[i + 1].translation));
                worst = worst.max(d);
            }
            let (ha, hb) = (fa.hand(), fb.hand());
            worst = worst.max(Vec3::from(ha.translation).distance(Vec3::from(hb.translation)));
            for (ca, cb) in [
                (ha.matrix3.x_axis, hb.matrix3.x_axis),
                (ha.matrix3.y_axis, hb.matrix3.y_axis),
                (ha.matrix3.z_axis, hb.matrix3.z_axis),
            ] {
                assert!((ca - cb).length() < 1e-5, "hand orientation differs");
            }
            let (ja, jb) = (a.jacobian(&q), b.jacobian(&q));
            for r in 0..6 {
                for c in 0..7 {
                    assert!((ja.0[r][c] - jb.0[r][c]).abs() < 1e-5, "jacobian {r},{c}");
                }
            }
            let (ka, kb) = (a.capsules(&q), b.capsules(&q));
            assert_eq!(ka.len(), kb.len());
            for (x, y) in ka.iter().zip(&kb) {
                assert!(
                    x.a.distance(y.a) < 1e-5 && x.b.distance(y.b) < 1e-5,
                    "capsules"
                );
                assert_eq!(x.radius, y.radius);
            }
        }
        for i in 0..a.links.len() {
            assert_eq!(a.links[i].name, b.links[i].name);
            for j in 0..a.links.len() {
                assert_eq!(
                    a.links_adjacent(i, j),
                    b.links_adjacent(i, j),
                    "{side}: {} / {}",
                    a.links[i].name,
                    a.links[j].name
                );
            }
        }
    }
    println!("largest frame difference DH vs URDF: {worst:e} m");
    assert!(worst <= 1e-6, "frames differ by {worst} m");
    let names = |r: &Robot| -> Vec<String> { r.torso.iter().map(|(n, _)| n.clone()).collect() };
    assert_eq!(names(&dh), names(&urdf));
    for ((_, a), (_, b)) in dh.torso.iter().zip(&urdf.torso) {
        assert!(a.a.distance(b.a) < 1e-5 && a.b.distance(b.b) < 1e-5 && a.radius == b.radius);
    }
    assert_eq!(dh.head.position, urdf.head.position);
    assert_eq!(dh.head.pan_limits_deg, urdf.head.pan_limits_deg);
    for (a, b) in dh
        .head
        .tilt_limits_deg
        .iter()
        .zip(urdf.head.tilt_limits_deg)
    {
        assert!((a - b).abs() < 1e-4, "tilt limits");
    }
}

#[test]
fn ik_on_the_urdf_arm_reaches_what_the_dh_arm_reaches() {
    let dh = placed("jaco2_bimanual");
    let urdf = placed("jaco2_bimanual_urdf");
    let mut rng = Lcg::new(11);
    for side in Side::BOTH {
        for _ in 0..20 {
            let q = random_joints(&dh, side, &mut rng);
            let target = dh.arm(side).world_from_hand(&q);
            let a = dh.arm(side).solve_ik(
                &attentive::twin::kinematics::IkTarget::Pose(target),
                &dh.home(side),
                &IkOptions::default(),
            );
            let b = urdf.arm(side).solve_ik(
                &attentive::twin::kinematics::IkTarget::Pose(target),
                &urdf.home(side),
                &IkOptions::default(),
            );
            assert_eq!(a.is_ok(), b.is_ok());
        }
    }
}

/// Every reachable object to every person, both actions, on the three shipped scenes:
/// the same outcome and the same sentence from both descriptions. The two forms' frames
/// agree to float rounding, not bit for bit; the seeded joint-space planner that finds
/// detours, and near ties between variants, turn such differences into other (equally
/// valid) detours or hand-over points, so choices and motions are counted, not required.
#[test]
fn both_forms_of_the_jaco_give_the_same_plans_on_the_shipped_scenes() {
    let (mut compared, mut same_choices, mut identical) = (0, 0, 0);
    for scene in ["softdrinks", "coffee", "dinner"] {
        let twin = Twin::load(scene).expect("shipped scene");
        let mut world = twin.world.clone();
        world.robot.description = "jaco2_bimanual".into();
        let dh = run_world(0, &world);
        world.robot.description = "jaco2_bimanual_urdf".into();
        let urdf = run_world(0, &world);
        assert_eq!(dh.len(), urdf.len(), "{scene}: the same reachable objects");
        for (a, b) in dh.iter().zip(&urdf) {
            let case = format!("{scene} {:?} {} -> {}", a.action, a.object, a.person);
            assert_eq!((&a.object, &a.person), (&b.object, &b.person));
            assert_eq!(
                a.report.ok, b.report.ok,
                "{case}: {} / {}",
                a.report.text, b.report.text
            );
            assert_eq!(a.report.text, b.report.text, "{case}");
            // The decisions: which arm, grasp, approach and hand-over point each step chose.
            let chosen = |c: &attentive::twin::planner_bench::CaseResult| -> Vec<String> {
                c.report.facts["steps"]
                    .as_array()
                    .map(|steps| {
                        steps
                            .iter()
                            .map(|s| format!("{} {}", s["action"], s["variant"]))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            if chosen(a) == chosen(b) {
                same_choices += 1;
            } else {
                println!("{case}: {:?} / {:?}", chosen(a), chosen(b));
            }
            let same_motions = a.motions.len() == b.motions.len()
                && a.motions.iter().zip(&b.motions).all(|(ma, mb)| {
                    ma.side == mb.side
                        && ma
                            .final_joints()
                            .iter()
                            .zip(mb.final_joints().iter())
                            .all(|(x, y)| (x - y).abs() < 1e-3)
                });
            if same_motions {
                identical += 1;
            } else {
                println!("{case}: other motions");
            }
            compared += 1;
        }
    }
    println!(
        "{compared} cases with the same outcome and sentence; {same_choices} with the same \
         choices; {identical} with the same motions joint for joint"
    );
    assert!(compared >= 48, "only {compared} cases");
}

/// A description naming `urdf`, written beside it in a temporary folder.
fn load_with_urdf(urdf: &str, toml_extra: &str) -> Result<RobotDescription, String> {
    let dir = std::env::temp_dir().join(format!("attentive-urdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join(format!("r{}.urdf", rand_suffix()));
    std::fs::write(&file, urdf).expect("write urdf");
    let shipped =
        std::fs::read_to_string(robots_dir().join("jaco2_bimanual_urdf.toml")).expect("shipped");
    let text = shipped.replace(
        "urdf = \"jaco2_bimanual.urdf\"",
        &format!(
            "urdf = {:?}",
            file.file_name().and_then(|n| n.to_str()).unwrap_or("")
        ),
    ) + toml_extra;
    let toml = dir.join(format!("r{}.toml", rand_suffix()));
    std::fs::write(&toml, text).expect("write toml");
    RobotDescription::load(&toml).map_err(|e| e.to_string())
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn shipped_urdf() -> String {
    std::fs::read_to_string(robots_dir().join("jaco2_bimanual.urdf")).expect("shipped urdf")
}

#[test]
fn malformed_urdfs_are_refused_naming_the_file_the_element_and_the_reason() {
    let good = shipped_urdf();
    assert!(
        load_with_urdf(&good, "").is_ok(),
        "the unchanged copy loads"
    );
    let cases: Vec<(String, &str)> = vec![
        // The tip link the description names is gone.
        (
            good.replace("<link name=\"left_tcp\"/>", "").replace(
                "<joint name=\"left_tool_centre\" type=\"fixed\"><parent link=\"left_hand\"/><child link=\"left_tcp\"/><origin xyz=\"0 0 0.16\" rpy=\"0 0 0\"/></joint>",
                "",
            ),
            // The description names it, so the description is blamed, naming the URDF.
            "arms.left.tip_link 'left_tcp' is not a link of",
        ),
        // A joint names a link that is not there.
        (
            good.replace("<link name=\"left_tcp\"/>", "")
                .replace("<child link=\"left_tcp\"/>", "<child link=\"left_tcq\"/>"),
            "joint 'left_tool_centre' names the missing link 'left_tcq'",
        ),
        // A loop: the torso hangs below the left wrist.
        (
            good.replace(
                "</robot>",
                "  <joint name=\"back\" type=\"fixed\"><parent link=\"left_wrist\"/><child link=\"torso\"/></joint>\n</robot>",
            ),
            "loop",
        ),
        // A bad number.
        (
            good.replacen("length=\"0.41\"", "length=\"0.4l\"", 1),
            "invalid URDF",
        ),
        // A revolute joint without limits.
        (
            good.replacen(
                "<limit lower=\"-2.321287905\" upper=\"2.321287905\" effort=\"30\" velocity=\"0.8\"/>",
                "",
                1,
            ),
            "joint 'left_j2' is revolute without <limit lower upper>",
        ),
        // A sliding joint in the arm.
        (
            good.replacen(
                "name=\"left_j3\" type=\"continuous\"",
                "name=\"left_j3\" type=\"prismatic\"",
                1,
            ),
            "joint 'left_j3' is Prismatic",
        ),
        // Not XML at all.
        ("<robot name=\"x\"><link".to_string(), "invalid URDF"),
    ];
    for (urdf, needle) in cases {
        match load_with_urdf(&urdf, "") {
            Ok(_) => panic!("expected an error with {needle:?}"),
            Err(e) => {
                assert!(e.contains(".urdf"), "names the file: {e}");
                assert!(e.contains(needle), "{e} lacks {needle:?}");
            }
        }
    }
    // A tip link that is not below the base link, and a missing file.
    let text =
        std::fs::read_to_string(robots_dir().join("jaco2_bimanual_urdf.toml")).expect("shipped");
    let wrong_tip = text.replacen("tip_link = \"left_tcp\"", "tip_link = \"right_tcp\"", 1);
    let e = RobotDescription::from_toml_str(
        &wrong_tip,
        &robots_dir().join("x.toml").display().to_string(),
    )
    .expect_err("tip under the other arm");
    assert!(
        e.to_string()
            .contains("tip_link 'right_tcp' is not below base_link 'left_shoulder'"),
        "{e}"
    );
    let missing = text.replace("jaco2_bimanual.urdf", "nowhere.urdf");
    let e = RobotDescription::from_toml_str(
        &missing,
        &robots_dir().join("x.toml").display().to_string(),
    )
    .expect_err("missing file");
    assert!(
        e.to_string()
            .contains("nowhere.urdf: invalid URDF: cannot read it"),
        "{e}"
    );
    // Home poses must fit the URDF's joints.
    let short_home = text.replacen(
        "home_deg = [-133.0, 21.0, -15.0, -111.0, -51.0, -42.0, 127.0]",
        "home_deg = [-133.0, 21.0, -15.0, -111.0, -51.0, -42.0]",
        1,
    );
    let e = RobotDescription::from_toml_str(
        &short_home,
        &robots_dir().join("x.toml").display().to_string(),
    )
    .expect_err("six values for seven joints");
    assert!(
        e.to_string()
            .contains("arms.left.home_deg has 6 values for 7 joints"),
        "{e}"
    );
}

/// A binary STL of the box from `lo` to `hi` (its twelve triangles).
fn box_stl(lo: [f32; 3], hi: [f32; 3]) -> Vec<u8> {
    let corner = |k: usize| [0, 1, 2].map(|i| if k >> i & 1 == 1 { hi[i] } else { lo[i] });
    // Two triangles per face; the order of corners does not matter for the bounds.
    let faces = [
        [0, 1, 3, 2],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 3, 7, 5],
    ];
    let mut bytes = vec![0u8; 80];
    bytes.extend(12u32.to_le_bytes());
    for f in faces {
        for tri in [[f[0], f[1], f[2]], [f[0], f[2], f[3]]] {
            bytes.extend([0u8; 12]);
            for k in tri {
                corner(k).iter().for_each(|v| bytes.extend(v.to_le_bytes()));
            }
            bytes.extend([0u8; 2]);
        }
    }
    bytes
}

/// The left upper arm as a `package://` mesh the size of its cylinder: found because the
/// URDF sits inside its package, or in the folder the description's `[packages]` names
/// (first); a package found nowhere is refused, naming it and where to give it.
#[test]
fn package_meshes_are_found_and_a_missing_package_is_named() {
    let root = std::env::temp_dir().join(format!("attentive-pkg-{}", std::process::id()));
    let mesh_in = |folder: &str, half: f32| {
        let dir = root.join(folder).join("meshes");
        std::fs::create_dir_all(&dir).expect("temp dir");
        let stl = box_stl([-half, -half, -0.205], [half, half, 0.205]);
        std::fs::write(dir.join("upper_arm.stl"), stl).expect("write stl");
    };
    mesh_in("test_arm", 0.03);
    mesh_in("vendor/arm_pkg", 0.04);
    std::fs::create_dir_all(root.join("test_arm/urdf")).expect("temp dir");
    let cylinder = "<cylinder radius=\"0.045\" length=\"0.41\"/>";
    let shipped = shipped_urdf();
    assert!(shipped.contains(cylinder));
    let mesh = |package: &str| {
        let mesh = format!("<mesh filename=\"package://{package}/meshes/upper_arm.stl\"/>");
        shipped.replacen(cylinder, &mesh, 1)
    };
    let toml =
        std::fs::read_to_string(robots_dir().join("jaco2_bimanual_urdf.toml")).expect("shipped");
    let write = |urdf: &str, urdf_path: &str, extra: &str| {
        std::fs::write(root.join(urdf_path), urdf).expect("write urdf");
        let text = toml.replace("jaco2_bimanual.urdf", urdf_path) + extra;
        let file = root.join(format!("r{}.toml", rand_suffix()));
        std::fs::write(&file, text).expect("write toml");
        RobotDescription::load(&file).map_err(|e| e.to_string())
    };
    let upper_arm = |d: &RobotDescription| {
        let link = d.arms.left.links.iter().find(|l| l.name == "upper arm");
        link.map(|l| (l.start.point, l.end.point, l.radius))
    };
    let (a0, b0, _) = upper_arm(&load("jaco2_bimanual_urdf")).expect("upper arm");
    let named = "\n[packages]\ntest_arm = \"vendor/arm_pkg\"\n";
    for (urdf_path, extra, half) in [
        ("test_arm/urdf/arms.urdf", "", 0.03f32),
        ("test_arm/urdf/arms.urdf", named, 0.04),
    ] {
        let d = write(&mesh("test_arm"), urdf_path, extra)
            .unwrap_or_else(|e| panic!("{urdf_path} {extra}: {e}"));
        let (a, b, r) = upper_arm(&d).expect("upper arm");
        assert!(
            a.distance(a0) < 1e-6 && b.distance(b0) < 1e-6,
            "{a} {b} vs {a0} {b0}"
        );
        assert!(
            (r - half.hypot(half)).abs() < 1e-6,
            "radius {r} with {extra:?}"
        );
    }
    let e = write(&mesh("ur_description"), "arms.urdf", "").expect_err("no such package");
    assert!(e.contains("package 'ur_description' not found"), "{e}");
    assert!(
        e.contains("link 'left_upper_arm'") && e.contains("[packages]"),
        "{e}"
    );
    let elsewhere = "\n[packages]\ntest_arm = \"elsewhere\"\n";
    let e = write(&mesh("test_arm"), "arms.urdf", elsewhere).expect_err("no mesh there");
    assert!(
        e.contains("upper_arm.stl") && e.contains("No such file"),
        "{e}"
    );
    std::fs::remove_dir_all(&root).unwrap_or_default();
}

/// The six-joint pair on the shipped scenes' UR5e variants: every object it reaches goes
/// to both people or is refused in one sentence; most succeed.
#[test]
fn the_six_joint_pair_plans_on_the_scene_variants() {
    // A parallel gripper closes across a cup, never along it: on coffee_ur5e the small
    // cup behind the box is then out of its grasp (2 objects there, 8 cases).
    let scenes = ["softdrinks_ur5e", "coffee_ur5e", "dinner_ur5e"];
    let (ok, cases) = pairs::plan_on_variants(&scenes, 6, 8);
    println!("UR5e pair on the scene variants: {ok}/{cases}");
    assert!(ok * 10 >= cases * 9, "{ok}/{cases}");
}

/// Beside a real robot the driver's joint names must be as many as the arm's joints.
#[test]
fn robot_settings_must_name_as_many_joints_as_the_arm_has() {
    use attentive::robot::RobotSettings;
    let ur = placed("ur5e_bimanual");
    let jaco = placed("jaco2_bimanual");
    let settings = RobotSettings::default();
    assert!(settings.matches(&jaco).is_ok());
    let e = settings
        .matches(&ur)
        .expect_err("seven names for six joints");
    assert!(
        e.to_string().contains("left_arm.joints names 7 joints, but ur5e_bimanual's left arm has 6 (left_shoulder_pan_joint, left_shoulder_lift_joint, left_elbow_joint, left_wrist_1_joint, left_wrist_2_joint, left_wrist_3_joint)"),
        "{e}"
    );
    let mut six = RobotSettings::default();
    for arm in [&mut six.left_arm, &mut six.right_arm] {
        arm.joints.pop();
        arm.offset_deg.pop();
        arm.sign.pop();
    }
    assert!(six.validate().is_ok() && six.matches(&ur).is_ok());
}
