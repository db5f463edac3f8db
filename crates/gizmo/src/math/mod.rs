//! Pure f64 geometry shared by picking, the gizmo, the editor and the renderer.
//!
//! - [`Camera`], [`Projection`], [`DepthMode`]: the camera, projection and
//!   depth conventions (the contract).
//! - [`Transform`]: object transforms (`T * R * S`).
//! - [`View`]: a per-frame view with precomputed matrices and inverses,
//!   screen <-> NDC <-> world, cursor rays, depth unprojection, [`Frustum`].
//! - [`Ray`], [`Plane`], [`Segment`], [`Obb`].
//! - Closest points and intersections: [`closest_line_line`],
//!   [`closest_ray_segment`], [`closest_ray_circle`], [`ray_plane`], ...

pub(crate) mod camera;
pub(crate) mod closest;
pub(crate) mod geom;
pub(crate) mod transform;
pub(crate) mod view;

pub use camera::{Camera, CameraError, DepthMode, Projection};
pub use closest::{
    closest_line_line, closest_ray_circle, closest_ray_segment, orthonormal_basis, point_segment_2d,
    project_point_on_line_2d, ray_plane, Circle, LineLine, RayCircle, RaySegment,
};
pub use geom::{Obb, Plane, Ray, Segment};
pub use transform::Transform;
pub use view::{Frustum, Projected, View, ViewError};
