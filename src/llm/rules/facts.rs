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

    /// What a `check_reach_object_for_robot` result says the robot must move aside
    /// first ("... once it has moved cola_bottle and fanta_bottle aside."), in order.
    pub fn moved_aside_first(text: &str) -> Vec<String> {
        let Some((_, list)) = text.split_once(" once it has moved ") else {
            return Vec::new();
        };
        let list = list
            .trim_end()
            .trim_end_matches('.')
            .trim_end_matches(" aside");
        list.split(", ")
            .flat_map(|part| part.split(" and "))
            .map(str::to_string)
            .collect()
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
    /// What was added to that liquid ("coffee with milk": milk).
    pub added: Vec<String>,
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
            let contents = note("contains ");
            let (contains, added) = match contents.as_deref().and_then(|c| c.split_once(" with ")) {
                Some((drink, added)) => (
                    Some(drink.to_string()),
                    added.split(" and ").map(str::to_string).collect(),
                ),
                None => (contents, Vec::new()),
            };
            out.push(Listed {
                contains,
                added,
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
    pub(super) fn robot_reason(&self, result: &str, listener: &str) -> String {
        self.robot_reason_in_words(result, listener)
            .unwrap_or_else(|| result.trim().trim_end_matches('.').to_string())
    }

    /// The reason in the robot's words, when the check wrote one of its known forms.
    /// A person who holds the thing and is spoken to hears "you are holding ...".
    pub(super) fn robot_reason_in_words(&self, result: &str, listener: &str) -> Option<String> {
        let text = result.trim().trim_end_matches('.');
        if let Some(id) =
            text.strip_suffix(" cannot be grasped: it is too large for the robot's hands")
        {
            let thing = self.thing_named(id)?;
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
        let thing = self.thing_named(id)?;
        if let Some(person) = why.strip_suffix(" is holding it") {
            self.world.person_named(person)?;
            if person == listener {
                return Some(
                    self.speech
                        .say("action_reason.you_hold", &[("object", &thing)]),
                );
            }
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
        // One "blocked by ... on every side" per arm, joined by "; ": every blocker
        // once; an arm that is only out of reach adds nothing to say.
        let mut ids: Vec<&str> = Vec::new();
        for arm in why.split("; ") {
            if arm.starts_with("out of reach of the ") {
                continue;
            }
            let list = arm
                .strip_prefix("blocked by ")?
                .strip_suffix(" on every side")?;
            for id in list.split(", ").flat_map(|part| part.split(" and ")) {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        if ids.is_empty() {
            return Some(
                self.speech
                    .say("robot_reason.out_of_reach", &[("object", &thing)]),
            );
        }
        // A person sitting in the way blocks too, and is said by name.
        let things: Option<Vec<String>> = ids
            .iter()
            .map(|id| {
                self.thing_named(id)
                    .or_else(|| self.world.person_named(id).map(|_| id.to_string()))
            })
            .collect();
        let things = self.speech.and_list(&things?);
        Some(self.speech.say(
            "robot_reason.blocked",
            &[("object", &thing), ("things", &things)],
        ))
    }
}

/// Whether a failed hand-over found no point where the robot and the person could both hold it.
pub fn no_hand_over_point(result: &str) -> bool {
    result.contains("there is no hand-over point within")
}

impl super::RulesBrain {
    /// A failed action (the planner's text, English like every tool's) as a reason in the
    /// robot's language, with the table's things by their names, said to `listener`
    /// ("you" for them); any other text as it is, without a final stop.
    pub(super) fn action_reason(&self, result: &str, listener: &str) -> String {
        self.action_reason_in_words(result, listener)
            .unwrap_or_else(|| result.trim().trim_end_matches('.').to_string())
    }

    /// A thing of the table, by its name in the language; `None` for an id it lacks.
    fn thing_named(&self, id: &str) -> Option<String> {
        self.world.object_named(id).map(|_| self.speech.object(id))
    }

    /// A sentence about `person`: its `_you` form (without the person) when they are the
    /// one spoken to.
    fn about(&self, key: &str, person: &str, listener: &str, slots: &[(&str, &str)]) -> String {
        if person == listener {
            return self.speech.say(&format!("{key}_you"), slots);
        }
        let mut all = slots.to_vec();
        all.push(("person", person));
        self.speech.say(key, &all)
    }

    /// The reason in the robot's words, for the forms the planner writes
    /// (`twin::actions::feedback`).
    fn action_reason_in_words(&self, result: &str, listener: &str) -> Option<String> {
        let text = result.trim().trim_end_matches('.');
        if let Some(reason) = self.refusal_in_words(text, listener) {
            return Some(reason);
        }
        let say = |key: &str, slots: &[(&str, &str)]| Some(self.speech.say(key, slots));
        if let Some(rest) = text
            .split_once("every way to grasp it would hit ")
            .or_else(|| text.split_once("every way would hit "))
            .map(|(_, o)| o)
        {
            return self.in_the_way(rest, listener);
        }
        // "<P> cannot take it: there is no hand-over point ..."
        if let Some((person, why)) = text.split_once(" cannot take it: ") {
            self.world.person_named(person)?;
            return if why.ends_with("that my arm reaches") {
                say("action_reason.out_of_reach", &[])
            } else {
                let key = "action_reason.no_handover_point";
                Some(self.about(key, person, listener, &[]))
            };
        }
        if text.starts_with("There is no free spot on the table") {
            return say("action_reason.no_spot", &[]);
        }
        if text.contains(" is out of reach") || text.ends_with("is within my arm's reach") {
            return say("action_reason.out_of_reach", &[]);
        }
        let (head, clause) = text.split_once(": ")?;
        if clause == "the receiver has both hands full" {
            let person = head.rsplit_once(" to ")?.1;
            self.world.person_named(person)?;
            let key = "action_reason.hands_full";
            return Some(self.about(key, person, listener, &[]));
        }
        if clause.starts_with("joint ") {
            return say("action_reason.joint_limit", &[]);
        }
        if clause.contains(" arm cannot reach ") {
            return say("action_reason.out_of_reach", &[]);
        }
        // "the <part> would hit <obstacle>": a thing of the table, or the robot itself.
        let (_, obstacle) = clause.strip_prefix("the ")?.split_once(" would hit ")?;
        self.in_the_way(obstacle, listener)
            .or_else(|| say("action_reason.arms_in_the_way", &[]))
    }

    /// Why the action was refused before any planning (`twin::actions` checks the request
    /// against the table), in the robot's words.
    fn refusal_in_words<'t>(&self, text: &'t str, listener: &str) -> Option<String> {
        let person = |name: &'t str| self.world.person_named(name).map(|_| name);
        let say = |key: &str, slots: &[(&str, &str)]| Some(self.speech.say(key, slots));
        if let Some((head, _)) = text.split_once("; ask ") {
            if let Some((id, name)) = head.split_once(" is held by ") {
                let (thing, name) = (self.thing_named(id)?, person(name)?);
                if name == listener {
                    return say("action_reason.you_hold", &[("object", &thing)]);
                }
                return say(
                    "robot_reason.held_by",
                    &[("object", &thing), ("person", name)],
                );
            }
            let name = person(head.strip_suffix(" has both hands full")?)?;
            return Some(self.about("action_reason.hands_full", name, listener, &[]));
        }
        if let Some((head, _)) = text.split_once("; use an empty glass") {
            let (id, liquid) = head.split_once(" already holds ")?;
            let (thing, liquid) = (self.thing_named(id)?, self.speech.noun(liquid));
            return say(
                "action_reason.already_full",
                &[("object", &thing), ("liquid", &liquid)],
            );
        }
        if let Some((name, id)) = text.split_once(" already holds ") {
            let (name, thing) = (person(name)?, self.thing_named(id)?);
            let key = "action_reason.already_has";
            return Some(self.about(key, name, listener, &[("object", &thing)]));
        }
        let forms = [
            (" is already in my hand", "action_reason.already_in_hand"),
            (" is empty", "action_reason.empty"),
            (" is not a container", "action_reason.not_a_container"),
            (" cannot be poured from", "action_reason.cannot_pour_from"),
        ];
        forms.iter().find_map(|(suffix, key)| {
            let thing = self.thing_named(text.strip_suffix(suffix)?)?;
            say(key, &[("object", &thing)])
        })
    }

    /// "The box is in the way", for a thing or a person of the table, or the table.
    fn in_the_way(&self, obstacle: &str, listener: &str) -> Option<String> {
        let obstacle = obstacle.trim();
        if let Some(thing) = self.thing_named(obstacle) {
            return Some(
                self.speech
                    .say("action_reason.in_the_way", &[("object", &thing)]),
            );
        }
        if self.world.person_named(obstacle).is_some() {
            let key = "action_reason.person_in_the_way";
            return Some(self.about(key, obstacle, listener, &[]));
        }
        (obstacle == crate::twin::actions::simulate::TABLE)
            .then(|| self.speech.say("action_reason.table_in_the_way", &[]))
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
        let l =
            listing("Objects: large_cup (contains coffee with milk and cream), small_cup (empty).");
        assert_eq!(l[0].contains.as_deref(), Some("coffee"));
        assert_eq!(l[0].added, ["milk", "cream"]);
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
            en.robot_reason(&too_large, "All"),
            "the box is too large for my hands"
        );
        assert_eq!(
            de.robot_reason(&too_large, "All"),
            "der Karton ist zu groß für meine Hände"
        );
        assert_eq!(
            en.robot_reason(&held, "All"),
            "Daniel is holding the red glass"
        );
        assert_eq!(de.robot_reason(&held, "All"), "Daniel hält das rote Glas");
        assert_eq!(
            en.robot_reason(&held, "Daniel"),
            "you are holding the red glass"
        );
        assert_eq!(de.robot_reason(&held, "Daniel"), "du hältst das rote Glas");
        // Each arm blocked by its own neighbour: every blocker named once, no id spoken.
        let both = "the_robot cannot reach cola_bottle: blocked by fanta_bottle on every side; \
                    blocked by red_glass, fanta_bottle on every side.";
        assert_eq!(
            en.robot_reason(both, "All"),
            "the cola bottle is blocked on every side by the fanta bottle and the red glass"
        );
        // One arm blocked, the other out of reach: the blocker named, no id spoken.
        let one_arm = "the_robot cannot reach cola_bottle: blocked by fanta_bottle on every side; \
                       out of reach of the left arm.";
        assert_eq!(
            en.robot_reason(one_arm, "All"),
            "the cola bottle is blocked on every side by the fanta bottle"
        );
        // A person sitting in the way is a blocker said by name.
        let by_person = "the_robot cannot reach cola_bottle: blocked by fanta_bottle and Felix on \
                         every side; blocked by red_glass on every side.";
        assert_eq!(
            en.robot_reason(by_person, "All"),
            "the cola bottle is blocked on every side by the fanta bottle, Felix and the red glass"
        );
        // A text the check does not write stays as it is.
        assert_eq!(
            en.robot_reason("the arm is broken.", "All"),
            "the arm is broken"
        );
    }

    /// The planner's reasons, said in the robot's language with the table's names: every
    /// form `twin::actions::feedback` writes for a step that failed.
    #[test]
    fn action_failures_are_said_in_the_robots_language() {
        use crate::language::Language;
        use crate::twin::Twin;
        let twin = Twin::load("softdrinks").expect("scene");
        let english = Language::english().expect("English");
        let german =
            Language::load(&crate::paths::data_root().join("languages/de")).expect("German");
        let en = super::super::RulesBrain::new(&twin.world, &english);
        let de = super::super::RulesBrain::new(&twin.world, &german);
        let said = |brain: &super::super::RulesBrain, text: &str| brain.action_reason(text, "All");
        let cases = [
            (
                "I cannot hand red_glass to Felix: every way would hit box.",
                "the box is in the way",
                "der Karton ist im Weg",
            ),
            (
                "red_glass is blocked by fanta_bottle: every way to grasp it would hit fanta_bottle.",
                "the fanta bottle is in the way",
                "die Fanta-Flasche ist im Weg",
            ),
            (
                "I cannot hand red_glass to Felix: the left panda hand would hit the right panda link5 rib.",
                "my arms would get in each other's way",
                "meine Arme kämen sich in die Quere",
            ),
            (
                "I cannot put red_glass near Felix: the carried red_glass would hit Daniel.",
                "Daniel is in the way",
                "Daniel ist im Weg",
            ),
            (
                "Felix cannot take it: there is no hand-over point within Felix's reach.",
                "I find no place within Felix's reach where I could hand it over",
                "ich finde keine Stelle, an der Felix es mir abnehmen könnte",
            ),
            (
                "Felix cannot take it: there is no hand-over point within Felix's reach that my arm reaches.",
                "that is out of my arms' reach",
                "das ist außerhalb der Reichweite meiner Arme",
            ),
            (
                "I cannot hand red_glass to Felix: the receiver has both hands full.",
                "Felix has both hands full",
                "Felix hat beide Hände voll",
            ),
            (
                "There is no free spot on the table within Felix's reach for red_glass; ask someone to make room.",
                "there is no free spot on the table for it",
                "auf dem Tisch ist dafür kein Platz frei",
            ),
            (
                "I cannot pour from fanta_bottle into red_glass: joint 7 of the left arm would pass its limit.",
                "my arm cannot turn that far",
                "so weit kann sich mein Arm nicht drehen",
            ),
            (
                "red_glass is out of reach for pouring from fanta_bottle.",
                "that is out of my arms' reach",
                "das ist außerhalb der Reichweite meiner Arme",
            ),
            (
                "I cannot put red_glass back: every way would hit table.",
                "the table is in the way",
                "der Tisch ist im Weg",
            ),
        ];
        // Refused before any planning.
        let refusals = [
            (
                "red_glass is held by Felix; ask Felix to put it down.",
                "Felix is holding the red glass",
                "Felix hält das rote Glas",
            ),
            (
                "Felix has both hands full; ask Felix to put something down.",
                "Felix has both hands full",
                "Felix hat beide Hände voll",
            ),
            (
                "Felix already holds red_glass.",
                "Felix already has the red glass",
                "Felix hat das rote Glas schon",
            ),
            (
                "red_glass is already in my hand.",
                "I already have the red glass in my hand",
                "ich habe das rote Glas schon in der Hand",
            ),
            (
                "red_glass already holds cola; use an empty glass.",
                "there is already cola in the red glass",
                "in dem roten Glas ist schon Cola",
            ),
            (
                "fanta_bottle is empty.",
                "the fanta bottle is empty",
                "die Fanta-Flasche ist leer",
            ),
            (
                "box is not a container.",
                "I cannot pour into the box",
                "in den Karton kann ich nichts gießen",
            ),
        ];
        for (text, english, german) in cases.into_iter().chain(refusals) {
            assert_eq!(said(&en, text), english, "{text}");
            assert_eq!(said(&de, text), german, "{text}");
        }
        // Nothing the table lacks is named, and a text the planner does not write stays.
        let unknown = "I cannot hand red_glass to Felix: every way would hit the_moon.";
        assert_eq!(said(&en, unknown), unknown.trim_end_matches('.'));
        assert_eq!(
            en.action_reason("the arm is broken.", "All"),
            "the arm is broken"
        );
        // Said to the person the reason is about: "you".
        let to_felix = [
            (
                "I cannot put red_glass near Felix: the carried red_glass would hit Felix.",
                "you are in the way",
                "du bist im Weg",
            ),
            (
                "Felix has both hands full; ask Felix to put something down.",
                "you have both hands full",
                "du hast beide Hände voll",
            ),
            (
                "red_glass is held by Felix; ask Felix to put it down.",
                "you are holding the red glass",
                "du hältst das rote Glas",
            ),
            (
                "Felix already holds red_glass.",
                "you already have the red glass",
                "du hast das rote Glas schon",
            ),
            (
                "Felix cannot take it: there is no hand-over point within Felix's reach.",
                "I find no place within your reach where I could hand it over",
                "ich finde keine Stelle, an der du es mir abnehmen könntest",
            ),
        ];
        for (text, english, german) in to_felix {
            assert_eq!(en.action_reason(text, "Felix"), english, "{text}");
            assert_eq!(de.action_reason(text, "Felix"), german, "{text}");
        }
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

    #[test]
    fn what_the_robot_moves_aside_first_is_read_from_its_check() {
        let check = "the_robot can reach red_glass with its left arm once it has moved \
                     cola_bottle, blue_glass and fanta_bottle aside.";
        assert_eq!(
            Hindrance::moved_aside_first(check),
            ["cola_bottle", "blue_glass", "fanta_bottle"]
        );
        assert_eq!(
            Hindrance::from_robot_check(check).object.as_deref(),
            Some("red_glass")
        );
        let direct = "the_robot can reach red_glass with its left arm.";
        assert!(Hindrance::moved_aside_first(direct).is_empty());
    }
}
