//! `attentive sim`: the text-only simulation — a REPL of turns, or a script.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};
use tokio::io::{AsyncBufReadExt, BufReader};

use attentive::agent::tools::ToolTexts;
use attentive::agent::{Agent, Character, EventSink, Turn};
use attentive::config::Settings;
use attentive::eval::script::{apply_before, Script};
use attentive::events::Event;
use attentive::language::Language;
use attentive::llm::rules::RulesBrain;
use attentive::llm::scripted::ScriptedBrain;
use attentive::llm::{ChatBackend, OpenAiCompatible};
use attentive::twin::actions::playback::SimulatedRobot;
use attentive::twin::Twin;
use attentive::voice::settings::EngineKind;

use crate::cli::SimArgs;

/// Prints events: JSON lines, or readable coloured lines for people.
pub struct Printer {
    json: bool,
    colour: bool,
    /// The brain asks an LLM: an episode's steps are LLM calls (the rules brain's are not).
    asks_an_llm: bool,
}

impl Printer {
    /// A printer for stdout, for turns taken by `brain`.
    pub fn new(json: bool, brain: &str) -> Self {
        Self {
            json,
            colour: !json
                && std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none(),
            asks_an_llm: brain != "rules",
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

impl EventSink for Printer {
    fn emit(&mut self, event: Event) {
        if self.json {
            println!("{}", event.to_json_line());
            return;
        }
        let line = match &event {
            Event::Turn {
                speaker,
                listener,
                text,
                ..
            } => self.paint("1", &format!("{speaker} -> {listener}: {text}")),
            Event::Speech { to, text } => {
                self.paint("36", &format!("  robot says to {to}: {text}"))
            }
            Event::Action {
                name, ok, detail, ..
            } => {
                if *ok {
                    self.paint("32", &format!("  robot {name}: {detail}"))
                } else {
                    self.paint("31", &format!("  robot {name} failed: {detail}"))
                }
            }
            Event::SpeakerCorrected { speaker, was, .. } => self.paint(
                "33",
                &format!("  (speaker corrected: {speaker}, not {was})"),
            ),
            Event::Understood {
                act,
                slots,
                matched,
                path,
                why,
                ..
            } => {
                let route = match (path, why) {
                    (Some(path), Some(why)) => format!("; {path}: {why}"),
                    _ => String::new(),
                };
                self.paint(
                    "2",
                    &format!("  (understood {act} {slots}; {matched}{route})"),
                )
            }
            Event::Situation { text } => self.paint("2", &format!("  (situation: {text})")),
            Event::MemoryErased {
                facts, episodes, ..
            } => self.paint(
                "33",
                &format!("  (memory erased: {facts} facts, {episodes} episodes)"),
            ),
            Event::SessionStart => {
                self.paint("1", "--- a new session: the table reset, memory kept ---")
            }
            Event::ToolCall { name, result, .. } => {
                self.paint("2", &format!("  [{name}] {result}"))
            }
            Event::Warning { kind, detail } => {
                self.paint("33", &format!("  warning ({kind}): {detail}"))
            }
            Event::EpisodeEnd { reason, llm_calls } => {
                let plural = if *llm_calls == 1 { "" } else { "s" };
                let steps = if self.asks_an_llm {
                    format!("{llm_calls} LLM call{plural}")
                } else {
                    format!("{llm_calls} step{plural}, no LLM")
                };
                self.paint("2", &format!("  (turn ended: {reason}, {steps})"))
            }
            Event::Listening { speaker } => self.paint("2", &format!("  (listening to {speaker})")),
            Event::Interrupted { by, kind } => {
                self.paint("33", &format!("  interrupted ({kind}) by {by}"))
            }
            Event::Voice { text, ms } => {
                self.paint("2", &format!("  (said aloud in {ms} ms: {text})"))
            }
            Event::Robot { status, detail } => {
                self.paint("2", &format!("  robot bridge {status}: {detail}"))
            }
            Event::State { objects, persons } => {
                let mut lines = vec!["state:".to_string()];
                for (name, p) in persons {
                    lines.push(format!(
                        "  {name}: {}{}",
                        if p.busy { "busy" } else { "idle" },
                        if p.holding.is_empty() {
                            String::new()
                        } else {
                            format!(", holding {}", p.holding.join(", "))
                        }
                    ));
                }
                for (name, o) in objects {
                    let mut notes =
                        vec![format!("at [{:.2}, {:.2}]", o.position[0], o.position[1])];
                    if let Some(h) = &o.held_by {
                        notes.push(format!("held by {h}"));
                    }
                    if let Some(c) = &o.contains {
                        notes.push(format!("contains {c}"));
                    }
                    lines.push(format!("  {name}: {}", notes.join(", ")));
                }
                lines.join("\n")
            }
            // Motion is for the page; the terminal shows the action's outcome.
            Event::Joints { .. } => return,
        };
        println!("{line}");
    }
}

/// Which brain, and why: the first line of the simulation says it.
pub fn build_backend(
    brain: &str,
    settings: &Settings,
    responses: Option<&Path>,
    world: &attentive::twin::World,
    language: &Language,
) -> anyhow::Result<Box<dyn ChatBackend>> {
    Ok(match brain {
        // Hybrid: the LLM here; the agent adds the rules brain ([`local_first`]).
        "llm" | "hybrid" => Box::new(OpenAiCompatible::from_settings(&settings.llm)?),
        "scripted" => {
            let path = responses.context("the scripted brain needs --responses FILE")?;
            Box::new(ScriptedBrain::load(path)?)
        }
        "rules" => Box::new(RulesBrain::new(world, language)),
        other => bail!("unknown brain '{other}': use llm, rules, hybrid or scripted"),
    })
}

/// With the hybrid brain, the rules brain that takes the turns the
/// understanding stage is sure of; `None` for the other brains.
pub fn local_first(
    brain: &str,
    world: &attentive::twin::World,
    language: &Language,
) -> Option<Box<dyn ChatBackend>> {
    match brain {
        "hybrid" => Some(Box::new(RulesBrain::new(world, language))),
        _ => None,
    }
}

/// Loads the configuration with the command line's LLM and language overrides.
pub fn settings_with(
    config: Option<&Path>,
    llm_url: &Option<String>,
    model: &Option<String>,
    language: &Option<String>,
) -> anyhow::Result<Settings> {
    let mut settings = Settings::load(config)?;
    if let Some(language) = language {
        settings.language = Some(language.clone());
    }
    if settings.language.is_some() {
        let language = Language::find(settings.language())?;
        speak_and_hear(&mut settings, &language);
    }
    if let Some(url) = llm_url {
        settings.llm.base_url = Some(url.clone());
    }
    if let Some(model) = model {
        settings.llm.model = model.clone();
    }
    Ok(settings)
}

/// A chosen language tells the recogniser what it hears and the robot which voice speaks it.
pub fn speak_and_hear(settings: &mut Settings, language: &Language) {
    settings.audio.asr.language = language.recogniser().to_string();
    let (people, things) = language.recogniser_prompt();
    settings.audio.asr.prompt_people = people.clone();
    settings.audio.asr.prompt_things = things.clone();
    let voices = language.voices();
    settings.voice.espeak.voice = voices.espeak.clone();
    if !voices.piper && settings.voice.engine == EngineKind::Auto {
        settings.voice.engine = EngineKind::EspeakNg;
    }
}

/// Runs the simulation.
pub fn run(args: &SimArgs, json: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let script = args.script.as_deref().map(Script::load).transpose()?;
    // The command line wins over the script, the script over the configuration.
    let language_asked = args
        .language
        .clone()
        .or_else(|| script.as_ref().and_then(|s| s.language.clone()));
    let settings = settings_with(config, &args.llm_url, &args.model, &language_asked)?;
    let language = Language::find(settings.language())?;
    let scene = args
        .scene
        .clone()
        .or_else(|| script.as_ref().map(|s| s.scene.clone()))
        .unwrap_or_else(|| settings.sim.scene.clone());
    let character_name = args
        .character
        .clone()
        .or_else(|| script.as_ref().and_then(|s| s.character.clone()))
        .unwrap_or_else(|| settings.sim.character.clone());
    let brain = settings.brain(args.brain.as_deref());
    let mut twin = Twin::load(&scene)?;
    if let Some(script) = &script {
        script.check_names(&twin.world)?;
    }
    let character = Character::load_in(
        language.characters(),
        &character_name,
        &twin.world.robot.name,
    )?;
    let texts = ToolTexts::load_default()?;
    let backend = build_backend(
        &brain,
        &settings,
        args.responses.as_deref(),
        &twin.world,
        &language,
    )?;
    let mut printer = Printer::new(json, &brain);
    let banner = format!(
        "attentive sim: scene {}, character {}, brain {} ({})",
        twin.world.name,
        character.name,
        brain,
        backend.describe()
    );
    if json {
        eprintln!("{banner}");
    } else {
        println!("{banner}");
    }
    let mut agent = Agent::new(
        backend,
        character,
        &texts,
        &twin.world.robot.name.clone(),
        settings.agent_settings(),
        settings.guards.clone(),
    )
    .with_language(&language)
    // The arms move in time, as beside a robot (`sim.time_scale`; 0 = at once).
    .with_executor(Box::new(SimulatedRobot::new(settings.sim.pace())));
    if let Some(local) = local_first(&brain, &twin.world, &language) {
        agent = agent.with_local_first(local);
    }
    if settings.llm.uses_name_enums() {
        agent = agent.with_scene_names(&twin.world);
    }
    if let Some(path) = &args.memory {
        let memory = attentive::memory::Memory::open(path)?;
        agent = agent.with_memory(attentive::agent::remembering::Remembering::new(
            memory,
            settings.memory.clone(),
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        match &script {
            Some(script) => {
                for (turn, scripted) in &script.turns {
                    if scripted.new_session {
                        agent.new_session();
                        twin.reset();
                        printer.emit(Event::SessionStart);
                    }
                    apply_before(&mut twin.world, &scripted.before).map_err(anyhow::Error::msg)?;
                    agent.handle_turn(turn, &mut twin, &mut printer).await;
                }
                printer.emit(twin.state_event());
                Ok(ExitCode::SUCCESS)
            }
            None => repl(&mut agent, &mut twin, &mut printer, json).await,
        }
    })
}

const HELP: &str = "Type a turn as 'Felix said to Daniel: text' or 'Felix -> Daniel: text'. Commands: :busy PERSON OBJECT, :free PERSON, :state, :reset, :session (a new session: the table reset, the dialogue forgotten, memory kept), :help, :quit. Ctrl-C while the robot moves stops it where it is.";

async fn repl(
    agent: &mut Agent,
    twin: &mut Twin,
    printer: &mut Printer,
    json: bool,
) -> anyhow::Result<ExitCode> {
    if !json {
        println!("{HELP}");
    }
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = tokio::select! {
            line = lines.next_line() => line?,
            _ = tokio::signal::ctrl_c() => None,
        };
        let Some(line) = line else { break };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(command) = line.strip_prefix(':') {
            let words: Vec<&str> = command.split_whitespace().collect();
            let answer = match words.as_slice() {
                ["quit"] | ["q"] | ["exit"] => break,
                ["help"] => HELP.to_string(),
                ["state"] => {
                    printer.emit(twin.state_event());
                    continue;
                }
                ["session"] => {
                    twin.reset();
                    agent.new_session();
                    printer.emit(Event::SessionStart);
                    continue;
                }
                ["reset"] => {
                    twin.reset();
                    agent.reset();
                    "The scene and the dialogue are back to the start.".to_string()
                }
                ["busy", person, object] => {
                    match (
                        twin.world.person_named(person),
                        twin.world.object_named(object),
                    ) {
                        (Some(p), Some(o)) => match twin.world.make_busy_with(p, o) {
                            Ok(hand) => format!(
                                "{person} now holds {object} in the {} hand.",
                                hand.as_str()
                            ),
                            Err(e) => format!("cannot: {e}"),
                        },
                        (None, _) => format!("no person '{person}'"),
                        (_, None) => format!("no object '{object}'"),
                    }
                }
                ["free", person] => match twin.world.person_named(person) {
                    Some(p) => {
                        let put: Vec<String> = twin
                            .world
                            .free_person(p)
                            .into_iter()
                            .map(|o| twin.world.object(o).name.clone())
                            .collect();
                        format!(
                            "{person} put down {}.",
                            if put.is_empty() {
                                "nothing".to_string()
                            } else {
                                put.join(", ")
                            }
                        )
                    }
                    None => format!("no person '{person}'"),
                },
                _ => format!("unknown command ':{command}'. {HELP}"),
            };
            if json {
                eprintln!("{answer}");
            } else {
                println!("{answer}");
            }
            continue;
        }
        match Turn::parse(line) {
            Ok(turn) => {
                // Ctrl-C while the robot acts stops it where it is (at the prompt it quits).
                let cancel = tokio_util::sync::CancellationToken::new();
                let stop = cancel.clone();
                let watcher = tokio::spawn(async move {
                    if tokio::signal::ctrl_c().await.is_ok() {
                        stop.cancel();
                    }
                });
                agent.handle_turn_until(&turn, twin, printer, &cancel).await;
                watcher.abort();
                if cancel.is_cancelled() {
                    printer.emit(Event::Interrupted {
                        by: "Ctrl-C".into(),
                        kind: "stop".into(),
                    });
                }
            }
            Err(hint) => {
                if json {
                    eprintln!("{hint}");
                } else {
                    println!("{hint}");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
