//! Refills: "Gieß mir nach", "top me up": the drink already in the person's
//! glass, poured into that glass.

use super::facts::Listed;
use super::RulesBrain;
use crate::twin::whereabouts::{self, Whereabouts};
use crate::understanding::ObjectMention;

impl RulesBrain {
    /// Whether `name` stands by `person` (at their place, nearer them than anyone).
    pub(super) fn by_the_person(&self, person: &str, name: &str) -> bool {
        let world = &self.world;
        let Some(them) = world.person_named(person) else {
            return false;
        };
        world
            .object_named(name)
            .and_then(|id| whereabouts::of(world, id))
            == Some(Whereabouts::By(them))
    }

    /// The person's glass holding `drink` (any drink when `None`): the one they
    /// hold, else the nearest one nobody holds of which they are the nearest person.
    pub(super) fn glass_of(
        &self,
        person: &str,
        listed: &[Listed],
        drink: Option<&str>,
    ) -> Option<String> {
        let world = &self.world;
        let holds = |o: &Listed| {
            self.is_vessel(&o.name)
                && o.contains.is_some()
                && drink.is_none_or(|d| o.contains.as_deref() == Some(d))
        };
        if let Some(held) = listed
            .iter()
            .find(|o| holds(o) && o.held_by.as_deref() == Some(person))
        {
            return Some(held.name.clone());
        }
        let them = world.person_named(person)?;
        let at = world.person(them).position;
        let distance = |name: &str| {
            world.object_named(name).map_or(f32::INFINITY, |id| {
                world.object_base(id).truncate().distance(at)
            })
        };
        listed
            .iter()
            .filter(|o| holds(o) && o.held_by.is_none() && self.by_the_person(person, &o.name))
            .min_by(|a, b| distance(&a.name).total_cmp(&distance(&b.name)))
            .map(|o| o.name.clone())
    }

    /// A refill named no drink: the bottle or pot holding what is in the
    /// person's glass (the glass named, else theirs).
    pub(super) fn refill(
        &self,
        target: Option<&str>,
        listed: &[Listed],
        person: &str,
    ) -> Option<ObjectMention> {
        let glass = match target {
            Some(named) => named.to_string(),
            None => self.glass_of(person, listed, None)?,
        };
        let drink = listed.iter().find(|o| o.name == glass)?.contains.clone()?;
        let source = listed
            .iter()
            .find(|o| !self.is_vessel(&o.name) && o.contains.as_deref() == Some(drink.as_str()))?;
        Some(ObjectMention::only(drink, &source.name))
    }
}
