//! Camera, projection and depth conventions (see `docs/spec/conventions.md`).
//!
//! Everything is in f64. Clip space is Vulkan's: x right, y *down*, z in
//! [0, 1]. The projection matrices flip y so that world +Y appears upward on
//! screen with a positive-height viewport. Depth follows [`DepthMode`]:
//! reversed-Z maps the near plane to 1 and infinity to 0 (perspective) or the
//! far plane to 0 (orthographic); standard maps near to 0 and far to 1.

use nalgebra::{Matrix4, Point3, Vector3};

/// Which way depth runs. Chosen at start and switchable at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DepthMode {
    /// Near -> 1, far (infinity for perspective) -> 0, clear 0, `GREATER_OR_EQUAL`.
    #[default]
    Reversed,
    /// Near -> 0, far -> 1, clear 1, `LESS_OR_EQUAL`.
    Standard,
}

impl DepthMode {
    /// The depth buffer clear value: the farthest possible depth.
    pub fn clear_depth(self) -> f32 {
        match self {
            DepthMode::Reversed => 0.0,
            DepthMode::Standard => 1.0,
        }
    }

    /// The other mode (what the toggle key does).
    pub fn toggled(self) -> DepthMode {
        match self {
            DepthMode::Reversed => DepthMode::Standard,
            DepthMode::Standard => DepthMode::Reversed,
        }
    }

    /// Whether `a` is nearer to the camera than `b` in this mode.
    pub fn nearer(self, a: f32, b: f32) -> bool {
        match self {
            DepthMode::Reversed => a > b,
            DepthMode::Standard => a < b,
        }
    }

    /// The automation name (`reversed`, `standard`).
    pub fn name(self) -> &'static str {
        match self {
            DepthMode::Reversed => "reversed",
            DepthMode::Standard => "standard",
        }
    }

    /// Inverse of [`DepthMode::name`].
    pub fn parse(s: &str) -> Option<DepthMode> {
        match s {
            "reversed" => Some(DepthMode::Reversed),
            "standard" => Some(DepthMode::Standard),
            _ => None,
        }
    }
}

/// Projection parameters of a camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Projection {
    /// Vertical field of view in radians. `far` is used only in standard mode.
    Perspective {
        /// Vertical field of view, radians, in (0, pi).
        fov_y: f64,
        /// Near plane distance (> 0).
        near: f64,
        /// Far plane distance (standard depth only).
        far: f64,
    },
    /// `height` is the world-space height the viewport shows.
    Orthographic {
        /// World-space height the viewport shows.
        height: f64,
        /// Near plane distance (> 0).
        near: f64,
        /// Far plane distance.
        far: f64,
    },
}

impl Projection {
    /// The near plane when none is given (conventions: 0.05).
    pub const DEFAULT_NEAR: f64 = 0.05;
    /// The far plane when none is given (conventions: 1000).
    pub const DEFAULT_FAR: f64 = 1000.0;

    /// Distance of the near plane in front of the eye.
    pub fn near(&self) -> f64 {
        match *self {
            Projection::Perspective { near, .. } | Projection::Orthographic { near, .. } => near,
        }
    }

    /// Distance of the far plane (unused by reversed-Z perspective).
    pub fn far(&self) -> f64 {
        match *self {
            Projection::Perspective { far, .. } | Projection::Orthographic { far, .. } => far,
        }
    }

    /// Whether this is [`Projection::Orthographic`].
    pub fn is_orthographic(&self) -> bool {
        matches!(self, Projection::Orthographic { .. })
    }

    /// The clip-from-view matrix for a viewport of aspect `width / height`.
    ///
    /// View space is right-handed with the camera looking down -Z.
    pub fn matrix(&self, aspect: f64, depth: DepthMode) -> Matrix4<f64> {
        match *self {
            Projection::Perspective { fov_y, near, far } => {
                let f = 1.0 / (fov_y * 0.5).tan();
                // clip.w = -z_view in both modes; only the z row differs.
                let (zz, zw) = match depth {
                    // depth = near / -z: 1 at the near plane, 0 at infinity.
                    DepthMode::Reversed => (0.0, near),
                    // depth = (far z + near far) / ((near - far) * -z)... written
                    // as clip.z = A z + B with A = far / (near - far), B = A near.
                    DepthMode::Standard => {
                        let a = far / (near - far);
                        (a, a * near)
                    }
                };
                #[rustfmt::skip]
                let m = Matrix4::new(
                    f / aspect, 0.0, 0.0, 0.0,
                    0.0,        -f,  0.0, 0.0,
                    0.0,        0.0, zz,  zw,
                    0.0,        0.0, -1.0, 0.0,
                );
                m
            }
            Projection::Orthographic { height, near, far } => {
                let sy = 2.0 / height;
                let sx = sy / aspect;
                let range = far - near;
                // depth is linear in -z between near and far.
                let (zz, zw) = match depth {
                    DepthMode::Reversed => (1.0 / range, far / range),
                    DepthMode::Standard => (-1.0 / range, -near / range),
                };
                #[rustfmt::skip]
                let m = Matrix4::new(
                    sx,  0.0, 0.0, 0.0,
                    0.0, -sy, 0.0, 0.0,
                    0.0, 0.0, zz,  zw,
                    0.0, 0.0, 0.0, 1.0,
                );
                m
            }
        }
    }
}

