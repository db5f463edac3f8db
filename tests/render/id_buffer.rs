//! The object-ID target against CPU picking (`Editor::surface_at`) and the
//! colour image, and region read-backs against the full ones, in both depth
//! modes. Scenes have holes and concave outlines (a tilted torus, a U-shaped
//! glTF prism written here), rotated and non-uniformly scaled objects, a
//! child under a scaled parent, and the same scene 1e4 m from the origin.

use crate::support::gpu::*;
use nalgebra::Point2;
use std::path::{Path, PathBuf};
use viewport::app::open::open_editor;
use viewport::draw::SceneMeshes;
use viewport::math::DepthMode;
use viewport::render::{RenderError, Renderer, RgbaImage};
use viewport::scene::Scene;

const W: u32 = 320;
const H: u32 = 240;

/// Saturated object colours, one per object (channels 0 or 1).
const COLORS: [[f32; 3]; 6] =
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]];

/// Writes a U-shaped prism (two legs on a base, three touching boxes in one
/// mesh; positions and indices only, so normals are generated flat) as
/// `u.gltf` + `u.bin` in a fresh directory, and returns the directory.
fn write_u_prism(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("viewport-idbuf-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // (min, max) of each box: left leg, right leg, base. The notch between
    // the legs (x in -0.3..0.3, y above 0) is empty.
    let boxes = [
        ([-1.0, 0.0, -0.4], [-0.3, 1.4, 0.4]),
        ([0.3, 0.0, -0.4], [1.0, 1.4, 0.4]),
        ([-1.0, -0.6, -0.4], [1.0, 0.0, 0.4]),
    ];
    let mut positions: Vec<f32> = Vec::new();
    let mut indices: Vec<u16> = Vec::new();
    for (lo, hi) in boxes {
        let base = (positions.len() / 3) as u16;
        for c in 0..8 {
            let pick = |axis: usize| if c & (1 << axis) == 0 { lo[axis] } else { hi[axis] };
            positions.extend([pick(0), pick(1), pick(2)]);
        }
        // Two triangles per face: corners index bit 0 = x, bit 1 = y, bit 2 = z.
        let faces = [[0, 2, 6, 4], [1, 5, 7, 3], [0, 4, 5, 1], [2, 3, 7, 6], [0, 1, 3, 2], [4, 6, 7, 5]];
        for f in faces {
            indices.extend([f[0], f[1], f[2], f[0], f[2], f[3]].map(|i| base + i));
        }
    }
    let mut bin: Vec<u8> = positions.iter().flat_map(|v| v.to_le_bytes()).collect();
    let index_offset = bin.len();
    bin.extend(indices.iter().flat_map(|v| v.to_le_bytes()));
    std::fs::write(dir.join("u.bin"), &bin).unwrap();
    let n = positions.len() / 3;
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
        "accessors":[
          {{"bufferView":0,"componentType":5126,"count":{n},"type":"VEC3","min":[-1,-0.6,-0.4],"max":[1,1.4,0.4]}},
          {{"bufferView":1,"componentType":5123,"count":{},"type":"SCALAR"}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{index_offset}}},
                       {{"buffer":0,"byteOffset":{index_offset},"byteLength":{}}}],
        "buffers":[{{"byteLength":{},"uri":"u.bin"}}]}}"#,
        indices.len(),
        indices.len() * 2,
        bin.len()
    );
    std::fs::write(dir.join("u.gltf"), json).unwrap();
    dir
}

