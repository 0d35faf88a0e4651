//! Running episodes (dialogue scripts or isolated grid cases) on fresh twins,
//! in parallel, and judging every turn.

use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use serde_json::json;

use super::cost::TurnCost;
use super::judge::{judge, Category, Expectation, Verdict};
use super::script::{apply_before, Before, Expect, ExpectedState, Script, ScriptError};
use super::spoken::HeardTurn;
use crate::agent::remembering::Remembering;
use crate::agent::tools::ToolTexts;
use crate::agent::{Agent, Character, Turn};
use crate::config::{AgentSettings, GuardSettings};
use crate::events::Event;
use crate::language::Language;
use crate::llm::meter::Metered;
use crate::llm::rules::RulesBrain;
use crate::llm::tape::{EpisodeTape, Tape};
use crate::llm::ChatBackend;
use crate::memory::{Erased, Memory, MemorySettings};
use crate::twin::layouts::{self, Case};
use crate::twin::{Twin, World};

/// One turn of an episode, with what is expected of it.
#[derive(Debug, Clone)]
pub struct EpisodeTurn {
    /// The human turn.
    pub turn: Turn,
    /// Scene changes first.
    pub before: Vec<Before>,
    /// The decision expected.
    pub expect: Expect,
    /// The hindrance the explanation must name.
    pub reason: Option<String>,
    /// Facts that must hold afterwards.
    pub state: Vec<ExpectedState>,
    /// Words the robot must say.
    pub speech: Vec<String>,
    /// Words the robot must not say.
    pub forbidden: Vec<String>,
    /// A new session starts before this turn: empty history, the table reset, memory kept.
    pub new_session: bool,
    /// In a spoken run, what the front end heard; the brain gets this instead of `turn`.
    pub heard: Option<HeardTurn>,
}

/// A sequence of turns on one fresh world.
#[derive(Debug, Clone)]
pub struct Episode {
    /// Where it came from (a script path, or a grid case label).
    pub label: String,
    /// The case type, for grid cases.
    pub case: Option<Case>,
    /// Where in the grid, for grid cases.
    pub cell: Option<GridCell>,
    /// The world it starts from.
    pub world: World,
    /// The character, if the episode fixes one.
    pub character: Option<String>,
    /// The language, if the episode fixes one (a script's `language`).
    pub language: Option<String>,
    /// The turns.
    pub turns: Vec<EpisodeTurn>,
}

/// A grid case's place: scenario, layout and phrasing (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridCell {
    /// Scenario (scene) name.
    pub scenario: String,
    /// Object layout, 0-based.
    pub layout: usize,
    /// Phrasing, 0-based index into [`PHRASINGS`].
    pub phrasing: usize,
}

/// A judged turn.
#[derive(Debug, Clone)]
pub struct Judged {
    /// The episode's label.
    pub label: String,
    /// The character it ran with.
    pub character: String,
    /// 1-based turn number.
    pub turn: usize,
    /// The case type, for grid cases; else the expected decision decides the row.
    pub case: Option<Case>,
    /// What was expected.
    pub expect: Expect,
    /// The verdict.
    pub verdict: Verdict,
    /// What the turn cost.
    pub cost: TurnCost,
    /// A replay that diverged from its recording, or a recording that failed.
    pub tape_problem: Option<String>,
    /// In a spoken run, what was heard.
    pub heard: Option<HeardTurn>,
    /// Local first: the path the turn took (`local`, `llm`).
    pub path: Option<String>,
}

impl Judged {
    /// The contract's `judged` event.
    pub fn to_json(&self) -> serde_json::Value {
        let mut value = json!({
            "type": "judged",
            "file": self.label,
            "turn": self.turn,
            "expect": self.expect,
            "category": self.verdict.category,
            "why": self.verdict.why,
            "character": self.character,
            "cost": self.cost.to_json(),
        });
        if let Some(case) = self.case {
            value["case"] = json!(case.as_str());
        }
        if let Some(problem) = &self.tape_problem {
            value["tape_problem"] = json!(problem);
        }
        if let Some(heard) = &self.heard {
            value["heard"] = json!(heard);
        }
        if let Some(path) = &self.path {
            value["path"] = json!(path);
        }
        value
    }

