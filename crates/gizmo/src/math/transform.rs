//! Object transforms: position, rotation, scale relative to the parent.

use nalgebra::{Matrix4, UnitQuaternion, Vector3};

/// `position`, unit `rotation` and `scale`, relative to the parent (or the
/// world for a root). The matrix is `T * R * S`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation.
    pub position: Vector3<f64>,
    /// Rotation.
    pub rotation: UnitQuaternion<f64>,
    /// Scale along the object's own axes (applied first).
    pub scale: Vector3<f64>,
}

impl Default for Transform {
    fn default() -> Self {
        Transform::IDENTITY
    }
}

impl Transform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Transform = Transform {
        position: Vector3::new(0.0, 0.0, 0.0),
        rotation: UnitQuaternion::new_unchecked(nalgebra::Quaternion::new(1.0, 0.0, 0.0, 0.0)),
        scale: Vector3::new(1.0, 1.0, 1.0),
    };

    /// `T * R * S` as a 4x4 matrix.
    #[inline]
    pub fn matrix(&self) -> Matrix4<f64> {
        let mut m = self.rotation.to_homogeneous();
        for c in 0..3 {
            for r in 0..3 {
                m[(r, c)] *= self.scale[c];
            }
        }
        m[(0, 3)] = self.position.x;
        m[(1, 3)] = self.position.y;
        m[(2, 3)] = self.position.z;
        m
    }

    /// The inverse of [`Transform::matrix`], `S^-1 * R^T * T^-1`, in closed
    /// form; `None` when a scale component is zero or the result is not
    /// finite.
    pub fn inverse_matrix(&self) -> Option<Matrix4<f64>> {
        let inv_s = self.scale.map(|s| 1.0 / s);
        let rt = self.rotation.to_rotation_matrix().into_inner().transpose();
        let mut m = Matrix4::identity();
        for r in 0..3 {
            for c in 0..3 {
                m[(r, c)] = inv_s[r] * rt[(r, c)];
            }
        }
        let t = m.fixed_view::<3, 3>(0, 0) * -self.position;
        m[(0, 3)] = t.x;
        m[(1, 3)] = t.y;
        m[(2, 3)] = t.z;
        m.iter().all(|v| v.is_finite()).then_some(m)
    }

    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.position.iter().chain(self.scale.iter()).chain(self.rotation.coords.iter()).all(|v| v.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point3;

    #[test]
    fn closed_form_inverse_matches_the_general_one() {
        let t = Transform {
            position: Vector3::new(10.0, -2.0, 3.5),
            rotation: UnitQuaternion::from_euler_angles(0.3, -1.1, 2.0),
            scale: Vector3::new(2.0, 0.25, -3.0),
        };
        let general = t.matrix().try_inverse().unwrap();
        let closed = t.inverse_matrix().unwrap();
        assert!((general - closed).norm() < 1e-12, "{general} {closed}");
        assert!((closed * t.matrix() - Matrix4::identity()).norm() < 1e-12);
        let flat = Transform { scale: Vector3::new(1.0, 0.0, 1.0), ..t };
        assert_eq!(flat.inverse_matrix(), None);
    }

    #[test]
    fn matrix_is_translate_rotate_scale() {
        let t = Transform {
            position: Vector3::new(1.0, 2.0, 3.0),
            rotation: UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2),
            scale: Vector3::new(2.0, 1.0, 1.0),
        };
        // x is scaled by 2, rotated onto +y, then translated.
        let p = t.matrix().transform_point(&Point3::new(1.0, 0.0, 0.0));
        assert!((p - Point3::new(1.0, 4.0, 3.0)).norm() < 1e-12);
    }
}
