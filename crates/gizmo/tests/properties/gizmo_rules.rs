//! Gizmo rules beyond the pixel-perfect property: snapping of the total,
//! cancel, multi-selection median pivot, parent-space conversion, clamping at
//! the vanishing point, edge-on ring fallback, fade / hide, handle names and
//! overlay instances.

use nalgebra::{Matrix4, Point2, Point3, Translation3, UnitQuaternion, Vector3};
use viewport_gizmo::gizmo::{Axis, Delta, Gizmo, GizmoConfig, Handle, HandleState, MeshKind, Mode, Space, Target};
use viewport_gizmo::math::{Camera, DepthMode, Projection, Transform, View};

fn front_view() -> View {
    // Looking down -z at the origin from 10 m; 0.01155 m per pixel at depth 10 (fov 60, 1000 px high).
    let cam = Camera {
        eye: Point3::new(0.0, 0.0, 10.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 60f64.to_radians(), near: 0.05, far: 1000.0 },
    };
    View::new(cam, 1000.0, 1000.0, DepthMode::Reversed).unwrap()
}

fn at(x: f64, y: f64, z: f64) -> Target {
    Target::root(Transform { position: Vector3::new(x, y, z), ..Transform::IDENTITY })
}

fn screen(v: &View, p: Point3<f64>) -> Point2<f64> {
    v.world_to_screen(&p).unwrap()
}

#[test]
fn snapping_rounds_the_total_delta_and_cancel_restores() {
    let v = front_view();
    let t = [at(0.0, 0.0, 0.0)];
    let mut g = Gizmo::new(GizmoConfig::default());
    let f = g.frame(&v, &t).unwrap();
    let m0 = screen(&v, Point3::new(0.5 * f.len, 0.0, 0.0));
    assert!(g.begin(&v, &t, m0));
    assert_eq!(g.active(), Some(Handle::TranslateAxis(Axis::X)));
    // Many small steps of 0.2 m each: each step alone would snap to 0, the total must not.
    let mut last = None;
    for i in 1..=6 {
        let m = screen(&v, Point3::new(0.5 * f.len + 0.2 * i as f64, 0.0, 0.0));
        last = g.update(&v, m, true);
    }
    let u = last.unwrap();
    assert!((u.transforms[0].position.x - 1.0).abs() < 1e-9, "1.2 m snaps to 1.0: {:?}", u.transforms[0]);
    // Without snapping the same cursor gives the exact 1.2 m.
    let m = screen(&v, Point3::new(0.5 * f.len + 1.2, 0.0, 0.0));
    assert!((g.update(&v, m, false).unwrap().transforms[0].position.x - 1.2).abs() < 1e-9);
    assert_eq!(g.cancel(), Some(vec![t[0].local]));
    assert!(!g.is_dragging() && g.end().is_none());
}

#[test]
fn rotation_snaps_total_angle() {
    let v = front_view();
    let t = [at(0.0, 0.0, 0.0)];
    let mut g = Gizmo::new(GizmoConfig { mode: Mode::Rotate, ..GizmoConfig::default() });
    let f = g.frame(&v, &t).unwrap();
    // Grab the z ring (facing the camera) at angle 0 and drag to 40 degrees.
    assert!(g.begin_with(&v, &t, Handle::RotateAxis(Axis::Z), screen(&v, Point3::new(f.len, 0.0, 0.0))));
    let a = 40f64.to_radians();
    let m = screen(&v, Point3::new(f.len * a.cos(), f.len * a.sin(), 0.0));
    let u = g.update(&v, m, false).unwrap();
    assert!((u.transforms[0].rotation.angle() - a).abs() < 1e-9);
    let u = g.update(&v, m, true).unwrap();
    assert!((u.transforms[0].rotation.angle() - 45f64.to_radians()).abs() < 1e-9);
    let r = g.end().unwrap();
    assert_eq!(r.before, vec![t[0].local]);
    assert_eq!(r.after, u.transforms);
}

