//! Applying history entries: undo and redo, each entry re-applied or
//! reverted, and the pick index, meshes and bounds kept up to date for the
//! objects an entry adds, removes or replaces.

use super::{mesh_bounds, Edit, Editor};

impl Editor {
    pub fn undo(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        match self.history.take_undo() {
            Some(e) => {
                self.apply(&e, false);
                self.history.undone(e);
                true
            }
            None => false,
        }
    }

    pub fn redo(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        match self.history.take_redo() {
            Some(e) => {
                self.apply(&e, true);
                self.history.redone(e);
                true
            }
            None => false,
        }
    }

    /// Re-applies (`forward`) or reverts an edit (first returning to the
    /// rest pose, [`Editor::before_edit`]).
    pub(super) fn apply(&mut self, e: &Edit, forward: bool) {
        self.before_edit();
        match e {
            Edit::Group(edits) => {
                if forward {
                    edits.iter().for_each(|e| self.apply(e, true));
                } else {
                    edits.iter().rev().for_each(|e| self.apply(e, false));
                }
            }
            Edit::Replace { objects, before, after } => {
                self.replace_objects(objects, if forward { after } else { before })
            }
            Edit::Rename { object, before, after, skins } => {
                let name = if forward { after } else { before };
                self.scene.rename(*object, name).expect("history entries fit the scene they were made on");
                for c in skins {
                    if let Some(o) = self.scene.object_mut(c.object) {
                        *o.skin = if forward { c.after.clone() } else { c.before.clone() };
                    }
                }
                self.log.changed(&[*object], self.scene.id_bound());
                self.relink_skins();
            }
            Edit::Reparent { objects, before, after, places } => {
                let to = if forward { after } else { before };
                // Undo goes in reverse, so that every step meets the
                // hierarchy it met going forward.
                let order: Vec<usize> =
                    if forward { (0..objects.len()).collect() } else { (0..objects.len()).rev().collect() };
                // Kept by the new parents: what renderers hold stays valid.
                let worlds: Vec<nalgebra::Matrix4<f64>> = objects.iter().map(|&i| self.scene.world_matrix(i)).collect();
                // Hidden flags are inherited: under a hidden parent (or out
                // from under one) moved objects hide or show. While any
                // object is hidden, the moved subtrees' states are taken
                // before and after, and those that turned are refreshed.
                let subtrees =
                    if self.scene.hidden_count() > 0 { self.scene.with_descendants(objects) } else { Vec::new() };
                let was_hidden: Vec<bool> = subtrees.iter().map(|&i| self.scene.is_hidden(i)).collect();
                for k in order {
                    let (parent, place) = (to[k].0, if forward { places[k].1 } else { places[k].0 });
                    self.scene
                        .set_parent_at(objects[k], parent, place)
                        .expect("history entries fit the scene they were made on");
                }
                let transforms: Vec<crate::math::Transform> = to.iter().map(|(_, t)| *t).collect();
                self.write_transforms_from(objects, &transforms, Some(&worlds));
                let turned: Vec<usize> = subtrees
                    .iter()
                    .zip(was_hidden)
                    .filter(|&(&i, was)| self.scene.is_hidden(i) != was)
                    .map(|(&i, _)| i)
                    .collect();
                if !turned.is_empty() {
                    self.refresh_visibility(&turned);
                }
                self.relink_skins();
            }
            Edit::Transform { objects, before, after } => {
                self.write_transforms(objects, if forward { after } else { before });
            }
            Edit::Lighting { before, after } => self.lighting = **if forward { after } else { before },
            Edit::Hide { objects, before, after, selection_before, selection_after } => {
                self.write_hidden(objects, if forward { after } else { before });
                self.selection.set(if forward { selection_after } else { selection_before }.iter().copied());
            }
            Edit::Add { items, selection_before, selection_after }
            | Edit::Remove { items, selection_before, selection_after, .. } => {
                let adding = matches!(e, Edit::Add { .. }) == forward;
                if adding {
                    // The items came out of (or were made for) this very state.
                    self.scene.restore(items).expect("history entries fit the scene they were made on");
                    self.index_added(&items.indices);
                } else {
                    self.scene.remove(&items.indices);
                    self.index_removed(&items.indices);
                    // Undoing an addition: the copies held the last slots
                    // (later additions were undone first), which are freed
                    // so that a redo gives them the same ids again.
                    let first = items.indices.first().copied().unwrap_or(0);
                    if matches!(e, Edit::Add { .. }) && first + items.len() == self.scene.id_bound() {
                        self.scene.truncate(first);
                        self.index_truncated();
                    }
                }
                if let Edit::Remove { skins, .. } = e {
                    for c in skins {
                        if let Some(o) = self.scene.object_mut(c.object) {
                            *o.skin = if forward { c.after.clone() } else { c.before.clone() };
                        }
                    }
                    let objects: Vec<usize> = skins.iter().map(|c| c.object).collect();
                    self.log.changed(&objects, self.scene.id_bound());
                }
                self.selection.set(if forward { selection_after } else { selection_before }.iter().copied());
                self.log.changed(&items.indices, self.scene.id_bound());
                self.relink_skins();
            }
        }
        self.rehover();
    }

