//! `KHR_draco_mesh_compression`: primitives whose attributes and indices are
//! stored as one Draco-compressed mesh.
//!
//! Such a primitive names, in its extension object, the buffer view that
//! holds the compressed mesh (`bufferView`) and, per glTF attribute it
//! compresses, the Draco attribute's unique id (`attributes`). Its
//! accessors keep their `componentType`, `type`, `count`, `min` and `max`,
//! which describe the decoded data; any `bufferView` they have is an
//! uncompressed fallback for loaders without the extension and is not read.
//!
//! The primitives are decoded once, when the file is read, by the pure-Rust
//! `draco-core` decoder (which also undoes its quantisation and
//! octahedral normal coding), and the file is rewritten to read plain
//! bytes: the decoded data goes into one new buffer appended to the file's
//! buffers, each decoded accessor gets a buffer view of its own there (its
//! `min` / `max` taken from the decoded data, so that they stay true of
//! it), and the extension is removed from the primitives and the
//! extension lists. Accessors, the checks and the export then read plain
//! bytes, as after `EXT_meshopt_compression` (`meshopt.rs`), so export
//! writes the geometry decoded, without the extension.
//!
//! Everything the file says is checked against the decoded mesh (the
//! counts, the ids, the component counts, that each value fits the
//! accessor's component type) and a mismatch is a one-line error. The
//! decoder is given ceilings on what it may produce, and a panic inside it
//! (none is known; this is a backstop) is caught and becomes the same kind
//! of error line.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use draco_core::{DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder, PointAttribute, PointIndex};
use serde_json::{json, Map, Value};

use super::{MAX_INDICES, MAX_VERTICES};

/// The extension's name.
pub(super) const NAME: &str = "KHR_draco_mesh_compression";

/// Most bytes the decoded attributes of all of a file's Draco primitives
/// may take (with [`MAX_VERTICES`] vertices and a third of
/// [`MAX_INDICES`] triangles in all, the file's own limits): a small hostile
/// stream can claim to decode to far more than it holds.
const MAX_DECODED_BYTES: u64 = 1 << 30;

/// What the Draco primitives still to be decoded may produce.
struct Budget {
    points: u64,
    faces: u64,
    bytes: u64,
}

/// glTF component types, by their numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Component {
    I8,
    U8,
    I16,
    U16,
    U32,
    F32,
}

