//! The query tools of Table I: short plain English for the LLM, facts for tests.

use serde_json::{json, Value};

use super::args::{or_list, Args};
use super::ToolOutcome;
use crate::twin::hindrance;
use crate::twin::robot_reach;
use crate::twin::world::Placement;
use crate::twin::{ObjectId, PersonId, World};

/// How an object is named in tool texts.
pub fn object_word(world: &World, id: ObjectId) -> &str {
    &world.object(id).name
}

/// How a person is named in tool texts.
pub fn person_word(world: &World, id: PersonId) -> &str {
    &world.person(id).name
}

fn names(world: &World, ids: &[ObjectId]) -> Vec<String> {
    ids.iter()
        .map(|id| world.object(*id).name.clone())
        .collect()
}

/// `get_objects`: every object, with what it holds and who holds it.
pub fn get_objects(world: &World) -> ToolOutcome {
    let mut described = Vec::new();
    let mut facts = Vec::new();
    for id in world.object_ids() {
        let object = world.object(id);
        let mut notes = Vec::new();
        if let Some(liquid) = object.contents() {
            notes.push(format!("contains {liquid}"));
        } else if object.kind.container && object.kind.drinking_vessel {
            notes.push("empty".to_string());
        }
        let holder = match object.placement {
            Placement::HeldBy { person, .. } => Some(world.person(person).name.clone()),
            Placement::InGripper { .. } => Some(world.robot.name.clone()),
            Placement::OnTable { .. } => None,
        };
        if let Some(h) = &holder {
            notes.push(format!("held by {h}"));
        }
        described.push(if notes.is_empty() {
            object.name.clone()
        } else {
            format!("{} ({})", object.name, notes.join(", "))
        });
        facts.push(json!({
            "name": object.name,
            "kind": object.kind.name,
            "contains": object.contains,
            "added": object.added,
            "held_by": holder,
            "properties": object.properties,
        }));
    }
    ToolOutcome::ok(
        format!("Objects: {}.", described.join(", ")),
        json!({ "objects": facts }),
    )
}

/// `get_persons`: every person.
pub fn get_persons(world: &World) -> ToolOutcome {
    let names: Vec<&str> = world.persons().iter().map(|p| p.name.as_str()).collect();
    ToolOutcome::ok(
        format!("Persons: {}.", names.join(", ")),
        json!({ "persons": names }),
    )
}

fn busy_sentence(world: &World, person: PersonId, busy: bool, holding: &[ObjectId]) -> String {
    let name = person_word(world, person);
    match (busy, holding.is_empty()) {
        (false, _) => format!("{name} is idle."),
        (true, false) => format!(
            "{name} is busy: {name} is holding {}.",
            names(world, holding).join(" and ")
        ),
        (true, true) => format!("{name} is busy."),
    }
}

/// `is_person_busy_or_idle`.
pub fn is_person_busy_or_idle(world: &World, args: &Args) -> ToolOutcome {
    let person = match args.person(world, "person_name") {
        Ok(p) => p,
        Err(text) => return ToolOutcome::failed(text, json!({"error": "person"})),
    };
    let found = hindrance::check(world, person, None);
    ToolOutcome::ok(
        busy_sentence(world, person, found.busy, &found.holding),
        json!({
            "person": person_word(world, person),
            "busy": found.busy,
            "holding": names(world, &found.holding),
        }),
    )
}

