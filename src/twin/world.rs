//! The world model: table, robot placement, people and objects, and the state
//! that actions change (positions, who holds what, contents).
//!
//! Frame (DESIGN.md): metres, right-handed, origin on the floor under the
//! table's centre, x along the table away from the robot, z up.

use glam::{Vec2, Vec3};

use super::kinds::{GraspType, Kind, ShapeTemplate};

/// Index of a person in the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PersonId(pub usize);

/// Index of an object in the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub usize);

/// One of a person's or the robot's two hands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hand {
    /// The right hand.
    Right,
    /// The left hand.
    Left,
}

impl Hand {
    /// The word used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Hand::Right => "right",
            Hand::Left => "left",
        }
    }
}

/// The table: a rectangle centred on the origin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Table {
    /// Size along x and y, metres.
    pub size: Vec2,
    /// Height of the top above the floor, metres.
    pub height: f32,
}

impl Table {
    /// Whether a floor point lies within the table's rectangle, shrunk by `margin`.
    pub fn contains(&self, point: Vec2, margin: f32) -> bool {
        let half = 0.5 * self.size - Vec2::splat(margin);
        point.x.abs() <= half.x && point.y.abs() <= half.y
    }

    /// Distance from a floor point to the table's rectangle (0 inside).
    pub fn distance_to(&self, point: Vec2) -> f32 {
        let half = 0.5 * self.size;
        let outside = (point.abs() - half).max(Vec2::ZERO);
        outside.length()
    }
}

/// Where the robot stands and which description it uses.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotPlacement {
    /// The robot's name in dialogue, e.g. `the_robot`.
    pub name: String,
    /// Floor point of the robot's base.
    pub position: Vec2,
    /// Facing direction, radians from +x (0: faces +x).
    pub yaw: f32,
    /// Name of the robot description under `scenes/robots/`.
    pub description: String,
}

/// Body measures of a person (seated defaults from DESIGN.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    /// Eyes above the floor.
    pub eye_height: f32,
    /// Shoulders above the floor.
    pub shoulder_height: f32,
    /// Distance between the shoulders.
    pub shoulder_width: f32,
    /// Arm reach measured from either shoulder.
    pub arm_reach: f32,
}

impl Default for Body {
    fn default() -> Self {
        Self {
            eye_height: 1.20,
            shoulder_height: 1.05,
            shoulder_width: 0.40,
            arm_reach: 0.65,
        }
    }
}

/// Radius of a seated person's torso, for the "person inside the table" check.
pub const TORSO_RADIUS: f32 = 0.15;
/// How far in front of the torso people hold things.
const HOLD_FORWARD: f32 = 0.32;
/// How far to the side of the body centre each hand holds.
const HOLD_SIDEWAYS: f32 = 0.15;
/// How high above the table top a held object's grasp point is.
const HOLD_ABOVE_TABLE: f32 = 0.12;

/// A person at the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Person {
    /// The person's name.
    pub name: String,
    /// Floor point under the torso.
    pub position: Vec2,
    /// Facing direction, radians from +x.
    pub yaw: f32,
    /// Body measures.
    pub body: Body,
    /// Busy for a reason other than holding something (e.g. on a call).
    pub busy_flag: bool,
}

impl Person {
    /// Unit vector the person faces, on the floor plane.
    pub fn facing(&self) -> Vec2 {
        Vec2::new(self.yaw.cos(), self.yaw.sin())
    }

    /// Unit vector to the person's right, on the floor plane.
    pub fn right(&self) -> Vec2 {
        let f = self.facing();
        Vec2::new(f.y, -f.x)
    }

    /// The eyes, in world.
    pub fn eyes(&self) -> Vec3 {
        self.position.extend(self.body.eye_height)
    }

    /// Both shoulders, in world (right, left).
    pub fn shoulders(&self) -> [Vec3; 2] {
        let half = 0.5 * self.body.shoulder_width * self.right();
        [
            (self.position + half).extend(self.body.shoulder_height),
            (self.position - half).extend(self.body.shoulder_height),
        ]
    }

    /// Where the grasp point of an object held in `hand` is, in world.
    pub fn hold_point(&self, hand: Hand, table_height: f32) -> Vec3 {
        let side = match hand {
            Hand::Right => 1.0,
            Hand::Left => -1.0,
        };
        let xy = self.position + HOLD_FORWARD * self.facing() + side * HOLD_SIDEWAYS * self.right();
        xy.extend(table_height + HOLD_ABOVE_TABLE)
    }
}

/// Where an object is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Placement {
    /// Standing on the table top at a floor point, turned by `yaw` radians.
    OnTable { position: Vec2, yaw: f32 },
    /// In a person's hand.
    HeldBy { person: PersonId, hand: Hand },
    /// In one of the robot's hands, its base at `base` (set by execution).
    InGripper { hand: Hand, base: Vec3 },
}

