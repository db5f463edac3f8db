//! The budget of object boxes a frame makes, and the objects whose
//! records are provisional until their boxes are made.
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
//! the same budget each ([`super::GpuScene::settle_with`]), oldest first, and put
//! the exact records and chunk boxes in place. So an edit of 10,000
//! objects (a paste) does not make one frame pay for 10,000 boxes: it pays
//! for 1,024, and the next nine frames for the rest.

use std::collections::VecDeque;

use super::chunks::{chunk_of, CHUNK};

/// The word and the bit of object `i` in a bit-per-object list (the
/// hidden bits, the provisional records).
#[inline(always)]
pub(super) fn bit_of(i: u32) -> (usize, u32) {
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
        self.per_chunk.resize(count.div_ceil(CHUNK as usize), 0);
    }

    pub(crate) fn per_chunk(&self) -> &[u8] {
        &self.per_chunk
    }

    /// Objects with provisional records.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Boxes the current frame may still make.
    pub(super) fn boxes_left(&self) -> usize {
        self.boxes_left
    }

    /// Starts a frame's budget of boxes.
    pub(super) fn new_frame(&mut self) {
        self.boxes_left = BOXES_PER_FRAME;
    }

    /// Takes one box from the frame's budget, if any is left.
    #[inline(always)]
    pub(super) fn take_box(&mut self) -> bool {
        let left = self.boxes_left > 0;
        self.boxes_left -= usize::from(left);
        left
    }

    /// Marks object `i`'s record provisional or not; returns the chunk
    /// whose GPU copy changes with it (its first provisional record, or
    /// its last one replaced).
    #[inline(always)]
    pub(super) fn set(&mut self, i: u32, provisional: bool) -> Option<usize> {
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
    pub(super) fn next_batch(&mut self) -> Vec<u32> {
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

#[cfg(test)]
mod tests {
    use super::{Provisional, BOXES_PER_FRAME};

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
}
