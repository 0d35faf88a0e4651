//! The daemon's start-up, one named step per part: the brain (scene,
//! character, tools), the address, the state folder (log, bus), memory, the
//! listening socket, the voice, the robot or the simulated robot, the worker,
//! the microphone, the API; and the ordered stop.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::agent::tools::ToolTexts;
use crate::agent::{Agent, Character};
use crate::config::Settings;
use crate::events::Event;
use crate::language::Language;
use crate::llm::rules::RulesBrain;
use crate::llm::ChatBackend;
use crate::twin::actions::playback::{ArmsNow, SimulatedRobot};
use crate::twin::actions::Executor;
use crate::twin::{Twin, World};
use crate::voice::Voice;

use super::bus::Bus;
use super::intake::{self, Intake, InterruptKind, TurnQueue};
use super::worker::{Episodes, Health, Snapshot, Worker};
use super::{api, audio, claim, instance, log, memory, motion, sentence, systemd};
use super::{DaemonError, Options};

/// The scene's twin and the agent that acts in it.
pub struct Brain {
    /// The twin as loaded.
    pub twin: Twin,
    /// The agent, before memory, voice and robot are added.
    pub agent: Agent,
    /// The brain's own description, for `/health`.
    pub description: String,
}

/// Loads the scene, the character and the tools, and builds the agent.
pub fn brain(
    settings: &Settings,
    options: &Options,
    backend: Box<dyn ChatBackend>,
) -> Result<Brain, DaemonError> {
    let step = |what: &str, e: &dyn std::fmt::Display| DaemonError::Load(format!("{what}: {e}"));
    let twin = Twin::load(&options.scene).map_err(|e| step("the scene", &e))?;
    let robot_name = twin.world.robot.name.clone();
    let language = Language::find(settings.language()).map_err(|e| step("the language", &e))?;
    let character = Character::load_in(language.characters(), &options.character, &robot_name)
        .map_err(|e| step("the character", &e))?;
    let texts = ToolTexts::load_default().map_err(|e| step("the tool texts", &e))?;
    let description = backend.describe();
    let mut agent = Agent::new(
        backend,
        character,
        &texts,
        &robot_name,
        settings.agent_settings(),
        settings.guards.clone(),
    )
    .with_language(&language);
    if settings.llm.uses_name_enums() {
        agent = agent.with_scene_names(&twin.world);
    }
    let description = if options.brain == "hybrid" {
        agent = agent.with_local_first(Box::new(RulesBrain::new(&twin.world, &language)));
        format!("hybrid: the rules brain when sure, else {description}")
    } else {
        description
    };
    Ok(Brain {
        twin,
        agent,
        description,
    })
}

/// Where to listen, and the token that guards it.
pub struct Address {
    /// As given (for messages).
    pub listen: String,
    /// Parsed.
    pub addr: SocketAddr,
    /// The bearer token, if set.
    pub token: Option<Arc<str>>,
}

/// Reads the listen address; off loopback a token is required.
pub fn address(settings: &Settings, options: &Options) -> Result<Address, DaemonError> {
    let daemon = &settings.daemon;
    let listen = options
        .listen
        .clone()
        .unwrap_or_else(|| daemon.listen.clone());
    let addr: SocketAddr = listen
        .parse()
        .map_err(|_| DaemonError::BadAddress(listen.clone()))?;
    let token = std::env::var(&daemon.token_env)
        .ok()
        .filter(|t| !t.trim().is_empty())
        .map(|t| Arc::<str>::from(t.trim()));
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(DaemonError::NoToken {
            addr,
            env: daemon.token_env.clone(),
        });
    }
    Ok(Address {
        listen,
        addr,
        token,
    })
}

/// The state folder: its claim, the event log and the bus over it.
pub struct StateDir {
    /// The folder.
    pub dir: PathBuf,
    /// This daemon's claim on it, or why there is none.
    pub claim: Result<instance::Claim, String>,
    /// The event log's folder.
    pub log_dir: PathBuf,
    /// Every event goes through it.
    pub bus: Bus,
}

/// Claims the state folder and opens the event log; a repaired log or a
/// missing claim is a warning, not a stop.
pub async fn state(
    settings: &Settings,
    echo: Option<super::bus::Echo>,
) -> Result<StateDir, DaemonError> {
    let daemon = &settings.daemon;
    let dir = daemon.state_dir();
    let claim = claim(&dir).await;
    let log = log::EventLog::open(
        &dir,
        daemon.fsync,
        Duration::from_millis(daemon.fsync_interval_ms),
    )?;
    let repaired = log.repaired.clone();
    let log_dir = log.dir().to_path_buf();
    let bus = Bus::new(log, echo);
    if let Some(repaired) = repaired {
        bus.publish(Event::Warning {
            kind: "event_log".into(),
            detail: repaired,
        });
    }
    if let Err(why) = &claim {
        bus.publish(Event::Warning {
            kind: "state_dir".into(),
            detail: why.clone(),
        });
    }
    Ok(StateDir {
        dir,
        claim,
        log_dir,
        bus,
    })
}

