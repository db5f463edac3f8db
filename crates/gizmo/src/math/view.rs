//! [`View`]: one frame's camera, viewport and depth mode with every matrix
//! and its inverse computed once, plus the conversions between screen, NDC,
//! clip, view and world space, cursor rays, depth unprojection,
//! `world_per_pixel` and frustum planes.
//!
//! Screen coordinates follow `conventions.md`: physical pixels, origin at the
//! top-left, y down; `screen = (ndc + 1) / 2 * size` (Vulkan NDC y = -1 is the
//! top). Clip-space x, y and w do not depend on the depth mode; only z does.

// `!(x > 0.0)` is deliberate throughout: it is also true for NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Matrix4, Point2, Point3, Unit, Vector3, Vector4};

use super::camera::{Camera, CameraError, DepthMode, Projection};
use super::geom::{Plane, Ray};

/// Why a [`View`] cannot be built.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewError {
    Camera(CameraError),
    Viewport(f64, f64),
    Singular,
}

impl std::fmt::Display for ViewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ViewError::Camera(e) => e.fmt(f),
            ViewError::Viewport(w, h) => write!(f, "viewport size must be positive and finite, got {w} x {h}"),
            ViewError::Singular => write!(f, "camera matrices are not invertible"),
        }
    }
}

impl std::error::Error for ViewError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ViewError::Camera(e) => Some(e),
            _ => None,
        }
    }
}

impl From<CameraError> for ViewError {
    fn from(e: CameraError) -> ViewError {
        ViewError::Camera(e)
    }
}

/// Inverse of a rigid transform (rotation + translation).
fn rigid_inverse(m: &Matrix4<f64>) -> Matrix4<f64> {
    let r = m.fixed_view::<3, 3>(0, 0).transpose();
    let t = -(r * m.fixed_view::<3, 1>(0, 3));
    let mut out = Matrix4::identity();
    out.fixed_view_mut::<3, 3>(0, 0).copy_from(&r);
    out.fixed_view_mut::<3, 1>(0, 3).copy_from(&t);
    out
}

/// Inverse of the projection matrices of [`Projection::matrix`]:
/// perspective `[sx 0 0 0; 0 sy 0 0; 0 0 a b; 0 0 -1 0]` and orthographic
/// `[sx 0 0 0; 0 sy 0 0; 0 0 a b; 0 0 0 1]`.
fn projection_inverse(p: &Matrix4<f64>, ortho: bool) -> Option<Matrix4<f64>> {
    let (sx, sy, a, b) = (p[(0, 0)], p[(1, 1)], p[(2, 2)], p[(2, 3)]);
    let mut inv = Matrix4::zeros();
    inv[(0, 0)] = 1.0 / sx;
    inv[(1, 1)] = 1.0 / sy;
    if ortho {
        // z_c = a z_v + b.
        inv[(2, 2)] = 1.0 / a;
        inv[(2, 3)] = -b / a;
        inv[(3, 3)] = 1.0;
    } else {
        // w_c = -z_v, z_c = a z_v + b w_v.
        inv[(2, 3)] = -1.0;
        inv[(3, 2)] = 1.0 / b;
        inv[(3, 3)] = a / b;
    }
    inv.iter().all(|v| v.is_finite()).then_some(inv)
}

/// A world point's projection: screen position, depth-buffer value and
/// distance along the camera's forward axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projected {
    pub screen: Point2<f64>,
    /// The value the depth buffer would hold (mode dependent).
    pub depth: f64,
    /// Distance in front of the camera plane (view-space `-z`).
    pub view_depth: f64,
}

/// A validated camera for one viewport size and depth mode, with all
/// matrices and inverses precomputed (no inversion per query).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    camera: Camera,
    width: f64,
    height: f64,
    depth_mode: DepthMode,
    view: Matrix4<f64>,
    proj: Matrix4<f64>,
    view_proj: Matrix4<f64>,
    inv_view: Matrix4<f64>,
    inv_proj: Matrix4<f64>,
    inv_view_proj: Matrix4<f64>,
    forward: Unit<Vector3<f64>>,
    right: Unit<Vector3<f64>>,
    up: Unit<Vector3<f64>>,
    /// Perspective: tan(fov_y / 2). Orthographic: half the visible height.
    half_h: f64,
}

