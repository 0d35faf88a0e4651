//! The agent worker: one episode at a time, turns in the order they came,
//! interrupts through a per-episode `CancellationToken`, scene changes between
//! episodes (the twin is frozen while the agent plans and acts).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::bus::Bus;
use super::intake::{InterruptKind, Queued, TurnQueue};
use crate::agent::{Agent, EndReason, EventSink, Turn};
use crate::events::Event;
use crate::twin::Twin;

/// Milliseconds since the epoch, for the watchdog's clocks.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Signs of life for the systemd watchdog.
#[derive(Debug, Default)]
pub struct Health {
    /// Last time the worker made progress (ms since the epoch).
    pub heartbeat_ms: AtomicU64,
    /// While an episode runs: when its time limit ends (ms since the epoch), else 0.
    pub busy_until_ms: AtomicU64,
}

impl Health {
    /// Records progress.
    pub fn beat(&self) {
        self.heartbeat_ms.store(now_ms(), Ordering::Relaxed);
    }

    /// Whether the worker made progress within `bound`, or is inside an episode's time limit.
    pub fn alive(&self, bound: Duration) -> bool {
        let now = now_ms();
        now.saturating_sub(self.heartbeat_ms.load(Ordering::Relaxed)) <= bound.as_millis() as u64
            || now <= self.busy_until_ms.load(Ordering::Relaxed)
    }
}

/// What the twin looks like now, for `GET /api/state` and `GET /api/scene`.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The contract's `state` object.
    pub state: Value,
    /// The page's layout (`web::layout`).
    pub layout: Value,
}

impl Snapshot {
    /// A snapshot of the twin.
    pub fn of(twin: &Twin) -> Self {
        Self {
            state: serde_json::to_value(twin.state_event()).unwrap_or(Value::Null),
            layout: crate::web::layout::layout(twin),
        }
    }
}

/// A change of the scene asked for through the API.
#[derive(Debug, Clone, PartialEq)]
pub enum SceneChange {
    /// A person now holds exactly these objects (empty: hands free).
    Holding {
        /// The person, as the scene names them.
        person: String,
        /// The objects, as the scene names them.
        objects: Vec<String>,
    },
    /// Back to the scene as loaded; the dialogue is forgotten.
    Reset,
}

/// Messages to the worker that are not turns.
#[derive(Debug)]
pub enum Control {
    /// Change the scene; the reply carries the new `state` or why not.
    Scene {
        /// The change.
        change: SceneChange,
        /// Where the answer goes.
        reply: oneshot::Sender<Result<Value, String>>,
    },
    /// Run the paused episode again.
    Resume {
        /// Who asked.
        by: String,
    },
}

/// The episode running now, so that an interrupt can reach it.
#[derive(Debug, Default)]
pub struct Episodes {
    current: Mutex<Option<Running>>,
    paused: Mutex<Option<Turn>>,
}

#[derive(Debug)]
struct Running {
    cancel: CancellationToken,
    turn: Turn,
    interrupt: Option<(InterruptKind, String)>,
}

impl Episodes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Running>> {
        match self.current.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Stops or pauses the running episode; returns the turn it was handling, if any.
    pub fn interrupt(&self, kind: InterruptKind, by: &str) -> Option<Turn> {
        let mut current = self.lock();
        let running = current.as_mut()?;
        if running.interrupt.is_none() {
            running.interrupt = Some((kind, by.to_string()));
            // Known at once, so that a "go on" right after the pause finds it.
            let paused = (kind == InterruptKind::Pause).then(|| running.turn.clone());
            self.set_paused(paused);
        }
        running.cancel.cancel();
        Some(running.turn.clone())
    }

    /// The turn the running episode handles, if one runs.
    pub fn running_turn(&self) -> Option<Turn> {
        self.lock().as_ref().map(|r| r.turn.clone())
    }

    /// Whether an episode runs now.
    pub fn busy(&self) -> bool {
        self.lock().is_some()
    }

    /// The paused turn, if any.
    pub fn paused(&self) -> Option<Turn> {
        match self.paused.lock() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    fn set_paused(&self, turn: Option<Turn>) -> Option<Turn> {
        let mut guard = match self.paused.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        std::mem::replace(&mut *guard, turn)
    }
}

/// Publishes the agent's events and the twin each action leaves.
struct BusSink<'a> {
    bus: &'a Bus,
    health: &'a Health,
    snapshot: &'a watch::Sender<Snapshot>,
}