impl Component {
    fn of(code: u64) -> Option<Component> {
        Some(match code {
            5120 => Component::I8,
            5121 => Component::U8,
            5122 => Component::I16,
            5123 => Component::U16,
            5125 => Component::U32,
            5126 => Component::F32,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Component::I8 => "BYTE",
            Component::U8 => "UNSIGNED_BYTE",
            Component::I16 => "SHORT",
            Component::U16 => "UNSIGNED_SHORT",
            Component::U32 => "UNSIGNED_INT",
            Component::F32 => "FLOAT",
        }
    }

    /// The least and greatest value of an integer component type.
    fn range(self) -> Option<(f64, f64)> {
        Some(match self {
            Component::I8 => (-128.0, 127.0),
            Component::U8 => (0.0, 255.0),
            Component::I16 => (-32768.0, 32767.0),
            Component::U16 => (0.0, 65535.0),
            Component::U32 => (0.0, 4_294_967_295.0),
            Component::F32 => return None,
        })
    }

    /// `value` (integral and in range for the integer types) as
    /// little-endian bytes.
    fn push(self, value: f64, out: &mut Vec<u8>) {
        match self {
            Component::I8 => out.push(value as i8 as u8),
            Component::U8 => out.push(value as u8),
            Component::I16 => out.extend((value as i16).to_le_bytes()),
            Component::U16 => out.extend((value as u16).to_le_bytes()),
            Component::U32 => out.extend((value as u32).to_le_bytes()),
            Component::F32 => out.extend((value as f32).to_le_bytes()),
        }
    }
}

/// One accessor's decoded data, in its own component type, tightly packed,
/// with its per-component bounds.
struct Filled {
    accessor: usize,
    bytes: Vec<u8>,
    min: Vec<f64>,
    max: Vec<f64>,
    integer: bool,
}

/// Decodes every Draco primitive of the file whose JSON is `root` (see the
/// module docs): the decoded data is appended to `buffers` as a new buffer
/// and `root` is rewritten to read it. Returns the accessors now read from
/// decoded data (the data checks leave them alone: the file's own data for
/// them is compressed).
pub(super) fn decode_primitives(root: &mut Value, buffers: &mut Vec<Vec<u8>>) -> Result<Vec<usize>, String> {
    let mut filled: Vec<Filled> = Vec::new();
    let mut budget = Budget { points: MAX_VERTICES as u64, faces: (MAX_INDICES / 3) as u64, bytes: MAX_DECODED_BYTES };
    let meshes = root.get("meshes").and_then(Value::as_array);
    for (m, mesh) in meshes.into_iter().flatten().enumerate() {
        let primitives = mesh.get("primitives").and_then(Value::as_array);
        for (p, primitive) in primitives.into_iter().flatten().enumerate() {
            let Some(ext) = primitive.pointer("/extensions/KHR_draco_mesh_compression") else { continue };
            let at = |e: String| format!("mesh {m}, primitive {p}: {NAME}: {e}");
            let decoded = decode_primitive(root, primitive, ext, buffers, &mut budget).map_err(at)?;
            for f in decoded {
                match filled.iter().find(|g| g.accessor == f.accessor) {
                    Some(g) if g.bytes != f.bytes => {
                        return Err(at(format!(
                            "accessor {} is shared with another Draco primitive that decodes it differently",
                            f.accessor
                        )));
                    }
                    Some(_) => {}
                    None => filled.push(f),
                }
            }
        }
    }
    rewrite(root, buffers, &filled);
    Ok(filled.iter().map(|f| f.accessor).collect())
}

/// A non-negative integer member of `object`.
fn index(object: &Value, key: &str) -> Option<usize> {
    object.get(key)?.as_u64().and_then(|n| usize::try_from(n).ok())
}

/// The decoded accessors of one primitive.
fn decode_primitive(
    root: &Value,
    primitive: &Value,
    ext: &Value,
    buffers: &[Vec<u8>],
    budget: &mut Budget,
) -> Result<Vec<Filled>, String> {
    if primitive.get("targets").and_then(Value::as_array).is_some_and(|t| !t.is_empty()) {
        return Err("the extension does not allow morph targets".into());
    }
    match primitive.get("mode").map(Value::as_u64) {
        None | Some(Some(4)) => {}
        Some(Some(5)) => return Err("TRIANGLE_STRIP primitives are not read (only TRIANGLES)".into()),
        Some(_) => return Err("the primitive's mode must be TRIANGLES".into()),
    }
    let compressed = view_bytes(root, ext, buffers)?;
    let mesh = decode_mesh(compressed, budget)?;
    let points = mesh.num_points();
    let accessors = root.get("accessors").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let accessor = |a: usize| accessors.get(a).ok_or_else(|| format!("no accessor {a}"));

    let mut out = Vec::new();
    let attributes = ext.get("attributes").and_then(Value::as_object).ok_or("no attributes object")?;
    for (name, id) in attributes {
        let id =
            id.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| format!("the id of {name} is not an id"))?;
        let a = primitive
            .get("attributes")
            .and_then(|all| all.get(name))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("{name} is not one of the primitive's attributes"))?;
        let values = mesh
            .attribute_by_unique_id(id)
            .ok_or_else(|| format!("{name}: the compressed mesh has no attribute with id {id}"))?;
        let json = accessor(a)?;
        let count = index(json, "count").ok_or_else(|| format!("accessor {a}: no count"))?;
        if count != points {
            return Err(format!("accessor {a} ({name}) has count {count}, the compressed mesh {points} vertices"));
        }
        out.push(fill_attribute(a, json, values, points).map_err(|e| format!("accessor {a} ({name}): {e}"))?);
    }

    let i = index(primitive, "indices").ok_or("the primitive has no indices accessor for the compressed triangles")?;
    let json = accessor(i)?;
    let count = index(json, "count").ok_or_else(|| format!("accessor {i}: no count"))?;
    if !matches!(json.get("componentType").and_then(Value::as_u64), Some(5121 | 5123 | 5125)) {
        return Err(format!("accessor {i} (indices) must be unsigned bytes, shorts or ints"));
    }
    let faces = mesh.faces();
    if count != 3 * faces.len() {
        return Err(format!("accessor {i} (indices) has count {count}, the compressed mesh {} triangles", faces.len()));
    }
    let values = faces.iter().flat_map(|f| f.map(|p| p.0)).map(|v| [f64::from(v), 0.0, 0.0, 0.0]);
    let indices = fill(i, json, 1, values).map_err(|e| format!("accessor {i} (indices): {e}"))?;
    if indices.max.first().is_some_and(|&m| m >= points as f64) {
        return Err(format!("accessor {i} (indices): an index is past the {points} vertices"));
    }
    out.push(indices);
    Ok(out)
}

