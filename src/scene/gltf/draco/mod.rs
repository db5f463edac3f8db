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

use draco_core::{DecodeLimits, DecoderBuffer, Mesh, MeshDecoder};
use serde_json::{json, Map, Value};

use super::{MAX_INDICES, MAX_VERTICES};
use fill::{fill, fill_attribute, Filled};

mod fill;

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
mod tests;
