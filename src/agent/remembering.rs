//! The agent's side of memory: the block about the people present, the
//! `remember` / `recall` / `forget` tools, episodes and failures written from
//! what the agent did, and the failure explainer on failed actions.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::agent::grounding::{self, Grounding};
use crate::agent::tools::ToolOutcome;
use crate::agent::Turn;
use crate::memory::{
    self, block, explainer, recall, Episode, Erased, Failure, Memory, MemoryError, MemorySettings,
    NewFact, Visibility,
};
use crate::twin::kinematics::Side;
use crate::twin::Twin;

/// Called after an erasure with what was erased, to redact copies outside the
/// store (the event log, recordings).
pub type Eraser = Arc<dyn Fn(&Erased) + Send + Sync>;

/// A suggestion (or arm preference) given, to be counted when the next try ends.
#[derive(Debug, Clone)]
struct Offer {
    failure: i64,
    tool: String,
    kind: String,
}

/// This turn, as it will be written as an episode.
#[derive(Debug, Clone, Default)]
struct Draft {
    requester: Option<String>,
    asked: String,
    done: Vec<String>,
    objects: Vec<String>,
    failed: bool,
}

/// A fact a turn asks to keep. `for_the_table`: said to everyone, or said to be
/// for the others too (the rules brain's optional `visibility = "table"`; the
/// LLM's schema keeps the paper's three arguments, so it never sets it).
struct Told<'a> {
    person: &'a str,
    fact: &'a str,
    topic: &'a str,
    said_to: &'a str,
    for_the_table: bool,
}

/// Memory as the agent uses it in one session after another.
pub struct Remembering {
    memory: Memory,
    settings: MemorySettings,
    eraser: Option<Eraser>,
    turn_no: u64,
    /// Who asked to be forgotten, and in which turn; their next turn may confirm.
    pending_forget: Option<(String, u64)>,
    /// The fact stored last per person in this session ("forget that").
    last_fact: BTreeMap<String, i64>,
    draft: Draft,
    offers: Vec<Offer>,
}

fn failed(text: impl Into<String>, error: &str) -> ToolOutcome {
    ToolOutcome::failed(text, json!({"error": error}))
}

fn store_error(e: MemoryError) -> ToolOutcome {
    tracing::warn!(error = %e, "memory");
    failed(format!("My memory failed: {e}."), "memory")
}

impl Remembering {
    /// Memory for an agent; old episodes and failures are pruned now.
    pub fn new(memory: Memory, settings: MemorySettings) -> Self {
        let days = settings.retention_days;
        if let Err(e) = memory.run_blocking(move |s| s.prune(days, memory::now())) {
            tracing::warn!(error = %e, "memory: pruning failed");
        }
        Self {
            memory,
            settings,
            eraser: None,
            turn_no: 0,
            pending_forget: None,
            last_fact: BTreeMap::new(),
            draft: Draft::default(),
            offers: Vec::new(),
        }
    }

    /// Redacts erased text outside the store with `eraser`.
    pub fn with_eraser(mut self, eraser: Eraser) -> Self {
        self.eraser = Some(eraser);
        self
    }

    /// The store.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// Whether memory has something on `query` for `asker`: a fact they may
    /// hear, or one kept for someone else (which the answer then withholds).
    pub fn knows_about(&self, query: &str, asker: Option<&str>) -> bool {
        let (query, asker) = (query.to_string(), asker.map(str::to_string));
        let found = self
            .memory
            .run_blocking(move |s| recall::recall(s, &query, None, asker.as_deref(), false));
        match found {
            Ok(Ok(r)) => {
                let told = r.facts["facts"].as_array().is_some_and(|f| !f.is_empty());
                told || r.facts["withheld"].as_u64().is_some_and(|n| n > 0)
            }
            Ok(Err(e)) | Err(e) => {
                tracing::warn!(error = %e, "memory");
                false
            }
        }
    }

    /// A new session: what this session knew goes; the store stays.
    pub fn new_session(&mut self) {
        self.pending_forget = None;
        self.last_fact.clear();
        self.offers.clear();
        self.draft = Draft::default();
    }

