//! Scene objects, hierarchy, meshes and scene files.
//!
//! [`Scene`] is the validated in-memory form of a scene file: parents are
//! indices, transforms are nalgebra types, every value is finite, names are
//! unique and the hierarchy has no cycles. Loading reports the first problem
//! as one [`SceneError`] naming the file; saving writes a temporary file and
//! renames it over the target, so a failed save never leaves half a file.

pub mod animation;
pub mod changes;
pub mod file;
pub mod gltf;
pub mod hierarchy;
pub mod ktx2;
mod load;
pub mod material;
pub mod morph;
mod names;
pub mod open;
pub mod primitives;
mod save;
pub mod search;
pub mod skin;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use nalgebra::{Matrix4, Point3, Vector3};
use smol_str::SmolStr;
use std::io::Write as _;

use crate::files::{write_atomic_with, WriteError};
use crate::math::{Camera, CameraError, Projection, Transform};
pub use changes::{copy_name, free_name, Detached};
pub use file::{camera_from_file, camera_to_file, CameraFile, ObjectFile, ProjectionKind, SceneFile, SkinFile};
pub use hierarchy::{Hierarchy, HierarchyError};
pub use morph::MorphData;
pub use names::{ObjectMut, Objects};
pub use primitives::{MeshData, Primitive};
pub use skin::{joints_without, Joints, Posed, SkinData, SkinRef};

/// Why a scene could not be read, validated or saved.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// A problem in a scene file, with the file's path in front.
    #[error("{}: {source}", path.display())]
    InFile { path: PathBuf, source: Box<SceneError> },
    #[error(transparent)]
    Read(std::io::Error),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("bookmarks: \"{0}\" is not a slot (1 to 9)")]
    BookmarkSlot(String),
    #[error("camera: {0}")]
    Camera(#[from] CameraError),
    /// A camera block with a field its projection does not use.
    #[error("camera: \"{field}\" is only for {projection} cameras")]
    CameraField { field: &'static str, projection: &'static str },
    #[error("object {0}: empty name")]
    EmptyName(usize),
    #[error("object \"{0}\": duplicate name")]
    DuplicateName(String),
    #[error("object \"{name}\": unknown parent \"{parent}\"")]
    UnknownParent { name: String, parent: String },
    #[error("object \"{0}\": parent chain forms a cycle")]
    Cycle(String),
    /// A glTF file opened as the scene that cannot be read or has a bad node.
    #[error(transparent)]
    Gltf(#[from] gltf::GltfError),
    /// A file that is neither a scene file nor glTF.
    #[error("{}", open::ACCEPTED_FORMATS)]
    Unrecognized,
    /// A scene file where only glTF will do (importing).
    #[error("only glTF files (.gltf, .glb) can be imported; this is a scene file")]
    NotGltf,
    /// `--recover` without an autosave to recover.
    #[error("no autosave to recover: {} does not exist", .0.display())]
    NoAutosave(PathBuf),
    /// The demo's autosave needs a state folder (`$XDG_STATE_HOME` or `$HOME`).
    #[error("no state folder for the autosave: neither XDG_STATE_HOME nor HOME is set")]
    NoStateFolder,
    /// A bad value in an object (non-finite number, zero scale, unknown mesh, ...).
    #[error("object \"{name}\": {problem}")]
    Object { name: String, problem: String },
}

impl SceneError {
    /// This error, said of the file at `path`.
    pub fn in_file(self, path: &Path) -> SceneError {
        SceneError::InFile { path: path.to_path_buf(), source: Box::new(self) }
    }
}

/// Which mesh an object draws. 16 bytes: the glTF reference, rare in
/// large scenes, is boxed so that every object does not carry its strings.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MeshRef {
    Primitive(Primitive),
    /// A glTF file's mesh ([`GltfMesh`]).
    Gltf(Box<GltfMesh>),
    /// No geometry (`"mesh": null`): draws nothing, has no triangles.
    Empty,
}

