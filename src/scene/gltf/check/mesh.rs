//! The mesh, morph target, animation and file-level rules of
//! [`super::check`].

use serde_json::Value;

use super::{items, number};

/// Item `i` (a JSON number) of the top-level array `key`.
fn get<'a>(root: &'a Value, key: &str, i: Option<&Value>) -> Option<&'a Value> {
    root.get(key)?.as_array()?.get(usize::try_from(i?.as_u64()?).ok()?)
}

/// The `count` of the accessor index `a`.
fn count(root: &Value, a: Option<&Value>) -> Option<f64> {
    get(root, "accessors", a).and_then(|a| number(a, "count"))
}

/// How many morph targets the primitives of mesh `m` have (the first's).
fn targets(mesh: &Value) -> usize {
    items(mesh, "primitives").next().map_or(0, |(_, p)| items(p, "targets").count())
}

/// See the module docs.
pub(super) fn check_meshes(root: &Value, out: &mut Vec<String>) {
    let used = |name: &str| items(root, "extensionsUsed").any(|(_, e)| e.as_str() == Some(name));
    let required = |name: &str| items(root, "extensionsRequired").any(|(_, e)| e.as_str() == Some(name));
    if used("KHR_mesh_quantization") && !required("KHR_mesh_quantization") {
        out.push("/extensionsUsed: KHR_mesh_quantization must also be in extensionsRequired".into());
    }
    let mut seen = Vec::new();
    for (i, e) in items(root, "extensionsUsed") {
        if seen.contains(&e) {
            out.push(format!("/extensionsUsed/{i}: a duplicate entry"));
        }
        seen.push(e);
    }
    for (name, ext) in root.get("extensions").and_then(Value::as_object).into_iter().flatten() {
        if !ext.is_object() {
            out.push(format!("/extensions/{name}: not an object"));
        }
    }
    let version = |k: &str| {
        let v = root.pointer(&format!("/asset/{k}"))?.as_str()?;
        let (major, minor) = v.split_once('.')?;
        Some((major.parse::<u64>().ok()?, minor.parse::<u64>().ok()?))
    };
    if let (Some(min), Some(v)) = (version("minVersion"), version("version")) {
        if min > v {
            out.push("/asset/minVersion: greater than the version".into());
        }
    }
    for (i, image) in items(root, "images") {
        let mime = image.get("mimeType").and_then(Value::as_str);
        if mime == Some("image/webp") && !used("EXT_texture_webp") {
            out.push(format!("/images/{i}: image/webp needs the extension EXT_texture_webp"));
        }
    }
    for (m, mesh) in items(root, "meshes") {
        let n = targets(mesh);
        if let Some(w) = mesh.get("weights").and_then(Value::as_array).filter(|w| w.len() != n) {
            out.push(format!("/meshes/{m}/weights: {} weights for {n} morph targets", w.len()));
        }
        for (p, prim) in items(mesh, "primitives") {
            primitive(root, prim, &format!("/meshes/{m}/primitives/{p}"), n, out);
        }
    }
    for (i, node) in items(root, "nodes") {
        let mesh = get(root, "meshes", node.get("mesh"));
        let n = mesh.map_or(0, targets);
        if let Some(w) = node.get("weights").and_then(Value::as_array).filter(|w| mesh.is_some() && w.len() != n) {
            out.push(format!("/nodes/{i}/weights: {} weights for {n} morph targets", w.len()));
        }
        let skinned =
            mesh.is_some_and(|m| items(m, "primitives").all(|(_, p)| p.pointer("/attributes/JOINTS_0").is_some()));
        if node.get("skin").is_some() && mesh.is_some() && !skinned {
            out.push(format!("/nodes/{i}/skin: its mesh has no JOINTS_0 and WEIGHTS_0 to skin"));
        }
    }
    animations(root, out);
}

