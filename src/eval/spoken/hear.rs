//! Hearing the episodes: each turn spoken, placed in the room, and passed
//! through the real front end; the result replaces the typed turn.

use glam::Vec3;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::Serialize;

use super::score::{names_heard, score_words, word_errors, HearingScore};
use super::{AudioCache, SpokenError, SpokenOptions, VoiceCast};
use crate::eval::run::{Episode, EpisodeTurn};
use crate::frontend::participants::{facing_from_yaw, Participant, DEFAULT_EYE_HEIGHT};
use crate::frontend::{
    listener, FrontEnd, Heard, Listening, Participants, Recognizer, WavSource, VAD_RATE,
};
use crate::twin::vocabulary::{prompt_things, table_words};
use crate::twin::World;

/// Silence before the speech (the VAD ignores its first ~0.3 s while it settles).
const LEAD_S: f32 = 0.8;
/// Silence after it: more than the end-of-turn silence.
const TAIL_S: f32 = 1.0;

/// What the front end made of one spoken turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HeardTurn {
    /// Whether any turn came out of the audio.
    pub heard: bool,
    /// The recogniser's text (utterances joined), empty when not heard.
    pub text: String,
    /// The speaker: the script's, or the attribution's with `--one-mic`.
    pub speaker: String,
    /// The listener: from the heard vocative, else the script's (standing in for gaze).
    pub listener: String,
    /// Utterances the VAD found.
    pub utterances: usize,
    /// Each utterance as the brain gets it, one turn each: its text and listener.
    pub parts: Vec<HeardPart>,
    /// Lowest recogniser confidence of its utterances.
    pub confidence: f32,
    /// Recognition of its slowest utterance, ms (audio is heard faster than
    /// real time here: the silence before a turn ends is not in it).
    pub turn_ms: f64,
    /// The figures against the script.
    pub score: HearingScore,
}

/// One utterance of a spoken turn, as a turn of its own (as the daemon takes it).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HeardPart {
    /// What the recogniser heard.
    pub text: String,
    /// Whom it was said to.
    pub listener: String,
    /// Other texts heard in the same audio (see [`crate::frontend::Turn::alternatives`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
    /// The listener each alternative names, in the same order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternative_listeners: Vec<String>,
}

/// Every turn of `episodes` spoken and heard, on `jobs` threads; `done` is told
/// after each episode. The episodes come back with [`EpisodeTurn::heard`] set.
pub fn hear_episodes(
    episodes: &[Episode],
    cast: &VoiceCast,
    options: &SpokenOptions,
    jobs: usize,
    done: &(dyn Fn() + Sync),
) -> Result<Vec<Episode>, SpokenError> {
    let cache = AudioCache::new(options.cache.clone());
    // What a second person says under the speaker: other turns of the run.
    let talk: Vec<String> = episodes
        .iter()
        .flat_map(|e| e.turns.iter().map(|t| t.turn.text.clone()))
        .collect();
    // Fail once, clearly, before any work: the model and the voice.
    Recognizer::new(&options.audio.asr)?;
    let ctx = Hearing {
        cast,
        cache: &cache,
        options,
        talk: &talk,
    };
    // One runtime for every voice: a speech engine's worker process lives on
    // the runtime that started it, so per-thread runtimes would strand it.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| SpokenError::Setup(format!("cannot start the voice runtime: {e}")))?;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Episode, SpokenError>>>> =
        Mutex::new(episodes.iter().map(|_| None).collect());
    let jobs = jobs.clamp(1, episodes.len().max(1));
    // The jobs fill the cores: a recogniser following the load would take a
    // core its neighbour is about to use (ggml's workers then spin-wait).
    let mut asr = options.audio.asr.clone();
    if jobs > 1 && asr.threads == 0 {
        asr.threads = 1;
    }
    // One recogniser (one loaded model) per thread; episodes taken in turn.
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let mut recognizer = Recognizer::new(&asr);
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(episode) = episodes.get(index) else {
                        break;
                    };
                    let heard = match recognizer.as_mut() {
                        Ok(r) => ctx.episode(episode, r, &runtime),
                        Err(e) => Err(SpokenError::Setup(e.to_string())),
                    };
                    done();
                    if let Ok(mut slots) = results.lock() {
                        slots[index] = Some(heard);
                    }
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(SpokenError::Setup("an episode was not heard".into()))))
        .collect()
}

