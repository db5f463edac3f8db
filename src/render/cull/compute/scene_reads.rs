//! Read-backs of the GPU scene for tests: one object's record, and the
//! objects the last culled frame drew.

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::records::IndexedCommand;
use super::{Access, GpuObjectRecord, GpuScene, Stage, COMMAND, DISPATCH, RECORD};
use crate::render::device::context::Context;
use crate::render::device::error::RenderError;
use crate::render::device::{one_shot, Buffer, Guard};

impl GpuScene {
    /// Reads object `index`'s record back from the GPU (waits for the
    /// device; for tests). Pending changes are not included until a frame
    /// has copied them.
    pub fn read(&self, ctx: &Context, index: u32) -> Result<GpuObjectRecord, RenderError> {
        let objects = self.objects.as_ref().filter(|_| index < self.count);
        let objects = objects.ok_or(RenderError::BadObject { index, count: self.count })?;
        let bytes = download(ctx, &[(objects.raw, u64::from(index) * RECORD, RECORD)])?;
        Ok(bytemuck::pod_read_unaligned(&bytes[0]))
    }

    /// How many workgroups of member slots the last culled frame's coarse
    /// pass kept for the per-object test, and how many hold objects (waits
    /// for the device; for tests).
    pub fn read_listed(&self, ctx: &Context) -> Result<(u32, u32), RenderError> {
        let total = self.members.used_groups();
        let Some(fi) = self.last_frame else { return Ok((0, total)) };
        let Some(commands) = self.commands[fi].get() else { return Ok((0, total)) };
        let bytes = download(ctx, &[(commands.raw, 0, 4)])?;
        Ok((bytemuck::pod_read_unaligned(&bytes[0]), total))
    }

    /// The objects (indices, ascending) the last culled frame drew, read
    /// back from its commands and visible list (waits for the device; for
    /// tests). Empty before the first culled frame.
    pub fn read_drawn(&self, ctx: &Context) -> Result<Vec<u32>, RenderError> {
        let Some(fi) = self.last_frame else { return Ok(Vec::new()) };
        let Some(visible) = self.visible.get(fi % crate::render::desc::MAX_VIEWS) else { return Ok(Vec::new()) };
        let Some(commands) = self.commands[fi].get() else { return Ok(Vec::new()) };
        let bytes = download(ctx, &[(commands.raw, 0, commands.size), (visible.raw, 0, visible.size)])?;
        let commands: Vec<IndexedCommand> =
            bytes[0][DISPATCH as usize..].chunks_exact(COMMAND as usize).map(bytemuck::pod_read_unaligned).collect();
        let visible: Vec<u32> = bytes[1].chunks_exact(4).map(bytemuck::pod_read_unaligned).collect();
        // The first command of each mesh (its parts share the instances).
        let mut firsts: Vec<(usize, u32)> = Vec::new();
        for d in &self.draws[fi] {
            match firsts.iter_mut().find(|(m, _)| *m == d.mesh) {
                Some(f) => f.1 = f.1.min(d.command),
                None => firsts.push((d.mesh, d.command)),
            }
        }
        let mut drawn = Vec::new();
        for (_, c) in firsts {
            let c = commands[c as usize];
            let range = c.first_instance as usize..(c.first_instance + c.instance_count) as usize;
            drawn.extend_from_slice(
                visible.get(range).ok_or(RenderError::BadObject { index: c.first_instance, count: self.count })?,
            );
        }
        drawn.sort_unstable();
        Ok(drawn)
    }
}

/// Copies buffer ranges (buffer, offset, size) into host memory and
/// returns their bytes: waits for the device, then one submit whose
/// barriers order the copies after every earlier write.
fn download(ctx: &Context, ranges: &[(vk::Buffer, u64, u64)]) -> Result<Vec<Vec<u8>>, RenderError> {
    let gpu = &ctx.gpu;
    let total: u64 = ranges.iter().map(|r| r.2).sum();
    let usage = vk::BufferUsageFlags::TRANSFER_DST;
    let host = Guard::new(gpu, Buffer::new(gpu, total, usage, MemoryLocation::GpuToCpu, "read-back")?);
    ctx.wait_idle()?;
    one_shot(ctx, |cb| {
        let after_writes = vk::MemoryBarrier2::default()
            .src_stage_mask(Stage::ALL_COMMANDS)
            .src_access_mask(Access::MEMORY_WRITE)
            .dst_stage_mask(Stage::COPY)
            .dst_access_mask(Access::TRANSFER_READ);
        let mut at = 0;
        // SAFETY: the buffers live until the one-shot submit was waited for.
        unsafe {
            let d = ctx.device();
            d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&[after_writes]));
            for &(buffer, offset, size) in ranges {
                d.cmd_copy_buffer(cb, buffer, host.raw, &[vk::BufferCopy { src_offset: offset, dst_offset: at, size }]);
                at += size;
            }
            let b = [crate::render::device::barrier::copies_to_host()];
            d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&b));
        }
    })?;
    let bytes = host.mapped_ref().ok_or(RenderError::NotHostVisible("read-back"))?;
    let mut at = 0;
    Ok(ranges
        .iter()
        .map(|r| {
            let v = bytes[at..at + r.2 as usize].to_vec();
            at += r.2 as usize;
            v
        })
        .collect())
}
