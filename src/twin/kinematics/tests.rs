//! Cross-module tests against the shipped description
//! (robot at world (-0.8, 0), facing +x; table 1.2 x 0.8 m, top at 0.75 m).

use glam::{Affine3A, Vec3};

use super::*;

fn description() -> RobotDescription {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_DESCRIPTION);
    match RobotDescription::load(&path) {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    }
}

fn robot_from(d: &RobotDescription) -> Robot {
    Robot::new(d, world_from_robot(-0.8, 0.0, 0.0))
}

fn robot() -> Robot {
    robot_from(&description())
}

fn table() -> ObstacleSet {
    let mut s = ObstacleSet::new();
    s.add_box(
        "table",
        Vec3::new(0.0, 0.0, 0.725),
        Vec3::new(0.6, 0.4, 0.025),
    );
    s
}

fn side_grasp(p: Vec3) -> IkTarget {
    // Hand y up: approach and closing horizontal, free yaw about world z.
    IkTarget::Axis {
        position: p,
        hand_axis: Vec3::Y,
        world_axis: Vec3::Z,
    }
}

/// Side grasp with the hand rolled the way the arm's home hand is (the right hand is
/// the left one mirrored, so its y axis points the other way).
fn side_grasp_for(side: Side, p: Vec3) -> IkTarget {
    let y = if side == Side::Left {
        Vec3::Y
    } else {
        -Vec3::Y
    };
    IkTarget::Axis {
        position: p,
        hand_axis: y,
        world_axis: Vec3::Z,
    }
}

fn random_joints(arm: &ArmKinematics, rng: &mut Lcg) -> Joints {
    Joints::from_fn(arm.dof(), |i| {
        rng.range(
            arm.lower[i].max(-std::f32::consts::PI),
            arm.upper[i].min(std::f32::consts::PI),
        )
    })
}

fn pose_error(a: &Affine3A, b: &Affine3A) -> (f32, f32) {
    let p = (translation(a) - translation(b)).length();
    let r = rotation_error(&a.matrix3, &b.matrix3).length();
    (p, r)
}

#[test]
fn shipped_description_homes_are_safe_and_in_front_of_the_torso() {
    let r = robot();
    let sc = r.self_clearance(&r.home(Side::Left), &r.home(Side::Right));
    assert!(sc.distance > 0.05, "{sc:?}");
    let t = table();
    for side in Side::BOTH {
        let arm = r.arm(side);
        for c in arm.capsules(&arm.home) {
            let cl = t.capsule_clearance(&c, &[]).map_or(1.0, |c| c.distance);
            assert!(cl > 0.05, "{side} home too close to the table: {cl}");
        }
        let hand = translation(&arm.world_from_hand(&arm.home));
        assert!(
            hand.z > 0.9 && hand.x > -0.8 && hand.x < 0.0,
            "{side} hand {hand}"
        );
        assert!(arm.joint_margin(&arm.home) > 0.2);
        assert_eq!(hand.y.signum(), if side == Side::Left { 1.0 } else { -1.0 });
    }
}

#[test]
fn fk_ik_round_trip_on_random_reachable_poses() {
    let r = robot();
    let mut rng = Lcg::new(42);
    let opts = IkOptions::default();
    let mut from_home = 0;
    let n = 60;
    for k in 0..n {
        let arm = r.arm(if k % 2 == 0 { Side::Left } else { Side::Right });
        let q = random_joints(arm, &mut rng);
        let target = arm.world_from_hand(&q);
        // Warm start near the answer, as during tracking.
        let seed = Joints::from_fn(q.len(), |i| q[i] + rng.range(-0.2, 0.2));
        let sol = match arm.solve_ik(&IkTarget::Pose(target), &seed, &opts) {
            Ok(s) => s,
            Err(e) => panic!("pose {k} from a nearby seed: {e}"),
        };
        let (p, rot) = pose_error(&arm.world_from_hand(&sol.q), &target);
        assert!(p < 2e-3 && rot < 2e-2, "pose {k}: {p} m, {rot} rad");
        assert!(arm.limit_violation(&sol.q, 1e-5).is_none());
        if arm
            .solve_ik(&IkTarget::Pose(target), &arm.home, &opts)
            .is_ok()
        {
            from_home += 1;
        }
    }
    // From home (far away) the restarts must find nearly all of them.
    assert!(from_home * 10 >= n * 9, "{from_home}/{n} from home");
}

