//! GPU culling (`FrameDesc::gpu_scene`): the compute pass draws exactly the
//! objects the CPU frustum test keeps, on random cameras in both depth
//! modes, with near planes cutting objects and a scene far from the origin;
//! a drag copies only the moved object's record, which then equals the CPU
//! world matrix; the id buffer matches the CPU path's, and of coincident
//! objects the same one wins on both paths every frame (the ordered
//! compaction); blended objects are drawn back to front as on the CPU
//! path; an object that changes its mesh moves between the per-mesh lists;
//! duplicates take free member slots and a grown record buffer, with no
//! second upload of the scene.
//! Every renderer runs
//! with validation, synchronization validation included (`ContextDesc::validation`),
//! so the transfer -> compute -> indirect/vertex barriers are checked.

use nalgebra::{Matrix4, Point3, Vector3};
use rand::{Rng, SeedableRng};
use viewport::draw::{GpuSync, SceneMeshes};
use viewport::editor::Editor;
use viewport::input::{Event, Modifiers, MouseButton};
use viewport::math::{Camera, DepthMode, Projection, View};
use viewport::render::{Highlight, Renderer, SceneObject};
use viewport::scene::Scene;

use crate::support::cameras::{random_camera, top_down};
use crate::support::gpu::{assert_no_validation_errors, project, renderer, renderer_with_samples};

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
    // The frustum test alone (small-object culling has its own tests).
    r.set_small_object_culling(false);
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
            child.name = format!("child{k}").into();
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

/// The id buffer of `e`'s frame drawn by the CPU path.
fn cpu_path_ids(r: &mut Renderer, meshes: &SceneMeshes, e: &Editor) -> Vec<u32> {
    let (frame, _) = meshes.editor_frame(e);
    r.draw(&frame).unwrap();
    r.read_ids().unwrap()
}

/// A perspective camera (0.9 rad, y up) at `c + offset` looking at `c`.
fn looking_at(c: Vector3<f64>, offset: Vector3<f64>, near: f64) -> Camera {
    Camera {
        eye: Point3::from(c + offset),
        target: Point3::from(c),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 0.9, near, far: 500.0 },
    }
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
        e.camera = looking_at(c, Vector3::new(6.0, 9.0, 14.0), 0.1);
        e.set_selection(&[200, 201]);
        let mut sync = GpuSync::default();
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            e.depth = depth;
            let cpu = cpu_path_ids(&mut r, &meshes, &e);
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

/// Stable ids: after deletes, their undo, a duplicate and its
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
        child.name = format!("child{k}").into();
        child.transform.position = Vector3::new(0.0, 1.5, 0.0);
        scene.push(child, Some(parent)).unwrap();
    }
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let mut e = Editor::new(scene, W as f64, H as f64);
    // From high above the grid's centre: every cube well inside the view.
    e.camera = top_down(19.0, 19.0, 120.0, 1.0, 500.0);
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
            // The outline list (kept between frames while the selection and
            // the structure stay): the selection in order, the last active.
            let sel = e.selection();
            let outlined: Vec<(u32, Highlight)> = sel
                .iter()
                .map(|&i| (i as u32 + 1, if sel.last() == Some(&i) { Highlight::Active } else { Highlight::Selected }))
                .collect();
            assert_eq!(&frame.gpu_scene.as_ref().unwrap().highlights[..], &outlined[..], "{step}: outlined");
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
        r.gpu_scene_rebuilds()
    };
    check(&mut e, &live, None, "loaded");
    // The selection alone changes: the outline follows.
    e.set_selection(&[5, 9]);
    check(&mut e, &live, Some(0), "select two");
    e.set_selection(&[9]);
    check(&mut e, &live, Some(0), "select one");
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
    // New ids past the 430 records held: the records are copied into a
    // larger buffer on the device, and only the copies' records are
    // written (no second upload of the scene, no rebuilt member list).
    let rebuilds = check(&mut e, &live, Some(3), "duplicate");
    assert_eq!((rebuilds.uploads, rebuilds.grown, rebuilds.member_lists), (1, 1, 1), "after the duplicate");
    assert!(e.undo());
    for i in [430, 431, 432] {
        live.remove(&i);
    }
    check(&mut e, &live, Some(3), "undo duplicate");
    assert!(e.redo());
    live.extend([430, 431, 432]);
    let rebuilds = check(&mut e, &live, Some(3), "redo duplicate (the records have room)");
    assert_eq!(rebuilds.uploads, 1, "one whole upload, when the scene was loaded");
    // Cube 100 kept its id through all of it.
    assert_eq!(e.scene().objects()[100].name, "cube100");
    assert_no_validation_errors(&r);
}