/// Opens memory; without it the agent runs on (the reason is in `/health`).
pub async fn memory(
    settings: &Settings,
    state: &StateDir,
    agent: Agent,
) -> (Agent, Result<crate::memory::Memory, String>) {
    match memory::start(&settings.memory, &state.dir, &state.bus).await {
        Ok((memory, remembering)) => (agent.with_memory(remembering), Ok(memory)),
        Err(why) => (agent, Err(why)),
    }
}

/// The listening socket, and its address (the port may have been 0).
pub struct Bound {
    /// The socket.
    pub listener: TcpListener,
    /// Its address.
    pub addr: SocketAddr,
    /// The bearer token the API requires, if any.
    pub token: Option<Arc<str>>,
}

/// Binds the API's socket and writes its address into the claim.
pub async fn bind(address: &Address, state: &mut StateDir) -> Result<Bound, DaemonError> {
    let bind_error = |source| DaemonError::Bind {
        addr: address.listen.clone(),
        source,
    };
    let listener = TcpListener::bind(address.addr).await.map_err(bind_error)?;
    let addr = listener.local_addr().map_err(bind_error)?;
    if let Ok(claim) = &mut state.claim {
        if let Err(error) = claim.announce(addr) {
            tracing::warn!(
                "cannot write the API's address into {}: {error}",
                claim.path().display()
            );
        }
    }
    Ok(Bound {
        listener,
        addr,
        token: address.token.clone(),
    })
}

/// The robot's voice: a failing engine or output is one warning; the words are still shown.
pub async fn voice(
    settings: &Settings,
    options: &Options,
    bus: &Bus,
    agent: Agent,
) -> (Agent, Option<Voice>) {
    if options.no_audio {
        return (agent, None);
    }
    let (voice_events, mut heard) = mpsc::unbounded_channel();
    let forward = bus.clone();
    tokio::spawn(async move {
        while let Some(event) = heard.recv().await {
            forward.publish(event);
        }
    });
    let voice = match Voice::start(&settings.voice, voice_events).await {
        Ok(voice) if voice.is_audible() => Some(voice),
        Ok(_) => None,
        Err(error) => {
            bus.publish(Event::Warning {
                kind: "voice".into(),
                detail: format!(
                    "the robot cannot speak aloud: {}. Its words are still shown.",
                    sentence(&error.to_string())
                ),
            });
            None
        }
    };
    match &voice {
        Some(v) => (
            agent.with_mouth(Arc::new(v.clone()), settings.voice.action_wait()),
            voice,
        ),
        None => (agent, None),
    }
}

/// What carries out the plans: the robot bridge, or the simulated robot.
pub struct Body {
    /// The executor.
    pub executor: Box<dyn Executor>,
    /// The bridge's URL, or `None` for the simulated robot.
    pub url: Option<String>,
    /// The bridge's perception updates.
    pub perception: Option<watch::Receiver<u64>>,
    /// The bridge's head, to glance at speakers.
    pub glance: Option<intake::Glance>,
}

/// Connects to the robot bridge when one is configured; else the simulated
/// robot, moving in time, whose joints go to the page as `joints` events.
pub fn robot(
    settings: &Settings,
    options: &Options,
    twin: &Twin,
    bus: &Bus,
    shutdown: CancellationToken,
) -> Result<Body, DaemonError> {
    let url = options.robot.clone().or_else(|| settings.robot.url.clone());
    let arms = published_arms(settings, twin, bus, &shutdown);
    let Some(url) = url else {
        let simulated = SimulatedRobot::new(settings.sim.pace()).watched_by(arms);
        return Ok(Body {
            executor: Box::new(simulated),
            url: None,
            perception: None,
            glance: None,
        });
    };
    if let Ok(robot) = &twin.robot {
        settings
            .robot
            .matches(robot)
            .map_err(|e| DaemonError::Load(format!("the robot bridge: {e}")))?;
    }
    let bridge =
        crate::robot::RobotBridge::start(&settings.robot, &url, &twin.world, shutdown.clone())
            .map_err(|e| DaemonError::Load(format!("the robot bridge: {e}")))?;
    motion::follow_measured(
        bridge.measured_arms(),
        bridge.updates(),
        arms,
        shutdown.clone(),
    );
    let mut statuses = bridge.status_events(shutdown);
    let forward = bus.clone();
    tokio::spawn(async move {
        while let Some(event) = statuses.recv().await {
            forward.publish(event);
        }
    });
    let glance = bridge.head(twin).map(|head| intake::Glance {
        head,
        eyes: twin
            .world
            .persons()
            .iter()
            .map(|p| (p.name.clone(), p.eyes()))
            .collect(),
    });
    Ok(Body {
        perception: Some(bridge.updates()),
        executor: Box::new(bridge),
        url: Some(url),
        glance,
    })
}

