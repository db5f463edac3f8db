//! The GPU-driven scene path (GPU culling): scene objects live in a
//! persistent device-local buffer of [`GpuObjectRecord`]s, written whole
//! when the scene's structure changes and otherwise only for the objects
//! that changed (copied from a per-frame staging buffer in the frame's own
//! command buffer), beside a member list ([`members::Members`]: the objects'
//! indices grouped by mesh, ascending, padded to whole workgroups of 64)
//! rebuilt with it, and a box per chunk of 32 consecutive ids
//! ([`chunks`]), grown with the records that change. Each frame `cull.comp`
//! runs four dispatches, an ordered compaction: a coarse pass (one thread
//! per workgroup of member slots: the chunks its objects fall in against
//! the frustum; the workgroups that may keep an object are listed, and
//! their number is the x of the next dispatches, indirect), a cull over the
//! listed workgroups (one thread per member slot: the box against the
//! frustum; a mask of the kept slots per workgroup), a scan per mesh of the
//! workgroups' counts (which writes each mesh part's
//! `VkDrawIndexedIndirectCommand` instance count), and a scatter of the
//! listed workgroups' kept objects into the mesh's slice of a visible
//! list. Each mesh's visible objects are thus in ascending object order,
//! every frame, as the CPU path draws them: of two coincident surfaces the
//! same object keeps the pixel's id on both paths (the later one: the depth
//! test passes on equal depth). The scene pass then records one
//! `vkCmdDrawIndexedIndirect` per mesh part, whatever the number of objects.
//! Meshes with blended parts are skipped by the cull: their objects come
//! in [`crate::render::desc::FrameDesc::objects`], drawn after these by the CPU
//! scene pass, sorted back to front.
//!
//! Synchronisation, per slot (one view of a frame in flight; a frame of
//! several views culls each into its own slot before the scene pass): the
//! header, mesh table and commands (the indirect dispatch first, x 0) are
//! per-slot host-visible buffers written after the frame's fence (instance
//! counts 0). The object buffer, the chunk boxes, the member list, the keep
//! masks, the workgroup counts, offsets and list are shared by the frames
//! in flight and their views, and each view's visible list by the frames
//! in flight, so the recorded order, per view, is
//! 1. (only with changes) previous compute and vertex reads -> copy writes,
//!    then the copies of the changed records and chunk boxes;
//! 2. copies and previous vertex reads -> compute reads and writes;
//! 3. the four dispatches, compute writes -> compute reads and writes
//!    between them (after the coarse pass also -> indirect command reads);
//! 4. compute writes -> indirect command reads and vertex shader reads.

mod changes;
mod chunks;
mod dispatch;
mod draws;
mod edit_copies;
mod members;
mod pending;
mod provisional;
mod records;
mod scene_reads;

use ash::vk;
use gpu_allocator::MemoryLocation;
use nalgebra::{Matrix4, Point3};

pub(crate) use crate::render::cull::MeshBounds;
pub use chunks::split_f64;
use chunks::{chunk_of, ChunkBox, GpuChunk, CHUNK};
use members::{Members, GROUP};
pub(crate) use pending::Pending;
use records::{FrameHeader, IndexedCommand, MeshInfo, NO_MESH};
pub use records::{GpuObjectRecord, SceneObject};

use crate::math::Frustum;
use crate::render::assets::material::{Materials, Pass};
use crate::render::assets::mesh::GpuMesh;
use crate::render::cull::small::GpuSmallCull;
use crate::render::desc::MaterialId;
use crate::render::desc::MAX_VIEWS;
use crate::render::device::context::Context;
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::pipeline::{self, shader_module, spirv, Pipeline};
use crate::render::device::{
    one_shot, per_frame_sets, upload_buffer, upload_buffer_with, Buffer, Destroy, Gpu, GrowBuffer, Guard,
};
use crate::render::passes::scene::MaterialShaders;

