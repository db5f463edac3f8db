//! [`Renderer`]: the sequence of passes of one frame and the barriers
//! between them, on a target of our own (off-screen image or window).

use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::barrier::{self, Transition};
use super::context::{Context, ContextDesc, DeviceInfo, ValidationReport, WindowHandles};
use super::error::{RenderError, VkContext};
use super::frame::Frame;

mod scene_objects;
use super::gpu::{CullInputs, GpuScene, MeshBounds};
use super::grid::{GridInputs, GridPass};
use super::material::{Materials, Pass};
use super::mesh::{GpuMesh, Retired, SurfaceData};
use super::outline::OutlinePass;
use super::overlay::{OverlayDesc, OverlayFrame, OverlayRenderer};
use super::pipeline::set_full_viewport;
use super::readback::{self, Probe};
use super::rect::RectPass;
use super::resources::{Destroy, Gpu, GrowBuffer, Guard};
use super::scene::{SceneBatches, SceneInputs, ScenePass, ScenePush};
use super::target::{Depths, Offscreen, Swapchain, DEPTH_FORMAT, OFFSCREEN_FORMAT};
use super::ui::UiPass;
use super::{
    FrameDesc, FrameStats, MaterialDesc, MaterialId, MeshId, MeshPart, Region, RgbaImage, TextureId, FRAMES_IN_FLIGHT,
};
use crate::math::View;
use crate::mesh::MeshData;
use crate::scene::material::ImageData;
use scene_objects::highlight_table;

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

/// One attachment of a rendering scope: its view, and the value to clear
/// it to (None: load the previous contents).
struct Attachment {
    view: vk::ImageView,
    clear: Option<vk::ClearValue>,
    store: vk::AttachmentStoreOp,
    /// A multisampled colour attachment's resolve target (averaged into it
    /// at the end of the scope, in the same layout).
    resolve: Option<vk::ImageView>,
}

impl Attachment {
    fn new(view: vk::ImageView, clear: Option<vk::ClearValue>, store: vk::AttachmentStoreOp) -> Attachment {
        Attachment { view, clear, store, resolve: None }
    }

    /// No image: the pipelines' writes to it are discarded.
    fn none() -> Attachment {
        Attachment::new(vk::ImageView::null(), None, vk::AttachmentStoreOp::DONT_CARE)
    }

    fn info(&self, layout: vk::ImageLayout) -> vk::RenderingAttachmentInfo<'static> {
        let mut info =
            vk::RenderingAttachmentInfo::default().image_view(self.view).image_layout(layout).store_op(self.store);
        if let Some(resolve) = self.resolve {
            info = info
                .resolve_mode(vk::ResolveModeFlags::AVERAGE)
                .resolve_image_view(resolve)
                .resolve_image_layout(layout);
        }
        match self.clear {
            Some(c) => info.load_op(vk::AttachmentLoadOp::CLEAR).clear_value(c),
            None => info.load_op(vk::AttachmentLoadOp::LOAD),
        }
    }
}

/// Begins a rendering scope over the whole of `extent`.
///
/// # Safety
/// `cmd` is recording outside a rendering scope; the images are in the
/// attachment layouts.
unsafe fn begin_rendering(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    extent: vk::Extent2D,
    colors: &[Attachment],
    depth: Option<Attachment>,
) {
    let colors: Vec<_> = colors.iter().map(|c| c.info(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)).collect();
    let depth = depth.map(|a| a.info(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL));
    let mut info = vk::RenderingInfo::default()
        .render_area(vk::Rect2D { offset: vk::Offset2D::default(), extent })
        .layer_count(1)
        .color_attachments(&colors);
    if let Some(depth) = depth.as_ref() {
        info = info.depth_attachment(depth);
    }
    d.cmd_begin_rendering(cmd, &info);
}

/// A colour-only rendering scope that keeps `color`'s contents, for the
/// screen-space passes (outline, selection rectangle).
///
/// # Safety
/// As [`begin_rendering`].
unsafe fn begin_screen_pass(d: &ash::Device, cmd: vk::CommandBuffer, extent: vk::Extent2D, color: Attachment) {
    begin_rendering(d, cmd, extent, &[color], None);
    set_full_viewport(d, cmd, extent);
}

/// The last multisampled rendering scope of a frame, which resolves the
/// multisampled colour (MSAA only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LastPass {
    Scene,
    Outline,
    Overlay,
}