/// Where the robot's parts are, published to the page as `joints` events
/// (through the twin's kinematics; without a robot model nobody listens).
fn published_arms(
    settings: &Settings,
    twin: &Twin,
    bus: &Bus,
    shutdown: &CancellationToken,
) -> watch::Sender<ArmsNow> {
    let (arms, watchers) = watch::channel(ArmsNow {
        joints: twin.joints,
        ..ArmsNow::default()
    });
    if let Ok(kinematics) = &twin.robot {
        let hz = settings.daemon.joints_hz;
        motion::spawn(
            kinematics.clone(),
            watchers,
            bus.clone(),
            hz,
            shutdown.clone(),
        );
    }
    arms
}

/// The agent's worker, and the handles the API and the stop need.
pub struct Running {
    /// Turns and interrupts in.
    pub intake: Intake,
    /// The worker's heartbeat.
    pub health: Arc<Health>,
    /// The twin as last published.
    pub snapshot: watch::Receiver<Snapshot>,
    task: JoinHandle<()>,
    stop: CancellationToken,
}

/// Starts the agent's worker over the twin.
pub fn worker(
    settings: &Settings,
    agent: Agent,
    twin: Twin,
    bus: &Bus,
    voice: &Option<Voice>,
    body: Body,
) -> Running {
    let queue = Arc::new(TurnQueue::new(settings.daemon.queue_capacity));
    let episodes = Arc::new(Episodes::default());
    let health = Arc::new(Health::default());
    health.beat();
    let (control_tx, control_rx) = mpsc::channel(64);
    let (snapshot_tx, snapshot) = watch::channel(Snapshot::of(&twin));
    let intake = Intake {
        bus: bus.clone(),
        queue: queue.clone(),
        episodes: episodes.clone(),
        control: control_tx,
        robot_name: twin.world.robot.name.clone(),
        closed: CancellationToken::new(),
        voice: voice.clone(),
        glance: body.glance,
        last_turn: Arc::default(),
        understanding: agent.understanding().cloned(),
    };
    let worker = Worker::new(
        agent.with_executor(body.executor),
        twin,
        bus.clone(),
        queue,
        control_rx,
        episodes,
        health.clone(),
        snapshot_tx,
        Duration::from_secs_f64(settings.agent.turn_timeout_s),
    );
    let worker = match body.perception {
        Some(updates) => worker.with_perception(updates),
        None => worker,
    };
    let stop = CancellationToken::new();
    let task = tokio::spawn(worker.run(stop.clone()));
    Running {
        intake,
        health,
        snapshot,
        task,
        stop,
    }
}

/// The microphone, and what it listens to.
pub struct Ears {
    /// The running microphone, if any.
    pub microphone: Option<audio::Microphone>,
    /// What it does, for the start-up line and `/health`.
    pub description: String,
}

/// Opens the microphone: a missing device or model is one warning; typed turns still work.
pub async fn microphone(
    settings: &Settings,
    options: &Options,
    intake: &Intake,
    voice: &Option<Voice>,
    world: &crate::twin::World,
) -> Ears {
    if options.no_audio {
        return Ears {
            microphone: None,
            description: "audio off (--no-audio): typed turns only".into(),
        };
    }
    let source = match &options.wav {
        Some(path) => audio::MicSource::Wav(path.clone()),
        None => audio::MicSource::Device(settings.audio.device.clone()),
    };
    systemd::extend_start(Duration::from_secs(60));
    let scene_file = crate::paths::resolve(&options.scene, "scenes", "toml");
    let (audio_settings, pause_ms, for_mic) = (
        settings.audio.clone(),
        settings.daemon.listening_pause_ms,
        intake.clone(),
    );
    let duplex = voice.as_ref().map(audio::VoiceDuplex::new);
    let words = audio::CompleteWords::on(settings.language(), world.clone());
    let started = tokio::task::spawn_blocking(move || {
        audio::Microphone::start(
            &audio_settings,
            pause_ms,
            &scene_file,
            source,
            for_mic,
            duplex,
            words,
        )
    })
    .await
    .unwrap_or_else(|e| Err(format!("the microphone start-up failed: {e}")));
    match started {
        Ok(mic) => Ears {
            description: format!("listening to the {}", mic.description),
            microphone: Some(mic),
        },
        Err(why) => {
            intake.bus.publish(Event::Warning {
                kind: "microphone".into(),
                detail: format!(
                    "no speech input: {}. Typed turns (POST /api/turns, the page) still work.",
                    sentence(&why)
                ),
            });
            Ears {
                microphone: None,
                description: "no microphone: typed turns only".into(),
            }
        }
    }
}