const RECORD: u64 = std::mem::size_of::<GpuObjectRecord>() as u64;
const COMMAND: u64 = std::mem::size_of::<IndexedCommand>() as u64;
/// Bytes before the draw commands in the per-frame command buffer: the
/// indirect dispatch of the cull and the scatter (`VkDispatchIndirectCommand`
/// and a pad).
const DISPATCH: u64 = 16;
const CHUNK_BYTES: u64 = std::mem::size_of::<GpuChunk>() as u64;
/// Storage buffers of the cull's descriptor set (see `cull.comp`).
const BINDINGS: u32 = 9;

type Stage = vk::PipelineStageFlags2;
type Access = vk::AccessFlags2;

/// One indirect draw of the scene pass.
#[derive(Clone, Copy, Debug)]
struct IndirectDraw {
    pass: Pass,
    material: MaterialId,
    mesh: usize,
    command: u32,
}

/// The GPU-driven scene: the object buffer and its CPU bookkeeping, the
/// visible list, the per-frame buffers and descriptor sets, the cull
/// pipeline and the scene pipelines that read objects from buffers.
pub(crate) struct GpuScene {
    count: u32,
    /// Per object: the mesh it is listed under in `members` (`NO_MESH`: not
    /// listed); an object whose record went to `NO_MESH` keeps its old mesh.
    object_mesh: Vec<u32>,
    /// The CPU side of the member list (its slots are in `member_slots`).
    members: Members,
    /// Changed records not yet copied, by object index.
    pending: pending::Pending<GpuObjectRecord>,
    /// Words of the uploaded member list not yet copied (appended members
    /// and their workgroups' spans), by word index.
    pending_members: pending::Pending<u32>,
    /// One bit per object, set while it is hidden with its record kept as
    /// it was ([`GpuScene::set_hidden`]): the cull skips it. The CPU's
    /// copy; the GPU's is `hidden_buffer`.
    hidden_bits: Vec<u32>,
    /// Words of `hidden_bits` not yet copied, by word index.
    pending_bits: pending::Pending<()>,
    /// Per object: whether its record, as last written whole, draws a mesh
    /// (an object hidden when its record was made has none, and needs a
    /// whole record to be shown).
    drawn: Vec<bool>,
    /// How often the buffers were built again (for tests).
    rebuilds: GpuSceneRebuilds,
    /// The chunks' boxes ([`chunks`]), and those grown or changed since
    /// the GPU's copy.
    chunks: Vec<ChunkBox>,
    pending_chunks: pending::Pending<()>,
    /// Objects whose records are provisional (made without their boxes
    /// past a frame's [`BOXES_PER_FRAME`]), and their boxes still to make:
    /// see [`provisional`].
    provisional: provisional::Provisional,
    objects: Option<Buffer>,
    chunk_boxes: Option<Buffer>,
    hidden_buffer: Option<Buffer>,
    /// The member list, per workgroup of slots: which slots it keeps
    /// (masks), its count, offset and the list of workgroups near the view
    /// (groups), and per slot: the visible list; see `cull.comp`.
    member_slots: Option<Buffer>,
    masks: Option<Buffer>,
    groups: Option<Buffer>,
    /// One visible list per view of a frame ([`MAX_VIEWS`]): every view is
    /// culled before the scene pass draws them all.
    visible: Vec<Buffer>,
    staging: Vec<GrowBuffer>,
    frame_data: Vec<GrowBuffer>,
    commands: Vec<GrowBuffer>,
    /// Per frame: whether its descriptor set names the current buffers.
    written: Vec<bool>,
    /// Per frame: the draws recorded from `commands` (set by `cull`).
    draws: Vec<Vec<IndirectDraw>>,
    /// The frame that culled last.
    last_frame: Option<usize>,
    set_layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    sets: Vec<vk::DescriptorSet>,
    cull: Pipeline,
    /// Single-sampled with ids, by `Pass as usize`.
    pipelines: [Pipeline; 3],
    /// MSAA colour pass (no ids), by `Pass as usize`; only with MSAA.
    multisampled: [Pipeline; 3],
}

