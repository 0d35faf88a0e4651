//! Behaviour of the action planner on the shipped softdrinks scene.

use super::*;
use crate::twin::kinematics::Side;
use crate::twin::world::Placement;

fn twin() -> Twin {
    let twin = Twin::load("softdrinks").expect("shipped scene loads");
    assert!(
        twin.robot.is_ok(),
        "robot description loads: {:?}",
        twin.robot.as_ref().err()
    );
    twin
}

fn obj(t: &Twin, n: &str) -> ObjectId {
    t.world.object_named(n).expect("object in scene")
}

fn per(t: &Twin, n: &str) -> PersonId {
    t.world.person_named(n).expect("person in scene")
}

/// Every joint of every executed motion lies within the arm's limits.
fn assert_within_limits(twin: &Twin, plan: &Plan) {
    let robot = twin.robot.as_ref().expect("robot");
    for s in &plan.steps {
        for m in &s.sim.motions {
            let arm = robot.arm(m.side);
            for sample in &m.samples {
                assert!(
                    arm.limit_violation(&sample.q, 1e-4).is_none(),
                    "joint limit at {:?}",
                    s.step
                );
            }
        }
    }
}

fn run(twin: &mut Twin, request: ActionRequest) -> ActionReport {
    if let Ok((outcome, _)) = plan(twin, request) {
        if let Ok(p) = &outcome.plan {
            assert_within_limits(twin, p);
        }
    }
    let report = execute(twin, request);
    println!("{} {}", report.text, report.facts);
    report
}

#[test]
fn straight_path_through_box_is_rejected_and_another_variant_chosen() {
    let t = twin();
    let robot = t.robot.as_ref().expect("robot");
    let blue = obj(&t, "blue_glass");
    let state = PlanState {
        world: t.world.clone(),
        joints: t.joints,
        holding: None,
    };
    // Some variant's straight approach to blue_glass crosses the cereal box.
    let step = Elementary::Get {
        object: blue,
        arm: None,
    };
    let straight = variants::get_variants(&t.world, robot, blue, &Side::BOTH)
        .into_iter()
        .find(|v| matches!(simulate::simulate(robot, &state, &step, v), Err(Cause::Collision(o)) if o == "box"))
        .expect("a variant through the box");
    let outcome = search::search(
        robot,
        state,
        &[Elementary::Get {
            object: blue,
            arm: None,
        }],
        BEAM,
    );
    let plan = outcome.plan.expect("another variant takes blue_glass");
    assert_ne!(plan.steps[0].variant, straight);
}

#[test]
fn pouring_into_a_non_container_is_refused() {
    let mut t = twin();
    let r = {
        let rq = ActionRequest::Pour {
            source: obj(&t, "cola_bottle"),
            target: obj(&t, "smartphone"),
        };
        execute(&mut t, rq)
    };
    assert!(!r.ok);
    assert_eq!(r.text, "smartphone is not a container.");
}

#[test]
fn box_cannot_be_grasped_and_empty_or_full_glasses_are_refused() {
    let mut t = twin();
    let felix = per(&t, "Felix");
    let r = {
        let rq = ActionRequest::HandOver {
            object: obj(&t, "box"),
            person: felix,
        };
        execute(&mut t, rq)
    };
    assert_eq!(
        r.text,
        "box cannot be grasped: it is too large for the robot's hands."
    );
    let red = obj(&t, "red_glass");
    t.world.fill(red, Some("cola".into()));
    let r = {
        let rq = ActionRequest::Pour {
            source: obj(&t, "fanta_bottle"),
            target: red,
        };
        execute(&mut t, rq)
    };
    assert_eq!(r.text, "red_glass already holds cola; use an empty glass.");
    // The same drink again tops it up ("a bit more").
    let r = {
        let rq = ActionRequest::Pour {
            source: obj(&t, "cola_bottle"),
            target: red,
        };
        execute(&mut t, rq)
    };
    assert!(r.text.starts_with("You poured cola"), "{}", r.text);
    let r = {
        let rq = ActionRequest::Pour {
            source: obj(&t, "blue_glass"),
            target: obj(&t, "cola_bottle"),
        };
        execute(&mut t, rq)
    };
    assert_eq!(r.text, "blue_glass is empty.");
}

#[test]
fn hand_over_leaves_object_held_by_person_situation_3() {
    let mut t = twin();
    let (red, felix) = (obj(&t, "red_glass"), per(&t, "Felix"));
    let r = {
        let rq = ActionRequest::HandOver {
            object: red,
            person: felix,
        };
        run(&mut t, rq)
    };
    assert!(r.ok, "{}", r.text);
    assert_eq!(t.world.holder(red), Some(felix));
    assert!(
        r.text
            .starts_with("You handed red_glass to Felix with your"),
        "{}",
        r.text
    );
    for key in [
        "arm",
        "grasp",
        "cost",
        "cost_formula",
        "variants_tried",
        "variants_feasible",
        "planning_ms",
        "steps",
    ] {
        assert!(r.facts.get(key).is_some(), "facts lack {key}: {}", r.facts);
    }
}

#[test]
fn situation_4_pour_cola_into_glass_held_by_felix() {
    let mut t = twin();
    let (red, felix, daniel) = (obj(&t, "red_glass"), per(&t, "Felix"), per(&t, "Daniel"));
    let phone = obj(&t, "smartphone");
    assert!(
        {
            let rq = ActionRequest::HandOver {
                object: red,
                person: felix,
            };
            run(&mut t, rq)
        }
        .ok
    );
    t.world
        .make_busy_with(daniel, phone)
        .expect("Daniel takes his phone");
    let cola = obj(&t, "cola_bottle");
    let before = t.world.object(cola).placement;
    let r = {
        let rq = ActionRequest::Pour {
            source: cola,
            target: red,
        };
        run(&mut t, rq)
    };
    assert!(r.ok, "{}", r.text);
    assert_eq!(t.world.object(red).contains.as_deref(), Some("cola"));
    assert!(t.world.object(red).used);
    assert_eq!(t.world.holder(red), Some(felix));
    assert_eq!(
        t.world.object(cola).placement,
        before,
        "the bottle is put back where it was"
    );
}

