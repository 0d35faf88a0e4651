//! Kinematics benchmarks: one IK solve and one simulated grasp motion.

use std::hint::black_box;
use std::path::Path;

use attentive::twin::kinematics::{
    world_from_robot, IkOptions, IkTarget, MotionOptions, MotionRequest, ObstacleSet, Robot,
    RobotDescription, Side, Waypoint, DEFAULT_DESCRIPTION,
};
use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;

fn robot() -> Robot {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_DESCRIPTION);
    let description = match RobotDescription::load(&path) {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    Robot::new(&description, world_from_robot(-0.8, 0.0, 0.0))
}

fn bench(c: &mut Criterion) {
    let r = robot();
    let arm = r.arm(Side::Left);

    // A pose a little away from home, solved from home: a typical waypoint solve.
    let mut q = arm.home;
    q[0] += 0.3;
    q[1] += 0.2;
    q[3] -= 0.3;
    q[5] += 0.2;
    let target = IkTarget::Pose(arm.world_from_hand(&q));
    let opts = IkOptions::default();
    c.bench_function("ik_full_pose_from_home", |b| {
        b.iter(|| arm.solve_ik_afresh(black_box(&target), black_box(&arm.home), &opts))
    });
    let side = IkTarget::Axis {
        position: Vec3::new(0.0, 0.2, 0.85),
        hand_axis: Vec3::Y,
        world_axis: Vec3::Z,
    };
    c.bench_function("ik_side_grasp_from_home", |b| {
        b.iter(|| arm.solve_ik_afresh(black_box(&side), black_box(&arm.home), &opts))
    });

    // Approach, grasp and lift a bottle: 3.3 s sampled every 40 ms.
    let bottle = Vec3::new(0.0, 0.2, 0.75);
    let mut env = ObstacleSet::new();
    env.add_box(
        "table",
        Vec3::new(0.0, 0.0, 0.725),
        Vec3::new(0.6, 0.4, 0.025),
    );
    env.add_cylinder("bottle", bottle, 0.035, 0.25);
    env.add_cylinder("glass", Vec3::new(-0.2, -0.1, 0.75), 0.04, 0.12);
    let grasp = bottle + Vec3::Z * 0.1;
    let request = MotionRequest {
        side: Side::Left,
        start: r.home(Side::Left),
        other_arm: r.home(Side::Right),
        waypoints: vec![
            Waypoint::new(
                "approach",
                IkTarget::approach(grasp - Vec3::X * 0.12, Vec3::X),
                1.5,
            ),
            Waypoint::new("grasp", IkTarget::approach(grasp, Vec3::X), 1.0).excluding(&["bottle"]),
            Waypoint::new(
                "lift",
                IkTarget::approach(grasp + Vec3::Z * 0.1, Vec3::X),
                0.8,
            )
            .excluding(&["bottle"]),
        ],
        attached: None,
        exclude: vec![],
    };
    let options = MotionOptions::default();
    if let Err(e) = r.simulate(&request, &env, &options) {
        panic!("benchmark motion must be feasible: {e}");
    }
    c.bench_function("simulate_grasp_motion_3_waypoints", |b| {
        b.iter(|| r.simulate(black_box(&request), &env, &options))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
