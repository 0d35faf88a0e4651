//! The speech front end: audio in, `<speaker> said to <listener>: <text>` turns out.
//!
//! ```text
//! AudioSource (cpal device | WAV) -> raw channels ----------------> Localizer (GCC-PHAT) -> speaker
//!        \-> mono mix -> Resampler (16 kHz) -> Segmenter (VAD) -> Recognizer (whisper) -> text
//!                                               speaker + text + head poses -> listener -> Turn
//! ```

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub mod asr;
pub mod attribution;
pub mod cores;
pub mod doa;
pub mod listener;
pub mod participants;
pub mod resample;
pub mod settings;
pub mod source;
pub mod speaker;
pub mod turn;
pub mod vad;

pub use asr::{Recognizer, Transcript};
pub use attribution::{attribute, Attribution, Clues, LastQuestion, SpeakerBy};
pub use doa::{Doa, Localizer};
pub use listener::{resolve_listener, ListenerReason, ALL};
pub use participants::{participants_from_scene_file, Participant, Participants};
pub use resample::Resampler;
pub use settings::{AsrSettings, AudioSettings, VadSettings};
pub use source::{AudioSource, CpalSource, WavSource};
pub use speaker::{resolve_speaker, SpeakerMatch, UNKNOWN_SPEAKER};
pub use turn::Turn;
pub use vad::{Segmenter, Utterance, VAD_RATE};

/// Errors of the speech front end.
#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The model hears only English, and the language is another.
    #[error(
        "whisper model {path}: it hears only English, but the language is '{language}': use a \
         multilingual model such as models/ggml-base.bin (scripts/build-whisper-model.sh \
         models/ggml-base.bin) in [audio.asr] model"
    )]
    EnglishOnly {
        /// The model file.
        path: PathBuf,
        /// The configured language.
        language: String,
    },
    /// A WAV file could not be read or written.
    #[error("WAV file {path}: {detail}")]
    Wav {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// A scene file lacks what the front end needs.
    #[error("scene file {path}: {detail}")]
    Scene {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// The audio device is missing, vanished or refused the stream.
    #[error("audio device: {0}")]
    Device(String),
    /// The whisper model is missing or unreadable.
    #[error("whisper model {path}: {detail}")]
    Model {
        /// The model file.
        path: PathBuf,
        /// What went wrong and what to do.
        detail: String,
    },
    /// whisper failed on an utterance.
    #[error("speech recognition failed: {0}")]
    Recognition(String),
}

/// Anything that turns 16 kHz mono audio into a transcript (whisper, or a stub in tests).
pub trait Transcriber {
    /// Transcribes one utterance; `names` are hints for the recogniser.
    fn transcribe(
        &mut self,
        samples: &[f32],
        names: &[String],
    ) -> Result<Transcript, FrontendError>;

    /// A second hearing of the same utterance with the table's words in the
    /// prompt too (see [`Recognizer::transcribe_with_vocabulary`]); `None`: none.
    fn transcribe_with_vocabulary(
        &mut self,
        _samples: &[f32],
        _names: &[String],
    ) -> Result<Option<Transcript>, FrontendError> {
        Ok(None)
    }

    /// Words of the table (objects, contents, kinds) to bias recognition toward.
    fn set_vocabulary(&mut self, _words: &[String]) {}

    /// Notes the machine's load as audio comes in (whisper's threads follow it).
    fn observe_load(&mut self) {}
}

/// A borrowed transcriber: one loaded model serves many front ends in turn.
impl<T: Transcriber + ?Sized> Transcriber for &mut T {
    fn transcribe(
        &mut self,
        samples: &[f32],
        names: &[String],
    ) -> Result<Transcript, FrontendError> {
        (**self).transcribe(samples, names)
    }

    fn transcribe_with_vocabulary(
        &mut self,
        samples: &[f32],
        names: &[String],
    ) -> Result<Option<Transcript>, FrontendError> {
        (**self).transcribe_with_vocabulary(samples, names)
    }

    fn set_vocabulary(&mut self, words: &[String]) {
        (**self).set_vocabulary(words);
    }

    fn observe_load(&mut self) {
        (**self).observe_load();
    }
}

impl Transcriber for Recognizer {
    fn transcribe(
        &mut self,
        samples: &[f32],
        names: &[String],
    ) -> Result<Transcript, FrontendError> {
        Recognizer::transcribe(self, samples, names)
    }

    fn transcribe_with_vocabulary(
        &mut self,
        samples: &[f32],
        names: &[String],
    ) -> Result<Option<Transcript>, FrontendError> {
        Recognizer::transcribe_with_vocabulary(self, samples, names)
    }

    fn set_vocabulary(&mut self, words: &[String]) {
        Recognizer::set_vocabulary(self, words);
    }

    fn observe_load(&mut self) {
        Recognizer::observe_load(self);
    }
}

/// Counters of one run, for logs and measurements.
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    /// Seconds of audio consumed.
    pub audio_s: f64,
    /// Utterances the VAD found.
    pub utterances: usize,
    /// Utterances whose transcript was rejected (silence, noise, hallucination).
    pub rejected: usize,
    /// Turns produced.
    pub turns: usize,
    /// Longest time from the VAD closing an utterance to its turn (recognition included).
    pub max_turn_latency: Duration,
}

