//! Fuzz-style robustness: 1e5 random gizmo events with a fixed seed,
//! including degenerate cameras (eye == target, zero and 180 degree fov,
//! NaN, near >= far, zero-sized viewports), zero scales (also on parents),
//! positions far from the origin and cursors far outside the viewport.
//! Nothing may become NaN or infinite, nothing may panic, and no drag may
//! move an object behind the camera.

use nalgebra::{Matrix4, Point2, Point3, UnitQuaternion, Vector3};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use viewport_gizmo::gizmo::{Gizmo, GizmoConfig, Handle, Mode, Space, Target};
use viewport_gizmo::math::{Camera, DepthMode, Projection, Transform, View};

fn rand_camera(rng: &mut StdRng) -> Camera {
    let mut v = || Vector3::new(rng.gen_range(-50.0..50.0), rng.gen_range(-50.0..50.0), rng.gen_range(-50.0..50.0));
    let eye = Point3::from(v());
    let mut target = Point3::from(v() * 0.1);
    let up = v();
    let roll: f64 = rng.gen();
    if roll < 0.05 {
        target = eye; // degenerate
    }
    let near = if rng.gen_bool(0.05) { 0.0 } else { 0.05 };
    let projection = match rng.gen_range(0..10) {
        0 => Projection::Perspective { fov_y: 0.0, near, far: 1000.0 },
        1 => Projection::Perspective { fov_y: std::f64::consts::PI, near, far: 1000.0 },
        2 => Projection::Perspective { fov_y: f64::NAN, near, far: 1000.0 },
        3 => Projection::Orthographic { height: rng.gen_range(0.0..40.0), near, far: 500.0 },
        4 => Projection::Perspective { fov_y: 1.0, near: 10.0, far: 1.0 },
        _ => Projection::Perspective { fov_y: rng.gen_range(0.01..3.1), near, far: 1000.0 },
    };
    let far_away = if rng.gen_bool(0.2) { Vector3::new(1.0e4, -1.0e4, 1.0e4) } else { Vector3::zeros() };
    Camera { eye: eye + far_away, target: target + far_away, up, projection }
}

fn rand_target(rng: &mut StdRng, near: Vector3<f64>) -> Target {
    let mut s = || {
        if rng.gen_bool(0.1) {
            0.0
        } else {
            rng.gen_range(0.01..5.0)
        }
    };
    let scale = Vector3::new(s(), s(), s());
    let parent_scale = Vector3::new(s(), s(), s());
    let parent_world = if rng.gen_bool(0.3) {
        Matrix4::new_translation(&(near * 0.5))
            * UnitQuaternion::from_euler_angles(rng.gen(), rng.gen(), rng.gen()).to_homogeneous()
            * Matrix4::new_nonuniform_scaling(&parent_scale)
    } else {
        Matrix4::identity()
    };
    let position = near + Vector3::new(rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0));
    Target {
        local: Transform {
            position: if parent_world == Matrix4::identity() { position } else { Vector3::new(1.0, 2.0, 3.0) },
            rotation: UnitQuaternion::from_euler_angles(rng.gen(), rng.gen(), rng.gen()),
            scale,
        },
        parent_world,
        bounds: None,
    }
}

fn matrix_finite(m: &Matrix4<f64>) -> bool {
    m.iter().all(|v| v.is_finite())
}