/// An object in the scene.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// The object's unique name, e.g. `red_glass`.
    pub name: String,
    /// The kind it was made from (already with the scene's overrides).
    pub kind: Kind,
    /// Where it is.
    pub placement: Placement,
    /// The liquid it holds, if a container with something in it.
    pub contains: Option<String>,
    /// What was added to that liquid ("milk" in coffee, `scenes/liquids.toml`).
    pub added: Vec<String>,
    /// Words describing it ("red", "sugar-free"), for grounding and the rules brain.
    pub properties: Vec<String>,
    /// Someone has drunk from it or it has held a drink that is now gone.
    pub used: bool,
}

impl Object {
    /// What it holds in words: "coffee", "coffee with milk"; `None` when empty.
    pub fn contents(&self) -> Option<String> {
        let drink = self.contains.as_ref()?;
        Some(match self.added.as_slice() {
            [] => drink.clone(),
            added => format!("{drink} with {}", added.join(" and ")),
        })
    }

    /// Whether a drink is poured into it: a drinking vessel, or an empty
    /// container set out to be filled (a beaker at a lab bench).
    pub fn receives_a_drink(&self) -> bool {
        self.kind.drinking_vessel || (self.kind.container && self.contains.is_none())
    }

    /// Whether it holds `liquid`, as its drink or added to it.
    pub fn holds(&self, liquid: &str) -> bool {
        self.contains.as_deref() == Some(liquid) || self.added.iter().any(|a| a == liquid)
    }

    /// Shape and size.
    pub fn shape(&self) -> ShapeTemplate {
        self.kind.shape
    }

    /// Whether a hand can take it at all.
    pub fn graspable(&self) -> bool {
        !self.kind.grasps.is_empty()
    }

    /// Whether it allows a grasp of this type.
    pub fn allows(&self, grasp: GraspType) -> bool {
        self.kind.grasps.contains(&grasp)
    }
}

/// The whole twin state.
#[derive(Debug, Clone, PartialEq)]
pub struct World {
    /// Scene name.
    pub name: String,
    /// The table.
    pub table: Table,
    /// The robot's placement.
    pub robot: RobotPlacement,
    persons: Vec<Person>,
    objects: Vec<Object>,
}

/// Why a state change was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StateError {
    /// The person already uses both hands.
    #[error("{person} has both hands full")]
    HandsFull { person: String },
    /// The object is not where the change expects it.
    #[error("{object} is held by {holder}")]
    HeldByOther { object: String, holder: String },
}

impl World {
    /// Builds a world from validated parts (see `scene::load`).
    pub(crate) fn from_parts(
        name: String,
        table: Table,
        robot: RobotPlacement,
        persons: Vec<Person>,
        objects: Vec<Object>,
    ) -> Self {
        Self {
            name,
            table,
            robot,
            persons,
            objects,
        }
    }

    /// All people.
    pub fn persons(&self) -> &[Person] {
        &self.persons
    }

    /// All persons, to update from perception.
    pub fn persons_mut(&mut self) -> &mut [Person] {
        &mut self.persons
    }

    /// All objects.
    pub fn objects(&self) -> &[Object] {
        &self.objects
    }

    /// One person.
    pub fn person(&self, id: PersonId) -> &Person {
        &self.persons[id.0]
    }

    /// One object.
    pub fn object(&self, id: ObjectId) -> &Object {
        &self.objects[id.0]
    }

    /// Mutable access to one object, for execution.
    pub fn object_mut(&mut self, id: ObjectId) -> &mut Object {
        &mut self.objects[id.0]
    }

    /// Ids of all people.
    pub fn person_ids(&self) -> impl Iterator<Item = PersonId> {
        (0..self.persons.len()).map(PersonId)
    }

    /// Ids of all objects.
    pub fn object_ids(&self) -> impl Iterator<Item = ObjectId> {
        (0..self.objects.len()).map(ObjectId)
    }

    /// The person with exactly this name.
    pub fn person_named(&self, name: &str) -> Option<PersonId> {
        self.persons
            .iter()
            .position(|p| p.name == name)
            .map(PersonId)
    }

    /// The object with exactly this name.
    pub fn object_named(&self, name: &str) -> Option<ObjectId> {
        self.objects
            .iter()
            .position(|o| o.name == name)
            .map(ObjectId)
    }

    /// What a person holds, in hand order (right first).
    pub fn held_by(&self, person: PersonId) -> Vec<(ObjectId, Hand)> {
        let mut held: Vec<(ObjectId, Hand)> = self
            .object_ids()
            .filter_map(|id| match self.object(id).placement {
                Placement::HeldBy { person: p, hand } if p == person => Some((id, hand)),
                _ => None,
            })
            .collect();
        held.sort_by_key(|(_, hand)| *hand == Hand::Left);
        held
    }

    /// Whether the person is busy: holding something, or flagged busy.
    pub fn is_busy(&self, person: PersonId) -> bool {
        self.person(person).busy_flag || !self.held_by(person).is_empty()
    }

