//! glTF 2.0 meshes (`.gltf` JSON or `.glb` binary) flattened into one
//! [`MeshData`].
//!
//! Every triangle primitive of every mesh node in the file's default scene
//! (else its first scene; a file without scenes contributes every mesh
//! untransformed) is baked in with its node's world transform: positions by
//! the matrix, normals by its inverse-transpose (renormalised), and the
//! winding flipped where the transform mirrors. Primitives without normals
//! get flat normals (as the glTF specification asks), primitives without
//! indices get generated ones, strips and fans become triangle lists, and
//! points and lines are skipped. Alongside the triangles, each mesh's
//! [`Surface`] carries the texture coordinates its materials read, `COLOR_0`
//! and the index range of every primitive with its material
//! ([`super::material`] reads the materials and images). Morph targets
//! apply at the mesh's default weights; skins are read for single meshes
//! (`skin.rs`) and ignored in the merged mesh.
//!
//! The `gltf` crate parses and validates the JSON; buffers and accessors are
//! read here with every offset, stride, count and index checked, so a corrupt
//! or hostile file gives a one-line [`GltfError`] naming it and never a
//! panic or an unbounded allocation. (The helpers below describe a problem
//! as text; [`load_gltf`] files it under the kind of failure and the path.)

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use gltf::mesh::Mode;
use gltf::Document;
use nalgebra::Matrix4;

use super::material::{Looks, Surface};
use super::MeshData;
use materials::read_looks;
use parse::{parse_with_buffers, raw_json};
use primitive::append_primitive;

/// Why a glTF file could not be loaded. Each reads `<path>: <problem>`.
#[derive(Debug, thiserror::Error)]
pub enum GltfError {
    #[error("{}: missing file", path.display())]
    Missing { path: PathBuf },
    #[error("{}: cannot read: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    /// Not glTF, or glTF that breaks the format's rules or our limits.
    #[error("{}: {problem}", path.display())]
    Invalid { path: PathBuf, problem: String },
}

/// Most vertices (and a third of the most indices) one glTF file may produce.
pub const MAX_VERTICES: usize = 1 << 24;
const MAX_INDICES: usize = 3 * MAX_VERTICES;

/// Loads the triangles of a glTF 2.0 file as one mesh (see the module docs).
/// Errors read `<path>: <problem>` on one line.
pub fn load_gltf(path: &Path) -> Result<MeshData, GltfError> {
    let file = GltfFile::read(path)?;
    let mesh = file.merged()?;
    file.warn_problems();
    Ok(mesh)
}

/// A parsed glTF file with its buffers in memory: read once, then asked for
/// the merged mesh, single meshes or the node tree.
#[derive(Debug)]
pub struct GltfFile {
    path: PathBuf,
    document: Document,
    buffers: Vec<Vec<u8>>,
    /// Per texture, the images it may read, first choice first (those its
    /// extensions name before the plain `source`; see
    /// `materials::texture_images`).
    texture_images: Vec<Vec<usize>>,
    /// The file's breaches of the specification (`check/`), logged
    /// by [`GltfFile::warn_problems`] once the file has been read without
    /// error (so a file refused later prints its one error line alone).
    problems: Vec<String>,
    warned: AtomicBool,
}

/// One node of the opened scene, as [`GltfFile::nodes`] lists them.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfNode {
    /// The node's index in the file.
    pub index: usize,
    /// The node's `name`, else its mesh's `name`.
    pub name: Option<String>,
    /// The mesh index, when the node has one.
    pub mesh: Option<usize>,
    /// The skin index, when the node has one.
    pub skin: Option<usize>,
    /// Position in the list of the parent node (always earlier).
    pub parent: Option<usize>,
    /// The local transform as glTF gives it (column-major `matrix`, or the
    /// product of translation, rotation and scale).
    pub matrix: Matrix4<f64>,
    /// Whether the node gave a `matrix` rather than translation, rotation,
    /// scale.
    pub has_matrix: bool,
    pub translation: [f64; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [f64; 4],
    pub scale: [f64; 3],
    /// The node's `extras` as written, less the viewport's own `hidden`
    /// key (an extras object left empty by that is `None`).
    pub extras: Option<serde_json::Value>,
    /// `"extras": {"hidden": true}`: the node was exported hidden
    /// (`docs/spec/roundtrip.md`) and opens hidden.
    pub hidden: bool,
}

