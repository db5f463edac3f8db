//! The selection outline (computed from the ID buffer) and the box-selection
//! rectangle, against renders of the same frame without them.

use crate::support::gpu::*;
use std::path::Path;
use viewport::draw::SceneMeshes;
use viewport::math::DepthMode;
use viewport::render::{FrameDesc, Renderer, RgbaImage, ACTIVE_OUTLINE, RECT_BORDER, RECT_FILL, SELECTED_OUTLINE};
use viewport::scene::Scene;

const W: u32 = 320;
const H: u32 = 240;

/// Three objects: a sphere in front of a cube (they overlap on screen) and
/// a cylinder apart.
fn scene() -> Scene {
    Scene::from_json(
        r#"{ "camera": { "eye": [0, 1, 8], "target": [0, 0, 0], "fov_y_deg": 50 },
        "objects": [
          { "name": "cube", "mesh": "cube", "position": [-1, 0, -1], "scale": [2, 1.5, 1], "color": [0.1, 0.3, 0.9] },
          { "name": "ball", "mesh": "sphere", "position": [0.2, 0.2, 0.5], "color": [0.2, 0.8, 0.2] },
          { "name": "post", "mesh": "cylinder", "position": [2.5, 0, 0], "scale": [0.6, 2, 0.6], "color": [0.8, 0.2, 0.7] } ] }"#,
        Path::new("."),
    )
    .unwrap()
}

/// sRGB encoding of a linear value, as the 8-bit target stores it.
fn srgb(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0) as f64;
    let s = if c <= 0.0031308 { 12.92 * c } else { 1.055 * c.powf(1.0 / 2.4) - 0.055 };
    (s * 255.0).round() as u8
}

/// Linear value of an 8-bit sRGB channel.
fn linear(v: u8) -> f32 {
    let s = v as f64 / 255.0;
    (if s <= 0.04045 { s / 12.92 } else { ((s + 0.055) / 1.055).powf(2.4) }) as f32
}

/// `over` alpha-blended onto the sRGB pixel `under` (in linear light).
fn blend(under: [u8; 4], over: [f32; 4]) -> [u8; 3] {
    std::array::from_fn(|i| srgb(linear(under[i]) * (1.0 - over[3]) + over[i] * over[3]))
}

fn srgb_rgb(c: [f32; 4]) -> [u8; 3] {
    [srgb(c[0]), srgb(c[1]), srgb(c[2])]
}

fn close(p: [u8; 4], want: [u8; 3]) -> bool {
    (0..3).all(|i| (p[i] as i32 - want[i] as i32).abs() <= 2)
}

fn draw(r: &mut Renderer, frame: &FrameDesc) -> (Vec<u32>, RgbaImage) {
    r.draw(frame).unwrap();
    (r.read_ids().unwrap(), r.read_color().unwrap())
}

/// Per pixel: 0 none, 1 selected outline, 2 active outline, computed from
/// the ids: a pixel not of a highlighted object k within 2 px (pixel
/// centres, Euclidean) of one of k's pixels is outlined, the active
/// object's outline winning.
fn expected_ring(ids: &[u32], highlight_of: impl Fn(u32) -> u8) -> Vec<u8> {
    let mut ring = vec![0u8; ids.len()];
    for y in 0..H as i32 {
        for x in 0..W as i32 {
            let own = ids[(y as u32 * W + x as u32) as usize];
            let mut best = 0;
            for dy in -2i32..=2 {
                for dx in -2i32..=2 {
                    let (qx, qy) = (x + dx, y + dy);
                    if dx * dx + dy * dy > 4 || qx < 0 || qy < 0 || qx >= W as i32 || qy >= H as i32 {
                        continue;
                    }
                    let id = ids[(qy as u32 * W + qx as u32) as usize];
                    if id != own {
                        best = best.max(highlight_of(id));
                    }
                }
            }
            ring[(y as u32 * W + x as u32) as usize] = best;
        }
    }
    ring
}

