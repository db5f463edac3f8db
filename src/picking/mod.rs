//! Picking. Gizmo handle hit tests come from the core
//! ([`viewport_gizmo::picking`], re-exported here); this module adds scene
//! object picking: a BVH ([`obvhs::bvh2::Bvh2`]) over the world-space
//! bounds of each object's oriented box, with the exact f64 ray-OBB slab test
//! at the leaves.
//!
//! Each object's box is its mesh's local AABB under its world matrix
//! ([`placed_obb`]). The BVH is built once (PLOC) with one object per
//! leaf, so that moving an object is an incremental `move_primitive`
//! (detach, greedy re-insert, refit with rotations) rather than a rebuild.
//! The tree ([`BoxTree`]) stores no boxes: it asks a [`Boxes`] source for
//! one when a ray reaches a leaf; [`SceneIndex`] is the tree over boxes it
//! stores itself, the editor derives them from its scene.
//!
//! obvhs works in f32. To keep the f32 traversal conservative for scenes far
//! from the origin, leaf bounds are rounded outwards and padded by a relative
//! margin; the f32 `tmax` used for culling is likewise padded. The exact
//! answer always comes from the f64 test, so padding only costs a few extra
//! leaf tests, never a wrong result.

#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Matrix4, Point3};

use crate::math::{Frustum, Obb, Ray};

pub use viewport_gizmo::picking::*;

pub mod mesh;
mod piles;
mod slot;
mod tree;
pub use mesh::{ray_triangle, ray_triangle_weights, MeshBvh};
use slot::Slot;
pub use tree::{BoxTree, Boxes};

/// The nearest object hit by a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneHit {
    /// The id given to [`SceneIndex::set`] / [`SceneIndex::build`].
    pub id: usize,
    /// Distance along the (unit-direction) ray.
    pub t: f64,
}

/// An object's id, local mesh bounds (min, max) and world matrix.
pub type PlacedBox = (usize, Point3<f64>, Point3<f64>, Matrix4<f64>);

/// Boxes beyond what the f32 tree can bound are treated as unhittable.
const MAX_COORD: f64 = 1.0e30;

/// The pick box of an object: its mesh's local bounds `[min, max]` under
/// its world matrix ([`Obb::from_local_aabb`]), `None` when it cannot be
/// hit (degenerate, not finite, or beyond what the f32 tree bounds). The
/// one constructor of every box an index picks, stored or derived.
pub fn placed_obb(min: &Point3<f64>, max: &Point3<f64>, world: &Matrix4<f64>) -> Option<Obb> {
    Obb::from_local_aabb(min, max, world).filter(|o| {
        let (lo, hi) = o.aabb();
        lo.coords.abs().max() < MAX_COORD && hi.coords.abs().max() < MAX_COORD
    })
}

/// The boxes a [`SceneIndex`] stores, by id.
#[derive(Default)]
struct Stored(Vec<Slot>);

impl Boxes for Stored {
    fn obb(&self, id: usize) -> Option<Obb> {
        self.0.get(id).and_then(Slot::get)
    }

    fn aabb(&self, id: usize) -> Option<(Point3<f64>, Point3<f64>)> {
        self.0.get(id).and_then(Slot::aabb)
    }
}

/// A BVH of object boxes, indexed by ids `0..len` (removed ids have no
/// leaf), that stores each box (96 bytes an object): a [`BoxTree`] over
/// its own boxes. The editor keeps a [`BoxTree`] alone and derives the
/// boxes from its scene.
#[derive(Default)]
pub struct SceneIndex {
    tree: BoxTree,
    /// [`Slot::NONE`] for objects that cannot be hit (degenerate or removed).
    obbs: Stored,
}

impl std::fmt::Debug for SceneIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SceneIndex").field("tree", &self.tree).finish()
    }
}

impl SceneIndex {
    /// An empty index.
    pub fn new() -> SceneIndex {
        SceneIndex::default()
    }

    /// Builds the index from `(local_min, local_max, world_matrix)` per
    /// object; object `i` gets id `i`.
    pub fn build<I>(objects: I) -> SceneIndex
    where
        I: IntoIterator<Item = (Point3<f64>, Point3<f64>, Matrix4<f64>)>,
    {
        let obbs: Vec<Slot> =
            objects.into_iter().map(|(lo, hi, m)| Slot::new(placed_obb(&lo, &hi, &m).as_ref())).collect();
        let obbs = Stored(obbs);
        let tree = BoxTree::build(obbs.0.len(), &obbs);
        SceneIndex { tree, obbs }
    }

