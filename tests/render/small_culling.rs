//! Exact small-object culling (`Renderer::set_small_object_culling`, on by
//! default): thousands of tiny, turned cubes, many of them between the
//! samples of the frame. With and without the test the images (colour,
//! ids, depth) are identical pixel for pixel, at 1x and 4x, in both depth
//! modes, on both scene paths; the test culls (fewer objects drawn); both
//! paths keep the objects an independent f64 computation here keeps (the
//! projected corners' rectangle against the pixel centres and, at 4x,
//! Vulkan's standard sample locations), apart from objects within 1e-3
//! pixel of the decision's edge.

use nalgebra::{Matrix4, Point3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use viewport::draw::{GpuSync, SceneMeshes};
use viewport::editor::Editor;
use viewport::math::{Camera, DepthMode, Projection, View};
use viewport::render::Renderer;
use viewport::scene::Scene;

use crate::support::gpu::{assert_no_validation_errors, renderer_with_samples};

const W: u32 = 160;
const H: u32 = 120;

/// 4000 cubes of 2 mm to 5 cm, turned at random, 4 to 80 m in front of
/// the camera, plus a large cube behind them all (a background for depth).
fn tiny_cubes() -> Scene {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut scene = Scene::cube_grid(4001);
    for i in 0..4000 {
        let o = scene.object_mut(i).unwrap();
        let z = -rng.gen_range(4.0..80.0);
        let spread = -z * 0.45;
        o.transform.position = Vector3::new(rng.gen_range(-spread..spread), rng.gen_range(-spread..spread) * 0.75, z);
        o.transform.scale = Vector3::repeat(rng.gen_range(0.002..0.05));
        o.transform.rotation = UnitQuaternion::from_euler_angles(rng.gen(), rng.gen(), rng.gen());
    }
    let wall = scene.object_mut(4000).unwrap();
    wall.transform.position = Vector3::new(0.0, 0.0, -95.0);
    wall.transform.scale = Vector3::new(200.0, 200.0, 1.0);
    scene
}

fn camera() -> Camera {
    Camera {
        eye: Point3::origin(),
        target: Point3::new(0.0, 0.0, -1.0),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 0.9, near: 0.5, far: 200.0 },
    }
}

/// Colour, ids and depth of the whole frame.
fn images(r: &mut Renderer) -> (Vec<u8>, Vec<u32>, Vec<f32>) {
    let colour = r.read_color().unwrap().data;
    let region = r.read_region(0, 0, W, H).unwrap();
    (colour, region.ids, region.depth)
}

/// Whether the rectangle of the unit cube under `world`, widened by
/// `margin` pixels, holds one of `samples` (offsets in a pixel); `None`
/// when a corner is not in front of the near plane. Computed in f64 here
/// from the spec (the 8 corners projected, their bounding rectangle).
fn holds(view: &View, world: &Matrix4<f64>, samples: &[[f64; 2]], margin: f64) -> Option<bool> {
    let near = view.frustum().near;
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for k in 0..8 {
        let c = |b: usize| if k & b != 0 { 0.5 } else { -0.5 };
        let p = world.transform_point(&Point3::new(c(1), c(2), c(4)));
        if near.signed_distance(&p) <= 0.0 {
            return None;
        }
        let s = view.world_to_screen(&p)?;
        (x0, x1, y0, y1) = (x0.min(s.x), x1.max(s.x), y0.min(s.y), y1.max(s.y));
    }
    // A sample (px + sx, py + sy) inside, for some integers px, py.
    let inside = |lo: f64, hi: f64, s: f64| (lo - margin - s).ceil() <= (hi + margin - s).floor();
    Some(samples.iter().any(|&[sx, sy]| inside(x0, x1, sx) && inside(y0, y1, sy)))
}

