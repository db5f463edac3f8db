//! Reloading the glTF files a scene uses when they change on disk
//! (`docs/spec/roundtrip.md`, "Reload of changed glTF files").
//!
//! The [`Reloader`] remembers what each used file held when it was last
//! read (a fingerprint of its content, its mesh names, and for the glTF
//! opened as the scene its nodes' name paths and transforms). A reload
//! reads every used file again; each one whose content changed and reads
//! cleanly becomes one part of a single undo step ([`Editor::reload`]):
//! objects using its meshes take the new geometry (`path#N` follows the
//! mesh by name), and for the opened file objects are matched to nodes by
//! their path of node names. A file that cannot be read changes nothing
//! and is warned about once per content.
//!
//! Geometry is never replaced in place: each reading gets a new mesh
//! version ([`crate::scene::GltfMesh::version`]), so the earlier one stays
//! loaded and undoing the reload shows it again.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use crate::draw::LoadedMeshes;
use crate::editor::Editor;
use crate::math::Transform;
use crate::scene::gltf::{GltfFile, GltfNode};
use crate::scene::open::node_transform;
use crate::scene::{Detached, MeshRef, NodeOrigin, Object, Scene, SkinRef};

/// A node's place in its file, independent of node indices: the names on
/// the path from the root (as read, before `.NNN` was added; `node` for
/// unnamed nodes), each with its order among same-named siblings.
pub type NodeKey = Vec<(String, usize)>;

/// The [`NodeKey`] of each node of `nodes` (parents before children, as
/// [`GltfFile::nodes`] gives them).
pub fn node_keys(nodes: &[GltfNode]) -> Vec<NodeKey> {
    let mut keys: Vec<NodeKey> = Vec::with_capacity(nodes.len());
    let mut seen: HashMap<(Option<usize>, String), usize> = HashMap::new();
    for node in nodes {
        let name = node.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "node".to_string());
        let order = seen.entry((node.parent, name.clone())).or_insert(0);
        let mut key = node.parent.map(|p| keys[p].clone()).unwrap_or_default();
        key.push((name, *order));
        *order += 1;
        keys.push(key);
    }
    keys
}

/// What a used file held when it was last read.
#[derive(Debug, Default)]
struct Known {
    /// The fingerprint of the content last read cleanly (`None`: not yet).
    seen: Option<u64>,
    /// The fingerprint of a content that failed and was warned about
    /// (`Some(None)`: the file could not be read at all).
    warned: Option<Option<u64>>,
    /// Mesh names of the last clean reading, by index.
    mesh_names: Vec<Option<String>>,
    /// Buffer and image files beside it (relative URIs), as last read.
    side: Vec<PathBuf>,
}

/// The glTF file opened as the scene: its nodes as last read.
#[derive(Debug)]
struct OpenedFile {
    path: PathBuf,
    /// Per node index: its key and its transform as read.
    nodes: HashMap<usize, (NodeKey, Transform)>,
}

impl OpenedFile {
    fn read(path: PathBuf, file: &GltfFile) -> OpenedFile {
        let nodes = file.nodes().unwrap_or_default();
        let keys = node_keys(&nodes);
        let nodes =
            nodes.iter().zip(keys).filter_map(|(n, k)| node_transform(n).ok().map(|t| (n.index, (k, t)))).collect();
        OpenedFile { path, nodes }
    }
}

/// The used files and what they held; see the module docs.
#[derive(Debug, Default)]
pub struct Reloader {
    files: HashMap<PathBuf, Known>,
    opened: Option<OpenedFile>,
    /// The mesh version the last changed file's meshes got (0: as opened).
    last_version: u32,
}

/// What a reload did.
#[derive(Debug, Default)]
pub struct Reloaded {
    /// The new meshes, already handed to the editor; the caller uploads them.
    pub loaded: Vec<LoadedMeshes>,
    /// The files whose new content is in the scene now.
    pub files: Vec<PathBuf>,
    /// One line per file that changed but could not be read (already on stderr).
    pub warnings: Vec<String>,
}

impl Reloaded {
    /// The status line's text for it, if there is something to say.
    pub fn notice(&self) -> Option<String> {
        if let Some(w) = self.warnings.first() {
            return Some(w.clone());
        }
        let names: Vec<String> = self
            .files
            .iter()
            .map(|p| p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()))
            .collect();
        (!names.is_empty()).then(|| format!("Reloaded {}", names.join(", ")))
    }
}