/// The compressed bytes the extension's `bufferView` names.
fn view_bytes<'b>(root: &Value, ext: &Value, buffers: &'b [Vec<u8>]) -> Result<&'b [u8], String> {
    let v = index(ext, "bufferView").ok_or("no bufferView")?;
    let view = root.get("bufferViews").and_then(|views| views.get(v)).ok_or_else(|| format!("no buffer view {v}"))?;
    let b = index(view, "buffer").ok_or_else(|| format!("buffer view {v} has no buffer"))?;
    let offset = index(view, "byteOffset").unwrap_or(0);
    let length = index(view, "byteLength").ok_or_else(|| format!("buffer view {v} has no byteLength"))?;
    let buffer = buffers.get(b).ok_or_else(|| format!("buffer view {v}: no buffer {b}"))?;
    if buffer.is_empty() && length > 0 {
        return Err(format!("the compressed data is in buffer {b}, which has no data to read"));
    }
    offset
        .checked_add(length)
        .and_then(|end| buffer.get(offset..end))
        .ok_or_else(|| format!("buffer view {v} runs past the end of buffer {b}"))
}

thread_local! {
    /// Whether this thread is inside the Draco decoder (its panics, caught
    /// there, print nothing).
    static DECODING: Cell<bool> = const { Cell::new(false) };
}

/// Decodes a Draco mesh within what is left of `budget`, and takes what
/// it decoded from it.
fn decode_mesh(bytes: &[u8], budget: &mut Budget) -> Result<Mesh, String> {
    let limits = DecodeLimits::default()
        .with_max_points(budget.points)
        .with_max_faces(budget.faces)
        .with_max_decoded_bytes(budget.bytes);
    let mesh = guarded(|| {
        let mut buffer = DecoderBuffer::new(bytes).with_limits(limits);
        let mut mesh = Mesh::new();
        MeshDecoder::new().decode(&mut buffer, &mut mesh).map(|()| mesh)
    })?;
    let points = mesh.num_points() as u64;
    let faces = mesh.num_faces() as u64;
    let size: u64 = (0..mesh.num_attributes()).map(|a| mesh.attribute(a).buffer().data().len() as u64).sum();
    let too_large = || {
        format!(
            "too large: the file's compressed primitives decode to more than {MAX_VERTICES} vertices, {} triangles \
             or {MAX_DECODED_BYTES} bytes",
            MAX_INDICES / 3
        )
    };
    budget.points = budget.points.checked_sub(points).ok_or_else(too_large)?;
    budget.faces = budget.faces.checked_sub(faces).ok_or_else(too_large)?;
    budget.bytes = budget.bytes.checked_sub(size).ok_or_else(too_large)?;
    Ok(mesh)
}

/// Runs the decoder `decode`: its error, or a panic in it (caught, and
/// without its panic message), becomes the one-line error.
fn guarded<T>(decode: impl FnOnce() -> Result<T, draco_core::DracoError>) -> Result<T, String> {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !DECODING.with(Cell::get) {
                previous(info);
            }
        }));
    });
    DECODING.with(|d| d.set(true));
    let result = catch_unwind(AssertUnwindSafe(decode));
    DECODING.with(|d| d.set(false));
    match result {
        Ok(Ok(mesh)) => Ok(mesh),
        Ok(Err(e)) if e.kind() == draco_core::ErrorKind::LimitExceeded => {
            Err(format!("too large: the compressed data decodes past this viewport's limits ({})", one_line(&e)))
        }
        Ok(Err(e)) => Err(format!("the compressed data is malformed ({})", one_line(&e))),
        Err(_) => Err(PANICKED.into()),
    }
}

fn one_line(e: &draco_core::DracoError) -> String {
    super::one_line(&e.to_string())
}

