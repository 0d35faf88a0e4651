//! The HTTP API of the contract (axum): health, state, turns, scene changes,
//! interrupts, the SSE event stream with `Last-Event-ID` replay, and the page.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use futures_util::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{oneshot, watch};
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use tokio_stream::wrappers::{BroadcastStream, WatchStream};
use tokio_util::sync::CancellationToken;

use super::intake::{Intake, InterruptKind};
use super::memory::{EraseError, MemoryService};
use super::worker::{Control, SceneChange, Snapshot};
use crate::agent::grounding::{self, Addressee, Grounding};
use crate::agent::Turn;
use crate::memory::{view, MemoryError};
use crate::twin::World;

/// Everything the handlers share.
#[derive(Clone)]
pub struct ApiState {
    /// Turns and interrupts in.
    pub intake: Intake,
    /// The twin as last published.
    pub snapshot: watch::Receiver<Snapshot>,
    /// The scene as loaded (names do not change).
    pub world: Arc<World>,
    /// Facts for `/health`.
    pub info: Arc<Value>,
    /// The bearer token required, if any.
    pub token: Option<Arc<str>>,
    /// Ends every SSE stream on shutdown.
    pub shutdown: CancellationToken,
    /// What the robot remembers, or why memory is off (the memory routes answer 409 with it).
    pub memory: Result<MemoryService, Arc<str>>,
    /// Where three.js is installed (`daemon.three_dir`).
    pub three_dir: Arc<std::path::Path>,
}

/// An error answered as `{"error": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn bad(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({"error": self.message}))).into_response()
    }
}

/// A JSON body parsed by us, so every rejection is a sentence in JSON.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            let status = rejection.status();
            let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
                "the request body is too large; a turn or command is a small JSON object"
                    .to_string()
            } else {
                format!("cannot read the request body: {rejection}")
            };
            ApiError { status, message }
        })?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| ApiError::bad(format!("the request body is not valid UTF-8 ({e})")))?;
        serde_json::from_str(text).map(Body).map_err(|e| {
            ApiError::bad(format!(
                "the request body is not the JSON this endpoint takes: {e}"
            ))
        })
    }
}

/// The router with every route of the contract.
pub fn router(state: ApiState, max_body: usize) -> Router {
    let api = Router::new()
        .route("/health", get(health))
        .route("/api/state", get(get_state))
        .route("/api/scene", get(get_scene).post(post_scene))
        .route("/api/turns", post(post_turn))
        .route("/api/interrupt", post(post_interrupt))
        .route("/api/speaker", post(post_speaker))
        .route("/api/events", get(events))
        .route("/api/memory", get(get_memory))
        .route(
            "/api/memory/people/{name}",
            get(get_person).delete(delete_person),
        )
        .route("/api/memory/facts/{id}", delete(delete_fact))
        .route("/", get(crate::web::index))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn_with_state(max_body, refuse_large))
        .layer(middleware::from_fn_with_state(state.clone(), authorize));
    // The page's scripts and styles hold nothing secret, and a browser cannot
    // add the bearer token to a <script> tag: they are served to anyone.
    let assets = Router::new()
        .route("/app.js", get(crate::web::script))
        .route("/view3d.js", get(crate::web::view3d))
        .route("/style.css", get(crate::web::style))
        .route("/vendor/three/{file}", get(three));
    api.merge(assets).with_state(state)
}

/// `GET /vendor/three/{file}`: three.js from where the system installed it.
async fn three(State(state): State<ApiState>, Path(file): Path<String>) -> Response {
    crate::web::three(&state.three_dir, &file).await
}

async fn not_found() -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: "no such endpoint; see GET /health, /api/state, /api/scene, /api/events, /api/memory, POST /api/turns, /api/scene, /api/interrupt".into(),
    }
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// Off loopback every request needs the bearer token (header, or `?token=` for EventSource).
async fn authorize(
    State(state): State<ApiState>,
    Query(query): Query<TokenQuery>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(token) = &state.token {
        let header_ok = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|given| constant_time_eq(given.as_bytes(), token.as_bytes()));
        let query_ok = query
            .token
            .as_deref()
            .is_some_and(|given| constant_time_eq(given.as_bytes(), token.as_bytes()));
        if !(header_ok || query_ok) {
            return ApiError {
                status: StatusCode::UNAUTHORIZED,
                message: "this daemon needs a bearer token: send 'Authorization: Bearer <token>'"
                    .into(),
            }
            .into_response();
        }
    }
    next.run(request).await
}

