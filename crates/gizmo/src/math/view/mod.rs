//! [`View`]: one frame's camera, viewport and depth mode with every matrix
//! and its inverse computed once, plus the conversions between screen, NDC,
//! clip, view and world space, cursor rays, depth unprojection,
//! `world_per_pixel` and frustum planes.
//!
//! A view is built either from our own look-at [`Camera`] ([`View::new`]) or
//! from an engine's view and projection matrices ([`View::from_matrices`]).
//! Both go through the same derivation: the eye, the camera basis, the near
//! and far distances, the orthographic flag, the cursor-ray map and the
//! pixel scale are all read off the matrices, so every query below works the
//! same for either kind of view.
//!
//! Screen coordinates follow `docs/spec/conventions.md`: physical pixels, origin at the
//! top-left, y down; `screen = (ndc + 1) / 2 * size` (Vulkan NDC y = -1 is the
//! top). Clip-space x, y and w do not depend on the depth mode; only z does.

// `!(x > 0.0)` is deliberate throughout: it is also true for NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Matrix4, Point2, Point3, Unit, Vector3, Vector4};

use super::camera::{Camera, DepthMode, Projection};
use super::geom::{Plane, Ray};
use derived::{derive, Derived};
pub use error::ViewError;
pub use frustum::Frustum;
use inverse::{affine_inverse, checked_inverse, projection_inverse, rigid_inverse};

mod derived;
mod error;
mod frustum;
mod inverse;

/// A world point's projection: screen position, depth-buffer value and
/// distance along the camera's forward axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projected {
    /// Screen position in pixels (top-left origin, y down).
    pub screen: Point2<f64>,
    /// The value the depth buffer would hold (mode dependent).
    pub depth: f64,
    /// Distance in front of the camera plane (see [`View::view_depth`]).
    pub view_depth: f64,
}

/// A validated camera for one viewport size and depth mode, with all
/// matrices and inverses precomputed (no inversion per query).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    camera: Camera,
    /// The viewport's top-left corner in screen pixels (0, 0 unless
    /// [`View::at`] placed it).
    origin: (f64, f64),
    width: f64,
    height: f64,
    depth_mode: DepthMode,
    view: Matrix4<f64>,
    proj: Matrix4<f64>,
    view_proj: Matrix4<f64>,
    inv_view: Matrix4<f64>,
    inv_proj: Matrix4<f64>,
    inv_view_proj: Matrix4<f64>,
    /// Eye, basis, planes and the cursor-ray map, read off the matrices.
    d: Derived,
}

impl View {
    /// Validates the camera and viewport and precomputes every matrix.
    pub fn new(camera: Camera, width: f64, height: f64, depth_mode: DepthMode) -> Result<View, ViewError> {
        camera.validate()?;
        check_viewport(width, height)?;
        let aspect = width / height;
        let view = camera.view_matrix();
        let proj = camera.projection_matrix(aspect, depth_mode);
        // Both inverses in closed form: the view matrix is rigid and the
        // projection has a fixed sparse shape.
        let inv_view = rigid_inverse(&view);
        let inv_proj = projection_inverse(&proj, camera.projection.is_orthographic()).ok_or(ViewError::Singular)?;
        let mut v = View::assemble(camera, (width, height), depth_mode, view, proj, inv_view, inv_proj)?;
        // The camera's own eye and planes, exactly (the derived ones agree
        // to rounding). `far` stays the camera's even where the reversed-Z
        // projection has none: drags clamp at it.
        v.d.eye = camera.eye;
        v.d.near = camera.projection.near();
        v.d.far = camera.projection.far();
        Ok(v)
    }

