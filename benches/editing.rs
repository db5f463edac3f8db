//! Editing benchmarks. Scene changes (`docs/spec/editing.md`, "Scene changes"):
//! duplicate and delete of 10,000 selected objects, and the undo of each, in
//! scenes of 1k (all selected), 20k, 160k and 1M cubes, alone and with the
//! GPU-culling frame that follows (records and member slots of what
//! changed). Scale: one drag step, undo + redo of a
//! drag, the CPU side of a frame (with CPU culling; and with GPU culling,
//! build + record, for a close view and a view of every object), save, load
//! (parse + validate + editor + pick index) and load to the first headless
//! frame (the CLI's headless run), a box selection of 100,000 objects, a
//! hover with them selected and the UI pass with the side panel (outliner) shown, at 1k, 160k and 1M cubes
//! (`Scene::cube_grid`, the scenes `make bench-scenes` writes), with the
//! peak resident memory of this process.
//!
//! Run with `cargo bench --bench editing`. Each measured step starts from
//! the same state: the inverse step runs untimed in between.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::{close_camera, gpu_frames, small_renderer, timed, timed_gpu, Gpu};

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{Point2, Point3, Vector3};
use viewport::app::open::Options;
use viewport::draw::{GpuSync, SceneMeshes};
use viewport::editor::{Editor, FrameProbe};
use viewport::headless::{self, Outputs};
use viewport::input::{Event, Modifiers, MouseButton};
use viewport::math::{Camera, Projection};
use viewport::render::Culling;
use viewport::scene::Scene;
use viewport::ui::Ui;

fn grid(n: usize) -> Scene {
    Scene::cube_grid(n)
}

/// Looks straight down at the whole grid of `n` cubes (`Scene::cube_grid`)
/// from above, every cube in view.
fn view_all(n: usize) -> Camera {
    let extent = (n as f64).sqrt().ceil() * 2.0;
    let centre = Point3::new(extent * 0.5, 0.0, extent * 0.5);
    Camera {
        eye: centre + Vector3::new(0.0, extent * 1.3, 0.0),
        target: centre,
        up: -Vector3::z(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.5, far: extent * 4.0 },
    }
}

fn scene_changes(c: &mut Criterion) {
    // 10,000 objects spread through the scene are selected (all of them at 1k).
    for n in [1_000usize, 20_000, 160_000, 1_000_000] {
        let mut e = Editor::new(grid(n), 1280.0, 720.0);
        // GPU culling on a small target with a close camera (lavapipe
        // rasterises little); the first frame uploads every object.
        e.camera = close_camera();
        let mut gpu = Gpu::new(&e);
        let k = n.min(10_000);
        let selected: Vec<usize> = (0..n).step_by(n / k).take(k).collect();
        e.set_selection(&selected);
        let mut g = c.benchmark_group(format!("edit/{}k_objects_{}k_selected", n / 1000, k / 1000));
        g.bench_function("duplicate", |b| b.iter_custom(|it| timed(&mut e, it, Editor::duplicate, Editor::undo)));
        // The first duplicate makes the GPU's record buffer grow (untimed);
        // the timed ones write the copies' records and member slots.
        timed_gpu(&mut e, &mut gpu, 1, Editor::duplicate, Editor::undo);
        g.bench_function("duplicate_gpu_culling", |b| {
            b.iter_custom(|it| timed_gpu(&mut e, &mut gpu, it, Editor::duplicate, Editor::undo))
        });
        e.duplicate();
        g.bench_function("undo_duplicate", |b| b.iter_custom(|it| timed(&mut e, it, Editor::undo, Editor::redo)));
        e.undo();
        e.set_selection(&selected);
        g.bench_function("delete", |b| b.iter_custom(|it| timed(&mut e, it, Editor::delete, Editor::undo)));
        g.bench_function("delete_gpu_culling", |b| {
            b.iter_custom(|it| timed_gpu(&mut e, &mut gpu, it, Editor::delete, Editor::undo))
        });
        e.delete();
        g.bench_function("undo_delete", |b| b.iter_custom(|it| timed(&mut e, it, Editor::undo, Editor::redo)));
        g.finish();
    }
}

/// A frame whose object-ID buffer holds `.0` inside any box.
struct Listed<'a>(&'a [usize]);

impl FrameProbe for Listed<'_> {
    fn depth_at(&mut self, _p: Point2<f64>) -> Option<f64> {
        None
    }
    fn objects_in(&mut self, _min: Point2<f64>, _max: Point2<f64>) -> Option<Vec<usize>> {
        Some(self.0.to_vec())
    }
}

