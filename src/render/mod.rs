//! Everything Vulkan. The renderer draws what a [`FrameDesc`] says and decides
//! nothing about interaction; nothing outside this module names an ash type.
//!
//! # Frames and synchronisation
//! Two frames are in flight. Each [`Frame`] owns a command pool and buffer, a
//! fence (signalled when the GPU finished the frame), a semaphore for the
//! swapchain acquire, and its own host-visible instance buffer, so the CPU
//! writes frame N+1's instances while the GPU reads frame N's. The depth
//! image is shared by both frames: each frame's first barrier waits for the
//! previous frame's depth writes (same queue, so the barrier orders them).
//! Swapchain images get one "ready to present" semaphore each, signalled by
//! the submit and waited on by the present.
//!
//! Per frame: wait fence -> acquire (window) -> record -> submit -> present
//! (window). Off-screen frames end with a copy of colour and depth into
//! host-visible buffers; [`Renderer::read_color`] waits for the fence and
//! reads them.

mod context;
mod error;
mod overlay;
mod pipeline;
mod resources;
mod target;

use std::time::{Duration, Instant};

use ash::vk;
use gpu_allocator::MemoryLocation;
use nalgebra::{Matrix3, Matrix4, Vector4};

pub use context::{Context, ContextDesc, DeviceInfo, ValidationReport, WindowHandles};
pub use error::RenderError;

use error::VkContext;
use pipeline::{bytes_of, slice_bytes, GridPush, Pipeline, SceneInstance, ScenePush, Vertex};
use resources::{subresource, upload_buffer, Buffer};
use target::{Offscreen, Swapchain};

use crate::gizmo::OverlayInstance;
use crate::math::{Camera, DepthMode};
use crate::scene::MeshData;
use overlay::{OverlayDescriptors, OverlayGpuInstance, OverlayPush};

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

struct GpuMesh {
    vertices: Buffer,
    indices: Buffer,
    index_count: u32,
}

impl GpuMesh {
    /// Uploads a mesh through a staging buffer into device-local memory.
    fn upload(ctx: &Context, mesh: &MeshData) -> Result<GpuMesh, RenderError> {
        if mesh.indices.is_empty() || mesh.positions.is_empty() {
            return Err(RenderError::Other("cannot upload an empty mesh".into()));
        }
        let vertices: Vec<Vertex> =
            mesh.positions.iter().zip(&mesh.normals).map(|(&position, &normal)| Vertex { position, normal }).collect();
        let mut vb = upload_buffer(ctx, slice_bytes(&vertices), vk::BufferUsageFlags::VERTEX_BUFFER, "mesh vertices")?;
        match upload_buffer(ctx, slice_bytes(&mesh.indices), vk::BufferUsageFlags::INDEX_BUFFER, "mesh indices") {
            Ok(ib) => Ok(GpuMesh { vertices: vb, indices: ib, index_count: mesh.indices.len() as u32 }),
            Err(e) => {
                vb.destroy(ctx);
                Err(e)
            }
        }
    }

    fn destroy(&mut self, ctx: &Context) {
        self.vertices.destroy(ctx);
        self.indices.destroy(ctx);
    }
}

struct Frame {
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    done: vk::Fence,
    acquired: vk::Semaphore,
    instances: Option<Buffer>,
}

impl Frame {
    fn new(ctx: &Context) -> Result<Frame, RenderError> {
        // SAFETY: plain object creation; destroyed in `destroy`.
        unsafe {
            let pool = ctx
                .device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default()
                        .queue_family_index(ctx.queue_family)
                        .flags(vk::CommandPoolCreateFlags::TRANSIENT),
                    None,
                )
                .vk("vkCreateCommandPool")?;
            let mut frame = Frame {
                pool,
                cmd: vk::CommandBuffer::null(),
                done: vk::Fence::null(),
                acquired: vk::Semaphore::null(),
                instances: None,
            };
            let made = (|| {
                frame.cmd = ctx
                    .device
                    .allocate_command_buffers(
                        &vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1),
                    )
                    .vk("vkAllocateCommandBuffers")?[0];
                frame.done = ctx
                    .device
                    .create_fence(&vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED), None)
                    .vk("vkCreateFence")?;
                frame.acquired =
                    ctx.device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None).vk("vkCreateSemaphore")?;
                Ok(())
            })();
            match made {
                Ok(()) => Ok(frame),
                Err(e) => {
                    frame.destroy(ctx);
                    Err(e)
                }
            }
        }
    }

    /// Makes sure the instance buffer holds at least `bytes`.
    fn reserve_instances(&mut self, ctx: &Context, bytes: u64) -> Result<&mut Buffer, RenderError> {
        if self.instances.as_ref().is_none_or(|b| b.size < bytes) {
            if let Some(mut old) = self.instances.take() {
                old.destroy(ctx);
            }
            let size = bytes.next_power_of_two().max(64 * 1024);
            self.instances = Some(Buffer::new(
                ctx,
                size,
                vk::BufferUsageFlags::VERTEX_BUFFER,
                MemoryLocation::CpuToGpu,
                "instances",
            )?);
        }
        Ok(self.instances.as_mut().expect("reserved above"))
    }

    fn wait(&self, ctx: &Context) -> Result<(), RenderError> {
        // SAFETY: live fence.
        unsafe { ctx.device.wait_for_fences(&[self.done], true, u64::MAX) }.vk("vkWaitForFences")
    }

    fn destroy(&mut self, ctx: &Context) {
        // SAFETY: the renderer waited for the device before tearing down.
        unsafe {
            if self.acquired != vk::Semaphore::null() {
                ctx.device.destroy_semaphore(self.acquired, None);
            }
            if self.done != vk::Fence::null() {
                ctx.device.destroy_fence(self.done, None);
            }
            ctx.device.destroy_command_pool(self.pool, None);
        }
        if let Some(mut b) = self.instances.take() {
            b.destroy(ctx);
        }
    }
}