#[test]
fn hundred_thousand_random_events() {
    let mut rng = StdRng::seed_from_u64(0x5eed_0003);
    let mut view = View::new(Camera::default(), 1280.0, 720.0, DepthMode::Reversed).unwrap();
    let mut gizmo = Gizmo::new(GizmoConfig::default());
    let mut targets = vec![Target::root(Transform::IDENTITY)];
    let mut drag_start: Vec<Target> = Vec::new();
    let mut cursor = Point2::new(640.0, 360.0);
    let mut snap = false;
    let (mut rejected_views, mut drags, mut updates, mut depth_checks) = (0, 0, 0, 0);
    for step in 0..100_000u32 {
        match rng.gen_range(0..100) {
            0..=2 if !gizmo.is_dragging() => {
                let cam = rand_camera(&mut rng);
                let (w, h) = match rng.gen_range(0..10) {
                    0 => (0.0, 720.0),
                    1 => (1.0, 1.0),
                    _ => (rng.gen_range(1.0..4000.0f64).round(), rng.gen_range(1.0..3000.0f64).round()),
                };
                let depth = if rng.gen_bool(0.5) { DepthMode::Reversed } else { DepthMode::Standard };
                match View::new(cam, w, h, depth) {
                    Ok(v) => view = v,
                    Err(_) => rejected_views += 1,
                }
            }
            3..=4 if !gizmo.is_dragging() => {
                let base = view.camera().target.coords;
                let n = if rng.gen_bool(0.8) { 1 } else { rng.gen_range(0..4) };
                targets = (0..n).map(|_| rand_target(&mut rng, base)).collect();
            }
            5 if !gizmo.is_dragging() => {
                gizmo.config.mode = [Mode::Translate, Mode::Rotate, Mode::Scale, Mode::Universal][rng.gen_range(0..4)];
                gizmo.config.space = if rng.gen_bool(0.5) { Space::World } else { Space::Local };
            }
            6 => snap = !snap,
            7..=11 => {
                // Mouse down: on the hovered handle, or force a random one.
                let ok = if rng.gen_bool(0.5) {
                    gizmo.begin(&view, &targets, cursor)
                } else {
                    let h = Handle::ALL[rng.gen_range(0..Handle::ALL.len())];
                    gizmo.begin_with(&view, &targets, h, cursor)
                };
                if ok {
                    drags += 1;
                    drag_start = targets.clone();
                }
            }
            12..=15 => {
                if let Some(r) = gizmo.end() {
                    for (t, after) in targets.iter_mut().zip(r.after) {
                        t.local = after;
                    }
                }
            }
            16..=17 => {
                if let Some(start) = gizmo.cancel() {
                    for (t, s) in targets.iter_mut().zip(start) {
                        t.local = s;
                    }
                }
            }
            _ => {
                let r = if rng.gen_bool(0.05) { 1.0e6 } else { 400.0 };
                cursor = if rng.gen_bool(0.001) {
                    Point2::new(f64::NAN, 0.0)
                } else {
                    Point2::new(rng.gen_range(-r..r + view.width()), rng.gen_range(-r..r + view.height()))
                };
                gizmo.hover(&view, &targets, cursor);
                if let Some(u) = gizmo.update(&view, cursor, snap) {
                    updates += 1;
                    let handle = u.handle;
                    for (i, t) in u.transforms.iter().enumerate() {
                        assert!(t.is_finite(), "step {step}: {t:?}");
                        let start = drag_start[i];
                        let now = Target::new(*t, start.parent_world);
                        assert!(matrix_finite(&now.world()), "step {step}");
                        // Translations never take an object that was in front behind the camera;
                        // nor does rotating or scaling a single object about its own pivot.
                        let single = drag_start.len() == 1;
                        let translate = matches!(
                            handle,
                            Handle::TranslateAxis(_) | Handle::TranslatePlane(_) | Handle::TranslateView
                        );
                        let z0 = view.view_depth(&start.world_position());
                        if (translate || single) && z0 >= view.near() && z0 <= view.far() {
                            let z = view.view_depth(&now.world_position());
                            depth_checks += 1;
                            assert!(
                                z >= view.near() * (1.0 - 1e-6) - 1e-9 * z0.abs(),
                                "step {step}: {handle:?} depth {z0} -> {z}"
                            );
                        }
                    }
                    for (t, after) in targets.iter_mut().zip(&u.transforms) {
                        t.local = *after;
                    }
                }
            }
        }
        for inst in gizmo.instances(&view, &targets) {
            assert!(matrix_finite(&inst.model), "step {step}: {inst:?}");
            assert!(inst.color.iter().all(|c| c.is_finite()));
        }
        if let Some(f) = gizmo.frame(&view, &targets) {
            assert!(f.pivot.iter().all(|v| v.is_finite()) && f.len.is_finite() && f.len > 0.0);
        }
    }
    // The run must actually have exercised the interesting paths.
    assert!(rejected_views > 100, "degenerate cameras were generated: {rejected_views}");
    assert!(drags > 1000 && updates > 10_000, "drags {drags}, updates {updates}");
    assert!(depth_checks > 10_000, "depth checks {depth_checks}");
}
