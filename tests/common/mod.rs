//! Shared helpers for the GPU tests. Every renderer here runs with the
//! Khronos validation layer, and tests assert that it reported no error.
#![allow(dead_code)]

use nalgebra::{Point3, Vector4};
use viewport::draw::SceneMeshes;
use viewport::math::{Camera, DepthMode};
use viewport::render::{ContextDesc, Renderer, RgbaImage};
use viewport::scene::Scene;

pub fn renderer(width: u32, height: u32) -> Renderer {
    Renderer::headless(&ContextDesc { validation: true }, width, height).expect("headless renderer with validation")
}

/// Renders `scene` once and returns the image.
pub fn render(r: &mut Renderer, scene: &Scene, camera: Camera, depth: DepthMode, grid: bool) -> RgbaImage {
    let meshes = SceneMeshes::upload(r, scene).expect("upload meshes");
    let (w, h) = r.extent();
    let (mut frame, _) = meshes.frame(scene, camera, depth, &[], (w, h));
    frame.grid = grid;
    r.draw(&frame).expect("draw");
    r.read_color().expect("read back")
}

pub fn assert_no_validation_errors(r: &Renderer) {
    let v = r.validation();
    assert_eq!(v.errors(), 0, "validation errors: {:#?}", v.error_messages());
}

/// Projects a world point to continuous screen pixels (independently of the
/// library's own helpers: view, projection, divide, viewport).
pub fn project(camera: &Camera, depth: DepthMode, w: u32, h: u32, p: Point3<f64>) -> (f64, f64) {
    let m = camera.projection_matrix(w as f64 / h as f64, depth) * camera.view_matrix();
    let c = m * Vector4::new(p.x, p.y, p.z, 1.0);
    let (x, y) = (c.x / c.w, c.y / c.w);
    ((x + 1.0) * 0.5 * w as f64, (y + 1.0) * 0.5 * h as f64)
}

/// The dominant channel of a pixel (0 = red, 1 = green, 2 = blue), if it
/// clearly dominates.
pub fn dominant(p: [u8; 4]) -> Option<usize> {
    let (i, &max) = p[..3].iter().enumerate().max_by_key(|(_, v)| **v)?;
    let others = p[..3].iter().enumerate().filter(|(j, _)| *j != i).map(|(_, v)| *v).max()?;
    (max as i32 - others as i32 > 20).then_some(i)
}

/// An Xvfb server on a free display, killed on drop.
pub struct Xvfb {
    child: std::process::Child,
    pub display: String,
}

impl Xvfb {
    pub fn start() -> Xvfb {
        use std::io::{BufRead, BufReader};
        use std::process::{Command, Stdio};
        let mut child = Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb must be installed (make test installs the xvfb package)");
        let mut line = String::new();
        if BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).is_err() || line.trim().is_empty() {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Xvfb did not report a display");
        }
        let display = format!(":{}", line.trim());
        // Wait until the server answers.
        for _ in 0..100 {
            if Command::new("xdpyinfo").args(["-display", &display]).output().is_ok_and(|o| o.status.success()) {
                return Xvfb { child, display };
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("Xvfb on {display} did not answer");
    }

    /// Runs an X client (xdotool, import) against this server.
    pub fn run(&self, program: &str, args: &[&str]) -> String {
        let out = std::process::Command::new(program)
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Decodes a PNG (palette, RGB or RGBA) into 8-bit RGBA.
pub fn read_png(path: &std::path::Path) -> RgbaImage {
    let mut decoder = png::Decoder::new(std::fs::File::open(path).expect("png exists"));
    // Screenshots of few colours come back as palette images: expand them.
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png data");
    let data = match info.color_type {
        png::ColorType::Rgba => buf[..info.buffer_size()].to_vec(),
        png::ColorType::Rgb => buf[..info.buffer_size()].chunks(3).flat_map(|c| [c[0], c[1], c[2], 255]).collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    RgbaImage { width: info.width, height: info.height, data }
}

/// Polls `f` every 100 ms until it gives a value; fails after 60 s.
pub fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = std::time::Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Runs the viewport binary with no display.
pub fn viewport_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_viewport")).args(args).env_remove("DISPLAY").output().unwrap()
}

/// Bad input: exit status 2, exactly one `viewport: ...` line on stderr that
/// contains `needle`, and no panic.
pub fn assert_bad_input(out: &std::process::Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "exactly one error line, got: {stderr}");
    assert!(lines[0].starts_with("viewport: "), "{stderr}");
    assert!(lines[0].contains(needle), "expected {needle:?} in: {stderr}");
    assert!(!stderr.contains("panicked"));
}
