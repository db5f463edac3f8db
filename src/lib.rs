//! An editor viewport on raw Vulkan with pixel-perfect transform gizmos.
//!
//! Layers point down only (see `docs/architecture.md`):
//! 1. The gizmo core, crate `viewport_gizmo` (nalgebra alone), re-exported
//!    here: [`math`] (f64 camera, projection, rays, closest points),
//!    [`picking`] handle hit tests, [`gizmo`] (modes, drags, draw data) and
//!    [`mesh`] (plain triangle data).
//! 2. [`picking`] also holds the scene BVH; [`scene`] (objects, [`scene::Hierarchy`],
//!    primitive and glTF meshes, scene files), [`input`], [`editor`] (the
//!    state machine events drive) and [`session`] (program keys on top).
//! 3. [`draw`]: the frame description (what to draw) from a scene or editor.
//! 4. [`render`]: everything Vulkan (ash), one module per pass. Nothing
//!    outside it names an ash type.
//! 5. [`setup`], [`script`] and [`files`]: options, scene and mesh loading,
//!    replay scripts, atomic output files.
//! 6. [`app`] (winit window) and [`headless`] (off-screen runs and replay).
//! 7. [`cli`]: parses arguments and alone turns an [`Error`] into one line
//!    and exit status 2.

pub use viewport_gizmo::{gizmo, math, mesh};

pub mod app;
pub mod autosave;
pub mod cli;
pub mod clip;
pub mod document;
pub mod draw;
pub mod editor;
pub mod envmap;
mod error;
pub mod files;
pub mod headless;
pub mod input;
pub mod lighting;
pub mod picking;
pub mod reload;
pub mod render;
pub mod scene;
pub mod script;
pub mod session;
pub mod setup;
pub mod ui;

pub use error::Error;
