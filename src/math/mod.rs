//! Pure f64 geometry shared by picking, the gizmo, the editor and the renderer.

pub mod camera;
pub mod transform;

pub use camera::{Camera, CameraError, DepthMode, Projection};
pub use transform::Transform;
