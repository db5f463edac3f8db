//! Checks of a glTF file's JSON for breaches of the glTF 2.0 specification
//! (and of the Khronos extensions it names) that the loader can read past.
//!
//! The `gltf` crate's validation stops only what would make reading unsafe;
//! a file can still break rules the Khronos validator reports as errors
//! (an empty array, an extension object in the wrong place, a factor out of
//! range, ...). Such a file still opens, and each breach found here becomes
//! one warning `<JSON pointer>: <what is wrong>`. The checks run on the JSON
//! tree as written (an empty array and a missing one parse to the same
//! crate value, and unknown extension objects are dropped by the crate);
//! `data.rs` compares accessor bounds with the data.
//!
//! Every lookup is bounds-checked: hostile JSON gives warnings, never a
//! panic.

use std::path::Path;

use gltf::Document;
use serde_json::{Map, Value};

/// Arrays the specification requires to have at least one item, by the
/// property name they appear under.
const NON_EMPTY: [&str; 24] = [
    "accessors",
    "animations",
    "buffers",
    "bufferViews",
    "cameras",
    "images",
    "materials",
    "meshes",
    "nodes",
    "samplers",
    "scenes",
    "skins",
    "textures",
    "extensionsUsed",
    "extensionsRequired",
    "children",
    "joints",
    "channels",
    "primitives",
    "targets",
    "lights",
    "variants",
    "mappings",
    "weights",
];

/// Where an extension object may be, by kind of owner (see [`owner_kind`]).
fn allowed_owner(extension: &str) -> Option<&'static [&'static str]> {
    Some(match extension {
        "KHR_materials_variants" => &["root", "primitive"],
        "KHR_lights_punctual" => &["root", "node"],
        "KHR_node_visibility" | "EXT_mesh_gpu_instancing" => &["node"],
        "KHR_animation_pointer" => &["target"],
        "KHR_texture_transform" => &["textureInfo"],
        "EXT_texture_webp" | "KHR_texture_basisu" | "EXT_texture_avif" | "MSFT_texture_dds" => &["texture"],
        "KHR_mesh_quantization" => &[],
        "KHR_draco_mesh_compression" => &["primitive"],
        "EXT_meshopt_compression" => &["bufferView", "buffer"],
        e if e.starts_with("KHR_materials_") => &["material"],
        _ => return None,
    })
}

/// The kind of object at `path` (property names and array indices from the
/// root) for the placement of extension objects.
fn owner_kind(path: &[String], object: &Map<String, Value>) -> &'static str {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    let texture_info = p.last().is_some_and(|k| k.ends_with("Texture")) && object.contains_key("index");
    match p.as_slice() {
        [] => "root",
        ["materials", _] => "material",
        ["nodes", _] => "node",
        ["meshes", _, "primitives", _] => "primitive",
        ["textures", _] => "texture",
        ["animations", _, "channels", _, "target"] => "target",
        ["bufferViews", _] => "bufferView",
        ["buffers", _] => "buffer",
        _ if texture_info => "textureInfo",
        _ => "other",
    }
}

/// The breaches of the glTF specification in an opened file (see
/// `check/`): those of its JSON, then those of its accessor data.
/// `json` is the file's JSON as a tree (the GLB's JSON chunk), `bytes` the
/// file; `decoded` lists the accessors filled from Draco-compressed data
/// (whose data, like the validator, the checks leave alone).
pub(super) fn file_problems(
    json: &Value,
    bytes: &[u8],
    base: &Path,
    document: &Document,
    buffers: &[Vec<u8>],
    decoded: &[usize],
) -> Vec<String> {
    let mut out = check_json(json);
    if bytes.starts_with(b"glTF") {
        mesh::check_glb(bytes, json, &mut out);
    }
    out.extend(image::check_images(json, base, buffers));
    out.extend(data::check_data(document, buffers, decoded));
    out
}

/// Every breach found in `root`, the JSON of a glTF file, as
/// `<pointer>: <problem>` lines.
pub(super) fn check_json(root: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let used: Vec<&str> = strings(root.get("extensionsUsed"));
    for name in strings(root.get("extensionsRequired")) {
        if !used.contains(&name) {
            out.push(format!("/extensionsRequired: {name} is required but not listed in extensionsUsed"));
        }
    }
    walk(root, &mut Vec::new(), &used, &mut out);
    check_properties(root, &mut out);
    refs::check_references(root, &mut out);
    more::check_layout(root, &mut out);
    mesh::check_meshes(root, &mut out);
    out
}

/// The strings of a JSON array (others skipped).
fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

/// A JSON pointer for `path`.
pub(super) fn pointer(path: &[String]) -> String {
    path.iter().map(|k| format!("/{k}")).collect()
}

