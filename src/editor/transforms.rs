//! Writing objects' local transforms: a script's or a field's write, one
//! committed as an undo step, and the write every move goes through, which
//! keeps the pick tree, the change log and skinned poses current for what
//! moved.

use nalgebra::Matrix4;

use super::{Edit, Editor};
use crate::math::Transform;
use crate::scene::{transform_problem, MIN_SCALE};

/// Whether two world matrices are drawn alike: each column of the linear
/// part within 1e-9 of its length (f32, which renderers draw with, resolves
/// 6e-8), the translation within 1e-12 of its size (plus 1e-12 m). A
/// reparent that keeps an object's world matrix gives one that differs from
/// the old in the last bits of f64.
fn drawn_alike(a: &Matrix4<f64>, b: &Matrix4<f64>) -> bool {
    let linear = (0..3).all(|c| {
        let (x, y) = (a.fixed_view::<3, 1>(0, c), b.fixed_view::<3, 1>(0, c));
        (x - y).amax() <= 1e-9 * x.amax()
    });
    let (t, u) = (a.fixed_view::<3, 1>(0, 3), b.fixed_view::<3, 1>(0, 3));
    linear && (t - u).amax() <= 1e-12 * (1.0 + t.amax())
}

impl Editor {
    /// Sets object `i`'s local transform (scripts, tools), keeping picking
    /// current. Ignored during a drag, for an invalid index, and for a
    /// transform a scene file could not hold ([`transform_problem`]: a zero
    /// scale, a non-finite number), so whatever the editor holds can be
    /// saved and opened again. Returns whether it was written.
    pub fn set_transform(&mut self, i: usize, t: Transform) -> bool {
        if !self.scene.contains(i) || self.gizmo.is_dragging() || transform_problem(&t).is_some() {
            return false;
        }
        self.write_transforms(&[i], &[t]);
        true
    }

    /// Sets object `i`'s local transform as one undo step (a typed value):
    /// the same write and history entry a completed drag makes. `before` is
    /// the transform the edit started from.
    pub fn commit_transform(&mut self, i: usize, before: Transform, after: Transform) -> bool {
        if !self.scene.contains(i) || self.gizmo.is_dragging() || transform_problem(&after).is_some() {
            return false;
        }
        self.write_transforms(&[i], &[after]);
        if before != after {
            self.history.push(Edit::Transform { objects: vec![i], before: vec![before], after: vec![after] });
        }
        self.rehover();
        true
    }

    /// Records the local transforms the objects of `before` have now as
    /// one undo step from the transforms given there (fields typed into or
    /// dragged over several frames write as they go, through
    /// [`Editor::set_transform`], and record one step at the end). Objects
    /// gone since, or unchanged, are left out.
    pub fn commit_transforms(&mut self, before: &[(usize, Transform)]) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let changed: Vec<(usize, Transform, Transform)> = before
            .iter()
            .filter_map(|&(i, b)| self.scene.get(i).map(|o| (i, b, o.transform)))
            .filter(|(_, b, a)| b != a)
            .collect();
        if changed.is_empty() {
            return false;
        }
        self.history.push(Edit::Transform {
            objects: changed.iter().map(|c| c.0).collect(),
            before: changed.iter().map(|c| c.1).collect(),
            after: changed.iter().map(|c| c.2).collect(),
        });
        self.rehover();
        true
    }

    /// Writes transforms and refreshes the pick index for them and their descendants.
    /// An edit's write first returns to the rest pose ([`Editor::before_edit`]).
    pub(super) fn write_transforms(&mut self, objects: &[usize], transforms: &[Transform]) {
        self.write_transforms_from(objects, transforms, None);
    }

    /// [`Editor::write_transforms`] where the objects' world matrices
    /// before the write are known (`worlds`, one per object; a reparent,
    /// which keeps them): an object whose world matrix draws the same
    /// afterwards ([`drawn_alike`]), so its whole subtree, is neither
    /// logged nor looked at again, so reparenting many objects costs
    /// renderers and the pick tree nothing.
    pub(super) fn write_transforms_from(
        &mut self,
        objects: &[usize],
        transforms: &[Transform],
        worlds: Option<&[Matrix4<f64>]>,
    ) {
        self.before_edit();
        for (&i, t) in objects.iter().zip(transforms) {
            if let Some(o) = self.scene.object_mut(i) {
                // A scale drag can shrink a component past what a scene file
                // holds (each drag stops at MIN_SCALE_FACTOR of its start, but
                // drags compound): it stops at MIN_SCALE, keeping its sign.
                let mut t = *t;
                for s in t.scale.iter_mut() {
                    if s.abs() < MIN_SCALE {
                        *s = MIN_SCALE.copysign(*s);
                    }
                }
                *o.transform = t;
            }
        }
        // The written objects and their subtrees, each once (a written object
        // may sit below another): what this costs depends on what moved, not
        // on the size of the scene.
        let mut written: Vec<usize> = objects.to_vec();
        written.sort_unstable();
        let mut moved: Vec<usize> = Vec::new();
        for (k, &i) in objects.iter().enumerate().filter(|&(_, &i)| self.scene.contains(i)) {
            if worlds.and_then(|w| w.get(k)).is_some_and(|w| drawn_alike(w, &self.scene.world_matrix(i))) {
                self.log.edited();
                continue;
            }
            if !self.scene.hierarchy().ancestors(i).any(|p| written.binary_search(&p).is_ok()) {
                moved.push(i);
                moved.extend(self.scene.hierarchy().descendants(i));
            }
        }
        self.log.changed(&moved, self.scene.id_bound());
        for &i in &moved {
            self.pick.set(i, &self.scene, &self.skinning.posed);
        }
        self.repose_moved(&moved);
    }
}
