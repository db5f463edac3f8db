//! The overlay pass: gizmo geometry drawn over a frame, embeddable in a
//! foreign Vulkan renderer.
//!
//! [`OverlayRenderer`] owns everything the pass needs: two pipelines (with
//! and without the scene depth), a descriptor set per frame in flight for
//! the scene depth, the canonical gizmo meshes (one per [`MeshKind`], built
//! from [`crate::gizmo::mesh`]) and a host-visible instance buffer per frame
//! in flight. It draws a slice of [`OverlayInstance`]s (what
//! [`crate::gizmo::Gizmo::instances`] returns) with one instanced draw per
//! mesh kind, whatever the handle count. Our own [`crate::render::Renderer`] records
//! its overlay pass through it too.
//!
//! See [`OverlayRenderer`] for the contract with an embedding engine.

use std::sync::{Arc, Mutex};

use ash::vk;
use bytemuck::{Pod, Zeroable};
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use gpu_allocator::MemoryLocation;
use nalgebra::Matrix4;

use crate::gizmo::{MeshKind, OverlayInstance};
use crate::math::{DepthMode, View};
use crate::render::assets::mesh::GpuMesh;
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::pipeline::{
    self, instanced_vertex_input, spirv, to_f32_cols, IdAttachment, Pipeline, PipelineDesc,
};
use crate::render::device::{nearest_clamp_sampler, per_frame_sets, Destroy, Gpu, GrowBuffer, Guard};

/// Alpha factor for gizmo parts behind scene geometry.
pub(crate) const HIDDEN_ALPHA: f32 = 0.25;

/// Per-instance data of a gizmo piece (80 bytes, no padding).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct OverlayGpuInstance {
    model_view: [[f32; 4]; 4],
    color: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct OverlayPush {
    projection: [[f32; 4]; 4],
    /// x: 1 for reversed-Z, 0 for standard; y: alpha factor of hidden parts.
    params: [f32; 4],
}

/// How to create an [`OverlayRenderer`].
#[derive(Clone, Copy, Debug)]
pub struct OverlayDesc {
    /// Format of the colour attachment the overlay is drawn into.
    pub color_format: vk::Format,
    /// Format of the depth attachment bound while the overlay records.
    pub depth_format: vk::Format,
    /// How many frames may be recorded before the GPU finished the first
    /// (0 is taken as 1).
    pub frames_in_flight: usize,
}

/// One recording of the overlay.
#[derive(Clone, Copy, Debug)]
pub struct OverlayFrame<'a> {
    /// What to draw: the gizmo's draw data.
    pub instances: &'a [OverlayInstance],
    /// World -> view matrix of the camera (right-handed, looking down -Z).
    pub view: Matrix4<f64>,
    /// View -> clip projection, Vulkan clip space, matching `depth`.
    pub projection: Matrix4<f64>,
    pub depth: DepthMode,
    /// The viewport's top-left corner in the rendering area: (0, 0), or
    /// the corner of one view of several (the view's [`View::at`]).
    pub offset: vk::Offset2D,
    /// The viewport's size.
    pub extent: vk::Extent2D,
    /// Which frame in flight this recording belongs to.
    pub frame_index: usize,
    /// The scene depth to fade hidden parts against (see the module docs),
    /// or None to draw every part at full strength.
    pub scene_depth: Option<vk::ImageView>,
}

impl<'a> OverlayFrame<'a> {
    /// A frame for `view`'s matrices, viewport size and depth mode, without
    /// scene depth.
    pub fn new(instances: &'a [OverlayInstance], view: &View, frame_index: usize) -> OverlayFrame<'a> {
        OverlayFrame {
            instances,
            view: *view.view_matrix(),
            projection: *view.proj_matrix(),
            depth: view.depth_mode(),
            offset: vk::Offset2D { x: view.origin().x.round() as i32, y: view.origin().y.round() as i32 },
            extent: vk::Extent2D { width: view.width().round() as u32, height: view.height().round() as u32 },
            frame_index,
            scene_depth: None,
        }
    }
}

/// What one recording drew.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OverlayStats {
    /// At most one per mesh kind.
    pub draw_calls: u32,
    pub instances: u32,
}

/// The scene-depth descriptor of each frame in flight.
struct Descriptors {
    layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    sets: Vec<vk::DescriptorSet>,
    sampler: vk::Sampler,
}