/// The tree-wide rules: empty arrays, and extension objects that are
/// undeclared or out of place. `extras` is free-form and not entered.
fn walk(value: &Value, path: &mut Vec<String>, used: &[&str], out: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            if let Some(Value::Object(extensions)) = fields.get("extensions") {
                let kind = owner_kind(path, fields);
                for name in extensions.keys() {
                    let at = format!("{}/extensions/{name}", pointer(path));
                    if !used.contains(&name.as_str()) {
                        out.push(format!("{at}: the extension is not declared in extensionsUsed"));
                    } else if allowed_owner(name).is_some_and(|kinds| !kinds.contains(&kind)) {
                        out.push(format!("{at}: this extension does not belong on this object"));
                    }
                }
            }
            for (key, item) in fields {
                if key == "extras" {
                    continue;
                }
                if NON_EMPTY.contains(&key.as_str()) && item.as_array().is_some_and(Vec::is_empty) {
                    out.push(format!(
                        "{}/{key}: an empty array (the property must be left out instead)",
                        pointer(path)
                    ));
                }
                path.push(key.clone());
                walk(item, path, used, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                walk(item, path, used, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The items of the array `key` of `object`, with their index.
pub(super) fn items<'a>(object: &'a Value, key: &str) -> impl Iterator<Item = (usize, &'a Value)> {
    object.get(key).and_then(Value::as_array).into_iter().flatten().enumerate()
}

/// A number at `key` of `object`.
pub(super) fn number(object: &Value, key: &str) -> Option<f64> {
    object.get(key).and_then(Value::as_f64)
}

/// A test of a number's range.
type Range<'a> = &'a dyn Fn(f64) -> bool;

/// Rules on single properties: required and dependent properties, value
/// ranges, and exclusive choices.
fn check_properties(root: &Value, out: &mut Vec<String>) {
    let mut range = |at: String, v: Option<f64>, ok: &dyn Fn(f64) -> bool| {
        if let Some(v) = v.filter(|v| !ok(*v)) {
            out.push(format!("{at}: the value {v} is out of range"));
        }
    };
    for (i, b) in items(root, "buffers") {
        range(format!("/buffers/{i}/byteLength"), number(b, "byteLength"), &|v| v >= 1.0);
    }
    for (i, b) in items(root, "bufferViews") {
        range(format!("/bufferViews/{i}/byteLength"), number(b, "byteLength"), &|v| v >= 1.0);
        range(format!("/bufferViews/{i}/byteStride"), number(b, "byteStride"), &|v| {
            (4.0..=252.0).contains(&v) && v % 4.0 == 0.0
        });
    }
    for (i, c) in items(root, "cameras") {
        let p = c.get("perspective").unwrap_or(&Value::Null);
        range(format!("/cameras/{i}/perspective/yfov"), number(p, "yfov"), &|v| v > 0.0);
        range(format!("/cameras/{i}/perspective/znear"), number(p, "znear"), &|v| v > 0.0);
        range(format!("/cameras/{i}/perspective/zfar"), number(p, "zfar"), &|v| v > 0.0);
        range(format!("/cameras/{i}/perspective/aspectRatio"), number(p, "aspectRatio"), &|v| v > 0.0);
        let o = c.get("orthographic").unwrap_or(&Value::Null);
        range(format!("/cameras/{i}/orthographic/znear"), number(o, "znear"), &|v| v >= 0.0);
        range(format!("/cameras/{i}/orthographic/zfar"), number(o, "zfar"), &|v| v > 0.0);
    }
    for (i, m) in items(root, "materials") {
        let Some(ext) = m.get("extensions") else { continue };
        let at = |e: &str, k: &str| format!("/materials/{i}/extensions/{e}/{k}");
        let unit = &|v: f64| (0.0..=1.0).contains(&v);
        let non_negative = &|v: f64| v >= 0.0;
        let factors: [(&str, &str, Range); 16] = [
            ("KHR_materials_dispersion", "dispersion", non_negative),
            ("KHR_materials_specular", "specularFactor", unit),
            ("KHR_materials_emissive_strength", "emissiveStrength", non_negative),
            ("KHR_materials_ior", "ior", &|v| v == 0.0 || v >= 1.0),
            ("KHR_materials_anisotropy", "anisotropyStrength", unit),
            ("KHR_materials_volume", "thicknessFactor", non_negative),
            ("KHR_materials_volume", "attenuationDistance", &|v| v > 0.0),
            ("KHR_materials_transmission", "transmissionFactor", unit),
            ("KHR_materials_clearcoat", "clearcoatFactor", unit),
            ("KHR_materials_clearcoat", "clearcoatRoughnessFactor", unit),
            ("KHR_materials_sheen", "sheenRoughnessFactor", unit),
            ("KHR_materials_iridescence", "iridescenceFactor", unit),
            ("KHR_materials_iridescence", "iridescenceIor", &|v| v >= 1.0),
            ("KHR_materials_pbrSpecularGlossiness", "glossinessFactor", unit),
            ("KHR_materials_diffuse_transmission", "diffuseTransmissionFactor", unit),
            ("KHR_materials_iridescence", "iridescenceThicknessMinimum", non_negative),
        ];
        for (e, k, ok) in factors {
            range(at(e, k), ext.get(e).and_then(|o| number(o, k)), ok);
        }
        let colours = [
            ("KHR_materials_volume", "attenuationColor"),
            ("KHR_materials_specular", "specularColorFactor"),
            ("KHR_materials_sheen", "sheenColorFactor"),
            ("KHR_materials_pbrSpecularGlossiness", "diffuseFactor"),
            ("KHR_materials_pbrSpecularGlossiness", "specularFactor"),
        ];
        for (e, k) in colours {
            // specularColorFactor may exceed 1 (it is a multiplier).
            let ok: &dyn Fn(f64) -> bool = if k == "specularColorFactor" { non_negative } else { unit };
            for (c, v) in ext.get(e).map(|o| items(o, k)).into_iter().flatten() {
                range(format!("{}/{c}", at(e, k)), v.as_f64(), ok);
            }
        }
    }
    check_dependencies(root, out);
}

/// Properties that need another, and exactly-one-of choices.
fn check_dependencies(root: &Value, out: &mut Vec<String>) {
    let root_ext = |name: &str| root.get("extensions").and_then(|e| e.get(name)).is_some();
    let has = |o: &Value, k: &str| o.get(k).is_some();
    for (i, b) in items(root, "buffers") {
        if !has(b, "byteLength") {
            out.push(format!("/buffers/{i}: byteLength must be given"));
        }
    }
    for (i, a) in items(root, "accessors") {
        if has(a, "byteOffset") && !has(a, "bufferView") {
            out.push(format!("/accessors/{i}/byteOffset: given without a bufferView"));
        }
    }
    for (i, n) in items(root, "nodes") {
        for k in ["skin", "weights"] {
            if has(n, k) && !has(n, "mesh") {
                out.push(format!("/nodes/{i}/{k}: given on a node without a mesh"));
            }
        }
        if n.pointer("/extensions/KHR_lights_punctual").is_some() && !root_ext("KHR_lights_punctual") {
            out.push(format!(
                "/nodes/{i}/extensions/KHR_lights_punctual: the file has no root KHR_lights_punctual lights"
            ));
        }
    }
    for (m, mesh) in items(root, "meshes") {
        for (p, prim) in items(mesh, "primitives") {
            if prim.pointer("/extensions/KHR_materials_variants").is_some() && !root_ext("KHR_materials_variants") {
                out.push(format!(
                    "/meshes/{m}/primitives/{p}/extensions/KHR_materials_variants: the file has no root KHR_materials_variants variants"
                ));
            }
        }
    }
    for (i, image) in items(root, "images") {
        if has(image, "bufferView") == has(image, "uri") {
            out.push(format!("/images/{i}: exactly one of bufferView and uri must be given"));
        }
        if has(image, "bufferView") && !has(image, "mimeType") {
            out.push(format!("/images/{i}/bufferView: given without a mimeType"));
        }
    }
    for (i, c) in items(root, "cameras") {
        let (p, o) = (c.get("perspective"), c.get("orthographic"));
        if p.is_some() && o.is_some() {
            out.push(format!("/cameras/{i}: exactly one of orthographic and perspective must be given"));
        }
        for (kind, cam) in [("perspective", p), ("orthographic", o)] {
            let Some(cam) = cam else { continue };
            if let (Some(near), Some(far)) = (number(cam, "znear"), number(cam, "zfar")) {
                if far <= near {
                    out.push(format!("/cameras/{i}/{kind}: zfar {far} is not beyond znear {near}"));
                }
            }
        }
        if let Some(o) = o {
            if number(o, "xmag") == Some(0.0) || number(o, "ymag") == Some(0.0) {
                out.push(format!("/cameras/{i}/orthographic: xmag and ymag must not be zero"));
            }
        }
    }
    let lights = root.pointer("/extensions/KHR_lights_punctual/lights");
    for (i, l) in lights.and_then(Value::as_array).into_iter().flatten().enumerate() {
        if l.get("type").and_then(Value::as_str) == Some("spot") && !has(l, "spot") {
            out.push(format!("/extensions/KHR_lights_punctual/lights/{i}: a spot light needs a spot object"));
        }
    }
    for (a, anim) in items(root, "animations") {
        for (c, ch) in items(anim, "channels") {
            let ptr = ch.pointer("/target/extensions/KHR_animation_pointer");
            if ptr.is_some_and(|p| !has(p, "pointer")) {
                out.push(format!(
                    "/animations/{a}/channels/{c}/target/extensions/KHR_animation_pointer: pointer must be given"
                ));
            }
        }
    }
}

/// Decodes `text` as padded standard base64 (the `base64` crate, the one
/// the `gltf` crate decodes data URIs with); `None` when it is not base64.
pub(super) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(4) {
        return None;
    }
    base64::decode(text).ok()
}

mod data;
mod image;
mod mesh;
mod more;
mod refs;

#[cfg(test)]
mod tests;