/// A body announced larger than the limit is refused before it is read (so a
/// client that sent `Expect: 100-continue` never sends it).
async fn refuse_large(State(max_body): State<usize>, request: Request, next: Next) -> Response {
    let announced = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > max_body as u64) {
        return ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: format!(
                "the request body is too large ({} bytes; at most {max_body}): a turn or command is a small JSON object",
                announced.unwrap_or(0)
            ),
        }
        .into_response();
    }
    next.run(request).await
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn health(State(state): State<ApiState>) -> Json<Value> {
    let mut body = (*state.info).clone();
    if let Value::Object(map) = &mut body {
        map.insert("status".into(), json!("ok"));
        map.insert("queued".into(), json!(state.intake.queue.len()));
        map.insert(
            "episode_running".into(),
            json!(state.intake.episodes.busy()),
        );
        map.insert("next_seq".into(), json!(state.intake.bus.next_seq()));
    }
    Json(body)
}

async fn get_state(State(state): State<ApiState>) -> Json<Value> {
    let mut body = state.snapshot.borrow().state.clone();
    if let Value::Object(map) = &mut body {
        map.insert("type".into(), json!("state"));
    }
    Json(body)
}

async fn get_scene(State(state): State<ApiState>) -> Json<Value> {
    Json(state.snapshot.borrow().layout.clone())
}

/// `POST /api/turns`: `{"text": "Felix said to Daniel: ..."}` or `{"speaker","listener","text"}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnBody {
    speaker: Option<String>,
    listener: Option<String>,
    text: Option<String>,
}

async fn post_turn(
    State(state): State<ApiState>,
    Body(body): Body<TurnBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let turn = match (body.speaker, body.listener, body.text) {
        (None, None, Some(line)) => Turn::parse(&line).map_err(|e| ApiError::bad(e.to_string()))?,
        (Some(speaker), Some(listener), Some(text)) if !text.trim().is_empty() => Turn {
            speaker,
            listener,
            text: text.trim().to_string(),
            speaker_by: None,
            alternatives: Vec::new(),
            alternative_listeners: Vec::new(),
        },
        _ => {
            return Err(ApiError::bad(
                "send {\"text\": \"Felix said to Daniel: ...\"} or {\"speaker\": \"Felix\", \"listener\": \"Daniel\", \"text\": \"...\"}",
            ))
        }
    };
    let turn = ground_turn(&state.world, turn)?;
    let submitted = state.intake.submit(turn).map_err(|why| ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        message: why.to_string(),
    })?;
    let body = match submitted.interrupt {
        Some((kind, effect)) => {
            json!({"accepted": true, "seq": submitted.seq, "interrupt": kind.as_str(), "effect": effect})
        }
        None => {
            json!({"accepted": true, "seq": submitted.seq, "queued": state.intake.queue.len()})
        }
    };
    Ok((StatusCode::ACCEPTED, Json(body)))
}

