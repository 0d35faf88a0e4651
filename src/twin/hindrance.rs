//! What hinders a person: whether they see an object, reach it, or are busy.
//! These three facts are what `check_hindering_reasons` reports.

use glam::Vec3;
use parry3d::query::Ray;

use super::geometry::{grasp_slice, object_solid};
use super::world::{ObjectId, PersonId, World};

/// Rays ending this close to the target's end are not blocked by what lies behind it.
const RAY_END_MARGIN: f32 = 1e-4;
/// Reach is compared with this tolerance so that "exactly at arm's length" counts.
const REACH_TOLERANCE: f32 = 1e-5;

/// Whether a person sees an object, and what is in the way.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Sight {
    /// At least one of the sight lines (to the centre, to the top centre) is clear.
    pub visible: bool,
    /// Objects blocking every sight line, nearest to the eyes first (empty when visible).
    pub occluded_by: Vec<ObjectId>,
    /// Objects blocking some but not all sight lines, nearest first.
    pub partially_occluded_by: Vec<ObjectId>,
}

/// Whether a person reaches an object, and by how much.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    /// The grasp region lies within arm reach of a shoulder.
    pub reachable: bool,
    /// Shortest distance from a shoulder to the grasp region, metres.
    pub distance: f32,
    /// The person's arm reach, metres.
    pub arm_reach: f32,
    /// The object is in someone else's hand (then it is not reachable).
    pub held_by_other: bool,
}

/// All hindrances of a person, with an optional object.
#[derive(Debug, Clone, PartialEq)]
pub struct Hindrances {
    /// The person is busy (holding something, or flagged busy).
    pub busy: bool,
    /// What the person holds.
    pub holding: Vec<ObjectId>,
    /// Sight of the object, if one was asked about.
    pub sight: Option<Sight>,
    /// Reach of the object, if one was asked about.
    pub reach: Option<Reach>,
}

impl Hindrances {
    /// Whether anything hinders the person.
    pub fn hindered(&self) -> bool {
        self.busy
            || self.sight.as_ref().is_some_and(|s| !s.visible)
            || self.reach.as_ref().is_some_and(|r| !r.reachable)
    }
}

/// Whether `person` sees `object`: a sight line from the eyes to the object's
/// centre or top centre that no other object blocks (the viewer's own held
/// objects excepted).
pub fn sees(world: &World, person: PersonId, object: ObjectId) -> Sight {
    let eyes = world.person(person).eyes();
    if world.holder(object) == Some(person) {
        return Sight {
            visible: true,
            ..Sight::default()
        };
    }
    let targets = [world.object_centre(object), world.object_top(object)];
    // Per sight line: the blockers with their time of impact.
    let mut blocked_lines: Vec<Vec<(f32, ObjectId)>> = Vec::with_capacity(targets.len());
    for target in targets {
        blocked_lines.push(blockers(world, person, object, eyes, target));
    }
    let visible = blocked_lines.iter().any(Vec::is_empty);
    let mut first_hits: Vec<(f32, ObjectId)> = Vec::new();
    for (toi, id) in blocked_lines.iter().flatten() {
        match first_hits.iter_mut().find(|(_, other)| other == id) {
            Some(entry) => entry.0 = entry.0.min(*toi),
            None => first_hits.push((*toi, *id)),
        }
    }
    first_hits.sort_by(|a, b| a.0.total_cmp(&b.0));
    let ordered: Vec<ObjectId> = first_hits.into_iter().map(|(_, id)| id).collect();
    if visible {
        Sight {
            visible,
            occluded_by: Vec::new(),
            partially_occluded_by: ordered,
        }
    } else {
        Sight {
            visible,
            occluded_by: ordered,
            partially_occluded_by: Vec::new(),
        }
    }
}

/// Objects on the segment from `eyes` to `target`, with their time of impact in [0, 1].
fn blockers(
    world: &World,
    viewer: PersonId,
    target_object: ObjectId,
    eyes: Vec3,
    target: Vec3,
) -> Vec<(f32, ObjectId)> {
    let ray = Ray::new(eyes, target - eyes);
    world
        .object_ids()
        .filter(|&id| id != target_object && world.holder(id) != Some(viewer))
        .filter_map(|id| {
            object_solid(world, id)
                .cast(&ray, 1.0 - RAY_END_MARGIN)
                .map(|toi| (toi, id))
        })
        .collect()
}