#[test]
fn remembered_ik_answers_are_the_answers_of_a_fresh_solve() {
    let r = robot();
    let arm = r.arm(Side::Left);
    let mut rng = Lcg::new(9);
    let opts = IkOptions::default();
    let single = IkOptions {
        restarts: 0,
        ..opts
    };
    let mut unreachable = 0;
    for k in 0..40 {
        // Reachable poses and positions far out of reach, both kept and both given again.
        let reach = if k % 4 == 3 { 3.0 } else { 0.0 };
        let target = IkTarget::Position(
            Vec3::from(
                arm.world_from_hand(&random_joints(arm, &mut rng))
                    .translation,
            ) + Vec3::X * reach,
        );
        let seed = random_joints(arm, &mut rng);
        for o in [&opts, &single] {
            let fresh = arm.solve_ik_afresh(&target, &seed, o);
            unreachable += usize::from(fresh.is_err());
            assert_eq!(arm.solve_ik(&target, &seed, o), fresh, "first, case {k}");
            assert_eq!(arm.solve_ik(&target, &seed, o), fresh, "again, case {k}");
        }
        // Another seed is another question.
        let other = Joints::from_fn(seed.len(), |i| seed[i] + 0.3);
        let answer = arm.solve_ik(&target, &other, &single);
        assert_eq!(answer, arm.solve_ik_afresh(&target, &other, &single));
    }
    assert!(
        unreachable >= 20,
        "{unreachable} unreachable answers compared"
    );
}

#[test]
fn jacobian_matches_finite_differences() {
    let r = robot();
    let arm = r.arm(Side::Left);
    let q = arm.home;
    let j = arm.jacobian(&q);
    let h = 1e-3;
    for i in 0..arm.dof() {
        let mut qp = q;
        qp[i] += h;
        let mut qm = q;
        qm[i] -= h;
        let dp = (translation(&arm.world_from_hand(&qp)) - translation(&arm.world_from_hand(&qm)))
            / (2.0 * h);
        let col = Vec3::new(j.0[0][i], j.0[1][i], j.0[2][i]);
        assert!((dp - col).length() < 5e-3, "joint {i}: {dp} vs {col}");
    }
}

#[test]
fn approach_and_free_axis_targets() {
    let r = robot();
    let arm = r.arm(Side::Left);
    let p = Vec3::new(-0.2, 0.15, 0.85);
    let sol = arm
        .solve_ik(
            &IkTarget::approach(p, Vec3::X),
            &arm.home,
            &IkOptions::default(),
        )
        .expect("approach target reachable");
    let hand = sol.world_from_hand;
    assert!((translation(&hand) - p).length() < 2e-3);
    assert!((Vec3::from(hand.matrix3.z_axis) - Vec3::X).length() < 2e-2);

    let sol = arm
        .solve_ik(&side_grasp(p), &arm.home, &IkOptions::default())
        .expect("side grasp reachable");
    assert!(Vec3::from(sol.world_from_hand.matrix3.y_axis).dot(Vec3::Z) > 0.999);

    // A pose free about world z keeps the hand's tilt but may turn.
    let turned =
        Affine3A::from_rotation_translation(glam::Quat::from_rotation_z(1.0) * rotation(&hand), p);
    let t = IkTarget::pose_free_about(turned, Vec3::Z);
    let sol = arm
        .solve_ik(&t, &arm.home, &IkOptions::default())
        .expect("turned pose reachable");
    let (pe, re) = t.residual(&sol.world_from_hand);
    assert!(pe < 2e-3 && re < 2e-2);
}

#[test]
fn near_table_and_hand_over_points_are_reachable_far_end_is_not() {
    let r = robot();
    let opts = IkOptions::default();
    for side in Side::BOTH {
        let arm = r.arm(side);
        for z in [0.80f32, 1.0] {
            for x in [-0.45f32, -0.2, 0.1] {
                for y in [-0.3f32, 0.0, 0.3] {
                    let p = Vec3::new(x, y, z);
                    assert!(
                        arm.solve_ik(&side_grasp(p), &arm.home, &opts).is_ok(),
                        "{side} arm should reach {p}"
                    );
                }
            }
        }
        for y in [0.45f32, -0.45] {
            for p in [Vec3::new(0.0, y, 0.9), Vec3::new(0.1, y, 1.0)] {
                assert!(
                    arm.solve_ik(&side_grasp(p), &arm.home, &opts).is_ok(),
                    "{side} arm should reach hand-over point {p}"
                );
            }
        }
        for y in [-0.3f32, 0.0, 0.3] {
            for x in [0.5f32, 0.55] {
                let p = Vec3::new(x, y, 0.8);
                match arm.solve_ik(&IkTarget::Position(p), &arm.home, &opts) {
                    Ok(s) => panic!("{side} arm must not reach {p}: {:?}", s.q),
                    Err(IkError::NotConverged {
                        position_residual, ..
                    }) => assert!(position_residual > 0.05, "{p}: {position_residual}"),
                }
            }
        }
    }
}

