//! Speech recognition with whisper.cpp (whisper-rs), local and offline.

use std::path::Path;
use std::time::{Duration, Instant};

use whisper_rs::{
    FullParams, SamplingStrategy, WhisperContext, WhisperContextParameters, WhisperState,
};

use super::cores::FreeCores;
use super::settings::AsrSettings;
use super::vad::{rms, VAD_RATE};
use super::FrontendError;

/// Encoder positions per second of audio (whisper: 1500 for 30 s).
const CTX_PER_SECOND: f32 = 50.0;
/// Extra encoder positions beyond the audio: trimming to the exact length
/// makes tiny.en drop the last word.
const CTX_MARGIN: i32 = 64;
// Measured on espeak sentences with tiny.en, 1 thread: margin 64 took 0.5 s per
// 3 s utterance against 3.8 s for the full 1500; 128-512 were not more accurate.
/// Most text tokens per second of audio (fast speech is ~4 words, ~5 tokens per second):
/// with a trimmed context tiny.en sometimes repeats the sentence until stopped.
const MAX_TOKENS_PER_SECOND: f32 = 6.0;
/// Silence put before every utterance, seconds.
const LEAD_IN_S: f32 = 0.2;
/// Shortest audio given to whisper; shorter utterances are padded with silence.
const MIN_SECONDS: f32 = 1.0;
/// Most threads `audio.asr.threads = 0` takes (tiny.en gains little past four).
const MAX_AUTO_THREADS: u32 = 4;

/// What whisper made of one utterance, before or after rejection.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    /// The text, trimmed.
    pub text: String,
    /// Mean probability of the text tokens, 0..1.
    pub confidence: f32,
    /// Highest no-speech probability of the segments, 0..1.
    pub no_speech_prob: f32,
    /// Why the text is not to be trusted, if so (silence, noise, hallucination).
    pub rejected: Option<String>,
    /// Wall time of the recognition.
    pub elapsed: Duration,
    /// The `audio_ctx` used.
    pub audio_ctx: i32,
    /// The decoder threads used.
    pub threads: u32,
    /// Heard with the model for noisy speech (`audio.asr.noisy_model`).
    pub noisy_model: bool,
}

impl Transcript {
    /// The text if it was accepted.
    pub fn accepted_text(&self) -> Option<&str> {
        self.rejected.is_none().then_some(self.text.as_str())
    }
}

/// A loaded whisper model with its decoding state.
struct Model {
    ctx: WhisperContext,
    state: WhisperState,
    /// The last decoding was a beam search (the state is then made afresh).
    searched: bool,
}

impl Model {
    /// Loads the ggml model at `path` for `language`.
    fn load(path: &Path, language: &str) -> Result<Self, FrontendError> {
        if !path.is_file() {
            return Err(FrontendError::Model {
                path: path.to_path_buf(),
                detail: format!("no such file; {MODEL_HINT}"),
            });
        }
        // Route whisper.cpp's chatter into tracing instead of stderr.
        whisper_rs::install_logging_hooks();
        let mut params = WhisperContextParameters::default();
        params.use_gpu(false);
        let ctx =
            WhisperContext::new_with_params(path, params).map_err(|e| FrontendError::Model {
                path: path.to_path_buf(),
                detail: format!("whisper could not load it ({e}); is it a ggml model?"),
            })?;
        if !ctx.is_multilingual() && language != "en" {
            return Err(FrontendError::EnglishOnly {
                path: path.to_path_buf(),
                language: language.to_string(),
            });
        }
        let state = ctx.create_state().map_err(|e| FrontendError::Model {
            path: path.to_path_buf(),
            detail: format!("cannot create a decoding state: {e}"),
        })?;
        Ok(Self {
            ctx,
            state,
            searched: false,
        })
    }

    /// The model for noisy speech the settings name, unless it is `main`'s
    /// file; a missing or unusable one is said once in the log, and noisy
    /// speech is then heard with the main model.
    fn noisy(settings: &AsrSettings, main: &Path) -> Option<Self> {
        let path = settings.noisy_model_path()?;
        if same_file(&path, main) {
            return None;
        }
        if !path.is_file() {
            tracing::info!(
                "no model for noisy speech at {} (build it with scripts/build-whisper-model.sh \
                 models/ggml-base.bin); noisy speech is heard with {}",
                path.display(),
                main.display()
            );
            return None;
        }
        match Self::load(&path, &settings.language) {
            Ok(model) => Some(model),
            Err(e) => {
                tracing::info!("{e}; noisy speech is heard with {}", main.display());
                None
            }
        }
    }
}

