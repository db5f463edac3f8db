//! The BVH of object boxes without the boxes: [`BoxTree`] holds only the
//! tree (conservative f32 leaf bounds and ids); each object's exact box is
//! asked of a [`Boxes`] source when a ray reaches its leaf, or when its
//! leaf is built or moved. The editor derives a box from the scene (world
//! matrix and mesh bounds) instead of storing 96 bytes an object;
//! [`super::SceneIndex`] is the same tree over boxes it stores itself.
//!
//! Invariant: an id has a leaf exactly when its source gave a box the last
//! time the tree was told about it ([`BoxTree::set`], a rebuild), so every
//! leaf is hittable and the frustum walk needs no box. The one exception is
//! a *parked* leaf ([`BoxTree::park`]: a hidden object): it stays in the
//! tree with the box it had, and walks and rays pass it by, so hiding and
//! showing many objects costs a flag each instead of a detach and a greedy
//! re-insert ([`BoxTree::unpark_many`]). Telling the tree about a parked id ([`BoxTree::set`]) unparks
//! it first; its box is then `None` while it is hidden, which removes the
//! leaf as for any unhittable object.

use glam::Vec3A;
use nalgebra::Point3;
use obvhs::aabb::Aabb;
use obvhs::bvh2::node::Bvh2Node;
use obvhs::bvh2::reinsertion::ReinsertionOptimizer;
use obvhs::bvh2::Bvh2;
use obvhs::ploc::PlocBuilder;
use obvhs::ray::{Ray as BvhRay, RayHit};
use obvhs::BvhBuildParams;

use crate::math::{Frustum, Obb, Ray};

use super::piles::{Left, Piles};
use super::SceneHit;

/// Where a [`BoxTree`] finds object `id`'s exact box. It must be a pure
/// function of what the tree was last told: whenever an id's box changes,
/// the owner calls [`BoxTree::set`] for it (or rebuilds).
pub trait Boxes {
    /// Object `id`'s box, `None` when it cannot be hit (no object, a
    /// degenerate or out-of-range box: see [`super::placed_obb`]).
    fn obb(&self, id: usize) -> Option<Obb>;

    /// The world-space bounds of [`Boxes::obb`] (as [`Obb::aabb`] gives them).
    fn aabb(&self, id: usize) -> Option<(Point3<f64>, Point3<f64>)> {
        self.obb(id).map(|b| b.aabb())
    }

    /// Whether objects `a` and `b` (both with boxes) have the same shape:
    /// the same box, and the same answer from any exact test a pick runs
    /// (the same mesh under the same world matrix). Twins share one leaf
    /// (`picking/piles.rs`); the owner calls [`BoxTree::set`] for an object
    /// whose shape changes, as for a box that changes. Never, by default.
    fn twins(&self, _a: usize, _b: usize) -> bool {
        false
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

pub(super) fn round_up(x: f64) -> f32 {
    let v = x as f32;
    if (v as f64) < x {
        next_up(v)
    } else {
        v
    }
}

/// Conservative f32 bounds of a box's world bounds.
fn leaf_aabb((lo, hi): (Point3<f64>, Point3<f64>)) -> Aabb {
    let mag = lo.coords.abs().max().max(hi.coords.abs().max());
    let pad = 1e-6 * (mag + (hi - lo).max()) + 1e-9;
    let f = |p: Point3<f64>, d: f64, r: fn(f64) -> f32| Vec3A::new(r(p.x + d), r(p.y + d), r(p.z + d));
    Aabb::new(f(lo, -pad, round_down), f(hi, pad, round_up))
}

/// A BVH over ids `0..len` whose boxes a [`Boxes`] source gives.
#[derive(Default)]
pub struct BoxTree {
    bvh: Bvh2,
    len: usize,
    /// Ids whose leaves are parked (indexed by id; shorter than `len` when
    /// the last ones are not parked): in the tree, skipped by every query.
    parked: Vec<bool>,
    /// Twins sharing a leaf ([`Boxes::twins`]). A new leaf joins a twin's
    /// leaf found in the tree; a rebuild groups twins among neighbouring
    /// ids (copies made together); a moved leaf is not looked at.
    piles: Piles,
}

impl std::fmt::Debug for BoxTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoxTree").field("len", &self.len).field("nodes", &self.bvh.nodes.len()).finish()
    }
}

