//! Edits of the GPU scene between whole uploads: the records of the
//! objects that changed, the grown boxes of their chunks and the member
//! slots of new objects, queued here and copied by the next frame in its
//! own command buffer.

use ash::vk;

use super::chunks::{chunk_of, GpuChunk, Growth};
use super::records::NO_MESH;
use super::{Access, GpuObjectRecord, GpuScene, MeshBounds, SceneObject, Stage, CHUNK_BYTES, RECORD};
use crate::render::device::error::RenderError;
use crate::render::device::Gpu;

/// Values by index, the last one given for an index winning: appended as
/// they come (a batch of ascending indices stays sorted for free), sorted
/// and rid of repeats once, when read. Cheaper than an ordered map for the
/// thousands of records an edit of many objects queues for the next
/// frame's copies, and for the states of the objects hidden and shown
/// since the last frame (`draw/gpu.rs`); indices and values are kept
/// apart, so settled values are one slice (records go to staging memory in
/// one copy).
#[derive(Debug)]
pub(crate) struct Pending<T> {
    keys: Vec<u32>,
    values: Vec<T>,
    /// Whether `keys` is strictly ascending.
    settled: bool,
}

impl<T: Copy> Pending<T> {
    pub(crate) fn new() -> Pending<T> {
        Pending { keys: Vec::new(), values: Vec::new(), settled: true }
    }

    pub(crate) fn insert(&mut self, index: u32, value: T) {
        if self.keys.last().is_some_and(|&last| last >= index) {
            self.settled = false;
        }
        self.keys.push(index);
        self.values.push(value);
    }

    /// Sorts by index and keeps the last value of each.
    pub(crate) fn settle(&mut self) {
        if self.settled {
            return;
        }
        // Stable: for equal indices, the later value ends last.
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        order.sort_by_key(|&k| self.keys[k]);
        let mut keys = Vec::with_capacity(order.len());
        let mut values = Vec::with_capacity(order.len());
        for (at, &k) in order.iter().enumerate() {
            if order.get(at + 1).is_none_or(|&next| self.keys[next] != self.keys[k]) {
                keys.push(self.keys[k]);
                values.push(self.values[k]);
            }
        }
        (self.keys, self.values) = (keys, values);
        self.settled = true;
    }