/// Whether two paths name the same file (or the same path, when missing).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The recogniser: a model for speech in a quiet room, and optionally a
/// larger one for speech that stands little above the room's noise.
pub struct Recognizer {
    quiet: Model,
    noisy: Option<Model>,
    settings: AsrSettings,
    /// The table's words for the prompt.
    vocabulary: Vec<String>,
    /// The cores other programs leave free (`threads = 0`).
    cores: FreeCores,
}

impl std::fmt::Debug for Recognizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recognizer")
            .field("settings", &self.settings)
            .finish()
    }
}

/// Hint shown whenever the model file is missing.
pub const MODEL_HINT: &str = "download ggml-tiny.en.bin from the whisper.cpp model page into models/, \
or build it offline with scripts/build-whisper-model.sh; ATTENTIVE_WHISPER_MODEL or [audio.asr] model \
point elsewhere";

impl Recognizer {
    /// Loads the model named by the settings (after the `ATTENTIVE_WHISPER_MODEL` override).
    pub fn new(settings: &AsrSettings) -> Result<Self, FrontendError> {
        let path = settings.model_path();
        match Self::with_model(&path, settings) {
            // German with the English-only default: the multilingual model for
            // noisy speech hears every utterance, when it is there.
            Err(english_only @ FrontendError::EnglishOnly { .. }) => {
                let Some(multilingual) = settings.noisy_model_path().filter(|p| p.is_file()) else {
                    return Err(english_only);
                };
                tracing::info!(
                    "{english_only}; hearing '{}' with {} instead",
                    settings.language,
                    multilingual.display()
                );
                Self::with_model(&multilingual, settings)
            }
            loaded => loaded,
        }
    }

    /// Loads the model at `path`, and the one for noisy speech the settings name.
    pub fn with_model(path: &Path, settings: &AsrSettings) -> Result<Self, FrontendError> {
        Ok(Self {
            quiet: Model::load(path, &settings.language)?,
            noisy: Model::noisy(settings, path),
            settings: settings.clone(),
            vocabulary: Vec::new(),
            cores: FreeCores::new(),
        })
    }

    /// Whether noisy speech is heard with a model of its own.
    pub fn has_noisy_model(&self) -> bool {
        self.noisy.is_some()
    }

    /// The table's words (objects, contents, kinds) put into the prompt after the names.
    pub fn set_vocabulary(&mut self, words: &[String]) {
        self.vocabulary = words.to_vec();
    }

    /// Sets the decoder thread count (0: one per core other programs leave free).
    pub fn set_threads(&mut self, threads: u32) {
        self.settings.threads = threads;
    }

    /// Notes the machine's load, for `threads = 0`; cheap enough for every block of audio.
    pub fn observe_load(&mut self) {
        if self.settings.threads == 0 {
            self.cores.observe();
        }
    }

    /// The decoder threads for the next utterance.
    fn threads(&mut self) -> u32 {
        match self.settings.threads {
            0 => {
                self.cores.observe();
                self.cores.threads(MAX_AUTO_THREADS)
            }
            n => n,
        }
    }

    /// Transcribes 16 kHz mono audio; `names` go into the initial prompt so that rare
    /// names are spelled right. Check [`Transcript::rejected`] before using the text.
    pub fn transcribe(
        &mut self,
        samples: &[f32],
        names: &[String],
    ) -> Result<Transcript, FrontendError> {
        let things = if self.settings.prompt_vocabulary {
            self.vocabulary.clone()
        } else {
            Vec::new()
        };
        self.decode(samples, names, &things)
    }

    /// A second hearing with the table's things in the prompt as well as the
    /// names; `None` when the recogniser knows no things of the table or its
    /// first hearing had them already.
    pub fn transcribe_with_vocabulary(
        &mut self,
        samples: &[f32],
        names: &[String],
    ) -> Result<Option<Transcript>, FrontendError> {
        if self.vocabulary.is_empty() || self.settings.prompt_vocabulary {
            return Ok(None);
        }
        let things = self.vocabulary.clone();
        self.decode(samples, names, &things).map(Some)
    }

