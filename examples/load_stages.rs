//! Where the time and memory of opening a scene go: the headless path
//! (`viewport SCENE --headless`) stage by stage, with the wall time of
//! each and the process's resident memory after it (current and peak,
//! Linux `/proc/self/status`).
//!
//! `cargo run --release --example load_stages -- target/cubes-1M.json`
//! (`make bench-scenes` writes the scene). A diagnostic, not a benchmark:
//! the figures the README quotes come from criterion (`benches/editing.rs`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use viewport::draw::SceneMeshes;
use viewport::math::DepthMode;
use viewport::render::{ContextDesc, Renderer};
use viewport::setup::{open_editor_for, open_scene};
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

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("load_stages: usage: load_stages SCENE.json");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    let mut last = start;
    let mut stage = |name: &str| {
        let (rss, hwm) = rss_mb();
        println!(
            "{name:<28} {:>7.0} ms (total {:>6.0} ms)  rss {rss:>6.0} MB  peak {hwm:>6.0} MB",
            last.elapsed().as_secs_f64() * 1e3,
            start.elapsed().as_secs_f64() * 1e3
        );
        last = Instant::now();
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
        let meshes = SceneMeshes::upload_loaded(&mut renderer, &loaded)?;
        stage("mesh upload");
        let mut frame = meshes.editor_frame(&editor).0;
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
