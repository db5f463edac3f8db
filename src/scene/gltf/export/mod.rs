//! Writing a scene as glTF 2.0 (`docs/spec/roundtrip.md`, "Export"): one
//! node per object in scene order with its name, children and transform,
//! built-in primitives as meshes of the triangles that are drawn with their
//! colour as the material, meshes of glTF files copied as they are in their
//! files (`copy.rs`), empties as nodes without a mesh. `.glb` is one binary
//! file; `.gltf` is JSON plus `STEM.bin` beside it. Both are written
//! atomically, and a failed export leaves no file behind.
//!
//! The document is built with `gltf-json` types; meshes, materials,
//! textures, samplers, images, cameras, lights, skins and animations are
//! kept as JSON values, so that what a copied file says (extensions the
//! `gltf` crate does not model, extras) passes through unchanged.
//!
//! Objects' `extras` become their nodes' `extras`. Skins are written from
//! the objects' skins (`skin.rs`); cameras, lights and animations from the
//! glTF nodes that objects were read from (`origin.rs`). A whole file used
//! as one mesh (a bare path) becomes its meshes on child nodes of the
//! object's node, placed as the file places them.
//!
//! A node's own morph `weights` are written where its object draws a mesh
//! with as many targets. Images are embedded in a
//! `.glb` and written beside a `.gltf` as `STEM_N.EXT`. What cannot be
//! written as the spec asks (a skin whose joints stay out of a selection,
//! a whole file whose nodes are sheared) is written as close as glTF allows,
//! with a line in [`Export::warnings`] naming the file concerned.

mod copy;
mod origin;
mod skin;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use gj::validation::{Checked, USize64};
use gltf::json as gj;
use serde_json::{json, Value};

use super::GltfFile;
use crate::files::{write_atomic, WriteError};
use crate::math::Transform;
use crate::scene::{GltfMesh, MeshData, MeshRef, Scene};

/// Why a scene could not be exported (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{}: an export file must end in .glb or .gltf", path.display())]
    Extension { path: PathBuf },
    #[error("{}: the file is read-only", path.display())]
    ReadOnly { path: PathBuf },
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("{}: cannot encode the binary glTF: {message}", path.display())]
    Encode { path: PathBuf, message: String },
}

/// The two kinds of file an export writes, told by the extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportKind {
    /// One binary file.
    Glb,
    /// JSON plus `STEM.bin` beside it.
    Gltf,
}

impl ExportKind {
    /// The kind `path`'s extension names (case-insensitive), or an error
    /// naming the path.
    pub fn of(path: &Path) -> Result<ExportKind, ExportError> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("glb") => Ok(ExportKind::Glb),
            Some("gltf") => Ok(ExportKind::Gltf),
            _ => Err(ExportError::Extension { path: path.to_path_buf() }),
        }
    }
}

/// A glTF document built from a scene, with its one binary buffer.
#[derive(Debug)]
pub struct Export {
    /// The glTF JSON without `nodes` and the buffer's `uri` (both set when
    /// written).
    pub json: Value,
    /// The nodes' JSON objects, comma-separated.
    pub nodes_json: Vec<u8>,
    /// Each image's bytes, unchanged; `json`'s `images` do not say yet
    /// where they are.
    pub images: Vec<Vec<u8>>,
    /// The buffer's bytes, padded to a multiple of 4.
    pub bin: Vec<u8>,
    /// One line per thing written differently from the spec (see the
    /// module docs), naming the file concerned.
    pub warnings: Vec<String>,
}

