//! Unit tests of the glTF checks (`gltf_check*.rs`): per rule, a small file
//! that breaks it warns at the JSON pointer of the breach, and the same file
//! with the breach mended does not.

use super::*;
use serde_json::{json, Value};

/// Standard padded base64 of `bytes` (written here, independently of the
/// checker's decoder).
fn base64(bytes: &[u8]) -> String {
    const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let word = group.iter().enumerate().fold(0u32, |acc, (k, &b)| acc | u32::from(b) << (16 - 8 * k));
        for k in 0..4 {
            out.push(if k <= group.len() { DIGITS[(word >> (18 - 6 * k) & 63) as usize] as char } else { '=' });
        }
    }
    out
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
    let (document, buffers) = parse_with_buffers(&bytes, Path::new("."), false).expect("the test file must parse");
    check::file_problems(&bytes, Path::new("."), &document, &buffers)
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
    let found = check::check_json(&v);
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
    let found = check::check_json(&serde_json::from_str(&json).unwrap());
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
    check_mesh::check_glb(&glb, &serde_json::from_slice(json).unwrap(), &mut out);
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out[0].starts_with("GLB chunk 0: its length 27"), "{out:?}");
    assert!(out[1].starts_with("GLB chunk 2: a second chunk"), "{out:?}");
}
