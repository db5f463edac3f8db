//! Memory stays flat while frames are drawn over and over, on both scene
//! paths. Lavapipe 22.3 compiled a new copy of the scene's fragment shader
//! at every pipeline bind, never freed, while a condition in it read
//! uniform values alone (`shaders/scene.frag`, `live_zero`): about 1.7 MB
//! a frame. The frames are drawn in a child process (this test, run again
//! alone), so that the resident size is this renderer's alone, not that of
//! the tests running beside it in other threads.

use std::process::Command;

use nalgebra::{Point3, Vector3};
use viewport::draw::{GpuSync, SceneMeshes};
use viewport::editor::Editor;
use viewport::math::{Camera, DepthMode, Projection};
use viewport::scene::Scene;

use crate::support::gpu::{assert_no_validation_errors, renderer};

/// Set in the child process that draws the frames.
const CHILD: &str = "VIEWPORT_MEMORY_TEST_CHILD";
/// Frames drawn before the first measure (caches, staging and pools fill).
const WARM_UP: usize = 30;
/// Frames drawn between the two measures, on each path.
const FRAMES: usize = 150;

/// Resident memory in bytes (`/proc/self/statm`, pages of 4 KiB).
fn resident() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("resident pages");
    pages * 4096
}

/// Draws frames of a grid of cubes, one selected, with the grid, in the
/// material shading mode: GPU-culled frames through an editor, then
/// CPU-culled ones; prints the resident size after the warm-up and after
/// each path's frames.
fn draw_frames() {
    let mut r = renderer(160, 90);
    let mut e = Editor::new(Scene::cube_grid(64), 1280.0, 720.0);
    e.camera = Camera {
        eye: Point3::new(6.0, 5.0, 9.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: 1000.0 },
    };
    e.set_selection(&[3]);
    let meshes = SceneMeshes::upload(&mut r, e.scene()).expect("upload");
    let mut sync = GpuSync::default();
    let mut gpu_frame = |r: &mut viewport::render::Renderer| {
        let frame = meshes.gpu_frame(&e, r, &mut sync).expect("gpu frame");
        r.draw(&frame).expect("draw");
    };
    for _ in 0..WARM_UP {
        gpu_frame(&mut r);
    }
    r.wait_idle().expect("idle");
    println!("memory: start {}", resident());
    for _ in 0..FRAMES {
        gpu_frame(&mut r);
    }
    r.wait_idle().expect("idle");
    println!("memory: gpu {}", resident());
    for _ in 0..FRAMES {
        let (mut frame, _) = meshes.frame(e.scene(), e.camera, DepthMode::Reversed, &[3], r.extent());
        frame.grid = true;
        r.draw(&frame).expect("draw");
    }
    r.wait_idle().expect("idle");
    println!("memory: cpu {}", resident());
    assert_no_validation_errors(&r);
}

#[test]
fn frames_drawn_over_and_over_keep_memory_flat() {
    if std::env::var_os(CHILD).is_some() {
        draw_frames();
        return;
    }
    let exe = std::env::current_exe().expect("test executable");
    let out = Command::new(exe)
        .args(["--exact", "memory::frames_drawn_over_and_over_keep_memory_flat", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("run the child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let measure = |name: &str| -> u64 {
        // The harness's own "test ... " may start the first line.
        let tag = format!("memory: {name} ");
        let value = stdout.lines().find_map(|l| l.split_once(tag.as_str()).map(|(_, v)| v));
        value.and_then(|v| v.trim().parse().ok()).unwrap_or_else(|| panic!("no {name} measure in:\n{stdout}"))
    };
    let (start, gpu, cpu) = (measure("start"), measure("gpu"), measure("cpu"));
    // 150 frames a path: at 1.7 MB a frame the leak grew each by about
    // 250 MB; 16 MB leaves room for allocator noise, not for a leak of
    // 0.1 MB a frame.
    let mb = |b: u64, a: u64| (b as f64 - a as f64) / 1e6;
    assert!(mb(gpu, start) < 16.0, "GPU-culled frames grew memory by {:.1} MB", mb(gpu, start));
    assert!(mb(cpu, gpu) < 16.0, "CPU-culled frames grew memory by {:.1} MB", mb(cpu, gpu));
}