#[test]
fn outline_rings_the_selected_objects_and_leaves_everything_else_alone() {
    let scene = scene();
    let camera = scene.camera.unwrap();
    let mut r = renderer(W, H);
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let colors = [srgb_rgb(SELECTED_OUTLINE), srgb_rgb(ACTIVE_OUTLINE)];
    assert_ne!(colors[0], colors[1]);
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        // Index lists: one object (it is the active one), then the cube
        // selected and the ball active (they touch on screen).
        for selected in [vec![1usize], vec![0, 1]] {
            let frame_for = |sel: &[usize]| {
                let (mut f, _) = meshes.frame(&scene, camera, depth, sel, (W, H));
                f.grid = true;
                f
            };
            let (plain_ids, plain) = draw(&mut r, &frame_for(&[]));
            let (ids, shot) = draw(&mut r, &frame_for(&selected));
            assert_eq!(ids, plain_ids, "the outline does not change the ids");
            let active = *selected.last().unwrap() as u32 + 1;
            let ring = expected_ring(&ids, |id| {
                if id == active {
                    2
                } else if id > 0 && selected.contains(&(id as usize - 1)) {
                    1
                } else {
                    0
                }
            });
            let mut counts = [0usize; 3];
            for y in 0..H {
                for x in 0..W {
                    let i = (y * W + x) as usize;
                    let p = shot.pixel(x, y);
                    counts[ring[i] as usize] += 1;
                    match ring[i] {
                        0 => assert_eq!(
                            p,
                            plain.pixel(x, y),
                            "({x}, {y}) off the ring changed ({depth:?}, {selected:?})"
                        ),
                        k => assert!(
                            close(p, colors[k as usize - 1]),
                            "({x}, {y}) ring pixel {p:?}, want {:?} ({depth:?}, {selected:?})",
                            colors[k as usize - 1]
                        ),
                    }
                }
            }
            assert!(counts[2] > 150, "active ring pixels {counts:?}");
            if selected.len() > 1 {
                assert!(counts[1] > 150, "selected ring pixels {counts:?}");
            } else {
                assert_eq!(counts[1], 0);
            }
            // The ball's interior keeps its own green (no tint).
            let ball = (0..ids.len()).find(|&i| ids[i] == 2 && ring[i] == 0).unwrap();
            let p = shot.pixel(ball as u32 % W, ball as u32 / W);
            assert!(p[1] > p[0] + 40 && p[1] > p[2] + 40, "ball pixel {p:?}");
        }
    }
    assert_no_validation_errors(&r);
}

#[test]
fn selection_rectangle_has_a_one_pixel_border_at_its_coordinates() {
    let scene = scene();
    let camera = scene.camera.unwrap();
    let mut r = renderer(W, H);
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let (mut frame, _) = meshes.frame(&scene, camera, depth, &[1], (W, H));
        let (_, plain) = draw(&mut r, &frame);
        // Corners in any order: x from 230.6 down to 40.2, y from 30.7 to 180.1.
        frame.selection_rect = Some([230.6, 30.7, 40.2, 180.1]);
        let (_, shot) = draw(&mut r, &frame);
        let (x0, x1, y0, y1) = (40u32, 230u32, 30u32, 180u32);
        for y in 0..H {
            for x in 0..W {
                let (p, q) = (shot.pixel(x, y), plain.pixel(x, y));
                let inside = (x0..=x1).contains(&x) && (y0..=y1).contains(&y);
                let border = inside && (x == x0 || x == x1 || y == y0 || y == y1);
                if border {
                    assert!(p[..3].iter().all(|&c| c > 200), "border ({x}, {y}) {p:?}");
                    assert!(close(p, blend(q, RECT_BORDER)), "border ({x}, {y}) {p:?} over {q:?}");
                } else if inside {
                    assert!(close(p, blend(q, RECT_FILL)), "fill ({x}, {y}) {p:?} over {q:?}");
                } else {
                    assert_eq!(p, q, "outside ({x}, {y})");
                }
            }
        }
        // The fill is visible over the background.
        let (p, q) = (shot.pixel(x0 + 3, y0 + 3), plain.pixel(x0 + 3, y0 + 3));
        assert!(p[0] > q[0] && p[2] > q[2], "fill {p:?} over {q:?}");
    }
    assert_no_validation_errors(&r);
}
