//! The simulated robot in time: plans play at their planned timing (tokio's
//! paused clock makes the timing exact and the tests fast), a stop leaves the
//! arm where it was holding what it held, and the next plan starts there.

use attentive::twin::actions::playback::{ArmsNow, Pace, SimulatedRobot};
use attentive::twin::actions::{self, execute_on, ActionRequest, Plan, SimulationExecutor};
use attentive::twin::kinematics::Joints;
use attentive::twin::world::Placement;
use attentive::twin::Twin;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

fn softdrinks() -> Twin {
    Twin::load("softdrinks").expect("the shipped scene loads")
}

fn hand_over(twin: &Twin, object: &str, person: &str) -> ActionRequest {
    ActionRequest::HandOver {
        object: twin.world.object_named(object).expect("object"),
        person: twin.world.person_named(person).expect("person"),
    }
}

fn planned(twin: &Twin, request: ActionRequest) -> Plan {
    let (outcome, _) = actions::plan(twin, request).expect("plannable");
    outcome.plan.expect("a feasible plan")
}

fn largest_difference(a: &Joints, b: &Joints) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// A cancel fired after `seconds` of (virtual) time.
fn stop_after(seconds: f64) -> CancellationToken {
    let cancel = CancellationToken::new();
    let fire = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_secs_f64(seconds)).await;
        fire.cancel();
    });
    cancel
}

#[tokio::test(start_paused = true)]
async fn a_stop_40_percent_into_a_hand_over_leaves_the_arm_between_holding_the_glass() {
    let mut twin = softdrinks();
    let request = hand_over(&twin, "red_glass", "Felix");
    let plan = planned(&twin, request);
    let pace = Pace::default();
    let home = twin.joints;
    let ends: Vec<[Joints; 2]> = plan.steps.iter().map(|s| s.sim.state.joints).collect();

    let mut robot = SimulatedRobot::new(pace);
    let cancel = stop_after(0.4 * pace.planned_s(&plan));
    let report = execute_on(&mut twin, request, &mut robot, &cancel).await;
    eprintln!("{}", report.text);

    assert!(!report.ok, "{}", report.text);
    assert!(
        report
            .text
            .starts_with("Interrupted: I stopped with red_glass in my"),
        "{}",
        report.text
    );
    assert!(report.text.contains("Felix"), "{}", report.text);
    assert_eq!(report.facts["interrupted"], true);
    let red = twin.world.object_named("red_glass").expect("red_glass");
    assert!(matches!(
        twin.world.object(red).placement,
        Placement::InGripper { .. }
    ));
    let held = twin.holding.expect("the twin knows what the hand holds");
    let side = held.arm as usize;
    assert!(
        largest_difference(&twin.joints[side], &home[side]) > 0.05,
        "the arm left home"
    );
    for (i, end) in ends.iter().enumerate() {
        assert!(
            largest_difference(&twin.joints[side], &end[side]) > 0.01,
            "the arm stopped between steps, not at the end of step {i}"
        );
    }
    // The glass is in the hand, above the table, where the hand is.
    let base = twin.world.object_base(red);
    assert!(base.z > twin.world.table.height + 0.02, "lifted: {base}");
}

#[tokio::test(start_paused = true)]
async fn after_a_stop_the_next_plan_starts_from_there_and_succeeds() {
    let mut twin = softdrinks();
    let request = hand_over(&twin, "red_glass", "Felix");
    let pace = Pace::default();
    let total = pace.planned_s(&planned(&twin, request));
    let mut robot = SimulatedRobot::new(pace);
    let first = execute_on(&mut twin, request, &mut robot, &stop_after(0.4 * total)).await;
    assert!(!first.ok);
    let stopped = twin.joints;

    // "Go on": the same request plans from the stopped arm, without taking the glass again.
    let plan = planned(&twin, request);
    assert_eq!(
        plan.steps[0].step.name(),
        "lift",
        "the glass is already in the hand"
    );
    let first = plan
        .steps
        .iter()
        .find_map(|s| s.sim.motions.first())
        .expect("a motion");
    let side = first.side as usize;
    let start = first.samples[0].q;
    assert!(largest_difference(&start, &stopped[side]) < 1e-4);

    let again = execute_on(&mut twin, request, &mut robot, &CancellationToken::new()).await;
    assert!(again.ok, "{}", again.text);
    let red = twin.world.object_named("red_glass").expect("red_glass");
    let felix = twin.world.person_named("Felix").expect("Felix");
    assert_eq!(twin.world.holder(red), Some(felix));
    assert!(twin.holding.is_none());
}

#[tokio::test(start_paused = true)]
async fn a_stop_before_the_grasp_leaves_the_object_on_the_table() {
    let mut twin = softdrinks();
    let request = hand_over(&twin, "red_glass", "Felix");
    let mut robot = SimulatedRobot::new(Pace::default());
    let report = execute_on(&mut twin, request, &mut robot, &stop_after(0.3)).await;
    assert!(!report.ok);
    assert!(
        report
            .text
            .starts_with("Interrupted: I stopped before taking red_glass"),
        "{}",
        report.text
    );
    let red = twin.world.object_named("red_glass").expect("red_glass");
    assert!(matches!(
        twin.world.object(red).placement,
        Placement::OnTable { .. }
    ));
    let again = execute_on(&mut twin, request, &mut robot, &CancellationToken::new()).await;
    assert!(again.ok, "{}", again.text);
}

