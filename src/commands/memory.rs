//! `attentive memory list | show PERSON | export PERSON | forget PERSON | forget --fact ID`:
//! what the robot remembers, on the daemon's `<state_dir>/memory.db`.
//!
//! Reading works beside a running daemon (SQLite readers do not block it).
//! Erasure must also redact the event log the daemon appends to, and log a
//! `memory_erased` event: when a daemon runs on this state folder (it holds
//! `daemon.lock`), `forget` asks that daemon through its API; otherwise it
//! holds the lock itself, erases in the store, redacts the day files and
//! appends the event.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use serde_json::{json, Value};

use attentive::config::Settings;
use attentive::daemon::instance::{Claim, Holder};
use attentive::daemon::log::EventLog;
use attentive::daemon::settings::FsyncPolicy;
use attentive::events::Event;
use attentive::memory::{self, redact, view, Erased, Store};

use crate::cli::{MemoryArgs, MemoryCommand};

/// Runs a memory command.
pub fn run(args: &MemoryArgs, json: bool, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let settings = Settings::load(config)?;
    let state_dir = settings.daemon.state_dir();
    let path = state_dir.join(attentive::daemon::memory::FILE);
    match &args.command {
        MemoryCommand::List => list(&open(&path, &settings)?, json),
        MemoryCommand::Show { person } => show(&open(&path, &settings)?, person, json),
        MemoryCommand::Export { person } => {
            let person = person_view(&open(&path, &settings)?, person)?;
            if json {
                println!("{person}");
            } else {
                println!("{}", serde_json::to_string_pretty(&person)?);
            }
            Ok(ExitCode::SUCCESS)
        }
        MemoryCommand::Forget { person, fact } => {
            // No store: nothing to forget (and nothing is created).
            require(&path, &settings)?;
            let what = match (person, fact) {
                (_, Some(id)) => Forget::Fact(*id),
                (Some(name), None) => Forget::Person(name.clone()),
                (None, None) => bail!(
                    "say whom to forget (attentive memory forget PERSON) or which fact (--fact ID)"
                ),
            };
            let (erased, how) = forget(&settings, &state_dir, &path, &what)?;
            print_erased(&erased, &how, &what, json);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The store, which must exist already: these commands never create one.
fn open(path: &Path, settings: &Settings) -> anyhow::Result<Store> {
    require(path, settings)?;
    Ok(Store::open(path)?)
}

/// An error saying where the store would be, when there is none.
fn require(path: &Path, settings: &Settings) -> anyhow::Result<()> {
    if !path.exists() {
        let off = if settings.memory.enabled {
            "the daemon creates it when it starts with memory on"
        } else {
            "memory.enabled is false in the configuration"
        };
        bail!(
            "no memory store at {}: nothing is remembered yet ({off}; daemon.state_dir or ATTENTIVE_DAEMON__STATE_DIR choose the folder)",
            path.display()
        );
    }
    Ok(())
}

fn person_view(store: &Store, name: &str) -> anyhow::Result<Value> {
    match view::person(store, name)? {
        Some(person) => Ok(person),
        None => {
            let known: Vec<String> = store.people()?.into_iter().map(|p| p.0).collect();
            let known = if known.is_empty() {
                "nobody is remembered".to_string()
            } else {
                format!("remembered: {}", known.join(", "))
            };
            bail!("nobody called {name} in memory ({known})")
        }
    }
}

/// One fact as a line: `#3 [drink] "I only drink sugar-free" (Daniel, 2026-05-01)`.
fn fact_line(fact: &Value) -> String {
    let text = |k: &str| fact[k].as_str().unwrap_or("").to_string();
    let by = if fact["confirmed"] == true {
        text("said_by")
    } else {
        format!("hearsay: {} said it", text("said_by"))
    };
    let private = if fact["visibility"] == "self" {
        ", only for acting for them"
    } else {
        ""
    };
    let old = match fact["superseded_by"].as_i64() {
        Some(newer) => format!(", replaced by #{newer}"),
        None => String::new(),
    };
    format!(
        "#{} [{}] \"{}\" ({by}, {}{private}{old})",
        fact["id"],
        text("topic"),
        text("text"),
        memory::day(fact["at"].as_i64().unwrap_or(0))
    )
}

fn list(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    let all = view::everything(store)?;
    let people = all["people"].as_array().cloned().unwrap_or_default();
    let count = |k: &str| all[k].as_array().map_or(0, Vec::len);
    if json {
        for person in &people {
            println!("{person}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if people.is_empty() {
        println!("Nobody is remembered.");
    }
    for person in &people {
        let facts = person["facts"].as_array().cloned().unwrap_or_default();
        println!(
            "{}: {} fact{}, first seen {}, last seen {}",
            person["name"].as_str().unwrap_or(""),
            facts.len(),
            if facts.len() == 1 { "" } else { "s" },
            memory::day(person["first_seen"].as_i64().unwrap_or(0)),
            memory::day(person["last_seen"].as_i64().unwrap_or(0)),
        );
        for fact in &facts {
            println!("  {}", fact_line(fact));
        }
    }
    println!(
        "{} episode{} and {} failure{} kept.",
        count("episodes"),
        if count("episodes") == 1 { "" } else { "s" },
        count("failures"),
        if count("failures") == 1 { "" } else { "s" },
    );
    Ok(ExitCode::SUCCESS)
}

fn show(store: &Store, name: &str, json: bool) -> anyhow::Result<ExitCode> {
    let person = person_view(store, name)?;
    if json {
        println!("{person}");
        return Ok(ExitCode::SUCCESS);
    }
    let list = |k: &str| person[k].as_array().cloned().unwrap_or_default();
    println!(
        "{} (first seen {}, last seen {})",
        person["name"].as_str().unwrap_or(name),
        memory::day(person["first_seen"].as_i64().unwrap_or(0)),
        memory::day(person["last_seen"].as_i64().unwrap_or(0)),
    );
    println!("facts:");
    for fact in list("facts") {
        println!("  {}", fact_line(&fact));
    }
    println!("episodes they asked for:");
    for episode in list("episodes") {
        let done: Vec<&str> = episode["done"]
            .as_array()
            .map(|d| d.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        println!(
            "  {} \"{}\" -> {} ({})",
            memory::day(episode["at"].as_i64().unwrap_or(0)),
            episode["asked"].as_str().unwrap_or(""),
            if done.is_empty() {
                "nothing done".to_string()
            } else {
                done.join(", ")
            },
            episode["outcome"].as_str().unwrap_or(""),
        );
    }
    println!("failed actions for them:");
    for failure in list("failures") {
        println!(
            "  {} {} {} ({})",
            memory::day(failure["at"].as_i64().unwrap_or(0)),
            failure["tool"].as_str().unwrap_or(""),
            failure["object"].as_str().unwrap_or(""),
            failure["cause"].as_str().unwrap_or(""),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What to erase.
enum Forget {
    Person(String),
    Fact(i64),
}

/// Erases through the running daemon, or in the files while holding its lock.
fn forget(
    settings: &Settings,
    state_dir: &Path,
    path: &Path,
    what: &Forget,
) -> anyhow::Result<(Erased, String)> {
    let holder = Claim::try_take(state_dir)
        .with_context(|| format!("cannot check whether a daemon uses {}", state_dir.display()))?;
    match holder {
        Holder::Daemon(Some(url)) => {
            let erased = forget_through(&url, what, settings)?;
            Ok((erased, format!("through the daemon at {url}")))
        }
        Holder::Daemon(None) => bail!(
            "a daemon is starting on {}; try again in a moment",
            state_dir.display()
        ),
        Holder::Us(claim) => {
            let mut store = Store::open(path)?;
            let erased = match what {
                Forget::Person(name) => store.forget_person(name)?,
                Forget::Fact(id) => store.forget_fact(*id)?,
            };
            drop(store);
            let events = state_dir.join("events");
            let copies = attentive::memory::redact::copies(&erased.texts);
            let redacted =
                redact::redact_tree(&events, &["jsonl"], &copies).with_context(|| {
                    format!(
                        "erased from memory, but the event log in {} could not be redacted",
                        events.display()
                    )
                })?;
            let mut log = EventLog::open(state_dir, FsyncPolicy::Every, Duration::ZERO)?;
            log.append(&Event::MemoryErased {
                facts: erased.facts,
                episodes: erased.episodes,
                failures: erased.failures,
            })?;
            drop(log);
            drop(claim);
            Ok((
                erased,
                format!(
                    "{redacted} cop{} redacted in the event log",
                    if redacted == 1 { "y" } else { "ies" }
                ),
            ))
        }
    }
}

fn print_erased(erased: &Erased, how: &str, what: &Forget, json: bool) {
    if json {
        let mut out = json!(erased);
        out["how"] = json!(how);
        println!("{out}");
        return;
    }
    let whom = match what {
        Forget::Person(name) => name.clone(),
        Forget::Fact(id) => format!("fact #{id}"),
    };
    println!(
        "Forgot {whom}: {} fact{}, {} episode{}, {} failure{} ({how}).",
        erased.facts,
        if erased.facts == 1 { "" } else { "s" },
        erased.episodes,
        if erased.episodes == 1 { "" } else { "s" },
        erased.failures,
        if erased.failures == 1 { "" } else { "s" },
    );
}

/// `DELETE` on the daemon's memory route, with the bearer token when one is set.
fn forget_through(url: &str, what: &Forget, settings: &Settings) -> anyhow::Result<Erased> {
    let route = match what {
        Forget::Person(name) => format!("/api/memory/people/{}", percent_encode(name)),
        Forget::Fact(id) => format!("/api/memory/facts/{id}"),
    };
    let token = std::env::var(&settings.daemon.token_env)
        .ok()
        .filter(|t| !t.trim().is_empty());
    let (status, body) = http_delete(url, &route, token.as_deref()).with_context(|| {
        format!("a daemon runs on this state folder, but its API at {url} does not answer")
    })?;
    if status != 200 {
        let why = body["error"]
            .as_str()
            .map_or_else(|| format!("HTTP {status}"), str::to_string);
        bail!("{why}");
    }
    let count = |k: &str| body[k].as_u64().unwrap_or(0) as usize;
    Ok(Erased {
        facts: count("facts"),
        episodes: count("episodes"),
        failures: count("failures"),
        person: body["person"] == true,
        texts: Vec::new(),
    })
}

fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A minimal HTTP/1.1 `DELETE` to the daemon on this machine (plain HTTP, as it serves).
fn http_delete(url: &str, route: &str, token: Option<&str>) -> anyhow::Result<(u16, Value)> {
    let host = url
        .strip_prefix("http://")
        .map(|h| h.trim_end_matches('/'))
        .with_context(|| format!("{url} is not an http:// address"))?;
    let addr: SocketAddr = host
        .parse()
        .with_context(|| format!("{host} is not an address"))?;
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let auth = token.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        stream,
        "DELETE {route} HTTP/1.1\r\nHost: {host}\r\n{auth}Content-Length: 0\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .context("the daemon's answer is not HTTP")?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .context("the daemon's answer has no status")?;
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase().starts_with("transfer-encoding:")
            && l.to_ascii_lowercase().contains("chunked")
    });
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_string()
    };
    Ok((
        status,
        serde_json::from_str(body.trim()).unwrap_or(Value::Null),
    ))
}

/// The body of a chunked HTTP answer.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(rest.get(..size).unwrap_or(""));
        body = rest.get(size..).unwrap_or("").trim_start_matches("\r\n");
    }
    out
}
