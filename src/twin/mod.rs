//! The digital twin: world model, geometry, human queries, robot kinematics,
//! action simulation and execution.

pub mod actions;
pub mod geometry;
pub mod grounding;
pub mod hindrance;
pub mod kinds;
pub mod kinematics;
pub mod layouts;
pub mod liquids;
pub mod planner_bench;
pub mod robot_reach;
pub mod scene;
pub mod vocabulary;
pub mod whereabouts;
pub mod world;

pub use world::{Hand, ObjectId, PersonId, World};

/// The twin as the agent uses it: the world now, the world it started from,
/// and the robot's kinematics.
#[derive(Debug, Clone)]
pub struct Twin {
    /// The current state.
    pub world: World,
    initial: World,
    /// The robot placed at the scene's robot position, or why its description failed to load.
    pub robot: Result<std::sync::Arc<kinematics::Robot>, String>,
    /// Current joints of the (left, right) arm.
    pub joints: [kinematics::Joints; 2],
    /// The arm to try first for the next action's grasp (learned from the real
    /// robot's failures); when it finds no plan, every arm is tried as usual.
    pub preferred_arm: Option<kinematics::Side>,
    /// The object in the robot's hand and how it is held, when an action
    /// stopped before letting go of it; the next plan starts from there.
    pub holding: Option<actions::simulate::Holding>,
}

impl Twin {
    /// Loads a scene by name or path.
    pub fn load(scene_spec: &str) -> Result<Self, scene::SceneError> {
        Ok(Self::from_world(scene::load(scene_spec)?))
    }

    /// A twin starting from this world.
    pub fn from_world(world: World) -> Self {
        let robot = Self::place_robot(&world);
        let joints = match &robot {
            Ok(r) => [
                r.home(kinematics::Side::Left),
                r.home(kinematics::Side::Right),
            ],
            Err(_) => [kinematics::Joints::default(); 2],
        };
        Self {
            initial: world.clone(),
            world,
            robot,
            joints,
            preferred_arm: None,
            holding: None,
        }
    }

    /// Loads the world's robot description (by name under `scenes/robots/`, or a path) and
    /// places it; an error is kept as a sentence so that queries still work without a robot.
    fn place_robot(world: &World) -> Result<std::sync::Arc<kinematics::Robot>, String> {
        let path = crate::paths::resolve(&world.robot.description, "scenes/robots", "toml");
        let description = kinematics::RobotDescription::load(&path).map_err(|e| e.to_string())?;
        let placement = kinematics::world_from_robot(
            world.robot.position.x,
            world.robot.position.y,
            world.robot.yaw,
        );
        Ok(std::sync::Arc::new(kinematics::Robot::new(
            &description,
            placement,
        )))
    }

    /// Back to the state the twin was loaded in (arms at home).
    pub fn reset(&mut self) {
        self.world = self.initial.clone();
        self.holding = None;
        if let Ok(r) = &self.robot {
            self.joints = [
                r.home(kinematics::Side::Left),
                r.home(kinematics::Side::Right),
            ];
        }
    }

    /// The `state` event of the contract.
    pub fn state_event(&self) -> crate::events::Event {
        use crate::events::{Event, ObjectState, PersonState};
        let world = &self.world;
        let objects = world
            .object_ids()
            .map(|id| {
                let object = world.object(id);
                let held_by = match object.placement {
                    world::Placement::HeldBy { person, .. } => {
                        Some(world.person(person).name.clone())
                    }
                    world::Placement::InGripper { .. } => Some(world.robot.name.clone()),
                    world::Placement::OnTable { .. } => None,
                };
                let reachable_by = robot_reach::arms(world, id)
                    .iter()
                    .filter(|a| a.reachable && held_by.is_none())
                    .map(|a| format!("{}_arm", a.arm.as_str()))
                    .collect();
                let base = world.object_base(id);
                (
                    object.name.clone(),
                    ObjectState {
                        position: [base.x, base.y, base.z],
                        held_by,
                        contains: object.contains.clone(),
                        added: object.added.clone(),
                        reachable_by,
                    },
                )
            })
            .collect();
        let persons = world
            .person_ids()
            .map(|id| {
                (
                    world.person(id).name.clone(),
                    PersonState {
                        holding: world
                            .held_by(id)
                            .into_iter()
                            .map(|(o, _)| world.object(o).name.clone())
                            .collect(),
                        busy: world.is_busy(id),
                    },
                )
            })
            .collect();
        Event::State { objects, persons }
    }
}
