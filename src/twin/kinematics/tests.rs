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

fn table() -> ObstacleSet {
    let mut s = ObstacleSet::new();
    s.add_box("table", Vec3::new(0.0, 0.0, 0.725), Vec3::new(0.6, 0.4, 0.025));
    s
}

#[test]
#[ignore]
fn explore_reach() {
    let r = robot();
    let t = table();
    let opts = IkOptions::default();
    for side in Side::BOTH {
        let arm = r.arm(side);
        let s = if side == Side::Left { 1.0 } else { -1.0 };
        // home candidates
        for (i, p) in [
            Vec3::new(-0.45, 0.25 * s, 1.0),
            Vec3::new(-0.40, 0.20 * s, 0.98),
            Vec3::new(-0.35, 0.30 * s, 1.02),
        ]
        .iter()
        .enumerate()
        {
            let dir = Vec3::new(1.0, -0.3 * s, -0.6).normalize();
            let tgt = IkTarget::approach(*p, dir);
            match arm.solve_ik(&tgt, &[0.0, 0.5, 0.0, 1.5, 0.0, 0.5, 0.0], &opts) {
                Ok(sol) => {
                    let caps = arm.capsules(&sol.q);
                    let minz = caps.iter().map(|c| c.a.z.min(c.b.z) - c.radius).fold(9.0, f32::min);
                    let tc = caps.iter().filter_map(|c| t.capsule_clearance(c, &[])).map(|c| c.distance).fold(9.0, f32::min);
                    let deg: Vec<i32> = sol.q.iter().map(|v| v.to_degrees().round() as i32).collect();
                    println!("{side} home{i} {deg:?} margin {:.2} minz {minz:.2} table {tc:.2}", arm.joint_margin(&sol.q));
                }
                Err(e) => println!("{side} home{i} fail {e}"),
            }
        }
        for z in [0.80f32, 0.95] {
            for mode in ["side", "top"] {
                let mut line = String::new();
                for iy in 0..5 {
                    let y = 0.35 - 0.175 * iy as f32;
                    for ix in 0..12 {
                        let x = -0.55 + 0.1 * ix as f32;
                        let p = Vec3::new(x, y, z);
                        let tgt = if mode == "side" {
                            IkTarget::Axis { position: p, hand_axis: Vec3::Y, world_axis: Vec3::Z }
                        } else {
                            IkTarget::approach(p, -Vec3::Z)
                        };
                        let c = match arm.solve_ik(&tgt, &arm.home, &opts) {
                            Ok(sol) => {
                                let caps = arm.capsules(&sol.q);
                                let tc = caps.iter().filter_map(|c| t.capsule_clearance(c, &[])).map(|c| c.distance).fold(9.0, f32::min);
                                if tc > 0.0 { '#' } else { 'c' }
                            }
                            Err(_) => '.',
                        };
                        line.push(c);
                    }
                    line.push('\n');
                }
                println!("{side} z={z} {mode} (rows y=+0.35..-0.35, cols x=-0.55..0.55)\n{line}");
            }
        }
        for y in [0.45f32, -0.45] {
            for z in [0.90f32, 1.0] {
                for x in [0.0f32, 0.1] {
                    let p = Vec3::new(x, y, z);
                    let a = arm.solve_ik(&IkTarget::Axis { position: p, hand_axis: Vec3::Y, world_axis: Vec3::Z }, &arm.home, &opts).is_ok();
                    let b = arm.solve_ik(&IkTarget::approach(p, Vec3::new(0.0, y.signum(), 0.0)), &arm.home, &opts).is_ok();
                    let c = arm.solve_ik(&IkTarget::Position(p), &arm.home, &opts).is_ok();
                    println!("{side} handover {p} side-free {a} towards-person {b} pos {c}");
                }
            }
        }
    }
}

#[test]
#[ignore]
fn explore_home() {
    let r = robot();
    let t = table();
    let arm = r.arm(Side::Left);
    let opts = IkOptions { restarts: 0, limit_avoidance: 0.2, max_iterations: 200, ..IkOptions::default() };
    let mut rng = Lcg::new(7);
    for p in [Vec3::new(-0.40, 0.25, 1.0), Vec3::new(-0.35, 0.20, 0.98), Vec3::new(-0.45, 0.30, 1.02), Vec3::new(-0.30, 0.25, 0.95)] {
        for dir in [Vec3::new(1.0, 0.0, -1.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, -0.5, -0.5), Vec3::new(0.0, 0.0, -1.0)] {
            let mut best: Option<(f32, Joints, f32, f32)> = None;
            for _ in 0..40 {
                let seed: Joints = std::array::from_fn(|i| rng.range(arm.lower[i].max(-3.1), arm.upper[i].min(3.1)));
                if let Ok(sol) = arm.solve_ik(&IkTarget::approach(p, dir), &seed, &opts) {
                    let caps = arm.capsules(&sol.q);
                    let tc = caps.iter().filter_map(|c| t.capsule_clearance(c, &[])).map(|c| c.distance).fold(9.0, f32::min);
                    let mut mirror = sol.q;
                    for i in [0, 2, 4, 6] { mirror[i] = -mirror[i]; }
                    let sc = r.self_clearance(&sol.q, &mirror).distance;
                    let m = arm.joint_margin(&sol.q);
                    let score = m.min(tc * 4.0).min(sc * 4.0);
                    if best.is_none_or(|b| score > b.0) {
                        best = Some((score, sol.q, tc, sc));
                    }
                }
            }
            if let Some((s, q, tc, sc)) = best {
                let deg: Vec<i32> = q.iter().map(|v| v.to_degrees().round() as i32).collect();
                println!("{p} {dir} score {s:.2} {deg:?} table {tc:.2} self {sc:.2}");
            }
        }
    }
}

