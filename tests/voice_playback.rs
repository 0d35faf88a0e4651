//! The robot's voice through rodio into an in-process loudspeaker that records
//! what it plays ([`VirtualOutput`], clocked by the wall clock): queue order,
//! events, hush, the microphone gate, barge-in with the real voice detector.
//! Latencies are measured in the recorded audio, not by the test's clock.

mod speech_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use attentive::agent::Mouth;
use attentive::events::Event;
use attentive::frontend::vad::{EarshotDetector, VoiceDetector, FRAME, VAD_RATE};
use attentive::voice::engine::Espeak;
use attentive::voice::{
    Pcm, SpeechEngine, SynthFuture, VirtualOutput, Voice, VoiceError, VoiceSettings,
};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};
use tokio_util::sync::CancellationToken;

const RATE: u32 = 16_000;

/// A stand-in engine at the TTS edge: "440 300" is a 440 Hz tone of 300 ms; "fail" fails.
struct Tones;

impl SpeechEngine for Tones {
    fn synthesize<'a>(&'a self, text: &'a str, _cancel: &'a CancellationToken) -> SynthFuture<'a> {
        Box::pin(async move {
            let mut words = text.split_whitespace().map(str::parse::<f32>);
            match (words.next(), words.next()) {
                (Some(Ok(hz)), Some(Ok(ms))) => {
                    let n = (ms / 1000.0 * RATE as f32) as usize;
                    let samples = (0..n)
                        .map(|i| 0.5 * (std::f32::consts::TAU * hz * i as f32 / RATE as f32).sin())
                        .collect();
                    Ok(Pcm {
                        samples,
                        rate: RATE,
                    })
                }
                _ => Err(VoiceError::Engine {
                    engine: "tones",
                    detail: format!("cannot read {text:?} as a tone"),
                }),
            }
        })
    }
    fn describe(&self) -> String {
        "tones".into()
    }
}

fn voice(engine: Arc<dyn SpeechEngine>) -> (Voice, VirtualOutput, UnboundedReceiver<Event>) {
    let (out, playback) = VirtualOutput::start(RATE);
    let (tx, rx) = unbounded_channel();
    let voice = Voice::with_parts(engine, playback, &VoiceSettings::default(), tx);
    (voice, out, rx)
}

fn drain(rx: &mut UnboundedReceiver<Event>) -> Vec<Event> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

/// Loud stretches of the recording as (first, last) sample indices; gaps under 20 ms join.
fn loud_segments(x: &[f32]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, v) in x.iter().enumerate() {
        if v.abs() > 0.05 {
            match out.last_mut() {
                Some(seg) if i - seg.1 < RATE as usize / 50 => seg.1 = i,
                _ => out.push((i, i)),
            }
        }
    }
    out
}

/// Frequency of a tone from its zero crossings.
fn frequency(x: &[f32]) -> f32 {
    let crossings = x
        .windows(2)
        .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
        .count();
    crossings as f32 / 2.0 / (x.len() as f32 / RATE as f32)
}

