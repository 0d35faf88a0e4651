//! The microphone side of the daemon: the speech front end on its own thread,
//! feeding `listening` cues and turns into the intake.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::intake::Intake;
use crate::events::Event;
use crate::frontend::source::{AudioSource, CpalSource, WavSource};
use crate::frontend::{
    participants_from_scene_file, AudioSettings, FrontEnd, FrontendError, Heard, Listening,
    Recognizer,
};
use crate::voice::{BargeIn, MicGate};

/// A WAV file played as if it were a microphone: each block arrives when its
/// last sample would have been recorded, as a device's would.
pub struct PacedWav {
    inner: WavSource,
    started: Option<Instant>,
    frames: u64,
}

impl PacedWav {
    /// Opens the file.
    pub fn open(path: &Path) -> Result<Self, FrontendError> {
        Ok(Self {
            inner: WavSource::open(path)?,
            started: None,
            frames: 0,
        })
    }
}

impl AudioSource for PacedWav {
    fn sample_rate(&self) -> u32 {
        self.inner.sample_rate()
    }
    fn channels(&self) -> usize {
        self.inner.channels()
    }
    fn next_block(&mut self) -> Result<Option<Vec<f32>>, FrontendError> {
        let started = *self.started.get_or_insert_with(|| {
            let (now, clock) = (Instant::now(), std::time::SystemTime::now());
            // Where the file's timeline meets the clock (tests/daemon_measure.rs reads it).
            tracing::info!(
                at = %humantime::format_rfc3339_micros(clock),
                "microphone: the WAV file starts"
            );
            now
        });
        let block = self.inner.next_block()?;
        if let Some(b) = &block {
            self.frames += (b.len() / self.channels()) as u64;
        }
        let due = Duration::from_secs_f64(self.frames as f64 / self.sample_rate() as f64);
        if let Some(wait) = due.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
        Ok(block)
    }
}

/// Half-duplex over the robot's voice: its gate decides, its barge-in detector
/// stops the robot when a person talks over it.
pub struct VoiceDuplex {
    gate: MicGate,
    barge_in: BargeIn,
}

impl VoiceDuplex {
    /// Half-duplex for this voice.
    pub fn new(voice: &crate::voice::Voice) -> Self {
        Self {
            gate: voice.gate(),
            barge_in: voice.barge_in(),
        }
    }
}

impl crate::frontend::HalfDuplex for VoiceDuplex {
    fn open(&mut self) -> bool {
        self.gate.is_open(Instant::now())
    }

    fn heard_while_closed(&mut self, voiced: bool, len: Duration) -> bool {
        // One microphone cannot tell the loudspeaker's direction: every voiced frame counts.
        self.barge_in.feed(voiced, len, Instant::now())
    }
}

/// Where the microphone's audio comes from.
#[derive(Debug, Clone)]
pub enum MicSource {
    /// The configured capture device (`[audio] device`, default device otherwise).
    Device(Option<String>),
    /// A WAV file played in real time (tests, demos).
    Wav(PathBuf),
}

/// The understanding stage and the table, to tell when a heard turn's words
/// are complete, so that it ends at a short pause (`audio.vad.early_end_ms`).
pub struct CompleteWords {
    /// The language's sentences.
    pub understanding: crate::understanding::Understanding,
    /// The table the words are about.
    pub world: crate::twin::World,
}

impl CompleteWords {
    /// For a language (code or folder) and a scene; `None` when either will
    /// not load (start-up reports that anyway): every turn then waits for the
    /// end-of-turn silence.
    pub fn load(language: &str, scene: &str) -> Option<Self> {
        Self::on(language, crate::twin::scene::load(scene).ok()?)
    }

    /// For a language and a table already loaded.
    pub fn on(language: &str, world: crate::twin::World) -> Option<Self> {
        let language = crate::language::Language::find(language).ok()?;
        Some(Self {
            understanding: language.understanding().clone(),
            world,
        })
    }

    /// Whether a heard turn's words are complete as they stand.
    pub fn is_complete(&self, turn: &crate::frontend::Turn) -> bool {
        self.understanding.reads_complete(
            &self.world,
            &crate::understanding::Utterance {
                speaker: &turn.speaker,
                listener: &turn.listener,
                text: &turn.text,
            },
        )
    }
}

/// A started microphone.
pub struct Microphone {
    /// What it listens to, for the start-up line.
    pub description: String,
    thread: std::thread::JoinHandle<()>,
    stop: Arc<AtomicBool>,
}

