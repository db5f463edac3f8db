//! Pure CPU tests of the editor and scene: no GPU, no display, no binary
//! (the gizmo core's property tests are in `crates/gizmo/tests/properties`).
//! One test executable; each file under `core/` is a module
//! (declared with `#[path]`, as a crate root's modules would otherwise be
//! looked for beside it).

mod support;

/// docs/architecture.md's folder map, the files in src/ and their lengths.
#[path = "core/architecture.rs"]
mod architecture;

/// Stable ids: random scene changes against a slot model, saved files compared.
#[path = "core/stable_ids.rs"]
mod stable_ids;

/// Random duplicate / delete / drag / undo / redo against a model.
#[path = "core/editing_props.rs"]
mod editing_props;
/// 2e5 random editor events with degenerate cameras and zero scales.
#[path = "core/editor_fuzz.rs"]
mod editor_fuzz;
/// Morph-target weights and a two-bone skin played by animation clips (editor, no GPU).
#[path = "core/morph.rs"]
mod morph;
/// Skinned objects posed by their joint objects (editor, no GPU).
#[path = "core/skin.rs"]
mod skin;
