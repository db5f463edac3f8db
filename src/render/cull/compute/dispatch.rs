//! The per-frame cull: the header, mesh table and commands written for
//! the frame, the pending records copied, and the compute dispatch with its
//! barriers (see the module docs of `cull::compute`).

use ash::vk;

use super::*;

impl GpuScene {
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
        // Slot `fi` is view `fi % MAX_VIEWS` of a frame in flight.
        let visible = self.visible.get(fi % MAX_VIEWS);
        let buffers = (&self.objects, &self.member_slots, &self.masks, &self.groups, visible);
        let (Some(objects), Some(members), Some(masks), Some(groups), Some(visible)) = buffers else {
            self.draws[fi].clear();
            return Ok(0);
        };
        let (Some(chunk_boxes), Some(hidden)) =
            (self.chunk_boxes.as_ref().map(|b| b.raw), self.hidden_buffer.as_ref().map(|b| b.raw))
        else {
            self.draws[fi].clear();
            return Ok(0);
        };
        let (objects, members, masks, groups, visible) = (objects.raw, members.raw, masks.raw, groups.raw, visible.raw);
        self.last_frame = Some(fi);
        self.settle_pending();
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
        let mut header = FrameHeader::new(&inputs.view, &inputs.eye, inputs.frustum.as_ref(), counts);
        if header.counts[1] >= 5 {
            // The near plane (index 4) tells corners in front of it.
            header.small = inputs.small;
        }
        let mut data = bytemuck::bytes_of(&header).to_vec();
        data.extend_from_slice(bytemuck::cast_slice(&table));
        // The indirect dispatch of the cull and the scatter (x counted up
        // by the coarse pass), then the draws.
        let mut command_bytes = bytemuck::bytes_of(&[0u32, 1, 1, 0]).to_vec();
        command_bytes.extend_from_slice(bytemuck::cast_slice(&commands));
        let command_len = command_bytes.len() as u64;
        // A set is written again only when one of its buffers was replaced.
        let regrown = self.frame_data[fi].must_grow(data.len() as u64) || self.commands[fi].must_grow(command_len);
        let rewrite = regrown || !self.written[fi];
        let frame_data = self.frame_data[fi].reserve(gpu, data.len() as u64)?;
        frame_data.write(0, &data, "cull frame data")?;
        let frame_data = frame_data.raw;
        let command_buffer = self.commands[fi].reserve(gpu, command_len)?;
        command_buffer.write(0, &command_bytes, "indirect")?;
        let command_buffer = command_buffer.raw;

        // 1. The changed records and grown chunk boxes.
        self.copy_pending(gpu, cmd, fi)?;
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
                info(objects),
                info(frame_data),
                info(command_buffer),
                info(visible),
                info(members),
                info(masks),
                info(groups),
                info(chunk_boxes),
                info(hidden),
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

        // 3. The coarse pass, the cull, the scan per mesh, the scatter (see
        //    `cull.comp`); the cull and the scatter are dispatched over the
        //    workgroups the coarse pass lists.
        if slots > 0 && !commands.is_empty() {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.cull.raw);
            d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::COMPUTE, self.cull.layout, 0, &[self.sets[fi]], &[]);
            let between = vk::MemoryBarrier2::default()
                .src_stage_mask(Stage::COMPUTE_SHADER)
                .src_access_mask(Access::SHADER_STORAGE_WRITE)
                .dst_stage_mask(Stage::COMPUTE_SHADER)
                .dst_access_mask(Access::SHADER_STORAGE_READ | Access::SHADER_STORAGE_WRITE);
            // The coarse pass's list count is the indirect dispatch's x.
            let listed = vk::MemoryBarrier2::default()
                .src_stage_mask(Stage::COMPUTE_SHADER)
                .src_access_mask(Access::SHADER_STORAGE_WRITE)
                .dst_stage_mask(Stage::DRAW_INDIRECT | Stage::COMPUTE_SHADER)
                .dst_access_mask(
                    Access::INDIRECT_COMMAND_READ | Access::SHADER_STORAGE_READ | Access::SHADER_STORAGE_WRITE,
                );
            let workgroups = slots / GROUP;
            // (phase, workgroups: None for the listed ones)
            let phases =
                [(0u32, Some(workgroups.div_ceil(GROUP))), (1, None), (2, Some(meshes.len() as u32)), (3, None)];
            for (phase, groups) in phases {
                // Before the indirect dispatches: also their x (the scan
                // writes instance counts into the same buffer).
                let barrier = if groups.is_none() { listed } else { between };
                if phase > 0 {
                    d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&[barrier]));
                }
                let stage = vk::ShaderStageFlags::COMPUTE;
                d.cmd_push_constants(cmd, self.cull.layout, stage, 0, bytemuck::bytes_of(&phase));
                match groups {
                    Some(n) => d.cmd_dispatch(cmd, n, 1, 1),
                    None => d.cmd_dispatch_indirect(cmd, command_buffer, 0),
                }
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
}