struct Hearing<'a> {
    cast: &'a VoiceCast,
    cache: &'a AudioCache,
    options: &'a SpokenOptions,
    talk: &'a [String],
}

impl Hearing<'_> {
    fn episode(
        &self,
        episode: &Episode,
        recognizer: &mut Recognizer,
        runtime: &tokio::runtime::Runtime,
    ) -> Result<Episode, SpokenError> {
        let participants = participants_of(&episode.world, self.options.audio.array_offset);
        let vocabulary = table_words(&episode.world);
        let things = prompt_things(&episode.world);
        let mut out = episode.clone();
        for (index, turn) in out.turns.iter_mut().enumerate() {
            let seed =
                self.options.seed ^ super::cache::fnv1a(&format!("{}#{index}", episode.label));
            let audio = self.audio(&episode.world, turn, seed, runtime)?;
            let mut heard = self.recognise(
                audio,
                turn,
                (&episode.world, &participants),
                &things,
                recognizer,
            )?;
            heard.score = score(turn, &heard, &participants, &vocabulary);
            turn.heard = Some(heard);
        }
        Ok(out)
    }

    /// The turn's words in the speaker's voice, in the room.
    fn audio(
        &self,
        world: &World,
        turn: &EpisodeTurn,
        seed: u64,
        runtime: &tokio::runtime::Runtime,
    ) -> Result<Vec<f32>, SpokenError> {
        let people = world.persons();
        let index = people
            .iter()
            .position(|p| p.name.eq_ignore_ascii_case(&turn.turn.speaker))
            .unwrap_or(people.len() + 1);
        let voice = self.cast.voice(index);
        let text = &turn.turn.text;
        let clean_key = format!("clean|{}|{text}", voice.describe);
        let speech = self
            .cache
            .get_or_make(&clean_key, || voice.speak(runtime, text))?;
        let room = self.options.room;
        let talker = match room.talker_db {
            Some(_) if !self.talk.is_empty() => {
                // Someone else at the table, saying another line of the run.
                let pick = &self.talk[(seed as usize) % self.talk.len()];
                let pick = if pick == text {
                    &self.talk[(seed as usize + 1) % self.talk.len()]
                } else {
                    pick
                };
                let other = self.cast.voice(people.len());
                let key = format!("clean|{}|{pick}", other.describe);
                Some((
                    key.clone(),
                    self.cache
                        .get_or_make(&key, || other.speak(runtime, pick))?,
                ))
            }
            _ => None,
        };
        let talker_key = talker.as_ref().map_or("", |(k, _)| k.as_str());
        let key = format!("room|{room}|{seed}|{clean_key}|{talker_key}");
        self.cache.get_or_make(&key, || {
            let mut padded = vec![0.0; (LEAD_S * VAD_RATE as f32) as usize];
            padded.extend_from_slice(&speech);
            padded.extend(std::iter::repeat_n(
                0.0,
                (TAIL_S * VAD_RATE as f32) as usize,
            ));
            Ok(room.render(
                &padded,
                talker.as_ref().map(|(_, a)| a.as_slice()),
                VAD_RATE,
                seed,
            ))
        })
    }

    /// The audio through the front end: VAD, whisper, attribution.
    fn recognise(
        &self,
        audio: Vec<f32>,
        turn: &EpisodeTurn,
        (world, participants): (&World, &Participants),
        things: &[String],
        recognizer: &mut Recognizer,
    ) -> Result<HeardTurn, SpokenError> {
        let script = &turn.turn;
        let understanding = &self.options.understanding;
        let mut complete = |t: &crate::frontend::Turn| {
            understanding.reads_complete(
                world,
                &crate::understanding::Utterance {
                    speaker: &t.speaker,
                    listener: &t.listener,
                    text: &t.text,
                },
            )
        };
        let mut settings = self.options.audio.clone();
        if !self.options.one_mic {
            settings.fallback_speaker = Some(script.speaker.clone());
        }
        let mut frontend = FrontEnd::new(settings, participants.clone(), recognizer);
        frontend.set_vocabulary(things);
        let mut source = WavSource::from_samples(audio, VAD_RATE, 1);
        let mut turns = Vec::new();
        let mut listening = Listening {
            complete: Some(&mut complete),
            ..Listening::default()
        };
        frontend.listen(&mut source, &mut listening, |heard| {
            if let Heard::Turn(t) = heard {
                turns.push(t.clone());
            }
        })?;
        let text = turns
            .iter()
            .map(|t| t.text.trim())
            .collect::<Vec<_>>()
            .join(" ");
        let speaker = match turns.first() {
            Some(t) if self.options.one_mic => t.speaker.clone(),
            _ => script.speaker.clone(),
        };
        let scripted_vocative =
            listener::vocative(&script.text, &script.speaker, participants).is_some();
        // A named listener must be heard; otherwise the script's listener stands
        // for what head poses tell at a real table (audio carries no gaze).
        let listener_of = |text: &str, heard_listener: &str| match listener::vocative(
            text,
            &speaker,
            participants,
        ) {
            Some(p) => p.name.clone(),
            None if scripted_vocative => heard_listener.to_string(),
            None => script.listener.clone(),
        };
        let parts: Vec<HeardPart> = turns
            .iter()
            .map(|t| HeardPart {
                text: t.text.clone(),
                listener: listener_of(&t.text, &t.listener),
                alternatives: t.alternatives.clone(),
                alternative_listeners: t
                    .alternatives
                    .iter()
                    .zip(&t.alternative_listeners)
                    .map(|(text, heard)| listener_of(text, heard))
                    .collect(),
            })
            .collect();
        let listener = parts
            .first()
            .map_or_else(|| listener::ALL.to_string(), |p| p.listener.clone());
        Ok(HeardTurn {
            heard: !turns.is_empty(),
            text,
            speaker,
            listener,
            utterances: turns.len(),
            parts,
            confidence: turns.iter().map(|t| t.confidence).fold(1.0, f32::min),
            turn_ms: turns.iter().map(|t| t.recognition_ms).fold(0.0, f64::max),
            score: HearingScore::default(),
        })
    }
}

