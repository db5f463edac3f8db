//! [`Renderer`]: the sequence of passes of one frame and the barriers
//! between them, on a target of our own (off-screen image or window).

use std::sync::Mutex;
use std::time::Instant;

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::render::device::context::{Context, ContextDesc, DeviceInfo, ValidationReport, WindowHandles};
use crate::render::device::error::{RenderError, VkContext};
use crate::render::renderer::frame::Frame;

pub(crate) mod frame;
pub(crate) mod image_copies;
mod pixel_reads;
mod plan;
mod record;
mod scene_objects;
pub(crate) mod target;
use crate::mesh::MeshData;
use crate::render::assets::material::{Materials, Pass};
use crate::render::assets::mesh::{GpuMesh, Retired};
use crate::render::cull::compute::{GpuScene, MeshBounds};
use crate::render::desc::{
    FrameDesc, FrameStats, MaterialDesc, MaterialId, MeshId, MeshPart, MeshSurface, TextureId, FRAMES_IN_FLIGHT,
};
use crate::render::device::{Destroy, Gpu, GrowBuffer, Guard};
use crate::render::passes::grid::GridPass;
use crate::render::passes::outline::OutlinePass;
use crate::render::passes::overlay::{OverlayDesc, OverlayRenderer};
use crate::render::passes::rect::RectPass;
use crate::render::passes::scene::ScenePass;
use crate::render::passes::shadow::ShadowPass;
use crate::render::passes::sky::SkyPass;
use crate::render::passes::ui::UiPass;
use crate::render::renderer::image_copies::Probe;
use crate::render::renderer::target::{Offscreen, Swapchain, DEPTH_FORMAT, OFFSCREEN_FORMAT};
use crate::scene::material::ImageData;

enum Target {
    Offscreen(Offscreen),
    Window(Swapchain),
}

impl Destroy for Target {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        match self {
            Target::Offscreen(o) => o.destroy(gpu),
            Target::Window(s) => s.destroy(gpu),
        }
    }
}

/// Everything the renderer owns on its device except the overlay (which
/// owns itself) and the context.
struct Parts {
    frames: Vec<Frame>,
    scene: ScenePass,
    sky: SkyPass,
    shadow: ShadowPass,
    grid: GridPass,
    outline: OutlinePass,
    rect: RectPass,
    meshes: Vec<GpuMesh>,
    /// Vertex buffers replaced while frames in flight may read them.
    retired: Retired,
    /// Per mesh: whether a part is blended (its instances are sorted).
    blended: Vec<bool>,
    /// Per mesh: its local bounds (GPU culling).
    bounds: Vec<MeshBounds>,
    /// The GPU-driven scene, made by the first [`Renderer::set_scene_objects`].
    gpu_scene: Option<GpuScene>,
    /// Whether both scene paths leave out objects that cover no sample
    /// (`render/cull/small.rs`); on unless turned off.
    small_culling: bool,
    /// The target's colour format (for pipelines made later).
    color_format: vk::Format,
    /// Textures, samplers and materials (destroyed after the meshes and
    /// the scene pass that use them).
    materials: Materials,
    target: Target,
    /// When a screenshot of a window frame is asked for, the copy lands here.
    capture: GrowBuffer,
    /// Region read-backs of ids and depth. Behind a lock so that
    /// [`Renderer::depth_at`] can read through a shared reference.
    probe: Mutex<Probe>,
}

impl Destroy for Parts {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.probe.get_mut().unwrap_or_else(|p| p.into_inner()).destroy(gpu);
        self.capture.destroy(gpu);
        self.target.destroy(gpu);
        self.retired.destroy(gpu);
        self.meshes.destroy(gpu);
        self.rect.destroy(gpu);
        self.gpu_scene.destroy(gpu);
        self.outline.destroy(gpu);
        self.grid.destroy(gpu);
        self.sky.destroy(gpu);
        self.shadow.destroy(gpu);
        self.scene.destroy(gpu);
        self.materials.destroy(gpu);
        self.frames.destroy(gpu);
    }
}

