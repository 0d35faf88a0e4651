//! The table seen from above, as the page draws it: everything in world
//! metres (x away from the robot, y to its left), projected onto the floor.

use serde_json::{json, Value};

use crate::twin::kinds::ShapeTemplate;
use crate::twin::kinematics::Side;
use crate::twin::world::Placement;
use crate::twin::Twin;

fn xy(v: glam::Vec3) -> [f32; 2] {
    [round(v.x), round(v.y)]
}

fn round(v: f32) -> f32 {
    (v * 1000.0).round() / 1000.0
}

/// The layout of `GET /api/scene`: table, people (reach, gaze), objects
/// (shape, holder, contents) and the robot (base, both arms from the joints).
pub fn layout(twin: &Twin) -> Value {
    let world = &twin.world;
    let persons: Vec<Value> = world
        .person_ids()
        .map(|id| {
            let p = world.person(id);
            let shoulders = p.shoulders();
            json!({
                "name": p.name,
                "position": [round(p.position.x), round(p.position.y)],
                "yaw_deg": round(p.yaw.to_degrees()),
                "eyes": [round(p.eyes().x), round(p.eyes().y), round(p.eyes().z)],
                "shoulders": [xy(shoulders[0]), xy(shoulders[1])],
                "reach": round(p.body.arm_reach),
                "busy": world.is_busy(id),
                "holding": world.held_by(id).into_iter().map(|(o, _)| world.object(o).name.clone()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let objects: Vec<Value> = world
        .object_ids()
        .map(|id| {
            let o = world.object(id);
            let base = world.object_base(id);
            let shape = match o.shape() {
                ShapeTemplate::Cylinder { radius, height } => {
                    json!({"type": "cylinder", "radius": round(radius), "height": round(height)})
                }
                ShapeTemplate::Box { size } => {
                    json!({"type": "box", "size": [round(size.x), round(size.y), round(size.z)]})
                }
            };
            let held_by = match o.placement {
                Placement::HeldBy { person, .. } => Some(world.person(person).name.clone()),
                Placement::InGripper { .. } => Some(world.robot.name.clone()),
                Placement::OnTable { .. } => None,
            };
            json!({
                "name": o.name,
                "kind": o.kind.name,
                "position": [round(base.x), round(base.y), round(base.z)],
                "yaw_deg": round(world.object_yaw(id).to_degrees()),
                "shape": shape,
                "held_by": held_by,
                "contains": o.contents(),
                "graspable": o.graspable(),
            })
        })
        .collect();
    let arms: Vec<Value> = match &twin.robot {
        Ok(robot) => Side::BOTH
            .iter()
            .map(|&side| {
                let q = twin.joints[side as usize];
                let frames = robot.arm(side).link_frames(&q);
                let points: Vec<[f32; 2]> = frames
                    .all()
                    .iter()
                    .map(|f| xy(glam::Vec3::from(f.translation)))
                    .collect();
                let points3: Vec<[f32; 3]> = frames
                    .all()
                    .iter()
                    .map(|f| {
                        let v = glam::Vec3::from(f.translation);
                        [round(v.x), round(v.y), round(v.z)]
                    })
                    .collect();
                json!({"side": side.name(), "points": points, "points3": points3})
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    json!({
        "name": world.name,
        "table": {"size": [round(world.table.size.x), round(world.table.size.y)], "height": round(world.table.height)},
        "robot": {
            "name": world.robot.name,
            "position": [round(world.robot.position.x), round(world.robot.position.y)],
            "yaw_deg": round(world.robot.yaw.to_degrees()),
            "arms": arms,
        },
        "persons": persons,
        "objects": objects,
    })
}
