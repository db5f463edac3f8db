//! `View::from_matrices`: an engine's own view and projection matrices drive
//! the same camera math as our look-at `Camera`.
//!
//! Expected values are computed here from the matrices themselves (project
//! with `P * V`, divide, map to pixels; invert with nalgebra), or from the
//! formulas of `docs/spec/conventions.md`, never read back from the `View` under test.

use nalgebra::{Matrix4, Point2, Point3, Unit, Vector2, Vector3};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use viewport_gizmo::gizmo::{Axis, Gizmo, GizmoConfig, Handle, Target};
use viewport_gizmo::math::{Camera, DepthMode, Projection, Transform, View, ViewError};

const MODES: [DepthMode; 2] = [DepthMode::Reversed, DepthMode::Standard];

/// World -> screen pixels with a world -> clip matrix, as a shader and the
/// viewport transform would do it. `None` at or behind the eye.
fn screen(m: &Matrix4<f64>, size: (f64, f64), p: &Point3<f64>) -> Option<Point2<f64>> {
    let c = m * p.to_homogeneous();
    (c.w > 0.0).then(|| Point2::new((c.x / c.w + 1.0) * 0.5 * size.0, (c.y / c.w + 1.0) * 0.5 * size.1))
}

/// The world line through pixel `s`: two points of the pixel at different
/// depths, unprojected with the inverse projection in view space (small
/// numbers), then taken to the world with the inverse view matrix (the
/// direction with its linear part only, so a camera far from the origin
/// costs no digits).
fn pixel_line(vm: &Matrix4<f64>, pm: &Matrix4<f64>, size: (f64, f64), s: &Point2<f64>) -> (Point3<f64>, Vector3<f64>) {
    let (ip, iv) = (pm.try_inverse().unwrap(), vm.try_inverse().unwrap());
    let (x, y) = (2.0 * s.x / size.0 - 1.0, 2.0 * s.y / size.1 - 1.0);
    let at = |z: f64| {
        let h = ip * nalgebra::Vector4::new(x, y, z, 1.0);
        Point3::new(h.x / h.w, h.y / h.w, h.z / h.w)
    };
    let (a, b) = (at(0.25), at(0.75));
    (iv.transform_point(&a), iv.transform_vector(&(b - a)))
}

fn rand_unit(rng: &mut StdRng) -> Vector3<f64> {
    loop {
        let v = Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
        let n = v.norm();
        if n > 0.1 && n <= 1.0 {
            return v / n;
        }
    }
}

/// A random look-at camera, often far from the origin.
fn random_camera(rng: &mut StdRng, ortho: bool) -> Camera {
    let far_away = rng.gen_bool(0.5);
    let origin = if far_away { rand_unit(rng) * rng.gen_range(1e3..2e4) } else { Vector3::zeros() };
    let target = Point3::from(origin + rand_unit(rng) * rng.gen_range(0.0..3.0));
    let dist = 10f64.powf(rng.gen_range(-0.5..2.5));
    let eye = target + rand_unit(rng) * dist;
    let near = 10f64.powf(rng.gen_range(-3.0..-0.5)).min(0.5 * dist);
    let far = dist * 10f64.powf(rng.gen_range(0.5..3.0));
    let projection = if ortho {
        Projection::Orthographic { height: 10f64.powf(rng.gen_range(-0.5..2.0)), near, far }
    } else {
        Projection::Perspective { fov_y: rng.gen_range(10f64..120.0).to_radians(), near, far }
    };
    let up = if rng.gen_bool(0.7) { Vector3::y() } else { rand_unit(rng) };
    Camera { eye, target, up, projection }
}

fn random_size(rng: &mut StdRng) -> (f64, f64) {
    (rng.gen_range(64.0..3840.0_f64).round(), rng.gen_range(64.0..2160.0_f64).round())
}

