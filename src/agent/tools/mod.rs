//! The agent's tools: one definition per tool (name, category, arguments),
//! descriptions read from `prompts/tools.toml`, JSON schemas generated from
//! both, and dispatch of a call to its implementation on the twin.

mod args;
mod query;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::agent::grounding::{self, Addressee};
use crate::llm::ToolSchema;
use crate::twin::actions::{self, ActionRequest, Target};
use crate::twin::{Twin, World};

pub use args::ArgError;

/// What a tool is for (Table I of the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolCategory {
    /// Reads the twin.
    Query,
    /// Moves the robot and objects.
    Action,
    /// Gaze, pointing and speech.
    Expression,
    /// Ends the robot's turn.
    Stop,
    /// Keeps, recalls or forgets what people asked it to remember (offered only with memory on).
    Memory,
}

/// The definition of one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolDef {
    /// Name as the LLM calls it.
    pub name: &'static str,
    /// Category.
    pub category: ToolCategory,
    /// Argument names; all are required strings.
    pub args: &'static [&'static str],
}

/// Arguments a tool takes that its schema does not offer the LLM, for the
/// rules brain: who may hear a fact (`visibility = "table"`, when the person
/// said it is for the others too), and a recall for acting for the person
/// (`purpose = "acting"`: what they told for acting only is given, marked never
/// to be said). The LLM's schema stays the paper's, so recordings replay unchanged.
const UNOFFERED: [(&str, &str); 2] = [("remember", "visibility"), ("recall", "purpose")];

impl ToolDef {
    /// Whether the tool takes `arg`, offered in its schema or not.
    pub fn takes(&self, arg: &str) -> bool {
        self.args.contains(&arg) || UNOFFERED.contains(&(self.name, arg))
    }

    /// Its arguments as a JSON example, for messages that say what to send.
    pub fn example(&self) -> String {
        let fields: Vec<String> = self
            .args
            .iter()
            .map(|a| format!("\"{a}\": \"...\""))
            .collect();
        format!("{{{}}}", fields.join(", "))
    }
}

/// Every tool, in the order they are offered.
pub const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "get_objects",
        category: ToolCategory::Query,
        args: &[],
    },
    ToolDef {
        name: "get_persons",
        category: ToolCategory::Query,
        args: &[],
    },
    ToolDef {
        name: "is_person_busy_or_idle",
        category: ToolCategory::Query,
        args: &["person_name"],
    },
    ToolDef {
        name: "check_hindering_reasons",
        category: ToolCategory::Query,
        args: &["person_name", "object_name"],
    },
    ToolDef {
        name: "check_reach_object_for_robot",
        category: ToolCategory::Query,
        args: &["object_name"],
    },
    ToolDef {
        name: "move_object_to_person",
        category: ToolCategory::Action,
        args: &["object_name", "person_name"],
    },
    ToolDef {
        name: "move_object_away_from_person",
        category: ToolCategory::Action,
        args: &["object_name", "person_name"],
    },
    ToolDef {
        name: "hand_object_over_to_person",
        category: ToolCategory::Action,
        args: &["object_name", "person_name"],
    },
    ToolDef {
        name: "pour_into",
        category: ToolCategory::Action,
        args: &["source_container_name", "target_container_name"],
    },
    ToolDef {
        name: "point_at_object_or_person",
        category: ToolCategory::Expression,
        args: &["name"],
    },
    ToolDef {
        name: "gaze",
        category: ToolCategory::Expression,
        args: &["name"],
    },
    ToolDef {
        name: "speak",
        category: ToolCategory::Expression,
        args: &["person_name", "text"],
    },
    ToolDef {
        name: "remember",
        category: ToolCategory::Memory,
        args: &["person_name", "fact", "topic"],
    },
    ToolDef {
        name: "recall",
        category: ToolCategory::Memory,
        args: &["query", "person_name"],
    },
    ToolDef {
        name: "forget",
        category: ToolCategory::Memory,
        args: &["person_name", "what"],
    },
    ToolDef {
        name: "stop",
        category: ToolCategory::Stop,
        args: &[],
    },
];

/// The definition of a tool by name.
pub fn definition(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The result of one tool call: what the LLM reads, and structured facts.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// Whether the tool did what was asked.
    pub ok: bool,
    /// Short plain English for the LLM and for people.
    pub text: String,
    /// Structured facts for tests and the event log.
    pub facts: Value,
}

impl ToolOutcome {
    /// A successful outcome.
    pub fn ok(text: impl Into<String>, facts: Value) -> Self {
        Self {
            ok: true,
            text: text.into(),
            facts,
        }
    }

    /// A failed outcome; the text says why and, where obvious, what would help.
    pub fn failed(text: impl Into<String>, facts: Value) -> Self {
        Self {
            ok: false,
            text: text.into(),
            facts,
        }
    }
}

/// Tool descriptions, as read from `prompts/tools.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ToolTexts {
    #[serde(flatten)]
    tools: BTreeMap<String, ToolText>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolText {
    description: String,
    #[serde(default)]
    args: BTreeMap<String, String>,
}

