//! Reading glTF JSON that is valid by the specification but that the `gltf`
//! crate's strict serde types refuse.
//!
//! The Khronos validator's own test files show three such shapes, all legal
//! glTF 2.0:
//! - integers written as floats (`"children": [1.0, 2.0]`): JSON has one
//!   number type, and glTF asks for integral values, not a spelling;
//! - a scene without `nodes` (the property is optional);
//! - an animation channel whose target has no `node` (it is optional; the
//!   `KHR_animation_pointer` extension names its target another way).
//!
//! The strict parse runs first; only when it fails to deserialize is the JSON
//! read as a tree, those three shapes rewritten (integral floats to integers,
//! `"nodes": []` added, node-less channels dropped: animations are not played
//! here), and parsed again. If that fails too, the first error is the one
//! reported. The document this gives is not yet validated: the caller
//! validates it before any item is read, with [`validate`].

use std::collections::HashSet;

use gltf::json;
use gltf::json::validation::{Error, Validate};
use serde_json::Value;

/// Required extensions the `gltf` crate has no feature for but this loader
/// reads: quantized attributes (`accessor.rs`), compressed buffer views
/// (`meshopt.rs`), Draco-compressed primitives (`draco.rs`) and Basis
/// Universal images (`scene/ktx2.rs`).
const READ_HERE: [&str; 4] =
    ["KHR_mesh_quantization", "EXT_meshopt_compression", "KHR_draco_mesh_compression", "KHR_texture_basisu"];

/// The validation problems of `root` that stop the file, as `path: problem`.
///
/// Let through, because the specification allows them and nothing here
/// reads what they concern (so no crate accessor unwraps them):
/// - the `min` / `max` that POSITION accessors must carry: exporters often
///   leave it out, and this loader computes its own bounds;
/// - an accessor with neither `bufferView` nor `sparse`: legal, all zeros
///   (`read_accessor` gives them);
/// - a primitive without POSITION: legal, and it draws nothing;
/// - an unknown accessor `type` or `componentType` on an accessor no mesh
///   or skin uses (the validator only warns);
/// - anything about lights (`KHR_lights_punctual`), never read or drawn.
pub(super) fn validate(root: &json::Root) -> Vec<String> {
    let used = accessors_read(root);
    let mut errors = Vec::new();
    root.validate(root, json::Path::new, &mut |path, error| {
        let path = path();
        let path = path.as_str();
        let missing = matches!(error, Error::Missing);
        let bounds = path.ends_with(".min") || path.ends_with(".max");
        let zeros = path.starts_with("accessors[") && path.ends_with("].bufferView");
        let no_position = path.ends_with(".attributes[\"POSITION\"]");
        let unused_accessor = matches!(error, Error::Invalid)
            && (path.ends_with("].type") || path.ends_with("].componentType"))
            && accessor_index(path).is_some_and(|i| !used.contains(&i));
        let lights = path.contains("khrLightsPunctual") || path.contains("KHR_lights_punctual");
        if matches!(error, Error::Unsupported) && path.starts_with("extensionsRequired") {
            // `extensionsRequired[i] = "NAME"`: name it plainly, unless it is
            // one this loader reads itself.
            let name = path.split('"').nth(1).unwrap_or(path);
            if !READ_HERE.contains(&name) {
                errors.push(format!("the file requires the extension {name}, which this viewport cannot read"));
            }
        } else if !((bounds || zeros || no_position) && missing) && !unused_accessor && !lights {
            errors.push(format!("{path}: {error}"));
        }
    });
    errors
}

/// N in a path `accessors[N].field`.
fn accessor_index(path: &str) -> Option<usize> {
    path.strip_prefix("accessors[")?.split_once(']')?.0.parse().ok()
}

/// The accessors this loader may read: every mesh primitive's attributes,
/// indices and morph targets, and the skins' inverse bind matrices.
fn accessors_read(root: &json::Root) -> HashSet<usize> {
    let mut used = HashSet::new();
    for primitive in root.meshes.iter().flat_map(|m| &m.primitives) {
        used.extend(primitive.attributes.values().map(|a| a.value()));
        used.extend(primitive.indices.iter().map(|a| a.value()));
        for target in primitive.targets.iter().flatten() {
            used.extend(
                [&target.positions, &target.normals, &target.tangents].into_iter().flatten().map(|a| a.value()),
            );
        }
    }
    used.extend(root.skins.iter().filter_map(|s| s.inverse_bind_matrices.as_ref()).map(|a| a.value()));
    used
}

