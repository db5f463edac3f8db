//! What the editing and organising benchmarks share: a close camera, a
//! headless renderer with the scene's meshes and its objects uploaded
//! (GPU culling), and the timing of a step (alone, with the GPU-culling
//! frame that follows, or that frame alone) with its inverse run untimed
//! between measurements. Each bench file uses only part of it.
#![allow(dead_code)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use nalgebra::{Point3, Vector3};
use viewport::draw::{GpuSync, SceneMeshes};
use viewport::editor::Editor;
use viewport::math::{Camera, Projection};
use viewport::render::{ContextDesc, Renderer};

/// Looks at the first cube of `Scene::cube_grid` from close by: few
/// objects in view, so lavapipe rasterises little.
pub fn close_camera() -> Camera {
    Camera {
        eye: Point3::new(5.0, 4.0, 8.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: 1000.0 },
    }
}

/// A small headless renderer (16:9 like the editor's 1280x720, so both
/// paths cull the same frustum).
pub fn small_renderer() -> Renderer {
    Renderer::headless(&ContextDesc { validation: false, samples: 1 }, 128, 72).expect("headless renderer")
}

/// The GPU-culling path of an editor: a renderer, the scene's meshes and
/// what the renderer's object records were last brought up to.
pub struct Gpu {
    pub r: Renderer,
    pub meshes: SceneMeshes,
    pub sync: GpuSync,
}

impl Gpu {
    /// A small renderer with `e`'s meshes, and the first frame drawn (it
    /// uploads every object).
    pub fn new(e: &Editor) -> Gpu {
        let mut r = small_renderer();
        let meshes = SceneMeshes::upload(&mut r, e.scene()).unwrap();
        let mut gpu = Gpu { r, meshes, sync: GpuSync::default() };
        gpu.draw(e);
        gpu
    }

    /// One frame of `e`, untimed.
    pub fn draw(&mut self, e: &Editor) {
        let frame = self.meshes.gpu_frame(e, &mut self.r, &mut self.sync).unwrap();
        self.r.draw(&frame).unwrap();
    }

    /// The CPU time of one frame of `e` ([`frame_time`]).
    pub fn timed_frame(&mut self, e: &Editor) -> Duration {
        frame_time(e, &mut self.r, &self.meshes, &mut self.sync)
    }
}

/// The CPU time of one GPU-culled frame of `e`: the frame description
/// built (the renderer's objects brought up to date) plus its command
/// buffer recorded (`FrameStats::record_time`). The device is idle first:
/// lavapipe rasterises on the same two cores, so a frame recorded while it
/// still draws the previous one (a million cubes in view) would time
/// lavapipe, not the recording. The wait and the submit are not counted.
pub fn frame_time(e: &Editor, r: &mut Renderer, meshes: &SceneMeshes, sync: &mut GpuSync) -> Duration {
    r.wait_idle().unwrap();
    let t = Instant::now();
    let frame = meshes.gpu_frame(e, r, sync).unwrap();
    let built = t.elapsed();
    built + r.draw(black_box(&frame)).unwrap().record_time
}

/// CPU time of `iters` GPU-culled frames of `e` ([`frame_time`]).
pub fn gpu_frames(e: &Editor, r: &mut Renderer, meshes: &SceneMeshes, sync: &mut GpuSync, iters: u64) -> Duration {
    (0..iters).map(|_| frame_time(e, r, meshes, sync)).sum()
}

/// Times `step` alone, running `back` untimed after each so that every
/// measurement starts from the same scene.
pub fn timed<R, S>(
    e: &mut Editor,
    iters: u64,
    mut step: impl FnMut(&mut Editor) -> R,
    mut back: impl FnMut(&mut Editor) -> S,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let t = Instant::now();
        black_box(step(e));
        total += t.elapsed();
        back(e);
    }
    total
}

/// [`timed`] with GPU culling: `step`, then the frame that brings the
/// renderer's objects up to date (`SceneMeshes::gpu_frame`: the changed
/// records, new member slots; a larger record buffer when new ids outgrow
/// it) and records its copies ([`frame_time`]); `back` and its frame run
/// untimed, and the device is idle before each step.
pub fn timed_gpu<R, S>(
    e: &mut Editor,
    gpu: &mut Gpu,
    iters: u64,
    step: impl FnMut(&mut Editor) -> R,
    back: impl FnMut(&mut Editor) -> S,
) -> Duration {
    steps_and_frames(e, gpu, iters, true, step, back)
}

/// The GPU-culling frame after `step`, alone: `step` runs untimed, then
/// the frame that follows it is timed ([`Gpu::timed_frame`]); `back` and
/// its frame run untimed.
pub fn frame_after<R, S>(
    e: &mut Editor,
    gpu: &mut Gpu,
    iters: u64,
    step: impl FnMut(&mut Editor) -> R,
    back: impl FnMut(&mut Editor) -> S,
) -> Duration {
    steps_and_frames(e, gpu, iters, false, step, back)
}

/// The slowest of the GPU-culling frames that follow the frame after
/// `step` while some records are still provisional (an edit of more
/// objects than a frame makes boxes for; `Renderer::settle_scene_objects`),
/// each timed alone ([`Gpu::timed_frame`]), summed over `iters` rounds;
/// `step`, the frame after it, `back` and its frame run untimed. A round
/// whose frame after the step left nothing provisional counts zero.
pub fn slowest_settling_frame<R, S>(
    e: &mut Editor,
    gpu: &mut Gpu,
    iters: u64,
    step: impl FnMut(&mut Editor) -> R,
    back: impl FnMut(&mut Editor) -> S,
) -> Duration {
    rounds(e, gpu, iters, step, back, |e, gpu, _| {
        gpu.draw(e);
        let mut slowest = Duration::ZERO;
        while gpu.r.provisional_scene_objects() > 0 {
            slowest = slowest.max(gpu.timed_frame(e));
        }
        slowest
    })
}

/// `iters` rounds of `step` and the frame after it (timed, with the step
/// too when `with_step`), then `back` and its frame (untimed).
fn steps_and_frames<R, S>(
    e: &mut Editor,
    gpu: &mut Gpu,
    iters: u64,
    with_step: bool,
    step: impl FnMut(&mut Editor) -> R,
    back: impl FnMut(&mut Editor) -> S,
) -> Duration {
    rounds(e, gpu, iters, step, back, |e, gpu, started| {
        let stepped = if with_step { started.elapsed() } else { Duration::ZERO };
        stepped + gpu.timed_frame(e)
    })
}

/// `iters` rounds of: the device idle, `step`, then what `measure` times
/// (given when the step started), then `back` and its frame (untimed).
fn rounds<R, S>(
    e: &mut Editor,
    gpu: &mut Gpu,
    iters: u64,
    mut step: impl FnMut(&mut Editor) -> R,
    mut back: impl FnMut(&mut Editor) -> S,
    mut measure: impl FnMut(&mut Editor, &mut Gpu, Instant) -> Duration,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        gpu.r.wait_idle().unwrap();
        let started = Instant::now();
        black_box(step(e));
        total += measure(e, gpu, started);
        back(e);
        gpu.draw(e);
    }
    total
}
