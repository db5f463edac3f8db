//! Everything Vulkan. The renderer draws what a [`FrameDesc`] says and decides
//! nothing about interaction; nothing outside this module names an ash type.
//!
//! # Module map
//! - [`Renderer`] (`renderer.rs`): the sequence of passes of one frame and
//!   the barriers between them, on an off-screen image or a window.
//! - Passes, each owning its pipeline and recording itself from plain
//!   inputs inside a rendering scope: `scene.rs` (colour and object ids),
//!   `grid.rs`, `outline.rs` (selection outline from the ids), `rect.rs`
//!   (box-selection rectangle), and [`OverlayRenderer`] (`overlay.rs`),
//!   which engines can also record into their own frames (see its module
//!   docs for the embedding contract).
//! - `frame.rs` (per-frame command buffer, fence, semaphore, instance
//!   buffer), `mesh.rs` (meshes on the GPU, with their parts by material),
//!   `material.rs` (one descriptor set per material, samplers, textures),
//!   `texture.rs` (sRGB textures with mip levels made by blits), `readback.rs` (colour copies
//!   and region read-backs of ids and depth), `target.rs` (off-screen
//!   image, swapchain, depth and ID images).
//! - `gpu/` (GPU culling, [`FrameDesc::gpu_scene`]): persistent object
//!   records, the compute cull into indirect draw commands, the scene
//!   pipelines that read objects from buffers; its module docs give the
//!   barriers between the record copies, the cull and the draws, which
//!   are recorded before step 1 below.
//! - `barrier.rs`: the table of image layout transitions.
//! - `resources.rs`: buffers, images, the grow-on-demand buffer, and the one
//!   ownership pattern (`Destroy` + `Guard`) every device-level object
//!   follows; `context.rs`: instance, device, queue, allocator.
//! - `pipeline.rs`: what all pipelines share; `error.rs`: [`RenderError`].
//!
//! # Frames and synchronisation
//! Two frames are in flight. Each frame owns a command pool and buffer, a
//! fence (signalled when the GPU finished the frame), a semaphore for the
//! swapchain acquire, and host-visible buffers (the scene's instances in the
//! frame, the highlight table in the outline pass, the overlay's instances
//! in the overlay renderer, indexed by the frame), so the CPU writes frame
//! N+1's data while the GPU reads frame N's. The depth and ID images are
//! shared by both frames: each frame's first barrier waits for the previous
//! frame's writes, sampling and copies, and for region read-backs submitted
//! in between (same queue, so the barrier orders them). Swapchain images get
//! one "ready to present" semaphore each, signalled by the submit and
//! waited on by the present.
//!
//! Per frame: wait fence -> acquire (window) -> record -> submit -> present
//! (window). One frame records, in order:
//! 1. colour, scene depth, overlay depth and ids -> attachment layouts
//!    (contents discarded);
//! 2. scene pass (colour cleared to the background, ids to 0, scene depth
//!    for the depth mode): scene objects write colour and their id through
//!    the same depth test, then the grid, blended, depth-tested without
//!    depth writes, leaving the ids alone;
//! 3. scene depth -> `DEPTH_READ_ONLY_OPTIMAL` and ids ->
//!    `SHADER_READ_ONLY_OPTIMAL`, their writes made visible to the fragment
//!    shader (sampled) and to copies;
//! 4. outline pass (only when an object is highlighted): a full-screen
//!    triangle samples the ids and paints the selection outline;
//! 5. overlay pass (only with overlay instances): colour loaded, overlay
//!    depth cleared; the overlay samples the scene depth to fade hidden parts;
//! 6. selection rectangle (only with `selection_rect`), over everything;
//! 7. window: colour -> present, optionally a copy for a screenshot;
//!    off-screen: colour copied into a host-visible buffer, ending with a
//!    barrier to `HOST`, so [`Renderer::read_color`] only waits for the
//!    frame's fence. Both: scene depth and ids -> `TRANSFER_SRC_OPTIMAL`,
//!    where they stay until the next frame.
//!
//! No frame copies depth or ids to the host (the window used to copy its
//! whole depth buffer every frame for `depth_at`). [`Renderer::read_region`]
//! waits for the last frame's fence, then submits a copy of just the asked
//! rectangle of ids and depth into a small grow-on-demand host buffer and
//! waits for it; `depth_at` is a 1x1 region, `read_depth` / `read_ids` a
//! full-size one (tests and screenshots only).
//!
//! # MSAA
//! With [`ContextDesc::samples`] > 1 (the device's count in
//! [`DeviceInfo::samples`]) the target also has a multisampled colour and
//! depth image (`target.rs`, `Multisampled`), and the overlay's own depth is
//! multisampled. The frame then records:
//! 2a. the scene pass single-sampled as above but with no colour image
//!     (a null colour attachment, `UNDEFINED` in the pipelines) and without
//!     the grid: it writes only the ids and the scene depth, so both stay
//!     exact at pixel centres (integer formats cannot be averaged, lavapipe
//!     has no multisampled integer attachments, and sample 0 of 4x is not at
//!     the pixel centre); its pipelines use an id-only fragment shader
//!     (`scene_ids.frag`: no lighting, the texture read only for MASK's
//!     alpha cut-off, computed as `scene.frag` does);
//! 2b. the colour pass, multisampled: the scene objects (colour only, the
//!     scene pipelines built for the sample count) and the grid, against
//!     the multisampled depth, colour cleared to the background;
//! 4-5. the outline and the overlay draw into the multisampled colour (the
//!     outline still samples the single-sample ids, the overlay the
//!     single-sample scene depth);
//! and the last multisampled scope of the frame (overlay, else outline,
//! else the colour pass) resolves the colour (`AVERAGE`) into the target's
//! single-sample colour image. Everything after (the selection rectangle,
//! the hand-over, read-backs, screenshots) sees that image, as without MSAA.
//! The multisampled colour and depth become attachments at the start of
//! each frame (`MsColorToAttachment`, `MsDepthToAttachment`). With or
//! without MSAA, a rendering scope that loads the colour another scope
//! wrote (outline, overlay, rectangle) is preceded by a colour-after-colour
//! memory barrier (`barrier::color_after_color`): ordering inside a scope
//! does not reach across scopes.