/// The renderer: owns the Vulkan context, the target, the passes, meshes
/// and per-frame resources, and destroys them in reverse order on drop.
pub struct Renderer {
    parts: Parts,
    overlay: OverlayRenderer,
    /// egui's pass; drops (destroying its objects) after `parts` and before `ctx`.
    ui: UiPass,
    frame_index: usize,
    /// Requested window size (physical pixels), used when the surface leaves it to us.
    window_extent: vk::Extent2D,
    capture_next: bool,
    /// Whether the target's scene depth and ids hold a submitted frame and
    /// were left as copy sources (false before the first frame and after
    /// the images were recreated).
    readable: bool,
    /// Frames submitted so far.
    frames_drawn: u64,
    /// Declared last: dropped after everything made from it.
    ctx: Context,
}

impl Renderer {
    /// A renderer drawing into an off-screen image of `width` x `height`.
    pub fn headless(desc: &ContextDesc, width: u32, height: u32) -> Result<Renderer, RenderError> {
        let ctx = Context::new(desc, None)?;
        let extent = vk::Extent2D { width, height };
        let target = Target::Offscreen(Offscreen::new(&ctx.gpu, extent, ctx.samples())?);
        Renderer::with_target(ctx, target, OFFSCREEN_FORMAT, extent)
    }

    /// A renderer presenting to a window of `width` x `height` physical pixels.
    pub fn windowed(
        desc: &ContextDesc,
        window: WindowHandles,
        width: u32,
        height: u32,
    ) -> Result<Renderer, RenderError> {
        let ctx = Context::new(desc, Some(window))?;
        let surface_format = Swapchain::choose_format(&ctx)?;
        let extent = vk::Extent2D { width, height };
        let swapchain = Swapchain::new(&ctx, surface_format, extent)?;
        Renderer::with_target(ctx, Target::Window(swapchain), surface_format.format, extent)
    }

