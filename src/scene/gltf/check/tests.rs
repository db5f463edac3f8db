//! Unit tests of the glTF checks (`check/*.rs`): per rule, a small file
//! that breaks it warns at the JSON pointer of the breach, and the same file
//! with the breach mended does not.

use super::super::parse::{parse_with_buffers, raw_json};
use super::*;
use serde_json::{json, Value};

/// Standard padded base64 of `bytes` (written here, independently of the
/// checker's decoder).
fn base64(bytes: &[u8]) -> String {
    base64::encode(bytes)
}

/// A file with one triangle: POSITION (accessor 0, with `min` / `max` as
/// given) and u16 indices (accessor 1) in a data-URI buffer.
fn triangle(positions: [[f32; 3]; 3], min: [f32; 3], max: [f32; 3], indices: [u16; 3]) -> Value {
    let mut bin: Vec<u8> = positions.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    bin.extend([0, 0]);
    json!({
        "asset": {"version": "2.0"},
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": min, "max": max},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}
        ],
        "bufferViews": [{"buffer": 0, "byteLength": 36, "target": 34962}, {"buffer": 0, "byteOffset": 36, "byteLength": 6, "target": 34963}],
        "buffers": [{"byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64(&bin))}]
    })
}

fn good() -> Value {
    triangle([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]], [0.0, 0.0, 0.0], [1.0, 2.0, 0.0], [0, 1, 2])
}

/// Every warning for the file `v` (JSON, image and data rules), as the
/// loader gives them.
fn warnings(v: &Value) -> Vec<String> {
    let bytes = serde_json::to_vec(v).unwrap();
    let (document, buffers, decoded) =
        parse_with_buffers(&bytes, Path::new("."), false).expect("the test file must parse");
    file_problems(&raw_json(&bytes), &bytes, Path::new("."), &document, &buffers, &decoded)
}

/// `v` changed by `edit` warns exactly once per pointer in `at`, each
/// warning starting with its pointer.
#[track_caller]
fn breach(edit: impl FnOnce(&mut Value), at: &[&str]) {
    let mut v = good();
    edit(&mut v);
    let found = warnings(&v);
    for p in at {
        assert!(found.iter().any(|w| w.starts_with(&format!("{p}:"))), "no warning at {p}: {found:?}");
    }
    assert_eq!(found.len(), at.len(), "{found:?}");
}

#[test]
fn a_valid_file_gives_no_warning() {
    assert_eq!(warnings(&good()), Vec::<String>::new());
}

#[test]
fn empty_arrays() {
    breach(|v| v["samplers"] = json!([]), &["/samplers"]);
    breach(|v| v["nodes"][0]["children"] = json!([]), &["/nodes/0/children"]);
    // Free-form extras may hold anything.
    breach(|v| v["extras"] = json!({"nodes": []}), &[]);
}

#[test]
fn extension_objects_undeclared_or_misplaced() {
    let unlit = json!({"KHR_materials_unlit": {}});
    breach(|v| v["materials"] = json!([{"extensions": unlit}]), &["/materials/0/extensions/KHR_materials_unlit"]);
    breach(
        |v| {
            v["extensionsUsed"] = json!(["KHR_materials_unlit"]);
            v["nodes"][0]["extensions"] = unlit.clone();
        },
        &["/nodes/0/extensions/KHR_materials_unlit"],
    );
    breach(
        |v| {
            v["extensionsUsed"] = json!(["KHR_materials_unlit"]);
            v["materials"] = json!([{"extensions": unlit}]);
        },
        &[],
    );
    // (A file requiring what this viewport cannot read is refused before
    // the checks: the JSON check alone.)
    let mut v = good();
    v["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
    let found = check_json(&v);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("/extensionsRequired: KHR_mesh_quantization"), "{found:?}");
    breach(|v| v["extensionsUsed"] = json!(["EXT_x", "EXT_x"]), &["/extensionsUsed/1"]);
}

