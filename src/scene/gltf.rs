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
//! points and lines are skipped. Materials, textures, skins and morph targets
//! are ignored.
//!
//! The `gltf` crate parses and validates the JSON; buffers and accessors are
//! read here with every offset, stride, count and index checked, so a corrupt
//! or hostile file gives a one-line [`GltfError`] naming it and never a
//! panic or an unbounded allocation. (The helpers below describe a problem
//! as text; [`load_gltf`] files it under the kind of failure and the path.)

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};
use gltf::{Accessor, Document};
use nalgebra::{Matrix3, Matrix4, Vector3};

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
    let bytes = std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => GltfError::Missing { path: path.to_path_buf() },
        _ => GltfError::Read { path: path.to_path_buf(), source },
    })?;
    let base = path.parent().unwrap_or(Path::new("."));
    let glb_name = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    mesh_from_bytes(&bytes, base, glb_name)
        .map_err(|m| GltfError::Invalid { path: path.to_path_buf(), problem: one_line(&m) })
}

/// Parses glTF bytes; relative buffer URIs resolve against `base`.
fn mesh_from_bytes(bytes: &[u8], base: &Path, glb_name: bool) -> Result<MeshData, String> {
    let bytes = check_glb_header(bytes, glb_name)?;
    let gltf::Gltf { document, blob } = parse(bytes)?;
    let version = &document.as_json().asset.version;
    if !version.starts_with("2.") {
        return Err(format!("unsupported glTF version \"{version}\" (only 2.x is supported)"));
    }
    let buffers = load_buffers(&document, blob.as_deref(), base)?;
    let mut out = MeshData::default();
    for (mesh, world) in mesh_instances(&document)? {
        for primitive in mesh.primitives() {
            append_primitive(&mut out, &primitive, &world, &buffers)
                .map_err(|e| format!("mesh {}, primitive {}: {e}", mesh.index(), primitive.index()))?;
        }
    }
    if out.indices.is_empty() {
        return Err("no triangles to draw (the scene has no triangle meshes)".into());
    }
    Ok(out)
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
/// crate's accessors (which unwrap indices and enums) safe to call; the one
/// rule let through is the `min`/`max` that POSITION accessors must carry,
/// which exporters often leave out and this loader does not use.
fn parse(bytes: &[u8]) -> Result<gltf::Gltf, String> {
    use gltf::json::validation::{Checked, Error, Validate};
    let parsed = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| match e {
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
    let mut errors = Vec::new();
    root.validate(root, gltf::json::Path::new, &mut |path, error| {
        let path = path();
        let bounds = path.as_str().ends_with(".min") || path.as_str().ends_with(".max");
        if !(bounds && matches!(error, Error::Missing)) {
            errors.push(format!("{path}: {error}"));
        }
    });
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
fn load_buffers(document: &Document, blob: Option<&[u8]>, base: &Path) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    for buffer in document.buffers() {
        let i = buffer.index();
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => {
                blob.ok_or_else(|| format!("buffer {i} refers to a GLB binary chunk the file does not have"))?.to_vec()
            }
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                gltf::buffer::Data::from_source(buffer.source(), None)
                    .map_err(|e| format!("buffer {i}: bad data URI: {e}"))?
                    .0
            }
            gltf::buffer::Source::Uri(uri) if uri.contains(':') => {
                return Err(format!("buffer {i}: unsupported URI \"{}\"", shorten(uri)));
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
fn percent_decode(s: &str) -> Option<String> {
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
    String::from_utf8(out).ok()
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

/// Appends one primitive, transformed by `world`; skips non-triangle ones.
fn append_primitive(
    out: &mut MeshData,
    primitive: &gltf::Primitive<'_>,
    world: &Matrix4<f64>,
    buffers: &[Vec<u8>],
) -> Result<(), String> {
    if matches!(primitive.mode(), Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip) {
        return Ok(());
    }
    // A primitive without positions draws nothing (the specification says to skip it).
    let Some(position_accessor) = primitive.get(&Semantic::Positions) else { return Ok(()) };
    let positions = read_vec3(&position_accessor, buffers, "POSITION")?;
    let normals = match primitive.get(&Semantic::Normals) {
        Some(a) => {
            let normals = read_vec3(&a, buffers, "NORMAL")?;
            if normals.len() != positions.len() {
                return Err(format!(
                    "accessor {}: NORMAL has {} values for {} positions",
                    a.index(),
                    normals.len(),
                    positions.len()
                ));
            }
            Some(normals)
        }
        None => None,
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
                let first = (base + 3 * k) as u32;
                out.indices.extend([first, first + 1, first + 2]);
            }
        }
    }
    Ok(())
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

/// A `VEC3` float attribute; every value must be finite.
fn read_vec3(accessor: &Accessor<'_>, buffers: &[Vec<u8>], what: &str) -> Result<Vec<[f32; 3]>, String> {
    let i = accessor.index();
    if accessor.dimensions() != Dimensions::Vec3 || accessor.data_type() != DataType::F32 {
        return Err(format!("accessor {i}: {what} must be VEC3 of 32-bit floats"));
    }
    let values = read_accessor(accessor, buffers, 12, |b| {
        let f = |k: usize| f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]);
        [f(0), f(4), f(8)]
    })?;
    if values.iter().flatten().any(|x| !x.is_finite()) {
        return Err(format!("accessor {i}: {what} has a non-finite value"));
    }
    Ok(values)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/arrow.gltf");

    /// A glTF document under construction: binary data, buffer views and
    /// accessors; `json` wraps them with nodes and meshes.
    #[derive(Default)]
    struct Doc {
        bin: Vec<u8>,
        views: Vec<String>,
        accessors: Vec<String>,
    }

    impl Doc {
        fn view(&mut self, bytes: &[u8]) -> usize {
            while self.bin.len() % 4 != 0 {
                self.bin.push(0);
            }
            self.views.push(format!(r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#, self.bin.len(), bytes.len()));
            self.bin.extend_from_slice(bytes);
            self.views.len() - 1
        }

        fn accessor(&mut self, json: String) -> usize {
            self.accessors.push(json);
            self.accessors.len() - 1
        }

        fn vec3(&mut self, values: &[[f32; 3]]) -> usize {
            let bytes: Vec<u8> = values.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
            let view = self.view(&bytes);
            self.accessor(format!(
                r#"{{"bufferView":{view},"componentType":5126,"count":{},"type":"VEC3"}}"#,
                values.len()
            ))
        }

        fn indices(&mut self, values: &[u16]) -> usize {
            let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
            let view = self.view(&bytes);
            self.accessor(format!(
                r#"{{"bufferView":{view},"componentType":5123,"count":{},"type":"SCALAR"}}"#,
                values.len()
            ))
        }

        /// The document with scene 0 rooted at node 0; `uri` is the buffer's
        /// (none for a GLB's binary chunk).
        fn json(&self, nodes: &str, meshes: &str, uri: Option<&str>) -> String {
            let uri = uri.map(|u| format!(r#","uri":"{u}""#)).unwrap_or_default();
            format!(
                r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":{nodes},"meshes":{meshes},"accessors":[{}],"bufferViews":[{}],"buffers":[{{"byteLength":{}{uri}}}]}}"#,
                self.accessors.join(","),
                self.views.join(","),
                self.bin.len()
            )
        }

        /// Writes `<name>.gltf` with its buffer in `<name>.bin` beside it.
        fn write(&self, dir: &Path, name: &str, nodes: &str, meshes: &str) -> PathBuf {
            let bin = format!("{name}.bin");
            std::fs::write(dir.join(&bin), &self.bin).unwrap();
            let path = dir.join(format!("{name}.gltf"));
            std::fs::write(&path, self.json(nodes, meshes, Some(&bin))).unwrap();
            path
        }

        /// The document as GLB bytes, its buffer in the binary chunk.
        fn glb(&self, nodes: &str, meshes: &str) -> Vec<u8> {
            glb(self.json(nodes, meshes, None).as_bytes(), &self.bin)
        }
    }

    fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
        let padded = |bytes: &[u8], fill: u8| {
            let mut v = bytes.to_vec();
            while v.len() % 4 != 0 {
                v.push(fill);
            }
            v
        };
        let (json, bin) = (padded(json, b' '), padded(bin, 0));
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        for (chunk, kind) in [(&json, b"JSON"), (&bin, b"BIN\0")] {
            out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
            out.extend_from_slice(kind);
            out.extend_from_slice(chunk);
        }
        out
    }

    const ONE_MESH: &str = r#"[{"mesh":0}]"#;

    /// A triangle in the XY plane, counter-clockwise seen from +Z.
    const TRIANGLE: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

    fn mesh(attributes: &str, extra: &str) -> String {
        format!(r#"[{{"primitives":[{{"attributes":{{{attributes}}}{extra}}}]}}]"#)
    }

    fn load_doc(doc: &Doc, nodes: &str, meshes: &str) -> Result<MeshData, String> {
        let dir = tempfile::tempdir().unwrap();
        load_gltf(&doc.write(dir.path(), "m", nodes, meshes)).map_err(|e| e.to_string())
    }

    fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    }

    fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    }

    fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    fn assert_near(a: [f32; 3], b: [f32; 3]) {
        assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-5), "{a:?} != {b:?}");
    }

    /// Every normal is unit length and every triangle's counter-clockwise
    /// face normal agrees with its vertex normals.
    fn assert_consistent(m: &MeshData) {
        assert_eq!(m.positions.len(), m.normals.len());
        assert_eq!(m.indices.len() % 3, 0);
        for n in &m.normals {
            assert!((dot(*n, *n).sqrt() - 1.0).abs() < 1e-5, "normal {n:?} is not unit");
        }
        for t in m.indices.chunks(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| m.positions[i as usize]);
            let face = cross(sub(b, a), sub(c, a));
            for &i in t {
                assert!(dot(face, m.normals[i as usize]) > 0.0, "triangle {t:?} winds against its normals");
            }
        }
    }

    #[test]
    fn sample_arrow_has_the_expected_shape() {
        let m = load_gltf(Path::new(SAMPLE)).unwrap();
        // Document order: the shaft (node 1) comes before the head (node 2).
        assert!(m.positions[..36].iter().all(|p| p[1] <= 0.25 + 1e-6), "shaft first");
        // Shaft: an indexed 12-triangle cube without normals, unwelded for
        // flat normals (36 vertices). Head: a non-indexed tetrahedron with
        // normals (12 vertices, 4 triangles).
        assert_eq!(m.positions.len(), 48);
        assert_eq!(m.indices.len(), 3 * 16);
        assert_consistent(&m);
        // Root (0, -0.75, 0) over: shaft T(0, 0.5, 0) S(0.2, 1, 0.2) of the
        // unit cube -> x, z in [-0.1, 0.1], y in [0, 1]; head T(0, 1, 0)
        // R(+90 deg about Z) S(0.5, 0.4, 0.4) of the tetrahedron with apex
        // (1, 0, 0) and base (0, 1, 0), (0, -0.5, +-sqrt(3)/2) -> apex
        // (0, 1.5, 0), base (-0.4, 1, 0), (0.2, 1, +-0.4 sqrt(3)/2).
        let half_z = 0.4 * 3f32.sqrt() / 2.0;
        let (lo, hi) = m.bounds();
        assert_near(lo, [-0.4, -0.75, -half_z]);
        assert_near(hi, [0.2, 0.75, half_z]);
        assert!(m.positions.iter().any(|&p| sub(p, [0.0, 0.75, 0.0]).iter().all(|d| d.abs() < 1e-5)), "apex");
    }

    #[test]
    fn the_sample_as_glb_loads_the_same() {
        let text = std::fs::read_to_string(SAMPLE).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("arrow.glb");
        std::fs::write(&path, glb(text.as_bytes(), &[])).unwrap();
        assert_eq!(load_gltf(&path).unwrap(), load_gltf(Path::new(SAMPLE)).unwrap());
    }

    #[test]
    fn node_transforms_compose_down_the_hierarchy() {
        let mut doc = Doc::default();
        let p = doc.vec3(&TRIANGLE);
        // Parent translates by (0, 5, 0); the child's column-major matrix
        // scales by 2 and translates by (10, 0, 0).
        let nodes = r#"[{"translation":[0,5,0],"children":[1]},
                        {"mesh":0,"matrix":[2,0,0,0, 0,2,0,0, 0,0,2,0, 10,0,0,1]}]"#;
        let m = load_doc(&doc, nodes, &mesh(&format!(r#""POSITION":{p}"#), "")).unwrap();
        assert_eq!(m.positions, vec![[10.0, 5.0, 0.0], [12.0, 5.0, 0.0], [10.0, 7.0, 0.0]]);
        assert_eq!(m.indices, vec![0, 1, 2], "indices generated for a non-indexed primitive");
        assert_eq!(m.normals, vec![[0.0, 0.0, 1.0]; 3]);
    }

    #[test]
    fn a_mirroring_node_flips_the_winding() {
        let mut doc = Doc::default();
        let p = doc.vec3(&TRIANGLE);
        let n = doc.vec3(&[[0.0, 0.0, 1.0]; 3]);
        let nodes = r#"[{"mesh":0,"scale":[-1,1,1]}]"#;
        let m = load_doc(&doc, nodes, &mesh(&format!(r#""POSITION":{p},"NORMAL":{n}"#), "")).unwrap();
        assert_eq!(m.positions[1], [-1.0, 0.0, 0.0]);
        assert_eq!(m.indices, vec![0, 2, 1]);
        assert_consistent(&m);
    }

    #[test]
    fn normals_go_through_the_inverse_transpose() {
        let mut doc = Doc::default();
        // A triangle in the plane x + y = 1, facing (1, 1, 0).
        let p = doc.vec3(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]);
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let n = doc.vec3(&[[s, s, 0.0]; 3]);
        let nodes = r#"[{"mesh":0,"scale":[2,1,1]}]"#;
        let m = load_doc(&doc, nodes, &mesh(&format!(r#""POSITION":{p},"NORMAL":{n}"#), "")).unwrap();
        // Stretched plane x/2 + y = 1 faces (1, 2, 0) / sqrt(5), not (2, 1, 0).
        let k = 5f32.sqrt().recip();
        for normal in &m.normals {
            assert_near(*normal, [k, 2.0 * k, 0.0]);
        }
        assert_consistent(&m);
    }

    #[test]
    fn primitives_without_normals_get_flat_unit_normals() {
        let mut doc = Doc::default();
        // A unit quad in the XZ plane facing +Y, and a tilted triangle.
        let p = doc.vec3(&[[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0]]);
        let i = doc.indices(&[0, 1, 2, 0, 2, 3]);
        let q = doc.vec3(&[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 3.0, 3.0]]);
        let meshes = format!(
            r#"[{{"primitives":[{{"attributes":{{"POSITION":{p}}},"indices":{i}}},{{"attributes":{{"POSITION":{q}}}}}]}}]"#
        );
        let m = load_doc(&doc, ONE_MESH, &meshes).unwrap();
        assert_eq!(m.positions.len(), 9, "unwelded: three vertices per triangle");
        assert_eq!(m.indices, (0..9).collect::<Vec<u32>>());
        for normal in &m.normals[..6] {
            assert_eq!(*normal, [0.0, 1.0, 0.0]);
        }
        let s = std::f32::consts::FRAC_1_SQRT_2;
        for normal in &m.normals[6..] {
            assert_near(*normal, [0.0, -s, s]);
        }
        assert_consistent(&m);
    }

    #[test]
    fn strips_and_fans_become_triangle_lists() {
        assert_eq!(assemble(Mode::TriangleStrip, &[0, 1, 2, 3]), vec![[0, 1, 2], [1, 3, 2]]);
        assert_eq!(assemble(Mode::TriangleFan, &[0, 1, 2, 3]), vec![[1, 2, 0], [2, 3, 0]]);
        assert_eq!(assemble(Mode::Triangles, &[0, 1, 2, 3]), vec![[0, 1, 2]]);
        assert!(assemble(Mode::TriangleFan, &[]).is_empty());
        assert!(assemble(Mode::TriangleStrip, &[0, 1]).is_empty());
    }

    #[test]
    fn points_and_lines_are_skipped_but_something_must_remain() {
        let mut doc = Doc::default();
        let p = doc.vec3(&TRIANGLE);
        let lines_and_triangles = format!(
            r#"[{{"primitives":[{{"attributes":{{"POSITION":{p}}},"mode":1}},{{"attributes":{{"POSITION":{p}}}}}]}}]"#
        );
        assert_eq!(load_doc(&doc, ONE_MESH, &lines_and_triangles).unwrap().indices.len(), 3);
        let points = mesh(&format!(r#""POSITION":{p}"#), r#","mode":0"#);
        let err = load_doc(&doc, ONE_MESH, &points).unwrap_err();
        assert!(err.contains("no triangles"), "{err}");
    }

    #[test]
    fn sparse_accessors_override_their_base_values() {
        let mut doc = Doc::default();
        let p = doc.vec3(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [9.0, 9.0, 9.0]]);
        let idx = doc.view(&[2, 0]);
        let values = doc.view(&[0.0f32, 1.0, 0.0].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>());
        let sparse = doc.accessor(format!(
            r#"{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","sparse":{{"count":1,
                "indices":{{"bufferView":{idx},"componentType":5121}},"values":{{"bufferView":{values}}}}}}}"#
        ));
        assert_eq!(p, 0);
        let m = load_doc(&doc, ONE_MESH, &mesh(&format!(r#""POSITION":{sparse}"#), "")).unwrap();
        assert_eq!(m.positions, TRIANGLE.to_vec());
    }

    fn assert_error(result: Result<MeshData, GltfError>, path: &Path, needle: &str) {
        let message = result.expect_err("must fail").to_string();
        assert!(message.starts_with(&format!("{}: ", path.display())), "{message}");
        assert!(message.contains(needle), "expected {needle:?} in {message:?}");
        assert!(!message.contains('\n'), "{message:?}");
    }

    #[test]
    fn a_missing_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nowhere.glb");
        let message = load_gltf(&path).unwrap_err().to_string();
        assert_eq!(message, format!("{}: missing file", path.display()));
    }

    #[test]
    fn corrupt_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        };
        let noise: Vec<u8> = (0u32..512).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let text = std::fs::read(SAMPLE).unwrap();
        let header = |version: u32, length: u32| {
            let mut h = b"glTF".to_vec();
            h.extend_from_slice(&version.to_le_bytes());
            h.extend_from_slice(&length.to_le_bytes());
            h.extend_from_slice(&[0; 16]);
            h
        };
        let cases: Vec<(PathBuf, &str)> = vec![
            (write("noise.gltf", &noise), "not a glTF file"),
            (write("noise.glb", &noise), "not a glTF file: no GLB header"),
            (write("empty.gltf", b""), "not a glTF file"),
            (write("half.gltf", &text[..text.len() / 2]), "not a glTF file"),
            (write("json.gltf", br#"{"objects":[]}"#), "not a glTF file"),
            (write("v1.gltf", br#"{"asset":{"version":"1.0"}}"#), "unsupported glTF version"),
            (write("short.glb", b"glTF\x02\0"), "truncated GLB header"),
            (write("version.glb", &header(1, 28)), "unsupported GLB version 1"),
            // A declared length below the header's own size.
            (write("tiny.glb", &header(2, 0)), "bad GLB length 0"),
            (write("long.glb", &header(2, 4096)), "truncated GLB"),
            (write("chunk.glb", &header(2, 28)), "not a glTF file: bad GLB"),
        ];
        for (path, needle) in cases {
            assert_error(load_gltf(&path), &path, needle);
        }
        // Nothing with triangles at all.
        let path = write("empty-scene.gltf", br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}]}"#);
        assert_error(load_gltf(&path), &path, "no triangles");
    }

    #[test]
    fn truncated_and_mutated_files_never_panic() {
        let text = std::fs::read(SAMPLE).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.glb");
        let mut doc = Doc::default();
        let p = doc.vec3(&TRIANGLE);
        let i = doc.indices(&[0, 1, 2]);
        let good = doc.glb(ONE_MESH, &mesh(&format!(r#""POSITION":{p}"#), &format!(r#","indices":{i}"#)));
        assert!(mesh_from_bytes(&good, dir.path(), true).is_ok());
        for cut in (0..good.len()).step_by(3) {
            let _ = mesh_from_bytes(&good[..cut], dir.path(), true);
        }
        for cut in (0..text.len()).step_by(37) {
            let _ = mesh_from_bytes(&text[..cut], dir.path(), false);
        }
        let mut state = 0x9e37_79b9_u32;
        let mut random = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as usize
        };
        // Overwrite bytes all over the GLB (header, JSON, binary chunk).
        for _ in 0..2000 {
            let mut bytes = good.clone();
            for _ in 0..3 {
                let at = random() % bytes.len();
                bytes[at] = random() as u8;
            }
            std::fs::write(&path, &bytes).unwrap();
            if let Err(e) = load_gltf(&path) {
                assert!(!e.to_string().contains('\n'));
            }
        }
        // Change digits of the sample's JSON: valid JSON with wrong counts,
        // offsets, indices, component types and base64 data.
        let digits: Vec<usize> = (0..text.len()).filter(|&i| text[i].is_ascii_digit()).collect();
        for _ in 0..2000 {
            let mut bytes = text.clone();
            for _ in 0..2 {
                bytes[digits[random() % digits.len()]] = b"0123456789"[random() % 10];
            }
            let _ = mesh_from_bytes(&bytes, dir.path(), false);
        }
    }

    #[test]
    fn out_of_range_indices_are_errors() {
        let mut doc = Doc::default();
        let p = doc.vec3(&TRIANGLE);
        let i = doc.indices(&[0, 1, 3]);
        let err = load_doc(&doc, ONE_MESH, &mesh(&format!(r#""POSITION":{p}"#), &format!(r#","indices":{i}"#)));
        let err = err.unwrap_err();
        assert!(err.contains("index 3 is out of range (3 vertices)"), "{err}");
    }

    #[test]
    fn bad_data_is_an_error_not_a_panic() {
        let meshes = |p: usize| mesh(&format!(r#""POSITION":{p}"#), "");
        // A NaN position.
        let mut doc = Doc::default();
        let p = doc.vec3(&[[0.0, f32::NAN, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        let err = load_doc(&doc, ONE_MESH, &meshes(p)).unwrap_err();
        assert!(err.contains("POSITION has a non-finite value"), "{err}");
        // An accessor longer than its buffer view.
        let mut doc = Doc::default();
        let view = doc.view(&[0; 24]);
        let p = doc.accessor(format!(r#"{{"bufferView":{view},"componentType":5126,"count":3,"type":"VEC3"}}"#));
        let err = load_doc(&doc, ONE_MESH, &meshes(p)).unwrap_err();
        assert!(err.contains("runs past the end of buffer view"), "{err}");
        // Positions of the wrong type.
        let mut doc = Doc::default();
        let view = doc.view(&[0; 36]);
        let p = doc.accessor(format!(r#"{{"bufferView":{view},"componentType":5126,"count":3,"type":"VEC4"}}"#));
        let err = load_doc(&doc, ONE_MESH, &meshes(p)).unwrap_err();
        assert!(err.contains("POSITION must be VEC3"), "{err}");
        // A node that is its own grandchild.
        let mut doc = Doc::default();
        let p = doc.vec3(&TRIANGLE);
        let err = load_doc(&doc, r#"[{"children":[1]},{"mesh":0,"children":[0]}]"#, &meshes(p)).unwrap_err();
        assert!(err.contains("appears twice"), "{err}");
    }

    #[test]
    fn a_missing_buffer_file_is_named() {
        let mut doc = Doc::default();
        let p = doc.vec3(&TRIANGLE);
        let dir = tempfile::tempdir().unwrap();
        let path = doc.write(dir.path(), "m", ONE_MESH, &mesh(&format!(r#""POSITION":{p}"#), ""));
        std::fs::remove_file(dir.path().join("m.bin")).unwrap();
        assert_error(load_gltf(&path), &path, r#"buffer 0 ("m.bin") is missing"#);
        // The binary file exists but is shorter than declared.
        std::fs::write(dir.path().join("m.bin"), [0u8; 8]).unwrap();
        assert_error(load_gltf(&path), &path, "buffer 0 has 8 bytes, the file declares 36");
    }

    #[test]
    fn relative_buffer_uris_are_percent_decoded() {
        assert_eq!(percent_decode("my%20mesh.bin").as_deref(), Some("my mesh.bin"));
        assert_eq!(percent_decode("a%2"), None);
        assert_eq!(percent_decode("a%zz"), None);
        assert_eq!(percent_decode("%FF"), None, "not UTF-8");
    }
}
