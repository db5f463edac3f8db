//! Pure CPU tests of math, gizmo and editor: no GPU, no display, no binary.
//! One test executable; each file under `core/` is a module
//! (declared with `#[path]`, as a crate root's modules would otherwise be
//! looked for beside it).

mod support;

/// Stable ids: random scene changes against a slot model, saved files compared.
#[path = "core/stable_ids.rs"]
mod stable_ids;

/// Random duplicate / delete / drag / undo / redo against a model.
#[path = "core/editing_props.rs"]
mod editing_props;
/// 2e5 random editor events with degenerate cameras and zero scales.
#[path = "core/editor_fuzz.rs"]
mod editor_fuzz;
/// 1e5 random gizmo events with degenerate cameras and zero scales.
#[path = "core/fuzz.rs"]
mod fuzz;
/// Property tests of the pixel-perfect drag contract.
#[path = "core/gizmo.rs"]
mod gizmo;
/// Snapping, cancel, multi-selection, clamping, fading, handle names.
#[path = "core/gizmo_rules.rs"]
mod gizmo_rules;
/// Skinned objects posed by their joint objects (editor, no GPU).
#[path = "core/skin.rs"]
mod skin;
/// Regression test for line-line closest points at steep angles.
#[path = "core/steep.rs"]
mod steep;