impl Destroy for Descriptors {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        gpu.device.destroy_sampler(self.sampler, None);
        // Frees the sets with it.
        gpu.device.destroy_descriptor_pool(self.pool, None);
        gpu.device.destroy_descriptor_set_layout(self.layout, None);
        self.sets.clear();
        self.sampler = vk::Sampler::null();
        self.pool = vk::DescriptorPool::null();
        self.layout = vk::DescriptorSetLayout::null();
    }
}

impl Descriptors {
    fn new(gpu: &Gpu, frames: usize) -> Result<Descriptors, RenderError> {
        let d = &gpu.device;
        let mut s = Guard::new(
            gpu,
            Descriptors {
                layout: vk::DescriptorSetLayout::null(),
                pool: vk::DescriptorPool::null(),
                sets: Vec::new(),
                sampler: vk::Sampler::null(),
            },
        );
        let bindings = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)];
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            descriptor_count: frames as u32,
        }];
        // SAFETY: plain object creation; the guard or the owner destroys them.
        unsafe {
            let parts = &mut *s;
            parts.sets = per_frame_sets(d, &bindings, &sizes, frames, &mut parts.layout, &mut parts.pool)?;
            s.sampler = d.create_sampler(&nearest_clamp_sampler(), None).vk("vkCreateSampler")?;
        }
        Ok(s.finish())
    }
}

/// Everything the overlay owns on the device.
struct Parts {
    /// Fades parts hidden by the scene depth (descriptor set 0).
    faded: Pipeline,
    /// Draws every part at full strength (no descriptor set).
    plain: Pipeline,
    descriptors: Descriptors,
    /// Canonical gizmo meshes, in [`MeshKind::ALL`] order.
    meshes: Vec<GpuMesh>,
    /// One instance buffer per frame in flight.
    instances: Vec<GrowBuffer>,
}

impl Destroy for Parts {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.instances.destroy(gpu);
        self.meshes.destroy(gpu);
        self.descriptors.destroy(gpu);
        self.plain.destroy(gpu);
        self.faded.destroy(gpu);
    }
}

fn is_depth_format(f: vk::Format) -> bool {
    matches!(
        f,
        vk::Format::D16_UNORM
            | vk::Format::X8_D24_UNORM_PACK32
            | vk::Format::D32_SFLOAT
            | vk::Format::D16_UNORM_S8_UINT
            | vk::Format::D24_UNORM_S8_UINT
            | vk::Format::D32_SFLOAT_S8_UINT
    )
}

/// Draws gizmo overlay instances into a caller's dynamic rendering scope,
/// on the caller's device: one instanced draw per gizmo mesh kind.
///
/// # Embedding contract
/// - Create it on your device with [`OverlayRenderer::new`] (your
///   allocator) or [`OverlayRenderer::with_own_allocator`]. The device must
///   have Vulkan 1.3's `dynamicRendering` enabled; the pipelines are built
///   for one colour attachment of [`OverlayDesc::color_format`] and a depth
///   attachment of [`OverlayDesc::depth_format`], single-sampled. No queue
///   is used: the meshes live in host-visible memory.
/// - Call [`OverlayRenderer::record`] *inside* a dynamic rendering scope
///   that you began (`vkCmdBeginRendering`) with exactly those attachments.
///   The overlay depth-tests and writes the bound depth attachment: clear it
///   to [`DepthMode::clear_depth`] when you begin the scope (load op
///   `CLEAR`) so that the gizmo is always visible and occludes itself
///   correctly. (If you bind your scene depth instead, the gizmo is simply
///   hidden where the scene is in front.) Blending is alpha over the colour
///   attachment's contents.
/// - It sets the viewport and scissor to `(0, 0, extent)`, the depth compare
///   op for the depth mode, binds its own pipeline, descriptor set and vertex
///   and index buffers and pushes constants; rebind your own state afterwards.
/// - Optionally [`OverlayFrame::scene_depth`] is a view of your scene depth
///   (depth aspect, same extent and pixel grid, written with the same depth
///   mode and projection as [`OverlayFrame`] gives) which the fragment shader samples with
///   `texelFetch` to draw the parts behind scene geometry faintly. When the
///   command buffer executes, that image must be in
///   `DEPTH_READ_ONLY_OPTIMAL` with its depth writes made visible to
///   `FRAGMENT_SHADER` / `SHADER_SAMPLED_READ`; it must not be the bound
///   depth attachment, and must have been created with `SAMPLED` usage.
/// - Frames in flight: `frame_index` (below [`OverlayDesc::frames_in_flight`])
///   selects the instance buffer and descriptor set this recording writes
///   on the host. The GPU must have finished the previous command buffer
///   recorded with the same index (wait for its fence first).
/// - Drop the renderer after the GPU finished every command buffer it
///   recorded into and before destroying the device.
pub struct OverlayRenderer {
    gpu: Gpu,
    parts: Parts,
}