enum Target {
    Offscreen(Offscreen),
    Window { swapchain: Swapchain, surface_format: vk::SurfaceFormatKHR },
}

/// The renderer: owns the Vulkan context, the target, pipelines, meshes and
/// per-frame resources, and destroys them in reverse order on drop.
pub struct Renderer {
    frames: Vec<Frame>,
    frame_index: usize,
    scene_pipeline: Pipeline,
    grid_pipeline: Pipeline,
    overlay_pipeline: Pipeline,
    overlay_descriptors: Option<OverlayDescriptors>,
    /// Canonical gizmo meshes, in `overlay::KINDS` order.
    overlay_meshes: Vec<GpuMesh>,
    meshes: Vec<GpuMesh>,
    target: Target,
    /// Requested window size (physical pixels), used when the surface leaves it to us.
    window_extent: vk::Extent2D,
    /// When set, the next window frame is also copied here (screenshots).
    capture: Option<Buffer>,
    capture_next: bool,
    /// The window's scene depth, copied every frame (for `depth_at`).
    window_depth: Option<(Buffer, vk::Extent2D)>,
    /// Frames submitted so far.
    frames_drawn: u64,
    ctx: Context,
}

fn to_f32_cols(m: &Matrix4<f64>) -> [[f32; 4]; 4] {
    std::array::from_fn(|c| std::array::from_fn(|r| m[(r, c)] as f32))
}

impl Renderer {
    /// A renderer drawing into an off-screen image of `width` x `height`.
    pub fn headless(desc: &ContextDesc, width: u32, height: u32) -> Result<Renderer, RenderError> {
        let ctx = Context::new(desc, None)?;
        let extent = vk::Extent2D { width, height };
        let target = Target::Offscreen(Offscreen::new(&ctx, extent)?);
        Renderer::with_target(ctx, target, target::OFFSCREEN_FORMAT, extent)
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
        Renderer::with_target(ctx, Target::Window { swapchain, surface_format }, surface_format.format, extent)
    }

    fn with_target(
        ctx: Context,
        target: Target,
        color_format: vk::Format,
        window_extent: vk::Extent2D,
    ) -> Result<Renderer, RenderError> {
        // Build into a renderer with null pipelines first so that Drop cleans
        // up whatever was created if a later step fails.
        let null = || Pipeline { raw: vk::Pipeline::null(), layout: vk::PipelineLayout::null() };
        let mut r = Renderer {
            frames: Vec::new(),
            frame_index: 0,
            scene_pipeline: null(),
            grid_pipeline: null(),
            overlay_pipeline: null(),
            overlay_descriptors: None,
            overlay_meshes: Vec::new(),
            meshes: Vec::new(),
            target,
            window_extent,
            capture: None,
            capture_next: false,
            window_depth: None,
            frames_drawn: 0,
            ctx,
        };
        r.scene_pipeline = pipeline::scene_pipeline(&r.ctx, color_format)?;
        r.grid_pipeline = pipeline::grid_pipeline(&r.ctx, color_format)?;
        let descriptors = OverlayDescriptors::new(&r.ctx, FRAMES_IN_FLIGHT)?;
        let set_layout = descriptors.layout;
        r.overlay_descriptors = Some(descriptors);
        r.overlay_pipeline = overlay::overlay_pipeline(&r.ctx, color_format, set_layout)?;
        for kind in overlay::KINDS {
            let mesh = GpuMesh::upload(&r.ctx, &crate::gizmo::mesh(kind))?;
            r.overlay_meshes.push(mesh);
        }
        for _ in 0..FRAMES_IN_FLIGHT {
            let f = Frame::new(&r.ctx)?;
            r.frames.push(f);
        }
        Ok(r)
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
        let e = match &self.target {
            Target::Offscreen(o) => o.extent(),
            Target::Window { swapchain, .. } => swapchain.extent,
        };
        (e.width, e.height)
    }