    /// Decodes one utterance with `names` and `things` in the initial prompt.
    fn decode(
        &mut self,
        samples: &[f32],
        names: &[String],
        things: &[String],
    ) -> Result<Transcript, FrontendError> {
        let started = Instant::now();
        // A short silent lead-in: a word starting at the very first frame is often lost.
        let mut audio = vec![0.0; (LEAD_IN_S * VAD_RATE as f32) as usize];
        audio.extend_from_slice(samples);
        let min_len = (MIN_SECONDS * VAD_RATE as f32) as usize;
        if audio.len() < min_len {
            audio.resize(min_len, 0.0);
        }
        let seconds = audio.len() as f32 / VAD_RATE as f32;
        // Whisper pads to 30 s and encodes 1500 positions; the utterance needs only its own.
        let audio_ctx = ((seconds * CTX_PER_SECOND).ceil() as i32 + CTX_MARGIN).min(1500);
        let prompt = initial_prompt(&self.settings, names, things);

        let noise_margin_db = noise_margin_db(samples);
        // Noise with nothing standing out of it is no speech to search: beams
        // make words of it ("A F" from white noise) where greedy decoding does not.
        let noisy =
            (SPEECH_OUT_OF_NOISE_DB..self.settings.noisy_below_db).contains(&noise_margin_db);
        let beams = if noisy {
            self.settings.noisy_beam_size
        } else {
            self.settings.beam_size
        };
        let strategy = match beams {
            0 | 1 => SamplingStrategy::Greedy { best_of: 1 },
            beams => SamplingStrategy::BeamSearch {
                beam_size: beams.min(8) as i32,
                patience: -1.0,
            },
        };
        let mut params = FullParams::new(strategy);
        let threads = self.threads();
        params.set_n_threads(threads as i32);
        let language = self.settings.language.replace('\0', "");
        params.set_language(Some(&language));
        params.set_audio_ctx(audio_ctx);
        params.set_no_context(true);
        params.set_single_segment(true);
        params.set_print_special(false);
        params.set_print_progress(false);
        params.set_print_realtime(false);
        params.set_print_timestamps(false);
        params.set_suppress_blank(true);
        params.set_suppress_nst(true);
        // No temperature fallback: a second, random decode of doubtful audio is where
        // hallucinations come from, and it doubles the latency.
        params.set_temperature(0.0);
        params.set_temperature_inc(0.0);
        params.set_no_speech_thold(self.settings.no_speech_threshold);
        // The decoder's token times are not used: with the context trimmed to
        // the utterance the first sentence spans all of it and the rest none
        // (see `sentence_levels`), and they cost ~10 % of the decoding.
        params.set_token_timestamps(false);
        params.set_max_tokens((seconds * MAX_TOKENS_PER_SECOND).ceil() as i32 + 8);
        if let Some(p) = &prompt {
            params.set_initial_prompt(p);
        }
        let noisy_model = noisy && self.noisy.is_some();
        let model = match (&mut self.noisy, noisy) {
            (Some(model), true) => model,
            _ => &mut self.quiet,
        };
        if beams > 1 || model.searched {
            // whisper.cpp's beam search leaves its decoders' state behind, and the
            // next decoding then hears the same audio differently: a search and
            // the decoding after one start afresh.
            model.state = model.ctx.create_state().map_err(|e| {
                FrontendError::Recognition(format!("cannot create a decoding state: {e}"))
            })?;
        }
        model.searched = beams > 1;
        let decoded = model.state.full(params, &audio);
        if self.settings.threads == 0 {
            self.cores.restart();
        }
        decoded.map_err(|e| FrontendError::Recognition(e.to_string()))?;

        let (eot, state) = (model.ctx.token_eot(), &model.state);
        let mut sentences: Vec<Sentence> = vec![Sentence::default()];
        let mut probs = Vec::new();
        let mut no_speech: f32 = 0.0;
        let n = state.full_n_segments();
        for i in 0..n {
            let Some(seg) = state.get_segment(i) else {
                continue;
            };
            no_speech = no_speech.max(seg.no_speech_probability());
            for t in 0..seg.n_tokens() {
                let Some(tok) = seg.get_token(t) else {
                    continue;
                };
                // Special tokens (timestamps, end of text) say nothing about the words.
                if tok.token_id() >= eot {
                    continue;
                }
                probs.push(tok.token_probability());
                if let (Ok(bytes), Some(current)) = (tok.to_bytes(), sentences.last_mut()) {
                    current.bytes.extend_from_slice(bytes);
                    if current.ends() {
                        sentences.push(Sentence::default());
                    }
                }
            }
        }
        let text = self.without_quieter_talkers(&sentences, &audio);
        tracing::debug!(raw = %text, noise_margin_db, beams, noisy_model, "whisper's text");
        let text = collapse_phrase_loops(&collapse_repeats(text.trim()));
        let confidence = if probs.is_empty() {
            0.0
        } else {
            probs.iter().sum::<f32>() / probs.len() as f32
        };
        let rejected = self.judge(&text, confidence, no_speech);
        Ok(Transcript {
            text,
            confidence,
            no_speech_prob: no_speech,
            rejected,
            elapsed: started.elapsed(),
            audio_ctx,
            threads,
            noisy_model,
        })
    }

