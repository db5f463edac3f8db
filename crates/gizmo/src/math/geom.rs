//! Geometric primitives: [`Ray`], [`Plane`], [`Segment`] and [`Obb`].
//!
//! Constructors validate their input and return `None` for degenerate data
//! (zero or non-finite directions, collapsed boxes), so code downstream never
//! has to deal with NaN.

// `!(x > 0.0)` is deliberate throughout: it is also true for NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Matrix4, Point3, Unit, Vector3};

/// A half-line `origin + t * dir`, `t >= 0`, with a unit direction, so `t` is a
/// distance in world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start point.
    pub origin: Point3<f64>,
    /// Unit direction.
    pub dir: Unit<Vector3<f64>>,
}

impl Ray {
    /// A ray from `origin` along `dir` (normalised here); `None` if `dir` is
    /// zero or anything is not finite.
    pub fn new(origin: Point3<f64>, dir: Vector3<f64>) -> Option<Ray> {
        if !origin.iter().all(|v| v.is_finite()) {
            return None;
        }
        let dir = unit(dir)?;
        Some(Ray { origin, dir })
    }

    /// The point at distance `t` along the ray.
    pub fn at(&self, t: f64) -> Point3<f64> {
        self.origin + self.dir.into_inner() * t
    }
}

/// Normalises `v`, or `None` when it is zero, tiny or not finite.
pub fn unit(v: Vector3<f64>) -> Option<Unit<Vector3<f64>>> {
    let n = v.norm();
    if !(n.is_finite() && n > 1e-300) {
        return None;
    }
    let u = v / n;
    u.iter().all(|c| c.is_finite()).then(|| Unit::new_unchecked(u))
}

/// The plane `{ p : normal . p + d = 0 }` with a unit normal. The signed
/// distance is positive on the side the normal points to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    /// Unit normal.
    pub normal: Unit<Vector3<f64>>,
    /// Offset: `normal . p + d = 0` on the plane.
    pub d: f64,
}

impl Plane {
    /// The plane through `point` with the given normal (normalised here).
    pub fn from_point_normal(point: Point3<f64>, normal: Vector3<f64>) -> Option<Plane> {
        let normal = unit(normal)?;
        let d = -normal.dot(&point.coords);
        d.is_finite().then_some(Plane { normal, d })
    }

    /// Signed distance of `p` from the plane.
    pub fn signed_distance(&self, p: &Point3<f64>) -> f64 {
        self.normal.dot(&p.coords) + self.d
    }

    /// A point on the plane (the one nearest the origin).
    pub fn point(&self) -> Point3<f64> {
        Point3::from(-self.normal.into_inner() * self.d)
    }
}

/// A line segment from `a` to `b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// Start point (parameter 0).
    pub a: Point3<f64>,
    /// End point (parameter 1).
    pub b: Point3<f64>,
}

impl Segment {
    /// The segment from `a` to `b`.
    pub fn new(a: Point3<f64>, b: Point3<f64>) -> Segment {
        Segment { a, b }
    }

    /// The point at parameter `u` in [0, 1].
    pub fn at(&self, u: f64) -> Point3<f64> {
        self.a + (self.b - self.a) * u
    }
}

/// An oriented box: `center + sum_i x_i * edges[i]` for `x_i` in [-1, 1].
///
/// The half-edge vectors may have any lengths (one may be zero: a flat box
/// such as a plane mesh is still pickable) and need not be orthogonal (a
/// sheared box under a non-uniformly scaled parent is represented exactly).
/// For the slab test each pair of faces is stored as a unit normal and a
/// half-thickness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obb {
    /// Centre of the box.
    pub center: Point3<f64>,
    /// Half-edge vectors (from the centre to the middle of a face).
    pub edges: [Vector3<f64>; 3],
    normals: [Vector3<f64>; 3],
    half: [f64; 3],
}

impl Obb {
    /// The box `world * [min, max]` of a local axis-aligned box under an
    /// affine world matrix. `None` when the box collapses to a line or a
    /// point (e.g. two zero scale components) or when values are not finite.
    pub fn from_local_aabb(min: &Point3<f64>, max: &Point3<f64>, world: &Matrix4<f64>) -> Option<Obb> {
        let mid = nalgebra::center(min, max);
        let half = (max - min) * 0.5;
        let center = world.transform_point(&mid);
        let lin = world.fixed_view::<3, 3>(0, 0);
        let edges = [lin.column(0) * half.x, lin.column(1) * half.y, lin.column(2) * half.z];
        Obb::new(center, edges)
    }

