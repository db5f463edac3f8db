//! Scene-change benchmarks (`editing.md`, "Scene changes"): duplicate and
//! delete of 10,000 selected objects, and the undo of each, in scenes of
//! 20k and 160k objects (a grid of cubes, every other one selected).
//!
//! Run with `cargo bench --bench editing`. Each measured step starts from
//! the same state: the inverse step runs untimed in between.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::Vector3;
use viewport::editor::Editor;
use viewport::math::Transform;
use viewport::scene::{MeshRef, Object, Primitive, Scene};

fn grid(n: usize) -> Scene {
    let side = (n as f64).sqrt().ceil() as usize;
    let objects = (0..n)
        .map(|i| Object {
            name: format!("cube{i}"),
            mesh: MeshRef::Primitive(Primitive::Cube),
            transform: Transform {
                position: Vector3::new((i % side) as f64 * 2.0, 0.0, (i / side) as f64 * 2.0),
                ..Transform::IDENTITY
            },
            color: [0.8, 0.8, 0.8],
        })
        .collect();
    Scene::from_objects(None, objects)
}

/// Times `step` alone, running `back` untimed after each so that every
/// measurement starts from the same scene.
fn timed(e: &mut Editor, iters: u64, step: fn(&mut Editor) -> bool, back: fn(&mut Editor) -> bool) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let t = Instant::now();
        black_box(step(e));
        total += t.elapsed();
        back(e);
    }
    total
}

fn scene_changes(c: &mut Criterion) {
    for n in [20_000usize, 160_000] {
        let mut e = Editor::new(grid(n), 1280.0, 720.0);
        let selected: Vec<usize> = (0..n).step_by(n / 10_000).take(10_000).collect();
        e.set_selection(&selected);
        let mut g = c.benchmark_group(format!("edit/{}k_objects_10k_selected", n / 1000));
        g.bench_function("duplicate", |b| b.iter_custom(|it| timed(&mut e, it, Editor::duplicate, Editor::undo)));
        e.duplicate();
        g.bench_function("undo_duplicate", |b| b.iter_custom(|it| timed(&mut e, it, Editor::undo, Editor::redo)));
        e.undo();
        e.set_selection(&selected);
        g.bench_function("delete", |b| b.iter_custom(|it| timed(&mut e, it, Editor::delete, Editor::undo)));
        e.delete();
        g.bench_function("undo_delete", |b| b.iter_custom(|it| timed(&mut e, it, Editor::undo, Editor::redo)));
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(3));
    targets = scene_changes
}
criterion_main!(benches);