impl BoxTree {
    /// The tree over ids `0..len`, a leaf for each id `boxes` gives a box.
    pub fn build(len: usize, boxes: &impl Boxes) -> BoxTree {
        let mut tree = BoxTree { bvh: Bvh2::default(), len, parked: Vec::new(), piles: Piles::default() };
        tree.rebuild(boxes);
        tree
    }

    /// Builds the whole tree again over ids `0..len()`: obvhs's PLOC build
    /// with its fast preset and one object a leaf (what
    /// `obvhs::bvh2::builder::build_bvh2` does), the leaves written straight
    /// into the builder's node list rather than from a list of boxes of
    /// our own (32 MB less at the peak of a 1M-object build).
    pub fn rebuild(&mut self, boxes: &impl Boxes) {
        self.bvh = Bvh2::default();
        // Parked ids give no box (hidden): they get no leaf.
        self.parked.clear();
        self.piles.clear();
        // The last few leaf holders, for twins among neighbouring ids.
        let mut recent: [Option<(u32, Aabb)>; 4] = [None; 4];
        let params = BvhBuildParams { max_prims_per_leaf: 1, ..BvhBuildParams::fast_build() };
        // Sized for every id (the usual case: all hittable); each box is
        // derived once, its leaf written in the builder's list.
        let mut builder = PlocBuilder::with_capacity(self.len);
        builder.current_nodes.clear();
        let mut ids: Vec<u32> = Vec::with_capacity(self.len);
        let mut total = Aabb::empty();
        for i in 0..self.len {
            let (Ok(id), Some(b)) = (u32::try_from(i), boxes.aabb(i)) else { continue };
            let aabb = leaf_aabb(b);
            let twin = recent.iter().flatten().find(|(k, a)| *a == aabb && boxes.twins(*k as usize, i));
            if let Some(&(keeper, _)) = twin {
                self.piles.join(keeper, id);
                continue;
            }
            recent.rotate_right(1);
            recent[0] = Some((id, aabb));
            total.extend(aabb.min);
            total.extend(aabb.max);
            // The tree numbers its leaves by their place in `ids`.
            builder.current_nodes.push(Bvh2Node::new(aabb, 1, ids.len() as u32));
            ids.push(id);
        }
        let n = ids.len();
        if n == 0 {
            return;
        }
        let mut bvh = Bvh2::default();
        bvh.reset_for_reuse(n, Some((0..n as u32).collect()));
        // `PlocSearchDistance::Low` of the fast preset: a search distance of 6.
        debug_assert!(matches!(params.ploc_search_distance, obvhs::ploc::PlocSearchDistance::Low));
        builder.build_ploc_from_leaves::<6, false>(
            &mut bvh,
            total,
            params.sort_precision,
            params.search_depth_threshold,
        );
        drop(builder);
        // (One object a leaf: no leaves to collapse, and the preset's
        // reinsertion pass after collapsing has a batch ratio of 0.)
        ReinsertionOptimizer::default().run(&mut bvh, params.reinsertion_batch_ratio, None);
        self.bvh = bvh;
        for p in self.bvh.primitive_indices.iter_mut() {
            *p = ids[*p as usize];
        }
        drop(ids);
        let mut to_nodes = vec![u32::MAX; self.len];
        for (n, node) in self.bvh.nodes.iter().enumerate().filter(|(_, node)| node.is_leaf()) {
            for k in node.first_index..node.first_index + node.prim_count {
                to_nodes[self.bvh.primitive_indices[k as usize] as usize] = n as u32;
            }
        }
        self.bvh.primitives_to_nodes = to_nodes;
        self.bvh.init_parents_if_uninit();
    }

