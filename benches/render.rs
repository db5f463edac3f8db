//! Headless frame time of the demo scene at 1280x720 (draw, wait, read back),
//! the CPU time to record one frame's command buffer, and the latency of
//! region read-backs of ids and depth after a frame (one texel under the
//! cursor, and a 64x64 block).
//!
//! Runs on whatever device the Vulkan loader picks; `make bench` forces
//! lavapipe. Validation is off here: it would dominate the timings.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use viewport::draw::SceneMeshes;
use viewport::math::DepthMode;
use viewport::render::{ContextDesc, Renderer};
use viewport::scene::Scene;

fn frame(c: &mut Criterion) {
    let mut renderer = Renderer::headless(&ContextDesc { validation: false }, 1280, 720).expect("headless renderer");
    let scene = Scene::demo();
    let meshes = SceneMeshes::upload(&mut renderer, &scene).unwrap();
    let (desc, _) = meshes.frame(&scene, scene.camera.unwrap(), DepthMode::Reversed, &[], (1280, 720));
    let device = renderer.device_info().to_string();

    let mut group = c.benchmark_group(format!("render [{device}]"));
    group.sample_size(30).measurement_time(Duration::from_secs(6));
    group.bench_function("demo 1280x720: draw + wait + read back", |b| {
        b.iter(|| {
            renderer.draw(&desc).unwrap();
            renderer.read_color().unwrap()
        })
    });
    group.bench_function("demo: CPU time to record a frame", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                total += renderer.draw(&desc).unwrap().record_time;
            }
            renderer.wait_idle().unwrap();
            total
        })
    });
    // The frame is drawn once; each iteration is one read-back of the last
    // frame (wait for its fence, copy the region, wait for the copy).
    renderer.draw(&desc).unwrap();
    group.bench_function("read_region 1x1 (id + depth under the cursor)", |b| {
        b.iter(|| renderer.read_region(640, 360, 1, 1).unwrap())
    });
    group.bench_function("read_region 64x64", |b| b.iter(|| renderer.read_region(608, 328, 64, 64).unwrap()));
    group.finish();
}

criterion_group!(benches, frame);
criterion_main!(benches);
