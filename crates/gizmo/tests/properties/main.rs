//! Property tests of the gizmo core, driven by plain matrices and nalgebra
//! alone: the pixel-perfect drag contract of `docs/spec/conventions.md`,
//! the editing rules, steep axes and a fuzz run with degenerate input.
//! `cargo test -p viewport-gizmo` runs them.

/// Random cameras, targets and cursor paths shared by the modules below.
mod scenario;

/// 1e5 random gizmo events with degenerate cameras and zero scales.
mod fuzz;
/// Property tests of the pixel-perfect drag contract.
mod gizmo;
/// Snapping, cancel, multi-selection, clamping, fading, handle names.
mod gizmo_rules;
/// Regression test for line-line closest points at steep angles.
mod steep;