#[test]
fn rotation_accumulates_past_half_a_turn() {
    let v = front_view();
    let t = [at(0.0, 0.0, 0.0)];
    let mut g = Gizmo::new(GizmoConfig { mode: Mode::Rotate, ..GizmoConfig::default() });
    let f = g.frame(&v, &t).unwrap();
    assert!(g.begin_with(&v, &t, Handle::RotateAxis(Axis::Z), screen(&v, Point3::new(f.len, 0.0, 0.0))));
    let mut u = None;
    for deg in (10..=270).step_by(10) {
        let a = (deg as f64).to_radians();
        u = g.update(&v, screen(&v, Point3::new(f.len * a.cos(), f.len * a.sin(), 0.0)), false);
    }
    match u.unwrap().delta {
        // 270 degrees about +z (w = cos 135 < 0, z = sin 135 > 0), not the -90 a
        // per-frame wrap would give: the total angle is unwrapped across frames.
        Delta::Rotate(q) => {
            let q = q.quaternion();
            assert!((q.w - (135f64).to_radians().cos()).abs() < 1e-9, "{q:?}");
            assert!((q.k - (135f64).to_radians().sin()).abs() < 1e-9, "{q:?}");
        }
        d => panic!("{d:?}"),
    }
}

#[test]
fn multi_selection_moves_about_the_median_pivot() {
    let v = front_view();
    let t = [at(0.0, 0.0, 0.0), at(1.0, 0.5, 0.0), at(3.0, -1.0, 0.0)];
    let mut g = Gizmo::new(GizmoConfig::default());
    let f = g.frame(&v, &t).unwrap();
    assert_eq!(f.pivot, Point3::new(1.0, 0.0, 0.0));
    let m0 = screen(&v, f.pivot + Vector3::y() * (0.6 * f.len));
    assert!(g.begin(&v, &t, m0));
    assert_eq!(g.active(), Some(Handle::TranslateAxis(Axis::Y)));
    let u = g.update(&v, m0 + nalgebra::Vector2::new(40.0, -30.0), false).unwrap();
    let dy = u.transforms[0].position.y;
    assert!(dy > 0.0);
    for (a, b) in t.iter().zip(&u.transforms) {
        assert!((b.position - a.local.position - Vector3::new(0.0, dy, 0.0)).norm() < 1e-12);
    }
    // Rotating 90 degrees about z at the pivot swings the others around it.
    let mut g = Gizmo::new(GizmoConfig { mode: Mode::Rotate, ..GizmoConfig::default() });
    assert!(g.begin_with(&v, &t, Handle::RotateAxis(Axis::Z), screen(&v, f.pivot + Vector3::x() * f.len)));
    let u = g.update(&v, screen(&v, f.pivot + Vector3::y() * f.len), false).unwrap();
    assert!((u.transforms[2].position - Vector3::new(2.0, 2.0, 0.0)).norm() < 1e-9, "{:?}", u.transforms[2]);
    assert!((u.transforms[0].position - Vector3::new(1.0, -1.0, 0.0)).norm() < 1e-9);
}

