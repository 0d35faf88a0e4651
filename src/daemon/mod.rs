//! `attentive run`: the long-lived process beside the robot. Turns from the
//! microphone and the HTTP API go through one intake into one agent worker;
//! every event is logged (JSONL) and streamed (SSE); shutdown is passed in.

pub mod api;
pub mod audio;
pub mod bus;
pub mod instance;
pub mod intake;
pub mod log;
pub mod memory;
pub mod settings;
pub mod systemd;
pub mod worker;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::agent::tools::ToolTexts;
use crate::agent::{Agent, Character};
use crate::config::Settings;
use crate::events::Event;
use crate::llm::ChatBackend;
use crate::twin::Twin;
use bus::Bus;
use intake::{Intake, InterruptKind, TurnQueue};
use worker::{Episodes, Health, Snapshot, Worker};

/// Why the daemon could not start.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The scene, character or tool texts could not be loaded.
    #[error("{0}")]
    Load(String),
    /// The listen address is not loopback and no token is set.
    #[error("refusing to listen on {addr} without a bearer token: set the environment variable {env} (or listen on 127.0.0.1)")]
    NoToken {
        /// The address asked for.
        addr: SocketAddr,
        /// The variable that should hold the token.
        env: String,
    },
    /// The address is not an address.
    #[error("cannot listen on {0:?}: give an address such as 127.0.0.1:8765")]
    BadAddress(String),
    /// The port is taken or not ours.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The event log cannot be opened.
    #[error(transparent)]
    Log(#[from] log::LogError),
}

/// One line without its final period, so that it can stand inside a sentence.
fn sentence(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_end_matches('.')
        .to_string()
}

/// What `attentive run` was asked for on the command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Scene name or path.
    pub scene: String,
    /// Character name or path.
    pub character: String,
    /// The brain's name, for the start-up line and `/health`.
    pub brain: String,
    /// Listen address (overrides `daemon.listen`).
    pub listen: Option<String>,
    /// Do not open audio at all.
    pub no_audio: bool,
    /// A WAV file as the microphone.
    pub wav: Option<PathBuf>,
    /// The robot bridge's URL, if any.
    pub robot: Option<String>,
}

/// Facts about a started daemon, for the start-up line.
#[derive(Debug, Clone)]
pub struct Started {
    /// Where the API and the page are.
    pub addr: SocketAddr,
    /// What the microphone does.
    pub audio: String,
    /// Where the event log is.
    pub log_dir: PathBuf,
}

