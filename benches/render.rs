//! Headless frame time of the demo scene at 1280x720 (draw, wait, read back),
//! single-sampled and with 4x MSAA,
//! the CPU time to record one frame's command buffer, and the latency of
//! region read-backs of ids and depth after a frame (one texel under the
//! cursor, and a 64x64 block).
//!
//! Materials: the CPU time to record a frame of 1000 textured objects
//! against 1000 untextured ones (same mesh), and of 1000 textured objects
//! spread over 16 materials; the time to open the flight helmet of
//! `../shared/real-assets` (read, decode its images, upload) to its first
//! headless frame, when that folder is there.
//! The UI (egui): the CPU cost per frame of building and tessellating the
//! toolbar, status line, side panel and view widget, and of recording a
//! frame with the UI pass (goal: UI build + tessellate + record <= 0.5 ms).
//!
//! Environments: the CPU precomputation of a 1024x512 `.hdr` environment
//! (downsampling, irradiance map, GGX-prefiltered specular levels), done
//! once per file and process.
//!
//! Runs on whatever device the Vulkan loader picks; `make bench` forces
//! lavapipe. Validation is off here: it would dominate the timings.

use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use viewport::app::open::{open_editor_for, open_scene};
use viewport::draw::SceneMeshes;
use viewport::editor::Editor;
use viewport::look::Shading;
use viewport::math::DepthMode;
use viewport::render::{ContextDesc, FrameDesc, Renderer};
use viewport::scene::Scene;
use viewport::ui::Ui;

#[allow(dead_code)]
#[path = "../tests/support/textured.rs"]
mod textured;
use textured::{lit, quadrants, Doc, Image, ImageAt, Quad};

fn frame(c: &mut Criterion) {
    let mut renderer =
        Renderer::headless(&ContextDesc { validation: false, samples: 1 }, 1280, 720).expect("headless renderer");
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
    {
        // The same frame with 4x MSAA (the CLI's default): the ids and depth
        // pass, the multisampled colour pass, the resolve.
        let desc4 = ContextDesc { validation: false, samples: 4 };
        let mut msaa = Renderer::headless(&desc4, 1280, 720).expect("headless MSAA renderer");
        let samples = msaa.device_info().samples;
        let meshes = SceneMeshes::upload(&mut msaa, &scene).unwrap();
        let (desc, _) = meshes.frame(&scene, scene.camera.unwrap(), DepthMode::Reversed, &[], (1280, 720));
        group.bench_function(format!("demo 1280x720 MSAA {samples}x: draw + wait + read back"), |b| {
            b.iter(|| {
                msaa.draw(&desc).unwrap();
                msaa.read_color().unwrap()
            })
        });
    }
    group.bench_function("demo: CPU time to record a frame", |b| {
        b.iter_custom(|iters| record_time(&mut renderer, &desc, iters))
    });
    {
        // The same frame in the solid shading mode (the one above is in
        // the material mode, the default).
        let mut solid = desc.clone();
        solid.lighting.shading = Shading::Solid;
        group.bench_function("demo 1280x720 solid mode: draw + wait + read back", |b| {
            b.iter(|| {
                renderer.draw(&solid).unwrap();
                renderer.read_color().unwrap()
            })
        });
    }
    group.bench_function("environment precomputation (the split-sum BRDF table, CPU)", |b| {
        b.iter(viewport::render::compute_brdf_table)
    });
    {
        // The demo as the editor draws it (the first object selected: its
        // outline and gizmo), in the single view and in the quad view (four
        // views, each with its camera, grid and gizmo).
        let mut e = Editor::new(scene.clone(), 1280.0, 720.0);
        e.set_selection(&[0]);
        let (single, _) = meshes.editor_frame(&e);
        group.bench_function("demo 1280x720 single view, one object selected: draw + wait + read back", |b| {
            b.iter(|| {
                renderer.draw(&single).unwrap();
                renderer.read_color().unwrap()
            })
        });
        e.toggle_quad();
        let (quad, _) = meshes.editor_frame(&e);
        assert_eq!(quad.views.len(), 4);
        group.bench_function("demo 1280x720 quad view, one object selected: draw + wait + read back", |b| {
            b.iter(|| {
                renderer.draw(&quad).unwrap();
                renderer.read_color().unwrap()
            })
        });
        group.bench_function("demo quad view: CPU time to record a frame", |b| {
            b.iter_custom(|iters| record_time(&mut renderer, &quad, iters))
        });
    }
    {
        // The demo as the editor draws it, with the built-in sun's shadows
        // (four cascades drawn and read: the default) and without.
        let mut e = Editor::new(scene.clone(), 1280.0, 720.0);
        let (shadowed, _) = meshes.editor_frame(&e);
        assert!(shadowed.shadows.is_some());
        e.lighting.shadows = false;
        let (plain, _) = meshes.editor_frame(&e);
        assert!(plain.shadows.is_none());
        for (name, desc) in [("with shadows", &shadowed), ("without shadows", &plain)] {
            group.bench_function(format!("demo 1280x720 {name}: draw + wait + read back"), |b| {
                b.iter(|| {
                    renderer.draw(desc).unwrap();
                    renderer.read_color().unwrap()
                })
            });
        }
    }
    // The frame is drawn once; each iteration is one read-back of the last
    // frame (wait for its fence, copy the region, wait for the copy).
    renderer.draw(&desc).unwrap();
    group.bench_function("read_region 1x1 (id + depth under the cursor)", |b| {
        b.iter(|| renderer.read_region(640, 360, 1, 1).unwrap())
    });
    group.bench_function("read_region 64x64", |b| b.iter(|| renderer.read_region(608, 328, 64, 64).unwrap()));
    group.finish();
}