    /// The person's free hand, if any (right preferred).
    pub fn free_hand(&self, person: PersonId) -> Option<Hand> {
        let used: Vec<Hand> = self.held_by(person).into_iter().map(|(_, h)| h).collect();
        [Hand::Right, Hand::Left]
            .into_iter()
            .find(|h| !used.contains(h))
    }

    /// Position of an object's base centre in world.
    pub fn object_base(&self, id: ObjectId) -> Vec3 {
        let object = self.object(id);
        match object.placement {
            Placement::OnTable { position, .. } => position.extend(self.table.height),
            Placement::HeldBy { person, hand } => {
                let grasp = self.person(person).hold_point(hand, self.table.height);
                grasp - Vec3::Z * object.kind.grasp_height
            }
            Placement::InGripper { base, .. } => base,
        }
    }

    /// Yaw of an object about z, radians (held objects keep the holder's facing).
    pub fn object_yaw(&self, id: ObjectId) -> f32 {
        match self.object(id).placement {
            Placement::OnTable { yaw, .. } => yaw,
            Placement::HeldBy { person, .. } => self.person(person).yaw,
            Placement::InGripper { .. } => 0.0,
        }
    }

    /// Centre of the object's solid in world.
    pub fn object_centre(&self, id: ObjectId) -> Vec3 {
        self.object_base(id) + Vec3::Z * (0.5 * self.object(id).shape().height())
    }

    /// Centre of the object's top face in world.
    pub fn object_top(&self, id: ObjectId) -> Vec3 {
        self.object_base(id) + Vec3::Z * self.object(id).shape().height()
    }

    /// Who holds the object, if a person does.
    pub fn holder(&self, id: ObjectId) -> Option<PersonId> {
        match self.object(id).placement {
            Placement::HeldBy { person, .. } => Some(person),
            _ => None,
        }
    }

    /// Puts an object into a person's free hand.
    pub fn give_to_person(
        &mut self,
        object: ObjectId,
        person: PersonId,
    ) -> Result<Hand, StateError> {
        if let Some(holder) = self.holder(object) {
            if holder == person {
                if let Placement::HeldBy { hand, .. } = self.object(object).placement {
                    return Ok(hand);
                }
            }
            return Err(StateError::HeldByOther {
                object: self.object(object).name.clone(),
                holder: self.person(holder).name.clone(),
            });
        }
        let hand = self
            .free_hand(person)
            .ok_or_else(|| StateError::HandsFull {
                person: self.person(person).name.clone(),
            })?;
        self.objects[object.0].placement = Placement::HeldBy { person, hand };
        Ok(hand)
    }

    /// Puts an object down on the table at a floor point.
    pub fn place_on_table(&mut self, object: ObjectId, position: Vec2) {
        let yaw = self.object_yaw(object);
        self.objects[object.0].placement = Placement::OnTable { position, yaw };
    }

    /// Puts an object down on the table at a floor point, turned by `yaw` radians.
    pub fn place_on_table_turned(&mut self, object: ObjectId, position: Vec2, yaw: f32) {
        self.objects[object.0].placement = Placement::OnTable { position, yaw };
    }

    /// Makes a person busy holding an object (the REPL's `:busy`): the object
    /// moves into a free hand.
    pub fn make_busy_with(
        &mut self,
        person: PersonId,
        object: ObjectId,
    ) -> Result<Hand, StateError> {
        self.give_to_person(object, person)
    }

    /// Frees a person's hands: held objects are put down on the table in front
    /// of them (the REPL's `:free`).
    pub fn free_person(&mut self, person: PersonId) -> Vec<ObjectId> {
        let held = self.held_by(person);
        for (object, hand) in &held {
            let p = self.person(person);
            let side = match hand {
                Hand::Right => 1.0,
                Hand::Left => -1.0,
            };
            // Put it down just inside the table edge in front of the person.
            let mut spot = p.position + 0.32 * p.facing() + side * 0.12 * p.right();
            let half = 0.5 * self.table.size - Vec2::splat(0.06);
            spot = spot.clamp(-half, half);
            self.place_on_table(*object, spot);
        }
        self.persons[person.0].busy_flag = false;
        held.into_iter().map(|(id, _)| id).collect()
    }

    /// Sets the liquid an object holds (and nothing added to it).
    pub fn fill(&mut self, object: ObjectId, liquid: Option<String>) {
        let o = &mut self.objects[object.0];
        o.contains = liquid;
        o.added.clear();
    }

    /// Adds `liquid` to the drink an object holds ("milk" to coffee); the
    /// same drink again only tops it up.
    pub fn add(&mut self, object: ObjectId, liquid: &str) {
        let o = &mut self.objects[object.0];
        match &o.contains {
            None => o.contains = Some(liquid.to_string()),
            Some(drink) if drink == liquid => {}
            Some(_) if o.added.iter().any(|a| a == liquid) => {}
            Some(_) => o.added.push(liquid.to_string()),
        }
    }
}
