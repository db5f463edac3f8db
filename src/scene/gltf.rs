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
//! (`gltf_skin.rs`) and ignored in the merged mesh.
//!
//! The `gltf` crate parses and validates the JSON; buffers and accessors are
//! read here with every offset, stride, count and index checked, so a corrupt
//! or hostile file gives a one-line [`GltfError`] naming it and never a
//! panic or an unbounded allocation. (The helpers below describe a problem
//! as text; [`load_gltf`] files it under the kind of failure and the path.)

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};
use gltf::{Accessor, Document};
use nalgebra::{Matrix3, Matrix4, Vector3};

use super::material::{read_looks, Looks, Part, Surface};
use super::MeshData;

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
    /// The file's breaches of the specification (`gltf_check.rs`), logged
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
}

impl GltfFile {
    /// Reads and validates the file and its buffers.
    pub fn read(path: &Path) -> Result<GltfFile, GltfError> {
        let bytes = std::fs::read(path).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => GltfError::Missing { path: path.to_path_buf() },
            _ => GltfError::Read { path: path.to_path_buf(), source },
        })?;
        GltfFile::from_bytes(path, &bytes)
    }

    /// Parses the content `bytes` of the file at `path` (buffer files are
    /// read beside it).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<GltfFile, GltfError> {
        let base = path.parent().unwrap_or(Path::new("."));
        let glb_name = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb"));
        let (document, buffers) = parse_with_buffers(bytes, base, glb_name)
            .map_err(|m| GltfError::Invalid { path: path.to_path_buf(), problem: one_line(&m) })?;
        let lines = document
            .meshes()
            .flat_map(|m| m.primitives())
            .filter(|p| matches!(p.mode(), Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip))
            .count();
        if lines > 0 {
            log::warn!("{}: {lines} point or line primitive(s) left out (only triangles are drawn)", path.display());
        }
        let problems = check::file_problems(bytes, base, &document, &buffers);
        Ok(GltfFile { path: path.to_path_buf(), document, buffers, problems, warned: AtomicBool::new(false) })
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
        read_looks(&self.document, &self.buffers, self.path.parent().unwrap_or(Path::new("")), &self.path)
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
        self.mesh_visiting(n, |_, _| Ok(()))
    }

    /// [`GltfFile::mesh_with_surface`], calling `visit` after each primitive
    /// is appended with the primitive and, per vertex it appended, the index
    /// of the primitive's vertex it came from (a skin reads its weights so).
    fn mesh_visiting(
        &self,
        n: usize,
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
            let weights = mesh.weights().unwrap_or(&[]);
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
            out.push(GltfNode {
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

/// Parses glTF bytes into the document and its buffers; relative buffer
/// URIs resolve against `base`.
fn parse_with_buffers(bytes: &[u8], base: &Path, glb_name: bool) -> Result<(Document, Vec<Vec<u8>>), String> {
    let bytes = check_glb_header(bytes, glb_name)?;
    let gltf::Gltf { document, blob } = parse(bytes)?;
    let version = &document.as_json().asset.version;
    if !version.starts_with("2.") {
        return Err(format!("unsupported glTF version \"{version}\" (only 2.x is supported)"));
    }
    let buffers = load_buffers(&document, blob.as_deref(), base)?;
    Ok((document, buffers))
}

/// Parses glTF bytes into the merged mesh of the default scene.
#[cfg(test)]
fn mesh_from_bytes(bytes: &[u8], base: &Path, glb_name: bool) -> Result<MeshData, String> {
    let (document, buffers) = parse_with_buffers(bytes, base, glb_name)?;
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
    for (mesh, world) in mesh_instances(document)? {
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

/// A buffer with nothing to read (see [`load_buffers`]) that `primitive`'s
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

/// Rejects malformed GLB headers up front (the `gltf` crate would underflow
/// on some) and trims the data to the length the header declares.
fn check_glb_header(bytes: &[u8], glb_name: bool) -> Result<&[u8], String> {
    if !bytes.starts_with(b"glTF") {
        if glb_name {
            return Err("not a glTF file: no GLB header".into());
        }
        return Ok(bytes);
    }
    let word = |at: usize| bytes.get(at..at + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    let (Some(version), Some(length)) = (word(4), word(8)) else {
        return Err("not a glTF file: truncated GLB header".into());
    };
    if version != 2 {
        return Err(format!("unsupported GLB version {version}"));
    }
    let length = usize::try_from(length).unwrap_or(usize::MAX);
    // Header (12 bytes) plus at least one chunk header (8 bytes).
    if length < 20 {
        return Err(format!("not a glTF file: bad GLB length {length}"));
    }
    bytes
        .get(..length)
        .ok_or_else(|| format!("truncated GLB: the header says {length} bytes, the file has {}", bytes.len()))
}

/// Parses and validates the document. Validation is what makes the `gltf`
/// crate's accessors (which unwrap indices and enums) safe to call; what
/// it lets through, and the JSON shapes it repairs, are in `gltf_lenient`.
fn parse(bytes: &[u8]) -> Result<gltf::Gltf, String> {
    use gltf::json::validation::{Checked, Error};
    let parsed = super::gltf_lenient::from_slice_without_validation(bytes).map_err(|e| match e {
        gltf::Error::Binary(e) => format!("not a glTF file: bad GLB: {e}"),
        other => format!("not a glTF file: {other}"),
    })?;
    let root = parsed.document.as_json();
    // gltf-json's own check of POSITION's min/max indexes the accessor list
    // unchecked: catch a dangling POSITION index before it does.
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let position = primitive.attributes.get(&Checked::Valid(gltf::json::mesh::Semantic::Positions));
            if position.is_some_and(|a| a.value() >= root.accessors.len()) {
                return Err(format!(
                    "invalid glTF: meshes[{m}].primitives[{p}].attributes[\"POSITION\"]: {}",
                    Error::IndexOutOfBounds
                ));
            }
        }
    }
    let errors = super::gltf_lenient::validate(root);
    match errors.as_slice() {
        [] => Ok(parsed),
        [first, ..] if errors.len() == 1 => Err(format!("invalid glTF: {first}")),
        [first, ..] => Err(format!("invalid glTF: {first} (and {} more problems)", errors.len() - 1)),
    }
}

/// Folds a message onto one line.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The bytes of every buffer, in document order.
///
/// A buffer whose file is missing or shorter than declared is an error at
/// once (`assets.md`). A buffer with nothing to read (a GLB placeholder
/// without a URI beyond the first, a `.gltf` buffer without a URI, or a
/// remote URL) is left empty: legal when nothing uses it, and any view that
/// does use it fails when read, naming the buffer.
fn load_buffers(document: &Document, blob: Option<&[u8]>, base: &Path) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    for buffer in document.buffers() {
        let i = buffer.index();
        let data = match buffer.source() {
            // Only the first buffer may be the GLB binary chunk.
            gltf::buffer::Source::Bin => match blob {
                Some(blob) if i == 0 => blob.to_vec(),
                _ => {
                    out.push(Vec::new());
                    continue;
                }
            },
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                let bad = |e: String| format!("buffer {i}: bad data URI: {e}");
                match uri.split_once(',') {
                    // The crate decodes base64 payloads.
                    Some((header, _)) if header.ends_with(";base64") => {
                        gltf::buffer::Data::from_source(buffer.source(), None).map_err(|e| bad(e.to_string()))?.0
                    }
                    Some((_, text)) => percent_decode_bytes(text).ok_or_else(|| bad("a malformed % escape".into()))?,
                    None => return Err(bad("no comma".into())),
                }
            }
            gltf::buffer::Source::Uri(uri) if uri.contains(':') => {
                out.push(Vec::new());
                continue;
            }
            gltf::buffer::Source::Uri(uri) => {
                let name = percent_decode(uri).ok_or_else(|| format!("buffer {i}: bad URI \"{}\"", shorten(uri)))?;
                std::fs::read(base.join(&name)).map_err(|e| match e.kind() {
                    std::io::ErrorKind::NotFound => format!("buffer {i} (\"{name}\") is missing"),
                    _ => format!("buffer {i} (\"{name}\"): cannot read: {e}"),
                })?
            }
        };
        if data.len() < buffer.length() {
            return Err(format!("buffer {i} has {} bytes, the file declares {}", data.len(), buffer.length()));
        }
        out.push(data);
    }
    Ok(out)
}

fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s.to_string(),
    }
}