/// The facts of `/health`.
pub struct Facts<'a> {
    /// What was asked on the command line.
    pub options: &'a Options,
    /// The brain's description.
    pub brain: &'a str,
    /// The voice.
    pub voice: &'a Option<Voice>,
    /// The microphone's description.
    pub audio: &'a str,
    /// The robot bridge's URL, if any.
    pub robot: &'a Option<String>,
    /// The scene.
    pub world: &'a World,
    /// Memory, or why it is off.
    pub memory: &'a Result<crate::memory::Memory, String>,
}

impl Facts<'_> {
    /// As `/health` shows them.
    pub fn json(&self) -> Value {
        let voice = self.voice.as_ref().map_or_else(
            || "silent: the robot's words are shown, not spoken".to_string(),
            |v| v.describe().to_string(),
        );
        json!({
            "voice": voice,
            "scene": self.world.name,
            "brain": self.options.brain,
            "brain_description": self.brain,
            "character": self.options.character,
            "audio": self.audio,
            "robot": self.robot.as_deref().map_or_else(|| "simulated".to_string(), |u| format!("rosbridge {u}")),
            "memory": match self.memory { Ok(_) => "on".to_string(), Err(why) => why.clone() },
            "version": env!("CARGO_PKG_VERSION"),
        })
    }
}

/// Serves the API and the page until `shutdown`.
pub fn api(
    settings: &Settings,
    bound: Bound,
    running: &Running,
    world: World,
    info: Value,
    memory: Result<crate::memory::Memory, String>,
    shutdown: CancellationToken,
) -> JoinHandle<std::io::Result<()>> {
    let state = api::ApiState {
        intake: running.intake.clone(),
        snapshot: running.snapshot.clone(),
        world: Arc::new(world),
        info: Arc::new(info),
        token: bound.token,
        shutdown: shutdown.clone(),
        memory: memory
            .map(|m| {
                memory::MemoryService::new(
                    m,
                    running.intake.bus.clone(),
                    running.intake.episodes.clone(),
                )
            })
            .map_err(Arc::from),
        three_dir: Arc::from(settings.daemon.three_dir.as_path()),
    };
    let app = api::router(state, settings.daemon.max_body_bytes);
    tokio::spawn(async move {
        axum::serve(bound.listener, app)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await
    })
}

/// The interval fsync policy's clock.
pub fn log_sync(settings: &Settings, bus: &Bus, shutdown: CancellationToken) {
    let bus = bus.clone();
    let every = Duration::from_millis(settings.daemon.fsync_interval_ms.max(10));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tick.tick() => {
                    if let Err(error) = bus.sync(false) {
                        tracing::error!("{error}");
                    }
                }
            }
        }
    });
}

/// Stops in order within `daemon.shutdown_timeout_s`: intake, the episode in
/// progress, the microphone, the worker, the server; then the log is synced.
pub async fn stop(
    settings: &Settings,
    running: Running,
    microphone: Option<audio::Microphone>,
    server: JoinHandle<std::io::Result<()>>,
    bus: &Bus,
) -> Result<(), DaemonError> {
    systemd::stopping();
    tracing::info!("shutting down");
    let deadline =
        tokio::time::Instant::now() + Duration::from_secs_f64(settings.daemon.shutdown_timeout_s);
    running.intake.closed.cancel();
    running.intake.interrupt(InterruptKind::Stop, "shutdown");
    running.stop.cancel();
    if let Some(mic) = microphone {
        let stopped = tokio::task::spawn_blocking(move || mic.stop());
        if tokio::time::timeout_at(deadline, stopped).await.is_err() {
            tracing::warn!("the microphone did not stop in time");
        }
    }
    if tokio::time::timeout_at(deadline, running.task)
        .await
        .is_err()
    {
        tracing::warn!("the agent worker did not stop in time");
    }
    match tokio::time::timeout_at(deadline, server).await {
        Ok(Ok(Err(error))) => tracing::warn!("the HTTP server ended with: {error}"),
        Err(_) => tracing::warn!("the HTTP server did not stop in time"),
        _ => {}
    }
    bus.sync(true)?;
    Ok(())
}