/// Why the tool descriptions could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ToolTextError {
    /// The file could not be read.
    #[error("cannot read tool descriptions {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    /// Not valid TOML of the expected form.
    #[error("{path}: not valid tool descriptions: {message}")]
    Parse { path: String, message: String },
    /// A tool or an argument has no description.
    #[error("{path}: {what} has no description")]
    Missing { path: String, what: String },
}

impl ToolTexts {
    /// Reads the descriptions from a file and checks that every tool and argument has one.
    pub fn load(path: &Path) -> Result<Self, ToolTextError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ToolTextError::Read {
            path: origin.clone(),
            source,
        })?;
        let texts: ToolTexts = toml::from_str(&text).map_err(|error| ToolTextError::Parse {
            path: origin.clone(),
            message: error.message().to_string(),
        })?;
        for tool in TOOLS {
            let Some(entry) = texts.tools.get(tool.name) else {
                return Err(ToolTextError::Missing {
                    path: origin,
                    what: format!("tool {}", tool.name),
                });
            };
            for arg in tool.args {
                if !entry.args.contains_key(*arg) {
                    return Err(ToolTextError::Missing {
                        path: origin,
                        what: format!("argument {arg} of {}", tool.name),
                    });
                }
            }
        }
        Ok(texts)
    }

    /// The shipped descriptions under `<data root>/prompts/tools.toml`.
    pub fn load_default() -> Result<Self, ToolTextError> {
        Self::load(&crate::paths::data_root().join("prompts/tools.toml"))
    }

    /// The JSON schemas of all tools, as sent to the LLM.
    pub fn schemas(&self, robot_name: &str) -> Vec<ToolSchema> {
        TOOLS
            .iter()
            .map(|tool| {
                let entry = self.tools.get(tool.name).cloned().unwrap_or_default();
                let properties: serde_json::Map<String, Value> = tool
                    .args
                    .iter()
                    .map(|arg| {
                        let description = entry.args.get(*arg).cloned().unwrap_or_default();
                        (
                            (*arg).to_string(),
                            json!({"type": "string", "description": description.replace("{robot}", robot_name)}),
                        )
                    })
                    .collect();
                ToolSchema {
                    name: tool.name.to_string(),
                    description: entry.description.replace("{robot}", robot_name),
                    parameters: json!({
                        "type": "object",
                        "properties": properties,
                        "required": tool.args,
                    }),
                }
            })
            .collect()
    }
}

/// Lists the scene's names as enums in the argument schemas, so that a model
/// that samples under a grammar (llama.cpp, vLLM) can only write names that
/// exist: persons for `person_name` (and `All` for speak), objects for the
/// object arguments, both for `name`.
pub fn with_scene_names(schemas: &mut [ToolSchema], world: &World) {
    let persons: Vec<String> = world.persons().iter().map(|p| p.name.clone()).collect();
    let objects: Vec<String> = world
        .object_ids()
        .map(|id| world.object(id).name.clone())
        .collect();
    for schema in schemas {
        let Some(properties) = schema
            .parameters
            .get_mut("properties")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        for (arg, property) in properties.iter_mut() {
            let names: Vec<&String> = match arg.as_str() {
                "person_name" => persons.iter().collect(),
                "object_name" | "source_container_name" | "target_container_name" => {
                    objects.iter().collect()
                }
                "name" => objects.iter().chain(persons.iter()).collect(),
                _ => continue,
            };
            let mut names: Vec<Value> = names.into_iter().map(|n| json!(n)).collect();
            if schema.name == "speak" && arg == "person_name" {
                names.push(json!("All"));
            }
            property["enum"] = Value::Array(names);
        }
    }
}

/// Calls a query tool on the twin (action and expression tools go through the
/// executor). Unknown names and bad arguments give a failed outcome whose text
/// says what to do.
pub fn call_query(world: &World, name: &str, args: &Value) -> ToolOutcome {
    let Some(tool) = definition(name) else {
        return unknown_tool(name);
    };
    match args::Args::parse(tool, args) {
        Ok(args) => query(world, tool, &args),
        Err(error) => ToolOutcome::failed(error.to_string(), json!({"error": "arguments"})),
    }
}

/// Runs a query tool with checked arguments.
fn query(world: &World, tool: &ToolDef, args: &Args) -> ToolOutcome {
    match tool.name {
        "get_objects" => query::get_objects(world),
        "get_persons" => query::get_persons(world),
        "is_person_busy_or_idle" => query::is_person_busy_or_idle(world, args),
        "check_hindering_reasons" => query::check_hindering_reasons(world, args),
        "check_reach_object_for_robot" => query::check_reach_object_for_robot(world, args),
        other => ToolOutcome::failed(
            format!("{other} is not a query tool; it acts and needs the agent's executor."),
            json!({"error": "not_a_query"}),
        ),
    }
}

/// The outcome for a tool name that does not exist.
pub fn unknown_tool(name: &str) -> ToolOutcome {
    let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    ToolOutcome::failed(
        format!(
            "There is no tool called '{name}'. Tools: {}.",
            names.join(", ")
        ),
        json!({"error": "unknown_tool"}),
    )
}

