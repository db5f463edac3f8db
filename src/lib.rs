//! An editor viewport on raw Vulkan with pixel-perfect transform gizmos.
//!
//! Layout (see README, "Architecture"):
//! - [`math`]: f64 camera, projection, rays and closest-point primitives.
//! - [`picking`]: gizmo handle hit tests and scene object picking (BVH of OBBs).
//! - [`gizmo`]: translate / rotate / scale / universal gizmo; pure math, outputs draw data.
//! - [`scene`]: objects, hierarchy, primitive and glTF meshes, scene files.
//! - [`input`] and [`editor`]: platform-free events and the state machine they drive.
//! - [`render`]: everything Vulkan (ash). Nothing outside it names an ash type.
//! - [`app`] (winit window) and [`headless`] (off-screen runs and replay).

pub use viewport_gizmo::{gizmo, math, mesh};

pub mod app;
pub mod cli;
pub mod draw;
pub mod editor;
pub mod error;
pub mod files;
pub mod headless;
pub mod input;
pub mod picking;
pub mod render;
pub mod scene;
pub mod session;
pub mod setup;
