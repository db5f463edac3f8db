//! MSAA (`ContextDesc::samples`): silhouette edges get in-between colours
//! that a single-sampled frame lacks, the depth under the cursor is still
//! the surface's depth at the pixel centre (the ids and depth come from a
//! single-sample pass), and the outline and gizmo overlay draw into the
//! multisampled image with the validation layer quiet.

use crate::support::gpu::*;
use crate::support::textured::{close, to_srgb};
use nalgebra::{Matrix4, Point3, UnitQuaternion, Vector3, Vector4};
use std::path::Path;
use viewport::draw::SceneMeshes;
use viewport::gizmo::{Gizmo, GizmoConfig, Mode, Target};
use viewport::math::{Camera, DepthMode, Projection, View};
use viewport::render::{FrameDesc, RgbaImage};
use viewport::scene::Scene;

const W: u32 = 240;
const H: u32 = 180;

/// A thin white square facing the camera, turned 20 degrees about the view
/// axis, over the dark background (no grid): its silhouette edges are
/// slanted, and it shows one uniformly lit face.
fn square() -> Scene {
    // 20 degrees about z: (0, 0, sin 10deg, cos 10deg).
    Scene::from_json(
        r#"{ "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "fov_y_deg": 50 },
        "objects": [ { "name": "sq", "mesh": "cube", "rotation": [0, 0, 0.17364818, 0.98480775],
                       "scale": [4, 4, 0.01], "color": [1, 1, 1] } ] }"#,
        Path::new("."),
    )
    .unwrap()
}

/// Pixels whose every channel lies strictly between the background's and
/// the face's (by more than 3 levels of 255): neither one nor the other.
fn in_between(img: &RgbaImage, bg: [u8; 4], face: [u8; 4]) -> usize {
    let mut n = 0;
    for y in 0..img.height {
        for x in 0..img.width {
            let p = img.pixel(x, y);
            let between = (0..3).all(|c| {
                let (lo, hi) = (bg[c].min(face[c]) as i32, bg[c].max(face[c]) as i32);
                (p[c] as i32) > lo + 3 && (p[c] as i32) < hi - 3
            });
            n += between as usize;
        }
    }
    n
}

#[test]
fn msaa_blends_silhouette_edges_that_single_sampling_leaves_hard() {
    let scene = square();
    let camera = scene.camera.unwrap();
    // The square's outline on screen (corners projected independently).
    let rot = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 20f64.to_radians());
    let corners: Vec<(f64, f64)> = [(-2.0, -2.0), (2.0, -2.0), (2.0, 2.0), (-2.0, 2.0)]
        .iter()
        .map(|&(x, y)| project(&camera, DepthMode::Reversed, W, H, Point3::from(rot * Vector3::new(x, y, 0.005))))
        .collect();
    let perimeter: f64 = (0..4)
        .map(|i| {
            let (a, b) = (corners[i], corners[(i + 1) % 4]);
            ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
        })
        .sum();
    assert!(perimeter > 300.0, "the square is large on screen: {perimeter}");

    let mut counts = Vec::new();
    for samples in [1, 4] {
        let mut r = renderer_with_samples(W, H, samples);
        assert_eq!(r.device_info().samples, samples);
        let img = render(&mut r, &scene, camera, DepthMode::Reversed, false);
        let (bg, face) = (img.pixel(0, 0), img.pixel(W / 2, H / 2));
        assert!(face[0] > bg[0] + 100, "a bright face {face:?} over the background {bg:?}");
        counts.push(in_between(&img, bg, face));
        assert_no_validation_errors(&r);
    }
    // Single-sampled: every pixel is the background or the face. 4x: most
    // pixels the slanted edges cross are partly covered (at least one and
    // at most three of the four samples).
    assert_eq!(counts[0], 0, "no in-between colours without MSAA");
    assert!(
        counts[1] as f64 > 0.6 * perimeter && (counts[1] as f64) < 2.0 * perimeter,
        "{} in-between pixels along a {perimeter:.0} px outline",
        counts[1]
    );
}

/// Where the ray through screen point (`sx`, `sy`) meets the plane through
/// `p0` with normal `n` (independently of the library: the inverse of the
/// camera's projection times view).
fn ray_plane(m: &Matrix4<f64>, sx: f64, sy: f64, p0: Point3<f64>, n: Vector3<f64>) -> Point3<f64> {
    let inv = m.try_inverse().unwrap();
    let (nx, ny) = (2.0 * sx / W as f64 - 1.0, 2.0 * sy / H as f64 - 1.0);
    let at = |z: f64| {
        let p = inv * Vector4::new(nx, ny, z, 1.0);
        Point3::new(p.x / p.w, p.y / p.w, p.z / p.w)
    };
    let (a, b) = (at(0.3), at(0.6));
    let t = (p0 - a).dot(&n) / (b - a).dot(&n);
    a + (b - a) * t
}