/// The test scene shifted by `offset` along x and z (camera included).
fn scene(dir: &Path, offset: f64) -> Scene {
    let at = |x: f64, y: f64, z: f64| format!("[{}, {y}, {}]", x + offset, z - offset);
    let c = |i: usize| format!("{:?}", COLORS[i]);
    let json = format!(
        r#"{{ "camera": {{ "eye": {eye}, "target": {target}, "fov_y_deg": 50 }},
        "objects": [
          {{ "name": "torus", "mesh": "torus", "position": {p0}, "rotation": [0.5, 0, 0, 0.8660254], "scale": [2.2, 2.2, 2.2], "color": {c0} }},
          {{ "name": "u", "mesh": "u.gltf", "position": {p1}, "rotation": [0, 0.3826834, 0, 0.9238795], "scale": [1, 1.4, 0.6], "color": {c1} }},
          {{ "name": "slab", "mesh": "cube", "position": {p2}, "rotation": [0.2, 0.3, 0.1, 0.9273618], "scale": [2.5, 0.4, 1.2], "color": {c2} }},
          {{ "name": "parent", "mesh": "sphere", "position": {p3}, "scale": [1.5, 0.6, 1], "color": {c3} }},
          {{ "name": "child", "mesh": "cylinder", "parent": "parent", "position": [0.2, 2.6, 0.5], "rotation": [0, 0, 0.258819, 0.9659258], "scale": [0.3, 1.2, 0.5], "color": {c4} }},
          {{ "name": "back", "mesh": "cube", "position": {p5}, "scale": [8, 5, 0.2], "color": {c5} }} ] }}"#,
        eye = at(0.3, 1.5, 7.0),
        target = at(0.0, 0.2, 0.0),
        p0 = at(-1.6, 0.3, 0.0),
        p1 = at(1.7, -0.4, 0.3),
        p2 = at(0.2, -1.6, 0.8),
        p3 = at(-2.6, -1.5, 1.0),
        p5 = at(0.0, 0.0, -3.0),
        c0 = c(0),
        c1 = c(1),
        c2 = c(2),
        c3 = c(3),
        c4 = c(4),
        c5 = c(5),
    );
    Scene::from_json(&json, dir).unwrap()
}

/// A small deterministic generator (64-bit LCG), independent of the code under test.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u32) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as u32
    }
}

/// The channels of an sRGB pixel that are lit (well above the dark ones).
fn lit_channels(p: [u8; 4]) -> [bool; 3] {
    [p[0] > 60, p[1] > 60, p[2] > 60]
}

fn draw_scene(r: &mut Renderer, scene: &Scene, depth: DepthMode) -> (viewport::editor::Editor, Vec<u32>, RgbaImage) {
    let (editor, loaded) = open_editor(scene.clone(), (W, H), depth).unwrap();
    let meshes = SceneMeshes::upload_loaded(r, &loaded).unwrap();
    let (mut frame, _) = meshes.editor_frame(&editor);
    frame.grid = false;
    // Objects are told apart by their lit colour channels: the solid look
    // (the material mode's white specular lights every channel a little).
    frame.lighting.shading = viewport::look::Shading::Solid;
    r.draw(&frame).unwrap();
    let ids = r.read_ids().unwrap();
    let color = r.read_color().unwrap();
    (editor, ids, color)
}

#[test]
fn id_buffer_agrees_with_cpu_picking_and_colours() {
    ids_agree_with_picking(1, "pick");
}

/// With 4x MSAA the ids and depth still come from a single-sample pass, so
/// they agree with rays through the pixel centres exactly as without it;
/// the colours away from silhouettes are still the objects' own.
#[test]
fn msaa_id_buffer_agrees_with_cpu_picking_and_colours() {
    ids_agree_with_picking(4, "pick4");
}

/// `n` random pixels off every silhouette, each with the id the buffer
/// holds and the id picking gives at the pixel's centre.
fn off_silhouette_samples(
    rng: &mut Lcg,
    ids: &[u32],
    editor: &viewport::editor::Editor,
    n: usize,
) -> Vec<(u32, u32, u32, u32)> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let (x, y) = (rng.next(W), rng.next(H));
        if on_silhouette(ids, (W, H), x, y) {
            continue;
        }
        let gpu = ids[(y * W + x) as usize];
        let cursor = Point2::new(x as f64 + 0.5, y as f64 + 0.5);
        let cpu = editor.surface_at(cursor, |_| true).map_or(0, |(i, _)| i as u32 + 1);
        out.push((x, y, gpu, cpu));
    }
    out
}

