//! Scene objects, hierarchy, meshes and scene files.
//!
//! [`Scene`] is the validated in-memory form of a scene file: parents are
//! indices, transforms are nalgebra types, every value is finite, names are
//! unique and the hierarchy has no cycles. Loading reports the first problem
//! as one [`SceneError`] naming the file; saving writes a temporary file and
//! renames it over the target, so a failed save never leaves half a file.
//!
//! This file holds the [`Scene`] type itself: its slots, hierarchy and name
//! index, and the edits that keep them in step. Around it, one job a file:
//! [`Object`] (`object.rs`) and the [`MeshRef`] it draws (`mesh_ref.rs`,
//! with `paths.rs`), the errors (`error.rs`), reading (`read.rs`, streamed
//! by `load/`) and writing (`save.rs`), bookmarks (`bookmarks.rs`), world
//! matrices (`world.rs`), what is shown (`visibility.rs`), the autosave's
//! copy (`piecewise_copy.rs`) and the built-in scenes (`builtin.rs`).

pub mod animation;
mod bookmarks;
mod builtin;
pub mod changes;
mod error;
pub mod file;
pub mod fixture;
pub mod gltf;
pub mod hierarchy;
pub mod ktx2;
mod load;
pub mod material;
mod mesh_ref;
pub mod morph;
mod names;
pub mod numbering;
mod object;
pub mod open;
mod paths;
mod piecewise_copy;
pub mod primitives;
mod read;
mod save;
pub mod search;
pub mod skin;
mod visibility;
mod world;

use std::collections::BTreeSet;

use crate::math::Camera;
pub use bookmarks::{bookmarks_from_file, bookmarks_to_file, Bookmarks};
pub use builtin::DEMO_SCENE_JSON;
pub use changes::Detached;
pub use error::SceneError;
pub use file::{camera_from_file, camera_to_file, CameraFile, ObjectFile, ProjectionKind, SceneFile, SkinFile};
pub use hierarchy::{Hierarchy, HierarchyError};
pub use mesh_ref::{GltfMesh, MeshRef};
pub use morph::MorphData;
pub use names::{ObjectMut, Objects};
pub use numbering::CopyNamer;
pub use object::{transform_problem, NodeOrigin, Object, MAX_COORDINATE, MIN_SCALE};
pub use piecewise_copy::{CopiedScene, SceneCopy};
pub use primitives::{MeshData, Primitive};
pub use skin::{joints_without, Joints, Posed, SkinData, SkinRef};
use visibility::{fixture_set, hidden_set};

/// A validated scene: objects in slots, their hierarchy and a name index.
///
/// An object's id is its slot, stable for the session: deleting objects
/// leaves their slots dead (so no other id moves, and undo puts them back
/// in the same slots), new objects take new slots at the end. File order is
/// id order of the live objects; a loaded scene has dense ids `0..len`.
/// [`Scene::len`] counts live objects, ids are below [`Scene::id_bound`].
///
/// The slots, the hierarchy and the name index are private so that they
/// always agree and the parent links stay acyclic; objects' fields other
/// than the name are edited through [`Scene::object_mut`].
#[derive(Clone, Debug, Default)]
pub struct Scene {
    pub camera: Option<Camera>,
    /// Camera bookmarks 1 to 9 (slot 0 is bookmark 1; `docs/spec/views.md`).
    pub bookmarks: Bookmarks,
    /// The scene file's `lighting` object (over the defaults; a relative
    /// `.hdr` path read from the file's folder), `None` where it has none
    /// (`docs/spec/lights.md`, "The environment behind the scene").
    pub lighting: Option<crate::look::Lighting>,
    /// `None`: a dead slot (no size cost: `Object`'s `String` has a niche).
    objects: Vec<Option<Object>>,
    /// Live objects.
    live: usize,
    /// The live objects whose own `hidden` flag is set, by id: with none
    /// (the usual case) visibility costs nothing to ask, and showing them
    /// all (Alt+H) finds them without a pass over the scene.
    hidden: BTreeSet<usize>,
    /// The live objects that carry a light or a camera, by id: what draws
    /// and lights a frame finds them without a pass over the scene.
    fixtures: BTreeSet<usize>,
    hierarchy: Hierarchy,
    names: names::NameIndex,
    /// Which objects exist and how they are linked, as a number unique in
    /// the process: a new one for every scene made and for every change of
    /// which slots are live or of a parent link ([`Scene::structure`]).
    structure: u64,
    /// Local view (`docs/spec/organise.md`): while set, the slots it marks
    /// `false` are not shown (slots past its end, objects made since, are).
    /// Not an object flag, not saved, not copied into autosaves.
    local: Option<Vec<bool>>,
}