/// The same world and joints after instant and timed execution as after
/// today's one-shot simulation, for each kind of action.
#[tokio::test(start_paused = true)]
async fn instant_and_timed_execution_end_in_the_same_state() {
    let base = softdrinks();
    let red = base.world.object_named("red_glass").expect("red_glass");
    let blue = base.world.object_named("blue_glass").expect("blue_glass");
    let cola = base.world.object_named("cola_bottle").expect("cola");
    let felix = base.world.person_named("Felix").expect("Felix");
    let daniel = base.world.person_named("Daniel").expect("Daniel");
    let requests = [
        ActionRequest::HandOver {
            object: red,
            person: felix,
        },
        ActionRequest::MoveTo {
            object: blue,
            person: daniel,
        },
        ActionRequest::Pour {
            source: cola,
            target: red,
        },
        ActionRequest::PointAt(actions::Target::Person(daniel)),
    ];
    for request in requests {
        let mut today = base.clone();
        let r0 = execute_on(
            &mut today,
            request,
            &mut SimulationExecutor,
            &CancellationToken::new(),
        )
        .await;
        for pace in [Pace::INSTANT, Pace::default()] {
            let mut twin = base.clone();
            let (tx, rx) = watch::channel(ArmsNow::default());
            let mut robot = SimulatedRobot::new(pace).watched_by(tx);
            let r = execute_on(&mut twin, request, &mut robot, &CancellationToken::new()).await;
            assert_eq!(r.ok, r0.ok, "{request:?}: {} / {}", r.text, r0.text);
            assert_eq!(r.text, r0.text);
            for side in 0..2 {
                assert!(largest_difference(&twin.joints[side], &today.joints[side]) < 1e-5);
            }
            for id in base.world.object_ids() {
                let (a, b) = (twin.world.object(id), today.world.object(id));
                assert_eq!(a.contains, b.contains);
                assert_eq!(twin.world.holder(id), today.world.holder(id));
                let d = twin
                    .world
                    .object_base(id)
                    .distance(today.world.object_base(id));
                assert!(d < 1e-4, "{} moved {d} m apart", a.name);
            }
            assert!(!rx.borrow().moving, "the watchers see the robot at rest");
        }
    }
}

/// While a timed motion runs, watchers see the joints change at the configured
/// rate, and the planned path of the moving hand.
#[tokio::test(start_paused = true)]
async fn watchers_see_the_arm_move_and_its_path() {
    let mut twin = softdrinks();
    let request = hand_over(&twin, "red_glass", "Felix");
    let (tx, mut rx) = watch::channel(ArmsNow::default());
    let mut robot = SimulatedRobot::new(Pace::default()).watched_by(tx);
    let seen = tokio::spawn(async move {
        let mut updates = Vec::new();
        while rx.changed().await.is_ok() {
            updates.push(rx.borrow_and_update().clone());
        }
        updates
    });
    let report = execute_on(&mut twin, request, &mut robot, &CancellationToken::new()).await;
    assert!(report.ok, "{}", report.text);
    drop(robot);
    let updates = seen.await.expect("the watcher ends");
    let moving: Vec<&ArmsNow> = updates.iter().filter(|u| u.moving).collect();
    assert!(moving.len() > 20, "{} updates while moving", moving.len());
    assert!(moving.iter().any(|u| u.path.len() >= 2));
    assert!(moving
        .iter()
        .any(|u| u.carried.as_ref().is_some_and(|c| c.0 == "red_glass")));
    let distinct = moving
        .windows(2)
        .filter(|w| w[0].joints != w[1].joints)
        .count();
    assert!(distinct > 10, "the joints change between updates");
    assert!(!updates.last().expect("updates").moving);
}

#[tokio::test(start_paused = true)]
async fn a_stop_during_the_lift_goes_on_from_the_low_hand() {
    let mut twin = softdrinks();
    let request = hand_over(&twin, "red_glass", "Felix");
    let pace = Pace::default();
    let plan = planned(&twin, request);
    let get = &plan.steps[0];
    assert_eq!(get.step.name(), "get");
    let reach: f64 = get.sim.motions[..get.sim.motions.len() - 1]
        .iter()
        .map(|m| f64::from(m.duration_s))
        .sum();
    let head = if get.sim.head.is_some() {
        pace.head_s
    } else {
        0.0
    };
    // A tenth of a second into the lift: the glass barely above the table.
    let mut robot = SimulatedRobot::new(pace);
    let cancel = stop_after(head + reach + pace.gripper_s + 0.1);
    let report = execute_on(&mut twin, request, &mut robot, &cancel).await;
    assert!(
        report
            .text
            .starts_with("Interrupted: I stopped with red_glass"),
        "{}",
        report.text
    );
    let red = twin.world.object_named("red_glass").expect("red_glass");
    assert!(twin.world.object_base(red).z < twin.world.table.height + 0.1);

    let again = execute_on(&mut twin, request, &mut robot, &CancellationToken::new()).await;
    assert!(again.ok, "{}", again.text);
    assert_eq!(twin.world.holder(red), twin.world.person_named("Felix"));
}