/// Decodes `%XX` escapes of a relative URI; `None` where malformed.
pub(super) fn percent_decode(s: &str) -> Option<String> {
    String::from_utf8(percent_decode_bytes(s)?).ok()
}

/// The bytes `%XX` escapes stand for, others as they are; `None` where an
/// escape is malformed.
fn percent_decode_bytes(s: &str) -> Option<Vec<u8>> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Some(out)
}

/// Every mesh to draw with its world matrix.
fn mesh_instances(document: &Document) -> Result<Vec<(gltf::Mesh<'_>, Matrix4<f64>)>, String> {
    let Some(scene) = document.default_scene().or_else(|| document.scenes().next()) else {
        return Ok(document.meshes().map(|m| (m, Matrix4::identity())).collect());
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
            out.push((mesh, world));
        }
        let children: Vec<_> = node.children().collect();
        stack.extend(children.into_iter().rev().map(|c| (c, world)));
    }
    Ok(out)
}

/// Appends one primitive, transformed by `world`, to the mesh and its
/// surface (UVs of the set the material's base-colour texture reads,
/// `COLOR_0`, one part with the primitive's material); skips non-triangle
/// ones.
fn append_primitive(
    (out, surface): &mut (MeshData, Surface),
    primitive: &gltf::Primitive<'_>,
    world: &Matrix4<f64>,
    buffers: &[Vec<u8>],
    weights: &[f32],
    sources: &mut Vec<u32>,
) -> Result<(), String> {
    if matches!(primitive.mode(), Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip) {
        return Ok(());
    }
    // A primitive without positions draws nothing (the specification says to skip it).
    let Some(position_accessor) = primitive.get(&Semantic::Positions) else { return Ok(()) };
    let mut positions = read_vec3(&position_accessor, buffers, "POSITION")?;
    let count = positions.len();
    let same_count = |a: &Accessor<'_>, n: usize, what: &str| {
        if n == count {
            Ok(())
        } else {
            Err(format!("accessor {}: {what} has {n} values for {count} positions", a.index()))
        }
    };
    let mut normals = match primitive.get(&Semantic::Normals) {
        Some(a) => {
            let normals = read_vec3(&a, buffers, "NORMAL")?;
            same_count(&a, normals.len(), "NORMAL")?;
            Some(normals)
        }
        None => None,
    };
    morph(primitive, weights, buffers, &mut positions, normals.as_mut())?;
    let material = primitive.material();
    let uv_set = material.pbr_metallic_roughness().base_color_texture().map(|t| t.tex_coord());
    // What only changes the look is never an error: a TEXCOORD or COLOR_0
    // that cannot be read is a warning, and the defaults are drawn.
    let attribute = |semantic: Semantic, what: &str, dimensions: &[Dimensions]| -> Option<Vec<[f32; 4]>> {
        let a = primitive.get(&semantic)?;
        match read_floats(&a, buffers, what, dimensions).and_then(|v| same_count(&a, v.len(), what).map(|()| v)) {
            Ok(v) => Some(v),
            Err(e) => {
                log::warn!("{e}; drawn without it");
                None
            }
        }
    };
    let uvs = match uv_set
        .and_then(|set| attribute(Semantic::TexCoords(set), &format!("TEXCOORD_{set}"), &[Dimensions::Vec2]))
    {
        Some(uvs) => uvs.into_iter().map(|c| [c[0], c[1]]).collect(),
        None => vec![[0.0; 2]; positions.len()],
    };
    let colors = match attribute(Semantic::Colors(0), "COLOR_0", &[Dimensions::Vec3, Dimensions::Vec4]) {
        Some(rgba) => {
            let opaque = primitive.get(&Semantic::Colors(0)).is_some_and(|a| a.dimensions() == Dimensions::Vec3);
            rgba.into_iter().map(|c| if opaque { [c[0], c[1], c[2], 1.0] } else { c }).collect()
        }
        None => vec![[1.0; 4]; positions.len()],
    };
    let vertex_indices = match primitive.indices() {
        Some(a) => {
            let indices = read_indices(&a, buffers)?;
            if let Some(bad) = indices.iter().find(|&&i| i as usize >= positions.len()) {
                return Err(format!(
                    "accessor {}: index {bad} is out of range ({} vertices)",
                    a.index(),
                    positions.len()
                ));
            }
            indices
        }
        None => {
            let count = u32::try_from(positions.len()).map_err(|_| "too many vertices".to_string())?;
            (0..count).collect()
        }
    };
    let mut triangles = assemble(primitive.mode(), &vertex_indices);

    let linear: Matrix3<f64> = world.fixed_view::<3, 3>(0, 0).into_owned();
    let translation: Vector3<f64> = world.fixed_view::<3, 1>(0, 3).into_owned();
    let mirrored = linear.determinant() < 0.0;
    if mirrored {
        for t in &mut triangles {
            t.swap(1, 2);
        }
    }
    let world_positions: Vec<Vector3<f64>> =
        positions.iter().map(|p| linear * Vector3::from(p.map(f64::from)) + translation).collect();
    if world_positions.iter().any(|p| !p.iter().all(|x| x.is_finite() && x.abs() <= f64::from(f32::MAX))) {
        return Err("positions are not finite after the node transform".into());
    }
    let to_f32 = |v: &Vector3<f64>| [v.x as f32, v.y as f32, v.z as f32];

    let base = out.positions.len();
    let first_index = out.indices.len();
    match normals {
        Some(normals) => {
            reserve(out, positions.len(), triangles.len())?;
            // Inverse-transpose up to a positive factor: the cofactor matrix,
            // with the sign of the determinant. Unlike an inverse it exists for
            // singular (flattening) transforms too.
            let cofactor = Matrix3::from_columns(&[
                linear.column(1).cross(&linear.column(2)),
                linear.column(2).cross(&linear.column(0)),
                linear.column(0).cross(&linear.column(1)),
            ]) * if mirrored { -1.0 } else { 1.0 };
            out.positions.extend(world_positions.iter().map(to_f32));
            out.normals.extend(normals.iter().map(|n| {
                let local = Vector3::from(n.map(f64::from));
                to_f32(&unit_or(cofactor * local, unit_or(local, Vector3::y())))
            }));
            surface.uvs.extend_from_slice(&uvs);
            surface.colors.extend_from_slice(&colors);
            sources.extend(0..positions.len() as u32);
            // `base + i` fits in u32: `reserve` capped the vertex total.
            out.indices.extend(triangles.iter().flatten().map(|&i| (base + i as usize) as u32));
        }
        None => {
            // Flat normals: every triangle gets its own three vertices.
            reserve(out, 3 * triangles.len(), triangles.len())?;
            for (k, t) in triangles.iter().enumerate() {
                let [a, b, c] = t.map(|i| world_positions[i as usize]);
                let n = to_f32(&unit_or((b - a).cross(&(c - a)), Vector3::y()));
                for p in [a, b, c] {
                    out.positions.push(to_f32(&p));
                    out.normals.push(n);
                }
                for &i in t {
                    surface.uvs.push(uvs[i as usize]);
                    surface.colors.push(colors[i as usize]);
                    sources.push(i);
                }
                let first = (base + 3 * k) as u32;
                out.indices.extend([first, first + 1, first + 2]);
            }
        }
    }
    surface.push_part(Part {
        first: first_index as u32,
        count: (out.indices.len() - first_index) as u32,
        material: material.index(),
    });
    Ok(())
}