/// A glTF file's mesh as an object names it; `source` as written in the
/// scene (with its `#N`), `path` the file resolved against the scene
/// file's folder. `mesh` `None`: every mesh of the file's default scene
/// merged into one; `Some(n)`: mesh `n` alone, in its own space.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GltfMesh {
    pub source: String,
    pub path: PathBuf,
    pub mesh: Option<usize>,
    /// Which reading of the file: 0 as opened, then one more per reload
    /// that changed it (`docs/spec/roundtrip.md`, "Reload"). Never saved;
    /// it keeps the geometry of each reading apart, so that undoing a
    /// reload shows the earlier one.
    pub version: u32,
}

impl MeshRef {
    /// Mesh `mesh` of the glTF file at `path` (all of it merged for
    /// `None`), written `source` in a scene file.
    pub fn gltf(source: String, path: PathBuf, mesh: Option<usize>) -> MeshRef {
        MeshRef::Gltf(Box::new(GltfMesh { source, path, mesh, version: 0 }))
    }

    /// This glTF mesh in reading `version` of its file (other meshes as they are).
    pub fn with_version(&self, version: u32) -> MeshRef {
        match self {
            MeshRef::Gltf(g) => MeshRef::Gltf(Box::new(GltfMesh { version, ..(**g).clone() })),
            other => other.clone(),
        }
    }

    /// The glTF file and mesh (`None`: the whole file), if a glTF mesh.
    pub fn gltf_mesh(&self) -> Option<(&Path, Option<usize>)> {
        match self {
            MeshRef::Gltf(g) => Some((&g.path, g.mesh)),
            _ => None,
        }
    }

    /// The string written in a scene file (`None` for an empty object).
    pub fn source(&self) -> Option<&str> {
        match self {
            MeshRef::Primitive(p) => Some(p.name()),
            MeshRef::Gltf(g) => Some(&g.source),
            MeshRef::Empty => None,
        }
    }