#[test]
fn situation_5_pour_cola_zero_into_blue_glass_and_hand_it_to_daniel() {
    let mut t = twin();
    let (blue, daniel) = (obj(&t, "blue_glass"), per(&t, "Daniel"));
    let r = {
        let rq = ActionRequest::Pour {
            source: obj(&t, "cola_zero_bottle"),
            target: blue,
        };
        run(&mut t, rq)
    };
    assert!(r.ok, "{}", r.text);
    assert_eq!(t.world.object(blue).contains.as_deref(), Some("cola zero"));
    let r = {
        let rq = ActionRequest::HandOver {
            object: blue,
            person: daniel,
        };
        run(&mut t, rq)
    };
    assert!(r.ok, "{}", r.text);
    assert_eq!(t.world.holder(blue), Some(daniel));
}

#[test]
fn object_at_far_end_of_table_is_out_of_reach() {
    let mut t = twin();
    let fanta = obj(&t, "fanta_bottle");
    t.world.place_on_table(fanta, glam::Vec2::new(0.52, 0.0));
    let r = {
        let rq = ActionRequest::HandOver {
            object: fanta,
            person: per(&t, "Felix"),
        };
        execute(&mut t, rq)
    };
    assert!(!r.ok);
    assert_eq!(r.text, "fanta_bottle is out of reach of both arms.");
    assert!(
        r.facts["reasons"]["out_of_reach"].as_u64().unwrap_or(0) > 0,
        "{}",
        r.facts
    );
    let arms = arms_reaching(&t, fanta);
    assert!(
        arms.iter()
            .all(|(_, ok, reason)| !ok && reason.starts_with("out of reach")),
        "{arms:?}"
    );
}

#[test]
fn full_hands_and_held_objects_are_refused_before_planning() {
    let mut t = twin();
    let felix = per(&t, "Felix");
    t.world
        .make_busy_with(felix, obj(&t, "smartphone"))
        .expect("free hand");
    t.world
        .make_busy_with(felix, obj(&t, "fanta_bottle"))
        .expect("free hand");
    let r = {
        let rq = ActionRequest::HandOver {
            object: obj(&t, "red_glass"),
            person: felix,
        };
        execute(&mut t, rq)
    };
    assert_eq!(
        r.text,
        "Felix has both hands full; ask Felix to put something down."
    );
    let r = {
        let rq = ActionRequest::MoveTo {
            object: obj(&t, "fanta_bottle"),
            person: per(&t, "Daniel"),
        };
        execute(&mut t, rq)
    };
    assert_eq!(
        r.text,
        "fanta_bottle is held by Felix; ask Felix to put it down."
    );
}

/// Claims success but leaves the object in the robot's hand.
struct DropsNothing;

impl Executor for DropsNothing {
    fn run<'a>(
        &'a mut self,
        twin: &'a mut Twin,
        plan: &'a Plan,
        _cancel: &'a CancellationToken,
    ) -> Execution<'a> {
        if let Some(Effect::Grasped { object, arm, base }) =
            plan.steps.first().map(|s| s.sim.effect)
        {
            twin.world.object_mut(object).placement = Placement::InGripper {
                hand: hand_of(arm),
                base,
            };
        }
        Box::pin(std::future::ready(Ok(())))
    }
}

#[tokio::test]
async fn faulty_execution_is_reported_as_mismatch() {
    let mut t = twin();
    let (red, felix) = (obj(&t, "red_glass"), per(&t, "Felix"));
    let r = execute_on(
        &mut t,
        ActionRequest::HandOver {
            object: red,
            person: felix,
        },
        &mut DropsNothing,
        &CancellationToken::new(),
    )
    .await;
    assert!(!r.ok);
    assert_eq!(r.facts["mismatch"], true);
    assert!(
        r.text.contains("Felix does not hold red_glass"),
        "{}",
        r.text
    );
}

#[test]
fn move_to_person_puts_object_within_reach() {
    let mut t = twin();
    let (red, daniel) = (obj(&t, "red_glass"), per(&t, "Daniel"));
    let r = {
        let rq = ActionRequest::MoveTo {
            object: red,
            person: daniel,
        };
        run(&mut t, rq)
    };
    assert!(r.ok, "{}", r.text);
    assert!(crate::twin::hindrance::reaches(&t.world, daniel, red).reachable);
}

#[test]
fn gaze_and_point_succeed() {
    let mut t = twin();
    let felix = per(&t, "Felix");
    let r = {
        let rq = ActionRequest::Gaze(Target::Person(felix));
        run(&mut t, rq)
    };
    assert!(r.ok, "{}", r.text);
    let r = {
        let rq = ActionRequest::PointAt(Target::Object(obj(&t, "fanta_bottle")));
        run(&mut t, rq)
    };
    assert!(r.ok, "{}", r.text);
}

#[test]
fn reachable_glass_is_reachable_from_ik() {
    let t = twin();
    let arms = arms_reaching(&t, obj(&t, "red_glass"));
    assert!(arms.iter().any(|(_, ok, _)| *ok), "{arms:?}");
}

