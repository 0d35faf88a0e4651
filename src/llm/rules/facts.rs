//! What the rules brain learns from tool results (the same text an LLM reads),
//! and how it words things; shared by the answering and the helping modules.

use crate::language::Phrasebook;

/// What `check_hindering_reasons` or `check_reach_object_for_robot` said.
#[derive(Debug, Clone, Default)]
pub struct Hindrance {
    /// The object the check named.
    pub object: Option<String>,
    /// The person is busy.
    pub busy: bool,
    /// What hides the object from the person.
    pub cannot_see: Option<String>,
    /// The person cannot reach the object.
    pub cannot_reach: bool,
}

impl Hindrance {
    /// Reads a `check_hindering_reasons` result about `person`.
    pub fn from_check(text: &str, person: &str) -> Self {
        let object = text
            .split(&format!("{person} can see "))
            .nth(1)
            .or_else(|| text.split(&format!("{person} cannot see ")).nth(1))
            .map(name_at_start);
        let cannot_see = text
            .split("hidden behind ")
            .nth(1)
            .map(|rest| rest.split('.').next().unwrap_or(rest).to_string());
        Self {
            object,
            busy: text.contains(&format!("{person} is busy")),
            cannot_see,
            cannot_reach: text.contains(&format!("{person} cannot reach")),
        }
    }

    /// Reads a `check_reach_object_for_robot` result: the object only when the robot reaches it.
    pub fn from_robot_check(text: &str) -> Self {
        Self {
            object: text.split(" can reach ").nth(1).map(name_at_start),
            ..Self::default()
        }
    }

    /// Whether anything keeps the person from doing it themselves.
    pub fn hindered(&self) -> bool {
        self.busy || self.cannot_see.is_some() || self.cannot_reach
    }

    /// "Daniel is busy and cannot reach the red glass".
    pub fn explanation(&self, person: &str, speech: &Phrasebook) -> String {
        let thing = self
            .object
            .as_deref()
            .map(|o| speech.object(o))
            .unwrap_or_default();
        let mut reasons = Vec::new();
        if self.busy {
            reasons.push(speech.say("help.reason_busy", &[]));
        }
        if let Some(occluder) = &self.cannot_see {
            let occluder = speech.object(occluder);
            reasons.push(speech.say(
                "help.reason_cannot_see",
                &[("object", &thing), ("occluder", &occluder)],
            ));
        }
        if self.cannot_reach {
            reasons.push(match self.cannot_see {
                Some(_) => speech.say("help.reason_cannot_reach_it", &[]),
                None => speech.say("help.reason_cannot_reach", &[("object", &thing)]),
            });
        }
        let reasons = speech.and_list(&reasons);
        speech.say(
            "help.hindered",
            &[("person", person), ("reasons", &reasons)],
        )
    }
}

fn name_at_start(rest: &str) -> String {
    rest.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// One object of a `get_objects` listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its name.
    pub name: String,
    /// Its liquid.
    pub contains: Option<String>,
    /// An empty drinking vessel.
    pub empty: bool,
    /// Who holds it.
    pub held_by: Option<String>,
}

/// Reads `Objects: a (contains cola), b (empty, held by Felix), c.`.
pub fn listing(text: &str) -> Vec<Listed> {
    let body = text
        .strip_prefix("Objects: ")
        .unwrap_or(text)
        .trim_end_matches('.');
    let mut out = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let name_end = rest.find([' ', ',']).unwrap_or(rest.len());
        let name = rest[..name_end].to_string();
        rest = &rest[name_end..];
        let mut notes = "";
        if let Some(inner) = rest.strip_prefix(" (") {
            let close = inner.find(')').unwrap_or(inner.len());
            notes = &inner[..close];
            rest = inner.get(close + 1..).unwrap_or("");
        }
        rest = rest.trim_start_matches([',', ' ']);
        let note = |prefix: &str| {
            notes
                .split(", ")
                .find_map(|n| n.strip_prefix(prefix))
                .map(str::to_string)
        };
        if !name.is_empty() {
            out.push(Listed {
                contains: note("contains "),
                empty: notes.split(", ").any(|n| n == "empty"),
                held_by: note("held by "),
                name,
            });
        }
    }
    out
}

/// "red_glass" -> "red glass".
pub fn bare(name: &str) -> String {
    name.replace('_', " ")
}

/// The drinks of a listing, once each.
pub fn drinks(listed: &[Listed]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for liquid in listed.iter().filter_map(|o| o.contains.clone()) {
        if !out.contains(&liquid) {
            out.push(liquid);
        }
    }
    out
}