    /// Rebuilds the whole tree from the stored boxes: one leaf per
    /// hittable id (unhittable ones, e.g. deleted objects, get none until
    /// they are set again).
    pub fn rebuild(&mut self) {
        self.tree.rebuild(&self.obbs);
    }

    /// [`SceneIndex::set`] for many ids at once (objects put back or
    /// added): one by one when they are few against the tree, else the
    /// boxes are stored and the tree rebuilt once.
    pub fn set_many(&mut self, items: &[PlacedBox]) {
        let end = items.iter().map(|it| it.0 + 1).max().unwrap_or(0);
        if end > self.obbs.0.len() {
            self.obbs.0.resize(end, Slot::NONE);
        }
        for (id, lo, hi, m) in items {
            self.obbs.0[*id] = Slot::new(placed_obb(lo, hi, m).as_ref());
        }
        let ids: Vec<usize> = items.iter().map(|it| it.0).collect();
        self.tree.set_many(&ids, &self.obbs);
    }

    /// [`SceneIndex::remove`] for many ids at once (a delete): one by one
    /// when they are few against the tree, else the tree is rebuilt from
    /// what is left.
    pub fn remove_many(&mut self, ids: &[usize]) {
        for &id in ids {
            if let Some(slot) = self.obbs.0.get_mut(id) {
                *slot = Slot::NONE;
            }
        }
        self.tree.remove_many(ids, &self.obbs);
    }

    /// Number of ids (including unhittable ones).
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// The exact box of object `id`, if it is hittable.
    pub fn obb(&self, id: usize) -> Option<Obb> {
        self.obbs.obb(id)
    }

    /// Sets (adds or moves) object `id`'s box: incremental, `O(log n)` on a
    /// balanced tree. Ids beyond the end grow the index (gaps are unhittable).
    pub fn set(&mut self, id: usize, local_min: &Point3<f64>, local_max: &Point3<f64>, world: &Matrix4<f64>) {
        if u32::try_from(id).is_err() {
            return;
        }
        if id >= self.obbs.0.len() {
            self.obbs.0.resize(id + 1, Slot::NONE);
        }
        self.obbs.0[id] = Slot::new(placed_obb(local_min, local_max, world).as_ref());
        self.tree.set(id, &self.obbs);
    }

    /// Drops the ids from `len` on: removed from the tree one by one when
    /// they are few, by a rebuild when they are most of it.
    pub fn truncate(&mut self, len: usize) {
        if len < self.obbs.0.len() {
            self.obbs.0.truncate(len);
            self.tree.truncate(len, &self.obbs);
        }
    }

    /// Makes object `id` unhittable, its slot kept (a deleted object: ids
    /// are stable): its leaf leaves the tree, `O(log n)`, and
    /// [`SceneIndex::set`] puts one back (its undo).
    pub fn remove(&mut self, id: usize) {
        if let Some(slot) = self.obbs.0.get_mut(id) {
            *slot = Slot::NONE;
            self.tree.remove(id);
        }
    }

    /// The nearest object whose box the ray hits (`t` >= 0), if any.
    pub fn pick(&self, ray: &Ray) -> Option<SceneHit> {
        self.pick_filtered(ray, |_| true)
    }

    /// Like [`SceneIndex::pick`], considering only ids for which `keep` is true.
    pub fn pick_filtered(&self, ray: &Ray, mut keep: impl FnMut(usize) -> bool) -> Option<SceneHit> {
        self.pick_with(ray, |id, t, _| keep(id).then_some(t))
    }

    /// [`BoxTree::pick_with`] over the stored boxes.
    pub fn pick_with(&self, ray: &Ray, exact: impl FnMut(usize, f64, f64) -> Option<f64>) -> Option<SceneHit> {
        self.tree.pick_with(&self.obbs, ray, exact)
    }

    /// [`BoxTree::visit_in_frustum`]: every id whose box may meet `frustum`.
    pub fn visit_in_frustum(&self, frustum: &Frustum, f: impl FnMut(usize)) {
        self.tree.visit_in_frustum(frustum, f);
    }

    /// A one-line summary of the tree (node count, maximum depth) for logs.
    pub fn stats(&self) -> String {
        self.tree.stats()
    }

    /// Brute force over every box (reference for tests).
    pub fn pick_brute_force(&self, ray: &Ray) -> Option<SceneHit> {
        self.tree.pick_brute_force(&self.obbs, ray)
    }
}

#[cfg(test)]
mod tests;
