//! One utterance through whisper (tiny.en by default, `ATTENTIVE_WHISPER_MODEL`
//! for another): the time recognition adds between the end of speech and the
//! turn. A 2.7 s request from espeak-ng, heard as the front end hears it
//! (greedy, the people's names in the prompt, token times for the quieter
//! talker), and with one setting changed at a time: one decoder thread, no
//! prompt, no token times, the table's things in the prompt too. Skipped, with
//! one line, where the model or espeak-ng is missing.

#[path = "../tests/speech_support/mod.rs"]
mod speech_support;

use criterion::{criterion_group, criterion_main, Criterion};

use attentive::frontend::{AsrSettings, Recognizer};

const REQUEST: &str = "Daniel, could you please hand me the red glass?";

fn recognition(c: &mut Criterion) {
    let model = AsrSettings::default().model_path();
    if !model.is_file()
        || std::process::Command::new("espeak-ng")
            .arg("--version")
            .output()
            .is_err()
    {
        println!(
            "recognition: skipped, no model at {} or no espeak-ng (bash scripts/setup.sh)",
            model.display()
        );
        return;
    }
    let speech = speech_support::espeak(REQUEST);
    let names = vec!["Felix".to_string(), "Daniel".to_string()];
    let things = ["red glass", "blue glass", "cola", "fanta", "box"].map(String::from);
    let front_end = AsrSettings {
        threads: 2,
        ..AsrSettings::default()
    };
    let variants = [
        ("as the front end hears it", front_end.clone(), true, false),
        (
            "one decoder thread",
            AsrSettings {
                threads: 1,
                ..front_end.clone()
            },
            true,
            false,
        ),
        ("no prompt", front_end.clone(), false, false),
        (
            "without the quieter-talker rule",
            AsrSettings {
                quieter_talker_db: 0.0,
                ..front_end.clone()
            },
            true,
            false,
        ),
        (
            "the table's things in the prompt",
            AsrSettings {
                prompt_vocabulary: true,
                ..front_end.clone()
            },
            true,
            true,
        ),
    ];
    let mut group = c.benchmark_group("recognition");
    group.sample_size(20);
    for (name, settings, with_names, with_things) in variants {
        let Ok(mut recognizer) = Recognizer::with_model(&model, &settings) else {
            println!(
                "recognition: skipped, whisper could not load {}",
                model.display()
            );
            return;
        };
        let names: &[String] = if with_names { &names } else { &[] };
        if with_things {
            recognizer.set_vocabulary(&things);
        }
        let heard = recognizer.transcribe(&speech, names).map(|t| t.text);
        println!("recognition, {name}: heard {heard:?}");
        group.bench_function(name, |b| {
            b.iter(|| recognizer.transcribe(&speech, names).map(|t| t.text.len()))
        });
    }
    group.finish();
}

criterion_group!(benches, recognition);
criterion_main!(benches);
