//! Edits of the GPU scene between whole uploads: the records of the
//! objects that changed, the grown boxes of their chunks and the member
//! slots of new objects, queued here and copied by the next frame in its
//! own command buffer.
//!
//! An object's world box (for its chunk's box, and to tell a degenerate
//! object, which is never culled) is about half the CPU cost of its record.
//! A frame makes at most [`BOXES_PER_FRAME`] of them; the records of the
//! other objects it changes are provisional (`GpuObjectRecord::provisional`):
//! flagged as having no box, so the cull keeps them, and their chunks sent
//! as "always meets the frustum" while they hold any. Such an object is
//! drawn in every frame until its box is made: nothing is culled that
//! should not be, and what is drawn is the same (an object out of view
//! has no pixels). The next frames make the boxes still to make, up to
//! the same budget each ([`GpuScene::settle_with`]), oldest first, and put
//! the exact records and chunk boxes in place. So an edit of 10,000
//! objects (a paste) does not make one frame pay for 10,000 boxes: it pays
//! for 1,024, and the next nine frames for the rest.

use ash::vk;

use std::collections::VecDeque;

use super::chunks::{chunk_of, GpuChunk, Growth, ObjectBox};
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

/// The word and the bit of object `i` in a bit-per-object list (the
/// hidden bits, the provisional records).
#[inline(always)]
fn bit_of(i: u32) -> (usize, u32) {
    ((i / 32) as usize, 1u32 << (i % 32))
}

/// How many object boxes a frame makes (see the module docs): about
/// 35 us of CPU time on the 2-core machine of `docs/benchmarks.md`.
pub(crate) const BOXES_PER_FRAME: usize = 1024;

/// The objects whose records are provisional, and the order their boxes
/// are to be made in.
#[derive(Clone, Debug)]
pub(crate) struct Provisional {
    /// One bit per object: its record is provisional.
    bits: Vec<u32>,
    /// Per chunk: how many of its objects have provisional records (a
    /// chunk holds 32).
    per_chunk: Vec<u8>,
    /// Objects, oldest first, that were given provisional records; one
    /// whose bit is clear again (given a record with its box since) is
    /// passed over.
    queue: VecDeque<u32>,
    /// Objects with their bit set.
    count: usize,
    /// Boxes the current frame may still make.
    boxes_left: usize,
}

impl Default for Provisional {
    fn default() -> Provisional {
        Provisional {
            bits: Vec::new(),
            per_chunk: Vec::new(),
            queue: VecDeque::new(),
            count: 0,
            boxes_left: BOXES_PER_FRAME,
        }
    }
}

impl Provisional {
    /// Room for `count` objects (the ones past the old count have records
    /// with their boxes, or draw nothing).
    pub(crate) fn resize(&mut self, count: usize) {
        self.bits.resize(count.div_ceil(32), 0);
        self.per_chunk.resize(count.div_ceil(super::chunks::CHUNK as usize), 0);
    }

    pub(crate) fn per_chunk(&self) -> &[u8] {
        &self.per_chunk
    }

    /// Objects with provisional records.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Starts a frame's budget of boxes.
    fn new_frame(&mut self) {
        self.boxes_left = BOXES_PER_FRAME;
    }

    /// Takes one box from the frame's budget, if any is left.
    #[inline(always)]
    fn take_box(&mut self) -> bool {
        let left = self.boxes_left > 0;
        self.boxes_left -= usize::from(left);
        left
    }

    /// Marks object `i`'s record provisional or not; returns the chunk
    /// whose GPU copy changes with it (its first provisional record, or
    /// its last one replaced).
    #[inline(always)]
    fn set(&mut self, i: u32, provisional: bool) -> Option<usize> {
        let (w, bit) = bit_of(i);
        // Sized with the records (`GpuScene::replace_objects`).
        debug_assert!(w < self.bits.len());
        let word = self.bits.get_mut(w)?;
        if (*word & bit != 0) == provisional {
            return None;
        }
        *word ^= bit;
        let c = chunk_of(i);
        let held = &mut self.per_chunk[c];
        if provisional {
            *held += 1;
            let first = *held == 1;
            self.count += 1;
            self.queue.push_back(i);
            self.compact();
            first.then_some(c)
        } else {
            *held -= 1;
            let last = *held == 0;
            self.count -= 1;
            if self.count == 0 {
                self.queue.clear();
            }
            last.then_some(c)
        }
    }

    /// An object given a provisional record again after its box was made
    /// is queued again: when entries passed over or repeated are most of
    /// the queue, keeps the first entry of each object still provisional
    /// (so the queue stays within about twice the provisional objects, even
    /// while every frame's budget goes to new edits).
    fn compact(&mut self) {
        if self.queue.len() <= 2 * self.count + 1024 {
            return;
        }
        let mut seen = vec![0u32; self.bits.len()];
        let bits = &self.bits;
        self.queue.retain(|&i| {
            let (w, bit) = bit_of(i);
            let keep = bits[w] & bit != 0 && seen[w] & bit == 0;
            seen[w] |= bit;
            keep
        });
    }

    fn is_set(&self, i: u32) -> bool {
        let (w, bit) = bit_of(i);
        self.bits.get(w).is_some_and(|word| word & bit != 0)
    }

