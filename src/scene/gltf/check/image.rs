//! The image rules of [`super::check`]: every image's data can be found,
//! is a whole PNG or JPEG stream as far as its chunk and segment structure
//! shows (nothing is decoded), and matches the declared media type. Base
//! colour images are decoded, and a failure reported, by `material.rs`:
//! for them only the media type is checked here (one warning per image).

use std::path::Path;

use serde_json::Value;

use super::base64_decode;
use super::{items, number};

/// See the module docs. Relative URIs resolve against `base`.
pub(super) fn check_images(root: &Value, base: &Path, buffers: &[Vec<u8>]) -> Vec<String> {
    let mut out = Vec::new();
    let decoded: Vec<u64> = items(root, "materials")
        .filter_map(|(_, m)| m.pointer("/pbrMetallicRoughness/baseColorTexture/index")?.as_u64())
        .filter_map(|t| root.get("textures")?.get(t as usize)?.get("source")?.as_u64())
        .collect();
    for (i, image) in items(root, "images") {
        let decoded = decoded.contains(&(i as u64));
        let at = format!("/images/{i}");
        let bytes = if let Some(uri) = image.get("uri").and_then(Value::as_str) {
            if let Some(data) = uri.strip_prefix("data:") {
                let Some(payload) = data.split_once(";base64,").map(|(_, p)| p) else { continue };
                let Some(bytes) = base64_decode(payload) else { continue };
                bytes
            } else if uri.contains(':') {
                continue;
            } else {
                let Some(name) = super::super::parse::percent_decode(uri) else { continue };
                match std::fs::read(base.join(&name)) {
                    Ok(bytes) => bytes,
                    Err(_) => {
                        if !decoded {
                            out.push(format!("{at}/uri: the image file {name} cannot be read"));
                        }
                        continue;
                    }
                }
            }
        } else {
            let Some(view) = image.get("bufferView").and_then(Value::as_u64) else { continue };
            let Some(view) = root.get("bufferViews").and_then(|v| v.get(view as usize)) else { continue };
            let start = number(view, "byteOffset").unwrap_or(0.0) as usize;
            let end = start.saturating_add(number(view, "byteLength").unwrap_or(0.0) as usize);
            let buffer = view.get("buffer").and_then(Value::as_u64).and_then(|b| buffers.get(b as usize));
            let Some(bytes) = buffer.and_then(|b| b.get(start..end)) else { continue };
            bytes.to_vec()
        };
        let sniffed = sniff(&bytes);
        if let Some(problem) = match sniffed {
            Some("image/png") => png_problem(&bytes),
            Some("image/jpeg") => jpeg_problem(&bytes),
            _ => None,
        }
        .filter(|_| !decoded)
        {
            out.push(format!("{at}: {problem}"));
        }
        let declared = image.get("mimeType").and_then(Value::as_str);
        if let (Some(declared), Some(sniffed)) = (declared, sniffed) {
            if declared != sniffed {
                out.push(format!("{at}: declared {declared} but the data is {sniffed}"));
            }
        }
    }
    out
}

/// The media type the first bytes show, for PNG, JPEG and WebP.
pub(super) fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else {
        None
    }
}

/// A PNG whose chunks run past its end before IEND.
fn png_problem(bytes: &[u8]) -> Option<String> {
    let mut at = 8usize;
    loop {
        let Some(head) = bytes.get(at..at + 8) else { return Some("the PNG data ends before its IEND chunk".into()) };
        let length = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let end = at.saturating_add(12).saturating_add(length);
        if end > bytes.len() {
            return Some("the PNG data ends inside a chunk".into());
        }
        if &head[4..8] == b"IEND" {
            return None;
        }
        at = end;
    }
}

/// A JPEG whose marker segments are malformed before the scan starts.
fn jpeg_problem(bytes: &[u8]) -> Option<String> {
    let mut at = 2usize;
    loop {
        let (Some(&0xFF), Some(&marker)) = (bytes.get(at), bytes.get(at + 1)) else {
            return Some("the JPEG data has no valid marker where one must be".into());
        };
        match marker {
            0xFF => at += 1,
            0xD8 | 0x01 | 0xD0..=0xD7 => at += 2,
            0xDA | 0xD9 => return None,
            _ => {
                let length = bytes.get(at + 2..at + 4).map(|l| usize::from(u16::from_be_bytes([l[0], l[1]])));
                match length {
                    Some(l) if l >= 2 && at + 2 + l <= bytes.len() => at += 2 + l,
                    _ => return Some("the JPEG data has an invalid marker segment length".into()),
                }
            }
        }
    }
}