#[test]
#[ignore]
fn diagnose_cola_zero() {
    let t = twin();
    let robot = t.robot.as_ref().expect("robot");
    let o = obj(&t, "cola_zero_bottle");
    let state = PlanState {
        world: t.world.clone(),
        joints: t.joints,
        holding: None,
    };
    for v in variants::get_variants(&t.world, robot, o, &Side::BOTH) {
        let r = simulate::simulate(
            robot,
            &state,
            &Elementary::Get {
                object: o,
                arm: None,
            },
            &v,
        );
        println!("{:?} {:?} -> {:?}", v.arm, v.direction_deg, r.err());
    }
}

/// A softdrinks-sized table with Ann on one long side, the given objects, no box.
fn table_with(objects: &[(&str, &str, [f32; 2])]) -> Twin {
    let mut text = String::from(
        "name = \"t\"\n[table]\nsize = [1.2, 0.8]\nheight = 0.75\n[robot]\nname = \"the_robot\"\n\
         position = [-0.85, 0.0]\n[[person]]\nname = \"Ann\"\nposition = [0.0, 0.7]\nyaw_deg = -90\n",
    );
    for (name, kind, [x, y]) in objects {
        text +=
            &format!("[[object]]\nname = \"{name}\"\nkind = \"{kind}\"\nposition = [{x}, {y}]\n");
    }
    let kinds = crate::twin::kinds::KindCatalog::load_shipped().expect("kinds");
    Twin::from_world(crate::twin::scene::from_toml_str(&text, &kinds).expect("valid scene"))
}

#[test]
fn a_short_jar_is_held_higher_up_than_its_grasp_height_where_the_palm_would_sit_on_the_table() {
    // The default hand's palm is thicker than this jar's grasp height is above the table:
    // held there, the hand would sit on the table; a little higher up, it takes the jar.
    let jar = "[jar]\nshape = \"cylinder\"\nradius = 0.035\nheight = 0.10\n\
               grasp_height = 0.04\ngrasps = [\"side\"]\nwords = [\"jar\"]\n";
    let kinds = crate::twin::kinds::KindCatalog::from_toml_str(jar, "test").expect("kinds");
    let text = "name = \"t\"\n[table]\nsize = [1.2, 0.8]\nheight = 0.75\n[robot]\n\
                name = \"the_robot\"\nposition = [-0.85, 0.0]\n[[person]]\nname = \"Ann\"\n\
                position = [0.0, 0.7]\nyaw_deg = -90\n[[object]]\nname = \"jar\"\n\
                kind = \"jar\"\nposition = [-0.3, -0.2]\n";
    let mut t = Twin::from_world(crate::twin::scene::from_toml_str(text, &kinds).expect("scene"));
    let (jar, ann) = (obj(&t, "jar"), per(&t, "Ann"));
    let r = run(
        &mut t,
        ActionRequest::HandOver {
            object: jar,
            person: ann,
        },
    );
    assert!(r.ok, "{}", r.text);
    assert_eq!(t.world.holder(jar), Some(ann));
}

/// Bottles at `radius` around (x, y), at the given angles (deg).
fn around(x: f32, y: f32, radius: f32, angles: &[f32]) -> Vec<(String, [f32; 2])> {
    angles
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let r = a.to_radians();
            (
                format!("bottle_{}", i + 1),
                [x + radius * r.cos(), y + radius * r.sin()],
            )
        })
        .collect()
}

fn with_glass(bottles: &[(String, [f32; 2])]) -> Twin {
    let mut objects: Vec<(&str, &str, [f32; 2])> = vec![("glass", "glass", [-0.3, 0.0])];
    objects.extend(bottles.iter().map(|(n, p)| (n.as_str(), "bottle", *p)));
    table_with(&objects)
}

#[test]
fn reach_query_and_action_agree_on_a_glass_boxed_in_by_three_bottles() {
    // Three bottles on three sides: the side towards the far end stays open.
    for angles in [&[180.0, 90.0, 270.0][..], &[180.0, 120.0, 240.0][..]] {
        let mut t = with_glass(&around(-0.3, 0.0, 0.10, angles));
        let glass = obj(&t, "glass");
        let arms = arms_reaching(&t, glass);
        let says_yes = arms.iter().any(|(_, ok, _)| *ok);
        let ann = per(&t, "Ann");
        let r = execute(
            &mut t,
            ActionRequest::HandOver {
                object: glass,
                person: ann,
            },
        );
        let failed_at_get = r.facts["failed_step"] == "get";
        assert_eq!(says_yes, !failed_at_get, "{arms:?} / {}", r.text);
        if !says_yes {
            assert!(
                arms.iter()
                    .all(|(_, _, why)| why.contains("bottle") || why.starts_with("out of reach")),
                "{arms:?}"
            );
        }
    }
}

#[test]
fn an_encircled_glass_is_refused_with_one_clear_sentence() {
    let angles: Vec<f32> = (0..7).map(|i| i as f32 * 360.0 / 7.0).collect();
    let mut t = with_glass(&around(-0.3, 0.0, 0.085, &angles));
    let glass = obj(&t, "glass");
    let arms = arms_reaching(&t, glass);
    assert!(arms.iter().all(|(_, ok, _)| !ok), "{arms:?}");
    let ann = per(&t, "Ann");
    let r = execute(
        &mut t,
        ActionRequest::HandOver {
            object: glass,
            person: ann,
        },
    );
    assert!(!r.ok);
    assert!(r.text.starts_with("glass is "), "{}", r.text);
    assert_eq!(r.text.matches(". ").count(), 0, "one sentence: {}", r.text);
    assert!(r.text.ends_with('.'));
}