/// Builds the document for `scene`'s objects, or for `only` (ids) and their
/// descendants. Parents left out make their children roots, placed where
/// they are in the world.
pub fn build(scene: &Scene, only: Option<&[usize]>) -> Export {
    let mut b = Builder::default();
    let placed = Placed::new(scene, only);
    let ids = &placed.ids;
    let mut part_nodes = Vec::new();
    for &i in ids {
        let o = &scene.objects()[i];
        // A child whose parent stays out takes its place in the world; every
        // other object keeps its local transform.
        let transform = match scene.parent(i) {
            Some(p) if !placed.keep[p] => world_transform(scene, i),
            _ => o.transform,
        };
        let meshes_before = b.meshes.len();
        // A whole file (a bare-path mesh): its meshes on child nodes.
        let mut parts = Vec::new();
        let mut mesh = match &o.mesh {
            MeshRef::Gltf(g) if g.mesh.is_none() => match b.file_parts(g, o.color) {
                Ok(Some(list)) => {
                    parts = list;
                    None
                }
                Ok(None) => b.mesh_for(&o.mesh, o.color),
                Err(e) => {
                    b.warn(format!("{e}: exported as a node without a mesh"));
                    None
                }
            },
            _ => b.mesh_for(&o.mesh, o.color),
        };
        let mut skin = None;
        if let (Some(s), Some(m), Some((path, Some(_)))) = (&o.skin, mesh, o.mesh.gltf_mesh()) {
            // A mesh copied for this object alone may be changed in place.
            let fresh = m.value() >= meshes_before;
            match b.skin_for(&placed, i, s, path, m.value() as u32, fresh) {
                Ok((k, m)) => {
                    skin = Some(gj::Index::new(k));
                    mesh = Some(gj::Index::new(m));
                }
                Err(e) => b.warn(format!("{}: object \"{}\": skin {} left out: {e}", path.display(), o.name, s.index)),
            }
        }
        if matches!(o.mesh, MeshRef::Gltf(_)) && mesh.is_some_and(|m| b.has_morph_targets(m.value() as u32)) {
            b.morph_nodes.insert(placed.node_of[i]);
        }
        let (camera, light, weights) = match &o.origin {
            Some(origin) => b.origin_parts(&origin.file, origin.node),
            None => (None, None, None),
        };
        // The node's own morph weights go with the mesh they weigh (the
        // object still draws its node's mesh: as many targets).
        let targets = mesh.map_or(0, |m| b.morph_target_count(m.value() as u32));
        let weights = weights.filter(|w| matches!(o.mesh, MeshRef::Gltf(_)) && targets > 0 && w.len() == targets);
        let mut children: Vec<gj::Index<gj::Node>> = scene
            .hierarchy()
            .children(i)
            .iter()
            .filter(|&&c| placed.keep[c])
            .map(|&c| gj::Index::new(placed.node_of[c]))
            .collect();
        // The file's nodes come after every object's.
        for part in parts {
            children.push(gj::Index::new((ids.len() + part_nodes.len()) as u32));
            let (translation, rotation, scale) = trs(&part.transform);
            part_nodes.push(gj::Node {
                name: part.name,
                mesh: part.mesh.map(gj::Index::new),
                translation,
                rotation,
                scale,
                ..gj::Node::default()
            });
        }
        let (translation, rotation, scale) = trs(&transform);
        let extras = node_extras(o).and_then(|e| serde_json::value::to_raw_value(&e).ok());
        let extensions = light.map(|l| gj::extensions::scene::Node {
            khr_lights_punctual: Some(gj::extensions::scene::khr_lights_punctual::KhrLightsPunctual {
                light: gj::Index::new(l),
            }),
            ..Default::default()
        });
        // Written out at once: a million nodes are not held as values.
        b.push_node(&gj::Node {
            name: Some(o.name.to_string()),
            mesh,
            skin,
            camera: camera.map(gj::Index::new),
            weights,
            children: (!children.is_empty()).then_some(children),
            translation,
            rotation,
            scale,
            extras,
            extensions,
            ..gj::Node::default()
        });
    }
    for node in &part_nodes {
        b.push_node(node);
    }
    // Animations, once every node is placed: each file's in the order its
    // objects come.
    for file in placed.origin_files() {
        b.copy_animations(&placed, file);
    }
    // The scene's roots in the order the outliner shows them.
    let mut root_ids: Vec<usize> =
        ids.iter().copied().filter(|&i| !scene.parent(i).is_some_and(|p| placed.keep[p])).collect();
    root_ids.sort_by_key(|&i| scene.hierarchy().place(i));
    let roots: Vec<gj::Index<gj::Node>> = root_ids.into_iter().map(|i| gj::Index::new(placed.node_of[i])).collect();
    b.root.scenes.push(gj::Scene { extensions: None, extras: None, name: None, nodes: roots });
    b.root.scene = Some(gj::Index::new(0));
    b.finish()
}

