//! Half-duplex listening in the front end: while the robot speaks, what the
//! microphone hears does not reach the recogniser, unless a person talks over
//! the robot long enough (barge-in); then their words are recognised whole.

mod speech_support;

use std::time::Duration;

use attentive::frontend::{participants_from_scene_file, AudioSettings, HalfDuplex, Listening};
use speech_support::{espeak, heard_texts};

/// The robot speaks the whole time; barge-in after `after` of voiced audio (None: never).
struct RobotTalking {
    after: Option<Duration>,
    voiced: Duration,
    barged: bool,
}

impl HalfDuplex for RobotTalking {
    fn open(&mut self) -> bool {
        self.barged
    }
    fn heard_while_closed(&mut self, voiced: bool, len: Duration) -> bool {
        if voiced {
            self.voiced += len;
        }
        self.barged = self.after.is_some_and(|after| self.voiced >= after);
        self.barged
    }
}

fn turns(audio: Vec<f32>, gate: &mut RobotTalking) -> Vec<String> {
    turns_from((audio, 16_000), 1, gate)
}

fn turns_from(audio: (Vec<f32>, u32), channels: usize, gate: &mut RobotTalking) -> Vec<String> {
    let (audio, rate) = audio;
    let mut options = Listening {
        half_duplex: Some(gate),
        ..Listening::default()
    };
    heard_texts(audio, rate, channels, &mut options)
}

fn padded(text: &str) -> Vec<f32> {
    let mut audio = vec![0.0f32; 8_000];
    audio.extend(espeak(text));
    audio.extend(vec![0.0f32; 16_000]);
    audio
}

#[test]
fn the_robots_own_sentence_never_becomes_a_turn() {
    let mut gate = RobotTalking {
        after: None,
        voiced: Duration::ZERO,
        barged: false,
    };
    let heard = turns(
        padded("Daniel cannot reach the red glass, so I will hand it to you."),
        &mut gate,
    );
    assert!(heard.is_empty(), "the robot heard itself: {heard:?}");
}

/// The words as the default 4-microphone array hears them from `azimuth_deg`.
fn from_direction(text: &str, azimuth_deg: f32) -> (Vec<f32>, u32) {
    let mics = AudioSettings::default().mic_positions;
    (
        speech_support::array_recording(&padded(text), 16_000, &mics, azimuth_deg, 30.0, None),
        16_000,
    )
}

fn azimuth_of_person(name: &str) -> f32 {
    let settings = AudioSettings::default();
    let scene = attentive::paths::resolve("softdrinks", "scenes", "toml");
    let participants = participants_from_scene_file(&scene, settings.array_offset).unwrap();
    let head = participants.person(name).unwrap().head;
    attentive::frontend::speaker::azimuth_of(&participants, head)
}

fn barge_in_after_half_a_second() -> RobotTalking {
    RobotTalking {
        after: Some(Duration::from_millis(500)),
        voiced: Duration::ZERO,
        barged: false,
    }
}

#[test]
fn a_person_talking_over_the_robot_is_heard_from_their_first_word() {
    let mut gate = barge_in_after_half_a_second();
    let audio = from_direction("Stop, please wait a moment.", azimuth_of_person("Felix"));
    let heard = turns_from(audio, 4, &mut gate);
    assert!(gate.barged, "Felix talked over the robot");
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert!(
        heard[0].to_lowercase().contains("stop"),
        "the first word was kept: {heard:?}"
    );
}

#[test]
fn a_voice_from_where_nobody_sits_does_not_barge_in() {
    // Behind the array, where the robot's own loudspeaker is, not a person.
    let mut gate = barge_in_after_half_a_second();
    let audio = from_direction(
        "Daniel cannot reach the red glass, so I will hand it to you.",
        180.0,
    );
    let heard = turns_from(audio, 4, &mut gate);
    assert!(!gate.barged && heard.is_empty(), "{heard:?}");
}

#[test]
fn one_microphone_cannot_tell_a_person_from_the_loudspeaker_so_nobody_barges_in() {
    let mut gate = barge_in_after_half_a_second();
    let heard = turns(padded("Stop, please wait a moment."), &mut gate);
    assert!(!gate.barged && heard.is_empty(), "{heard:?}");
}