    /// The sentences said at the level of the loudest one: a sentence more than
    /// `quieter_talker_db` below it is another person talking under the speaker.
    fn without_quieter_talkers(&self, sentences: &[Sentence], audio: &[f32]) -> String {
        let spoken: Vec<&Sentence> = sentences.iter().filter(|s| !s.bytes.is_empty()).collect();
        let words = |s: &Sentence| String::from_utf8_lossy(&s.bytes).into_owned();
        if self.settings.quieter_talker_db <= 0.0 || spoken.len() < 2 {
            return spoken.iter().map(|s| words(s)).collect();
        }
        let levels = sentence_levels(&spoken, audio);
        let loudest = levels.iter().fold(0.0f32, |m, l| m.max(*l));
        let floor = loudest * 10f32.powf(-self.settings.quieter_talker_db / 20.0);
        let mut text = String::new();
        for (sentence, level) in spoken.iter().zip(&levels) {
            let words = words(sentence);
            if *level < floor {
                tracing::info!(sentence = %words.trim(), "left out: quieter than the speaker, another person talking");
                continue;
            }
            text.push_str(&words);
        }
        text
    }

    fn judge(&self, text: &str, confidence: f32, no_speech: f32) -> Option<String> {
        let words = text.chars().filter(|c| c.is_alphanumeric()).count();
        if words == 0 {
            return Some("no words".into());
        }
        if is_non_speech_annotation(text) {
            return Some(format!("non-speech annotation {text:?}"));
        }
        if no_speech > self.settings.no_speech_threshold {
            return Some(format!("no-speech probability {no_speech:.2}"));
        }
        if confidence < self.settings.min_confidence {
            return Some(format!("low confidence {confidence:.2}"));
        }
        None
    }
}

/// One sentence of whisper's text.
#[derive(Debug, Default)]
struct Sentence {
    bytes: Vec<u8>,
}

impl Sentence {
    fn ends(&self) -> bool {
        self.bytes
            .iter()
            .rev()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| matches!(b, b'.' | b'?' | b'!'))
    }

    fn letters(&self) -> usize {
        self.bytes
            .iter()
            .filter(|b| b.is_ascii_alphanumeric())
            .count()
    }
}

/// Samples of one frame of the level measure (20 ms).
const LEVEL_FRAME: usize = 320;
/// Frames below this share of the loudest frame are not speech (-30 dB).
const SPEECH_FLOOR: f32 = 0.03;
/// Speech stands at least this far above its noise (dB); less is noise alone.
const SPEECH_OUT_OF_NOISE_DB: f32 = 6.0;
/// A frame level below any microphone's own noise (−80 dBFS): silence in a file.
const NOISE_FLOOR: f32 = 1e-4;