/// The glTF files `scene`'s objects use, resolved.
fn used_files(scene: &Scene) -> BTreeSet<PathBuf> {
    scene.objects().iter().filter_map(|o| o.mesh.gltf_mesh().map(|(p, _)| p.to_path_buf())).collect()
}

/// The fields of a glTF file that say which other files it reads.
#[derive(serde::Deserialize, Default)]
struct Probe {
    #[serde(default)]
    buffers: Vec<UriProbe>,
    #[serde(default)]
    images: Vec<UriProbe>,
    #[serde(default)]
    meshes: Vec<NameProbe>,
}

#[derive(serde::Deserialize)]
struct UriProbe {
    uri: Option<String>,
}

#[derive(serde::Deserialize)]
struct NameProbe {
    name: Option<String>,
}

/// Reads the fields of [`Probe`] from a glTF file's content (empty where it
/// does not parse).
fn probe(bytes: &[u8]) -> Probe {
    json_of(bytes).and_then(|j| serde_json::from_slice(j).ok()).unwrap_or_default()
}

/// The JSON of a `.gltf`, or the JSON chunk of a `.glb`.
fn json_of(bytes: &[u8]) -> Option<&[u8]> {
    if bytes.starts_with(b"glTF") {
        let len = u32::from_le_bytes(bytes.get(12..16)?.try_into().ok()?) as usize;
        return bytes.get(20..20 + len);
    }
    Some(bytes)
}

/// The files beside `path` that its content `bytes` names (buffers and
/// images by relative URI); nothing for content that does not parse.
fn side_files(path: &Path, bytes: &[u8]) -> Vec<PathBuf> {
    let probe = probe(bytes);
    let dir = path.parent().unwrap_or(Path::new(""));
    probe
        .buffers
        .iter()
        .chain(&probe.images)
        .filter_map(|u| u.uri.as_deref())
        .filter(|u| !u.starts_with("data:") && !u.contains("://"))
        .map(|u| dir.join(percent_decode(u)))
        .collect()
}

/// `%XX` escapes of a URI undone (file names with spaces and the like).
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A fingerprint of the file's content and of its side files' sizes and
/// modification times (a re-export that changes only the `.bin` counts).
fn fingerprint(bytes: &[u8], side: &[PathBuf]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    for p in side {
        match std::fs::metadata(p) {
            Ok(m) => {
                m.len().hash(&mut h);
                m.modified().ok().hash(&mut h);
            }
            Err(_) => 0u8.hash(&mut h),
        }
    }
    h.finish()
}

/// `#N` of a `path#N` mesh string replaced by `#n`.
fn with_index(source: &str, n: usize) -> String {
    match source.rsplit_once('#') {
        Some((file, _)) => format!("{file}#{n}"),
        None => source.to_string(),
    }
}

impl Reloader {
    /// Remembers what every file `scene` uses holds now; `opened` is the
    /// glTF file opened as the scene (as its meshes name it) and its parsed content.
    pub fn new(scene: &Scene, opened: Option<(&Path, &GltfFile)>) -> Reloader {
        let mut r = Reloader::default();
        if let Some((path, file)) = opened {
            r.opened = Some(OpenedFile::read(path.to_path_buf(), file));
            r.remember(path);
        }
        r.track(scene);
        r
    }

    /// Starts following the files `scene` uses that are not followed yet.
    /// Costs a pass over the objects and a read of each new file.
    pub fn track(&mut self, scene: &Scene) {
        for path in used_files(scene) {
            if !self.files.contains_key(&path) {
                self.remember(&path);
            }
        }
    }