/// A run of duplicates of a scene of cubes and spheres (ids interleaved),
/// with deletes and undo / redo between them, on the GPU path: from three
/// cameras (the grid, the copies moved far aside, and a corner of the
/// grid, whose cubes share a workgroup of the cull with copies out of
/// view) every frame draws exactly the objects the CPU path keeps, all
/// live objects between the first two, and writes the CPU path's ids.
/// Copies append to their mesh's member slots and take records from the
/// room the first grown buffer left: the scene is uploaded once, the
/// record buffer grows once (copied on the device), and the member list is
/// rebuilt only once a mesh's copies outgrow the room it was given (a
/// quarter of its objects), never while they fit.
#[test]
fn a_run_of_duplicates_appends_to_the_gpu_lists_without_uploading_the_scene() {
    let mut r = renderer(W, H);
    // 18 cubes a row (x = 0, 2, .. 34), rows z = 0, 2, .. 32; every third
    // one is a sphere: 200 cubes, 100 spheres.
    let mut scene = Scene::cube_grid(300);
    for i in (0..300).step_by(3) {
        *scene.object_mut(i).unwrap().mesh = viewport::scene::MeshRef::Primitive(viewport::scene::Primitive::Sphere);
    }
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let mut e = Editor::new(scene, W as f64, H as f64);
    let mut sync = GpuSync::default();
    // The whole grid; the copies, 1000 to the right; the grid's last rows
    // at x 0 to 8 (cubes 289, 290 and 292 are the first in the cubes'
    // fourth workgroup of 64, whose other slots the copies fill).
    let grid = top_down(19.0, 14.0, 110.0, 1.0, 500.0);
    let copies = top_down(1019.0, 14.0, 110.0, 1.0, 500.0);
    let corner = top_down(4.0, 33.0, 6.0, 1.0, 500.0);
    let mut check = |e: &mut Editor, step: &str| {
        let mut all = Vec::new();
        for (view, camera) in [("grid", grid), ("copies", copies), ("corner", corner)] {
            e.camera = camera;
            let frame = meshes.gpu_frame(e, &mut r, &mut sync).unwrap();
            r.draw(&frame).unwrap();
            let gpu_drawn = r.read_drawn_objects().unwrap();
            let gpu_ids = r.read_ids().unwrap();
            let (cpu, _) = meshes.editor_frame(e);
            let mut cpu: Vec<u32> = cpu.objects.iter().map(|o| o.id - 1).collect();
            cpu.sort_unstable();
            assert_eq!(gpu_drawn, cpu, "{step}, {view}: the GPU path draws what the CPU path keeps");
            let cpu_ids = cpu_path_ids(&mut r, &meshes, e);
            let differ = cpu_ids.iter().zip(&gpu_ids).filter(|(a, b)| a != b).count();
            assert!(differ * 200 <= cpu_ids.len(), "{step}, {view}: {differ} of {} id pixels differ", cpu_ids.len());
            if view == "corner" {
                assert!(gpu_ids.contains(&290) && gpu_ids.contains(&291), "{step}: cubes 289 and 290 are seen");
            } else {
                all.extend(gpu_drawn);
            }
        }
        all.sort_unstable();
        let live: Vec<u32> = e.scene().iter().map(|(i, _)| i as u32).collect();
        assert_eq!(all, live, "{step}: every live object is drawn from one of the two cameras");
        r.gpu_scene_rebuilds()
    };
    let loaded = check(&mut e, "loaded");
    assert_eq!((loaded.uploads, loaded.grown, loaded.member_lists), (1, 0, 1));
    // A duplicate undone before the next frame: its ids, past the records
    // held, came and went, and the frame has nothing of them to write.
    e.set_selection(&[5, 6, 7]);
    assert!(e.duplicate());
    assert!(e.undo());
    let undone = check(&mut e, "a duplicate undone between frames");
    assert_eq!((undone.uploads, undone.grown, undone.member_lists), (1, 0, 1));
    // 16 objects a round: 10 cubes, 6 spheres, spread through the grid;
    // their copies (selected after a duplicate) move 1000 to the right and
    // up by the round, so that each shows.
    let picks: Vec<usize> = (0..16).map(|k| k * 18 + usize::from(k % 8 >= 3)).collect();
    let spheres = picks.iter().filter(|&&i| i % 3 == 0).count();
    assert_eq!((picks.len() - spheres, spheres), (10, 6));
    let (mut cubes_now, mut spheres_now) = (200, 100);
    for round in 0..8 {
        e.set_selection(&picks);
        assert!(e.duplicate());
        let copies = e.selection().to_vec();
        assert_eq!(copies.len(), 16);
        for &c in &copies {
            let mut t = e.scene().objects()[c].transform;
            t.position.x += 1000.0;
            t.position.y += 1.5 * (round + 1) as f64;
            assert!(e.set_transform(c, t));
        }
        cubes_now += 10;
        spheres_now += 6;
        let step = format!("duplicate {round}");
        let rebuilds = check(&mut e, &step);
        assert_eq!(rebuilds.uploads, 1, "{step}: no second upload");
        assert_eq!(rebuilds.grown, 1, "{step}: 300 records grew once, to 450, which hold 428 ids");
        // The first list gave each mesh a quarter of its objects as room
        // (rounded up to workgroups of 64): 50 cubes and 25 spheres fit.
        if cubes_now <= 250 && spheres_now <= 125 {
            assert_eq!(rebuilds.member_lists, 1, "{step}: the copies took free member slots");
        }
        // Every few rounds: delete two of the copies, undo, redo.
        if round % 3 == 1 {
            e.set_selection(&copies[..2]);
            assert!(e.delete());
            check(&mut e, &format!("{step}, delete"));
            assert!(e.undo());
            check(&mut e, &format!("{step}, undo delete"));
            assert!(e.redo());
            check(&mut e, &format!("{step}, redo delete"));
            assert!(e.undo());
        }
    }
    let end = check(&mut e, "after the run");
    assert!(end.member_lists > 1, "cubes grew past their room: the list was rebuilt ({end:?})");
    assert_eq!(end.uploads, 1);
    // Undo the last three duplicates one by one (their ids go), redo one,
    // then duplicate again.
    for k in 0..3 {
        assert!(e.undo());
        check(&mut e, &format!("undo {k}"));
    }
    assert!(e.redo());
    check(&mut e, "redo");
    e.set_selection(&[2, 4]);
    assert!(e.duplicate());
    check(&mut e, "duplicate after undo");
    assert_no_validation_errors(&r);
}