/// What the front end heard.
#[derive(Debug)]
pub enum Heard<'a> {
    /// A person paused after speaking: time to show that the robot listens.
    Pause {
        /// End of the speech, seconds from the stream's start.
        end_s: f64,
        /// Who it probably was (`unknown` without a direction).
        speaker: String,
    },
    /// A recognised turn.
    Turn(&'a Turn),
}

/// Options of [`FrontEnd::listen`].
pub struct Listening<'a> {
    /// Silence in ms after speech that reports a pause; `None`: no pauses.
    pub pause_ms: Option<u32>,
    /// Asked before every block; `true` ends the run.
    pub stop: &'a (dyn Fn() -> bool + Sync),
    /// Half-duplex: while the robot speaks, the microphone does not reach the recogniser.
    pub half_duplex: Option<&'a mut dyn HalfDuplex>,
    /// Whether a turn's words are complete (the understanding stage reads a
    /// request, question or thanks it is sure of). Given, the words are
    /// recognised after `vad.recognise_after_ms` of silence, and a complete
    /// turn ends at `vad.early_end_ms`, without waiting for `vad.end_silence_ms`.
    pub complete: Option<&'a mut (dyn FnMut(&Turn) -> bool + Send)>,
}

impl Default for Listening<'_> {
    fn default() -> Self {
        Self {
            pause_ms: None,
            stop: &|| false,
            half_duplex: None,
            complete: None,
        }
    }
}

/// The robot's side of half-duplex listening (implemented by the daemon over the voice).
pub trait HalfDuplex {
    /// Whether the microphone may reach the recogniser now (the robot is quiet).
    fn open(&mut self) -> bool;
    /// While closed: one block of `len` was voiced or not. `true` when a person
    /// has talked over the robot long enough (barge-in): the robot stops and the
    /// held audio goes on to the recogniser.
    fn heard_while_closed(&mut self, voiced: bool, len: std::time::Duration) -> bool;
}

/// Audio held while the gate is closed, so that a barge-in keeps the first words.
const HELD_MAX: usize = VAD_RATE as usize * 3 / 2;

/// Whether any 16 ms frame of 16 kHz audio is voiced.
/// Voice activity over the robot's own speech, frame by frame across blocks: a
/// live device delivers blocks shorter than one VAD frame (10 ms at 48 kHz is
/// 160 samples at 16 kHz), so samples are carried over and the last decision holds
/// until the next whole frame.
#[derive(Default)]
struct OverTalk {
    detector: vad::EarshotDetector,
    pending: Vec<f32>,
    voiced: bool,
    /// Audio time of the last direction check, and whether it found a person.
    checked: Option<(f64, bool)>,
    /// Audio time between checks, from what the last check cost.
    check_every_s: f64,
}

