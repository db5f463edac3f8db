//! Writing a scene as glTF 2.0 (`docs/spec/roundtrip.md`, "Export"): one
//! node per object in scene order with its name, children and transform,
//! built-in primitives as meshes of the triangles that are drawn with their
//! colour as the material, empties as nodes without a mesh. `.glb` is one
//! binary file; `.gltf` is JSON plus `STEM.bin` beside it. Both are written
//! atomically, and a failed export leaves no file behind.
//!
//! Not yet as the spec asks: an object with a glTF mesh is written as the
//! triangles it draws (positions, normals, indices) with its colour as the
//! material, not as the mesh copied from its file with its materials,
//! textures, morph targets and skin; skins, animations, lights and cameras
//! are not written. [`Export::warnings`] says so for each file concerned.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gj::validation::{Checked, USize64};
use gltf::json as gj;

use super::{GltfError, GltfFile};
use crate::files::{write_atomic, WriteError};
use crate::math::Transform;
use crate::scene::{MeshData, MeshRef, Scene};

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
    pub root: gj::Root,
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
    // Nodes in scene (id) order.
    let ids: Vec<usize> = (0..scene.id_bound()).filter(|&i| keep[i]).collect();
    let mut node_of = vec![u32::MAX; scene.id_bound()];
    for (n, &i) in ids.iter().enumerate() {
        node_of[i] = n as u32;
    }
    for &i in &ids {
        let o = &scene.objects()[i];
        let parent_kept = scene.parent(i).is_some_and(|p| keep[p]);
        let transform = if parent_kept { o.transform } else { world_transform(scene, i) };
        let mesh = b.mesh_for(&o.mesh, o.color);
        let children: Vec<gj::Index<gj::Node>> =
            scene.hierarchy().children(i).iter().filter(|&&c| keep[c]).map(|&c| gj::Index::new(node_of[c])).collect();
        let (translation, rotation, scale) = trs(&transform);
        b.root.nodes.push(gj::Node {
            name: Some(o.name.to_string()),
            mesh,
            children: (!children.is_empty()).then_some(children),
            translation,
            rotation,
            scale,
            ..gj::Node::default()
        });
    }
    let roots: Vec<gj::Index<gj::Node>> = ids
        .iter()
        .filter(|&&i| !scene.parent(i).is_some_and(|p| keep[p]))
        .map(|&i| gj::Index::new(node_of[i]))
        .collect();
    b.root.scenes.push(gj::Scene { extensions: None, extras: None, name: None, nodes: roots });
    b.root.scene = Some(gj::Index::new(0));
    b.finish()
}

/// Writes `export` to `path` (`.glb` or `.gltf` + `STEM.bin`), atomically.
pub fn write(export: &Export, path: &Path) -> Result<(), ExportError> {
    let kind = check_target(path)?;
    let mut root = export.root.clone();
    match kind {
        ExportKind::Glb => {
            if let Some(buffer) = root.buffers.first_mut() {
                buffer.uri = None;
            }
            let json = gj::serialize::to_vec(&root)
                .map_err(|e| ExportError::Encode { path: path.to_path_buf(), message: e.to_string() })?;
            let glb = gltf::binary::Glb {
                header: gltf::binary::Header { magic: *b"glTF", version: 2, length: 0 },
                json: json.into(),
                bin: (!export.bin.is_empty()).then(|| export.bin.as_slice().into()),
            };
            let bytes =
                glb.to_vec().map_err(|e| ExportError::Encode { path: path.to_path_buf(), message: e.to_string() })?;
            write_atomic(path, &bytes)?;
        }
        ExportKind::Gltf => {
            let bin_path = path.with_extension("bin");
            let bin_name = bin_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if let Some(buffer) = root.buffers.first_mut() {
                buffer.uri = Some(percent_encode(&bin_name));
            }
            let json = gj::serialize::to_string_pretty(&root)
                .map_err(|e| ExportError::Encode { path: path.to_path_buf(), message: e.to_string() })?;
            let had_bin = bin_path.exists();
            if !export.bin.is_empty() {
                write_atomic(&bin_path, &export.bin)?;
            }
            if let Err(e) = write_atomic(path, json.as_bytes()) {
                // The JSON could not be written: leave no new side file.
                if !had_bin && !export.bin.is_empty() {
                    let _ = std::fs::remove_file(&bin_path);
                }
                return Err(e.into());
            }
        }
    }
    Ok(())
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
    root: gj::Root,
    bin: Vec<u8>,
    /// Mesh index by drawn geometry and colour (objects that share both
    /// share the mesh and the material).
    meshes: HashMap<(MeshRef, [u32; 3]), Option<gj::Index<gj::Mesh>>>,
    /// Material index by colour.
    materials: HashMap<[u32; 3], gj::Index<gj::Material>>,
    /// glTF files read, by path.
    files: HashMap<PathBuf, Result<GltfFile, String>>,
    warnings: Vec<String>,
}