/// The error of a decoder that panicked.
const PANICKED: &str = "the compressed data is malformed (the decoder failed on it)";

/// The components of one element of a glTF accessor type (vectors and
/// scalars only: matrices are never vertex attributes).
fn components(json: &Value) -> Result<usize, String> {
    match json.get("type").and_then(Value::as_str) {
        Some("SCALAR") => Ok(1),
        Some("VEC2") => Ok(2),
        Some("VEC3") => Ok(3),
        Some("VEC4") => Ok(4),
        other => Err(format!("type {} cannot hold Draco data", other.unwrap_or("(none)"))),
    }
}

/// One scalar of Draco type `t` from its little-endian bytes.
fn scalar(t: DataType, b: &[u8]) -> f64 {
    let word = |n: usize| b.iter().take(n).rev().fold(0u64, |acc, &x| acc << 8 | u64::from(x));
    match t {
        DataType::Int8 => f64::from(b[0] as i8),
        DataType::Uint8 | DataType::Bool => f64::from(b[0]),
        DataType::Int16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
        DataType::Uint16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
        DataType::Int32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DataType::Uint32 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DataType::Int64 => word(8) as i64 as f64,
        DataType::Uint64 => word(8) as f64,
        DataType::Float32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DataType::Float64 => f64::from_bits(word(8)),
        DataType::Invalid => f64::NAN,
    }
}

/// The largest value of a Draco integer type, for normalised values.
fn normal_max(t: DataType) -> Option<f64> {
    Some(match t {
        DataType::Int8 => 127.0,
        DataType::Uint8 => 255.0,
        DataType::Int16 => 32767.0,
        DataType::Uint16 => 65535.0,
        DataType::Int32 => 2_147_483_647.0,
        DataType::Uint32 => 4_294_967_295.0,
        _ => return None,
    })
}

/// Accessor `a` (JSON `json`) filled with the values of Draco attribute
/// `values` at each of the `points` points.
fn fill_attribute(a: usize, json: &Value, values: &PointAttribute, points: usize) -> Result<Filled, String> {
    let n = components(json)?;
    let have = usize::from(values.num_components());
    if have != n {
        return Err(format!("the compressed attribute has {have} components, the accessor {n}"));
    }
    let t = values.data_type();
    let width = t.byte_length();
    let stride = usize::try_from(values.byte_stride()).ok().filter(|&s| s >= n * width && width > 0);
    let stride = stride.ok_or("the compressed attribute has an unusable layout")?;
    let data = values.buffer().data();
    let target = Component::of(json.get("componentType").and_then(Value::as_u64).unwrap_or(0))
        .ok_or("an unknown componentType")?;
    // Normalised integers read into a FLOAT accessor become their fractions.
    let scale = match (target, values.normalized(), normal_max(t)) {
        (Component::F32, true, Some(max)) => Some(max),
        _ => None,
    };
    // Each point's element, checked before anything is written.
    let element = |p: usize| -> Option<&[u8]> {
        let v = values.mapped_index(PointIndex(p as u32)).0 as usize;
        let start = (v < values.size()).then(|| v.checked_mul(stride)).flatten()?;
        data.get(start..start.checked_add(n * width)?)
    };
    if let Some(p) = (0..points).find(|&p| element(p).is_none()) {
        return Err(format!("vertex {p} has no value in the compressed data"));
    }
    let rows = (0..points).map(|p| {
        let mut row = [0.0f64; 4];
        for (c, bytes) in element(p).unwrap_or_default().chunks_exact(width).enumerate() {
            let x = scalar(t, bytes);
            row[c] = match scale {
                Some(max) => (x / max).max(-1.0),
                None => x,
            };
        }
        row
    });
    // Values of the accessor's own type come out as they went in (a float
    // through f64 and back is the same float).
    fill(a, json, n, rows)
}

