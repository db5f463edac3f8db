//! Edits of the GPU scene between whole uploads: the records of the
//! objects that changed, the grown boxes of their chunks and the member
//! slots of new objects, queued here and copied by the next frame in its
//! own command buffer.
//!
//! Past a frame's budget of object boxes the records are provisional
//! (see [`super::provisional`]); [`GpuScene::settle_with`] makes the boxes
//! still to make in the next frames. The copies themselves are recorded by
//! [`super::edit_copies`].

use super::chunks::{chunk_of, Growth, ObjectBox};
use super::provisional::bit_of;
use super::records::NO_MESH;
use super::{GpuObjectRecord, GpuScene, MeshBounds, SceneObject};
use crate::render::device::error::RenderError;

impl GpuScene {
    /// Objects whose records are provisional: drawn without the frustum
    /// test until the next frames make their boxes (see [`super::provisional`]).
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
        if self.provisional.count() == 0 || self.provisional.boxes_left() == 0 {
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
    /// provisional (see [`super::provisional`]).
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
}