#[test]
fn the_way_home_avoids_the_bottle_just_put_down() {
    let mut t = twin();
    let fanta = obj(&t, "fanta_bottle");
    let mut motions = Vec::new();
    let felix = per(&t, "Felix");
    let r = execute_recording(
        &mut t,
        ActionRequest::MoveTo {
            object: fanta,
            person: felix,
        },
        &mut motions,
    );
    assert!(r.ok, "{}", r.text);
    let robot = t.robot.as_ref().expect("robot");
    // The last motions (home) keep clear of every obstacle, the bottle included.
    let obstacles = simulate::obstacles(&t.world);
    use crate::twin::kinematics::Obstacles as _;
    let last = motions.last().expect("a way home");
    for s in &last.samples {
        for c in robot.arm(last.side).capsules(&s.q) {
            let d = obstacles
                .capsule_clearance(&c, &[])
                .map_or(1.0, |c| c.distance);
            assert!(d >= 0.01, "{d} m at t = {}", s.t);
        }
    }
}

#[test]
fn the_same_request_plans_identically_twice() {
    let t = twin();
    let rq = ActionRequest::HandOver {
        object: obj(&t, "blue_glass"),
        person: per(&t, "Felix"),
    };
    let samples = |t: &Twin| -> Vec<Vec<crate::twin::kinematics::Sample>> {
        let (outcome, _) = plan(t, rq).expect("plans");
        let p = outcome.plan.expect("feasible");
        p.steps
            .iter()
            .flat_map(|s| s.sim.motions.iter().map(|m| m.samples.clone()))
            .collect()
    };
    assert_eq!(samples(&t), samples(&t));
}

#[test]
fn a_phone_in_a_persons_hand_beside_the_bottle_does_not_block_the_grasp() {
    let mut t = twin();
    let (fanta, phone) = (obj(&t, "fanta_bottle"), obj(&t, "smartphone"));
    let (daniel, felix) = (per(&t, "Daniel"), per(&t, "Felix"));
    t.world
        .make_busy_with(daniel, phone)
        .expect("Daniel takes his phone");
    // The bottle stands at the table edge right under Daniel's phone hand.
    t.world.place_on_table(fanta, glam::Vec2::new(0.1, -0.35));
    let held = t.world.object_base(phone);
    assert!(held.truncate().distance(glam::Vec2::new(0.1, -0.35)) < 0.1);
    assert!(simulate::obstacles(&t.world)
        .obstacles
        .iter()
        .all(|o| o.name != "smartphone"));
    let report = run(
        &mut t,
        ActionRequest::HandOver {
            object: fanta,
            person: felix,
        },
    );
    assert!(report.ok, "{}", report.text);
    assert_eq!(t.world.holder(fanta), Some(felix));
    assert_eq!(t.world.holder(phone), Some(daniel));
}

/// The softdrinks world with the cereal box set down right beside the robot's resting
/// right hand (closer than the allowed clearance) and the red glass in front of it.
fn box_at_the_resting_right_hand() -> Twin {
    let mut t = twin();
    let (red, cereal) = (obj(&t, "red_glass"), obj(&t, "box"));
    // The rest at the far end of the table (the grid's softdrinks layout 4).
    for (name, at) in [
        ("cola_bottle", [0.45, 0.3]),
        ("cola_zero_bottle", [0.45, 0.12]),
        ("fanta_bottle", [0.45, -0.3]),
        ("blue_glass", [0.2, 0.3]),
        ("smartphone", [0.18, -0.3]),
    ] {
        let id = obj(&t, name);
        t.world.place_on_table(id, glam::Vec2::from_array(at));
    }
    t.world.place_on_table(red, glam::Vec2::new(-0.25, -0.2));
    t.world
        .place_on_table_turned(cereal, glam::Vec2::new(-0.196, -0.307), -1.11);
    let robot = t.robot.as_ref().expect("robot");
    let obstacles = simulate::obstacles(&t.world);
    assert_eq!(
        robot
            .touches(
                Side::Right,
                &t.joints[1],
                &obstacles,
                &simulate::motion_options()
            )
            .as_deref(),
        Some("box"),
        "the box touches the resting right hand"
    );
    t
}

#[test]
fn an_arm_touching_a_box_at_rest_may_move_away_but_never_closer() {
    use crate::twin::kinematics::{IkTarget, MotionRequest, Waypoint};
    let t = box_at_the_resting_right_hand();
    let robot = t.robot.as_ref().expect("robot");
    let obstacles = simulate::obstacles(&t.world);
    let hand = robot.arm(Side::Right).world_from_hand(&t.joints[1]);
    let moved = |by: glam::Vec3| {
        let mut to = hand;
        to.translation += glam::Vec3A::from(by);
        let request = MotionRequest {
            side: Side::Right,
            start: t.joints[1],
            other_arm: t.joints[0],
            waypoints: vec![Waypoint::new("move", IkTarget::Pose(to), 0.8)],
            attached: None,
            exclude: Vec::new(),
        };
        robot.simulate(&request, &obstacles, &simulate::motion_options())
    };
    assert!(
        moved(glam::Vec3::Z * 0.15).is_ok(),
        "up and away from the box"
    );
    let into = moved(glam::Vec3::new(0.0, -0.06, -0.05)).expect_err("into the box");
    assert!(into.cause().contains("box"), "{}", into.cause());
}