#[test]
fn child_follows_the_cursor_under_any_parent() {
    let v = front_view();
    let parent = Translation3::new(0.3, -0.2, 0.5).to_homogeneous()
        * UnitQuaternion::from_euler_angles(0.4, -0.9, 1.3).to_homogeneous()
        * Matrix4::new_nonuniform_scaling(&Vector3::new(2.0, 0.5, 3.0));
    let child = Target {
        local: Transform {
            position: Vector3::new(0.1, 0.2, -0.1),
            rotation: UnitQuaternion::identity(),
            scale: Vector3::repeat(1.0),
        },
        parent_world: parent,
        bounds: None,
    };
    let before = child.world_position();
    for handle in [Handle::TranslateAxis(Axis::X), Handle::TranslatePlane(Axis::Z), Handle::TranslateView] {
        let mut g = Gizmo::new(GizmoConfig::default());
        let f = g.frame(&v, &[child]).unwrap();
        let m0 = screen(&v, f.pivot + Vector3::new(0.3, 0.3, 0.0) * f.len);
        assert!(g.begin_with(&v, &[child], handle, m0));
        let u = g.update(&v, m0 + nalgebra::Vector2::new(37.0, 11.0), false).unwrap();
        let Delta::Translate(d) = u.delta else { panic!() };
        let after = Target::new(u.transforms[0], parent).world_position();
        assert!((after - before - d).norm() < 1e-9, "{handle:?}: {:?} vs {d:?}", after - before);
        assert!(d.norm() > 0.1);
    }
    // Local space follows the child's world rotation; rotation keeps the world position.
    let mut g = Gizmo::new(GizmoConfig { mode: Mode::Rotate, space: Space::Local, ..GizmoConfig::default() });
    let f = g.frame(&v, &[child]).unwrap();
    let wr = child.world_rotation();
    assert!((f.axes[0] - wr * Vector3::x()).norm() < 1e-9);
    let (fx, fy, _) = f.facing();
    assert!(g.begin_with(&v, &[child], Handle::RotateView, screen(&v, f.pivot + fx * (1.2 * f.len))));
    let u = g.update(&v, screen(&v, f.pivot + fy * (1.2 * f.len)), false).unwrap();
    let after = Target::new(u.transforms[0], parent);
    assert!((after.world_position() - before).norm() < 1e-9);
    assert!((after.world_rotation().angle_to(&wr) - std::f64::consts::FRAC_PI_2).abs() < 1e-6);
}

#[test]
fn axis_drag_clamps_at_the_vanishing_point_and_never_goes_behind() {
    // The x axis points 8 degrees off the view direction, away from the camera.
    let a = 8f64.to_radians();
    let cam = Camera {
        eye: Point3::new(-10.0 * a.cos(), 10.0 * a.sin(), 0.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 60f64.to_radians(), near: 0.05, far: 1000.0 },
    };
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let v = View::new(cam, 800.0, 600.0, depth).unwrap();
        let t = [at(0.0, 0.0, 0.0)];
        let mut g = Gizmo::new(GizmoConfig::default());
        let f = g.frame(&v, &t).unwrap();
        let p0 = screen(&v, Point3::origin());
        let tip = screen(&v, Point3::new(f.len, 0.0, 0.0));
        let dir = (tip - p0).normalize();
        assert!(g.begin_with(&v, &t, Handle::TranslateAxis(Axis::X), tip));
        let mut prev = 0.0;
        let mut clamped = false;
        // March the cursor along the image, through the vanishing point and far past it.
        for i in 1..200 {
            let m = tip + dir * (i as f64 * 10.0);
            let u = g.update(&v, m, false).unwrap();
            let x = u.transforms[0].position.x;
            assert!(x.is_finite() && x >= prev - 1e-9, "monotonic and finite: {x} after {prev}");
            assert!(v.view_depth(&Point3::new(x, 0.0, 0.0)) <= 1000.0 + 1e-6);
            clamped |= u.clamped;
            prev = x;
        }
        assert!(clamped, "the vanishing point must be reached");
        // And backwards, towards and past the camera: stays in front of the near plane.
        for i in 1..200 {
            let m = p0 - dir * (i as f64 * 50.0);
            let u = g.update(&v, m, false).unwrap();
            let p = Point3::from(u.transforms[0].position);
            assert!(v.view_depth(&p) >= v.near() - 1e-9);
        }
    }
}

#[test]
fn edge_on_ring_uses_the_tangent_and_never_jumps() {
    let v = front_view();
    let t = [at(0.0, 0.0, 0.0)];
    let mut g = Gizmo::new(GizmoConfig { mode: Mode::Rotate, ..GizmoConfig::default() });
    let f = g.frame(&v, &t).unwrap();
    // The y ring is seen almost exactly edge-on from the front camera? No: the x ring
    // (normal x) is edge-on when grabbed at its top, where the sight line lies in its plane.
    let m0 = screen(&v, Point3::new(0.0, f.len, 0.0));
    assert!(g.begin_with(&v, &t, Handle::RotateAxis(Axis::X), m0));
    let mut prev = 0.0;
    for i in 1..=20 {
        let u = g.update(&v, m0 + nalgebra::Vector2::new(0.0, i as f64), false).unwrap();
        assert!(u.tangent_fallback);
        let ang = u.transforms[0].rotation.angle();
        assert!((ang - prev).abs() < 0.02, "no jump: {prev} -> {ang}");
        prev = ang;
    }
    assert!(prev > 0.1);
}

