//! Everything Vulkan. The renderer draws what a [`FrameDesc`] says and decides
//! nothing about interaction; nothing outside this module names an ash type.
//!
//! # Module map
//! Layers point down only:
//! - `renderer/`: [`Renderer`], which sequences the passes of one frame on
//!   an off-screen image or a window (`record.rs`), with the per-frame
//!   resources (`frame.rs`), the targets (`target.rs`: off-screen image,
//!   swapchain, depth and id images) and the read-backs (`image_copies.rs`
//!   records the copies, `pixel_reads.rs` reads them).
//! - `cull/`: which objects the scene pass draws: the CPU / GPU choice
//!   (`choice.rs`), the exact small-object test (`small.rs`) and the compute
//!   path (`compute/`: persistent object records, the cull dispatch into
//!   indirect draws, and the barriers between them, in its module docs).
//! - `passes/`: scene, grid, outline (selection outline from the ids), rect
//!   (box-selection rectangle), ui and [`OverlayRenderer`], which engines can
//!   also record into their own frames. Each owns its pipeline and records
//!   itself from plain inputs inside a rendering scope.
//! - `assets/`: meshes on the GPU with their parts by material, materials
//!   (descriptor sets, samplers), the environment's maps and textures
//!   (sRGB, mips made by blits).
//! - `device/`: context (instance, device, queue, allocator), ownership
//!   (`Destroy` + `Guard`, which every device-level object follows), memory,
//!   uploads, descriptors, the image-layout barrier table, what all
//!   pipelines share, and [`RenderError`].
//! - `desc.rs`: the frame description ([`FrameDesc`]) and the ids and
//!   statistics the renderer hands back; it depends on nothing above.
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
//! (window). The scopes a frame records and the barriers between them come
//! from its plan (`renderer/plan.rs`), which a loop in `renderer/record.rs`
//! walks. One frame records, in order:
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
//! No frame copies depth or ids to the host. [`Renderer::read_region`]
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

pub(crate) mod assets;
pub(crate) mod cull;
mod desc;
pub(crate) mod device;
pub(crate) mod passes;
mod renderer;

pub use cull::choice::{Culling, CullingChoice};
pub use cull::compute::{split_f64, GpuObjectRecord, GpuSceneRebuilds, SceneObject};
pub use device::context::{Context, ContextDesc, DeviceInfo, ValidationReport, WindowHandles, AUTO_SAMPLES_GPU};
pub use device::error::{MemoryKind, RenderError};
pub use passes::outline::{ACTIVE_OUTLINE, SELECTED_OUTLINE};
pub use passes::overlay::{OverlayDesc, OverlayFrame, OverlayRenderer, OverlayStats};
pub use passes::rect::{RECT_BORDER, RECT_FILL};
pub use renderer::Renderer;
/// The environment's precomputation, the split-sum BRDF table (RG16F
/// texels), computed afresh: for benchmarks. Renderers compute it once per
/// process and share it.
pub fn compute_brdf_table() -> Vec<u8> {
    assets::environment::compute_brdf_lut()
}

/// The ash and gpu-allocator versions the embedding API speaks.
pub use {ash, gpu_allocator};

pub use desc::{
    DrawObject, FrameDesc, FrameStats, GpuSceneFrame, Highlight, MaterialDesc, MaterialId, MaterialTexture, MeshId,
    MeshPart, MeshSurface, Region, RgbaImage, TextureId, UiDraw, FRAMES_IN_FLIGHT,
};
pub use desc::{FrameView, ShadowDesc, MAX_VIEWS};