/// A world point inside the camera's view (depth between near and 100x the
/// target distance, within the visible rectangle).
fn point_in_view(rng: &mut StdRng, cam: &Camera, size: (f64, f64)) -> Point3<f64> {
    let f = cam.forward();
    let r = f.cross(&cam.up).normalize();
    let u = r.cross(&f);
    let dist = (cam.target - cam.eye).norm();
    let (near, far) = (cam.projection.near(), cam.projection.far());
    let d = rng.gen_range((near * 1.5)..far.min(100.0 * dist).max(near * 3.0));
    let half_h = match cam.projection {
        Projection::Perspective { fov_y, .. } => d * (0.5 * fov_y).tan(),
        Projection::Orthographic { height, .. } => 0.5 * height,
    };
    let half_w = half_h * size.0 / size.1;
    cam.eye + f * d + r * (half_w * rng.gen_range(-0.95..0.95)) + u * (half_h * rng.gen_range(-0.95..0.95))
}

/// Many random cameras: a View from the camera's own matrices agrees with
/// `View::new` and with the matrices themselves.
#[test]
fn from_matrices_agrees_with_view_new() {
    let mut rng = StdRng::seed_from_u64(17);
    let mut checked = [0usize; 2];
    for case in 0..3000 {
        let ortho = case % 3 == 0;
        let cam = random_camera(&mut rng, ortho);
        let size = random_size(&mut rng);
        let mode = MODES[case % 2];
        let a = View::new(cam, size.0, size.1, mode).unwrap();
        let (vm, pm) = (cam.view_matrix(), cam.projection_matrix(size.0 / size.1, mode));
        let b = View::from_matrices(vm, pm, size, mode).unwrap_or_else(|e| panic!("case {case}: {e} {cam:?}"));
        let m = pm * vm;
        let scale = 1.0 + cam.eye.coords.norm();
        assert_eq!(b.is_orthographic(), ortho, "case {case}");
        assert_eq!(b.depth_mode(), mode);
        assert!((b.eye() - cam.eye).norm() <= 1e-12 * scale, "case {case}: eye {} vs {}", b.eye(), cam.eye);
        assert!((b.forward().into_inner() - cam.forward()).norm() < 1e-12, "case {case}");
        let right = cam.forward().cross(&cam.up).normalize();
        assert!((b.right().into_inner() - right).norm() < 1e-12, "case {case}");
        assert!((b.up().into_inner() - right.cross(&cam.forward())).norm() < 1e-12, "case {case}");
        let near = cam.projection.near();
        // The matrices pin down the plane nearer to depth 0 only to about
        // `eps * far / near` (relative): the orthographic near plane, the
        // perspective far plane.
        let ratio = cam.projection.far() / near;
        let near_tol = if ortho { 1e-12 + 1e-15 * ratio } else { 1e-12 };
        assert!((b.near() - near).abs() <= near_tol * near, "case {case}: near {} vs {near}", b.near());
        let far = if !ortho && mode == DepthMode::Reversed { f64::INFINITY } else { cam.projection.far() };
        let far_tol = if ortho { 1e-12 } else { 1e-12 + 1e-15 * ratio };
        assert!(b.far() == far || (b.far() - far).abs() <= far_tol * far, "case {case}: far {} vs {far}", b.far());
        assert_eq!(b.frustum().far.is_none(), far.is_infinite());
        for _ in 0..8 {
            // Projections: the same pixels as the matrices give.
            let p = point_in_view(&mut rng, &cam, size);
            let expect = screen(&m, size, &p).unwrap();
            for v in [&a, &b] {
                let got = v.project(&p).unwrap();
                assert!((got.screen - expect).norm() < 1e-9 * (1.0 + size.0), "case {case}: {got:?} vs {expect}");
                assert!(v.frustum().contains_point(&p), "case {case}: {p} outside");
            }
            let (pa, pb) = (a.project(&p).unwrap(), b.project(&p).unwrap());
            assert!((pa.view_depth - pb.view_depth).abs() <= 1e-12 * scale, "case {case}");
            assert!((pa.depth - pb.depth).abs() <= 1e-12, "case {case}");
            // Depth unprojection returns the point.
            let back = b.unproject(&pb.screen, pb.depth).unwrap();
            let depth_scale = 1.0 + (p - cam.eye).norm() * (p - cam.eye).norm() / near;
            assert!((back - p).norm() <= 1e-9 * depth_scale + 1e-12 * scale, "case {case}: {back} vs {p}");
            // world_per_pixel: the formula of docs/spec/conventions.md.
            let d = (p - cam.eye).dot(&cam.forward());
            let wpp = match cam.projection {
                Projection::Perspective { fov_y, .. } => 2.0 * d * (0.5 * fov_y).tan() / size.1,
                Projection::Orthographic { height, .. } => height / size.1,
            };
            for v in [&a, &b] {
                let got = v.world_per_pixel(&p).unwrap();
                assert!((got - wpp).abs() <= 1e-12 * wpp + 1e-15 * scale / size.1, "case {case}: {got} vs {wpp}");
            }
            // Rays: through the pixel (the line of the inverse matrix), from
            // the eye or the eye plane, and the same in both views.
            let s = Point2::new(rng.gen_range(0.0..size.0), rng.gen_range(0.0..size.1));
            let (lp, ld) = pixel_line(&vm, &pm, size, &s);
            let ld = ld.normalize();
            let (ra, rb) = (a.cursor_ray(&s).unwrap(), b.cursor_ray(&s).unwrap());
            for r in [&ra, &rb] {
                assert!(r.dir.dot(&cam.forward()) > 0.0, "case {case}");
                assert!(r.dir.cross(&ld).norm() < 1e-9, "case {case}: dir {} vs {ld}", r.dir.into_inner());
                // The origin lies on the pixel's line, at view depth 0.
                let off = r.origin - lp;
                assert!((off - ld * off.dot(&ld)).norm() <= 1e-9 * (1.0 + off.norm()), "case {case}");
                assert!((r.origin - cam.eye).dot(&cam.forward()).abs() <= 1e-9 * scale, "case {case}");
                // A point along the ray projects back onto the pixel.
                let q = r.at(rng.gen_range(0.5..2.0) * (cam.target - cam.eye).norm());
                let e = (screen(&m, size, &q).unwrap() - s).norm();
                assert!(e < 1e-6, "case {case}: {e} px {cam:?} {size:?} {mode:?}");
            }
            assert!(ra.dir.cross(&rb.dir).norm() < 1e-12, "case {case}");
            assert!((ra.origin - rb.origin).norm() <= 1e-12 * scale, "case {case}");
        }
        checked[ortho as usize] += 1;
    }
    assert!(checked[0] > 1500 && checked[1] > 800, "{checked:?}");
}

