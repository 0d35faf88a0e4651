//! Arbitrary transcripts on arbitrary tables through the correction of what
//! was heard (and the misheard-name repair of the front end): no panic, no
//! hang, and never a correction toward a word the table lacks (or, where a
//! request's verb goes, a verb the sentences lack; a name of several words
//! is of the table's words); with a second hearing after `\x01`, choosing
//! between the two does not panic. Run:
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run hearing -- -runs=200000` (repository root).
#![no_main]

use std::sync::OnceLock;

use attentive::frontend::listener::restore_vocative;
use attentive::twin::kinds::KindCatalog;
use attentive::twin::vocabulary::table_words;
use attentive::twin::{scene, World};
use attentive::understanding::lexicon::singular_forms;
use attentive::understanding::{Understanding, Utterance};
use libfuzzer_sys::fuzz_target;

fn setup() -> &'static (Vec<World>, KindCatalog, Understanding) {
    static SETUP: OnceLock<(Vec<World>, KindCatalog, Understanding)> = OnceLock::new();
    SETUP.get_or_init(|| {
        let worlds = ["softdrinks", "coffee", "dinner"]
            .iter()
            .map(|s| scene::load(s).expect("the shipped scenes load"))
            .collect();
        let kinds = KindCatalog::load_shipped().expect("the shipped kinds load");
        let stage = attentive::language::Language::english().expect("the shipped sentences load").understanding().clone();
        (worlds, kinds, stage)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (worlds, kinds, stage) = setup();
    // "scene TOML \0 transcript" tries the scene; otherwise a shipped table.
    let (scene_text, transcript) = text.split_once('\0').unwrap_or(("", text));
    // "first \x01 second": a second hearing of the same audio to choose from.
    let (transcript, second) = transcript
        .split_once('\u{1}')
        .map_or((transcript, None), |(a, b)| (a, Some(b.to_string())));
    let custom = scene::from_toml_str(scene_text, kinds).ok();
    let world = custom
        .as_ref()
        .unwrap_or(&worlds[data.first().map_or(0, |b| *b as usize) % worlds.len()]);
    let participants = attentive::eval::spoken::hear::participants_of(world, [0.0, 0.0, 1.3]);
    let _ = restore_vocative(transcript, &participants);
    let utterance = Utterance {
        speaker: "Felix",
        listener: "the_robot",
        text: transcript,
    };
    if let Some(second) = second {
        // Choosing between hearings: no panic; a taken second hearing is reported.
        let chosen = stage.correct_hearing_among(world, &[], &utterance, &[second.clone()]);
        let own = stage.correct_hearing(world, &[], &utterance);
        assert!(
            chosen.text == own.text || !chosen.corrections.is_empty(),
            "the text changed without a correction"
        );
        return;
    }
    let corrected = stage.correct_hearing(world, &[], &utterance);
    let vocabulary = table_words(world);
    for c in &corrected.corrections {
        let to = c.read_as.to_lowercase();
        if to.is_empty() {
            // A mangled first word left out: nothing is put in its place.
            continue;
        }
        let verbs = stage.grammar().words_of_rules(|name| name.ends_with("_verb"));
        // A word of the table (or its plural, "cups"), a verb, or a name of
        // several of the table's words ("cola zero").
        let of_the_table = |word: &str| {
            singular_forms(word).any(|stem| vocabulary.iter().any(|w| w.word == stem))
        };
        assert!(
            to.split(' ').all(of_the_table) || verbs.contains(&to),
            "corrected toward {to:?}, which the table lacks"
        );
    }
});
