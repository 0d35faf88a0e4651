//! Tool arguments: parsed from whatever JSON the LLM sent, checked against the
//! tool's definition, and grounded to scene entities.

use serde_json::Value;

use super::ToolDef;
use crate::agent::grounding::{self, Addressee, Grounding};
use crate::twin::{ObjectId, PersonId, World};

/// Why the arguments of a call cannot be used; the message tells the LLM what to send.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArgError {
    /// Not a JSON object.
    #[error("{tool} takes its arguments as a JSON object, e.g. {example}.")]
    NotAnObject { tool: String, example: String },
    /// A required argument is missing or empty.
    #[error("{tool} needs {arg}; e.g. {example}.")]
    Missing {
        tool: String,
        arg: String,
        example: String,
    },
    /// An argument is not a string.
    #[error("{arg} of {tool} must be a string name, not {found}.")]
    NotAString {
        tool: String,
        arg: String,
        found: String,
    },
    /// An argument the tool does not take.
    #[error("{tool} takes no argument '{arg}'; its arguments: {expected}.")]
    Unexpected {
        tool: String,
        arg: String,
        expected: String,
    },
}

/// Checked arguments of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    values: Vec<(String, String)>,
}

impl Args {
    /// Checks `raw` against the tool's arguments. A JSON string holding an
    /// object is accepted too (some servers double-encode).
    pub fn parse(tool: &ToolDef, raw: &Value) -> Result<Self, ArgError> {
        let decoded;
        let raw = match raw {
            Value::String(text) => {
                decoded = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
                &decoded
            }
            Value::Null if tool.args.is_empty() => return Ok(Self { values: Vec::new() }),
            other => other,
        };
        let Some(map) = raw.as_object() else {
            return Err(ArgError::NotAnObject {
                tool: tool.name.into(),
                example: tool.example(),
            });
        };
        for key in map.keys() {
            if !tool.takes(key) {
                return Err(ArgError::Unexpected {
                    tool: tool.name.into(),
                    arg: key.clone(),
                    expected: if tool.args.is_empty() {
                        "none".into()
                    } else {
                        tool.args.join(", ")
                    },
                });
            }
        }
        let mut values = Vec::new();
        for arg in tool.args {
            let value = match map.get(*arg) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.trim().to_string()),
                Some(Value::Number(n)) => Some(n.to_string()),
                Some(other) => {
                    return Err(ArgError::NotAString {
                        tool: tool.name.into(),
                        arg: (*arg).into(),
                        found: short_json(other),
                    })
                }
            };
            match value {
                Some(v) if !v.is_empty() => values.push(((*arg).to_string(), v)),
                _ => {
                    return Err(ArgError::Missing {
                        tool: tool.name.into(),
                        arg: (*arg).into(),
                        example: tool.example(),
                    })
                }
            }
        }
        Ok(Self { values })
    }

    /// The value of an argument that `parse` checked to be present.
    pub fn get(&self, arg: &str) -> &str {
        self.values
            .iter()
            .find(|(k, _)| k == arg)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// Grounds an object argument; the error text is ready for the LLM.
    pub fn object(&self, world: &World, arg: &str) -> Result<ObjectId, String> {
        let query = self.get(arg);
        match grounding::object(world, query) {
            Grounding::Resolved(id) => Ok(id),
            Grounding::Ambiguous(ids) => Err(format!(
                "'{query}' could mean {}; say which one.",
                or_list(ids.iter().map(|id| world.object(*id).name.as_str()))
            )),
            Grounding::Unknown { closest } => {
                let all: Vec<&str> = world.objects().iter().map(|o| o.name.as_str()).collect();
                let near: Vec<&str> = closest
                    .iter()
                    .take(2)
                    .map(|id| world.object(*id).name.as_str())
                    .collect();
                Err(format!(
                    "There is no object called '{query}'. Closest: {}. Objects here: {}.",
                    near.join(", "),
                    all.join(", ")
                ))
            }
        }
    }

    /// Grounds a person argument (people only).
    pub fn person(&self, world: &World, arg: &str) -> Result<PersonId, String> {
        let query = self.get(arg);
        let all: Vec<&str> = world.persons().iter().map(|p| p.name.as_str()).collect();
        match grounding::person(world, query) {
            Grounding::Resolved(id) => Ok(id),
            Grounding::Ambiguous(ids) => Err(format!(
                "'{query}' could mean {}; say which one.",
                or_list(ids.iter().map(|id| world.person(*id).name.as_str()))
            )),
            Grounding::Unknown { .. } => {
                let robot = grounding::words(&world.robot.name);
                if grounding::words(query) == robot || grounding::words(query) == ["robot"] {
                    return Err(format!(
                        "{} is you, the robot; give the name of a person: {}.",
                        world.robot.name,
                        all.join(", ")
                    ));
                }
                Err(format!(
                    "There is no person called '{query}'. Persons here: {}.",
                    all.join(", ")
                ))
            }
        }
    }

    /// Grounds an addressee argument: a person, the robot, or All.
    pub fn addressee(&self, world: &World, arg: &str) -> Result<Addressee, String> {
        let query = self.get(arg);
        match grounding::addressee(world, query) {
            Grounding::Resolved(a) => Ok(a),
            _ => {
                let all: Vec<&str> = world.persons().iter().map(|p| p.name.as_str()).collect();
                Err(format!(
                    "There is no person called '{query}'. Speak to one of {} or to All.",
                    all.join(", ")
                ))
            }
        }
    }
}

/// "a, b or c".
pub fn or_list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let items: Vec<&str> = items.collect();
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

fn short_json(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}
