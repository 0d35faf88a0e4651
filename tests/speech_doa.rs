//! Direction of arrival and speaker choice on synthetic array recordings (issue 6).

mod speech_support;

use attentive::frontend::doa::wrap_deg;
use attentive::frontend::source::write_wav;
use attentive::frontend::speaker::azimuth_of;
use attentive::frontend::{
    resolve_speaker, AudioSettings, FrontEnd, FrontendError, Localizer, Transcriber, Transcript,
    WavSource,
};
use speech_support::{array_recording, espeak_at, table, transcript};

const RATE: u32 = 16_000;

fn settings() -> AudioSettings {
    AudioSettings::default()
}

#[test]
fn azimuth_within_10_degrees_with_noise_and_a_reflection() {
    let s = settings();
    let speech = espeak_at("Could you pour some cola into my glass?", RATE);
    let loc = Localizer::new(&s.mic_positions, s.speed_of_sound, RATE).expect("4 mics");
    for az in [-150.0f32, -90.0, -41.0, 0.0, 30.0, 41.0, 75.0, 135.0, 180.0] {
        // Reflection from the table/wall: 40 % amplitude, 4 ms later, 70 degrees off.
        let rec = array_recording(
            &speech,
            RATE,
            &s.mic_positions,
            az,
            20.0,
            Some((az + 70.0, 0.4, 0.004)),
        );
        let doa = loc.estimate(&rec, 4).expect("a direction");
        let err = wrap_deg(doa.azimuth_deg - az).abs();
        assert!(
            err <= 10.0,
            "true {az}, estimated {} (error {err})",
            doa.azimuth_deg
        );
    }
}

#[test]
fn the_person_in_that_direction_is_the_speaker() {
    let s = settings();
    let people = table();
    let speech = espeak_at("Daniel, could you pass me the red glass?", RATE);
    let loc = Localizer::new(&s.mic_positions, s.speed_of_sound, RATE).expect("4 mics");
    for name in ["Felix", "Daniel"] {
        let head = people.person(name).expect("person").head;
        let az = azimuth_of(&people, head);
        let rec = array_recording(
            &speech,
            RATE,
            &s.mic_positions,
            az,
            15.0,
            Some((az - 60.0, 0.3, 0.003)),
        );
        let doa = loc.estimate(&rec, 4);
        let m = resolve_speaker(doa.as_ref(), &people, s.max_speaker_error_deg, None);
        assert_eq!(m.name, name, "doa {doa:?}");
    }
    // A direction where nobody sits (behind the robot) is nobody's.
    let rec = array_recording(&speech, RATE, &s.mic_positions, 180.0, 20.0, None);
    let m = resolve_speaker(
        loc.estimate(&rec, 4).as_ref(),
        &people,
        s.max_speaker_error_deg,
        None,
    );
    assert_eq!(m.name, "unknown");
}

/// Returns a fixed text, so the pipeline's speaker logic runs without a model.
struct Fixed(&'static str);
impl Transcriber for Fixed {
    fn transcribe(&mut self, _s: &[f32], _n: &[String]) -> Result<Transcript, FrontendError> {
        Ok(transcript(self.0))
    }
}

#[test]
fn a_four_channel_wav_file_gives_felix_speaking_to_daniel() {
    let s = settings();
    let people = table();
    let az = azimuth_of(&people, people.person("Felix").expect("Felix").head);
    let mut mono = vec![0.0; RATE as usize];
    mono.extend(espeak_at("Hey, what do we have to drink?", RATE));
    mono.extend(vec![0.0; RATE as usize]);
    let rec = array_recording(&mono, RATE, &s.mic_positions, az, 25.0, None);
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("felix.wav");
    write_wav(&path, &rec, RATE, 4).expect("write");

    let mut src = WavSource::open(&path).expect("open");
    let mut fe = FrontEnd::new(s, people, Fixed("Hey, what do we have to drink?"));
    let mut turns = Vec::new();
    fe.run(&mut src, |t| turns.push(t.clone())).expect("run");
    assert_eq!(turns.len(), 1, "{turns:?}");
    let t = &turns[0];
    // No vocative: Felix faces Daniel across the table, so Daniel is the listener.
    assert_eq!(
        (t.speaker.as_str(), t.listener.as_str()),
        ("Felix", "Daniel")
    );
    assert!(wrap_deg(t.doa_deg.expect("doa") - az).abs() < 10.0);
    let json = serde_json::to_value(t).expect("json");
    assert_eq!(json["type"], "turn");
    assert!(json["start_s"].as_f64().expect("start") > 0.9);
}

#[test]
fn a_single_microphone_uses_the_fallback_speaker_or_unknown() {
    let people = table();
    let mut mono = vec![0.0; RATE as usize / 2];
    mono.extend(espeak_at("What do we have to drink?", RATE));
    mono.extend(vec![0.0; RATE as usize]);
    for (fallback, want) in [(Some("Felix".to_string()), "Felix"), (None, "unknown")] {
        let s = AudioSettings {
            fallback_speaker: fallback,
            ..settings()
        };
        let mut src = WavSource::from_samples(mono.clone(), RATE, 1);
        let mut fe = FrontEnd::new(s, people.clone(), Fixed("What do we have to drink?"));
        let mut turns = Vec::new();
        fe.run(&mut src, |t| turns.push(t.clone())).expect("run");
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].speaker, want);
        assert_eq!(turns[0].doa_deg, None);
    }
}

#[test]
fn a_missing_or_broken_wav_file_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("tmp");
    let err = WavSource::open(&dir.path().join("nope.wav")).expect_err("missing");
    assert!(err.to_string().contains("nope.wav"), "{err}");
    let bad = dir.path().join("bad.wav");
    std::fs::write(&bad, b"RIFF not really").expect("write");
    assert!(WavSource::open(&bad).is_err());
}
