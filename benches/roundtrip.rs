//! Export benchmarks (`docs/spec/roundtrip.md`): building and writing a
//! `.glb` of the flight helmet (`../shared/real-assets`, skipped when the
//! folder is missing: its meshes, materials and five textures copied) and
//! of the 1k, 160k and 1M cube scenes (`Scene::cube_grid`). Each iteration
//! builds the document from the scene and writes it atomically to a
//! temporary folder. Also the reload of the flight helmet and the
//! autosave's snapshot (below). Run with `cargo bench --bench roundtrip`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use viewport::scene::gltf::export::export_scene;
use viewport::scene::Scene;

fn export(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let mut group = c.benchmark_group("export");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(4));
    let helmet =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-assets/FlightHelmet/FlightHelmet.gltf");
    if let Ok(opened) = viewport::app::open::open_scene(Some(&helmet)) {
        group.bench_function("flight_helmet", |b| {
            b.iter(|| black_box(export_scene(&opened.scene, None, &out).unwrap()))
        });
    }
    for (label, n) in [("1k", 1_000), ("160k", 160_000), ("1M", 1_000_000)] {
        let scene = Scene::cube_grid(n);
        group.bench_with_input(BenchmarkId::new("cubes", label), &scene, |b, scene| {
            b.iter(|| black_box(export_scene(scene, None, &out).unwrap()))
        });
    }
    group.finish();
}

/// Reload of the flight helmet (`docs/spec/roundtrip.md`, "Reload") in a
/// scene of 100 objects that use its meshes, each moved here: every
/// iteration changes the file's bytes (a space at its end, alternately)
/// and reloads: reading and parsing the file, loading its six meshes and
/// decoding its textures, and the one undo step over the 100 objects. The
/// GPU upload of the new meshes is not in it (each one would stay in the
/// renderer's memory).
fn reload(c: &mut Criterion) {
    let helmet = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-assets/FlightHelmet");
    if !helmet.is_dir() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&helmet).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    let gltf = dir.path().join("FlightHelmet.gltf");
    let text = std::fs::read_to_string(&gltf).unwrap();
    let objects: Vec<String> = (0..100)
        .map(|i| {
            format!(
                r#"{{"name": "part{i}", "mesh": "FlightHelmet.gltf#{}", "position": [{}, 0, {}]}}"#,
                i % 6,
                (i % 10) as f64,
                (i / 10) as f64
            )
        })
        .collect();
    let scene_path = dir.path().join("level.json");
    std::fs::write(&scene_path, format!(r#"{{"objects": [{}]}}"#, objects.join(","))).unwrap();
    let opened = viewport::app::open::open_scene(Some(&scene_path)).unwrap();
    let mut reloader = opened.reloader();
    let (mut editor, _loaded) =
        viewport::app::open::open_editor_for(opened, (640, 480), viewport::math::DepthMode::Reversed).unwrap();
    let mut group = c.benchmark_group("reload");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(6));
    let mut turn = 0u64;
    group.bench_function("flight_helmet_100_objects", |b| {
        b.iter(|| {
            turn += 1;
            let bytes = if turn.is_multiple_of(2) { text.clone() } else { format!("{text} ") };
            std::fs::write(&gltf, bytes).unwrap();
            let done = reloader.reload(&mut editor).unwrap();
            assert_eq!(done.files.len(), 1);
            black_box(done)
        })
    });
    group.finish();
}

/// The autosave's cost to the window (`docs/spec/roundtrip.md`, "Never
/// lose work"): the window thread copies the scene [`COPY_STEP`] slots per
/// frame and finishes the copy with the hierarchy; the longest of those
/// steps is what a frame can be held up by. Measured on the 1k, 160k and
/// 1M cube scenes: a first step (which also reserves the copy's memory),
/// the finish, and for reference the whole copy at once and the write of
/// the 1M scene on its own thread.
///
/// [`COPY_STEP`]: viewport::app::autosave::COPY_STEP
fn autosave(c: &mut Criterion) {
    let mut group = c.benchmark_group("autosave");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(4));
    for (label, n) in [("1k", 1_000), ("160k", 160_000), ("1M", 1_000_000)] {
        let editor = viewport::editor::Editor::new(Scene::cube_grid(n), 1280.0, 720.0);
        let scene = editor.scene();
        group.bench_with_input(BenchmarkId::new("first_step", label), scene, |b, scene| {
            b.iter(|| {
                let mut copy = scene.start_copy();
                scene.copy_piece(&mut copy, viewport::app::autosave::COPY_STEP);
                black_box(copy)
            })
        });
        group.bench_with_input(BenchmarkId::new("finish", label), scene, |b, scene| {
            b.iter_batched(
                || {
                    let mut copy = scene.start_copy();
                    while !scene.copy_piece(&mut copy, viewport::app::autosave::COPY_STEP) {}
                    copy
                },
                |copy| black_box(scene.finish_copy(copy, &[], None)),
                criterion::BatchSize::LargeInput,
            )
        });
        group.bench_with_input(BenchmarkId::new("whole_copy_at_once", label), &editor, |b, editor| {
            b.iter(|| black_box(editor.scene_to_save()))
        });
        if n == 1_000_000 {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("level.autosave.json");
            let snapshot = editor.scene_to_save();
            group.bench_function("write_on_its_thread/1M", |b| b.iter(|| snapshot.save(&out).unwrap()));
        }
    }
    group.finish();
}

criterion_group!(benches, export, reload, autosave);
criterion_main!(benches);
