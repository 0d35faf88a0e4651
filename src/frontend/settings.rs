//! `[audio]` configuration of the speech front end.

use std::path::PathBuf;

use serde::Deserialize;

/// Settings of the speech front end: the `[audio]` section of the configuration.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AudioSettings {
    /// Input device name (as cpal lists it); `None` takes the default device.
    pub device: Option<String>,
    /// Requested capture rate in Hz; `None` takes the device's default.
    pub sample_rate: Option<u32>,
    /// Microphone positions relative to the array origin, in the robot frame
    /// (x forward, y left, z up), metres, in channel order.
    pub mic_positions: Vec<[f32; 3]>,
    /// Array origin in the robot frame, relative to the robot's floor point (metres).
    pub array_offset: [f32; 3],
    /// Speed of sound in m/s.
    pub speed_of_sound: f32,
    /// Largest difference in degrees between the direction of arrival and a
    /// person's head direction for that person to be taken as the speaker.
    pub max_speaker_error_deg: f32,
    /// Speaker used when the direction cannot be measured (one microphone); `None` gives `unknown`.
    pub fallback_speaker: Option<String>,
    /// Seconds after the robot asked a person a question within which a reply
    /// is taken as that person's answer (one microphone).
    pub answer_window_s: f32,
    /// Voice activity detection and end of turn.
    pub vad: VadSettings,
    /// Speech recognition.
    pub asr: AsrSettings,
    /// Half-angle in degrees of the cone around the speaker's head direction
    /// in which the listener is searched.
    pub listener_cone_deg: f32,
}

/// Voice activity detection and utterance segmentation.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct VadSettings {
    /// Speech probability (0..1) above which a 16 ms frame counts as voiced.
    pub threshold: f32,
    /// Audio kept before the first voiced frame, in ms (onsets are soft).
    pub pre_roll_ms: u32,
    /// Shortest utterance in ms of voiced audio; shorter bursts (clicks, coughs) are dropped.
    pub min_speech_ms: u32,
    /// Silence in ms that ends an utterance (end of turn).
    pub end_silence_ms: u32,
    /// Silence in ms after which the words so far are recognised early; when
    /// the listener of the front end reads them as a complete turn (a request,
    /// question or thanks the understanding stage is sure of), the turn ends
    /// there instead of after `end_silence_ms`. 0 (or not below
    /// `end_silence_ms`): off.
    pub early_end_ms: u32,
    /// Silence in ms after which the words so far are recognised for the early
    /// end, so that recognition runs while the silence goes on and the turn can
    /// end as soon as `early_end_ms` is reached. At least the `listening` cue's
    /// pause, at most `early_end_ms`; below ~100 ms the words are recognised
    /// with less of the audio after the last voiced frame than a closed
    /// utterance keeps (measured: quicker, a few turns worse in noise).
    pub recognise_after_ms: u32,
    /// Longest utterance in seconds; longer speech is cut (whisper's window is 30 s).
    pub max_utterance_s: f32,
    /// Inside an utterance, a frame this many dB below its loudest frame is
    /// no sound even where the detector still calls it voiced (its frames stay
    /// voiced ~100 ms past the last sound), so that the listening cue, early
    /// recognition and the early end count from the last sound in a quiet
    /// room; the end of the turn still waits for the detector's silence, and
    /// in noise no frame falls that low. 0: off.
    pub quiet_below_db: f32,
}