    /// Uploads a mesh (through a staging buffer into device-local memory).
    pub fn add_mesh(&mut self, mesh: &MeshData) -> Result<MeshId, RenderError> {
        self.meshes.push(GpuMesh::upload(&self.ctx, mesh)?);
        Ok(MeshId(self.meshes.len() as u32 - 1))
    }

    /// Resizes the target. For a window this only marks the swapchain for
    /// recreation at the next frame; zero means minimised.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<(), RenderError> {
        self.window_extent = vk::Extent2D { width, height };
        match &mut self.target {
            Target::Window { swapchain, .. } => swapchain.dirty = true,
            Target::Offscreen(o) => {
                if width == 0 || height == 0 {
                    return Err(RenderError::Other(format!("off-screen size must be non-zero, got {width}x{height}")));
                }
                self.ctx.wait_idle();
                let fresh = Offscreen::new(&self.ctx, vk::Extent2D { width, height })?;
                o.destroy(&self.ctx);
                *o = fresh;
            }
        }
        Ok(())
    }

    /// Draws one frame. For a window it also presents; for an off-screen
    /// target the result can be read with [`Renderer::read_color`].
    pub fn draw(&mut self, desc: &FrameDesc) -> Result<FrameStats, RenderError> {
        let fi = self.frame_index;
        self.frames[fi].wait(&self.ctx)?;

        // Acquire (window) and find the colour image to draw into.
        let mut image_index = 0u32;
        if let Target::Window { swapchain, surface_format } = &mut self.target {
            if self.window_extent.width == 0 || self.window_extent.height == 0 {
                // Minimised: nothing to draw until the window has a size again.
                return Ok(FrameStats::default());
            }
            if swapchain.dirty {
                swapchain.recreate(&self.ctx, *surface_format, self.window_extent)?;
            }
            if swapchain.is_empty() {
                return Ok(FrameStats::default());
            }
            // SAFETY: live swapchain; the frame's semaphore is unsignalled
            // because its previous use was waited for by the frame's fence.
            match unsafe {
                swapchain.loader.acquire_next_image(
                    swapchain.raw,
                    u64::MAX,
                    self.frames[fi].acquired,
                    vk::Fence::null(),
                )
            } {
                Ok((i, suboptimal)) => {
                    image_index = i;
                    if suboptimal {
                        swapchain.dirty = true;
                    }
                }
                Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                    swapchain.recreate(&self.ctx, *surface_format, self.window_extent)?;
                    return Ok(FrameStats::default());
                }
                Err(e) => return Err(RenderError::Vk { call: "vkAcquireNextImageKHR", result: e }),
            }
        }

        if let Target::Window { swapchain, .. } = &self.target {
            let extent = swapchain.extent;
            if self.window_depth.as_ref().is_none_or(|(_, e)| *e != extent) {
                if let Some((mut old, _)) = self.window_depth.take() {
                    self.ctx.wait_idle();
                    old.destroy(&self.ctx);
                }
                let bytes = extent.width as u64 * extent.height as u64 * 4;
                let b = Buffer::new(
                    &self.ctx,
                    bytes,
                    vk::BufferUsageFlags::TRANSFER_DST,
                    MemoryLocation::GpuToCpu,
                    "window depth",
                )?;
                self.window_depth = Some((b, extent));
            }
        }
        let started = Instant::now();
        let mut stats = self.record(fi, image_index as usize, desc)?;
        stats.record_time = started.elapsed();

        let frame = &self.frames[fi];
        let cmd = [vk::CommandBufferSubmitInfo::default().command_buffer(frame.cmd)];
        let wait = [vk::SemaphoreSubmitInfo::default()
            .semaphore(frame.acquired)
            .stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)];
        let signal_sem = match &self.target {
            Target::Window { swapchain, .. } => Some(swapchain.present_ready[image_index as usize]),
            Target::Offscreen(_) => None,
        };
        let signal = signal_sem.map(|s| {
            [vk::SemaphoreSubmitInfo::default().semaphore(s).stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)]
        });
        let mut submit = vk::SubmitInfo2::default().command_buffer_infos(&cmd);
        if let Some(signal) = signal.as_ref() {
            submit = submit.wait_semaphore_infos(&wait).signal_semaphore_infos(signal);
        }
        // SAFETY: the fence was waited on above and is reset only now that a
        // submit that signals it is certain to follow.
        unsafe {
            self.ctx.device.reset_fences(&[frame.done]).vk("vkResetFences")?;
            self.ctx.device.queue_submit2(self.ctx.queue, &[submit], frame.done).vk("vkQueueSubmit2")?;
        }

        if let (Target::Window { swapchain, surface_format }, Some(sem)) = (&mut self.target, signal_sem) {
            let waits = [sem];
            let chains = [swapchain.raw];
            let indices = [image_index];
            let present =
                vk::PresentInfoKHR::default().wait_semaphores(&waits).swapchains(&chains).image_indices(&indices);
            // SAFETY: the image was acquired this frame and rendered by the submit above.
            match unsafe { swapchain.loader.queue_present(self.ctx.queue, &present) } {
                Ok(false) => {}
                Ok(true) | Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                    swapchain.recreate(&self.ctx, *surface_format, self.window_extent)?;
                }
                Err(e) => return Err(RenderError::Vk { call: "vkQueuePresentKHR", result: e }),
            }
        }
        stats.presented = true;
        self.frames_drawn += 1;
        self.frame_index = (fi + 1) % FRAMES_IN_FLIGHT;
        Ok(stats)
    }

    fn record(&mut self, fi: usize, image_index: usize, desc: &FrameDesc) -> Result<FrameStats, RenderError> {
        let (color_image, color_view, depth, overlay_depth, extent) = match &self.target {
            Target::Offscreen(o) => (o.color.raw, o.color.view, &o.depth, &o.overlay_depth, o.extent()),
            Target::Window { swapchain, .. } => {
                let missing = || RenderError::Other("swapchain without depth".into());
                (
                    swapchain.images[image_index],
                    swapchain.views[image_index],
                    swapchain.depth.as_ref().ok_or_else(missing)?,
                    swapchain.overlay_depth.as_ref().ok_or_else(missing)?,
                    swapchain.extent,
                )
            }
        };
        let (depth_image, depth_view) = (depth.raw, depth.view);
        let (overlay_depth_image, overlay_depth_view) = (overlay_depth.raw, overlay_depth.view);
        let aspect = extent.width as f64 / extent.height.max(1) as f64;
        let view = desc.camera.view_matrix();
        let projection = desc.camera.projection_matrix(aspect, desc.depth);

        // Instances grouped by mesh: one instanced draw per mesh.
        let mut order: Vec<usize> =
            (0..desc.objects.len()).filter(|&i| (desc.objects[i].mesh.0 as usize) < self.meshes.len()).collect();
        order.sort_by_key(|&i| desc.objects[i].mesh);
        let instances: Vec<SceneInstance> = order
            .iter()
            .map(|&i| {
                let o = &desc.objects[i];
                let model_view = view * o.world;
                let linear: Matrix3<f64> = model_view.fixed_view::<3, 3>(0, 0).into_owned();
                let normal = linear.try_inverse().map(|m| m.transpose()).unwrap_or_else(Matrix3::identity);
                SceneInstance {
                    model_view: to_f32_cols(&model_view),
                    normal: std::array::from_fn(|c| {
                        [normal[(0, c)] as f32, normal[(1, c)] as f32, normal[(2, c)] as f32, 0.0]
                    }),
                    color: [o.color[0], o.color[1], o.color[2], o.tint],
                }
            })
            .collect();
        // Overlay instances grouped by kind, in drawing order.
        let mut overlay_order: Vec<&OverlayInstance> = desc.overlay.iter().collect();
        overlay_order.sort_by_key(|o| overlay::KINDS.iter().position(|k| *k == o.mesh));
        let overlay_instances: Vec<OverlayGpuInstance> = overlay_order
            .iter()
            .map(|o| OverlayGpuInstance { model_view: to_f32_cols(&(view * o.model)), color: o.color })
            .collect();

        // Both kinds of instances share the frame's buffer: scene first, then
        // the overlay at a 256-byte aligned offset.
        let instance_bytes = slice_bytes(&instances);
        let overlay_bytes = slice_bytes(&overlay_instances);
        let overlay_offset = (instance_bytes.len() as u64).next_multiple_of(256);
        let frame = &mut self.frames[fi];
        let instance_buffer = {
            let b = frame.reserve_instances(&self.ctx, overlay_offset + overlay_bytes.len() as u64)?;
            let dst = b.mapped().ok_or_else(|| RenderError::Other("instance buffer is not host-visible".into()))?;
            dst[..instance_bytes.len()].copy_from_slice(instance_bytes);
            dst[overlay_offset as usize..overlay_offset as usize + overlay_bytes.len()].copy_from_slice(overlay_bytes);
            b.raw
        };

        let d = &self.ctx.device;
        let cmd = frame.cmd;
        let mut stats = FrameStats::default();
        // SAFETY: the frame's fence was waited for, so its pool is idle; every
        // handle used below is alive for the whole frame.
        unsafe {
            d.reset_command_pool(frame.pool, vk::CommandPoolResetFlags::empty()).vk("vkResetCommandPool")?;
            d.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .vk("vkBeginCommandBuffer")?;

            let to_attachment = [
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT | vk::PipelineStageFlags2::COPY)
                    .src_access_mask(vk::AccessFlags2::NONE)
                    .dst_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
                    .dst_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE | vk::AccessFlags2::COLOR_ATTACHMENT_READ)
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .image(color_image)
                    .subresource_range(subresource(vk::ImageAspectFlags::COLOR)),
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(
                        vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                            | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS
                            | vk::PipelineStageFlags2::FRAGMENT_SHADER
                            | vk::PipelineStageFlags2::COPY,
                    )
                    .src_access_mask(vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE)
                    .dst_stage_mask(
                        vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                    )
                    .dst_access_mask(
                        vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ
                            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
                    )
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                    .image(depth_image)
                    .subresource_range(subresource(vk::ImageAspectFlags::DEPTH)),
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(
                        vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                    )
                    .src_access_mask(vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE)
                    .dst_stage_mask(
                        vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                    )
                    .dst_access_mask(
                        vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ
                            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
                    )
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                    .image(overlay_depth_image)
                    .subresource_range(subresource(vk::ImageAspectFlags::DEPTH)),
            ];
            d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&to_attachment));

            let bg = desc.background;
            let color_attachment = [vk::RenderingAttachmentInfo::default()
                .image_view(color_view)
                .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue { color: vk::ClearColorValue { float32: [bg[0], bg[1], bg[2], 1.0] } })];
            let depth_attachment = vk::RenderingAttachmentInfo::default()
                .image_view(depth_view)
                .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue { depth: desc.depth.clear_depth(), stencil: 0 },
                });
            let area = vk::Rect2D { offset: vk::Offset2D::default(), extent };
            d.cmd_begin_rendering(
                cmd,
                &vk::RenderingInfo::default()
                    .render_area(area)
                    .layer_count(1)
                    .color_attachments(&color_attachment)
                    .depth_attachment(&depth_attachment),
            );
            d.cmd_set_viewport(
                cmd,
                0,
                &[vk::Viewport {
                    x: 0.0,
                    y: 0.0,
                    width: extent.width as f32,
                    height: extent.height as f32,
                    min_depth: 0.0,
                    max_depth: 1.0,
                }],
            );
            d.cmd_set_scissor(cmd, 0, &[area]);
            let compare = match desc.depth {
                DepthMode::Reversed => vk::CompareOp::GREATER_OR_EQUAL,
                DepthMode::Standard => vk::CompareOp::LESS_OR_EQUAL,
            };

            // Scene objects.
            if !instances.is_empty() {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.scene_pipeline.raw);
                d.cmd_set_depth_compare_op(cmd, compare);
                let light_world = Vector4::new(0.35, 0.8, 0.5, 0.0);
                let light_view = (view * light_world).xyz().normalize();
                let push = ScenePush {
                    projection: to_f32_cols(&projection),
                    light_dir_view: [light_view.x as f32, light_view.y as f32, light_view.z as f32, 0.0],
                };
                d.cmd_push_constants(
                    cmd,
                    self.scene_pipeline.layout,
                    vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                    0,
                    bytes_of(&push),
                );
                let mut start = 0usize;
                while start < order.len() {
                    let mesh_id = desc.objects[order[start]].mesh;
                    let end = start + order[start..].iter().take_while(|&&i| desc.objects[i].mesh == mesh_id).count();
                    let mesh = &self.meshes[mesh_id.0 as usize];
                    d.cmd_bind_vertex_buffers(cmd, 0, &[mesh.vertices.raw, instance_buffer], &[0, 0]);
                    d.cmd_bind_index_buffer(cmd, mesh.indices.raw, 0, vk::IndexType::UINT32);
                    d.cmd_draw_indexed(cmd, mesh.index_count, (end - start) as u32, 0, 0, start as u32);
                    stats.draw_calls += 1;
                    stats.instances += (end - start) as u32;
                    start = end;
                }
            }

            // Ground grid, blended over the scene.
            if desc.grid {
                let eye = desc.camera.eye.coords;
                let mut rotation_only = view;
                rotation_only[(0, 3)] = 0.0;
                rotation_only[(1, 3)] = 0.0;
                rotation_only[(2, 3)] = 0.0;
                let height = eye.y.abs();
                let fade_end = (30.0 + 12.0 * height).min(900.0);
                let push = GridPush {
                    view_projection_rotation: to_f32_cols(&(projection * rotation_only)),
                    eye: [eye.x as f32, eye.y as f32, eye.z as f32, fade_end as f32],
                    params: [grid_cell(height) as f32, (fade_end * 0.3) as f32, fade_end as f32, 0.0],
                };
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.grid_pipeline.raw);
                d.cmd_set_depth_compare_op(cmd, compare);
                d.cmd_push_constants(
                    cmd,
                    self.grid_pipeline.layout,
                    vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                    0,
                    bytes_of(&push),
                );
                d.cmd_draw(cmd, 4, 1, 0, 0);
                stats.draw_calls += 1;
            }
            d.cmd_end_rendering(cmd);

            // Overlay pass: its own cleared depth; the scene depth is sampled.
            let scene_depth_to_read = [vk::ImageMemoryBarrier2::default()
                .src_stage_mask(
                    vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                )
                .src_access_mask(vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::FRAGMENT_SHADER | vk::PipelineStageFlags2::COPY)
                .dst_access_mask(vk::AccessFlags2::SHADER_SAMPLED_READ | vk::AccessFlags2::TRANSFER_READ)
                .old_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                .new_layout(vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL)
                .image(depth_image)
                .subresource_range(subresource(vk::ImageAspectFlags::DEPTH))];
            d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&scene_depth_to_read));
            if !overlay_instances.is_empty() {
                let descriptors = self.overlay_descriptors.as_ref().expect("created with the renderer");
                descriptors.bind_scene_depth(&self.ctx, fi, depth_view);
                let overlay_color = [vk::RenderingAttachmentInfo::default()
                    .image_view(color_view)
                    .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .load_op(vk::AttachmentLoadOp::LOAD)
                    .store_op(vk::AttachmentStoreOp::STORE)];
                let overlay_depth_attachment = vk::RenderingAttachmentInfo::default()
                    .image_view(overlay_depth_view)
                    .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                    .load_op(vk::AttachmentLoadOp::CLEAR)
                    .store_op(vk::AttachmentStoreOp::DONT_CARE)
                    .clear_value(vk::ClearValue {
                        depth_stencil: vk::ClearDepthStencilValue { depth: desc.depth.clear_depth(), stencil: 0 },
                    });
                d.cmd_begin_rendering(
                    cmd,
                    &vk::RenderingInfo::default()
                        .render_area(area)
                        .layer_count(1)
                        .color_attachments(&overlay_color)
                        .depth_attachment(&overlay_depth_attachment),
                );
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.overlay_pipeline.raw);
                d.cmd_set_depth_compare_op(cmd, compare);
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.overlay_pipeline.layout,
                    0,
                    &[descriptors.sets[fi]],
                    &[],
                );
                let push = OverlayPush {
                    projection: to_f32_cols(&projection),
                    params: [
                        if desc.depth == DepthMode::Reversed { 1.0 } else { 0.0 },
                        overlay::HIDDEN_ALPHA,
                        0.0,
                        0.0,
                    ],
                };
                d.cmd_push_constants(
                    cmd,
                    self.overlay_pipeline.layout,
                    vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                    0,
                    bytes_of(&push),
                );
                let mut start = 0usize;
                for (k, kind) in overlay::KINDS.iter().enumerate() {
                    let count = overlay_order[start..].iter().take_while(|o| o.mesh == *kind).count();
                    if count == 0 {
                        continue;
                    }
                    let mesh = &self.overlay_meshes[k];
                    d.cmd_bind_vertex_buffers(cmd, 0, &[mesh.vertices.raw, instance_buffer], &[0, overlay_offset]);
                    d.cmd_bind_index_buffer(cmd, mesh.indices.raw, 0, vk::IndexType::UINT32);
                    d.cmd_draw_indexed(cmd, mesh.index_count, count as u32, 0, 0, start as u32);
                    stats.overlay_draw_calls += 1;
                    stats.overlay_instances += count as u32;
                    start += count;
                }
                d.cmd_end_rendering(cmd);
            }

            match &self.target {
                Target::Window { .. } => {
                    let to_present = [vk::ImageMemoryBarrier2::default()
                        .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
                        .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
                        .dst_stage_mask(vk::PipelineStageFlags2::NONE)
                        .dst_access_mask(vk::AccessFlags2::NONE)
                        .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                        .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
                        .image(color_image)
                        .subresource_range(subresource(vk::ImageAspectFlags::COLOR))];
                    d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&to_present));
                    if let (true, Some(buffer)) = (self.capture_next, &self.capture) {
                        record_capture(d, cmd, color_image, buffer.raw, extent);
                    }
                    if let Some((buffer, _)) = &self.window_depth {
                        record_depth_copy(d, cmd, depth_image, buffer.raw, extent);
                    }
                }
                Target::Offscreen(o) => record_readback(d, cmd, o),
            }
            d.end_command_buffer(cmd).vk("vkEndCommandBuffer")?;
        }
        Ok(stats)
    }

    fn last_frame(&self) -> &Frame {
        &self.frames[(self.frame_index + FRAMES_IN_FLIGHT - 1) % FRAMES_IN_FLIGHT]
    }

    /// Waits for the last off-screen frame and returns its colour.
    pub fn read_color(&self) -> Result<RgbaImage, RenderError> {
        let Target::Offscreen(o) = &self.target else {
            return Err(RenderError::Other("colour read-back needs the off-screen target".into()));
        };
        self.last_frame().wait(&self.ctx)?;
        let e = o.extent();
        let n = (e.width * e.height * 4) as usize;
        let bytes =
            o.readback.mapped_ref().ok_or_else(|| RenderError::Other("read-back buffer is not mapped".into()))?;
        Ok(RgbaImage { width: e.width, height: e.height, data: bytes[..n].to_vec() })
    }

    /// Waits for the last off-screen frame and returns its depth buffer, one
    /// f32 per pixel, rows top to bottom.
    pub fn read_depth(&self) -> Result<Vec<f32>, RenderError> {
        let Target::Offscreen(o) = &self.target else {
            return Err(RenderError::Other("depth read-back needs the off-screen target".into()));
        };
        self.last_frame().wait(&self.ctx)?;
        let e = o.extent();
        let n = (e.width * e.height) as usize;
        let bytes =
            o.depth_readback.mapped_ref().ok_or_else(|| RenderError::Other("read-back buffer is not mapped".into()))?;
        Ok(bytes[..n * 4].chunks_exact(4).map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect())
    }

    /// Draws `desc` and returns the frame as RGBA: the off-screen image, or
    /// for a window the swapchain image that was presented.
    pub fn capture(&mut self, desc: &FrameDesc) -> Result<RgbaImage, RenderError> {
        let Target::Window { swapchain, .. } = &self.target else {
            self.draw(desc)?;
            return self.read_color();
        };
        let (extent, format) = (swapchain.extent, swapchain.format);
        let bytes = extent.width as u64 * extent.height as u64 * 4;
        if self.capture.as_ref().is_none_or(|b| b.size < bytes) {
            if let Some(mut old) = self.capture.take() {
                self.ctx.wait_idle();
                old.destroy(&self.ctx);
            }
            let b =
                Buffer::new(&self.ctx, bytes, vk::BufferUsageFlags::TRANSFER_DST, MemoryLocation::GpuToCpu, "capture")?;
            self.capture = Some(b);
        }
        self.capture_next = true;
        let drawn = self.draw(desc);
        self.capture_next = false;
        if !drawn?.presented {
            return Err(RenderError::Other("nothing on screen to capture (is the window minimised?)".into()));
        }
        // The swapchain may have been recreated at present; the copy used the old extent.
        self.last_frame().wait(&self.ctx)?;
        let buffer = self.capture.as_ref().expect("created above");
        let src = buffer.mapped_ref().ok_or_else(|| RenderError::Other("capture buffer is not mapped".into()))?;
        let mut data = src[..bytes as usize].to_vec();
        if matches!(format, vk::Format::B8G8R8A8_SRGB | vk::Format::B8G8R8A8_UNORM) {
            for px in data.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        for px in data.chunks_exact_mut(4) {
            px[3] = 255;
        }
        Ok(RgbaImage { width: extent.width, height: extent.height, data })
    }

    /// The depth-buffer value at screen point (`x`, `y`) in the last drawn
    /// frame (waits for it). `None` before the first frame or off-screen.
    pub fn depth_at(&self, x: f64, y: f64) -> Option<f64> {
        if self.frames_drawn == 0 || !(x >= 0.0 && y >= 0.0) {
            return None;
        }
        let (buffer, extent) = match &self.target {
            Target::Offscreen(o) => (&o.depth_readback, o.extent()),
            Target::Window { .. } => self.window_depth.as_ref().map(|(b, e)| (b, *e))?,
        };
        let (xi, yi) = (x as u32, y as u32);
        if xi >= extent.width || yi >= extent.height {
            return None;
        }
        self.last_frame().wait(&self.ctx).ok()?;
        let i = ((yi * extent.width + xi) * 4) as usize;
        let b = buffer.mapped_ref()?.get(i..i + 4)?;
        Some(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as f64)
    }

    /// Waits until the GPU is idle (e.g. before timing or tearing down).
    pub fn wait_idle(&self) {
        self.ctx.wait_idle();
    }
}