pub use args::Args;

/// Calls any tool on the twin: queries read it, actions plan and execute on it
/// (in simulation), `speak` returns what was said (the loop turns it into a
/// `speech` event).
pub fn call(twin: &mut Twin, name: &str, raw_args: &Value) -> ToolOutcome {
    match prepare(twin, name, raw_args) {
        Prepared::Answered(outcome) => outcome,
        Prepared::Act(request) => outcome_of(actions::execute(twin, request)),
    }
}

/// As [`call`], but actions run on `executor` (a robot, or the simulation) and
/// stop safely when `cancel` fires.
pub async fn call_acting(
    twin: &mut Twin,
    name: &str,
    raw_args: &Value,
    executor: &mut dyn actions::Executor,
    cancel: &tokio_util::sync::CancellationToken,
) -> ToolOutcome {
    // Queries plan grasps too (the reach check).
    match actions::off_the_runtime(|| prepare(twin, name, raw_args)) {
        Prepared::Answered(outcome) => outcome,
        Prepared::Act(request) => {
            outcome_of(actions::execute_on(twin, request, executor, cancel).await)
        }
    }
}

/// A tool call either answered at once or an action to execute.
enum Prepared {
    Answered(ToolOutcome),
    Act(ActionRequest),
}

fn outcome_of(report: actions::ActionReport) -> ToolOutcome {
    ToolOutcome {
        ok: report.ok,
        text: report.text,
        facts: report.facts,
    }
}

fn prepare(twin: &mut Twin, name: &str, raw_args: &Value) -> Prepared {
    let Some(tool) = definition(name) else {
        return Prepared::Answered(unknown_tool(name));
    };
    let args = match Args::parse(tool, raw_args) {
        Ok(args) => args,
        Err(error) => {
            return Prepared::Answered(ToolOutcome::failed(
                error.to_string(),
                json!({"error": "arguments"}),
            ))
        }
    };
    Prepared::Answered(match tool.category {
        ToolCategory::Query if name == "check_reach_object_for_robot" && twin.robot.is_ok() => {
            query::check_reach_object_for_robot_ik(twin, &args)
        }
        ToolCategory::Query => query(&twin.world, tool, &args),
        ToolCategory::Stop => ToolOutcome::ok("Stopped.", json!({})),
        ToolCategory::Memory => ToolOutcome::failed(
            format!("{name} needs the robot's memory, which is off here; nothing is kept between sessions."),
            json!({"error": "memory_off"}),
        ),
        ToolCategory::Expression if name == "speak" => speak(&twin.world, &args),
        ToolCategory::Expression | ToolCategory::Action => {
            match action_request(&twin.world, name, &args) {
                Ok(request) => return Prepared::Act(request),
                Err(text) => ToolOutcome::failed(text, json!({"error": "arguments"})),
            }
        }
    })
}

fn speak(world: &World, args: &Args) -> ToolOutcome {
    let to = match args.addressee(world, "person_name") {
        Ok(Addressee::Person(id)) => world.person(id).name.clone(),
        Ok(Addressee::All) => "All".to_string(),
        Ok(Addressee::Robot) => {
            return ToolOutcome::failed(
                "You cannot speak to yourself; speak to a person or to All.",
                json!({"error": "person"}),
            )
        }
        Err(text) => return ToolOutcome::failed(text, json!({"error": "person"})),
    };
    let text = args.get("text").to_string();
    ToolOutcome::ok(
        format!("You said to {to}: {text}"),
        json!({"to": to, "text": text}),
    )
}

/// Grounds the arguments of an action or expression tool.
fn action_request(world: &World, name: &str, args: &Args) -> Result<ActionRequest, String> {
    let target = |arg: &str| -> Result<Target, String> {
        let query = args.get(arg);
        match grounding::person(world, query) {
            grounding::Grounding::Resolved(p) => Ok(Target::Person(p)),
            _ => args
                .object(world, arg)
                .map(Target::Object)
                .map_err(|object_error| {
                    let persons: Vec<&str> =
                        world.persons().iter().map(|p| p.name.as_str()).collect();
                    format!("{object_error} Persons here: {}.", persons.join(", "))
                }),
        }
    };
    Ok(match name {
        "hand_object_over_to_person" => ActionRequest::HandOver {
            object: args.object(world, "object_name")?,
            person: args.person(world, "person_name")?,
        },
        "move_object_to_person" => ActionRequest::MoveTo {
            object: args.object(world, "object_name")?,
            person: args.person(world, "person_name")?,
        },
        "move_object_away_from_person" => ActionRequest::MoveAway {
            object: args.object(world, "object_name")?,
            person: args.person(world, "person_name")?,
        },
        "pour_into" => ActionRequest::Pour {
            source: args.object(world, "source_container_name")?,
            target: args.object(world, "target_container_name")?,
        },
        "point_at_object_or_person" => ActionRequest::PointAt(target("name")?),
        "gaze" => ActionRequest::Gaze(target("name")?),
        other => return Err(format!("{other} is not an action.")),
    })
}
