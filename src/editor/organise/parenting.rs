//! Reparenting with world transforms kept (Ctrl+P, Alt+P, the outliner's
//! drop) and grouping under a new empty (Ctrl+G), each one undo step.

use std::collections::HashSet;

use nalgebra::Matrix4;

use crate::editor::{Edit, Editor};
use crate::gizmo::Placement;
use crate::math::Transform;
use crate::scene::{Detached, MeshRef, Object, MIN_SCALE};

/// `m` as translation, rotation and scale, the rotation the closest one to
/// its linear part ([`crate::scene::open::closest_trs`]); `true` when a
/// shear had to be dropped for that.
pub fn closest_trs(m: &Matrix4<f64>) -> (Transform, bool) {
    let (t, error) = crate::scene::open::closest_trs(m, MIN_SCALE);
    let size = m.iter().fold(1.0f64, |a, x| a.max(x.abs()));
    (t, error > 1e-9 * size)
}

impl Editor {
    /// The objects of `ids` whose ancestors are not among them, in id order.
    pub(super) fn top_level(&self, ids: &[usize]) -> Vec<usize> {
        let set: HashSet<usize> = ids.iter().copied().collect();
        let mut out: Vec<usize> = ids
            .iter()
            .copied()
            .filter(|&i| self.scene.contains(i) && !self.scene.hierarchy().ancestors(i).any(|a| set.contains(&a)))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The reparent edit that makes `ids` children of `parent` (roots for
    /// `None`) keeping their world transforms; `Err` names why not (a
    /// parent that is one of them or below one). The flag tells that a
    /// shear was dropped.
    fn reparent_edit(&self, ids: &[usize], parent: Option<usize>) -> Result<(Edit, bool), String> {
        let mut moved: Vec<usize> =
            ids.iter().copied().filter(|&i| Some(i) != parent && self.scene.contains(i)).collect();
        if let Some(p) = parent {
            if let Some(&i) = moved.iter().find(|&&i| self.scene.hierarchy().is_ancestor(i, p)) {
                return Err(format!(
                    "{} cannot become a child of its own descendant {}",
                    self.scene.objects()[i].name,
                    self.scene.objects()[p].name
                ));
            }
            if ids.contains(&p) && moved.len() == ids.len() {
                return Err("an object cannot become its own parent".into());
            }
        }
        let parent_world = parent.map_or_else(Matrix4::identity, |p| self.scene.world_matrix(p));
        let inverse = parent_world.try_inverse().ok_or("the new parent's transform cannot be inverted")?;
        // After the new parent's children, in the order of their rows.
        let h = self.scene.hierarchy();
        let row_key = |i: usize| {
            let mut key: Vec<u64> = h.ancestors(i).map(|a| h.place(a)).collect();
            key.reverse();
            key.push(h.place(i));
            key
        };
        moved.sort_by_cached_key(|&i| row_key(i));
        let mut sheared = false;
        let (mut before, mut after, mut places) = (Vec::new(), Vec::new(), Vec::new());
        for (k, &i) in moved.iter().enumerate() {
            let (local, s) = closest_trs(&(inverse * self.scene.world_matrix(i)));
            sheared |= s;
            before.push((self.scene.parent(i), self.scene.objects()[i].transform));
            after.push((parent, local));
            places.push((h.place(i), h.next_place() + k as u64));
        }
        Ok((Edit::Reparent { objects: moved, before, after, places }, sheared))
    }

    /// Ctrl+P (`parent` the active object, `ids` the other selected ones),
    /// Alt+P (`None`: roots), the outliner's drop: the objects take the new
    /// parent keeping their world transforms. One undo step. `Ok` with a
    /// note when a shear had to be dropped; `Err` with the reason for a
    /// refusal (nothing changes).
    pub fn reparent(&mut self, ids: &[usize], parent: Option<usize>) -> Result<Option<String>, String> {
        if self.gizmo.is_dragging() {
            return Err("not during a drag".into());
        }
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let (edit, sheared) = self.reparent_edit(&ids, parent)?;
        if matches!(&edit, Edit::Reparent { objects, .. } if objects.is_empty()) {
            return Ok(None);
        }
        self.apply(&edit, true);
        self.history.push(edit);
        Ok(sheared.then(|| "the new parent shears: the closest rotation was kept, the shear dropped".to_string()))
    }

    /// Ctrl+P: the active object becomes the parent of the other selected ones.
    pub fn parent_to_active(&mut self) -> Result<Option<String>, String> {
        let Some(&active) = self.selection.last() else { return Err("nothing selected".into()) };
        let others: Vec<usize> = self.selection.iter().copied().filter(|&i| i != active).collect();
        if others.is_empty() {
            return Err("select the children first, then the parent (the active object)".into());
        }
        self.reparent(&others, Some(active))
    }

    /// Alt+P: the selected objects become roots.
    pub fn clear_parent(&mut self) -> Result<Option<String>, String> {
        let selected = self.selection.to_vec();
        self.reparent(&selected, None)
    }

    /// Ctrl+G: a new empty `group` at the selection's pivot, under the
    /// active object's parent, takes the selected objects whose ancestors
    /// are not selected as children (world transforms kept) and becomes
    /// the only selection. One undo step.
    pub fn group(&mut self) -> Result<Option<String>, String> {
        if self.gizmo.is_dragging() {
            return Err("not during a drag".into());
        }
        let Some(&active) = self.selection.last() else { return Err("nothing selected".into()) };
        let pivot = Placement::of(&self.targets(), &self.gizmo.config).map(|p| p.pivot).ok_or("no pivot")?;
        let parent = self.scene.parent(active);
        let parent_world = parent.map_or_else(Matrix4::identity, |p| self.scene.world_matrix(p));
        let inverse = parent_world.try_inverse().ok_or("the parent's transform cannot be inverted")?;
        let (local, _) = closest_trs(&(inverse * Matrix4::new_translation(&pivot.coords)));
        let id = self.scene.id_bound();
        let name = self.scene.copy_namer().free_name("group", |c| self.scene.find(c).is_some());
        let group = Object {
            name: name.into(),
            mesh: MeshRef::Empty,
            // Identity rotation and unit scale in the world, at the pivot.
            transform: local,
            color: [0.8, 0.8, 0.8],
            skin: None,
            extras: None,
            origin: None,
            fixture: None,
            cast_shadows: true,
            hidden: false,
        };
        let items = Detached { indices: vec![id], objects: vec![group], parents: vec![parent], places: Vec::new() };
        let members = self.top_level(&self.selection);
        let mut add = Edit::Add { items, selection_before: self.selection.to_vec(), selection_after: vec![id] };
        self.apply(&add, true);
        // A redo puts the group back at the place it has now, before its
        // members (which take theirs next), as the first time.
        if let Edit::Add { items, .. } = &mut add {
            items.places = vec![self.scene.hierarchy().place(id)];
        }
        let (reparent, sheared) = match self.reparent_edit(&members, Some(id)) {
            Ok(r) => r,
            Err(e) => {
                self.apply(&add, false);
                return Err(e);
            }
        };
        self.apply(&reparent, true);
        self.history.push(Edit::Group(vec![add, reparent]));
        Ok(sheared.then(|| "a member was sheared: the closest rotation was kept".to_string()))
    }
}