impl View {
    /// Validates the camera and viewport and precomputes every matrix.
    pub fn new(camera: Camera, width: f64, height: f64, depth_mode: DepthMode) -> Result<View, ViewError> {
        camera.validate()?;
        if !(width > 0.0 && height > 0.0 && width.is_finite() && height.is_finite()) {
            return Err(ViewError::Viewport(width, height));
        }
        let aspect = width / height;
        let view = camera.view_matrix();
        let proj = camera.projection_matrix(aspect, depth_mode);
        // Both inverses in closed form: the view matrix is rigid and the
        // projection has a fixed sparse shape.
        let inv_view = rigid_inverse(&view);
        let inv_proj = projection_inverse(&proj, camera.projection.is_orthographic()).ok_or(ViewError::Singular)?;
        let view_proj = proj * view;
        let inv_view_proj = inv_view * inv_proj;
        let all = [&view, &proj, &inv_view, &inv_proj, &view_proj, &inv_view_proj];
        if !all.iter().all(|m| m.iter().all(|v| v.is_finite())) {
            return Err(ViewError::Singular);
        }
        // Camera basis from the inverse view matrix (view space looks down -Z).
        let col = |i: usize| Vector3::new(inv_view[(0, i)], inv_view[(1, i)], inv_view[(2, i)]);
        let right = Unit::try_new(col(0), 1e-12).ok_or(ViewError::Singular)?;
        let up = Unit::try_new(col(1), 1e-12).ok_or(ViewError::Singular)?;
        let forward = Unit::try_new(-col(2), 1e-12).ok_or(ViewError::Singular)?;
        let half_h = match camera.projection {
            Projection::Perspective { fov_y, .. } => (fov_y * 0.5).tan(),
            Projection::Orthographic { height, .. } => height * 0.5,
        };
        Ok(View {
            camera,
            width,
            height,
            depth_mode,
            view,
            proj,
            view_proj,
            inv_view,
            inv_proj,
            inv_view_proj,
            forward,
            right,
            up,
            half_h,
        })
    }