/// The scene's own names for speaker and listener, or a 400 naming who is there.
pub fn ground_turn(world: &World, turn: Turn) -> Result<Turn, ApiError> {
    let people = world
        .persons()
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let speaker = match grounding::person(world, &turn.speaker) {
        Grounding::Resolved(id) => world.person(id).name.clone(),
        _ => {
            return Err(ApiError::bad(format!(
                "unknown speaker {:?}: the people at the table are {people}",
                turn.speaker
            )))
        }
    };
    let listener = match grounding::addressee(world, &turn.listener) {
        Grounding::Resolved(Addressee::Person(id)) => world.person(id).name.clone(),
        Grounding::Resolved(Addressee::Robot) => world.robot.name.clone(),
        Grounding::Resolved(Addressee::All) => "All".to_string(),
        _ => {
            return Err(ApiError::bad(format!(
                "unknown listener {:?}: speak to one of {people}, to {} or to All",
                turn.listener, world.robot.name
            )))
        }
    };
    Ok(Turn {
        speaker,
        listener,
        text: turn.text,
        speaker_by: None,
        alternatives: Vec::new(),
        alternative_listeners: Vec::new(),
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InterruptBody {
    kind: String,
    by: Option<String>,
}

async fn post_interrupt(
    State(state): State<ApiState>,
    Body(body): Body<InterruptBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let kind = InterruptKind::parse(&body.kind).ok_or_else(|| {
        ApiError::bad(format!(
            "unknown interrupt kind {:?}: use \"stop\", \"pause\" or \"resume\"",
            body.kind
        ))
    })?;
    let by = body.by.unwrap_or_else(|| "the operator".to_string());
    let effect = state.intake.interrupt(kind, &by);
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"accepted": true, "kind": kind.as_str(), "effect": effect})),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpeakerBody {
    speaker: String,
}

/// `POST /api/speaker {"speaker":"Felix"}`: the last turn was Felix's.
async fn post_speaker(
    State(state): State<ApiState>,
    Body(body): Body<SpeakerBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let speaker = match grounding::person(&state.world, &body.speaker) {
        Grounding::Resolved(id) => state.world.person(id).name.clone(),
        _ => {
            let people: Vec<&str> = state
                .world
                .persons()
                .iter()
                .map(|p| p.name.as_str())
                .collect();
            return Err(ApiError::bad(format!(
                "unknown speaker {:?}: the people at the table are {}",
                body.speaker,
                people.join(", ")
            )));
        }
    };
    let submitted = state
        .intake
        .correct_speaker(&speaker)
        .map_err(ApiError::bad)?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({"accepted": true, "seq": submitted.seq, "speaker": speaker})),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneBody {
    person: Option<String>,
    holding: Option<Vec<String>>,
    reset: Option<bool>,
}

/// How long a scene change waits for a running episode before it is answered as deferred.
const SCENE_WAIT: Duration = Duration::from_secs(2);

async fn post_scene(
    State(state): State<ApiState>,
    Body(body): Body<SceneBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let change = match body {
        SceneBody {
            reset: Some(true),
            person: None,
            holding: None,
        } => SceneChange::Reset,
        SceneBody {
            person: Some(person),
            holding: Some(holding),
            reset: None | Some(false),
        } => {
            let world = &state.world;
            let person = match grounding::person(world, &person) {
                Grounding::Resolved(id) => world.person(id).name.clone(),
                _ => {
                    return Err(ApiError::bad(format!(
                        "unknown person {person:?}: the people at the table are {}",
                        world.persons().iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
                    )))
                }
            };
            let mut objects = Vec::new();
            for name in holding {
                match grounding::object(world, &name) {
                    Grounding::Resolved(id) => objects.push(world.object(id).name.clone()),
                    _ => {
                        return Err(ApiError::bad(format!(
                            "unknown object {name:?}: the objects are {}",
                            world.objects().iter().map(|o| o.name.as_str()).collect::<Vec<_>>().join(", ")
                        )))
                    }
                }
            }
            SceneChange::Holding { person, objects }
        }
        _ => {
            return Err(ApiError::bad(
                "send {\"person\": \"Daniel\", \"holding\": [\"smartphone\"]} (an empty list frees the hands) or {\"reset\": true}",
            ))
        }
    };
    let (reply, answer) = oneshot::channel();
    state
        .intake
        .control
        .send(Control::Scene { change, reply })
        .await
        .map_err(|_| ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: "the daemon is shutting down".into(),
        })?;
    match tokio::time::timeout(SCENE_WAIT, answer).await {
        Ok(Ok(Ok(mut state))) => {
            if let Value::Object(map) = &mut state {
                map.insert("type".into(), json!("state"));
            }
            Ok((StatusCode::OK, Json(state)))
        }
        Ok(Ok(Err(why))) => Err(ApiError::bad(why)),
        Ok(Err(_)) => Err(ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: "the daemon is shutting down".into(),
        }),
        Err(_) => Ok((
            StatusCode::ACCEPTED,
            Json(
                json!({"accepted": true, "effect": "the robot is busy; the change applies when the current episode ends"}),
            ),
        )),
    }
}

#[derive(Deserialize)]
struct EventsQuery {
    since: Option<u64>,
}