    /// Reads a scene file's `mesh` string: a primitive's name, a glTF path,
    /// or `path#N` for mesh N of a glTF file; paths resolve against `base`.
    pub fn parse(text: &str, base: &Path) -> Result<MeshRef, String> {
        if let Some(p) = Primitive::from_name(text) {
            return Ok(MeshRef::Primitive(p));
        }
        let (file, mesh) = match text.rsplit_once('#') {
            Some((file, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
                let n = n.parse::<usize>().map_err(|_| format!("mesh \"{text}\": mesh index {n} is too large"))?;
                (file, Some(n))
            }
            _ => (text, None),
        };
        let lower = file.to_ascii_lowercase();
        if !(lower.ends_with(".gltf") || lower.ends_with(".glb")) {
            return Err(format!(
                "mesh \"{text}\" is neither a primitive (cube, sphere, cylinder, cone, torus, plane) nor a .gltf/.glb file (optionally with #N for its mesh N)"
            ));
        }
        Ok(MeshRef::gltf(text.to_string(), base.join(file), mesh))
    }

    /// The `mesh` string naming the same mesh from a scene file in `dir`:
    /// a glTF path is rewritten relative to `dir` unless it already names
    /// the same file from there.
    fn source_from(&self, dir: &Path) -> Option<String> {
        let MeshRef::Gltf(g) = self else { return self.source().map(str::to_string) };
        let GltfMesh { source, path, mesh, .. } = &**g;
        let file = match mesh {
            Some(_) => source.rsplit_once('#').map_or(source.as_str(), |(f, _)| f),
            None => source.as_str(),
        };
        let target = absolute_clean(path);
        if absolute_clean(&dir.join(file)) == target {
            return Some(source.clone());
        }
        let rel = relative_path(&absolute_clean(dir), &target).to_string_lossy().into_owned();
        Some(match mesh {
            Some(n) => format!("{rel}#{n}"),
            None => rel,
        })
    }
}

/// `p` made absolute (against the working folder) with `.` and `..`
/// resolved by name (symbolic links are not followed).
fn absolute_clean(p: &Path) -> PathBuf {
    use std::path::Component;
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The path from folder `dir` to `target`, both absolute and clean.
fn relative_path(dir: &Path, target: &Path) -> PathBuf {
    let d: Vec<_> = dir.components().collect();
    let t: Vec<_> = target.components().collect();
    let common = d.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..d.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

/// One object of the scene. Its parent is held by the scene's
/// [`Hierarchy`] ([`Scene::parent`]), which keeps the links acyclic.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// Names up to 23 bytes are held inline (no heap block): a million
    /// `cube_N` names cost nothing beyond the record.
    pub name: SmolStr,
    pub mesh: MeshRef,
    /// Local transform, relative to the parent.
    pub transform: Transform,
    /// Linear RGB in [0, 1].
    pub color: [f32; 3],
    /// Hidden by the user (H): neither drawn nor picked, and neither are
    /// its descendants (`docs/spec/organise.md`). Its own flag only: whether
    /// it shows also depends on its ancestors ([`Scene::is_hidden`]). Set
    /// through [`Scene::set_hidden`] once the object is in a scene, so
    /// that the scene's count of hidden objects stays right. Fits in the
    /// record's padding.
    pub hidden: bool,
    /// The joints that pose its glTF mesh ([`skin`]), if it is skinned.
    /// Boxed: 8 bytes in every record (skins are rare in large scenes).
    pub skin: Option<Box<SkinRef>>,
    /// The object's `extras` (any JSON), kept as it came; boxed like `skin`.
    pub extras: Option<Box<serde_json::Value>>,
    /// The glTF node it was read from (opened or imported); `None` for
    /// objects made here and for scene files' objects. Not saved.
    pub origin: Option<Box<NodeOrigin>>,
}

/// The glTF node an object was read from: export copies its light, camera
/// and animations, a reload matches it to the file's new nodes
/// (`docs/spec/roundtrip.md`). Copies made here have none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeOrigin {
    /// The file as the scene's meshes name it (resolved path).
    pub file: std::sync::Arc<Path>,
    /// The node's index in the file as last read.
    pub node: usize,
}

/// A copy of a scene's slots under way ([`Scene::start_copy`]).
#[derive(Debug)]
pub struct SceneCopy {
    objects: Vec<Option<Object>>,
    /// The scene's structure when the copy started.
    structure: u64,
}

/// A finished copy ([`Scene::finish_copy`]), made a scene of its own with
/// [`CopiedScene::into_scene`] (on any thread: it builds the name index).
#[derive(Debug)]
pub struct CopiedScene {
    camera: Option<Camera>,
    bookmarks: Bookmarks,
    objects: Vec<Option<Object>>,
    live: usize,
    hidden: usize,
    hierarchy: Hierarchy,
}

impl CopiedScene {
    /// The copy as a scene (names indexed here).
    pub fn into_scene(self) -> Scene {
        let names = names::NameIndex::build(&self.objects);
        let hidden = if self.hidden > 0 { hidden_set(&self.objects) } else { BTreeSet::new() };
        Scene {
            camera: self.camera,
            bookmarks: self.bookmarks,
            objects: self.objects,
            live: self.live,
            hidden,
            hierarchy: self.hierarchy,
            names,
            structure: unique_version(),
            local: None,
        }
    }
}

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
    /// `None`: a dead slot (no size cost: `Object`'s `String` has a niche).
    objects: Vec<Option<Object>>,
    /// Live objects.
    live: usize,
    /// The live objects whose own `hidden` flag is set, by id: with none
    /// (the usual case) visibility costs nothing to ask, and showing them
    /// all (Alt+H) finds them without a pass over the scene.
    hidden: BTreeSet<usize>,
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

/// Camera bookmarks: slot `k` holds bookmark `k + 1`.
pub type Bookmarks = [Option<Camera>; 9];

/// The `bookmarks` block of a scene file: `"1"` to `"9"`, the empty ones left out.
pub fn bookmarks_to_file(b: &Bookmarks) -> std::collections::BTreeMap<String, CameraFile> {
    b.iter().enumerate().filter_map(|(k, c)| Some(((k + 1).to_string(), camera_to_file(c.as_ref()?)))).collect()
}

/// Reads a `bookmarks` block: keys `"1"` to `"9"`, each a valid camera.
pub fn bookmarks_from_file(m: &std::collections::BTreeMap<String, CameraFile>) -> Result<Bookmarks, SceneError> {
    let mut out: Bookmarks = Default::default();
    for (key, c) in m {
        let k = match key.as_str() {
            "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" => key.parse::<usize>().unwrap_or(1) - 1,
            _ => return Err(SceneError::BookmarkSlot(key.clone())),
        };
        out[k] = Some(camera_from_file(c)?);
    }
    Ok(out)
}

/// Scale components closer to zero than this are refused: a scene file
/// cannot hold them, and the object would have no inverse.
pub const MIN_SCALE: f64 = 1e-9;

/// Why a scene file could not hold this transform (`None`: it can). The one
/// rule for loading scene files, opening glTF nodes and typed edits.
pub fn transform_problem(t: &Transform) -> Option<&'static str> {
    let all = t.position.iter().chain(t.scale.iter()).chain(t.rotation.coords.iter());
    if !all.into_iter().all(|x| x.is_finite()) {
        Some("non-finite number")
    } else if t.scale.iter().any(|s| s.abs() < MIN_SCALE) {
        Some("scale has a zero component")
    } else {
        None
    }
}

