//! Picking. Gizmo handle hit tests come from the core
//! ([`viewport_gizmo::picking`], re-exported here); this module adds scene
//! object picking: a BVH ([`obvhs::bvh2::Bvh2`]) over the world-space
//! bounds of each object's oriented box, with the exact f64 ray-OBB slab test
//! at the leaves.
//!
//! Each object's box is its mesh's local AABB under its world matrix. The
//! BVH is built once (PLOC) with one object per leaf, so that moving an
//! object is an incremental `move_primitive` (detach, greedy re-insert,
//! refit with rotations) rather than a rebuild.
//!
//! obvhs works in f32. To keep the f32 traversal conservative for scenes far
//! from the origin, leaf bounds are rounded outwards and padded by a relative
//! margin; the f32 `tmax` used for culling is likewise padded. The exact
//! answer always comes from the f64 test, so padding only costs a few extra
//! leaf tests, never a wrong result.

#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::time::Duration;

use glam::Vec3A;
use nalgebra::{Matrix4, Point3};
use obvhs::aabb::Aabb;
use obvhs::bvh2::builder::build_bvh2;
use obvhs::bvh2::Bvh2;
use obvhs::ray::{Ray as BvhRay, RayHit};
use obvhs::{Boundable, BvhBuildParams};

use crate::math::{Frustum, Obb, Ray};

pub use viewport_gizmo::picking::*;

pub mod mesh;
mod slot;
pub use mesh::{ray_triangle, ray_triangle_weights, MeshBvh};
use slot::Slot;

/// The nearest object hit by a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneHit {
    /// The id given to [`SceneIndex::set`] / [`SceneIndex::build`].
    pub id: usize,
    /// Distance along the (unit-direction) ray.
    pub t: f64,
}

struct Leaf(Aabb);

/// An object's id, local mesh bounds (min, max) and world matrix.
pub type PlacedBox = (usize, Point3<f64>, Point3<f64>, Matrix4<f64>);

impl Boundable for Leaf {
    fn aabb(&self) -> Aabb {
        self.0
    }
}

/// A BVH of object boxes, indexed by ids `0..len` (removed ids have no leaf).
#[derive(Default)]
pub struct SceneIndex {
    bvh: Bvh2,
    /// [`Slot::NONE`] for objects that cannot be hit (degenerate or removed).
    obbs: Vec<Slot>,
}

impl std::fmt::Debug for SceneIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SceneIndex").field("len", &self.obbs.len()).field("nodes", &self.bvh.nodes.len()).finish()
    }
}

/// The next f32 towards +infinity (`f32::next_up`, stable only since 1.86).
fn next_up(v: f32) -> f32 {
    if v.is_nan() || v == f32::INFINITY {
        return v;
    }
    if v == 0.0 {
        return f32::from_bits(1);
    }
    let b = v.to_bits();
    f32::from_bits(if v > 0.0 { b + 1 } else { b - 1 })
}

fn next_down(v: f32) -> f32 {
    -next_up(-v)
}

fn round_down(x: f64) -> f32 {
    let v = x as f32;
    if (v as f64) > x {
        next_down(v)
    } else {
        v
    }
}

fn round_up(x: f64) -> f32 {
    let v = x as f32;
    if (v as f64) < x {
        next_up(v)
    } else {
        v
    }
}

/// Conservative f32 bounds of a box (an empty point far away if none).
fn leaf_aabb(slot: &Slot) -> Aabb {
    let Some((lo, hi)) = slot.aabb() else {
        // Never hit: a point box at the origin keeps the tree valid and compact.
        return Aabb::new(Vec3A::ZERO, Vec3A::ZERO);
    };
    let mag = lo.coords.abs().max().max(hi.coords.abs().max());
    let pad = 1e-6 * (mag + (hi - lo).max()) + 1e-9;
    let f = |p: Point3<f64>, d: f64, r: fn(f64) -> f32| Vec3A::new(r(p.x + d), r(p.y + d), r(p.z + d));
    Aabb::new(f(lo, -pad, round_down), f(hi, pad, round_up))
}