// An engine's matrices, written out here by hand (right-handed view space
// looking down -Z, Vulkan clip space: y down, depth in [0, 1]).

fn look_at(eye: &Point3<f64>, target: &Point3<f64>, up: &Vector3<f64>) -> Matrix4<f64> {
    let f = (target - eye).normalize();
    let r = f.cross(up).normalize();
    let u = r.cross(&f);
    #[rustfmt::skip]
    let m = Matrix4::new(
        r.x,  r.y,  r.z,  -r.dot(&eye.coords),
        u.x,  u.y,  u.z,  -u.dot(&eye.coords),
        -f.x, -f.y, -f.z, f.dot(&eye.coords),
        0.0,  0.0,  0.0,  1.0,
    );
    m
}

/// Perspective with an optional off-centre shift of the image (`cx`, `cy`
/// in NDC) and `far = None` for an infinite far plane.
fn perspective(
    fov_y: f64,
    aspect: f64,
    near: f64,
    far: Option<f64>,
    cx: f64,
    cy: f64,
    mode: DepthMode,
) -> Matrix4<f64> {
    let f = 1.0 / (0.5 * fov_y).tan();
    // depth = (a z + b) / -z.
    let (a, b) = match (mode, far) {
        (DepthMode::Reversed, None) => (0.0, near),
        (DepthMode::Reversed, Some(far)) => (near / (far - near), near * far / (far - near)),
        (DepthMode::Standard, None) => (-1.0, -near),
        (DepthMode::Standard, Some(far)) => (far / (near - far), near * far / (near - far)),
    };
    #[rustfmt::skip]
    let m = Matrix4::new(
        f / aspect, 0.0, -cx, 0.0,
        0.0,        -f,  -cy, 0.0,
        0.0,        0.0, a,   b,
        0.0,        0.0, -1.0, 0.0,
    );
    m
}