#[test]
fn axes_fade_then_hide_when_pointing_at_the_camera() {
    let v = front_view();
    let t = [at(0.0, 0.0, 0.0)];
    let g = Gizmo::new(GizmoConfig::default());
    let f = g.frame(&v, &t).unwrap();
    // z points straight at the camera: hidden, not pickable, not drawn; xy plane faces it.
    assert_eq!(f.visibility(Handle::TranslateAxis(Axis::Z)), 0.0);
    assert_eq!(f.visibility(Handle::TranslateAxis(Axis::X)), 1.0);
    assert_eq!(f.visibility(Handle::TranslatePlane(Axis::Z)), 1.0);
    assert_eq!(f.visibility(Handle::TranslatePlane(Axis::X)), 0.0, "yz plane is edge-on");
    let inst = g.instances(&v, &t);
    assert!(inst.iter().all(|i| i.handle != Some(Handle::TranslateAxis(Axis::Z))));
    assert!(inst.iter().all(|i| i.handle != Some(Handle::TranslatePlane(Axis::X))));
    // 8 degrees off: drawn faded.
    let a = 8f64.to_radians();
    let t = [Target::root(Transform {
        rotation: UnitQuaternion::from_axis_angle(&Vector3::y_axis(), a),
        ..Transform::IDENTITY
    })];
    let g = Gizmo::new(GizmoConfig { space: Space::Local, ..GizmoConfig::default() });
    let f = g.frame(&v, &t).unwrap();
    let vis = f.visibility(Handle::TranslateAxis(Axis::Z));
    assert!(vis > 0.0 && vis < 1.0, "{vis}");
    let inst = g.instances(&v, &t);
    let z = inst.iter().find(|i| i.handle == Some(Handle::TranslateAxis(Axis::Z))).unwrap();
    assert_eq!(z.state, HandleState::Faded);
    assert!(z.color[3] < 1.0);
}

#[test]
fn overlay_instances_and_states() {
    let v = front_view();
    let t = [at(0.0, 0.0, 0.0)];
    let mut g = Gizmo::new(GizmoConfig::default());
    let f = g.frame(&v, &t).unwrap();
    // Screen-constant size: 100 px at the pivot.
    let tip = screen(&v, Point3::new(f.len, 0.0, 0.0));
    assert!(((tip - screen(&v, Point3::origin())).norm() - 100.0).abs() < 1e-9);
    let m = screen(&v, Point3::new(0.5 * f.len, 0.0, 0.0));
    assert_eq!(g.hover(&v, &t, m), Some(Handle::TranslateAxis(Axis::X)));
    let inst = g.instances(&v, &t);
    let shaft =
        inst.iter().find(|i| i.handle == Some(Handle::TranslateAxis(Axis::X)) && i.mesh == MeshKind::Shaft).unwrap();
    assert_eq!(shaft.state, HandleState::Hovered);
    // The canonical shaft's top maps to 0.8 L along x; the cone's apex to the tip.
    assert!(
        (shaft.model.transform_point(&Point3::new(0.0, 1.0, 0.0)) - Point3::new(0.8 * f.len, 0.0, 0.0)).norm() < 1e-12
    );
    let cone =
        inst.iter().find(|i| i.handle == Some(Handle::TranslateAxis(Axis::X)) && i.mesh == MeshKind::Cone).unwrap();
    assert!((cone.model.transform_point(&Point3::new(0.0, 1.0, 0.0)) - Point3::new(f.len, 0.0, 0.0)).norm() < 1e-12);
    assert!(inst.iter().any(|i| i.mesh == MeshKind::PlaneQuad) && inst.iter().any(|i| i.mesh == MeshKind::Disc));
    assert!(g.begin(&v, &t, m));
    assert!(g.instances(&v, &t).iter().any(|i| i.state == HandleState::Active));
    // Inside the view disc the view handle wins over the axes starting at the pivot.
    let g2 = Gizmo::new(GizmoConfig::default());
    assert_eq!(g2.pick(&v, &t, screen(&v, Point3::new(0.05 * f.len, 0.0, 0.0))), Some(Handle::TranslateView));
    // Scale mode draws cubes; rotate mode rings.
    let g3 = Gizmo::new(GizmoConfig { mode: Mode::Scale, ..GizmoConfig::default() });
    assert!(g3.instances(&v, &t).iter().any(|i| i.mesh == MeshKind::Cube));
    let g4 = Gizmo::new(GizmoConfig { mode: Mode::Rotate, ..GizmoConfig::default() });
    assert_eq!(g4.instances(&v, &t).iter().filter(|i| i.mesh == MeshKind::Ring).count(), 4);
    // Nothing selected or pivot behind the camera: nothing drawn.
    assert!(g.instances(&v, &[]).is_empty());
    assert!(Gizmo::default().instances(&v, &[at(0.0, 0.0, 20.0)]).is_empty());
}