    /// Leaves in the tree, about (nodes of a binary tree with one primitive a leaf).
    pub fn leaves(&self) -> usize {
        self.bvh.nodes.len().div_ceil(2)
    }

    /// Number of ids (including unhittable ones).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `id` has a leaf of its own or its pile's (parked or not).
    fn in_tree(&self, id: usize) -> bool {
        self.has_leaf(id) || u32::try_from(id).is_ok_and(|id| self.piles.is_member(id))
    }

    /// Whether `id` holds a leaf (its own or its pile's).
    fn has_leaf(&self, id: usize) -> bool {
        self.bvh.primitives_to_nodes.get(id).is_some_and(|&n| n != u32::MAX)
    }

    /// Takes `id` out of the tree: out of its pile, handing the pile's
    /// leaf on if it held it, else its own leaf removed.
    fn detach(&mut self, id: u32) {
        match self.piles.leave(id) {
            Left::Member => {}
            Left::Keeper { to } => self.hand_leaf(id, to),
            Left::Alone => {
                if self.has_leaf(id as usize) {
                    self.bvh.remove_primitive(id);
                }
            }
        }
    }

    /// The leaf `from` holds is `to`'s from now on (twins: the same box).
    fn hand_leaf(&mut self, from: u32, to: u32) {
        let to_nodes = &mut self.bvh.primitives_to_nodes;
        let Some(&node) = to_nodes.get(from as usize) else { return };
        let Some(leaf) = self.bvh.nodes.get(node as usize) else { return };
        if let Some(p) = self.bvh.primitive_indices.get_mut(leaf.first_index as usize) {
            *p = to;
        }
        if to_nodes.len() <= to as usize {
            to_nodes.resize(to as usize + 1, u32::MAX);
        }
        to_nodes[to as usize] = node;
        to_nodes[from as usize] = u32::MAX;
    }

