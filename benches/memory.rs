//! Memory's read path as the store grows: the block about the people present
//! and `recall` for one person, with 10, 100 and 1000 facts stored about other
//! people. The block's size (tokens estimated as characters / 4) is printed:
//! it holds only the people present, so it should not grow.
//! Run: `cargo bench --bench memory`.

use criterion::{criterion_group, criterion_main, Criterion};

use attentive::memory::{block, recall, NewFact, Store, Visibility};

fn filled(others: usize) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("folder");
    let mut store = Store::open(&dir.path().join("memory.db")).expect("store");
    let fact = |person: String, topic: &str, text: String, at: i64| NewFact {
        said_by: person.clone(),
        person,
        topic: topic.into(),
        text,
        said_to: "the_robot".into(),
        visibility: Visibility::OnlyForActing,
        at,
    };
    for i in 0..others {
        let text = format!("I like drink number {i} with {} ice cubes", i % 7);
        store
            .remember(&fact(
                format!("Guest{}", i / 3),
                ["drink", "food", "note"][i % 3],
                text,
                i as i64,
            ))
            .expect("remember");
    }
    for (topic, text) in [
        ("drink", "I only drink sugar-free"),
        ("allergy", "I am allergic to peanuts"),
        ("cup", "I prefer the large cup"),
    ] {
        store
            .remember(&fact("Daniel".into(), topic, text.into(), 1_790_000_000))
            .expect("remember");
    }
    (dir, store)
}

fn bench(c: &mut Criterion) {
    let present = vec!["Felix".to_string(), "Daniel".to_string()];
    for others in [10, 100, 1000] {
        let (_dir, store) = filled(others);
        let text = block::people_block(&store, &present, 3)
            .expect("block")
            .unwrap_or_default();
        println!(
            "memory: {others} facts about others -> block {} characters, ~{} tokens",
            text.len(),
            text.len().div_ceil(4)
        );
        c.bench_function(&format!("memory_block_{others}_others"), |b| {
            b.iter(|| block::people_block(&store, &present, 3).expect("block"))
        });
        c.bench_function(&format!("memory_recall_{others}_others"), |b| {
            b.iter(|| {
                recall::recall(&store, "drink", Some("Daniel"), Some("Daniel"), false)
                    .expect("recall")
            })
        });
        c.bench_function(&format!("memory_recall_anyone_{others}_others"), |b| {
            b.iter(|| {
                recall::recall(&store, "drink ice", None, Some("Felix"), false).expect("recall")
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
