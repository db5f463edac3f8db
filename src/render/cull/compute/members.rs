//! The member list `cull.comp` walks ([`Members`]): the objects that draw
//! a mesh, grouped by mesh and padded to whole workgroups, with room for
//! new objects, and each workgroup's span of chunks.

use super::chunks::chunk_of;
use super::pending::Pending;

/// Threads per workgroup of `cull.comp`; each mesh's members are padded to
/// a multiple of it.
pub(crate) const GROUP: u32 = 64;
/// A padding slot of [`Members::slots`].
pub(crate) const NO_OBJECT: u32 = u32::MAX;

/// A workgroup of [`Members::slots`] that holds no object yet (room left
/// for new ones): its chunk span, which `cull.comp` never lists.
pub(crate) const NO_SPAN: [u32; 2] = [u32::MAX, u32::MAX];

/// The member list `cull.comp` walks: the indices of the objects that draw
/// a mesh, grouped by mesh (in mesh order) and ascending inside each mesh,
/// each mesh's run padded with [`NO_OBJECT`] to whole workgroups, with room
/// for a quarter as many again. A workgroup thus holds one mesh's objects,
/// and an ordered compaction of the slots keeps each mesh's visible objects
/// in ascending order. New objects (duplicates, imports: ids past every
/// listed one) take the free slots after their mesh's run
/// ([`Members::append`]), so a duplicate writes its own slots instead of
/// the list being built again; a mesh out of room, an object that moves to
/// another mesh or a new mesh rebuilds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Members {
    /// Emptied once uploaded ([`Members::len`] stays).
    pub slots: Vec<u32>,
    /// How many slots there are.
    pub len: u32,
    /// Per mesh: its first slot.
    pub base: Vec<u32>,
    /// Per mesh: how many objects draw it.
    pub count: Vec<u32>,
    /// Per mesh: its last (largest) listed object, `NO_OBJECT` for none.
    pub last: Vec<u32>,
    /// Per workgroup of slots: the first and last chunk
    /// ([`super::chunks::CHUNK`] ids) its objects fall in ([`NO_SPAN`]:
    /// none). Uploaded after the slots.
    pub spans: Vec<[u32; 2]>,
    /// Workgroups whose spans [`Members::append`] changed and
    /// [`Members::write_spans`] has not queued yet (a run of appends to
    /// one workgroup lists it once).
    pub touched: Vec<u32>,
}

impl Members {
    /// The members of objects whose mesh indices are `object_mesh` ([`NO_MESH`](super::records::NO_MESH):
    /// none), over `meshes` meshes (a counting sort, linear in objects).
    pub fn new(object_mesh: &[u32], meshes: usize) -> Members {
        let mut count = vec![0u32; meshes];
        for &m in object_mesh.iter().filter(|&&m| (m as usize) < meshes) {
            count[m as usize] += 1;
        }
        let mut base = Vec::with_capacity(meshes);
        let mut at = 0u32;
        for &c in &count {
            base.push(at);
            at += (c + c / 4).div_ceil(GROUP) * GROUP;
        }
        // Room for the workgroups' spans too ([`GpuScene::set_members`]
        // uploads them after the slots, without growing the list).
        let mut slots = Vec::with_capacity(at as usize + 2 * (at / GROUP) as usize);
        slots.resize(at as usize, NO_OBJECT);
        let mut next = base.clone();
        let mut last = vec![NO_OBJECT; meshes];
        for (i, &m) in object_mesh.iter().enumerate().filter(|(_, &m)| (m as usize) < meshes) {
            slots[next[m as usize] as usize] = i as u32;
            next[m as usize] += 1;
            last[m as usize] = i as u32;
        }
        // Each workgroup's objects ascend: its first and last slots that
        // hold one give its chunks.
        let spans = slots
            .chunks_exact(GROUP as usize)
            .map(|g| match g.iter().rev().find(|&&i| i != NO_OBJECT) {
                Some(&last) => [chunk_of(g[0]) as u32, chunk_of(last) as u32],
                None => NO_SPAN,
            })
            .collect();
        Members { len: slots.len() as u32, slots, base, count, last, spans, touched: Vec::new() }
    }

