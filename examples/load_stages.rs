//! Where the time and memory of opening a scene go: the headless path
//! (`viewport SCENE --headless`) stage by stage, with the wall time of
//! each and the process's resident memory after it (current and peak,
//! Linux `/proc/self/status`).
//!
//! `cargo run --release --example load_stages -- target/cubes-1M.json
//! [--gpu-culling]` (`make bench-scenes` writes the scene; with
//! `--gpu-culling` the frame is the GPU-driven one: the renderer's object
//! buffer is uploaded and the compute pass culls). A diagnostic, not a benchmark:
//! the figures the README quotes come from criterion (`benches/editing.rs`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use viewport::app::open::{open_editor_for, open_scene};
use viewport::draw::{GpuSync, SceneMeshes};
use viewport::math::DepthMode;
use viewport::render::{ContextDesc, Renderer};
use viewport::ui::Ui;

/// `VmRSS` and `VmHWM` of this process in MB.
fn rss_mb() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// CPU seconds this process has used (user + system, all threads), from
/// `/proc/self/stat`: what a stage costs when other jobs share the cores.
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses): utime and
    // stime are the 12th and 13th of them, in clock ticks (100 a second).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: f64 = rest.split_whitespace().skip(11).take(2).filter_map(|t| t.parse::<f64>().ok()).sum();
    ticks / 100.0
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gpu_culling = args.iter().any(|a| a == "--gpu-culling");
    let Some(path) = args.iter().find(|a| !a.starts_with("--")).map(PathBuf::from) else {
        eprintln!("load_stages: usage: load_stages SCENE.json [--gpu-culling]");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    let mut last = start;
    let mut last_cpu = cpu_s();
    let mut stage = |name: &str| {
        let (rss, hwm) = rss_mb();
        let cpu = cpu_s();
        println!(
            "{name:<28} {:>7.0} ms (total {:>6.0} ms, cpu {:>6.0} ms)  rss {rss:>6.0} MB  peak {hwm:>6.0} MB",
            last.elapsed().as_secs_f64() * 1e3,
            start.elapsed().as_secs_f64() * 1e3,
            (cpu - last_cpu) * 1e3
        );
        last = Instant::now();
        last_cpu = cpu;
    };
    stage("start");
    let mut run = || -> Result<(), viewport::Error> {
        let opened = open_scene(Some(&path))?;
        stage("read + parse + validate");
        let (mut editor, loaded) = open_editor_for(opened, (1280, 720), DepthMode::Reversed)?;
        stage("meshes + editor + pick index");
        let mut ui = Ui::off(1280.0, 720.0);
        ui.scale_gizmo(&mut editor);
        ui.settle(&mut editor);
        let mut renderer = Renderer::headless(&ContextDesc { validation: false, samples: 1 }, 1280, 720)?;
        stage("renderer");
        let mut meshes = SceneMeshes::upload_loaded(&mut renderer, &loaded)?;
        drop(loaded);
        stage("mesh upload");
        let mut sync = GpuSync::default();
        let mut frame = meshes.frame_for(&editor, &mut renderer, gpu_culling.then_some(&mut sync))?;
        frame.ui = Some(ui.draw(&mut editor));
        stage("frame description");
        renderer.draw(&frame)?;
        let image = renderer.read_color()?;
        stage("draw + read back");
        drop(image);
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("load_stages: {e}");
            ExitCode::from(2)
        }
    }
}