/// Accessor `a` filled with `rows` (`n` components used of each), written
/// in its component type; a value the type cannot hold is an error.
fn fill(a: usize, json: &Value, n: usize, rows: impl Iterator<Item = [f64; 4]>) -> Result<Filled, String> {
    let code = json.get("componentType").and_then(Value::as_u64).unwrap_or(0);
    let target = Component::of(code).ok_or_else(|| format!("the unknown componentType {code}"))?;
    let mut bytes = Vec::new();
    let mut min = vec![f64::INFINITY; n];
    let mut max = vec![f64::NEG_INFINITY; n];
    for row in rows {
        for (c, &x) in row.iter().take(n).enumerate() {
            let x = match target.range() {
                Some((lo, hi)) if x.fract() != 0.0 || !(lo..=hi).contains(&x) => {
                    return Err(format!("the decoded value {x} does not fit its componentType {}", target.name()));
                }
                // Read back as the accessor holds it (a float rounded to f32).
                Some(_) => x,
                None => f64::from(x as f32),
            };
            target.push(x, &mut bytes);
            min[c] = min[c].min(x);
            max[c] = max[c].max(x);
        }
    }
    Ok(Filled { accessor: a, bytes, min, max, integer: target != Component::F32 })
}

/// Rewrites `root` to read the decoded data (see the module docs), which
/// becomes a new buffer at the end of `buffers`.
fn rewrite(root: &mut Value, buffers: &mut Vec<Vec<u8>>, filled: &[Filled]) {
    let Value::Object(top) = root else { return };
    let mut views = take_array(top, "bufferViews");
    let mut accessors = take_array(top, "accessors");
    let mut file_buffers = take_array(top, "buffers");
    let mut data = Vec::new();
    for f in filled {
        data.resize(data.len().next_multiple_of(4), 0);
        views.push(json!({"buffer": file_buffers.len(), "byteOffset": data.len(), "byteLength": f.bytes.len()}));
        data.extend_from_slice(&f.bytes);
        let Some(Value::Object(a)) = accessors.get_mut(f.accessor) else { continue };
        a.insert("bufferView".into(), json!(views.len() - 1));
        a.remove("byteOffset");
        a.remove("sparse");
        let number = |x: f64| if f.integer { json!(x as i64) } else { json!(x) };
        for (key, bound) in [("min", &f.min), ("max", &f.max)] {
            if a.contains_key(key) && !f.bytes.is_empty() {
                a.insert(key.into(), Value::Array(bound.iter().map(|&x| number(x)).collect()));
            }
        }
    }
    file_buffers.push(json!({"byteLength": data.len()}));
    buffers.push(data);
    top.insert("bufferViews".into(), Value::Array(views));
    top.insert("accessors".into(), Value::Array(accessors));
    top.insert("buffers".into(), Value::Array(file_buffers));
    let meshes = top.get_mut("meshes").and_then(Value::as_array_mut);
    for mesh in meshes.into_iter().flatten() {
        for primitive in mesh.get_mut("primitives").and_then(Value::as_array_mut).into_iter().flatten() {
            let Value::Object(p) = primitive else { continue };
            if let Some(Value::Object(extensions)) = p.get_mut("extensions") {
                extensions.remove(NAME);
                if extensions.is_empty() {
                    p.remove("extensions");
                }
            }
        }
    }
    for key in ["extensionsUsed", "extensionsRequired"] {
        if let Some(Value::Array(names)) = top.get_mut(key) {
            names.retain(|n| n != NAME);
            if names.is_empty() {
                top.remove(key);
            }
        }
    }
}