fn orthographic(height: f64, aspect: f64, near: f64, far: f64, mode: DepthMode) -> Matrix4<f64> {
    let (a, b) = match mode {
        DepthMode::Reversed => (1.0 / (far - near), far / (far - near)),
        DepthMode::Standard => (-1.0 / (far - near), -near / (far - near)),
    };
    #[rustfmt::skip]
    let m = Matrix4::new(
        2.0 / (height * aspect), 0.0, 0.0, 0.0,
        0.0, -2.0 / height, 0.0, 0.0,
        0.0, 0.0, a, b,
        0.0, 0.0, 0.0, 1.0,
    );
    m
}

#[test]
fn hand_built_matrices_match_their_definitions() {
    let eye = Point3::new(3.0, 2.0, 5.0);
    let vm = look_at(&eye, &Point3::origin(), &Vector3::y());
    for mode in MODES {
        for far in [None, Some(80.0)] {
            let pm = perspective(1.0, 1.5, 0.1, far, 0.0, 0.0, mode);
            let v = View::from_matrices(vm, pm, (300.0, 200.0), mode).unwrap();
            assert!(!v.is_orthographic());
            assert!((v.near() - 0.1).abs() < 1e-12);
            assert_eq!(v.far().is_infinite(), far.is_none(), "{mode:?} {far:?}");
            assert_eq!(v.frustum().far.is_none(), far.is_none());
            // The target is at the centre; 0.5 tan(0.5) of the depth per half height.
            let c = v.world_to_screen(&Point3::origin()).unwrap();
            assert!((c - Point2::new(150.0, 100.0)).norm() < 1e-9);
            let d = eye.coords.norm();
            assert!((v.world_per_pixel(&Point3::origin()).unwrap() - 2.0 * d * 0.5f64.tan() / 200.0).abs() < 1e-12);
            // Reversed: near -> 1; standard: near -> 0.
            let near_pt = eye + (Point3::origin() - eye).normalize() * 0.1;
            let expect = if mode == DepthMode::Reversed { 1.0 } else { 0.0 };
            assert!((v.project(&near_pt).unwrap().depth - expect).abs() < 1e-9);
        }
        // Off-centre: rays still pass through the points that project to
        // their pixel, and the vertical pixel scale is unchanged.
        let pm = perspective(1.0, 1.5, 0.1, Some(500.0), 0.2, -0.1, mode);
        let v = View::from_matrices(vm, pm, (300.0, 200.0), mode).unwrap();
        let m = pm * vm;
        for p in [Point3::new(0.3, -0.2, 0.1), Point3::new(-1.0, 0.5, -2.0), Point3::new(0.0, 0.0, -20.0)] {
            let s = screen(&m, (300.0, 200.0), &p).unwrap();
            let r = v.cursor_ray(&s).unwrap();
            assert!((r.origin - eye).norm() < 1e-12 && (p - r.origin).cross(&r.dir).norm() < 1e-9, "{p}");
            let d = (p - eye).dot(&(Point3::origin() - eye).normalize());
            assert!((v.world_per_pixel(&p).unwrap() - 2.0 * d * 0.5f64.tan() / 200.0).abs() < 1e-12);
        }
        // A camera 1e6 m out, and a scaled (non-rigid) view matrix.
        let far_eye = Point3::new(1e6, -2e6, 3e6);
        let target = far_eye + Vector3::new(-3.0, -2.0, -5.0);
        let pm = perspective(1.0, 1.5, 0.1, None, 0.0, 0.0, mode);
        for scale in [1.0, 2.5] {
            let vm_far = Matrix4::new_scaling(scale) * look_at(&far_eye, &target, &Vector3::y());
            let vm_far = Matrix4::from_fn(|r, c| if r == 3 { [0.0, 0.0, 0.0, 1.0][c] } else { vm_far[(r, c)] });
            let v = View::from_matrices(vm_far, pm, (300.0, 200.0), mode).unwrap();
            assert!((v.eye() - far_eye).norm() < 1e-9, "{}", v.eye());
            assert!((v.world_to_screen(&target).unwrap() - Point2::new(150.0, 100.0)).norm() < 1e-6);
            let r = v.cursor_ray(&Point2::new(150.0, 100.0)).unwrap();
            assert!((r.origin - far_eye).norm() < 1e-9 && (r.at((target - far_eye).norm()) - target).norm() < 1e-9);
        }
        let pm = orthographic(4.0, 1.5, -50.0, 50.0, mode);
        let v = View::from_matrices(vm, pm, (300.0, 200.0), mode).unwrap();
        assert!(v.is_orthographic());
        assert!((v.world_per_pixel(&Point3::origin()).unwrap() - 4.0 / 200.0).abs() < 1e-15);
        // A near plane behind the view origin: the eye moves back so that
        // everything visible is in front of it.
        let behind = eye + (eye - Point3::origin()).normalize() * 40.0;
        assert!(v.view_depth(&behind) > 0.0 && v.view_depth(&behind) < v.far());
        let r = v.cursor_ray(&v.world_to_screen(&behind).unwrap()).unwrap();
        assert!((r.origin - behind).cross(&r.dir).norm() < 1e-9);
    }
}