/// Seven cubes at object 1500's place (same mesh, same transform, other
/// ids), in different workgroups of the cull and two pairs in the same
/// one: whatever order the GPU runs them in, one id must win every covered
/// pixel, every frame, the one the
/// CPU path shows. That path draws in scene order and the depth test passes
/// on equal depth (`GREATER_OR_EQUAL` reversed, `LESS_OR_EQUAL` standard),
/// so the last object of the stack in scene order keeps the pixels.
#[test]
fn coincident_objects_keep_the_last_objects_id_every_frame_on_both_paths() {
    let mut r = renderer(W, H);
    let mut scene = Scene::cube_grid(3000);
    let stack = [11usize, 12, 700, 1500, 2200, 2998, 2999];
    let t = scene.objects()[1500].transform;
    for &i in &stack {
        *scene.object_mut(i).unwrap().transform = t;
    }
    let c = scene.world_matrix(1500).column(3).xyz();
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let mut e = Editor::new(scene, W as f64, H as f64);
    // Close enough that the stack covers a good part of the image.
    e.camera = looking_at(c, Vector3::new(1.5, 2.0, 2.5), 0.05);
    let stack_ids: Vec<u32> = stack.iter().map(|&i| i as u32 + 1).collect();
    let winner = *stack_ids.last().unwrap();
    let mut sync = GpuSync::default();
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        e.depth = depth;
        let cpu = cpu_path_ids(&mut r, &meshes, &e);
        let covered = cpu.iter().filter(|id| stack_ids.contains(id)).count();
        assert!(covered > 500, "{depth:?}: the stack covers {covered} pixels");
        assert!(cpu.iter().all(|id| !stack_ids.contains(id) || *id == winner), "{depth:?}: CPU path");
        let mut previous: Option<Vec<u32>> = None;
        for frame in 0..24 {
            let f = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
            r.draw(&f).unwrap();
            let gpu = r.read_ids().unwrap();
            let others = gpu.iter().filter(|id| stack_ids.contains(id) && **id != winner).count();
            assert!(others == 0, "{depth:?}, frame {frame}: {others} pixels show another object of the stack");
            let same = gpu.iter().zip(&cpu).filter(|(g, c)| **g == winner && **c == winner).count();
            assert!(same * 100 >= covered * 99, "{depth:?}: {same} of {covered} stack pixels agree with the CPU path");
            if let Some(p) = &previous {
                assert!(p == &gpu, "{depth:?}, frame {frame}: the id buffer changed with nothing moving");
            }
            previous = Some(gpu);
        }
    }
    assert_no_validation_errors(&r);
}

