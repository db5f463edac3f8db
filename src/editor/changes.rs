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
    epoch: u64,
    changed: usize,
    /// Where the log of visibility changes stood.
    visibility: usize,
    /// Changes to the scene that move no object (a camera bookmark stored).
    other: u64,
}

/// A point in the scene's edits ([`Editor::edit_mark`]): like a
/// [`ChangeMark`] but blind to animation poses, which are not saved, so
/// that showing or playing a clip leaves the scene unmodified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditMark {
    edits: u64,
    other: u64,
}

/// What changed since a [`ChangeMark`] ([`Editor::changes_since`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneChanges<'a> {
    /// The mark is from before the log's start: every object may have changed.
    All,
    /// Only the objects with these ids changed (possibly repeated): moved,
    /// added or removed. Ids are stable, so nothing else moved; an id whose
    /// slot is now dead ([`Scene::get`] is `None`) was removed, one at or
    /// past the scene's earlier id bound was added.
    Changed(&'a [usize]),
}

/// The objects whose world matrices changed (moved subtrees) or that came
/// or went, in order.
#[derive(Debug, Default)]
pub(super) struct ChangeLog {
    /// Bumped when the log starts over.
    epoch: u64,
    /// How many entries were dropped from the front of `changed` and of
    /// `visibility`: marks hold positions counted from the log's start.
    dropped: (usize, usize),
    /// The positions of the newest mark handed out ([`Editor::change_mark`]):
    /// a log grown long drops what is before it, which its reader (the
    /// renderer, marking every frame) has taken.
    newest: std::cell::Cell<(usize, usize)>,
    changed: Vec<usize>,
    /// Objects whose visibility (alone) may have changed, in order, each
    /// with whether it was hidden then (by its own flag, an ancestor's or
    /// local view): their records need a bit, not a new matrix, and the
    /// last entry of an object tells its state now (unless `changed` lists
    /// it, which its reader takes whole).
    visibility: Vec<(usize, bool)>,
    /// Counts changes that touch no object (bookmarks): they make the
    /// scene unsaved without asking renderers to look at any object.
    pub(super) other: u64,
    /// Counts the logged changes that are edits (not an animation pose).
    edits: u64,
    /// Set while an animation pose is written: its changes are logged for
    /// renderers but are not edits.
    pub(super) posing: bool,
}

impl ChangeLog {
    /// Logs changed objects; a log grown past twice the id bound (a long
    /// drag nobody read) starts over, asking readers to take everything.
    pub(super) fn changed(&mut self, objects: &[usize], id_bound: usize) {
        self.changed.extend_from_slice(objects);
        if !self.posing && !objects.is_empty() {
            self.edits += 1;
        }
        self.start_over_if_long(id_bound);
    }

    /// Counts an edit that renderers need not look at (objects reparented
    /// with their world matrices kept): the scene is unsaved all the same.
    pub(super) fn edited(&mut self) {
        if !self.posing {
            self.edits += 1;
        }
    }

    /// Logs objects that were hidden or shown (nothing else drawn of them
    /// changed), with whether each is hidden now: an edit.
    pub(super) fn visibility_changed(&mut self, objects: &[(usize, bool)], id_bound: usize) {
        self.visibility.extend_from_slice(objects);
        if !objects.is_empty() {
            self.edits += 1;
        }
        self.start_over_if_long(id_bound);
    }

    /// A log longer than twice the scene drops the entries before the
    /// newest mark handed out (a reader with an older mark is then asked to
    /// take everything); one still too long (no mark for a long while)
    /// starts over.
    fn start_over_if_long(&mut self, id_bound: usize) {
        let limit = 2 * id_bound.max(4096);
        if self.changed.len() + self.visibility.len() <= limit {
            return;
        }
        let (c, v) = self.newest.get();
        if let (Some(c), Some(v)) = (c.checked_sub(self.dropped.0), v.checked_sub(self.dropped.1)) {
            if c <= self.changed.len() && v <= self.visibility.len() {
                self.changed.drain(..c);
                self.visibility.drain(..v);
                self.dropped = (self.dropped.0 + c, self.dropped.1 + v);
            }
        }
        if self.changed.len() + self.visibility.len() > limit {
            self.epoch += 1;
            self.dropped = (0, 0);
            self.newest.set((0, 0));
            self.changed.clear();
            self.visibility.clear();
        }
    }

    /// The log's current end: positions counted from its start.
    fn end(&self) -> (usize, usize) {
        (self.dropped.0 + self.changed.len(), self.dropped.1 + self.visibility.len())
    }
}

impl Editor {
    /// The current point of the change log.
    pub fn change_mark(&self) -> ChangeMark {
        let mark = self.log_position();
        self.log.newest.set((mark.changed, mark.visibility));
        mark
    }