/// A drag driven only through matrices: the grabbed point, re-projected with
/// the matrices, stays under the cursor (axis: under the cursor's
/// projection onto the axis image).
#[test]
fn drag_through_matrices_keeps_the_grabbed_point_under_the_cursor() {
    let mut rng = StdRng::seed_from_u64(99);
    let (mut axis_checks, mut plane_checks, mut clamped) = (0, 0, 0);
    for case in 0..600 {
        let mode = MODES[case % 2];
        let ortho = case % 4 == 1;
        let size = random_size(&mut rng);
        let aspect = size.0 / size.1;
        let origin = if case % 3 == 0 { rand_unit(&mut rng) * 1e4 } else { Vector3::zeros() };
        let pivot = Point3::from(origin + rand_unit(&mut rng) * rng.gen_range(0.0..2.0));
        let eye = pivot + rand_unit(&mut rng) * rng.gen_range(2.0..40.0);
        let vm = look_at(&eye, &pivot, &Vector3::y());
        let pm = if ortho {
            orthographic(rng.gen_range(2.0..30.0), aspect, 0.05, 500.0, mode)
        } else {
            let far = if rng.gen_bool(0.5) { None } else { Some(1000.0) };
            let (cx, cy) =
                if rng.gen_bool(0.5) { (rng.gen_range(-0.3..0.3), rng.gen_range(-0.3..0.3)) } else { (0.0, 0.0) };
            perspective(rng.gen_range(30f64..90.0).to_radians(), aspect, 0.05, far, cx, cy, mode)
        };
        let m = pm * vm;
        let Ok(view) = View::from_matrices(vm, pm, size, mode) else { panic!("case {case}: rejected") };
        let target = Target::root(Transform { position: pivot.coords, ..Transform::IDENTITY });
        let targets = [target];
        let mut gizmo = Gizmo::new(GizmoConfig::default());
        let Some(frame) = gizmo.frame(&view, &targets) else { continue };
        let l = frame.len;

        // Translate along X, grabbed at 0.6 L on the axis.
        let x = Vector3::x();
        let grabbed = pivot + x * (0.6 * l);
        let m0 = screen(&m, size, &grabbed).unwrap();
        let image_dir = |p: &Point3<f64>| {
            let (a, b) = (screen(&m, size, p)?, screen(&m, size, &(p + x * (0.01 * l)))?);
            Unit::try_new(b - a, 1e-12)
        };
        if image_dir(&pivot).is_some() && gizmo.begin_with(&view, &targets, Handle::TranslateAxis(Axis::X), m0) {
            for _ in 0..5 {
                // A cursor somewhere along the axis image, pushed sideways.
                let s = rng.gen_range(-2.0..3.0) * l;
                let Some(on_axis) = screen(&m, size, &(pivot + x * s)) else { continue };
                let Some(dir) = image_dir(&pivot) else { continue };
                let side = Vector2::new(-dir.y, dir.x) * rng.gen_range(-30.0..30.0);
                let u = gizmo.update(&view, on_axis + side, false).unwrap();
                if u.clamped {
                    clamped += 1;
                    continue;
                }
                let moved = grabbed + u.transforms[0].position - pivot.coords;
                let now = screen(&m, size, &Point3::from(moved.coords)).unwrap();
                let err = (now - on_axis).norm();
                assert!(err < 1e-3, "case {case}: grabbed point {err} px from the cursor's foot");
                // It moved along X only.
                let d = u.transforms[0].position - pivot.coords;
                assert!(d.y.abs() + d.z.abs() <= 1e-9 * (1.0 + d.norm()), "case {case}: {d}");
                axis_checks += 1;
            }
            gizmo.end();
        }

        // Translate in the XZ plane, grabbed inside its square.
        let h0 = pivot + (Vector3::x() + Vector3::z()) * (0.3 * l);
        let m0 = screen(&m, size, &h0).unwrap();
        let (_, ray0) = pixel_line(&vm, &pm, size, &m0);
        if (ray0.normalize().y).abs() > 0.1 && gizmo.begin_with(&view, &targets, Handle::TranslatePlane(Axis::Y), m0) {
            for _ in 0..5 {
                let q = pivot + Vector3::new(rng.gen_range(-3.0..3.0), 0.0, rng.gen_range(-3.0..3.0)) * l;
                let Some(mq) = screen(&m, size, &q) else { continue };
                let u = gizmo.update(&view, mq, false).unwrap();
                if u.clamped {
                    clamped += 1;
                    continue;
                }
                let moved = h0 + (u.transforms[0].position - pivot.coords);
                let err = (screen(&m, size, &moved).unwrap() - mq).norm();
                assert!(err < 1e-3, "case {case}: plane drag {err} px off");
                plane_checks += 1;
            }
            gizmo.end();
        }
    }
    assert!(axis_checks > 1500 && plane_checks > 1500, "{axis_checks} {plane_checks} ({clamped} clamped)");
}