/// Three overlapping half-transparent quads of one blended glTF mesh, in
/// red, green and blue, in front of an opaque wall; the scene lists them
/// neither back to front nor front to back. Both paths draw the wall, then
/// the quads back to front: the triple overlap is the blend computed here,
/// the quads' ids are the nearest quad's, and the two images agree.
#[test]
fn overlapping_translucent_objects_look_the_same_on_both_paths() {
    use crate::support::textured::{close, to_linear, to_srgb, unlit, Doc, Quad};
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let mut glass = unlit([1.0, 1.0, 1.0, 0.5], None);
    glass["alphaMode"] = json!("BLEND");
    let doc = Doc { quads: vec![Quad::new([0.0; 3], 0.6, Some(0))], materials: vec![glass], ..Doc::default() };
    doc.write(dir.path(), "glass.gltf");
    let quad = |name: &str, x: f64, z: f64, color: [f64; 3]| json!({"name": name, "mesh": "glass.gltf", "position": [x, 0.0, z], "color": color});
    let scene = json!({
        "camera": {"eye": [0, 0, 4], "target": [0, 0, 0], "fov_y_deg": 50, "near": 0.1, "far": 100},
        "objects": [
            quad("near", 0.0, 0.6, [1.0, 0.0, 0.0]),
            {"name": "wall", "mesh": "cube", "position": [0, 0, -1], "scale": [6, 6, 0.2], "color": [0.6, 0.6, 0.6]},
            quad("far", -0.3, 0.0, [0.0, 0.0, 1.0]),
            quad("mid", 0.3, 0.3, [0.0, 1.0, 0.0]),
        ]
    });
    let path = dir.path().join("glass.json");
    std::fs::write(&path, scene.to_string()).unwrap();
    let opened = viewport::app::open::open_scene(Some(&path)).unwrap();
    let (e, loaded) = viewport::app::open::open_editor_for(opened, (W, H), DepthMode::Reversed).unwrap();
    let mut r = renderer(W, H);
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();

    let (mut cpu_frame, _) = meshes.editor_frame(&e);
    cpu_frame.grid = false;
    r.draw(&cpu_frame).unwrap();
    let (cpu, cpu_ids) = (r.read_color().unwrap(), r.read_ids().unwrap());
    let mut sync = GpuSync::default();
    let mut gpu_frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    gpu_frame.grid = false;
    let mut listed: Vec<u32> = gpu_frame.objects.iter().map(|o| o.id).collect();
    listed.sort_unstable();
    assert_eq!(listed, vec![1, 3, 4], "the blended objects are listed, the wall is culled on the GPU");
    r.draw(&gpu_frame).unwrap();
    let (gpu, gpu_ids) = (r.read_color().unwrap(), r.read_ids().unwrap());
    assert_eq!(r.read_drawn_objects().unwrap(), vec![1], "the GPU cull draws the wall alone");

    let at = |p: [f64; 3]| {
        let (x, y) = project(&e.camera, DepthMode::Reversed, W, H, Point3::new(p[0], p[1], p[2]));
        (x as u32, y as u32)
    };
    // The wall alone (unlit by no quad), then the triple overlap near the
    // centre: blue over the wall, green over that, red last, each at 0.5.
    let (wx, wy) = at([2.0, 1.5, -0.9]);
    let wall = cpu.pixel(wx, wy);
    let (ox, oy) = at([0.0, 0.0, 0.6]);
    let want: [u8; 3] = std::array::from_fn(|k| {
        let mut c = to_linear(wall[k]);
        for quad in [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]] {
            c = 0.5 * quad[k] + 0.5 * c;
        }
        to_srgb(c)
    });
    for (name, image, ids) in [("cpu", &cpu, &cpu_ids), ("gpu", &gpu, &gpu_ids)] {
        assert!(close(image.pixel(ox, oy), want, 2), "{name}: got {:?}, want {want:?}", image.pixel(ox, oy));
        assert!(close(image.pixel(wx, wy), [wall[0], wall[1], wall[2]], 0), "{name}: the wall");
        assert_eq!(ids[(oy * W + ox) as usize], 1, "{name}: the nearest quad's id");
    }
    let pixels = (W * H) as usize;
    let differ = (0..pixels)
        .filter(|&i| (0..3).any(|k| (i32::from(cpu.data[i * 4 + k]) - i32::from(gpu.data[i * 4 + k])).abs() > 1))
        .count();
    assert!(differ * 200 <= pixels, "{differ} of {pixels} pixels differ");

    // The list follows deletes, their undo and duplicates (ids are stable:
    // near 0, wall 1, far 2, mid 3; a copy of near takes id 4).
    let mut e = e;
    let listed = |e: &viewport::editor::Editor, r: &mut viewport::render::Renderer, sync: &mut GpuSync| {
        let frame = meshes.gpu_frame(e, r, sync).unwrap();
        let mut ids: Vec<u32> = frame.objects.iter().map(|o| o.id).collect();
        ids.sort_unstable();
        r.draw(&frame).unwrap();
        ids
    };
    e.set_selection(&[3]);
    assert!(e.delete());
    assert_eq!(listed(&e, &mut r, &mut sync), vec![1, 3], "mid deleted");
    assert!(e.undo());
    assert_eq!(listed(&e, &mut r, &mut sync), vec![1, 3, 4], "mid back");
    e.set_selection(&[0]);
    assert!(e.duplicate());
    assert_eq!(listed(&e, &mut r, &mut sync), vec![1, 3, 4, 5], "near copied");
    assert_eq!(r.read_drawn_objects().unwrap(), vec![1], "the GPU cull still draws the wall alone");
    assert_no_validation_errors(&r);
}

