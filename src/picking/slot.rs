//! How [`super::SceneIndex`] keeps an object's box: its centre and
//! half-edge vectors only, 96 bytes against the 200 of an `Option<Obb>`
//! (whose unit slab normals and half-thicknesses are derived values).
//! [`Slot::get`] derives them again with [`Obb::new`], the constructor that
//! made them, so the box given back is the one stored, bit for bit.

use nalgebra::{Point3, Vector3};

use crate::math::{Obb, Ray};

/// A box, or none (a NaN centre: a stored box is always finite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Slot {
    center: [f64; 3],
    edges: [[f64; 3]; 3],
}

impl Slot {
    /// No box: the object cannot be hit.
    pub(super) const NONE: Slot = Slot { center: [f64::NAN; 3], edges: [[0.0; 3]; 3] };

    pub(super) fn new(obb: Option<&Obb>) -> Slot {
        obb.map_or(Slot::NONE, |b| Slot { center: b.center.coords.into(), edges: b.edges.map(Into::into) })
    }

    pub(super) fn is_some(&self) -> bool {
        !self.center[0].is_nan()
    }

    /// The box stored.
    pub(super) fn get(&self) -> Option<Obb> {
        if !self.is_some() {
            return None;
        }
        Obb::new(Point3::from(self.center), self.edges.map(Vector3::from))
    }

    /// False only when `ray` surely misses the box: it misses its world
    /// bounds padded by a relative margin far above the rounding of the
    /// exact slab test (so that the exact test never finds a hit this
    /// refuses). False for no box.
    pub(super) fn ray_may_hit(&self, ray: &Ray) -> bool {
        let Some((lo, hi)) = self.aabb() else { return false };
        let mag = lo.coords.abs().max().max(hi.coords.abs().max());
        let pad = 1e-9 * (mag + (hi - lo).max()) + 1e-12;
        let (mut t0, mut t1) = (0.0_f64, f64::INFINITY);
        for i in 0..3 {
            let (o, d) = (ray.origin[i], ray.dir[i]);
            let (a, b) = (lo[i] - pad, hi[i] + pad);
            if d == 0.0 {
                if o < a || o > b {
                    return false;
                }
                continue;
            }
            let (mut ta, mut tb) = ((a - o) / d, (b - o) / d);
            if ta > tb {
                std::mem::swap(&mut ta, &mut tb);
            }
            t0 = t0.max(ta);
            t1 = t1.min(tb);
            if !(t0 <= t1) {
                return false;
            }
        }
        true
    }

    /// The box's world-space bounds, as [`Obb::aabb`] gives them.
    pub(super) fn aabb(&self) -> Option<(Point3<f64>, Point3<f64>)> {
        if !self.is_some() {
            return None;
        }
        let [a, b, c] = self.edges.map(Vector3::from);
        let ext = a.abs() + b.abs() + c.abs();
        let center = Point3::from(self.center);
        Some((center - ext, center + ext))
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{Matrix4, Translation3, UnitQuaternion};

    use super::*;

    #[test]
    fn a_slot_gives_back_the_box_stored_and_its_bounds() {
        let world = Translation3::new(1e6, -3.0, 2.5).to_homogeneous()
            * UnitQuaternion::from_euler_angles(0.3, -1.1, 2.0).to_homogeneous()
            * Matrix4::new_nonuniform_scaling(&Vector3::new(2.0, 0.5, 3.0));
        // A solid box and a flat one (a plane mesh's zero height).
        for (lo, hi) in [
            (Point3::new(-0.5, -0.5, -0.5), Point3::new(0.5, 0.5, 0.5)),
            (Point3::new(-1.0, 0.0, -1.0), Point3::new(1.0, 0.0, 1.0)),
        ] {
            let obb = Obb::from_local_aabb(&lo, &hi, &world).unwrap();
            let slot = Slot::new(Some(&obb));
            assert!(slot.is_some());
            assert_eq!(slot.get(), Some(obb));
            assert_eq!(slot.aabb(), Some(obb.aabb()));
        }
        assert_eq!(Slot::new(None).get(), None);
        assert_eq!(Slot::NONE.aabb(), None);
        assert!(!Slot::NONE.is_some());
        assert_eq!(std::mem::size_of::<Slot>(), 96);
    }

    /// The bounds test never refuses a ray the exact box test lets in: on
    /// turned, flat and far boxes, rays aimed at random points of the box
    /// and its surroundings, and grazing its faces.
    #[test]
    fn the_bounds_test_keeps_every_ray_the_box_test_hits() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut hits = 0;
        for k in 0..400 {
            let far = if k % 2 == 0 { 0.0 } else { 1e6 };
            let world = Translation3::new(far + rng.gen_range(-5.0..5.0), -far, rng.gen_range(-5.0..5.0))
                .to_homogeneous()
                * UnitQuaternion::from_euler_angles(rng.gen_range(0.0..6.3), rng.gen_range(0.0..6.3), 0.4)
                    .to_homogeneous()
                * Matrix4::new_nonuniform_scaling(&Vector3::new(rng.gen_range(0.1..3.0), 1.0, 0.5));
            let flat = if k % 3 == 0 { 0.0 } else { 0.5 };
            let (lo, hi) = (Point3::new(-0.5, -flat, -0.5), Point3::new(0.5, flat, 0.5));
            let obb = Obb::from_local_aabb(&lo, &hi, &world).unwrap();
            let slot = Slot::new(Some(&obb));
            for _ in 0..50 {
                let origin = obb.center + Vector3::new(rng.gen_range(-20.0..20.0), 15.0, rng.gen_range(-20.0..20.0));
                // A point on the box's surface or near it: a corner mix.
                let w = [rng.gen_range(-1.05..1.05), rng.gen_range(-1.05..1.05), rng.gen_range(-1.05..1.05)];
                let target = obb.center + obb.edges[0] * w[0] + obb.edges[1] * w[1] + obb.edges[2] * w[2];
                let Some(ray) = Ray::new(origin, target - origin) else { continue };
                if obb.intersect_ray(&ray).is_some() {
                    hits += 1;
                    assert!(slot.ray_may_hit(&ray), "box {k}: {ray:?}");
                }
            }
        }
        assert!(hits > 1000, "{hits} hits");
        assert!(!Slot::NONE.ray_may_hit(&Ray::new(Point3::origin(), Vector3::x()).unwrap()));
    }
}