/// With an infinite far plane a drag towards the vanishing point still
/// clamps at a finite depth instead of stopping or running to infinity.
#[test]
fn drag_to_the_horizon_clamps_with_an_infinite_far_plane() {
    for mode in MODES {
        let eye = Point3::new(0.0, 1.0, 5.0);
        let vm = look_at(&eye, &Point3::origin(), &Vector3::y());
        let pm = perspective(1.0, 1.5, 0.05, None, 0.0, 0.0, mode);
        let size = (600.0, 400.0);
        let view = View::from_matrices(vm, pm, size, mode).unwrap();
        assert!(view.far().is_infinite());
        let targets = [Target::root(Transform::IDENTITY)];
        let mut gizmo = Gizmo::new(GizmoConfig::default());
        let l = gizmo.frame(&view, &targets).unwrap().len;
        // Grab -Z's image (Z points at the camera) and pull the cursor up
        // past the horizon, where the axis has no points.
        let m = pm * vm;
        let m0 = screen(&m, size, &Point3::new(0.0, 0.0, 0.5 * l)).unwrap();
        assert!(gizmo.begin_with(&view, &targets, Handle::TranslateAxis(Axis::Z), m0));
        let mut last_z = 0.0;
        for k in 1..=40 {
            let u = gizmo.update(&view, m0 - Vector2::new(0.0, 10.0 * k as f64), false).unwrap();
            let p = u.transforms[0].position;
            assert!(p.iter().all(|v| v.is_finite()), "{mode:?} step {k}: {p}");
            // Monotone away from the camera, and never deeper than the
            // default far distance (1000).
            let depth = (Point3::from(p) - eye).dot(&(Point3::origin() - eye).normalize());
            assert!(p.z <= last_z + 1e-9 && depth <= 1000.0 * (1.0 + 1e-12), "{mode:?} step {k}: {p}");
            last_z = p.z;
        }
        assert!(gizmo.update(&view, m0 - Vector2::new(0.0, 1000.0), false).unwrap().clamped);
    }
}

