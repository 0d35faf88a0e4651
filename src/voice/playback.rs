//! Playback with rodio: one long-lived output stream on its own thread, one
//! `Player` per utterance on its mixer, stoppable at once, awaitable to its end.
//!
//! Stop latency: rodio checks a player's stop flag every 5 ms of audio, and the
//! device holds [`OUTPUT_BUFFER_MS`] more; so what is heard ends about 30 ms
//! after [`Playing::stop`] (plus the sound server's own buffer, e.g. PulseAudio's).

use std::num::NonZero;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use cpal::traits::{DeviceTrait, HostTrait};
use rodio::buffer::SamplesBuffer;
use rodio::mixer::{Mixer, MixerSource};
use rodio::source::EmptyCallback;
use rodio::{DeviceSinkBuilder, MixerDeviceSink, Player, Source};
use tokio::sync::oneshot;

use super::pcm::{Pcm, SILENCE};
use super::VoiceError;

/// The device buffer asked for, in ms: small, so that a stop is heard at once.
pub const OUTPUT_BUFFER_MS: u32 = 25;

/// An open output: the mixer of a device stream that lives on its own thread
/// (or of an in-process [`VirtualOutput`]). Dropping it closes the stream.
pub struct Playback {
    mixer: Mixer,
    description: String,
    /// Dropping this sender ends the thread that owns the device stream.
    _keep_open: Option<std::sync::mpsc::Sender<()>>,
}

impl std::fmt::Debug for Playback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Playback")
            .field("device", &self.description)
            .finish_non_exhaustive()
    }
}

impl Playback {
    /// Opens the output device called `name` (its cpal id such as `pulse`, its
    /// description, or a case-insensitive part of the description), or the default
    /// output device. Blocks until the stream runs (PulseAudio takes a second or two):
    /// from async code call it inside `spawn_blocking`.
    pub fn open(name: Option<&str>) -> Result<Playback, VoiceError> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (keep_tx, keep_rx) = std::sync::mpsc::channel::<()>();
        let wanted = name.map(str::to_string);
        std::thread::Builder::new()
            .name("voice-output".into())
            .spawn(move || match open_sink(wanted.as_deref()) {
                Ok((sink, description)) => {
                    if ready_tx
                        .send(Ok((sink.mixer().clone(), description)))
                        .is_ok()
                    {
                        // Keep the stream until the Playback is dropped.
                        let _ = keep_rx.recv();
                    }
                    drop(sink);
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                }
            })
            .map_err(|e| {
                VoiceError::Device(format!("cannot start the audio output thread: {e}"))
            })?;
        let (mixer, description) = ready_rx.recv().map_err(|_| {
            VoiceError::Device("the audio output thread ended while opening".into())
        })??;
        tracing::info!(device = %description, "voice output open");
        Ok(Playback {
            mixer,
            description,
            _keep_open: Some(keep_tx),
        })
    }

    /// A playback on a mixer made elsewhere (see [`VirtualOutput`]).
    pub fn with_mixer(mixer: Mixer, description: &str) -> Playback {
        Playback {
            mixer,
            description: description.to_string(),
            _keep_open: None,
        }
    }

    /// The device's description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Starts playing `pcm`; the returned handle stops it or awaits its end.
    pub fn play(&self, pcm: &Pcm) -> Playing {
        let mut playing = self.start(pcm);
        playing.finish();
        playing
    }

    /// Starts playing `pcm` as the first piece of an utterance whose later
    /// pieces come with [`Playing::append`]; [`Playing::finish`] says that no
    /// more will come (until then the player waits in silence after the last piece).
    pub fn start(&self, pcm: &Pcm) -> Playing {
        // Queue the speech before the player joins the mixer: the mixer sets up its
        // rate conversion from the queue's format when it is added, and an empty
        // queue would report a default rate and play the first span at the wrong speed.
        let (player, queue) = Player::new();
        let marks = Marks::default();
        player.append(marks.on(samples(pcm)));
        self.mixer.add(queue);
        let (tx, rx) = oneshot::channel();
        Playing {
            player: Arc::new(Guarded {
                player,
                stopped: Mutex::new(false),
            }),
            done: rx,
            end: Some(tx),
            marks,
        }
    }
}

fn samples(pcm: &Pcm) -> SamplesBuffer {
    let rate = NonZero::new(pcm.rate.max(1)).unwrap_or(NonZero::<u32>::MIN);
    SamplesBuffer::new(NonZero::<u16>::MIN, rate, pcm.samples.clone())
}

/// When an utterance's first sample, and its first audible one, were taken
/// from the player: that is when the output device's callback handed them to the device.
#[derive(Clone, Default)]
struct Marks {
    first: Arc<OnceLock<SystemTime>>,
    audible: Arc<OnceLock<SystemTime>>,
}

impl Marks {
    /// `source`, noting these marks as it is played.
    fn on<S: Source>(&self, source: S) -> FirstSample<S> {
        FirstSample {
            inner: source,
            first: Some(self.first.clone()),
            audible: Some(self.audible.clone()),
        }
    }
}

