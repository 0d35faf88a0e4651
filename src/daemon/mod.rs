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
pub mod motion;
pub mod settings;
mod startup;
pub mod systemd;
pub mod worker;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::config::Settings;
use crate::events::Event;
use crate::llm::ChatBackend;

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
/// the API is bound and everything is loaded. Each step is a function of
/// [`startup`] with its own error context.
pub async fn run(
    settings: Settings,
    options: Options,
    backend: Box<dyn ChatBackend>,
    echo: Option<bus::Echo>,
    shutdown: CancellationToken,
    on_ready: impl FnOnce(&Started),
) -> Result<(), DaemonError> {
    let brain = startup::brain(&settings, &options, backend)?;
    let address = startup::address(&settings, &options)?;
    let mut state = startup::state(&settings, echo).await?;
    let (agent, memory) = startup::memory(&settings, &state, brain.agent).await;
    let bound = startup::bind(&address, &mut state).await?;
    let addr = bound.addr;
    let (agent, voice) = startup::voice(&settings, &options, &state.bus, agent).await;
    let body = startup::robot(
        &settings,
        &options,
        &brain.twin,
        &state.bus,
        shutdown.clone(),
    )?;
    let robot_url = body.url.clone();
    let world = brain.twin.world.clone();
    let running = startup::worker(&settings, agent, brain.twin, &state.bus, &voice, body);
    let ears = startup::microphone(&settings, &options, &running.intake, &voice, &world).await;
    let facts = startup::Facts {
        options: &options,
        brain: &brain.description,
        voice: &voice,
        audio: &ears.description,
        robot: &robot_url,
        world: &world,
        memory: &memory,
    }
    .json();
    let server = startup::api(
        &settings,
        bound,
        &running,
        world,
        facts,
        memory,
        shutdown.clone(),
    );
    startup::log_sync(&settings, &state.bus, shutdown.clone());
    systemd::spawn_watchdog(running.health.clone(), shutdown.clone());

    on_ready(&Started {
        addr,
        audio: ears.description.clone(),
        log_dir: state.log_dir.clone(),
    });
    if robot_url.is_none() {
        state.bus.publish(Event::Robot {
            status: "simulated".into(),
            detail: "no robot configured: actions execute in the twin".into(),
        });
    }
    systemd::ready(&format!("serving on http://{addr}/"));

    shutdown.cancelled().await;
    startup::stop(&settings, running, ears.microphone, server, &state.bus).await?;
    drop(state.claim);
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