#[test]
fn bad_matrices_are_errors_not_panics() {
    let cam = Camera::default();
    let (vm, pm) = (cam.view_matrix(), cam.projection_matrix(1.5, DepthMode::Reversed));
    let size = (300.0, 200.0);
    let r = DepthMode::Reversed;
    assert!(View::from_matrices(vm, pm, size, r).is_ok());
    assert_eq!(View::from_matrices(Matrix4::zeros(), pm, size, r), Err(ViewError::Singular));
    assert_eq!(View::from_matrices(vm, Matrix4::zeros(), size, r), Err(ViewError::Singular));
    let mut nan = pm;
    nan[(1, 1)] = f64::NAN;
    assert_eq!(View::from_matrices(vm, nan, size, r), Err(ViewError::NotFinite));
    let mut inf = vm;
    inf[(0, 3)] = f64::INFINITY;
    assert_eq!(View::from_matrices(inf, pm, size, r), Err(ViewError::NotFinite));
    // Singular projection: a zero row.
    let mut flat = pm;
    flat.set_row(1, &nalgebra::RowVector4::zeros());
    assert_eq!(View::from_matrices(vm, flat, size, r), Err(ViewError::Singular));
    // Nearly singular view (scaled to 1e-15 along one axis).
    let squash = Matrix4::new_nonuniform_scaling(&Vector3::new(1.0, 1e-15, 1.0)) * vm;
    assert!(View::from_matrices(squash, pm, size, r).is_err());
    // A projective view matrix.
    let mut proj_view = vm;
    proj_view[(3, 0)] = 0.5;
    assert!(matches!(View::from_matrices(proj_view, pm, size, r), Err(ViewError::Unsupported(_))));
    // Matrices of the other depth mode.
    assert!(matches!(View::from_matrices(vm, pm, size, DepthMode::Standard), Err(ViewError::Unsupported(_))));
    let std_pm = cam.projection_matrix(1.5, DepthMode::Standard);
    assert!(matches!(View::from_matrices(vm, std_pm, size, r), Err(ViewError::Unsupported(_))));
    // An orthographic projection whose clip w is negative.
    let neg = -cam.projection.matrix(1.5, r);
    assert!(View::from_matrices(vm, -orthographic(4.0, 1.5, 0.1, 10.0, r), size, r).is_err());
    assert!(View::from_matrices(vm, neg, size, r).is_err());
    // Bad viewports.
    for s in [(0.0, 200.0), (300.0, -1.0), (f64::NAN, 200.0), (300.0, f64::INFINITY)] {
        assert!(matches!(View::from_matrices(vm, pm, s, r), Err(ViewError::Viewport(..))));
    }
    // Random garbage: an answer, never a panic, and an Ok view is usable.
    let mut rng = StdRng::seed_from_u64(4);
    let mut ok = 0;
    for _ in 0..5000 {
        let mut a = Matrix4::from_fn(|_, _| if rng.gen_bool(0.3) { 0.0 } else { rng.gen_range(-2.0..2.0) });
        let b = if rng.gen_bool(0.5) { pm } else { Matrix4::from_fn(|_, _| rng.gen_range(-2.0..2.0)) };
        if rng.gen_bool(0.5) {
            a.set_row(3, &nalgebra::RowVector4::new(0.0, 0.0, 0.0, 1.0));
        }
        if let Ok(v) = View::from_matrices(a, b, size, if rng.gen_bool(0.5) { r } else { DepthMode::Standard }) {
            ok += 1;
            let _ = v.cursor_ray(&Point2::new(10.0, 20.0)).expect("a finite cursor has a ray");
            let _ = v.frustum();
        }
    }
    assert!(ok > 0);
}