/// The rules of one primitive at `at`, whose mesh has `n` morph targets.
fn primitive(root: &Value, prim: &Value, at: &str, n: usize, out: &mut Vec<String>) {
    if items(prim, "targets").count() != n {
        out.push(format!("{at}/targets: the primitives of the mesh have different numbers of morph targets"));
    }
    let attributes = prim.get("attributes").and_then(Value::as_object);
    let mut counts = Vec::new();
    let mut views = Vec::new();
    for (name, a) in attributes.into_iter().flatten() {
        counts.push(count(root, Some(a)));
        let Some(acc) = get(root, "accessors", Some(a)) else { continue };
        if number(acc, "componentType") == Some(5125.0) {
            out.push(format!("{at}/attributes/{name}: vertex attributes cannot be 32-bit integers"));
        }
        let view = acc.get("bufferView").and_then(Value::as_u64);
        let stride = get(root, "bufferViews", acc.get("bufferView")).and_then(|v| number(v, "byteStride"));
        if view.is_some()
            && (number(acc, "byteOffset").unwrap_or(0.0) % 4.0 != 0.0 || stride.unwrap_or(0.0) % 4.0 != 0.0)
        {
            out.push(format!("{at}/attributes/{name}: vertex data must be 4-byte aligned"));
        }
        if let Some(v) = view.filter(|_| stride.is_none()) {
            if views.contains(&v) {
                out.push(format!("{at}/attributes/{name}: buffer view {v} is shared without a byteStride"));
            }
            views.push(v);
        }
    }
    if counts.windows(2).any(|w| w[0] != w[1]) {
        out.push(format!("{at}/attributes: the attribute accessors have different counts"));
    }
    let has = |k: &str| attributes.is_some_and(|a| a.contains_key(k));
    for set in 0..8 {
        if has(&format!("JOINTS_{set}")) != has(&format!("WEIGHTS_{set}")) {
            out.push(format!("{at}/attributes: JOINTS_{set} and WEIGHTS_{set} must come together"));
        }
    }
    if let Some(indices) = get(root, "accessors", prim.get("indices")) {
        let t = number(indices, "componentType").unwrap_or(0.0);
        if indices.get("type").and_then(Value::as_str) != Some("SCALAR") || ![5121.0, 5123.0, 5125.0].contains(&t) {
            out.push(format!("{at}/indices: must be unsigned byte, short or int scalars"));
        }
        if get(root, "bufferViews", indices.get("bufferView")).is_some_and(|v| v.get("byteStride").is_some()) {
            out.push(format!("{at}/indices: its buffer view cannot have a byteStride"));
        }
    }
    let base = counts.first().copied().flatten();
    for (t, target) in items(prim, "targets") {
        for (name, a) in target.as_object().into_iter().flatten() {
            if !has(name) {
                out.push(format!("{at}/targets/{t}/{name}: the primitive has no {name} to morph"));
            } else if count(root, Some(a)) != base {
                out.push(format!("{at}/targets/{t}/{name}: a different count from the primitive's"));
            }
        }
    }
    let material = get(root, "materials", prim.get("material"));
    let needs_tangents = material.is_some_and(|m| {
        m.pointer("/extensions/KHR_materials_anisotropy").is_some()
            || m.pointer("/extensions/KHR_materials_clearcoat/clearcoatNormalTexture").is_some()
    });
    if needs_tangents && !has("TANGENT") && material.is_some_and(|m| m.get("normalTexture").is_none()) {
        out.push(format!("{at}/material: needs tangents, which the primitive neither has nor can derive"));
    }
    let mappings = prim.pointer("/extensions/KHR_materials_variants/mappings").and_then(Value::as_array);
    let mut variants = Vec::new();
    for v in mappings.into_iter().flatten().flat_map(|m| items(m, "variants")).map(|(_, v)| v) {
        if variants.contains(&v) {
            out.push(format!("{at}/extensions/KHR_materials_variants: variant {v} is mapped twice"));
        }
        variants.push(v);
    }
}

/// An accessor's `type` and `componentType`.
fn format(a: Option<&Value>) -> Option<(&str, f64)> {
    a.map(|a| (a.get("type").and_then(Value::as_str).unwrap_or(""), number(a, "componentType").unwrap_or(0.0)))
}

