//! Reading a glTF file's bytes: the GLB header, the JSON parsed and
//! validated, every buffer's bytes (GLB chunk, side file or data URI,
//! percent-decoded), and the compressed data decoded
//! (`EXT_meshopt_compression`, `KHR_draco_mesh_compression`).

use std::path::Path;

use gltf::Document;

use super::{draco, lenient, meshopt};

/// A parsed file: its document, its buffers, and the accessors filled from
/// Draco-compressed data (see [`parse_with_buffers`]).
pub(super) type Parsed = (Document, Vec<Vec<u8>>, Vec<usize>);

/// Parses glTF bytes into the document and its buffers; relative buffer
/// URIs resolve against `base`. Draco-compressed primitives are decoded
/// and the document is the file rewritten to read the decoded data
/// (`draco.rs`); the accessors so filled are the third item.
pub(super) fn parse_with_buffers(bytes: &[u8], base: &Path, glb_name: bool) -> Result<Parsed, String> {
    let bytes = check_glb_header(bytes, glb_name)?;
    let gltf::Gltf { document, blob } = parse(bytes)?;
    let version = &document.as_json().asset.version;
    if !version.starts_with("2.") {
        return Err(format!("unsupported glTF version \"{version}\" (only 2.x is supported)"));
    }
    // Compressed buffer views are decoded into the buffers they point
    // into; the extension's fallback buffers are not read.
    let meshopt = document.extensions_used().any(|e| e == meshopt::NAME);
    let json = if meshopt { raw_json(bytes) } else { serde_json::Value::Null };
    let fallback = meshopt::fallback_buffers(&json);
    let mut buffers = load_buffers(&document, blob.as_deref(), base, &fallback)?;
    if meshopt {
        let lengths: Vec<usize> = document.buffers().map(|b| b.length()).collect();
        meshopt::decode_views(&json, &mut buffers, &lengths)?;
    }
    if !document.extensions_used().any(|e| e == draco::NAME) {
        return Ok((document, buffers, Vec::new()));
    }
    let mut json = if meshopt { json } else { raw_json(bytes) };
    let decoded = draco::decode_primitives(&mut json, &mut buffers)?;
    let document = lenient::document_from_tree(json).map_err(|e| format!("{}: {e}", draco::NAME))?;
    match lenient::validate(document.as_json()).first() {
        None => Ok((document, buffers, decoded)),
        Some(first) => Err(format!("{}: the decoded file is not valid: {first}", draco::NAME)),
    }
}

/// The JSON of glTF `bytes` (a GLB's JSON chunk) as a tree; `Null` where
/// it does not parse (the `gltf` crate's parse reports that).
pub(super) fn raw_json(bytes: &[u8]) -> serde_json::Value {
    let text = if bytes.starts_with(b"glTF") {
        gltf::binary::Glb::from_slice(bytes).map(|glb| glb.json.into_owned()).unwrap_or_default()
    } else {
        bytes.to_vec()
    };
    serde_json::from_slice(&text).unwrap_or_default()
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
/// it lets through, and the JSON shapes it repairs, are in `lenient`.
fn parse(bytes: &[u8]) -> Result<gltf::Gltf, String> {
    use gltf::json::validation::{Checked, Error};
    let parsed = lenient::from_slice_without_validation(bytes).map_err(|e| match e {
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
    let errors = lenient::validate(root);
    match errors.as_slice() {
        [] => Ok(parsed),
        [first, ..] if errors.len() == 1 => Err(format!("invalid glTF: {first}")),
        [first, ..] => Err(format!("invalid glTF: {first} (and {} more problems)", errors.len() - 1)),
    }
}

/// The bytes of every buffer, in document order.
///
/// A buffer whose file is missing or shorter than declared is an error at
/// once (`docs/spec/assets.md`). A buffer with nothing to read (a GLB placeholder
/// without a URI beyond the first, a `.gltf` buffer without a URI, or a
/// remote URL) is left empty: legal when nothing uses it, and any view that
/// does use it fails when read, naming the buffer. So is a buffer marked in
/// `fallback` (`EXT_meshopt_compression`'s fallback, filled by decoding).
fn load_buffers(
    document: &Document,
    blob: Option<&[u8]>,
    base: &Path,
    fallback: &[bool],
) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    for buffer in document.buffers() {
        let i = buffer.index();
        if fallback.get(i) == Some(&true) {
            out.push(Vec::new());
            continue;
        }
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
