//! Scene changes: duplicate and delete as undo steps, applying or
//! reverting any history entry, and the log of what changed for renderers
//! that keep their own copy of the objects (GPU culling).

use std::collections::HashMap;

use nalgebra::{Point3, Vector3};

use super::{mesh_bounds, Edit, Editor};
use crate::scene::{Detached, Scene};

/// A point in the editor's log of scene changes ([`Editor::change_mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeMark {
    structure: u64,
    moved: usize,
}

/// What changed since a [`ChangeMark`] ([`Editor::changes_since`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneChanges<'a> {
    /// Objects were added or removed (indices shifted), or the mark is from
    /// before the log's start: every object may have changed.
    All,
    /// Only these objects' world matrices changed (possibly repeated).
    Moved(&'a [usize]),
}

/// The objects whose world matrices changed (moved subtrees, appended in
/// order), since the last change of structure.
#[derive(Debug, Default)]
pub(super) struct ChangeLog {
    structure: u64,
    moved: Vec<usize>,
}

impl ChangeLog {
    /// Logs moved objects; a log grown past twice the scene (a long drag
    /// nobody read) starts over as a structure change.
    pub(super) fn moved(&mut self, objects: &[usize], scene_len: usize) {
        self.moved.extend_from_slice(objects);
        if self.moved.len() > 2 * scene_len.max(4096) {
            self.structure_changed();
        }
    }

    pub(super) fn structure_changed(&mut self) {
        self.structure += 1;
        self.moved.clear();
    }
}

impl Editor {
    /// The current point of the change log.
    pub fn change_mark(&self) -> ChangeMark {
        ChangeMark { structure: self.log.structure, moved: self.log.moved.len() }
    }

