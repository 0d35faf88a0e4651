//! Measurements of the daemon (not tests of speed; nothing here asserts a time):
//!
//! ```sh
//! cargo test --release --test daemon_measure -- --ignored --nocapture --test-threads 1
//! ```
//!
//! Prints: end of speech -> listening cue and -> turn (front end on a WAV played
//! in real time through the real VAD and whisper); turn accepted -> first
//! `speech` event with the rules brain; idle CPU of a listening daemon over
//! 60 s; resident memory.

mod speech_support;
mod support;

use std::time::{Duration, Instant};

use attentive::config::Settings;
use attentive::daemon::audio::PacedWav;
use attentive::frontend::{FrontEnd, Heard, Listening, Recognizer};
use serde_json::json;
use speech_support::{espeak, model_path, speech_bounds};
use support::daemon::{of_type, Daemon};

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
#[ignore]
fn measure_end_of_speech_to_listening_and_to_turn() {
    let dir = tempfile::tempdir().unwrap();
    let sentences = [
        "Daniel, please hand me the red glass.",
        "Felix, can you pass me the cola?",
        "What do we have to drink?",
        "Daniel, could you pour me some fanta?",
        "Thank you, that is very kind.",
    ];
    let settings = Settings::load(None).unwrap().audio;
    let scene = attentive::paths::resolve("softdrinks", "scenes", "toml");
    let (mut listening, mut turns) = (Vec::new(), Vec::new());
    for text in sentences {
        let speech = espeak(text);
        let (_, end) = speech_bounds(&speech);
        let mut audio = vec![0.0f32; 8_000];
        let speech_end_s = (8_000 + end) as f64 / 16_000.0;
        audio.extend(speech);
        audio.extend(vec![0.0f32; 2 * 16_000]);
        let wav = dir.path().join("s.wav");
        attentive::frontend::source::write_wav(&wav, &audio, 16_000, 1).unwrap();
        let participants =
            attentive::frontend::participants_from_scene_file(&scene, settings.array_offset)
                .unwrap();
        let recognizer = Recognizer::with_model(&model_path(), &settings.asr).unwrap();
        let mut frontend = FrontEnd::new(
            attentive::frontend::AudioSettings {
                fallback_speaker: Some("Felix".into()),
                ..settings.clone()
            },
            participants,
            recognizer,
        );
        let mut source = PacedWav::open(&wav).unwrap();
        let started = Instant::now();
        let mut options = Listening {
            pause_ms: Some(Settings::load(None).unwrap().daemon.listening_pause_ms),
            stop: &|| false,
            half_duplex: None,
        };
        let (mut cue, mut turn) = (None, None);
        frontend
            .listen(&mut source, &mut options, |heard| {
                let at = started.elapsed().as_secs_f64();
                match heard {
                    // The last pause before the turn is the end of speech (earlier
                    // ones are hesitations inside the sentence).
                    Heard::Pause { .. } if turn.is_none() => cue = Some(at),
                    Heard::Pause { .. } => {}
                    Heard::Turn(_) => {
                        turn.get_or_insert(at);
                    }
                }
            })
            .unwrap();
        if let Some(at) = cue {
            listening.push((at - speech_end_s) * 1000.0);
        }
        if let Some(at) = turn {
            turns.push((at - speech_end_s) * 1000.0);
        }
    }
    listening.sort_by(f64::total_cmp);
    turns.sort_by(f64::total_cmp);
    println!(
        "end of speech -> listening: {} utterances, median {:.0} ms, max {:.0} ms",
        listening.len(),
        pct(&listening, 0.5),
        listening.last().unwrap()
    );
    println!(
        "end of speech -> turn: {} utterances, median {:.0} ms, max {:.0} ms",
        turns.len(),
        pct(&turns, 0.5),
        turns.last().unwrap()
    );
}

fn ms(ts: &str) -> f64 {
    let t = humantime::parse_rfc3339(ts).unwrap();
    t.duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn measure_turn_to_first_speech_with_the_rules_brain() {
    let state = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&["--no-audio", "--brain", "rules"], &[], state.path());
    let mut latencies = Vec::new();
    for n in 0..20 {
        daemon.post("/api/scene", &json!({"reset": true})).await;
        let (_, answer) = daemon
            .post(
                "/api/turns",
                &json!({"text": "Felix said to Daniel: Daniel, please hand me the red glass."}),
            )
            .await;
        let seq = answer["seq"].as_u64().unwrap();
        let log = daemon
            .wait_for("the episode", |l| of_type(l, "episode_end").len() > n)
            .await;
        let turn = log.iter().find(|e| e["seq"] == seq).unwrap();
        let speech = log
            .iter()
            .find(|e| e["type"] == "speech" && e["seq"].as_u64() > Some(seq))
            .unwrap();
        latencies.push(ms(speech["ts"].as_str().unwrap()) - ms(turn["ts"].as_str().unwrap()));
    }
    latencies.sort_by(f64::total_cmp);
    println!(
        "turn accepted -> first speech (rules brain): median {:.0} ms, p95 {:.0} ms (event timestamps have 1 ms resolution)",
        pct(&latencies, 0.5),
        pct(&latencies, 0.95)
    );
    println!(
        "resident memory after 20 episodes: {} MiB",
        daemon.rss_kib() / 1024
    );
}

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the name.
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn measure_idle_cpu_of_a_listening_daemon() {
    let dir = tempfile::tempdir().unwrap();
    // 75 s of room noise at -50 dBFS, played in real time as the microphone.
    let noise = speech_support::noise(75 * 16_000, 0.003, 7);
    let wav = dir.path().join("quiet.wav");
    attentive::frontend::source::write_wav(&wav, &noise, 16_000, 1).unwrap();
    let model = model_path();
    let state = dir.path().join("state");
    let daemon = Daemon::start(
        &["--brain", "rules", "--wav", wav.to_str().unwrap()],
        &[("ATTENTIVE_WHISPER_MODEL", model.to_str().unwrap())],
        &state,
    );
    tokio::time::sleep(Duration::from_secs(5)).await;
    let pid = daemon.child.id();
    let before = cpu_ticks(pid);
    let t0 = Instant::now();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let used = (cpu_ticks(pid) - before) as f64 / 100.0;
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "idle listening daemon: {:.2} s CPU in {:.0} s = {:.2} % of one core; resident memory {} MiB",
        used,
        wall,
        100.0 * used / wall,
        daemon.rss_kib() / 1024
    );
}