/// Audio used for one direction check while the robot speaks (s).
const OVER_TALK_WINDOW_S: f64 = 0.15;
/// Steepest direction (degrees from the array's plane) that counts as a person talking.
const OVER_TALK_MAX_ELEVATION_DEG: f32 = 45.0;
/// Direction checks take at most this share of real time: a check costs
/// milliseconds (tens in a debug build), a live device delivers a block every
/// few, and the microphone must keep up with real time.
const OVER_TALK_CPU_SHARE: f64 = 0.25;
/// Bounds of the time between direction checks (s).
const OVER_TALK_CHECK_EVERY_S: [f64; 2] = [0.05, 0.5];

impl OverTalk {
    fn voiced(&mut self, samples: &[f32], threshold: f32) -> bool {
        use vad::VoiceDetector;
        self.pending.extend_from_slice(samples);
        let frames = self.pending.len() / vad::FRAME;
        if frames > 0 {
            let mut any = false;
            for frame in self.pending.chunks_exact(vad::FRAME) {
                any |= self.detector.score(frame) >= threshold;
            }
            self.pending.drain(..frames * vad::FRAME);
            self.voiced = any;
        }
        self.voiced
    }

    /// Whether the voice comes from a person (not the loudspeaker): `check` runs
    /// on the last [`OVER_TALK_WINDOW_S`], as often as [`OVER_TALK_CPU_SHARE`] allows.
    fn is_a_person(&mut self, now_s: f64, check: impl FnOnce(f64) -> bool) -> bool {
        match self.checked {
            Some((at, person)) if now_s - at < self.check_every_s => person,
            _ => {
                let started = Instant::now();
                let person = check(OVER_TALK_WINDOW_S);
                let [least, most] = OVER_TALK_CHECK_EVERY_S;
                self.check_every_s =
                    (started.elapsed().as_secs_f64() / OVER_TALK_CPU_SHARE).clamp(least, most);
                self.checked = Some((now_s, person));
                person
            }
        }
    }

    fn reset(&mut self) {
        self.pending.clear();
        self.voiced = false;
        self.checked = None;
    }
}

/// The front end: one source in, turns out.
pub struct FrontEnd<T: Transcriber> {
    settings: AudioSettings,
    participants: Participants,
    transcriber: T,
    /// The robot's last question to a person (answers are attributed to them).
    last_question: LastQuestion,
    /// The words of the open utterance recognised early: if no more speech
    /// follows, they are its transcript (at the early end when complete).
    provisional: Option<Provisional>,
    /// The last turn that ended early: speech that starts again within the
    /// end-of-turn silence goes on with it.
    ended_early: Option<EndedEarly>,
}

/// Who spoke a turn that ended early, to whom, and when it ended.
struct EndedEarly {
    end_s: f64,
    speaker: String,
    speaker_by: SpeakerBy,
    listener: String,
}

impl<T: Transcriber> std::fmt::Debug for FrontEnd<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrontEnd")
            .field("settings", &self.settings)
            .finish()
    }
}

impl<T: Transcriber> FrontEnd<T> {
    /// A front end for these people with this recogniser.
    pub fn new(settings: AudioSettings, participants: Participants, transcriber: T) -> Self {
        Self {
            settings,
            participants,
            transcriber,
            last_question: LastQuestion::default(),
            provisional: None,
            ended_early: None,
        }
    }

    /// Where the robot's questions are noted, for attributing the answers.
    pub fn last_question(&self) -> LastQuestion {
        self.last_question.clone()
    }

    /// Replaces the people (the twin moved them).
    pub fn set_participants(&mut self, participants: Participants) {
        self.participants = participants;
    }

    /// The table's words (objects, contents, kinds) the recogniser is biased toward.
    pub fn set_vocabulary(&mut self, words: &[String]) {
        self.transcriber.set_vocabulary(words);
    }

    /// Reads `source` to its end, calling `on_turn` for every turn.
    pub fn run(
        &mut self,
        source: &mut dyn AudioSource,
        mut on_turn: impl FnMut(&Turn),
    ) -> Result<RunStats, FrontendError> {
        self.listen(source, &mut Listening::default(), |heard| {
            if let Heard::Turn(turn) = heard {
                on_turn(turn);
            }
        })
    }