#[test]
fn a_box_beside_the_resting_hand_does_not_stop_a_hand_over_and_the_hand_waits_clear_of_it() {
    let mut t = box_at_the_resting_right_hand();
    let (red, felix) = (obj(&t, "red_glass"), per(&t, "Felix"));
    let report = run(
        &mut t,
        ActionRequest::HandOver {
            object: red,
            person: felix,
        },
    );
    assert!(report.ok, "{}", report.text);
    assert_eq!(t.world.holder(red), Some(felix));
    let robot = t.robot.as_ref().expect("robot");
    let obstacles = simulate::obstacles(&t.world);
    for (i, side) in Side::BOTH.into_iter().enumerate() {
        let rest = t.joints[i];
        assert_eq!(
            robot.touches(side, &rest, &obstacles, &simulate::motion_options()),
            None,
            "{side:?} arm at rest"
        );
        assert!(variants::same_joints(
            &rest,
            &simulate::resting_pose(robot, &obstacles, side)
        ));
    }
}

/// Table 32 of the planner benchmark: bottle_1 stands on the robot's right, where only
/// the right arm takes it; the right arm can set it down within Ann's reach, but then
/// cannot get home past the box; the left arm reaches Ann's side from the middle.
fn relay_table() -> (Twin, ObjectId, PersonId) {
    let kinds = crate::twin::kinds::KindCatalog::load_shipped().expect("kinds");
    let world = crate::twin::planner_bench::random_table(225, &kinds).expect("valid table");
    let twin = Twin::from_world(world);
    let (bottle, ann) = (obj(&twin, "bottle_1"), per(&twin, "Ann"));
    (twin, bottle, ann)
}

/// The twin as it stands, the hands empty: where a plan starts.
fn at_rest(t: &Twin) -> PlanState {
    PlanState {
        world: t.world.clone(),
        joints: t.joints,
        holding: None,
    }
}

#[test]
fn one_arm_passes_an_object_to_the_other_when_only_the_other_reaches_the_person() {
    let (mut t, bottle, ann) = relay_table();
    // Neither arm alone both takes the bottle, brings it to Ann and gets home.
    let robot = t.robot.as_ref().expect("robot");
    let start = at_rest(&t);
    let direct = search::search(
        robot,
        start,
        &composite(
            &t.world,
            &ActionRequest::MoveTo {
                object: bottle,
                person: ann,
            },
        ),
        BEAM,
    );
    // (The right arm can do it only by staying out beside the box afterwards.)
    assert!(
        direct.plan.as_ref().map_or(true, |p| p.stays.is_some()),
        "a single arm does it: the table no longer tests a relay"
    );
    let request = ActionRequest::MoveTo {
        object: bottle,
        person: ann,
    };
    let (outcome, _) = plan(&t, request).unwrap_or_else(|r| panic!("{}", r.text));
    let p = outcome.plan.unwrap_or_else(|(s, c)| panic!("{s:?}: {c:?}"));
    let names: Vec<&str> = p.steps.iter().map(|s| s.step.name()).collect();
    assert_eq!(names, ["get", "relay", "pose", "get", "put", "pose"]);
    assert_ne!(
        p.steps[0].variant.arm, p.steps[3].variant.arm,
        "the other arm takes it over"
    );
    let report = run(&mut t, request);
    assert!(report.ok, "{}", report.text);
    assert!(matches!(
        t.world.object(bottle).placement,
        Placement::OnTable { .. }
    ));
    assert!(
        crate::twin::hindrance::reaches(&t.world, ann, bottle).reachable,
        "bottle_1 is beyond Ann's reach"
    );
    assert_eq!(report.facts["relay"]["from"], "right");
    assert_eq!(report.facts["arm"], "left");
    assert_eq!(
        report.text,
        "You put bottle_1 on the table within Ann's reach with your left hand, after your \
         right hand took it and set it down in the middle for your left."
    );
}

#[test]
fn a_relay_spot_is_one_the_other_hand_can_take_the_object_from() {
    let (t, bottle, _) = relay_table();
    let robot = t.robot.as_ref().expect("robot");
    let start = at_rest(&t);
    let got = search::search(
        robot,
        start,
        &[Elementary::Get {
            object: bottle,
            arm: Some(Side::Right),
        }],
        BEAM,
    );
    let held = got.plan.expect("the right arm takes the bottle").end;
    let relay = Elementary::Relay {
        object: bottle,
        for_the_other_hand: true,
    };
    let variants = search::variants_for(robot, &held, &relay).expect("relay spots");
    assert!(!variants.is_empty());
    let mut feasible = 0;
    for v in &variants {
        // Every spot on offer is free, on the table and within both arms' workspace.
        let spot = v.point.expect("a spot").truncate();
        assert!(t.world.table.contains(spot, 0.03));
        assert!(variants::spot_is_free(&held.world, bottle, spot));
        if let Ok(sim) = simulate::simulate(robot, &held, &relay, v) {
            feasible += 1;
            // ... and a feasible one leaves the bottle where the left hand takes it, once
            // the right arm is back at rest.
            let take = Elementary::Get {
                object: bottle,
                arm: Some(Side::Left),
            };
            let mut rested = sim.state.clone();
            let obstacles = simulate::obstacles(&rested.world);
            rested.joints[1] = simulate::resting_pose(robot, &obstacles, Side::Right);
            // As the search would: with the resting right arm stepped aside if it is in the way.
            let takes = variants::get_variants(&rested.world, robot, bottle, &[Side::Left])
                .iter()
                .any(|g| match simulate::simulate(robot, &rested, &take, g) {
                    Ok(_) => true,
                    Err(c) => simulate::simulate_aside(
                        robot,
                        &rested,
                        &take,
                        g,
                        simulate::Detours::On,
                        &c,
                    )
                    .is_ok(),
                });
            assert!(takes, "the left hand cannot take bottle_1 from {spot}");
        }
    }
    assert!(feasible > 0, "no relay spot works");
}

