//! A robot pair on the shipped scenes' variants for it: every object it reaches goes to
//! both people or is refused in one sentence, and every planned sample is within limits.

use attentive::twin::kinematics::Side;
use attentive::twin::planner_bench::run_world;
use attentive::twin::Twin;

/// Runs every case of each scene; returns (succeeded, cases). `dof` joints per arm, at
/// least `min_cases` cases per scene.
pub fn plan_on_variants(scenes: &[&str], dof: usize, min_cases: usize) -> (usize, usize) {
    let (mut cases, mut ok) = (0, 0);
    for scene in scenes {
        let twin = Twin::load(scene).expect("shipped variant");
        let robot = twin.robot.as_ref().expect("the pair loads");
        assert_eq!(robot.arm(Side::Left).dof(), dof, "{scene}");
        let results = run_world(0, &twin.world);
        assert!(
            results.len() >= min_cases,
            "{scene}: only {} cases",
            results.len()
        );
        for c in &results {
            cases += 1;
            if !c.report.ok {
                println!(
                    "{scene} {:?} {} -> {}: {}",
                    c.action, c.object, c.person, c.report.text
                );
                assert!(c.report.text.ends_with('.'), "{}", c.report.text);
                continue;
            }
            ok += 1;
            assert!(!c.motions.is_empty());
            for m in &c.motions {
                for s in &m.samples {
                    assert_eq!(s.q.len(), dof);
                    assert!(robot.arm(m.side).limit_violation(&s.q, 1e-4).is_none());
                }
            }
        }
    }
    (ok, cases)
}
