//! A second hearing with the table's things in the prompt, only for words the
//! understanding stage is not sure of (issue 34).

mod speech_support;

use std::cell::Cell;
use std::rc::Rc;

use attentive::frontend::{
    AudioSettings, FrontEnd, FrontendError, Heard, Listening, Transcriber, Transcript, Turn,
    WavSource,
};
use speech_support::{espeak_at, table, transcript};

const RATE: u32 = 16_000;

/// Hears `first`, and `second` when asked again with the table's things.
struct TwoHearings {
    first: &'static str,
    second: &'static str,
    second_confidence: f32,
    second_asked: Rc<Cell<usize>>,
}

impl Transcriber for TwoHearings {
    fn transcribe(&mut self, _s: &[f32], _n: &[String]) -> Result<Transcript, FrontendError> {
        Ok(transcript(self.first))
    }

    fn transcribe_with_vocabulary(
        &mut self,
        _s: &[f32],
        _n: &[String],
    ) -> Result<Option<Transcript>, FrontendError> {
        self.second_asked.set(self.second_asked.get() + 1);
        Ok(Some(Transcript {
            confidence: self.second_confidence,
            ..transcript(self.second)
        }))
    }
}

/// The turns heard in one spoken utterance, with `sure` judging the words, and
/// how often the second hearing was asked for.
fn heard(sure: bool, settings: AudioSettings, second_confidence: f32) -> (Vec<Turn>, usize) {
    let asked = Rc::new(Cell::new(0));
    let transcriber = TwoHearings {
        first: "Put the moke in front of me, please.",
        second: "Put the milk in front of me, please.",
        second_confidence,
        second_asked: asked.clone(),
    };
    let mut mono = vec![0.0; RATE as usize];
    mono.extend(espeak_at("Put the milk in front of me, please.", RATE));
    mono.extend(vec![0.0; RATE as usize]);
    let mut source = WavSource::from_samples(mono, RATE, 1);
    // One utterance: espeak-ng's comma pause, counted from the last sound
    // (`quiet_below_db`), would end the words "sure" at the early end.
    let settings = AudioSettings {
        vad: attentive::frontend::VadSettings {
            quiet_below_db: 0.0,
            ..settings.vad
        },
        ..settings
    };
    let mut frontend = FrontEnd::new(settings, table(), transcriber);
    let mut judge = move |_: &Turn| sure;
    let mut options = Listening {
        complete: Some(&mut judge),
        ..Listening::default()
    };
    let mut turns = Vec::new();
    frontend
        .listen(&mut source, &mut options, |h| {
            if let Heard::Turn(t) = h {
                turns.push(t.clone());
            }
        })
        .expect("listen");
    (turns, asked.get())
}

#[test]
fn words_not_sure_are_heard_again_and_the_second_text_goes_with_the_turn() {
    let (turns, asked) = heard(false, AudioSettings::default(), 0.9);
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert_eq!(turns[0].text, "Put the moke in front of me, please.");
    assert_eq!(
        turns[0].alternatives,
        ["Put the milk in front of me, please."]
    );
    assert!(asked >= 1);
    let json = serde_json::to_value(&turns[0]).expect("json");
    assert_eq!(
        json["alternatives"][0],
        "Put the milk in front of me, please."
    );
}

#[test]
fn words_the_stage_is_sure_of_are_heard_once() {
    let (turns, asked) = heard(true, AudioSettings::default(), 0.9);
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert!(turns[0].alternatives.is_empty());
    assert_eq!(asked, 0);
    let json = serde_json::to_value(&turns[0]).expect("json");
    assert!(json.get("alternatives").is_none(), "{json}");
}

#[test]
fn the_second_hearing_can_be_switched_off() {
    let mut settings = AudioSettings::default();
    settings.asr.second_hearing = false;
    let (turns, asked) = heard(false, settings, 0.9);
    assert!(turns[0].alternatives.is_empty());
    assert_eq!(asked, 0);
}

#[test]
fn a_second_hearing_less_certain_than_the_first_is_dropped() {
    // The first hearing's confidence is 0.9.
    let (turns, asked) = heard(false, AudioSettings::default(), 0.6);
    assert!(asked >= 1);
    assert!(turns[0].alternatives.is_empty(), "{turns:?}");
}