    pub fn camera(&self) -> &Camera {
        &self.camera
    }
    pub fn width(&self) -> f64 {
        self.width
    }
    pub fn height(&self) -> f64 {
        self.height
    }
    pub fn aspect(&self) -> f64 {
        self.width / self.height
    }
    pub fn depth_mode(&self) -> DepthMode {
        self.depth_mode
    }
    pub fn is_orthographic(&self) -> bool {
        self.camera.projection.is_orthographic()
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
    pub fn inv_view(&self) -> &Matrix4<f64> {
        &self.inv_view
    }
    pub fn inv_proj(&self) -> &Matrix4<f64> {
        &self.inv_proj
    }
    pub fn inv_view_proj(&self) -> &Matrix4<f64> {
        &self.inv_view_proj
    }
    pub fn eye(&self) -> Point3<f64> {
        self.camera.eye
    }
    /// Unit vector the camera looks along.
    pub fn forward(&self) -> Unit<Vector3<f64>> {
        self.forward
    }
    /// Unit vector to the right of the screen.
    pub fn right(&self) -> Unit<Vector3<f64>> {
        self.right
    }
    /// Unit vector towards the top of the screen.
    pub fn up(&self) -> Unit<Vector3<f64>> {
        self.up
    }
    pub fn near(&self) -> f64 {
        self.camera.projection.near()
    }
    pub fn far(&self) -> f64 {
        self.camera.projection.far()
    }

    /// World point -> homogeneous clip coordinates.
    pub fn world_to_clip(&self, p: &Point3<f64>) -> Vector4<f64> {
        self.view_proj * p.to_homogeneous()
    }

    /// Distance of `p` in front of the camera plane (view-space `-z`).
    pub fn view_depth(&self, p: &Point3<f64>) -> f64 {
        (p - self.camera.eye).dot(&self.forward)
    }

    /// NDC x, y -> screen pixels.
    pub fn ndc_to_screen(&self, x: f64, y: f64) -> Point2<f64> {
        Point2::new((x + 1.0) * 0.5 * self.width, (y + 1.0) * 0.5 * self.height)
    }

    /// Screen pixels -> NDC x, y.
    pub fn screen_to_ndc(&self, s: &Point2<f64>) -> (f64, f64) {
        (2.0 * s.x / self.width - 1.0, 2.0 * s.y / self.height - 1.0)
    }

    /// Homogeneous screen coordinates `(X, Y, W)` of a clip-space vector:
    /// the screen position is `(X / W, Y / W)` and `W` is clip `w` (the view
    /// depth for a perspective camera). The map is linear, so it also takes
    /// clip-space directions (`view_proj * (d, 0)`) and sums of them, which is
    /// what the exact screen images of lines and circles are built from.
    pub fn clip_to_hscreen(&self, c: &Vector4<f64>) -> Vector3<f64> {
        Vector3::new(0.5 * self.width * (c.x + c.w), 0.5 * self.height * (c.y + c.w), c.w)
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
    /// NDC -> clip -> view -> world with the precomputed inverse. `None` where
    /// the depth is at infinity (reversed-Z perspective depth 0) or invalid.
    pub fn unproject(&self, s: &Point2<f64>, depth: f64) -> Option<Point3<f64>> {
        let (x, y) = self.screen_to_ndc(s);
        let clip = Vector4::new(x, y, depth, 1.0);
        let view = self.inv_proj * clip;
        if !(view.w.abs() > 1e-300) {
            return None;
        }
        let view = Point3::new(view.x / view.w, view.y / view.w, view.z / view.w);
        // In front of the camera only.
        if !(view.z < 0.0) {
            return None;
        }
        let world = self.inv_view.transform_point(&view);
        world.iter().all(|v| v.is_finite()).then_some(world)
    }

    /// The cursor ray at screen position `s`: from the eye (perspective) or
    /// from the eye plane (orthographic), along the line of sight through the
    /// pixel. Built from the camera basis, so it is exact with an infinite far
    /// plane. `None` only for a non-finite cursor.
    pub fn cursor_ray(&self, s: &Point2<f64>) -> Option<Ray> {
        let (x, y) = self.screen_to_ndc(s);
        if !(x.is_finite() && y.is_finite()) {
            return None;
        }
        // NDC y is down, the camera's up is up.
        let (sx, sy) = (x * self.half_h * self.aspect(), -y * self.half_h);
        let (f, r, u) = (self.forward.into_inner(), self.right.into_inner(), self.up.into_inner());
        if self.is_orthographic() {
            Ray::new(self.camera.eye + r * sx + u * sy, f)
        } else {
            Ray::new(self.camera.eye, f + r * sx + u * sy)
        }
    }

    /// World units per screen pixel at `p` (conventions: `2 d tan(fov/2) / h`
    /// for perspective, `height_world / h` for orthographic). `None` for a
    /// perspective point at or behind the eye plane.
    pub fn world_per_pixel(&self, p: &Point3<f64>) -> Option<f64> {
        if self.is_orthographic() {
            return Some(2.0 * self.half_h / self.height);
        }
        let d = self.view_depth(p);
        let w = 2.0 * d * self.half_h / self.height;
        (d > 0.0 && w.is_finite() && w > 0.0).then_some(w)
    }

    /// The culling frustum of this view.
    pub fn frustum(&self) -> Frustum {
        let eye = self.camera.eye;
        let (f, r, u) = (self.forward.into_inner(), self.right.into_inner(), self.up.into_inner());
        let (near, far) = (self.near(), self.far());
        let plane = |p: Point3<f64>, n: Vector3<f64>| Plane::from_point_normal(p, n);
        let hw = self.half_h * self.aspect();
        let sides = if self.is_orthographic() {
            [
                plane(eye - r * hw, r),
                plane(eye + r * hw, -r),
                plane(eye + u * self.half_h, -u),
                plane(eye - u * self.half_h, u),
            ]
        } else {
            [
                plane(eye, r + f * hw),
                plane(eye, -r + f * hw),
                plane(eye, -u + f * self.half_h),
                plane(eye, u + f * self.half_h),
            ]
        };
        let infinite = !self.is_orthographic() && self.depth_mode == DepthMode::Reversed;
        let fallback = Plane { normal: self.forward, d: 0.0 };
        Frustum {
            sides: sides.map(|p| p.unwrap_or(fallback)),
            near: plane(eye + f * near, f).unwrap_or(fallback),
            far: if infinite { None } else { plane(eye + f * far, -f) },
        }
    }
}

/// Inward-facing frustum planes; `far` is `None` for the infinite
/// reversed-Z perspective projection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    /// Left, right, top, bottom.
    pub sides: [Plane; 4],
    pub near: Plane,
    pub far: Option<Plane>,
}

impl Frustum {
    fn planes(&self) -> impl Iterator<Item = &Plane> {
        self.sides.iter().chain(std::iter::once(&self.near)).chain(self.far.iter())
    }