    /// Starts a turn: notes the speaker as seen; returns the block about the people present.
    pub fn open(&mut self, turn: &Turn, sender: Option<&str>, twin: &Twin) -> Option<String> {
        self.turn_no += 1;
        self.draft = Draft {
            requester: sender.map(str::to_string),
            asked: turn.text.clone(),
            ..Draft::default()
        };
        let present: Vec<String> = twin
            .world
            .persons()
            .iter()
            .map(|p| p.name.clone())
            .collect();
        let speaker = sender.map(str::to_string);
        let per_person = self.settings.block_facts_per_person;
        let result = self.memory.run_blocking(move |s| {
            if let Some(name) = &speaker {
                s.seen(name, memory::now())?;
            }
            block::people_block(s, &present, per_person)
        });
        match result {
            Ok(Ok(block)) => block,
            Ok(Err(e)) | Err(e) => {
                tracing::warn!(error = %e, "memory: the block about the people present");
                None
            }
        }
    }

    /// Runs `remember`, `recall` or `forget` for the turn's `sender`.
    pub fn call(
        &mut self,
        name: &str,
        args: &Value,
        sender: Option<&str>,
        said_to: &str,
        twin: &Twin,
    ) -> (ToolOutcome, Option<Erased>) {
        let arg = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim()
                .to_string()
        };
        match name {
            "remember" => (
                self.remember(
                    Told {
                        person: &arg("person_name"),
                        fact: &arg("fact"),
                        topic: &arg("topic"),
                        said_to,
                        for_the_table: said_to == "All" || arg("visibility") == "table",
                    },
                    sender,
                    twin,
                ),
                None,
            ),
            "recall" => (
                self.recall(
                    (&arg("query"), &arg("person_name")),
                    arg("purpose") == "acting",
                    sender,
                    twin,
                ),
                None,
            ),
            "forget" => self.forget(&arg("person_name"), &arg("what"), sender, twin),
            other => (
                failed(format!("{other} is not a memory tool."), "unknown_tool"),
                None,
            ),
        }
    }

    fn remember(&mut self, told: Told<'_>, sender: Option<&str>, twin: &Twin) -> ToolOutcome {
        let Told {
            person,
            fact,
            topic,
            said_to,
            for_the_table,
        } = told;
        let Some(sender) = sender else {
            return failed(
                "Not stored: I do not know who is speaking. Ask them to say their name first.",
                "unknown_speaker",
            );
        };
        let person = match scene_person(twin, person) {
            Ok(p) => p,
            Err(text) => return failed(text, "person"),
        };
        let new = NewFact {
            person: person.clone(),
            topic: topic.to_lowercase(),
            text: fact.to_string(),
            said_by: sender.to_string(),
            said_to: said_to.to_string(),
            visibility: if for_the_table {
                Visibility::Table
            } else {
                Visibility::OnlyForActing
            },
            at: memory::now(),
        };
        let stored = match self.memory.run_blocking(move |s| s.remember(&new)) {
            Ok(Ok(r)) => r,
            Ok(Err(e)) | Err(e) => return store_error(e),
        };
        self.last_fact.insert(person.clone(), stored.fact.id);
        let f = &stored.fact;
        let mut text = if f.confirmed {
            format!(
                "Stored fact {} about {person} [{}]: \"{}\".",
                f.id, f.topic, f.text
            )
        } else {
            format!(
                "Stored fact {} as hearsay: {sender} said about {person} [{}]: \"{}\".",
                f.id, f.topic, f.text
            )
        };
        if let Some(own) = &stored.kept_own {
            text.push_str(&format!(
                " {person}'s own word still stands: \"{}\".",
                own.text
            ));
        }
        for old in &stored.superseded {
            text.push_str(&format!(" It replaces: \"{}\".", old.text));
        }
        text.push_str(&format!(" Tell {sender} what you will remember."));
        ToolOutcome::ok(
            text,
            json!({"fact": f.id, "person": person, "confirmed": f.confirmed,
                   "superseded": stored.superseded.iter().map(|o| o.id).collect::<Vec<_>>()}),
        )
    }

    /// `for_acting`: the rules brain acts for the person (`purpose = "acting"`).
    fn recall(
        &self,
        (query, person): (&str, &str),
        for_acting: bool,
        sender: Option<&str>,
        twin: &Twin,
    ) -> ToolOutcome {
        let person = match person.to_lowercase().as_str() {
            "anyone" | "anybody" | "all" | "everyone" | "any" => None,
            _ => Some(scene_person(twin, person).unwrap_or_else(|_| person.to_string())),
        };
        let (query, asker) = (query.to_string(), sender.map(str::to_string));
        match self.memory.run_blocking(move |s| {
            recall::recall(s, &query, person.as_deref(), asker.as_deref(), for_acting)
        }) {
            Ok(Ok(r)) => ToolOutcome::ok(r.text, r.facts),
            Ok(Err(e)) | Err(e) => store_error(e),
        }
    }

    fn forget(
        &mut self,
        person: &str,
        what: &str,
        sender: Option<&str>,
        twin: &Twin,
    ) -> (ToolOutcome, Option<Erased>) {
        let person = scene_person(twin, person).unwrap_or_else(|_| person.to_string());
        if !sender.is_some_and(|s| s.eq_ignore_ascii_case(&person)) {
            return (
                failed(
                    format!("Refused: only {person} can ask me to forget {person} (an operator can use `attentive memory forget`)."),
                    "not_theirs",
                ),
                None,
            );
        }
        let what = what.to_lowercase();
        let result = if ["everything", "all", "me", "everything about me"].contains(&what.as_str())
        {
            match &self.pending_forget {
                Some((p, asked)) if p == &person && *asked < self.turn_no => {
                    self.pending_forget = None;
                    let name = person.clone();
                    self.memory.run_blocking(move |s| s.forget_person(&name))
                }
                _ => {
                    self.pending_forget = Some((person.clone(), self.turn_no));
                    return (
                        failed(
                            format!("Not yet: ask {person} to confirm first, e.g. \"Shall I forget everything I know about you, {person}?\"; call forget again when {person} says yes."),
                            "confirm_first",
                        ),
                        None,
                    );
                }
            }
        } else {
            let id = match what.trim_start_matches("fact ").parse::<i64>() {
                Ok(id) => Some(id),
                Err(_) => self.last_fact.get(&person).copied(),
            };
            let name = person.clone();
            self.memory.run_blocking(move |s| {
                let id = match id {
                    Some(id) => id,
                    None => s
                        .facts_about(&name, false)?
                        .first()
                        .map(|f| f.id)
                        .ok_or_else(|| {
                            MemoryError::NotFound(format!("I keep no fact about {name}"))
                        })?,
                };
                match s.fact(id)? {
                    Some(f) if f.person.eq_ignore_ascii_case(&name) => s.forget_fact(id),
                    _ => Err(MemoryError::NotFound(format!(
                        "fact {id} is not about {name}"
                    ))),
                }
            })
        };
        match result {
            Ok(Ok(erased)) => {
                if let Some(eraser) = &self.eraser {
                    eraser(&erased);
                }
                self.last_fact.remove(&person);
                let text = format!(
                    "Forgotten: {} fact(s), {} episode(s) about {person}; nothing of it is kept.",
                    erased.facts, erased.episodes
                );
                (
                    ToolOutcome::ok(
                        text,
                        json!({"person": person, "facts": erased.facts, "episodes": erased.episodes}),
                    ),
                    Some(erased),
                )
            }
            Ok(Err(MemoryError::NotFound(why))) | Err(MemoryError::NotFound(why)) => (
                failed(format!("Nothing to forget: {why}."), "not_found"),
                None,
            ),
            Ok(Err(e)) | Err(e) => (store_error(e), None),
        }
    }

    /// Before an action: the arm that worked after a real robot's failure on
    /// this tool and kind of object is tried first (never forced).
    pub fn before_action(&mut self, name: &str, args: &Value, twin: &mut Twin) {
        twin.preferred_arm = None;
        let Some(kind) = object_kind(twin, args) else {
            return;
        };
        let (tool, k) = (name.to_string(), kind.clone());
        let failures = match self.memory.run_blocking(move |s| s.failures_of(&tool, &k)) {
            Ok(Ok(f)) => f,
            _ => return,
        };
        let robot_failures = failures.iter().filter(|f| f.cause.starts_with("robot:"));
        for f in robot_failures {
            if explainer::retired(f) {
                continue;
            }
            let arm = match (&f.fix, &f.arm) {
                (Some(fix), _) => arm_in(fix),
                (None, Some(arm)) => arm_named(arm).map(Side::other),
                _ => None,
            };
            if let Some(arm) = arm {
                twin.preferred_arm = Some(arm);
                if f.fix.is_some() {
                    self.offers.push(Offer {
                        failure: f.id,
                        tool: name.to_string(),
                        kind,
                    });
                }
                return;
            }
        }
    }

    /// After an action: counts offers, resolves or records failures, and appends
    /// at most one suggestion from past failures to a failed action's result.
    pub fn after_action(
        &mut self,
        name: &str,
        args: &Value,
        outcome: &mut ToolOutcome,
        twin: &mut Twin,
    ) {
        twin.preferred_arm = None;
        let kind = object_kind(twin, args).unwrap_or_default();
        let object = object_arg(args)
            .map(|said| object_name(twin, said))
            .unwrap_or_default();
        let arm = outcome
            .facts
            .get("arm")
            .and_then(Value::as_str)
            .map(str::to_string);
        let (counted, kept): (Vec<Offer>, Vec<Offer>) = std::mem::take(&mut self.offers)
            .into_iter()
            .partition(|o| o.tool == name && o.kind == kind);
        self.offers = kept;
        for offer in counted {
            let ok = outcome.ok;
            let _ = self
                .memory
                .run_blocking(move |s| s.count_offer(offer.failure, ok));
        }
        if outcome.ok {
            self.draft.done.push(done_sentence(name, args, twin));
            self.draft.objects.push(object);
            self.resolve(name, &kind, arm.as_deref());
            return;
        }
        self.draft.failed = true;
        let Some(cause) = cause_key(outcome) else {
            return;
        };
        let failure = Failure {
            id: 0,
            at: memory::now(),
            tool: name.to_string(),
            cause: cause.clone(),
            object,
            object_kind: kind.clone(),
            arm: arm.clone(),
            grasp: outcome
                .facts
                .get("grasp")
                .and_then(Value::as_str)
                .map(str::to_string),
            request: self.draft.asked.clone(),
            person: self.draft.requester.clone(),
            fix: None,
            offered: 0,
            helped: 0,
        };
        let (tool, k) = (name.to_string(), kind.clone());
        let looked = self.memory.run_blocking(move |s| {
            let suggestion = explainer::suggest(s, &tool, &cause, &k)?;
            s.record_failure(&failure)?;
            Ok::<_, MemoryError>(suggestion)
        });
        let Ok(Ok(suggestion)) = looked else {
            return;
        };
        if let Some(s) = suggestion {
            outcome.text.push(' ');
            outcome.text.push_str(&s.text);
            if let Value::Object(map) = &mut outcome.facts {
                map.insert(
                    "suggestion".into(),
                    json!({"failure": s.failure, "fix": s.fix, "trusted": s.trusted}),
                );
            }
            self.offers.push(Offer {
                failure: s.failure,
                tool: name.to_string(),
                kind,
            });
        }
    }

    /// A success resolves the failures of the same tool on the same kind of
    /// object that nothing resolved yet, from this session or an earlier one
    /// (within a day: older ones are too far from this success to credit it).
    fn resolve(&mut self, tool: &str, kind: &str, arm: Option<&str>) {
        let earlier = self
            .draft
            .done
            .len()
            .checked_sub(2)
            .map(|i| self.draft.done[i].clone());
        let (tool, kind, arm) = (tool.to_string(), kind.to_string(), arm.map(str::to_string));
        let since = memory::now() - 86_400;
        let _ = self.memory.run_blocking(move |s| {
            for f in s.failures_of(&tool, &kind)? {
                if f.fix.is_some() || f.at < since {
                    continue;
                }
                let fix = match (arm.as_deref(), f.arm.as_deref()) {
                    (Some(now), Some(then)) if now != then => format!("using the {now} arm"),
                    _ => match &earlier {
                        Some(step) => format!("first: {step}"),
                        None => "trying again".to_string(),
                    },
                };
                s.resolve_failure(f.id, &fix)?;
            }
            Ok::<_, MemoryError>(())
        });
    }

    /// Ends a turn: an episode is written when the robot acted.
    pub fn close(&mut self, reason: &str, twin: &Twin) {
        let draft = std::mem::take(&mut self.draft);
        if draft.done.is_empty() && !draft.failed {
            return;
        }
        let episode = Episode {
            id: 0,
            at: memory::now(),
            scene: twin.world.name.clone(),
            present: twin
                .world
                .persons()
                .iter()
                .map(|p| p.name.clone())
                .collect(),
            requester: draft.requester,
            asked: draft.asked,
            done: draft.done,
            objects: draft.objects,
            outcome: if draft.failed {
                "failed".into()
            } else {
                reason.to_string()
            },
        };
        if let Err(e) = self
            .memory
            .run_blocking(move |s| s.record_episode(&episode))
            .and_then(|r| r)
        {
            tracing::warn!(error = %e, "memory: the episode was not stored");
        }
    }
}