/// An object given another mesh through `Renderer::update_scene_objects`
/// (here none, then its cube again) leaves and rejoins the per-mesh member
/// lists the cull walks: it is no longer drawn, then drawn again.
#[test]
fn an_object_that_changes_its_mesh_leaves_and_rejoins_the_drawn_objects() {
    let mut r = renderer(W, H);
    let scene = Scene::cube_grid(600);
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let e = Editor::new(scene, W as f64, H as f64);
    let mut sync = GpuSync::default();
    let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    r.draw(&frame).unwrap();
    let all = r.read_drawn_objects().unwrap();
    let ids = r.read_ids().unwrap();
    assert!(all.contains(&300) && ids.contains(&301), "object 300 is drawn and seen");
    let cube = meshes.scene_object(e.scene(), 300);
    r.update_scene_objects(&[(300, SceneObject { mesh: None, ..cube })]).unwrap();
    r.draw(&frame).unwrap();
    let without: Vec<u32> = all.iter().copied().filter(|&i| i != 300).collect();
    assert_eq!(r.read_drawn_objects().unwrap(), without);
    assert!(!r.read_ids().unwrap().contains(&301), "object 300 left the image");
    r.update_scene_objects(&[(300, cube)]).unwrap();
    r.draw(&frame).unwrap();
    assert_eq!(r.read_drawn_objects().unwrap(), all);
    assert_eq!(r.read_ids().unwrap(), ids, "the same image as before");
    assert_no_validation_errors(&r);
}

/// A whole upload larger than one piece of staging memory (8 MB, about
/// 105,000 records) arrives complete: records on both sides of every piece
/// boundary hold their objects' translations (split as `split_f64` says,
/// computed here from the scene) and meshes, and the records past the
/// objects (room for new ids) draw nothing. Both ways of uploading: written
/// in place (lavapipe's device memory is host-visible) and copied through
/// staging memory piece by piece, as on a discrete GPU.
#[test]
fn an_upload_in_several_staging_pieces_arrives_whole() {
    for staged in [false, true] {
        upload_in_pieces(staged);
    }
}