    /// Whether `p` is inside (on the inner side of every plane).
    pub fn contains_point(&self, p: &Point3<f64>) -> bool {
        self.planes().all(|pl| pl.signed_distance(p) >= 0.0)
    }

    /// Conservative sphere test (false only when surely outside).
    pub fn intersects_sphere(&self, center: &Point3<f64>, radius: f64) -> bool {
        self.planes().all(|pl| pl.signed_distance(center) >= -radius)
    }

    /// Conservative axis-aligned box test (false only when surely outside).
    pub fn intersects_aabb(&self, min: &Point3<f64>, max: &Point3<f64>) -> bool {
        self.planes().all(|pl| {
            let n = pl.normal;
            let pv = Point3::new(
                if n.x >= 0.0 { max.x } else { min.x },
                if n.y >= 0.0 { max.y } else { min.y },
                if n.z >= 0.0 { max.z } else { min.z },
            );
            pl.signed_distance(&pv) >= 0.0
        })
    }
}

#[cfg(test)]
#[allow(clippy::field_reassign_with_default)]
mod tests {
    use super::*;

    fn persp(depth: DepthMode) -> View {
        let cam = Camera {
            eye: Point3::new(0.0, 0.0, 10.0),
            target: Point3::origin(),
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 90f64.to_radians(), near: 0.1, far: 100.0 },
        };
        View::new(cam, 200.0, 100.0, depth).unwrap()
    }

    fn ortho(depth: DepthMode) -> View {
        let cam = Camera {
            eye: Point3::new(0.0, 0.0, 10.0),
            target: Point3::origin(),
            up: Vector3::y(),
            projection: Projection::Orthographic { height: 4.0, near: 0.1, far: 100.0 },
        };
        View::new(cam, 200.0, 100.0, depth).unwrap()
    }

    fn near2(a: Point2<f64>, b: Point2<f64>) -> bool {
        (a - b).norm() < 1e-9
    }

    #[test]
    fn world_to_screen_hand_computed() {
        for mode in [DepthMode::Reversed, DepthMode::Standard] {
            let v = persp(mode);
            // Target -> centre. fov 90: at depth 10 the half height is 10 m.
            assert!(near2(v.world_to_screen(&Point3::origin()).unwrap(), Point2::new(100.0, 50.0)));
            // +Y appears upward (smaller y): y = 5 at depth 10 -> a quarter up.
            assert!(near2(v.world_to_screen(&Point3::new(0.0, 5.0, 0.0)).unwrap(), Point2::new(100.0, 25.0)));
            // x = 10 at depth 10 -> half of the half width (aspect 2 -> 20 m).
            assert!(near2(v.world_to_screen(&Point3::new(10.0, 0.0, 0.0)).unwrap(), Point2::new(150.0, 50.0)));
            // Behind the eye: none.
            assert!(v.world_to_screen(&Point3::new(0.0, 0.0, 11.0)).is_none());
            let o = ortho(mode);
            assert!(near2(o.world_to_screen(&Point3::new(2.0, 1.0, 0.0)).unwrap(), Point2::new(150.0, 25.0)));
        }
    }

