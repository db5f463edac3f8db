//! The GPU-driven scene path (GPU culling): scene objects live in a
//! persistent device-local buffer of [`GpuObjectRecord`]s, written whole
//! when the scene's structure changes and otherwise only for the objects
//! that changed (copied from a per-frame staging buffer in the frame's own
//! command buffer), beside a member list ([`records::Members`]: the objects'
//! indices grouped by mesh, ascending, padded to whole workgroups) rebuilt
//! with it. Each frame `cull.comp` runs three dispatches, an ordered
//! compaction: a cull (one thread per member slot: the box against the
//! frustum, the kept object's rank in its workgroup), a scan per mesh of
//! the workgroups' counts (which writes each mesh part's
//! `VkDrawIndexedIndirectCommand` instance count), and a scatter of the
//! kept objects into the mesh's slice of a visible list. Each mesh's
//! visible objects are thus in ascending object order, every frame, as
//! the CPU path draws them: of two coincident surfaces the same object
//! keeps the pixel's id on both paths (the later one: the depth test passes
//! on equal depth). The scene pass then records one
//! `vkCmdDrawIndexedIndirect` per mesh part, whatever the number of objects.
//! Meshes with blended parts are skipped by the cull: their objects come
//! in [`crate::render::FrameDesc::objects`], drawn after these by the CPU
//! scene pass, sorted back to front.
//!
//! Synchronisation, per frame: the header, mesh table and commands are
//! per-frame host-visible buffers written after the frame's fence (instance
//! counts 0). The object buffer, the member list, the ranks, the workgroup
//! counts and the visible list are shared by the frames in flight, so the
//! recorded order is
//! 1. (only with changes) previous compute and vertex reads -> copy writes,
//!    then the copies of the changed records;
//! 2. copies and previous vertex reads -> compute reads and writes;
//! 3. the three dispatches, compute writes -> compute reads and writes
//!    between them;
//! 4. compute writes -> indirect command reads and vertex shader reads.

mod read_back;
mod records;

use std::collections::BTreeMap;

use ash::vk;
use gpu_allocator::MemoryLocation;
use nalgebra::{Matrix4, Point3};

pub(crate) use records::MeshBounds;
pub use records::{split_f64, GpuObjectRecord, SceneObject};
use records::{FrameHeader, IndexedCommand, Members, MeshInfo, GROUP, NO_MESH};

use super::context::Context;
use super::error::{RenderError, VkContext};
use super::material::{Materials, Pass};
use super::mesh::GpuMesh;
use super::pipeline::{self, shader_module, spirv, Pipeline};
use super::resources::{per_frame_sets, upload_buffer, upload_buffer_with, Buffer, Destroy, Gpu, GrowBuffer, Guard};
use super::scene::{MaterialShaders, ScenePush, MATERIAL_PUSH_OFFSET};
use super::MaterialId;
use crate::math::{DepthMode, Frustum};