/// Grid cell size: 1 m near the ground, growing by 10x as the camera rises.
fn grid_cell(height: f64) -> f64 {
    let mut cell = 1.0;
    while height > 40.0 * cell && cell < 1e4 {
        cell *= 10.0;
    }
    cell
}

/// A whole-image copy region of one aspect.
fn full_copy(aspect: vk::ImageAspectFlags, e: vk::Extent2D) -> vk::BufferImageCopy {
    vk::BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: aspect,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        },
        image_offset: vk::Offset3D::default(),
        image_extent: vk::Extent3D { width: e.width, height: e.height, depth: 1 },
    }
}

/// Makes copies into host-visible buffers visible to the host.
fn copies_to_host() -> vk::MemoryBarrier2<'static> {
    vk::MemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::COPY)
        .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::HOST)
        .dst_access_mask(vk::AccessFlags2::HOST_READ)
}

/// Copies the scene depth (read-only after the overlay pass) into `buffer`
/// for the host.
///
/// # Safety
/// `cmd` is recording outside a rendering scope; `buffer` holds the image.
unsafe fn record_depth_copy(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    depth: vk::Image,
    buffer: vk::Buffer,
    e: vk::Extent2D,
) {
    let to_src = [vk::ImageMemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::FRAGMENT_SHADER)
        .src_access_mask(vk::AccessFlags2::NONE)
        .dst_stage_mask(vk::PipelineStageFlags2::COPY)
        .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
        .old_layout(vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL)
        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
        .image(depth)
        .subresource_range(subresource(vk::ImageAspectFlags::DEPTH))];
    // The previous frame's copy into the same buffer must finish first.
    let buffer_waw = [vk::MemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::COPY)
        .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::COPY)
        .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)];
    d.cmd_pipeline_barrier2(
        cmd,
        &vk::DependencyInfo::default().image_memory_barriers(&to_src).memory_barriers(&buffer_waw),
    );
    let region = full_copy(vk::ImageAspectFlags::DEPTH, e);
    d.cmd_copy_image_to_buffer(cmd, depth, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, buffer, &[region]);
    let to_host = [copies_to_host()];
    d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&to_host));
}