fn upload_in_pieces(staged: bool) {
    let mut r = renderer(W, H);
    r.set_staged_uploads(staged);
    let n = 230_000;
    let scene = Scene::cube_grid(n);
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let room = n + 1000;
    r.set_scene_objects(room, meshes.scene_objects(&scene)).unwrap();
    let per_piece = (8 << 20) / std::mem::size_of::<viewport::render::GpuObjectRecord>();
    let cube = r.read_scene_object(0).unwrap().mesh;
    assert_ne!(cube, u32::MAX, "object 0 draws the cube");
    for i in [0, 1, per_piece - 1, per_piece, per_piece + 1, 2 * per_piece - 1, 2 * per_piece, n - 1] {
        let record = r.read_scene_object(i as u32).unwrap();
        let t = scene.world_matrix(i).column(3).xyz();
        for k in 0..3 {
            let (hi, lo) = viewport::render::split_f64(t[k]);
            assert_eq!(
                (record.translation_hi[k], record.translation_lo[k]),
                (hi, lo),
                "object {i}, axis {k}, staged {staged}"
            );
        }
        assert_eq!(record.mesh, cube, "object {i}'s mesh, staged {staged}");
    }
    for i in [n, n + 1, room - 1] {
        assert_eq!(
            r.read_scene_object(i as u32).unwrap().mesh,
            u32::MAX,
            "record {i} past the objects, staged {staged}"
        );
    }
    assert_no_validation_errors(&r);
}

/// The GPU path keeps each frame slot's outline table while the selection's
/// list stays the same, and writes only the new list's entries, under the
/// table's next generation, when it changes: frames drawn again and again
/// with one selection, with the selection changed, grown to higher ids,
/// shrunk, emptied and given back, and across a resize (a new ID target
/// view), look exactly as the CPU path, which makes its
/// table every frame, draws them.
#[test]
fn kept_outline_tables_draw_what_the_cpu_path_draws() {
    let scene = Scene::cube_grid(100);
    let mut r = renderer(W, H);
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let mut fresh = renderer(W, H);
    let fresh_meshes = SceneMeshes::upload(&mut fresh, &scene).unwrap();
    let mut e = Editor::new(scene, W as f64, H as f64);
    e.camera = top_down(9.0, 9.0, 30.0, 1.0, 100.0);
    let mut sync = GpuSync::default();
    let mut unselected = None;
    // Each slot's table is brought from the list it holds to the next one
    // entry by entry: higher ids grow it, ids left out go stale with their
    // generation, the active object changes.
    let selections: [&[usize]; 8] = [&[3, 40], &[3, 40], &[], &[55], &[3, 40], &[77, 12], &[12], &[3, 40]];
    for (k, sel) in selections.iter().enumerate() {
        e.set_selection(sel);
        if k == selections.len() - 1 {
            r.resize(W + 24, H).unwrap();
            fresh.resize(W + 24, H).unwrap();
            e.handle(&Event::Resize { width: (W + 24) as f64, height: H as f64 });
        }
        // Three frames: each of the two frame slots draws the same list again.
        for _ in 0..3 {
            let frame = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
            let got = r.capture(&frame).unwrap();
            // The reference: the CPU path, whose table is made every frame.
            let (reference, _) = fresh_meshes.editor_frame(&e);
            let want = fresh.capture(&reference).unwrap();
            assert!(got == want, "selection {k} {sel:?}: the kept table draws otherwise");
            if sel.is_empty() {
                unselected = Some(got);
            } else if let Some(plain) = &unselected {
                assert!(*plain != got, "selection {k}: no outline drawn");
            }
        }
    }
    assert!(unselected.is_some());
    assert_no_validation_errors(&r);
    assert_no_validation_errors(&fresh);
}