/// How often the GPU scene's buffers were built again since it was
/// created: whole uploads of the objects, object buffers grown in place
/// (the old records copied on the device) and member lists rebuilt (for
/// tests: a duplicate should neither upload every record nor rebuild the
/// member list).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuSceneRebuilds {
    pub uploads: u32,
    pub grown: u32,
    pub member_lists: u32,
}

/// What the cull pass needs from the renderer for one frame.
pub(crate) struct CullInputs<'a> {
    pub view: Matrix4<f64>,
    pub eye: Point3<f64>,
    pub frustum: Option<Frustum>,
    pub meshes: &'a [GpuMesh],
    pub bounds: &'a [MeshBounds],
    /// Per mesh: whether a part is blended (such meshes are not culled here).
    pub blended: &'a [bool],
    pub materials: &'a Materials,
    /// The small-object test (off: a zero count).
    pub small: GpuSmallCull,
}

impl GpuScene {
    /// Builds the pipelines and sets (no objects yet).
    pub fn new(
        gpu: &Gpu,
        color_format: vk::Format,
        depth_format: vk::Format,
        samples: vk::SampleCountFlags,
        material_layout: vk::DescriptorSetLayout,
        frames: usize,
    ) -> Result<GpuScene, RenderError> {
        let d = &gpu.device;
        let host = |usage, name| GrowBuffer::new(usage, MemoryLocation::CpuToGpu, name);
        let mut g = Guard::new(
            gpu,
            GpuScene {
                count: 0,
                object_mesh: Vec::new(),
                members: Members::default(),
                pending: pending::Pending::new(),
                pending_members: pending::Pending::new(),
                hidden_bits: Vec::new(),
                pending_bits: pending::Pending::new(),
                drawn: Vec::new(),
                rebuilds: GpuSceneRebuilds::default(),
                chunks: Vec::new(),
                pending_chunks: pending::Pending::new(),
                provisional: provisional::Provisional::default(),
                objects: None,
                chunk_boxes: None,
                hidden_buffer: None,
                member_slots: None,
                masks: None,
                groups: None,
                visible: Vec::new(),
                staging: (0..frames).map(|_| host(vk::BufferUsageFlags::TRANSFER_SRC, "object staging")).collect(),
                frame_data: (0..frames)
                    .map(|_| host(vk::BufferUsageFlags::STORAGE_BUFFER, "cull frame data"))
                    .collect(),
                commands: (0..frames)
                    .map(|_| {
                        host(
                            vk::BufferUsageFlags::STORAGE_BUFFER
                                | vk::BufferUsageFlags::INDIRECT_BUFFER
                                | vk::BufferUsageFlags::TRANSFER_SRC,
                            "indirect",
                        )
                    })
                    .collect(),
                written: vec![false; frames],
                draws: vec![Vec::new(); frames],
                last_frame: None,
                set_layout: vk::DescriptorSetLayout::null(),
                pool: vk::DescriptorPool::null(),
                sets: Vec::new(),
                cull: Pipeline::default(),
                pipelines: Default::default(),
                multisampled: Default::default(),
            },
        );
        let both = vk::ShaderStageFlags::COMPUTE | vk::ShaderStageFlags::VERTEX;
        let binding = |b: u32, stages| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(stages)
        };
        let compute = vk::ShaderStageFlags::COMPUTE;
        let bindings = [
            binding(0, both),
            binding(1, both),
            binding(2, compute),
            binding(3, both),
            binding(4, compute),
            binding(5, compute),
            binding(6, compute),
            binding(7, compute),
            binding(8, compute),
        ];
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: BINDINGS * frames as u32,
        }];
        // SAFETY: plain object creation; the guard or the owner destroys them.
        unsafe {
            let s = &mut *g;
            s.sets = per_frame_sets(d, &bindings, &sizes, frames, &mut s.set_layout, &mut s.pool)?;
            // The push constant: the dispatch's phase.
            let phase = [vk::PushConstantRange { stage_flags: compute, offset: 0, size: 4 }];
            let set_layouts = [g.set_layout];
            let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts).push_constant_ranges(&phase);
            g.cull.layout = d.create_pipeline_layout(&info, None).vk("vkCreatePipelineLayout")?;
            let module = shader_module(gpu, spirv::CULL_COMP, "cull")?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let info = vk::ComputePipelineCreateInfo::default().stage(stage).layout(g.cull.layout);
            let created = d.create_compute_pipelines(vk::PipelineCache::null(), &[info], None);
            d.destroy_shader_module(module, None);
            g.cull.raw = created.map_err(|(_, e)| e).vk("vkCreateComputePipelines")?[0];
        }
        let (mesh, mesh_attributes) = pipeline::mesh_vertex_input();
        let set_layouts = [material_layout, g.set_layout];
        let shaders = MaterialShaders {
            name: "scene (GPU culling)",
            vert: spirv::SCENE_GPU_VERT,
            bindings: &[mesh],
            attributes: &mesh_attributes,
        };
        let p = &mut *g;
        shaders.build(
            gpu,
            &set_layouts,
            (color_format, depth_format),
            samples,
            (&mut p.pipelines, &mut p.multisampled),
        )?;
        Ok(g.finish())
    }

    /// Replaces every object (a new scene, or a change of its structure)
    /// with the `count` objects `objects` yields: the object buffer is
    /// rebuilt and uploaded at once, each record written straight into the
    /// staging memory, 8 MB at a time (at 1M objects no list of objects or
    /// records beside it, and no staging copy of the whole buffer: about
    /// 290 MB less at the peak). Objects past `count` are not read;
    /// missing ones draw nothing.
    ///
    /// # Safety
    /// The device is idle (the old buffers may be destroyed).
    pub unsafe fn set_objects(
        &mut self,
        ctx: &Context,
        count: usize,
        objects: impl Iterator<Item = SceneObject>,
        bounds: &[MeshBounds],
    ) -> Result<(), RenderError> {
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC;
        let size = count * std::mem::size_of::<GpuObjectRecord>();
        let mut object_mesh = vec![NO_MESH; count];
        let mut drawn = vec![false; count];
        let unit = std::mem::size_of::<GpuObjectRecord>();
        let empty = GpuObjectRecord::new(&SceneObject::NONE, bounds);
        let mut objects = objects.take(count);
        let mut chunks = vec![ChunkBox::default(); count.div_ceil(CHUNK as usize)];
        let buffer = upload_buffer_with(ctx, size, unit, usage, "scene objects", |at, dst| {
            let first = at / unit;
            let listed = object_mesh[first..].iter_mut().zip(drawn[first..].iter_mut());
            for (k, (dst, (mesh, drawn))) in dst.chunks_exact_mut(unit).zip(listed).enumerate() {
                if let Some(o) = objects.next() {
                    let (r, b) = GpuObjectRecord::with_box(&o, bounds);
                    chunks[chunk_of((first + k) as u32)].add(&b);
                    *mesh = r.mesh;
                    *drawn = r.mesh != NO_MESH;
                    dst.copy_from_slice(bytemuck::bytes_of(&r));
                } else {
                    dst.copy_from_slice(bytemuck::bytes_of(&empty));
                }
            }
        })?;
        // Hidden objects' records draw nothing: no bit is set.
        self.hidden_bits = vec![0; count.div_ceil(32)];
        // Every record was made with its box.
        self.replace_objects(ctx, buffer, chunks, provisional::Provisional::default(), count)?;
        self.object_mesh = object_mesh;
        self.drawn = drawn;
        self.pending.clear();
        self.rebuilds.uploads += 1;
        self.set_members(ctx, bounds.len())
    }

    /// Makes room for `count` records (more than held), keeping every
    /// record, chunk box and member: the records are copied into a larger
    /// buffer on the device (no record is made again on the CPU), the
    /// records past the old ones draw nothing until written, and the chunk
    /// boxes (a 48-byte box per 32 objects) are uploaded again from the
    /// CPU's copy. Fewer records than held change nothing.
    ///
    /// # Safety
    /// The device is idle (the old buffers may be destroyed).
    pub unsafe fn grow(&mut self, ctx: &Context, count: usize) -> Result<(), RenderError> {
        if count <= self.count as usize {
            return Ok(());
        }
        let gpu = &ctx.gpu;
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let (old, new) = (u64::from(self.count) * RECORD, count as u64 * RECORD);
        let buffer = Guard::new(gpu, Buffer::new(gpu, new, usage, MemoryLocation::GpuOnly, "scene objects")?);
        let (dst, src) = (buffer.raw, self.objects.as_ref().map(|b| b.raw));
        one_shot(ctx, |cb| {
            let d = &gpu.device;
            if let (Some(src), true) = (src, old > 0) {
                d.cmd_copy_buffer(cb, src, dst, &[vk::BufferCopy { src_offset: 0, dst_offset: 0, size: old }]);
            }
            // All ones: mesh NO_MESH, which draws nothing.
            d.cmd_fill_buffer(cb, dst, old, new - old, u32::MAX);
            let written = vk::MemoryBarrier2::default()
                .src_stage_mask(Stage::ALL_TRANSFER)
                .src_access_mask(Access::TRANSFER_WRITE)
                .dst_stage_mask(Stage::ALL_COMMANDS)
                .dst_access_mask(Access::MEMORY_READ | Access::MEMORY_WRITE);
            d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&[written]));
        })?;
        let mut chunks = self.chunks.clone();
        chunks.resize(count.div_ceil(CHUNK as usize), ChunkBox::default());
        self.hidden_bits.resize(count.div_ceil(32), 0);
        self.replace_objects(ctx, buffer.finish(), chunks, self.provisional.clone(), count)?;
        self.object_mesh.resize(count, NO_MESH);
        self.drawn.resize(count, false);
        self.rebuilds.grown += 1;
        Ok(())
    }

    /// Puts `objects` (a buffer of `count` records) in place of the object
    /// buffer, `chunks` and their uploaded boxes in place of the chunks,
    /// and `provisional` (which of the records are provisional) in place of
    /// the old one: the one place both buffers are destroyed and replaced
    /// (a whole upload, a grown buffer). On an error nothing is replaced.
    ///
    /// # Safety
    /// The device is idle (the old buffers may be destroyed).
    unsafe fn replace_objects(
        &mut self,
        ctx: &Context,
        objects: Buffer,
        chunks: Vec<ChunkBox>,
        mut provisional: provisional::Provisional,
        count: usize,
    ) -> Result<(), RenderError> {
        let gpu = &ctx.gpu;
        let objects = Guard::new(gpu, objects);
        provisional.resize(count);
        let boxes = Guard::new(gpu, upload_chunks(ctx, &chunks, provisional.per_chunk())?);
        let bits = upload_words(ctx, &self.hidden_bits)?;
        let boxes = boxes.finish();
        self.chunks = chunks;
        self.provisional = provisional;
        // The sets name the old buffers until written again.
        self.written.fill(false);
        self.objects.destroy(gpu);
        self.objects = Some(objects.finish());
        self.chunk_boxes.destroy(gpu);
        self.chunk_boxes = Some(boxes);
        self.hidden_buffer.destroy(gpu);
        self.hidden_buffer = Some(bits);
        self.pending_chunks.clear();
        // The buffer was made from the CPU's copy.
        self.pending_bits.clear();
        self.last_frame = None;
        self.count = count as u32;
        Ok(())
    }

    /// How often the buffers were built again (for tests).
    pub fn rebuilds(&self) -> GpuSceneRebuilds {
        self.rebuilds
    }

    /// Rebuilds the member list from `object_mesh` over `meshes` meshes and
    /// uploads it, followed by each workgroup's chunk span; sizes the
    /// keep masks, the workgroup counts, offsets and list, and the visible
    /// list.
    ///
    /// # Safety
    /// The device is idle (the old buffers may be destroyed).
    pub unsafe fn set_members(&mut self, ctx: &Context, meshes: usize) -> Result<(), RenderError> {
        let gpu = &ctx.gpu;
        let mut members = Members::new(&self.object_mesh, meshes);
        let slots = u64::from(members.len);
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER;
        members.slots.extend(members.spans.iter().flatten());
        let list = upload_buffer(ctx, bytemuck::cast_slice(&members.slots), usage, "cull members")?;
        members.slots = Vec::new();
        self.pending_members.clear();
        self.rebuilds.member_lists += 1;
        self.written.fill(false);
        self.member_slots.destroy(gpu);
        self.member_slots = Some(list);
        let scratch = |bytes: u64, usage, name| Buffer::new(gpu, bytes.max(4), usage, MemoryLocation::GpuOnly, name);
        self.masks.destroy(gpu);
        self.masks = Some(scratch(8 * slots / u64::from(GROUP), usage, "cull keep masks")?);
        self.groups.destroy(gpu);
        self.groups = Some(scratch(12 * slots / u64::from(GROUP), usage, "cull workgroup counts")?);
        self.visible.destroy(gpu);
        self.visible.clear();
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC;
        for _ in 0..MAX_VIEWS {
            self.visible.push(scratch(4 * slots, usage, "visible")?);
        }
        self.members = members;
        self.last_frame = None;
        Ok(())
    }
}