    /// A new leaf for `id`, or a place in the pile of a twin whose leaf has
    /// exactly this box (the tree walked down the nodes that contain it).
    fn insert(&mut self, id: u32, aabb: Aabb, boxes: &impl Boxes) {
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let Some(node) = self.bvh.nodes.get(n as usize) else { continue };
            let b = node.aabb();
            if !(b.min.cmple(aabb.min).all() && b.max.cmpge(aabb.max).all()) {
                continue;
            }
            if !node.is_leaf() {
                stack.extend([node.first_index, node.first_index + 1]);
                continue;
            }
            if *b != aabb {
                continue;
            }
            let ids = &self.bvh.primitive_indices;
            let found = (node.first_index..node.first_index + node.prim_count)
                .filter_map(|p| ids.get(p as usize).copied())
                .find(|&k| k != id && k != u32::MAX && boxes.twins(k as usize, id as usize));
            if let Some(keeper) = found {
                self.piles.join(keeper, id);
                return;
            }
        }
        self.bvh.insert_primitive(aabb, id);
    }

    /// Whether `id`'s leaf is parked.
    fn is_parked(&self, id: usize) -> bool {
        self.parked.get(id).copied().unwrap_or(false)
    }

    fn set_parked(&mut self, id: usize, parked: bool) {
        if id >= self.parked.len() {
            if !parked {
                return;
            }
            self.parked.resize(id + 1, false);
        }
        self.parked[id] = parked;
    }

    /// Object `id` became unhittable for a while (hidden) without its box
    /// changing: its leaf stays where it is, skipped by rays and frustum
    /// walks, `O(1)`. An id without a leaf is left as it is.
    pub fn park(&mut self, id: usize) {
        if id < self.len && self.in_tree(id) {
            self.set_parked(id, true);
        }
    }

    /// Objects `ids` are hittable again (shown): each parked leaf is taken
    /// back as it is, `O(1)` (any change of its box since it was parked
    /// went through [`BoxTree::set`], which removed the leaf); the ids
    /// without a leaf are set together ([`BoxTree::set_many`]).
    pub fn unpark_many(&mut self, ids: &[usize], boxes: &impl Boxes) {
        let mut rest = Vec::new();
        for &id in ids {
            if self.is_parked(id) {
                self.set_parked(id, false);
            } else {
                rest.push(id);
            }
        }
        if !rest.is_empty() {
            self.set_many(&rest, boxes);
        }
    }

    /// Object `id`'s box changed (added, moved, made unhittable): its leaf
    /// is moved, inserted or removed, `O(log n)` on a balanced tree. Ids
    /// beyond the end grow the tree; the gaps get leaves where `boxes`
    /// gives them boxes.
    pub fn set(&mut self, id: usize, boxes: &impl Boxes) {
        let Ok(id32) = u32::try_from(id) else { return };
        self.set_parked(id, false);
        if id >= self.len {
            let first_new = self.len;
            self.len = id + 1;
            if self.bvh.nodes.is_empty() {
                self.rebuild(boxes);
                return;
            }
            for new in first_new..id {
                // `new` < `id` <= u32::MAX here.
                if let Some(b) = boxes.aabb(new) {
                    self.insert(new as u32, leaf_aabb(b), boxes);
                }
            }
        }
        match (boxes.aabb(id), self.in_tree(id)) {
            (Some(b), true) => {
                if let Some(other) = self.piles.other(id32) {
                    // Still its pile's shape, or out of the pile to a
                    // place of its own.
                    if !boxes.twins(id, other as usize) {
                        self.detach(id32);
                        self.insert(id32, leaf_aabb(b), boxes);
                    }
                    return;
                }
                // A box that did not change (an object reparented with its
                // world transform kept) leaves the leaf where it is.
                let aabb = leaf_aabb(b);
                let node = self.bvh.primitives_to_nodes[id] as usize;
                if self.bvh.nodes.get(node).is_none_or(|n| *n.aabb() != aabb) {
                    self.bvh.move_primitive(aabb, id32);
                }
            }
            (Some(b), false) if !self.bvh.nodes.is_empty() => self.insert(id32, leaf_aabb(b), boxes),
            (Some(_), false) => self.rebuild(boxes),
            (None, true) => self.detach(id32),
            (None, false) => {}
        }
    }

    /// [`BoxTree::set`] for many ids at once (objects put back or added):
    /// one by one when they are few against the tree, else the tree is
    /// built again over `0..max(len, largest id + 1)`.
    pub fn set_many(&mut self, ids: &[usize], boxes: &impl Boxes) {
        if ids.len() <= self.leaves() {
            for &id in ids {
                self.set(id, boxes);
            }
            return;
        }
        self.len = ids.iter().map(|&i| i + 1).fold(self.len, usize::max);
        self.rebuild(boxes);
    }

    /// Removes object `id`'s leaf (a deleted object: ids are stable, so
    /// `len` stays), `O(log n)`; [`BoxTree::set`] puts one back. `boxes`
    /// must give no box for `id` from now on.
    pub fn remove(&mut self, id: usize) {
        self.set_parked(id, false);
        if id < self.len && self.in_tree(id) {
            // `id` < len, and ids in the tree fit u32.
            self.detach(id as u32);
        }
    }

    /// [`BoxTree::remove`] for many ids at once (a delete): one by one when
    /// they are few against the tree, else the tree is built again from
    /// what `boxes` still gives.
    pub fn remove_many(&mut self, ids: &[usize], boxes: &impl Boxes) {
        if 2 * ids.len() <= self.leaves() {
            for &id in ids {
                self.remove(id);
            }
            return;
        }
        self.rebuild(boxes);
    }

    /// Drops the ids from `len` on: removed from the tree one by one when
    /// they are few, by a rebuild when they are most of it.
    pub fn truncate(&mut self, len: usize, boxes: &impl Boxes) {
        let n = self.len;
        if len >= n {
            return;
        }
        if len == 0 || self.bvh.nodes.is_empty() || 2 * (n - len) > n {
            self.len = len;
            self.rebuild(boxes);
            return;
        }
        for id in len..n {
            if self.in_tree(id) {
                // `id` < n <= u32::MAX + 1: every leaf was inserted with a u32 id.
                self.detach(id as u32);
            }
        }
        self.bvh.primitives_to_nodes.truncate(len);
        self.parked.truncate(len);
        self.len = len;
    }

    /// The nearest exact hit: boxes (from `boxes`, derived as a ray reaches
    /// their leaves) are the broad phase, and `exact(id, t_box, t_best)`
    /// gives object `id`'s own hit distance along the ray (for example on
    /// its triangles; `None` for a miss), called only for boxes the ray
    /// enters before the best exact hit so far (`t_best`, infinite at
    /// first: hits beyond it need not be looked for). Distances are the
    /// ray's `t`; ties go to the lower id.
    pub fn pick_with(
        &self,
        boxes: &impl Boxes,
        ray: &Ray,
        exact: impl FnMut(usize, f64, f64) -> Option<f64>,
    ) -> Option<SceneHit> {
        self.pick_kept(boxes, ray, |_| true, exact)
    }

    /// [`BoxTree::pick_with`] over the ids `keep` accepts. `exact` must
    /// answer twins ([`Boxes::twins`]) alike: a pile of them costs one
    /// `exact` call, for its lowest id `keep` accepts, whatever its size.
    pub fn pick_kept(
        &self,
        boxes: &impl Boxes,
        ray: &Ray,
        keep: impl Fn(usize) -> bool,
        mut exact: impl FnMut(usize, f64, f64) -> Option<f64>,
    ) -> Option<SceneHit> {
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
        let parked = &self.parked;
        let piles = &self.piles;
        let mut visit = |node: &obvhs::bvh2::node::Bvh2Node, bray: &mut BvhRay, _hit: &mut RayHit| {
            for p in node.first_index..node.first_index + node.prim_count {
                let Some(&leaf_id) = prim_indices.get(p as usize) else {
                    continue;
                };
                let ids = piles.ids_of(leaf_id);
                // A pile's ids share one box and one exact answer: its
                // lowest shown and kept id's (the others would tie and lose).
                let Some(id) =
                    ids.map(|id| id as usize).find(|&id| !parked.get(id).copied().unwrap_or(false) && keep(id))
                else {
                    continue;
                };
                let Some(obb) = boxes.obb(id) else {
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
    /// test is conservative). Every leaf is a hittable id (the invariant
    /// above), so no box is derived. The cost follows what is in view (and
    /// the tree's depth), not the scene.
    pub fn visit_in_frustum(&self, frustum: &Frustum, mut f: impl FnMut(usize)) {
        if self.bvh.nodes.is_empty() {
            return;
        }
        let corner = |v: Vec3A| Point3::new(f64::from(v.x), f64::from(v.y), f64::from(v.z));
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let Some(node) = self.bvh.nodes.get(n as usize) else { continue };
            if !frustum.intersects_aabb(&corner(node.aabb().min), &corner(node.aabb().max)) {
                continue;
            }
            if node.is_leaf() {
                for p in node.first_index..node.first_index + node.prim_count {
                    let Some(&leaf_id) = self.bvh.primitive_indices.get(p as usize) else { continue };
                    for id in self.piles.ids_of(leaf_id).map(|id| id as usize) {
                        if id < self.len && !self.is_parked(id) {
                            f(id);
                        }
                    }
                }
            } else {
                stack.extend([node.first_index, node.first_index + 1]);
            }
        }
    }

    /// A one-line summary of the tree (node count, maximum depth) for logs.
    pub fn stats(&self) -> String {
        format!("{} objects, {} BVH nodes, max depth {}", self.len, self.bvh.nodes.len(), self.bvh.max_depth)
    }

    /// Brute force over every id's box from `boxes` (reference for tests).
    pub fn pick_brute_force(&self, boxes: &impl Boxes, ray: &Ray) -> Option<SceneHit> {
        let mut best: Option<SceneHit> = None;
        for id in 0..self.len {
            if let Some(t) = boxes.obb(id).and_then(|b| b.intersect_ray(ray)) {
                if best.is_none_or(|b| t < b.t) {
                    best = Some(SceneHit { id, t });
                }
            }
        }
        best
    }
}
