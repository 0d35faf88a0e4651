//! Running episodes (dialogue scripts or isolated grid cases) on fresh twins,
//! in parallel, and judging every turn.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::json;

use super::judge::{judge, Category, Expectation, Verdict};
use super::script::{apply_before, Before, Expect, ExpectedState, Script, ScriptError};
use crate::agent::tools::ToolTexts;
use crate::agent::{Agent, Character, Turn};
use crate::config::{AgentSettings, GuardSettings};
use crate::events::Event;
use crate::llm::ChatBackend;
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
}

/// A sequence of turns on one fresh world.
#[derive(Debug, Clone)]
pub struct Episode {
    /// Where it came from (a script path, or a grid case label).
    pub label: String,
    /// The case type, for grid cases.
    pub case: Option<Case>,
    /// The world it starts from.
    pub world: World,
    /// The character, if the episode fixes one.
    pub character: Option<String>,
    /// The turns.
    pub turns: Vec<EpisodeTurn>,
}

/// A judged turn.
#[derive(Debug, Clone)]
pub struct Judged {
    /// The episode's label.
    pub label: String,
    /// 1-based turn number.
    pub turn: usize,
    /// The case type, for grid cases; else the expected decision decides the row.
    pub case: Option<Case>,
    /// What was expected.
    pub expect: Expect,
    /// The verdict.
    pub verdict: Verdict,
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
        });
        if let Some(case) = self.case {
            value["case"] = json!(case.as_str());
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
        episodes.push(Episode {
            label: file.display().to_string(),
            case: None,
            world,
            character: script.character.clone(),
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
                world: case.world.clone(),
                character: None,
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
                        }]
                    } else {
                        Vec::new()
                    },
                    speech: Vec::new(),
                }],
            });
        }
    }
    Ok(episodes)
}

/// Makes a brain for an episode's starting world; the error says why not.
pub type BrainFactory<'a> = dyn Fn(&World) -> Result<Box<dyn ChatBackend>, String> + Sync + 'a;

/// How to run episodes: the brain for a world, the character, the loop's settings.
pub struct Runner<'a> {
    /// Makes a brain for an episode's starting world.
    pub brain: &'a BrainFactory<'a>,
    /// Character name or path when the episode does not fix one.
    pub character: String,
    /// Tool descriptions.
    pub texts: ToolTexts,
    /// Loop limits.
    pub agent: AgentSettings,
    /// Guards.
    pub guards: GuardSettings,
}

impl Runner<'_> {
    /// Runs every episode `repeat` times on `jobs` threads; judged turns in input order.
    pub fn run_all(&self, episodes: &[Episode], repeat: u32, jobs: usize) -> Vec<Judged> {
        let work: Vec<&Episode> = episodes
            .iter()
            .flat_map(|e| std::iter::repeat_n(e, repeat.max(1) as usize))
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build();
        let run = || work.par_iter().map(|e| self.run(e)).collect::<Vec<_>>();
        let results = match pool {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        };
        results.into_iter().flatten().collect()
    }

    /// Runs one episode on a fresh twin and judges each turn.
    pub fn run(&self, episode: &Episode) -> Vec<Judged> {
        let judged = |turn: usize, e: &EpisodeTurn, category, why: String| Judged {
            label: episode.label.clone(),
            turn,
            case: episode.case,
            expect: e.expect,
            verdict: Verdict { category, why },
        };
        let setup = || -> Result<(Agent, tokio::runtime::Runtime), String> {
            let name = episode
                .character
                .clone()
                .unwrap_or_else(|| self.character.clone());
            let character =
                Character::load(&name, &episode.world.robot.name).map_err(|e| e.to_string())?;
            let backend = (self.brain)(&episode.world)?;
            let agent = Agent::new(
                backend,
                character,
                &self.texts,
                &episode.world.robot.name,
                self.agent.clone(),
                self.guards.clone(),
            );
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            Ok((agent, runtime))
        };
        let (mut agent, runtime) = match setup() {
            Ok(ok) => ok,
            Err(why) => {
                return episode
                    .turns
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        judged(
                            i + 1,
                            t,
                            Category::ExecutionError,
                            format!("could not start: {why}"),
                        )
                    })
                    .collect()
            }
        };
        let mut twin = Twin::from_world(episode.world.clone());
        let mut out = Vec::new();
        for (i, t) in episode.turns.iter().enumerate() {
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
            runtime.block_on(agent.handle_turn(&t.turn, &mut twin, &mut events));
            let expectation = Expectation {
                expect: t.expect,
                reason: t.reason.as_deref(),
                state: &t.state,
                speech: &t.speech,
                sender: &t.turn.speaker,
                receiver: &t.turn.listener,
            };
            let verdict = judge(&events, &twin.world, &expectation);
            out.push(Judged {
                label: episode.label.clone(),
                turn: i + 1,
                case: episode.case,
                expect: t.expect,
                verdict,
            });
        }
        out
    }
}