    fn with_target(
        ctx: Context,
        target: Target,
        color_format: vk::Format,
        window_extent: vk::Extent2D,
    ) -> Result<Renderer, RenderError> {
        let gpu = &ctx.gpu;
        let mut parts = Guard::new(
            gpu,
            Parts {
                frames: Vec::new(),
                scene: ScenePass::default(),
                sky: SkyPass::default(),
                shadow: ShadowPass::default(),
                grid: GridPass::default(),
                outline: OutlinePass::default(),
                rect: RectPass::default(),
                meshes: Vec::new(),
                retired: Retired::default(),
                blended: Vec::new(),
                bounds: Vec::new(),
                gpu_scene: None,
                small_culling: true,
                color_format,
                materials: Materials::default(),
                target,
                capture: GrowBuffer::new(vk::BufferUsageFlags::TRANSFER_DST, MemoryLocation::GpuToCpu, "capture"),
                probe: Mutex::new(Probe::new(&ctx)?),
            },
        );
        // SAFETY: the materials are empty and owned by the `parts` guard.
        unsafe { parts.materials.init(&ctx)? };
        let samples = ctx.samples();
        parts.scene = ScenePass::new(gpu, color_format, DEPTH_FORMAT, samples, parts.materials.layout)?;
        parts.sky = SkyPass::new(gpu, color_format, DEPTH_FORMAT, samples, parts.materials.layout)?;
        parts.shadow = ShadowPass::new(gpu, parts.materials.layout)?;
        parts.grid = GridPass::new(gpu, color_format, DEPTH_FORMAT, samples)?;
        parts.outline = OutlinePass::new(gpu, color_format, samples, FRAMES_IN_FLIGHT)?;
        parts.rect = RectPass::new(gpu, color_format)?;
        for _ in 0..FRAMES_IN_FLIGHT {
            let f = Frame::new(&ctx)?;
            parts.frames.push(f);
        }
        let overlay_desc = OverlayDesc { color_format, depth_format: DEPTH_FORMAT, frames_in_flight: FRAMES_IN_FLIGHT };
        let overlay = OverlayRenderer::on(Gpu::clone(gpu), &overlay_desc, samples)?;
        let ui = UiPass::new(&ctx, color_format)?;
        let parts = parts.finish();
        Ok(Renderer {
            parts,
            overlay,
            ui,
            frame_index: 0,
            window_extent,
            capture_next: false,
            readable: false,
            frames_drawn: 0,
            ctx,
        })
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    pub fn device_info(&self) -> &DeviceInfo {
        self.ctx.device_info()
    }

    pub fn validation(&self) -> &ValidationReport {
        self.ctx.validation()
    }

    /// Size of the target in physical pixels (0 x 0 for a minimised window).
    pub fn extent(&self) -> (u32, u32) {
        let e = match &self.parts.target {
            Target::Offscreen(o) => o.extent(),
            Target::Window(s) => s.extent,
        };
        (e.width, e.height)
    }

    /// Uploads a mesh (through a staging buffer into device-local memory),
    /// drawn with the default material: the object's colour, lit.
    pub fn add_mesh(&mut self, mesh: &MeshData) -> Result<MeshId, RenderError> {
        self.push_mesh(mesh, None)
    }

    /// Uploads a mesh with, per vertex, texture coordinates and a linear
    /// RGBA colour, drawn in `parts` (index ranges with their materials).
    pub fn add_mesh_with(
        &mut self,
        mesh: &MeshData,
        uvs: &[[f32; 2]],
        colors: &[[f32; 4]],
        parts: &[MeshPart],
    ) -> Result<MeshId, RenderError> {
        self.push_mesh(mesh, Some(MeshSurface { uvs, uvs1: None, colors, tangents: None, parts }))
    }

    /// [`Renderer::add_mesh_with`] with a tangent per vertex (xyz, and in
    /// w the sign of the bitangent, `w x (normal x tangent)`), for normal
    /// textures ([`MaterialDesc::normal_texture`]).
    pub fn add_mesh_with_tangents(
        &mut self,
        mesh: &MeshData,
        uvs: &[[f32; 2]],
        colors: &[[f32; 4]],
        tangents: &[[f32; 4]],
        parts: &[MeshPart],
    ) -> Result<MeshId, RenderError> {
        self.push_mesh(mesh, Some(MeshSurface { uvs, uvs1: None, colors, tangents: Some(tangents), parts }))
    }

    /// Uploads a mesh with everything [`MeshSurface`] holds (both UV sets,
    /// colours, tangents, parts).
    pub fn add_mesh_surface(&mut self, mesh: &MeshData, surface: MeshSurface<'_>) -> Result<MeshId, RenderError> {
        self.push_mesh(mesh, Some(surface))
    }

    fn push_mesh(&mut self, mesh: &MeshData, surface: Option<MeshSurface<'_>>) -> Result<MeshId, RenderError> {
        let materials = &self.parts.materials;
        let gpu = GpuMesh::upload(&self.ctx, mesh, surface, materials.len())?;
        let blended = gpu.parts.iter().any(|p| materials.get(p.material).is_some_and(|m| m.pass == Pass::Blend));
        self.parts.meshes.push(gpu);
        self.parts.blended.push(blended);
        self.parts.bounds.push(mesh.bounds());
        Ok(MeshId(self.parts.meshes.len() as u32 - 1))
    }

    /// Replaces the vertex positions and normals of mesh `id` (a skinned
    /// mesh posed anew) and, with `surface`, its per-vertex UVs, colours
    /// and tangents (a posed mesh's tangents turn with it); the vertex and
    /// index counts must stay the same, and `surface`'s parts be those the
    /// mesh was added with. The old buffers are destroyed once no frame in
    /// flight reads them.
    pub fn set_mesh_vertices(
        &mut self,
        id: MeshId,
        mesh: &MeshData,
        surface: Option<MeshSurface<'_>>,
    ) -> Result<(), RenderError> {
        let gpu_mesh = self
            .parts
            .meshes
            .get_mut(id.0 as usize)
            .ok_or_else(|| RenderError::BadMesh(format!("no mesh {}", id.0)))?;
        for old in gpu_mesh.replace_vertices(&self.ctx, mesh, surface)? {
            self.parts.retired.push(self.frames_drawn, old);
        }
        // The pose's box: the culls (frustum, small objects) test it.
        if let Some(b) = self.parts.bounds.get_mut(id.0 as usize) {
            *b = mesh.bounds();
        }
        Ok(())
    }

    /// Uploads an sRGB image as a texture with its mip levels: RGBA8, or
    /// BC7 for a Basis Universal image with its full mip chain on a device
    /// that samples BC7 (unless [`Self::set_block_compressed_textures`]
    /// turned that off).
    pub fn add_texture(&mut self, image: &ImageData) -> Result<TextureId, RenderError> {
        self.parts.materials.add_texture(&self.ctx, image)
    }

    /// Uploads an image of linear values (a metallic-roughness texture),
    /// RGBA8 or BC7 as [`Self::add_texture`] chooses.
    pub fn add_linear_texture(&mut self, image: &ImageData) -> Result<TextureId, RenderError> {
        self.parts.materials.add_linear_texture(&self.ctx, image)
    }

    /// The format of every texture uploaded so far (the built-in ones
    /// first), in upload order.
    pub fn texture_formats(&self) -> &[ash::vk::Format] {
        self.parts.materials.texture_formats()
    }

    /// Adds a material (its texture, if any, added before).
    pub fn add_material(&mut self, desc: &MaterialDesc) -> Result<MaterialId, RenderError> {
        self.parts.materials.add(&self.ctx, desc)
    }

    /// Resizes the target. For a window this only marks the swapchain for
    /// recreation at the next frame; zero means minimised.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<(), RenderError> {
        self.window_extent = vk::Extent2D { width, height };
        match &mut self.parts.target {
            Target::Window(s) => s.dirty = true,
            Target::Offscreen(o) => {
                if width == 0 || height == 0 {
                    return Err(RenderError::ZeroSize { what: "off-screen", width, height });
                }
                self.ctx.wait_idle()?;
                self.readable = false;
                let fresh = Offscreen::new(&self.ctx.gpu, self.window_extent, self.ctx.samples())?;
                // SAFETY: the device is idle.
                unsafe { o.destroy(&self.ctx.gpu) };
                *o = fresh;
            }
        }
        Ok(())
    }