fn ids_agree_with_picking(samples: u32, tag: &str) {
    let dir = write_u_prism(tag);
    let mut r = renderer_with_samples(W, H, samples);
    assert_eq!(r.device_info().samples, samples, "lavapipe supports 1x and 4x");
    let mut rng = Lcg(0x1d_b0f);
    let mut total = 0;
    for offset in [0.0, 1e4] {
        let scene = scene(&dir, offset);
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            let (editor, ids, color) = draw_scene(&mut r, &scene, depth);
            // Every object shows somewhere, and so does the background (the
            // torus's hole or the U's notch at least).
            for id in 0..=6u32 {
                assert!(ids.contains(&id), "id {id} not drawn ({depth:?}, offset {offset})");
            }
            let samples = off_silhouette_samples(&mut rng, &ids, &editor, 2500);
            let mut disagree = Vec::new();
            for &(x, y, gpu, cpu) in &samples {
                if cpu != gpu {
                    disagree.push((x, y, gpu, cpu));
                }
                // The colour image shows that object's colour (or the dark background).
                let p = color.pixel(x, y);
                match gpu {
                    0 => assert!(p[0] < 80 && p[1] < 80 && p[2] < 90, "background pixel {p:?} at ({x}, {y})"),
                    id => {
                        let want = COLORS[id as usize - 1].map(|c| c > 0.5);
                        assert_eq!(lit_channels(p), want, "pixel {p:?} at ({x}, {y}) of object id {id}");
                    }
                }
            }
            assert!(disagree.is_empty(), "{depth:?}, offset {offset}: (x, y, gpu, cpu) {disagree:?}");
            total += samples.len();
        }
    }
    assert_eq!(total, 10_000);
    assert_no_validation_errors(&r);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn read_region_agrees_with_full_read_backs_and_depth_at() {
    let dir = write_u_prism("region");
    let mut r = renderer(W, H);
    assert!(matches!(r.read_region(0, 0, 4, 4), Err(RenderError::NothingDrawn)));
    assert_eq!(r.depth_at(10.0, 10.0).unwrap(), None);
    let mut rng = Lcg(7);
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let (_, ids, _) = draw_scene(&mut r, &scene(&dir, 0.0), depth);
        let full_depth = r.read_depth().unwrap();
        assert_eq!(full_depth.len(), (W * H) as usize);
        for i in 0..12 {
            // Some rectangles run past the right and bottom edges: clamped.
            let (x, y) = (rng.next(W), rng.next(H));
            let (w, h) = if i % 3 == 0 { (400, 300) } else { (1 + rng.next(90), 1 + rng.next(70)) };
            let region = r.read_region(x, y, w, h).unwrap();
            let (cw, ch) = (w.min(W - x), h.min(H - y));
            assert_eq!((region.x, region.y, region.width, region.height), (x, y, cw, ch));
            assert_eq!(region.ids.len(), (cw * ch) as usize);
            for row in 0..ch {
                for col in 0..cw {
                    let full = ((y + row) * W + x + col) as usize;
                    let here = (row * cw + col) as usize;
                    assert_eq!(region.ids[here], ids[full]);
                    assert_eq!(region.depth[here].to_bits(), full_depth[full].to_bits());
                    assert_eq!(region.at(x + col, y + row), Some((ids[full], full_depth[full])));
                }
            }
            let d = r.depth_at(x as f64 + 0.5, y as f64 + 0.5).unwrap().unwrap();
            assert_eq!(d, f64::from(full_depth[(y * W + x) as usize]));
        }
        // Entirely outside: empty, and no depth there.
        let outside = r.read_region(W + 5, 3, 10, 10).unwrap();
        assert_eq!((outside.width, outside.ids.len(), outside.depth.len()), (0, 0, 0));
        assert_eq!(r.depth_at(W as f64 + 1.0, 3.0).unwrap(), None);
        assert_eq!(r.depth_at(-1.0, 3.0).unwrap(), None);
        // Background pixels hold the clear depth of the mode, id 0.
        let corner = r.read_region(0, 0, 1, 1).unwrap();
        assert_eq!(corner.ids, vec![0]);
        assert_eq!(f64::from(corner.depth[0]), f64::from(depth.clear_depth()));
    }
    assert_no_validation_errors(&r);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Box selection from the ID buffer (`RenderProbe::objects_in`, what the
/// window and replays use) against the editor's own ray casts through every
/// pixel centre, for boxes whose borders cross no object (so neither side
/// can differ by a silhouette pixel), in both depth modes.
#[test]
fn box_selection_from_the_id_buffer_agrees_with_ray_casts() {
    box_selection_agrees(1, "box");
}

#[test]
fn msaa_box_selection_from_the_id_buffer_agrees_with_ray_casts() {
    box_selection_agrees(4, "box4");
}

fn box_selection_agrees(samples: u32, tag: &str) {
    use viewport::draw::RenderProbe;
    use viewport::editor::FrameProbe;
    let dir = write_u_prism(tag);
    let mut r = renderer_with_samples(W, H, samples);
    let mut rng = Lcg(0xb0c5);
    let scene = scene(&dir, 0.0);
    let mut checked = 0;
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let (editor, ids, _) = draw_scene(&mut r, &scene, depth);
        let mut tries = 0;
        while checked < 12 * if depth == DepthMode::Reversed { 1 } else { 2 } && tries < 20_000 {
            tries += 1;
            let (x0, y0) = (rng.next(W), rng.next(H));
            let (x1, y1) = ((x0 + 1 + rng.next(W)).min(W - 1), (y0 + 1 + rng.next(H)).min(H - 1));
            // Only boxes whose border pixels are all background.
            let border_clear = (x0..=x1).all(|x| ids[(y0 * W + x) as usize] == 0 && ids[(y1 * W + x) as usize] == 0)
                && (y0..=y1).all(|y| ids[(y * W + x0) as usize] == 0 && ids[(y * W + x1) as usize] == 0);
            if !border_clear {
                continue;
            }
            // The pixel centres from (x0, y0) to (x1, y1).
            let (min, max) =
                (Point2::new(x0 as f64 + 0.2, y0 as f64 + 0.2), Point2::new(x1 as f64 + 0.8, y1 as f64 + 0.8));
            let gpu = RenderProbe::new(&mut r).objects_in(min, max).expect("a frame was drawn");
            let cpu = editor.objects_in_rect(min, max);
            assert_eq!(gpu, cpu, "{depth:?} box ({x0}, {y0})-({x1}, {y1})");
            checked += 1;
        }
    }
    assert_eq!(checked, 24, "enough boxes with clear borders");
    assert_no_validation_errors(&r);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Draws the editor's frame (CPU path, no grid) and reads the id buffer and colours.
fn draw_editor(r: &mut Renderer, meshes: &SceneMeshes, editor: &viewport::editor::Editor) -> (Vec<u32>, RgbaImage) {
    let (mut frame, _) = meshes.editor_frame(editor);
    frame.grid = false;
    // Objects are told apart by their lit colour channels: the solid look
    // (the material mode's white specular lights every channel a little).
    frame.lighting.shading = viewport::look::Shading::Solid;
    r.draw(&frame).unwrap();
    (r.read_ids().unwrap(), r.read_color().unwrap())
}

/// Ids are stable: after deletes and their undo every object
/// still writes its own id + 1 (the colour of that slot in the file, so a
/// shifted id would show the wrong colour), deleted objects write none, and
/// the id buffer agrees with picking.
#[test]
fn ids_stay_put_and_agree_with_picking_after_delete_and_undo() {
    let dir = write_u_prism("pickdel");
    let mut r = renderer_with_samples(W, H, 1);
    let (mut editor, loaded) = open_editor(scene(&dir, 0.0), (W, H), DepthMode::Reversed).unwrap();
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let mut rng = Lcg(0xde1e7e);
    // Objects by file position: torus 0, u 1, slab 2, parent 3 (child 4), back 5.
    let mut check = |editor: &viewport::editor::Editor, live: &[u32], step: &str| {
        let (ids, color) = draw_editor(&mut r, &meshes, editor);
        for id in 0..6u32 {
            assert_eq!(ids.contains(&(id + 1)), live.contains(&id), "{step}: object {id} drawn or not");
        }
        for (x, y, gpu, cpu) in off_silhouette_samples(&mut rng, &ids, editor, 1500) {
            assert_eq!(gpu, cpu, "{step}: id buffer and picking at ({x}, {y})");
            if gpu > 0 {
                let want = COLORS[gpu as usize - 1].map(|c| c > 0.5);
                assert_eq!(lit_channels(color.pixel(x, y)), want, "{step}: colour at ({x}, {y}) of id {gpu}");
            }
        }
        assert_no_validation_errors(&r);
    };
    check(&editor, &[0, 1, 2, 3, 4, 5], "loaded");
    editor.set_selection(&[2, 3]);
    assert!(editor.delete());
    check(&editor, &[0, 1, 5], "slab and parent (with its child) deleted");
    editor.set_selection(&[0]);
    assert!(editor.delete());
    check(&editor, &[1, 5], "torus deleted too");
    // Undo selects what was deleted again: cleared, so that no outline
    // or gizmo covers the colours.
    assert!(editor.undo());
    editor.set_selection(&[]);
    check(&editor, &[0, 1, 5], "torus back");
    assert!(editor.undo());
    editor.set_selection(&[]);
    check(&editor, &[0, 1, 2, 3, 4, 5], "everything back");
    assert!(editor.redo());
    check(&editor, &[0, 1, 5], "delete redone");
    let _ = std::fs::remove_dir_all(&dir);
}