    /// A view from an engine's own camera matrices, so the gizmo can be
    /// driven without our [`Camera`].
    ///
    /// - `view`: world -> view, any invertible affine matrix (usually rigid).
    /// - `projection`: view -> clip in Vulkan conventions (clip y down, depth
    ///   in [0, 1], visible where `w > 0`): a perspective projection (also
    ///   off-centre or with an infinite far plane) or an orthographic one
    ///   (last row `0 0 0 w` with `w > 0`). The depth must run as
    ///   `depth_mode` says: reversed, the near plane at 1 and the far plane
    ///   (or infinity) at 0; standard, near at 0 and far (or infinity) at 1.
    /// - `viewport`: (width, height) in physical pixels.
    ///
    /// The inverses are computed with nalgebra's general inverses (of the
    /// projection, and of the view matrix's linear part). Every
    /// query then behaves as for [`View::new`]: a look-at camera passed in as
    /// its matrices gives the same projections, rays and `world_per_pixel`
    /// to rounding. [`View::far`] is infinite for an infinite far plane, and
    /// [`View::camera`] is a stand-in look-at camera (see there).
    ///
    /// # Errors
    /// [`ViewError::NotFinite`] for a NaN or infinite entry,
    /// [`ViewError::Viewport`] for a bad size, [`ViewError::Singular`] for a
    /// matrix that is not (safely) invertible, [`ViewError::Unsupported`]
    /// for a non-affine view matrix or a projection whose depth does not
    /// match `depth_mode`. Never panics.
    pub fn from_matrices(
        view: Matrix4<f64>,
        projection: Matrix4<f64>,
        viewport: (f64, f64),
        depth_mode: DepthMode,
    ) -> Result<View, ViewError> {
        if !view.iter().chain(projection.iter()).all(|v| v.is_finite()) {
            return Err(ViewError::NotFinite);
        }
        let (width, height) = viewport;
        check_viewport(width, height)?;
        let inv_view = affine_inverse(&view)?;
        let inv_proj = checked_inverse(&projection)?;
        // A placeholder until the stand-in camera is known.
        let mut v = View::assemble(Camera::default(), viewport, depth_mode, view, projection, inv_view, inv_proj)?;
        let d = v.d;
        let projection = if d.ortho {
            Projection::Orthographic { height: 2.0 * d.half_h, near: d.near, far: d.far }
        } else {
            Projection::Perspective { fov_y: 2.0 * d.half_h.atan(), near: d.near, far: d.far }
        };
        v.camera = Camera { eye: d.eye, target: d.eye + d.forward.into_inner(), up: d.up.into_inner(), projection };
        Ok(v)
    }

    /// The common part of both constructors.
    fn assemble(
        camera: Camera,
        (width, height): (f64, f64),
        depth_mode: DepthMode,
        view: Matrix4<f64>,
        proj: Matrix4<f64>,
        inv_view: Matrix4<f64>,
        inv_proj: Matrix4<f64>,
    ) -> Result<View, ViewError> {
        let view_proj = proj * view;
        let inv_view_proj = inv_view * inv_proj;
        let all = [&view, &proj, &inv_view, &inv_proj, &view_proj, &inv_view_proj];
        if !all.iter().all(|m| m.iter().all(|v| v.is_finite())) {
            return Err(ViewError::Singular);
        }
        let d = derive(&view, &proj, &inv_view, &inv_proj, depth_mode)?;
        let origin = (0.0, 0.0);
        Ok(View {
            camera,
            origin,
            width,
            height,
            depth_mode,
            view,
            proj,
            view_proj,
            inv_view,
            inv_proj,
            inv_view_proj,
            d,
        })
    }

    /// The same view with its viewport's top-left corner at screen pixel
    /// (`x`, `y`): a view that covers part of a window (one view of a
    /// quad view) whose screen coordinates stay the window's. Every
    /// screen position this view gives or takes is then in window pixels;
    /// the projection (aspect, NDC) still spans exactly the viewport.
    /// A non-finite corner is taken as (0, 0).
    pub fn at(mut self, x: f64, y: f64) -> View {
        self.origin = if x.is_finite() && y.is_finite() { (x, y) } else { (0.0, 0.0) };
        self
    }

    /// The viewport's top-left corner in screen pixels ([`View::at`]).
    pub fn origin(&self) -> Point2<f64> {
        Point2::new(self.origin.0, self.origin.1)
    }

    /// Whether screen point `s` lies inside the viewport (left and top
    /// edges included).
    pub fn contains_screen(&self, s: &Point2<f64>) -> bool {
        let (x, y) = (s.x - self.origin.0, s.y - self.origin.1);
        x >= 0.0 && y >= 0.0 && x < self.width && y < self.height
    }