fn score(
    turn: &EpisodeTurn,
    heard: &HeardTurn,
    participants: &Participants,
    vocabulary: &[crate::twin::vocabulary::TableWord],
) -> HearingScore {
    let script = &turn.turn;
    let reference = score_words(&script.text);
    let hypothesis = score_words(&heard.text);
    let (names, names_heard) = names_heard(&reference, &hypothesis, vocabulary);
    HearingScore {
        words: reference.len(),
        word_errors: word_errors(&reference, &hypothesis),
        names,
        names_heard,
        vocative: listener::vocative(&script.text, &script.speaker, participants).is_some(),
        listener_right: heard.listener.eq_ignore_ascii_case(&script.listener),
        not_heard: !heard.heard,
    }
}

/// The people of a world as the front end sees them (heads and facing directions).
pub fn participants_of(world: &World, array_offset: [f32; 3]) -> Participants {
    let robot_at = world.robot.position;
    let people = world
        .persons()
        .iter()
        .map(|p| Participant {
            name: p.name.clone(),
            head: Vec3::new(
                p.position.x,
                p.position.y,
                p.body.eye_height.max(DEFAULT_EYE_HEIGHT * 0.5),
            ),
            facing: facing_from_yaw(p.yaw.to_degrees()),
        })
        .collect();
    Participants {
        people,
        robot: Participant {
            name: world.robot.name.clone(),
            head: Vec3::new(
                robot_at.x,
                robot_at.y,
                crate::frontend::participants::ROBOT_HEAD_HEIGHT,
            ),
            facing: facing_from_yaw(world.robot.yaw.to_degrees()),
        },
        microphone_array_origin: Vec3::new(robot_at.x, robot_at.y, 0.0) + Vec3::from(array_offset),
    }
}