    #[test]
    fn screen_ndc_round_trip_and_pixel_centres() {
        let v = persp(DepthMode::Reversed);
        let (x, y) = v.screen_to_ndc(&Point2::new(0.0, 0.0));
        assert_eq!((x, y), (-1.0, -1.0));
        let s = Point2::new(12.5, 77.5);
        let (x, y) = v.screen_to_ndc(&s);
        assert!(near2(v.ndc_to_screen(x, y), s));
    }

    #[test]
    fn cursor_ray_passes_through_projected_points() {
        for v in [persp(DepthMode::Reversed), persp(DepthMode::Standard), ortho(DepthMode::Reversed)] {
            let p = Point3::new(3.0, -2.0, -40.0);
            let s = v.world_to_screen(&p).unwrap();
            let ray = v.cursor_ray(&s).unwrap();
            let t = (p - ray.origin).dot(&ray.dir);
            assert!((ray.at(t) - p).norm() < 1e-9);
            assert!(t > 0.0);
        }
        // The centre ray of the perspective camera is the forward axis from the eye.
        let v = persp(DepthMode::Reversed);
        let r = v.cursor_ray(&Point2::new(100.0, 50.0)).unwrap();
        assert_eq!(r.origin, Point3::new(0.0, 0.0, 10.0));
        assert!((r.dir.into_inner() - Vector3::new(0.0, 0.0, -1.0)).norm() < 1e-12);
        // Orthographic rays are parallel, origins spread over the eye plane.
        let o = ortho(DepthMode::Reversed);
        let r = o.cursor_ray(&Point2::new(0.0, 0.0)).unwrap();
        assert!((r.origin - Point3::new(-4.0, 2.0, 10.0)).norm() < 1e-12);
        assert!(o.cursor_ray(&Point2::new(f64::NAN, 0.0)).is_none());
    }

    #[test]
    fn depth_unprojection_both_modes() {
        let p = Point3::new(1.0, 2.0, -3.0);
        for v in [
            persp(DepthMode::Reversed),
            persp(DepthMode::Standard),
            ortho(DepthMode::Reversed),
            ortho(DepthMode::Standard),
        ] {
            let pr = v.project(&p).unwrap();
            let back = v.unproject(&pr.screen, pr.depth).unwrap();
            assert!((back - p).norm() < 1e-9, "{back:?}");
            assert!((pr.view_depth - 13.0).abs() < 1e-12);
        }
        // Hand-computed reversed depth: near / d = 0.1 / 13.
        let v = persp(DepthMode::Reversed);
        assert!((v.project(&p).unwrap().depth - 0.1 / 13.0).abs() < 1e-15);
        // Reversed depth 0 is infinity: no point. Depth 1 is the near plane.
        assert!(v.unproject(&Point2::new(100.0, 50.0), 0.0).is_none());
        let q = v.unproject(&Point2::new(100.0, 50.0), 1.0).unwrap();
        assert!((q - Point3::new(0.0, 0.0, 9.9)).norm() < 1e-12);
        // Standard: depth 1 is the far plane.
        let v = persp(DepthMode::Standard);
        let q = v.unproject(&Point2::new(100.0, 50.0), 1.0).unwrap();
        assert!((q - Point3::new(0.0, 0.0, -90.0)).norm() < 1e-9);
    }