    /// Starts following the glTF files of `meshes` (what an import, a paste
    /// or an add brought) that are not followed yet: a cost of the meshes
    /// brought, not of the scene.
    pub fn track_meshes<'a>(&mut self, meshes: impl IntoIterator<Item = &'a MeshRef>) {
        for (path, _) in meshes.into_iter().filter_map(MeshRef::gltf_mesh) {
            if !self.files.contains_key(path) {
                self.remember(path);
            }
        }
    }

    /// Remembers what the file at `path` holds now (nothing when it cannot
    /// be read: its objects are placeholders until it can).
    fn remember(&mut self, path: &Path) {
        let known = match std::fs::read(path) {
            Ok(bytes) => {
                let side = side_files(path, &bytes);
                let mesh_names = probe(&bytes).meshes.into_iter().map(|m| m.name).collect();
                Known { seen: Some(fingerprint(&bytes, &side)), warned: None, mesh_names, side }
            }
            // Warned about on opening (a placeholder): not again until it changes.
            Err(_) => Known { warned: Some(None), ..Known::default() },
        };
        self.files.insert(path.to_path_buf(), known);
    }

    /// Every file a change of which matters: the used glTF files and the
    /// buffer and image files beside them.
    pub fn watched(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self.files.keys().cloned().collect();
        out.extend(self.files.values().flat_map(|k| k.side.iter().cloned()));
        out.extend(self.opened.iter().map(|o| o.path.clone()));
        out.sort();
        out.dedup();
        out
    }

    /// Reads every used file again and brings the changed ones into the
    /// editor's scene as one undo step. Nothing happens during a drag
    /// (the caller tries again later: `None`).
    pub fn reload(&mut self, editor: &mut Editor) -> Option<Reloaded> {
        if editor.gizmo.is_dragging() {
            return None;
        }
        let mut used = used_files(editor.scene());
        used.extend(self.opened.iter().map(|o| o.path.clone()));
        let mut out = Reloaded::default();
        let mut plan = Plan::default();
        let mut updates = Vec::new();
        for path in used {
            let known = self.files.entry(path.clone()).or_default();
            let read = std::fs::read(&path);
            let fp = read.as_ref().ok().map(|b| fingerprint(b, &side_files(&path, b)));
            if fp.is_some() && fp == known.seen {
                continue;
            }
            if known.warned == Some(fp) {
                continue;
            }
            let parsed = match read {
                Ok(bytes) => GltfFile::from_bytes(&path, &bytes).map_err(|e| e.to_string()).map(|f| (f, bytes)),
                Err(e) => Err(format!("{}: {e}", path.display())),
            };
            let part = parsed.and_then(|(file, bytes)| {
                let version = self.last_version + 1;
                self.plan_file(editor.scene(), &path, &file, version, &mut plan);
                let loaded = plan.load_file(&path, file)?;
                Ok((loaded, bytes))
            });
            match part {
                Ok((loaded, bytes)) => {
                    self.last_version += 1;
                    out.loaded.push(loaded);
                    out.files.push(path.clone());
                    updates.push((path, bytes));
                }
                Err(e) => {
                    plan.drop_file(&path);
                    let line = format!("could not reload {e} (the scene is unchanged)");
                    eprintln!("viewport: warning: {line}");
                    out.warnings.push(line);
                    self.files.entry(path).or_default().warned = Some(fp);
                }
            }
        }
        for loaded in &out.loaded {
            loaded.hand_new_to(editor);
        }
        let (removed, replaced, added) = plan.finish(editor.scene());
        editor.reload(&removed, replaced, added);
        for (path, bytes) in updates {
            let side = side_files(&path, &bytes);
            let file = GltfFile::from_bytes(&path, &bytes).ok();
            let known = self.files.entry(path.clone()).or_default();
            known.seen = Some(fingerprint(&bytes, &side));
            known.warned = None;
            known.side = side;
            if let Some(file) = &file {
                known.mesh_names = file.mesh_names();
                if self.opened.as_ref().is_some_and(|o| o.path == path) {
                    self.opened = Some(OpenedFile::read(path.clone(), file));
                }
            }
            eprintln!("viewport: reloaded {}", path.display());
        }
        Some(out)
    }

    /// Works out what the new content `file` of `path` changes in `scene`,
    /// into `plan`; returns what must be loaded for it.
    fn plan_file(&self, scene: &Scene, path: &Path, file: &GltfFile, version: u32, plan: &mut Plan) {
        let old_names = self.files.get(path).map(|k| k.mesh_names.as_slice()).unwrap_or(&[]);
        let new_names = file.mesh_names();
        let follow = |n: usize| match old_names.get(n).cloned().flatten() {
            Some(name) => new_names.iter().position(|m| m.as_deref() == Some(name.as_str())).unwrap_or(n),
            None => n,
        };
        let opened = self.opened.as_ref().filter(|o| o.path == path);
        let is_origin = |o: &Object| opened.is_some() && o.origin.as_ref().is_some_and(|g| &*g.file == path);
        // Objects that use one of its meshes (outside the opened file's nodes).
        for (i, o) in scene.iter() {
            let MeshRef::Gltf(g) = &o.mesh else { continue };
            if g.path != path || is_origin(o) {
                continue;
            }
            let mesh = match g.mesh {
                Some(n) => {
                    let m = follow(n);
                    MeshRef::gltf(with_index(&g.source, m), g.path.clone(), Some(m)).with_version(version)
                }
                None => o.mesh.with_version(version),
            };
            plan.replace(i, Object { mesh, ..o.clone() }, path);
        }
        if let Some(opened) = opened {
            self.match_nodes(scene, opened, file, version, plan);
        }
    }

    /// The opened file's objects matched to its new nodes by [`NodeKey`]
    /// (`docs/spec/roundtrip.md`, "Reload").
    fn match_nodes(&self, scene: &Scene, opened: &OpenedFile, file: &GltfFile, version: u32, plan: &mut Plan) {
        let path = &opened.path;
        let nodes = file.nodes().unwrap_or_default();
        let keys = node_keys(&nodes);
        let by_key: HashMap<&NodeKey, usize> = keys.iter().enumerate().map(|(k, key)| (key, k)).collect();
        let old_keys: HashSet<&NodeKey> = opened.nodes.values().map(|(k, _)| k).collect();
        let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let origin_file: std::sync::Arc<Path> = path.as_path().into();
        let mesh_of = |node: &GltfNode| match node.mesh {
            Some(m) => MeshRef::gltf(format!("{file_name}#{m}"), path.clone(), Some(m)).with_version(version),
            None => MeshRef::Empty,
        };
        // Node position in `nodes` -> the object that shows it.
        let mut object_of: HashMap<usize, PlanObject> = HashMap::new();
        for (i, o) in scene.iter() {
            let Some(origin) = o.origin.as_ref().filter(|g| &*g.file == path.as_path()) else { continue };
            let Some((key, read_as)) = opened.nodes.get(&origin.node) else { continue };
            match by_key.get(key) {
                Some(&k) => {
                    let node = &nodes[k];
                    let transform =
                        if o.transform == *read_as { node_transform(node).unwrap_or(o.transform) } else { o.transform };
                    let new = Object {
                        mesh: mesh_of(node),
                        transform,
                        origin: Some(Box::new(NodeOrigin { file: origin_file.clone(), node: node.index })),
                        fixture: file.fixture_of_node(node.index),
                        ..o.clone()
                    };
                    plan.replace(i, new, path);
                    object_of.insert(k, PlanObject::Existing(i));
                }
                None => plan.removed.push((i, path.clone())),
            }
        }
        // Nodes new in the file, parents first.
        for (k, node) in nodes.iter().enumerate() {
            if old_keys.contains(&keys[k]) {
                continue;
            }
            let parent = match node.parent {
                Some(p) => match object_of.get(&p) {
                    Some(&o) => Some(o),
                    // Its parent's node is matched to no live object (deleted here).
                    None => continue,
                },
                None => None,
            };
            let wanted = node.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "node".to_string());
            let object = Object {
                name: wanted.into(),
                mesh: mesh_of(node),
                transform: node_transform(node).unwrap_or(Transform::IDENTITY),
                color: [1.0; 3],
                hidden: node.hidden,
                cast_shadows: true,
                skin: None,
                extras: node.extras.clone().map(Box::new),
                origin: Some(Box::new(NodeOrigin { file: origin_file.clone(), node: node.index })),
                fixture: file.fixture_of_node(node.index),
            };
            let at = plan.add(object, parent, path);
            object_of.insert(k, PlanObject::Added(at));
        }
        // Skins follow the new nodes' skins, joints by the objects showing them.
        let name_of = |o: PlanObject, plan: &Plan| -> Option<String> {
            match o {
                PlanObject::Existing(i) => scene.get(i).map(|o| o.name.to_string()),
                PlanObject::Added(a) => plan.added.get(a).map(|x| x.object.name.to_string()),
            }
        };
        for (k, node) in nodes.iter().enumerate() {
            let Some(&target) = object_of.get(&k) else { continue };
            let skin = match (node.skin, node.mesh) {
                (Some(s), Some(_)) => file.skin_joints(s).ok().and_then(|joints| {
                    let position: HashMap<usize, usize> = nodes.iter().enumerate().map(|(p, n)| (n.index, p)).collect();
                    let names: Option<Vec<String>> = joints
                        .iter()
                        .map(|j| position.get(j).and_then(|p| object_of.get(p)).and_then(|&o| name_of(o, plan)))
                        .collect();
                    names.filter(|n| !n.is_empty()).map(|joints| Box::new(SkinRef { index: s, joints: joints.into() }))
                }),
                _ => None,
            };
            plan.set_skin(target, skin);
        }
    }
}