/// Applies the morph targets at `weights` (the mesh's default `weights`,
/// `assets.md`; a missing weight is 0): each target's POSITION and NORMAL
/// displacements, scaled by its weight, are added; normals are
/// renormalised. Targets must have one value per vertex.
fn morph(
    primitive: &gltf::Primitive<'_>,
    weights: &[f32],
    buffers: &[Vec<u8>],
    positions: &mut [[f32; 3]],
    mut normals: Option<&mut Vec<[f32; 3]>>,
) -> Result<(), String> {
    let mut moved_normals = false;
    for (k, target) in primitive.morph_targets().enumerate() {
        let w = weights.get(k).copied().unwrap_or(0.0);
        if w == 0.0 || !w.is_finite() {
            continue;
        }
        let add = |accessor: Option<Accessor<'_>>, what: &str, into: &mut [[f32; 3]]| -> Result<bool, String> {
            let Some(a) = accessor else { return Ok(false) };
            let d = read_vec3(&a, buffers, what)?;
            if d.len() != into.len() {
                return Err(format!(
                    "accessor {}: morph target {k} has {} values for {} vertices",
                    a.index(),
                    d.len(),
                    into.len()
                ));
            }
            for (v, d) in into.iter_mut().zip(&d) {
                for c in 0..3 {
                    v[c] += w * d[c];
                }
            }
            Ok(true)
        };
        add(target.positions(), "morph POSITION", positions)?;
        if let Some(n) = normals.as_deref_mut() {
            moved_normals |= add(target.normals(), "morph NORMAL", n)?;
        }
    }
    if let (true, Some(n)) = (moved_normals, normals) {
        for v in n.iter_mut() {
            let u = unit_or(Vector3::from(v.map(f64::from)), Vector3::y());
            *v = [u.x as f32, u.y as f32, u.z as f32];
        }
    }
    if positions.iter().flatten().any(|x| !x.is_finite()) {
        return Err("morphed positions are not finite".into());
    }
    Ok(())
}

