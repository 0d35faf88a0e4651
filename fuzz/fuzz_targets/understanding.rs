//! Arbitrary UTF-8 through the turn parser and the understanding stage: no
//! panic, no hang. Run: `RUSTC_BOOTSTRAP=1 cargo fuzz run understanding -- -runs=1000000`
//! (from the repository root; README "Understanding").
#![no_main]

use std::sync::OnceLock;

use attentive::agent::Turn;
use attentive::twin::{scene, World};
use attentive::understanding::{Understanding, Utterance};
use libfuzzer_sys::fuzz_target;

fn setup() -> &'static (World, Understanding) {
    static SETUP: OnceLock<(World, Understanding)> = OnceLock::new();
    SETUP.get_or_init(|| {
        let world = scene::load("softdrinks").expect("the shipped scene loads");
        let stage = attentive::language::Language::english().expect("the shipped sentences load").understanding().clone();
        (world, stage)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (world, stage) = setup();
    // The text as a whole line (the parser), and as what someone said.
    if let Ok(turn) = Turn::parse(text) {
        let _ = stage.read(world, &turn.utterance());
    }
    let middle = (text.len() / 2..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    let (first, second) = text.split_at(middle);
    let earlier = [Utterance {
        speaker: "Felix",
        listener: "Daniel",
        text: first,
    }];
    let _ = stage.read_in_dialogue(
        world,
        &earlier,
        &Utterance {
            speaker: "Daniel",
            listener: "the_robot",
            text: second,
        },
    );
});
