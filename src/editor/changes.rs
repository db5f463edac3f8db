//! Scene changes: duplicate and delete as undo steps, and applying or
//! reverting any history entry.

use std::collections::HashMap;

use super::{mesh_bounds, Edit, Editor};
use crate::picking::SceneIndex;
use crate::scene::Detached;

impl Editor {
    /// Re-applies (`forward`) or reverts an edit.
    pub(super) fn apply(&mut self, e: &Edit, forward: bool) {
        match e {
            Edit::Transform { objects, before, after } => {
                self.write_transforms(objects, if forward { after } else { before });
            }
            Edit::Add { items, selection_before, selection_after }
            | Edit::Remove { items, selection_before, selection_after } => {
                let adding = matches!(e, Edit::Add { .. }) == forward;
                if adding {
                    // The items came out of (or were made for) this very state.
                    self.scene.restore(items).expect("history entries fit the scene they were made on");
                } else {
                    self.scene.remove(&items.indices);
                }
                self.selection = if forward { selection_after.clone() } else { selection_before.clone() };
                self.rebuild_index();
            }
        }
        self.rehover();
    }

    /// Recomputes every object's bounds and the pick index after objects
    /// were added or removed (indices shifted).
    pub(super) fn rebuild_index(&mut self) {
        self.add_primitive_meshes();
        self.bounds = self
            .scene
            .objects()
            .iter()
            .map(|o| self.known_bounds.get(&o.mesh).copied().unwrap_or_else(|| mesh_bounds(&o.mesh)))
            .collect();
        let worlds = self.scene.world_matrices();
        self.index = SceneIndex::build(self.bounds.iter().zip(&worlds).map(|((lo, hi), m)| (*lo, *hi, *m)));
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
