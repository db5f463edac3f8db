//! The coarse level of GPU culling: chunks of consecutive ids whose boxes
//! the compute pass tests before the objects. A far view of a large grid
//! hands only the workgroups near the view to the per-object test, and
//! still draws exactly what the CPU frustum test keeps; an object moved
//! far from its chunk-mates (its chunk's box grows with the edit) is drawn
//! where it went, and one moved away is no longer drawn.

use nalgebra::Vector3;
use viewport::draw::{GpuSync, SceneMeshes};
use viewport::editor::Editor;
use viewport::math::DepthMode;
use viewport::render::Renderer;
use viewport::scene::Scene;

use crate::support::cameras::top_down;
use crate::support::gpu::{assert_no_validation_errors, renderer};

const W: u32 = 160;
const H: u32 = 120;

/// The ids the CPU path keeps (ascending).
fn cpu_kept(meshes: &SceneMeshes, e: &Editor) -> Vec<u32> {
    let (frame, _) = meshes.frame(e.scene(), e.camera, e.depth, &[], (W, H));
    let mut ids: Vec<u32> = frame.objects.iter().map(|o| o.id - 1).collect();
    ids.sort_unstable();
    ids
}

/// 200 x 200 cubes 2 m apart (x and z from 0 to 398), looked down on at
/// the corner at the origin from 30 m: a few hundred cubes in view of
/// 40,000. The renderer, its meshes and the editor.
fn corner_of_a_grid() -> (Renderer, SceneMeshes, Editor) {
    let mut r = renderer(W, H);
    let scene = Scene::cube_grid(40_000);
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let mut e = Editor::new(scene, W as f64, H as f64);
    e.camera = top_down(10.0, 10.0, 30.0, 0.5, 2000.0);
    (r, meshes, e)
}

#[test]
fn a_view_of_a_corner_tests_few_workgroups_and_moved_objects_follow_their_chunks() {
    let (mut r, meshes, mut e) = corner_of_a_grid();
    let mut sync = GpuSync::default();
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        e.depth = depth;
        let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
        r.draw(&frame).unwrap();
        let want = cpu_kept(&meshes, &e);
        assert!(want.len() > 50 && want.len() < 2000, "{} cubes in view", want.len());
        assert_eq!(r.read_drawn_objects().unwrap(), want, "{depth:?}");
        // 40,000 slots make 625 workgroups of 64; the view meets a corner
        // of rows of 200 cubes, so at most a few per row in view.
        let (listed, total) = r.read_cull_workgroups().unwrap();
        assert_eq!(total, 625);
        assert!(listed * 10 < total, "{depth:?}: {listed} of {total} workgroups tested object by object");
        assert!(listed as usize * 64 >= want.len(), "every kept object's workgroup is listed");
    }
    // Cube 30,000 (row 150, far outside the view) moves into the view: its
    // chunk's box grows, so it is drawn there; moved away again, it is not.
    let far = 30_000;
    let before = cpu_kept(&meshes, &e);
    assert!(!before.contains(&far));
    let mut t = e.scene().objects()[far as usize].transform;
    let home = t.position;
    t.position = Vector3::new(11.0, 5.0, 9.0);
    assert!(e.set_transform(far as usize, t));
    let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    r.draw(&frame).unwrap();
    let drawn = r.read_drawn_objects().unwrap();
    assert!(drawn.contains(&far), "the moved cube is drawn where it went");
    assert_eq!(drawn, cpu_kept(&meshes, &e));
    t.position = home + Vector3::new(0.0, 0.0, 1.0);
    assert!(e.set_transform(far as usize, t));
    let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    r.draw(&frame).unwrap();
    assert_eq!(r.read_drawn_objects().unwrap(), before, "moved out of view again");
    // A cube of the corner moved out of the view is no longer drawn either.
    let near = before[before.len() / 2];
    let mut t = e.scene().objects()[near as usize].transform;
    t.position += Vector3::new(500.0, 0.0, 500.0);
    assert!(e.set_transform(near as usize, t));
    let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    r.draw(&frame).unwrap();
    let after: Vec<u32> = before.iter().copied().filter(|&i| i != near).collect();
    assert_eq!(r.read_drawn_objects().unwrap(), after);
    assert_eq!(cpu_kept(&meshes, &e), after);
    assert_no_validation_errors(&r);
}