mod barrier;
mod context;
mod culling;
mod error;
mod frame;
mod gpu;
mod grid;
mod material;
mod mesh;
mod outline;
mod overlay;
mod pipeline;
mod readback;
mod rect;
mod renderer;
mod resources;
mod scene;
mod small;
mod target;
mod texture;
mod ui;

use std::time::Duration;

use nalgebra::Matrix4;

pub use context::{Context, ContextDesc, DeviceInfo, ValidationReport, WindowHandles, AUTO_SAMPLES_GPU};
pub use culling::{Culling, CullingChoice};
pub use error::{MemoryKind, RenderError};
pub use gpu::{split_f64, GpuObjectRecord, GpuSceneRebuilds, SceneObject};
pub use outline::{ACTIVE_OUTLINE, SELECTED_OUTLINE};
pub use overlay::{OverlayDesc, OverlayFrame, OverlayRenderer, OverlayStats};
pub use rect::{RECT_BORDER, RECT_FILL};
pub use renderer::Renderer;
pub use ui::UiDraw;
/// The ash and gpu-allocator versions the embedding API speaks.
pub use {ash, gpu_allocator};

use crate::gizmo::OverlayInstance;
use crate::math::{Camera, DepthMode};
use crate::scene::material::{AlphaMode, SamplerDesc};

/// Number of frames the CPU may record ahead of the GPU.
pub const FRAMES_IN_FLIGHT: usize = 2;

/// Handle of a mesh uploaded with [`Renderer::add_mesh`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshId(pub u32);

/// Handle of a texture uploaded with [`Renderer::add_texture`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextureId(pub u32);

/// Handle of a material added with [`Renderer::add_material`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaterialId(pub u32);

impl MaterialId {
    /// White, opaque, lit, untextured: every renderer has it.
    pub const DEFAULT: MaterialId = MaterialId(0);
}

/// A material to add with [`Renderer::add_material`]: the fragment's colour
/// is `base_color` x the texture x the vertex colour x the object's colour,
/// lit unless `unlit`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialDesc {
    /// Linear RGBA.
    pub base_color: [f32; 4],
    /// A texture (sRGB) and how to sample it.
    pub texture: Option<(TextureId, SamplerDesc)>,
    pub alpha: AlphaMode,
    pub unlit: bool,
}