    /// The row of the report this turn counts in.
    pub fn row(&self) -> String {
        match self.case {
            Some(case) => case.as_str().to_string(),
            None => format!("{:?}", self.expect).to_lowercase(),
        }
    }
}

/// Why an evaluation could not start.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A script is broken.
    #[error(transparent)]
    Script(#[from] ScriptError),
    /// A scene is broken.
    #[error(transparent)]
    Scene(#[from] crate::twin::scene::SceneError),
    /// The grid could not be generated.
    #[error(transparent)]
    Layout(#[from] layouts::LayoutError),
    /// A folder could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A script's language cannot be used.
    #[error("{path}: {source}")]
    Language {
        path: PathBuf,
        source: Box<crate::language::LanguageError>,
    },
}

/// Episodes from script files and folders (every `*.toml` below a folder).
pub fn scripts(paths: &[PathBuf]) -> Result<Vec<Episode>, EvalError> {
    let mut files = Vec::new();
    for path in paths {
        collect(path, &mut files)?;
    }
    files.sort();
    let mut episodes = Vec::new();
    for file in files {
        let script = Script::load(&file)?;
        let world = crate::twin::scene::load(&script.scene)?;
        script.check_names(&world)?;
        if let Some(code) = &script.language {
            Language::find(code).map_err(|source| EvalError::Language {
                path: file.clone(),
                source: Box::new(source),
            })?;
        }
        episodes.push(Episode {
            label: file.display().to_string(),
            case: None,
            cell: None,
            world,
            character: script.character.clone(),
            language: script.language.clone(),
            turns: script
                .turns
                .into_iter()
                .map(|(turn, s)| EpisodeTurn {
                    turn,
                    before: s.before,
                    expect: s.expect,
                    reason: s.expect_reason,
                    state: s.expect_state,
                    speech: s.expect_speech,
                    forbidden: s.forbid_speech,
                    new_session: s.new_session,
                    heard: None,
                })
                .collect(),
        });
    }
    Ok(episodes)
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), EvalError> {
    if path.is_dir() {
        let entries = std::fs::read_dir(path).map_err(|source| EvalError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        for entry in entries.flatten() {
            collect(&entry.path(), files)?;
        }
    } else if path.extension().is_some_and(|e| e == "toml") || !path.exists() {
        // A missing file is reported by the script loader with its name.
        files.push(path.to_path_buf());
    }
    Ok(())
}

/// The five phrasings of the paper's Section IV-B.
pub const PHRASINGS: [&str; 5] = [
    "Daniel, could you hand me PLACEHOLDER?",
    "Could you hand me PLACEHOLDER?",
    "Please hand me PLACEHOLDER.",
    "Could you pass me PLACEHOLDER?",
    "Give me PLACEHOLDER.",
];

/// The isolated grid: 3 scenarios x 5 layouts x 5 phrasings x 4 cases = 300 episodes.
pub fn isolated_grid() -> Result<Vec<Episode>, EvalError> {
    let mut episodes = Vec::new();
    for case in layouts::generate_all()? {
        let object = case.world.object(case.target).name.clone();
        let natural = format!("the {}", object.replace('_', " "));
        for (p, phrasing) in PHRASINGS.iter().enumerate() {
            let text = phrasing.replace("PLACEHOLDER", &natural);
            let turn = Turn {
                speaker: layouts::SENDER.to_string(),
                listener: layouts::RECEIVER.to_string(),
                text,
                speaker_by: None,
                alternatives: Vec::new(),
                alternative_listeners: Vec::new(),
            };
            let helps = case.case != Case::Unobtrusive;
            episodes.push(Episode {
                label: format!(
                    "{}/layout{}/{}/phrasing{}",
                    case.scenario,
                    case.layout + 1,
                    case.case.as_str(),
                    p + 1
                ),
                case: Some(case.case),
                cell: Some(GridCell {
                    scenario: case.scenario.to_string(),
                    layout: case.layout,
                    phrasing: p,
                }),
                world: case.world.clone(),
                character: None,
                language: None,
                turns: vec![EpisodeTurn {
                    turn,
                    before: Vec::new(),
                    expect: if helps { Expect::Help } else { Expect::Silent },
                    reason: case.case.reason().map(str::to_string),
                    state: if helps {
                        vec![ExpectedState {
                            object: object.clone(),
                            contains: None,
                            at: Some(layouts::SENDER.to_string()),
                            away_from: None,
                        }]
                    } else {
                        Vec::new()
                    },
                    speech: Vec::new(),
                    forbidden: Vec::new(),
                    new_session: false,
                    heard: None,
                }],
            });
        }
    }
    Ok(episodes)
}

/// The episodes once per character: each copy runs with that character,
/// whatever its script says (an explicit choice on the command line wins).
pub fn with_characters(episodes: &[Episode], characters: &[String]) -> Vec<Episode> {
    if characters.is_empty() {
        return episodes.to_vec();
    }
    characters
        .iter()
        .flat_map(|c| {
            episodes.iter().map(move |e| Episode {
                character: Some(c.clone()),
                ..e.clone()
            })
        })
        .collect()
}

/// Makes a brain for an episode's starting world; the error says why not.
pub type BrainFactory<'a> =
    dyn Fn(&World, &Language) -> Result<Box<dyn ChatBackend>, String> + Sync + 'a;

/// Told about every finished episode (for a progress display).
pub trait Progress: Sync {
    /// One episode is done; these are its judged turns.
    fn episode_done(&self, judged: &[Judged]);
}

/// How to run episodes: the brain for a world, the character, the loop's settings.
pub struct Runner<'a> {
    /// Makes a brain for an episode's starting world.
    pub brain: &'a BrainFactory<'a>,
    /// Character name or path when the episode does not fix one.
    pub character: String,
    /// Language code or folder when the episode does not fix one.
    pub language: String,
    /// Tool descriptions.
    pub texts: ToolTexts,
    /// Loop limits.
    pub agent: AgentSettings,
    /// Guards.
    pub guards: GuardSettings,
    /// Offer the scene's names as enums in the tools' arguments (`llm.name_enums`).
    pub name_enums: bool,
    /// Remember across sessions, each episode on a fresh store in memory (`--no-memory`: off).
    pub memory: bool,
    /// Local first (`--brain hybrid`): sure turns go to the rules brain, without the LLM.
    pub local_first: bool,
    /// Record every LLM reply, or answer from a recording instead of the brain.
    pub tape: Option<Tape>,
    /// Told about finished episodes.
    pub progress: Option<&'a dyn Progress>,
}

impl Runner<'_> {
    /// Runs every episode `repeat` times on `jobs` threads; judged turns in input order.
    /// Runs are numbered 1.. in that order: the episode index of a recording.
    pub fn run_all(&self, episodes: &[Episode], repeat: u32, jobs: usize) -> Vec<Judged> {
        let work: Vec<(usize, &Episode)> = episodes
            .iter()
            .flat_map(|e| std::iter::repeat_n(e, repeat.max(1) as usize))
            .enumerate()
            .map(|(i, e)| (i + 1, e))
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build();
        let run = || {
            work.par_iter()
                .map(|(index, e)| {
                    let judged = self.run_numbered(*index, e);
                    if let Some(progress) = self.progress {
                        progress.episode_done(&judged);
                    }
                    judged
                })
                .collect::<Vec<_>>()
        };
        let results = match pool {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        };
        results.into_iter().flatten().collect()
    }

    /// Runs one episode on a fresh twin and judges each turn.
    pub fn run(&self, episode: &Episode) -> Vec<Judged> {
        self.run_numbered(1, episode)
    }

    fn character_of(&self, episode: &Episode) -> String {
        episode
            .character
            .clone()
            .unwrap_or_else(|| self.character.clone())
    }

    fn language_of(&self, episode: &Episode) -> Result<Language, String> {
        let code = episode.language.as_deref().unwrap_or(&self.language);
        Language::find(code).map_err(|e| e.to_string())
    }

    /// The brain for an episode: the real one, wrapped by the tape if any.
    fn backend(
        &self,
        index: usize,
        episode: &Episode,
        language: &Language,
    ) -> Result<(Box<dyn ChatBackend>, Option<EpisodeTape>), String> {
        match &self.tape {
            None => Ok(((self.brain)(&episode.world, language)?, None)),
            Some(tape) => {
                let real = if tape.is_replay() {
                    None
                } else {
                    Some((self.brain)(&episode.world, language)?)
                };
                let label = format!("{} [{}]", episode.label, self.character_of(episode));
                tape.episode(index, &label, real)
                    .map(|(backend, handle)| (backend, Some(handle)))
                    .map_err(|e| e.to_string())
            }
        }
    }

    fn run_numbered(&self, index: usize, episode: &Episode) -> Vec<Judged> {
        let character_name = self.character_of(episode);
        let judged = |turn: usize, e: &EpisodeTurn, category, why: String| Judged {
            label: episode.label.clone(),
            character: character_name.clone(),
            turn,
            case: episode.case,
            expect: e.expect,
            verdict: Verdict { category, why },
            cost: TurnCost::default(),
            tape_problem: None,
            heard: e.heard.clone(),
            path: None,
        };
        // Words erased during the episode, to redact from its recording afterwards.
        let erased: Arc<Mutex<Vec<String>>> = Arc::default();
        let setup = || -> Result<_, String> {
            let language = self.language_of(episode)?;
            let character = Character::load_in(
                language.characters(),
                &character_name,
                &episode.world.robot.name,
            )
            .map_err(|e| e.to_string())?;
            let (backend, tape) = self.backend(index, episode, &language)?;
            let (backend, meter) = Metered::wrap(backend);
            let agent = Agent::new(
                Box::new(backend),
                character,
                &self.texts,
                &episode.world.robot.name,
                self.agent.clone(),
                self.guards.clone(),
            )
            .with_language(&language);
            let agent = if self.local_first {
                agent.with_local_first(Box::new(RulesBrain::new(&episode.world, &language)))
            } else {
                agent
            };
            let agent = if self.name_enums {
                agent.with_scene_names(&episode.world)
            } else {
                agent
            };
            let agent = if self.memory {
                // The episode's memory goes with it: in memory, not on disk.
                let memory = Memory::open_in_memory().map_err(|e| e.to_string())?;
                let erased = Arc::clone(&erased);
                let remembering = Remembering::new(memory, MemorySettings::default()).with_eraser(
                    Arc::new(move |e: &Erased| {
                        if let Ok(mut texts) = erased.lock() {
                            texts.extend(e.texts.iter().cloned());
                        }
                    }),
                );
                agent.with_memory(remembering)
            } else {
                agent
            };
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            Ok((agent, meter, tape, runtime, language))
        };
        let (mut agent, meter, tape, runtime, language) = match setup() {
            Ok(ok) => ok,
            Err(why) => {
                let problem = self.tape.as_ref().map(|_| why.clone());
                return episode
                    .turns
                    .iter()
                    .enumerate()
                    .map(|(i, t)| Judged {
                        tape_problem: problem.clone(),
                        ..judged(
                            i + 1,
                            t,
                            Category::ExecutionError,
                            format!("could not start: {why}"),
                        )
                    })
                    .collect();
            }
        };
        let mut twin = Twin::from_world(episode.world.clone());
        let mut out = Vec::new();
        let mut reported_problem = false;
        for (i, t) in episode.turns.iter().enumerate() {
            if t.new_session {
                agent.new_session();
                twin = Twin::from_world(episode.world.clone());
            }
            if let Err(why) = apply_before(&mut twin.world, &t.before) {
                out.push(judged(
                    i + 1,
                    t,
                    Category::ExecutionError,
                    format!("scene change failed: {why}"),
                ));
                continue;
            }
            let mut events: Vec<Event> = Vec::new();
            let started = Instant::now();
            // Spoken, each utterance heard is a turn of its own (none: nothing to react to).
            let mut llm_calls = 0;
            for turn in spoken_turns(t).unwrap_or_else(|| vec![t.turn.clone()]) {
                llm_calls += runtime
                    .block_on(agent.handle_turn(&turn, &mut twin, &mut events))
                    .llm_calls;
            }
            let measured = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            // A replay reports the recorded run's latency: that is the cost it stands for.
            let wall_us = match &tape {
                Some(tape) if self.tape.as_ref().is_some_and(Tape::is_replay) => {
                    tape.recorded_wall_us(i + 1).unwrap_or(measured)
                }
                Some(tape) => {
                    tape.note_turn(i + 1, measured);
                    measured
                }
                None => measured,
            };
            let metering = meter.take();
            let expectation = Expectation {
                expect: t.expect,
                reason: t.reason.as_deref(),
                state: &t.state,
                speech: &t.speech,
                forbidden: &t.forbidden,
                sender: &t.turn.speaker,
                receiver: &t.turn.listener,
                text: &t.turn.text,
                words: language.explanation_words(),
            };
            let verdict = judge(&events, &twin.world, &expectation);
            let problem = tape.as_ref().and_then(EpisodeTape::problem);
            let tape_problem = match problem {
                Some(p) if !reported_problem => {
                    reported_problem = true;
                    Some(p)
                }
                _ => None,
            };
            out.push(Judged {
                label: episode.label.clone(),
                character: character_name.clone(),
                turn: i + 1,
                case: episode.case,
                expect: t.expect,
                verdict,
                cost: TurnCost {
                    llm_calls,
                    calls_with_usage: metering.replies_with_usage,
                    prompt_tokens: metering.prompt_tokens,
                    completion_tokens: metering.completion_tokens,
                    wall_us,
                },
                tape_problem,
                heard: t.heard.clone().map(|h| heard_as_taken(h, &t.turn, &events)),
                path: path_of(&events),
            });
        }
        // The recording is complete once the agent (and its backend) is gone.
        drop(agent);
        self.redact_recording(index, &erased);
        out
    }

    /// An erasure leaves no copy in the recording either (that episode then
    /// no longer replays exactly: its words are gone).
    fn redact_recording(&self, index: usize, erased: &Mutex<Vec<String>>) {
        let texts = erased.lock().map(|t| t.clone()).unwrap_or_default();
        match &self.tape {
            Some(tape) if !tape.is_replay() && !texts.is_empty() => {
                let path = tape.episode_path(index);
                let forms = crate::memory::redact::copies(&texts);
                if let Err(e) = crate::memory::redact::redact_file(&path, &forms) {
                    tracing::warn!(path = %path.display(), error = %e, "cannot redact the recording");
                }
            }
            _ => {}
        }
    }
}

/// The turns a spoken run gives the brain, one per utterance heard; `None` typed.
fn spoken_turns(t: &EpisodeTurn) -> Option<Vec<Turn>> {
    let heard = t.heard.as_ref()?;
    Some(
        heard
            .parts
            .iter()
            .map(|part| Turn {
                speaker: heard.speaker.clone(),
                listener: part.listener.clone(),
                text: part.text.clone(),
                speaker_by: Some("spoken".to_string()),
                alternatives: part.alternatives.clone(),
                alternative_listeners: part.alternative_listeners.clone(),
            })
            .collect(),
    )
}

/// What was heard, with the listener of the hearing the agent took: a
/// second hearing may name another than the first ("Hello, robot.").
fn heard_as_taken(mut heard: HeardTurn, script: &Turn, events: &[Event]) -> HeardTurn {
    let taken = events.iter().find_map(|e| match e {
        Event::Understood { listener, .. } => Some(listener.clone()),
        _ => None,
    });
    if let Some(Some(listener)) = taken {
        heard.score.listener_right = listener.eq_ignore_ascii_case(&script.listener);
        heard.listener = listener;
    }
    heard
}

/// The path the (last) turn of these events took, when local first.
fn path_of(events: &[Event]) -> Option<String> {
    events.iter().rev().find_map(|e| match e {
        Event::Understood { path, .. } => path.clone(),
        _ => None,
    })
}