/// An object of a reload's plan: one of the scene's, or the plan's added one.
#[derive(Clone, Copy, Debug)]
enum PlanObject {
    Existing(usize),
    Added(usize),
}

#[derive(Debug)]
struct AddedObject {
    object: Object,
    parent: Option<PlanObject>,
    file: PathBuf,
}

/// What a reload changes, gathered over the changed files.
#[derive(Debug, Default)]
struct Plan {
    /// Objects whose node is gone, with the file that dropped it.
    removed: Vec<(usize, PathBuf)>,
    /// Objects' new fields, with the file that gave them.
    replaced: HashMap<usize, (Object, PathBuf)>,
    added: Vec<AddedObject>,
}

impl Plan {
    fn replace(&mut self, i: usize, o: Object, file: &Path) {
        self.replaced.insert(i, (o, file.to_path_buf()));
    }

    fn add(&mut self, object: Object, parent: Option<PlanObject>, file: &Path) -> usize {
        self.added.push(AddedObject { object, parent, file: file.to_path_buf() });
        self.added.len() - 1
    }

    fn set_skin(&mut self, o: PlanObject, skin: Option<Box<SkinRef>>) {
        match o {
            PlanObject::Existing(i) => {
                if let Some((obj, _)) = self.replaced.get_mut(&i) {
                    obj.skin = skin;
                }
            }
            PlanObject::Added(a) => self.added[a].object.skin = skin,
        }
    }