/// The boxes a GPU-culled frame makes at most: the renderer's documented
/// budget (`Renderer::update_scene_objects`).
const BOXES_PER_FRAME: usize = 1024;

/// An edit of more objects than a frame makes boxes for: the records past
/// the budget are provisional, drawn without the frustum test (so the
/// picture is the CPU path's), their chunks tested object by object; the
/// next frames make their boxes, a budget a frame, oldest first, until the
/// GPU keeps exactly what the CPU keeps again.
#[test]
fn a_large_edit_draws_provisional_records_until_the_next_frames_make_their_boxes() {
    let (mut r, meshes, mut e) = corner_of_a_grid();
    let mut sync = GpuSync::default();
    let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    r.draw(&frame).unwrap();
    assert_eq!(r.provisional_scene_objects(), 0, "a whole upload makes every box");
    // Every 8th cube raised by 0.25 m, one edit each, all before the next
    // frame: 5,000 records to make.
    let moved: Vec<u32> = (0..40_000).step_by(8).collect();
    for &i in &moved {
        let mut t = e.scene().objects()[i as usize].transform;
        t.position.y += 0.25;
        assert!(e.set_transform(i as usize, t));
    }
    let kept = cpu_kept(&meshes, &e);
    assert!(kept.len() > 50 && kept.len() < 2000, "{} cubes in view", kept.len());
    // The frame makes boxes for the first moved ids (ascending); the rest
    // are drawn whatever the view, as degenerate objects are.
    let provisional = &moved[BOXES_PER_FRAME..];
    let drawn_with = |rest: &[u32]| {
        let mut ids: Vec<u32> = kept.iter().chain(rest).copied().collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    let cpu_picture = {
        let (frame, _) = meshes.editor_frame(&e);
        r.draw(&frame).unwrap();
        r.read_ids().unwrap()
    };
    let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    r.draw(&frame).unwrap();
    assert_eq!(r.provisional_scene_objects(), provisional.len());
    assert_eq!(r.read_drawn_objects().unwrap(), drawn_with(provisional));
    // The objects drawn beyond the CPU's are out of view: the same picture
    // (but for the few edge pixels where f32 and f64 transforms differ).
    let gpu_picture = r.read_ids().unwrap();
    let differ = cpu_picture.iter().zip(&gpu_picture).filter(|(a, b)| a != b).count();
    assert!(differ * 200 <= cpu_picture.len(), "{differ} of {} pixels differ", cpu_picture.len());
    // Their chunks (every chunk from the first provisional id on) always
    // meet the frustum: most workgroups are tested object by object.
    let (listed, total) = r.read_cull_workgroups().unwrap();
    assert!(listed * 2 > total, "{listed} of {total} workgroups listed with provisional chunks");
    // Each next frame, with nothing edited, makes a budget of boxes.
    let mut left = provisional;
    while !left.is_empty() {
        left = &left[BOXES_PER_FRAME.min(left.len())..];
        let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
        r.draw(&frame).unwrap();
        assert_eq!(r.provisional_scene_objects(), left.len());
        assert_eq!(r.read_drawn_objects().unwrap(), drawn_with(left), "{} left", left.len());
    }
    // Settled: the chunks' boxes hold their objects again.
    let (listed, total) = r.read_cull_workgroups().unwrap();
    assert!(listed * 10 < total, "{listed} of {total} workgroups listed once settled");
    assert_eq!(r.read_drawn_objects().unwrap(), kept);
    assert_no_validation_errors(&r);
}
