//! [`Frustum`]: a view's inward-facing planes, and the conservative tests
//! of points, spheres and boxes against them.

use nalgebra::Point3;

use crate::math::geom::Plane;

/// Inward-facing frustum planes; `far` is `None` for the infinite
/// reversed-Z perspective projection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    /// Left, right, top, bottom.
    pub sides: [Plane; 4],
    /// The near plane.
    pub near: Plane,
    /// The far plane; `None` when the projection has none.
    pub far: Option<Plane>,
}

impl Frustum {
    fn planes(&self) -> impl Iterator<Item = &Plane> {
        self.sides.iter().chain(std::iter::once(&self.near)).chain(self.far.iter())
    }

    /// Whether `p` is inside (on the inner side of every plane).
    pub fn contains_point(&self, p: &Point3<f64>) -> bool {
        self.planes().all(|pl| pl.signed_distance(p) >= 0.0)
    }

    /// Conservative sphere test (false only when surely outside).
    pub fn intersects_sphere(&self, center: &Point3<f64>, radius: f64) -> bool {
        self.planes().all(|pl| pl.signed_distance(center) >= -radius)
    }

    /// Conservative axis-aligned box test (false only when surely outside).
    pub fn intersects_aabb(&self, min: &Point3<f64>, max: &Point3<f64>) -> bool {
        self.planes().all(|pl| {
            let n = pl.normal;
            let pv = Point3::new(
                if n.x >= 0.0 { max.x } else { min.x },
                if n.y >= 0.0 { max.y } else { min.y },
                if n.z >= 0.0 { max.z } else { min.z },
            );
            pl.signed_distance(&pv) >= 0.0
        })
    }
}
