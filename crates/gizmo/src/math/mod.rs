//! Pure f64 geometry shared by picking, the gizmo, the editor and the renderer.
//!
//! - [`camera`]: camera, projection and depth conventions (the contract).
//! - [`transform`]: object transforms (`T * R * S`).
//! - [`view`]: a per-frame [`View`] with precomputed matrices and inverses,
//!   screen <-> NDC <-> world, cursor rays, depth unprojection, frustum.
//! - [`geom`]: [`Ray`], [`Plane`], [`Segment`], [`Obb`].
//! - [`closest`]: closest points and intersections.

pub mod camera;
pub mod closest;
pub mod geom;
pub mod transform;
pub mod view;
mod view_derive;

pub use camera::{Camera, CameraError, DepthMode, Projection};
pub use closest::{
    closest_line_line, closest_ray_circle, closest_ray_segment, point_segment_2d, project_point_on_line_2d, ray_plane,
    Circle, LineLine, RayCircle, RaySegment,
};
pub use geom::{Obb, Plane, Ray, Segment};
pub use transform::Transform;
pub use view::{Frustum, Projected, View, ViewError};
