//! Gizmo handle hit tests: pure functions of [`crate::math`]. The pick
//! shapes are analytic (segments, squares, discs, circles), never the drawn
//! triangles.

pub(crate) mod handles;

pub use handles::{pick_nearest, shape_hit, shape_hit_within, Candidate, PickClass, PickShape, ShapeHit};