/// Why a camera cannot be used.
///
/// (`Display` and `Error` are written out by hand: the core depends on
/// nalgebra alone.)
#[derive(Debug, Clone, PartialEq)]
pub enum CameraError {
    /// `eye` and `target` are (nearly) the same point.
    EyeEqualsTarget,
    /// `up` is zero or parallel to the view direction.
    DegenerateUp,
    /// The field of view (degrees) is not in (0, 180).
    FieldOfView(f64),
    /// Not `0 < near < far`.
    NearFar {
        /// The near distance given.
        near: f64,
        /// The far distance given.
        far: f64,
    },
    /// The orthographic height is not positive.
    OrthoHeight(f64),
    /// A field is NaN or infinite.
    NotFinite,
}

impl std::fmt::Display for CameraError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CameraError::EyeEqualsTarget => write!(f, "camera eye and target coincide"),
            CameraError::DegenerateUp => write!(f, "camera up vector is zero or parallel to the view direction"),
            CameraError::FieldOfView(d) => write!(f, "camera field of view must be in (0, 180) degrees, got {d}"),
            CameraError::NearFar { near, far } => {
                write!(f, "camera near plane must be > 0 and < far, got near {near}, far {far}")
            }
            CameraError::OrthoHeight(h) => write!(f, "orthographic height must be > 0, got {h}"),
            CameraError::NotFinite => write!(f, "camera has a non-finite value"),
        }
    }
}

impl std::error::Error for CameraError {}

/// A look-at camera with a projection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Where the camera is.
    pub eye: Point3<f64>,
    /// The point it looks at (at the centre of the view).
    pub target: Point3<f64>,
    /// Which way is up (need not be perpendicular to the view direction).
    pub up: Vector3<f64>,
    /// Perspective or orthographic, with near and far.
    pub projection: Projection,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            eye: Point3::new(6.0, 4.0, 8.0),
            target: Point3::origin(),
            up: Vector3::y(),
            projection: Projection::Perspective {
                fov_y: 50f64.to_radians(),
                near: Projection::DEFAULT_NEAR,
                far: Projection::DEFAULT_FAR,
            },
        }
    }
}

impl Camera {
    /// Checks every field; a camera that passes gives finite, invertible matrices.
    pub fn validate(&self) -> Result<(), CameraError> {
        let finite = self.eye.iter().chain(self.target.iter()).chain(self.up.iter()).all(|v| v.is_finite());
        let (near, far) = (self.projection.near(), self.projection.far());
        if !finite || !near.is_finite() || !far.is_finite() {
            return Err(CameraError::NotFinite);
        }
        let dir = self.target - self.eye;
        if dir.norm() <= 1e-12 * (1.0 + self.eye.coords.norm()) {
            return Err(CameraError::EyeEqualsTarget);
        }
        if self.up.cross(&dir).norm() <= 1e-9 * self.up.norm() * dir.norm() || self.up.norm() == 0.0 {
            return Err(CameraError::DegenerateUp);
        }
        if !(near > 0.0 && near < far) {
            return Err(CameraError::NearFar { near, far });
        }
        match self.projection {
            Projection::Perspective { fov_y, .. } => {
                let deg = fov_y.to_degrees();
                if !(deg > 0.0 && deg < 180.0 && fov_y.is_finite()) {
                    return Err(CameraError::FieldOfView(deg));
                }
            }
            Projection::Orthographic { height, .. } => {
                if height.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !height.is_finite() {
                    return Err(CameraError::OrthoHeight(height));
                }
            }
        }
        Ok(())
    }

    /// Unit vector from the eye towards the target.
    pub fn forward(&self) -> Vector3<f64> {
        (self.target - self.eye).normalize()
    }

