//! A thin rosbridge v2 client over one WebSocket: subscriptions by topic, service
//! calls and ROS 2 action goals by `id`. It reconnects with backoff, renews its
//! subscriptions after each reconnect, and fails whatever was in flight when the
//! connection drops — a goal is never reported done unless its result arrived.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use super::protocol::{self, Incoming};

/// The link to the robot as others see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkStatus {
    /// Not connected yet (the first attempt is under way).
    Connecting,
    /// Connected to the bridge.
    Connected,
    /// Not connected; why, in one sentence.
    Disconnected(String),
}

/// What went wrong with a request to the robot, as one sentence.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum BridgeError {
    /// The URL is not a WebSocket URL.
    #[error("'{0}' is not a rosbridge address; use ws://HOST:9090")]
    BadUrl(String),
    /// No connection when the request was made.
    #[error("the robot bridge at {url} is not connected ({reason})")]
    NotConnected { url: String, reason: String },
    /// The connection dropped while the request was in flight.
    #[error("the connection to the robot bridge at {url} dropped")]
    Dropped { url: String },
    /// No answer in time.
    #[error("{what} got no answer within {seconds:.1} s")]
    Timeout { what: String, seconds: f64 },
    /// The server answered with a failure.
    #[error("{what} failed: {detail}")]
    Failed { what: String, detail: String },
    /// The client was shut down.
    #[error("the robot bridge client has shut down")]
    Closed,
}

/// How a goal ended, as the server reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalEnd {
    /// `action_msgs/GoalStatus` (4 succeeded, 5 cancelled, 6 aborted, 0 unknown).
    pub status: i64,
    /// The result message, or the server's error text.
    pub values: Value,
}

/// A goal in flight: await its end, or cancel it.
#[must_use = "a goal must be awaited or cancelled"]
pub struct Goal {
    /// The goal's id (also the id of its cancel).
    pub id: String,
    /// The action server's name.
    pub action: String,
    end: oneshot::Receiver<Result<GoalEnd, BridgeError>>,
}

impl Goal {
    /// Waits for the goal's end; a dropped connection is an error, never success.
    pub async fn end(&mut self) -> Result<GoalEnd, BridgeError> {
        (&mut self.end).await.unwrap_or(Err(BridgeError::Closed))
    }
}

/// Reconnection and timing settings.
#[derive(Debug, Clone, Copy)]
pub struct ClientOptions {
    /// First wait after a failed connection.
    pub backoff_initial: Duration,
    /// Longest wait between attempts.
    pub backoff_max: Duration,
    /// Bound on one connection attempt.
    pub connect_timeout: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            backoff_initial: Duration::from_millis(200),
            backoff_max: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(3),
        }
    }
}

type Handler = Arc<dyn Fn(&Value) + Send + Sync>;

struct Subscription {
    msg_type: String,
    throttle_rate_ms: u32,
    queue_length: u32,
    handler: Handler,
}

enum Command {
    Send(Value),
    Goal {
        id: String,
        frame: Value,
        reply: oneshot::Sender<Result<GoalEnd, BridgeError>>,
    },
    Service {
        id: String,
        frame: Value,
        reply: oneshot::Sender<Result<Value, BridgeError>>,
    },
    /// Closes the socket as if the network had dropped (tests, and a user's "reconnect").
    Drop,
}

/// A rosbridge client; cheap to clone.
#[derive(Clone)]
pub struct Rosbridge {
    url: String,
    commands: mpsc::UnboundedSender<Command>,
    subscriptions: Arc<Mutex<HashMap<String, Subscription>>>,
    status: watch::Receiver<LinkStatus>,
    next_id: Arc<AtomicU64>,
}

