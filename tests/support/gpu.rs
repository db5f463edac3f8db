//! GPU helpers. Every renderer here runs with the Khronos validation layer,
//! and tests assert that it reported no error. Each renderer has its own
//! instance and error counter, so tests may render in parallel threads.

use nalgebra::{Point3, Vector4};
use viewport::draw::SceneMeshes;
use viewport::math::{Camera, DepthMode};
use viewport::render::{ContextDesc, Renderer, RgbaImage};
use viewport::scene::Scene;

/// A single-sampled renderer (no MSAA), with validation.
pub fn renderer(width: u32, height: u32) -> Renderer {
    renderer_with_samples(width, height, 1)
}

/// A renderer asking for `samples` MSAA samples per pixel, with validation.
pub fn renderer_with_samples(width: u32, height: u32, samples: u32) -> Renderer {
    Renderer::headless(&ContextDesc { validation: true, samples }, width, height)
        .expect("headless renderer with validation")
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

/// Whether the 3x3 neighbourhood of pixel (x, y) of a `w` x `h` id image
/// holds more than one id (a silhouette pixel).
pub fn on_silhouette(ids: &[u32], (w, h): (u32, u32), x: u32, y: u32) -> bool {
    let own = ids[(y * w + x) as usize];
    (-1i32..=1).any(|dy| {
        (-1i32..=1).any(|dx| {
            let (qx, qy) = (x as i32 + dx, y as i32 + dy);
            qx >= 0 && qy >= 0 && qx < w as i32 && qy < h as i32 && ids[(qy as u32 * w + qx as u32) as usize] != own
        })
    })
}
