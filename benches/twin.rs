//! Benchmarks of the twin's human queries.
//!
//! `cargo bench --bench twin -- check_hindering_reasons` measures one
//! `check_hindering_reasons` call (busy + sight + reach, as the tool runs it)
//! on a 20-object scene. Target: under 50 µs per call on one core.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;

use attentive::agent::tools;
use attentive::twin::kinds::KindCatalog;
use attentive::twin::scene;

/// The softdrinks table with 13 more bottles, glasses and cups: 20 objects.
fn twenty_object_scene() -> attentive::twin::World {
    let mut text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/softdrinks.toml"),
    )
    .expect("shipped scene");
    let kinds = ["bottle", "glass", "cup"];
    // Three rows in the free half of the table, 0.1 m apart (objects are at most 0.08 m wide).
    let spots = [0.0f32, -0.13, 0.15]
        .iter()
        .flat_map(|&y| (0..6).map(move |i| (0.1 * i as f32, y)));
    for (n, (x, y)) in spots.take(13).enumerate() {
        text.push_str(&format!(
            "[[object]]\nname = \"extra_{n}\"\nkind = \"{}\"\nposition = [{x:.3}, {y}]\n",
            kinds[n % 3]
        ));
    }
    let catalog =
        KindCatalog::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/kinds.toml"))
            .expect("kinds");
    let world = scene::from_toml_str(&text, &catalog).expect("20-object scene is valid");
    assert_eq!(world.objects().len(), 20);
    world
}

fn hindrance(c: &mut Criterion) {
    let world = twenty_object_scene();
    let args = json!({"person_name": "Felix", "object_name": "cola_zero_bottle"});
    c.bench_function("check_hindering_reasons (20 objects)", |b| {
        b.iter(|| {
            tools::call_query(
                black_box(&world),
                "check_hindering_reasons",
                black_box(&args),
            )
        })
    });
    let felix = world.person_named("Felix").expect("Felix");
    let target = world.object_named("cola_zero_bottle").expect("cola zero");
    c.bench_function("hindrance::check only (20 objects)", |b| {
        b.iter(|| attentive::twin::hindrance::check(black_box(&world), felix, Some(target)))
    });
}

criterion_group!(benches, hindrance);
criterion_main!(benches);