    /// Gives each object of `ids` the fields of its entry in `objects`
    /// (every field but the name), then brings the pick index, the change
    /// log and the skins up to date for them and their subtrees.
    fn replace_objects(&mut self, ids: &[usize], objects: &[crate::scene::Object]) {
        for (&i, new) in ids.iter().zip(objects) {
            let Some(o) = self.scene.object_mut(i) else { continue };
            *o.mesh = new.mesh.clone();
            *o.transform = new.transform;
            *o.color = new.color;
            *o.cast_shadows = new.cast_shadows;
            *o.skin = new.skin.clone();
            *o.origin = new.origin.clone();
            self.scene.set_fixture(i, new.fixture.clone());
            self.link_mesh(i, &new.mesh);
        }
        let written: std::collections::HashSet<usize> = ids.iter().copied().collect();
        let mut moved: Vec<usize> = Vec::new();
        for &i in ids.iter().filter(|&&i| self.scene.contains(i)) {
            if !self.scene.hierarchy().ancestors(i).any(|p| written.contains(&p)) {
                moved.push(i);
                moved.extend(self.scene.hierarchy().descendants(i));
            }
        }
        self.log.changed(&moved, self.scene.id_bound());
        self.pick.set_many(&moved, &self.scene, &self.skinning.posed);
        self.relink_skins();
    }

    /// Bounds, pick meshes and index entries for the objects `added` (in
    /// their slots now, ascending ids): the per-slot tables grow to the id
    /// bound. Costs what was added (times the tree's depth).
    fn index_added(&mut self, added: &[usize]) {
        for &i in added {
            let Some(mesh) = self.scene.get(i).map(|o| o.mesh.clone()) else { continue };
            self.link_mesh(i, &mesh);
        }
        self.pick.set_many(added, &self.scene, &self.skinning.posed);
    }

    /// Object `i`'s pick mesh and local bounds for `mesh` (a primitive's
    /// pick mesh made the first time one is used); the pick tree is the
    /// caller's to update.
    fn link_mesh(&mut self, i: usize, mesh: &crate::scene::MeshRef) {
        if let (false, crate::scene::MeshRef::Primitive(p)) = (self.pick.meshes.contains(mesh), mesh) {
            let pick = super::PickMesh::new(std::sync::Arc::new(p.mesh()));
            self.pick.meshes.insert(mesh, std::sync::Arc::new(pick));
        }
        let (lo, hi) = self.pick.known_bounds.get(mesh).copied().unwrap_or_else(|| mesh_bounds(mesh));
        self.pick.meshes.link(i, mesh);
        self.pick.bounds.put(i, (lo, hi));
    }

    /// Makes the objects at `gone` (now dead slots) unhittable; their
    /// per-slot table entries stay (stale) until the slots are reused or
    /// truncated. Costs what was removed.
    fn index_removed(&mut self, gone: &[usize]) {
        self.pick.remove_many(gone, &self.scene, &self.skinning.posed);
        for &i in gone {
            self.pick.meshes.unlink(i);
        }
    }

    /// Drops the per-slot entries past the scene's id bound.
    fn index_truncated(&mut self) {
        let n = self.scene.id_bound();
        self.pick.bounds.truncate(n);
        self.pick.meshes.truncate(n);
        self.pick.truncate(n, &self.scene, &self.skinning.posed);
    }
}