impl Rosbridge {
    /// Starts connecting to `url` in the background (it keeps trying until `shutdown`).
    pub fn connect(
        url: &str,
        options: ClientOptions,
        shutdown: CancellationToken,
    ) -> Result<Self, BridgeError> {
        if !(url.starts_with("ws://") || url.starts_with("wss://")) {
            return Err(BridgeError::BadUrl(url.to_string()));
        }
        let (commands, rx) = mpsc::unbounded_channel();
        let (status_tx, status) = watch::channel(LinkStatus::Connecting);
        let subscriptions = Arc::new(Mutex::new(HashMap::new()));
        let link = Link {
            url: url.to_string(),
            options,
            commands: rx,
            subscriptions: Arc::clone(&subscriptions),
            status: status_tx,
            goals: HashMap::new(),
            services: HashMap::new(),
        };
        tokio::spawn(link.run(shutdown));
        Ok(Self {
            url: url.to_string(),
            commands,
            subscriptions,
            status,
            next_id: Arc::new(AtomicU64::new(1)),
        })
    }

    /// The bridge's address.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The link's status, to watch.
    pub fn status(&self) -> watch::Receiver<LinkStatus> {
        self.status.clone()
    }

    /// Waits until connected, at most `bound`.
    pub async fn wait_connected(&self, bound: Duration) -> Result<(), BridgeError> {
        let mut status = self.status();
        let waited = tokio::time::timeout(bound, status.wait_for(|s| *s == LinkStatus::Connected))
            .await
            .map(|r| r.map(|_| ()));
        match waited {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(BridgeError::Closed),
            Err(_) => Err(BridgeError::NotConnected {
                url: self.url.clone(),
                reason: match &*self.status.borrow() {
                    LinkStatus::Disconnected(r) => r.clone(),
                    _ => format!("no connection within {:.1} s", bound.as_secs_f64()),
                },
            }),
        }
    }

    /// Subscribes to a topic (renewed after every reconnect); `handler` sees each message.
    pub fn subscribe(
        &self,
        topic: &str,
        msg_type: &str,
        throttle_rate_ms: u32,
        queue_length: u32,
        handler: impl Fn(&Value) + Send + Sync + 'static,
    ) {
        let sub = Subscription {
            msg_type: msg_type.to_string(),
            throttle_rate_ms,
            queue_length,
            handler: Arc::new(handler),
        };
        let frame = protocol::subscribe(topic, msg_type, throttle_rate_ms, queue_length);
        if let Ok(mut subs) = self.subscriptions.lock() {
            subs.insert(topic.to_string(), sub);
        }
        // Sent now if connected; the link re-sends every subscription on reconnect.
        let _ = self.commands.send(Command::Send(frame));
    }

    /// Advertises a topic and publishes one message on it.
    pub fn publish(&self, topic: &str, msg_type: &str, msg: &Value) {
        let _ = self
            .commands
            .send(Command::Send(protocol::advertise(topic, msg_type)));
        let _ = self
            .commands
            .send(Command::Send(protocol::publish(topic, msg)));
    }

    /// Calls a service and waits for its answer, at most `bound`.
    pub async fn call_service(
        &self,
        service: &str,
        args: &Value,
        bound: Duration,
    ) -> Result<Value, BridgeError> {
        let id = self.fresh_id("srv");
        let (reply, answer) = oneshot::channel();
        let frame = protocol::call_service(&id, service, args);
        self.commands
            .send(Command::Service {
                id: id.clone(),
                frame,
                reply,
            })
            .map_err(|_| BridgeError::Closed)?;
        match tokio::time::timeout(bound, answer).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(BridgeError::Closed),
            Err(_) => Err(BridgeError::Timeout {
                what: format!("the service {service}"),
                seconds: bound.as_secs_f64(),
            }),
        }
    }

    /// Sends an action goal; the returned [`Goal`] ends with the server's result.
    pub fn send_goal(&self, action: &str, action_type: &str, goal: &Value) -> Goal {
        let id = self.fresh_id("goal");
        let (reply, end) = oneshot::channel();
        let frame = protocol::send_action_goal(&id, action, action_type, goal);
        if let Err(mpsc::error::SendError(Command::Goal { reply, .. })) =
            self.commands.send(Command::Goal {
                id: id.clone(),
                frame,
                reply,
            })
        {
            let _ = reply.send(Err(BridgeError::Closed));
        }
        Goal {
            id,
            action: action.to_string(),
            end,
        }
    }

    /// Asks the server to cancel a goal; its end arrives as status 5 when honoured.
    pub fn cancel_goal(&self, goal: &Goal) {
        let _ = self
            .commands
            .send(Command::Send(protocol::cancel_action_goal(
                &goal.id,
                &goal.action,
            )));
    }

    /// Drops the current connection (it reconnects with backoff).
    pub fn drop_connection(&self) {
        let _ = self.commands.send(Command::Drop);
    }

    fn fresh_id(&self, kind: &str) -> String {
        format!("{kind}:{}", self.next_id.fetch_add(1, Ordering::Relaxed))
    }
}

