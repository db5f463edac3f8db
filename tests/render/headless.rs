//! Headless rendering on whatever Vulkan device the loader gives (lavapipe in
//! CI), with the validation layer on.

use crate::support::gpu::*;
use crate::support::image::*;
use nalgebra::{Point3, Vector3};
use std::path::Path;
use viewport::math::{Camera, DepthMode, Projection};
use viewport::scene::Scene;

const W: u32 = 320;
const H: u32 = 200;

#[test]
fn demo_renders_objects_in_their_colours_in_both_depth_modes() {
    let mut r = renderer(W, H);
    let scene = Scene::demo();
    let camera = scene.camera.unwrap();
    let reversed = render(&mut r, &scene, camera, DepthMode::Reversed, true);
    let standard = render(&mut r, &scene, camera, DepthMode::Standard, true);

    for img in [&reversed, &standard] {
        // The crate (orange: red > green > blue) at its centre.
        let (x, y) = project(&camera, DepthMode::Reversed, W, H, Point3::new(0.0, 0.5, 0.0));
        let p = img.pixel(x as u32, y as u32);
        assert!(p[0] > p[1] && p[1] > p[2], "crate pixel {p:?}");
        // The ball is blue.
        let (x, y) = project(&camera, DepthMode::Reversed, W, H, Point3::new(2.2, 0.5, -1.0));
        assert_eq!(dominant(img.pixel(x as u32, y as u32)), Some(2));
        // The pillar is green.
        let (x, y) = project(&camera, DepthMode::Reversed, W, H, Point3::new(-2.2, 1.0, -1.5));
        assert_eq!(dominant(img.pixel(x as u32, y as u32)), Some(1));
        // The top-left corner shows the background (dark, nearly grey).
        let p = img.pixel(1, 1);
        assert!(p[0] < 80 && p[1] < 80 && p[2] < 90 && dominant(p).is_none(), "background {p:?}");
    }

    // The two modes agree pixel for pixel up to a small tolerance.
    let differing = reversed
        .data
        .chunks(4)
        .zip(standard.data.chunks(4))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| (*x as i32 - *y as i32).abs() > 8))
        .count();
    let total = (W * H) as usize;
    assert!(differing * 1000 < total * 5, "{differing} of {total} pixels differ between depth modes");
    assert_no_validation_errors(&r);
}

#[test]
fn nearer_object_hides_farther_one_in_both_modes() {
    let json = r#"{ "objects": [
        { "name": "near", "mesh": "cube", "position": [0, 0, 0], "color": [0.9, 0.1, 0.1] },
        { "name": "far", "mesh": "cube", "position": [0, 0, -3], "scale": [4, 4, 1], "color": [0.1, 0.9, 0.1] } ] }"#;
    let scene = Scene::from_json(json, Path::new(".")).unwrap();
    let camera = Camera {
        eye: Point3::new(0.0, 0.0, 5.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 60f64.to_radians(), near: 0.05, far: 100.0 },
    };
    let mut r = renderer(W, H);
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let img = render(&mut r, &scene, camera, depth, false);
        assert_eq!(dominant(img.pixel(W / 2, H / 2)), Some(0), "{depth:?}: centre should be the near red cube");
        // Beside the red cube but inside the far green slab.
        let (x, y) = project(&camera, depth, W, H, Point3::new(1.2, 0.0, -3.0));
        assert_eq!(dominant(img.pixel(x as u32, y as u32)), Some(1), "{depth:?}");
        // Far outside both: background.
        assert_eq!(dominant(img.pixel(2, 2)), None);
    }
    assert_no_validation_errors(&r);
}

/// Two big planes 1 mm apart, 1000 m from a camera whose near plane is at
/// 0.05 m. Reversed-Z must resolve them everywhere. Standard Z usually
/// cannot (its f32 depth steps at 1 km are far coarser than 1 mm), but how
/// badly depends on the hardware's rasteriser, so that count is only
/// recorded.
#[test]
fn reversed_z_resolves_planes_one_millimetre_apart_at_one_kilometre() {
    let json = r#"{ "objects": [
        { "name": "near", "mesh": "plane", "position": [0, -1000, 0], "scale": [4000, 1, 4000], "color": [0.9, 0.1, 0.1] },
        { "name": "far", "mesh": "plane", "position": [0, -1000.001, 0], "scale": [4000, 1, 4000], "color": [0.1, 0.9, 0.1] } ] }"#;
    let scene = Scene::from_json(json, Path::new(".")).unwrap();
    let camera = Camera {
        eye: Point3::origin(),
        target: Point3::new(0.0, -1.0, 0.0),
        up: -Vector3::z(),
        // Standard mode needs a far plane beyond the planes; reversed ignores it.
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: 5000.0 },
    };
    let mut r = renderer(W, H);
    let count_far = |img: &viewport::render::RgbaImage| {
        let mut near = 0;
        let mut far = 0;
        for p in img.data.chunks(4) {
            match dominant([p[0], p[1], p[2], p[3]]) {
                Some(0) => near += 1,
                Some(1) => far += 1,
                _ => {}
            }
        }
        (near, far)
    };
    let (near, far) = count_far(&render(&mut r, &scene, camera, DepthMode::Reversed, false));
    assert_eq!(near, (W * H) as usize, "every pixel shows the near plane");
    assert_eq!(far, 0, "reversed-Z: no pixel of the far plane shows through");

    let (near_std, far_std) = count_far(&render(&mut r, &scene, camera, DepthMode::Standard, false));
    println!("standard Z: {far_std} of {} pixels show the far plane through the near one ({near_std} correct)", W * H);
    assert_eq!(near_std + far_std, (W * H) as usize, "standard Z: every pixel shows one of the two planes");
    assert_no_validation_errors(&r);
}

#[test]
fn a_deliberate_validation_error_is_counted() {
    let r = renderer(16, 16);
    assert_eq!(r.validation().errors(), 0);
    r.context().provoke_validation_error();
    assert!(r.validation().errors() >= 1, "the zero-size buffer must be reported");
    assert!(
        r.validation().error_messages().iter().any(|m| m.contains("size")),
        "{:?}",
        r.validation().error_messages()
    );
}

/// `Culling::Auto` resolves by device type: CPU culling on lavapipe (the
/// tests' device, `VK_PHYSICAL_DEVICE_TYPE_CPU`), while `Gpu` and `Cpu`
/// keep their meaning (lavapipe has `drawIndirectFirstInstance`).
#[test]
fn culling_auto_is_cpu_culling_on_lavapipe_and_explicit_requests_hold() {
    use viewport::render::Culling;
    let r = renderer(16, 16);
    let info = r.device_info();
    assert_eq!(info.kind, "CPU", "the tests run on lavapipe: {info}");
    assert!(info.is_cpu_rasteriser());
    assert!(r.supports_gpu_culling(), "lavapipe has drawIndirectFirstInstance");
    assert!(!r.culling(Culling::Auto).gpu, "auto on a CPU rasteriser");
    assert!(!r.culling(Culling::default()).gpu, "the default is auto");
    assert!(r.culling(Culling::Gpu).gpu, "gpu asked for by name");
    assert!(!r.culling(Culling::Cpu).gpu);
    assert_no_validation_errors(&r);
}