/// Each sentence's level: the loudest frames (90th percentile) of its share
/// of the spoken audio, shares in proportion to the sentences' letters.
/// Whisper's own token times cannot place them (with the context trimmed to
/// the utterance the first sentence spans all of it and the rest none, so
/// every later sentence was once left out as a quieter talker); aligned
/// times (DTW) place them no better for this and cost ~60 ms per utterance.
/// The loud frames, not the mean, so that a pause in a share never makes
/// the speaker's own sentence quiet.
fn sentence_levels(sentences: &[&Sentence], audio: &[f32]) -> Vec<f32> {
    let frames: Vec<f32> = audio.chunks(LEVEL_FRAME).map(rms).collect();
    let loudest = frames.iter().fold(0.0f32, |m, x| m.max(*x));
    let spoken = |x: &f32| *x > loudest * SPEECH_FLOOR;
    let first = frames.iter().position(spoken).unwrap_or(0);
    let end = frames.iter().rposition(spoken).map_or(0, |i| i + 1);
    let span = end.saturating_sub(first) as f32;
    let letters: Vec<usize> = sentences.iter().map(|s| s.letters().max(1)).collect();
    let total = letters.iter().sum::<usize>().max(1) as f32;
    let mut before = 0usize;
    letters
        .iter()
        .map(|n| {
            let from = first + (span * before as f32 / total) as usize;
            before += n;
            let to = (first + (span * before as f32 / total).ceil() as usize).min(frames.len());
            loud_level(&frames[from.min(to)..to])
        })
        .collect()
}

/// How far, in dB, the utterance's speech stands above the room's noise: its
/// loud frames (90th percentile) against its quiet ones (10th: the pre-roll
/// and the pauses, where a quiet room is near silence and a noisy one is not).
fn noise_margin_db(audio: &[f32]) -> f32 {
    let mut frames: Vec<f32> = audio.chunks(LEVEL_FRAME).map(rms).collect();
    frames.sort_by(f32::total_cmp);
    let (Some(quiet), Some(loud)) = (
        frames.get(frames.len() / 10),
        frames.get(frames.len() * 9 / 10),
    ) else {
        return f32::INFINITY;
    };
    // Digital silence (a file, a muted input) is as quiet as a room gets.
    20.0 * (loud / quiet.max(NOISE_FLOOR)).max(1.0).log10()
}

/// The 90th percentile of frame levels; 0 for none.
fn loud_level(frames: &[f32]) -> f32 {
    let mut sorted = frames.to_vec();
    sorted.sort_by(f32::total_cmp);
    sorted.get(sorted.len() * 9 / 10).copied().unwrap_or(0.0)
}

/// A sentence this alike to an earlier one of the utterance is that one read twice.
const REPEAT_LIKENESS: f32 = 0.75;
/// Letters a sentence needs before it can be such a repeat ("Yes." may be said twice).
const MIN_REPEAT_LETTERS: usize = 10;

