//! The pick meshes the editor knows, and each object's as a 4-byte index
//! into them (an `Arc` pointer an object before: 8 bytes, and every mesh
//! handed over relinked every object).

use std::collections::HashMap;
use std::sync::Arc;

use super::PickMesh;
use crate::scene::MeshRef;

/// No mesh (a dead slot, or past the objects linked so far).
const NONE: u32 = u32::MAX;

/// Pick meshes by [`MeshRef`], each in a slot of a table, and the slot of
/// each object's mesh (index = id). A mesh handed over later fills its
/// slot: the objects that use it see it without being visited.
#[derive(Debug, Default)]
pub(super) struct MeshTable {
    /// The slot of each mesh named so far.
    slots: HashMap<MeshRef, u32>,
    /// The triangles in each slot (`None` until handed over).
    table: Vec<Option<Arc<PickMesh>>>,
    /// Each object's slot ([`NONE`] for a dead slot).
    of: Vec<u32>,
    /// The mesh linked last and its slot: runs of objects with the same
    /// mesh (the common case) skip the hash map.
    last: Option<(MeshRef, u32)>,
}

impl MeshTable {
    /// The triangles of `mesh`, if handed over.
    pub(super) fn get(&self, mesh: &MeshRef) -> Option<&Arc<PickMesh>> {
        self.slots.get(mesh).and_then(|&s| self.table[s as usize].as_ref())
    }

    pub(super) fn contains(&self, mesh: &MeshRef) -> bool {
        self.get(mesh).is_some()
    }

    fn slot(&mut self, mesh: &MeshRef) -> u32 {
        if let Some((m, s)) = &self.last {
            if m == mesh {
                return *s;
            }
        }
        let next = self.table.len() as u32;
        let s = *self.slots.entry(mesh.clone()).or_insert(next);
        if s == next {
            self.table.push(None);
        }
        self.last = Some((mesh.clone(), s));
        s
    }

    /// Sets the triangles of `mesh` (for every object that uses it).
    pub(super) fn insert(&mut self, mesh: &MeshRef, pick: Arc<PickMesh>) {
        let s = self.slot(mesh);
        self.table[s as usize] = Some(pick);
    }

    /// Object `i` uses `mesh` (the list grows to `i`; gaps get none).
    pub(super) fn link(&mut self, i: usize, mesh: &MeshRef) {
        let s = self.slot(mesh);
        if i >= self.of.len() {
            self.of.resize(i + 1, NONE);
        }
        self.of[i] = s;
    }

    /// Object `i` is gone.
    pub(super) fn unlink(&mut self, i: usize) {
        if let Some(s) = self.of.get_mut(i) {
            *s = NONE;
        }
    }

    /// Drops the objects from `len` on.
    pub(super) fn truncate(&mut self, len: usize) {
        self.of.truncate(len);
    }

    /// The triangles of object `i`'s mesh, if handed over.
    pub(super) fn of(&self, i: usize) -> Option<&PickMesh> {
        let s = *self.of.get(i)?;
        self.table.get(s as usize)?.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Primitive;

    fn pick(p: Primitive) -> Arc<PickMesh> {
        Arc::new(PickMesh::new(Arc::new(p.mesh())))
    }

    #[test]
    fn objects_see_the_triangles_of_their_mesh_when_handed_over() {
        let (cube, sphere) = (MeshRef::Primitive(Primitive::Cube), MeshRef::Primitive(Primitive::Sphere));
        let mut t = MeshTable::default();
        t.link(0, &cube);
        t.link(1, &sphere);
        t.link(3, &cube);
        assert!(t.of(0).is_none() && t.of(2).is_none() && !t.contains(&cube));
        let (c, s) = (pick(Primitive::Cube), pick(Primitive::Sphere));
        t.insert(&cube, Arc::clone(&c));
        assert!(std::ptr::eq(t.of(0).unwrap(), &*c) && std::ptr::eq(t.of(3).unwrap(), &*c));
        assert!(t.of(1).is_none() && t.of(2).is_none());
        t.insert(&sphere, Arc::clone(&s));
        assert!(std::ptr::eq(t.of(1).unwrap(), &*s) && std::ptr::eq(t.get(&sphere).unwrap().as_ref(), &*s));
        // Replaced (a cutout added): every user sees the new one.
        let c2 = pick(Primitive::Cube);
        t.insert(&cube, Arc::clone(&c2));
        assert!(std::ptr::eq(t.of(3).unwrap(), &*c2));
        t.unlink(3);
        assert!(t.of(3).is_none());
        t.link(5, &sphere);
        t.truncate(2);
        assert!(t.of(5).is_none() && t.of(1).is_some());
    }
}