    /// What changed in the scene since `mark` (`None`: everything). Reading
    /// costs what changed, not the scene.
    pub fn changes_since(&self, mark: Option<ChangeMark>) -> SceneChanges<'_> {
        match mark {
            Some(m) if m.structure == self.log.structure && m.moved <= self.log.moved.len() => {
                SceneChanges::Moved(&self.log.moved[m.moved..])
            }
            _ => SceneChanges::All,
        }
    }

    /// Re-applies (`forward`) or reverts an edit.
    pub(super) fn apply(&mut self, e: &Edit, forward: bool) {
        match e {
            Edit::Transform { objects, before, after } => {
                self.write_transforms(objects, if forward { after } else { before });
            }
            Edit::Add { items, selection_before, selection_after }
            | Edit::Remove { items, selection_before, selection_after } => {
                let adding = matches!(e, Edit::Add { .. }) == forward;
                let before = self.scene.len();
                // Only the objects added or removed enter or leave the pick
                // index; at the end (a duplicate and its undo) nothing else
                // moves, elsewhere the others are renumbered in one pass.
                let at_end = items.indices.first() == Some(&if adding { before } else { before - items.len() })
                    && items.indices.windows(2).all(|w| w[1] == w[0] + 1);
                if adding {
                    // The items came out of (or were made for) this very state.
                    self.scene.restore(items).expect("history entries fit the scene they were made on");
                } else {
                    self.scene.remove(&items.indices);
                }
                self.selection = if forward { selection_after.clone() } else { selection_before.clone() };
                self.log.structure_changed();
                match (at_end, adding) {
                    (true, true) => self.index_appended(before),
                    (true, false) => self.index_truncated(),
                    (false, true) => self.index_inserted(&items.indices),
                    (false, false) => self.index_removed(&items.indices),
                }
                self.relink_skins();
            }
        }
        self.rehover();
    }

    /// Bounds, pick meshes and index entries for the objects from `first` on
    /// (just appended).
    fn index_appended(&mut self, first: usize) {
        for i in first..self.scene.len() {
            let mesh = self.scene.objects()[i].mesh.clone();
            if let (None, crate::scene::MeshRef::Primitive(p)) = (self.meshes.get(&mesh), &mesh) {
                self.meshes
                    .insert(mesh.clone(), std::sync::Arc::new(super::PickMesh::new(std::sync::Arc::new(p.mesh()))));
            }
            let (lo, hi) = self.known_bounds.get(&mesh).copied().unwrap_or_else(|| mesh_bounds(&mesh));
            self.bounds.push((lo, hi));
            self.object_meshes.push(self.meshes.get(&mesh).cloned());
            let world = self.scene.world_matrix(i);
            self.index.set(i, &lo, &hi, &world);
        }
    }

    /// Drops the bounds, pick meshes and index entries of objects that were
    /// removed from the end.
    fn index_truncated(&mut self) {
        let n = self.scene.len();
        self.bounds.truncate(n);
        self.object_meshes.truncate(n);
        self.index.truncate(n);
    }

    /// After objects were put back at `added` (ascending, their indices
    /// now): their bounds, pick meshes and index entries, the others
    /// renumbered without rebuilding the tree.
    fn index_inserted(&mut self, added: &[usize]) {
        let total = self.scene.len();
        let mut meshes = Vec::with_capacity(total);
        let mut old_meshes = self.object_meshes.drain(..);
        let mut a = added.iter().peekable();
        for i in 0..total {
            if a.peek() == Some(&&i) {
                a.next();
                meshes.push(self.meshes.get(&self.scene.objects()[i].mesh).cloned());
            } else {
                meshes.extend(old_meshes.next());
            }
        }
        drop(old_meshes);
        self.object_meshes = meshes;
        let (scene, known) = (&self.scene, &self.known_bounds);
        self.bounds.insert_at(added, |i| {
            let mesh = &scene.objects()[i].mesh;
            known.get(mesh).copied().unwrap_or_else(|| mesh_bounds(mesh))
        });
        let (scene, bounds) = (&self.scene, &self.bounds);
        self.index.insert_ids(added, |i| (bounds[i].0, bounds[i].1, scene.world_matrix(i)));
    }

    /// After the objects at `gone` (ascending, their old indices) were
    /// removed: drop their entries and renumber the rest.
    fn index_removed(&mut self, gone: &[usize]) {
        let mut g = gone.iter().peekable();
        let mut keep = |i: usize| {
            if g.peek() == Some(&&i) {
                g.next();
                false
            } else {
                true
            }
        };
        let keep: Vec<bool> = (0..self.bounds.len()).map(&mut keep).collect();
        self.bounds.retain(&keep);
        let mut k = keep.iter();
        self.object_meshes.retain(|_| *k.next().unwrap_or(&true));
        self.index.remove_ids(gone);
    }

    /// Ctrl+D / Shift+D: copies the selected objects with their descendants
    /// under the same parents; the copies of the selected objects become
    /// the selection (in the same order). One undo step.
    pub fn duplicate(&mut self) -> bool {
        if self.gizmo.is_dragging() || self.selection.is_empty() {
            return false;
        }
        let items = self.scene.duplicates(&self.selection);
        let copy_of: HashMap<usize, usize> =
            self.scene.with_descendants(&self.selection).into_iter().zip(items.indices.iter().copied()).collect();
        let selection_before = self.selection.clone();
        let selection_after: Vec<usize> = self.selection.iter().map(|i| copy_of[i]).collect();
        let edit = Edit::Add { items, selection_before, selection_after };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }

    /// Adds the objects of `fragment` (an imported file's nodes) after the
    /// scene's, as one undo step: names made unique, the roots moved
    /// together so that the centre of their origins lies at `at`, and the
    /// roots selected (`assets.md`, "Importing"). Their meshes must have
    /// been handed over first ([`Editor::add_mesh`]). False for an empty
    /// fragment or during a drag.
    pub fn import(&mut self, fragment: &Scene, at: Point3<f64>) -> bool {
        if self.gizmo.is_dragging() || fragment.is_empty() || !at.iter().all(|v| v.is_finite()) {
            return false;
        }
        let mut items = self.scene.appended(fragment);
        let roots: Vec<usize> = (0..items.len()).filter(|&k| items.parents[k].is_none()).collect();
        let centre =
            roots.iter().map(|&k| items.objects[k].transform.position).sum::<Vector3<f64>>() / roots.len() as f64;
        let offset = at.coords - centre;
        for &k in &roots {
            items.objects[k].transform.position += offset;
        }
        let selection_after = roots.iter().map(|&k| items.indices[k]).collect();
        let edit = Edit::Add { items, selection_before: self.selection.clone(), selection_after };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }

    /// Delete: removes the selected objects and their descendants. One undo step.
    pub fn delete(&mut self) -> bool {
        if self.gizmo.is_dragging() || self.selection.is_empty() {
            return false;
        }
        let ids = self.scene.with_descendants(&self.selection);
        let items = Detached {
            indices: ids.clone(),
            objects: ids.iter().map(|&i| self.scene.objects()[i].clone()).collect(),
            parents: ids.iter().map(|&i| self.scene.parent(i)).collect(),
        };
        let edit = Edit::Remove { items, selection_before: self.selection.clone(), selection_after: Vec::new() };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }
}