fn scene_person(twin: &Twin, said: &str) -> Result<String, String> {
    match grounding::person(&twin.world, said) {
        Grounding::Resolved(id) => Ok(twin.world.person(id).name.clone()),
        _ => {
            let names: Vec<&str> = twin
                .world
                .persons()
                .iter()
                .map(|p| p.name.as_str())
                .collect();
            Err(format!(
                "There is nobody called '{said}' here; persons: {}.",
                names.join(", ")
            ))
        }
    }
}

fn object_arg(args: &Value) -> Option<&str> {
    ["object_name", "source_container_name"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
}

fn object_kind(twin: &Twin, args: &Value) -> Option<String> {
    let said = object_arg(args)?;
    match grounding::object(&twin.world, said) {
        Grounding::Resolved(id) => Some(twin.world.object(id).kind.name.clone()),
        _ => None,
    }
}

fn arm_named(name: &str) -> Option<Side> {
    match name {
        "left" => Some(Side::Left),
        "right" => Some(Side::Right),
        _ => None,
    }
}

fn arm_in(fix: &str) -> Option<Side> {
    fix.split_whitespace().find_map(arm_named)
}

/// The failure's cause key: the robot's (`robot:aborted`) or the twin's most frequent.
fn cause_key(outcome: &ToolOutcome) -> Option<String> {
    if outcome.facts.get("executed") == Some(&Value::Bool(false)) {
        let text = outcome.text.to_lowercase();
        let cause = ["aborted", "rejected", "cancelled", "dropped", "interrupted"]
            .into_iter()
            .find(|w| text.contains(w))
            .unwrap_or("failed");
        // A person's stop is not the skill failing.
        return (cause != "interrupted").then(|| format!("robot:{cause}"));
    }
    let reasons = outcome.facts.get("reasons")?.as_object()?;
    reasons
        .iter()
        .max_by_key(|(_, n)| n.as_u64().unwrap_or(0))
        .map(|(k, _)| k.clone())
}

/// The scene's name of an object as said (as said when it does not resolve).
fn object_name(twin: &Twin, said: &str) -> String {
    match grounding::object(&twin.world, said) {
        Grounding::Resolved(id) => twin.world.object(id).name.clone(),
        _ => said.to_string(),
    }
}

/// What an action did, as an episode's sentence, in the scene's names.
fn done_sentence(name: &str, args: &Value, twin: &Twin) -> String {
    let a = |k: &str| {
        let said = args.get(k).and_then(Value::as_str).unwrap_or("?");
        if k == "person_name" {
            scene_person(twin, said).unwrap_or_else(|_| said.to_string())
        } else {
            object_name(twin, said)
        }
    };
    match name {
        "hand_object_over_to_person" => {
            format!("handed {} to {}", a("object_name"), a("person_name"))
        }
        "move_object_to_person" => format!("moved {} to {}", a("object_name"), a("person_name")),
        "move_object_away_from_person" => {
            format!("moved {} away from {}", a("object_name"), a("person_name"))
        }
        "pour_into" => format!(
            "poured {} into {}",
            a("source_container_name"),
            a("target_container_name")
        ),
        other => format!("did {other}"),
    }
}
