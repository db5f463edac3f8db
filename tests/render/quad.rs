//! The quad view drawn in one frame: four views, each from its own camera
//! into its own rectangle. The object-ID buffer of every view agrees with
//! CPU picking in that view (the cursor placed there makes it the active
//! one), the separator lines hold the background id and their own colour,
//! and the gizmo is drawn in all four views. Single-sampled and with 4x
//! MSAA, both depth modes, validation on. The frames are written to
//! `target/tmp/quad/` for a person to look at.

use crate::support::gpu::*;
use crate::support::textured::to_srgb;
use nalgebra::Point2;
use std::path::Path;
use viewport::app::open::open_editor;
use viewport::draw::{GpuSync, SceneMeshes};
use viewport::input::Event;
use viewport::look::Shading;
use viewport::math::{DepthMode, View};
use viewport::render::{FrameDesc, RgbaImage};
use viewport::scene::Scene;

const W: u32 = 401;
const H: u32 = 301;

/// Grey objects around the origin, spread along all three axes so each
/// orthographic view shows them apart.
fn scene() -> Scene {
    let json = r#"{ "camera": { "eye": [6, 5, 8], "target": [0, 0, 0], "fov_y_deg": 50 },
      "objects": [
        { "name": "middle", "mesh": "cube", "position": [0, 0, 0], "color": [0.5, 0.5, 0.5] },
        { "name": "east", "mesh": "sphere", "position": [3, 0, -2.5], "color": [0.5, 0.5, 0.5] },
        { "name": "up", "mesh": "cylinder", "position": [0, 3, 0.5], "color": [0.5, 0.5, 0.5] },
        { "name": "south", "mesh": "torus", "position": [-2.5, 0, 3], "rotation": [0.3, 0, 0, 0.9539392], "color": [0.5, 0.5, 0.5] },
        { "name": "far", "mesh": "cube", "position": [-3, -1, -2], "scale": [0.6, 2, 0.8], "color": [0.5, 0.5, 0.5] } ] }"#;
    Scene::from_json(json, Path::new(".")).unwrap()
}

/// A saturated pixel (the gizmo's axis colours; the objects are grey and
/// the grid is off).
fn saturated(p: [u8; 4]) -> bool {
    let [r, g, b, _] = p.map(i32::from);
    let (hi, lo) = (r.max(g).max(b), r.min(g).min(b));
    hi - lo > 80
}

fn save(img: &RgbaImage, name: &str) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("quad");
    std::fs::create_dir_all(&dir).unwrap();
    viewport::files::save_png(&dir.join(format!("{name}.png")), img.width, img.height, &img.data).unwrap();
}

fn quad_frame(samples: u32, depth: DepthMode, tag: &str) {
    let mut r = renderer_with_samples(W, H, samples);
    let (mut editor, loaded) = open_editor(scene(), (W, H), depth).unwrap();
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    assert!(editor.toggle_quad());
    // The middle cube selected: the gizmo at the origin, in every view.
    assert!(editor.select_object(0, false));
    let views = editor.views();
    assert_eq!(views.len(), 4);
    let (mut frame, _) = meshes.editor_frame(&editor);
    frame.grid = false;
    frame.lighting.shading = Shading::Solid;
    assert_eq!(frame.views.len(), 4);
    r.draw(&frame).unwrap();
    let ids = r.read_ids().unwrap();
    let color = r.read_color().unwrap();
    save(&color, tag);

    // The separator lines: every pixel outside the four rectangles has the
    // background id and the separator's colour. The rectangles are the
    // quarters left by one line of 1 px through the middle, as the test
    // works them out.
    let (lw, th) = ((W - 1) / 2, (H - 1) / 2);
    let expected = [
        [0, 0, lw, th],
        [lw + 1, 0, W - lw - 1, th],
        [0, th + 1, lw, H - th - 1],
        [lw + 1, th + 1, W - lw - 1, H - th - 1],
    ];
    let rects: Vec<[u32; 4]> = views.iter().map(|v| v.rect).collect();
    assert_eq!(rects, expected);
    let sep = FrameDesc::SEPARATOR.map(|c| to_srgb(f64::from(c)));
    for (x, y) in (0..H).map(|y| (lw, y)).chain((0..W).map(|x| (x, th))) {
        assert_eq!(ids[(y * W + x) as usize], 0, "separator pixel ({x}, {y}) has an object id");
        let p = color.pixel(x, y);
        for c in 0..3 {
            assert!(p[c].abs_diff(sep[c]) <= 2, "separator pixel ({x}, {y}) is {p:?}, not {sep:?}");
        }
    }

    for (k, rect) in expected.iter().enumerate() {
        let [x0, y0, w, h] = *rect;
        // Objects show in every view, and the gizmo does.
        let inside = |f: &dyn Fn(u32, u32) -> bool| {
            (y0..y0 + h).flat_map(|y| (x0..x0 + w).map(move |x| (x, y))).filter(|&(x, y)| f(x, y)).count()
        };
        let object_pixels = inside(&|x, y| ids[(y * W + x) as usize] != 0);
        assert!(object_pixels > 200, "view {k}: {object_pixels} object pixels");
        let gizmo_pixels = inside(&|x, y| saturated(color.pixel(x, y)));
        assert!(gizmo_pixels > 100, "view {k}: {gizmo_pixels} gizmo pixels");

        // The ids agree with CPU picking in that view: on a grid of pixels
        // off the silhouettes, the cursor placed at the pixel's centre.
        let mut checked = 0;
        for y in (y0 + 2..y0 + h - 2).step_by(7) {
            for x in (x0 + 2..x0 + w - 2).step_by(7) {
                if on_silhouette(&ids, (W, H), x, y) {
                    continue;
                }
                let cursor = Point2::new(f64::from(x) + 0.5, f64::from(y) + 0.5);
                editor.handle(&Event::CursorMoved { x: cursor.x, y: cursor.y });
                assert_eq!(editor.active_view(), k);
                let cpu = editor.surface_at(cursor, |_| true).map_or(0, |(i, _)| i as u32 + 1);
                assert_eq!(ids[(y * W + x) as usize], cpu, "view {k}, pixel ({x}, {y}), {depth:?}");
                checked += 1;
            }
        }
        assert!(checked > 300, "view {k}: only {checked} pixels checked");

        // The view's camera puts the selected cube's centre in the middle
        // of a drawn cube pixel: projected independently of the editor.
        let v = View::new(views[k].camera, f64::from(w), f64::from(h), depth).unwrap();
        let c = v.world_to_screen(&nalgebra::Point3::origin()).unwrap();
        let (px, py) = (x0 + c.x.floor() as u32, y0 + c.y.floor() as u32);
        let id = ids[(py * W + px) as usize];
        // The gizmo hides nothing in the ID buffer; in the right and front
        // views the cube is nearest, in the top view the cylinder above it.
        assert!(id == 1 || (k == 0 && id == 3), "view {k}: id {id} at the origin's pixel");
    }
    assert_no_validation_errors(&r);
}

