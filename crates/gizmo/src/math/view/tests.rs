//! Unit tests of [`View`] (`view/mod.rs`), kept in their own file so the module stays short.

use super::*;
use nalgebra::Vector2;

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
    for v in
        [persp(DepthMode::Reversed), persp(DepthMode::Standard), ortho(DepthMode::Reversed), ortho(DepthMode::Standard)]
    {
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
    for v in
        [persp(DepthMode::Reversed), persp(DepthMode::Standard), ortho(DepthMode::Reversed), ortho(DepthMode::Standard)]
    {
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

#[test]
fn a_view_placed_in_a_window_shifts_every_screen_position_by_its_corner() {
    // A 200 x 100 viewport at window pixel (300, 40): screen positions are
    // the unplaced view's plus the corner; rays through corresponding
    // pixels are the same rays.
    for base in [persp(DepthMode::Reversed), persp(DepthMode::Standard), ortho(DepthMode::Reversed)] {
        let placed = base.at(300.0, 40.0);
        let shift = Vector2::new(300.0, 40.0);
        for p in [Point3::new(3.0, -2.0, -40.0), Point3::new(-1.0, 1.5, 2.0)] {
            let (a, b) = (base.world_to_screen(&p).unwrap(), placed.world_to_screen(&p).unwrap());
            assert!(near2(a + shift, b), "{a} {b}");
            let h = placed.world_to_hscreen(&p);
            assert!(near2(Point2::new(h.x / h.z, h.y / h.z), b));
            let (r0, r1) = (base.cursor_ray(&a).unwrap(), placed.cursor_ray(&b).unwrap());
            assert!(
                (r0.origin - r1.origin).norm() < 1e-9 && (r0.dir.into_inner() - r1.dir.into_inner()).norm() < 1e-12
            );
        }
        assert_eq!(placed.screen_to_ndc(&Point2::new(300.0, 40.0)), (-1.0, -1.0));
        assert_eq!(placed.screen_to_ndc(&Point2::new(500.0, 140.0)), (1.0, 1.0));
        assert!(placed.contains_screen(&Point2::new(300.0, 40.0)));
        assert!(
            !placed.contains_screen(&Point2::new(299.9, 50.0)) && !placed.contains_screen(&Point2::new(500.0, 50.0))
        );
        assert_eq!(placed.origin(), Point2::new(300.0, 40.0));
    }
}