/// Boxes beyond what the f32 tree can bound are treated as unhittable.
const MAX_COORD: f64 = 1.0e30;

fn pickable(obb: Option<Obb>) -> Option<Obb> {
    obb.filter(|o| {
        let (lo, hi) = o.aabb();
        lo.coords.abs().max() < MAX_COORD && hi.coords.abs().max() < MAX_COORD
    })
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
        let obbs: Vec<Slot> = objects
            .into_iter()
            .map(|(lo, hi, m)| Slot::new(pickable(Obb::from_local_aabb(&lo, &hi, &m)).as_ref()))
            .collect();
        let mut index = SceneIndex { bvh: Bvh2::default(), obbs };
        index.rebuild();
        index
    }

    /// Rebuilds the whole tree from the stored boxes: one leaf per
    /// hittable id (unhittable ones, e.g. deleted objects, get none until
    /// they are set again).
    pub fn rebuild(&mut self) {
        let ids: Vec<u32> = (0..self.obbs.len()).filter(|&i| self.obbs[i].is_some()).map(|i| i as u32).collect();
        if ids.is_empty() {
            self.bvh = Bvh2::default();
            return;
        }
        let leaves: Vec<Leaf> = ids.iter().map(|&i| Leaf(leaf_aabb(&self.obbs[i as usize]))).collect();
        let params = BvhBuildParams { max_prims_per_leaf: 1, ..BvhBuildParams::fast_build() };
        let mut t = Duration::ZERO;
        self.bvh = build_bvh2(&leaves, params, &mut t);
        // The tree numbers its leaves by their place in `leaves`: made ids.
        for p in self.bvh.primitive_indices.iter_mut() {
            *p = ids[*p as usize];
        }
        let mut to_nodes = vec![u32::MAX; self.obbs.len()];
        for (n, node) in self.bvh.nodes.iter().enumerate().filter(|(_, node)| node.is_leaf()) {
            for k in node.first_index..node.first_index + node.prim_count {
                to_nodes[self.bvh.primitive_indices[k as usize] as usize] = n as u32;
            }
        }
        self.bvh.primitives_to_nodes = to_nodes;
        self.bvh.init_parents_if_uninit();
    }

    /// Leaves in the tree, about (nodes of a binary tree with one primitive a leaf).
    fn leaves(&self) -> usize {
        self.bvh.nodes.len().div_ceil(2)
    }

    /// [`SceneIndex::set`] for many ids at once (objects put back or
    /// added): one by one when they are few against the tree, else the
    /// boxes are stored and the tree rebuilt once.
    pub fn set_many(&mut self, items: &[PlacedBox]) {
        if items.len() <= self.leaves() {
            for (id, lo, hi, m) in items {
                self.set(*id, lo, hi, m);
            }
            return;
        }
        let end = items.iter().map(|it| it.0 + 1).max().unwrap_or(0);
        if end > self.obbs.len() {
            self.obbs.resize(end, Slot::NONE);
        }
        for (id, lo, hi, m) in items {
            self.obbs[*id] = Slot::new(pickable(Obb::from_local_aabb(lo, hi, m)).as_ref());
        }
        self.rebuild();
    }

    /// [`SceneIndex::remove`] for many ids at once (a delete): one by one
    /// when they are few against the tree, else the tree is rebuilt from
    /// what is left.
    pub fn remove_many(&mut self, ids: &[usize]) {
        if 2 * ids.len() <= self.leaves() {
            for &id in ids {
                self.remove(id);
            }
            return;
        }
        for &id in ids {
            if let Some(slot) = self.obbs.get_mut(id) {
                *slot = Slot::NONE;
            }
        }
        self.rebuild();
    }

    /// Number of ids (including unhittable ones).
    pub fn len(&self) -> usize {
        self.obbs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.obbs.is_empty()
    }

    /// The exact box of object `id`, if it is hittable.
    pub fn obb(&self, id: usize) -> Option<Obb> {
        self.obbs.get(id).and_then(Slot::get)
    }

    /// Sets (adds or moves) object `id`'s box: incremental, `O(log n)` on a
    /// balanced tree. Ids beyond the end grow the index (gaps are unhittable).
    pub fn set(&mut self, id: usize, local_min: &Point3<f64>, local_max: &Point3<f64>, world: &Matrix4<f64>) {
        self.set_obb(id, pickable(Obb::from_local_aabb(local_min, local_max, world)));
    }

    /// Drops the ids from `len` on: removed from the tree one by one when
    /// they are few, by a rebuild when they are most of it.
    pub fn truncate(&mut self, len: usize) {
        let n = self.obbs.len();
        if len >= n {
            return;
        }
        if len == 0 || self.bvh.nodes.is_empty() || 2 * (n - len) > n {
            self.obbs.truncate(len);
            self.rebuild();
            return;
        }
        for id in len..n {
            if self.in_tree(id) {
                // `id` < n <= u32::MAX + 1: every slot was inserted with a u32 id.
                self.bvh.remove_primitive(id as u32);
            }
        }
        self.obbs.truncate(len);
    }

    /// Whether `id` has a leaf in the tree (a removed id has none).
    fn in_tree(&self, id: usize) -> bool {
        self.bvh.primitives_to_nodes.get(id).is_some_and(|&n| n != u32::MAX)
    }

    /// Makes object `id` unhittable, its slot kept (a deleted object: ids
    /// are stable): its leaf leaves the tree, `O(log n)`, and
    /// [`SceneIndex::set`] puts one back (its undo).
    pub fn remove(&mut self, id: usize) {
        if id >= self.obbs.len() {
            return;
        }
        self.obbs[id] = Slot::NONE;
        if self.in_tree(id) {
            // `id` < len, and ids in the tree fit u32.
            self.bvh.remove_primitive(id as u32);
        }
    }

    fn set_obb(&mut self, id: usize, obb: Option<Obb>) {
        let Ok(id32) = u32::try_from(id) else { return };
        let slot = Slot::new(obb.as_ref());
        if id < self.obbs.len() {
            self.obbs[id] = slot;
            if self.bvh.nodes.is_empty() {
                self.rebuild();
            } else if self.in_tree(id) {
                self.bvh.move_primitive(leaf_aabb(&slot), id32);
            } else {
                // A removed id set again.
                self.bvh.insert_primitive(leaf_aabb(&slot), id32);
            }
            return;
        }
        let first_new = self.obbs.len();
        self.obbs.resize(id + 1, Slot::NONE);
        self.obbs[id] = slot;
        if self.bvh.nodes.is_empty() {
            self.rebuild();
            return;
        }
        for new in first_new..=id {
            // Gaps get no leaf (as in a rebuild). `new` < `id` + 1 <= u32::MAX here.
            if self.obbs[new].is_some() {
                let aabb = leaf_aabb(&self.obbs[new]);
                self.bvh.insert_primitive(aabb, new as u32);
            }
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

    /// The nearest exact hit: boxes are the broad phase, and
    /// `exact(id, t_box, t_best)` gives object `id`'s own hit distance along
    /// the ray (for example on its triangles; `None` for a miss), called only
    /// for boxes the ray enters before the best exact hit so far (`t_best`,
    /// infinite at first: hits beyond it need not be looked for).
    /// Distances are the ray's `t`.
    pub fn pick_with(&self, ray: &Ray, mut exact: impl FnMut(usize, f64, f64) -> Option<f64>) -> Option<SceneHit> {
        if self.bvh.nodes.is_empty() {
            return None;
        }
        let o = ray.origin;
        let d = ray.dir;
        let origin = Vec3A::new(o.x as f32, o.y as f32, o.z as f32);
        let dir = Vec3A::new(d.x as f32, d.y as f32, d.z as f32);
        if !origin.is_finite() || !dir.is_finite() {
            return None;
        }
        // Slack for the f32 origin and the f32 slab arithmetic.
        let slack = 1e-5 * (1.0 + o.coords.abs().max());
        let bray = BvhRay::new(origin, dir, 0.0, f32::INFINITY);
        let mut best: Option<SceneHit> = None;
        let mut hit = RayHit::none();
        let prim_indices = &self.bvh.primitive_indices;
        let obbs = &self.obbs;
        let mut visit = |node: &obvhs::bvh2::node::Bvh2Node, bray: &mut BvhRay, _hit: &mut RayHit| {
            for p in node.first_index..node.first_index + node.prim_count {
                let Some(&id) = prim_indices.get(p as usize) else {
                    continue;
                };
                let id = id as usize;
                let Some(obb) = obbs.get(id).and_then(Slot::get) else {
                    continue;
                };
                let Some(t_box) = obb.intersect_ray(ray) else {
                    continue;
                };
                // The box's entry can round to just past a hit on a face
                // that lies in the box's face (a duplicate exactly over its
                // original): skip only boxes clearly beyond, so that ties
                // still reach `exact` and the lower id wins either way.
                if best.is_some_and(|b| t_box > (b.t + slack) * (1.0 + 1e-6)) {
                    continue;
                }
                let Some(t) = exact(id, t_box, best.map_or(f64::INFINITY, |b| b.t)) else {
                    continue;
                };
                if best.is_none_or(|b| t < b.t || (t == b.t && id < b.id)) {
                    best = Some(SceneHit { id, t });
                    bray.tmax = round_up((t + slack) * (1.0 + 1e-6));
                }
            }
            true
        };
        obvhs::fast_stack!(u32, (96, 192), self.bvh.max_depth, stack, {
            self.bvh.ray_traverse_dynamic(&mut stack, bray, &mut hit, &mut visit)
        });
        best
    }

    /// Calls `f` with every id whose box may meet `frustum`: the tree is
    /// walked from the root and a subtree is skipped only when its node
    /// box is surely outside (the leaf boxes are padded outwards, so the
    /// test is conservative). Ids without a box are never visited. The cost
    /// follows what is in view (and the tree's depth), not the scene.
    pub fn visit_in_frustum(&self, frustum: &Frustum, mut f: impl FnMut(usize)) {
        if self.bvh.nodes.is_empty() {
            return;
        }
        let corner = |v: Vec3A| Point3::new(f64::from(v.x), f64::from(v.y), f64::from(v.z));
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let Some(node) = self.bvh.nodes.get(n as usize) else { continue };
            if !frustum.intersects_aabb(&corner(node.aabb.min), &corner(node.aabb.max)) {
                continue;
            }
            if node.is_leaf() {
                for p in node.first_index..node.first_index + node.prim_count {
                    let Some(&id) = self.bvh.primitive_indices.get(p as usize) else { continue };
                    if self.obbs.get(id as usize).is_some_and(Slot::is_some) {
                        f(id as usize);
                    }
                }
            } else {
                stack.extend([node.first_index, node.first_index + 1]);
            }
        }
    }

    /// A one-line summary of the tree (node count, maximum depth) for logs.
    pub fn stats(&self) -> String {
        format!("{} objects, {} BVH nodes, max depth {}", self.obbs.len(), self.bvh.nodes.len(), self.bvh.max_depth)
    }

    /// Brute force over every box (reference for tests).
    pub fn pick_brute_force(&self, ray: &Ray) -> Option<SceneHit> {
        let mut best: Option<SceneHit> = None;
        for (id, obb) in self.obbs.iter().enumerate() {
            if let Some(t) = obb.get().and_then(|b| b.intersect_ray(ray)) {
                if best.is_none_or(|b| t < b.t) {
                    best = Some(SceneHit { id, t });
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests;
