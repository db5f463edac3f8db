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
//! the objects' skins (`skin.rs`); cameras and lights from the objects'
//! light and camera (`docs/spec/lights.md`), animations from the glTF
//! nodes that objects were read from (`origin.rs`). A whole file used
//! as one mesh (a bare path) becomes its meshes on child nodes of the
//! object's node, placed as the file places them.
//!
//! A node's own morph `weights` are written where its object draws a mesh
//! with as many targets. Images are embedded in a
//! `.glb` and written beside a `.gltf` as `STEM_N.EXT`. What cannot be
//! written as the spec asks (a skin whose joints stay out of a selection,
//! a whole file whose nodes are sheared) is written as close as glTF allows,
//! with a line in [`Export::warnings`] naming the file concerned.

//!
//! Here: the `Builder` of the document and the nodes it places; the
//! meshes are in `meshes.rs`, and writing the files in `write.rs`.

mod copy;
mod meshes;
mod origin;
mod skin;
mod write;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use gj::validation::USize64;
use gltf::json as gj;
use serde_json::{json, Value};

use crate::math::Transform;
use crate::scene::{MeshRef, Scene};
pub use write::{check_target, default_path, write, ExportError, ExportKind};

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
        let from = o.origin.as_ref().map(|origin| b.origin_bits(&origin.file, origin.node)).unwrap_or_default();
        let (camera, light) = b.fixture_parts(o.fixture.as_deref(), &o.name, &from);
        let weights = from.weights;
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