/// Animation channel and sampler rules.
fn animations(root: &Value, out: &mut Vec<String>) {
    for (a, anim) in items(root, "animations") {
        let mut seen = Vec::new();
        for (c, ch) in items(anim, "channels") {
            let at = format!("/animations/{a}/channels/{c}");
            let target = ch.get("target").unwrap_or(&Value::Null);
            let path = target.get("path").and_then(Value::as_str).unwrap_or("");
            if let Some(ext) = target.pointer("/extensions/KHR_animation_pointer") {
                if path != "pointer" {
                    out.push(format!("{at}/target/path: must be \"pointer\" with KHR_animation_pointer"));
                }
                if target.get("node").is_some() {
                    out.push(format!("{at}/target/node: must be left out with KHR_animation_pointer"));
                }
                if ext.get("pointer").and_then(Value::as_str).is_some_and(|p| !p.starts_with('/')) {
                    out.push(format!("{at}/target/extensions/KHR_animation_pointer/pointer: not a JSON pointer"));
                }
                continue;
            }
            let node = get(root, "nodes", target.get("node"));
            if let Some(key) = target.get("node").map(|n| (n.to_string(), path)) {
                if seen.contains(&key) {
                    out.push(format!("{at}/target: another channel of the animation has the same target"));
                }
                seen.push(key);
            }
            if node.is_some_and(|n| n.get("matrix").is_some()) && path != "weights" {
                out.push(format!("{at}/target/node: a node with a matrix cannot be animated"));
            }
            let morphs = node.and_then(|n| get(root, "meshes", n.get("mesh"))).map_or(0, targets);
            if path == "weights" && morphs == 0 {
                out.push(format!("{at}/target/node: its mesh has no morph targets to weigh"));
            }
            let Some(sampler) = anim.get("samplers").and_then(|s| s.get(ch.get("sampler")?.as_u64()? as usize)) else {
                continue;
            };
            let input = get(root, "accessors", sampler.get("input"));
            let output = get(root, "accessors", sampler.get("output"));
            if format(input).is_some_and(|f| f != ("SCALAR", 5126.0)) {
                out.push(format!("{at}: its sampler's input must be float scalars"));
            }
            let expected = match path {
                "translation" | "scale" => Some("VEC3"),
                "rotation" => Some("VEC4"),
                "weights" => Some("SCALAR"),
                _ => None,
            };
            let float_only = path != "rotation" && path != "weights";
            if let (Some(t), Some((found, component))) = (expected, format(output)) {
                if found != t || (float_only && component != 5126.0) {
                    out.push(format!("{at}: its sampler's output must be {t} for {path}"));
                }
            }
            let cubic = sampler.get("interpolation").and_then(Value::as_str) == Some("CUBICSPLINE");
            let per_key = if cubic { 3.0 } else { 1.0 } * if path == "weights" { morphs.max(1) as f64 } else { 1.0 };
            if let (Some(i), Some(o)) =
                (input.and_then(|i| number(i, "count")), output.and_then(|o| number(o, "count")))
            {
                if o != i * per_key {
                    out.push(format!("{at}: its sampler's output has {o} elements, {} expected", i * per_key));
                }
            }
        }
    }
}

/// GLB container rules: chunk lengths aligned to 4 bytes, one chunk of
/// each kind, and a binary chunk when the first buffer has no URI.
pub(super) fn check_glb(bytes: &[u8], root: &Value, out: &mut Vec<String>) {
    let word = |at: usize| bytes.get(at..at + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize);
    let total = word(8).unwrap_or(0).min(bytes.len());
    let (mut at, mut kinds) = (12usize, Vec::new());
    while let (Some(length), Some(kind)) = (word(at), word(at + 4)) {
        if at + 8 > total {
            break;
        }
        if length % 4 != 0 {
            out.push(format!("GLB chunk {}: its length {length} is not a multiple of 4", kinds.len()));
        }
        if kinds.contains(&kind) {
            out.push(format!("GLB chunk {}: a second chunk of type {kind:#x}", kinds.len()));
        }
        kinds.push(kind);
        at = at.saturating_add(8).saturating_add(length);
    }
    let first_without_uri = root.pointer("/buffers/0").is_some_and(|b| b.get("uri").is_none());
    if first_without_uri && !kinds.contains(&0x004E_4942) {
        out.push("/buffers/0: refers to the GLB binary chunk, which the file lacks".into());
    }
}
