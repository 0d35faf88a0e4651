//! Small rigid-transform helpers on glam's `Affine3A` (always rigid here).

use glam::{Affine3A, EulerRot, Mat3A, Quat, Vec3};

/// Rotation from roll, pitch, yaw in degrees, R = Rz(yaw)·Ry(pitch)·Rx(roll).
pub fn quat_from_rpy_deg(rpy_deg: [f32; 3]) -> Quat {
    let [r, p, y] = rpy_deg.map(f32::to_radians);
    Quat::from_euler(EulerRot::ZYX, y, p, r)
}

/// Rigid transform from a translation and roll-pitch-yaw in degrees.
pub fn pose_from_xyz_rpy_deg(xyz: [f32; 3], rpy_deg: [f32; 3]) -> Affine3A {
    Affine3A::from_rotation_translation(quat_from_rpy_deg(rpy_deg), Vec3::from_array(xyz))
}

/// Rigid transform of a robot standing at floor point (x, y) with heading `yaw` (rad).
pub fn world_from_robot(x: f32, y: f32, yaw: f32) -> Affine3A {
    Affine3A::from_rotation_translation(Quat::from_rotation_z(yaw), Vec3::new(x, y, 0.0))
}

/// Rotation part of a rigid transform as a unit quaternion.
pub fn rotation(t: &Affine3A) -> Quat {
    Quat::from_mat3a(&t.matrix3).normalize()
}

/// Translation part of a transform.
pub fn translation(t: &Affine3A) -> Vec3 {
    Vec3::from(t.translation)
}

/// Minimum-jerk time scaling s(tau) = 10 tau^3 - 15 tau^4 + 6 tau^5, tau clamped to [0, 1].
pub fn min_jerk(tau: f32) -> f32 {
    let t = tau.clamp(0.0, 1.0);
    t * t * t * (10.0 + t * (-15.0 + 6.0 * t))
}

/// Interpolates two poses: linear in position, spherical in rotation; s in [0, 1].
pub fn interpolate(a: &Affine3A, b: &Affine3A, s: f32) -> Affine3A {
    let qa = rotation(a);
    let mut qb = rotation(b);
    // Take the short way round.
    if qa.dot(qb) < 0.0 {
        qb = -qb;
    }
    let q = qa.slerp(qb, s);
    Affine3A::from_rotation_translation(q, translation(a).lerp(translation(b), s))
}

/// Rotation vector (axis * angle, world frame) turning `current` into `target`.
pub fn rotation_error(current: &Mat3A, target: &Mat3A) -> Vec3 {
    let qc = Quat::from_mat3a(current);
    let qt = Quat::from_mat3a(target);
    let mut d = qt * qc.conjugate();
    if d.w < 0.0 {
        d = -d;
    }
    let v = Vec3::new(d.x, d.y, d.z);
    let s = v.length();
    if s < 1e-9 {
        return Vec3::ZERO;
    }
    let angle = 2.0 * s.atan2(d.w);
    v * (angle / s)
}

/// Rotation vector turning world direction `u` onto world direction `w` (both unit).
pub fn axis_error(u: Vec3, w: Vec3) -> Vec3 {
    let c = u.cross(w);
    let s = c.length();
    let angle = s.atan2(u.dot(w));
    if s > 1e-6 {
        c * (angle / s)
    } else if angle > 1.0 {
        // Antiparallel: any perpendicular axis works.
        u.any_orthonormal_vector() * angle
    } else {
        Vec3::ZERO
    }
}

/// A frame whose z axis is `approach` and whose x axis is as close as possible to `x_hint`.
pub fn frame_from_z_x(approach: Vec3, x_hint: Vec3) -> Mat3A {
    let z = approach.normalize_or(Vec3::Z);
    let mut x = x_hint - z * x_hint.dot(z);
    if x.length_squared() < 1e-8 {
        x = z.any_orthonormal_vector();
    }
    let x = x.normalize();
    let y = z.cross(x);
    Mat3A::from_cols(x.into(), y.into(), z.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpy_convention_is_z_y_x() {
        let q = quat_from_rpy_deg([0.0, 90.0, 0.0]);
        // Ry(90) takes z to x.
        assert!((q * Vec3::Z - Vec3::X).length() < 1e-5);
        let q = quat_from_rpy_deg([0.0, 0.0, 90.0]);
        assert!((q * Vec3::X - Vec3::Y).length() < 1e-5);
    }

    #[test]
    fn min_jerk_endpoints_and_symmetry() {
        assert_eq!(min_jerk(0.0), 0.0);
        assert!((min_jerk(1.0) - 1.0).abs() < 1e-6);
        assert!((min_jerk(0.5) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn rotation_error_recovers_rotation() {
        let a = Mat3A::from_quat(Quat::from_rotation_x(0.3));
        let b = Mat3A::from_quat(Quat::from_rotation_y(0.5) * Quat::from_rotation_x(0.3));
        let e = rotation_error(&a, &b);
        assert!((e - Vec3::new(0.0, 0.5, 0.0)).length() < 1e-4, "{e}");
    }
}
