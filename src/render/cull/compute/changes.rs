//! Edits of the GPU scene between whole uploads: the records of the
//! objects that changed, the grown boxes of their chunks and the member
//! slots of new objects, queued here and copied by the next frame in its
//! own command buffer.

use ash::vk;

use super::chunks::{chunk_of, GpuChunk};
use super::records::NO_MESH;
use super::{Access, GpuObjectRecord, GpuScene, MeshBounds, SceneObject, Stage, CHUNK_BYTES, RECORD};
use crate::render::device::error::RenderError;
use crate::render::device::Gpu;

impl GpuScene {
    /// Queues new records for the objects `changed` names (copied by the
    /// next frame). An index past the objects is an error, nothing queued.
    /// An object that starts to draw a mesh (a new one: a duplicate, an
    /// import) is appended to the mesh's members (`Members::append`).
    /// Returns whether that failed, or an object moved to another mesh: the
    /// member list is then stale ([`GpuScene::set_members`] before the next
    /// frame). A record that draws nothing (a deleted object) stays listed
    /// under its old mesh, where the cull skips it, so deleting objects and
    /// undoing the delete leave the member list as it is.
    pub fn update(&mut self, changed: &[(u32, SceneObject)], bounds: &[MeshBounds]) -> Result<bool, RenderError> {
        if let Some(&(i, _)) = changed.iter().find(|(i, _)| *i >= self.count) {
            return Err(RenderError::BadObject { index: i, count: self.count });
        }
        let mut remeshed = false;
        for (i, o) in changed {
            let (r, b) = GpuObjectRecord::with_box(o, bounds);
            // The chunk's box grows to hold the object's new box.
            let c = chunk_of(*i);
            let before = self.chunks[c];
            self.chunks[c].add(&b);
            if self.chunks[c] != before {
                self.pending_chunks.insert(c);
            }
            let listed = &mut self.object_mesh[*i as usize];
            if r.mesh != NO_MESH && r.mesh != *listed {
                let appended = *listed == NO_MESH
                    && !remeshed
                    && self.members.append(*i, r.mesh as usize, &mut self.pending_members);
                *listed = r.mesh;
                remeshed |= !appended;
            }
            self.pending.insert(*i, r);
        }
        Ok(remeshed)
    }

    /// Records the copies of the queued records and chunk boxes from frame
    /// `fi`'s staging buffer, contiguous runs as one region each, after a
    /// barrier that orders them after earlier reads and copies.
    ///
    /// # Safety
    /// Frame `fi`'s fence was waited for; `cmd` is recording outside a
    /// rendering scope.
    pub(super) unsafe fn copy_pending(
        &mut self,
        gpu: &Gpu,
        cmd: vk::CommandBuffer,
        fi: usize,
    ) -> Result<(), RenderError> {
        let d = &gpu.device;
        if self.pending.is_empty() && self.pending_chunks.is_empty() && self.pending_members.is_empty() {
            return Ok(());
        }
        {
            let record_bytes = self.pending.len() as u64 * RECORD;
            let chunk_bytes = self.pending_chunks.len() as u64 * CHUNK_BYTES;
            let member_bytes = self.pending_members.len() as u64 * 4;
            let staging = self.staging[fi].reserve(gpu, record_bytes + chunk_bytes + member_bytes)?;
            let records: Vec<GpuObjectRecord> = self.pending.values().copied().collect();
            staging.write(0, bytemuck::cast_slice(&records), "object staging")?;
            let boxes: Vec<GpuChunk> = self.pending_chunks.iter().map(|&c| self.chunks[c].gpu()).collect();
            staging.write(record_bytes as usize, bytemuck::cast_slice(&boxes), "object staging")?;
            let words: Vec<u32> = self.pending_members.values().copied().collect();
            let member_at = record_bytes + chunk_bytes;
            staging.write(member_at as usize, bytemuck::cast_slice(&words), "object staging")?;
            let regions = copy_regions(self.pending.keys().map(|&i| u64::from(i)), RECORD, 0);
            let chunk_regions = copy_regions(self.pending_chunks.iter().map(|&c| c as u64), CHUNK_BYTES, record_bytes);
            let member_regions = copy_regions(self.pending_members.keys().map(|&w| u64::from(w)), 4, member_at);
            let before = vk::MemoryBarrier2::default()
                .src_stage_mask(Stage::COPY | Stage::COMPUTE_SHADER | Stage::VERTEX_SHADER)
                .src_access_mask(Access::TRANSFER_WRITE)
                .dst_stage_mask(Stage::COPY)
                .dst_access_mask(Access::TRANSFER_WRITE);
            d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&[before]));
            if !regions.is_empty() {
                if let Some(objects) = &self.objects {
                    d.cmd_copy_buffer(cmd, staging.raw, objects.raw, &regions);
                }
            }
            if let (Some(chunks), false) = (&self.chunk_boxes, chunk_regions.is_empty()) {
                d.cmd_copy_buffer(cmd, staging.raw, chunks.raw, &chunk_regions);
            }
            if let (Some(members), false) = (&self.member_slots, member_regions.is_empty()) {
                d.cmd_copy_buffer(cmd, staging.raw, members.raw, &member_regions);
            }
            self.pending.clear();
            self.pending_chunks.clear();
            self.pending_members.clear();
        }
        Ok(())
    }
}

/// Copy regions for items of `unit` bytes at the (ascending) indices
/// `indices` of a buffer, read one after another from `src` on: each run of
/// consecutive indices is one region.
fn copy_regions(indices: impl Iterator<Item = u64>, unit: u64, src: u64) -> Vec<vk::BufferCopy> {
    let mut regions: Vec<vk::BufferCopy> = Vec::new();
    let mut last = None;
    for (k, i) in indices.enumerate() {
        match regions.last_mut() {
            Some(r) if last == Some(i.wrapping_sub(1)) => r.size += unit,
            _ => regions.push(vk::BufferCopy { src_offset: src + k as u64 * unit, dst_offset: i * unit, size: unit }),
        }
        last = Some(i);
    }
    regions
}
