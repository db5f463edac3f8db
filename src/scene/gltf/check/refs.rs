//! The reference and usage rules of [`super::check`]: indices that name
//! nothing, buffer views used both as index and as vertex data, textures
//! read through texture coordinates the primitive lacks, POSITION without
//! bounds, and malformed URIs.

use serde_json::Value;

use super::{base64_decode, items, number};

/// How many items the array at JSON pointer `at` of `root` has.
fn len(root: &Value, at: &str) -> usize {
    root.pointer(at).and_then(Value::as_array).map_or(0, Vec::len)
}

/// Pushes a warning when the index at `key` of `object` names no item of a
/// list of `n`.
fn reference(out: &mut Vec<String>, at: String, object: &Value, key: &str, n: usize) {
    if let Some(v) = number(object, key) {
        if v < 0.0 || v >= n as f64 {
            out.push(format!("{at}/{key}: {v} names nothing (there are {n})"));
        }
    }
}

/// See the module docs.
pub(super) fn check_references(root: &Value, out: &mut Vec<String>) {
    let nodes = len(root, "/nodes");
    for (a, anim) in items(root, "animations") {
        for (c, ch) in items(anim, "channels") {
            if let Some(target) = ch.get("target") {
                reference(out, format!("/animations/{a}/channels/{c}/target"), target, "node", nodes);
            }
        }
    }
    let images = len(root, "/images");
    for (t, texture) in items(root, "textures") {
        for (name, ext) in texture.get("extensions").and_then(Value::as_object).into_iter().flatten() {
            reference(out, format!("/textures/{t}/extensions/{name}"), ext, "source", images);
        }
    }
    let lights = len(root, "/extensions/KHR_lights_punctual/lights");
    for (n, node) in items(root, "nodes") {
        if let Some(light) = node.pointer("/extensions/KHR_lights_punctual") {
            if root.pointer("/extensions/KHR_lights_punctual").is_some() {
                reference(out, format!("/nodes/{n}/extensions/KHR_lights_punctual"), light, "light", lights);
            }
        }
    }
    let variants = len(root, "/extensions/KHR_materials_variants/variants");
    let mut view_use: Vec<(usize, bool, String)> = Vec::new();
    let accessors = root.get("accessors").and_then(Value::as_array);
    let view_of = |a: &Value| {
        let i = a.as_u64()? as usize;
        Some(accessors?.get(i)?.get("bufferView")?.as_u64()? as usize)
    };
    for (m, mesh) in items(root, "meshes") {
        for (p, prim) in items(mesh, "primitives") {
            let at = format!("/meshes/{m}/primitives/{p}");
            let mappings = prim.pointer("/extensions/KHR_materials_variants/mappings");
            for (k, mapping) in mappings.and_then(Value::as_array).into_iter().flatten().enumerate() {
                for (j, v) in items(mapping, "variants") {
                    if v.as_f64().is_some_and(|v| v < 0.0 || v >= variants as f64) {
                        out.push(format!(
                            "{at}/extensions/KHR_materials_variants/mappings/{k}/variants/{j}: {v} names no variant"
                        ));
                    }
                }
            }
            if let Some(v) = prim.get("indices").and_then(view_of) {
                view_use.push((v, true, format!("{at}/indices")));
            }
            let attributes = prim.get("attributes").and_then(Value::as_object).into_iter().flatten();
            let targets = items(prim, "targets").flat_map(|(_, t)| t.as_object().into_iter().flatten());
            for (name, a) in attributes.chain(targets) {
                if let Some(v) = view_of(a) {
                    view_use.push((v, false, format!("{at}/{name}")));
                }
                let bounded = a
                    .as_u64()
                    .and_then(|i| accessors?.get(i as usize))
                    .map(|acc| acc.get("min").is_some() && acc.get("max").is_some());
                if name == "POSITION" && bounded == Some(false) {
                    out.push(format!("{at}: the POSITION accessor must have min and max"));
                }
            }
            texcoords(root, prim, &at, out);
        }
    }
    let views = root.get("bufferViews").and_then(Value::as_array);
    for (v, index, at) in &view_use {
        let target = views.and_then(|vs| vs.get(*v)).and_then(|b| number(b, "target"));
        let other = view_use.iter().any(|(w, i, _)| w == v && i != index);
        // ELEMENT_ARRAY_BUFFER is index data, ARRAY_BUFFER vertex data.
        let declared = target.and_then(|t| (t == 34963.0 || t == 34962.0).then_some(t == 34963.0));
        let role = |index: bool| if index { "index" } else { "vertex" };
        if other {
            out.push(format!("{at}: buffer view {v} is used both as index and as vertex data"));
        } else if declared.is_some_and(|d| d != *index) {
            out.push(format!(
                "{at}: buffer view {v} is declared {} data (target) but used as {} data",
                role(!index),
                role(*index)
            ));
        }
    }
    for (kind, list) in [("buffers", "/buffers"), ("images", "/images")] {
        for (i, item) in items(root, kind) {
            if let Some(uri) = item.get("uri").and_then(Value::as_str) {
                if let Some(problem) = uri_problem(uri, kind == "images") {
                    out.push(format!("{list}/{i}/uri: {problem}"));
                }
            }
        }
    }
}