    /// A box from its centre and three half-edge vectors.
    pub fn new(center: Point3<f64>, edges: [Vector3<f64>; 3]) -> Option<Obb> {
        if !center.iter().chain(edges.iter().flat_map(|e| e.iter())).all(|v| v.is_finite()) {
            return None;
        }
        let scale = edges.iter().map(|e| e.norm()).fold(0.0, f64::max);
        if scale <= 0.0 {
            return None;
        }
        // A flat box (one zero edge, e.g. a plane mesh) keeps the two face
        // pairs that bound it in its plane: stand in a unit vector normal to
        // the other two edges when computing those face normals.
        let scaled = edges.map(|e| e / scale);
        let small = scaled.map(|e| e.norm() <= 1e-9);
        let mut span = scaled;
        match small.iter().filter(|&&s| s).count() {
            0 => {}
            1 => {
                let k = small.iter().position(|&s| s).unwrap_or(0);
                let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                span[k] = unit(scaled[i].cross(&scaled[j]))?.into_inner();
            }
            _ => return None,
        }
        let mut normals = [Vector3::zeros(); 3];
        let mut half = [0.0; 3];
        for i in 0..3 {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            let n = span[j].cross(&span[k]);
            let len = n.norm();
            if !(len > 1e-12) {
                return None;
            }
            normals[i] = n / len;
            half[i] = normals[i].dot(&edges[i]).abs();
        }
        Some(Obb { center, edges, normals, half })
    }

    /// The world-space axis-aligned bounds `(min, max)` of the box.
    pub fn aabb(&self) -> (Point3<f64>, Point3<f64>) {
        let ext = self.edges[0].abs() + self.edges[1].abs() + self.edges[2].abs();
        (self.center - ext, self.center + ext)
    }

    /// Whether `p` is inside (or on) the box, with a relative tolerance.
    pub fn contains(&self, p: &Point3<f64>) -> bool {
        let d = p - self.center;
        (0..3).all(|i| self.normals[i].dot(&d).abs() <= self.half[i] * (1.0 + 1e-12) + 1e-12)
    }