#[test]
fn the_idle_arm_steps_aside_when_the_other_reaches_across_where_it_rests() {
    // Table 27 of the planner benchmark: only the right arm takes glass_1, and on its way
    // to Ann, on the robot's left, it would hit the left hand resting in front.
    let kinds = crate::twin::kinds::KindCatalog::load_shipped().expect("kinds");
    let world = crate::twin::planner_bench::random_table(27, &kinds).expect("valid table");
    let mut t = Twin::from_world(world);
    let (glass, ann) = (obj(&t, "glass_1"), per(&t, "Ann"));
    let robot = t.robot.clone().expect("robot");
    let aside = robot
        .aside(Side::Left)
        .expect("the shipped robot has an aside pose");
    let request = ActionRequest::HandOver {
        object: glass,
        person: ann,
    };
    let (outcome, _) = plan(&t, request).unwrap_or_else(|r| panic!("{}", r.text));
    let p = outcome.plan.unwrap_or_else(|(s, c)| panic!("{s:?}: {c:?}"));
    let names: Vec<&str> = p.steps.iter().map(|s| s.step.name()).collect();
    assert_eq!(
        names,
        ["get", "pass", "pose"],
        "no relay: the right arm does it"
    );
    let pass = &p.steps[1];
    assert_eq!(pass.variant.arm, Side::Right);
    // Without stepping aside no straight hand path reaches a hand-over point (a detour
    // would be searched next: stepping aside is the cheaper effort, tried first).
    let before = &p.steps[0].sim.state;
    let mut in_place = before.clone();
    in_place.joints[0] = robot.home(Side::Left);
    let straight = search::variants_for(&robot, &in_place, &pass.step)
        .expect("hand-over points")
        .iter()
        .any(|v| {
            simulate::simulate_with(&robot, &in_place, &pass.step, v, simulate::Detours::Turns)
                .is_ok()
        });
    assert!(
        !straight,
        "the left arm at home is not in the way: the table no longer tests this"
    );
    // The left arm moves first, to its aside pose, then the right hands the glass over.
    let first = &pass.sim.motions[0];
    assert_eq!(first.side, Side::Left);
    assert!(variants::same_joints(&first.final_joints(), &aside));
    assert!(pass.sim.motions[1..].iter().all(|m| m.side == Side::Right));
    // Both arms end at rest.
    for (i, side) in Side::BOTH.into_iter().enumerate() {
        assert!(variants::same_joints(&p.end.joints[i], &robot.home(side)));
    }
    let report = run(&mut t, request);
    assert!(report.ok, "{}", report.text);
    assert_eq!(t.world.holder(glass), Some(ann));
    assert_eq!(report.facts["aside"], "left");
    assert_eq!(
        report.text,
        "You handed glass_1 to Ann with your right hand."
    );
}

/// Pours from the coffee pot into `target` on `t`.
fn pour_coffee_into(t: &mut Twin, target: ObjectId) -> ActionReport {
    let source = obj(t, "coffee_pot");
    run(t, ActionRequest::Pour { source, target })
}

/// A cup beyond the cereal box on the right (the shipped coffee table), the pot
/// on the left: the left hand takes the pot but cannot pour past the box, so it
/// passes the pot to the right hand, which pours; the cup stays where it stands
/// and can then be handed over.
#[test]
fn the_other_hand_pours_into_a_cup_only_it_reaches() {
    let mut t = Twin::load("coffee").expect("shipped scene loads");
    let (pot, small, daniel) = (
        obj(&t, "coffee_pot"),
        obj(&t, "small_cup"),
        per(&t, "Daniel"),
    );
    let before = t.world.object_base(small);
    let r = pour_coffee_into(&mut t, small);
    assert!(r.ok, "{}", r.text);
    assert!(
        r.text.starts_with(
            "You passed coffee_pot from your left hand to your right hand, poured coffee into small_cup"
        ),
        "{}",
        r.text
    );
    assert_eq!(t.world.object(small).contains.as_deref(), Some("coffee"));
    assert!(t.world.object_base(small).distance(before) < 1e-4);
    assert!(matches!(
        t.world.object(pot).placement,
        Placement::OnTable { .. }
    ));
    let r = run(
        &mut t,
        ActionRequest::HandOver {
            object: small,
            person: daniel,
        },
    );
    assert!(r.ok, "{}", r.text);
    assert_eq!(t.world.holder(small), Some(daniel));
}

/// Where the pour reaches the cup where it stands, the cup stays there.
#[test]
fn a_cup_in_the_open_is_poured_into_where_it_stands() {
    let mut t = Twin::load("coffee").expect("shipped scene loads");
    let large = obj(&t, "large_cup");
    let before = t.world.object_base(large);
    let r = pour_coffee_into(&mut t, large);
    assert!(r.ok, "{}", r.text);
    assert!(r.text.starts_with("You poured coffee"), "{}", r.text);
    assert!(t.world.object_base(large).distance(before) < 1e-4);
}

/// The Panda pair on a random table (seed 5003 of the planner benchmark): a cup on the
/// right, the 30 cm box between the arms and the person it is for.
const PANDA_CUP_BEYOND_THE_BOX: &str = r#"
name = "cup_beyond_the_box"
[table]
size = [1.2, 0.8]
height = 0.75
[robot]
name = "the_robot"
position = [-0.85, 0.0]
description = "panda_bimanual"
[[person]]
name = "Ann"
position = [-0.002, 0.70]
yaw_deg = -90
[[person]]
name = "Ben"
position = [-0.146, -0.70]
yaw_deg = 90
[[object]]
name = "box"
kind = "box"
position = [-0.279, 0.111]
yaw_deg = 152
[[object]]
name = "cup_1"
kind = "cup"
position = [-0.023, 0.040]
[[object]]
name = "cup_2"
kind = "cup"
position = [-0.513, -0.251]
[[object]]
name = "glass_1"
kind = "glass"
position = [-0.403, -0.074]
[[object]]
name = "bottle_1"
kind = "bottle"
position = [-0.166, -0.029]
"#;