/// A float attribute of one of the `dimensions` (at most 4 components;
/// missing ones are 0): 32-bit floats, which must be finite, or the integer
/// forms `KHR_mesh_quantization` allows (bytes and shorts, signed or not,
/// normalised by the glTF rule `max(c / MAX, -1)` or taken as they are).
fn read_floats(
    accessor: &Accessor<'_>,
    buffers: &[Vec<u8>],
    what: &str,
    dimensions: &[Dimensions],
) -> Result<Vec<[f32; 4]>, String> {
    let i = accessor.index();
    let dims = accessor.dimensions();
    if !dimensions.contains(&dims) {
        return Err(format!("accessor {i}: {what} has the wrong type {dims:?}"));
    }
    let n = dims.multiplicity().min(4);
    let normalized = accessor.normalized();
    let scale = |max: f32| if normalized { 1.0 / max } else { 1.0 };
    let floor = if normalized { -1.0 } else { f32::MIN };
    let values = match accessor.data_type() {
        DataType::F32 => read_accessor(accessor, buffers, 4 * n, |b| {
            std::array::from_fn(|k| {
                if k < n {
                    f32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
                } else {
                    0.0
                }
            })
        })?,
        DataType::U8 => read_accessor(accessor, buffers, n, |b| {
            std::array::from_fn(|k| if k < n { f32::from(b[k]) * scale(255.0) } else { 0.0 })
        })?,
        DataType::I8 => read_accessor(accessor, buffers, n, |b| {
            std::array::from_fn(|k| if k < n { (f32::from(b[k] as i8) * scale(127.0)).max(floor) } else { 0.0 })
        })?,
        DataType::U16 => read_accessor(accessor, buffers, 2 * n, |b| {
            std::array::from_fn(|k| {
                if k < n {
                    f32::from(u16::from_le_bytes([b[2 * k], b[2 * k + 1]])) * scale(65535.0)
                } else {
                    0.0
                }
            })
        })?,
        DataType::I16 => read_accessor(accessor, buffers, 2 * n, |b| {
            std::array::from_fn(|k| {
                if k < n {
                    (f32::from(i16::from_le_bytes([b[2 * k], b[2 * k + 1]])) * scale(32767.0)).max(floor)
                } else {
                    0.0
                }
            })
        })?,
        DataType::U32 => return Err(format!("accessor {i}: {what} cannot be 32-bit integers")),
    };
    if values.iter().flatten().any(|x| !x.is_finite()) {
        return Err(format!("accessor {i}: {what} has a non-finite value"));
    }
    Ok(values)
}