/// `check_hindering_reasons`: busy, sees, reaches.
pub fn check_hindering_reasons(world: &World, args: &Args) -> ToolOutcome {
    let person = match args.person(world, "person_name") {
        Ok(p) => p,
        Err(text) => return ToolOutcome::failed(text, json!({"error": "person"})),
    };
    let object = match args.object(world, "object_name") {
        Ok(o) => o,
        Err(text) => return ToolOutcome::failed(text, json!({"error": "object"})),
    };
    let found = hindrance::check(world, person, Some(object));
    let name = person_word(world, person);
    let thing = object_word(world, object);
    let mut sentences = vec![busy_sentence(world, person, found.busy, &found.holding)];
    let sight = found.sight.clone().unwrap_or_default();
    if sight.visible {
        sentences.push(format!("{name} can see {thing}."));
    } else {
        sentences.push(format!(
            "{name} cannot see {thing}: it is hidden behind {}.",
            names(world, &sight.occluded_by).join(" and ")
        ));
    }
    let reach = found.reach;
    match reach {
        Some(r) if r.reachable => sentences.push(format!("{name} can reach {thing}.")),
        Some(r) if r.held_by_other => {
            let holder = world
                .holder(object)
                .map(|h| person_word(world, h).to_string())
                .unwrap_or_default();
            sentences.push(format!(
                "{name} cannot reach {thing}: {holder} is holding it."
            ));
        }
        Some(r) => sentences.push(format!(
            "{name} cannot reach {thing}: it is {:.2} m beyond {name}'s reach.",
            r.distance - r.arm_reach
        )),
        None => {}
    }
    let reasons: Vec<&str> = [
        found.busy.then_some("busy"),
        (!sight.visible).then_some("cannot see"),
        reach
            .is_some_and(|r| !r.reachable)
            .then_some("cannot reach"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if reasons.is_empty() {
        sentences.push(format!("Nothing hinders {name}."));
    } else {
        sentences.push(format!("{name} is hindered ({}).", reasons.join(", ")));
    }
    let facts: Value = json!({
        "person": name,
        "object": thing,
        "busy": found.busy,
        "holding": names(world, &found.holding),
        "visible": sight.visible,
        "occluded_by": names(world, &sight.occluded_by),
        "partially_occluded_by": names(world, &sight.partially_occluded_by),
        "reachable": reach.is_some_and(|r| r.reachable),
        "reach_distance_m": reach.map(|r| if r.distance.is_finite() { Some(r.distance) } else { None }),
        "arm_reach_m": reach.map(|r| r.arm_reach),
        "hindered": found.hindered(),
    });
    ToolOutcome::ok(sentences.join(" "), facts)
}

/// `check_reach_object_for_robot`: which arms reach the object.
pub fn check_reach_object_for_robot(world: &World, args: &Args) -> ToolOutcome {
    let object = match args.object(world, "object_name") {
        Ok(o) => o,
        Err(text) => return ToolOutcome::failed(text, json!({"error": "object"})),
    };
    let robot = &world.robot.name;
    let thing = object_word(world, object);
    let arms = robot_reach::arms(world, object);
    let reaching: Vec<&str> = arms
        .iter()
        .filter(|a| a.reachable)
        .map(|a| a.arm.as_str())
        .collect();
    let text = if let Some(holder) = world.holder(object) {
        format!(
            "{robot} cannot take {thing} from the table: {} is holding it.",
            person_word(world, holder)
        )
    } else if reaching.is_empty() {
        format!("{robot} cannot reach {thing}: it is out of reach of both arms.")
    } else {
        format!(
            "{robot} can reach {thing} with its {} arm.",
            or_list(reaching.iter().copied())
        )
    };
    ToolOutcome::ok(
        text,
        json!({
            "object": thing,
            "reachable": !reaching.is_empty() && world.holder(object).is_none(),
            "arms": reaching,
            "method": "workspace",
        }),
    )
}

/// `check_reach_object_for_robot` from inverse kinematics: every grasp variant
/// of each arm is simulated on the twin (approach, grasp, lift).
pub fn check_reach_object_for_robot_ik(twin: &crate::twin::Twin, args: &Args) -> ToolOutcome {
    let world = &twin.world;
    let object = match args.object(world, "object_name") {
        Ok(o) => o,
        Err(text) => return ToolOutcome::failed(text, json!({"error": "object"})),
    };
    let robot = &world.robot.name;
    let thing = object_word(world, object);
    let arms = crate::twin::actions::arms_reaching(twin, object);
    let reaching: Vec<&str> = arms
        .iter()
        .filter(|(_, ok, _)| *ok)
        .map(|(h, _, _)| h.as_str())
        .collect();
    let reasons: Vec<&str> = arms
        .iter()
        .filter(|(_, ok, _)| !*ok)
        .map(|(_, _, why)| why.as_str())
        .filter(|why| !why.is_empty())
        .collect();
    // Things standing round it on every side: moved aside first, it may be reachable.
    let blocked = reaching.is_empty() && reasons.iter().any(|r| r.starts_with("blocked by"));
    let cleared = blocked
        .then(|| crate::twin::actions::reachable_once_cleared(twin, object))
        .flatten()
        .map(|(hand, moved)| {
            let moved: Vec<&str> = moved.iter().map(|&o| object_word(world, o)).collect();
            (hand, moved)
        });
    let text = if !reaching.is_empty() {
        format!(
            "{robot} can reach {thing} with its {} arm.",
            or_list(reaching.iter().copied())
        )
    } else if let Some((hand, moved)) = &cleared {
        format!(
            "{robot} can reach {thing} with its {} arm once it has moved {} aside.",
            hand.as_str(),
            crate::twin::actions::and_list(moved.iter().copied())
        )
    } else if let Some(holder) = world.holder(object) {
        format!(
            "{robot} cannot take {thing}: {} is holding it.",
            person_word(world, holder)
        )
    } else if reasons.iter().all(|r| r.starts_with("out of reach")) {
        format!("{robot} cannot reach {thing}: it is out of reach of both arms.")
    } else {
        let mut unique: Vec<&str> = reasons.iter().map(|r| r.trim_end_matches('.')).collect();
        unique.dedup();
        match unique.as_slice() {
            // A whole sentence about the object ("box cannot be grasped: ...") says it all.
            [one] if one.starts_with(thing) => format!("{one}."),
            _ => format!("{robot} cannot reach {thing}: {}.", unique.join("; ")),
        }
    };
    ToolOutcome::ok(
        text,
        json!({
            "object": thing,
            "reachable": !reaching.is_empty() || cleared.is_some(),
            "arms": reaching,
            "reasons": reasons,
            "moved_aside_first": cleared.as_ref().map(|(_, moved)| moved),
            "method": "inverse_kinematics",
        }),
    )
}