/// A number no earlier call in this process returned (never 0, the empty
/// default scene's structure): the versions that caches compare, of a
/// scene's structure ([`Scene::structure`]) and of the editor's selection.
pub(crate) fn unique_version() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Scenes are equal when their cameras, slots and links are (the name
/// index follows from the slots).
impl PartialEq for Scene {
    fn eq(&self, other: &Scene) -> bool {
        self.camera == other.camera
            && self.bookmarks == other.bookmarks
            && self.objects == other.objects
            && self.hierarchy == other.hierarchy
    }
}

impl Scene {
    /// A scene of root objects (no parents) with ids `0..len`; names
    /// should be unique (as a file's are).
    pub fn from_objects(camera: Option<Camera>, objects: Vec<Object>) -> Scene {
        let hierarchy = Hierarchy::from_links(vec![Hierarchy::NO_PARENT; objects.len()]).expect("roots form no cycle");
        Scene::from_parts(camera, objects, hierarchy, None)
    }

    /// A scene of dense `objects` and their `hierarchy` (the same length),
    /// with the loader's name index when it built one.
    fn from_parts(
        camera: Option<Camera>,
        objects: Vec<Object>,
        hierarchy: Hierarchy,
        names: Option<names::NameIndex>,
    ) -> Scene {
        let live = objects.len();
        // In place: `Option<Object>` has `Object`'s size and alignment.
        let objects: Vec<Option<Object>> = objects.into_iter().map(Some).collect();
        let hidden = hidden_set(&objects);
        let fixtures = fixture_set(&objects);
        let mut names = names.unwrap_or_else(|| names::NameIndex::build(&objects));
        names.start_log();
        Scene {
            camera,
            bookmarks: Default::default(),
            lighting: None,
            objects,
            live,
            hidden,
            fixtures,
            hierarchy,
            names,
            structure: unique_version(),
            local: None,
        }
    }

    /// A number that changes whenever objects are added or removed or a
    /// parent link changes, and differs between scenes (unique in the
    /// process): what caches of the hierarchy's shape (the UI's outliner
    /// rows) compare to know they are current. Moving, renaming or
    /// recolouring an object keeps it.
    pub fn structure(&self) -> u64 {
        self.structure
    }

    /// Appends `object` in a new slot under `parent` (or as a root);
    /// returns its id. Its name should be free ([`Scene::find`]).
    pub fn push(&mut self, object: Object, parent: Option<usize>) -> Result<usize, HierarchyError> {
        let i = self.hierarchy.push(parent)?;
        self.names.insert(i, &object.name);
        if object.hidden {
            self.hidden.insert(i);
        }
        if object.fixture.is_some() {
            self.fixtures.insert(i);
        }
        self.objects.push(Some(object));
        self.live += 1;
        self.structure = unique_version();
        Ok(i)
    }

    /// Renames object `i` to `name`, which no other object may have.
    pub fn rename(&mut self, i: usize, name: &str) -> Result<(), String> {
        let Some(old) = self.get(i).map(|o| o.name.clone()) else { return Err(format!("no object {i}")) };
        if old == name {
            return Ok(());
        }
        if self.find(name).is_some() {
            return Err(format!("the name \"{name}\" is taken"));
        }
        self.names.remove(i, &old);
        if let Some(Some(o)) = self.objects.get_mut(i) {
            o.name = name.into();
        }
        self.names.insert(i, name);
        self.structure = unique_version();
        Ok(())
    }

    /// Gives `child` a new parent (a root for `None`); refuses the child
    /// itself or one of its descendants.
    pub fn set_parent(&mut self, child: usize, parent: Option<usize>) -> Result<(), HierarchyError> {
        let place = self.hierarchy.next_place();
        self.set_parent_at(child, parent, place)
    }

    /// [`Scene::set_parent`] at `place` among the new parent's children
    /// ([`Hierarchy::set_parent_at`]).
    pub fn set_parent_at(&mut self, child: usize, parent: Option<usize>, place: u64) -> Result<(), HierarchyError> {
        self.hierarchy.set_parent_at(child, parent, place)?;
        self.structure = unique_version();
        Ok(())
    }

    /// The objects by id ([`Objects`]: indexing takes an id, iterating
    /// gives the live objects in file order).
    pub fn objects(&self) -> Objects<'_> {
        Objects { slots: &self.objects, live: self.live }
    }

    /// Object `id`, if its slot is live.
    pub fn get(&self, id: usize) -> Option<&Object> {
        self.objects.get(id).and_then(Option::as_ref)
    }

    /// The live objects with their ids, in id (file) order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &Object)> + '_ {
        self.objects.iter().enumerate().filter_map(|(i, o)| o.as_ref().map(|o| (i, o)))
    }

    /// The ids of the live objects, ascending.
    pub fn ids(&self) -> impl Iterator<Item = usize> + '_ {
        self.iter().map(|(i, _)| i)
    }

    /// Whether `id` names a live object.
    pub fn contains(&self, id: usize) -> bool {
        self.get(id).is_some()
    }

    /// Object `i`'s mesh, transform, colour and skin, to edit in place.
    pub fn object_mut(&mut self, i: usize) -> Option<ObjectMut<'_>> {
        self.objects.get_mut(i).and_then(Option::as_mut).map(ObjectMut::new)
    }

    /// Live objects.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Every id is below this: the number of slots, live or dead.
    pub fn id_bound(&self) -> usize {
        self.objects.len()
    }

    /// The live object `i` (panics on a dead slot: callers check ids first).
    fn obj(&self, i: usize) -> &Object {
        self.get(i).unwrap_or_else(|| panic!("no object {i}"))
    }

    /// The parent links.
    pub fn hierarchy(&self) -> &Hierarchy {
        &self.hierarchy
    }

    /// The parent of object `i`.
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.hierarchy.parent(i)
    }

    /// The id of the object named `name` (O(1): the name index).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.names.find(name, &self.objects)
    }

    /// Names copies (`cube.001`...) against this scene's names: the lowest
    /// free number of a name's base in O(log gaps), not by trying each
    /// ([`numbering`]).
    pub fn copy_namer(&self) -> CopyNamer<'_> {
        self.names.copy_namer()
    }

    /// The name index's log: its epoch and the ids given a name since
    /// ([`search::NameSearch`] catches up with it).
    pub(crate) fn name_log(&self) -> (u64, &[u32]) {
        self.names.log()
    }
}

#[cfg(test)]
mod tests;
