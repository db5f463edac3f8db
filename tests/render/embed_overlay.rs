//! The embedding example: a foreign ash program records the gizmo into its
//! own dynamic-rendering pass. Runs the example's `run` on lavapipe with the
//! validation layer and checks the PNG it wrote against positions projected
//! here, with the example's camera numbers and hand-written matrices.

#[path = "../../examples/embed_overlay.rs"]
mod example;

use example::*;
use nalgebra::{Point3, Vector3};

/// Screen position of a world point and its depth along the view axis,
/// projected without the library: look-at basis, perspective divide,
/// Vulkan viewport (y down).
fn project(p: Point3<f64>) -> ((f64, f64), f64) {
    let eye = Point3::from(EYE);
    let forward = (Point3::from(LOOK_AT) - eye).normalize();
    let right = forward.cross(&Vector3::y()).normalize();
    let up = right.cross(&forward);
    let v = p - eye;
    let (x, y, depth) = (v.dot(&right), v.dot(&up), v.dot(&forward));
    let f = 1.0 / (FOV_Y_DEG.to_radians() / 2.0).tan();
    let aspect = WIDTH as f64 / HEIGHT as f64;
    let ndc = (f / aspect * x / depth, -f * y / depth);
    (((ndc.0 + 1.0) * 0.5 * WIDTH as f64, (ndc.1 + 1.0) * 0.5 * HEIGHT as f64), depth)
}

fn decode(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("the PNG exists"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG pixels");
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn foreign_program_records_the_gizmo_without_validation_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("embed.png");
    let outcome = run(&path).expect("the example runs");
    assert!(outcome.validation_enabled, "the validation layer must be installed for this test");
    assert_eq!(outcome.validation_errors, 0);

    let (w, h, px) = decode(&path);
    assert_eq!((w, h), (WIDTH, HEIGHT));
    assert_eq!(px, outcome.rgba, "the PNG holds the rendered frame");
    let pixel = |x: f64, y: f64| {
        let i = ((y.floor() as usize) * WIDTH as usize + x.floor() as usize) * 4;
        [px[i] as i32, px[i + 1] as i32, px[i + 2] as i32]
    };

    // Far from the gizmo: the engine's clear colour, untouched.
    let clear: Vec<i32> = CLEAR[..3].iter().map(|c| (c * 255.0).round() as i32).collect();
    for (x, y) in [(2.0, 2.0), (WIDTH as f64 - 3.0, 3.0), (3.0, HEIGHT as f64 - 2.0)] {
        let p = pixel(x, y);
        assert!(p.iter().zip(&clear).all(|(a, b)| (a - b).abs() <= 1), "background at ({x}, {y}): {p:?}");
    }

    // The handle tips, on the cones of the translate arrows: the axis's
    // colour dominates. The axis length is the configured pixel size at the
    // pivot's depth.
    let pivot = Point3::from(PIVOT);
    let (_, depth) = project(pivot);
    let world_per_pixel = 2.0 * depth * (FOV_Y_DEG.to_radians() / 2.0).tan() / HEIGHT as f64;
    let len = GIZMO_PX * world_per_pixel;
    for (axis, dir) in [Vector3::x(), Vector3::y(), Vector3::z()].into_iter().enumerate() {
        let ((x, y), _) = project(pivot + dir * (0.85 * len));
        assert!(x > 0.0 && y > 0.0 && x < WIDTH as f64 && y < HEIGHT as f64, "axis {axis} tip on screen: {x} {y}");
        let p = pixel(x, y);
        let others = (0..3).filter(|&c| c != axis).map(|c| p[c]).max().unwrap();
        assert!(p[axis] > others + 60, "axis {axis} at ({x:.1}, {y:.1}) should be dominated by channel {axis}: {p:?}");
    }
}