const RECORD: u64 = std::mem::size_of::<GpuObjectRecord>() as u64;
const COMMAND: u64 = std::mem::size_of::<IndexedCommand>() as u64;
/// Storage buffers of the cull's descriptor set (see `cull.comp`).
const BINDINGS: u32 = 7;

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
    pending: BTreeMap<u32, GpuObjectRecord>,
    objects: Option<Buffer>,
    /// The member list, per slot: the kept object's rank in its workgroup
    /// (ranks), per workgroup: its count, then its offset (groups), and
    /// per slot: the visible list; see `cull.comp`.
    member_slots: Option<Buffer>,
    ranks: Option<Buffer>,
    groups: Option<Buffer>,
    visible: Option<Buffer>,
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
                pending: BTreeMap::new(),
                objects: None,
                member_slots: None,
                ranks: None,
                groups: None,
                visible: None,
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
        let unit = std::mem::size_of::<GpuObjectRecord>();
        let empty = GpuObjectRecord::new(&SceneObject::NONE, bounds);
        let mut objects = objects.take(count);
        let buffer = upload_buffer_with(ctx, size, unit, usage, "scene objects", |at, dst| {
            let chunks = dst.chunks_exact_mut(unit);
            for (chunk, mesh) in chunks.zip(object_mesh[at / unit..].iter_mut()) {
                let r = objects.next().map_or(empty, |o| GpuObjectRecord::new(&o, bounds));
                *mesh = r.mesh;
                chunk.copy_from_slice(bytemuck::bytes_of(&r));
            }
        })?;
        // The sets name the old buffers until written again.
        self.written.fill(false);
        self.objects.destroy(&ctx.gpu);
        self.objects = Some(buffer);
        self.last_frame = None;
        self.count = count as u32;
        self.object_mesh = object_mesh;
        self.pending.clear();
        self.set_members(ctx, bounds.len())
    }

    /// Rebuilds the member list from `object_mesh` over `meshes` meshes and
    /// uploads it; sizes the ranks, workgroup counts and visible list.
    ///
    /// # Safety
    /// The device is idle (the old buffers may be destroyed).
    pub unsafe fn set_members(&mut self, ctx: &Context, meshes: usize) -> Result<(), RenderError> {
        let gpu = &ctx.gpu;
        let mut members = Members::new(&self.object_mesh, meshes);
        let slots = u64::from(members.len);
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let list = upload_buffer(ctx, bytemuck::cast_slice(&members.slots), usage, "cull members")?;
        self.written.fill(false);
        self.member_slots.destroy(gpu);
        self.member_slots = Some(list);
        let scratch = |bytes: u64, usage, name| Buffer::new(gpu, bytes.max(4), usage, MemoryLocation::GpuOnly, name);
        self.ranks.destroy(gpu);
        self.ranks = Some(scratch(4 * slots, usage, "cull ranks")?);
        self.groups.destroy(gpu);
        self.groups = Some(scratch(4 * slots / u64::from(GROUP), usage, "cull workgroup counts")?);
        self.visible.destroy(gpu);
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC;
        self.visible = Some(scratch(4 * slots, usage, "visible")?);
        members.slots = Vec::new();
        self.members = members;
        self.last_frame = None;
        Ok(())
    }

    /// Queues new records for the objects `changed` names (copied by the
    /// next frame). An index past the objects is an error, nothing queued.
    /// Returns whether an object now draws a mesh it is not listed under:
    /// the member list is then stale ([`GpuScene::set_members`] before the
    /// next frame). A record that draws nothing (a deleted object) stays
    /// listed under its old mesh, where the cull skips it, so deleting
    /// objects and undoing the delete leave the member list as it is.
    pub fn update(&mut self, changed: &[(u32, SceneObject)], bounds: &[MeshBounds]) -> Result<bool, RenderError> {
        if let Some(&(i, _)) = changed.iter().find(|(i, _)| *i >= self.count) {
            return Err(RenderError::BadObject { index: i, count: self.count });
        }
        let mut remeshed = false;
        for (i, o) in changed {
            let r = GpuObjectRecord::new(o, bounds);
            let listed = &mut self.object_mesh[*i as usize];
            if r.mesh != NO_MESH && r.mesh != *listed {
                *listed = r.mesh;
                remeshed = true;
            }
            self.pending.insert(*i, r);
        }
        Ok(remeshed)
    }

    /// Frame `fi`, before the scene pass: writes the header, mesh table and
    /// commands, copies pending records, and records the cull dispatch with
    /// its barriers (see the module docs). Returns how many records it copies.
    ///
    /// # Safety
    /// Frame `fi`'s fence was waited for; `cmd` is recording outside a
    /// rendering scope.
    pub unsafe fn cull(
        &mut self,
        gpu: &Gpu,
        cmd: vk::CommandBuffer,
        fi: usize,
        inputs: &CullInputs,
    ) -> Result<u32, RenderError> {
        let d = &gpu.device;
        let buffers = (&self.objects, &self.member_slots, &self.ranks, &self.groups, &self.visible);
        let (Some(objects), Some(members), Some(ranks), Some(groups), Some(visible)) = buffers else {
            self.draws[fi].clear();
            return Ok(0);
        };
        self.last_frame = Some(fi);
        let uploaded = self.pending.len() as u32;
        let meshes = inputs.meshes;
        // The mesh table and commands: every part of every mesh culled here,
        // instance counts 0, each mesh's instances from its slice of the
        // visible list. Meshes with blended parts are left to the CPU list.
        let mut table = Vec::with_capacity(meshes.len());
        let mut commands: Vec<IndexedCommand> = Vec::new();
        let draws = &mut self.draws[fi];
        draws.clear();
        for (m, mesh) in meshes.iter().enumerate() {
            let (lo, hi) = inputs.bounds.get(m).copied().unwrap_or(([0.0; 3], [0.0; 3]));
            let first_cmd = commands.len() as u32;
            let (base, group_count) = self.members.of(m);
            let blended = inputs.blended.get(m).copied().unwrap_or(false);
            let drawn = group_count > 0 && mesh.vertices.is_some() && !blended;
            if drawn {
                for p in &mesh.parts {
                    let Some(material) = inputs.materials.get(p.material) else { continue };
                    draws.push(IndirectDraw {
                        pass: material.pass,
                        material: p.material,
                        mesh: m,
                        command: commands.len() as u32,
                    });
                    commands.push(IndexedCommand {
                        index_count: p.count,
                        instance_count: 0,
                        first_index: p.first,
                        vertex_offset: 0,
                        first_instance: base,
                    });
                }
            }
            table.push(MeshInfo {
                center: std::array::from_fn(|k| (lo[k] + hi[k]) * 0.5),
                first_cmd,
                half: std::array::from_fn(|k| (hi[k] - lo[k]) * 0.5),
                cmd_count: commands.len() as u32 - first_cmd,
                base,
                groups: group_count,
                pad: [0; 2],
            });
        }
        draws.sort_by_key(|d| (d.pass, d.material, d.mesh, d.command));
        let slots = self.members.len;
        let counts = (self.count, meshes.len() as u32, slots);
        let header = FrameHeader::new(&inputs.view, &inputs.eye, inputs.frustum.as_ref(), counts);
        let mut data = bytemuck::bytes_of(&header).to_vec();
        data.extend_from_slice(bytemuck::cast_slice(&table));
        let command_bytes: &[u8] = bytemuck::cast_slice(&commands);
        let command_len = command_bytes.len().max(4) as u64;
        // A set is written again only when one of its buffers was replaced.
        let regrown = self.frame_data[fi].must_grow(data.len() as u64) || self.commands[fi].must_grow(command_len);
        let rewrite = regrown || !self.written[fi];
        let frame_data = self.frame_data[fi].reserve(gpu, data.len() as u64)?;
        frame_data.write(0, &data, "cull frame data")?;
        let frame_data = frame_data.raw;
        let command_buffer = self.commands[fi].reserve(gpu, command_len)?;
        command_buffer.write(0, command_bytes, "indirect")?;
        let command_buffer = command_buffer.raw;

        // 1. The changed records, contiguous runs copied as one region each.
        if !self.pending.is_empty() {
            let staging = self.staging[fi].reserve(gpu, self.pending.len() as u64 * RECORD)?;
            let records: Vec<GpuObjectRecord> = self.pending.values().copied().collect();
            staging.write(0, bytemuck::cast_slice(&records), "object staging")?;
            let mut regions: Vec<vk::BufferCopy> = Vec::new();
            let mut last = None;
            for (k, &i) in self.pending.keys().enumerate() {
                match regions.last_mut() {
                    Some(r) if last == Some(i - 1) => r.size += RECORD,
                    _ => regions.push(vk::BufferCopy {
                        src_offset: k as u64 * RECORD,
                        dst_offset: u64::from(i) * RECORD,
                        size: RECORD,
                    }),
                }
                last = Some(i);
            }
            let before = vk::MemoryBarrier2::default()
                .src_stage_mask(Stage::COPY | Stage::COMPUTE_SHADER | Stage::VERTEX_SHADER)
                .src_access_mask(Access::TRANSFER_WRITE)
                .dst_stage_mask(Stage::COPY)
                .dst_access_mask(Access::TRANSFER_WRITE);
            d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&[before]));
            d.cmd_copy_buffer(cmd, staging.raw, objects.raw, &regions);
            self.pending.clear();
        }
        // 2. Copies and the previous frame's reads of the visible list
        //    before the cull's reads and writes.
        let to_compute = vk::MemoryBarrier2::default()
            .src_stage_mask(Stage::COPY | Stage::COMPUTE_SHADER | Stage::VERTEX_SHADER)
            .src_access_mask(Access::TRANSFER_WRITE | Access::SHADER_STORAGE_WRITE)
            .dst_stage_mask(Stage::COMPUTE_SHADER | Stage::VERTEX_SHADER)
            .dst_access_mask(Access::SHADER_STORAGE_READ | Access::SHADER_STORAGE_WRITE);
        d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&[to_compute]));

        // Whole buffers: an empty scene's object buffer still has 4 bytes.
        if rewrite {
            let info = |buffer: vk::Buffer| [vk::DescriptorBufferInfo { buffer, offset: 0, range: vk::WHOLE_SIZE }];
            let infos = [
                info(objects.raw),
                info(frame_data),
                info(command_buffer),
                info(visible.raw),
                info(members.raw),
                info(ranks.raw),
                info(groups.raw),
            ];
            let writes: Vec<_> = infos
                .iter()
                .enumerate()
                .map(|(b, i)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(self.sets[fi])
                        .dst_binding(b as u32)
                        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                        .buffer_info(i)
                })
                .collect();
            d.update_descriptor_sets(&writes, &[]);
            self.written[fi] = true;
        }

        // 3. The cull, the scan per mesh, the scatter (see `cull.comp`).
        if slots > 0 && !commands.is_empty() {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.cull.raw);
            d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::COMPUTE, self.cull.layout, 0, &[self.sets[fi]], &[]);
            let between = vk::MemoryBarrier2::default()
                .src_stage_mask(Stage::COMPUTE_SHADER)
                .src_access_mask(Access::SHADER_STORAGE_WRITE)
                .dst_stage_mask(Stage::COMPUTE_SHADER)
                .dst_access_mask(Access::SHADER_STORAGE_READ | Access::SHADER_STORAGE_WRITE);
            let phases = [(0u32, slots / GROUP), (1, meshes.len() as u32), (2, slots / GROUP)];
            for (k, (phase, groups)) in phases.into_iter().enumerate() {
                if k > 0 {
                    d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&[between]));
                }
                let stage = vk::ShaderStageFlags::COMPUTE;
                d.cmd_push_constants(cmd, self.cull.layout, stage, 0, bytemuck::bytes_of(&phase));
                d.cmd_dispatch(cmd, groups, 1, 1);
            }
        }
        // 4. Its counts and list before the draws read them.
        let to_draw = vk::MemoryBarrier2::default()
            .src_stage_mask(Stage::COMPUTE_SHADER)
            .src_access_mask(Access::SHADER_STORAGE_WRITE)
            .dst_stage_mask(Stage::DRAW_INDIRECT | Stage::VERTEX_SHADER)
            .dst_access_mask(Access::INDIRECT_COMMAND_READ | Access::SHADER_STORAGE_READ);
        d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&[to_draw]));
        Ok(uploaded)
    }

    /// Records frame `fi`'s indirect draws (after [`GpuScene::cull`]);
    /// returns the draw calls.
    ///
    /// # Safety
    /// `cmd` is recording inside the scene pass's rendering scope, viewport
    /// and scissor set; the buffers live until the GPU finished the frame.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn record(
        &self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
        fi: usize,
        push: &ScenePush,
        depth: DepthMode,
        meshes: &[GpuMesh],
        materials: &Materials,
        multisampled: bool,
    ) -> u32 {
        let Some(commands) = self.commands[fi].get() else { return 0 };
        let (mut pass, mut material, mut mesh) = (None, None, None);
        let mut calls = 0;
        for draw in &self.draws[fi] {
            let Some(m) = materials.get(draw.material) else { continue };
            let pipeline = if multisampled { &self.multisampled } else { &self.pipelines };
            let pipeline = &pipeline[draw.pass as usize];
            if pass != Some(draw.pass) {
                d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline.raw);
                d.cmd_set_depth_compare_op(cmd, pipeline::compare_op(depth));
                pipeline::push(d, cmd, pipeline.layout, push);
                let set = [self.sets[fi]];
                d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline.layout, 1, &set, &[]);
                pass = Some(draw.pass);
                material = None;
            }
            if material != Some(draw.material) {
                d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline.layout, 0, &[m.set], &[]);
                d.cmd_push_constants(
                    cmd,
                    pipeline.layout,
                    vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                    MATERIAL_PUSH_OFFSET,
                    bytemuck::bytes_of(&m.push),
                );
                material = Some(draw.material);
            }
            if mesh != Some(draw.mesh) {
                let g = &meshes[draw.mesh];
                let (Some(v), Some(i), Some(s)) = (&g.vertices, &g.indices, &g.surface) else { continue };
                d.cmd_bind_vertex_buffers(cmd, 0, &[v.raw], &[0]);
                d.cmd_bind_vertex_buffers(cmd, 2, &[s.raw], &[0]);
                d.cmd_bind_index_buffer(cmd, i.raw, 0, vk::IndexType::UINT32);
                mesh = Some(draw.mesh);
            }
            d.cmd_draw_indexed_indirect(cmd, commands.raw, u64::from(draw.command) * COMMAND, 1, COMMAND as u32);
            calls += 1;
        }
        calls
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
        self.ranks.destroy(gpu);
        self.groups.destroy(gpu);
        self.visible.destroy(gpu);
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
