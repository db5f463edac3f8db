//! Each object's local mesh bounds, every distinct value stored once: a
//! scene of a million cubes holds one pair of corners and a 4-byte index
//! an object rather than 48 bytes of corners; and the pick boxes derived from
//! them and the scene ([`SceneBoxes`]), which the pick tree asks for
//! rather than storing them.

use std::collections::HashMap;

use nalgebra::Point3;

use crate::math::Obb;
use crate::picking::{placed_obb, Boxes};
use crate::scene::Scene;

/// Local `(min, max)` of a mesh.
pub(super) type Bounds = (Point3<f64>, Point3<f64>);

/// The bounds of each slot `0..len` (ids), indexable like a `Vec<Bounds>`.
#[derive(Clone, Debug, Default)]
pub(super) struct BoundsList {
    /// Index into `values` of each object's bounds.
    of: Vec<u32>,
    values: Vec<Bounds>,
    /// `values` by their bits (exact: two bounds are one value only when
    /// every coordinate is the same f64).
    ids: HashMap<[u64; 6], u32>,
    /// The value given last and its index: runs of objects with the same
    /// mesh (the common case) skip the hash map.
    last: Option<([u64; 6], u32)>,
    /// Counts the changes of any slot's bounds (for caches of what the
    /// bounds decide: the gizmo's placement).
    edits: u64,
}

fn key((lo, hi): &Bounds) -> [u64; 6] {
    [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z].map(f64::to_bits)
}

impl BoundsList {
    fn id(&mut self, b: Bounds) -> u32 {
        let k = key(&b);
        if let Some((last, id)) = self.last {
            if last == k {
                return id;
            }
        }
        let next = self.values.len() as u32;
        let id = *self.ids.entry(k).or_insert(next);
        if id == next {
            self.values.push(b);
        }
        self.last = Some((k, id));
        id
    }

    pub(super) fn len(&self) -> usize {
        self.of.len()
    }

    /// Slot `i`'s bounds, if the list reaches it.
    pub(super) fn get(&self, i: usize) -> Option<&Bounds> {
        self.of.get(i).map(|&id| &self.values[id as usize])
    }

    pub(super) fn push(&mut self, b: Bounds) {
        let id = self.id(b);
        self.of.push(id);
        self.edits += 1;
    }

    pub(super) fn edits(&self) -> u64 {
        self.edits
    }

    /// Sets slot `i`, growing the list to it (new gaps take `b` too).
    pub(super) fn put(&mut self, i: usize, b: Bounds) {
        if i >= self.of.len() {
            let id = self.id(b);
            self.of.resize(i + 1, id);
            self.edits += 1;
        } else {
            self.set(i, b);
        }
    }

    pub(super) fn set(&mut self, i: usize, b: Bounds) {
        if i < self.of.len() {
            self.of[i] = self.id(b);
            self.edits += 1;
            // A posed skin gets new bounds at every step of a drag: values
            // no object uses any more are dropped once they outnumber the
            // objects, so a long session does not keep every pose's bounds
            // (amortised: each rebuild follows as many new values as objects).
            if self.values.len() > 2 * self.of.len() + 1024 {
                self.compact();
            }
        }
    }

    /// Keeps only the values some object uses.
    fn compact(&mut self) {
        let old = std::mem::take(&mut self.values);
        self.ids.clear();
        self.last = None;
        let mut new_id: HashMap<u32, u32> = HashMap::new();
        for k in 0..self.of.len() {
            let was = self.of[k];
            let id = match new_id.get(&was) {
                Some(&id) => id,
                None => {
                    let id = self.id(old[was as usize]);
                    new_id.insert(was, id);
                    id
                }
            };
            self.of[k] = id;
        }
    }

    pub(super) fn truncate(&mut self, len: usize) {
        self.of.truncate(len);
        self.edits += 1;
    }

    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = &Bounds> + '_ {
        self.of.iter().map(|&id| &self.values[id as usize])
    }
}

impl FromIterator<Bounds> for BoundsList {
    fn from_iter<I: IntoIterator<Item = Bounds>>(iter: I) -> BoundsList {
        let mut list = BoundsList::default();
        for b in iter {
            list.push(b);
        }
        list
    }
}