#[test]
fn values_out_of_range() {
    breach(
        |v| {
            v["extensionsUsed"] = json!(["KHR_materials_ior", "KHR_materials_specular"]);
            v["materials"] = json!([{"extensions": {
                "KHR_materials_ior": {"ior": 0.5}, "KHR_materials_specular": {"specularFactor": 1.5}}}]);
        },
        &[
            "/materials/0/extensions/KHR_materials_ior/ior",
            "/materials/0/extensions/KHR_materials_specular/specularFactor",
        ],
    );
    breach(
        |v| v["cameras"] = json!([{"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.0}}]),
        &["/cameras/0/perspective/znear"],
    );
    breach(
        |v| v["cameras"] = json!([{"type": "perspective", "perspective": {"yfov": 1, "znear": 2, "zfar": 1}}]),
        &["/cameras/0/perspective"],
    );
    breach(
        |v| {
            v["cameras"] =
                json!([{"type": "orthographic", "orthographic": {"xmag": 0, "ymag": 1, "znear": 0, "zfar": 1}}])
        },
        &["/cameras/0/orthographic"],
    );
}

#[test]
fn dependencies_and_references() {
    breach(|v| v["nodes"] = json!([{"mesh": 0}, {"weights": [1.0]}]), &["/nodes/1/weights"]);
    breach(|v| v["accessors"][1]["byteOffset"] = json!(0), &[]);
    breach(
        |v| {
            v["animations"] = json!([{"channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
                                      "samplers": [{"input": 1, "output": 0}]}])
        },
        // The sampler's input is u16, not float, and has no min / max.
        &["/animations/0/channels/0", "/animations/0/samplers/0/input"],
    );
}

#[test]
fn uris() {
    breach(|v| v["images"] = json!([{"uri": ":"}]), &["/images/0/uri"]);
    breach(|v| v["images"] = json!([{"uri": "data:image/png;base64,`"}]), &["/images/0/uri"]);
    let png = base64(b"\x89PNG\r\n\x1a\n\0\0\0\0IEND\xaeB`\x82");
    breach(|v| v["images"] = json!([{"uri": format!("data:image/png;base64,{png}")}]), &[]);
    // Declared JPEG, a whole PNG inside.
    breach(|v| v["images"] = json!([{"uri": format!("data:image/jpeg;base64,{png}")}]), &["/images/0/uri"]);
    // A PNG cut off before IEND.
    let cut = base64(b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR");
    breach(|v| v["images"] = json!([{"uri": format!("data:image/png;base64,{cut}")}]), &["/images/0"]);
    breach(|v| v["images"] = json!([{"uri": "no_such_file_here.png"}]), &["/images/0/uri"]);
    // As a base colour image it is decoded, and reported, by material.rs.
    breach(
        |v| {
            v["images"] = json!([{"uri": "no_such_file_here.png"}]);
            v["textures"] = json!([{"source": 0}]);
            v["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
        },
        &[],
    );
}

#[test]
fn buffer_view_usage_and_layout() {
    // The index view declared as vertex data.
    breach(|v| v["bufferViews"][1]["target"] = json!(34962), &["/meshes/0/primitives/0/indices"]);
    // 8 bytes apart, but a VEC3 of floats is 12.
    breach(|v| v["bufferViews"][0]["byteStride"] = json!(8), &["/accessors/0"]);
    breach(|v| v["bufferViews"][1]["byteLength"] = json!(100), &["/bufferViews/1"]);
    breach(|v| v["accessors"][0]["normalized"] = json!(true), &["/accessors/0/normalized"]);
}

#[test]
fn nodes_scenes_and_skins() {
    breach(|v| v["nodes"][0]["rotation"] = json!([0, 0, 0, 2]), &["/nodes/0/rotation"]);
    breach(|v| v["nodes"] = json!([{"mesh": 0, "children": [1]}, {"children": [0]}]), &["/nodes/0"]);
    breach(|v| v["nodes"] = json!([{"children": [1]}, {}]), &[]);
    breach(
        |v| {
            v["nodes"] = json!([{"children": [1]}, {}]);
            v["scenes"][0]["nodes"] = json!([1]);
        },
        &["/scenes/0/nodes/0"],
    );
    breach(
        |v| {
            v["nodes"] = json!([{"mesh": 0}, {}, {}]);
            v["skins"] = json!([{"joints": [1, 2]}]);
        },
        &["/skins/0/joints"],
    );
}

#[test]
fn primitives_and_morph_targets() {
    breach(
        |v| v["meshes"][0]["primitives"][0]["targets"] = json!([{"NORMAL": 0}]),
        &["/meshes/0/primitives/0/targets/0/NORMAL"],
    );
    breach(|v| v["meshes"][0]["weights"] = json!([0.5]), &["/meshes/0/weights"]);
    breach(
        |v| {
            v["textures"] = json!([{}]);
            v["materials"] = json!([{"emissiveTexture": {"index": 0, "texCoord": 1}}]);
            v["meshes"][0]["primitives"][0]["material"] = json!(0);
        },
        &["/meshes/0/primitives/0"],
    );
}

#[test]
fn accessor_data() {
    // The declared max (5) is not the data's (2); min matches.
    let mut v = good();
    v["accessors"][0]["max"] = json!([1.0, 5.0, 0.0]);
    assert_eq!(warnings(&v), vec!["/accessors/0/max/1: declared 5, but the data's max is 2"]);
    let v = triangle([[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [0.0; 3], [1.0, 1.0, 0.0], [0, 1, 3]);
    let found = warnings(&v);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("/meshes/0/primitives/0/indices: an index beyond the 3 vertices"), "{found:?}");
    let v = triangle([[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [0.0; 3], [1.0, 1.0, 0.0], [0, 1, 65535]);
    assert!(warnings(&v)[0].contains("primitive restart"));
    let inf = triangle([[0.0; 3], [f32::INFINITY, 0.0, 0.0], [0.0; 3]], [0.0; 3], [1.0, 0.0, 0.0], [0, 1, 2]);
    assert_eq!(warnings(&inf), vec!["/accessors/0: its data has a non-finite float"]);
}

#[test]
fn hostile_indices_warn_without_panicking() {
    let mut v = good();
    v["nodes"][0]["children"] = json!([99, -1]);
    v["skins"] = json!([{"joints": [99], "inverseBindMatrices": 42, "skeleton": 7}]);
    v["textures"] = json!([{"extensions": {"EXT_texture_webp": {"source": 9}}}]);
    v["extensionsUsed"] = json!(["EXT_texture_webp"]);
    let json = v.to_string();
    let found = check_json(&serde_json::from_str(&json).unwrap());
    assert!(found.iter().any(|w| w.starts_with("/textures/0/extensions/EXT_texture_webp/source:")), "{found:?}");
}

#[test]
fn a_glb_with_a_duplicate_or_unaligned_chunk() {
    let json = br#"{"asset":{"version":"2.0"}}"#; // 27 bytes: unaligned
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut c = (data.len() as u32).to_le_bytes().to_vec();
        c.extend(kind);
        c.extend(data);
        c
    };
    let body = [chunk(b"JSON", json), chunk(b"BIN\0", &[0; 4]), chunk(b"BIN\0", &[0; 4])].concat();
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend((12 + body.len() as u32).to_le_bytes());
    glb.extend(body);
    let mut out = Vec::new();
    mesh::check_glb(&glb, &serde_json::from_slice(json).unwrap(), &mut out);
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out[0].starts_with("GLB chunk 0: its length 27"), "{out:?}");
    assert!(out[1].starts_with("GLB chunk 2: a second chunk"), "{out:?}");
}

#[test]
fn required_dependent_and_exclusive_properties() {
    // Both views then run past the buffer's end too.
    breach(
        |v| v["buffers"][0]["byteLength"] = json!(0),
        &["/buffers/0/byteLength", "/bufferViews/0", "/bufferViews/1"],
    );
    breach(
        |v| {
            v["nodes"] = json!([{"mesh": 0}, {"skin": 0}]);
            v["skins"] = json!([{"joints": [0]}]);
        },
        &["/nodes/1/skin"],
    );
    let png = base64(b"\x89PNG\r\n\x1a\n\0\0\0\0IEND\xaeB`\x82");
    let uri = format!("data:image/png;base64,{png}");
    breach(|v| v["images"] = json!([{"uri": uri, "bufferView": 1, "mimeType": "image/png"}]), &["/images/0"]);
    breach(|v| v["images"] = json!([{"bufferView": 1}]), &["/images/0/bufferView"]);
    breach(
        |v| {
            v["cameras"] = json!([{"type": "perspective", "perspective": {"yfov": 1, "znear": 1},
                                   "orthographic": {"xmag": 1, "ymag": 1, "znear": 0, "zfar": 1}}])
        },
        &["/cameras/0"],
    );
    breach(|v| v["asset"]["minVersion"] = json!("2.1"), &["/asset/minVersion"]);
    breach(|v| v["asset"]["minVersion"] = json!("2.0"), &[]);
}

#[test]
fn extension_rules() {
    let lights = |v: &mut Value, spot: Value| {
        v["extensionsUsed"] = json!(["KHR_lights_punctual"]);
        v["extensions"] = json!({"KHR_lights_punctual": {"lights": [spot]}});
    };
    breach(|v| lights(v, json!({"type": "spot"})), &["/extensions/KHR_lights_punctual/lights/0"]);
    breach(
        |v| lights(v, json!({"type": "spot", "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.1}})),
        &["/extensions/KHR_lights_punctual/lights/0/spot"],
    );
    breach(|v| lights(v, json!({"type": "spot", "spot": {"innerConeAngle": 0.1, "outerConeAngle": 0.2}})), &[]);
    breach(
        |v| {
            v["extensionsUsed"] = json!(["KHR_lights_punctual"]);
            v["nodes"][0]["extensions"] = json!({"KHR_lights_punctual": {"light": 0}});
        },
        &["/nodes/0/extensions/KHR_lights_punctual"],
    );
    let variants = |v: &mut Value, mapped: Value| {
        v["extensionsUsed"] = json!(["KHR_materials_variants"]);
        v["extensions"] = json!({"KHR_materials_variants": {"variants": [{"name": "a"}]}});
        v["materials"] = json!([{}]);
        v["meshes"][0]["primitives"][0]["extensions"] =
            json!({"KHR_materials_variants": {"mappings": [{"material": 0, "variants": mapped}]}});
    };
    breach(|v| variants(v, json!([0])), &[]);
    breach(|v| variants(v, json!([0, 0])), &["/meshes/0/primitives/0/extensions/KHR_materials_variants"]);
    breach(
        |v| variants(v, json!([1])),
        &["/meshes/0/primitives/0/extensions/KHR_materials_variants/mappings/0/variants/0"],
    );
    breach(|v| v["extensionsUsed"] = json!(["KHR_mesh_quantization"]), &["/extensionsUsed"]);
    breach(|v| v["images"] = json!([{"uri": "x.webp", "mimeType": "image/webp"}]), &["/images/0", "/images/0/uri"]);
}

#[test]
fn accessor_layout() {
    // A u16 accessor 1 byte into its view.
    breach(|v| v["accessors"][1]["byteOffset"] = json!(1), &["/accessors/1/byteOffset"]);
    breach(
        |v| {
            v["accessors"][1]["sparse"] = json!({"count": 4, "indices": {"bufferView": 1, "componentType": 5123},
                                                  "values": {"bufferView": 1}})
        },
        &["/accessors/1/sparse/count"],
    );
    breach(
        |v| {
            let uri = v["buffers"][0]["uri"].as_str().unwrap().replace("application/octet-stream", "text/plain");
            v["buffers"][0]["uri"] = json!(uri);
        },
        &["/buffers/0/uri"],
    );
    breach(
        |v| v["bufferViews"][1]["byteStride"] = json!(4),
        &["/bufferViews/1/byteStride", "/meshes/0/primitives/0/indices"],
    );
}

#[test]
fn primitive_attribute_rules() {
    // The index accessor also as JOINTS_0: no WEIGHTS_0, and its view is
    // then both index and vertex data (a warning at each use).
    breach(
        |v| v["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = json!(1),
        &["/meshes/0/primitives/0/attributes", "/meshes/0/primitives/0/JOINTS_0", "/meshes/0/primitives/0/indices"],
    );
    breach(
        |v| v["meshes"][0]["primitives"][0]["indices"] = json!(0),
        // Not unsigned scalars, and POSITION's view then both kinds.
        &["/meshes/0/primitives/0/indices", "/meshes/0/primitives/0/indices", "/meshes/0/primitives/0/POSITION"],
    );
    breach(
        |v| {
            v["accessors"][1]["count"] = json!(2);
            v["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = json!(1);
            v["bufferViews"][1].as_object_mut().unwrap().remove("target");
            v["meshes"][0]["primitives"][0].as_object_mut().unwrap().remove("indices");
        },
        &["/meshes/0/primitives/0/attributes"],
    );
    breach(
        |v| {
            v["extensionsUsed"] = json!(["KHR_materials_anisotropy"]);
            v["materials"] = json!([{"extensions": {"KHR_materials_anisotropy": {}}}]);
            v["meshes"][0]["primitives"][0]["material"] = json!(0);
        },
        &["/meshes/0/primitives/0/material"],
    );
}

#[test]
fn node_rules() {
    breach(|v| v["nodes"] = json!([{"mesh": 0, "children": [1]}, {}, {"children": [1]}]), &["/nodes/2/children/0"]);
    breach(|v| v["nodes"][0]["matrix"] = json!([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]), &[]);
    breach(|v| v["nodes"][0]["matrix"] = json!([1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]), &["/nodes/0/matrix"]);
    breach(
        |v| {
            v["nodes"][0]["matrix"] = json!([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
            v["nodes"][0]["scale"] = json!([1, 1, 1]);
        },
        &["/nodes/0/matrix"],
    );
    breach(
        |v| {
            v["nodes"] = json!([{"mesh": 0, "skin": 0, "children": [1, 2]}, {}, {}]);
            v["skins"] = json!([{"joints": [1, 2], "skeleton": 1}]);
        },
        // The mesh has no JOINTS_0; node 1 is not above node 2.
        &["/nodes/0/skin", "/skins/0/skeleton"],
    );
    // Node 0 is skinned by node 1, which is in no scene.
    breach(
        |v| {
            v["nodes"] = json!([{"mesh": 0, "skin": 0}, {}]);
            v["skins"] = json!([{"joints": [1]}]);
        },
        &["/nodes/0/skin", "/nodes/0"],
    );
}

/// [`good`] with more float accessors (2, 3, ...), each `(type, values)` in
/// its own view, with their true per-component `min` / `max`.
fn good_with(extra: &[(&str, &[f32])]) -> Value {
    let mut v = good();
    let old = v["buffers"][0]["uri"].as_str().unwrap().to_string();
    let prefix = "data:application/octet-stream;base64,";
    // Rebuild the buffer: the triangle's 44 bytes, then each accessor's.
    let mut bin = Vec::new();
    for x in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0] {
        bin.extend(x.to_le_bytes());
    }
    bin.extend([0, 0, 1, 0, 2, 0, 0, 0]);
    assert_eq!(base64(&bin), old.strip_prefix(prefix).unwrap(), "the triangle's bytes must be the same");
    for (kind, values) in extra {
        let n = match *kind {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 16,
        };
        let (start, count) = (bin.len(), values.len() / n);
        bin.extend(values.iter().flat_map(|x| x.to_le_bytes()));
        let column = |k: usize| values.iter().skip(k).step_by(n).map(|&x| f64::from(x));
        let min: Vec<f64> = (0..n).map(|k| column(k).fold(f64::INFINITY, f64::min)).collect();
        let max: Vec<f64> = (0..n).map(|k| column(k).fold(f64::NEG_INFINITY, f64::max)).collect();
        let view = v["bufferViews"].as_array().unwrap().len();
        v["bufferViews"]
            .as_array_mut()
            .unwrap()
            .push(json!({"buffer": 0, "byteOffset": start, "byteLength": 4 * values.len()}));
        v["accessors"].as_array_mut().unwrap().push(
            json!({"bufferView": view, "componentType": 5126, "count": count, "type": kind, "min": min, "max": max}),
        );
    }
    v["buffers"][0] = json!({"byteLength": bin.len(), "uri": format!("{prefix}{}", base64(&bin))});
    v
}

/// An animation of node 0's `path` by accessors `input` and `output`.
fn animate(v: &mut Value, path: &str, input: usize, output: usize, interpolation: &str) {
    v["animations"] = json!([{"channels": [{"sampler": 0, "target": {"node": 0, "path": path}}],
                              "samplers": [{"input": input, "output": output, "interpolation": interpolation}]}]);
}

#[test]
fn animation_rules() {
    let times: &[f32] = &[0.0, 1.0];
    let moves: &[f32] = &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    let turns: &[f32] = &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0];
    let base = good_with(&[("SCALAR", times), ("VEC3", moves), ("VEC4", turns)]);
    let check = |edit: &dyn Fn(&mut Value), expected: &[&str]| {
        let mut v = base.clone();
        edit(&mut v);
        let found = warnings(&v);
        assert_eq!(found.len(), expected.len(), "{found:?}");
        for e in expected {
            assert!(found.iter().any(|w| w.starts_with(e)), "no {e}: {found:?}");
        }
    };
    check(&|v| animate(v, "translation", 2, 3, "LINEAR"), &[]);
    // Two keyframes need 2 outputs, or 6 for a cubic spline.
    check(
        &|v| animate(v, "translation", 2, 3, "CUBICSPLINE"),
        &["/animations/0/channels/0: its sampler's output has 2"],
    );
    // VEC4 for a translation.
    check(
        &|v| animate(v, "translation", 2, 4, "LINEAR"),
        &["/animations/0/channels/0: its sampler's output must be VEC3"],
    );
    // The second rotation (0 0 0 2) is twice a unit quaternion's length.
    check(&|v| animate(v, "rotation", 2, 4, "LINEAR"), &["/animations/0/channels/0: its sampler's rotations"]);
    check(&|v| animate(v, "weights", 2, 2, "LINEAR"), &["/animations/0/channels/0/target/node: its mesh has no morph"]);
    check(
        &|v| {
            animate(v, "translation", 2, 3, "LINEAR");
            v["nodes"][0]["matrix"] = json!([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
        },
        &["/animations/0/channels/0/target/node: a node with a matrix"],
    );
    check(
        &|v| {
            animate(v, "translation", 2, 3, "LINEAR");
            let channel = v["animations"][0]["channels"][0].clone();
            v["animations"][0]["channels"].as_array_mut().unwrap().push(channel);
        },
        &["/animations/0/channels/1/target: another channel"],
    );
    // Keyframe times 1, 0: decreasing. -1 first: before 0.
    let back = good_with(&[("SCALAR", &[1.0, 0.0]), ("VEC3", moves)]);
    let mut v = back.clone();
    animate(&mut v, "translation", 2, 3, "LINEAR");
    assert_eq!(warnings(&v), vec!["/animations/0/channels/0: its sampler's input does not strictly increase"]);
    let mut v = good_with(&[("SCALAR", &[-1.0, 0.0]), ("VEC3", moves)]);
    animate(&mut v, "translation", 2, 3, "LINEAR");
    assert_eq!(warnings(&v), vec!["/animations/0/channels/0: its sampler's input starts before 0"]);
    let pointer = |v: &mut Value, target: Value| {
        v["extensionsUsed"] = json!(["KHR_animation_pointer"]);
        animate(v, "pointer", 2, 3, "LINEAR");
        v["animations"][0]["channels"][0]["target"] = target;
    };
    let ext = |p: &str| json!({"KHR_animation_pointer": {"pointer": p}});
    check(&|v| pointer(v, json!({"path": "pointer", "extensions": ext("/nodes/0/translation")})), &[]);
    check(
        &|v| pointer(v, json!({"path": "pointer", "extensions": ext("nodes/0/translation")})),
        &["/animations/0/channels/0/target/extensions/KHR_animation_pointer/pointer"],
    );
    check(
        &|v| pointer(v, json!({"path": "pointer", "extensions": {"KHR_animation_pointer": {}}})),
        &["/animations/0/channels/0/target/extensions/KHR_animation_pointer"],
    );
}

#[test]
fn skin_and_vertex_data_rules() {
    let identity: Vec<f32> = (0..16).map(|k| if k % 5 == 0 { 1.0 } else { 0.0 }).collect();
    let mut bad = identity.clone();
    bad[3] = 1.0; // the last row's first element
    let skin = |ibm: &[f32]| {
        let mut v = good_with(&[("MAT4", ibm)]);
        v["nodes"] = json!([{"mesh": 0, "children": [1]}, {}]);
        v["skins"] = json!([{"joints": [1], "inverseBindMatrices": 2}]);
        warnings(&v)
    };
    assert_eq!(skin(&identity), Vec::<String>::new());
    assert_eq!(skin(&bad), vec!["/skins/0/inverseBindMatrices: a matrix whose last row is not 0 0 0 1"]);
    let mut v = good_with(&[("MAT4", &identity)]);
    v["nodes"] = json!([{"mesh": 0, "children": [1, 2]}, {}, {}]);
    v["skins"] = json!([{"joints": [1, 2], "inverseBindMatrices": 2}]);
    assert_eq!(warnings(&v), vec!["/skins/0/inverseBindMatrices: fewer matrices than the skin's 2 joints"]);
    // Normals of length 1, 1 and 2.
    let mut v = good_with(&[("VEC3", &[0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0])]);
    v["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = json!(2);
    assert_eq!(
        warnings(&v),
        vec!["/meshes/0/primitives/0/attributes/NORMAL: not unit length (or a tangent's w is not 1 or -1)"]
    );
}

#[test]
fn images_in_buffer_views_and_jpeg_structure() {
    let mut v = good();
    v["images"] = json!([{"bufferView": 0, "mimeType": "image/png"}]);
    v["bufferViews"][0]["byteStride"] = json!(12);
    // The view holds positions, not a PNG: only the stride rule applies.
    assert_eq!(warnings(&v), vec!["/images/0/bufferView: image data cannot have a byteStride"]);
    // SOI, then an APP0 segment claiming 0x1000 bytes in a 16-byte file.
    let jpeg = base64(&[0xFF, 0xD8, 0xFF, 0xE0, 0x10, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    breach(|v| v["images"] = json!([{"uri": format!("data:image/jpeg;base64,{jpeg}")}]), &["/images/0"]);
    let whole = base64(&[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0, 0, 0xFF, 0xD9]);
    breach(|v| v["images"] = json!([{"uri": format!("data:image/jpeg;base64,{whole}")}]), &[]);
}
