//! The node, skin, animation, buffer and accessor layout rules of
//! [`super::check`].

use serde_json::Value;

use super::{items, number};

/// Bytes per component of a glTF `componentType`.
fn component_size(t: f64) -> Option<f64> {
    match t as u32 {
        5120 | 5121 => Some(1.0),
        5122 | 5123 => Some(2.0),
        5125 | 5126 => Some(4.0),
        _ => None,
    }
}

/// Components per element of a glTF accessor `type`.
fn components(t: &str) -> Option<f64> {
    Some(match t {
        "SCALAR" => 1.0,
        "VEC2" => 2.0,
        "VEC3" => 3.0,
        "VEC4" | "MAT2" => 4.0,
        "MAT3" => 9.0,
        "MAT4" => 16.0,
        _ => return None,
    })
}

/// Item `i` (a JSON number) of the top-level array `key`.
fn get<'a>(root: &'a Value, key: &str, i: Option<&Value>) -> Option<&'a Value> {
    root.get(key)?.as_array()?.get(usize::try_from(i?.as_u64()?).ok()?)
}

/// See the module docs.
pub(super) fn check_layout(root: &Value, out: &mut Vec<String>) {
    check_nodes(root, out);
    let views = |a: &Value| get(root, "bufferViews", a.get("bufferView"));
    for (i, a) in items(root, "accessors") {
        let size = a.get("componentType").and_then(Value::as_f64).and_then(component_size);
        let n = a.get("type").and_then(Value::as_str).and_then(components);
        let offset = number(a, "byteOffset").unwrap_or(0.0);
        if let (Some(size), Some(view)) = (size, views(a)) {
            let total = offset + number(view, "byteOffset").unwrap_or(0.0);
            if offset % size != 0.0 || total % size != 0.0 {
                out.push(format!("/accessors/{i}/byteOffset: not aligned to its {size}-byte components"));
            } else if a.get("type").and_then(Value::as_str).is_some_and(|t| t.starts_with("MAT")) && offset % 4.0 != 0.0
            {
                out.push(format!("/accessors/{i}/byteOffset: a matrix accessor must be 4-byte aligned"));
            }
            if let (Some(n), Some(stride)) = (n, number(view, "byteStride")) {
                if stride < size * n {
                    out.push(format!(
                        "/accessors/{i}: its buffer view's byteStride {stride} is smaller than an element"
                    ));
                }
            }
        }
        let float_like = a.get("componentType").and_then(Value::as_f64).is_some_and(|t| t == 5126.0 || t == 5125.0);
        if a.get("normalized").and_then(Value::as_bool) == Some(true) && float_like {
            out.push(format!("/accessors/{i}/normalized: only byte and short accessors can be normalized"));
        }
        if let (Some(sparse), Some(count)) = (a.pointer("/sparse/count").and_then(Value::as_f64), number(a, "count")) {
            if sparse > count {
                out.push(format!("/accessors/{i}/sparse/count: {sparse} is more than the accessor's {count} elements"));
            }
        }
    }
    let buffers: Vec<&Value> = items(root, "buffers").map(|(_, b)| b).collect();
    for (i, v) in items(root, "bufferViews") {
        let stride = number(v, "byteStride");
        let length = number(v, "byteLength").unwrap_or(0.0);
        if stride.is_some() && number(v, "target") == Some(34963.0) {
            out.push(format!("/bufferViews/{i}/byteStride: only vertex data can have a byteStride"));
        }
        if stride.is_some_and(|s| s > length) {
            out.push(format!("/bufferViews/{i}/byteStride: greater than byteLength {length}"));
        }
        let buffer = v.get("buffer").and_then(Value::as_u64).and_then(|b| buffers.get(b as usize));
        if let Some(size) = buffer.and_then(|b| number(b, "byteLength")) {
            if number(v, "byteOffset").unwrap_or(0.0) + length > size {
                out.push(format!("/bufferViews/{i}: runs past the end of its buffer ({size} bytes)"));
            }
        }
    }
    for (i, b) in items(root, "buffers") {
        let media = b
            .get("uri")
            .and_then(Value::as_str)
            .and_then(|u| u.strip_prefix("data:"))
            .map(|u| u.split([';', ',']).next().unwrap_or(""));
        if media.is_some_and(|m| m != "application/octet-stream" && m != "application/gltf-buffer") {
            out.push(format!("/buffers/{i}/uri: a data URI of media type {}", media.unwrap_or("")));
        }
    }
    let stride_of = |a: Option<&Value>| a.and_then(views).is_some_and(|v| v.get("byteStride").is_some());
    for (i, image) in items(root, "images") {
        if get(root, "bufferViews", image.get("bufferView")).is_some_and(|v| v.get("byteStride").is_some()) {
            out.push(format!("/images/{i}/bufferView: image data cannot have a byteStride"));
        }
    }
    for (s, skin) in items(root, "skins") {
        let Some(ibm) = get(root, "accessors", skin.get("inverseBindMatrices")) else { continue };
        let at = format!("/skins/{s}/inverseBindMatrices");
        if ibm.get("type").and_then(Value::as_str) != Some("MAT4") || number(ibm, "componentType") != Some(5126.0) {
            out.push(format!("{at}: must be MAT4 floats"));
        }
        let joints = items(skin, "joints").count() as f64;
        if number(ibm, "count").is_some_and(|c| c < joints) {
            out.push(format!("{at}: fewer matrices than the skin's {joints} joints"));
        }
        if stride_of(Some(ibm)) {
            out.push(format!("{at}: its buffer view cannot have a byteStride"));
        }
    }
    for (a, anim) in items(root, "animations") {
        for (s, sampler) in items(anim, "samplers") {
            let at = format!("/animations/{a}/samplers/{s}");
            let input = get(root, "accessors", sampler.get("input"));
            let output = get(root, "accessors", sampler.get("output"));
            if stride_of(input) || stride_of(output) {
                out.push(format!("{at}: its accessors' buffer views cannot have a byteStride"));
            }
            if input.is_some_and(|i| i.get("min").is_none() || i.get("max").is_none()) {
                out.push(format!("{at}/input: the input accessor must have min and max"));
            }
            let cubic = sampler.get("interpolation").and_then(Value::as_str) == Some("CUBICSPLINE");
            if cubic && input.and_then(|i| number(i, "count")).is_some_and(|c| c < 2.0) {
                out.push(format!("{at}/input: a CUBICSPLINE sampler needs at least 2 keyframes"));
            }
        }
    }
    let lights = root.pointer("/extensions/KHR_lights_punctual/lights").and_then(Value::as_array);
    for (i, light) in lights.into_iter().flatten().enumerate() {
        let spot = light.get("spot").unwrap_or(&Value::Null);
        let inner = number(spot, "innerConeAngle").unwrap_or(0.0);
        let outer = number(spot, "outerConeAngle").unwrap_or(std::f64::consts::FRAC_PI_4);
        if light.get("spot").is_some() && outer <= inner {
            out.push(format!("/extensions/KHR_lights_punctual/lights/{i}/spot: outerConeAngle {outer} is not beyond innerConeAngle {inner}"));
        }
    }
}