impl std::ops::Index<usize> for BoundsList {
    type Output = Bounds;
    fn index(&self, i: usize) -> &Bounds {
        &self.values[self.of[i] as usize]
    }
}

/// The editor's pick boxes: object `i`'s is its mesh's local bounds
/// (`BoundsList`) under its world matrix (the scene's transforms and
/// hierarchy), made by [`placed_obb`] each time it is asked for; a dead
/// slot has none, and neither has a hidden object ([`Scene::is_hidden`]),
/// so the pick tree leaves it out: clicks, boxes, snapping and framing,
/// which all ask the tree or these boxes, pass it by. The editor tells its pick tree about every change of
/// either (moves, bounds, adds, removes), so the box derived now is the
/// one its leaf was built from.
#[derive(Clone, Copy)]
pub(super) struct SceneBoxes<'a> {
    pub(super) scene: &'a Scene,
    pub(super) bounds: &'a BoundsList,
    /// The objects picked on triangles of their own (posed skins, morph
    /// weights): never twins. `None` (boxes for a pick alone): no twins.
    pub(super) posed: Option<&'a Posed>,
}

/// The posed triangles by object ([`super::parts::Skinning::posed`]).
pub(super) type Posed = HashMap<usize, std::sync::Arc<super::PickMesh>>;

impl Boxes for SceneBoxes<'_> {
    fn obb(&self, id: usize) -> Option<Obb> {
        if self.scene.get(id).is_none() || self.scene.is_hidden(id) {
            return None;
        }
        let (lo, hi) = self.bounds.get(id)?;
        placed_obb(lo, hi, &self.scene.world_matrix(id))
    }

    /// The same mesh (not posed on its own) under the same world matrix:
    /// copies left where their original stands.
    fn twins(&self, a: usize, b: usize) -> bool {
        let Some(posed) = self.posed else { return false };
        let (Some(x), Some(y)) = (self.scene.get(a), self.scene.get(b)) else { return false };
        x.mesh == y.mesh
            && x.skin.is_none()
            && y.skin.is_none()
            && !posed.contains_key(&a)
            && !posed.contains_key(&b)
            && self.bounds.get(a) == self.bounds.get(b)
            && self.scene.world_matrix(a) == self.scene.world_matrix(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: f64) -> Bounds {
        (Point3::new(-x, -x, -x), Point3::new(x, x, x))
    }

    /// Against a plain `Vec<Bounds>` put through the same edits.
    #[test]
    fn behaves_as_a_vec_of_bounds_and_stores_each_value_once() {
        let mut list: BoundsList = [b(1.0), b(2.0), b(1.0), b(1.0)].into_iter().collect();
        let mut vec = vec![b(1.0), b(2.0), b(1.0), b(1.0)];
        assert_eq!(list.values.len(), 2);
        list.set(2, b(3.0));
        vec[2] = b(3.0);
        list.push(b(2.0));
        vec.push(b(2.0));
        // Putting past the end grows the list, the gap taking the value too.
        list.put(7, b(10.0));
        vec.resize(8, b(10.0));
        list.put(1, b(11.0));
        vec[1] = b(11.0);
        list.truncate(6);
        vec.truncate(6);
        assert_eq!(list.len(), vec.len());
        assert_eq!(list.iter().copied().collect::<Vec<_>>(), vec);
        assert!((0..vec.len()).all(|i| list[i] == vec[i]));
        // An object whose bounds change at every step (a posed skin) does
        // not keep every old value.
        for step in 0..5000 {
            list.set(1, b(100.0 + step as f64));
        }
        vec[1] = b(100.0 + 4999.0);
        assert!(list.values.len() <= 2 * list.len() + 1024 + 1, "{} values kept", list.values.len());
        assert_eq!(list.iter().copied().collect::<Vec<_>>(), vec);
        // -0.0 and 0.0 are kept apart: the stored value is the one given.
        list.set(0, (Point3::new(-0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0)));
        assert!(list[0].0.x.is_sign_negative());
    }
}