impl Default for MaterialDesc {
    fn default() -> MaterialDesc {
        MaterialDesc { base_color: [1.0; 4], texture: None, alpha: AlphaMode::Opaque, unlit: false }
    }
}

/// A range of a mesh's indices drawn with one material.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshPart {
    pub first: u32,
    pub count: u32,
    pub material: MaterialId,
}

/// How a scene object is marked as selected: an outline drawn around its
/// visible pixels (its own colour is left untouched).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Highlight {
    #[default]
    None,
    /// Part of the selection: orange outline.
    Selected,
    /// The active object (the last selected): light yellow outline.
    Active,
}

impl Highlight {
    /// The value the outline shader reads from the per-id table.
    pub(crate) fn code(self) -> u32 {
        match self {
            Highlight::None => 0,
            Highlight::Selected => 1,
            Highlight::Active => 2,
        }
    }
}

/// One scene object to draw.
#[derive(Clone, Copy, Debug)]
pub struct DrawObject {
    pub mesh: MeshId,
    pub world: Matrix4<f64>,
    /// Linear RGB.
    pub color: [f32; 3],
    /// Written to the object-ID target wherever the object is the visible
    /// surface: the scene object index + 1 (0 is the background). Ids should
    /// be small and unique; the outline's per-id table has `max id + 1` entries.
    pub id: u32,
    pub highlight: Highlight,
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
    /// Box-selection rectangle (x0, y0, x1, y1 in physical pixels, any
    /// corner order), drawn on top of everything.
    pub selection_rect: Option<[f32; 4]>,
    /// The UI (egui), drawn last, over everything.
    pub ui: Option<UiDraw>,
    /// GPU culling: draw the renderer's persistent scene objects
    /// ([`Renderer::set_scene_objects`]), culled by a compute pass, then
    /// `objects`. The compute pass skips meshes with blended parts
    /// ([`Renderer::mesh_is_blended`]): their objects belong in `objects`,
    /// which are sorted back to front as on the CPU path.
    pub gpu_scene: Option<GpuSceneFrame>,
}

/// What a GPU-culled frame adds ([`FrameDesc::gpu_scene`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuSceneFrame {
    /// Outlined objects by id (scene index + 1). Shared, so that a caller
    /// can keep the list of a large selection between frames.
    pub highlights: std::sync::Arc<[(u32, Highlight)]>,
}

impl FrameDesc {
    pub const BACKGROUND: [f32; 3] = [0.035, 0.04, 0.05];

    pub fn new(camera: Camera, depth: DepthMode) -> FrameDesc {
        FrameDesc {
            camera,
            depth,
            objects: Vec::new(),
            grid: true,
            background: Self::BACKGROUND,
            overlay: Vec::new(),
            selection_rect: None,
            ui: None,
            gpu_scene: None,
        }
    }
}

/// What drawing a frame did.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameStats {
    /// False when nothing was drawn (minimised window, swapchain recreated).
    pub presented: bool,
    /// Draws of the scene and grid (with MSAA those of the multisampled
    /// colour pass; the single-sample ids + depth pass repeats the scene's).
    pub draw_calls: u32,
    pub instances: u32,
    /// Draws of the overlay pass: at most one per gizmo mesh kind.
    pub overlay_draw_calls: u32,
    pub overlay_instances: u32,
    /// GPU culling: scene object records copied to the GPU by this frame
    /// (the objects changed since the last frame).
    pub uploaded_objects: u32,
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

/// A rectangle of the last drawn frame's object ids and scene depth
/// ([`Renderer::read_region`]), rows top to bottom, `width * height` values each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Region {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    /// Object id per pixel (0: background).
    pub ids: Vec<u32>,
    /// Depth-buffer value per pixel (the clear value where nothing was drawn).
    pub depth: Vec<f32>,
}

impl Region {
    /// (id, depth) at image pixel (`x`, `y`), if it lies in the region.
    pub fn at(&self, x: u32, y: u32) -> Option<(u32, f32)> {
        if x < self.x || y < self.y || x >= self.x + self.width || y >= self.y + self.height {
            return None;
        }
        let i = ((y - self.y) * self.width + (x - self.x)) as usize;
        Some((self.ids[i], self.depth[i]))
    }
}

impl RgbaImage {
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.data[i], self.data[i + 1], self.data[i + 2], self.data[i + 3]]
    }
}