/// The world point at screen point (`sx`, `sy`) and depth-buffer value `d`.
fn unproject(m: &Matrix4<f64>, sx: f64, sy: f64, d: f64) -> Point3<f64> {
    let p = m.try_inverse().unwrap() * Vector4::new(2.0 * sx / W as f64 - 1.0, 2.0 * sy / H as f64 - 1.0, d, 1.0);
    Point3::new(p.x / p.w, p.y / p.w, p.z / p.w)
}

#[test]
fn msaa_depth_under_the_cursor_is_the_analytic_depth_at_the_pixel_centre() {
    // A thin slab tilted 40 degrees about the (1, 1, 0) diagonal: its depth
    // changes along both screen axes.
    let axis = Vector3::new(1.0, 1.0, 0.0).normalize();
    let (s, c) = (20f64.to_radians().sin(), 20f64.to_radians().cos());
    let json = format!(
        r#"{{ "camera": {{ "eye": [0, 0, 10], "target": [0, 0, 0], "fov_y_deg": 50 }},
        "objects": [ {{ "name": "slab", "mesh": "cube", "rotation": [{}, {}, 0, {c}], "scale": [5, 5, 0.02] }} ] }}"#,
        axis.x * s,
        axis.y * s
    );
    let scene = Scene::from_json(&json, Path::new(".")).unwrap();
    let camera = scene.camera.unwrap();
    let rot = UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), 40f64.to_radians());
    let n = rot * Vector3::z();
    let p0 = Point3::from(rot * Vector3::new(0.0, 0.0, 0.01));
    let mut r = renderer_with_samples(W, H, 4);
    assert_eq!(r.device_info().samples, 4);
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let m = camera.projection_matrix(W as f64 / H as f64, depth) * camera.view_matrix();
        let depth_of = |p: Point3<f64>| {
            let c = m * p.to_homogeneous();
            c.z / c.w
        };
        render(&mut r, &scene, camera, depth, false);
        let (mut checked, mut worst, mut sample0_gap) = (0, 0.0f64, 0.0f64);
        for y in (4..H - 4).step_by(7) {
            for x in (4..W - 4).step_by(7) {
                let (cx, cy) = (x as f64 + 0.5, y as f64 + 0.5);
                let p = ray_plane(&m, cx, cy, p0, n);
                let local = rot.inverse() * p.coords;
                if local.x.abs() > 2.4 || local.y.abs() > 2.4 {
                    continue;
                }
                let got = r.depth_at(cx, cy).unwrap().expect("a depth inside the target");
                // The read depth unprojected at the pixel centre: metres from
                // the analytic surface point.
                worst = worst.max((unproject(&m, cx, cy, got) - p).norm());
                // Where standard sample 0 of 4x lies, (0.375, 0.125) in the
                // pixel: its depth would put the point this far off.
                let q = ray_plane(&m, x as f64 + 0.375, y as f64 + 0.125, p0, n);
                sample0_gap += (unproject(&m, cx, cy, depth_of(q)) - p).norm();
                checked += 1;
            }
        }
        assert!(checked > 100, "{depth:?}: {checked} pixels on the slab");
        let sample0_gap = sample0_gap / checked as f64;
        // The depth is the pixel centre's, to f32 precision (0.5 mm at
        // 10 m); sample 0's position would be off by far more.
        assert!(worst < 5e-4, "{depth:?}: {worst:e} m from the surface");
        assert!(sample0_gap > 10.0 * 5e-4, "{depth:?}: the test can tell sample 0 from the centre ({sample0_gap:e} m)");
    }
    assert_no_validation_errors(&r);
}

