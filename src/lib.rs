//! An editor viewport on raw Vulkan with pixel-perfect transform gizmos.
//!
//! Layers point down only (see `docs/architecture.md`, which maps every
//! folder):
//! 1. The gizmo core, crate `viewport_gizmo` (nalgebra alone), re-exported
//!    here: [`math`] (f64 camera, projection, rays, closest points),
//!    [`picking`] handle hit tests, [`gizmo`] (modes, drags, draw data) and
//!    [`mesh`] (plain triangle data); [`input`] (platform-free events) and
//!    [`files`] (atomic output files).
//! 2. [`look`]: the lighting description, `.hdr` environments and the CPU
//!    maths of image-based lighting.
//! 3. [`picking`] also holds the scene BVH; [`scene`] (objects,
//!    [`scene::Hierarchy`], primitive and glTF meshes, scene files) and
//!    [`editor`] (the state machine events drive, with its key map).
//! 4. [`draw`]: the frame description (what to draw) from a scene or editor.
//! 5. [`render`]: everything Vulkan (ash), one module per pass. Nothing
//!    outside it names an ash type.
//! 6. [`ui`]: the toolbar, panels, outliner and dialogs (egui).
//! 7. [`app`]: the program (document, autosave, reload, clipboard, opening
//!    and importing, program commands).
//! 8. [`window`] (winit) and [`headless`] (off-screen runs, replay
//!    scripts, traces): the program's two hosts.
//! 9. [`cli`]: parses arguments and alone turns an [`Error`] into one line
//!    and exit status 2.

pub use viewport_gizmo::{gizmo, math, mesh};

pub mod app;
pub mod cli;
pub mod draw;
pub mod editor;
pub mod files;
pub mod headless;
pub mod input;
pub mod look;
pub mod picking;
pub mod render;
pub mod scene;
pub mod ui;
pub mod window;

pub use cli::Error;
