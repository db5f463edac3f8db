//! GPU culling (`FrameDesc::gpu_scene`): the compute pass draws exactly the
//! objects the CPU frustum test keeps, on random cameras in both depth
//! modes, with near planes cutting objects and a scene far from the origin;
//! a drag copies only the moved object's record, which then equals the CPU
//! world matrix; the id buffer matches the CPU path's. Every renderer runs
//! with validation, synchronization validation included (`ContextDesc::validation`),
//! so the transfer -> compute -> indirect/vertex barriers are checked.

use nalgebra::{Matrix4, Point3, Vector3};
use rand::{Rng, SeedableRng};
use viewport::draw::{GpuSync, SceneMeshes};
use viewport::editor::Editor;
use viewport::input::{Event, Modifiers, MouseButton};
use viewport::math::{Camera, DepthMode, Projection, View};
use viewport::render::Renderer;
use viewport::scene::Scene;

use crate::support::gpu::{assert_no_validation_errors, renderer, renderer_with_samples};
use crate::support::scenario::random_camera;

const W: u32 = 160;
const H: u32 = 120;

/// The smallest distance, over the frustum planes, between the plane and
/// the "positive vertex" of object `i`'s world box (computed here in f64
/// from the unit cube's corners): objects this close to a plane may fall
/// either way in the GPU's f32 arithmetic.
fn margin(view: &View, world: &Matrix4<f64>) -> f64 {
    let f = view.frustum();
    let corners: Vec<Point3<f64>> = (0..8)
        .map(|k| {
            let c = |b: usize| if k & b != 0 { 0.5 } else { -0.5 };
            world.transform_point(&Point3::new(c(1), c(2), c(4)))
        })
        .collect();
    let (mut lo, mut hi) = (corners[0], corners[0]);
    for p in &corners {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    f.sides
        .iter()
        .chain(std::iter::once(&f.near))
        .chain(f.far.iter())
        .map(|pl| {
            let n = pl.normal;
            let pv = Point3::new(
                if n.x >= 0.0 { hi.x } else { lo.x },
                if n.y >= 0.0 { hi.y } else { lo.y },
                if n.z >= 0.0 { hi.z } else { lo.z },
            );
            pl.signed_distance(&pv).abs()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn gpu_culling_draws_exactly_what_the_cpu_frustum_test_keeps() {
    let mut r = renderer(W, H);
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let (mut kept, mut culled, mut borderline) = (0usize, 0usize, 0usize);
    for far in [false, true] {
        let mut scene = Scene::cube_grid(2000);
        if far {
            for i in 0..scene.len() {
                scene.object_mut(i).unwrap().transform.position += Vector3::new(2.0e5, -1.0e5, 3.0e5);
            }
        }
        // Children that follow their parents, some rotated and scaled.
        for k in 0..100 {
            let parent = (k * 19) % 2000;
            let mut child = scene.objects()[parent].clone();
            child.name = format!("child{k}");
            child.transform.position = Vector3::new(0.0, 1.5, 0.0);
            child.transform.scale = Vector3::new(0.5, 2.0, 1.0);
            scene.push(child, Some(parent)).unwrap();
        }
        let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
        let centre = scene.world_matrix(1000).column(3).xyz();
        let mut e = Editor::new(scene, W as f64, H as f64);
        let mut sync = GpuSync::default();
        for round in 0..16 {
            // Edits the GPU copy must follow: moves (a parent's moves its
            // child) copy only those records; a duplicate outgrows the
            // records (a new upload with room), a delete leaves dead slots.
            if round == 5 {
                for k in 0..20 {
                    let i = (k * 19 * 7) % 2000;
                    let mut t = e.scene().objects()[i].transform;
                    t.position += Vector3::new(rng.gen_range(-9.0..9.0), rng.gen_range(-9.0..9.0), 0.0);
                    e.set_transform(i, t);
                }
            }
            if round == 10 {
                e.set_selection(&(0..40).map(|k| k * 13).collect::<Vec<_>>());
                let ctrl = Modifiers { ctrl: true, ..Modifiers::NONE };
                e.handle_with_mods(&Event::KeyDown { key: "D".into() }, ctrl);
                e.set_selection(&[7, 900, 1999]);
                e.handle_with_mods(&Event::KeyDown { key: "Delete".into() }, Modifiers::NONE);
                e.set_selection(&[]);
            }
            // Near planes up to 15 m cut through the cubes around the eye.
            e.camera = random_camera(&mut rng, centre, 40.0, round % 4 == 0);
            for depth in [DepthMode::Reversed, DepthMode::Standard] {
                e.depth = depth;
                let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
                assert!(frame.objects.is_empty(), "the GPU path hands the renderer no object list");
                r.draw(&frame).unwrap();
                let gpu: Vec<usize> = r.read_drawn_objects().unwrap().into_iter().map(|i| i as usize).collect();
                let (cpu, _) = meshes.frame(e.scene(), e.camera, depth, &[], (W, H));
                let mut cpu: Vec<usize> = cpu.objects.iter().map(|o| o.id as usize - 1).collect();
                cpu.sort_unstable();
                let view = View::new(e.camera, W as f64, H as f64, depth).unwrap();
                // Objects on one side only: each must lie within a
                // micrometre-scale band around a plane.
                let only = |a: &[usize], b: &[usize]| a.iter().filter(|i| b.binary_search(i).is_err()).count();
                for &i in cpu
                    .iter()
                    .filter(|i| gpu.binary_search(i).is_err())
                    .chain(gpu.iter().filter(|i| cpu.binary_search(i).is_err()))
                {
                    let m = margin(&view, &e.scene().world_matrix(i));
                    assert!(m < 1e-4, "far {far}, round {round}, {depth:?}: object {i} differs, {m} m from a plane");
                    borderline += 1;
                }
                assert!(only(&cpu, &gpu) + only(&gpu, &cpu) <= 2, "far {far}, round {round}, {depth:?}");
                kept += gpu.len();
                culled += e.scene().len() - gpu.len();
            }
        }
    }
    assert!(kept > 1000 && culled > 1000, "cameras that keep and cull: {kept} kept, {culled} culled");
    assert!(borderline <= 2, "{borderline} objects on a plane");
    assert_no_validation_errors(&r);
}

/// Grabs object 0's X arrow and drags it; returns the editor.
fn drag(e: &mut Editor, r: &mut Renderer, meshes: &SceneMeshes, sync: &mut GpuSync, steps: usize) -> Vec<u32> {
    e.set_selection(&[0]);
    let view = e.view().unwrap();
    let frame = e.gizmo.frame(&view, &e.targets()).unwrap();
    let grab = view.world_to_screen(&(frame.pivot + frame.axes[0] * (0.6 * frame.len))).unwrap();
    e.handle(&Event::CursorMoved { x: grab.x, y: grab.y });
    e.handle(&Event::MouseDown { button: MouseButton::Left });
    assert!(e.active_handle().is_some(), "the X arrow is grabbed");
    let mut uploads = Vec::new();
    for k in 1..=steps {
        e.handle(&Event::CursorMoved { x: grab.x + 9.0 * k as f64, y: grab.y + k as f64 });
        let f = meshes.gpu_frame(e, r, sync).unwrap();
        uploads.push(r.draw(&f).unwrap().uploaded_objects);
    }
    e.handle(&Event::MouseUp { button: MouseButton::Left });
    uploads
}

#[test]
fn after_a_drag_the_gpu_copy_of_the_moved_object_equals_the_cpu_matrix() {
    let mut r = renderer(W, H);
    for offset in [Vector3::zeros(), Vector3::new(3.0e5, 1.0e4, -2.0e5)] {
        let mut scene = Scene::cube_grid(500);
        for i in 0..scene.len() {
            scene.object_mut(i).unwrap().transform.position += offset;
        }
        let o0 = scene.world_matrix(0).column(3).xyz();
        scene.camera = Some(Camera {
            eye: Point3::from(o0 + Vector3::new(4.0, 3.0, 6.0)),
            target: Point3::from(o0),
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 0.9, near: 0.05, far: 1000.0 },
        });
        let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
        let mut e = Editor::new(scene, W as f64, H as f64);
        let mut sync = GpuSync::default();
        let first = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
        assert_eq!(r.draw(&first).unwrap().uploaded_objects, 0, "the first upload is whole, outside the frame");
        let before = r.read_scene_object(1).unwrap();
        let uploads = drag(&mut e, &mut r, &meshes, &mut sync, 4);
        // Each drag step copies the one moved record.
        assert_eq!(uploads, vec![1, 1, 1, 1]);
        let world = e.scene().world_matrix(0);
        assert!((world[(0, 3)] - (o0.x)).abs() > 0.01, "the drag moved object 0");
        let gpu = r.read_scene_object(0).unwrap();
        for k in 0..3 {
            let x = world[(k, 3)];
            let hi = x as f32;
            assert_eq!(gpu.translation_hi[k], hi, "translation {k}");
            assert_eq!(gpu.translation_lo[k], (x - f64::from(hi)) as f32, "translation {k}");
            for c in 0..3 {
                assert_eq!(gpu.columns[c][k], world[(k, c)] as f32, "linear ({k}, {c})");
            }
        }
        // An object that did not move kept its record.
        assert_eq!(r.read_scene_object(1).unwrap(), before);
        // Undo is a move too: one record again.
        e.handle_with_mods(&Event::KeyDown { key: "Z".into() }, Modifiers { ctrl: true, ..Modifiers::NONE });
        let f = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
        assert_eq!(r.draw(&f).unwrap().uploaded_objects, 1);
        assert_eq!(r.read_scene_object(0).unwrap().translation_hi[0], o0.x as f32);
    }
    assert_no_validation_errors(&r);
}

#[test]
fn the_gpu_path_writes_the_ids_the_cpu_path_writes() {
    for samples in [1, 4] {
        let mut r = renderer_with_samples(W, H, samples);
        let mut scene = Scene::cube_grid(400);
        for i in 0..scene.len() {
            scene.object_mut(i).unwrap().transform.position += Vector3::new(1.0e5, 0.0, -1.0e5);
        }
        let c = scene.world_matrix(200).column(3).xyz();
        let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
        let mut e = Editor::new(scene, W as f64, H as f64);
        e.camera = Camera {
            eye: Point3::from(c + Vector3::new(6.0, 9.0, 14.0)),
            target: Point3::from(c),
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 0.9, near: 0.1, far: 500.0 },
        };
        e.set_selection(&[200, 201]);
        let mut sync = GpuSync::default();
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            e.depth = depth;
            let (cpu_frame, _) = meshes.editor_frame(&e);
            r.draw(&cpu_frame).unwrap();
            let cpu = r.read_ids().unwrap();
            let gpu_frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
            r.draw(&gpu_frame).unwrap();
            let gpu = r.read_ids().unwrap();
            let objects: std::collections::HashSet<u32> = cpu.iter().copied().filter(|&id| id > 0).collect();
            assert!(objects.len() > 20, "{} objects on screen", objects.len());
            // The model-view is formed in f32 on the GPU, in f64 on the CPU:
            // at most a few edge pixels may differ.
            let differ = cpu.iter().zip(&gpu).filter(|(a, b)| a != b).count();
            assert!(differ * 200 <= cpu.len(), "{samples}x {depth:?}: {differ} of {} pixels differ", cpu.len());
        }
        assert_no_validation_errors(&r);
    }
}

#[test]
fn an_empty_scene_and_objects_without_meshes_draw_nothing() {
    let mut r = renderer(W, H);
    let empty = Scene::cube_grid(0);
    let nothing = Scene::from_json(
        r#"{"camera":{"eye":[0,0,5],"target":[0,0,0]},"objects":[{"name":"e","mesh":null}]}"#,
        std::path::Path::new("."),
    )
    .unwrap();
    for scene in [empty, nothing] {
        let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
        let e = Editor::new(scene, W as f64, H as f64);
        let mut sync = GpuSync::default();
        let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
        r.draw(&frame).unwrap();
        assert!(r.read_drawn_objects().unwrap().is_empty());
        assert!(r.read_ids().unwrap().iter().all(|&id| id == 0));
    }
    assert!(r.read_scene_object(1).is_err(), "one object (index 0) only");
    assert_no_validation_errors(&r);
}

/// Stable ids (issue 11): after deletes, their undo, a duplicate and its
/// undo and redo, the GPU path draws exactly the live objects (every object
/// is in view, far from every plane), as the CPU path does; deletes and
/// their undo rewrite only the records of the objects that went or came
/// back (no full upload), and the other objects keep their ids.
#[test]
fn gpu_culling_follows_delete_undo_and_duplicate_by_id() {
    let mut r = renderer(W, H);
    // 20 x 20 cubes; 30 of them carry a child above them.
    let mut scene = Scene::cube_grid(400);
    for k in 0..30 {
        let parent = k * 13;
        let mut child = scene.objects()[parent].clone();
        child.name = format!("child{k}");
        child.transform.position = Vector3::new(0.0, 1.5, 0.0);
        scene.push(child, Some(parent)).unwrap();
    }
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let mut e = Editor::new(scene, W as f64, H as f64);
    // From high above the grid's centre: every cube well inside the view.
    e.camera = Camera {
        eye: Point3::new(19.0, 120.0, 19.0),
        target: Point3::new(19.0, 0.0, 19.0),
        up: -Vector3::z(),
        projection: Projection::Perspective { fov_y: 0.9, near: 1.0, far: 500.0 },
    };
    let mut sync = GpuSync::default();
    // The model: live ids (cube i has id i, child k id 400 + k, below cube 13k).
    let mut live: std::collections::BTreeSet<usize> = (0..430).collect();
    let below = |ids: &[usize]| -> Vec<usize> {
        let mut out: Vec<usize> = ids.to_vec();
        out.extend(ids.iter().filter(|&&i| i < 390 && i % 13 == 0).map(|&i| 400 + i / 13));
        out
    };
    let mut check = |e: &mut Editor, live: &std::collections::BTreeSet<usize>, uploads: Option<usize>, step: &str| {
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            e.depth = depth;
            let frame = meshes.gpu_frame(e, &mut r, &mut sync).unwrap();
            let stats = r.draw(&frame).unwrap();
            if let (Some(n), DepthMode::Reversed) = (uploads, depth) {
                assert_eq!(stats.uploaded_objects as usize, n, "{step}: records copied");
            }
            let gpu: Vec<usize> = r.read_drawn_objects().unwrap().into_iter().map(|i| i as usize).collect();
            let want: Vec<usize> = live.iter().copied().collect();
            assert_eq!(gpu, want, "{step}, {depth:?}: the GPU path draws the live objects");
            let (cpu, _) = meshes.editor_frame(e);
            let mut cpu: Vec<usize> = cpu.objects.iter().map(|o| o.id as usize - 1).collect();
            cpu.sort_unstable();
            assert_eq!(cpu, want, "{step}: the CPU path draws the live objects");
        }
    };
    check(&mut e, &live, None, "loaded");
    // Delete 3 cubes, two of them with children.
    e.set_selection(&[13, 50, 390 - 13]);
    assert!(e.delete());
    let gone = below(&[13, 50, 377]);
    assert_eq!(gone.len(), 5);
    for i in &gone {
        live.remove(i);
    }
    check(&mut e, &live, Some(5), "delete");
    assert!(e.undo());
    live.extend(gone.iter().copied());
    check(&mut e, &live, Some(5), "undo delete");
    assert!(e.redo());
    for i in &gone {
        live.remove(i);
    }
    check(&mut e, &live, Some(5), "redo delete");
    // Duplicate cube 26 (with child 402) and cube 7: copies 430, 431, 432
    // (originals in id order: 7, 26, 402).
    e.set_selection(&[26, 7]);
    assert!(e.duplicate());
    assert_eq!(e.selection(), &[431, 430]);
    live.extend([430, 431, 432]);
    check(&mut e, &live, None, "duplicate");
    assert!(e.undo());
    for i in [430, 431, 432] {
        live.remove(&i);
    }
    check(&mut e, &live, Some(3), "undo duplicate");
    assert!(e.redo());
    live.extend([430, 431, 432]);
    check(&mut e, &live, Some(3), "redo duplicate (the records have room)");
    // Cube 100 kept its id through all of it.
    assert_eq!(e.scene().objects()[100].name, "cube100");
    assert_no_validation_errors(&r);
}
