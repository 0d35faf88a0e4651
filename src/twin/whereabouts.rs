//! Where a thing is for the people at the table: in someone's hand, or by
//! someone (within their reach, or nearer them than anyone else). A claim
//! such as "the milk is right here by me" is checked with it.

use super::hindrance;
use super::world::{ObjectId, PersonId, World};

/// Where an object is, as people at the table speak of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whereabouts {
    /// In this person's hand.
    HeldBy(PersonId),
    /// On the table, nearest this person.
    By(PersonId),
}

/// Where `object` is: its holder, else the person nearest it.
pub fn of(world: &World, object: ObjectId) -> Option<Whereabouts> {
    if let Some(holder) = world.holder(object) {
        return Some(Whereabouts::HeldBy(holder));
    }
    let at = world.object_base(object).truncate();
    world
        .person_ids()
        .min_by(|a, b| {
            let (a, b) = (world.person(*a).position, world.person(*b).position);
            a.distance(at).total_cmp(&b.distance(at))
        })
        .map(Whereabouts::By)
}

/// Whether `object` is by `person`: in their hand, or on the table within
/// their reach or nearer them than anyone else; `Err` says where it is instead.
pub fn is_by(world: &World, person: PersonId, object: ObjectId) -> Result<(), Whereabouts> {
    match of(world, object) {
        Some(Whereabouts::HeldBy(holder)) if holder == person => Ok(()),
        Some(held @ Whereabouts::HeldBy(_)) => Err(held),
        Some(Whereabouts::By(nearest)) if nearest == person => Ok(()),
        Some(_) if hindrance::reaches(world, person, object).reachable => Ok(()),
        Some(by) => Err(by),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::twin::scene;

    #[test]
    fn a_thing_is_by_whoever_holds_it_or_sits_nearest() {
        let mut world = scene::load("softdrinks").expect("softdrinks");
        let felix = world.person_named("Felix").expect("Felix");
        let daniel = world.person_named("Daniel").expect("Daniel");
        let cola = world.object_named("cola_bottle").expect("cola");
        let zero = world.object_named("cola_zero_bottle").expect("zero");
        assert_eq!(is_by(&world, felix, cola), Ok(()));
        assert_eq!(is_by(&world, daniel, zero), Ok(()));
        assert_eq!(is_by(&world, daniel, cola), Err(Whereabouts::By(felix)));
        world.make_busy_with(felix, zero).expect("a free hand");
        assert_eq!(is_by(&world, daniel, zero), Err(Whereabouts::HeldBy(felix)));
        assert_eq!(is_by(&world, felix, zero), Ok(()));
    }
}
