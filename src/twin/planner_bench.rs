//! The planner benchmark: random ordinary tables from a seed (two people on
//! the long sides, a cereal box, 5–8 bottles, glasses and cups on the robot's
//! half), and every object the robot says it can reach handed to and moved to
//! every person. It counts successes, the refusal reasons, and planning times.

use std::collections::BTreeMap;

use glam::Vec2;

use super::actions::{self, ActionReport, ActionRequest};
use super::kinds::KindCatalog;
use super::kinematics::{Lcg, Motion};
use super::scene::{self, SceneError};
use super::world::{ObjectId, Placement, World};
use super::Twin;

/// Names of the two people, on the +y and the −y side of the table.
pub const PEOPLE: [&str; 2] = ["Ann", "Ben"];
/// The kinds of the small objects, drawn with these names.
const SMALL_KINDS: [(&str, &str); 3] = [("bottle", "bottle"), ("glass", "glass"), ("cup", "cup")];

/// Which composite action a case runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BenchAction {
    /// `hand_object_over_to_person`.
    HandOver,
    /// `move_object_to_person`.
    MoveTo,
}

impl BenchAction {
    /// Both, in report order.
    pub const ALL: [BenchAction; 2] = [BenchAction::HandOver, BenchAction::MoveTo];

    /// The tool's name.
    pub fn tool(self) -> &'static str {
        match self {
            BenchAction::HandOver => "hand_object_over_to_person",
            BenchAction::MoveTo => "move_object_to_person",
        }
    }
}

/// One random table, as scene TOML (so that it reads like a scene file and is validated
/// like one) from a seed.
pub fn random_table_toml(seed: u64) -> String {
    random_table_toml_with(seed, None)
}

/// [`random_table_toml`] with the robot description a scene file names (`None`: the default).
pub fn random_table_toml_with(seed: u64, robot: Option<&str>) -> String {
    let mut rng = Lcg::new(seed.wrapping_mul(0x2545_F491_4F6C_DD1D).wrapping_add(17));
    let mut text = format!(
        "name = \"random_{seed}\"\n[table]\nsize = [1.2, 0.8]\nheight = 0.75\n\
         [robot]\nname = \"the_robot\"\nposition = [-0.85, 0.0]\n"
    );
    if let Some(robot) = robot {
        text += &format!("description = {robot:?}\n");
    }
    for (name, side) in PEOPLE.iter().zip([1.0f32, -1.0]) {
        let x = rng.range(-0.35, 0.35);
        text += &format!(
            "[[person]]\nname = \"{name}\"\nposition = [{x:.3}, {:.2}]\nyaw_deg = {}\n",
            0.7 * side,
            -90.0 * side
        );
    }
    // Footprints already placed: centre and radius, to keep objects 2 cm apart.
    let mut placed: Vec<(Vec2, f32)> = Vec::new();
    let mut free = |rng: &mut Lcg, radius: f32, x: (f32, f32), y: (f32, f32)| {
        for _ in 0..200 {
            let p = Vec2::new(rng.range(x.0, x.1), rng.range(y.0, y.1));
            if placed
                .iter()
                .all(|(q, r)| q.distance(p) > r + radius + 0.02)
            {
                placed.push((p, radius));
                return Some(p);
            }
        }
        None
    };
    // The box: 7 x 20 cm footprint, anywhere on the robot's half, any yaw.
    if let Some(p) = free(&mut rng, 0.106, (-0.45, 0.1), (-0.25, 0.25)) {
        let yaw = rng.range(0.0, 180.0);
        text += &format!(
            "[[object]]\nname = \"box\"\nkind = \"box\"\nposition = [{:.3}, {:.3}]\nyaw_deg = {yaw:.0}\n",
            p.x, p.y
        );
    }
    let count = 5 + (rng.next_f32() * 4.0) as usize;
    let mut numbers: BTreeMap<&str, usize> = BTreeMap::new();
    for _ in 0..count.min(8) {
        let (kind, word) = SMALL_KINDS[(rng.next_f32() * 3.0) as usize % 3];
        let radius = if kind == "cup" { 0.04 } else { 0.035 };
        let Some(p) = free(&mut rng, radius, (-0.52, 0.1), (-0.34, 0.34)) else {
            continue;
        };
        let n = numbers.entry(word).or_insert(0);
        *n += 1;
        text += &format!(
            "[[object]]\nname = \"{word}_{n}\"\nkind = \"{kind}\"\nposition = [{:.3}, {:.3}]\n",
            p.x, p.y
        );
    }
    text
}

/// One random table as a world.
pub fn random_table(seed: u64, kinds: &KindCatalog) -> Result<World, SceneError> {
    scene::from_toml_str(&random_table_toml(seed), kinds)
}