/// Checks the size limits before `vertices` vertices and `triangles`
/// triangles are appended.
fn reserve(out: &mut MeshData, vertices: usize, triangles: usize) -> Result<(), String> {
    let too_big = || format!("too large: more than {MAX_VERTICES} vertices or {} triangles", MAX_INDICES / 3);
    let total_vertices = out.positions.len().checked_add(vertices).ok_or_else(too_big)?;
    let total_indices = triangles.checked_mul(3).and_then(|n| n.checked_add(out.indices.len())).ok_or_else(too_big)?;
    if total_vertices > MAX_VERTICES || total_indices > MAX_INDICES {
        return Err(too_big());
    }
    out.positions.reserve(vertices);
    out.normals.reserve(vertices);
    out.indices.reserve(3 * triangles);
    Ok(())
}

/// `v` normalised, or `fallback` where `v` has no usable direction.
fn unit_or(v: Vector3<f64>, fallback: Vector3<f64>) -> Vector3<f64> {
    let n = v.norm();
    if n > 1e-30 && n.is_finite() {
        v / n
    } else {
        fallback
    }
}

/// Triangle list from the vertex sequence of a triangle-list, strip or fan
/// primitive (glTF 2.0 section 3.7.2.1); an incomplete trailing triangle is
/// dropped.
fn assemble(mode: Mode, v: &[u32]) -> Vec<[u32; 3]> {
    match mode {
        Mode::Triangles => v.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        Mode::TriangleStrip => v
            .windows(3)
            .enumerate()
            .map(|(i, w)| if i % 2 == 0 { [w[0], w[1], w[2]] } else { [w[0], w[2], w[1]] })
            .collect(),
        Mode::TriangleFan => match v.split_first() {
            Some((&hub, rest)) => rest.windows(2).map(|w| [w[0], w[1], hub]).collect(),
            None => Vec::new(),
        },
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip => Vec::new(),
    }
}