#[test]
fn small_object_culling_changes_no_pixel_culls_and_both_paths_keep_the_same_objects() {
    // The pixel centres, and Vulkan's standard 4x locations.
    let centre = [[0.5, 0.5]];
    let four = [[0.5, 0.5], [0.375, 0.125], [0.875, 0.375], [0.125, 0.625], [0.625, 0.875]];
    // The margin the renderer documents: 1/16 pixel + 1e-5 of width + height.
    let margin = 1.0 / 16.0 + 1e-5 * f64::from(W + H);
    for samples in [1u32, 4] {
        let mut r = renderer_with_samples(W, H, samples);
        let scene = tiny_cubes();
        let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
        let mut e = Editor::new(scene, W as f64, H as f64);
        e.camera = camera();
        let positions: &[[f64; 2]] = if samples == 1 { &centre } else { &four };
        let mut sync = GpuSync::default();
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            e.depth = depth;
            let view = View::new(e.camera, W as f64, H as f64, depth).unwrap();
            // The expected decision per object: kept, culled, or either
            // (within 1e-3 pixel of the edge).
            let frustum = view.frustum();
            let (mut want, mut either, mut in_view) = (Vec::new(), Vec::new(), 0);
            for i in (0..e.scene().len()).filter(|&i| in_view_object(&frustum, &e, i as u32)) {
                in_view += 1;
                let world = e.scene().world_matrix(i);
                let (tight, loose) =
                    (holds(&view, &world, positions, margin - 1e-3), holds(&view, &world, positions, margin + 1e-3));
                match (tight, loose) {
                    (None, _) | (Some(true), _) => want.push(i as u32),
                    (Some(false), Some(true)) => either.push(i as u32),
                    _ => {}
                }
            }
            assert!(want.len() + 1000 < in_view, "{samples}x {depth:?}: {} of {in_view} held a sample", want.len());
            assert!(want.len() > 200, "{samples}x {depth:?}: {} objects cover a sample", want.len());
            for gpu in [false, true] {
                let mut drawn = Vec::new();
                let mut counts = Vec::new();
                for on in [false, true] {
                    r.set_small_object_culling(on);
                    let frame =
                        if gpu { meshes.gpu_frame(&e, &mut r, &mut sync).unwrap() } else { meshes.editor_frame(&e).0 };
                    let stats = r.draw(&frame).unwrap();
                    drawn.push(images(&mut r));
                    counts.push(if gpu { r.read_drawn_objects().unwrap().len() } else { stats.instances as usize });
                    if on && gpu {
                        // The GPU path keeps exactly the expected objects.
                        let kept = r.read_drawn_objects().unwrap();
                        let missing: Vec<&u32> = want.iter().filter(|i| kept.binary_search(i).is_err()).collect();
                        let extra: Vec<&u32> = kept
                            .iter()
                            .filter(|i| want.binary_search(i).is_err() && either.binary_search(i).is_err())
                            .collect();
                        assert!(missing.is_empty() && extra.is_empty(), "{samples}x {depth:?}: {missing:?} {extra:?}");
                    }
                }
                let path = if gpu { "GPU" } else { "CPU" };
                assert!(drawn[0] == drawn[1], "{samples}x {depth:?} {path} path: the images differ");
                assert!(counts[1] + 1000 < counts[0], "{samples}x {depth:?} {path}: {counts:?} objects drawn");
                // The CPU path draws the objects the f64 computation keeps.
                let inside = want.len() + either.len();
                if !gpu {
                    assert!(counts[1] >= want.len() && counts[1] <= inside, "{path}: {} of {}", counts[1], want.len());
                }
            }
        }
        assert_no_validation_errors(&r);
    }
}

/// Whether object `i`'s box meets the frustum (the frustum test both paths make first).
fn in_view_object(frustum: &viewport::math::Frustum, e: &Editor, i: u32) -> bool {
    let world = e.scene().world_matrix(i as usize);
    let b = viewport::math::Obb::from_local_aabb(&Point3::new(-0.5, -0.5, -0.5), &Point3::new(0.5, 0.5, 0.5), &world);
    b.is_none_or(|b| {
        let (lo, hi) = b.aabb();
        frustum.intersects_aabb(&lo, &hi)
    })
}