/// Peak resident memory of this process so far (Linux), in MB.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Per-event editing cost at 1k, 160k and 1M objects: one step of an axis
/// drag (cursor move -> gizmo update -> scene write -> BVH update of the
/// moved object), undo + redo of a finished drag, and loading (parse,
/// validate, hierarchy, pick index) and saving the scene file.
fn scale(c: &mut Criterion) {
    // A renderer only to own the cube mesh the frame descriptions name.
    // 16:9 like the editor's 1280x720, so both paths cull the same frustum.
    let mut renderer = small_renderer();
    let dir = std::env::temp_dir().join(format!("viewport-scale-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (n, label) in [(1_000usize, "1k"), (160_000, "160k"), (1_000_000, "1M")] {
        let t = Instant::now();
        let mut e = Editor::new(grid(n), 1280.0, 720.0);
        eprintln!("{label}: editor over {n} cubes built in {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
        // Look at the first cube from close by and grab its X arrow.
        e.camera = close_camera();
        // The CPU side of a frame with nothing moving: world matrices,
        // frustum culling and the draw list (`SceneMeshes::editor_frame`).
        let meshes = SceneMeshes::upload(&mut renderer, e.scene()).unwrap();
        let (desc, stats) = meshes.editor_frame(&e);
        eprintln!("{label}: a frame keeps {} objects and culls {}", stats.drawn, stats.culled);
        black_box(desc);
        c.bench_function(&format!("scale/{label}/frame_build_nothing_moving"), |b| {
            b.iter(|| black_box(meshes.editor_frame(&e)))
        });
        // GPU culling: the first frame uploads every object (untimed); then
        // nothing changes, so a frame uploads nothing.
        let mut sync = GpuSync::default();
        let first = meshes.gpu_frame(&e, &mut renderer, &mut sync).unwrap();
        renderer.draw(&first).unwrap();
        c.bench_function(&format!("scale/{label}/frame_build_record_gpu_culling"), |b| {
            b.iter_custom(|it| gpu_frames(&e, &mut renderer, &meshes, &mut sync, it))
        });
        // The quad view of the same (`docs/spec/views.md`): four views,
        // each culled on the GPU against its own camera, recorded in one
        // command buffer. The orthographic views show the whole grid. The
        // views' rectangles are the renderer's (its target is small).
        e.handle(&Event::Resize { width: 128.0, height: 72.0 });
        e.toggle_quad();
        c.bench_function(&format!("scale/{label}/frame_build_record_gpu_culling_quad_view"), |b| {
            b.iter_custom(|it| gpu_frames(&e, &mut renderer, &meshes, &mut sync, it))
        });
        e.toggle_quad();
        e.handle(&Event::Resize { width: 1280.0, height: 720.0 });
        // Every object selected, nothing moving: the outline's list and
        // table are kept (GPU path); the CPU path asks each object in view.
        let all: Vec<usize> = (0..n).collect();
        e.set_selection(&all);
        let first = meshes.gpu_frame(&e, &mut renderer, &mut sync).unwrap();
        renderer.draw(&first).unwrap();
        c.bench_function(&format!("scale/{label}/frame_build_record_gpu_culling_all_selected"), |b| {
            b.iter_custom(|it| gpu_frames(&e, &mut renderer, &meshes, &mut sync, it))
        });
        c.bench_function(&format!("scale/{label}/frame_build_all_selected"), |b| {
            b.iter(|| black_box(meshes.editor_frame(&e)))
        });
        e.set_selection(&[]);
        // A view of every object: the CPU path builds (and would record) an
        // instance per object; the GPU path the same as above.
        let close = e.camera;
        e.camera = view_all(n);
        let (desc, stats) = meshes.editor_frame(&e);
        assert_eq!(stats.drawn, n, "the whole grid is in view");
        black_box(desc);
        c.bench_function(&format!("scale/{label}/frame_build_all_in_view"), |b| {
            b.iter(|| black_box(meshes.editor_frame(&e)))
        });
        c.bench_function(&format!("scale/{label}/frame_build_record_gpu_culling_all_in_view"), |b| {
            b.iter_custom(|it| gpu_frames(&e, &mut renderer, &meshes, &mut sync, it))
        });
        renderer.wait_idle().unwrap();
        e.camera = close;
        e.set_selection(&[0]);
        let view = e.view().unwrap();
        let frame = e.gizmo.frame(&view, &e.targets()).unwrap();
        let grab = view.world_to_screen(&(frame.pivot + frame.axes[0] * (0.6 * frame.len))).unwrap();
        e.handle(&Event::CursorMoved { x: grab.x, y: grab.y });
        e.handle(&Event::MouseDown { button: MouseButton::Left });
        assert!(e.active_handle().is_some(), "the X arrow is grabbed");
        // One step outside the timing, so the drag has moved something to
        // undo even when a filter skips the drag bench.
        e.handle(&Event::CursorMoved { x: grab.x + 30.0, y: grab.y });
        let mut k = 0u64;
        c.bench_function(&format!("scale/{label}/drag_step"), |b| {
            b.iter(|| {
                k += 1;
                let p = Point2::new(grab.x + 40.0 + (k % 2) as f64 * 7.0, grab.y + (k % 3) as f64);
                black_box(e.handle(&Event::CursorMoved { x: p.x, y: p.y }))
            })
        });
        e.handle(&Event::MouseUp { button: MouseButton::Left });
        assert!(e.history().can_undo());
        c.bench_function(&format!("scale/{label}/undo_and_redo_a_drag"), |b| {
            b.iter(|| {
                black_box(e.undo());
                black_box(e.redo())
            })
        });
        // A box selection that takes 100,000 objects (all of them at 1k)
        // from the object-ID buffer (here a probe that lists them).
        let boxed: Vec<usize> = (0..n.min(100_000)).collect();
        c.bench_function(&format!("scale/{label}/box_select_100k"), |b| {
            b.iter(|| {
                let mut probe = Listed(&boxed);
                for ev in [
                    Event::CursorMoved { x: 10.0, y: 10.0 },
                    Event::MouseDown { button: MouseButton::Left },
                    Event::CursorMoved { x: 600.0, y: 400.0 },
                    Event::MouseUp { button: MouseButton::Left },
                ] {
                    e.handle_with_frame(&ev, Modifiers::NONE, &mut probe);
                }
                assert_eq!(e.selection().len(), boxed.len());
            })
        });
        // With those objects selected, a mouse move over the view: the
        // gizmo's placement (the median of 100,000 positions) is kept, not
        // worked out again for every hover.
        let mut k = 0u64;
        c.bench_function(&format!("scale/{label}/hover_with_100k_selected"), |b| {
            b.iter(|| {
                k += 1;
                black_box(e.handle(&Event::CursorMoved { x: 300.0 + (k % 7) as f64, y: 300.0 }))
            })
        });
        e.set_selection(&[]);
        // The UI with the side panel shown: its outliner lays out only the
        // rows in view; after an object is deleted (untimed) its rows are
        // walked again.
        let mut ui = Ui::new(1.0, 1280.0, 720.0, true);
        ui.settle(&mut e);
        c.bench_function(&format!("scale/{label}/ui_pass_with_panel"), |b| b.iter(|| black_box(ui.draw(&mut e))));
        c.bench_function(&format!("scale/{label}/ui_pass_with_panel_after_a_delete"), |b| {
            b.iter_custom(|it| {
                let mut total = Duration::ZERO;
                for _ in 0..it {
                    e.set_selection(&[n / 2]);
                    e.delete();
                    let t = Instant::now();
                    black_box(ui.draw(&mut e));
                    total += t.elapsed();
                    e.undo();
                }
                total
            })
        });
        e.set_selection(&[]);
        let path = dir.join(format!("cubes-{label}.json"));
        e.scene_to_save().save(&path).unwrap();
        c.bench_function(&format!("scale/{label}/save"), |b| b.iter(|| e.scene_to_save().save(&path).unwrap()));
        drop(e);
        // Load: read, parse and validate the file, then the editor and its
        // pick index (no GPU).
        c.bench_function(&format!("scale/{label}/load"), |b| {
            b.iter(|| black_box(Editor::new(Scene::load(&path).unwrap(), 1280.0, 720.0).scene().len()))
        });
        // Load to the first frame: the CLI's headless run (`viewport FILE
        // --headless --culling gpu`), a fresh renderer, the frame drawn and
        // read back. GPU culling by name: the default (auto) is CPU culling
        // on lavapipe, and the README's figures are the GPU path's.
        let options = Options { scene: Some(path.clone()), samples: 1, culling: Culling::Gpu, ..Options::default() };
        c.bench_function(&format!("scale/{label}/load_to_first_frame"), |b| {
            b.iter(|| black_box(headless::run(&options, &Outputs::default()).unwrap()))
        });
        if let Some(mb) = peak_rss_mb() {
            eprintln!("{label}: peak resident memory so far {mb:.0} MB");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(3));
    targets = scene_changes, scale
}
criterion_main!(benches);
