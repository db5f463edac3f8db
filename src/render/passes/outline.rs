//! The selection outline: a full-screen pass after the scene and grid (and
//! before the overlay) that reads the object-ID target and paints a 2 px
//! ring around the visible pixels of highlighted objects.
//!
//! Per-object state reaches the shader as a small storage buffer, one `u32`
//! per object id ([`crate::render::desc::Highlight::code`] in the low two
//! bits, a generation above them), written by the host each frame from the
//! same single pass over the objects that builds the instance data
//! ([`crate::render::passes::scene::SceneBatches`]); one buffer and one
//! descriptor set (ID image + that buffer) per frame in flight. Only
//! entries of the generation entry 0 holds count (id 0 is no object): a
//! dense table ([`OutlinePass::prepare`]) is generation 0; a GPU-culled
//! frame's table starts at 1 and, kept from an earlier list, takes the
//! next generation and writes only the new list's entries, the old ones
//! going stale without a write. The object's own pixels are never touched,
//! so it keeps its colour. The pass is skipped when nothing is highlighted.

use ash::vk;
use bytemuck::{Pod, Zeroable};
use gpu_allocator::MemoryLocation;

use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::pipeline::{self, spirv, IdAttachment, Pipeline, PipelineDesc};
use crate::render::device::{nearest_clamp_sampler, per_frame_sets, Destroy, Gpu, GrowBuffer, Guard};

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
    /// Per frame slot: the shared list its table was last made from
    /// ([`OutlinePass::prepare_shared`]) and the table's length in entries.
    written: Vec<(Option<SharedHighlights>, usize)>,
    /// Per frame slot: a length `n` and a generation `g` above 0 such that
    /// the slot's table holds no entry of a generation above `g` below `n`
    /// (`None`: unknown, a dense table was written or none). The next
    /// shared list then takes generation `g + 1` and writes its own
    /// entries alone.
    kept: Vec<Option<(usize, u32)>>,
}

/// The outline's per-id table ([`crate::render::desc::Highlight::code`] at index id) of a
/// GPU-culled frame: `listed` (the table of the frame's object list) with
/// its highlighted objects added; empty when none is highlighted.
pub(crate) fn highlight_table(listed: &[u32], highlights: &[(u32, crate::render::desc::Highlight)]) -> Vec<u32> {
    let mut table = listed.to_vec();
    for &(id, h) in highlights.iter().filter(|(_, h)| *h != crate::render::desc::Highlight::None) {
        let i = id as usize;
        if table.len() <= i {
            table.resize(i + 1, 0);
        }
        table[i] = h.code();
    }
    table
}

/// A GPU-culled frame's outlined objects ([`crate::render::desc::GpuSceneFrame::highlights`]).
pub(crate) type SharedHighlights = std::sync::Arc<[(u32, crate::render::desc::Highlight)]>;

impl Default for OutlinePass {
    fn default() -> OutlinePass {
        OutlinePass {
            pipeline: Pipeline::default(),
            set_layout: vk::DescriptorSetLayout::null(),
            pool: vk::DescriptorPool::null(),
            sets: Vec::new(),
            sampler: vk::Sampler::null(),
            tables: Vec::new(),
            written: Vec::new(),
            kept: Vec::new(),
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
        o.written = vec![(None, 0); frames];
        o.kept = vec![None; frames];
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
            depth_bias: None,
        }
        .build(gpu, color_format, vk::Format::UNDEFINED, samples)?;
        Ok(o.finish())
    }