/// A source that notes when its first sample, and its first sample louder
/// than [`SILENCE`], are taken.
struct FirstSample<S> {
    inner: S,
    first: Option<Arc<OnceLock<SystemTime>>>,
    audible: Option<Arc<OnceLock<SystemTime>>>,
}

impl<S: Source> Iterator for FirstSample<S> {
    type Item = rodio::Sample;

    fn next(&mut self) -> Option<Self::Item> {
        let sample = self.inner.next()?;
        if let Some(first) = self.first.take() {
            let _ = first.set(SystemTime::now());
        }
        if self.audible.is_some() && sample.abs() >= SILENCE {
            if let Some(audible) = self.audible.take() {
                let _ = audible.set(SystemTime::now());
            }
        }
        Some(sample)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<S: Source> Source for FirstSample<S> {
    fn current_span_len(&self) -> Option<usize> {
        self.inner.current_span_len()
    }
    fn channels(&self) -> rodio::ChannelCount {
        self.inner.channels()
    }
    fn sample_rate(&self) -> rodio::SampleRate {
        self.inner.sample_rate()
    }
    fn total_duration(&self) -> Option<Duration> {
        self.inner.total_duration()
    }
    fn try_seek(&mut self, pos: Duration) -> Result<(), rodio::source::SeekError> {
        self.inner.try_seek(pos)
    }
}

/// The player and whether it was stopped, under one lock: a piece appended
/// to a stopped rodio player would wait for its queue to drain and then play.
struct Guarded {
    player: Player,
    stopped: Mutex<bool>,
}

impl Guarded {
    fn stop(&self) {
        let mut stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        *stopped = true;
        self.player.stop();
    }

    /// Appends unless stopped; whether it did.
    fn append<S: Source + Send + 'static>(&self, source: S) -> bool {
        let stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        if !*stopped {
            self.player.append(source);
        }
        !*stopped
    }
}

/// One utterance being played.
pub struct Playing {
    player: Arc<Guarded>,
    done: oneshot::Receiver<()>,
    /// Sent when the mixer reaches the end; moved into the player by `finish`.
    end: Option<oneshot::Sender<()>>,
    /// When the first sample, and the first audible one, went to the output device.
    marks: Marks,
}

/// Stops one utterance from anywhere (another thread, a sync function).
#[derive(Clone)]
pub struct Stopper(Arc<Guarded>);

impl Stopper {
    /// Stops the utterance: silence within 5 ms of audio plus the device buffer.
    pub fn stop(&self) {
        self.0.stop();
    }
}

impl std::fmt::Debug for Stopper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stopper")
    }
}

impl std::fmt::Debug for Playing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Playing")
    }
}

impl Playing {
    /// Stops it: silence within 5 ms of audio plus the device buffer.
    pub fn stop(&self) {
        self.player.stop();
    }

    /// A handle that stops it.
    pub fn stopper(&self) -> Stopper {
        Stopper(self.player.clone())
    }

    /// Plays `pcm` after what is queued (at once when the player already waits
    /// in silence); nothing after a stop or [`Playing::finish`]. Whether it was queued.
    pub fn append(&mut self, pcm: &Pcm) -> bool {
        self.end.is_some() && self.player.append(self.marks.on(samples(pcm)))
    }

    /// No more pieces: [`Playing::finished`] resolves when the last one has played.
    pub fn finish(&mut self) {
        let Some(tx) = self.end.take() else {
            return;
        };
        let tx = Mutex::new(Some(tx));
        // Runs when the mixer reaches the end of the speech; after a stop it never
        // runs and is dropped, so the receiver sees the sender gone.
        self.player.append(EmptyCallback::new(Box::new(move || {
            if let Some(tx) = tx.lock().ok().and_then(|mut t| t.take()) {
                let _ = tx.send(());
            }
        })));
    }

    /// When its first sample was handed to the output device (`None` before that).
    pub fn first_sample(&self) -> Option<SystemTime> {
        self.marks.first.get().copied()
    }

    /// When its first sample louder than [`SILENCE`] was handed to the output
    /// device: the start of what is heard (`None` before that).
    pub fn first_audible(&self) -> Option<SystemTime> {
        self.marks.audible.get().copied()
    }

    /// Resolves when it has played to the end (`true`) or was stopped (`false`);
    /// call [`Playing::finish`] first.
    pub async fn finished(&mut self) -> bool {
        self.finish();
        (&mut self.done).await.is_ok()
    }
}