    /// Mesh `m`'s first slot and workgroups holding objects (a mesh past
    /// the list has none).
    pub fn of(&self, m: usize) -> (u32, u32) {
        match (self.base.get(m), self.count.get(m)) {
            (Some(&b), Some(&c)) => (b, c.div_ceil(GROUP)),
            _ => (self.len, 0),
        }
    }

    /// Mesh `m`'s slots, used and free (up to the next mesh's first).
    pub fn room(&self, m: usize) -> Option<u32> {
        let end = self.base.get(m + 1).copied().unwrap_or(self.len);
        self.base.get(m).map(|&b| end - b)
    }

    /// Workgroups that hold objects.
    pub fn used_groups(&self) -> u32 {
        self.count.iter().map(|c| c.div_ceil(GROUP)).sum()
    }

    /// Lists object `i` under mesh `m` in the first free slot after the
    /// mesh's run, when the mesh has room and `i` comes after its listed
    /// objects (the run stays ascending). The slot's word of the uploaded
    /// list goes to `writes` (word index -> value); its workgroup's span
    /// (after the [`Members::len`] slots) waits for
    /// [`Members::write_spans`], so a run of appends to one workgroup
    /// queues its span once.
    /// Returns false, changing nothing, when `i` cannot be appended.
    pub fn append(&mut self, i: u32, m: usize, writes: &mut Pending<u32>) -> bool {
        let (Some(&count), Some(room), Some(&last)) = (self.count.get(m), self.room(m), self.last.get(m)) else {
            return false;
        };
        if count >= room || (last != NO_OBJECT && i <= last) {
            return false;
        }
        let slot = self.base[m] + count;
        let g = (slot / GROUP) as usize;
        let chunk = chunk_of(i) as u32;
        // The workgroup's first object sets the start of its span.
        let span = if slot.is_multiple_of(GROUP) { [chunk, chunk] } else { [self.spans[g][0], chunk] };
        self.spans[g] = span;
        writes.insert(slot, i);
        if self.touched.last() != Some(&(g as u32)) {
            self.touched.push(g as u32);
        }
        self.count[m] = count + 1;
        self.last[m] = i;
        true
    }

