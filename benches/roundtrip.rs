//! Export benchmarks (`docs/spec/roundtrip.md`): building and writing a
//! `.glb` of the flight helmet (`../shared/real-assets`, skipped when the
//! folder is missing: its meshes, materials and five textures copied) and
//! of the 1k, 160k and 1M cube scenes (`Scene::cube_grid`). Each iteration
//! builds the document from the scene and writes it atomically to a
//! temporary folder. Run with `cargo bench --bench roundtrip`.

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
    if let Ok(opened) = viewport::setup::open_scene(Some(&helmet)) {
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

criterion_group!(benches, export);
criterion_main!(benches);