#[test]
fn description_validation_names_file_and_reason() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_DESCRIPTION);
    let text = std::fs::read_to_string(&path).expect("shipped file readable");
    let check = |text: &str, needle: &str| match RobotDescription::from_toml_str(
        text,
        "robots/test.toml",
    ) {
        Ok(_) => panic!("expected an error mentioning {needle}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with("robots/test.toml: "), "{msg}");
            assert!(msg.contains(needle), "{msg} lacks {needle}");
        }
    };
    check("name = ", "invalid robot description");
    check(
        &text.replace("name = \"jaco2_bimanual\"", "nam = \"x\""),
        "unknown field",
    );
    check(
        &text.replace(
            "min_deg = -150.0, max_deg = 150.0",
            "min_deg = 150.0, max_deg = -150.0",
        ),
        "joint 4 (j4)",
    );
    check(
        &text.replace(
            "  { name = \"j7\", d = 0.1038,  a = 0.0, alpha_deg = 0.0,   min_deg = -540.0, max_deg = 540.0, continuous = true },\n",
            "",
        ),
        "link 'hand' spans frames 7..8; need from < to <= 7",
    );
    check(
        &text.replace(
            "  { name = \"j7\", d = 0.1038,  a = 0.0, alpha_deg = 0.0,   min_deg = -540.0, max_deg = 540.0, continuous = true },\n",
            "",
        ).replace(
            "  { name = \"j6\", d = 0.0,     a = 0.0, alpha_deg = 90.0,  min_deg = -115.0, max_deg = 115.0 },\n",
            "",
        ),
        "chain.joints has 5 joints, expected 6 to 8",
    );
    check(
        &text.replace("home_deg = [-133.0, 21.0", "home_deg = [-133.0, 140.0"),
        "arms.left.home_deg joint 2",
    );
    check(
        &text.replace("[\"forearm\", \"hand\"]", "[\"forearm\", \"paw\"]"),
        "paw",
    );
    check(
        &text.replace("max_diameter = 0.10", "max_diameter = 0.01"),
        "hand.power",
    );
    match RobotDescription::load("/nonexistent/robot.toml") {
        Err(e @ DescriptionError::Io { .. }) => {
            assert!(e.to_string().contains("/nonexistent/robot.toml"))
        }
        other => panic!("expected an I/O error, got {other:?}"),
    }
}

#[test]
fn self_collision_of_arms_reaching_the_same_point_is_detected() {
    let r = robot();
    let p = Vec3::new(-0.25, 0.0, 1.0);
    let opts = IkOptions::default();
    let l = r.arm(Side::Left);
    let rt = r.arm(Side::Right);
    let ql = l
        .solve_ik(&IkTarget::Position(p), &l.home, &opts)
        .expect("left reaches");
    let qr = rt
        .solve_ik(&IkTarget::Position(p), &rt.home, &opts)
        .expect("right reaches");
    let sc = r.self_clearance(&ql.q, &qr.q);
    assert!(sc.distance < 0.0, "{sc:?}");
    assert!(
        sc.a.starts_with("left") && sc.b.starts_with("right"),
        "{sc:?}"
    );
}

