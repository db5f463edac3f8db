//! Regression test for the seed article's failure ("Gizmo Repair"): at a
//! steep angle, with the cursor far off the axis, a line-line closest-point
//! axis drag moves the object backwards while the cursor's projection onto
//! the axis image moves forwards. Ours follows the projection.

use nalgebra::{Point2, Point3, Vector2, Vector3};
use viewport_gizmo::gizmo::{Axis, Gizmo, GizmoConfig, Handle, Target};
use viewport_gizmo::math::{closest_line_line, Camera, DepthMode, Projection, Transform, View};

/// The seed's original algorithm: closest points of the axis line and the
/// cursor ray; the axis parameter is the drag position.
fn naive_axis_param(view: &View, pivot: &Point3<f64>, axis: &Vector3<f64>, m: &Point2<f64>) -> f64 {
    let ray = view.cursor_ray(m).unwrap();
    closest_line_line(pivot, axis, &ray.origin, &ray.dir).unwrap().s
}

#[test]
fn steep_axis_drag_follows_projection_where_line_line_goes_backwards() {
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        // The z axis points away from the camera, 15 degrees off the view direction.
        let a = 15f64.to_radians();
        let pivot = Point3::new(0.0, 0.0, 0.0);
        let camera = Camera {
            // Offset diagonally so the z image overlaps no other handle.
            eye: Point3::new(8.0 * a.sin() * 0.5f64.sqrt(), -8.0 * a.sin() * 0.5f64.sqrt(), -8.0 * a.cos()),
            target: pivot,
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 60f64.to_radians(), near: 0.05, far: 1000.0 },
        };
        let view = View::new(camera, 1280.0, 720.0, depth).unwrap();
        let target = Target::root(Transform::IDENTITY);
        let mut gizmo = Gizmo::new(GizmoConfig::default());
        let frame = gizmo.frame(&view, &[target]).unwrap();
        let z = Vector3::z();
        let p0 = view.world_to_screen(&pivot).unwrap();
        let tip = view.world_to_screen(&(pivot + z * frame.len)).unwrap();
        let along = (tip - p0).normalize();
        let side = Vector2::new(-along.y, along.x);
        // The image is short (about 22 px); grab it at its tip, more than hit_px
        // outside the 12 px view disc, which is nearer and would win.
        let m0 = p0 + (tip - p0) * 0.98;
        assert_eq!(gizmo.pick(&view, &[target], m0), Some(Handle::TranslateAxis(Axis::Z)));
        assert!(gizmo.begin(&view, &[target], m0));

        // Move far off the axis while creeping forward along its image.
        let path: Vec<Point2<f64>> =
            (1..=6).map(|i| m0 + along * (4.0 * i as f64) + side * (120.0 * i as f64)).collect();
        let mut ours = vec![0.0];
        let mut naive = vec![naive_axis_param(&view, &pivot, &z, &m0)];
        for m in &path {
            let u = gizmo.update(&view, *m, false).unwrap();
            assert!(!u.clamped);
            ours.push(u.transforms[0].position.z);
            naive.push(naive_axis_param(&view, &pivot, &z, m));
        }
        for w in ours.windows(2) {
            // The projection moves forwards (+z on screen): so does the object.
            assert!(w[1] > w[0], "ours must move forwards: {ours:?}");
        }
        let naive_delta: Vec<f64> = naive.iter().map(|s| s - naive[0]).collect();
        assert!(
            naive_delta.windows(2).all(|w| w[1] < w[0]),
            "the line-line version goes backwards here: {naive_delta:?}"
        );
        let moved = view.world_to_screen(&Point3::new(0.0, 0.0, *ours.last().unwrap())).unwrap();
        let start = view.world_to_screen(&pivot).unwrap();
        // The pivot moved along the image line in the cursor's direction.
        assert!((moved - start).dot(&along) > 0.0);
        assert!(((moved - start).dot(&side)).abs() < 1e-6);
    }
}