    /// Writes frame `fi`'s highlight table and points its descriptor set at
    /// the table and `ids` (a view of the ID target in
    /// `SHADER_READ_ONLY_OPTIMAL` when the pass runs). Returns whether
    /// anything is outlined: an empty table is not written, and the pass is
    /// then not recorded.
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
    ) -> Result<bool, RenderError> {
        self.written[fi] = (None, highlights.len());
        self.kept[fi] = None;
        if highlights.is_empty() {
            return Ok(false);
        }
        let bytes: &[u8] = bytemuck::cast_slice(highlights);
        let table = self.tables[fi].reserve(gpu, bytes.len() as u64)?;
        table.write(0, bytes, "highlights")?;
        self.bind(gpu, fi, ids);
        Ok(true)
    }

    /// [`OutlinePass::prepare`] for the table of a shared list (a GPU-culled
    /// frame with no listed objects): the table is made and written only if
    /// this frame slot's table was not made from that very list, so a large
    /// selection costs nothing per frame once each slot holds it.
    ///
    /// # Safety
    /// As for [`OutlinePass::prepare`].
    pub unsafe fn prepare_shared(
        &mut self,
        gpu: &Gpu,
        fi: usize,
        ids: vk::ImageView,
        list: &SharedHighlights,
    ) -> Result<bool, RenderError> {
        let same = self.written[fi].0.as_ref().is_some_and(|w| std::sync::Arc::ptr_eq(w, list));
        if !same {
            let outlined = self.write_shared(gpu, fi, list)?;
            if outlined {
                self.bind(gpu, fi, ids);
            }
            return Ok(outlined);
        }
        let outlined = self.written[fi].1 > 0;
        if outlined {
            // The ID target's view may be new (a resize): point the set at it again.
            self.bind(gpu, fi, ids);
        }
        Ok(outlined)
    }

    /// Brings frame `fi`'s table to `list` (the codes [`highlight_table`]
    /// makes of it), written in the mapped memory in place: where the
    /// slot's table was kept from an earlier shared list and has room
    /// enough, the list's entries are written with the next generation
    /// (and the entries the table grows by zeroed), so a large selection
    /// over a large scene costs its own entries, not the highest id nor the
    /// list before it; otherwise the table is zeroed and written with
    /// generation 1. Returns whether anything is outlined.
    ///
    /// # Safety
    /// As for [`OutlinePass::prepare`].
    unsafe fn write_shared(&mut self, gpu: &Gpu, fi: usize, list: &SharedHighlights) -> Result<bool, RenderError> {
        use crate::render::desc::Highlight;
        const WORD: usize = std::mem::size_of::<u32>();
        // Generations fill the bits above the code's two.
        const LAST_GENERATION: u32 = u32::MAX >> 2;
        // Nothing is bound until the table is written (a failed
        // allocation below leaves no stale length behind).
        self.written[fi] = (None, 0);
        let needed =
            list.iter().filter(|(_, h)| *h != Highlight::None).map(|&(id, _)| id as usize + 1).max().unwrap_or(0);
        let table = &mut self.tables[fi];
        let kept = match self.kept[fi].take() {
            Some((n, g)) if g < LAST_GENERATION && !table.must_grow((needed.max(n) * WORD) as u64) => Some((n, g)),
            _ => None,
        };
        if needed == 0 && kept.is_none() {
            self.written[fi] = (Some(list.clone()), 0);
            return Ok(false);
        }
        let outlined = needed > 0;
        // Entry 0 (no object) holds the generation: at least one entry.
        let needed = needed.max(1);
        let buffer = table.reserve(gpu, (needed * WORD) as u64)?;
        let mapped = buffer.mapped().ok_or(RenderError::NotHostVisible("highlights"))?;
        let put = |mapped: &mut [u8], id: usize, entry: u32| {
            mapped[id * WORD..(id + 1) * WORD].copy_from_slice(&entry.to_ne_bytes());
        };
        let (len, generation) = match kept {
            Some((n, g)) => {
                if needed > n {
                    mapped[n * WORD..needed * WORD].fill(0);
                }
                (n.max(needed), g + 1)
            }
            None => {
                mapped[..needed * WORD].fill(0);
                (needed, 1)
            }
        };
        put(mapped, 0, generation << 2);
        for &(id, h) in list.iter() {
            if h != Highlight::None {
                put(mapped, id as usize, generation << 2 | h.code());
            }
        }
        self.kept[fi] = Some((len, generation));
        // Nothing shown: the pass is not recorded (the table stays kept).
        let len = if outlined { len } else { 0 };
        self.written[fi] = (Some(list.clone()), len);
        Ok(len > 0)
    }

    /// Points frame `fi`'s descriptor set at its table (as long as the
    /// table written last) and `ids`.
    ///
    /// # Safety
    /// As for [`OutlinePass::prepare`]; the table holds at least one entry.
    unsafe fn bind(&self, gpu: &Gpu, fi: usize, ids: vk::ImageView) {
        let image = [vk::DescriptorImageInfo {
            sampler: self.sampler,
            image_view: ids,
            image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        }];
        // The range ends at the last id written, so stale entries past it are never read.
        let range = (self.written[fi].1 * std::mem::size_of::<u32>()) as u64;
        let table = self.tables[fi].get().map_or(vk::Buffer::null(), |b| b.raw);
        let buffer = [vk::DescriptorBufferInfo { buffer: table, offset: 0, range }];
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