/// A scene of 1000 objects in a 10 x 10 x 10 block, object `i` using mesh
/// `i % meshes` of `file` (`file#N`).
fn block_scene(dir: &Path, file: &str, meshes: usize) -> Scene {
    let objects: Vec<_> = (0..1000)
        .map(|i| {
            let p = [(i % 10) as f64 * 1.5 - 7.0, (i / 10 % 10) as f64 * 1.5 - 7.0, -((i / 100) as f64) * 1.5];
            json!({"name": format!("o{i}"), "mesh": format!("{file}#{}", i % meshes), "position": p})
        })
        .collect();
    let scene = json!({"camera": {"eye": [0, 0, 20], "target": [0, 0, -7]}, "objects": objects});
    Scene::from_json(&scene.to_string(), dir).unwrap()
}

/// `meshes` quads, each with its own material; textured ones each with
/// their own 256 x 256 image (trilinear, repeating).
fn quads_file(dir: &Path, name: &str, meshes: usize, textured: bool) {
    let colors = [[200, 30, 40, 255], [20, 180, 60, 255], [30, 60, 220, 255], [240, 220, 20, 255]];
    let doc = Doc {
        quads: (0..meshes).map(|m| Quad::new([0.0; 3], 0.6, Some(m))).collect(),
        materials: (0..meshes).map(|m| lit([1.0; 4], textured.then_some((m, 0)))).collect(),
        textures: if textured { (0..meshes).map(|m| json!({"source": m})).collect() } else { vec![] },
        images: if textured {
            (0..meshes).map(|_| Image { bytes: Some(quadrants(256, colors)), at: ImageAt::DataUri }).collect()
        } else {
            vec![]
        },
        ..Doc::default()
    };
    doc.write(dir, name);
}

fn materials(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    quads_file(dir.path(), "plain.gltf", 1, false);
    quads_file(dir.path(), "textured.gltf", 1, true);
    quads_file(dir.path(), "textured16.gltf", 16, true);
    let mut renderer =
        Renderer::headless(&ContextDesc { validation: false, samples: 1 }, 1280, 720).expect("headless renderer");
    let device = renderer.device_info().to_string();
    let mut group = c.benchmark_group(format!("materials [{device}]"));
    group.sample_size(30).measurement_time(Duration::from_secs(5));
    for (label, file, meshes) in [
        ("1000 untextured objects: CPU time to record a frame", "plain.gltf", 1),
        ("1000 textured objects, 1 material: CPU time to record a frame", "textured.gltf", 1),
        ("1000 textured objects, 16 materials: CPU time to record a frame", "textured16.gltf", 16),
    ] {
        let scene = block_scene(dir.path(), file, meshes);
        let meshes = SceneMeshes::upload(&mut renderer, &scene).unwrap();
        let (desc, _): (FrameDesc, _) =
            meshes.frame(&scene, scene.camera.unwrap(), DepthMode::Reversed, &[], (1280, 720));
        assert_eq!(desc.objects.len(), 1000);
        group.bench_function(label, |b| b.iter_custom(|iters| record_time(&mut renderer, &desc, iters)));
    }
    drop(renderer);

    let helmet = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-assets/FlightHelmet/FlightHelmet.gltf");
    if helmet.exists() {
        group.sample_size(10).measurement_time(Duration::from_secs(15));
        group.bench_function("FlightHelmet.gltf: read + decode images (CPU, before the GPU)", |b| {
            b.iter(|| {
                let opened = open_scene(Some(&helmet)).unwrap();
                open_editor_for(opened, (1280, 720), DepthMode::Reversed).unwrap()
            })
        });
        {
            // The helmet's frame, material against solid mode.
            let opened = open_scene(Some(&helmet)).unwrap();
            let (editor, loaded) = open_editor_for(opened, (1280, 720), DepthMode::Reversed).unwrap();
            let mut r = Renderer::headless(&ContextDesc { validation: false, samples: 1 }, 1280, 720).unwrap();
            let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
            let (material, _) = meshes.editor_frame(&editor);
            let mut solid = material.clone();
            solid.lighting.shading = Shading::Solid;
            for (mode, desc) in [("material", &material), ("solid", &solid)] {
                group.bench_function(format!("FlightHelmet.gltf 1280x720 {mode} mode: draw + wait + read back"), |b| {
                    b.iter(|| {
                        r.draw(desc).unwrap();
                        r.read_color().unwrap()
                    })
                });
            }
        }
        group.bench_function("FlightHelmet.gltf: open to first headless frame (renderer included)", |b| {
            b.iter(|| {
                let opened = open_scene(Some(&helmet)).unwrap();
                let (editor, loaded) = open_editor_for(opened, (1280, 720), DepthMode::Reversed).unwrap();
                let mut r = Renderer::headless(&ContextDesc { validation: false, samples: 1 }, 1280, 720).unwrap();
                let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
                let (desc, _) = meshes.editor_frame(&editor);
                r.draw(&desc).unwrap();
                r.read_color().unwrap()
            })
        });
    }
    group.finish();
}