async fn until_speaking(voice: &Voice) {
    while !voice.gate().is_speaking() {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utterances_play_in_order_and_each_is_reported_when_played() {
    let (voice, out, mut rx) = voice(Arc::new(Tones));
    voice.say("Felix", "440 300");
    voice.say("Felix", "880 200");
    voice.until_quiet().await;
    assert_eq!(
        drain(&mut rx),
        vec![
            Event::Voice {
                text: "440 300".into(),
                ms: 300
            },
            Event::Voice {
                text: "880 200".into(),
                ms: 200
            },
        ]
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    let rec = out.recorded();
    let segments = loud_segments(&rec);
    assert_eq!(
        segments.len(),
        1,
        "the two tones follow without a gap: {segments:?}"
    );
    let (a, b) = segments[0];
    // 300 ms at 440 Hz, then 200 ms at 880 Hz.
    let first = frequency(&rec[a..a + RATE as usize / 4]);
    let second = frequency(&rec[b - RATE as usize / 6..b]);
    assert!((first - 440.0).abs() < 20.0, "first tone {first} Hz");
    assert!((second - 880.0).abs() < 20.0, "second tone {second} Hz");
    let ms = (b - a) as f32 * 1000.0 / RATE as f32;
    assert!((ms - 500.0).abs() < 20.0, "{ms} ms of sound");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_engine_is_one_warning_and_the_next_utterance_still_plays() {
    let (voice, _out, mut rx) = voice(Arc::new(Tones));
    voice.say("All", "fail");
    voice.say("All", "440 100");
    voice.until_quiet().await;
    let events = drain(&mut rx);
    assert_eq!(events.len(), 2, "{events:?}");
    match &events[0] {
        Event::Warning { kind, detail } => {
            assert_eq!(kind, "voice");
            assert!(
                detail.contains("\"fail\"") && detail.contains("cannot read"),
                "{detail}"
            );
        }
        other => panic!("expected a voice warning, got {other:?}"),
    }
    assert_eq!(
        events[1],
        Event::Voice {
            text: "440 100".into(),
            ms: 100
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hush_silences_the_robot_within_50_ms_of_audio_and_drops_the_queue() {
    let (voice, out, mut rx) = voice(Arc::new(Tones));
    voice.say("All", "440 3000");
    voice.say("All", "880 1000");
    until_speaking(&voice).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let hushed_at = Instant::now();
    voice.hush();
    voice.until_quiet().await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Said after the hush: plays as usual.
    voice.say("All", "660 100");
    voice.until_quiet().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let rec = out.recorded();
    let segments = loud_segments(&rec);
    assert_eq!(segments.len(), 2, "{segments:?}");
    let stop_ms = (segments[0].1 as f64 - out.sample_at(hushed_at) as f64) * 1000.0 / RATE as f64;
    eprintln!("sound ended {stop_ms:.1} ms (of audio) after hush");
    assert!(stop_ms < 50.0, "sound went on {stop_ms:.1} ms after hush");
    let (c, d) = segments[1];
    assert!(
        (frequency(&rec[c..d]) - 660.0).abs() < 30.0,
        "the 880 Hz utterance was dropped"
    );
    assert_eq!(
        drain(&mut rx),
        vec![Event::Voice {
            text: "660 100".into(),
            ms: 100
        }]
    );
}

/// [`Tones`] that take `delay` to synthesise each request, and note each request.
struct SlowTones {
    delay: Duration,
    asked: std::sync::Mutex<Vec<String>>,
}

impl SpeechEngine for SlowTones {
    fn synthesize<'a>(&'a self, text: &'a str, cancel: &'a CancellationToken) -> SynthFuture<'a> {
        Box::pin(async move {
            self.asked.lock().unwrap().push(text.to_string());
            tokio::time::sleep(self.delay).await;
            Tones.synthesize(text.trim_end_matches('.'), cancel).await
        })
    }
    fn describe(&self) -> String {
        "slow tones".into()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_of_several_sentences_starts_with_the_first_and_plays_without_gaps() {
    let engine = Arc::new(SlowTones {
        delay: Duration::from_millis(200),
        asked: Default::default(),
    });
    let (voice, out, mut rx) = voice(engine.clone());
    let said_at = Instant::now();
    voice.say("Felix", "440 400. 880 400. 660 400.");
    voice.until_quiet().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        *engine.asked.lock().unwrap(),
        vec!["440 400.", "880 400.", "660 400."],
        "one sentence at a time"
    );
    let rec = out.recorded();
    let segments = loud_segments(&rec);
    assert_eq!(
        segments.len(),
        1,
        "no gap between the sentences: {segments:?}"
    );
    let (a, b) = segments[0];
    // The first sentence sounds once it is synthesised, not after all three (600 ms).
    let first_ms = (a as f64 - out.sample_at(said_at) as f64) * 1000.0 / RATE as f64;
    eprintln!("first sample {first_ms:.0} ms after say (one synthesis: 200 ms)");
    assert!(first_ms < 500.0, "first sample {first_ms:.0} ms after say");
    let tenth = RATE as usize / 10;
    let middle = (a + b) / 2;
    for (at, hz) in [
        (a + tenth, 440.0),
        (middle - tenth / 2, 880.0),
        (b - 2 * tenth, 660.0),
    ] {
        let heard = frequency(&rec[at..at + tenth]);
        assert!((heard - hz).abs() < 30.0, "{hz} Hz heard as {heard} Hz");
    }
    let ms = (b - a) as f32 * 1000.0 / RATE as f32;
    assert!((ms - 1200.0).abs() < 30.0, "{ms} ms of sound");
    assert_eq!(
        drain(&mut rx),
        vec![Event::Voice {
            text: "440 400. 880 400. 660 400.".into(),
            ms: 1200
        }],
        "one utterance, one event"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hush_during_a_reply_of_several_sentences_drops_the_rest() {
    let engine = Arc::new(SlowTones {
        delay: Duration::from_millis(100),
        asked: Default::default(),
    });
    let (voice, out, mut rx) = voice(engine.clone());
    voice.say("Felix", "440 1000. 880 1000. 660 1000.");
    until_speaking(&voice).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    voice.hush();
    voice.until_quiet().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rec = out.recorded();
    let segments = loud_segments(&rec);
    assert_eq!(segments.len(), 1, "{segments:?}");
    let (a, b) = segments[0];
    let ms = (b - a) as f32 * 1000.0 / RATE as f32;
    assert!(ms < 450.0, "{ms} ms of sound after a hush at 300 ms");
    assert!(
        (frequency(&rec[a..b]) - 440.0).abs() < 30.0,
        "only the first sentence sounded"
    );
    assert!(
        drain(&mut rx).is_empty(),
        "a hushed utterance is not reported"
    );
}

fn espeak_voice(tail_ms: u32) -> (Voice, VirtualOutput, UnboundedReceiver<Event>) {
    let (out, playback) = VirtualOutput::start(RATE);
    let (tx, rx) = unbounded_channel();
    let settings = VoiceSettings {
        tail_ms,
        ..VoiceSettings::default()
    };
    let engine = Espeak::new(&settings.espeak, Duration::from_secs(10));
    (
        Voice::with_parts(Arc::new(engine), playback, &settings, tx),
        out,
        rx,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_microphone_gate_is_closed_while_the_robot_speaks_and_for_the_tail() {
    let (voice, _out, mut rx) = espeak_voice(300);
    let gate = voice.gate();
    assert!(gate.is_open(Instant::now()));
    voice.say("Felix", "I will hand you the red glass.");
    until_speaking(&voice).await;
    assert!(!gate.is_open(Instant::now()), "open while the robot speaks");
    voice.until_quiet().await;
    let ended = Instant::now();
    assert!(!gate.is_open(ended), "open right after the speech");
    assert!(
        !gate.is_open(ended + Duration::from_millis(250)),
        "open within the tail"
    );
    assert!(
        gate.is_open(ended + Duration::from_millis(350)),
        "still closed after the tail"
    );
    let events = drain(&mut rx);
    assert!(
        matches!(&events[..], [Event::Voice { text, ms }] if text == "I will hand you the red glass." && *ms > 1000),
        "{events:?}"
    );
}

/// Voice-activity decisions of the real detector on 16 kHz audio, one per 16 ms frame.
fn vad_frames(samples: &[f32]) -> Vec<bool> {
    let mut detector = EarshotDetector::default();
    samples
        .chunks_exact(FRAME)
        .map(|f| detector.score(f) > 0.5)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_talking_over_the_robot_for_half_a_second_stops_it() {
    let frame = Duration::from_secs_f64(FRAME as f64 / VAD_RATE as f64);
    // What the microphone hears of the person (the array would tell it apart from the loudspeaker).
    let quiet = vec![0.0; VAD_RATE as usize / 2];
    let person = speech_support::espeak("Stop, wait a moment please.");
    let (onset, _) = speech_support::speech_bounds(&person);
    // Someone who starts to speak and breaks off after 0.3 s.
    let short = [
        &quiet[..],
        &person[onset..onset + 3 * VAD_RATE as usize / 10],
        &quiet[..],
    ]
    .concat();
    let long = [&quiet[..], &person[..], &quiet[..]].concat();

    let (voice, out, mut rx) = espeak_voice(300);
    voice.say(
        "Felix",
        "I will now pour the cola into your glass, and then I will bring the glass over to you.",
    );
    until_speaking(&voice).await;
    let mut barge_in = voice.barge_in();
    // Speech broken off after 0.3 s is not a barge-in.
    for voiced in vad_frames(&short) {
        assert!(
            !barge_in.feed(voiced, frame, Instant::now()),
            "fired on 0.3 s of speech"
        );
    }
    // A longer sentence is: it fires after half a second of voiced audio.
    let decisions = vad_frames(&long);
    let onset = decisions
        .iter()
        .position(|v| *v)
        .expect("the detector hears the person");
    let mut fired = None;
    for (i, voiced) in decisions.iter().enumerate() {
        if barge_in.feed(*voiced, frame, Instant::now()) {
            fired = Some((i, Instant::now()));
            break;
        }
    }
    let (index, fired_at) = fired.expect("the barge-in fired");
    let after_onset = (index + 1 - onset) as f64 * frame.as_secs_f64();
    assert!(
        after_onset >= 0.5,
        "fired {after_onset:.2} s after the person began"
    );
    assert!(
        voice.gate().is_open(Instant::now()),
        "the gate opens for the person"
    );
    voice.until_quiet().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let rec = out.recorded();
    let last_sound = rec
        .iter()
        .rposition(|v| v.abs() > 0.02)
        .expect("the robot spoke");
    let stop_ms = (last_sound as f64 - out.sample_at(fired_at) as f64) * 1000.0 / RATE as f64;
    assert!(
        stop_ms < 50.0,
        "the robot went on {stop_ms:.1} ms after the barge-in"
    );
    assert!(
        drain(&mut rx).is_empty(),
        "an interrupted utterance is not reported as played"
    );
}