fn panda_twin() -> Twin {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("cup_beyond_the_box.toml");
    std::fs::write(&path, PANDA_CUP_BEYOND_THE_BOX).expect("scene written");
    let twin = Twin::load(path.to_str().expect("utf-8 path")).expect("scene loads");
    assert!(twin.robot.is_ok(), "{:?}", twin.robot.as_ref().err());
    twin
}

/// The hand's approach direction (its z axis) where the get step closed it.
fn grasp_approach(twin: &Twin, request: ActionRequest) -> glam::Vec3 {
    let (outcome, _) = plan(twin, request).expect("planned");
    let p = outcome.plan.as_ref().expect("a plan");
    let get = p
        .steps
        .iter()
        .find(|s| matches!(s.step, Elementary::Get { .. }))
        .expect("a get step");
    let last = get.sim.motions.last().expect("the get moved");
    glam::Vec3::from(last.final_world_from_hand.matrix3.z_axis)
}

#[test]
fn a_parallel_hand_takes_a_cup_from_above_and_sets_it_down_beyond_the_box() {
    // Held level, the Panda's forearm came down to the cup's height and met the box on
    // every way to Ann ("every way would hit box").
    let mut t = panda_twin();
    let request = ActionRequest::MoveTo {
        object: obj(&t, "cup_2"),
        person: per(&t, "Ann"),
    };
    let approach = grasp_approach(&t, request);
    assert!(approach.z < -0.5, "the hand comes from above: {approach}");
    let r = run(&mut t, request);
    assert!(r.ok, "{}", r.text);
}

#[test]
fn a_parallel_hand_leans_only_a_little_over_a_bottle() {
    // Steeply from above, the palm would sit in the bottle unless the hand held it by its
    // neck; leaned a little, the palm stays out of it and the forearm still rises.
    let t = panda_twin();
    let request = ActionRequest::HandOver {
        object: obj(&t, "bottle_1"),
        person: per(&t, "Ben"),
    };
    let approach = grasp_approach(&t, request);
    let lean = (-approach.z).asin().to_degrees();
    assert!(
        (10.0..30.0).contains(&lean),
        "leaned {lean} deg: {approach}"
    );
}

#[test]
fn a_search_from_the_same_table_again_runs_no_simulation_twice() {
    let t = twin();
    let robot = t.robot.as_ref().expect("robot");
    let start = PlanState {
        world: t.world.clone(),
        joints: t.joints,
        holding: None,
    };
    let steps = composite(
        &t.world,
        &ActionRequest::HandOver {
            object: obj(&t, "red_glass"),
            person: per(&t, "Daniel"),
        },
    );
    let known = search::Simulations::default();
    let first = search::search_remembering(robot, start.clone(), &steps, BEAM, &known);
    let simulated = known.remembered();
    assert!(simulated > 0);
    let again = search::search_remembering(robot, start.clone(), &steps, BEAM, &known);
    assert_eq!(known.remembered(), simulated, "nothing was simulated again");
    let fresh = search::search(robot, start, &steps, BEAM);
    let chosen = |o: &search::SearchOutcome| -> Vec<variants::Variant> {
        o.plan
            .as_ref()
            .expect("a plan")
            .steps
            .iter()
            .map(|s| s.variant)
            .collect()
    };
    assert_eq!(chosen(&first), chosen(&again));
    assert_eq!(
        chosen(&first),
        chosen(&fresh),
        "remembered answers are a fresh search's"
    );
}

/// The Panda pair's softdrinks table: the cola bottle on the left, the blue glass on the
/// right beyond the box. Neither hand pours past the box, and the bottle finds no spot
/// between the arms; the right hand sets the glass down there, the left pours into it,
/// and both go back where they stood.
#[test]
fn a_glass_beyond_the_box_is_brought_over_for_the_pour_and_put_back() {
    let mut t = Twin::load("softdrinks_panda").expect("shipped scene loads");
    let (cola, blue) = (obj(&t, "cola_bottle"), obj(&t, "blue_glass"));
    let (cola_at, blue_at) = (t.world.object_base(cola), t.world.object_base(blue));
    let r = run(
        &mut t,
        ActionRequest::Pour {
            source: cola,
            target: blue,
        },
    );
    assert!(r.ok, "{}", r.text);
    assert!(
        r.text
            .starts_with("You set blue_glass down between your arms"),
        "{}",
        r.text
    );
    assert_eq!(t.world.object(blue).contains.as_deref(), Some("cola"));
    assert!(t.world.object_base(blue).distance(blue_at) < 0.01);
    assert!(t.world.object_base(cola).distance(cola_at) < 0.01);
}