    /// Forgets what the file at `path` would have changed (it failed to load).
    fn drop_file(&mut self, path: &Path) {
        self.replaced.retain(|_, (_, f)| f != path);
        self.added.retain(|a| a.file != path);
        self.removed.retain(|(_, f)| f != path);
    }

    /// Loads the meshes (and skins) the objects planned for the file at
    /// `path` use, from its parsed new content `file`: every one must
    /// read, or the file is not taken.
    fn load_file(&self, path: &Path, file: GltfFile) -> Result<LoadedMeshes, String> {
        let mut objects: Vec<&Object> = self.replaced.values().filter(|(_, f)| f == path).map(|(o, _)| o).collect();
        objects.extend(self.added.iter().filter(|a| a.file == path).map(|a| &a.object));
        // One stand-in object per mesh (and per skin), named apart.
        let mut stand_ins = Scene::default();
        let mut seen = HashSet::new();
        for o in objects {
            let key = (o.mesh.clone(), o.skin.as_ref().map(|s| (s.index, s.joints.len())));
            if matches!(o.mesh, MeshRef::Gltf(_)) && seen.insert(key) {
                let name = format!("mesh{}", stand_ins.len());
                let stand_in = Object {
                    name: name.into(),
                    mesh: o.mesh.clone(),
                    transform: Transform::IDENTITY,
                    color: [1.0; 3],
                    hidden: false,
                    skin: o.skin.clone(),
                    extras: None,
                    origin: None,
                    fixture: None,
                    cast_shadows: true,
                };
                stand_ins.push(stand_in, None).map_err(|e| e.to_string())?;
            }
        }
        LoadedMeshes::load_strict(&stand_ins, HashMap::from([(path.to_path_buf(), file)])).map_err(|e| e.to_string())
    }

    /// The edit's parts for [`Editor::reload`]: removed ids, replaced
    /// objects, and the added objects in new slots with free names.
    fn finish(self, scene: &Scene) -> (Vec<usize>, Vec<(usize, Object)>, Detached) {
        let mut replaced: Vec<(usize, Object)> = self.replaced.into_iter().map(|(i, (o, _))| (i, o)).collect();
        replaced.sort_by_key(|(i, _)| *i);
        let mut added = Detached::default();
        let mut taken: HashSet<String> = HashSet::new();
        let mut namer = scene.copy_namer();
        for (k, a) in self.added.into_iter().enumerate() {
            let name = namer.free_name(&a.object.name, |c| scene.find(c).is_some() || taken.contains(c));
            taken.insert(name.clone());
            added.indices.push(scene.id_bound() + k);
            added.parents.push(a.parent.map(|p| match p {
                PlanObject::Existing(i) => i,
                PlanObject::Added(j) => scene.id_bound() + j,
            }));
            added.objects.push(Object { name: name.into(), ..a.object });
        }
        (self.removed.into_iter().map(|(i, _)| i).collect(), replaced, added)
    }
}