fn depth_clear(value: f32) -> Option<vk::ClearValue> {
    Some(vk::ClearValue { depth_stencil: vk::ClearDepthStencilValue { depth: value, stencil: 0 } })
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
                grid: GridPass::default(),
                outline: OutlinePass::default(),
                rect: RectPass::default(),
                meshes: Vec::new(),
                retired: Retired::default(),
                blended: Vec::new(),
                bounds: Vec::new(),
                gpu_scene: None,
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
        self.push_mesh(mesh, Some(SurfaceData { uvs, colors, parts }))
    }

    fn push_mesh(&mut self, mesh: &MeshData, surface: Option<SurfaceData<'_>>) -> Result<MeshId, RenderError> {
        let materials = &self.parts.materials;
        let gpu = GpuMesh::upload(&self.ctx, mesh, surface, materials.len())?;
        let blended = gpu.parts.iter().any(|p| materials.get(p.material).is_some_and(|m| m.pass == Pass::Blend));
        self.parts.meshes.push(gpu);
        self.parts.blended.push(blended);
        self.parts.bounds.push(mesh.bounds());
        Ok(MeshId(self.parts.meshes.len() as u32 - 1))
    }

    /// Replaces the vertex positions and normals of mesh `id` (a skinned
    /// mesh posed anew); the vertex and index counts must stay the same.
    /// The old vertex buffer is destroyed once no frame in flight reads it.
    pub fn set_mesh_vertices(&mut self, id: MeshId, mesh: &MeshData) -> Result<(), RenderError> {
        let gpu_mesh = self
            .parts
            .meshes
            .get_mut(id.0 as usize)
            .ok_or_else(|| RenderError::BadMesh(format!("no mesh {}", id.0)))?;
        if let Some(old) = gpu_mesh.replace_vertices(&self.ctx, mesh)? {
            self.parts.retired.push(self.frames_drawn, old);
        }
        Ok(())
    }

    /// Uploads an sRGB RGBA8 image as a texture with its mip levels.
    pub fn add_texture(&mut self, image: &ImageData) -> Result<TextureId, RenderError> {
        self.parts.materials.add_texture(&self.ctx, image)
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

    /// Records frame `fi`: scene and grid into the target's colour, ids and
    /// scene depth, the selection outline, the overlay against its own
    /// depth, the selection rectangle, then the hand-over.
    fn record(&mut self, fi: usize, image_index: usize, desc: &FrameDesc) -> Result<FrameStats, RenderError> {
        let Renderer { parts, overlay, ui, ctx, capture_next, .. } = self;
        let (color_image, color_view, depths, extent) = match &parts.target {
            Target::Offscreen(o) => (o.color.raw, o.color.view, o.depths.as_ref(), o.extent()),
            Target::Window(s) => {
                (s.per_image.images[image_index], s.per_image.views[image_index], s.per_image.depths.as_ref(), s.extent)
            }
        };
        let depths: &Depths = depths.expect("a target with a size has depth images");
        let aspect = extent.width as f64 / extent.height.max(1) as f64;
        let view = desc.camera.view_matrix();
        let projection = desc.camera.projection_matrix(aspect, desc.depth);

        let batches = SceneBatches::new(&view, &desc.objects, &parts.blended);
        let bytes: &[u8] = bytemuck::cast_slice(&batches.instances);
        let frame = &mut parts.frames[fi];
        // SAFETY: the frame's fence was waited for, so the GPU no longer
        // reads its instance buffer.
        let instance_buffer = unsafe { frame.instances.reserve(&ctx.gpu, bytes.len() as u64)? };
        instance_buffer.write(0, bytes, "scene instances")?;
        let instance_buffer = instance_buffer.raw;
        let gpu_highlights;
        let highlights = match &desc.gpu_scene {
            Some(g) => {
                gpu_highlights = highlight_table(&g.highlights);
                &gpu_highlights
            }
            None => &batches.highlights,
        };
        let outline = !highlights.is_empty();
        if outline {
            // SAFETY: the frame's fence was waited for.
            unsafe { parts.outline.prepare(&ctx.gpu, fi, depths.ids.view, highlights)? };
        }
        let gpu_scene = parts.gpu_scene.as_mut().filter(|_| desc.gpu_scene.is_some());
        let frame = &parts.frames[fi];

        let d = ctx.device();
        let mut stats = FrameStats::default();
        // SAFETY: the frame's fence was waited for, so its pool is idle; every
        // handle used below stays alive until the frame's fence signals.
        unsafe {
            let cmd = frame.begin(d)?;
            let msaa = depths.msaa.as_ref();
            let gpu_scene = match gpu_scene {
                Some(g) => {
                    let frustum = View::new(desc.camera, extent.width as f64, extent.height as f64, desc.depth)
                        .ok()
                        .map(|v| v.frustum());
                    let inputs = CullInputs {
                        view,
                        eye: desc.camera.eye,
                        frustum,
                        meshes: &parts.meshes,
                        bounds: &parts.bounds,
                        materials: &parts.materials,
                    };
                    stats.uploaded_objects = g.cull(&ctx.gpu, cmd, fi, &inputs)?;
                    Some(&*g)
                }
                None => None,
            };
            let push = ScenePush::new(&view, &projection);
            let mut starts = vec![
                (Transition::ColorToAttachment, color_image),
                (Transition::SceneDepthToAttachment, depths.scene.raw),
                (Transition::OverlayDepthToAttachment, depths.overlay.raw),
                (Transition::IdsToAttachment, depths.ids.raw),
            ];
            if let Some(ms) = msaa {
                starts.push((Transition::MsColorToAttachment, ms.color.raw));
                starts.push((Transition::MsDepthToAttachment, ms.depth.raw));
            }
            barrier::record(d, cmd, &starts, &[]);

            // Scene pass: scene objects (colour and ids), then the grid
            // blended over them (colour only). With MSAA this single-sample
            // pass writes only the ids and the scene depth (exact at pixel
            // centres), and the multisampled colour pass below draws the
            // colour.
            let bg = desc.background;
            let clear_color = vk::ClearValue { color: vk::ClearColorValue { float32: [bg[0], bg[1], bg[2], 1.0] } };
            let clear_ids = vk::ClearValue { color: vk::ClearColorValue { uint32: [0; 4] } };
            let store = vk::AttachmentStoreOp::STORE;
            let color = match msaa {
                None => Attachment::new(color_view, Some(clear_color), store),
                Some(_) => Attachment::none(),
            };
            begin_rendering(
                d,
                cmd,
                extent,
                &[color, Attachment::new(depths.ids.view, Some(clear_ids), store)],
                Some(Attachment::new(depths.scene.view, depth_clear(desc.depth.clear_depth()), store)),
            );
            set_full_viewport(d, cmd, extent);
            let scene = SceneInputs {
                view,
                projection,
                depth: desc.depth,
                batches: &batches,
                meshes: &parts.meshes,
                materials: &parts.materials,
                instance_buffer,
            };
            (stats.draw_calls, stats.instances) = match gpu_scene {
                Some(g) => (g.record(d, cmd, fi, &push, desc.depth, &parts.meshes, &parts.materials, false), 0),
                None => parts.scene.record(d, cmd, &scene, false),
            };
            let grid = GridInputs { view, projection, eye: desc.camera.eye, depth: desc.depth };
            if desc.grid && msaa.is_none() {
                stats.draw_calls += parts.grid.record(d, cmd, &grid);
            }
            d.cmd_end_rendering(cmd);

            // The multisampled passes draw into `ms_color`; the last of them
            // resolves it into the target's colour (`resolve_last`).
            let (ms_color, resolve_last) = match msaa {
                Some(ms) => (ms.color.view, Some(color_view)),
                None => (color_view, None),
            };
            let last = if !desc.overlay.is_empty() {
                LastPass::Overlay
            } else if outline {
                LastPass::Outline
            } else {
                LastPass::Scene
            };
            let target = |pass: LastPass, clear: Option<vk::ClearValue>| {
                let (store, resolve) = match resolve_last {
                    Some(v) if pass == last => (vk::AttachmentStoreOp::DONT_CARE, Some(v)),
                    _ => (vk::AttachmentStoreOp::STORE, None),
                };
                Attachment { view: ms_color, clear, store, resolve }
            };

            // MSAA: the colour pass, scene objects (colour alone) and grid
            // against their own multisampled depth.
            if let Some(ms) = msaa {
                let depth = depth_clear(desc.depth.clear_depth());
                begin_rendering(
                    d,
                    cmd,
                    extent,
                    &[target(LastPass::Scene, Some(clear_color))],
                    Some(Attachment::new(ms.depth.view, depth, vk::AttachmentStoreOp::DONT_CARE)),
                );
                set_full_viewport(d, cmd, extent);
                (stats.draw_calls, stats.instances) = match gpu_scene {
                    Some(g) => (g.record(d, cmd, fi, &push, desc.depth, &parts.meshes, &parts.materials, true), 0),
                    None => parts.scene.record(d, cmd, &scene, true),
                };
                if desc.grid {
                    stats.draw_calls += parts.grid.record(d, cmd, &grid);
                }
                d.cmd_end_rendering(cmd);
            }

            // Scene depth and ids become readable by the later passes, and
            // the colour loadable by the next scope.
            barrier::record(
                d,
                cmd,
                &[(Transition::SceneDepthToRead, depths.scene.raw), (Transition::IdsToRead, depths.ids.raw)],
                &[barrier::color_after_color()],
            );

            // Selection outline, from the ids, under the gizmo.
            if outline {
                begin_screen_pass(d, cmd, extent, target(LastPass::Outline, None));
                parts.outline.record(d, cmd, fi);
                d.cmd_end_rendering(cmd);
            }

            // Overlay pass: its own cleared depth; the scene depth is sampled.
            if !desc.overlay.is_empty() {
                if outline {
                    barrier::record(d, cmd, &[], &[barrier::color_after_color()]);
                }
                begin_rendering(
                    d,
                    cmd,
                    extent,
                    &[target(LastPass::Overlay, None)],
                    Some(Attachment::new(
                        depths.overlay.view,
                        depth_clear(desc.depth.clear_depth()),
                        vk::AttachmentStoreOp::DONT_CARE,
                    )),
                );
                let frame = OverlayFrame {
                    instances: &desc.overlay,
                    view,
                    projection,
                    depth: desc.depth,
                    extent,
                    frame_index: fi,
                    scene_depth: Some(depths.scene.view),
                };
                let drawn = overlay.record(cmd, &frame)?;
                stats.overlay_draw_calls = drawn.draw_calls;
                stats.overlay_instances = drawn.instances;
                d.cmd_end_rendering(cmd);
            }

            // Box-selection rectangle, over everything.
            if let Some(rect) = desc.selection_rect {
                if outline || !desc.overlay.is_empty() {
                    barrier::record(d, cmd, &[], &[barrier::color_after_color()]);
                }
                let color = Attachment::new(color_view, None, vk::AttachmentStoreOp::STORE);
                begin_screen_pass(d, cmd, extent, color);
                parts.rect.record(d, cmd, rect);
                d.cmd_end_rendering(cmd);
            }

            // The UI, over everything.
            if let Some(draw) = desc.ui.as_ref().filter(|u| !u.primitives.is_empty()) {
                if outline || !desc.overlay.is_empty() || desc.selection_rect.is_some() {
                    barrier::record(d, cmd, &[], &[barrier::color_after_color()]);
                }
                let color = Attachment::new(color_view, None, vk::AttachmentStoreOp::STORE);
                begin_screen_pass(d, cmd, extent, color);
                ui.record(cmd, extent, draw)?;
                d.cmd_end_rendering(cmd);
            }

            // Hand-over: present (window) or copy the colour (off-screen);
            // scene depth and ids stay as copy sources for `read_region`.
            match &parts.target {
                Target::Window(_) => {
                    readback::record_window_end(d, cmd, color_image, depths);
                    if *capture_next {
                        let bytes = extent.width as u64 * extent.height as u64 * 4;
                        let buffer = parts.capture.get().filter(|b| b.size >= bytes);
                        if let Some(buffer) = buffer {
                            readback::record_capture(d, cmd, color_image, buffer.raw, extent);
                        }
                    }
                }
                Target::Offscreen(o) => readback::record_offscreen(d, cmd, o, depths),
            }
            d.end_command_buffer(cmd).vk("vkEndCommandBuffer")?;
        }
        Ok(stats)
    }

    fn last_frame(&self) -> &Frame {
        &self.parts.frames[(self.frame_index + FRAMES_IN_FLIGHT - 1) % FRAMES_IN_FLIGHT]
    }

    fn offscreen(&self, what: &'static str) -> Result<&Offscreen, RenderError> {
        match &self.parts.target {
            Target::Offscreen(o) => Ok(o),
            Target::Window(_) => Err(RenderError::NeedsOffscreen(what)),
        }
    }

    /// Waits for the last off-screen frame and returns its colour.
    pub fn read_color(&self) -> Result<RgbaImage, RenderError> {
        let o = self.offscreen("colour read-back")?;
        self.last_frame().wait(&self.ctx)?;
        let e = o.extent();
        let n = (e.width * e.height * 4) as usize;
        let bytes = o.readback.mapped_ref().ok_or(RenderError::NotHostVisible("read-back"))?;
        Ok(RgbaImage { width: e.width, height: e.height, data: bytes[..n].to_vec() })
    }

    /// Waits for the last frame and returns its whole depth buffer, one f32
    /// per pixel, rows top to bottom (a full-size region read-back: for
    /// tests and screenshots, not for every frame).
    pub fn read_depth(&self) -> Result<Vec<f32>, RenderError> {
        let (w, h) = self.extent();
        Ok(self.region(0, 0, w, h)?.depth)
    }

    /// Waits for the last frame and returns its whole object-ID image, one
    /// id per pixel (0: background), rows top to bottom (for tests).
    pub fn read_ids(&mut self) -> Result<Vec<u32>, RenderError> {
        let (w, h) = self.extent();
        Ok(self.region(0, 0, w, h)?.ids)
    }

    /// The object ids and depth values of the last drawn frame in the
    /// rectangle `width` x `height` from (`x`, `y`), clamped to the image
    /// (possibly empty). Waits for that frame, then copies only the
    /// rectangle into a small host buffer and waits for the copy.
    /// [`RenderError::NothingDrawn`] before the first frame on this target.
    pub fn read_region(&mut self, x: u32, y: u32, width: u32, height: u32) -> Result<Region, RenderError> {
        self.region(x, y, width, height)
    }

    fn region(&self, x: u32, y: u32, width: u32, height: u32) -> Result<Region, RenderError> {
        if !self.readable {
            return Err(RenderError::NothingDrawn);
        }
        let depths = match &self.parts.target {
            Target::Offscreen(o) => o.depths.as_ref(),
            Target::Window(s) => s.per_image.depths.as_ref(),
        };
        let depths = depths.ok_or(RenderError::NothingDrawn)?;
        let (w, h) = self.extent();
        let (x, y) = (x.min(w), y.min(h));
        let (width, height) = (width.min(w - x), height.min(h - y));
        let mut region = Region { x, y, width, height, ids: Vec::new(), depth: Vec::new() };
        if width == 0 || height == 0 {
            return Ok(region);
        }
        self.last_frame().wait(&self.ctx)?;
        let mut probe: MutexGuard<'_, Probe> = self.parts.probe.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: `readable` says the last submitted frame left both images
        // as copy sources; the probe waits for its own submits.
        (region.ids, region.depth) = unsafe { probe.read(&self.ctx, depths, (x, y, width, height))? };
        Ok(region)
    }

    /// Draws `desc` and returns the frame as RGBA: the off-screen image, or
    /// for a window the swapchain image that was presented.
    pub fn capture(&mut self, desc: &FrameDesc) -> Result<RgbaImage, RenderError> {
        let Target::Window(swapchain) = &self.parts.target else {
            self.draw(desc)?;
            return self.read_color();
        };
        let (extent, format) = (swapchain.extent, swapchain.format.format);
        let bytes = extent.width as u64 * extent.height as u64 * 4;
        if self.parts.capture.must_grow(bytes) {
            self.ctx.wait_idle()?;
        }
        // SAFETY: the device is idle if the buffer is replaced.
        unsafe { self.parts.capture.reserve(&self.ctx.gpu, bytes)? };
        self.capture_next = true;
        let drawn = self.draw(desc);
        self.capture_next = false;
        if !drawn?.presented {
            return Err(RenderError::NothingPresented);
        }
        // The swapchain may have been recreated at present; the copy used the old extent.
        self.last_frame().wait(&self.ctx)?;
        let data = self.parts.capture.host_bytes(bytes as usize)?.to_vec();
        Ok(RgbaImage { width: extent.width, height: extent.height, data: readback::to_rgba(data, format) })
    }

    /// The depth-buffer value at screen point (`x`, `y`) in the last drawn
    /// frame (a 1x1 [`Renderer::read_region`]; waits for the frame).
    /// `Ok(None)` before the first frame or outside the target; an error
    /// when the read-back fails (e.g. the device was lost).
    pub fn depth_at(&self, x: f64, y: f64) -> Result<Option<f64>, RenderError> {
        if self.frames_drawn == 0 || !self.readable || !(x >= 0.0 && y >= 0.0) {
            return Ok(None);
        }
        let (w, h) = self.extent();
        let (xi, yi) = (x as u32, y as u32);
        if xi >= w || yi >= h {
            return Ok(None);
        }
        let region = self.region(xi, yi, 1, 1)?;
        Ok(region.depth.first().map(|&d| f64::from(d)))
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