/// Whisper recognition.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AsrSettings {
    /// Path of the ggml model; the environment variable `ATTENTIVE_WHISPER_MODEL` overrides it.
    pub model: PathBuf,
    /// Spoken language (whisper code, e.g. `en`).
    pub language: String,
    /// Decoder threads; 0 (the default): one per core other programs leave
    /// free, at most 4, read from `/proc/stat` over the last half second
    /// (ggml's workers spin-wait, so a thread on a busy core slows all of them).
    pub threads: u32,
    /// Segments whose no-speech probability is above this are rejected.
    pub no_speech_threshold: f32,
    /// Utterances whose mean token probability is below this are rejected.
    /// 0.25 measured better than 0.35 in every spoken condition: requests said
    /// in noise come at 0.30-0.35, and the understanding stage, not this
    /// threshold, keeps noise words from becoming actions.
    pub min_confidence: f32,
    /// Give the participants' names as the initial prompt.
    pub prompt_names: bool,
    /// Give the table's things (objects, contents, kinds) in the initial prompt too.
    /// Off by default: measured, whisper then writes the prompt's words where
    /// they were not said ("the carafe" for "the cow's"), and the robot acted on them.
    pub prompt_vocabulary: bool,
    /// Hear an utterance whose words the understanding stage is not sure of a
    /// second time, with the table's things in the prompt; the stage takes
    /// that text only where it then reads the turn better.
    pub second_hearing: bool,
    /// Put a name misheard at the start of an utterance right ("then you'll," → Daniel).
    pub restore_vocative: bool,
    /// Beams of whisper's beam search (at most 8); 1 decodes greedily.
    pub beam_size: u32,
    /// Beams for an utterance whose speech stands less than `noisy_below_db`
    /// above the room's noise: in noise a beam search hears more than greedy
    /// decoding, in a quiet room it does not (and takes ~1.7 times as long).
    pub noisy_beam_size: u32,
    /// Speech this few dB above the noise of its own utterance is noisy.
    pub noisy_below_db: f32,
    /// The ggml model that hears noisy speech (a larger one: in a 10 dB room
    /// whisper base heard 19 more of 377 turns right than tiny.en, at ~1.4 times
    /// the recognition time); found like `model`. Empty, missing, or the same
    /// file as `model`: noisy speech is heard with `model`.
    pub noisy_model: PathBuf,
    /// A sentence of an utterance this many dB below its loudest sentence is
    /// another person talking under the speaker and left out; 0 keeps all.
    pub quieter_talker_db: f32,
    /// The prompt's sentence about the people, in the spoken language (`{names}`).
    pub prompt_people: String,
    /// The prompt's sentence about the table's things (`{things}`).
    pub prompt_things: String,
}

impl Default for AudioSettings {
    fn default() -> Self {
        Self {
            device: None,
            sample_rate: None,
            mic_positions: circular_array(4, 0.032),
            array_offset: [0.0, 0.0, 1.3],
            speed_of_sound: 343.0,
            max_speaker_error_deg: 25.0,
            fallback_speaker: None,
            answer_window_s: 8.0,
            vad: VadSettings::default(),
            asr: AsrSettings::default(),
            listener_cone_deg: 30.0,
        }
    }
}

impl Default for VadSettings {
    fn default() -> Self {
        Self {
            threshold: 0.5,
            pre_roll_ms: 200,
            min_speech_ms: 250,
            end_silence_ms: 500,
            early_end_ms: 200,
            recognise_after_ms: 100,
            max_utterance_s: 28.0,
            quiet_below_db: 30.0,
        }
    }
}

impl Default for AsrSettings {
    fn default() -> Self {
        Self {
            model: PathBuf::from("models/ggml-tiny.en.bin"),
            language: "en".into(),
            threads: 0,
            no_speech_threshold: 0.6,
            min_confidence: 0.25,
            prompt_names: true,
            prompt_vocabulary: false,
            second_hearing: true,
            restore_vocative: true,
            beam_size: 1,
            noisy_beam_size: 5,
            noisy_below_db: 25.0,
            noisy_model: PathBuf::from("models/ggml-base.bin"),
            quieter_talker_db: 8.0,
            prompt_people: "{names} are talking at the table.".into(),
            prompt_things: "On the table: {things}.".into(),
        }
    }
}

impl AsrSettings {
    /// The model path after the `ATTENTIVE_WHISPER_MODEL` override; a relative
    /// path is found like the scenes are (data root, XDG data dir), not in the
    /// current directory.
    pub fn model_path(&self) -> PathBuf {
        match std::env::var_os("ATTENTIVE_WHISPER_MODEL") {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => crate::paths::data_file(&self.model),
        }
    }

    /// The path of the model for noisy speech, when one is set.
    pub fn noisy_model_path(&self) -> Option<PathBuf> {
        (!self.noisy_model.as_os_str().is_empty())
            .then(|| crate::paths::data_file(&self.noisy_model))
    }
}

/// `n` microphones evenly on a horizontal circle of `radius` metres, the first on +x
/// (the ReSpeaker 4-mic layout by default).
pub fn circular_array(n: usize, radius: f32) -> Vec<[f32; 3]> {
    (0..n)
        .map(|i| {
            let a = i as f32 * std::f32::consts::TAU / n as f32;
            [radius * a.cos(), radius * a.sin(), 0.0]
        })
        .collect()
}