    /// Draws one frame. For a window it also presents; for an off-screen
    /// target the result can be read with [`Renderer::read_color`].
    pub fn draw(&mut self, desc: &FrameDesc) -> Result<FrameStats, RenderError> {
        // The UI's texture changes first, even for a frame that is not drawn
        // (a minimised window): egui hands each change over only once. A
        // texture that changes or goes may still be read by a frame in
        // flight, hence the wait (rare: the font atlas).
        if let Some(ui) = desc.ui.as_ref().filter(|u| !u.set_textures.is_empty() || !u.free_textures.is_empty()) {
            self.ctx.wait_idle()?;
            self.ui.set_textures(&self.ctx, ui)?;
            self.ui.free_textures(ui)?;
        }
        // A `.hdr` environment not bound yet: its maps are made and bound
        // in every material's set while nothing is in flight (rare: the
        // lighting changed).
        if let crate::look::Environment::Hdr(id) = desc.lighting.environment {
            if self.parts.materials.environment() != Some(id) {
                self.ctx.wait_idle()?;
                // SAFETY: the device is idle.
                unsafe { self.parts.materials.set_environment(&self.ctx, id)? };
            }
        }
        let fi = self.frame_index;
        self.parts.frames[fi].wait(&self.ctx)?;
        // SAFETY: frame `frames_drawn` just waited for its slot's fence, and
        // every earlier frame for its own before.
        unsafe { self.parts.retired.release(&self.ctx.gpu, self.frames_drawn) };

        // Acquire (window) and find the colour image to draw into.
        let mut image_index = 0u32;
        if let Target::Window(swapchain) = &mut self.parts.target {
            if self.window_extent.width == 0 || self.window_extent.height == 0 {
                // Minimised: nothing to draw until the window has a size again.
                return Ok(FrameStats::default());
            }
            if swapchain.dirty {
                self.readable = false;
                swapchain.recreate(&self.ctx, self.window_extent)?;
            }
            if swapchain.is_empty() {
                return Ok(FrameStats::default());
            }
            let acquired = self.parts.frames[fi].acquired;
            // SAFETY: live swapchain; the frame's semaphore is unsignalled
            // because its previous use was waited for by the frame's fence.
            match unsafe { swapchain.loader.acquire_next_image(swapchain.raw, u64::MAX, acquired, vk::Fence::null()) } {
                Ok((i, suboptimal)) => {
                    image_index = i;
                    swapchain.dirty |= suboptimal;
                }
                Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                    self.readable = false;
                    swapchain.recreate(&self.ctx, self.window_extent)?;
                    return Ok(FrameStats::default());
                }
                Err(e) => return Err(RenderError::from_vk("vkAcquireNextImageKHR", e)),
            }
        }

