//! The understanding stage: reading one turn on a 20-object table (target < 1 ms).
//!
//! `cargo bench --bench understanding` — a request, a question, a statement
//! and a turn nothing matches (the slowest: every template is tried), each
//! with two earlier turns as its dialogue.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};

use attentive::twin::{scene, World};
use attentive::understanding::Utterance;

/// Kinds, contents and words of the twenty objects, laid out on a grid.
const OBJECTS: [(&str, &str, &str, &str); 20] = [
    ("cola_bottle", "bottle", "cola", "cola coke sugary drink"),
    (
        "cola_zero_bottle",
        "bottle",
        "cola zero",
        "cola coke zero sugar-free drink",
    ),
    (
        "fanta_bottle",
        "bottle",
        "fanta",
        "fanta orange sugary drink",
    ),
    (
        "sprite_bottle",
        "bottle",
        "sprite",
        "sprite lemon sugary drink",
    ),
    ("water_bottle", "bottle", "water", "water still drink"),
    ("juice_bottle", "bottle", "apple juice", "apple juice drink"),
    ("beer_bottle", "bottle", "beer", "beer alcoholic drink"),
    (
        "wine_bottle",
        "bottle",
        "red wine",
        "wine red alcoholic drink",
    ),
    ("milk_bottle", "bottle", "milk", "milk dairy"),
    ("coffee_pot", "coffee_pot", "coffee", "coffee hot drink"),
    ("red_glass", "glass", "", "red"),
    ("blue_glass", "glass", "", "blue"),
    ("green_glass", "glass", "", "green"),
    ("tall_glass", "glass", "", "tall large"),
    ("wine_glass", "wine_glass", "", "wine"),
    ("large_cup", "cup", "", "large big"),
    ("small_cup", "cup", "", "small little"),
    ("white_mug", "cup", "", "white"),
    ("box", "box", "", "cereal cereals"),
    ("smartphone", "smartphone", "", "iphone mobile"),
];

fn twenty_objects() -> World {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut text = format!(
        "name = \"twenty\"\nkinds = \"{}\"\n[table]\nsize = [1.6, 1.0]\nheight = 0.75\n[robot]\nname = \"the_robot\"\nposition = [-1.05, 0.0]\n\
         [[person]]\nname = \"Felix\"\nposition = [0.0, 0.9]\nyaw_deg = -90\n[[person]]\nname = \"Daniel\"\nposition = [0.0, -0.9]\nyaw_deg = 90\n",
        root.join("scenes/kinds.toml").display()
    );
    for (i, (name, kind, contains, words)) in OBJECTS.iter().enumerate() {
        let (x, y) = (-0.6 + 0.25 * (i % 5) as f32, -0.36 + 0.24 * (i / 5) as f32);
        let words: Vec<String> = words.split(' ').map(|w| format!("\"{w}\"")).collect();
        text.push_str(&format!(
            "[[object]]\nname = \"{name}\"\nkind = \"{kind}\"\nposition = [{x:.2}, {y:.2}]\n{}properties = [{}]\n",
            if contains.is_empty() { String::new() } else { format!("contains = \"{contains}\"\n") },
            words.join(", ")
        ));
    }
    let path = std::env::temp_dir().join(format!(
        "attentive-bench-twenty-{}.toml",
        std::process::id()
    ));
    std::fs::write(&path, text).expect("write the bench scene");
    let world = scene::load_file(&path).expect("the bench scene loads");
    let _ = std::fs::remove_file(&path);
    assert_eq!(world.objects().len(), 20);
    world
}

fn bench(c: &mut Criterion) {
    let world = twenty_objects();
    let stage = attentive::language::Language::english()
        .expect("shipped sentences")
        .understanding()
        .clone();
    let earlier = [
        Utterance {
            speaker: "Felix",
            listener: "Daniel",
            text: "Hey Daniel, what do we have to drink?",
        },
        Utterance {
            speaker: "Daniel",
            listener: "Felix",
            text: "We have cola, sprite and some juice.",
        },
    ];
    for (name, speaker, listener, text) in [
        (
            "request",
            "Felix",
            "Daniel",
            "Daniel, could you uh pass me the sugar free coke please?",
        ),
        (
            "question",
            "Felix",
            "the_robot",
            "Is there anything without alcohol?",
        ),
        (
            "statement",
            "Daniel",
            "Felix",
            "We only have cola, fanta and beer.",
        ),
        (
            "not_understood",
            "Felix",
            "the_robot",
            "What do you think about the match yesterday evening?",
        ),
    ] {
        let turn = Utterance {
            speaker,
            listener,
            text,
        };
        c.bench_function(&format!("understand {name} (20 objects)"), |b| {
            b.iter(|| black_box(stage.read_in_dialogue(&world, &earlier, &turn)))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
