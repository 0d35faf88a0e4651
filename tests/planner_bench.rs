//! Every trajectory the planner benchmark produces stays within the joint limits and
//! keeps the configured clearances at every sample (on a few random tables), and every
//! object the robot reaches in the shipped scenes goes to both people.

use attentive::twin::actions::simulate::motion_options;
use attentive::twin::kinds::KindCatalog;
use attentive::twin::planner_bench::{random_table, run_world};
use attentive::twin::Twin;

#[test]
fn every_sample_of_every_benchmark_trajectory_is_within_limits_and_clear() {
    let kinds = KindCatalog::load_shipped().expect("kinds");
    let options = motion_options();
    let (min, min_self) = (options.min_clearance, options.min_self_clearance);
    let mut motions = 0;
    for seed in [3, 5] {
        let world = random_table(seed, &kinds).expect("valid table");
        let twin = Twin::from_world(world.clone());
        let robot = twin.robot.as_ref().expect("robot");
        let cases = run_world(seed, &world);
        assert!(!cases.is_empty());
        for c in &cases {
            if !c.report.ok {
                // A refusal is one sentence.
                assert!(c.report.text.ends_with('.'), "{}", c.report.text);
            }
            for m in &c.motions {
                motions += 1;
                let arm = robot.arm(m.side);
                assert!(
                    m.min_clearance >= min,
                    "table {seed} {} {}: {} m to {:?}",
                    c.object,
                    c.person,
                    m.min_clearance,
                    m.nearest_obstacle
                );
                assert!(
                    m.min_self_clearance >= min_self,
                    "table {seed} {} {}: the arms come {} m close",
                    c.object,
                    c.person,
                    m.min_self_clearance
                );
                for s in &m.samples {
                    assert!(arm.limit_violation(&s.q, 1e-4).is_none());
                }
            }
        }
    }
    assert!(motions > 0);
}

#[test]
fn every_object_the_robot_reaches_in_the_shipped_scenes_goes_to_both_people() {
    for scene in ["softdrinks", "coffee", "dinner"] {
        let twin = Twin::load(scene).expect("shipped scene");
        let cases = run_world(0, &twin.world);
        // Two actions to each of two people for at least four objects: not a vacuous pass.
        assert!(cases.len() >= 16, "{scene}: {} cases", cases.len());
        let refused: Vec<String> = cases
            .iter()
            .filter(|c| !c.report.ok)
            .map(|c| {
                format!(
                    "{:?} {} -> {}: {}",
                    c.action, c.object, c.person, c.report.text
                )
            })
            .collect();
        assert!(refused.is_empty(), "{scene}: {refused:#?}");
    }
}