        let started = Instant::now();
        let mut stats = self.record(fi, image_index as usize, desc)?;
        stats.record_time = started.elapsed();

        let frame = &self.parts.frames[fi];
        let cmd = [vk::CommandBufferSubmitInfo::default().command_buffer(frame.cmd)];
        let wait = [vk::SemaphoreSubmitInfo::default()
            .semaphore(frame.acquired)
            .stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)];
        let signal_sem = match &self.parts.target {
            Target::Window(s) => Some(s.per_image.present_ready[image_index as usize]),
            Target::Offscreen(_) => None,
        };
        let signal = signal_sem.map(|s| {
            [vk::SemaphoreSubmitInfo::default().semaphore(s).stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)]
        });
        let mut submit = vk::SubmitInfo2::default().command_buffer_infos(&cmd);
        if let Some(signal) = signal.as_ref() {
            submit = submit.wait_semaphore_infos(&wait).signal_semaphore_infos(signal);
        }
        let d = self.ctx.device();
        // SAFETY: the fence was waited on above and is reset only now that a
        // submit that signals it is certain to follow.
        unsafe {
            d.reset_fences(&[frame.done]).vk("vkResetFences")?;
            d.queue_submit2(self.ctx.queue, &[submit], frame.done).vk("vkQueueSubmit2")?;
        }
        self.readable = true;

        if let (Target::Window(swapchain), Some(sem)) = (&mut self.parts.target, signal_sem) {
            let waits = [sem];
            let chains = [swapchain.raw];
            let indices = [image_index];
            let present =
                vk::PresentInfoKHR::default().wait_semaphores(&waits).swapchains(&chains).image_indices(&indices);
            // SAFETY: the image was acquired this frame and rendered by the submit above.
            match unsafe { swapchain.loader.queue_present(self.ctx.queue, &present) } {
                Ok(false) => {}
                Ok(true) | Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                    self.readable = false;
                    swapchain.recreate(&self.ctx, self.window_extent)?
                }
                Err(e) => return Err(RenderError::from_vk("vkQueuePresentKHR", e)),
            }
        }
        stats.presented = true;
        self.frames_drawn += 1;
        self.frame_index = (fi + 1) % FRAMES_IN_FLIGHT;
        Ok(stats)
    }

    /// Waits until the GPU is idle (e.g. before timing or tearing down).
    pub fn wait_idle(&self) -> Result<(), RenderError> {
        self.ctx.wait_idle()
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        // Even with a lost device, nothing can be pending any more after this.
        let _ = self.ctx.wait_idle();
        // SAFETY: the device is idle. `overlay` and then `ctx` drop after
        // this body, in field order.
        unsafe { self.parts.destroy(&self.ctx.gpu) };
    }
}