/// The outcome of one action on one table.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// Table seed.
    pub table: u64,
    /// Which action.
    pub action: BenchAction,
    /// The object's name.
    pub object: String,
    /// The person's name.
    pub person: String,
    /// The action's report.
    pub report: ActionReport,
    /// Planning time (ms), from the report's facts.
    pub planning_ms: f64,
    /// The motions of the executed plan (empty when refused).
    pub motions: Vec<Motion>,
}

/// Objects on the table that the robot says it can reach (`check_reach_object_for_robot`).
pub fn reachable_objects(twin: &Twin) -> Vec<ObjectId> {
    twin.world
        .object_ids()
        .filter(|&id| matches!(twin.world.object(id).placement, Placement::OnTable { .. }))
        .filter(|&id| twin.world.object(id).graspable())
        .filter(|&id| {
            actions::arms_reaching(twin, id)
                .iter()
                .any(|(_, ok, _)| *ok)
        })
        .collect()
}

/// Runs every case of one world: each reachable object to each person, both actions,
/// each from the world as loaded.
pub fn run_world(table: u64, world: &World) -> Vec<CaseResult> {
    let base = Twin::from_world(world.clone());
    let objects = reachable_objects(&base);
    let mut out = Vec::new();
    for object in objects {
        for person in world.person_ids() {
            for action in BenchAction::ALL {
                let request = match action {
                    BenchAction::HandOver => ActionRequest::HandOver { object, person },
                    BenchAction::MoveTo => ActionRequest::MoveTo { object, person },
                };
                let mut twin = base.clone();
                let mut motions = Vec::new();
                let report = actions::execute_recording(&mut twin, request, &mut motions);
                let planning_ms = report.facts["planning_ms"].as_f64().unwrap_or(0.0);
                out.push(CaseResult {
                    table,
                    action,
                    object: world.object(object).name.clone(),
                    person: world.person(person).name.clone(),
                    report,
                    planning_ms,
                    motions,
                });
            }
        }
    }
    out
}

/// The reason of a refusal with the case's own object and person replaced, so that
/// equal reasons count together ("every way would hit box").
pub fn reason_key(case: &CaseResult) -> String {
    let text = case.report.text.trim_end_matches('.');
    let tail = match text.rsplit_once(": ") {
        Some((_, tail)) => tail,
        None => text,
    };
    tail.replace(&case.object, "<object>")
        .replace(&case.person, "<person>")
}

/// Success rate, reasons and planning times of one action over all cases.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ActionSummary {
    /// Cases run.
    pub cases: usize,
    /// Cases that succeeded.
    pub succeeded: usize,
    /// Of those, cases done but ended away from home (no way back was found).
    pub stayed: usize,
    /// Refusal reasons and how often.
    pub reasons: BTreeMap<String, usize>,
    /// Planning time percentiles (ms): median, 95th, max.
    pub planning_ms: [f64; 3],
}

impl ActionSummary {
    /// Success rate in percent.
    pub fn rate(&self) -> f64 {
        if self.cases == 0 {
            return 0.0;
        }
        100.0 * self.succeeded as f64 / self.cases as f64
    }
}

/// The value below which `q` of the sorted times lie (nearest rank).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Summaries per action, and over all actions (key `None`).
pub fn summarise(cases: &[CaseResult], action: Option<BenchAction>) -> ActionSummary {
    let mut s = ActionSummary::default();
    let mut times = Vec::new();
    for c in cases
        .iter()
        .filter(|c| action.is_none_or(|a| c.action == a))
    {
        s.cases += 1;
        times.push(c.planning_ms);
        if c.report.ok {
            s.succeeded += 1;
            s.stayed += usize::from(c.report.facts["stays"].as_bool() == Some(true));
        } else {
            *s.reasons.entry(reason_key(c)).or_insert(0) += 1;
        }
    }
    times.sort_by(f64::total_cmp);
    s.planning_ms = [
        percentile(&times, 0.5),
        percentile(&times, 0.95),
        times.last().copied().unwrap_or(0.0),
    ];
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_tables_are_valid_scenes_and_differ_by_seed() {
        let kinds = KindCatalog::load_shipped().expect("kinds");
        let a = random_table(1, &kinds).expect("table 1 is a valid scene");
        let b = random_table(2, &kinds).expect("table 2 is a valid scene");
        assert!(scene::table_problems(&a).is_empty());
        assert!(a.object_named("box").is_some());
        let small = a.objects().len() - 1;
        assert!((5..=8).contains(&small), "{small} small objects");
        assert_ne!(random_table_toml(1), random_table_toml(2));
        assert_eq!(random_table_toml(1), random_table_toml(1));
        assert_eq!(b.persons().len(), 2);
    }

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let t = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&t, 0.5), 2.0);
        assert_eq!(percentile(&t, 0.95), 4.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
