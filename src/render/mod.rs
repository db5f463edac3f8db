//! Everything Vulkan. The renderer draws what a [`FrameDesc`] says and decides
//! nothing about interaction; nothing outside this module names an ash type.
//!
//! # Module map
//! - [`Renderer`] (`renderer.rs`): the sequence of passes of one frame and
//!   the barriers between them, on an off-screen image or a window.
//! - Passes, each owning its pipeline and recording itself from plain
//!   inputs inside a rendering scope: `scene.rs`, `grid.rs`, and
//!   [`OverlayRenderer`] (`overlay.rs`), which engines can also record into
//!   their own frames (see its module docs for the embedding contract).
//! - `frame.rs` (per-frame command buffer, fence, semaphore, instance
//!   buffer), `mesh.rs` (meshes on the GPU), `readback.rs` (copies to the
//!   host), `target.rs` (off-screen image, swapchain, depth images).
//! - `barrier.rs`: the table of image layout transitions.
//! - `resources.rs`: buffers, images, the grow-on-demand buffer, and the one
//!   ownership pattern (`Destroy` + `Guard`) every device-level object
//!   follows; `context.rs`: instance, device, queue, allocator.
//! - `pipeline.rs`: what all pipelines share; `error.rs`: [`RenderError`].
//!
//! # Frames and synchronisation
//! Two frames are in flight. Each frame owns a command pool and buffer, a
//! fence (signalled when the GPU finished the frame), a semaphore for the
//! swapchain acquire, and host-visible instance buffers (the scene's in the
//! frame, the overlay's in the overlay renderer, indexed by the frame), so
//! the CPU writes frame N+1's instances while the GPU reads frame N's. The
//! depth images are shared by both frames: each frame's first barrier waits
//! for the previous frame's depth writes, sampling and copies (same queue,
//! so the barrier orders them). Swapchain images get one "ready to present"
//! semaphore each, signalled by the submit and waited on by the present.
//!
//! Per frame: wait fence -> acquire (window) -> record -> submit -> present
//! (window). One frame records, in order:
//! 1. colour, scene depth and overlay depth -> attachment layouts (contents
//!    discarded);
//! 2. scene pass (colour cleared to the background, scene depth cleared for
//!    the depth mode): scene objects, then the grid, blended, depth-tested
//!    without depth writes;
//! 3. scene depth -> `DEPTH_READ_ONLY_OPTIMAL`, its writes made visible to
//!    the fragment shader (sampled) and to copies;
//! 4. overlay pass (only with overlay instances): colour loaded, overlay
//!    depth cleared; the overlay samples the scene depth to fade hidden parts;
//! 5. window: colour -> present, optionally a copy for a screenshot, and a
//!    copy of the scene depth for `depth_at`; off-screen: colour and depth
//!    copied into host-visible buffers. Each copy ends with a barrier to
//!    `HOST`, so [`Renderer::read_color`] and friends only wait for the
//!    frame's fence before reading.

mod barrier;
mod context;
mod error;
mod frame;
mod grid;
mod mesh;
mod overlay;
mod pipeline;
mod readback;
mod renderer;
mod resources;
mod scene;
mod target;

use std::time::Duration;

use nalgebra::Matrix4;

pub use context::{Context, ContextDesc, DeviceInfo, ValidationReport, WindowHandles};
pub use error::{MemoryKind, RenderError};
pub use overlay::{OverlayDesc, OverlayFrame, OverlayRenderer, OverlayStats};
pub use renderer::Renderer;
/// The ash and gpu-allocator versions the embedding API speaks.
pub use {ash, gpu_allocator};

use crate::gizmo::OverlayInstance;
use crate::math::{Camera, DepthMode};

/// Number of frames the CPU may record ahead of the GPU.
pub const FRAMES_IN_FLIGHT: usize = 2;

/// Handle of a mesh uploaded with [`Renderer::add_mesh`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshId(pub u32);

/// One scene object to draw.
#[derive(Clone, Copy, Debug)]
pub struct DrawObject {
    pub mesh: MeshId,
    pub world: Matrix4<f64>,
    /// Linear RGB.
    pub color: [f32; 3],
    /// 0 = normal, 1 = fully tinted as selected.
    pub tint: f32,
}

/// Everything one frame shows.
#[derive(Clone, Debug)]
pub struct FrameDesc {
    pub camera: Camera,
    pub depth: DepthMode,
    pub objects: Vec<DrawObject>,
    pub grid: bool,
    /// Linear RGB clear colour.
    pub background: [f32; 3],
    /// Gizmo geometry, drawn in the overlay pass after the scene.
    pub overlay: Vec<OverlayInstance>,
}

impl FrameDesc {
    pub const BACKGROUND: [f32; 3] = [0.035, 0.04, 0.05];

    pub fn new(camera: Camera, depth: DepthMode) -> FrameDesc {
        FrameDesc { camera, depth, objects: Vec::new(), grid: true, background: Self::BACKGROUND, overlay: Vec::new() }
    }
}

/// What drawing a frame did.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameStats {
    /// False when nothing was drawn (minimised window, swapchain recreated).
    pub presented: bool,
    /// Draws of the scene and grid.
    pub draw_calls: u32,
    pub instances: u32,
    /// Draws of the overlay pass: at most one per gizmo mesh kind.
    pub overlay_draw_calls: u32,
    pub overlay_instances: u32,
    /// CPU time spent recording the command buffer.
    pub record_time: Duration,
}

/// An RGBA8 image read back from the GPU (sRGB-encoded), rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

impl RgbaImage {
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.data[i], self.data[i + 1], self.data[i + 2], self.data[i + 3]]
    }
}