/// Node rules: unit rotations, matrix or TRS, one parent per node, no
/// loops, scene roots that are roots, and skins with a common root.
fn check_nodes(root: &Value, out: &mut Vec<String>) {
    let count = items(root, "nodes").count();
    let mut parent: Vec<Option<usize>> = vec![None; count];
    for (i, node) in items(root, "nodes") {
        let rotation: Vec<f64> = items(node, "rotation").filter_map(|(_, v)| v.as_f64()).collect();
        if rotation.len() == 4 && (rotation.iter().map(|x| x * x).sum::<f64>().sqrt() - 1.0).abs() > 0.00769 {
            out.push(format!("/nodes/{i}/rotation: not a unit quaternion"));
        }
        if node.get("matrix").is_some() && ["translation", "rotation", "scale"].iter().any(|k| node.get(k).is_some()) {
            out.push(format!("/nodes/{i}/matrix: given with translation, rotation or scale"));
        }
        let m: Vec<f64> = items(node, "matrix").filter_map(|(_, v)| v.as_f64()).collect();
        if m.len() == 16 && (m[3] != 0.0 || m[7] != 0.0 || m[11] != 0.0 || m[15] != 1.0) {
            out.push(format!("/nodes/{i}/matrix: not a translation, rotation and scale"));
        }
        for (k, child) in items(node, "children") {
            let Some(c) = child.as_u64().map(|c| c as usize).filter(|&c| c < count) else { continue };
            if parent[c].is_some() || c == i {
                out.push(format!("/nodes/{i}/children/{k}: node {c} already has a parent"));
            } else {
                parent[c] = Some(i);
            }
        }
    }
    // Walking up from each node must end within `count` steps.
    let chain = |mut n: usize| -> Option<Vec<usize>> {
        let mut up = vec![n];
        while let Some(p) = parent[n] {
            if up.len() > count {
                return None;
            }
            up.push(p);
            n = p;
        }
        Some(up)
    };
    if let Some(i) = (0..count).find(|&i| chain(i).is_none()) {
        out.push(format!("/nodes/{i}: part of a loop of children"));
        return;
    }
    for (s, scene) in items(root, "scenes") {
        for (k, n) in items(scene, "nodes") {
            if n.as_u64().and_then(|n| parent.get(n as usize)).is_some_and(Option::is_some) {
                out.push(format!("/scenes/{s}/nodes/{k}: not a root node"));
            }
        }
    }
    // A skinned node in a scene needs its joints in that scene.
    for (s, scene) in items(root, "scenes") {
        let mut reached = vec![false; count];
        let mut stack: Vec<usize> = items(scene, "nodes").filter_map(|(_, n)| n.as_u64()).map(|n| n as usize).collect();
        while let Some(n) = stack.pop() {
            if n < count && !std::mem::replace(&mut reached[n], true) {
                stack.extend((0..count).filter(|&c| parent[c] == Some(n)));
            }
        }
        for (i, node) in items(root, "nodes").filter(|(i, _)| reached[*i]) {
            let Some(skin) = node.get("skin").and_then(|k| root.get("skins")?.get(k.as_u64()? as usize)) else {
                continue;
            };
            let joints = items(skin, "joints").filter_map(|(_, j)| j.as_u64()).map(|j| j as usize);
            if joints.into_iter().any(|j| j < count && !reached[j]) {
                out.push(format!("/nodes/{i}: a skinned node in scene {s}, whose joints are not all in that scene"));
            }
        }
    }
    for (s, skin) in items(root, "skins") {
        let chains: Vec<Vec<usize>> = items(skin, "joints")
            .filter_map(|(_, j)| j.as_u64().map(|j| j as usize).filter(|&j| j < count))
            .filter_map(chain)
            .collect();
        let common = |n: usize| chains.iter().all(|c| c.contains(&n));
        let Some(first) = chains.first() else { continue };
        if !first.iter().any(|&n| common(n)) {
            out.push(format!("/skins/{s}/joints: the joints have no common root"));
        } else if let Some(k) = number(skin, "skeleton").map(|k| k as usize).filter(|&k| k < count) {
            if !common(k) {
                out.push(format!("/skins/{s}/skeleton: node {k} is not a common root of the joints"));
            }
        }
    }
}
