//! Organising the scene (`docs/spec/organise.md`): select all and none,
//! adding a primitive or an empty, renaming, and the scene-file text that
//! copy and paste carry; reparenting and grouping are in `parenting`,
//! dropping to the floor in `floor`. Each change is one undo step.

mod fixtures;
pub(in crate::editor) use fixtures::facing;
mod floor;
mod parenting;
#[cfg(test)]
mod tests;

pub use parenting::closest_trs;

use nalgebra::Point3;

use crate::editor::{Edit, Editor};
use crate::math::Transform;
use crate::scene::numbering::numbered;
use crate::scene::{Detached, MeshRef, Object, Primitive, Scene};

/// What an add (Shift+A, a script's `add`) makes: a primitive's mesh or an empty.
pub fn add_mesh(name: &str) -> Option<MeshRef> {
    match name {
        "empty" => Some(MeshRef::Empty),
        _ if FIXTURE_NAMES.contains(&name) => Some(MeshRef::Empty),
        _ => Primitive::from_name(name).map(MeshRef::Primitive),
    }
}

/// The lights and the camera the add menu makes (`docs/spec/lights.md`).
pub const FIXTURE_NAMES: [&str; 4] = ["sun", "point_light", "spot_light", "camera"];

/// The names the add menu and `{"add": ...}` take, in menu order.
pub const ADD_NAMES: [&str; 11] =
    ["cube", "sphere", "cylinder", "cone", "torus", "plane", "empty", "sun", "point_light", "spot_light", "camera"];

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
        let fresh = self.scene.copy_namer().free_name(wanted, taken);
        // The object's own name is free for it: kept where it is the lowest
        // copy number of the base asked for.
        let name = match (numbered(&old), numbered(&fresh)) {
            (Some((b, k)), Some((f, n))) if b == f && k < n && taken(wanted) => old.to_string(),
            _ => fresh,
        };
        let skins: Vec<crate::editor::history::SkinChange> = self
            .scene
            .iter()
            .filter_map(|(k, o)| {
                let skin = o.skin.as_deref()?;
                if !skin.joints.contains(&old) {
                    return None;
                }
                let joints = skin.joints.iter().map(|j| if *j == old { name.clone() } else { j.to_string() }).collect();
                let after = crate::scene::SkinRef { index: skin.index, joints };
                Some(crate::editor::history::SkinChange {
                    object: k,
                    before: o.skin.clone(),
                    after: Some(Box::new(after)),
                })
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
        let base = mesh.source().unwrap_or("empty").to_string();
        self.add_made(&base, mesh, Transform { position: at.coords, ..Transform::IDENTITY }, None)
    }

    /// Adds one object named after `base` (made unique) with `mesh`, the
    /// local `transform` and `fixture`, as [`Editor::add_object`] does.
    pub(super) fn add_made(
        &mut self,
        base: &str,
        mesh: MeshRef,
        transform: Transform,
        fixture: Option<Box<crate::scene::fixture::Fixture>>,
    ) -> bool {
        if self.gizmo.is_dragging() || crate::scene::transform_problem(&transform).is_some() {
            return false;
        }
        let name = self.scene.copy_namer().free_name(base, |c| self.scene.find(c).is_some());
        let id = self.scene.id_bound();
        let object = Object {
            name: name.into(),
            mesh,
            transform,
            color: [0.8, 0.8, 0.8],
            skin: None,
            extras: None,
            origin: None,
            fixture,
            hidden: false,
            cast_shadows: true,
        };
        let items = Detached { indices: vec![id], objects: vec![object], parents: vec![None], places: Vec::new() };
        let edit = Edit::Add { items, selection_before: self.selection.to_vec(), selection_after: vec![id] };
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
