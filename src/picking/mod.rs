//! Picking: gizmo handle hit tests ([`handles`]) and scene object picking
//! through a BVH of oriented boxes ([`scene`]).
//!
//! Both are pure functions of [`crate::math`]; the pick shapes are analytic
//! (segments, squares, discs, circles, boxes), never the drawn triangles.

pub mod handles;
pub mod scene;

pub use handles::{pick_nearest, shape_hit, shape_hit_within, Candidate, PickClass, PickShape, ShapeHit};
pub use scene::{SceneHit, SceneIndex};