#[test]
fn scale_handles() {
    let v = front_view();
    let t = [at(0.0, 0.0, 0.0)];
    let mut g = Gizmo::new(GizmoConfig { mode: Mode::Scale, ..GizmoConfig::default() });
    let f = g.frame(&v, &t).unwrap();
    // Grab x at 0.5 L, drag to 1.0 L: factor 2.
    assert!(g.begin_with(&v, &t, Handle::ScaleAxis(Axis::X), screen(&v, Point3::new(0.5 * f.len, 0.0, 0.0))));
    let u = g.update(&v, screen(&v, Point3::new(f.len, 0.0, 0.0)), false).unwrap();
    assert!((u.transforms[0].scale - Vector3::new(2.0, 1.0, 1.0)).norm() < 1e-9);
    // Past the pivot: clamped to a small positive factor, never zero or negative.
    let u = g.update(&v, screen(&v, Point3::new(-f.len, 0.0, 0.0)), false).unwrap();
    assert!(u.clamped && u.transforms[0].scale.x > 0.0);
    g.cancel();
    // Uniform: right / up grows, left / down shrinks, all axes alike.
    let m0 = screen(&v, Point3::origin());
    assert!(g.begin(&v, &t, m0));
    assert_eq!(g.active(), Some(Handle::ScaleUniform));
    let u = g.update(&v, m0 + nalgebra::Vector2::new(50.0, 0.0), false).unwrap();
    let s = u.transforms[0].scale;
    assert!(s.x > 1.0 && (s.x - s.y).abs() < 1e-12 && (s.y - s.z).abs() < 1e-12);
    // Plane scale: both axes of the plane.
    let mut g = Gizmo::new(GizmoConfig { mode: Mode::Scale, ..GizmoConfig::default() });
    let m0 = screen(&v, Point3::new(0.3 * f.len, 0.3 * f.len, 0.0));
    assert!(g.begin(&v, &t, m0));
    assert_eq!(g.active(), Some(Handle::ScalePlane(Axis::Z)));
    let u = g.update(&v, screen(&v, Point3::new(0.6 * f.len, 0.6 * f.len, 0.0)), false).unwrap();
    assert!((u.transforms[0].scale - Vector3::new(2.0, 2.0, 1.0)).norm() < 1e-9);
}

#[test]
fn handle_names_round_trip() {
    for h in Handle::ALL {
        assert_eq!(Handle::parse(&h.name()), Some(h));
    }
    for name in [
        "translate.x",
        "translate.y",
        "translate.z",
        "translate.xy",
        "translate.yz",
        "translate.zx",
        "translate.view",
        "rotate.x",
        "rotate.y",
        "rotate.z",
        "rotate.view",
        "scale.x",
        "scale.y",
        "scale.z",
        "scale.uniform",
    ] {
        assert!(Handle::parse(name).is_some(), "{name}");
    }
    assert_eq!(Handle::TranslatePlane(Axis::Z).name(), "translate.xy");
    assert_eq!(Mode::parse("universal"), Some(Mode::Universal));
    assert!(Handle::parse("translate.w").is_none());
}