/// Whether `person` reaches `object`: its grasp region lies within arm reach of a shoulder.
pub fn reaches(world: &World, person: PersonId, object: ObjectId) -> Reach {
    let p = world.person(person);
    let arm_reach = p.body.arm_reach;
    match world.holder(object) {
        Some(holder) if holder == person => Reach {
            reachable: true,
            distance: 0.0,
            arm_reach,
            held_by_other: false,
        },
        Some(_) => Reach {
            reachable: false,
            distance: f32::INFINITY,
            arm_reach,
            held_by_other: true,
        },
        None => {
            let slice = grasp_slice(world, object);
            let distance = p
                .shoulders()
                .into_iter()
                .map(|shoulder| slice.distance_to_point(shoulder))
                .fold(f32::INFINITY, f32::min);
            Reach {
                reachable: distance <= arm_reach + REACH_TOLERANCE,
                distance,
                arm_reach,
                held_by_other: false,
            }
        }
    }
}

/// Busy, sight and reach of a person, for an object if given.
/// Holding only the very object asked about is no hindrance for it ("put the
/// phone away" to the one holding it).
pub fn check(world: &World, person: PersonId, object: Option<ObjectId>) -> Hindrances {
    let holding: Vec<ObjectId> = world
        .held_by(person)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let holds_only_it = object.is_some_and(|o| holding == [o]);
    let busy = world.person(person).busy_flag || (!holding.is_empty() && !holds_only_it);
    Hindrances {
        busy,
        holding: if holds_only_it { Vec::new() } else { holding },
        sight: object.map(|o| sees(world, person, o)),
        reach: object.map(|o| reaches(world, person, o)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twin::kinds::KindCatalog;
    use crate::twin::scene;

    fn kinds() -> KindCatalog {
        KindCatalog::load_shipped().expect("shipped kinds")
    }

    /// One viewer at (0, -0.7) facing +y, eyes at 1.2 m, a bottle at (0, 0.1) and
    /// a box between them whose top lies at `box_top` metres above the floor.
    fn scene_with_box(box_x: f32, box_height: f32, extra: &str) -> World {
        let text = format!(
            r#"
name = "t"
[table]
size = [1.2, 0.8]
height = 0.75
[robot]
name = "the_robot"
position = [-0.85, 0.0]
[[person]]
name = "Daniel"
position = [0.0, -0.7]
yaw_deg = 90
[[object]]
name = "bottle"
kind = "bottle"
position = [0.0, 0.1]
[[object]]
name = "box"
kind = "box"
position = [{box_x}, -0.1]
size = [0.2, 0.07, {box_height}]
{extra}
"#
        );
        scene::from_toml_str(&text, &kinds()).expect("test scene")
    }

    fn ids(world: &World) -> (PersonId, ObjectId, ObjectId) {
        (
            world.person_named("Daniel").expect("Daniel"),
            world.object_named("bottle").expect("bottle"),
            world.object_named("box").expect("box"),
        )
    }

    #[test]
    fn a_tall_box_in_line_hides_the_object_fully() {
        let world = scene_with_box(0.0, 0.40, "");
        let (daniel, bottle, the_box) = ids(&world);
        let sight = sees(&world, daniel, bottle);
        assert!(!sight.visible);
        assert_eq!(sight.occluded_by, vec![the_box]);
    }

    #[test]
    fn a_low_box_hides_the_centre_but_not_the_top() {
        // Sight line to the centre (z 0.88) passes the box at about z 0.95, the
        // one to the top (z 1.01) at about 1.03: a box top at 1.0 blocks only the first.
        let world = scene_with_box(0.0, 0.25, "");
        let (daniel, bottle, the_box) = ids(&world);
        let sight = sees(&world, daniel, bottle);
        assert!(sight.visible);
        assert!(sight.occluded_by.is_empty());
        assert_eq!(sight.partially_occluded_by, vec![the_box]);
    }

    #[test]
    fn grazing_rays_pass_a_millimetre_above_and_stop_a_millimetre_inside() {
        // The top sight line runs from (0,-0.7,1.2) down to (0,0.1,1.01); it is
        // lowest over the box at the box's far face (y = -0.065): z = 1.2 - 0.19 * 0.635/0.8.
        let z_at_face = 1.2 - 0.19 * (0.635 / 0.8);
        let box_height = |top: f32| top - 0.75;
        // Only the top line matters: the centre line is lower and is blocked in both.
        let above = scene_with_box(0.0, box_height(z_at_face - 0.001), "");
        let (daniel, bottle, _) = ids(&above);
        assert!(
            sees(&above, daniel, bottle).visible,
            "1 mm below the line: still visible"
        );
        let inside = scene_with_box(0.0, box_height(z_at_face + 0.001), "");
        assert!(
            !sees(&inside, daniel, bottle).visible,
            "1 mm above the line: hidden"
        );
    }

    #[test]
    fn a_box_beside_the_line_hides_nothing() {
        let world = scene_with_box(0.3, 0.40, "");
        let (daniel, bottle, _) = ids(&world);
        let sight = sees(&world, daniel, bottle);
        assert!(sight.visible && sight.partially_occluded_by.is_empty());
    }

    #[test]
    fn occluders_are_ordered_from_the_eyes_outward() {
        let world = scene_with_box(
            0.0,
            0.40,
            "[[object]]\nname = \"far_box\"\nkind = \"box\"\nposition = [0.0, 0.02]\nsize = [0.2, 0.05, 0.4]\n",
        );
        let (daniel, bottle, near) = ids(&world);
        let far = world.object_named("far_box").expect("far box");
        assert_eq!(sees(&world, daniel, bottle).occluded_by, vec![near, far]);
    }

    #[test]
    fn the_viewers_own_held_object_does_not_hide_anything() {
        // A glass held by Daniel stands right in his sight line.
        let base = scene_with_box(
            0.4,
            0.40,
            "[[object]]\nname = \"cup\"\nkind = \"cup\"\nheld_by = \"Daniel\"\nheight = 0.5\n",
        );
        let (daniel, bottle, _) = ids(&base);
        assert!(sees(&base, daniel, bottle).visible);
    }

    #[test]
    fn reach_is_inclusive_at_exactly_arm_length() {
        let mut world = scene_with_box(0.4, 0.40, "");
        let (daniel, bottle, _) = ids(&world);
        let reach = reaches(&world, daniel, bottle);
        // Move the bottle so that its grasp region is exactly arm_reach from the
        // nearest shoulder: along y, shoulders are at y = -0.7.
        // The nearest point of the grasp region is the top of its slice.
        let grasp_z = 0.75
            + world.object(bottle).kind.grasp_height
            + crate::twin::geometry::GRASP_SLICE_HALF_HEIGHT;
        let dz = 1.05 - grasp_z;
        let radius = 0.035;
        let horizontal = (0.65f32 * 0.65 - dz * dz).sqrt();
        let exact_y = -0.7 + horizontal + radius;
        for (offset, expected) in [(-0.001, true), (0.0, true), (0.001, false)] {
            // The shoulders are at x = ±0.2; place the bottle in front of one.
            world.place_on_table(bottle, glam::Vec2::new(0.2, exact_y + offset));
            let r = reaches(&world, daniel, bottle);
            assert_eq!(
                r.reachable, expected,
                "offset {offset}: distance {}",
                r.distance
            );
        }
        assert!(reach.distance.is_finite());
    }

    #[test]
    fn holding_the_object_asked_about_is_no_hindrance_for_it() {
        let mut world = scene_with_box(0.4, 0.40, "");
        let (daniel, bottle, _) = ids(&world);
        world.make_busy_with(daniel, bottle).expect("a free hand");
        assert!(!check(&world, daniel, Some(bottle)).busy);
        assert!(check(&world, daniel, None).busy);
    }

    #[test]
    fn busy_means_holding_something() {
        let mut world = scene_with_box(
            0.4,
            0.40,
            "[[object]]\nname = \"phone\"\nkind = \"smartphone\"\nposition = [0.3, 0.3]\n",
        );
        let (daniel, _, _) = ids(&world);
        assert!(!world.is_busy(daniel));
        let phone = world.object_named("phone").expect("phone");
        world.make_busy_with(daniel, phone).expect("free hand");
        let found = check(&world, daniel, None);
        assert!(found.busy);
        assert_eq!(found.holding, vec![phone]);
        world.free_person(daniel);
        assert!(!world.is_busy(daniel));
    }
}
