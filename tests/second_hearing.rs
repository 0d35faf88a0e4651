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
    heard_as(
        (
            "Put the moke in front of me, please.",
            "Put the milk in front of me, please.",
        ),
        sure,
        settings,
        second_confidence,
    )
}

/// As [`heard`], the recogniser hearing `first` and then `second`.
fn heard_as(
    (first, second): (&'static str, &'static str),
    sure: bool,
    settings: AudioSettings,
    second_confidence: f32,
) -> (Vec<Turn>, usize) {
    let asked = Rc::new(Cell::new(0));
    let transcriber = TwoHearings {
        first,
        second,
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

#[test]
fn each_second_hearing_names_its_own_listener() {
    // Heard in noise: the robot's name only the second time; and a question
    // whose "and Felix" made a vocative of the first hearing.
    for ((first, second), first_listener, second_listener) in [
        (("Hello, girl boy.", "Hello, robot."), None, "the_robot"),
        (
            (
                "And Felix reached the blue glass.",
                "Can Felix reach the blue glass?",
            ),
            Some("Felix"),
            // No vocative: the speaker's gaze (Daniel, by elimination, faces Felix).
            "Felix",
        ),
    ] {
        let (turns, _) = heard_as((first, second), false, AudioSettings::default(), 0.9);
        assert_eq!(turns.len(), 1, "{turns:?}");
        if let Some(listener) = first_listener {
            assert_eq!(turns[0].listener, listener, "{turns:?}");
        }
        assert_eq!(turns[0].alternatives, [second]);
        assert_eq!(
            turns[0].alternative_listeners,
            [second_listener],
            "{turns:?}"
        );
        let json = serde_json::to_value(&turns[0]).expect("json");
        assert_eq!(json["alternative_listeners"][0], second_listener);
    }
}

/// What the rules brain made of a spoken turn heard twice: the `understood`
/// event's listener and what the robot said.
fn taken(turn: &attentive::agent::Turn) -> (Option<String>, Vec<String>) {
    use attentive::agent::{Agent, Character};
    use attentive::events::Event;
    let mut twin = attentive::twin::Twin::load("coffee").expect("scene");
    let english = attentive::language::Language::english().expect("English");
    let mut agent = Agent::new(
        Box::new(attentive::llm::rules::RulesBrain::new(
            &twin.world,
            &english,
        )),
        Character::load("full", "the_robot").expect("character"),
        &attentive::agent::tools::ToolTexts::load_default().expect("tool texts"),
        "the_robot",
        attentive::config::AgentSettings::default(),
        attentive::config::GuardSettings::default(),
    )
    .with_shipped_understanding();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut events = Vec::new();
    runtime.block_on(agent.handle_turn(turn, &mut twin, &mut events));
    let listener = events.iter().find_map(|e| match e {
        Event::Understood { listener, .. } => Some(listener.clone()),
        _ => None,
    });
    let said = events
        .iter()
        .filter_map(|e| match e {
            Event::Speech { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    (listener.flatten(), said)
}

#[test]
fn the_hearing_taken_brings_its_listener_to_the_brain() {
    let spoken = |alternative_listener: &str| attentive::agent::Turn {
        speaker: "Felix".into(),
        listener: "All".into(),
        text: "Hello, girl boy.".into(),
        speaker_by: Some("direction".into()),
        alternatives: vec!["Hello, robot.".into()],
        alternative_listeners: vec![alternative_listener.into()],
    };
    let (listener, said) = taken(&spoken("the_robot"));
    assert_eq!(listener.as_deref(), Some("the_robot"));
    assert_eq!(said.len(), 1, "the robot greets back: {said:?}");
    // A second hearing naming nobody else leaves the listener as it was.
    let (listener, _) = taken(&spoken("All"));
    assert_eq!(listener, None);
}