impl Microphone {
    /// Opens the recogniser and the source and starts listening; any failure is
    /// one sentence (typed turns still work without a microphone).
    pub fn start(
        settings: &AudioSettings,
        pause_ms: u32,
        scene_file: &Path,
        source: MicSource,
        intake: Intake,
        duplex: Option<VoiceDuplex>,
        words: Option<CompleteWords>,
    ) -> Result<Self, String> {
        let participants = participants_from_scene_file(scene_file, settings.array_offset)
            .map_err(|e| e.to_string())?;
        let mut recognizer = Recognizer::new(&settings.asr).map_err(|e| e.to_string())?;
        if settings.asr.prompt_vocabulary || settings.asr.second_hearing {
            recognizer.set_vocabulary(&table_things(scene_file));
        }
        let (mut source, description): (Box<dyn AudioSource + Send>, String) = match source {
            MicSource::Device(name) => {
                let device = CpalSource::open_array(
                    name.as_deref(),
                    settings.sample_rate,
                    settings.mic_positions.len(),
                )
                .map_err(|e| e.to_string())?;
                let description = format!("microphone {:?}", device.device_name());
                (Box::new(device), description)
            }
            MicSource::Wav(path) => {
                let wav = PacedWav::open(&path).map_err(|e| e.to_string())?;
                (
                    Box::new(wav),
                    format!("WAV file {} as the microphone", path.display()),
                )
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let stop_flag = stop.clone();
        let settings = settings.clone();
        let thread = std::thread::Builder::new()
            .name("microphone".into())
            .spawn(move || {
                let mut duplex = duplex;
                let mut frontend = FrontEnd::new(settings, participants, recognizer);
                note_questions(&intake.bus, frontend.last_question(), stop_flag.clone());
                let stop_listening = stop_flag.clone();
                let should_stop = move || stop_listening.load(Ordering::Relaxed);
                let mut complete = words.map(|w| move |t: &crate::frontend::Turn| w.is_complete(t));
                let mut options = Listening {
                    pause_ms: Some(pause_ms),
                    stop: &should_stop,
                    half_duplex: duplex
                        .as_mut()
                        .map(|d| d as &mut dyn crate::frontend::HalfDuplex),
                    complete: complete
                        .as_mut()
                        .map(|c| c as &mut (dyn FnMut(&crate::frontend::Turn) -> bool + Send)),
                };
                let result = frontend.listen(source.as_mut(), &mut options, |heard| match heard {
                    Heard::Pause { speaker, .. } => {
                        if let Some(glance) = &intake.glance {
                            glance.at(&speaker);
                        }
                        intake.bus.publish(Event::Listening { speaker });
                    }
                    Heard::Turn(heard) => {
                        let turn = crate::agent::Turn {
                            speaker: heard.speaker.clone(),
                            listener: heard.listener.clone(),
                            text: heard.text.clone(),
                            speaker_by: Some(heard.speaker_by.as_str().to_string()),
                            alternatives: heard.alternatives.clone(),
                            alternative_listeners: heard.alternative_listeners.clone(),
                        };
                        if let Err(why) = intake.submit(turn) {
                            tracing::info!("heard turn not taken: {why}");
                        }
                    }
                });
                match result {
                    Ok(stats) => tracing::info!(?stats, "the microphone ended"),
                    Err(error) => {
                        intake.bus.publish(Event::Warning {
                            kind: "microphone".into(),
                            detail: format!("{error}; typed turns still work"),
                        });
                    }
                }
            })
            .map_err(|e| format!("cannot start the microphone thread: {e}"))?;
        Ok(Self {
            description,
            thread,
            stop,
        })
    }

    /// Stops listening and waits for the thread (it notices within one block).
    pub fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        if self.thread.join().is_err() {
            tracing::error!("the microphone thread panicked");
        }
    }
}

/// Notes every question the robot asks a person (a `speech` event ending in
/// "?"), so that a reply right after it is attributed to that person.
fn note_questions(
    bus: &super::bus::Bus,
    board: crate::frontend::LastQuestion,
    stop: Arc<AtomicBool>,
) {
    let mut events = bus.subscribe();
    let spawned = std::thread::Builder::new()
        .name("questions".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let logged = match events.blocking_recv() {
                    Ok(logged) => logged,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                };
                let Ok(event) = serde_json::from_str::<serde_json::Value>(&logged.line) else {
                    continue;
                };
                let to = event["to"].as_str().unwrap_or("");
                let asks = event["text"]
                    .as_str()
                    .is_some_and(|t| t.trim_end().ends_with('?'));
                if event["type"] == "speech" && asks && !to.is_empty() && to != "All" {
                    board.asked(to);
                }
            }
        });
    if let Err(error) = spawned {
        tracing::warn!("no question watcher: {error}");
    }
}

/// The scene's things (objects, contents, kinds) for the recogniser's prompt;
/// none when the scene does not load (the twin reports that itself).
pub fn table_things(scene_file: &Path) -> Vec<String> {
    match crate::twin::scene::load_file(scene_file) {
        Ok(world) => crate::twin::vocabulary::prompt_things(&world),
        Err(e) => {
            tracing::warn!("no table words for the recogniser: {e}");
            Vec::new()
        }
    }
}