#[test]
fn four_views_draw_their_own_cameras_into_their_rectangles() {
    quad_frame(1, DepthMode::Reversed, "quad-reversed");
    quad_frame(1, DepthMode::Standard, "quad-standard");
}

#[test]
fn four_views_with_msaa() {
    quad_frame(4, DepthMode::Reversed, "quad-msaa");
}

/// The GPU-culling path culls each view against its own camera: the quad
/// frame it draws has the same ids, pixel for pixel, as the CPU path's
/// (a grid of objects so that each view culls a different part away),
/// in both depth modes, with and without MSAA.
#[test]
fn gpu_culling_draws_the_same_four_views_as_the_cpu_path() {
    // 7 x 7 x 3 cubes 3 m apart, the camera inside the grid.
    let mut objects = Vec::new();
    for x in -3..=3 {
        for z in -3..=3 {
            for y in 0..3 {
                objects.push(format!(
                    r#"{{ "name": "c{x}_{y}_{z}", "mesh": "cube", "position": [{}, {}, {}], "color": [0.5, 0.5, 0.5] }}"#,
                    x * 3,
                    y * 3,
                    z * 3
                ));
            }
        }
    }
    let json = format!(
        r#"{{ "camera": {{ "eye": [1, 4, 2], "target": [6, 2, -5], "fov_y_deg": 60 }}, "objects": [{}] }}"#,
        objects.join(",")
    );
    let scene = Scene::from_json(&json, Path::new(".")).unwrap();
    for samples in [1, 4] {
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            let mut r = renderer_with_samples(W, H, samples);
            let (mut editor, loaded) = open_editor(scene.clone(), (W, H), depth).unwrap();
            let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
            assert!(editor.toggle_quad());
            assert!(editor.select_object(24, false));
            // Zoom the top view in, so that it shows part of the grid only.
            let top = editor.views()[0].rect;
            let centre = (f64::from(top[0] + top[2] / 2), f64::from(top[1] + top[3] / 2));
            editor.handle(&Event::CursorMoved { x: centre.0, y: centre.1 });
            editor.handle(&Event::Scroll { delta: 4.0 });
            let (mut cpu_frame, _) = meshes.editor_frame(&editor);
            cpu_frame.grid = false;
            r.draw(&cpu_frame).unwrap();
            let cpu_ids = r.read_ids().unwrap();
            let mut sync = GpuSync::default();
            let mut gpu_frame = meshes.gpu_frame(&editor, &mut r, &mut sync).unwrap();
            gpu_frame.grid = false;
            assert!(gpu_frame.gpu_scene.is_some() && gpu_frame.views.len() == 4);
            r.draw(&gpu_frame).unwrap();
            let gpu_ids = r.read_ids().unwrap();
            let differ = cpu_ids.iter().zip(&gpu_ids).filter(|(a, b)| a != b).count();
            assert_eq!(differ, 0, "{samples}x, {depth:?}: {differ} pixels differ");
            let shown = |ids: &[u32], k: usize| {
                let [x0, y0, w, h] = editor.views()[k].rect;
                let mut s: Vec<u32> = (y0..y0 + h)
                    .flat_map(|y| (x0..x0 + w).map(move |x| (x, y)))
                    .map(|(x, y)| ids[(y * W + x) as usize])
                    .collect();
                s.sort_unstable();
                s.dedup();
                s.len()
            };
            // The views show different numbers of objects (each its own cull).
            let counts: Vec<usize> = (0..4).map(|k| shown(&gpu_ids, k)).collect();
            assert!(counts.iter().all(|&n| n > 5), "{counts:?}");
            assert_no_validation_errors(&r);
            if samples == 1 && depth == DepthMode::Reversed {
                save(&r.read_color().unwrap(), "quad-gpu");
            }
        }
    }
}
