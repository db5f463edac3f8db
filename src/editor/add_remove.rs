//! Edits that add or remove objects, each one undo step: duplicate,
//! import, delete, a reload of changed files and replacing the whole scene
//! (recovering an autosave); deletes hand deleted joints' influence on to
//! their ancestors.

use std::collections::HashMap;

use nalgebra::{Point3, Vector3};

use super::{Edit, Editor};
use crate::scene::{Detached, Scene};

impl Editor {
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
        let selection_before = self.selection.to_vec();
        let selection_after: Vec<usize> = self.selection.iter().map(|i| copy_of[i]).collect();
        let edit = Edit::Add { items, selection_before, selection_after };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }

    /// Adds the objects of `fragment` (an imported file's nodes) after the
    /// scene's, as one undo step: names made unique, the roots moved
    /// together so that the centre of their origins lies at `at`, and the
    /// roots selected (`docs/spec/assets.md`, "Importing"). Their meshes must have
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
        let edit = Edit::Add { items, selection_before: self.selection.to_vec(), selection_after };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }

    /// The skins that change when the objects `ids` are deleted: each
    /// remaining skinned object whose skin names one of them hands that
    /// joint's influence to its nearest remaining ancestor joint
    /// (`docs/spec/roundtrip.md`, "Every saved file reopens"). Costs the
    /// skinned objects, of which large scenes have few.
    fn skins_without(&self, ids: &[usize]) -> Vec<super::history::SkinChange> {
        let scene = &self.scene;
        let gone = |name: &str| scene.find(name).is_some_and(|i| ids.binary_search(&i).is_ok());
        let ancestors = |name: &str| {
            let mut out = Vec::new();
            let mut at = scene.find(name).and_then(|i| scene.parent(i));
            while let Some(p) = at {
                out.push(scene.objects()[p].name.to_string());
                at = scene.parent(p);
            }
            out
        };
        let mut changes = Vec::new();
        for link in &self.skinning.skin_links {
            let i = link.object;
            if ids.binary_search(&i).is_ok() {
                continue;
            }
            let o = &scene.objects()[i];
            let Some(skin) = o.skin.as_deref() else { continue };
            if let Some(joints) = crate::scene::joints_without(skin, &o.name, gone, ancestors) {
                let after = crate::scene::SkinRef { index: skin.index, joints };
                changes.push(super::history::SkinChange {
                    object: i,
                    before: o.skin.clone(),
                    after: Some(Box::new(after)),
                });
            }
        }
        changes
    }

    /// A reload of changed files (`docs/spec/roundtrip.md`, "Reload"), as
    /// one undo step: the objects `removed` go with their subtrees, the
    /// objects of `replaced` take the given fields (all but the name), and
    /// `added` (new slots after the last, names free) come in. Selected
    /// objects that go leave the selection. False when nothing changes or
    /// during a drag.
    pub fn reload(&mut self, removed: &[usize], replaced: Vec<(usize, crate::scene::Object)>, added: Detached) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        // The objects' fields are kept for undo: their own transforms, not a pose's.
        self.leave_pose();
        let gone = self.scene.with_descendants(removed);
        let selection_before = self.selection.to_vec();
        let selection_after: Vec<usize> =
            selection_before.iter().copied().filter(|i| gone.binary_search(i).is_err()).collect();
        let mut edits = Vec::new();
        if !gone.is_empty() {
            let items = Detached {
                indices: gone.clone(),
                objects: gone.iter().map(|&i| self.scene.objects()[i].clone()).collect(),
                parents: gone.iter().map(|&i| self.scene.parent(i)).collect(),
                places: Vec::new(),
            };
            let skins = self.skins_without(&gone);
            edits.push(Edit::Remove {
                items,
                selection_before: selection_before.clone(),
                selection_after: selection_after.clone(),
                skins,
            });
        }
        let replaced: Vec<(usize, crate::scene::Object)> = replaced
            .into_iter()
            .filter(|(i, o)| gone.binary_search(i).is_err() && self.scene.get(*i).is_some_and(|now| now != o))
            .collect();
        if !replaced.is_empty() {
            let objects: Vec<usize> = replaced.iter().map(|(i, _)| *i).collect();
            let before = objects.iter().map(|&i| self.scene.objects()[i].clone()).collect();
            let after = replaced.into_iter().map(|(_, o)| o).collect();
            edits.push(Edit::Replace { objects, before, after });
        }
        if !added.is_empty() {
            edits.push(Edit::Add {
                items: added,
                selection_before: selection_after.clone(),
                selection_after: selection_after.clone(),
            });
        }
        if edits.is_empty() {
            return false;
        }
        let edit = Edit::Group(edits);
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }

    /// Replaces every object with those of `other`, names and hierarchy as
    /// they are there, as one undo step (recovering an autosave); the
    /// camera becomes `other`'s if it has one. Their meshes must have been
    /// handed over first ([`Editor::add_mesh`]). False during a drag.
    pub fn replace_scene(&mut self, other: &Scene) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        self.leave_pose();
        let ids: Vec<usize> = self.scene.ids().collect();
        let gone = Detached {
            objects: ids.iter().map(|&i| self.scene.objects()[i].clone()).collect(),
            parents: ids.iter().map(|&i| self.scene.parent(i)).collect(),
            indices: ids,
            places: Vec::new(),
        };
        // `other`'s live objects packed into new slots after the last.
        let base = self.scene.id_bound();
        let mut new_id = vec![usize::MAX; other.id_bound()];
        for (k, i) in other.ids().enumerate() {
            new_id[i] = base + k;
        }
        let mut items = Detached::default();
        for (i, o) in other.iter() {
            items.indices.push(new_id[i]);
            items.objects.push(o.clone());
            items.parents.push(other.parent(i).map(|p| new_id[p]));
        }
        let selection_before = self.selection.to_vec();
        let edit = Edit::Group(vec![
            Edit::Remove { items: gone, selection_before, selection_after: Vec::new(), skins: Vec::new() },
            Edit::Add { items, selection_before: Vec::new(), selection_after: Vec::new() },
        ]);
        self.apply(&edit, true);
        self.history.push(edit);
        if let Some(c) = other.camera {
            self.camera = c;
        }
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
            places: Vec::new(),
        };
        let skins = self.skins_without(&ids);
        let edit =
            Edit::Remove { items, selection_before: self.selection.to_vec(), selection_after: Vec::new(), skins };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }
}