/// Every texture the primitive's material reads must find its
/// `TEXCOORD_<texCoord>` attribute on the primitive.
fn texcoords(root: &Value, prim: &Value, at: &str, out: &mut Vec<String>) {
    let Some(material) = prim.get("material").and_then(Value::as_u64) else { return };
    let Some(material) = root.get("materials").and_then(|m| m.get(material as usize)) else { return };
    let attributes = prim.get("attributes");
    let mut infos = Vec::new();
    find_texture_infos(material, &mut infos);
    for set in infos {
        let name = format!("TEXCOORD_{set}");
        if attributes.and_then(|a| a.get(&name)).is_none() {
            out.push(format!("{at}: its material reads texture coordinates {name}, which the primitive lacks"));
            return;
        }
    }
}

/// The `texCoord` of every texture info under `v` (0 when not given).
fn find_texture_infos(v: &Value, out: &mut Vec<u64>) {
    match v {
        Value::Object(fields) => {
            for (key, item) in fields {
                if key == "extras" {
                    continue;
                }
                if key.ends_with("Texture") && item.get("index").is_some() {
                    // KHR_texture_transform may name another set.
                    let transform = item.pointer("/extensions/KHR_texture_transform/texCoord");
                    let set = transform.or_else(|| item.get("texCoord")).and_then(Value::as_u64);
                    out.push(set.unwrap_or(0));
                }
                find_texture_infos(item, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| find_texture_infos(i, out)),
        _ => {}
    }
}

/// What is wrong with a URI, if anything: an empty scheme, or a data URI
/// that is malformed, not valid base64, or (for images) whose media type
/// does not match its content.
fn uri_problem(uri: &str, image: bool) -> Option<String> {
    if uri.starts_with(':') {
        return Some("the URI has an empty scheme".into());
    }
    let rest = uri.strip_prefix("data:")?;
    let Some((header, payload)) = rest.split_once(',') else { return Some("a data URI without a comma".into()) };
    let mut parts = header.split(';');
    let media = parts.next().unwrap_or("");
    let params: Vec<&str> = parts.collect();
    if params.iter().any(|p| p.is_empty()) {
        return Some(format!("a malformed data URI header \"{header}\""));
    }
    if params.last() != Some(&"base64") {
        return None;
    }
    let Some(bytes) = base64_decode(payload) else {
        return Some("a data URI whose payload is not valid base64".into());
    };
    let sniffed = super::image::sniff(&bytes);
    (image && sniffed.is_some_and(|s| s != media))
        .then(|| format!("a data URI declared {media} whose content is {}", sniffed.unwrap_or("")))
}