/// Where the scene's objects go in the export: which are written, their
/// node indices, and which object stands for each glTF node that objects
/// were read from.
pub(super) struct Placed<'a> {
    scene: &'a Scene,
    /// By id: whether the object is written.
    keep: Vec<bool>,
    /// The written objects' ids, in scene (id) order: node `k` is `ids[k]`.
    ids: Vec<usize>,
    /// By id: the object's node index (for written objects).
    node_of: Vec<u32>,
    /// The first written object (by id) read from each (file, node).
    by_origin: HashMap<(&'a Path, usize), usize>,
}

impl<'a> Placed<'a> {
    /// `scene`'s objects, or `only` (ids) and their descendants.
    fn new(scene: &'a Scene, only: Option<&[usize]>) -> Placed<'a> {
        let keep: Vec<bool> = match only {
            None => (0..scene.id_bound()).map(|i| scene.contains(i)).collect(),
            Some(ids) => {
                let mut keep = vec![false; scene.id_bound()];
                for i in scene.with_descendants(ids) {
                    keep[i] = true;
                }
                keep
            }
        };
        let ids: Vec<usize> = (0..scene.id_bound()).filter(|&i| keep[i]).collect();
        let mut node_of = vec![u32::MAX; scene.id_bound()];
        let mut by_origin = HashMap::new();
        for (n, &i) in ids.iter().enumerate() {
            node_of[i] = n as u32;
            if let Some(origin) = scene.get(i).and_then(|o| o.origin.as_deref()) {
                by_origin.entry((&*origin.file, origin.node)).or_insert(i);
            }
        }
        Placed { scene, keep, ids, node_of, by_origin }
    }

    /// The written object read from node `node` of the glTF file `file`.
    fn origin_object(&self, file: &Path, node: usize) -> Option<usize> {
        self.by_origin.get(&(file, node)).copied()
    }

    /// The glTF files the written objects were read from, each once, in
    /// the order of their first object.
    fn origin_files(&self) -> Vec<&'a Path> {
        let mut seen = BTreeSet::new();
        let mut files = Vec::new();
        for &i in &self.ids {
            if let Some(origin) = self.scene.get(i).and_then(|o| o.origin.as_deref()) {
                if seen.insert(&*origin.file) {
                    files.push(&*origin.file);
                }
            }
        }
        files
    }

    /// Written object `i` and its ancestors in the export, nearest first.
    fn chain(&self, i: usize) -> Vec<usize> {
        std::iter::once(i).chain(self.scene.hierarchy().ancestors(i).take_while(|&p| self.keep[p])).collect()
    }
}

/// Builds and writes `scene` (or `only` and their descendants) to `path`;
/// returns the warning lines (see [`Export::warnings`]).
pub fn export_scene(scene: &Scene, only: Option<&[usize]>, path: &Path) -> Result<Vec<String>, ExportError> {
    let export = build(scene, only);
    write(&export, path)?;
    Ok(export.warnings)
}

/// The file the export dialog offers for a scene saved to `save_path`:
/// `STEM.glb` beside it (`scene.glb` in the current folder without one).
pub fn default_path(save_path: Option<&Path>) -> PathBuf {
    match save_path {
        Some(p) => p.with_extension("glb"),
        None => PathBuf::from("scene.glb"),
    }
}