    /// [`Editor::change_mark`] for the editor's own caches: not a reader's
    /// mark, so a long log does not keep what is after it.
    pub(super) fn log_position(&self) -> ChangeMark {
        let (changed, visibility) = self.log.end();
        ChangeMark { epoch: self.log.epoch, changed, visibility, other: self.log.other }
    }

    /// The current point of the scene's edits (poses left out).
    pub fn edit_mark(&self) -> EditMark {
        EditMark { edits: self.log.edits, other: self.log.other }
    }

    /// What changed in the scene since `mark` (`None`: everything). Reading
    /// costs what changed, not the scene.
    pub fn changes_since(&self, mark: Option<ChangeMark>) -> SceneChanges<'_> {
        match mark {
            // Both of the mark's positions must still be in the log.
            Some(m) if m.epoch == self.log.epoch && m.visibility >= self.log.dropped.1 => {
                match m.changed.checked_sub(self.log.dropped.0) {
                    Some(at) if at <= self.log.changed.len() => SceneChanges::Changed(&self.log.changed[at..]),
                    _ => SceneChanges::All,
                }
            }
            _ => SceneChanges::All,
        }
    }

    /// The objects hidden or shown since `mark`, in order and possibly
    /// repeated, each with whether it was hidden then: an object's last
    /// entry is its state now, and nothing else of it changed unless
    /// [`Editor::changes_since`] lists it too. Empty when the mark is from
    /// before the log's start, where [`Editor::changes_since`] says
    /// [`SceneChanges::All`].
    pub fn visibility_since(&self, mark: Option<ChangeMark>) -> &[(usize, bool)] {
        match mark {
            Some(m) if m.epoch == self.log.epoch => match m.visibility.checked_sub(self.log.dropped.1) {
                Some(at) if at <= self.log.visibility.len() => &self.log.visibility[at..],
                _ => &[],
            },
            _ => &[],
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
            *o.skin = new.skin.clone();
            *o.origin = new.origin.clone();
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
        self.pick.set_many(&moved, &self.scene);
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
        self.pick.set_many(added, &self.scene);
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
        self.pick.remove_many(gone, &self.scene);
        for &i in gone {
            self.pick.meshes.unlink(i);
        }
    }

    /// Drops the per-slot entries past the scene's id bound.
    fn index_truncated(&mut self) {
        let n = self.scene.id_bound();
        self.pick.bounds.truncate(n);
        self.pick.meshes.truncate(n);
        self.pick.truncate(n, &self.scene);
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

    /// Delete: removes the selected objects and their descendants. One undo step.
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
        let skins = self.skins_without(&ids);
        let edit =
            Edit::Remove { items, selection_before: self.selection.to_vec(), selection_after: Vec::new(), skins };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Transform;

    fn moved(e: &mut Editor, i: usize, x: f64) {
        let t = Transform { position: nalgebra::Vector3::new(x, 0.0, 0.0), ..e.scene().objects()[i].transform };
        assert!(e.set_transform(i, t));
    }

    /// A long log drops what is before the newest mark (a renderer marking
    /// every frame keeps reading only what changed); an older mark is then
    /// asked to take everything; with no mark for a long while the log
    /// starts over.
    #[test]
    fn a_long_log_keeps_what_the_newest_mark_has_not_read() {
        let mut e = Editor::new(Scene::cube_grid(10), 800.0, 600.0);
        let old = e.change_mark();
        let mut recent = e.change_mark();
        let mut since = 0;
        // 9000 moves, a mark every 100 (a frame): past the 8192 limit.
        for k in 0..9000 {
            if k % 100 == 0 {
                let SceneChanges::Changed(ids) = e.changes_since(Some(recent)) else { panic!("{k}: the newest mark") };
                assert_eq!(ids.len(), since, "{k}");
                recent = e.change_mark();
                since = 0;
            }
            moved(&mut e, k % 10, k as f64);
            since += 1;
        }
        let SceneChanges::Changed(ids) = e.changes_since(Some(recent)) else { panic!("the recent mark is kept") };
        assert_eq!(ids, (8900..9000).map(|k| k % 10).collect::<Vec<_>>().as_slice());
        assert_eq!(e.changes_since(Some(old)), SceneChanges::All, "the old mark's entries were dropped");
        // Visibility too: a hide after the recent mark is listed.
        e.set_selection(&[3]);
        assert!(e.hide_selected());
        assert_eq!(e.visibility_since(Some(recent)), &[(3, true)]);
        // No mark for more than the limit: the log starts over.
        for k in 0..9000 {
            moved(&mut e, k % 10, -(k as f64));
        }
        assert_eq!(e.changes_since(Some(recent)), SceneChanges::All);
        assert!(e.visibility_since(Some(recent)).is_empty());
        let now = e.change_mark();
        moved(&mut e, 4, 1.5);
        assert_eq!(e.changes_since(Some(now)), SceneChanges::Changed(&[4]));
    }
}