    #[test]
    fn world_per_pixel_matches_conventions() {
        let v = persp(DepthMode::Reversed);
        // depth 10, tan 45 = 1, height 100 -> 0.2 m per pixel.
        assert!((v.world_per_pixel(&Point3::origin()).unwrap() - 0.2).abs() < 1e-12);
        assert!(v.world_per_pixel(&Point3::new(0.0, 0.0, 20.0)).is_none());
        let o = ortho(DepthMode::Reversed);
        assert!((o.world_per_pixel(&Point3::new(5.0, 5.0, -50.0)).unwrap() - 0.04).abs() < 1e-12);
        // A 100 px handle at the pivot measures 100 px on screen.
        let l = 100.0 * v.world_per_pixel(&Point3::origin()).unwrap();
        let a = v.world_to_screen(&Point3::origin()).unwrap();
        let b = v.world_to_screen(&Point3::new(0.0, l, 0.0)).unwrap();
        assert!(((a - b).norm() - 100.0).abs() < 1e-9);
    }

    #[test]
    fn frustum_planes_agree_with_clip_space() {
        for v in [persp(DepthMode::Reversed), persp(DepthMode::Standard), ortho(DepthMode::Standard)] {
            let f = v.frustum();
            for p in [
                Point3::new(0.0, 0.0, 0.0),
                Point3::new(9.0, 0.0, 0.0),
                Point3::new(0.0, 11.0, 0.0),
                Point3::new(25.0, 0.0, 0.0),
                Point3::new(0.0, 0.0, 9.95),
                Point3::new(0.0, 0.0, -95.0),
                Point3::new(0.0, 0.0, -500.0),
            ] {
                let c = v.world_to_clip(&p);
                let n = c / c.w;
                let inside = c.w > 0.0 && n.x.abs() <= 1.0 && n.y.abs() <= 1.0 && (0.0..=1.0).contains(&n.z);
                assert_eq!(f.contains_point(&p), inside, "{p:?} {n:?}");
            }
        }
        // The infinite reversed frustum has no far plane.
        assert!(persp(DepthMode::Reversed).frustum().far.is_none());
        let f = persp(DepthMode::Standard).frustum();
        assert!(f.intersects_sphere(&Point3::new(0.0, 0.0, -90.5), 1.0));
        assert!(!f.intersects_sphere(&Point3::new(0.0, 0.0, -92.0), 1.0));
        assert!(f.intersects_aabb(&Point3::new(-1.0, -1.0, -1.0), &Point3::new(1.0, 1.0, 1.0)));
        assert!(!f.intersects_aabb(&Point3::new(-1.0, -1.0, 20.0), &Point3::new(1.0, 1.0, 21.0)));
    }

    #[test]
    fn closed_form_inverses_match_general_inverse() {
        for v in [
            persp(DepthMode::Reversed),
            persp(DepthMode::Standard),
            ortho(DepthMode::Reversed),
            ortho(DepthMode::Standard),
        ] {
            let g = v.proj_matrix().try_inverse().unwrap();
            assert!((g - v.inv_proj()).norm() < 1e-9 * (1.0 + g.norm()));
            assert!((v.view_matrix() * v.inv_view() - Matrix4::identity()).norm() < 1e-12);
            assert!((v.view_proj() * v.inv_view_proj() - Matrix4::identity()).norm() < 1e-9);
        }
    }

    #[test]
    fn degenerate_views_are_rejected() {
        let mut cam = Camera::default();
        cam.target = cam.eye;
        assert!(View::new(cam, 100.0, 100.0, DepthMode::Reversed).is_err());
        let mut cam = Camera::default();
        cam.projection = Projection::Perspective { fov_y: 0.0, near: 0.1, far: 10.0 };
        assert!(View::new(cam, 100.0, 100.0, DepthMode::Reversed).is_err());
        assert!(View::new(Camera::default(), 0.0, 100.0, DepthMode::Reversed).is_err());
        assert!(View::new(Camera::default(), f64::NAN, 100.0, DepthMode::Reversed).is_err());
    }
}