/// Writes `export` to `path` (`.glb` or `.gltf` + `STEM.bin`), atomically.
pub fn write(export: &Export, path: &Path) -> Result<(), ExportError> {
    let kind = check_target(path)?;
    let mut root = export.json.clone();
    let encode = |e: serde_json::Error| ExportError::Encode { path: path.to_path_buf(), message: e.to_string() };
    match kind {
        ExportKind::Glb => {
            // The images go into the binary chunk after the rest.
            let mut bin = export.bin.clone();
            for (k, bytes) in export.images.iter().enumerate() {
                let offset = bin.len();
                bin.extend_from_slice(bytes);
                bin.resize(bin.len().next_multiple_of(4), 0);
                let view = json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()});
                let views = root.as_object_mut().map(|o| o.entry("bufferViews").or_insert_with(|| json!([])));
                if let Some(Value::Array(views)) = views {
                    views.push(view);
                    root["images"][k]["bufferView"] = json!(views.len() - 1);
                }
            }
            if !bin.is_empty() {
                let buffers = root.as_object_mut().map(|o| o.entry("buffers").or_insert_with(|| json!([{}])));
                if let Some(Value::Array(buffers)) = buffers {
                    buffers[0]["byteLength"] = json!(bin.len());
                }
            }
            let json = with_nodes(serde_json::to_vec(&root).map_err(encode)?, &export.nodes_json);
            let glb = gltf::binary::Glb {
                header: gltf::binary::Header { magic: *b"glTF", version: 2, length: 0 },
                json: json.into(),
                bin: (!bin.is_empty()).then(|| bin.as_slice().into()),
            };
            let bytes =
                glb.to_vec().map_err(|e| ExportError::Encode { path: path.to_path_buf(), message: e.to_string() })?;
            write_atomic(path, &bytes)?;
        }
        ExportKind::Gltf => {
            let bin_path = path.with_extension("bin");
            let bin_name = bin_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if let Some(buffer) = root.get_mut("buffers").and_then(|b| b.get_mut(0)) {
                buffer["uri"] = json!(percent_encode(&bin_name));
            }
            // Each image a side file, STEM_N.EXT, beside the .gltf.
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let mut side: Vec<(PathBuf, &[u8])> = Vec::new();
            for (k, bytes) in export.images.iter().enumerate() {
                let ext = match root["images"][k]["mimeType"].as_str() {
                    Some("image/png") => "png",
                    Some("image/jpeg") => "jpg",
                    Some("image/webp") => "webp",
                    Some("image/ktx2") => "ktx2",
                    _ => "bin",
                };
                let name = format!("{stem}_{k}.{ext}");
                root["images"][k]["uri"] = json!(percent_encode(&name));
                side.push((path.with_file_name(&name), bytes.as_slice()));
            }
            if !export.bin.is_empty() {
                side.push((bin_path.clone(), export.bin.as_slice()));
            }
            let json = with_nodes(serde_json::to_vec_pretty(&root).map_err(encode)?, &export.nodes_json);
            // Side files first, then the JSON; a failure removes the side
            // files this export created.
            let mut created = Vec::new();
            let result = side
                .iter()
                .try_for_each(|(p, bytes)| {
                    let new = !p.exists();
                    write_atomic(p, bytes)?;
                    if new {
                        created.push(p.clone());
                    }
                    Ok::<(), WriteError>(())
                })
                .and_then(|()| write_atomic(path, &json));
            if let Err(e) = result {
                for p in &created {
                    let _ = std::fs::remove_file(p);
                }
                return Err(e.into());
            }
        }
    }
    Ok(())
}

/// `json` (a JSON object) with `"nodes": [nodes]` added as its last member.
fn with_nodes(mut json: Vec<u8>, nodes: &[u8]) -> Vec<u8> {
    if nodes.is_empty() {
        return json;
    }
    while json.last().is_some_and(|b| b.is_ascii_whitespace()) {
        json.pop();
    }
    let close = json.pop();
    debug_assert_eq!(close, Some(b'}'));
    if json.iter().rev().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        json.push(b',');
    }
    json.extend_from_slice(b"\"nodes\":[");
    json.extend_from_slice(nodes);
    json.extend_from_slice(b"]}");
    json
}

/// Whether an export to `path` can be written, checked before any work:
/// the extension, the folder, and no read-only file in the way (a rename
/// would replace one, so it is refused as an editor refuses to overwrite
/// one). Returns the kind of file.
pub fn check_target(path: &Path) -> Result<ExportKind, ExportError> {
    let kind = ExportKind::of(path)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        let source = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
        return Err(WriteError::Io { path: path.to_path_buf(), source }.into());
    }
    let bin_path = path.with_extension("bin");
    let written: &[&Path] = if kind == ExportKind::Gltf { &[path, &bin_path] } else { &[path] };
    for p in written {
        if std::fs::metadata(p).is_ok_and(|m| m.permissions().readonly()) {
            return Err(ExportError::ReadOnly { path: p.to_path_buf() });
        }
    }
    Ok(kind)
}