/// Hiding and showing objects sets and clears a bit each (no record is
/// uploaded, every record stays as it was), and the GPU path then draws the ids the CPU
/// path draws from the scene: a hidden parent takes its child along,
/// showing gives back every record exactly as it was, an object moved in
/// the same frame as another is hidden gets its whole record, and an
/// object that was hidden from the start (never listed under its mesh)
/// comes back through a whole record, and an object taken under a hidden
/// parent hides with it and shows again when taken out.
#[test]
fn hiding_and_showing_set_bits_and_draw_what_the_cpu_path_draws() {
    let mut r = renderer(W, H);
    let mut scene = Scene::cube_grid(400);
    // Object 210 (in the middle of the view) hidden in the file.
    scene.set_hidden(210, true);
    let c = scene.world_matrix(210).column(3).xyz();
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let mut e = Editor::new(scene, W as f64, H as f64);
    e.camera = looking_at(c, Vector3::new(4.0, 8.0, 11.0), 0.1);
    // Object 207 under 206, keeping its place: hiding 206 hides both.
    e.reparent(&[207], Some(206)).unwrap();
    let mut sync = GpuSync::default();
    let frame = |e: &Editor, r: &mut Renderer, sync: &mut GpuSync| {
        let f = meshes.gpu_frame(e, r, sync).unwrap();
        let uploaded = r.draw(&f).unwrap().uploaded_objects;
        (uploaded, r.read_ids().unwrap())
    };
    let (_, first) = frame(&e, &mut r, &mut sync);
    let cpu = cpu_path_ids(&mut r, &meshes, &e);
    let agree = |gpu: &[u32], cpu: &[u32], what: &str| {
        let differ = gpu.iter().zip(cpu).filter(|(a, b)| a != b).count();
        assert!(differ * 200 <= cpu.len(), "{what}: {differ} of {} pixels differ", cpu.len());
    };
    agree(&first, &cpu, "first frame");
    let on_screen = |ids: &[u32], i: usize| ids.contains(&(i as u32 + 1));
    let hide = [204usize, 206, 209, 211];
    let seen: Vec<usize> = (180..240).filter(|&i| on_screen(&first, i)).collect();
    assert!(hide.iter().chain(&[207]).all(|&i| on_screen(&first, i)), "the objects to hide are in view: {seen:?}");
    assert!(!on_screen(&first, 210), "hidden in the file");
    let before: Vec<_> = (195..220).map(|i| r.read_scene_object(i as u32).unwrap()).collect();

    e.set_selection(&hide);
    assert!(e.hide_selected());
    let (uploaded, ids) = frame(&e, &mut r, &mut sync);
    assert_eq!(uploaded, 0, "bits only");
    agree(&ids, &cpu_path_ids(&mut r, &meshes, &e), "hidden");
    for i in hide.iter().chain(&[207]) {
        assert!(!on_screen(&ids, *i), "{i} is hidden");
        assert_eq!(r.read_scene_object(*i as u32).unwrap(), before[*i - 195], "{i}: its record is kept");
    }

    // Show them (and 210, hidden from the start): records as before for
    // those that were drawn; 210 needs a whole record.
    assert!(e.unhide_all());
    let (uploaded, ids) = frame(&e, &mut r, &mut sync);
    assert_eq!(uploaded, 1, "only the object never drawn gets a whole record");
    agree(&ids, &cpu_path_ids(&mut r, &meshes, &e), "shown");
    assert!(on_screen(&ids, 210));
    for i in (195..220).filter(|&i| i != 210) {
        assert_eq!(r.read_scene_object(i as u32).unwrap(), before[i - 195], "{i}: the record as it was");
    }

    // A move and a hide in the same frame.
    let t = e.scene().objects()[212].transform;
    let mut moved = t;
    moved.position.y += 0.75;
    assert!(e.commit_transform(212, t, moved));
    assert!(on_screen(&ids, 213));
    e.set_selection(&[213]);
    assert!(e.hide_selected());
    let (uploaded, ids) = frame(&e, &mut r, &mut sync);
    assert_eq!(uploaded, 1, "the moved object's whole record");
    agree(&ids, &cpu_path_ids(&mut r, &meshes, &e), "moved and hidden");
    assert!(!on_screen(&ids, 213));
    assert_eq!(r.read_scene_object(212).unwrap().translation_hi[1], e.scene().world_matrix(212)[(1, 3)] as f32);
    // Undo both: the same pictures as the CPU path again.
    assert!(e.undo() && e.undo());
    let (_, ids) = frame(&e, &mut r, &mut sync);
    agree(&ids, &cpu_path_ids(&mut r, &meshes, &e), "undone");
    assert_eq!(r.read_scene_object(213).unwrap(), before[213 - 195]);

    // Taken under a hidden parent, an object hides with it; taken out, it
    // shows again (world transforms kept: bits, and at most its own record).
    assert!(on_screen(&first, 208));
    e.set_selection(&[206]);
    assert!(e.hide_selected());
    frame(&e, &mut r, &mut sync);
    e.reparent(&[208], Some(206)).unwrap();
    let (uploaded, ids) = frame(&e, &mut r, &mut sync);
    assert!(uploaded <= 1, "{uploaded} records");
    assert!(!on_screen(&ids, 208), "under a hidden parent");
    agree(&ids, &cpu_path_ids(&mut r, &meshes, &e), "reparented under a hidden parent");
    e.reparent(&[208], None).unwrap();
    let (uploaded, ids) = frame(&e, &mut r, &mut sync);
    assert!(uploaded <= 1, "{uploaded} records");
    assert!(on_screen(&ids, 208), "out from under it");
    agree(&ids, &cpu_path_ids(&mut r, &meshes, &e), "taken out again");

    // Hidden and shown again between two frames, or the other way: the
    // last state counts (bits only).
    assert!(on_screen(&ids, 209));
    e.set_selection(&[209]);
    assert!(e.hide_selected() && e.undo());
    let (uploaded, ids) = frame(&e, &mut r, &mut sync);
    assert_eq!(uploaded, 0);
    assert!(on_screen(&ids, 209), "hidden, then shown");
    assert!(e.redo());
    frame(&e, &mut r, &mut sync);
    assert!(e.undo() && e.redo());
    let (uploaded, ids) = frame(&e, &mut r, &mut sync);
    assert_eq!(uploaded, 0);
    assert!(!on_screen(&ids, 209), "shown, then hidden");
    agree(&ids, &cpu_path_ids(&mut r, &meshes, &e), "shown, then hidden");
    assert_no_validation_errors(&r);
}