    /// The camera: the one given to [`View::new`], or for
    /// [`View::from_matrices`] a stand-in look-at camera with the derived
    /// eye, `target = eye + forward` (1 unit ahead), up, near and far (far
    /// may be infinite), and the field of view (or height) of the vertical
    /// extent; for an off-centre projection it only approximates the
    /// matrices, which remain the reference.
    pub fn camera(&self) -> &Camera {
        &self.camera
    }
    /// Viewport width in physical pixels.
    pub fn width(&self) -> f64 {
        self.width
    }
    /// Viewport height in physical pixels.
    pub fn height(&self) -> f64 {
        self.height
    }
    /// `width / height`.
    pub fn aspect(&self) -> f64 {
        self.width / self.height
    }
    /// The depth convention of the projection.
    pub fn depth_mode(&self) -> DepthMode {
        self.depth_mode
    }
    /// Whether the projection is orthographic (clip w does not depend on the point).
    pub fn is_orthographic(&self) -> bool {
        self.d.ortho
    }
    /// World -> view.
    pub fn view_matrix(&self) -> &Matrix4<f64> {
        &self.view
    }
    /// View -> clip.
    pub fn proj_matrix(&self) -> &Matrix4<f64> {
        &self.proj
    }
    /// World -> clip.
    pub fn view_proj(&self) -> &Matrix4<f64> {
        &self.view_proj
    }
    /// View -> world.
    pub fn inv_view(&self) -> &Matrix4<f64> {
        &self.inv_view
    }
    /// Clip -> view.
    pub fn inv_proj(&self) -> &Matrix4<f64> {
        &self.inv_proj
    }
    /// Clip -> world.
    pub fn inv_view_proj(&self) -> &Matrix4<f64> {
        &self.inv_view_proj
    }
    /// The eye: the centre of projection (perspective), or the point of the
    /// eye plane on the view axis (orthographic). View depths are measured
    /// from here.
    pub fn eye(&self) -> Point3<f64> {
        self.d.eye
    }
    /// Unit vector the camera looks along.
    pub fn forward(&self) -> Unit<Vector3<f64>> {
        self.d.forward
    }
    /// Unit vector to the right of the screen.
    pub fn right(&self) -> Unit<Vector3<f64>> {
        self.d.right
    }
    /// Unit vector towards the top of the screen.
    pub fn up(&self) -> Unit<Vector3<f64>> {
        self.d.up
    }
    /// View depth of the near plane.
    pub fn near(&self) -> f64 {
        self.d.near
    }
    /// View depth of the far plane: the camera's `far` for [`View::new`]
    /// (even in reversed-Z perspective, whose projection has none), infinite
    /// for matrices with an infinite far plane.
    pub fn far(&self) -> f64 {
        self.d.far
    }

    /// World point -> homogeneous clip coordinates.
    pub fn world_to_clip(&self, p: &Point3<f64>) -> Vector4<f64> {
        self.view_proj * p.to_homogeneous()
    }

    /// Distance of `p` in front of the eye along [`View::forward`] (for a
    /// perspective view, clip w divided by its gradient's length; for our own
    /// cameras view-space `-z`).
    pub fn view_depth(&self, p: &Point3<f64>) -> f64 {
        (p - self.d.eye).dot(&self.d.forward)
    }

    /// NDC x, y -> screen pixels.
    pub fn ndc_to_screen(&self, x: f64, y: f64) -> Point2<f64> {
        Point2::new(self.origin.0 + (x + 1.0) * 0.5 * self.width, self.origin.1 + (y + 1.0) * 0.5 * self.height)
    }

    /// Screen pixels -> NDC x, y.
    pub fn screen_to_ndc(&self, s: &Point2<f64>) -> (f64, f64) {
        (2.0 * (s.x - self.origin.0) / self.width - 1.0, 2.0 * (s.y - self.origin.1) / self.height - 1.0)
    }

    /// Homogeneous screen coordinates `(X, Y, W)` of a clip-space vector:
    /// the screen position is `(X / W, Y / W)` and `W` is clip `w` (the view
    /// depth for a perspective camera). The map is linear, so it also takes
    /// clip-space directions (`view_proj * (d, 0)`) and sums of them, which is
    /// what the exact screen images of lines and circles are built from.
    pub fn clip_to_hscreen(&self, c: &Vector4<f64>) -> Vector3<f64> {
        let (ox, oy) = self.origin;
        Vector3::new(0.5 * self.width * (c.x + c.w) + ox * c.w, 0.5 * self.height * (c.y + c.w) + oy * c.w, c.w)
    }

    /// [`View::clip_to_hscreen`] of a world point.
    pub fn world_to_hscreen(&self, p: &Point3<f64>) -> Vector3<f64> {
        self.clip_to_hscreen(&self.world_to_clip(p))
    }

    /// [`View::clip_to_hscreen`] of a world direction (a point at infinity):
    /// `world_to_hscreen(p + d) = world_to_hscreen(p) + vector_to_hscreen(d)`.
    pub fn vector_to_hscreen(&self, d: &Vector3<f64>) -> Vector3<f64> {
        self.clip_to_hscreen(&(self.view_proj * d.to_homogeneous()))
    }

    /// Clip coordinates -> screen; `None` at or behind the eye plane (w <= 0).
    pub fn clip_to_screen(&self, c: &Vector4<f64>) -> Option<Point2<f64>> {
        if !(c.w > 1e-300) {
            return None;
        }
        let s = self.ndc_to_screen(c.x / c.w, c.y / c.w);
        (s.x.is_finite() && s.y.is_finite()).then_some(s)
    }