/// Splits the viewport's `hidden` key off a node's `extras`: the extras
/// the object keeps, and whether the node is hidden. Only a JSON object's
/// boolean `hidden` is the viewport's; anything else stays as written.
pub fn split_hidden(extras: Option<serde_json::Value>) -> (Option<serde_json::Value>, bool) {
    match extras {
        Some(serde_json::Value::Object(mut map)) if map.get("hidden").is_some_and(serde_json::Value::is_boolean) => {
            let hidden = map.remove("hidden") == Some(serde_json::Value::Bool(true));
            ((!map.is_empty()).then_some(serde_json::Value::Object(map)), hidden)
        }
        other => (other, false),
    }
}

impl GltfFile {
    /// The `KHR_lights_punctual` light node `node` carries, if any.
    /// Node `node`'s camera as a camera object (`docs/spec/lights.md`): an
    /// orthographic one's height is twice its `ymag`, its aspect
    /// `xmag / ymag` unless the two are equal.
    pub fn camera_of_node(&self, node: usize) -> Option<crate::scene::fixture::CameraObject> {
        use gltf::camera::Projection;
        let camera = self.document.nodes().nth(node)?.camera()?;
        let positive = |v: f32| (v.is_finite() && v > 0.0).then_some(f64::from(v));
        let mut c = crate::scene::fixture::CameraObject::new(false);
        match camera.projection() {
            Projection::Perspective(p) => {
                c.fov_y_deg = positive(p.yfov()).map_or(c.fov_y_deg, f64::to_degrees).min(179.0);
                c.aspect = p.aspect_ratio().and_then(positive);
                c.near = positive(p.znear()).unwrap_or(c.near);
                c.far = p.zfar().and_then(positive).filter(|f| *f > c.near);
            }
            Projection::Orthographic(o) => {
                c = crate::scene::fixture::CameraObject::new(true);
                let (x, y) = (positive(o.xmag()), positive(o.ymag()));
                c.height = y.map_or(c.height, |y| 2.0 * y);
                c.aspect = x.zip(y).filter(|(x, y)| x != y).map(|(x, y)| x / y);
                c.near = positive(o.znear()).unwrap_or(c.near);
                c.far = positive(o.zfar()).filter(|f| *f > c.near).or(Some(c.near + 1000.0));
            }
        }
        Some(c)
    }

    /// Node `node`'s light and camera as an object's fixture, if it has either.
    pub fn fixture_of_node(&self, node: usize) -> Option<Box<crate::scene::fixture::Fixture>> {
        let light = self.light_of_node(node).map(|d| crate::scene::fixture::LightObject::from_def(&d));
        let camera = self.camera_of_node(node);
        (light.is_some() || camera.is_some()).then(|| Box::new(crate::scene::fixture::Fixture { light, camera }))
    }

    pub fn light_of_node(&self, node: usize) -> Option<crate::look::LightDef> {
        use crate::look::{LightDef, LightKind};
        use gltf::khr_lights_punctual::Kind;
        let light = self.document.nodes().nth(node)?.light()?;
        let kind = match light.kind() {
            Kind::Directional => LightKind::Directional,
            Kind::Point => LightKind::Point,
            Kind::Spot { inner_cone_angle, outer_cone_angle } => {
                LightKind::Spot { inner: inner_cone_angle, outer: outer_cone_angle }
            }
        };
        let finite = |v: f32, or: f32| if v.is_finite() && v >= 0.0 { v } else { or };
        Some(LightDef {
            kind,
            color: light.color().map(|c| finite(c, 1.0)),
            intensity: finite(light.intensity(), 1.0),
            range: light.range().filter(|r| r.is_finite() && *r > 0.0),
        })
    }
}