#[test]
#[ignore]
fn explore_mounts() {
    let t = table();
    let opts = IkOptions::default();
    let hopts = IkOptions { restarts: 0, limit_avoidance: 0.2, max_iterations: 200, ..IkOptions::default() };
    for (name, xyz, rpy) in [
        ("fwd", [0.0, 0.16, 1.12], [0.0, 90.0, 0.0]),
        ("up", [0.1, 0.2, 0.80], [0.0, 0.0, 0.0]),
        ("up2", [0.05, 0.2, 0.85], [0.0, 0.0, 0.0]),
        ("tilt45", [0.0, 0.18, 0.95], [0.0, 45.0, 0.0]),
        ("tilt30out", [0.0, 0.18, 0.90], [-20.0, 30.0, 0.0]),
    ] {
        let mut d = description();
        d.arms.left.mount_xyz = xyz;
        d.arms.left.mount_rpy_deg = rpy;
        d.arms.right.mount_xyz = [xyz[0], -xyz[1], xyz[2]];
        d.arms.right.mount_rpy_deg = [-rpy[0], rpy[1], -rpy[2]];
        let r = Robot::new(&d, world_from_robot(-0.8, 0.0, 0.0));
        let arm = r.arm(Side::Left);
        let mut near = (0, 0);
        let mut far = 0;
        for z in [0.80f32, 0.95, 1.05] {
            for iy in 0..5 {
                let y = 0.35 - 0.175 * iy as f32;
                for ix in 0..12 {
                    let x = -0.55 + 0.1 * ix as f32;
                    let p = Vec3::new(x, y, z);
                    let tgt = IkTarget::Axis { position: p, hand_axis: Vec3::Y, world_axis: Vec3::Z };
                    let ok = match arm.solve_ik(&tgt, &arm.home, &opts) {
                        Ok(sol) => arm.capsules(&sol.q).iter().filter_map(|c| t.capsule_clearance(c, &[])).all(|c| c.distance > 0.0),
                        Err(_) => false,
                    };
                    let posok = arm.solve_ik(&IkTarget::Position(p), &arm.home, &opts).is_ok();
                    if x < 0.15 { near.1 += 1; if ok { near.0 += 1; } }
                    if x >= 0.45 && posok { far += 1; }
                }
            }
        }
        let mut ho = String::new();
        for y in [0.45f32, -0.45] {
            for p in [Vec3::new(0.0, y, 0.9), Vec3::new(0.1, y, 1.0)] {
                let a = arm.solve_ik(&IkTarget::Axis { position: p, hand_axis: Vec3::Y, world_axis: Vec3::Z }, &arm.home, &opts).is_ok();
                ho.push(if a { '#' } else { '.' });
            }
        }
        let mut rng = Lcg::new(7);
        let mut best: Option<(f32, Joints, f32, f32, Vec3)> = None;
        for p in [Vec3::new(-0.40, 0.25, 1.0), Vec3::new(-0.3, 0.22, 1.0), Vec3::new(-0.45, 0.30, 1.02), Vec3::new(-0.30, 0.25, 0.95)] {
            for dir in [Vec3::new(1.0, 0.0, -1.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, -0.5, -0.5), Vec3::new(0.0, 0.0, -1.0)] {
                for _ in 0..25 {
                    let seed: Joints = std::array::from_fn(|i| rng.range(arm.lower[i].max(-3.1), arm.upper[i].min(3.1)));
                    if let Ok(sol) = arm.solve_ik(&IkTarget::approach(p, dir), &seed, &hopts) {
                        let caps = arm.capsules(&sol.q);
                        let tc = caps.iter().filter_map(|c| t.capsule_clearance(c, &[])).map(|c| c.distance).fold(9.0, f32::min);
                        let mut mirror = sol.q;
                        for i in [0, 2, 4, 6] { mirror[i] = -mirror[i]; }
                        let sc = r.self_clearance(&sol.q, &mirror).distance;
                        let m = arm.joint_margin(&sol.q);
                        let score = m.min(tc * 4.0).min(sc * 4.0);
                        if best.is_none_or(|b| score > b.0) {
                            best = Some((score, sol.q, tc, sc, p));
                        }
                    }
                }
            }
        }
        let (s, q, tc, sc, p) = best.unwrap_or((0.0, [0.0; 7], 0.0, 0.0, Vec3::ZERO));
        let deg: Vec<i32> = q.iter().map(|v| v.to_degrees().round() as i32).collect();
        println!("{name}: near side-grasp {}/{} far-pos {far} handover(own,own,other,other) {ho} home {p} score {s:.2} {deg:?} table {tc:.2} self {sc:.2}", near.0, near.1);
    }
}