/// `GET /api/events`: the log from `Last-Event-ID` (or `?since=`) on, then live.
async fn events(
    State(state): State<ApiState>,
    Query(query): Query<EventsQuery>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let last_id = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .or(query.since);
    // Subscribe before reading the log, so nothing falls between the two.
    let bus = &state.intake.bus;
    let live = BroadcastStream::new(bus.subscribe());
    let backlog = match last_id {
        Some(after) => bus.since(after).map_err(|e| ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: e.to_string(),
        })?,
        None => Vec::new(),
    };
    let mut last_sent = backlog.last().map(|l| l.seq).or(last_id).unwrap_or(0);
    let backlog = stream::iter(backlog.into_iter().map(|l| Ok(sse(l.seq, &l.line))));
    let live = live
        // A subscriber that lags is closed: the browser reconnects and catches up from the log.
        .take_while(|item| {
            std::future::ready(!matches!(item, Err(BroadcastStreamRecvError::Lagged(_))))
        })
        .filter_map(move |item| {
            let out = match item {
                Ok(logged) if logged.seq == 0 || logged.seq > last_sent => {
                    last_sent = last_sent.max(logged.seq);
                    Some(Ok(sse(logged.seq, &logged.line)))
                }
                _ => None,
            };
            std::future::ready(out)
        });
    // Motion (live only) rides along until the logged stream ends, so that a
    // lagging subscriber is still closed and reconnects.
    let motion = WatchStream::from_changes(bus.subscribe_latest()).filter_map(|line| {
        std::future::ready(line.map(|l| Some(Ok(SseEvent::default().data(&*l)))))
    });
    let logged = backlog
        .chain(live)
        .map(Some)
        .chain(stream::once(std::future::ready(None)));
    let stream = stream::select(logged, motion)
        .take_while(|item| std::future::ready(item.is_some()))
        .filter_map(std::future::ready)
        .take_until(state.shutdown.clone().cancelled_owned());
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

fn sse(seq: u64, line: &str) -> SseEvent {
    let event = SseEvent::default().data(line);
    if seq > 0 {
        event.id(seq.to_string())
    } else {
        event
    }
}

// --- memory ------------------------------------------------------------------

/// The memory service, or 409 saying why memory is off.
fn memory_of(state: &ApiState) -> Result<&MemoryService, ApiError> {
    state.memory.as_ref().map_err(|why| ApiError {
        status: StatusCode::CONFLICT,
        message: why.to_string(),
    })
}

fn memory_error(error: MemoryError) -> ApiError {
    let status = match error {
        MemoryError::NotFound(_) => StatusCode::NOT_FOUND,
        MemoryError::Closed => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError {
        status,
        message: error.to_string(),
    }
}

fn erase_error(error: EraseError) -> ApiError {
    match error {
        EraseError::Memory(e) => memory_error(e),
        EraseError::Log(_) => ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: error.to_string(),
        },
    }
}

fn path_error(rejection: PathRejection) -> ApiError {
    ApiError::bad(format!("cannot read the path: {rejection}"))
}

/// `GET /api/memory`: people with their facts, episodes, failures.
async fn get_memory(State(state): State<ApiState>) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let all = memory
        .memory
        .run(|store| view::everything(store))
        .await
        .and_then(|r| r)
        .map_err(memory_error)?;
    Ok(Json(all))
}

/// `GET /api/memory/people/{name}`: one person, with their facts, episodes and failures.
async fn get_person(
    State(state): State<ApiState>,
    name: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let Path(name) = name.map_err(path_error)?;
    let asked = name.clone();
    let person = memory
        .memory
        .run(move |store| view::person(store, &asked))
        .await
        .and_then(|r| r)
        .map_err(memory_error)?;
    person.map(Json).ok_or_else(|| ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!("nobody called {name} in memory"),
    })
}

/// `DELETE /api/memory/people/{name}`: forgets the person; 200 with what was erased.
async fn delete_person(
    State(state): State<ApiState>,
    name: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let Path(name) = name.map_err(path_error)?;
    let erased = memory.forget_person(name).await.map_err(erase_error)?;
    Ok(Json(json!(erased)))
}

/// `DELETE /api/memory/facts/{id}`: forgets one fact; 200 with what was erased.
async fn delete_fact(
    State(state): State<ApiState>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let memory = memory_of(&state)?;
    let Path(id) = id.map_err(path_error)?;
    let id: i64 = id.trim().parse().map_err(|_| {
        ApiError::bad(format!(
            "fact ids are whole numbers (as in GET /api/memory), not {id:?}"
        ))
    })?;
    let erased = memory.forget_fact(id).await.map_err(erase_error)?;
    Ok(Json(json!(erased)))
}