impl Destroy for GpuScene {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        for p in self.pipelines.iter_mut().chain(&mut self.multisampled) {
            p.destroy(gpu);
        }
        self.cull.destroy(gpu);
        self.objects.destroy(gpu);
        self.member_slots.destroy(gpu);
        self.masks.destroy(gpu);
        self.groups.destroy(gpu);
        self.visible.destroy(gpu);
        self.chunk_boxes.destroy(gpu);
        self.hidden_buffer.destroy(gpu);
        self.staging.destroy(gpu);
        self.frame_data.destroy(gpu);
        self.commands.destroy(gpu);
        // Frees the sets with it.
        gpu.device.destroy_descriptor_pool(self.pool, None);
        gpu.device.destroy_descriptor_set_layout(self.set_layout, None);
        self.sets.clear();
        self.pool = vk::DescriptorPool::null();
        self.set_layout = vk::DescriptorSetLayout::null();
    }
}

/// A storage buffer holding `words` (at least one word: an empty scene's
/// buffer is bound too).
fn upload_words(ctx: &Context, words: &[u32]) -> Result<Buffer, RenderError> {
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC;
    let n = words.len().max(1);
    upload_buffer_with(ctx, n * 4, 4, usage, "hidden objects", |at, dst| {
        for (dst, w) in
            dst.chunks_exact_mut(4).zip(words[(at / 4).min(words.len())..].iter().chain(std::iter::repeat(&0)))
        {
            dst.copy_from_slice(&w.to_le_bytes());
        }
    })
}

/// A buffer of chunk boxes holding `chunks`' GPU form, each chunk with
/// the count of its provisional records `provisional` gives
/// ([`ChunkBox::gpu_with`]).
fn upload_chunks(ctx: &Context, chunks: &[ChunkBox], provisional: &[u8]) -> Result<Buffer, RenderError> {
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC;
    let unit = CHUNK_BYTES as usize;
    upload_buffer_with(ctx, chunks.len() * unit, unit, usage, "cull chunks", |at, dst| {
        let first = at / unit;
        for (k, (dst, c)) in dst.chunks_exact_mut(unit).zip(&chunks[first..]).enumerate() {
            let held = provisional.get(first + k).copied().unwrap_or(0);
            dst.copy_from_slice(bytemuck::bytes_of(&c.gpu_with(held)));
        }
    })
}