/// Hiding many objects spread through a large scene sends their bits as
/// one run of words; the pictures then match the CPU path's, and showing
/// them again gives back every record unchanged.
#[test]
fn hiding_objects_spread_through_the_scene_sends_one_run_of_bits() {
    let mut r = renderer(W, H);
    let scene = Scene::cube_grid(3000);
    let c = scene.world_matrix(1500).column(3).xyz();
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let mut e = Editor::new(scene, W as f64, H as f64);
    e.camera = looking_at(c, Vector3::new(10.0, 25.0, 30.0), 0.1);
    let mut sync = GpuSync::default();
    let f = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    r.draw(&f).unwrap();
    let before: Vec<_> = (0..3000).map(|i| r.read_scene_object(i).unwrap()).collect();
    // Every 7th object: 429 objects in 94 words.
    let chosen: Vec<usize> = (0..3000).step_by(7).collect();
    e.set_selection(&chosen);
    assert!(e.hide_selected());
    let f = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    assert_eq!(r.draw(&f).unwrap().uploaded_objects, 0);
    let gpu = r.read_ids().unwrap();
    let cpu = cpu_path_ids(&mut r, &meshes, &e);
    let differ = gpu.iter().zip(&cpu).filter(|(a, b)| a != b).count();
    assert!(differ * 200 <= cpu.len(), "{differ} of {} pixels differ", cpu.len());
    let drawn: std::collections::HashSet<u32> = gpu.iter().copied().filter(|&id| id > 0).collect();
    assert!(drawn.len() > 100, "{} objects drawn", drawn.len());
    assert!(chosen.iter().all(|&i| !drawn.contains(&(i as u32 + 1))), "a hidden object was drawn");
    assert!(e.unhide_all());
    let f = meshes.gpu_frame(&e, &mut r, &mut sync).unwrap();
    assert_eq!(r.draw(&f).unwrap().uploaded_objects, 0);
    let gpu = r.read_ids().unwrap();
    assert!(chosen.iter().any(|&i| gpu.contains(&(i as u32 + 1))), "shown again");
    for i in 0..3000 {
        assert_eq!(r.read_scene_object(i).unwrap(), before[i as usize], "{i}");
    }
    assert_no_validation_errors(&r);
}
