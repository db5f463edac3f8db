//! The selection outline: a full-screen pass after the scene and grid (and
//! before the overlay) that reads the object-ID target and paints a 2 px
//! ring around the visible pixels of highlighted objects.
//!
//! Per-object state reaches the shader as a small storage buffer, one `u32`
//! per object id ([`super::Highlight::code`]), written by the host each
//! frame from the same single pass over the objects that builds the
//! instance data ([`super::scene::SceneBatches`]); one buffer and one
//! descriptor set (ID image + that buffer) per frame in flight. The object's
//! own pixels are never touched, so it keeps its colour. The pass is skipped
//! when nothing is highlighted.

use ash::vk;
use bytemuck::{Pod, Zeroable};
use gpu_allocator::MemoryLocation;

use super::error::{RenderError, VkContext};
use super::pipeline::{self, spirv, IdAttachment, Pipeline, PipelineDesc};
use super::resources::{nearest_clamp_sampler, per_frame_sets, Destroy, Gpu, GrowBuffer, Guard};

/// Outline of selected objects: orange (linear RGB, opaque).
pub const SELECTED_OUTLINE: [f32; 4] = [0.9, 0.2, 0.0, 1.0];
/// Outline of the active object: light yellow (linear RGB, opaque).
pub const ACTIVE_OUTLINE: [f32; 4] = [1.0, 0.85, 0.3, 1.0];

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct OutlinePush {
    selected: [f32; 4],
    active: [f32; 4],
}

/// The outline pipeline, its descriptor sets and per-frame highlight tables.
pub(crate) struct OutlinePass {
    pipeline: Pipeline,
    set_layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    sets: Vec<vk::DescriptorSet>,
    sampler: vk::Sampler,
    tables: Vec<GrowBuffer>,
}

impl Default for OutlinePass {
    fn default() -> OutlinePass {
        OutlinePass {
            pipeline: Pipeline::default(),
            set_layout: vk::DescriptorSetLayout::null(),
            pool: vk::DescriptorPool::null(),
            sets: Vec::new(),
            sampler: vk::Sampler::null(),
            tables: Vec::new(),
        }
    }
}

impl OutlinePass {
    pub fn new(
        gpu: &Gpu,
        color_format: vk::Format,
        samples: vk::SampleCountFlags,
        frames: usize,
    ) -> Result<OutlinePass, RenderError> {
        let d = &gpu.device;
        let mut o = Guard::new(gpu, OutlinePass::default());
        let bindings = [
            vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::FRAGMENT),
            vk::DescriptorSetLayoutBinding::default()
                .binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::FRAGMENT),
        ];
        let sizes = [
            vk::DescriptorPoolSize { ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER, descriptor_count: frames as u32 },
            vk::DescriptorPoolSize { ty: vk::DescriptorType::STORAGE_BUFFER, descriptor_count: frames as u32 },
        ];
        // SAFETY: plain object creation; the guard or the owner destroys them.
        unsafe {
            let parts = &mut *o;
            parts.sets = per_frame_sets(d, &bindings, &sizes, frames, &mut parts.set_layout, &mut parts.pool)?;
            o.sampler = d.create_sampler(&nearest_clamp_sampler(), None).vk("vkCreateSampler")?;
        }
        o.tables = (0..frames)
            .map(|_| GrowBuffer::new(vk::BufferUsageFlags::STORAGE_BUFFER, MemoryLocation::CpuToGpu, "highlights"))
            .collect();
        let set_layouts = [o.set_layout];
        o.pipeline = PipelineDesc {
            name: "outline",
            vert: spirv::SCREEN_VERT,
            frag: spirv::OUTLINE_FRAG,
            bindings: &[],
            attributes: &[],
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            push_size: std::mem::size_of::<OutlinePush>() as u32,
            set_layouts: &set_layouts,
            depth_test: false,
            depth_write: false,
            blend: false,
            ids: IdAttachment::Absent,
            frag_constants: &[],
        }
        .build(gpu, color_format, vk::Format::UNDEFINED, samples)?;
        Ok(o.finish())
    }

    /// Writes frame `fi`'s highlight table and points its descriptor set at
    /// the table and `ids` (a view of the ID target in
    /// `SHADER_READ_ONLY_OPTIMAL` when the pass runs). `highlights` is not empty.
    ///
    /// # Safety
    /// Frame `fi`'s fence was waited for: the GPU no longer reads its table
    /// or descriptor set.
    pub unsafe fn prepare(
        &mut self,
        gpu: &Gpu,
        fi: usize,
        ids: vk::ImageView,
        highlights: &[u32],
    ) -> Result<(), RenderError> {
        let bytes: &[u8] = bytemuck::cast_slice(highlights);
        let table = self.tables[fi].reserve(gpu, bytes.len() as u64)?;
        table.write(0, bytes, "highlights")?;
        let image = [vk::DescriptorImageInfo {
            sampler: self.sampler,
            image_view: ids,
            image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        }];
        // The range ends at the last id written, so stale entries past it are never read.
        let buffer = [vk::DescriptorBufferInfo { buffer: table.raw, offset: 0, range: bytes.len() as u64 }];
        let set = self.sets[fi];
        let writes = [
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(0)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .image_info(&image),
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(&buffer),
        ];
        gpu.device.update_descriptor_sets(&writes, &[]);
        Ok(())
    }

    /// Records the full-screen draw of frame `fi` (after [`OutlinePass::prepare`]).
    ///
    /// # Safety
    /// `cmd` is recording inside a rendering scope with one colour
    /// attachment of the pass's format and no depth; viewport and scissor set.
    pub unsafe fn record(&self, d: &ash::Device, cmd: vk::CommandBuffer, fi: usize) {
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline.raw);
        d.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            self.pipeline.layout,
            0,
            &[self.sets[fi]],
            &[],
        );
        pipeline::push(
            d,
            cmd,
            self.pipeline.layout,
            &OutlinePush { selected: SELECTED_OUTLINE, active: ACTIVE_OUTLINE },
        );
        d.cmd_draw(cmd, 3, 1, 0, 0);
    }
}

impl Destroy for OutlinePass {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.pipeline.destroy(gpu);
        self.tables.destroy(gpu);
        gpu.device.destroy_sampler(self.sampler, None);
        // Frees the sets with it.
        gpu.device.destroy_descriptor_pool(self.pool, None);
        gpu.device.destroy_descriptor_set_layout(self.set_layout, None);
        self.sets.clear();
        self.sampler = vk::Sampler::null();
        self.pool = vk::DescriptorPool::null();
        self.set_layout = vk::DescriptorSetLayout::null();
    }
}