/// The background task that owns the socket.
struct Link {
    url: String,
    options: ClientOptions,
    commands: mpsc::UnboundedReceiver<Command>,
    subscriptions: Arc<Mutex<HashMap<String, Subscription>>>,
    status: watch::Sender<LinkStatus>,
    goals: HashMap<String, oneshot::Sender<Result<GoalEnd, BridgeError>>>,
    services: HashMap<String, oneshot::Sender<Result<Value, BridgeError>>>,
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

impl Link {
    async fn run(mut self, shutdown: CancellationToken) {
        let mut backoff = self.options.backoff_initial;
        loop {
            let attempt = tokio::time::timeout(
                self.options.connect_timeout,
                tokio_tungstenite::connect_async(self.url.as_str()),
            );
            let reason = tokio::select! {
                _ = shutdown.cancelled() => break,
                result = attempt => match result {
                    Ok(Ok((socket, _))) => {
                        backoff = self.options.backoff_initial;
                        tracing::info!(url = %self.url, "robot bridge connected");
                        self.status.send_replace(LinkStatus::Connected);
                        match self.serve(socket, &shutdown).await {
                            Some(reason) => reason,
                            None => break,
                        }
                    }
                    Ok(Err(e)) => connect_error(&e),
                    Err(_) => format!("no answer within {:.1} s", self.options.connect_timeout.as_secs_f64()),
                },
            };
            self.fail_in_flight();
            if *self.status.borrow() != LinkStatus::Disconnected(reason.clone()) {
                tracing::warn!(url = %self.url, %reason, "robot bridge disconnected");
            }
            self.status.send_replace(LinkStatus::Disconnected(reason));
            // While disconnected, requests fail at once rather than wait for a reconnect.
            let pause = tokio::time::sleep(backoff);
            tokio::pin!(pause);
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => {
                        self.fail_in_flight();
                        return;
                    }
                    _ = &mut pause => break,
                    command = self.commands.recv() => match command {
                        Some(c) => self.refuse(c),
                        None => return,
                    },
                }
            }
            backoff = (backoff * 2).min(self.options.backoff_max);
        }
        self.fail_in_flight();
        self.status
            .send_replace(LinkStatus::Disconnected("shut down".into()));
    }

    /// Serves one connection; returns why it ended, or `None` on shutdown.
    async fn serve(&mut self, mut socket: Socket, shutdown: &CancellationToken) -> Option<String> {
        let renewals: Vec<Value> = match self.subscriptions.lock() {
            Ok(subs) => subs
                .iter()
                .map(|(topic, s)| {
                    protocol::subscribe(topic, &s.msg_type, s.throttle_rate_ms, s.queue_length)
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        for frame in renewals {
            if let Err(e) = socket.send(Message::text(frame.to_string())).await {
                return Some(format!("sending a subscription failed: {e}"));
            }
        }
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => {
                    let _ = socket.close(None).await;
                    return None;
                }
                command = self.commands.recv() => {
                    let command = command?;
                    let frame = match command {
                        Command::Send(frame) => frame,
                        Command::Goal { id, frame, reply } => {
                            self.goals.insert(id, reply);
                            frame
                        }
                        Command::Service { id, frame, reply } => {
                            self.services.insert(id, reply);
                            frame
                        }
                        Command::Drop => return Some("the connection was dropped on request".into()),
                    };
                    if let Err(e) = socket.send(Message::text(frame.to_string())).await {
                        return Some(format!("sending failed: {e}"));
                    }
                }
                message = socket.next() => match message {
                    None => return Some("the server closed the connection".into()),
                    Some(Err(e)) => return Some(format!("the connection failed: {e}")),
                    Some(Ok(Message::Text(text))) => self.dispatch(text.as_str()),
                    Some(Ok(Message::Close(_))) => return Some("the server closed the connection".into()),
                    Some(Ok(_)) => {}
                },
            }
        }
    }

    fn dispatch(&mut self, text: &str) {
        match protocol::parse(text) {
            Ok(Incoming::Publish { topic, msg }) => {
                let handler = self
                    .subscriptions
                    .lock()
                    .ok()
                    .and_then(|subs| subs.get(&topic).map(|s| Arc::clone(&s.handler)));
                if let Some(handler) = handler {
                    handler(&msg);
                }
            }
            Ok(Incoming::ActionResult {
                id, status, values, ..
            }) => {
                if let Some(reply) = self.goals.remove(&id) {
                    let end = if status == 0 {
                        // rosbridge's failure form: result false, status UNKNOWN, an error text.
                        Err(BridgeError::Failed {
                            what: "the goal".into(),
                            detail: values
                                .as_str()
                                .map_or_else(|| values.to_string(), str::to_string),
                        })
                    } else {
                        Ok(GoalEnd { status, values })
                    };
                    let _ = reply.send(end);
                }
            }
            Ok(Incoming::ServiceResponse {
                id,
                service,
                values,
                result,
            }) => {
                if let Some(reply) = id.and_then(|id| self.services.remove(&id)) {
                    let answer = if result {
                        Ok(values)
                    } else {
                        Err(BridgeError::Failed {
                            what: format!("the service {service}"),
                            detail: values
                                .as_str()
                                .map_or_else(|| values.to_string(), str::to_string),
                        })
                    };
                    let _ = reply.send(answer);
                }
            }
            Ok(Incoming::ActionFeedback { .. }) => {}
            Ok(Incoming::Status { level, msg }) => {
                tracing::info!(%level, %msg, "robot bridge status");
            }
            Err(e) => tracing::debug!(error = %e, "robot bridge message skipped"),
        }
    }

    fn refuse(&self, command: Command) {
        let error = || BridgeError::NotConnected {
            url: self.url.clone(),
            reason: match &*self.status.borrow() {
                LinkStatus::Disconnected(r) => r.clone(),
                _ => "connecting".into(),
            },
        };
        match command {
            Command::Goal { reply, .. } => {
                let _ = reply.send(Err(error()));
            }
            Command::Service { reply, .. } => {
                let _ = reply.send(Err(error()));
            }
            Command::Send(_) | Command::Drop => {}
        }
    }

    fn fail_in_flight(&mut self) {
        for (_, reply) in self.goals.drain() {
            let _ = reply.send(Err(BridgeError::Dropped {
                url: self.url.clone(),
            }));
        }
        for (_, reply) in self.services.drain() {
            let _ = reply.send(Err(BridgeError::Dropped {
                url: self.url.clone(),
            }));
        }
    }
}

fn connect_error(e: &tokio_tungstenite::tungstenite::Error) -> String {
    use tokio_tungstenite::tungstenite::Error;
    match e {
        Error::Io(io) => format!("cannot connect: {io}"),
        Error::Url(u) => format!("bad address: {u}"),
        Error::Http(r) => format!("the server answered HTTP {}", r.status()),
        other => format!("cannot connect: {other}"),
    }
}