    /// World -> screen position, or `None` for a point at or behind the
    /// camera's eye plane (perspective). Orthographic points always project.
    pub fn world_to_screen(&self, p: &Point3<f64>) -> Option<Point2<f64>> {
        self.clip_to_screen(&self.world_to_clip(p))
    }

    /// World -> screen, depth value and view depth.
    pub fn project(&self, p: &Point3<f64>) -> Option<Projected> {
        let c = self.world_to_clip(p);
        let screen = self.clip_to_screen(&c)?;
        Some(Projected { screen, depth: c.z / c.w, view_depth: self.view_depth(p) })
    }

    /// Screen position plus a depth-buffer value -> world point, through
    /// NDC -> clip -> view -> world with the precomputed inverses. `None`
    /// where the depth is at infinity (reversed-Z perspective depth 0), the
    /// point is not in front of the eye, or anything is not finite.
    pub fn unproject(&self, s: &Point2<f64>, depth: f64) -> Option<Point3<f64>> {
        let (x, y) = self.screen_to_ndc(s);
        let clip = Vector4::new(x, y, depth, 1.0);
        let view = self.inv_proj * clip;
        if !(view.w.abs() > 1e-300) {
            return None;
        }
        let view = Point3::new(view.x / view.w, view.y / view.w, view.z / view.w);
        let world = self.inv_view.transform_point(&view);
        // In front of the camera only.
        if !(self.view_depth(&world) > 0.0) {
            return None;
        }
        world.iter().all(|v| v.is_finite()).then_some(world)
    }

    /// The cursor ray at screen position `s`: from the eye (perspective) or
    /// from the eye plane (orthographic), along the line of sight through the
    /// pixel. Built from a precomputed linear map of NDC, never through a
    /// point at the far plane, so it is exact with an infinite far plane.
    /// `None` only for a non-finite cursor.
    pub fn cursor_ray(&self, s: &Point2<f64>) -> Option<Ray> {
        let (x, y) = self.screen_to_ndc(s);
        if !(x.is_finite() && y.is_finite()) {
            return None;
        }
        let v = self.d.ray * Vector3::new(x, y, 1.0);
        if self.d.ortho {
            Ray::new(Point3::from(v), self.d.forward.into_inner())
        } else {
            Ray::new(self.d.eye, v)
        }
    }

    /// World units per screen pixel at `p` (conventions: `2 d tan(fov/2) / h`
    /// for perspective, `height_world / h` for orthographic), measured across
    /// the line of sight along [`View::up`]. `None` for a perspective point
    /// at or behind the eye plane.
    pub fn world_per_pixel(&self, p: &Point3<f64>) -> Option<f64> {
        if self.d.ortho {
            return Some(2.0 * self.d.half_h / self.height);
        }
        let d = self.view_depth(p);
        let w = 2.0 * d * self.d.half_h / self.height;
        (d > 0.0 && w.is_finite() && w > 0.0).then_some(w)
    }

    /// The culling frustum of this view, read off the rows of the
    /// world -> clip matrix (Vulkan: `-w <= x, y <= w`, `0 <= z <= w`).
    pub fn frustum(&self) -> Frustum {
        let m = &self.view_proj;
        let (r0, r1, r2, r3) =
            (m.row(0).into_owned(), m.row(1).into_owned(), m.row(2).into_owned(), m.row(3).into_owned());
        let scale = r3.fixed_columns::<3>(0).norm() + r2.fixed_columns::<3>(0).norm();
        // The half-space `r . (p, 1) >= 0`; `None` for a plane at infinity.
        let plane = |r: nalgebra::RowVector4<f64>| {
            let n = Vector3::new(r[0], r[1], r[2]);
            let len = n.norm();
            if !(len > 1e-12 * scale) {
                return None;
            }
            Some(Plane { normal: Unit::new_unchecked(n / len), d: r[3] / len }).filter(|p| p.d.is_finite())
        };
        let (near, far) = match self.depth_mode {
            DepthMode::Reversed => (r3 - r2, r2),
            DepthMode::Standard => (r2, r3 - r2),
        };
        let fallback = Plane { normal: self.d.forward, d: -self.d.forward.dot(&self.d.eye.coords) };
        Frustum {
            sides: [r3 + r0, r3 - r0, r3 + r1, r3 - r1].map(|r| plane(r).unwrap_or(fallback)),
            near: plane(near).unwrap_or(fallback),
            far: plane(far),
        }
    }
}

/// A viewport must have a positive, finite size.
fn check_viewport(width: f64, height: f64) -> Result<(), ViewError> {
    if width > 0.0 && height > 0.0 && width.is_finite() && height.is_finite() {
        Ok(())
    } else {
        Err(ViewError::Viewport(width, height))
    }
}

#[cfg(test)]
#[allow(clippy::field_reassign_with_default)]
mod tests;