/// Removes repeated sentences (and a repeated fragment at the end): with the encoder
/// context trimmed to the utterance, tiny.en sometimes loops over what it heard
/// ("Robot, what do we have to drink? Robot, what do we have to drink? Robot, what").
pub fn collapse_repeats(text: &str) -> String {
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let mut sentences: Vec<&str> = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '?' | '!') {
            sentences.push(&text[start..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    if start < text.len() {
        sentences.push(&text[start..]);
    }
    let mut seen: Vec<String> = Vec::new();
    let mut out = String::new();
    let last = sentences.len().saturating_sub(1);
    for (i, s) in sentences.iter().enumerate() {
        let k = key(s);
        // Also a loop that lost the sentence's first words ("It's Felix, could
        // you pour it? Felix, could you pour it?"); never a single word.
        let within_earlier =
            s.split_whitespace().count() >= 2 && seen.iter().any(|p| nearly_repeats(&k, p));
        if k.is_empty() || seen.contains(&k) || within_earlier {
            continue;
        }
        // An unfinished tail that merely restarts an earlier sentence.
        if i == last
            && !s.trim_end().ends_with(['.', '?', '!'])
            && seen.iter().any(|p| p.starts_with(&k))
        {
            continue;
        }
        seen.push(k);
        out.push_str(s);
    }
    out.trim().to_string()
}

/// Whether sentence `later` (letters only) is whisper reading the audio a
/// second time as sentence `earlier`: the same letters, all or at its end,
/// but for a few ("I'm Felix the large mug ... I'm Felix the lard mug").
fn nearly_repeats(later: &str, earlier: &str) -> bool {
    let later: Vec<char> = later.chars().collect();
    let earlier: Vec<char> = earlier.chars().collect();
    if later.len() < MIN_REPEAT_LETTERS {
        return false;
    }
    let tail = &earlier[earlier.len().saturating_sub(later.len())..];
    let alike = |other: &[char]| {
        let differ = crate::phonetic::edit_distance(&later, other);
        (differ as f32) <= (1.0 - REPEAT_LIKENESS) * later.len().max(other.len()) as f32
    };
    alike(&earlier) || alike(tail)
}

/// Most words of a phrase whisper loops over ("and put the wine glass in
/// front of me and put the wine glass in front of me").
const MAX_LOOPED_WORDS: usize = 14;

/// Removes a phrase whisper repeats within a sentence ("and hand it over and hand
/// it over and hand it over ..."): a run of three or more words said twice in a
/// row, or of one or two words said three times, is kept once. People repeat
/// short words ("pass it, pass it") but not whole phrases back to back.
pub fn collapse_phrase_loops(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let key = |w: &str| -> String {
        w.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let keys: Vec<String> = words.iter().map(|w| key(w)).collect();
    let mut kept: Vec<usize> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let repeated = (1..=MAX_LOOPED_WORDS).find_map(|n| {
            let times = if n >= 3 { 2 } else { 3 };
            let run = |k: usize| keys.get(i + k * n..i + (k + 1) * n);
            let first = run(0)?;
            if first.iter().all(String::is_empty) {
                return None;
            }
            let mut count = 1;
            while run(count) == Some(first) {
                count += 1;
            }
            (count >= times).then_some((n, count))
        });
        match repeated {
            Some((n, count)) => {
                kept.extend(i..i + n);
                i += n * count;
                // A last, unfinished restart of the phrase goes too.
                let tail = &keys[i.min(keys.len())..];
                if !tail.is_empty() && tail.len() < n && keys[i - n..i - n + tail.len()] == *tail {
                    i = keys.len();
                }
            }
            None => {
                kept.push(i);
                i += 1;
            }
        }
    }
    if kept.len() == words.len() {
        return text.to_string();
    }
    kept.iter().map(|&k| words[k]).collect::<Vec<_>>().join(" ")
}

/// `[Music]`, `(wind blowing)`, `*cough*`: whisper's descriptions of sounds, not words.
fn is_non_speech_annotation(text: &str) -> bool {
    let t = text.trim();
    let wrapped = |o: char, c: char| t.starts_with(o) && t.ends_with(c);
    wrapped('[', ']')
        || wrapped('(', ')')
        || wrapped('*', '*')
        || t.chars().all(|c| !c.is_alphanumeric() || c == '♪')
}

/// The initial prompt: a short sentence with the names and the table's things,
/// in the spoken language, as whisper expects prior text (it then spells them as written here).
fn initial_prompt(settings: &AsrSettings, names: &[String], things: &[String]) -> Option<String> {
    let clean = |words: &[String]| -> Vec<String> {
        words
            .iter()
            .map(|n| n.replace(['\0', '_'], " ").trim().to_string())
            .filter(|n| !n.is_empty())
            .collect()
    };
    let (names, things) = (clean(names), clean(things));
    let mut prompt = String::new();
    if !names.is_empty() {
        prompt = settings.prompt_people.replace("{names}", &names.join(", "));
    }
    if !things.is_empty() {
        let list = things[..things.len().min(MAX_PROMPT_THINGS)].join(", ");
        let sentence = settings.prompt_things.replace("{things}", &list);
        prompt = format!("{prompt} {sentence}").trim().to_string();
    }
    (!prompt.is_empty()).then_some(prompt)
}

/// Most table words in the prompt: whisper keeps the last 224 prompt tokens.
const MAX_PROMPT_THINGS: usize = 40;

#[cfg(test)]
mod tests {
    use super::collapse_repeats;

    #[test]
    fn speech_in_noise_stands_less_far_above_it_than_in_a_quiet_room() {
        use super::noise_margin_db;
        // Half a second of pause, a second of a 200 Hz "voice", half a second of pause.
        let voice =
            |i: usize| 0.3 * (i as f32 * 2.0 * std::f32::consts::PI * 200.0 / 16_000.0).sin();
        let utterance = |floor: f32| -> Vec<f32> {
            let mut x = 12_345u32;
            (0..32_000)
                .map(|i| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    let hiss = floor * ((x >> 16) as f32 / 32_768.0 - 1.0);
                    hiss + if (8_000..24_000).contains(&i) {
                        voice(i)
                    } else {
                        0.0
                    }
                })
                .collect()
        };
        let silent_room = noise_margin_db(&utterance(0.0));
        let quiet_room = noise_margin_db(&utterance(0.001));
        let noisy_room = noise_margin_db(&utterance(0.05));
        assert!(silent_room > 60.0, "{silent_room}");
        assert!(quiet_room > 40.0, "{quiet_room}");
        assert!((10.0..25.0).contains(&noisy_room), "{noisy_room}");
        assert!(noise_margin_db(&[]).is_infinite());
    }

    #[test]
    fn sentences_know_their_end_and_their_level() {
        use super::{sentence_levels, Sentence};
        let sentence = |text: &str| Sentence {
            bytes: text.as_bytes().to_vec(),
        };
        let (pass, cola) = (
            sentence(" Pass me the salt."),
            sentence(" I want the cola."),
        );
        assert!(pass.ends() && !sentence(" Pass me").ends());
        let second = |level: f32| {
            // 0.2 s lead-in, 1 s of the speaker, a 0.2 s pause, 1 s at `level`.
            let mut audio = vec![0.0f32; 3_200];
            audio.extend(std::iter::repeat_n(0.5, 16_000));
            audio.extend(std::iter::repeat_n(0.0, 3_200));
            audio.extend(std::iter::repeat_n(level, 16_000));
            sentence_levels(&[&pass, &cola], &audio)
        };
        let quieter = second(0.05);
        assert!((quieter[0] - 0.5).abs() < 1e-3, "{quieter:?}");
        assert!((quieter[1] - 0.05).abs() < 1e-3, "{quieter:?}");
        // One speaker, both sentences at one level: the pause makes neither quiet.
        let alike = second(0.5);
        assert!(alike.iter().all(|l| (l - 0.5).abs() < 1e-3), "{alike:?}");
        assert_eq!(sentence_levels(&[&pass], &[]), vec![0.0]);
    }

    #[test]
    fn phrase_loops_are_cut_to_one_phrase() {
        use super::collapse_phrase_loops as c;
        assert_eq!(
            c("and hand it over and hand it over and hand it over and hand it"),
            "and hand it over"
        );
        assert_eq!(
            c("And the coffee pot and the coffee pot and the coffee pot"),
            "And the coffee pot"
        );
        assert_eq!(
            c("is there any sugar, is there any sugar,"),
            "is there any sugar,"
        );
        assert_eq!(c("pass it, pass it, please"), "pass it, pass it, please");
        assert_eq!(c("no no no no"), "no");
        assert_eq!(
            c("and the coffee pot and the coffee pot and the coffee"),
            "and the coffee pot"
        );
        assert_eq!(c("the cup, the cup, the cup, please"), "the cup, please");
        assert_eq!(
            c("Thove a large cup with coffee, coffee, coffee, coffee,"),
            "Thove a large cup with coffee,"
        );
        assert_eq!(c("and handed over, and handed over,"), "and handed over,");
        assert_eq!(
            c("Thove a large cup with coffee, coffee, coffee, coffee, coffee, coffee, coffee, coffee"),
            "Thove a large cup with coffee,"
        );
        assert_eq!(
            c("Then handed over to me, then handed over to me, then handed over to me, then"),
            "Then handed over to me,"
        );
        assert_eq!(
            c("And put the wine glass in front of you and put the wine glass in front of you."),
            "And put the wine glass in front of you"
        );
        assert_eq!(
            c("And the spark when water to go with it, and the spark when water to go with it, and the spark when"),
            "And the spark when water to go with it,"
        );
        assert_eq!(c("the red glass"), "the red glass");
        assert_eq!(c(""), "");
    }

    #[test]
    fn loops_are_cut_to_one_sentence() {
        assert_eq!(
            collapse_repeats(
                "Robot, what do we have to drink? Robot, what do we have to drink? Robot, what"
            ),
            "Robot, what do we have to drink?"
        );
        assert_eq!(collapse_repeats("Yes. No. Yes."), "Yes. No.");
        assert_eq!(
            collapse_repeats("It's Felix, could you pour it into the red glass? Felix, could you pour it into the red glass"),
            "It's Felix, could you pour it into the red glass?"
        );
        assert_eq!(
            collapse_repeats("I'm Felix the large mug and I have the large mug. I'm Felix the lard mug and I have the large mug."),
            "I'm Felix the large mug and I have the large mug."
        );
        // A word said again on its own is the speaker's, not a loop.
        assert_eq!(
            collapse_repeats("Pass the beer. Beer!"),
            "Pass the beer. Beer!"
        );
        assert_eq!(
            collapse_repeats("Could you pass the glass"),
            "Could you pass the glass"
        );
    }
}
