//! Solids of the twin as parry3d shapes: rays, distances and overlaps against
//! the actual shapes of objects, not their centres.

use std::f32::consts::FRAC_PI_2;

use glam::{Quat, Vec3};
use parry3d::math::Pose;
use parry3d::query::{PointQuery, Ray, RayCast};
use parry3d::shape::{Cuboid, Cylinder, Shape};

use super::kinds::ShapeTemplate;
use super::world::{ObjectId, World};

/// Thickness of the horizontal slice that stands for where a hand closes on an object.
pub const GRASP_SLICE_HALF_HEIGHT: f32 = 0.005;

/// A shape placed in the world.
#[derive(Debug, Clone, Copy)]
pub struct Solid {
    shape: SolidShape,
    /// Pose of the shape's centre in world.
    pub world_from_solid: Pose,
}

#[derive(Debug, Clone, Copy)]
enum SolidShape {
    Cylinder(Cylinder),
    Cuboid(Cuboid),
}

impl Solid {
    /// A solid of the given template whose base centre is at `base`, turned by `yaw`.
    pub fn from_template(template: ShapeTemplate, base: Vec3, yaw: f32) -> Self {
        Self::slab(template, base, yaw, 0.0, template.height())
    }

    /// The part of a template between heights `from` and `to` above its base.
    fn slab(template: ShapeTemplate, base: Vec3, yaw: f32, from: f32, to: f32) -> Self {
        let half_height = 0.5 * (to - from);
        let centre = base + Vec3::Z * (from + half_height);
        let yaw_rotation = Quat::from_rotation_z(yaw);
        match template {
            ShapeTemplate::Cylinder { radius, .. } => Self {
                shape: SolidShape::Cylinder(Cylinder::new(half_height, radius)),
                // parry's cylinders run along their local y axis; turn it to z.
                world_from_solid: Pose::from_parts(
                    centre,
                    yaw_rotation * Quat::from_rotation_x(FRAC_PI_2),
                ),
            },
            ShapeTemplate::Box { size } => Self {
                shape: SolidShape::Cuboid(Cuboid::new(Vec3::new(
                    0.5 * size.x,
                    0.5 * size.y,
                    half_height,
                ))),
                world_from_solid: Pose::from_parts(centre, yaw_rotation),
            },
        }
    }

    /// The parry shape.
    pub fn shape(&self) -> &dyn Shape {
        match &self.shape {
            SolidShape::Cylinder(c) => c,
            SolidShape::Cuboid(c) => c,
        }
    }

    /// Time of impact of a ray (`origin + t * dir`) with this solid, up to `max_toi`.
    pub fn cast(&self, ray: &Ray, max_toi: f32) -> Option<f32> {
        match &self.shape {
            SolidShape::Cylinder(c) => c.cast_ray(&self.world_from_solid, ray, max_toi, true),
            SolidShape::Cuboid(c) => c.cast_ray(&self.world_from_solid, ray, max_toi, true),
        }
    }

    /// Distance from a point to the solid (0 inside).
    pub fn distance_to_point(&self, point: Vec3) -> f32 {
        match &self.shape {
            SolidShape::Cylinder(c) => c.distance_to_point(&self.world_from_solid, point, true),
            SolidShape::Cuboid(c) => c.distance_to_point(&self.world_from_solid, point, true),
        }
    }

    /// Distance between two solids (0 when they touch or overlap).
    pub fn distance_to(&self, other: &Solid) -> f32 {
        parry3d::query::distance(
            &self.world_from_solid,
            self.shape(),
            &other.world_from_solid,
            other.shape(),
        )
        .map(|d| d.distance)
        // Every pair of our shapes is supported; a failure means "assume touching".
        .unwrap_or(0.0)
    }
}

/// The solid of an object where it is now.
pub fn object_solid(world: &World, id: ObjectId) -> Solid {
    Solid::from_template(
        world.object(id).shape(),
        world.object_base(id),
        world.object_yaw(id),
    )
}

/// The thin horizontal slice of an object at its grasp height: where a hand closes.
pub fn grasp_slice(world: &World, id: ObjectId) -> Solid {
    let object = world.object(id);
    let grasp = object.kind.grasp_height;
    let height = object.shape().height();
    let from = (grasp - GRASP_SLICE_HALF_HEIGHT).max(0.0);
    let to = (grasp + GRASP_SLICE_HALF_HEIGHT)
        .min(height)
        .max(from + 1e-4);
    Solid::slab(
        object.shape(),
        world.object_base(id),
        world.object_yaw(id),
        from,
        to,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cylinder_stands_upright() {
        let solid = Solid::from_template(
            ShapeTemplate::Cylinder {
                radius: 0.05,
                height: 0.2,
            },
            Vec3::new(0.0, 0.0, 0.75),
            0.0,
        );
        // A point 1 cm above its top is 1 cm away; one beside it at mid height 5 cm + 1 cm.
        assert!((solid.distance_to_point(Vec3::new(0.0, 0.0, 0.96)) - 0.01).abs() < 1e-4);
        assert!((solid.distance_to_point(Vec3::new(0.06, 0.0, 0.85)) - 0.01).abs() < 1e-4);
    }

    #[test]
    fn box_turns_with_yaw() {
        let size = Vec3::new(0.1, 0.4, 0.3);
        let turned = Solid::from_template(ShapeTemplate::Box { size }, Vec3::ZERO, FRAC_PI_2);
        // After a quarter turn the long side lies along x.
        assert!(turned.distance_to_point(Vec3::new(0.19, 0.0, 0.1)) < 1e-4);
        assert!(turned.distance_to_point(Vec3::new(0.0, 0.19, 0.1)) > 0.1);
    }
}