/// With one arm still, the self-clearance found is the whole robot's: the same distance
/// and the same parts, named left first, whichever arm moves.
#[test]
fn self_clearance_with_one_arm_still_is_the_whole_robots() {
    let r = robot();
    let mut rng = Lcg::new(9);
    let mut touching = 0;
    for _ in 0..300 {
        let ql = random_joints(r.arm(Side::Left), &mut rng);
        let qr = random_joints(r.arm(Side::Right), &mut rng);
        let whole = r.self_clearance(&ql, &qr);
        let caps = |side: Side, q: &Joints| r.arm(side).capsules(q);
        let moving = [
            r.self_clearance_moving(
                Side::Left,
                &caps(Side::Left, &ql),
                &r.still_arm(Side::Right, &qr),
            ),
            r.self_clearance_moving(
                Side::Right,
                &caps(Side::Right, &qr),
                &r.still_arm(Side::Left, &ql),
            ),
        ];
        for m in moving {
            assert!(
                (m.distance - whole.distance).abs() < 1e-5,
                "{m:?} vs {whole:?}"
            );
            assert_eq!((&m.a, &m.b), (&whole.a, &whole.b));
        }
        touching += usize::from(whole.distance < 0.0);
    }
    assert!(touching > 0, "some random poses touch");
}

fn grasp_request(r: &Robot, bottle: Vec3) -> MotionRequest {
    let side = Side::Left;
    let grasp = bottle + Vec3::Z * 0.1;
    let approach_dir = Vec3::X;
    MotionRequest {
        side,
        start: r.home(side),
        other_arm: r.home(side.other()),
        waypoints: vec![
            Waypoint::new(
                "approach",
                IkTarget::approach(grasp - approach_dir * 0.12, approach_dir),
                1.5,
            ),
            Waypoint::new("grasp", IkTarget::approach(grasp, approach_dir), 1.0)
                .excluding(&["bottle"]),
            Waypoint::new(
                "lift",
                IkTarget::approach(grasp + Vec3::Z * 0.1, approach_dir),
                0.8,
            )
            .excluding(&["bottle"]),
        ],
        attached: None,
        exclude: vec![],
    }
}

fn scene_with_bottle(bottle: Vec3) -> ObstacleSet {
    let mut s = table();
    s.add_cylinder("bottle", bottle, 0.035, 0.25);
    s
}

#[test]
fn grasp_motion_succeeds_with_margins() {
    let r = robot();
    let bottle = Vec3::new(0.0, 0.2, 0.75);
    let env = scene_with_bottle(bottle);
    let req = grasp_request(&r, bottle);
    let m = match r.simulate(&req, &env, &MotionOptions::default()) {
        Ok(m) => m,
        Err(e) => panic!("{e} ({e:?})"),
    };
    assert!((m.duration_s - 3.3).abs() < 0.05, "{}", m.duration_s);
    assert_eq!(m.waypoint_samples.len(), 3);
    assert!(m.min_clearance > 0.01 && m.min_clearance < 0.5);
    assert!((0.0..=1.0).contains(&m.min_joint_margin));
    assert!(m.joint_path_length > 0.1);
    let end = translation(&m.final_world_from_hand);
    assert!((end - (bottle + Vec3::Z * 0.2)).length() < 3e-3, "{end}");

    // Carry the bottle back up and over: the attached cylinder counts.
    let carry = MotionRequest {
        start: m.final_joints(),
        waypoints: vec![Waypoint::new(
            "carry",
            IkTarget::approach(Vec3::new(-0.1, 0.0, 1.0), Vec3::X),
            1.5,
        )],
        attached: Some(AttachedObject::cylinder(
            "bottle",
            0.035,
            0.25,
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::Y,
        )),
        ..req.clone()
    };
    let mut env2 = table();
    env2.add_cylinder("glass", Vec3::new(0.3, 0.0, 0.75), 0.04, 0.12);
    let c = r.simulate(&carry, &env2, &MotionOptions::default());
    assert!(c.is_ok(), "{c:?}");
}

#[test]
fn straight_motion_through_an_obstacle_is_rejected_naming_it() {
    let r = robot();
    let bottle = Vec3::new(0.0, 0.2, 0.75);
    let mut env = scene_with_bottle(bottle);
    // A box standing right in front of the grasp point.
    env.add_capsule(
        "box",
        Capsule::new(
            Vec3::new(-0.06, 0.1, 0.85),
            Vec3::new(-0.06, 0.3, 0.85),
            0.025,
        ),
    );
    let req = grasp_request(&r, bottle);
    let err = r
        .simulate(&req, &env, &MotionOptions::default())
        .expect_err("the box is in the way");
    match &err.violation {
        Violation::Collision { obstacle, part, .. } => {
            assert_eq!(obstacle, "box");
            assert!(part.starts_with("left "), "{part}");
        }
        other => panic!("expected a collision, got {other:?}"),
    }
    assert!(err.to_string().contains("would hit box"), "{err}");
    assert!(err.sample > 0);
}