    /// Up to the frame's budget of objects whose boxes are still to be
    /// made, oldest first, ascending.
    fn next_batch(&mut self) -> Vec<u32> {
        let mut ids = Vec::new();
        while ids.len() < self.boxes_left {
            let Some(i) = self.queue.pop_front() else { break };
            if self.is_set(i) {
                ids.push(i);
                if ids.len() == self.boxes_left {
                    // An object queued twice counts once.
                    ids.sort_unstable();
                    ids.dedup();
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

impl GpuScene {
    /// Objects whose records are provisional: drawn without the frustum
    /// test until the next frames make their boxes (see the module docs).
    pub fn provisional_objects(&self) -> usize {
        self.provisional.count()
    }

    /// Makes the boxes still to be made, up to what is left of the frame's
    /// budget ([`BOXES_PER_FRAME`]): each such object's record is made
    /// again by `object(i)`, now with its box ([`GpuScene::update_with`]).
    /// Returns [`GpuScene::update_with`]'s answer (false when there was
    /// nothing to do).
    pub fn settle_with(
        &mut self,
        object: impl FnMut(u32) -> SceneObject,
        bounds: &[MeshBounds],
    ) -> Result<bool, RenderError> {
        if self.provisional.count() == 0 || self.provisional.boxes_left == 0 {
            return Ok(false);
        }
        let ids = self.provisional.next_batch();
        self.update_with(&ids, object, bounds)
    }

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
    /// chunk's box once. Past the frame's budget of boxes, records are
    /// provisional (see the module docs).
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
            // An object that draws no mesh has no box to make.
            let boxed = o.mesh.is_none() || self.provisional.take_box();
            let (r, b) = if boxed {
                GpuObjectRecord::with_box(&o, bounds)
            } else {
                (GpuObjectRecord::provisional(&o, bounds), ObjectBox::None)
            };
            if let Some(c) = self.provisional.set(i, !boxed && r.mesh != NO_MESH) {
                self.pending_chunks.insert(c as u32, ());
            }
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
        let (w, bit) = bit_of(i);
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

#[cfg(test)]
mod tests {
    use super::{Pending, Provisional, BOXES_PER_FRAME};

    #[test]
    fn a_frame_makes_its_budget_of_boxes_then_none() {
        let mut p = Provisional::default();
        let made = (0..BOXES_PER_FRAME + 10).filter(|_| p.take_box()).count();
        assert_eq!(made, BOXES_PER_FRAME);
        p.new_frame();
        assert!(p.take_box());
    }

    /// Chunks of 32 ids: a chunk's GPU copy changes with its first
    /// provisional record and with its last one replaced; the boxes still
    /// to make come back oldest first, each object once, and objects whose
    /// boxes were made since are passed over.
    #[test]
    fn provisional_records_are_counted_per_chunk_and_given_back_oldest_first() {
        let mut p = Provisional::default();
        p.resize(100);
        assert_eq!(p.set(70, true), Some(2));
        assert_eq!(p.set(5, true), Some(0));
        assert_eq!(p.set(6, true), None, "chunk 0 already held one");
        assert_eq!(p.set(6, true), None, "already provisional");
        assert_eq!(p.set(40, true), Some(1));
        assert_eq!((p.count(), &p.per_chunk()[..4]), (4, &[2, 1, 1, 0][..]));
        assert_eq!(p.set(6, false), None, "chunk 0 still holds 5");
        assert_eq!(p.set(5, false), Some(0));
        assert_eq!(p.set(5, true), Some(0), "provisional again: queued again");
        assert_eq!(p.set(41, false), None, "never provisional");
        assert_eq!((p.count(), &p.per_chunk()[..4]), (3, &[1, 1, 1, 0][..]));
        // Queued: 70, 5, 6 (passed over), 40, 5. Two boxes left this
        // frame: the oldest two, ascending.
        p.boxes_left = 2;
        assert_eq!(p.next_batch(), vec![5, 70]);
        // next_batch only picks; the records made with boxes clear them.
        assert_eq!((p.set(5, false), p.set(70, false)), (Some(0), Some(2)));
        // Then 6 and the second 5 are passed over.
        p.new_frame();
        assert_eq!(p.next_batch(), vec![40]);
        assert_eq!(p.set(40, false), Some(1));
        assert_eq!((p.count(), p.next_batch(), &p.per_chunk()[..4]), (0, vec![], &[0, 0, 0, 0][..]));
    }

    /// An object made provisional, then given its box, again and again
    /// queues an entry each time: the queue is cut back to one entry per
    /// provisional object before it grows far past them.
    #[test]
    fn the_queue_of_boxes_to_make_stays_near_the_provisional_objects() {
        let mut p = Provisional::default();
        p.resize(64);
        p.set(3, true);
        // Every frame's budget gone to other edits: nothing is taken from
        // the queue.
        p.boxes_left = 0;
        for _ in 0..5000 {
            p.set(9, true);
            p.set(9, false);
            // At most two objects provisional at once.
            assert!(p.queue.len() <= 2 * 2 + 1024, "{} queued", p.queue.len());
        }
        p.set(9, true);
        assert!(p.next_batch().is_empty());
        // 9 queued more than once counts once in a batch.
        p.boxes_left = 2;
        assert_eq!(p.next_batch(), vec![3, 9]);
        // Nothing provisional: nothing queued.
        p.set(3, false);
        p.set(9, false);
        assert!(p.queue.is_empty());
    }

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
