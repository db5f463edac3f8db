//! The embeddable core of the viewport: f64 camera math, gizmo handle
//! picking and the transform gizmo, with nalgebra as the only dependency.
//!
//! Layers point down: [`math`] -> [`picking`] -> [`gizmo`]. [`mesh`] holds the
//! plain triangle data of the gizmo's canonical meshes. Nothing here knows
//! about a GPU, a window, a scene or a file format: an engine drives the
//! gizmo with its own camera matrices ([`math::View::from_matrices`]) and
//! draws what [`gizmo::Gizmo::instances`] returns however it likes. The
//! handle sizes are in one table, [`gizmo::GEOMETRY`].
//!
//! `examples/embed_gizmo.rs` is a complete, self-checking embedding:
//! `cargo run --example embed_gizmo -p viewport-gizmo`.

#![warn(missing_docs)]

pub mod gizmo;
pub mod math;
pub mod mesh;
pub mod picking;
