//! How [`super::SceneIndex`] keeps an object's box: its centre and
//! half-edge vectors only, 96 bytes against the 200 of an `Option<Obb>`
//! (whose unit slab normals and half-thicknesses are derived values).
//! [`Slot::get`] derives them again with [`Obb::new`], the constructor that
//! made them, so the box given back is the one stored, bit for bit.

use nalgebra::{Point3, Vector3};

use crate::math::Obb;

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
}