    /// Slab test: the entry distance of `ray` into the box (0 when the ray
    /// starts inside), or `None` when it misses.
    pub fn intersect_ray(&self, ray: &Ray) -> Option<f64> {
        let mut t0 = 0.0_f64;
        let mut t1 = f64::INFINITY;
        let oc = self.center - ray.origin;
        for i in 0..3 {
            let n = &self.normals[i];
            let num = n.dot(&oc);
            let den = n.dot(&ray.dir);
            let h = self.half[i];
            if den.abs() < 1e-300 {
                // Parallel to this slab: inside it or never.
                if num.abs() > h {
                    return None;
                }
                continue;
            }
            let (mut a, mut b) = ((num - h) / den, (num + h) / den);
            if a > b {
                std::mem::swap(&mut a, &mut b);
            }
            t0 = t0.max(a);
            t1 = t1.min(b);
            if t0 > t1 {
                return None;
            }
        }
        t0.is_finite().then_some(t0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::UnitQuaternion;

    fn p(x: f64, y: f64, z: f64) -> Point3<f64> {
        Point3::new(x, y, z)
    }

    #[test]
    fn ray_rejects_degenerate_directions() {
        assert!(Ray::new(p(0.0, 0.0, 0.0), Vector3::zeros()).is_none());
        assert!(Ray::new(p(0.0, 0.0, 0.0), Vector3::new(f64::NAN, 0.0, 1.0)).is_none());
        assert!(Ray::new(p(f64::INFINITY, 0.0, 0.0), Vector3::x()).is_none());
        let r = Ray::new(p(1.0, 2.0, 3.0), Vector3::new(0.0, 0.0, 5.0)).unwrap();
        assert_eq!(r.at(2.0), p(1.0, 2.0, 5.0));
    }

    #[test]
    fn plane_signed_distance() {
        let pl = Plane::from_point_normal(p(0.0, 2.0, 0.0), Vector3::new(0.0, 3.0, 0.0)).unwrap();
        assert_eq!(pl.signed_distance(&p(5.0, 5.0, -1.0)), 3.0);
        assert_eq!(pl.signed_distance(&p(0.0, 0.0, 0.0)), -2.0);
        assert_eq!(pl.point(), p(0.0, 2.0, 0.0));
        assert!(Plane::from_point_normal(p(0.0, 0.0, 0.0), Vector3::zeros()).is_none());
    }

    #[test]
    fn obb_slab_test_hand_computed() {
        // Unit cube scaled by 2 in x, rotated 90 degrees about y, moved to (10, 0, 0).
        let world = nalgebra::Isometry3::from_parts(
            nalgebra::Translation3::new(10.0, 0.0, 0.0),
            UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2),
        )
        .to_homogeneous()
            * Matrix4::new_nonuniform_scaling(&Vector3::new(2.0, 1.0, 1.0));
        let obb = Obb::from_local_aabb(&p(-0.5, -0.5, -0.5), &p(0.5, 0.5, 0.5), &world).unwrap();
        // After the rotation the long (2 m) side lies along world z.
        let (lo, hi) = obb.aabb();
        assert!((lo - p(9.5, -0.5, -1.0)).norm() < 1e-12 && (hi - p(10.5, 0.5, 1.0)).norm() < 1e-12);
        // Along -x from x = 0: enters the face at x = 9.5.
        let r = Ray::new(p(0.0, 0.0, 0.0), Vector3::x()).unwrap();
        assert!((obb.intersect_ray(&r).unwrap() - 9.5).abs() < 1e-12);
        // Along z at x = 10 from z = -5: enters at z = -1, t = 4.
        let r = Ray::new(p(10.0, 0.2, -5.0), Vector3::z()).unwrap();
        assert!((obb.intersect_ray(&r).unwrap() - 4.0).abs() < 1e-12);
        // Parallel to a slab and outside it: miss.
        let r = Ray::new(p(10.0, 0.6, -5.0), Vector3::z()).unwrap();
        assert_eq!(obb.intersect_ray(&r), None);
        // Pointing away: miss. Starting inside: 0.
        assert_eq!(obb.intersect_ray(&Ray::new(p(0.0, 0.0, 0.0), -Vector3::x()).unwrap()), None);
        assert_eq!(obb.intersect_ray(&Ray::new(p(10.0, 0.0, 0.0), Vector3::x()).unwrap()), Some(0.0));
        assert!(obb.contains(&p(10.4, 0.4, 0.9)) && !obb.contains(&p(10.6, 0.0, 0.0)));
    }

    #[test]
    fn obb_flat_and_degenerate() {
        // A plane mesh (zero thickness in y) is still hit from above.
        let flat = Obb::from_local_aabb(&p(-0.5, 0.0, -0.5), &p(0.5, 0.0, 0.5), &Matrix4::identity()).unwrap();
        let r = Ray::new(p(0.1, 3.0, 0.2), -Vector3::y()).unwrap();
        assert!((flat.intersect_ray(&r).unwrap() - 3.0).abs() < 1e-12);
        // Grazing along the plane inside its extent counts as a hit; beside it does not.
        let r = Ray::new(p(-2.0, 0.0, 0.0), Vector3::x()).unwrap();
        assert!((flat.intersect_ray(&r).unwrap() - 1.5).abs() < 1e-12);
        let r = Ray::new(p(0.7, 3.0, 0.0), -Vector3::y()).unwrap();
        assert_eq!(flat.intersect_ray(&r), None);
        // Two zero scales: a line, rejected. Zero matrix: rejected.
        let line = Matrix4::new_nonuniform_scaling(&Vector3::new(1.0, 0.0, 0.0));
        assert!(Obb::from_local_aabb(&p(-1.0, -1.0, -1.0), &p(1.0, 1.0, 1.0), &line).is_none());
        assert!(Obb::from_local_aabb(&p(-1.0, -1.0, -1.0), &p(1.0, 1.0, 1.0), &Matrix4::zeros()).is_none());
    }

    #[test]
    fn obb_sheared_box_is_exact() {
        // Shear: x edge leans into y. Point (1, 1, 0) = centre + e0 + ... check the slab normal.
        let obb = Obb::new(p(0.0, 0.0, 0.0), [Vector3::new(1.0, 1.0, 0.0), Vector3::new(0.0, 1.0, 0.0), Vector3::z()])
            .unwrap();
        // The x-faces are the planes x = +-1 (normal of span(e1, e2) = x).
        let r = Ray::new(p(-5.0, 1.9, 0.0), Vector3::x()).unwrap();
        // At x = -1 the box covers y in [-2, 0] (-e0 +- e1): y = 1.9 misses there;
        // enters through the y-slab face y = x + 1 at x = 0.9 -> t = 5.9.
        assert!((obb.intersect_ray(&r).unwrap() - 5.9).abs() < 1e-12);
    }
}