#[test]
fn msaa_outline_and_gizmo_draw_into_the_multisampled_frame() {
    let scene = Scene::demo();
    let camera = scene.camera.unwrap();
    let mut images = Vec::new();
    for samples in [1, 4] {
        let mut r = renderer_with_samples(W, H, samples);
        let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            let (mut frame, _) = meshes.frame(&scene, camera, depth, &[0, 1], (W, H));
            let view = View::new(camera, W as f64, H as f64, depth).unwrap();
            let gizmo = Gizmo::new(GizmoConfig { mode: Mode::Universal, ..GizmoConfig::default() });
            frame.overlay = gizmo.instances(&view, &[Target::root(scene.objects()[1].transform)]);
            assert!(!frame.overlay.is_empty(), "a gizmo on the selection");
            r.draw(&frame).unwrap();
            images.push(r.read_color().unwrap());
        }
        assert_no_validation_errors(&r);
    }
    // The same frame: the multisampled one differs only along edges.
    for (one, four) in images[..2].iter().zip(&images[2..]) {
        let (mut same, mut total_diff) = (0, 0u64);
        for (a, b) in one.data.chunks(4).zip(four.data.chunks(4)) {
            let d: u32 = (0..3).map(|c| (a[c] as i32 - b[c] as i32).unsigned_abs()).sum();
            same += (d <= 6) as usize;
            total_diff += d as u64;
        }
        let n = (W * H) as usize;
        assert!(same as f64 > 0.85 * n as f64, "{same} of {n} pixels alike");
        assert!(same < n, "MSAA changed some edge pixels");
        assert!((total_diff as f64) / (n as f64) < 8.0, "mean difference {}", total_diff as f64 / n as f64);
    }
}

/// `samples: 0` (the CLI's default) chooses by device: 4x on a GPU, off on
/// a CPU rasteriser such as lavapipe, where 4x costs about five times the
/// frame time.
#[test]
fn the_default_sample_count_follows_the_device_kind() {
    let r =
        viewport::render::Renderer::headless(&viewport::render::ContextDesc { validation: true, samples: 0 }, 32, 32)
            .unwrap();
    let info = r.device_info();
    let expected = if info.kind == "CPU" { 1 } else { viewport::render::AUTO_SAMPLES_GPU };
    assert_eq!(info.samples, expected, "{info}");
    crate::support::gpu::assert_no_validation_errors(&r);
}

/// The ground grid from 5 m straight above (cells of 1 m, about 38 px per
/// metre here, the fade 27 m away and more): a fragment that covers no
/// line leaves the background alone and one on a line brightens it, both
/// single-sampled and with 4x MSAA, and the two frames agree pixel for
/// pixel (the grid covers every sample of every pixel, and the shader runs
/// once per pixel in both). The shader marks empty fragments through
/// `gl_SampleMask` instead of discarding them.
#[test]
fn the_grid_leaves_empty_ground_alone_and_looks_the_same_with_and_without_msaa() {
    let camera = Camera {
        eye: Point3::new(0.3, 5.0, 0.2),
        target: Point3::new(0.3, 0.0, 0.2),
        up: Vector3::z(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.1, far: 100.0 },
    };
    let background = FrameDesc::BACKGROUND.map(|c| to_srgb(f64::from(c)));
    let mut images = Vec::new();
    for samples in [1, 4] {
        let mut r = renderer_with_samples(W, H, samples);
        assert_eq!(r.device_info().samples, samples);
        let desc = FrameDesc::new(camera, DepthMode::Reversed);
        assert!(desc.grid && desc.objects.is_empty());
        r.draw(&desc).expect("draw");
        let img = r.read_color().expect("read back");
        assert_no_validation_errors(&r);
        let pixel = |p: Point3<f64>| {
            let (x, y) = project(&camera, DepthMode::Reversed, W, H, p);
            assert!(x >= 0.0 && y >= 0.0 && x < f64::from(W) && y < f64::from(H), "{p} is off the image");
            img.pixel(x as u32, y as u32)
        };
        for k in -2..=2 {
            for m in -1..=1 {
                let (k, m) = (f64::from(k), f64::from(m));
                // A cell's centre: half a metre (about 19 px) from every line.
                let got = pixel(Point3::new(k + 0.5, 0.0, m + 0.5));
                assert!(close(got, background, 0), "{samples}x: cell centre ({k}, {m}) shows {got:?}");
                // On a minor line (x = k, not an axis): within half a pixel of
                // it, so at least half covered: at least 0.35 x 0.5 of grey 0.45
                // over the background.
                if k != 0.0 {
                    let got = pixel(Point3::new(k, 0.0, m + 0.5));
                    let want = to_srgb(f64::from(FrameDesc::BACKGROUND[0]) + 0.175 * (0.45 - 0.035));
                    assert!(got[0] >= want - 1, "{samples}x: line x = {k} shows {got:?}, want at least {want}");
                }
            }
        }
        images.push(img);
    }
    let (one, four) = (&images[0], &images[1]);
    let worst = one.data.iter().zip(&four.data).map(|(a, b)| (i32::from(*a) - i32::from(*b)).abs()).max();
    assert!(worst.unwrap() <= 1, "1x and 4x grids differ by up to {worst:?} levels");
}