impl Builder {
    /// The mesh an object with `mesh` and `color` draws, added once.
    fn mesh_for(&mut self, mesh: &MeshRef, color: [f32; 3]) -> Option<gj::Index<gj::Mesh>> {
        let key = (mesh.clone(), color.map(f32::to_bits));
        if let Some(&m) = self.meshes.get(&key) {
            return m;
        }
        let (name, data) = match mesh {
            MeshRef::Empty => (None, None),
            MeshRef::Primitive(p) => (Some(p.name().to_string()), Some(p.mesh())),
            MeshRef::Gltf(g) => (None, self.gltf_triangles(&g.path, g.mesh)),
        };
        let index = data.filter(|d| !d.indices.is_empty()).map(|d| {
            let material = self.material(color);
            self.add_mesh(name, &d, material)
        });
        self.meshes.insert(key, index);
        index
    }

    /// The triangles a glTF mesh draws (the whole file's when `mesh` is
    /// None), with a warning the first time a file is written this way.
    fn gltf_triangles(&mut self, path: &Path, mesh: Option<usize>) -> Option<MeshData> {
        let file = self
            .files
            .entry(path.to_path_buf())
            .or_insert_with(|| GltfFile::read(path).map_err(|e: GltfError| e.to_string()));
        let data = match file {
            Ok(f) => match mesh {
                None => f.merged().map_err(|e| e.to_string()),
                Some(n) => f.mesh(n).map_err(|e| e.to_string()),
            },
            Err(e) => Err(e.clone()),
        };
        let line = match &data {
            Ok(_) => format!(
                "{}: exported as the triangles it draws, without its materials, textures, skins or animations",
                path.display()
            ),
            Err(e) => format!("{e}: exported as a node without a mesh"),
        };
        if !self.warnings.contains(&line) {
            self.warnings.push(line);
        }
        data.ok()
    }

    /// A material whose base colour is `color` (linear RGB, opaque), added once.
    fn material(&mut self, color: [f32; 3]) -> gj::Index<gj::Material> {
        let key = color.map(f32::to_bits);
        if let Some(&m) = self.materials.get(&key) {
            return m;
        }
        let mut material = gj::Material::default();
        material.pbr_metallic_roughness.base_color_factor =
            gj::material::PbrBaseColorFactor([color[0], color[1], color[2], 1.0]);
        material.pbr_metallic_roughness.metallic_factor = gj::material::StrengthFactor(0.0);
        let index = self.root.push(material);
        self.materials.insert(key, index);
        index
    }

    /// A mesh of one triangle-list primitive: POSITION (with its bounds),
    /// NORMAL and u32 indices, each in its own buffer view.
    fn add_mesh(
        &mut self,
        name: Option<String>,
        d: &MeshData,
        material: gj::Index<gj::Material>,
    ) -> gj::Index<gj::Mesh> {
        let (min, max) = d.bounds();
        let positions = self.add_view(bytemuck::cast_slice(&d.positions), Some(gj::buffer::Target::ArrayBuffer));
        let normals = self.add_view(bytemuck::cast_slice(&d.normals), Some(gj::buffer::Target::ArrayBuffer));
        let indices = self.add_view(bytemuck::cast_slice(&d.indices), Some(gj::buffer::Target::ElementArrayBuffer));
        let vec3 = |view, count: usize, bounds: Option<([f32; 3], [f32; 3])>| gj::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64(count as u64),
            component_type: Checked::Valid(gj::accessor::GenericComponentType(gj::accessor::ComponentType::F32)),
            extensions: None,
            extras: None,
            type_: Checked::Valid(gj::accessor::Type::Vec3),
            min: bounds.map(|(lo, _)| serde_json::json!(lo)),
            max: bounds.map(|(_, hi)| serde_json::json!(hi)),
            name: None,
            normalized: false,
            sparse: None,
        };
        let position = self.root.push(vec3(positions, d.positions.len(), Some((min, max))));
        let normal = self.root.push(vec3(normals, d.normals.len(), None));
        let index = self.root.push(gj::Accessor {
            component_type: Checked::Valid(gj::accessor::GenericComponentType(gj::accessor::ComponentType::U32)),
            type_: Checked::Valid(gj::accessor::Type::Scalar),
            min: None,
            max: None,
            ..vec3(indices, d.indices.len(), None)
        });
        let mut attributes = std::collections::BTreeMap::new();
        attributes.insert(Checked::Valid(gj::mesh::Semantic::Positions), position);
        attributes.insert(Checked::Valid(gj::mesh::Semantic::Normals), normal);
        self.root.push(gj::Mesh {
            extensions: None,
            extras: None,
            name,
            primitives: vec![gj::mesh::Primitive {
                attributes,
                extensions: None,
                extras: None,
                indices: Some(index),
                material: Some(material),
                mode: Checked::Valid(gj::mesh::Mode::Triangles),
                targets: None,
            }],
            weights: None,
        })
    }

    /// Appends `bytes` to the buffer (at a multiple of 4) as a buffer view.
    fn add_view(&mut self, bytes: &[u8], target: Option<gj::buffer::Target>) -> gj::Index<gj::buffer::View> {
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        self.root.push(gj::buffer::View {
            buffer: gj::Index::new(0),
            byte_length: USize64(bytes.len() as u64),
            byte_offset: Some(USize64(offset as u64)),
            byte_stride: None,
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
        Export { root: self.root, bin: self.bin, warnings: self.warnings }
    }
}