/// A pour whose source comes back where this hand reaches, and a glass set down where
/// either hand pours into it: on the softdrinks table every bottle pours into every glass,
/// with the Jaco pair and with the UR5e pair (the Jaco's cola zero into the red glass had
/// no spot between the arms to set the bottle down again from which the *other* hand
/// could take it, a check that spot never needed; the UR5e's cola into the blue glass,
/// none where the other hand could take the glass).
#[test]
fn every_bottle_pours_into_every_glass_of_the_softdrinks_table() {
    for scene in ["softdrinks", "softdrinks_ur5e"] {
        for bottle in ["cola_bottle", "fanta_bottle", "cola_zero_bottle"] {
            for glass in ["red_glass", "blue_glass"] {
                let mut t = Twin::load(scene).expect("shipped scene loads");
                let (source, target) = (obj(&t, bottle), obj(&t, glass));
                let r = run(&mut t, ActionRequest::Pour { source, target });
                assert!(r.ok, "{scene}: {bottle} into {glass}: {}", r.text);
                let poured = t.world.object(target).contains.clone();
                assert_eq!(poured, t.world.object(source).contains, "{scene}: {r:?}");
            }
        }
    }
}

#[test]
fn milk_goes_into_coffee_either_way_round_and_two_drinks_do_not_mix() {
    let mut t = Twin::load("coffee").expect("shipped scene loads");
    let (large, small) = (obj(&t, "large_cup"), obj(&t, "small_cup"));
    let pour = |t: &mut Twin, source: &str, target| {
        let source = obj(t, source);
        execute(t, ActionRequest::Pour { source, target })
    };
    t.world.fill(large, Some("coffee".into()));
    let r = pour(&mut t, "milk_bottle", large);
    assert!(r.ok, "{}", r.text);
    let cup = t.world.object(large);
    assert_eq!(cup.contents().as_deref(), Some("coffee with milk"));
    assert!(cup.holds("milk") && cup.holds("coffee"));
    // Milk first: the coffee poured onto it is the drink.
    t.world.fill(small, Some("milk".into()));
    let r = pour(&mut t, "coffee_pot", small);
    assert!(r.ok, "{}", r.text);
    assert_eq!(
        t.world.object(small).contents().as_deref(),
        Some("coffee with milk")
    );
    // Oat milk onto milk is no addition the liquids file knows.
    t.world.fill(small, Some("milk".into()));
    let r = pour(&mut t, "oat_milk_bottle", small);
    assert!(!r.ok);
    assert_eq!(r.text, "small_cup already holds milk; use an empty glass.");
}

#[test]
fn a_hand_over_no_point_allows_puts_the_thing_down_within_reach() {
    // Benedikt sits far from the robot: no point his hand and the robot's
    // arm both reach; the masking tape is set down within his reach instead.
    let mut t =
        Twin::load("tests/sets/newtables_heldout11/scenes/watercolour.toml").expect("scene loads");
    let (tape, benedikt) = (obj(&t, "masking_tape"), per(&t, "Benedikt"));
    let report = run(
        &mut t,
        ActionRequest::HandOver {
            object: tape,
            person: benedikt,
        },
    );
    assert!(report.ok, "{}", report.text);
    assert!(
        report.text.starts_with("You put masking_tape"),
        "{}",
        report.text
    );
    assert_eq!(report.facts["put_down_instead_of_handing_over"], true);
    assert!(crate::twin::hindrance::reaches(&t.world, benedikt, tape).reachable);
}

/// The shipped softdrinks table with the red glass hemmed in on four sides (centres
/// 8.4 cm apart), so that no grasp of it clears its neighbours.
fn red_glass_hemmed_in() -> Twin {
    let mut t = twin();
    let glass = glam::Vec2::new(-0.3, 0.2);
    let around = [
        ("cola_bottle", glam::Vec2::new(-0.084, 0.0)),
        ("fanta_bottle", glam::Vec2::new(0.0, -0.084)),
        ("blue_glass", glam::Vec2::new(0.0, 0.084)),
        ("cola_zero_bottle", glam::Vec2::new(0.084, 0.0)),
    ];
    let red = obj(&t, "red_glass");
    t.world.place_on_table(red, glass);
    for (name, offset) in around {
        let id = obj(&t, name);
        t.world.place_on_table(id, glass + offset);
    }
    t
}

#[test]
fn things_standing_round_an_object_are_moved_aside_first() {
    let t = red_glass_hemmed_in();
    let red = obj(&t, "red_glass");
    let daniel = per(&t, "Daniel");
    // Taken directly, every way hits a neighbour.
    let direct = arms_reaching(&t, red);
    assert!(direct.iter().all(|(_, ok, _)| !ok), "{direct:?}");
    let (_, moved) = reachable_once_cleared(&t, red).expect("reachable once cleared");
    assert!(!moved.is_empty() && !moved.contains(&red));
    let mut t = t;
    let report = red_glass_to_daniel(&mut t);
    assert!(report.text.contains("aside"), "{}", report.text);
    assert!(
        matches!(t.world.object(red).placement, Placement::HeldBy { person, .. } if person == daniel)
    );
    // What was moved stands on the table, clear of where the glass stood.
    for name in report.facts["cleared"].as_array().expect("cleared listed") {
        let id = obj(&t, name.as_str().expect("a name"));
        let at = t.world.object_base(id).truncate();
        assert!(matches!(
            t.world.object(id).placement,
            Placement::OnTable { .. }
        ));
        assert!(
            at.distance(glam::Vec2::new(-0.3, 0.2)) > 0.1,
            "{name} at {at}"
        );
    }
}

#[test]
fn nothing_is_moved_aside_for_an_object_the_arms_reach() {
    let report = red_glass_to_daniel(&mut twin());
    assert!(report.facts.get("cleared").is_none(), "{}", report.facts);
}

/// The red glass handed to Daniel, which must succeed.
fn red_glass_to_daniel(t: &mut Twin) -> ActionReport {
    let request = ActionRequest::HandOver {
        object: obj(t, "red_glass"),
        person: per(t, "Daniel"),
    };
    let report = run(t, request);
    assert!(report.ok, "{}", report.text);
    report
}
