//! The copies of the queued edits (records, chunk boxes, member words,
//! hidden bits) from a frame's staging buffer into the GPU scene's
//! buffers, recorded in the frame's own command buffer.

use ash::vk;

use super::chunks::GpuChunk;
use super::{Access, GpuScene, Stage, CHUNK_BYTES, RECORD};
use crate::render::device::error::RenderError;
use crate::render::device::Gpu;

impl GpuScene {
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
        // This frame's edits are all made: the next frame's budget starts.
        self.provisional.new_frame();
        if self.pending.is_empty()
            && self.pending_chunks.is_empty()
            && self.pending_members.is_empty()
            && self.pending_bits.is_empty()
        {
            return Ok(());
        }
        self.settle_pending();
        {
            let record_bytes = self.pending.len() as u64 * RECORD;
            let chunk_bytes = self.pending_chunks.len() as u64 * CHUNK_BYTES;
            let member_bytes = self.pending_members.len() as u64 * 4;
            // Hidden bits: each changed word, or one run from the first to
            // the last changed word when that is fewer regions' worth.
            let bit_words: Vec<u32> = self.pending_bits.keys().collect();
            let bit_run = match (bit_words.first(), bit_words.last()) {
                (Some(&a), Some(&b)) if bit_words.len() > 16 => Some((a, b)),
                _ => None,
            };
            let bit_bytes = match bit_run {
                Some((a, b)) => u64::from(b - a + 1) * 4,
                None => bit_words.len() as u64 * 4,
            };
            let staging = self.staging[fi].reserve(gpu, record_bytes + chunk_bytes + member_bytes + bit_bytes)?;
            // The records go straight into the mapped memory, one after another.
            let mapped = staging.mapped().ok_or(RenderError::NotHostVisible("object staging"))?;
            mapped[..record_bytes as usize].copy_from_slice(bytemuck::cast_slice(self.pending.values()));
            let held = |c: u32| self.provisional.per_chunk().get(c as usize).copied().unwrap_or(0);
            let boxes: Vec<GpuChunk> =
                self.pending_chunks.keys().map(|c| self.chunks[c as usize].gpu_with(held(c))).collect();
            staging.write(record_bytes as usize, bytemuck::cast_slice(&boxes), "object staging")?;
            let member_at = record_bytes + chunk_bytes;
            staging.write(member_at as usize, bytemuck::cast_slice(self.pending_members.values()), "object staging")?;
            let regions = copy_regions(self.pending.keys().map(u64::from), RECORD, 0);
            let chunk_regions = copy_regions(self.pending_chunks.keys().map(u64::from), CHUNK_BYTES, record_bytes);
            let member_regions = copy_regions(self.pending_members.keys().map(u64::from), 4, member_at);
            let bits_at = member_at + member_bytes;
            let bit_regions = match bit_run {
                Some((a, b)) => {
                    let run = &self.hidden_bits[a as usize..=b as usize];
                    staging.write(bits_at as usize, bytemuck::cast_slice(run), "object staging")?;
                    vec![vk::BufferCopy { src_offset: bits_at, dst_offset: u64::from(a) * 4, size: bit_bytes }]
                }
                None => {
                    let words: Vec<u32> = bit_words.iter().map(|&w| self.hidden_bits[w as usize]).collect();
                    staging.write(bits_at as usize, bytemuck::cast_slice(&words), "object staging")?;
                    copy_regions(bit_words.iter().map(|&w| u64::from(w)), 4, bits_at)
                }
            };
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
            if let (Some(bits), false) = (&self.hidden_buffer, bit_regions.is_empty()) {
                d.cmd_copy_buffer(cmd, staging.raw, bits.raw, &bit_regions);
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
            self.pending_bits.clear();
        }
        Ok(())
    }
}

impl GpuScene {
    /// Puts the queued records, chunk boxes and member words in index
    /// order, each once.
    pub(super) fn settle_pending(&mut self) {
        self.pending.settle();
        self.pending_chunks.settle();
        self.pending_members.settle();
        self.pending_bits.settle();
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
