//! The robot bridge's own costs: a service round trip and a goal round trip
//! through the rosbridge client against the mock robot on loopback (the mock
//! answers services at once and ends a zero-length trajectory on its next 5 ms
//! tick), and how many perception messages one core can take in and apply to
//! the twin (a two-person Azure Kinect frame of 2 x 32 joints, an ArUco frame
//! of 7 markers, a joint state of 18 joints).

use std::collections::HashMap;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Affine3A;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use attentive::robot::client::{ClientOptions, Rosbridge};
use attentive::robot::joints::JointMap;
use attentive::robot::mock::MockRobot;
use attentive::robot::perception::{apply, Perceived};
use attentive::robot::RobotSettings;
use attentive::twin::Twin;

fn kinect_frame() -> Value {
    let mut markers = Vec::new();
    for (body, x) in [(1, 0.0), (2, 0.0)] {
        for joint in 0..32 {
            let y = if body == 1 { 0.7 } else { -0.7 };
            markers.push(json!({"header": {"stamp": {"sec": 1, "nanosec": 0}, "frame_id": "depth_camera_link"},
                "ns": "", "id": body * 100 + joint, "type": 2, "action": 0,
                "pose": {"position": {"x": x + 0.01 * joint as f64, "y": y, "z": 1.0 + 0.01 * joint as f64},
                         "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0}},
                "scale": {"x": 0.05, "y": 0.05, "z": 0.05}, "color": {"r": 1.0, "g": 0.0, "b": 0.0, "a": 1.0},
                "lifetime": {"sec": 0, "nanosec": 250000000}, "frame_locked": false, "points": [], "colors": [],
                "texture_resource": "", "texture": {"header": {"stamp": {"sec": 0, "nanosec": 0}, "frame_id": ""}, "format": "", "data": ""},
                "uv_coordinates": [], "text": "", "mesh_resource": "", "mesh_file": {"filename": "", "data": ""},
                "mesh_use_embedded_materials": false}));
        }
    }
    json!({"markers": markers})
}

fn perception(c: &mut Criterion) {
    let settings = RobotSettings::default();
    let map = JointMap::new(&settings);
    let mut twin = Twin::load("softdrinks").expect("scene");
    let markers: HashMap<i64, _> = twin
        .world
        .object_ids()
        .enumerate()
        .map(|(i, o)| (i as i64 + 1, o))
        .collect();
    let kinect = serde_json::to_string(&kinect_frame()).expect("json");
    let aruco = serde_json::to_string(&json!({
        "header": {"stamp": {"sec": 1, "nanosec": 0}, "frame_id": "camera"},
        "marker_ids": [1, 2, 3, 4, 5, 6, 7],
        "poses": (0..7).map(|i| json!({"position": {"x": -0.4 + 0.05 * i as f64, "y": 0.1, "z": 0.75},
            "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0}})).collect::<Vec<_>>()
    }))
    .expect("json");
    let names: Vec<String> = settings
        .left_arm
        .joints
        .iter()
        .chain(&settings.right_arm.joints)
        .cloned()
        .chain(["head_pan_joint".into(), "head_tilt_joint".into()])
        .chain(["a".into(), "b".into()])
        .collect();
    let joint_state = serde_json::to_string(&json!({"header": {"stamp": {"sec": 1, "nanosec": 0}, "frame_id": ""},
        "name": names, "position": vec![0.1; 18], "velocity": vec![0.0; 18], "effort": vec![0.0; 18]}))
    .expect("json");
    let camera = Affine3A::IDENTITY;
    let mut group = c.benchmark_group("perception");
    // Each iteration: the text frame as it arrives, parsed, taken in and applied to the twin.
    group.bench_function("kinect_2_bodies_parse_and_apply", |b| {
        let mut p = Perceived::default();
        b.iter(|| {
            let v: Value = serde_json::from_str(&kinect).expect("json");
            p.bodies(&v, &camera);
            apply(&p, &mut twin, &map, &settings.perception, &markers)
        })
    });
    let mut twin = Twin::load("softdrinks").expect("scene");
    group.bench_function("aruco_7_markers_parse_and_apply", |b| {
        let mut p = Perceived::default();
        b.iter(|| {
            let v: Value = serde_json::from_str(&aruco).expect("json");
            p.aruco(&v, &camera);
            apply(&p, &mut twin, &map, &settings.perception, &markers)
        })
    });
    group.bench_function("joint_state_18_parse_and_apply", |b| {
        let mut p = Perceived::default();
        b.iter(|| {
            let v: Value = serde_json::from_str(&joint_state).expect("json");
            p.joint_state(&v);
            apply(&p, &mut twin, &map, &settings.perception, &markers)
        })
    });
    group.finish();
}

fn round_trips(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let settings = RobotSettings::default();
    let twin = Twin::load("softdrinks").expect("scene");
    let (mock, client) = runtime.block_on(async {
        let mock = MockRobot::start(&twin, &settings, "127.0.0.1:0")
            .await
            .expect("mock");
        let client = Rosbridge::connect(
            &mock.url(),
            ClientOptions::default(),
            CancellationToken::new(),
        )
        .expect("client");
        client
            .wait_connected(Duration::from_secs(5))
            .await
            .expect("connected");
        (mock, client)
    });
    let goal = json!({"trajectory": {"joint_names": ["head_pan_joint", "head_tilt_joint"],
        "points": [{"positions": [0.0, 0.0], "time_from_start": {"sec": 0, "nanosec": 1000}}]}});
    let mut group = c.benchmark_group("bridge");
    group.bench_function("service_round_trip", |b| {
        b.iter(|| runtime.block_on(client.call_service("/x", &json!({}), Duration::from_secs(1))))
    });
    group.bench_function("goal_round_trip_zero_length_trajectory", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut g = client.send_goal(
                    &settings.head.action,
                    "control_msgs/action/FollowJointTrajectory",
                    &goal,
                );
                g.end().await
            })
        })
    });
    group.finish();
    mock.stop();
}

criterion_group!(benches, perception, round_trips);
criterion_main!(benches);
