//! Planning `hand_object_over_to_person` (red_glass to Felix) on softdrinks,
//! every variant simulated and ranked.

use criterion::{criterion_group, criterion_main, Criterion};

use attentive::twin::actions::{plan, ActionRequest};
use attentive::twin::Twin;

fn hand_over(c: &mut Criterion) {
    let Ok(twin) = Twin::load("softdrinks") else {
        eprintln!("softdrinks scene not found; run from the crate root");
        return;
    };
    let (Some(object), Some(person)) = (
        twin.world.object_named("red_glass"),
        twin.world.person_named("Felix"),
    ) else {
        return;
    };
    let request = ActionRequest::HandOver { object, person };
    if let Ok((outcome, ms)) = plan(&twin, request) {
        eprintln!(
            "hand-over plan: {} variants tried, {} feasible, {ms:.1} ms, {:.2} ms per variant",
            outcome.tried,
            outcome.feasible,
            ms / outcome.tried.max(1) as f64
        );
    }
    c.bench_function("plan hand_object_over_to_person red_glass Felix", |b| {
        b.iter(|| plan(&twin, request).map(|(o, _)| o.tried))
    });
}

criterion_group!(benches, hand_over);
criterion_main!(benches);