/// Every model of `../shared/real-assets` (when it is there): open to the
/// first headless frame read back, a fresh renderer each time (as a user
/// running `viewport FILE --headless --screenshot` pays it).
fn real_assets(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-assets");
    let Ok(entries) = std::fs::read_dir(&root) else { return };
    let mut files: Vec<_> = entries
        .flatten()
        .flat_map(|e| {
            let p = e.path();
            if p.is_dir() {
                std::fs::read_dir(&p).into_iter().flatten().flatten().map(|e| e.path()).collect()
            } else {
                vec![p]
            }
        })
        .filter(|p| p.extension().is_some_and(|x| x == "gltf" || x == "glb"))
        .collect();
    files.sort();
    let mut group = c.benchmark_group("open a real model to its first headless frame, 1280x720");
    group.sample_size(10).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_millis(500));
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        group.bench_function(name, |b| {
            b.iter(|| {
                let opened = open_scene(Some(&file)).unwrap();
                let (editor, loaded) = open_editor_for(opened, (1280, 720), DepthMode::Reversed).unwrap();
                let mut r = Renderer::headless(&ContextDesc { validation: false, samples: 1 }, 1280, 720).unwrap();
                let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
                r.draw(&meshes.editor_frame(&editor).0).unwrap();
                r.read_color().unwrap()
            })
        });
    }
    group.finish();
}

fn ui(c: &mut Criterion) {
    let (w, h) = (1280u32, 720u32);
    let mut renderer =
        Renderer::headless(&ContextDesc { validation: false, samples: 1 }, w, h).expect("headless renderer");
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

/// The CPU time `iters` frames of `desc` took to record (drawing itself
/// not counted), waiting for the GPU at the end.
fn record_time(renderer: &mut Renderer, desc: &FrameDesc, iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        total += renderer.draw(desc).unwrap().record_time;
    }
    renderer.wait_idle().unwrap();
    total
}

/// The `.hdr` environment's precomputation on a 1024x512 image of
/// smoothly varying radiance with a small bright sun (decoding not counted).
fn environment(c: &mut Criterion) {
    use viewport::look::envmap::{direction_at, precompute, EnvImage};
    let (w, h) = (1024u32, 512u32);
    let texels = (0..w * h)
        .map(|k| {
            let d = direction_at((f64::from(k % w) + 0.5) / f64::from(w), (f64::from(k / w) + 0.5) / f64::from(h));
            let sun = if d[0] * 0.6 + d[1] * 0.8 > 0.999 { 5000.0 } else { 0.0 };
            [(0.5 + 0.4 * d[1] + sun) as f32, (0.6 + 0.3 * d[1] + sun) as f32, (0.8 + 0.2 * d[1] + sun) as f32]
        })
        .collect();
    let image = EnvImage { width: w, height: h, texels };
    let mut group = c.benchmark_group("environment");
    group.sample_size(10);
    group.bench_function("1024x512 .hdr precomputation (irradiance + prefiltered specular, CPU)", |b| {
        b.iter(|| precompute(&image))
    });
    group.finish();
}

criterion_group!(benches, frame, materials, ui, real_assets, environment);
criterion_main!(benches);