/// Copies a swapchain image (in colour-attachment layout) into `buffer` and
/// leaves it ready to be presented.
///
/// # Safety
/// `cmd` is recording outside a rendering scope; `buffer` holds the image.
unsafe fn record_capture(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    buffer: vk::Buffer,
    e: vk::Extent2D,
) {
    let to_src = [vk::ImageMemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
        .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::COPY)
        .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
        .old_layout(vk::ImageLayout::PRESENT_SRC_KHR)
        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
        .image(image)
        .subresource_range(subresource(vk::ImageAspectFlags::COLOR))];
    d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&to_src));
    let region = full_copy(vk::ImageAspectFlags::COLOR, e);
    d.cmd_copy_image_to_buffer(cmd, image, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, buffer, &[region]);
    let back = [vk::ImageMemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::COPY)
        .src_access_mask(vk::AccessFlags2::NONE)
        .dst_stage_mask(vk::PipelineStageFlags2::NONE)
        .dst_access_mask(vk::AccessFlags2::NONE)
        .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
        .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
        .image(image)
        .subresource_range(subresource(vk::ImageAspectFlags::COLOR))];
    let to_host = [copies_to_host()];
    d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&back).memory_barriers(&to_host));
}

/// Copies colour and depth into the host-visible buffers and makes them
/// visible to the host.
///
/// # Safety
/// `cmd` is recording, outside a rendering scope, and the images are in the
/// attachment layouts.
unsafe fn record_readback(d: &ash::Device, cmd: vk::CommandBuffer, o: &Offscreen) {
    let e = o.extent();
    let to_src = [
        vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
            .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .image(o.color.raw)
            .subresource_range(subresource(vk::ImageAspectFlags::COLOR)),
        vk::ImageMemoryBarrier2::default()
            // Already made readable after the scene pass; only the layout changes.
            .src_stage_mask(vk::PipelineStageFlags2::FRAGMENT_SHADER)
            .src_access_mask(vk::AccessFlags2::NONE)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .old_layout(vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .image(o.depth.raw)
            .subresource_range(subresource(vk::ImageAspectFlags::DEPTH)),
    ];
    d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&to_src));
    let region = |aspect| full_copy(aspect, e);
    d.cmd_copy_image_to_buffer(
        cmd,
        o.color.raw,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        o.readback.raw,
        &[region(vk::ImageAspectFlags::COLOR)],
    );
    d.cmd_copy_image_to_buffer(
        cmd,
        o.depth.raw,
        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        o.depth_readback.raw,
        &[region(vk::ImageAspectFlags::DEPTH)],
    );
    let to_host = [copies_to_host()];
    d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&to_host));
}

impl Drop for Renderer {
    fn drop(&mut self) {
        self.ctx.wait_idle();
        for f in &mut self.frames {
            f.destroy(&self.ctx);
        }
        for m in self.meshes.iter_mut().chain(self.overlay_meshes.iter_mut()) {
            m.destroy(&self.ctx);
        }
        for p in [&mut self.scene_pipeline, &mut self.grid_pipeline, &mut self.overlay_pipeline] {
            if p.raw != vk::Pipeline::null() || p.layout != vk::PipelineLayout::null() {
                p.destroy(&self.ctx);
            }
        }
        if let Some(mut d) = self.overlay_descriptors.take() {
            d.destroy(&self.ctx);
        }
        if let Some(mut b) = self.capture.take() {
            b.destroy(&self.ctx);
        }
        if let Some((mut b, _)) = self.window_depth.take() {
            b.destroy(&self.ctx);
        }
        match &mut self.target {
            Target::Offscreen(o) => o.destroy(&self.ctx),
            Target::Window { swapchain, .. } => swapchain.destroy(&self.ctx),
        }
        // `ctx` drops last (field order), destroying device and instance.
    }
}
