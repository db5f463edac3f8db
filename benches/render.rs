//! Headless frame time of the demo scene at 1280x720 (draw, wait, read back),
//! the CPU time to record one frame's command buffer, and the latency of
//! region read-backs of ids and depth after a frame (one texel under the
//! cursor, and a 64x64 block).
//!
//! The UI (egui): the CPU cost per frame of building and tessellating the
//! toolbar, status line, side panel and view widget, and of recording a
//! frame with the UI pass (goal: UI build + tessellate + record <= 0.5 ms).
//!
//! Runs on whatever device the Vulkan loader picks; `make bench` forces
//! lavapipe. Validation is off here: it would dominate the timings.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use viewport::draw::SceneMeshes;
use viewport::editor::Editor;
use viewport::math::DepthMode;
use viewport::render::{ContextDesc, Renderer};
use viewport::scene::Scene;
use viewport::ui::Ui;

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

fn ui(c: &mut Criterion) {
    let (w, h) = (1280u32, 720u32);
    let mut renderer = Renderer::headless(&ContextDesc { validation: false }, w, h).expect("headless renderer");
    let scene = Scene::demo();
    let meshes = SceneMeshes::upload(&mut renderer, &scene).unwrap();
    let mut editor = Editor::new(scene, w as f64, h as f64);
    editor.set_selection(&[0]);
    let mut ui = Ui::new(1.0, w as f64, h as f64, true);
    ui.settle(&mut editor);
    let device = renderer.device_info().to_string();
    let mut group = c.benchmark_group(format!("ui [{device}]"));
    group.sample_size(50).measurement_time(Duration::from_secs(4));
    group
        .bench_function("ui: build + tessellate (toolbar, status, panel, widget)", |b| b.iter(|| ui.draw(&mut editor)));
    // Recording with and without the UI pass: the difference is the UI's share.
    // A fresh UI: the one above handed its font texture to no renderer.
    let mut ui = Ui::new(1.0, w as f64, h as f64, true);
    ui.settle(&mut editor);
    for with_ui in [false, true] {
        let name =
            if with_ui { "demo + UI: CPU time to record a frame" } else { "demo, no UI: CPU time to record a frame" };
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut desc = meshes.editor_frame(&editor).0;
                    if with_ui {
                        desc.ui = Some(ui.draw(&mut editor));
                    }
                    total += renderer.draw(&desc).unwrap().record_time;
                }
                renderer.wait_idle().unwrap();
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, frame, ui);
criterion_main!(benches);