/// A `VEC3` attribute as floats ([`read_floats`]: 32-bit floats or the
/// quantized forms).
fn read_vec3(accessor: &Accessor<'_>, buffers: &[Vec<u8>], what: &str) -> Result<Vec<[f32; 3]>, String> {
    if accessor.dimensions() != Dimensions::Vec3 {
        return Err(format!("accessor {}: {what} must be VEC3", accessor.index()));
    }
    Ok(read_floats(accessor, buffers, what, &[Dimensions::Vec3])?.into_iter().map(|v| [v[0], v[1], v[2]]).collect())
}

/// A `SCALAR` unsigned-integer index accessor, widened to u32.
fn read_indices(accessor: &Accessor<'_>, buffers: &[Vec<u8>]) -> Result<Vec<u32>, String> {
    if accessor.dimensions() != Dimensions::Scalar {
        return Err(format!("accessor {}: indices must be SCALAR", accessor.index()));
    }
    match accessor.data_type() {
        DataType::U8 => read_accessor(accessor, buffers, 1, |b| u32::from(b[0])),
        DataType::U16 => read_accessor(accessor, buffers, 2, |b| u32::from(u16::from_le_bytes([b[0], b[1]]))),
        DataType::U32 => read_accessor(accessor, buffers, 4, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        _ => Err(format!("accessor {}: indices must be unsigned bytes, shorts or ints", accessor.index())),
    }
}

/// The elements of `accessor` (each `size` bytes, decoded by `decode`, which
/// is always given exactly `size` bytes), with sparse substitutions applied.
fn read_accessor<T: Copy + Default>(
    accessor: &Accessor<'_>,
    buffers: &[Vec<u8>],
    size: usize,
    decode: impl Fn(&[u8]) -> T,
) -> Result<Vec<T>, String> {
    let i = accessor.index();
    let count = accessor.count();
    let mut values = match accessor.view() {
        Some(view) => {
            let bytes = view_bytes(&view, buffers)?;
            let stride = view.stride().unwrap_or(size);
            if stride < size {
                return Err(format!("buffer view {}: stride {stride} is smaller than an element", view.index()));
            }
            strided(bytes, accessor.offset(), count, stride, size)
                .ok_or_else(|| format!("accessor {i} runs past the end of buffer view {}", view.index()))?
                .map(&decode)
                .collect()
        }
        None => {
            // All zeros (sparse values follow); nothing in the file bounds the
            // count, so cap it.
            if count > MAX_VERTICES {
                return Err(format!("accessor {i}: count {count} is too large"));
            }
            vec![T::default(); count]
        }
    };
    if let Some(sparse) = accessor.sparse() {
        let n = sparse.count();
        let indices = sparse.indices();
        let index_view = indices.view();
        let index_size = indices.index_type().size();
        let index_bytes = view_bytes(&index_view, buffers)?;
        let targets: Vec<usize> = strided(index_bytes, indices.offset(), n, index_size, index_size)
            .ok_or_else(|| {
                format!("accessor {i}: sparse indices run past the end of buffer view {}", index_view.index())
            })?
            .map(|b| b.iter().rev().fold(0usize, |acc, &byte| acc << 8 | usize::from(byte)))
            .collect();
        let value_view = sparse.values().view();
        let value_bytes = view_bytes(&value_view, buffers)?;
        let replacements = strided(value_bytes, sparse.values().offset(), n, size, size).ok_or_else(|| {
            format!("accessor {i}: sparse values run past the end of buffer view {}", value_view.index())
        })?;
        for (target, bytes) in targets.into_iter().zip(replacements) {
            let slot =
                values.get_mut(target).ok_or_else(|| format!("accessor {i}: sparse index {target} is out of range"))?;
            *slot = decode(bytes);
        }
    }
    Ok(values)
}

/// The bytes of a buffer view.
fn view_bytes<'b>(view: &gltf::buffer::View<'_>, buffers: &'b [Vec<u8>]) -> Result<&'b [u8], String> {
    let buffer = view.buffer().index();
    if buffers.get(buffer).is_some_and(Vec::is_empty) && view.length() > 0 {
        return Err(format!("buffer view {} uses buffer {buffer}, which has no data to read", view.index()));
    }
    view.offset()
        .checked_add(view.length())
        .and_then(|end| buffers.get(buffer)?.get(view.offset()..end))
        .ok_or_else(|| format!("buffer view {} runs past the end of buffer {buffer}", view.index()))
}

/// `count` elements of `size` bytes, `stride` apart, starting at `offset`;
/// `None` where they do not fit in `bytes`.
fn strided(
    bytes: &[u8],
    offset: usize,
    count: usize,
    stride: usize,
    size: usize,
) -> Option<impl Iterator<Item = &[u8]>> {
    let len = match count {
        0 => 0,
        n => stride.checked_mul(n - 1)?.checked_add(size)?,
    };
    let data = bytes.get(offset..offset.checked_add(len)?)?;
    Some(data.chunks(stride).map(move |c| &c[..size]))
}

#[path = "gltf_check.rs"]
mod check;
#[path = "gltf_check_data.rs"]
mod check_data;
#[path = "gltf_check_image.rs"]
mod check_image;
#[path = "gltf_check_mesh.rs"]
mod check_mesh;
#[path = "gltf_check_more.rs"]
mod check_more;
#[path = "gltf_check_refs.rs"]
mod check_refs;
#[path = "gltf_skin.rs"]
mod skin;

#[cfg(test)]
#[path = "gltf_check_tests.rs"]
mod check_tests;
#[cfg(test)]
#[path = "gltf_tests.rs"]
mod tests;