    /// Queues the spans [`Members::append`] changed in `writes`, each
    /// once, in ascending order.
    pub fn write_spans(&mut self, writes: &mut Pending<u32>) {
        self.touched.sort_unstable();
        self.touched.dedup();
        for g in self.touched.drain(..) {
            let [first, last] = self.spans[g as usize];
            writes.insert(self.len + 2 * g, first);
            writes.insert(self.len + 2 * g + 1, last);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::cull::compute::records::NO_MESH;

    #[test]
    fn members_group_objects_by_mesh_in_ascending_order_padded_to_workgroups() {
        // 600 objects: every third draws mesh 2, the rest alternate mesh 0
        // and none; mesh 1 has no objects.
        let object_mesh: Vec<u32> = (0..600u32)
            .map(|i| {
                if i % 3 == 0 {
                    2
                } else if i % 2 == 0 {
                    0
                } else {
                    NO_MESH
                }
            })
            .collect();
        let m = Members::new(&object_mesh, 3);
        let expect_0: Vec<u32> = (0..600).filter(|i| i % 3 != 0 && i % 2 == 0).collect();
        let expect_2: Vec<u32> = (0..600).step_by(3).collect();
        assert_eq!((expect_0.len(), expect_2.len()), (200, 200));
        assert_eq!(m.count, vec![200, 0, 200]);
        // 200 objects take four workgroups of 64 slots.
        assert_eq!(GROUP, 64);
        assert_eq!(m.base, vec![0, 256, 256]);
        assert_eq!((m.slots.len(), m.len), (512, 512));
        assert_eq!(m.slots[..200], expect_0[..]);
        assert!(m.slots[200..256].iter().all(|&s| s == NO_OBJECT));
        assert_eq!(m.slots[256..456], expect_2[..]);
        assert!(m.slots[456..].iter().all(|&s| s == NO_OBJECT));
        assert_eq!((m.of(0), m.of(1), m.of(2), m.of(7)), ((0, 4), (256, 0), (256, 4), (512, 0)));
        // Each workgroup's chunks: those of its first and last object.
        let chunk = crate::render::cull::compute::chunks::CHUNK;
        assert_eq!(chunk, 32);
        let span = |ids: &[u32]| [ids[0] / chunk, ids[ids.len() - 1] / chunk];
        let want: Vec<[u32; 2]> = expect_0.chunks(64).chain(expect_2.chunks(64)).map(span).collect();
        assert_eq!(m.spans, want);
        // Mesh 0's first workgroup: ids 2 to 190 (two of every six ids).
        assert_eq!(m.spans[0], [0, 190 / 32]);
    }

    /// Room for a quarter as many again, in whole workgroups: appended
    /// objects fill it in order, each write names the slot and its
    /// workgroup's span (after the slots), a workgroup with no object has
    /// no span, and what cannot keep a run ascending, or does not fit, or
    /// names a mesh past the list, is refused with nothing changed.
    #[test]
    fn members_take_new_objects_into_the_room_after_their_mesh() {
        // Mesh 0: 256 objects (ids 0..256), room 320 = 5 workgroups; mesh
        // 1: 10 objects (ids 1000..1010), room 64.
        let mut object_mesh = vec![0u32; 256];
        object_mesh.resize(1000, NO_MESH);
        object_mesh.resize(1010, 1);
        let mut m = Members::new(&object_mesh, 2);
        assert_eq!(
            (m.base.clone(), [m.room(0), m.room(1), m.room(2)], m.len),
            (vec![0, 320], [Some(320), Some(64), None], 384)
        );
        assert_eq!(m.count, vec![256, 10]);
        assert_eq!(m.spans.len(), 6);
        assert_eq!(m.spans[4], NO_SPAN, "mesh 0's fifth workgroup is room only");
        assert_eq!(m.spans[5], [1000 / 32, 1009 / 32]);
        assert_eq!((m.of(0), m.used_groups()), ((0, 4), 5));
        let mut writes = Pending::new();
        // Not after mesh 0's last object (255), or a mesh past the list.
        assert!(!m.append(255, 0, &mut writes));
        assert!(!m.append(3000, 2, &mut writes));
        assert!(writes.is_empty());
        // Two new objects for mesh 0 open its fifth workgroup (slots 256
        // and 257; the spans follow the 384 slots, two words a workgroup).
        assert!(m.append(2000, 0, &mut writes));
        assert!(m.append(2100, 0, &mut writes));
        m.write_spans(&mut writes);
        let spans_at = 384 + 2 * 4;
        let want = [(256, 2000), (257, 2100), (spans_at, 2000 / 32), (spans_at + 1, 2100 / 32)];
        writes.settle();
        assert_eq!(writes.keys().zip(writes.values().iter().copied()).collect::<Vec<_>>(), want);
        assert_eq!((m.spans[4], m.count[0], m.last[0]), ([62, 65], 258, 2100));
        assert_eq!((m.of(0), m.used_groups()), ((0, 5), 6));
        // Mesh 1 joins its first workgroup, which keeps its first chunk.
        assert!(m.append(1500, 1, &mut writes));
        assert_eq!(m.spans[5], [1000 / 32, 1500 / 32]);
        m.write_spans(&mut writes);
        writes.settle();
        assert_eq!(writes.keys().zip(writes.values().iter().copied()).find(|&(k, _)| k == 320 + 10), Some((330, 1500)));
        // Mesh 0 fills its room (62 more), then refuses.
        for k in 0..62 {
            assert!(m.append(3000 + k, 0, &mut writes), "{k}");
        }
        let before = m.clone();
        assert!(!m.append(4000, 0, &mut writes));
        assert_eq!(m, before);
    }
}