impl Scene {
    /// Reads and validates a scene file, a few megabytes at a time (never
    /// the whole file in memory, see `load.rs`). Relative glTF paths resolve
    /// against the file's folder.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        if let Some(loaded) = Scene::load_streamed(path) {
            return loaded;
        }
        // Not plainly a scene file: read whole and parsed again, for the
        // exact error (with line and column).
        let text = std::fs::read_to_string(path).map_err(|e| SceneError::Read(e).in_file(path))?;
        let base = path.parent().unwrap_or(Path::new("."));
        Scene::from_json(&text, base).map_err(|e| e.in_file(path))
    }

    /// [`Scene::load`] where the file is plainly a scene file: `None` when
    /// it cannot be read or is anything else (JSON that does not parse as
    /// a scene file, glTF, ...), for the caller to read it whole and say why.
    pub fn load_streamed(path: &Path) -> Option<Result<Scene, SceneError>> {
        let read = load::read_pieces(path, load::BUFFER, load::SPLIT_MIN).ok()??;
        let base = path.parent().unwrap_or(Path::new("."));
        Some(read.finish(base).map_err(|e| e.in_file(path)))
    }

    /// [`Scene::load`] of a file already read: `bytes` is its content.
    pub fn load_bytes(path: &Path, bytes: Vec<u8>) -> Result<Scene, SceneError> {
        let text = String::from_utf8(bytes).map_err(|e| {
            SceneError::Read(std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error())).in_file(path)
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Scene::from_json(&text, base).map_err(|e| e.in_file(path))
    }

    /// Parses and validates scene JSON; glTF paths resolve against `base`.
    pub fn from_json(text: &str, base: &Path) -> Result<Scene, SceneError> {
        serde_json::from_str::<load::StreamedFile>(text)?.finish(base)
    }

    /// Validates a parsed scene file (the same checks as [`Scene::load`]).
    pub fn from_file(file: &SceneFile, base: &Path) -> Result<Scene, SceneError> {
        let camera = file.camera.as_ref().map(camera_from_file).transpose()?;
        // Checked where the streamed reader checks them: before the objects.
        let bookmarks = bookmarks_from_file(&file.bookmarks)?;
        let mut builder = load::Builder::default();
        for o in &file.objects {
            builder.push(o.clone());
        }
        let mut scene = builder.finish(camera, base)?;
        scene.bookmarks = bookmarks;
        Ok(scene)
    }

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
        let mut names = names.unwrap_or_else(|| names::NameIndex::build(&objects));
        names.start_log();
        Scene {
            camera,
            bookmarks: Default::default(),
            objects,
            live,
            hidden,
            hierarchy,
            names,
            structure: unique_version(),
            local: None,
        }
    }

    /// Starts a copy of the scene taken in pieces ([`Scene::copy_piece`]),
    /// so that copying a large scene never holds up one frame for long.
    pub fn start_copy(&self) -> SceneCopy {
        SceneCopy { objects: Vec::with_capacity(self.objects.len()), structure: self.structure }
    }

    /// Copies up to `n` more slots into `copy`; true once every slot is copied.
    pub fn copy_piece(&self, copy: &mut SceneCopy, n: usize) -> bool {
        let from = copy.objects.len().min(self.objects.len());
        let to = (from + n).min(self.objects.len());
        copy.objects.extend_from_slice(&self.objects[from..to]);
        to == self.objects.len()
    }

    /// Finishes a copy whose every slot was taken: the slots `changed` since
    /// it started are taken again, and the hierarchy now. `None` when objects
    /// came or went or a parent changed since (start again). What it costs
    /// is what changed, the hierarchy's links and the count of hidden ones;
    /// the rest ([`CopiedScene::into_scene`]) can run on another thread.
    pub fn finish_copy(&self, mut copy: SceneCopy, changed: &[usize], camera: Option<Camera>) -> Option<CopiedScene> {
        if copy.structure != self.structure || copy.objects.len() != self.objects.len() {
            return None;
        }
        for &i in changed {
            if let (Some(slot), Some(now)) = (copy.objects.get_mut(i), self.objects.get(i)) {
                *slot = now.clone();
            }
        }
        Some(CopiedScene {
            camera,
            bookmarks: self.bookmarks,
            objects: copy.objects,
            live: self.live,
            hidden: self.hidden.len(),
            hierarchy: self.hierarchy.clone(),
        })
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

    /// Whether object `i` is not shown: its own `hidden` flag or an
    /// ancestor's is set (a dead slot is not hidden). Free while no object
    /// is hidden, else the walk up to its root.
    pub fn is_hidden(&self, i: usize) -> bool {
        if let Some(shown) = &self.local {
            if !shown.get(i).copied().unwrap_or(true) {
                return self.contains(i);
            }
        }
        if self.hidden.is_empty() {
            return false;
        }
        self.get(i).is_some_and(|o| o.hidden || self.hierarchy.ancestors(i).any(|p| self.obj(p).hidden))
    }

    /// Local view's mask ([`Scene::set_local_view`]), while it is on.
    pub fn local_view(&self) -> Option<&[bool]> {
        self.local.as_deref()
    }

    /// Turns local view on (`Some`: the slots marked `true` stay shown,
    /// and any made later) or off. Changes no object's own flag; the
    /// caller brings the pick tree and the change log up to date.
    pub fn set_local_view(&mut self, shown: Option<Vec<bool>>) {
        self.local = shown;
    }

    /// How many live objects have their own `hidden` flag set.
    pub fn hidden_count(&self) -> usize {
        self.hidden.len()
    }

    /// The live objects with their own `hidden` flag set, in id (file)
    /// order; nothing is read while none is hidden.
    pub fn hidden_ids(&self) -> impl Iterator<Item = usize> + '_ {
        self.hidden.iter().copied()
    }

    /// Sets object `i`'s own `hidden` flag; returns whether it changed.
    pub fn set_hidden(&mut self, i: usize, hidden: bool) -> bool {
        let Some(o) = self.objects.get_mut(i).and_then(Option::as_mut) else { return false };
        if o.hidden == hidden {
            return false;
        }
        o.hidden = hidden;
        if hidden {
            self.hidden.insert(i);
        } else {
            self.hidden.remove(&i);
        }
        true
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

    /// The scene as its file form (mesh paths as they were read).
    pub fn to_file(&self) -> SceneFile {
        self.file_form(None)
    }

    /// The scene as a file in folder `dir` (`None`: mesh paths as read).
    fn file_form(&self, dir: Option<&Path>) -> SceneFile {
        SceneFile {
            camera: self.camera.as_ref().map(camera_to_file),
            bookmarks: bookmarks_to_file(&self.bookmarks),
            objects: self.hierarchy.by_place().into_iter().map(|i| self.object_file(i, dir)).collect(),
        }
    }

    /// Object `i` as its file entry (see [`Scene::file_form`]).
    fn object_file(&self, i: usize, dir: Option<&Path>) -> ObjectFile {
        let o = self.obj(i);
        let q = o.transform.rotation.quaternion();
        ObjectFile {
            name: o.name.to_string(),
            mesh: match dir {
                Some(dir) => o.mesh.source_from(dir),
                None => o.mesh.source().map(str::to_string),
            },
            parent: self.parent(i).map(|p| self.obj(p).name.to_string()),
            position: o.transform.position.into(),
            rotation: [q.i, q.j, q.k, q.w],
            scale: o.transform.scale.into(),
            color: o.color.map(f64::from),
            hidden: o.hidden,
            skin: o.skin.as_ref().map(|s| SkinFile { index: s.index, joints: s.joints.to_vec() }),
            extras: o.extras.as_deref().cloned(),
        }
    }

    /// Pretty JSON of [`Scene::to_file`].
    pub fn to_json(&self) -> String {
        let view = save::FileView { scene: self, dir: None };
        serde_json::to_string_pretty(&view).expect("scene serialises") + "\n"
    }

    /// Writes the scene to `path` atomically (streamed into a temporary
    /// file, then renamed), with glTF paths rewritten to name the same files
    /// from its folder. One object's entry is built at a time.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let view = save::FileView { scene: self, dir: Some(dir) };
        Ok(write_atomic_with(path, |w| {
            serde_json::to_writer_pretty(&mut *w, &view)?;
            w.write_all(b"\n")
        })?)
    }

    /// The id of the object named `name` (O(1): the name index).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.names.find(name, &self.objects)
    }

    /// The name index's log: its epoch and the ids given a name since
    /// ([`search::NameSearch`] catches up with it).
    pub(crate) fn name_log(&self) -> (u64, &[u32]) {
        self.names.log()
    }

    /// World matrix of object `i`: parent world * T * R * S, multiplied
    /// from the root down as [`Scene::world_matrices`] does, so that both
    /// give the same bits (the pick boxes derived from one match what is
    /// drawn from the other).
    #[inline]
    pub fn world_matrix(&self, i: usize) -> Matrix4<f64> {
        let local = self.obj(i).transform.matrix();
        // A root's is its own (most objects of a large scene): no walk.
        if self.hierarchy.parent(i).is_none() {
            return local;
        }
        self.world_below_parent(i, local)
    }

    /// [`Scene::world_matrix`] of an object with a parent, its own matrix
    /// `local` made.
    fn world_below_parent(&self, i: usize, local: Matrix4<f64>) -> Matrix4<f64> {
        // The nearest ancestors on the stack (no allocation for a pick box
        // derived under a parent), any beyond them in a list.
        let mut near = [0usize; 16];
        let mut n = 0;
        let mut far: Vec<usize> = Vec::new();
        for p in self.hierarchy.ancestors(i) {
            if n < near.len() {
                near[n] = p;
                n += 1;
            } else {
                far.push(p);
            }
        }
        let mut world: Option<Matrix4<f64>> = None;
        for &p in far.iter().rev().chain(near[..n].iter().rev()) {
            let m = self.obj(p).transform.matrix();
            world = Some(world.map_or(m, |w| w * m));
        }
        world.map_or(local, |w| w * local)
    }

    /// Inverse of [`Scene::world_matrix`], from each transform's closed-form
    /// inverse (`None` for a zero scale on the way).
    pub fn world_inverse(&self, i: usize) -> Option<Matrix4<f64>> {
        let mut inv = self.obj(i).transform.inverse_matrix()?;
        for p in self.hierarchy.ancestors(i) {
            inv *= self.obj(p).transform.inverse_matrix()?;
        }
        Some(inv)
    }

    /// World matrix of the parent of `i` (identity for a root).
    pub fn parent_world_matrix(&self, i: usize) -> Matrix4<f64> {
        self.parent(i).map_or_else(Matrix4::identity, |p| self.world_matrix(p))
    }

    /// The world matrix of every slot (index = id), each parent computed
    /// once; a dead slot's is the zero matrix (no object, nothing to draw).
    pub fn world_matrices(&self) -> Vec<Matrix4<f64>> {
        self.world_matrices_iter().collect()
    }

    /// [`Scene::world_matrices`] one slot at a time: only parents' are kept
    /// (for their other descendants), so a flat scene holds none.
    pub fn world_matrices_iter(&self) -> impl ExactSizeIterator<Item = Matrix4<f64>> + '_ {
        let mut kept = HashMap::new();
        (0..self.objects.len()).map(move |i| match self.objects[i] {
            Some(_) => self.world_kept(i, &mut kept),
            None => Matrix4::zeros(),
        })
    }

    fn world_kept(&self, i: usize, kept: &mut HashMap<usize, Matrix4<f64>>) -> Matrix4<f64> {
        let local = self.obj(i).transform.matrix();
        let Some(p) = self.parent(i) else { return local };
        let parent = match kept.get(&p) {
            Some(m) => *m,
            None => {
                let m = self.world_kept(p, kept);
                kept.insert(p, m);
                m
            }
        };
        parent * local
    }

    /// `n` unit cubes on a square grid in the ground plane, 2 m apart, in
    /// rows of `ceil(sqrt(n))`, with a camera that sees the whole grid: the
    /// scenes the scale benchmarks use (`make bench-scenes` writes them).
    pub fn cube_grid(n: usize) -> Scene {
        let side = (n as f64).sqrt().ceil().max(1.0) as usize;
        let objects = (0..n)
            .map(|i| Object {
                name: format!("cube{i}").into(),
                mesh: MeshRef::Primitive(Primitive::Cube),
                transform: Transform {
                    position: Vector3::new((i % side) as f64 * 2.0, 0.0, (i / side) as f64 * 2.0),
                    ..Transform::IDENTITY
                },
                color: [0.8, 0.8, 0.8],
                hidden: false,
                skin: None,
                extras: None,
                origin: None,
            })
            .collect();
        let extent = side as f64 * 2.0;
        let camera = Camera {
            eye: Point3::new(extent * 0.5, extent * 0.6, extent * 1.3),
            target: Point3::new(extent * 0.5, 0.0, extent * 0.5),
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: extent * 4.0 },
        };
        Scene::from_objects(Some(camera), objects)
    }

    /// The built-in demo scene (`assets/demo.json`, compiled in).
    pub fn demo() -> Scene {
        Scene::from_json(DEMO_SCENE_JSON, Path::new("assets")).expect("the built-in demo scene is valid")
    }
}

/// The demo scene's JSON, as shipped in `assets/demo.json`.
pub const DEMO_SCENE_JSON: &str = include_str!("../../assets/demo.json");

#[cfg(test)]
mod tests;

/// The ids of the live objects of `objects` whose own `hidden` flag is set.
fn hidden_set(objects: &[Option<Object>]) -> BTreeSet<usize> {
    objects.iter().enumerate().filter(|(_, o)| o.as_ref().is_some_and(|o| o.hidden)).map(|(i, _)| i).collect()
}