impl EventSink for BusSink<'_> {
    fn emit(&mut self, event: Event) {
        self.health.beat();
        self.bus.publish(event);
    }

    fn twin_changed(&mut self, twin: &Twin) {
        self.snapshot.send_replace(Snapshot::of(twin));
    }
}

/// The worker's parts.
pub struct Worker {
    /// The character agent.
    pub agent: Agent,
    /// The twin (owned here; others see snapshots).
    pub twin: Twin,
    /// Where events go.
    pub bus: Bus,
    /// Turns to handle.
    pub queue: Arc<TurnQueue>,
    /// Scene changes and resumes.
    pub control: mpsc::Receiver<Control>,
    /// The running episode.
    pub episodes: Arc<Episodes>,
    /// Signs of life.
    pub health: Arc<Health>,
    /// The twin as others see it.
    pub snapshot: watch::Sender<Snapshot>,
    /// Wall time allowed per turn (for the watchdog).
    pub turn_timeout: Duration,
    /// New perception from the robot bridge, applied between episodes.
    pub perception: Option<watch::Receiver<u64>>,
}

impl Worker {
    /// A worker over these parts.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        agent: Agent,
        twin: Twin,
        bus: Bus,
        queue: Arc<TurnQueue>,
        control: mpsc::Receiver<Control>,
        episodes: Arc<Episodes>,
        health: Arc<Health>,
        snapshot: watch::Sender<Snapshot>,
        turn_timeout: Duration,
    ) -> Self {
        Self {
            agent,
            twin,
            bus,
            queue,
            control,
            episodes,
            health,
            snapshot,
            turn_timeout,
            perception: None,
        }
    }

    /// Follows the robot's perception: each update is applied to the twin while
    /// no episode runs (during one, the twin is frozen; the agent applies it
    /// before each action).
    pub fn with_perception(mut self, updates: watch::Receiver<u64>) -> Self {
        self.perception = Some(updates);
        self
    }

    fn apply_perception(&mut self) {
        if self.agent.perceive(&mut self.twin) {
            self.snapshot.send_replace(Snapshot::of(&self.twin));
            self.bus.publish(self.twin.state_event());
        }
    }

    /// Runs until `shutdown`; the episode in progress is interrupted by the caller first.
    pub async fn run(mut self, shutdown: CancellationToken) {
        self.snapshot.send_replace(Snapshot::of(&self.twin));
        loop {
            self.health.beat();
            // Scene changes wait while an episode runs: apply them between turns.
            while let Ok(control) = self.control.try_recv() {
                self.handle_control(control).await;
            }
            if shutdown.is_cancelled() {
                break;
            }
            if let Some(queued) = self.queue.try_pop() {
                self.episode(queued.turn, queued.seq, None).await;
                continue;
            }
            tokio::select! {
                biased;
                _ = shutdown.cancelled() => break,
                control = self.control.recv() => match control {
                    Some(control) => self.handle_control(control).await,
                    None => break,
                },
                _ = self.queue.wait() => {}
                changed = perception_changed(&mut self.perception) => {
                    if changed {
                        self.apply_perception();
                        // At most 5 world updates a second reach the log and the page.
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    } else {
                        self.perception = None;
                    }
                }
                // Idle ticks keep the watchdog fed while nothing happens.
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
        }
    }

    async fn handle_control(&mut self, control: Control) {
        match control {
            Control::Scene { change, reply } => {
                let answer = self.change_scene(&change);
                // The asker may have given up waiting; the change holds anyway.
                let _ = reply.send(answer);
            }
            Control::Resume { by } => match self.episodes.set_paused(None) {
                Some(turn) => {
                    self.agent.note(&format!(
                        "{by} asked you to go on with what you paused: \"{turn}\". Check what is already done before you act again."
                    ));
                    self.episode(turn, 0, Some(by)).await;
                }
                None => {
                    self.bus.publish(Event::Warning {
                        kind: "nothing_to_resume".into(),
                        detail: format!("{by} asked to go on, but nothing is paused."),
                    });
                }
            },
        }
    }

    fn change_scene(&mut self, change: &SceneChange) -> Result<Value, String> {
        match change {
            SceneChange::Reset => {
                self.twin.reset();
                self.agent.reset();
                self.episodes.set_paused(None);
            }
            SceneChange::Holding { person, objects } => {
                let world = &mut self.twin.world;
                let id = world
                    .person_named(person)
                    .ok_or_else(|| format!("there is no person named {person:?}"))?;
                let mut ids = Vec::new();
                for name in objects {
                    ids.push(
                        world
                            .object_named(name)
                            .ok_or_else(|| format!("there is no object named {name:?}"))?,
                    );
                }
                if ids.len() > 2 {
                    return Err(format!(
                        "{person} has two hands; {} objects are too many",
                        ids.len()
                    ));
                }
                // Check everything before changing anything.
                for &object in &ids {
                    if let Some(holder) = world.holder(object).filter(|&h| h != id) {
                        return Err(format!(
                            "{} is held by {}",
                            world.object(object).name,
                            world.person(holder).name
                        ));
                    }
                    if matches!(
                        world.object(object).placement,
                        crate::twin::world::Placement::InGripper { .. }
                    ) {
                        return Err(format!(
                            "{} is in the robot's hand",
                            world.object(object).name
                        ));
                    }
                }
                world.free_person(id);
                for object in ids {
                    world
                        .make_busy_with(id, object)
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        let snapshot = Snapshot::of(&self.twin);
        let state = snapshot.state.clone();
        self.snapshot.send_replace(snapshot);
        self.bus.publish(self.twin.state_event());
        Ok(state)
    }

    /// One episode; `resumed_by` marks a resume (its `turn` event was logged earlier).
    async fn episode(&mut self, turn: Turn, seq: u64, resumed_by: Option<String>) {
        let cancel = CancellationToken::new();
        {
            let mut current = self.episodes.lock();
            *current = Some(Running {
                cancel: cancel.clone(),
                turn: turn.clone(),
                interrupt: None,
            });
        }
        self.health.busy_until_ms.store(
            now_ms() + self.turn_timeout.as_millis() as u64 + 5_000,
            Ordering::Relaxed,
        );
        if let Some(by) = &resumed_by {
            self.bus.publish(Event::Interrupted {
                by: by.clone(),
                kind: "resume".into(),
            });
        }
        let span =
            tracing::info_span!("turn", seq, speaker = %turn.speaker, listener = %turn.listener);
        let report = {
            let mut sink = BusSink {
                bus: &self.bus,
                health: &self.health,
                snapshot: &self.snapshot,
            };
            self.agent
                .respond(&turn, &mut self.twin, &mut sink, &cancel)
                .instrument(span.clone())
                .await
        };
        // Texts erased during the episode were redacted from its later lines; new turns are logged as said.
        self.bus.end_redaction();
        let interrupt = self.episodes.lock().take().and_then(|r| r.interrupt);
        self.health.busy_until_ms.store(0, Ordering::Relaxed);
        span.in_scope(|| tracing::info!(reason = report.reason.as_str(), "episode ended"));
        if report.reason == EndReason::Interrupted {
            let (kind, by) = interrupt.unwrap_or((InterruptKind::Stop, "the daemon".into()));
            match kind {
                InterruptKind::Pause => {
                    self.agent.note(&format!(
                        "{by} said to wait: you were interrupted while handling \"{turn}\". Do nothing more for it until someone says to go on."
                    ));
                    self.episodes.set_paused(Some(turn));
                }
                _ => {
                    self.agent.note(&format!(
                        "{by} stopped you while you were handling \"{turn}\". Do not continue it unless someone asks again."
                    ));
                    self.episodes.set_paused(None);
                }
            }
        }
        self.snapshot.send_replace(Snapshot::of(&self.twin));
        self.bus.publish(self.twin.state_event());
    }
}

/// Queues a turn: logs its `turn` event and returns its `seq`; an overflow is a warning event.
pub fn enqueue(bus: &Bus, queue: &TurnQueue, turn: Turn) -> u64 {
    let seq = bus.publish(Event::Turn {
        speaker: turn.speaker.clone(),
        listener: turn.listener.clone(),
        text: turn.text.clone(),
        speaker_by: turn.speaker_by.clone(),
    });
    if let Some(dropped) = queue.push(Queued { turn, seq }) {
        bus.publish(Event::Warning {
            kind: "queue_overflow".into(),
            detail: format!(
                "Too many turns are waiting; the oldest one (seq {}, \"{}\") was dropped.",
                dropped.seq, dropped.turn
            ),
        });
    }
    seq
}

/// Waits for new perception; false when its source is gone (never, without one).
async fn perception_changed(updates: &mut Option<watch::Receiver<u64>>) -> bool {
    match updates {
        Some(rx) => rx.changed().await.is_ok(),
        None => std::future::pending().await,
    }
}
