//! Writing an [`Export`] to disk: a `.glb` (the images in its binary
//! chunk) or a `.gltf` with `STEM.bin` and the images beside it as
//! `STEM_N.EXT`, each file atomically, the target checked before any work
//! ([`check_target`]).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::Export;
use crate::files::{write_atomic, WriteError};

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