/// Runs the daemon until `shutdown` is cancelled; `on_ready` is called once
/// the API is bound and everything is loaded.
pub async fn run(
    settings: Settings,
    options: Options,
    backend: Box<dyn ChatBackend>,
    echo: Option<bus::Echo>,
    shutdown: CancellationToken,
    on_ready: impl FnOnce(&Started),
) -> Result<(), DaemonError> {
    let daemon = &settings.daemon;
    let twin = Twin::load(&options.scene).map_err(|e| DaemonError::Load(e.to_string()))?;
    let robot_name = twin.world.robot.name.clone();
    let character = Character::load(&options.character, &robot_name)
        .map_err(|e| DaemonError::Load(e.to_string()))?;
    let texts = ToolTexts::load_default().map_err(|e| DaemonError::Load(e.to_string()))?;
    let brain_description = backend.describe();
    let mut agent = Agent::new(
        backend,
        character,
        &texts,
        &robot_name,
        settings.agent_settings(),
        settings.guards.clone(),
    )
    .with_shipped_understanding();
    if settings.llm.uses_name_enums() {
        agent = agent.with_scene_names(&twin.world);
    }

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

    let state_dir = daemon.state_dir();
    let mut claim = claim(&state_dir).await;
    let log = log::EventLog::open(
        &state_dir,
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
    let memory = match memory::start(&settings.memory, &state_dir, &bus).await {
        Ok((memory, remembering)) => {
            agent = agent.with_memory(remembering);
            Ok(memory)
        }
        Err(why) => Err(why),
    };

    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| DaemonError::Bind {
            addr: listen.clone(),
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| DaemonError::Bind {
        addr: listen.clone(),
        source,
    })?;
    if let Ok(claim) = &mut claim {
        if let Err(error) = claim.announce(addr) {
            tracing::warn!(
                "cannot write the API's address into {}: {error}",
                claim.path().display()
            );
        }
    }

    // The robot's voice: a failing engine or output is one warning; the words are still shown.
    let voice = if options.no_audio {
        None
    } else {
        let (voice_events, mut heard) = mpsc::unbounded_channel();
        let forward = bus.clone();
        tokio::spawn(async move {
            while let Some(event) = heard.recv().await {
                forward.publish(event);
            }
        });
        match crate::voice::Voice::start(&settings.voice, voice_events).await {
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
        }
    };
    if let Some(voice) = &voice {
        agent = agent.with_mouth(Arc::new(voice.clone()), settings.voice.action_wait());
    }

    // The robot: through the bridge when one is configured, else the twin alone.
    let robot_url = options.robot.clone().or_else(|| settings.robot.url.clone());
    let mut perception = None;
    let mut glance = None;
    if let Some(url) = &robot_url {
        let bridge =
            crate::robot::RobotBridge::start(&settings.robot, url, &twin.world, shutdown.clone())
                .map_err(|e| DaemonError::Load(e.to_string()))?;
        let mut statuses = bridge.status_events(shutdown.clone());
        let forward = bus.clone();
        tokio::spawn(async move {
            while let Some(event) = statuses.recv().await {
                forward.publish(event);
            }
        });
        perception = Some(bridge.updates());
        glance = bridge.head(&twin).map(|head| intake::Glance {
            head,
            eyes: twin
                .world
                .persons()
                .iter()
                .map(|p| (p.name.clone(), p.eyes()))
                .collect(),
        });
        agent = agent.with_executor(Box::new(bridge));
    }

    let queue = Arc::new(TurnQueue::new(daemon.queue_capacity));
    let episodes = Arc::new(Episodes::default());
    let health = Arc::new(Health::default());
    health.beat();
    let (control_tx, control_rx) = mpsc::channel(64);
    let (snapshot_tx, snapshot_rx) = watch::channel(Snapshot::of(&twin));
    let intake = Intake {
        bus: bus.clone(),
        queue: queue.clone(),
        episodes: episodes.clone(),
        control: control_tx,
        robot_name: robot_name.clone(),
        closed: CancellationToken::new(),
        voice: voice.clone(),
        glance,
        last_turn: Arc::default(),
    };
    let world = Arc::new(twin.world.clone());
    let scene_file = crate::paths::resolve(&options.scene, "scenes", "toml");
    let worker = Worker::new(
        agent,
        twin,
        bus.clone(),
        queue,
        control_rx,
        episodes,
        health.clone(),
        snapshot_tx,
        Duration::from_secs_f64(settings.agent.turn_timeout_s),
    );
    let worker = match perception {
        Some(updates) => worker.with_perception(updates),
        None => worker,
    };
    let worker_stop = CancellationToken::new();
    let worker_task = tokio::spawn(worker.run(worker_stop.clone()));

    // The microphone: a missing device or model is one warning; typed turns still work.
    let microphone = if options.no_audio {
        None
    } else {
        let source = match &options.wav {
            Some(path) => audio::MicSource::Wav(path.clone()),
            None => audio::MicSource::Device(settings.audio.device.clone()),
        };
        systemd::extend_start(Duration::from_secs(60));
        let (audio_settings, pause_ms, intake_for_mic) = (
            settings.audio.clone(),
            daemon.listening_pause_ms,
            intake.clone(),
        );
        let duplex = voice.as_ref().map(audio::VoiceDuplex::new);
        let started = tokio::task::spawn_blocking(move || {
            audio::Microphone::start(
                &audio_settings,
                pause_ms,
                &scene_file,
                source,
                intake_for_mic,
                duplex,
            )
        })
        .await
        .unwrap_or_else(|e| Err(format!("the microphone start-up failed: {e}")));
        match started {
            Ok(mic) => Some(mic),
            Err(why) => {
                bus.publish(Event::Warning {
                    kind: "microphone".into(),
                    detail: format!(
                        "no speech input: {}. Typed turns (POST /api/turns, the page) still work.",
                        sentence(&why)
                    ),
                });
                None
            }
        }
    };
    let audio = match (&microphone, options.no_audio) {
        (Some(mic), _) => format!("listening to the {}", mic.description),
        (None, true) => "audio off (--no-audio): typed turns only".to_string(),
        (None, false) => "no microphone: typed turns only".to_string(),
    };

    let voice_description = voice.as_ref().map_or_else(
        || "silent: the robot's words are shown, not spoken".to_string(),
        |v| v.describe().to_string(),
    );
    let info = Arc::new(json!({
        "voice": voice_description,
        "scene": world.name,
        "brain": options.brain,
        "brain_description": brain_description,
        "character": options.character,
        "audio": audio,
        "robot": robot_url.as_deref().map_or_else(|| "simulated".to_string(), |u| format!("rosbridge {u}")),
        "memory": match &memory { Ok(_) => "on".to_string(), Err(why) => why.clone() },
        "version": env!("CARGO_PKG_VERSION"),
    }));
    let api_state = api::ApiState {
        intake: intake.clone(),
        snapshot: snapshot_rx,
        world,
        info,
        token,
        shutdown: shutdown.clone(),
        memory: memory
            .map(|m| memory::MemoryService::new(m, bus.clone(), intake.episodes.clone()))
            .map_err(Arc::from),
    };
    let app = api::router(api_state, daemon.max_body_bytes);
    let server_stop = shutdown.clone();
    let server = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(server_stop.cancelled_owned())
            .await
    });

    // The interval fsync policy's clock.
    let sync_bus = bus.clone();
    let sync_stop = shutdown.clone();
    let sync_every = Duration::from_millis(daemon.fsync_interval_ms.max(10));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(sync_every);
        loop {
            tokio::select! {
                _ = sync_stop.cancelled() => break,
                _ = tick.tick() => {
                    if let Err(error) = sync_bus.sync(false) {
                        tracing::error!("{error}");
                    }
                }
            }
        }
    });
    systemd::spawn_watchdog(health, shutdown.clone());

    let started = Started {
        addr,
        audio,
        log_dir,
    };
    on_ready(&started);
    if robot_url.is_none() {
        bus.publish(Event::Robot {
            status: "simulated".into(),
            detail: "no robot configured: actions execute in the twin".into(),
        });
    }

    systemd::ready(&format!("serving on http://{addr}/"));

    shutdown.cancelled().await;
    systemd::stopping();
    tracing::info!("shutting down");
    let deadline = tokio::time::Instant::now() + Duration::from_secs_f64(daemon.shutdown_timeout_s);
    intake.closed.cancel();
    intake.interrupt(InterruptKind::Stop, "shutdown");
    worker_stop.cancel();
    if let Some(mic) = microphone {
        let stopped = tokio::task::spawn_blocking(move || mic.stop());
        if tokio::time::timeout_at(deadline, stopped).await.is_err() {
            tracing::warn!("the microphone did not stop in time");
        }
    }
    if tokio::time::timeout_at(deadline, worker_task)
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
    drop(claim);
    Ok(())
}

/// Claims the state folder for this daemon (see [`instance`]), waiting a few
/// seconds for an `attentive memory forget` that holds it to finish. When
/// another process keeps it, the sentence why (the daemon runs on).
async fn claim(state_dir: &Path) -> Result<instance::Claim, String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match instance::Claim::try_take(state_dir) {
            Ok(instance::Holder::Us(claim)) => return Ok(claim),
            Ok(instance::Holder::Daemon(_)) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Ok(instance::Holder::Daemon(_)) => {
                return Err(format!(
                    "another process holds {}: another attentive run seems to use this state folder, so both write one event log, and `attentive memory forget` cannot reach this daemon; give each daemon its own daemon.state_dir",
                    state_dir.join(instance::FILE).display()
                ))
            }
            Err(error) => {
                return Err(format!(
                    "cannot claim the state folder ({}: {error}); `attentive memory forget` cannot reach this daemon",
                    state_dir.join(instance::FILE).display()
                ))
            }
        }
    }
}