impl super::RulesBrain {
    /// A failed reach check (`check_reach_object_for_robot`, whose text is
    /// English like every tool's) as a reason in the robot's language, for the
    /// forms the check writes; any other text as it is; without a final stop.
    pub(super) fn robot_reason(&self, result: &str) -> String {
        self.robot_reason_in_words(result)
            .unwrap_or_else(|| result.trim().trim_end_matches('.').to_string())
    }

    /// The reason in the robot's words, when the check wrote one of its known forms.
    pub(super) fn robot_reason_in_words(&self, result: &str) -> Option<String> {
        let text = result.trim().trim_end_matches('.');
        let object = |id: &str| self.world.object_named(id).map(|_| self.speech.object(id));
        if let Some(id) =
            text.strip_suffix(" cannot be grasped: it is too large for the robot's hands")
        {
            let thing = object(id)?;
            return Some(
                self.speech
                    .say("robot_reason.too_large", &[("object", &thing)]),
            );
        }
        let (head, why) = text.split_once(": ")?;
        let id = head
            .split_once(" cannot take ")
            .or_else(|| head.split_once(" cannot reach "))?
            .1;
        let thing = object(id)?;
        if let Some(person) = why.strip_suffix(" is holding it") {
            self.world.person_named(person)?;
            return Some(self.speech.say(
                "robot_reason.held_by",
                &[("object", &thing), ("person", person)],
            ));
        }
        if why == "it is out of reach of both arms" {
            return Some(
                self.speech
                    .say("robot_reason.out_of_reach", &[("object", &thing)]),
            );
        }
        let list = why
            .strip_prefix("blocked by ")?
            .strip_suffix(" on every side")?;
        let ids: Vec<&str> = list
            .split(", ")
            .flat_map(|part| part.split(" and "))
            .collect();
        let things: Option<Vec<String>> = ids.iter().map(|id| object(id)).collect();
        let things = self.speech.and_list(&things?);
        Some(self.speech.say(
            "robot_reason.blocked",
            &[("object", &thing), ("things", &things)],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_read_back() {
        let l = listing("Objects: cola_bottle (contains cola zero), red_glass (empty, held by Felix), box, smartphone (held by Daniel).");
        assert_eq!(l.len(), 4);
        assert_eq!(l[0].contains.as_deref(), Some("cola zero"));
        assert!(l[1].empty && l[1].held_by.as_deref() == Some("Felix"));
        assert_eq!(l[2].name, "box");
        assert_eq!(l[3].held_by.as_deref(), Some("Daniel"));
    }

    /// The reach check's reasons, said in the robot's language, never with an id.
    #[test]
    fn the_robots_reasons_are_said_in_its_language() {
        use crate::language::Language;
        use crate::twin::Twin;
        let mut twin = Twin::load("softdrinks").expect("scene");
        let check = |twin: &mut Twin, object: &str| {
            let args = serde_json::json!({"object_name": object});
            crate::agent::tools::call(twin, "check_reach_object_for_robot", &args).text
        };
        let too_large = check(&mut twin, "box");
        let daniel = twin.world.person_named("Daniel").expect("Daniel");
        let glass = twin.world.object_named("red_glass").expect("glass");
        twin.world
            .give_to_person(glass, daniel)
            .expect("Daniel takes the glass");
        let held = check(&mut twin, "red_glass");
        let english = Language::english().expect("English");
        let german =
            Language::load(&crate::paths::data_root().join("languages/de")).expect("German");
        let en = super::super::RulesBrain::new(&twin.world, &english);
        let de = super::super::RulesBrain::new(&twin.world, &german);
        assert_eq!(
            en.robot_reason(&too_large),
            "the box is too large for my hands"
        );
        assert_eq!(
            de.robot_reason(&too_large),
            "der Karton ist zu groß für meine Hände"
        );
        assert_eq!(en.robot_reason(&held), "Daniel is holding the red glass");
        assert_eq!(de.robot_reason(&held), "Daniel hält das rote Glas");
        // A text the check does not write stays as it is.
        assert_eq!(en.robot_reason("the arm is broken."), "the arm is broken");
    }

    #[test]
    fn hindrances_read_back() {
        let h = Hindrance::from_check("Felix is idle. Felix cannot see cola_zero_bottle: it is hidden behind box. Felix cannot reach cola_zero_bottle: it is 0.38 m beyond Felix's reach.", "Felix");
        assert_eq!(h.object.as_deref(), Some("cola_zero_bottle"));
        assert!(h.hindered() && h.cannot_reach && !h.busy);
        let english = crate::language::Language::english().expect("English");
        assert_eq!(
            h.explanation("Felix", english.speech()),
            "Felix cannot see the cola zero bottle behind the box and cannot reach it"
        );
    }
}