/// The document and GLB binary chunk of `bytes` (GLB or JSON glTF), without
/// validation; tolerant of the shapes listed in the module docs.
pub(super) fn from_slice_without_validation(bytes: &[u8]) -> Result<gltf::Gltf, gltf::Error> {
    let strict = gltf::Gltf::from_slice_without_validation(bytes);
    let Err(gltf::Error::Deserialize(first)) = strict else { return strict };
    let (text, blob) = if bytes.starts_with(b"glTF") {
        let mut glb = gltf::binary::Glb::from_slice(bytes)?;
        (glb.json.into_owned(), glb.bin.take().map(|b| b.into_owned()))
    } else {
        (bytes.to_vec(), None)
    };
    let Ok(mut tree) = serde_json::from_slice::<Value>(&text) else {
        return Err(gltf::Error::Deserialize(first));
    };
    repair(&mut tree);
    match serde_json::from_value::<json::Root>(tree) {
        Ok(root) => Ok(gltf::Gltf { document: gltf::Document::from_json_without_validation(root), blob }),
        Err(_) => Err(gltf::Error::Deserialize(first)),
    }
}

/// The document of the glTF JSON `tree` (a file's JSON rewritten here),
/// repaired as [`from_slice_without_validation`] repairs; not validated.
pub(super) fn document_from_tree(mut tree: Value) -> Result<gltf::Document, String> {
    repair(&mut tree);
    let root = serde_json::from_value::<json::Root>(tree).map_err(|e| e.to_string())?;
    Ok(gltf::Document::from_json_without_validation(root))
}

/// Rewrites the legal shapes the strict types refuse (see the module docs).
fn repair(tree: &mut Value) {
    integral_floats_to_integers(tree);
    let Value::Object(root) = tree else { return };
    if let Some(Value::Array(scenes)) = root.get_mut("scenes") {
        for scene in scenes.iter_mut().filter_map(Value::as_object_mut) {
            scene.entry("nodes").or_insert_with(|| Value::Array(Vec::new()));
        }
    }
    if let Some(Value::Array(animations)) = root.get_mut("animations") {
        for animation in animations.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(Value::Array(channels)) = animation.get_mut("channels") {
                channels.retain(|c| c.pointer("/target/node").is_some());
            }
        }
    }
}

/// Every float with an integral value that fits an integer becomes that
/// integer (`1.0` -> `1`); float fields read integers unchanged.
fn integral_floats_to_integers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            // 2^53: beyond it a float no longer names one integer.
            if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 {
                *value = if f < 0.0 { Value::from(f as i64) } else { Value::from(f as u64) };
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats_to_integers),
        Value::Object(fields) => fields.values_mut().for_each(integral_floats_to_integers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#""asset": {"version": "2.0"}"#;

    fn parse(body: &str) -> Result<gltf::Gltf, gltf::Error> {
        from_slice_without_validation(format!("{{{BASE}, {body}}}").as_bytes())
    }

    #[test]
    fn integers_written_as_floats_read_as_integers() {
        let strict = gltf::Gltf::from_slice_without_validation(
            format!(r#"{{{BASE}, "nodes": [{{"children": [1.0]}}, {{}}]}}"#).as_bytes(),
        );
        assert!(strict.is_err(), "the strict parse must refuse this for the test to mean anything");
        let g = parse(r#""nodes": [{"children": [1.0]}, {"translation": [1.5, 2, -3.0]}]"#).unwrap();
        let nodes: Vec<_> = g.document.nodes().collect();
        assert_eq!(nodes[0].children().map(|c| c.index()).collect::<Vec<_>>(), vec![1]);
        assert_eq!(nodes[1].transform().decomposed().0, [1.5, 2.0, -3.0]);
    }

    #[test]
    fn a_scene_without_nodes_and_a_channel_without_a_node() {
        let g = parse(
            r#""scenes": [{"name": "empty"}], "scene": 0,
               "animations": [{"samplers": [{"input": 0, "output": 0}],
                               "channels": [{"sampler": 0, "target": {"path": "translation"}}]}]"#,
        )
        .unwrap();
        assert_eq!(g.document.scenes().next().unwrap().nodes().count(), 0);
        assert_eq!(g.document.animations().next().unwrap().channels().count(), 0);
    }

    #[test]
    fn what_repair_cannot_fix_reports_the_strict_error() {
        let strict = gltf::Gltf::from_slice_without_validation(br#"{"asset": {"version": "2.0"}, "nodes": {}}"#)
            .err()
            .unwrap()
            .to_string();
        let ours = parse(r#""nodes": {}"#).err().unwrap().to_string();
        assert_eq!(ours, strict);
        // Fractional values stay floats (and so stay refused as indices).
        assert!(parse(r#""nodes": [{"children": [1.5]}, {}]"#).is_err());
        assert!(parse("not json").is_err());
    }
}