fn open_sink(name: Option<&str>) -> Result<(MixerDeviceSink, String), VoiceError> {
    crate::alsa_quiet::on_this_thread();
    let host = cpal::default_host();
    let device = match name {
        None => host.default_output_device().ok_or_else(|| {
            VoiceError::Device("no default output device (no sound card?)".into())
        })?,
        Some(want) => find_output(&host, want)?,
    };
    let description = device.to_string();
    let config = device.default_output_config().map_err(|e| {
        VoiceError::Device(format!("output device {description:?} is not usable: {e}"))
    })?;
    let frames = (config.sample_rate() * OUTPUT_BUFFER_MS / 1000).max(64) & !1;
    let mut sink = DeviceSinkBuilder::from_device(device)
        .map_err(|e| VoiceError::Device(format!("output device {description:?}: {}", chain(&e))))?
        .with_buffer_size(cpal::BufferSize::Fixed(frames))
        .with_error_callback(warn_once_each())
        .open_sink_or_fallback()
        .map_err(|e| {
            VoiceError::Device(format!(
                "cannot open output device {description:?}: {}",
                chain(&e)
            ))
        })?;
    sink.log_on_drop(false);
    Ok((sink, description))
}

/// An error callback that logs each distinct stream error once: ALSA repeats
/// the same one on every period (1650 lines in a second were seen with a
/// PulseAudio null sink), and one line says it all.
fn warn_once_each() -> impl FnMut(cpal::Error) + Clone + Send + 'static {
    /// Distinct errors kept; beyond it they are no longer logged.
    const KEPT: usize = 16;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(std::collections::BTreeSet::new()));
    move |e| {
        let text = e.to_string();
        let Ok(mut seen) = seen.lock() else {
            return;
        };
        if seen.len() < KEPT && !seen.contains(&text) {
            tracing::warn!("audio output: {text} (logged once)");
            seen.insert(text);
        }
    }
}

fn find_output(host: &cpal::Host, want: &str) -> Result<cpal::Device, VoiceError> {
    let devices: Vec<cpal::Device> = host
        .output_devices()
        .map_err(|e| VoiceError::Device(format!("cannot list output devices: {e}")))?
        .collect();
    let id = |d: &cpal::Device| d.id().ok();
    let names: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
    let lower = want.to_lowercase();
    let index = devices
        .iter()
        .position(|d| id(d).is_some_and(|i| i.id() == want || i.to_string() == want))
        .or_else(|| names.iter().position(|n| n == want))
        .or_else(|| names.iter().position(|n| n.to_lowercase().contains(&lower)));
    match index {
        Some(i) => devices
            .into_iter()
            .nth(i)
            .ok_or_else(|| VoiceError::Device(format!("output device {want:?} vanished"))),
        None => {
            let ids: Vec<String> = devices
                .iter()
                .map(|d| id(d).map_or_else(|| d.to_string(), |i| i.to_string()))
                .collect();
            Err(VoiceError::Device(format!(
                "no output device named {want:?}; available: {}",
                if ids.is_empty() {
                    "none".to_string()
                } else {
                    ids.join(", ")
                }
            )))
        }
    }
}

fn chain(err: &dyn std::error::Error) -> String {
    crate::llm::openai::error_chain(err)
}

/// An in-process loudspeaker, clocked by the wall clock, that records what is
/// played (tests, benches, a daemon without a sound card). Stops when dropped.
pub struct VirtualOutput {
    recorded: Arc<Mutex<Vec<f32>>>,
    started: Instant,
    rate: u32,
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl VirtualOutput {
    /// A mono loudspeaker at `rate` Hz pulling 5 ms blocks, and the playback that feeds it.
    pub fn start(rate: u32) -> (VirtualOutput, Playback) {
        let rate = rate.max(1000);
        let (mixer, source) = rodio::mixer::mixer(
            NonZero::<u16>::MIN,
            NonZero::new(rate).unwrap_or(NonZero::<u32>::MIN),
        );
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let started = Instant::now();
        let thread = {
            let (recorded, stop) = (recorded.clone(), stop.clone());
            std::thread::Builder::new()
                .name("virtual-output".into())
                .spawn(move || pull(source, rate, started, &recorded, &stop))
                .ok()
        };
        let out = VirtualOutput {
            recorded,
            started,
            rate,
            stop,
            thread,
        };
        (out, Playback::with_mixer(mixer, "virtual output"))
    }

    /// Everything played so far (silence included), from the start.
    pub fn recorded(&self) -> Vec<f32> {
        self.recorded.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// The sample rate.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// The index of the sample played at `at`.
    pub fn sample_at(&self, at: Instant) -> usize {
        (at.saturating_duration_since(self.started).as_secs_f64() * f64::from(self.rate)) as usize
    }
}

impl Drop for VirtualOutput {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn pull(
    mut source: MixerSource,
    rate: u32,
    started: Instant,
    recorded: &Mutex<Vec<f32>>,
    stop: &std::sync::atomic::AtomicBool,
) {
    let mut pulled = 0usize;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let due = (started.elapsed().as_secs_f64() * f64::from(rate)) as usize;
        if due > pulled {
            // An idle mixer yields None: that is silence.
            let block: Vec<f32> = (pulled..due)
                .map(|_| source.next().unwrap_or(0.0))
                .collect();
            pulled = due;
            if let Ok(mut r) = recorded.lock() {
                r.extend(block);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