/// `name` with the characters a URI may not hold as they are escaped.
fn percent_encode(name: &str) -> String {
    let mut out = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The object's transform relative to the world.
fn world_transform(scene: &Scene, i: usize) -> Transform {
    let m = scene.world_matrix(i);
    crate::scene::open::decompose(&m).unwrap_or(scene.objects()[i].transform)
}

/// glTF `translation`, `rotation` (x, y, z, w) and `scale`, each left out
/// where it is the identity value.
fn trs(t: &Transform) -> (Option<[f32; 3]>, Option<gj::scene::UnitQuaternion>, Option<[f32; 3]>) {
    let p = t.position;
    let q = t.rotation.quaternion();
    let s = t.scale;
    let translation = (p != nalgebra::Vector3::zeros()).then(|| [p.x as f32, p.y as f32, p.z as f32]);
    let rotation = (t.rotation != nalgebra::UnitQuaternion::identity())
        .then(|| gj::scene::UnitQuaternion([q.i as f32, q.j as f32, q.k as f32, q.w as f32]));
    let scale = (s != nalgebra::Vector3::repeat(1.0)).then(|| [s.x as f32, s.y as f32, s.z as f32]);
    (translation, rotation, scale)
}

/// The document being built and what it already holds.
#[derive(Default)]
struct Builder {
    /// Nodes, accessors, buffer views, the buffer, scenes and the asset.
    root: gj::Root,
    /// Meshes, materials, textures, samplers and images as JSON.
    meshes: Vec<Value>,
    materials: Vec<Value>,
    textures: Vec<Value>,
    samplers: Vec<Value>,
    images: Vec<Value>,
    /// The bytes of each image, as its file had them.
    image_data: Vec<Vec<u8>>,
    /// The nodes, serialised one by one as they are made (comma-separated
    /// JSON objects): the typed nodes of a million objects would take
    /// hundreds of megabytes.
    nodes_json: Vec<u8>,
    /// Extensions the written file uses, and those of them it requires.
    used: BTreeSet<String>,
    required: BTreeSet<String>,
    bin: Vec<u8>,
    /// Mesh index by mesh reference and colour (objects that share both
    /// share the mesh and its materials).
    mesh_index: HashMap<(MeshRef, [u32; 3]), Option<u32>>,
    /// Material index by colour, for the built-in primitives.
    color_materials: HashMap<[u32; 3], u32>,
    /// Cameras, `KHR_lights_punctual` lights, skins and animations as JSON.
    cameras: Vec<Value>,
    lights: Vec<Value>,
    skins: Vec<Value>,
    animations: Vec<Value>,
    /// Nodes whose mesh has morph targets (animations may set their weights).
    morph_nodes: HashSet<u32>,
    /// Copies of a mesh whose joint indices follow a skin written with
    /// fewer joints than its file's (by mesh and the joint each old one
    /// became).
    remapped: HashMap<(u32, Vec<u32>), u32>,
    /// glTF files read, by path, with what has been copied from each.
    files: HashMap<PathBuf, Result<copy::Source, String>>,
    warnings: Vec<String>,
}

impl Builder {
    /// The mesh an object with `mesh` and `color` draws, added once.
    fn mesh_for(&mut self, mesh: &MeshRef, color: [f32; 3]) -> Option<gj::Index<gj::Mesh>> {
        let key = (mesh.clone(), color.map(f32::to_bits));
        if let Some(&m) = self.mesh_index.get(&key) {
            return m.map(gj::Index::new);
        }
        let index = match mesh {
            MeshRef::Empty => None,
            MeshRef::Primitive(p) => {
                let material = self.color_material(color);
                Some(self.add_triangles(Some(p.name().to_string()), &p.mesh(), material))
            }
            MeshRef::Gltf(g) => match g.mesh {
                Some(n) => match self.copy_mesh(&g.path, n, color) {
                    Ok(m) => Some(m),
                    Err(e) => {
                        self.warn(format!("{}: mesh {n}: {e}: exported as a node without a mesh", g.path.display()));
                        None
                    }
                },
                None => self.whole_file_triangles(&g.path, color),
            },
        };
        self.mesh_index.insert(key, index);
        index.map(gj::Index::new)
    }

    /// Whether mesh `m` (written) has morph targets.
    fn has_morph_targets(&self, m: u32) -> bool {
        self.morph_target_count(m) > 0
    }

    /// How many morph targets written mesh `m` has (its primitives' most).
    fn morph_target_count(&self, m: u32) -> usize {
        self.meshes[m as usize]["primitives"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["targets"].as_array().map(Vec::len))
            .max()
            .unwrap_or(0)
    }

    /// Appends `node` to the serialised node list.
    fn push_node(&mut self, node: &gj::Node) {
        if !self.nodes_json.is_empty() {
            self.nodes_json.push(b',');
        }
        // Plain data with string keys: serialising cannot fail.
        let _ = serde_json::to_writer(&mut self.nodes_json, node);
    }

    fn warn(&mut self, line: String) {
        if !self.warnings.contains(&line) {
            self.warnings.push(line);
        }
    }

    /// The meshes of a whole glTF file (a bare-path mesh) as copied meshes
    /// on nodes placed where the file's default scene puts them (relative
    /// to its root): one part per node with a mesh, in the file's depth
    /// first order. `None` where one of those places is not a translation,
    /// rotation and scale (a sheared hierarchy): the file is then written
    /// as the triangles it draws.
    fn file_parts(&mut self, g: &GltfMesh, color: [f32; 3]) -> Result<Option<Vec<FilePart>>, String> {
        let instances: Vec<(usize, nalgebra::Matrix4<f64>, Option<String>)> = self.with_source(&g.path, |_, s| {
            let list = super::mesh_instances(&s.file.document)?;
            Ok(list
                .into_iter()
                .map(|(m, world, node)| {
                    let name = node.and_then(|n| n.name().map(str::to_string)).or_else(|| m.name().map(str::to_string));
                    (m.index(), world, name)
                })
                .collect())
        })?;
        let mut places = Vec::with_capacity(instances.len());
        for (_, world, _) in &instances {
            match crate::scene::open::decompose(world) {
                Ok(t) => places.push(t),
                Err(_) => return Ok(None),
            }
        }
        let parts = instances
            .into_iter()
            .zip(places)
            .map(|((n, _, name), transform)| {
                let mesh = MeshRef::gltf(format!("{}#{n}", g.source), g.path.clone(), Some(n));
                FilePart { name, mesh: self.mesh_for(&mesh, color).map(|m| m.value() as u32), transform }
            })
            .collect();
        Ok(Some(parts))
    }

    /// A whole glTF file (a bare-path mesh) as the triangles it draws.
    fn whole_file_triangles(&mut self, path: &Path, color: [f32; 3]) -> Option<u32> {
        match GltfFile::read(path).and_then(|f| f.merged()) {
            Ok(data) if !data.indices.is_empty() => {
                self.warn(format!(
                    "{}: a whole file used as one mesh, whose nodes are not all placed by translation, rotation and scale, is exported as the triangles it draws, without its materials",
                    path.display()
                ));
                let material = self.color_material(color);
                Some(self.add_triangles(None, &data, material))
            }
            Ok(_) => None,
            Err(e) => {
                self.warn(format!("{e}: exported as a node without a mesh"));
                None
            }
        }
    }

    /// A material whose base colour is `color` (linear RGB, opaque), with
    /// the default material's metallic and roughness, added once.
    fn color_material(&mut self, color: [f32; 3]) -> u32 {
        let key = color.map(f32::to_bits);
        if let Some(&m) = self.color_materials.get(&key) {
            return m;
        }
        let mut material = gj::Material::default();
        material.pbr_metallic_roughness.base_color_factor =
            gj::material::PbrBaseColorFactor([color[0], color[1], color[2], 1.0]);
        // The look of a primitive's default material (a dielectric of
        // roughness 0.5), so that the file reopens with the same picture.
        let look = crate::scene::material::Material::default();
        material.pbr_metallic_roughness.metallic_factor = gj::material::StrengthFactor(look.metallic);
        material.pbr_metallic_roughness.roughness_factor = gj::material::StrengthFactor(look.roughness);
        let index = push(&mut self.materials, to_value(&material));
        self.color_materials.insert(key, index);
        index
    }

    /// A mesh of one triangle-list primitive: POSITION (with its bounds),
    /// NORMAL and u32 indices, each in its own buffer view.
    fn add_triangles(&mut self, name: Option<String>, d: &MeshData, material: u32) -> u32 {
        let (min, max) = d.bounds();
        let positions = self.add_view(bytemuck::cast_slice(&d.positions), Some(gj::buffer::Target::ArrayBuffer), None);
        let normals = self.add_view(bytemuck::cast_slice(&d.normals), Some(gj::buffer::Target::ArrayBuffer), None);
        let indices =
            self.add_view(bytemuck::cast_slice(&d.indices), Some(gj::buffer::Target::ElementArrayBuffer), None);
        let f32s = gj::accessor::ComponentType::F32;
        let vec3 = gj::accessor::Type::Vec3;
        let position = self.add_accessor(positions, d.positions.len(), f32s, vec3, Some((json!(min), json!(max))));
        let normal = self.add_accessor(normals, d.normals.len(), f32s, vec3, None);
        let index = self.add_accessor(
            indices,
            d.indices.len(),
            gj::accessor::ComponentType::U32,
            gj::accessor::Type::Scalar,
            None,
        );
        let mut mesh = json!({
            "primitives": [{"attributes": {"POSITION": position, "NORMAL": normal}, "indices": index, "material": material}]
        });
        if let Some(name) = name {
            mesh["name"] = json!(name);
        }
        push(&mut self.meshes, mesh)
    }

    /// A tightly packed accessor over all of `view`.
    fn add_accessor(
        &mut self,
        view: gj::Index<gj::buffer::View>,
        count: usize,
        component: gj::accessor::ComponentType,
        type_: gj::accessor::Type,
        bounds: Option<(Value, Value)>,
    ) -> u32 {
        let (min, max) = bounds.unzip();
        self.root
            .push(gj::Accessor {
                buffer_view: Some(view),
                byte_offset: None,
                count: USize64(count as u64),
                component_type: Checked::Valid(gj::accessor::GenericComponentType(component)),
                extensions: None,
                extras: None,
                type_: Checked::Valid(type_),
                min,
                max,
                name: None,
                normalized: false,
                sparse: None,
            })
            .value() as u32
    }

    /// Appends `bytes` to the buffer (at a multiple of 4) as a buffer view.
    fn add_view(
        &mut self,
        bytes: &[u8],
        target: Option<gj::buffer::Target>,
        stride: Option<usize>,
    ) -> gj::Index<gj::buffer::View> {
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        self.root.push(gj::buffer::View {
            buffer: gj::Index::new(0),
            byte_length: USize64(bytes.len() as u64),
            byte_offset: Some(USize64(offset as u64)),
            byte_stride: stride.map(gj::buffer::Stride),
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: None,
        })
    }

    fn finish(mut self) -> Export {
        if !self.bin.is_empty() {
            self.root.push(gj::Buffer {
                byte_length: USize64(self.bin.len() as u64),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
        self.root.asset = gj::Asset {
            generator: Some(format!("viewport {}", env!("CARGO_PKG_VERSION"))),
            version: "2.0".into(),
            ..gj::Asset::default()
        };
        let mut json = to_value(&self.root);
        if !self.lights.is_empty() {
            json["extensions"] = json!({"KHR_lights_punctual": {"lights": self.lights}});
        }
        for (key, list) in [
            ("cameras", self.cameras),
            ("skins", self.skins),
            ("animations", self.animations),
            ("meshes", self.meshes),
            ("materials", self.materials),
            ("textures", self.textures),
            ("samplers", self.samplers),
            ("images", self.images),
        ] {
            if !list.is_empty() {
                json[key] = Value::Array(list);
            }
        }
        if !self.used.is_empty() {
            json["extensionsUsed"] = json!(self.used);
        }
        if !self.required.is_empty() {
            json["extensionsRequired"] = json!(self.required);
        }
        Export { json, nodes_json: self.nodes_json, bin: self.bin, images: self.image_data, warnings: self.warnings }
    }
}

/// One mesh of a whole file used as an object's mesh, written on a child
/// node of the object's node.
struct FilePart {
    name: Option<String>,
    mesh: Option<u32>,
    transform: Transform,
}

/// Appends `value` to `list`; returns its index.
fn push(list: &mut Vec<Value>, value: Value) -> u32 {
    list.push(value);
    list.len() as u32 - 1
}

/// A `gltf-json` value as JSON (its serialisation cannot fail: plain data).
fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// A node's `extras`: the object's as they came, with `"hidden": true`
/// added for a hidden object (`docs/spec/roundtrip.md`). Other keys stay;
/// extras that are not a JSON object (rare: a string, a number) cannot take
/// the key and are written unchanged.
fn node_extras(o: &crate::scene::Object) -> Option<serde_json::Value> {
    match (o.extras.as_deref(), o.hidden) {
        (None, false) => None,
        (None, true) => Some(serde_json::json!({ "hidden": true })),
        (Some(serde_json::Value::Object(map)), true) => {
            let mut map = map.clone();
            map.insert("hidden".into(), serde_json::Value::Bool(true));
            Some(serde_json::Value::Object(map))
        }
        (Some(e), _) => Some(e.clone()),
    }
}