/// The array `key` of `object`, taken out (empty if missing or not an array).
fn take_array(object: &mut Map<String, Value>, key: &str) -> Vec<Value> {
    match object.remove(key) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use draco_core::{EncoderBuffer, EncoderOptions, GeometryAttributeType as G, MeshEncoder};
    use rand::{Rng, SeedableRng};
    use std::path::Path;

    /// A 3 x 3 grid of points (8 triangles) with joints (bytes), weights
    /// (floats) and colours (normalised bytes), all distinct per point.
    struct Grid {
        positions: Vec<[f32; 3]>,
        joints: Vec<[u8; 4]>,
        weights: Vec<[f32; 4]>,
        colors: Vec<[u8; 4]>,
        triangles: Vec<[u32; 3]>,
    }

    fn grid() -> Grid {
        let mut g = Grid { positions: vec![], joints: vec![], weights: vec![], colors: vec![], triangles: vec![] };
        for k in 0..9u8 {
            let (x, y) = (f32::from(k % 3), f32::from(k / 3));
            g.positions.push([x * 0.5, y * 0.25, 0.1 * x * y]);
            g.joints.push([k, k + 1, 20 - k, 3]);
            let w = f32::from(k) / 16.0;
            g.weights.push([0.5 - w / 2.0, 0.25 + w / 4.0, 0.125 + w / 8.0, 0.125 + w / 8.0]);
            g.colors.push([k * 25, 255 - k * 20, 7 * k, 255]);
        }
        for r in 0..2u32 {
            for c in 0..2u32 {
                let a = r * 3 + c;
                g.triangles.push([a, a + 1, a + 4]);
                g.triangles.push([a, a + 4, a + 3]);
            }
        }
        g
    }

    /// `g` encoded at `speed` (10: sequentially, the points and triangles
    /// keeping their order; below: EdgeBreaker), positions quantised to 12
    /// bits, the rest lossless; ids 0 to 3 in the order positions, joints,
    /// weights, colours.
    fn encode(g: &Grid, speed: i32) -> Vec<u8> {
        let n = g.positions.len();
        let mut mesh = Mesh::new();
        let mut add = |kind: G, components: u8, t: DataType, normalized: bool, bytes: Vec<u8>| {
            let mut a = PointAttribute::new();
            a.init(kind, components, t, normalized, n);
            a.buffer_mut().write(0, &bytes);
            mesh.add_attribute(a)
        };
        let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        let p = add(G::Position, 3, DataType::Float32, false, floats(g.positions.as_flattened()));
        add(G::Generic, 4, DataType::Uint8, false, g.joints.as_flattened().to_vec());
        add(G::Generic, 4, DataType::Float32, false, floats(g.weights.as_flattened()));
        add(G::Color, 4, DataType::Uint8, true, g.colors.as_flattened().to_vec());
        for t in &g.triangles {
            mesh.add_face(t.map(PointIndex));
        }
        let mut options = EncoderOptions::new();
        options.set_global_int("encoding_speed", speed);
        options.set_global_int("decoding_speed", speed);
        options.set_attribute_quantization(p, 12);
        let mut encoder = MeshEncoder::new();
        encoder.set_mesh(mesh);
        let mut out = EncoderBuffer::new();
        encoder.encode(&options, &mut out).unwrap();
        out.data().to_vec()
    }

    /// A file of one Draco primitive over `compressed` (in buffer 0):
    /// joints read into unsigned shorts (widened), colours into floats.
    fn file(g: &Grid, compressed: &[u8]) -> (Value, Vec<Vec<u8>>) {
        let n = g.positions.len();
        let json = json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": [NAME, "KHR_materials_variants"], "extensionsRequired": [NAME],
            "buffers": [{"byteLength": compressed.len()}],
            "bufferViews": [{"buffer": 0, "byteLength": compressed.len()}],
            "accessors": [
                {"componentType": 5126, "count": n, "type": "VEC3", "min": [0, 0, 0], "max": [1, 0.5, 0.4]},
                {"componentType": 5123, "count": n, "type": "VEC4"},
                {"componentType": 5126, "count": n, "type": "VEC4"},
                {"componentType": 5126, "count": n, "type": "VEC4"},
                {"componentType": 5125, "count": 3 * g.triangles.len(), "type": "SCALAR"}
            ],
            "meshes": [{"primitives": [{
                "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "COLOR_0": 3}, "indices": 4,
                "extensions": {NAME: {"bufferView": 0,
                    "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "COLOR_0": 3}},
                    "KHR_materials_variants": {"mappings": []}}
            }]}]
        });
        (json, vec![compressed.to_vec()])
    }

    /// The `N`-component elements of accessor `a` of a rewritten file.
    fn read<const N: usize, T>(
        root: &Value,
        buffers: &[Vec<u8>],
        a: usize,
        size: usize,
        f: fn(&[u8]) -> T,
    ) -> Vec<[T; N]> {
        let accessor = &root["accessors"][a];
        let view = &root["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
        let buffer = &buffers[view["buffer"].as_u64().unwrap() as usize];
        let start = view["byteOffset"].as_u64().unwrap() as usize;
        let bytes = &buffer[start..start + view["byteLength"].as_u64().unwrap() as usize];
        assert_eq!(bytes.len(), accessor["count"].as_u64().unwrap() as usize * N * size);
        bytes.chunks_exact(N * size).map(|e| std::array::from_fn(|c| f(&e[c * size..(c + 1) * size]))).collect()
    }

    #[test]
    fn every_attribute_is_written_in_its_accessors_component_type() {
        let g = grid();
        let (mut root, mut buffers) = file(&g, &encode(&g, 10));
        let mut decoded = decode_primitives(&mut root, &mut buffers).unwrap();
        decoded.sort_unstable();
        assert_eq!(decoded, vec![0, 1, 2, 3, 4]);
        // The file now reads plain data: one new buffer, no extension left
        // (the primitive's other extension stays).
        assert_eq!(buffers.len(), 2);
        assert_eq!(root["buffers"][1]["byteLength"], json!(buffers[1].len()));
        assert_eq!(root["extensionsUsed"], json!(["KHR_materials_variants"]));
        assert!(root.get("extensionsRequired").is_none());
        let primitive = &root["meshes"][0]["primitives"][0];
        assert_eq!(primitive["extensions"], json!({"KHR_materials_variants": {"mappings": []}}));
        assert!(super::super::lenient::document_from_tree(root.clone()).is_ok());

        let f32s = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        // Positions within half a step of 12 bits over the grid's extent (1).
        let positions = read::<3, f32>(&root, &buffers, 0, 4, f32s);
        let half_step = 1.0 / 4095.0 / 2.0 + 1e-6;
        for (got, want) in positions.iter().zip(&g.positions) {
            assert!((0..3).all(|c| (got[c] - want[c]).abs() <= half_step), "{got:?} vs {want:?}");
        }
        // The declared bounds are the decoded data's.
        for (key, pick) in [("min", f32::min as fn(f32, f32) -> f32), ("max", f32::max)] {
            let want: Vec<f64> =
                (0..3).map(|c| f64::from(positions.iter().map(|p| p[c]).reduce(pick).unwrap())).collect();
            assert_eq!(root["accessors"][0][key], json!(want), "{key}");
        }
        // Joints widened to shorts, weights exact, colours as fractions.
        let joints = read::<4, u16>(&root, &buffers, 1, 2, |b| u16::from_le_bytes([b[0], b[1]]));
        assert_eq!(joints, g.joints.iter().map(|j| j.map(u16::from)).collect::<Vec<_>>());
        assert_eq!(read::<4, f32>(&root, &buffers, 2, 4, f32s), g.weights);
        let colors = read::<4, f32>(&root, &buffers, 3, 4, f32s);
        for (got, want) in colors.iter().zip(&g.colors) {
            assert!((0..4).all(|c| (got[c] - f32::from(want[c]) / 255.0).abs() < 1e-6), "{got:?} vs {want:?}");
        }
        let indices = read::<1, u32>(&root, &buffers, 4, 4, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        assert_eq!(indices.concat(), g.triangles.concat());
    }

    /// Joints (bytes, widened to shorts) and weights (floats) decoded from
    /// Draco pose a skin as the file gives them: joint k moved by k along x
    /// moves each vertex by its weighted mean joint index.
    #[test]
    fn draco_joints_and_weights_pose_a_skin() {
        use nalgebra::{Matrix4, Vector3};
        let g = grid();
        let compressed = encode(&g, 10);
        let (mut json, _) = file(&g, &compressed);
        json["buffers"][0]["uri"] =
            json!(format!("data:application/octet-stream;base64,{}", base64::encode(&compressed)));
        json["extensionsUsed"] = json!([NAME]);
        json["meshes"][0]["primitives"][0]["extensions"].as_object_mut().unwrap().remove("KHR_materials_variants");
        const JOINTS: usize = 21;
        // Joint 0 (node 1) is the parent of the others.
        let root = json!({"children": (2..=JOINTS).collect::<Vec<_>>()});
        let leaves = (1..JOINTS).map(|_| json!({}));
        json["nodes"] = Value::Array([json!({"mesh": 0, "skin": 0}), root].into_iter().chain(leaves).collect());
        json["skins"] = json!([{"joints": (1..=JOINTS).collect::<Vec<_>>()}]);
        json["scene"] = json!(0);
        json["scenes"] = json!([{"nodes": [0, 1]}]);
        let file =
            super::super::GltfFile::from_bytes(Path::new("skin.gltf"), &serde_json::to_vec(&json).unwrap()).unwrap();
        assert!(file.problems.is_empty(), "{:?}", file.problems);
        let skin = file.skin_data(0, 0).unwrap();
        let worlds: Vec<Matrix4<f64>> =
            (0..JOINTS).map(|k| Matrix4::new_translation(&Vector3::new(k as f64, 0.0, 0.0))).collect();
        let posed = skin.pose(&worlds, &Matrix4::identity()).mesh;
        // Without normals each triangle has its own three vertices, in the
        // order of the (sequentially encoded, so unchanged) triangles.
        let half_step = 1.0 / 4095.0 / 2.0 + 1e-5;
        for (t, triangle) in g.triangles.iter().enumerate() {
            for (c, &v) in triangle.iter().enumerate() {
                let v = v as usize;
                let weights = g.weights[v];
                let shift: f32 =
                    (0..4).map(|i| weights[i] * f32::from(g.joints[v][i])).sum::<f32>() / weights.iter().sum::<f32>();
                let want = [g.positions[v][0] + shift, g.positions[v][1], g.positions[v][2]];
                let got = posed.positions[3 * t + c];
                assert!((0..3).all(|k| (got[k] - want[k]).abs() <= half_step), "vertex {v}: {got:?} vs {want:?}");
            }
        }
    }

    #[test]
    fn a_panic_in_the_decoder_is_an_error_line() {
        let result: Result<(), String> = guarded(|| panic!("a decoder bug"));
        assert_eq!(result.unwrap_err(), PANICKED);
        // The hook passes other panics on, and this thread decodes again.
        assert!(std::panic::catch_unwind(|| panic!("elsewhere")).is_err());
        assert!(!DECODING.with(Cell::get));
    }

    /// The budget of a file's primitives: a stream that decodes to more
    /// vertices than remain is refused as too large, by the decoder itself
    /// or once decoded.
    #[test]
    fn streams_past_the_files_limits_are_too_large() {
        let g = grid();
        let bytes = encode(&g, 10);
        let tight = |points: u64, faces: u64, size: u64| {
            decode_mesh(&bytes, &mut Budget { points, faces, bytes: size }).map(|m| m.num_points())
        };
        let mut budget = Budget { points: 20, faces: 20, bytes: 1 << 20 };
        assert_eq!(decode_mesh(&bytes, &mut budget).unwrap().num_points(), 9);
        assert_eq!((budget.points, budget.faces), (11, 12));
        for err in [tight(8, 20, 1 << 20), tight(20, 7, 1 << 20), tight(20, 20, 16)] {
            assert!(err.unwrap_err().starts_with("too large: "));
        }
    }

    /// Hostile data: a few hundred mutations of valid streams (sequential
    /// and EdgeBreaker; bytes changed, cut short, bytes inserted) each
    /// decode to a mesh or to an error, through the whole primitive, and
    /// draco-core panicked on none.
    #[test]
    fn mutated_draco_data_is_read_or_refused_never_a_panic() {
        let g = grid();
        let mut rng = rand::rngs::StdRng::seed_from_u64(25);
        for speed in [10, 5, 0] {
            let good = encode(&g, speed);
            let (mut read, mut refused) = (0, 0);
            for round in 0..300 {
                let mut bytes = good.clone();
                match round % 4 {
                    0 | 1 => {
                        for _ in 0..rng.gen_range(1..=6) {
                            let at = rng.gen_range(0..bytes.len());
                            bytes[at] = rng.gen();
                        }
                    }
                    2 => bytes.truncate(rng.gen_range(0..bytes.len())),
                    _ => {
                        let at = rng.gen_range(0..=bytes.len());
                        let extra: Vec<u8> = (0..rng.gen_range(1..16)).map(|_| rng.gen()).collect();
                        bytes.splice(at..at, extra);
                    }
                }
                let (mut root, mut buffers) = file(&g, &bytes);
                match decode_primitives(&mut root, &mut buffers) {
                    Ok(_) => read += 1,
                    Err(e) => {
                        assert!(!e.contains(PANICKED), "speed {speed}, round {round}: draco-core panicked");
                        assert!(!e.contains('\n'), "{e}");
                        refused += 1;
                    }
                }
            }
            assert!(refused > 75, "speed {speed}: {refused} refused, {read} read");
        }
    }
}
