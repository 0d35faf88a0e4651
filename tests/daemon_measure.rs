//! Measurements of the daemon (not tests of speed; nothing here asserts a time):
//!
//! ```sh
//! cargo test --release --test daemon_measure -- --ignored --nocapture --test-threads 1
//! ```
//!
//! Prints: end of speech -> listening cue and -> turn (front end on a WAV played
//! in real time through the real VAD and whisper); turn accepted -> first
//! `speech` event with the rules brain; end of a person's speech -> the robot's
//! first audible sample handed to the output device, through the whole daemon
//! (WAV microphone, rules brain, Piper and espeak-ng on a private PulseAudio),
//! stage by stage; idle CPU of a listening daemon over 60 s; resident memory.
//! The whole-daemon one alone (about 4 minutes):
//!
//! ```sh
//! cargo test --release --test daemon_measure first_audible -- --ignored --nocapture
//! ```

mod speech_support;
mod support;

use std::time::{Duration, Instant};

use attentive::config::Settings;
use attentive::daemon::audio::{CompleteWords, PacedWav};
use attentive::frontend::{FrontEnd, Heard, Listening, Recognizer};
use serde_json::json;
use speech_support::{espeak, model_path, speech_bounds};
use support::daemon::{of_type, Daemon};
use support::pulse;

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
    let mut recognition = Vec::new();
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
        // As the daemon: a turn whose words are complete ends at a short pause.
        let words = CompleteWords::load("en", "softdrinks").unwrap();
        let mut complete = |t: &attentive::frontend::Turn| words.is_complete(t);
        let started = Instant::now();
        let mut options = Listening {
            pause_ms: Some(Settings::load(None).unwrap().daemon.listening_pause_ms),
            stop: &|| false,
            half_duplex: None,
            complete: Some(&mut complete),
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
                    Heard::Turn(t) => {
                        turn.get_or_insert(at);
                        recognition.push(t.recognition_ms);
                        println!(
                            "  {:.0} ms after start: {:?} (recognised in {:.0} ms, early end: {})",
                            at * 1000.0,
                            t.text,
                            t.recognition_ms,
                            t.early
                        );
                    }
                }
            })
            .unwrap();
        if let Some(at) = cue {
            listening.push((at - speech_end_s) * 1000.0);
        }
        if let Some(at) = turn {
            println!("  speech ended {:.0} ms after start", speech_end_s * 1000.0);
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
    recognition.sort_by(f64::total_cmp);
    println!(
        "recognition (both hearings): median {:.0} ms, max {:.0} ms",
        pct(&recognition, 0.5),
        recognition.last().unwrap()
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

/// Requests to the robot on the softdrinks scene, each answered by the rules
/// brain with one spoken sentence (and a hand-over for the "hand me" ones).
const REQUESTS: [&str; 5] = [
    "Robot, what do we have to drink?",
    "Robot, please hand me the red glass.",
    "Robot, can you pass me the cola?",
    "Robot, please give me the blue glass.",
    "Robot, what do we have to drink?",
];

/// The value of `key=` in a tracing line (fields are `key=value`, space separated).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(&format!(" {key}="))? + key.len() + 2;
    line[at..].split_whitespace().next()
}

/// A tracing line without its colour codes.
fn plain(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ ... letter
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn summary(name: &str, values: &mut [f64]) -> String {
    if values.is_empty() {
        return format!("{name}: none");
    }
    values.sort_by(f64::total_cmp);
    format!(
        "{name}: median {:.0} ms, p95 {:.0} ms, min {:.0} ms, max {:.0} ms (n = {})",
        pct(values, 0.5),
        pct(values, 0.95),
        values[0],
        values[values.len() - 1],
        values.len()
    )
}

/// One utterance's timeline, from the daemon's log line
/// `voice: first sample to the output` (times in ms since the epoch, durations in ms).
struct Sound {
    first: f64,
    /// The first sample above -40 dBFS (daemons before that field: none).
    audible: Option<f64>,
    queued: f64,
    synth: f64,
    device: f64,
}

/// PulseAudio's own latency of the daemon's output stream, from a sample
/// handed to it until it is heard: the stream's buffer plus the sink's.
fn pulse_latency_ms(server: &str) -> Option<f64> {
    let out = std::process::Command::new("pactl")
        .env("PULSE_SERVER", server)
        .args(["list", "sink-inputs"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let usec = |key: &str| -> Option<f64> {
        let line = text.lines().find(|l| l.trim_start().starts_with(key))?;
        line.split_whitespace().nth(2)?.parse::<f64>().ok()
    };
    Some((usec("Buffer Latency:")? + usec("Sink Latency:")?) / 1000.0)
}

/// One daemon with the rules brain, a WAV of `rounds` spoken requests as its
/// microphone and `engine` as its voice on a private PulseAudio; prints the
/// figures from the end of each request's speech (known from the WAV).
async fn measure_spoken_requests(engine: &str, rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    const RATE: f64 = 16_000.0;
    // Room for the daemon to start (and a voice to warm up), then each request
    // and time enough for the answer to be said before the next one.
    let (lead_s, gap_s) = (4.0, 7.0);
    let mut audio = vec![0.0f32; (lead_s * RATE) as usize];
    let mut requests = Vec::new(); // (start of speech, end of speech), s in the file
    for text in REQUESTS.iter().cycle().take(rounds) {
        let speech = espeak(text);
        let (start, end) = speech_bounds(&speech);
        let at = audio.len();
        requests.push(((at + start) as f64 / RATE, (at + end) as f64 / RATE));
        audio.extend(speech);
        audio.extend(vec![0.0f32; (gap_s * RATE) as usize]);
    }
    let wav_s = audio.len() as f64 / RATE;
    let wav = dir.path().join("mic.wav");
    attentive::frontend::source::write_wav(&wav, &audio, 16_000, 1).unwrap();
    let (_pulse, server) = pulse::start(
        dir.path(),
        &["sink_name=speaker rate=22050 channels=1"],
        "speaker",
        "speaker.monitor",
    );
    let model = model_path();
    let daemon = Daemon::start(
        &[
            "--brain",
            "rules",
            "--scene",
            "softdrinks",
            "--wav",
            wav.to_str().unwrap(),
        ],
        &[
            ("PULSE_SERVER", server.as_str()),
            ("ATTENTIVE_WHISPER_MODEL", model.to_str().unwrap()),
            ("ATTENTIVE_AUDIO__FALLBACK_SPEAKER", "Felix"),
            ("ATTENTIVE_VOICE__ENGINE", engine),
            ("ATTENTIVE_LOG", "warn,attentive=info"),
            ("NO_COLOR", "1"),
        ],
        &dir.path().join("state"),
    );
    let (_, health) = daemon.get("/health").await;
    println!("{engine}: voice {}", health["voice"]);
    // Every request on the table as loaded: reset after each episode.
    let started = Instant::now();
    let mut episodes = 0;
    let mut latencies = Vec::new();
    while started.elapsed().as_secs_f64() < wav_s + 3.0 {
        let ended = of_type(&daemon.log(), "episode_end").len();
        if ended > episodes {
            episodes = ended;
            daemon.post("/api/scene", &json!({"reset": true})).await;
        }
        latencies.extend(pulse_latency_ms(&server));
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let log = daemon.log();
    let lines: Vec<String> = daemon
        .startup
        .iter()
        .cloned()
        .chain(daemon.stderr.try_iter())
        .map(|l| plain(&l))
        .collect();
    let stamp = |line: &String| field(line, "at").map(ms);
    let zero = lines
        .iter()
        .find(|l| l.contains("microphone: the WAV file starts"))
        .and_then(stamp)
        .expect("the daemon logs when the WAV file starts");
    let sounds: Vec<Sound> = lines
        .iter()
        .filter(|l| l.contains("voice: first sample to the output"))
        .filter_map(|l| {
            let num = |k| field(l, k).and_then(|v| v.parse::<f64>().ok());
            Some(Sound {
                first: stamp(l)?,
                audible: field(l, "audible_at").map(ms),
                queued: num("queued_ms")?,
                synth: num("synth_ms")?,
                device: num("device_ms")?,
            })
        })
        .collect();
    let at = |kind: &str| -> Vec<f64> {
        of_type(&log, kind)
            .iter()
            .filter_map(|e| e["ts"].as_str().map(ms))
            .collect()
    };
    let (listening, turns, speech) = (at("listening"), at("turn"), at("speech"));
    let names = [
        "end of speech -> listening",
        "end of speech -> turn",
        "end of speech -> first speech event",
        "end of speech -> first sample to the output",
        "end of speech -> first audible sample to the output (above -40 dBFS)",
        "turn -> first speech event (the rules brain)",
        "turn -> first audible sample to the output (the daemon's share)",
        "speech said -> its synthesis starts (voice queue)",
        "synthesis until the first piece is ready",
        "first piece ready -> first sample to the output",
    ];
    let mut figures: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let mut missed = Vec::new();
    for (i, &(_, end_s)) in requests.iter().enumerate() {
        let end = zero + end_s * 1000.0;
        let next = requests
            .get(i + 1)
            .map_or(f64::INFINITY, |(start_s, _)| zero + start_s * 1000.0);
        let within =
            |times: &[f64], from: f64| times.iter().copied().find(|t| *t >= from && *t < next);
        let cue = within(&listening, end);
        let Some(turn) = within(&turns, end) else {
            missed.push(format!("request {} heard as no turn", i + 1));
            continue;
        };
        // Event times are cut to the millisecond.
        let said = within(&speech, turn - 1.0);
        let sound = said.and_then(|s| {
            sounds
                .iter()
                .find(|a| a.first >= s - 1.0 && a.first < next + 10_000.0)
        });
        if let Some(cue) = cue {
            figures[0].push(cue - end);
        }
        figures[1].push(turn - end);
        let (Some(said), Some(sound)) = (said, sound) else {
            missed.push(format!("request {} was not answered aloud", i + 1));
            continue;
        };
        println!(
            "{engine}: request {}: after its end of speech: listening {}, turn {:.0}, speech {:.0}, first sample {:.0}, audible {} ms (synthesis {:.0} ms)",
            i + 1,
            cue.map_or("-".into(), |c| format!("{:.0}", c - end)),
            turn - end,
            said - end,
            sound.first - end,
            sound.audible.map_or("-".into(), |a| format!("{:.0}", a - end)),
            sound.synth
        );
        figures[2].push(said - end);
        figures[3].push(sound.first - end);
        if let Some(audible) = sound.audible {
            figures[4].push(audible - end);
            figures[6].push(audible - turn);
        }
        figures[5].push(said - turn);
        figures[7].push(sound.queued);
        figures[8].push(sound.synth);
        figures[9].push(sound.device);
    }
    for (name, values) in names.iter().zip(figures.iter_mut()) {
        println!("figure: daemon, {engine}, {}", summary(name, values));
    }
    println!(
        "figure: daemon, {engine}, {} (PulseAudio's report, sampled every 0.25 s; beyond the figures above)",
        summary(
            "sample to the output -> heard (stream buffer + sink)",
            &mut latencies
        )
    );
    for miss in missed {
        println!("{engine}: {miss}");
    }
    for turn in of_type(&log, "turn") {
        println!("{engine}: heard {}", turn["text"]);
    }
}

/// End of speech -> first audible word through the daemon, with Piper and then espeak-ng.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn measure_end_of_speech_to_first_audible_word_through_the_daemon() {
    let rounds = 10;
    match attentive::voice::piper::detect(&Settings::load(None).unwrap().voice.piper) {
        Some(_) => measure_spoken_requests("piper", rounds).await,
        None => println!("piper: skipped, not installed for python3"),
    }
    measure_spoken_requests("espeak-ng", rounds).await;
}