    /// Reads `source` until it ends or `options.stop` says so, reporting pauses
    /// (the listening cue, before recognition) and turns.
    pub fn listen(
        &mut self,
        source: &mut dyn AudioSource,
        options: &mut Listening<'_>,
        mut on_heard: impl FnMut(Heard<'_>),
    ) -> Result<RunStats, FrontendError> {
        let mut stream = self.open_stream(source.sample_rate(), source.channels(), options);
        self.provisional = None;
        self.ended_early = None;
        loop {
            if (options.stop)() {
                break;
            }
            let block = source.next_block()?;
            self.transcriber.observe_load();
            let utterances = match &block {
                Some(b) => self.take_block(&mut stream, b, options.half_duplex.as_deref_mut()),
                None => stream.segmenter.push(&stream.resampler.finish()),
            };
            self.report_pause(&mut stream, &mut on_heard);
            let done = block.is_none();
            self.hear(&mut stream, utterances, done, options, &mut on_heard)?;
            if done {
                break;
            }
        }
        stream.stats.audio_s = stream.frames_in as f64 / stream.rate as f64;
        Ok(stream.stats)
    }

    /// The state of one run over a source: its format, the localiser, the VAD.
    fn open_stream(&self, rate: u32, channels: usize, options: &Listening<'_>) -> Stream {
        let mut vad = self.settings.vad.clone();
        // Recognition holds the stream up: the pause cue comes first.
        if let Some(ms) = options.pause_ms {
            vad.recognise_after_ms = vad.recognise_after_ms.max(ms);
        }
        let mut segmenter = Segmenter::new(vad);
        if options.complete.is_some() {
            segmenter = segmenter.with_early_end();
        }
        if let Some(ms) = options.pause_ms {
            segmenter = segmenter.with_pause_ms(ms);
        }
        Stream {
            rate,
            channels,
            localizer: self.localizer(rate, channels),
            resampler: Resampler::new(rate, VAD_RATE),
            segmenter,
            raw: RawBuffer::new(
                channels,
                rate,
                self.settings.vad.max_utterance_s as f64 + 3.0,
            ),
            over_talk: OverTalk::default(),
            held: Vec::new(),
            mono: Vec::new(),
            frames_in: 0,
            stats: RunStats::default(),
        }
    }

    /// The direction finder, when the source has a channel per configured microphone.
    fn localizer(&self, rate: u32, channels: usize) -> Option<Localizer> {
        let mics = self.settings.mic_positions.len();
        let localizer = (channels >= mics)
            .then(|| {
                Localizer::new(
                    &self.settings.mic_positions,
                    self.settings.speed_of_sound,
                    rate,
                )
            })
            .flatten();
        match (&localizer, &self.settings.fallback_speaker) {
            (None, Some(s)) => {
                tracing::info!(channels, mics, "no direction of arrival; every speaker is {s}")
            }
            (None, None) => tracing::warn!(
                channels,
                mics,
                "no direction of arrival (need as many channels as configured microphones, at least 2); speakers will be `unknown`"
            ),
            (Some(_), _) if channels > mics => {
                tracing::info!(channels, mics, "using the first {mics} channels for localisation")
            }
            (Some(_), _) => {}
        }
        localizer
    }

    /// One block of the source into the VAD; while the robot speaks it is held
    /// back (half-duplex) unless a person barges in.
    fn take_block(
        &self,
        stream: &mut Stream,
        block: &[f32],
        mut gate: Option<&mut (dyn HalfDuplex + '_)>,
    ) -> Vec<Utterance> {
        let channels = stream.channels;
        stream.raw.push(block);
        stream.frames_in += (block.len() / channels) as u64;
        stream.mono.clear();
        stream.mono.extend(
            block
                .chunks(channels)
                .map(|f| f.iter().sum::<f32>() / channels as f32),
        );
        let audio = stream.resampler.process(&stream.mono);
        let block_len =
            Duration::from_secs_f64((block.len() / channels) as f64 / stream.rate as f64);
        let closed = gate.as_deref_mut().is_some_and(|gate| !gate.open());
        match gate {
            Some(gate) if closed => self.held_back(stream, &audio, gate, block_len),
            _ => {
                stream.over_talk.reset();
                let mut out = Vec::new();
                if !stream.held.is_empty() {
                    // What was held was the robot's own voice: never recognised.
                    out.extend(stream.segmenter.push(&vec![0.0; stream.held.len()]));
                    stream.held.clear();
                }
                out.extend(stream.segmenter.push(&audio));
                out
            }
        }
    }

    /// The robot speaks: hold the audio; silence keeps the timeline. Only a
    /// voice from a person's direction can barge in: the robot's own
    /// loudspeaker is heard too, and one microphone cannot tell them apart,
    /// so without an array nobody can.
    fn held_back(
        &self,
        stream: &mut Stream,
        audio: &[f32],
        gate: &mut (dyn HalfDuplex + '_),
        block_len: Duration,
    ) -> Vec<Utterance> {
        let now_s = stream.frames_in as f64 / stream.rate as f64;
        let (localizer, raw, channels) = (&stream.localizer, &stream.raw, stream.channels);
        let voiced = stream.over_talk.voiced(audio, self.settings.vad.threshold)
            && stream.over_talk.is_a_person(now_s, |window_s| {
                localizer.as_ref().is_some_and(|l| {
                    // People across the table arrive near the array's plane; the
                    // robot's own loudspeaker sits right by the array and arrives
                    // from steeply above or below (every channel alike).
                    let doa = l
                        .estimate(&raw.slice(now_s - window_s, now_s), channels)
                        .filter(|d| d.elevation_deg.abs() <= OVER_TALK_MAX_ELEVATION_DEG);
                    let max_error = self.settings.max_speaker_error_deg;
                    resolve_speaker(doa.as_ref(), &self.participants, max_error, None).name
                        != UNKNOWN_SPEAKER
                })
            });
        let mut out = Vec::new();
        stream.held.extend_from_slice(audio);
        if stream.held.len() > HELD_MAX {
            let old = stream.held.len() - HELD_MAX;
            out.extend(stream.segmenter.push(&vec![0.0; old]));
            stream.held.drain(..old);
        }
        if gate.heard_while_closed(voiced, block_len) {
            tracing::info!("barge-in: a person talks over the robot");
            out.extend(stream.segmenter.push(&stream.held));
            stream.held.clear();
        }
        out
    }

    /// The listening cue: a person paused after speaking, before recognition.
    fn report_pause(&self, stream: &mut Stream, on_heard: &mut impl FnMut(Heard<'_>)) {
        let Some(end_s) = stream.segmenter.take_pause() else {
            return;
        };
        let start_s = stream.segmenter.speech_start_s().unwrap_or(end_s);
        let doa = stream.localizer.as_ref().and_then(|l| {
            let audio = stream.raw.slice(start_s - 0.05, end_s + 0.05);
            l.estimate(&audio, stream.channels)
        });
        let speaker = resolve_speaker(
            doa.as_ref(),
            &self.participants,
            self.settings.max_speaker_error_deg,
            self.settings.fallback_speaker.as_deref(),
        );
        on_heard(Heard::Pause {
            end_s,
            speaker: speaker.name,
        });
    }

    /// Recognises the closed utterances and the words offered early, and hears
    /// their turns; at the end of the stream, what is still open closes.
    fn hear(
        &mut self,
        stream: &mut Stream,
        mut utterances: Vec<Utterance>,
        done: bool,
        options: &mut Listening<'_>,
        on_heard: &mut impl FnMut(Heard<'_>),
    ) -> Result<(), FrontendError> {
        let mut finished = false;
        loop {
            for u in utterances.drain(..) {
                stream.stats.utterances += 1;
                let closed = Instant::now();
                let sure = options.complete.as_deref_mut();
                let turn = self.closed_turn(&u, stream.direction(&u).as_ref(), sure)?;
                heard(&mut stream.stats, turn, closed, on_heard);
            }
            match stream.segmenter.take_early() {
                Some(early) => {
                    let doa = stream.direction(&early);
                    let complete = options.complete.as_deref_mut();
                    if self.early_turn(&early, doa.as_ref(), complete)? {
                        stream.segmenter.end_early();
                    }
                    utterances = stream.segmenter.push(&[]);
                }
                None if done && !finished => {
                    finished = true;
                    utterances.extend(stream.segmenter.finish());
                }
                None => return Ok(()),
            }
        }
    }

    /// Recognises the words of an open utterance at a short silence; they
    /// wait in `self.provisional` for the utterance to close. `true` when
    /// they are complete, so that it may close at the early end.
    fn early_turn(
        &mut self,
        early: &Utterance,
        doa: Option<&Doa>,
        mut complete: Option<&mut (dyn FnMut(&Turn) -> bool + Send + '_)>,
    ) -> Result<bool, FrontendError> {
        let turn = self.turn_heard_twice(early, doa, complete.as_deref_mut())?;
        let is_complete = match (&turn, complete) {
            (Some(t), Some(complete)) => {
                complete(t)
                    || t.alternatives.iter().any(|a| {
                        complete(&Turn {
                            text: a.clone(),
                            ..t.clone()
                        })
                    })
            }
            _ => false,
        };
        if let (true, Some(t)) = (is_complete, &turn) {
            tracing::debug!(text = %t.text, "the words are complete: the turn ends at the early end");
            self.ended_early = Some(EndedEarly {
                end_s: early.end_s,
                speaker: t.speaker.clone(),
                speaker_by: t.speaker_by,
                listener: t.listener.clone(),
            });
        }
        self.provisional = Some(Provisional {
            start_s: early.start_s,
            end_s: early.end_s,
            turn: turn.map(|t| Turn {
                early: is_complete,
                ..t
            }),
        });
        Ok(is_complete)
    }

    /// The turn of a closed utterance: the words recognised early when no
    /// speech followed them, else recognised now.
    fn closed_turn(
        &mut self,
        u: &Utterance,
        doa: Option<&Doa>,
        sure: Option<&mut (dyn FnMut(&Turn) -> bool + Send + '_)>,
    ) -> Result<Option<Turn>, FrontendError> {
        match self.provisional.take() {
            Some(p) if p.start_s == u.start_s && p.end_s == u.end_s => Ok(p.turn),
            _ => self.turn_heard_twice(u, doa, sure),
        }
    }

    /// The turn of one utterance; when `sure` finds its words not read with
    /// certainty, the utterance is heard a second time with the table's things
    /// in the prompt, and that text goes with the turn as an alternative for
    /// the understanding stage to choose (a first hearing with them in the
    /// prompt makes whisper write them where they were not said, and costs
    /// every turn the time of a longer prompt).
    fn turn_heard_twice(
        &mut self,
        u: &Utterance,
        doa: Option<&Doa>,
        sure: Option<&mut (dyn FnMut(&Turn) -> bool + Send + '_)>,
    ) -> Result<Option<Turn>, FrontendError> {
        let Some(mut turn) = self.turn(u, doa)? else {
            return Ok(None);
        };
        let Some(sure) = sure.filter(|_| self.settings.asr.second_hearing) else {
            return Ok(Some(turn));
        };
        if sure(&turn) {
            return Ok(Some(turn));
        }
        let names = self.prompt_names();
        let Some(second) = self
            .transcriber
            .transcribe_with_vocabulary(&u.samples, &names)?
        else {
            return Ok(Some(turn));
        };
        turn.recognition_ms += second.elapsed.as_secs_f64() * 1000.0;
        if let Some(why) = &second.rejected {
            tracing::debug!(text = %second.text, "second hearing rejected: {why}");
            return Ok(Some(turn));
        }
        // Believed only where the recogniser is as sure of it as of the first:
        // the prompt's words written over what was said come with less certainty.
        if second.confidence < turn.confidence {
            tracing::debug!(text = %second.text, confidence = second.confidence, first = turn.confidence, "second hearing less certain than the first");
            return Ok(Some(turn));
        }
        let text = self.restored_vocative(&second.text).unwrap_or(second.text);
        if text != turn.text {
            tracing::debug!(first = %turn.text, second = %text, "heard a second time with the table's things");
            let (listener, _) = resolve_listener(
                &text,
                &turn.speaker,
                &self.participants,
                self.settings.listener_cone_deg,
            );
            turn.alternatives.push(text);
            turn.alternative_listeners.push(listener);
        }
        Ok(Some(turn))
    }

    /// The text with a name misheard at its start put right, when there is
    /// one and `asr.restore_vocative` is on.
    fn restored_vocative(&self, text: &str) -> Option<String> {
        self.settings
            .asr
            .restore_vocative
            .then(|| listener::restore_vocative(text, &self.participants))
            .flatten()
    }

    /// Names for the recogniser's prompt (none when `asr.prompt_names` is off).
    fn prompt_names(&self) -> Vec<String> {
        if self.settings.asr.prompt_names {
            self.participants.spoken_names()
        } else {
            Vec::new()
        }
    }

    /// The turn of one utterance, or `None` if the recogniser's text was rejected.
    pub fn turn(
        &mut self,
        u: &Utterance,
        doa: Option<&Doa>,
    ) -> Result<Option<Turn>, FrontendError> {
        let names = self.prompt_names();
        let transcript = self.transcriber.transcribe(&u.samples, &names)?;
        if let Some(why) = &transcript.rejected {
            tracing::info!(start_s = u.start_s, text = %transcript.text, "utterance rejected: {why}");
            return Ok(None);
        }
        // A name misheard at the start decides the listener: put it right first.
        let restored = self.restored_vocative(&transcript.text);
        if let Some(text) = &restored {
            tracing::info!(heard = %transcript.text, as_ = %text, "a misheard name at the start put right");
        }
        let text = restored.clone().unwrap_or_else(|| transcript.text.clone());
        let window = std::time::Duration::from_secs_f32(self.settings.answer_window_s.max(0.0));
        let who = attribute(
            &text,
            &self.participants,
            &Clues {
                doa,
                max_error_deg: self.settings.max_speaker_error_deg,
                cone_deg: self.settings.listener_cone_deg,
                // The reply counts from when the person began to speak.
                asked: self.last_question.recent(
                    speech_began(transcript.elapsed, u.end_s - u.start_s),
                    window,
                ),
                fallback: self.settings.fallback_speaker.as_deref(),
            },
        );
        if who.speaker_by == SpeakerBy::Unknown {
            tracing::info!(doa = ?doa.map(|d| d.azimuth_deg), "speaker unknown");
        }
        tracing::debug!(speaker_by = who.speaker_by.as_str(), reason = ?who.listener_by, listener = who.listener, "speaker and listener resolved");
        tracing::debug!(
            elapsed_ms = transcript.elapsed.as_millis() as u64,
            audio_ctx = transcript.audio_ctx,
            threads = transcript.threads,
            "recognised"
        );
        let mut turn = Turn::new(who.speaker, who.listener, text);
        turn.heard = restored.map(|_| transcript.text.clone());
        turn.speaker_by = who.speaker_by;
        self.go_on_after_an_early_end(&mut turn, u, who.listener_by);
        turn.start_s = u.start_s;
        turn.end_s = u.end_s;
        turn.doa_deg = doa.map(|d| d.azimuth_deg);
        turn.confidence = transcript.confidence;
        turn.recognition_ms = transcript.elapsed.as_secs_f64() * 1000.0;
        Ok(Some(turn))
    }
}

impl<T: Transcriber> FrontEnd<T> {
    /// Speech that starts within the end-of-turn silence after a turn that
    /// ended early is that person going on: their speaker, unless another
    /// person is told apart, and their listener, unless it names its own.
    fn go_on_after_an_early_end(
        &self,
        turn: &mut Turn,
        u: &Utterance,
        listener_by: ListenerReason,
    ) {
        let Some(before) = &self.ended_early else {
            return;
        };
        let gap_s = u.start_s - before.end_s;
        let silence_s = f64::from(self.settings.vad.end_silence_ms) / 1000.0;
        if !(0.0..silence_s).contains(&gap_s) {
            return;
        }
        let same_person = turn.speaker == before.speaker
            || matches!(turn.speaker_by, SpeakerBy::Unknown | SpeakerBy::Config);
        if !same_person {
            return;
        }
        turn.speaker = before.speaker.clone();
        turn.speaker_by = before.speaker_by;
        if listener_by != ListenerReason::Vocative {
            turn.listener = before.listener.clone();
        }
        turn.continues = true;
        tracing::debug!(gap_s, speaker = %turn.speaker, listener = %turn.listener, "speech went on after an early end");
    }
}

/// An open utterance's words recognised early (see [`Listening::complete`]).
struct Provisional {
    start_s: f64,
    end_s: f64,
    turn: Option<Turn>,
}

/// One run of the front end over a source.
struct Stream {
    rate: u32,
    channels: usize,
    localizer: Option<Localizer>,
    resampler: Resampler,
    segmenter: Segmenter,
    /// The last seconds of the source's channels, for directions.
    raw: RawBuffer,
    over_talk: OverTalk,
    /// Audio held while the robot speaks (half-duplex).
    held: Vec<f32>,
    /// The current block mixed to one channel.
    mono: Vec<f32>,
    frames_in: u64,
    stats: RunStats,
}

impl Stream {
    /// The direction of an utterance's speech, where a microphone array gives one.
    fn direction(&self, u: &Utterance) -> Option<Doa> {
        let audio = self.raw.slice(u.start_s - 0.05, u.end_s + 0.05);
        self.localizer
            .as_ref()
            .and_then(|l| l.estimate(&audio, self.channels))
    }
}

/// Counts a recognised utterance and reports its turn, if its text was taken.
fn heard(
    stats: &mut RunStats,
    turn: Option<Turn>,
    closed: Instant,
    on_heard: &mut impl FnMut(Heard<'_>),
) {
    match turn {
        Some(turn) => {
            stats.turns += 1;
            on_heard(Heard::Turn(&turn));
            stats.max_turn_latency = stats.max_turn_latency.max(closed.elapsed());
        }
        None => stats.rejected += 1,
    }
}

/// The last seconds of raw interleaved audio, addressable by stream time.
struct RawBuffer {
    channels: usize,
    rate: u32,
    cap_frames: usize,
    first_frame: u64,
    data: VecDeque<f32>,
}

impl RawBuffer {
    fn new(channels: usize, rate: u32, seconds: f64) -> Self {
        Self {
            channels,
            rate,
            cap_frames: (seconds * rate as f64) as usize,
            first_frame: 0,
            data: VecDeque::new(),
        }
    }

    fn push(&mut self, block: &[f32]) {
        self.data.extend(block);
        let frames = self.data.len() / self.channels;
        if frames > self.cap_frames {
            let drop = frames - self.cap_frames;
            self.data.drain(..drop * self.channels);
            self.first_frame += drop as u64;
        }
    }

    fn slice(&self, from_s: f64, to_s: f64) -> Vec<f32> {
        let frames = (self.data.len() / self.channels) as u64;
        let at = |s: f64| {
            ((s.max(0.0) * self.rate as f64) as u64)
                .clamp(self.first_frame, self.first_frame + frames)
        };
        let (a, b) = (at(from_s) - self.first_frame, at(to_s) - self.first_frame);
        self.data
            .range(a as usize * self.channels..b as usize * self.channels)
            .copied()
            .collect()
    }
}

/// When an utterance began, from now: recognition took `recognising`, and the
/// speech lasted `speech_s` before the end-of-turn silence.
fn speech_began(recognising: std::time::Duration, speech_s: f64) -> Instant {
    let back = recognising + std::time::Duration::from_secs_f64(speech_s.max(0.0));
    Instant::now()
        .checked_sub(back)
        .unwrap_or_else(Instant::now)
}