    /// Distinct indices queued ([`Pending::settle`] first).
    pub(crate) fn len(&self) -> usize {
        debug_assert!(self.settled);
        self.keys.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        self.keys.reserve(additional);
        self.values.reserve(additional);
    }

    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        self.values.clear();
        self.settled = true;
    }

    /// Indices, ascending ([`Pending::settle`] first).
    pub(crate) fn keys(&self) -> impl Iterator<Item = u32> + '_ {
        debug_assert!(self.settled);
        self.keys.iter().copied()
    }

    /// Values in index order ([`Pending::settle`] first).
    pub(crate) fn values(&self) -> &[T] {
        debug_assert!(self.settled);
        &self.values
    }
}

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
        let ids: Vec<u32> = changed.iter().map(|&(i, _)| i).collect();
        let mut objects = changed.iter().map(|(_, o)| o);
        self.update_with(&ids, |_| *objects.next().expect("one object per id"), bounds)
    }

    /// [`GpuScene::update`] with the objects made as they are read:
    /// `object(i)` for each index of `ids` in turn (none is called when an
    /// index is past the objects). A run of indices in one chunk grows the
    /// chunk's box once.
    pub fn update_with(
        &mut self,
        ids: &[u32],
        mut object: impl FnMut(u32) -> SceneObject,
        bounds: &[MeshBounds],
    ) -> Result<bool, RenderError> {
        if let Some(&i) = ids.iter().find(|&&i| i >= self.count) {
            return Err(RenderError::BadObject { index: i, count: self.count });
        }
        let mut remeshed = false;
        self.pending.reserve(ids.len());
        // The chunk of the run of objects read last, and their boxes.
        let mut run: Option<(usize, Growth)> = None;
        for &i in ids {
            let o = object(i);
            let (r, b) = GpuObjectRecord::with_box(&o, bounds);
            // A whole record says itself whether the object draws.
            self.drawn[i as usize] = r.mesh != NO_MESH;
            self.set_bit(i, false);
            // The chunk's box grows to hold the object's new box.
            let c = chunk_of(i);
            match &mut run {
                Some((at, g)) if *at == c => g.add(&b),
                _ => {
                    if let Some((at, g)) = run.take() {
                        self.grow_chunk(at, &g);
                    }
                    let mut g = Growth::default();
                    g.add(&b);
                    run = Some((c, g));
                }
            }
            let listed = &mut self.object_mesh[i as usize];
            if r.mesh != NO_MESH && r.mesh != *listed {
                let appended = *listed == NO_MESH
                    && !remeshed
                    && self.members.append(i, r.mesh as usize, &mut self.pending_members);
                *listed = r.mesh;
                remeshed |= !appended;
            }
            self.pending.insert(i, r);
        }
        if let Some((at, g)) = run {
            self.grow_chunk(at, &g);
        }
        self.members.write_spans(&mut self.pending_members);
        Ok(remeshed)
    }

    /// Grows chunk `c`'s box by `g`, queuing the chunk when it changes.
    fn grow_chunk(&mut self, c: usize, g: &Growth) {
        let before = self.chunks[c];
        self.chunks[c].grow(g);
        if self.chunks[c] != before {
            // Chunk indices fit u32: a chunk holds many object indices (u32).
            self.pending_chunks.insert(c as u32, ());
        }
    }

    /// Objects hidden (`true`) or shown again (`false`) with nothing else
    /// of them changed: a hidden object's bit is set and its record kept as
    /// it is; a shown one's bit is cleared when its record, as last written
    /// whole, draws a mesh. Bits go to the GPU by whole words, a run of
    /// words at once when many changed: so hiding thousands of objects
    /// costs a bit each, not a record. The shown objects whose records
    /// cannot be taken back (they draw nothing: made while the object was
    /// hidden, or before its mesh was uploaded) are returned for a whole new
    /// record ([`GpuScene::update`]). An index past the objects
    /// is an error, nothing queued.
    pub fn set_hidden(&mut self, items: &[(u32, bool)]) -> Result<Vec<u32>, RenderError> {
        if let Some(&(i, _)) = items.iter().find(|(i, _)| *i >= self.count) {
            return Err(RenderError::BadObject { index: i, count: self.count });
        }
        let mut whole = Vec::new();
        for &(i, hidden) in items {
            if hidden {
                self.set_bit(i, true);
            } else if self.drawn[i as usize] {
                self.set_bit(i, false);
            } else {
                whole.push(i);
            }
        }
        Ok(whole)
    }

    /// Sets object `i`'s hidden bit, queuing its word when it changes.
    fn set_bit(&mut self, i: u32, hidden: bool) {
        let (w, bit) = ((i / 32) as usize, 1u32 << (i % 32));
        let Some(word) = self.hidden_bits.get_mut(w) else { return };
        let new = if hidden { *word | bit } else { *word & !bit };
        if new != *word {
            *word = new;
            self.pending_bits.insert(w as u32, ());
        }
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
            let boxes: Vec<GpuChunk> = self.pending_chunks.keys().map(|c| self.chunks[c as usize].gpu()).collect();
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

#[cfg(test)]
mod tests {
    use super::Pending;

    /// Against a map that keeps the last value of each index.
    #[test]
    fn pending_items_settle_in_index_order_keeping_the_last_value() {
        let mut p: Pending<u64> = Pending::new();
        let mut want = std::collections::BTreeMap::new();
        // Ascending first (settled for free), then repeats and indices
        // out of order, from a fixed pseudo-random sequence.
        for i in 0..50u32 {
            p.insert(i * 3, u64::from(i));
            want.insert(i * 3, u64::from(i));
        }
        p.settle();
        assert_eq!(p.keys().collect::<Vec<_>>(), want.keys().copied().collect::<Vec<_>>());
        let mut x = 12345u64;
        for v in 0..400u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let i = (x >> 40) as u32 % 97;
            p.insert(i, 1000 + v);
            want.insert(i, 1000 + v);
        }
        p.settle();
        assert_eq!(p.len(), want.len());
        assert_eq!(p.keys().collect::<Vec<_>>(), want.keys().copied().collect::<Vec<_>>());
        assert_eq!(p.values(), want.values().copied().collect::<Vec<_>>().as_slice());
        p.clear();
        assert!(p.is_empty());
    }
}