impl GltfFile {
    /// Reads and validates the file and its buffers.
    pub fn read(path: &Path) -> Result<GltfFile, GltfError> {
        GltfFile::from_bytes(path, &GltfFile::read_bytes(path)?)
    }

    /// The bytes of the file at `path`, with the error [`GltfFile::read`] gives.
    pub fn read_bytes(path: &Path) -> Result<Vec<u8>, GltfError> {
        std::fs::read(path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => GltfError::Missing { path: path.to_path_buf() },
            _ => GltfError::Read { path: path.to_path_buf(), source },
        })
    }

    /// Parses the content `bytes` of the file at `path` (buffer files are
    /// read beside it).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<GltfFile, GltfError> {
        let base = path.parent().unwrap_or(Path::new("."));
        let glb_name = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb"));
        let (document, buffers, decoded) = parse_with_buffers(bytes, base, glb_name)
            .map_err(|m| GltfError::Invalid { path: path.to_path_buf(), problem: one_line(&m) })?;
        let lines = document
            .meshes()
            .flat_map(|m| m.primitives())
            .filter(|p| matches!(p.mode(), Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip))
            .count();
        if lines > 0 {
            log::warn!("{}: {lines} point or line primitive(s) left out (only triangles are drawn)", path.display());
        }
        let json = raw_json(bytes);
        let problems = check::file_problems(&json, bytes, base, &document, &buffers, &decoded);
        let texture_images = materials::texture_images(&json, &document);
        Ok(GltfFile {
            path: path.to_path_buf(),
            document,
            buffers,
            texture_images,
            problems,
            warned: AtomicBool::new(false),
        })
    }

    /// Logs one warning per breach of the specification the file has, the
    /// first time it is called (callers call it once their reading of the
    /// file has succeeded).
    pub fn warn_problems(&self) {
        if !self.warned.swap(true, Ordering::Relaxed) {
            for problem in &self.problems {
                log::warn!("{}: not valid glTF, read anyway: {problem}", self.path.display());
            }
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn warn_dataless(&self, at: &str, buffer: usize) {
        log::warn!(
            "{}: {at}: left out: its data is in buffer {buffer}, which has nothing to read (no URI, or a remote one)",
            self.path.display()
        );
    }

    fn invalid(&self, problem: String) -> GltfError {
        GltfError::Invalid { path: self.path.clone(), problem: one_line(&problem) }
    }

    /// All triangles of the default scene in one mesh, in world space.
    /// Without triangles (a file of empties, lights or points) the mesh is
    /// empty: a warning, and the objects using it draw nothing.
    pub fn merged(&self) -> Result<MeshData, GltfError> {
        Ok(self.merged_with_surface()?.0)
    }

    /// [`GltfFile::merged`] with its [`Surface`] (materials index
    /// [`GltfFile::looks`]'s list).
    pub fn merged_with_surface(&self) -> Result<(MeshData, Surface), GltfError> {
        let mut dataless = Vec::new();
        let mesh = merged_mesh(&self.document, &self.buffers, &mut dataless).map_err(|m| self.invalid(m))?;
        for (at, b) in dataless {
            self.warn_dataless(&at, b);
        }
        if mesh.0.indices.is_empty() {
            log::warn!(
                "{}: no triangles to draw; objects using the whole file as their mesh draw nothing",
                self.path.display()
            );
        }
        Ok(mesh)
    }

    /// The file's materials and decoded base-colour images, with a warning
    /// per image that could not be read.
    pub fn looks(&self) -> Looks {
        let base = self.path.parent().unwrap_or(Path::new(""));
        read_looks(&self.document, &self.texture_images, &self.buffers, base, &self.path)
    }

    /// Each mesh's `name`, in file order.
    pub fn mesh_names(&self) -> Vec<Option<String>> {
        self.document.meshes().map(|m| m.name().map(str::to_string)).collect()
    }

    /// How many meshes the file has.
    pub fn mesh_count(&self) -> usize {
        self.document.meshes().len()
    }

    /// The triangles of mesh `n` alone, in the mesh's own space (no node
    /// transform). A mesh of only points or lines gives an empty mesh.
    pub fn mesh(&self, n: usize) -> Result<MeshData, GltfError> {
        Ok(self.mesh_with_surface(n)?.0)
    }

    /// [`GltfFile::mesh`] with its [`Surface`] (materials index
    /// [`GltfFile::looks`]'s list).
    pub fn mesh_with_surface(&self, n: usize) -> Result<(MeshData, Surface), GltfError> {
        self.mesh_visiting(n, None, |_, _| Ok(()))
    }

    /// [`GltfFile::mesh_with_surface`], calling `visit` after each primitive
    /// is appended with the primitive and, per vertex it appended, the index
    /// of the primitive's vertex it came from (a skin reads its weights so).
    /// Morph targets apply at `weights`, else at the mesh's own.
    fn mesh_visiting(
        &self,
        n: usize,
        weights: Option<&[f32]>,
        mut visit: impl FnMut(&gltf::Primitive<'_>, &[u32]) -> Result<(), String>,
    ) -> Result<(MeshData, Surface), GltfError> {
        let mesh = self.document.meshes().nth(n).ok_or_else(|| {
            self.invalid(format!("no mesh {n} (the file has {} meshes)", self.document.meshes().len()))
        })?;
        let mut out = (MeshData::default(), Surface::default());
        let mut sources = Vec::new();
        for primitive in mesh.primitives() {
            let at = || format!("mesh {n}, primitive {}", primitive.index());
            if let Some(b) = dataless_buffer(&primitive, &self.buffers) {
                self.warn_dataless(&at(), b);
                continue;
            }
            sources.clear();
            let weights = weights.or(mesh.weights()).unwrap_or(&[]);
            append_primitive(&mut out, &primitive, &Matrix4::identity(), &self.buffers, weights, &mut sources)
                .and_then(|()| visit(&primitive, &sources))
                .map_err(|e| self.invalid(format!("{}: {e}", at())))?;
        }
        Ok(out)
    }

    /// Every node reachable from the opened scene (`scene`, else scene 0),
    /// depth first: the scene's roots in order, each followed by its
    /// children in order. A file without scenes has no nodes.
    pub fn nodes(&self) -> Result<Vec<GltfNode>, GltfError> {
        let Some(scene) = self.document.default_scene().or_else(|| self.document.scenes().next()) else {
            return Ok(Vec::new());
        };
        let mut out: Vec<GltfNode> = Vec::new();
        let mut seen = HashSet::new();
        let mut stack: Vec<(gltf::Node<'_>, Option<usize>)> = scene.nodes().map(|n| (n, None)).collect();
        stack.reverse();
        while let Some((node, parent)) = stack.pop() {
            if !seen.insert(node.index()) {
                return Err(self.invalid(format!(
                    "node {} appears twice in the scene (the node hierarchy must be a tree)",
                    node.index()
                )));
            }
            let transform = node.transform();
            let columns = transform.clone().matrix();
            let matrix = Matrix4::from_fn(|r, c| f64::from(columns[c][r]));
            let has_matrix = matches!(transform, gltf::scene::Transform::Matrix { .. });
            let (t, r, s) = transform.decomposed();
            let name = node.name().or_else(|| node.mesh().and_then(|m| m.name())).map(str::to_string);
            let here = out.len();
            let (extras, hidden) =
                split_hidden(node.extras().as_ref().and_then(|raw| serde_json::from_str(raw.get()).ok()));
            out.push(GltfNode {
                extras,
                hidden,
                index: node.index(),
                name,
                mesh: node.mesh().map(|m| m.index()),
                skin: node.skin().map(|s| s.index()),
                parent,
                matrix,
                has_matrix,
                translation: t.map(f64::from),
                rotation: r.map(f64::from),
                scale: s.map(f64::from),
            });
            let children: Vec<_> = node.children().collect();
            stack.extend(children.into_iter().rev().map(|c| (c, Some(here))));
        }
        Ok(out)
    }
}
/// Parses glTF bytes into the merged mesh of the default scene.
#[cfg(test)]
fn mesh_from_bytes(bytes: &[u8], base: &Path, glb_name: bool) -> Result<MeshData, String> {
    let (document, buffers, _) = parse_with_buffers(bytes, base, glb_name)?;
    Ok(merged_mesh(&document, &buffers, &mut Vec::new())?.0)
}

/// Every triangle of the default scene, baked into world space, with its
/// surface (none at all is not an error).
fn merged_mesh(
    document: &Document,
    buffers: &[Vec<u8>],
    dataless: &mut Vec<(String, usize)>,
) -> Result<(MeshData, Surface), String> {
    let mut out = (MeshData::default(), Surface::default());
    for (mesh, world, _) in mesh_instances(document)? {
        for primitive in mesh.primitives() {
            let at = format!("mesh {}, primitive {}", mesh.index(), primitive.index());
            if let Some(b) = dataless_buffer(&primitive, buffers) {
                dataless.push((at, b));
                continue;
            }
            append_primitive(&mut out, &primitive, &world, buffers, mesh.weights().unwrap_or(&[]), &mut Vec::new())
                .map_err(|e| format!("{at}: {e}"))?;
        }
    }
    Ok(out)
}

/// A buffer with nothing to read (see `load_buffers` in `parse.rs`) that `primitive`'s
/// attributes or indices have data in. Such a primitive is left out with a
/// warning: the validator accepts the file, and nothing else in it is wrong.
fn dataless_buffer(primitive: &gltf::Primitive<'_>, buffers: &[Vec<u8>]) -> Option<usize> {
    let accessors = primitive.attributes().map(|(_, a)| a).chain(primitive.indices());
    let mut views = Vec::new();
    for a in accessors {
        views.extend(a.view());
        if let Some(sparse) = a.sparse() {
            views.push(sparse.indices().view());
            views.push(sparse.values().view());
        }
    }
    views
        .iter()
        .find(|v| v.length() > 0 && buffers.get(v.buffer().index()).is_some_and(Vec::is_empty))
        .map(|v| v.buffer().index())
}

/// Folds a message onto one line.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A mesh to draw, its world matrix and the node that places it (`None`
/// in a file without scenes, where each mesh is drawn once as it is).
type MeshInstance<'a> = (gltf::Mesh<'a>, Matrix4<f64>, Option<gltf::Node<'a>>);

/// Every mesh to draw, in the default scene's depth-first node order.
fn mesh_instances(document: &Document) -> Result<Vec<MeshInstance<'_>>, String> {
    let Some(scene) = document.default_scene().or_else(|| document.scenes().next()) else {
        return Ok(document.meshes().map(|m| (m, Matrix4::identity(), None)).collect());
    };
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    // Depth first, in document order: the stack holds siblings reversed.
    let mut stack: Vec<(gltf::Node<'_>, Matrix4<f64>)> = scene.nodes().map(|n| (n, Matrix4::identity())).collect();
    stack.reverse();
    while let Some((node, parent)) = stack.pop() {
        if !seen.insert(node.index()) {
            return Err(format!(
                "node {} appears twice in the scene (the node hierarchy must be a tree)",
                node.index()
            ));
        }
        let columns = node.transform().matrix();
        let local = Matrix4::from_fn(|r, c| f64::from(columns[c][r]));
        let world = parent * local;
        if !world.iter().all(|x| x.is_finite()) {
            return Err(format!("node {}: non-finite transform", node.index()));
        }
        if let Some(mesh) = node.mesh() {
            out.push((mesh, world, Some(node.clone())));
        }
        let children: Vec<_> = node.children().collect();
        stack.extend(children.into_iter().rev().map(|c| (c, world)));
    }
    Ok(out)
}

mod accessor;
mod animation;
mod check;
mod draco;
pub mod export;
mod lenient;
mod materials;
mod meshopt;
mod morph;
mod parse;
mod primitive;
mod skin;

#[cfg(test)]
mod tests;
