//! Organising the scene (`docs/spec/organise.md`): select all and none,
//! adding a primitive or an empty, reparenting with world transforms kept,
//! grouping, dropping to the floor, and the scene-file text that copy and
//! paste carry. Each change is one undo step.

use std::collections::HashSet;

use nalgebra::{Matrix4, Point3, Vector3};

use super::{Edit, Editor};
use crate::gizmo::Placement;
use crate::math::{Ray, Transform};
use crate::scene::{copy_name, Detached, MeshRef, Object, Primitive, Scene, MIN_SCALE};

/// What an add (Shift+A, a script's `add`) makes: a primitive's mesh or an empty.
pub fn add_mesh(name: &str) -> Option<MeshRef> {
    match name {
        "empty" => Some(MeshRef::Empty),
        _ => Primitive::from_name(name).map(MeshRef::Primitive),
    }
}

/// The names the add menu and `{"add": ...}` take, in menu order.
pub const ADD_NAMES: [&str; 7] = ["cube", "sphere", "cylinder", "cone", "torus", "plane", "empty"];

/// `m` as translation, rotation and scale, the rotation the closest one to
/// its linear part ([`crate::scene::open::closest_trs`]); `true` when a
/// shear had to be dropped for that.
pub fn closest_trs(m: &Matrix4<f64>) -> (Transform, bool) {
    let (t, error) = crate::scene::open::closest_trs(m, MIN_SCALE);
    let size = m.iter().fold(1.0f64, |a, x| a.max(x.abs()));
    (t, error > 1e-9 * size)
}

impl Editor {
    /// Renames object `i` (F2's dialog, a script's `rename`): a name in use
    /// by another object gets `.NNN` as a copy's does; an empty name or one
    /// with a control character is refused. Skins naming the object follow.
    /// One undo step. Returns the name given.
    pub fn rename(&mut self, i: usize, wanted: &str) -> Result<String, String> {
        if self.gizmo.is_dragging() {
            return Err("not during a drag".into());
        }
        let Some(old) = self.scene.get(i).map(|o| o.name.to_string()) else { return Err("no such object".into()) };
        if wanted.is_empty() {
            return Err("a name cannot be empty".into());
        }
        if wanted.chars().any(char::is_control) {
            return Err("a name cannot hold control characters".into());
        }
        if wanted == old {
            return Ok(old);
        }
        let taken = |c: &str| self.scene.find(c).is_some_and(|k| k != i);
        let name = if taken(wanted) { copy_name(wanted, taken) } else { wanted.to_string() };
        let skins: Vec<super::history::SkinChange> = self
            .scene
            .iter()
            .filter_map(|(k, o)| {
                let skin = o.skin.as_deref()?;
                if !skin.joints.contains(&old) {
                    return None;
                }
                let joints = skin.joints.iter().map(|j| if *j == old { name.clone() } else { j.to_string() }).collect();
                let after = crate::scene::SkinRef { index: skin.index, joints };
                Some(super::history::SkinChange { object: k, before: o.skin.clone(), after: Some(Box::new(after)) })
            })
            .collect();
        let edit = Edit::Rename { object: i, before: old, after: name.clone(), skins };
        self.apply(&edit, true);
        self.history.push(edit);
        Ok(name)
    }

    /// A or Ctrl+A: every visible object selected; the active one stays
    /// active when it is visible, else the last in scene order (not an undo step).
    pub fn select_all(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let active = self.selection.last().copied();
        // Every visible object; the active one last (active) if it is one of them.
        let visible = |i: usize| !self.scene.is_hidden(i);
        let active = active.filter(|&a| self.scene.contains(a) && visible(a));
        let mut ids: Vec<usize> = self.scene.ids().filter(|&i| Some(i) != active && visible(i)).collect();
        if let Some(a) = active {
            ids.push(a);
        }
        self.selection.set(ids);
        self.rehover();
        true
    }

    /// Alt+A: nothing selected.
    pub fn select_none(&mut self) -> bool {
        if self.gizmo.is_dragging() || self.selection.is_empty() {
            return false;
        }
        self.selection.clear();
        self.rehover();
        true
    }