    /// The view matrix (world -> view), right-handed, looking down -Z.
    pub fn view_matrix(&self) -> Matrix4<f64> {
        Matrix4::look_at_rh(&self.eye, &self.target, &self.up)
    }

    /// The clip-from-view matrix for the given viewport aspect and depth mode.
    pub fn projection_matrix(&self, aspect: f64, depth: DepthMode) -> Matrix4<f64> {
        self.projection.matrix(aspect, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector4;

    fn ndc(m: &Matrix4<f64>, p: Vector3<f64>) -> Vector3<f64> {
        let c = m * Vector4::new(p.x, p.y, p.z, 1.0);
        Vector3::new(c.x / c.w, c.y / c.w, c.z / c.w)
    }

    #[test]
    fn perspective_reversed_maps_near_to_one_and_infinity_to_zero() {
        let p = Projection::Perspective { fov_y: 1.0, near: 0.05, far: 1000.0 };
        let m = p.matrix(1.5, DepthMode::Reversed);
        assert!((ndc(&m, Vector3::new(0.0, 0.0, -0.05)).z - 1.0).abs() < 1e-12);
        assert!(ndc(&m, Vector3::new(0.0, 0.0, -1e12)).z.abs() < 1e-12);
        // Beyond the standard far plane depth is still inside (0, 1).
        let z = ndc(&m, Vector3::new(0.0, 0.0, -5000.0)).z;
        assert!(z > 0.0 && z < 1.0);
    }

    #[test]
    fn perspective_standard_maps_near_to_zero_and_far_to_one() {
        let p = Projection::Perspective { fov_y: 1.0, near: 0.05, far: 1000.0 };
        let m = p.matrix(1.5, DepthMode::Standard);
        assert!(ndc(&m, Vector3::new(0.0, 0.0, -0.05)).z.abs() < 1e-12);
        assert!((ndc(&m, Vector3::new(0.0, 0.0, -1000.0)).z - 1.0).abs() < 1e-12);
    }

    #[test]
    fn y_up_appears_at_negative_ndc_y() {
        // Vulkan NDC y = -1 is the top of the screen.
        let p = Projection::Perspective { fov_y: 1.0, near: 0.05, far: 1000.0 };
        let m = p.matrix(1.0, DepthMode::Reversed);
        assert!(ndc(&m, Vector3::new(0.0, 1.0, -5.0)).y < 0.0);
        // The top edge of the field of view lands exactly on y = -1.
        let y = (0.5f64).tan() * 5.0;
        assert!((ndc(&m, Vector3::new(0.0, y, -5.0)).y + 1.0).abs() < 1e-12);
    }

    #[test]
    fn orthographic_depth_in_both_modes() {
        let p = Projection::Orthographic { height: 10.0, near: 0.05, far: 100.0 };
        let r = p.matrix(2.0, DepthMode::Reversed);
        let s = p.matrix(2.0, DepthMode::Standard);
        assert!((ndc(&r, Vector3::new(0.0, 0.0, -0.05)).z - 1.0).abs() < 1e-12);
        assert!(ndc(&r, Vector3::new(0.0, 0.0, -100.0)).z.abs() < 1e-12);
        assert!(ndc(&s, Vector3::new(0.0, 0.0, -0.05)).z.abs() < 1e-12);
        assert!((ndc(&s, Vector3::new(0.0, 0.0, -100.0)).z - 1.0).abs() < 1e-12);
        // height 10 -> y = 5 is the top edge (NDC -1), aspect 2 -> x = 10 is the right edge.
        assert!(
            (ndc(&r, Vector3::new(10.0, 5.0, -1.0)) - Vector3::new(1.0, -1.0, ndc(&r, Vector3::new(0.0, 0.0, -1.0)).z))
                .norm()
                < 1e-12
        );
    }

    #[test]
    fn degenerate_cameras_are_rejected() {
        let mut c = Camera::default();
        c.target = c.eye;
        assert_eq!(c.validate(), Err(CameraError::EyeEqualsTarget));
        let mut c = Camera::default();
        c.up = c.target - c.eye;
        assert_eq!(c.validate(), Err(CameraError::DegenerateUp));
        let c =
            Camera { projection: Projection::Perspective { fov_y: 0.0, near: 0.05, far: 10.0 }, ..Camera::default() };
        assert!(matches!(c.validate(), Err(CameraError::FieldOfView(_))));
        let mut c = Camera::default();
        c.eye.x = f64::NAN;
        assert_eq!(c.validate(), Err(CameraError::NotFinite));
        assert_eq!(Camera::default().validate(), Ok(()));
    }
}