#[test]
fn joint_limit_is_reported_as_the_reason() {
    let mut d = description();
    // Narrow the elbow so that straightening past 100 deg needs more than the limit allows.
    d.arms.left.joints[3].lower = 0.0;
    d.arms.left.joints[3].upper = 100f32.to_radians();
    let narrow = robot_from(&d);
    let full = robot();
    let side = Side::Left;
    let mut q = full.home(side);
    q[3] = 115f32.to_radians();
    let target = full.arm(side).world_from_hand(&q);
    let req = MotionRequest {
        side,
        start: narrow.home(side),
        other_arm: narrow.home(side.other()),
        waypoints: vec![Waypoint::new("fold", IkTarget::Pose(target), 1.0)],
        attached: None,
        exclude: vec![],
    };
    let err = narrow
        .simulate(&req, &(), &MotionOptions::default())
        .expect_err("limit in the way");
    assert_eq!(err.violation, Violation::JointLimit { joint: 3 }, "{err}");
    assert_eq!(
        err.to_string(),
        "joint 4 of the left arm would pass its limit"
    );
}

#[test]
fn produced_trajectories_never_violate_joint_limits() {
    let r = robot();
    let env = table();
    let mut rng = Lcg::new(9);
    let mut successes = 0;
    for k in 0..24 {
        let side = if k % 2 == 0 { Side::Left } else { Side::Right };
        let p1 = Vec3::new(
            rng.range(-0.5, 0.2),
            rng.range(-0.35, 0.35),
            rng.range(0.85, 1.05),
        );
        let p2 = Vec3::new(
            rng.range(-0.5, 0.2),
            rng.range(-0.35, 0.35),
            rng.range(0.85, 1.05),
        );
        let req = MotionRequest {
            side,
            start: r.home(side),
            other_arm: r.home(side.other()),
            waypoints: vec![
                Waypoint::new("a", side_grasp_for(side, p1), 1.2),
                Waypoint::new("b", IkTarget::approach(p2, -Vec3::Z), 1.2),
            ],
            attached: None,
            exclude: vec![],
        };
        let res = r.simulate(&req, &env, &MotionOptions::default());
        if let Err(e) = &res {
            println!("{k} {side} {p1} {p2}: {e}");
        }
        if let Ok(m) = res {
            successes += 1;
            let arm = r.arm(side);
            for s in &m.samples {
                assert!(arm.limit_violation(&s.q, 0.0).is_none(), "{:?}", s.q);
            }
            assert!(m.min_joint_margin >= 0.0);
        }
    }
    assert!(successes >= 6, "only {successes} motions succeeded");
}

#[test]
fn head_looks_at_people_and_table() {
    let r = robot();
    let a = r.head_angles_towards(Vec3::new(0.0, 0.7, 1.2));
    assert!(a.within_limits && a.pan > 0.5);
    let a = r.head_angles_towards(Vec3::new(0.0, 0.0, 0.75));
    assert!(a.within_limits && a.tilt < 0.0);
    let a = r.head_angles_towards(Vec3::new(-0.8, 0.0, 3.0));
    assert!(!a.within_limits);
}

#[test]
fn the_hand_capsules_move_with_the_hand() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/robots/panda_bimanual.toml");
    let d = RobotDescription::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let r = robot_from(&d);
    let arm = r.arm(Side::Left);
    let palm = arm.hand_capsules();
    // The Franka Hand: the flange and the palm across the fingers, 6.8 cm behind the tool centre.
    assert!(!palm.is_empty());
    assert!(palm
        .iter()
        .any(|c| (c.a.z + 0.0684).abs() < 1e-3 && (c.b.z + 0.0684).abs() < 1e-3));
    let mut rng = Lcg::new(7);
    for _ in 0..20 {
        let q = random_joints(arm, &mut rng);
        let frames = arm.link_frames(&q);
        let world = arm.capsules_from_frames(&frames);
        let hand = frames.hand();
        for c in palm {
            let moved = c.transformed(hand);
            let same = world.iter().any(|w| {
                w.a.distance(moved.a) < 1e-4 && w.b.distance(moved.b) < 1e-4 && w.radius == c.radius
            });
            assert!(same, "a hand capsule in the world at {q:?}");
        }
    }
}