    /// Adds one object with `mesh` (Shift+A, a script's `add`) at `at`, a
    /// root named after its mesh (`cube`, `cube.001`, ...; `empty`), as the
    /// only selected object. One undo step.
    pub fn add_object(&mut self, mesh: MeshRef, at: Point3<f64>) -> bool {
        if self.gizmo.is_dragging() || !at.iter().all(|v| v.is_finite()) {
            return false;
        }
        let base = mesh.source().unwrap_or("empty").to_string();
        let name =
            if self.scene.find(&base).is_none() { base } else { copy_name(&base, |c| self.scene.find(c).is_some()) };
        let id = self.scene.id_bound();
        let object = Object {
            name: name.into(),
            mesh,
            transform: Transform { position: at.coords, ..Transform::IDENTITY },
            color: [0.8, 0.8, 0.8],
            skin: None,
            extras: None,
            origin: None,
            hidden: false,
        };
        let items = Detached { indices: vec![id], objects: vec![object], parents: vec![None] };
        let edit = Edit::Add { items, selection_before: self.selection.to_vec(), selection_after: vec![id] };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }

    /// The objects of `ids` whose ancestors are not among them, in id order.
    fn top_level(&self, ids: &[usize]) -> Vec<usize> {
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
        let name = copy_name("group", |c| self.scene.find(c).is_some());
        let name = if self.scene.find("group").is_none() { "group".to_string() } else { name };
        let group = Object {
            name: name.into(),
            mesh: MeshRef::Empty,
            // Identity rotation and unit scale in the world, at the pivot.
            transform: local,
            color: [0.8, 0.8, 0.8],
            skin: None,
            extras: None,
            origin: None,
            hidden: false,
        };
        let items = Detached { indices: vec![id], objects: vec![group], parents: vec![parent] };
        let members = self.top_level(&self.selection);
        let add = Edit::Add { items, selection_before: self.selection.to_vec(), selection_after: vec![id] };
        self.apply(&add, true);
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

    /// The nearest hit of `ray` on the drawn triangles of the objects
    /// `keep` accepts: the object and the distance along the ray.
    pub fn ray_hit(&self, ray: &Ray, keep: impl Fn(usize) -> bool) -> Option<(usize, f64)> {
        let hit = self.pick.index.pick_with(&self.pick.boxes(&self.scene), ray, |id, _, t_best| {
            if !keep(id) {
                return None;
            }
            let mesh = self.mesh_of(id)?;
            let inv = self.scene.world_inverse(id)?;
            let origin = inv.transform_point(&ray.origin);
            let dir = inv.transform_vector(&ray.dir.into_inner());
            mesh.ray(&origin, &dir, t_best)
        })?;
        Some((hit.id, hit.t))
    }

    /// End: each selected object moves straight down (world -Y) until its
    /// drawn geometry touches another (unselected) object's drawn surface
    /// below it, or the ground y = 0 where nothing is below; one already
    /// resting on or cutting into a surface stays, nothing moves up. The
    /// contact is found from the object's vertices downwards. One undo step.
    pub fn drop_to_floor(&mut self) -> bool {
        if self.gizmo.is_dragging() || self.selection.is_empty() {
            return false;
        }
        let selected: HashSet<usize> = self.scene.with_descendants(&self.selection).into_iter().collect();
        let down = Vector3::new(0.0, -1.0, 0.0);
        let mut moves: Vec<(usize, f64)> = Vec::new();
        for &i in &self.top_level(&self.selection) {
            // The vertices of the object and its descendants, in the world.
            let mut points: Vec<Point3<f64>> = Vec::new();
            for k in std::iter::once(i).chain(self.scene.hierarchy().descendants(i)) {
                let Some(mesh) = self.mesh_of(k) else { continue };
                let world = self.scene.world_matrix(k);
                points.extend(
                    mesh.data
                        .positions
                        .iter()
                        .map(|v| world.transform_point(&Point3::new(v[0].into(), v[1].into(), v[2].into()))),
                );
            }
            if points.is_empty() {
                // An empty: its origin.
                points.push(Point3::from(self.scene.world_matrix(i).fixed_view::<3, 1>(0, 3).into_owned()));
            }
            let mut fall = f64::INFINITY;
            for p in &points {
                let Some(ray) = Ray::new(*p, down) else { continue };
                let hit = self.ray_hit(&ray, |id| !selected.contains(&id)).map(|(_, t)| t);
                let ground = (p.y >= 0.0).then_some(p.y);
                let d = match (hit, ground) {
                    (Some(h), Some(g)) => h.min(g),
                    (Some(h), None) => h,
                    (None, Some(g)) => g,
                    // Below the ground with nothing under it: already cutting in.
                    (None, None) => 0.0,
                };
                fall = fall.min(d);
            }
            if fall.is_finite() && fall > 0.0 {
                moves.push((i, fall));
            }
        }
        if moves.is_empty() {
            return false;
        }
        let mut objects = Vec::new();
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for (i, fall) in moves {
            let parent_inv =
                self.scene.parent(i).and_then(|p| self.scene.world_inverse(p)).unwrap_or_else(Matrix4::identity);
            let t = self.scene.objects()[i].transform;
            let delta = parent_inv.transform_vector(&(down * fall));
            objects.push(i);
            before.push(t);
            after.push(Transform { position: t.position + delta, ..t });
        }
        let edit = Edit::Transform { objects, before, after };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }

    /// Ctrl+C: the selected objects with their descendants as a scene of
    /// their own, the copied roots at their world transforms, for paste
    /// (`None` with nothing selected).
    pub fn copy_selection(&self) -> Option<Scene> {
        let roots = self.top_level(&self.selection);
        if roots.is_empty() {
            return None;
        }
        let ids = self.scene.with_descendants(&roots);
        let mut out = Scene::default();
        let mut new_id = std::collections::HashMap::new();
        for &i in &ids {
            let mut o = self.scene.objects()[i].clone();
            o.origin = None;
            // Mesh files by absolute path: the text may be pasted anywhere.
            if let MeshRef::Gltf(g) = &o.mesh {
                let abs = std::path::absolute(&g.path).unwrap_or_else(|_| g.path.clone());
                let source = match g.mesh {
                    Some(n) => format!("{}#{n}", abs.display()),
                    None => abs.display().to_string(),
                };
                o.mesh = MeshRef::gltf(source, abs, g.mesh).with_version(g.version);
            }
            let parent = self.scene.parent(i).and_then(|p| new_id.get(&p).copied());
            if parent.is_none() {
                o.transform = closest_trs(&self.scene.world_matrix(i)).0;
            }
            let k = out.push(o, parent).ok()?;
            new_id.insert(i, k);
        }
        Some(out)
    }

    /// Ctrl+V: the objects of `fragment` (a copy) added with their names
    /// made unique, at the world transforms they carry, the pasted roots
    /// selected. Their meshes must have been handed over first. One undo step.
    pub fn paste(&mut self, fragment: &Scene) -> bool {
        if self.gizmo.is_dragging() || fragment.is_empty() {
            return false;
        }
        let items = self.scene.appended(fragment);
        let selection_after =
            (0..items.len()).filter(|&k| items.parents[k].is_none()).map(|k| items.indices[k]).collect();
        let edit = Edit::Add { items, selection_before: self.selection.to_vec(), selection_after };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::SceneChanges;
    use crate::scene::Primitive;
    use nalgebra::UnitQuaternion;

    fn object(name: &str, position: [f64; 3], rotation: UnitQuaternion<f64>, scale: [f64; 3]) -> Object {
        Object {
            name: name.into(),
            mesh: MeshRef::Primitive(Primitive::Cube),
            transform: Transform { position: position.into(), rotation, scale: scale.into() },
            color: [1.0; 3],
            skin: None,
            extras: None,
            origin: None,
            hidden: false,
        }
    }

    /// `parent` turned and scaled uniformly, `child` under it, `other` a root.
    fn editor() -> Editor {
        let mut scene = Scene::default();
        let turn = UnitQuaternion::from_euler_angles(0.3, -0.5, 0.9);
        let p = scene.push(object("parent", [1.0, 2.0, 3.0], turn, [2.0, 2.0, 2.0]), None).unwrap();
        scene.push(object("child", [0.5, -1.0, 0.25], turn.inverse(), [1.0, 0.5, 1.5]), Some(p)).unwrap();
        scene.push(object("other", [-4.0, 1.0, 0.0], UnitQuaternion::identity(), [1.0; 3]), None).unwrap();
        Editor::new(scene, 800.0, 600.0)
    }

    fn world(e: &Editor, name: &str) -> Matrix4<f64> {
        e.scene().world_matrix(e.scene().find(name).unwrap())
    }

    #[test]
    fn select_all_keeps_the_active_object_and_alt_a_clears() {
        let mut e = editor();
        e.set_selection(&[1]);
        assert!(e.select_all());
        assert_eq!(e.selection().len(), 3);
        assert_eq!(e.selection().last(), Some(&1), "the active object stays active");
        assert!(e.select_none());
        assert!(e.selection().is_empty());
    }

    #[test]
    fn objects_moved_together_go_after_the_children_in_their_row_order() {
        // parent(0) <- child(1), other(2); a(3) and b(4) roots. b under
        // other, then a after it: other's rows are b, a (ids 4, 3).
        let mut e = editor();
        let unit = |n: &str| object(n, [0.0; 3], UnitQuaternion::identity(), [1.0; 3]);
        let mut scene = e.scene().clone();
        let a = scene.push(unit("a"), None).unwrap();
        let b = scene.push(unit("b"), None).unwrap();
        e = Editor::new(scene, 800.0, 600.0);
        e.reparent(&[b], Some(2)).unwrap();
        e.reparent(&[a], Some(2)).unwrap();
        assert_eq!(e.scene().hierarchy().children(2), &[b, a]);
        // Both under parent in one step: after child, b before a as their rows were.
        e.reparent(&[a, b], Some(0)).unwrap();
        assert_eq!(e.scene().hierarchy().children(0), &[1, b, a]);
        // Undone: back under other in their order; redone: as before.
        assert!(e.undo());
        assert_eq!(e.scene().hierarchy().children(2), &[b, a]);
        assert_eq!(e.scene().hierarchy().children(0), &[1]);
        assert!(e.redo());
        assert_eq!(e.scene().hierarchy().children(0), &[1, b, a]);
    }

    #[test]
    fn reparenting_keeps_world_transforms_and_undoes_exactly() {
        let mut e = editor();
        let before: Vec<Matrix4<f64>> = ["parent", "child", "other"].iter().map(|n| world(&e, n)).collect();
        let child_local = e.scene().objects()[1].transform;
        // The child becomes a root, then a child of `other`.
        assert_eq!(e.reparent(&[1], None), Ok(None));
        assert_eq!(e.scene().parent(1), None);
        assert!((world(&e, "child") - before[1]).amax() < 1e-12);
        assert_eq!(e.reparent(&[1], Some(2)), Ok(None));
        assert_eq!(e.scene().parent(1), Some(2));
        assert!((world(&e, "child") - before[1]).amax() < 1e-12);
        // `parent` under its own former child's new parent: allowed; under
        // `child` after that: a cycle only if child is below parent, so first
        // put child back and then refuse parent -> child.
        assert!(e.undo() && e.undo());
        assert_eq!(e.scene().parent(1), Some(0));
        assert_eq!(e.scene().objects()[1].transform, child_local, "undo restores the local transform exactly");
        let refused = e.reparent(&[0], Some(1));
        assert!(refused.is_err(), "a parent below the object is refused");
        assert_eq!(e.scene().parent(0), None);
        for (n, w) in ["parent", "child", "other"].iter().zip(&before) {
            assert!((world(&e, n) - w).amax() < 1e-12, "{n}");
        }
    }

    /// A reparent that keeps the world matrices (as drawn) asks renderers
    /// for nothing, yet is an unsaved edit; one whose shear was dropped
    /// lists the moved object and its subtree.
    #[test]
    fn a_kept_world_is_not_logged_for_renderers_but_is_an_edit() {
        let mut e = editor();
        let (mark, edits) = (e.change_mark(), e.edit_mark());
        assert_eq!(e.reparent(&[1], Some(2)), Ok(None));
        assert_eq!(e.changes_since(Some(mark)), SceneChanges::Changed(&[]), "nothing to redraw");
        assert_ne!(e.edit_mark(), edits, "the scene is unsaved");
        let (mark, edits) = (e.change_mark(), e.edit_mark());
        assert!(e.undo());
        assert_eq!(e.changes_since(Some(mark)), SceneChanges::Changed(&[]));
        assert_ne!(e.edit_mark(), edits);
        // Under a stretched parent the turned child loses its shear: moved.
        let stretched = e.scene.push(object("stretched", [0.0; 3], UnitQuaternion::identity(), [3.0, 1.0, 1.0]), None);
        let stretched = stretched.unwrap();
        let mark = e.change_mark();
        assert!(e.reparent(&[0], Some(stretched)).unwrap().is_some());
        let SceneChanges::Changed(ids) = e.changes_since(Some(mark)) else { panic!("a log") };
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        assert_eq!(ids, [0, 1], "the object and its child");
    }

    #[test]
    fn a_non_uniformly_scaled_parent_drops_the_shear_and_says_so() {
        let mut scene = Scene::default();
        let p = scene.push(object("stretched", [0.0; 3], UnitQuaternion::identity(), [3.0, 1.0, 1.0]), None).unwrap();
        scene
            .push(object("turned", [2.0, 0.0, 0.0], UnitQuaternion::from_euler_angles(0.0, 0.0, 0.7), [1.0; 3]), None)
            .unwrap();
        let mut e = Editor::new(scene, 800.0, 600.0);
        let note = e.reparent(&[1], Some(p)).unwrap();
        assert!(note.is_some_and(|n| n.contains("shear")));
        // The position (the origin of the object) is kept exactly.
        let w = e.scene().world_matrix(1);
        assert!((w.fixed_view::<3, 1>(0, 3) - Vector3::new(2.0, 0.0, 0.0)).amax() < 1e-12);
    }

    #[test]
    fn ctrl_g_groups_under_a_new_empty_at_the_pivot() {
        let mut e = editor();
        let before: Vec<Matrix4<f64>> = ["child", "other"].iter().map(|n| world(&e, n)).collect();
        e.set_selection(&[1, 2]);
        assert_eq!(e.group(), Ok(None));
        let g = e.scene().find("group").unwrap();
        assert_eq!(e.selection(), &[g]);
        assert!(matches!(e.scene().objects()[g].mesh, MeshRef::Empty));
        // The median pivot of the two selected origins.
        let pivot = (before[0].fixed_view::<3, 1>(0, 3) + before[1].fixed_view::<3, 1>(0, 3)) / 2.0;
        assert!((world(&e, "group").fixed_view::<3, 1>(0, 3) - pivot).amax() < 1e-12);
        // Under the active object's (`other`'s) parent: a root.
        assert_eq!(e.scene().parent(g), None);
        assert_eq!(e.scene().parent(1), Some(g));
        assert_eq!(e.scene().parent(2), Some(g));
        assert!((world(&e, "child") - before[0]).amax() < 1e-12);
        assert!((world(&e, "other") - before[1]).amax() < 1e-12);
        // One undo step.
        assert!(e.undo());
        assert!(e.scene().find("group").is_none());
        assert_eq!(e.scene().parent(1), Some(0));
        assert_eq!(e.selection(), &[1, 2]);
    }

    #[test]
    fn end_drops_onto_the_surface_below_or_the_ground() {
        let mut scene = Scene::default();
        let id = UnitQuaternion::identity();
        // A unit cube resting on the ground at x = 0; two cubes high up, one above it.
        scene.push(object("base", [0.0, 0.5, 0.0], id, [1.0; 3]), None).unwrap();
        scene.push(object("above", [0.2, 5.0, 0.1], id, [1.0; 3]), None).unwrap();
        scene.push(object("aside", [4.0, 3.0, 0.0], id, [1.0; 3]), None).unwrap();
        scene.push(object("sunk", [8.0, 0.2, 0.0], id, [1.0; 3]), None).unwrap();
        let mut e = Editor::new(scene, 800.0, 600.0);
        e.set_selection(&[1, 2, 3]);
        assert!(e.drop_to_floor());
        let y = |e: &Editor, i: usize| e.scene().objects()[i].transform.position.y;
        // On top of `base` (its top at 1), so its centre at 1.5.
        assert!((y(&e, 1) - 1.5).abs() < 1e-9, "{}", y(&e, 1));
        // On the ground.
        assert!((y(&e, 2) - 0.5).abs() < 1e-9, "{}", y(&e, 2));
        // Already cutting into the ground: stays.
        assert_eq!(y(&e, 3), 0.2);
        assert!(e.undo());
        assert_eq!(y(&e, 1), 5.0);
        assert_eq!(y(&e, 2), 3.0);
    }

    #[test]
    fn copy_and_paste_keep_world_transforms_with_unique_names() {
        let mut e = editor();
        let child_world = world(&e, "child");
        e.set_selection(&[1]);
        let mut copied = e.copy_selection().unwrap();
        // Through the text a clipboard holds.
        copied = Scene::from_json(&copied.to_json(), std::path::Path::new("")).unwrap();
        assert!(e.paste(&copied));
        let pasted = e.scene().find("child.001").unwrap();
        assert_eq!(e.selection(), &[pasted]);
        assert_eq!(e.scene().parent(pasted), None, "a copied root is pasted as a root");
        // The world transform survives the copy (child has no shear: turned under a uniform scale).
        assert!((e.scene().world_matrix(pasted) - child_world).amax() < 1e-9);
        assert!(e.paste(&copied));
        assert!(e.scene().find("child.002").is_some());
        assert!(e.undo() && e.undo());
        assert!(e.scene().find("child.001").is_none());
    }

    #[test]
    fn rename_makes_names_unique_refuses_bad_ones_and_undoes() {
        let mut e = editor();
        assert_eq!(e.rename(1, "arm"), Ok("arm".to_string()));
        assert_eq!(e.scene().find("arm"), Some(1));
        assert!(e.scene().find("child").is_none());
        assert_eq!(e.scene().parent(1), Some(0), "the hierarchy follows by id");
        // A taken name gets `.NNN`.
        assert_eq!(e.rename(2, "arm"), Ok("arm.001".to_string()));
        assert!(e.rename(2, "").is_err());
        assert!(e.rename(2, "tab\there").is_err());
        assert_eq!(e.scene().objects()[2].name, "arm.001");
        assert!(e.undo());
        assert_eq!(e.scene().objects()[2].name, "other");
        assert!(e.undo());
        assert_eq!(e.scene().find("child"), Some(1));
        // Skins name their joints: they follow a rename.
        let mut s = Scene::default();
        let joint = s.push(object("bone", [0.0; 3], UnitQuaternion::identity(), [1.0; 3]), None).unwrap();
        let mut body = object("body", [0.0; 3], UnitQuaternion::identity(), [1.0; 3]);
        body.skin = Some(Box::new(crate::scene::SkinRef { index: 0, joints: vec!["bone".to_string()].into() }));
        let b = s.push(body, None).unwrap();
        let mut e = Editor::new(s, 800.0, 600.0);
        assert_eq!(e.rename(joint, "spine"), Ok("spine".to_string()));
        assert_eq!(e.scene().objects()[b].skin.as_ref().unwrap().joints.to_vec(), ["spine"]);
        assert!(e.undo());
        assert_eq!(e.scene().objects()[b].skin.as_ref().unwrap().joints.to_vec(), ["bone"]);
    }

    #[test]
    fn add_names_after_the_mesh() {
        let mut e = editor();
        assert!(e.add_object(add_mesh("sphere").unwrap(), Point3::new(1.0, 0.0, 0.0)));
        assert!(e.add_object(add_mesh("sphere").unwrap(), Point3::new(2.0, 0.0, 0.0)));
        assert!(e.add_object(add_mesh("empty").unwrap(), Point3::origin()));
        let names: Vec<String> = e.scene().objects().iter().map(|o| o.name.to_string()).collect();
        assert_eq!(&names[3..], ["sphere", "sphere.001", "empty"]);
        assert_eq!(e.selection(), &[5]);
        assert!(add_mesh("teapot").is_none());
    }
}