impl OverlayRenderer {
    /// Creates the overlay on `device`, allocating from `allocator`.
    ///
    /// # Safety
    /// `device` is a live device with `dynamicRendering` enabled, `allocator`
    /// allocates from that device, and both outlive the returned value.
    pub unsafe fn new(
        device: &ash::Device,
        allocator: Arc<Mutex<Allocator>>,
        desc: &OverlayDesc,
    ) -> Result<OverlayRenderer, RenderError> {
        OverlayRenderer::on(Gpu { device: device.clone(), allocator }, desc, vk::SampleCountFlags::TYPE_1)
    }

    /// Creates the overlay on `device` with an allocator of its own.
    ///
    /// # Safety
    /// As for [`OverlayRenderer::new`]; `device` was created from
    /// `physical_device` of `instance`, which outlive the returned value.
    pub unsafe fn with_own_allocator(
        instance: &ash::Instance,
        physical_device: vk::PhysicalDevice,
        device: &ash::Device,
        desc: &OverlayDesc,
    ) -> Result<OverlayRenderer, RenderError> {
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })?;
        OverlayRenderer::new(device, Arc::new(Mutex::new(allocator)), desc)
    }

    /// As [`OverlayRenderer::new`], for attachments of `samples` samples per pixel.
    pub(crate) fn on(
        gpu: Gpu,
        desc: &OverlayDesc,
        samples: vk::SampleCountFlags,
    ) -> Result<OverlayRenderer, RenderError> {
        if !is_depth_format(desc.depth_format) {
            return Err(RenderError::BadFormat { what: "the overlay's depth attachment", format: desc.depth_format });
        }
        if desc.color_format == vk::Format::UNDEFINED || is_depth_format(desc.color_format) {
            return Err(RenderError::BadFormat { what: "the overlay's colour attachment", format: desc.color_format });
        }
        let frames = desc.frames_in_flight.max(1);
        let descriptors = Descriptors::new(&gpu, frames)?;
        let mut parts = Guard::new(
            &gpu,
            Parts {
                faded: Pipeline::default(),
                plain: Pipeline::default(),
                descriptors,
                meshes: Vec::new(),
                instances: Vec::new(),
            },
        );
        // 4 model-view columns and the colour: five vec4s.
        let (bindings, attributes) = instanced_vertex_input(std::mem::size_of::<OverlayGpuInstance>() as u32, 5);
        let set_layouts = [parts.descriptors.layout];
        let desc_for = |frag, set_layouts| PipelineDesc {
            name: "overlay",
            vert: spirv::OVERLAY_VERT,
            frag,
            bindings: &bindings,
            attributes: &attributes,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            push_size: std::mem::size_of::<OverlayPush>() as u32,
            set_layouts,
            depth_test: true,
            depth_write: true,
            blend: true,
            ids: IdAttachment::Absent,
            frag_constants: &[],
            depth_bias: None,
        };
        let (color, depth) = (desc.color_format, desc.depth_format);
        parts.faded = desc_for(spirv::OVERLAY_FRAG, &set_layouts).build(&gpu, color, depth, samples)?;
        parts.plain = desc_for(spirv::OVERLAY_PLAIN_FRAG, &[]).build(&gpu, color, depth, samples)?;
        for kind in MeshKind::ALL {
            let mesh = GpuMesh::host_visible(&gpu, &crate::gizmo::mesh(kind))?;
            parts.meshes.push(mesh);
        }
        for _ in 0..frames {
            let usage = vk::BufferUsageFlags::VERTEX_BUFFER;
            parts.instances.push(GrowBuffer::new(usage, MemoryLocation::CpuToGpu, "overlay instances"));
        }
        let parts = parts.finish();
        Ok(OverlayRenderer { gpu, parts })
    }

    /// How many frames in flight the renderer was created for.
    pub fn frames_in_flight(&self) -> usize {
        self.parts.instances.len()
    }

    /// Records the overlay into `cmd`, inside the caller's rendering scope.
    /// Does nothing (and touches no state) when there are no instances.
    ///
    /// # Safety
    /// `cmd` is a command buffer of the overlay's device, recording inside a
    /// dynamic rendering scope as described in the
    /// [embedding contract](OverlayRenderer#embedding-contract); the
    /// GPU finished the last command buffer recorded with
    /// `frame.frame_index`; `frame.scene_depth`, if any, is a live view that
    /// stays alive until the GPU finished `cmd`.
    pub unsafe fn record(&mut self, cmd: vk::CommandBuffer, frame: &OverlayFrame) -> Result<OverlayStats, RenderError> {
        self.record_views(cmd, std::slice::from_ref(frame))
    }

    /// Records the overlay of several views of one frame (the quad view),
    /// each into its own viewport, in one rendering scope: their instances
    /// share one upload. Every frame must name the same `frame_index`,
    /// `depth` and `scene_depth`; the first one's are used.
    ///
    /// # Safety
    /// As [`OverlayRenderer::record`].
    pub unsafe fn record_views(
        &mut self,
        cmd: vk::CommandBuffer,
        frames: &[OverlayFrame],
    ) -> Result<OverlayStats, RenderError> {
        let Some(first) = frames.first() else { return Ok(OverlayStats::default()) };
        let fi = first.frame_index;
        let count = self.frames_in_flight();
        if fi >= count {
            return Err(RenderError::FrameIndex { index: fi, frames: count });
        }
        let frames: Vec<&OverlayFrame> = frames.iter().filter(|f| !f.instances.is_empty()).collect();
        if frames.is_empty() {
            return Ok(OverlayStats::default());
        }
        if let Some(f) = frames.iter().find(|f| f.extent.width == 0 || f.extent.height == 0) {
            let (width, height) = (f.extent.width, f.extent.height);
            return Err(RenderError::ZeroSize { what: "overlay viewport", width, height });
        }
        // Per view, instances grouped by kind in drawing order (a stable
        // sort keeps the caller's order within a kind); the views one
        // after the other in one buffer.
        let orders: Vec<Vec<&OverlayInstance>> = frames
            .iter()
            .map(|f| {
                let mut order: Vec<&OverlayInstance> = f.instances.iter().collect();
                order.sort_by_key(|o| o.mesh.index());
                order
            })
            .collect();
        let gpu_instances: Vec<OverlayGpuInstance> = frames
            .iter()
            .zip(&orders)
            .flat_map(|(f, order)| {
                order
                    .iter()
                    .map(|o| OverlayGpuInstance { model_view: to_f32_cols(&(f.view * o.model)), color: o.color })
            })
            .collect();
        let bytes: &[u8] = bytemuck::cast_slice(&gpu_instances);
        let parts = &mut self.parts;
        let buffer = parts.instances[fi].reserve(&self.gpu, bytes.len() as u64)?;
        buffer.write(0, bytes, "overlay instances")?;
        let instance_buffer = buffer.raw;

        let d = &self.gpu.device;
        let pipeline = match first.scene_depth {
            Some(view) => {
                let set = parts.descriptors.sets[fi];
                let image = [vk::DescriptorImageInfo {
                    sampler: parts.descriptors.sampler,
                    image_view: view,
                    image_layout: vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL,
                }];
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .image_info(&image);
                d.update_descriptor_sets(&[write], &[]);
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, parts.faded.raw);
                d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::GRAPHICS, parts.faded.layout, 0, &[set], &[]);
                &parts.faded
            }
            None => {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, parts.plain.raw);
                &parts.plain
            }
        };
        d.cmd_set_depth_compare_op(cmd, pipeline::compare_op(first.depth));
        let reversed = if first.depth == DepthMode::Reversed { 1.0 } else { 0.0 };

        let mut stats = OverlayStats::default();
        let mut start = 0usize;
        for (f, order) in frames.iter().zip(&orders) {
            pipeline::set_viewport(d, cmd, vk::Rect2D { offset: f.offset, extent: f.extent });
            let push =
                OverlayPush { projection: to_f32_cols(&f.projection), params: [reversed, HIDDEN_ALPHA, 0.0, 0.0] };
            pipeline::push(d, cmd, pipeline.layout, &push);
            let mut k_start = 0usize;
            for (k, kind) in MeshKind::ALL.iter().enumerate() {
                let count = order[k_start..].iter().take_while(|o| o.mesh == *kind).count();
                if count == 0 {
                    continue;
                }
                let first_instance = (start + k_start) as u32;
                parts.meshes[k].draw_instanced(d, cmd, instance_buffer, 0, first_instance, count as u32);
                stats.draw_calls += 1;
                stats.instances += count as u32;
                k_start += count;
            }
            start += order.len();
        }
        Ok(stats)
    }
}

impl Drop for OverlayRenderer {
    fn drop(&mut self) {
        // SAFETY: the contract of `new` / `record`: the GPU is done with
        // every command buffer recorded into, and the device is alive.
        unsafe { self.parts.destroy(&self.gpu) };
    }
}
