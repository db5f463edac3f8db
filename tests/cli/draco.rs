//! `KHR_draco_mesh_compression` through the binary (`docs/spec/materials.md`,
//! "Compressed and optimised files"): a Draco file the test encodes with
//! draco-core's own encoder draws like its plain twin and exports decoded
//! (validated); broken Draco data is one error line and exit 2 when the
//! file is opened, and a placeholder box with one warning when a scene
//! uses it as a mesh (`docs/spec/roundtrip.md`, "Every saved file reopens").

use crate::export::export_without_warnings;
use crate::support::cli::{assert_bad_input, viewport_cli, write_file};
use crate::support::image::read_png;

use draco_core::{DataType, EncoderBuffer, EncoderOptions, GeometryAttributeType, Mesh, MeshEncoder};
use draco_core::{PointAttribute, PointIndex};
use serde_json::{json, Value};
use std::path::Path;

/// A box of 24 vertices (each face its own four, with the face's normal)
/// and 12 triangles, off the origin and not a cube.
fn cuboid() -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<u32>) {
    let (mut positions, mut normals, mut indices) = (Vec::new(), Vec::new(), Vec::new());
    let half = [0.8f32, 0.5, 0.6];
    let centre = [0.3f32, -0.2, 0.1];
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = positions.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut p = [0.0f32; 3];
                p[axis] = sign;
                // Walked counter-clockwise seen from outside on either side.
                p[u] = a * sign;
                p[v] = b;
                positions.push(std::array::from_fn(|k| centre[k] + half[k] * p[k]));
                let mut n = [0.0f32; 3];
                n[axis] = sign;
                normals.push(n);
            }
            indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    (positions, normals, indices)
}

fn floats(v: &[[f32; 3]]) -> Vec<u8> {
    v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect()
}

fn data_uri(bytes: &[u8]) -> String {
    format!("data:application/octet-stream;base64,{}", base64::encode(bytes))
}

/// The box's glTF file: `primitive_extra` merged into its primitive; the
/// accessors (positions with bounds, normals, 16-bit indices) have views
/// into `bin` where `views` gives them.
fn file(bin: &[u8], views: Value, accessors: Value, primitive_extra: Value) -> Value {
    let mut primitive = json!({"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2});
    for (k, v) in primitive_extra.as_object().into_iter().flatten() {
        primitive[k] = v.clone();
    }
    json!({
        "asset": {"version": "2.0"},
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0, "name": "box"}],
        "meshes": [{"primitives": [primitive]}],
        "accessors": accessors, "bufferViews": views,
        "buffers": [{"byteLength": bin.len(), "uri": data_uri(bin)}]
    })
}

/// The plain box and its Draco twin (positions to 11 bits, normals to 8).
fn box_files(dir: &Path) -> (String, String) {
    let (positions, normals, indices) = cuboid();
    let bounds = |pick: fn(f32, f32) -> f32| -> Vec<f32> {
        (0..3).map(|k| positions.iter().map(|p| p[k]).reduce(pick).unwrap()).collect()
    };
    let (min, max) = (bounds(f32::min), bounds(f32::max));
    let n = positions.len();

    let mut bin = floats(&positions);
    bin.extend(floats(&normals));
    bin.extend(indices.iter().flat_map(|&i| (i as u16).to_le_bytes()));
    let views = json!([
        {"buffer": 0, "byteOffset": 0, "byteLength": 12 * n},
        {"buffer": 0, "byteOffset": 12 * n, "byteLength": 12 * n},
        {"buffer": 0, "byteOffset": 24 * n, "byteLength": 2 * indices.len()}
    ]);
    let accessors = json!([
        {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3", "min": min, "max": max},
        {"bufferView": 1, "componentType": 5126, "count": n, "type": "VEC3"},
        {"bufferView": 2, "componentType": 5123, "count": indices.len(), "type": "SCALAR"}
    ]);
    let plain = file(&bin, views, accessors, json!({}));

    let mut mesh = Mesh::new();
    for (kind, values) in [(GeometryAttributeType::Position, &positions), (GeometryAttributeType::Normal, &normals)] {
        let mut a = PointAttribute::new();
        a.init(kind, 3, DataType::Float32, false, n);
        a.buffer_mut().write(0, &floats(values));
        mesh.add_attribute(a);
    }
    for t in indices.chunks_exact(3) {
        mesh.add_face([PointIndex(t[0]), PointIndex(t[1]), PointIndex(t[2])]);
    }
    let mut options = EncoderOptions::new();
    options.set_attribute_quantization(0, 11);
    options.set_attribute_quantization(1, 8);
    let mut encoder = MeshEncoder::new();
    encoder.set_mesh(mesh);
    let mut out = EncoderBuffer::new();
    let info = encoder.encode_with_info(&options, &mut out).unwrap();
    let compressed = out.data().to_vec();
    let ids: Vec<u32> = info.attributes.iter().map(|a| a.unique_id).collect();
    let points = info.num_encoded_points;
    let accessors = json!([
        {"componentType": 5126, "count": points, "type": "VEC3", "min": min, "max": max},
        {"componentType": 5126, "count": points, "type": "VEC3"},
        {"componentType": 5123, "count": 3 * info.num_encoded_faces, "type": "SCALAR"}
    ]);
    let views = json!([{"buffer": 0, "byteLength": compressed.len()}]);
    let extension = json!({"extensions": {"KHR_draco_mesh_compression": {
        "bufferView": 0, "attributes": {"POSITION": ids[0], "NORMAL": ids[1]}}}});
    let mut draco = file(&compressed, views, accessors, extension);
    draco["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
    draco["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
    (write_file(dir, "plain.gltf", &plain.to_string()), write_file(dir, "draco.gltf", &draco.to_string()))
}

fn screenshot(input: &str, png: &Path) -> String {
    let out = viewport_cli(&[input, "--headless", "--size", "160x120", "--screenshot", png.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    stderr
}

/// Positions move by at most half a step of 1.6 m over 11 bits (0.4 mm),
/// a small part of a pixel here, and 8-bit normals tilt the shading by
/// about a level: at most 0.5 % of the pixels may differ by more than 8
/// levels (edge pixels).
#[test]
fn a_draco_file_draws_like_its_plain_twin_and_exports_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, draco) = box_files(dir.path());
    let (want_png, got_png) = (dir.path().join("plain.png"), dir.path().join("draco.png"));
    screenshot(&plain, &want_png);
    let stderr = screenshot(&draco, &got_png);
    assert!(!stderr.contains("warning"), "{stderr}");
    let (want, got) = (read_png(&want_png), read_png(&got_png));
    let apart = |a: &[u8], b: &[u8]| {
        a.chunks_exact(4).zip(b.chunks_exact(4)).filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 8)).count()
    };
    let pixels = 160 * 120;
    assert!(apart(&want.data, &got.data) <= pixels / 200, "{} pixels apart", apart(&want.data, &got.data));
    // The comparison tells pictures apart: the box is drawn (the picture of
    // an empty scene differs).
    let empty = write_file(dir.path(), "empty.json", r#"{"objects": []}"#);
    let empty_png = dir.path().join("empty.png");
    screenshot(&empty, &empty_png);
    assert!(apart(&want.data, &read_png(&empty_png).data) > pixels / 20);

    // Exported: valid, no warning, the geometry decoded without the extension.
    let out = dir.path().join("out.glb");
    export_without_warnings(Path::new(&draco), &out);
    let bytes = std::fs::read(&out).unwrap();
    let glb = gltf::Glb::from_slice(&bytes).unwrap();
    let json: Value = serde_json::from_slice(&glb.json).unwrap();
    assert!(!json.to_string().contains("KHR_draco_mesh_compression"), "{json}");
    let out_png = dir.path().join("out.png");
    screenshot(out.to_str().unwrap(), &out_png);
    assert!(apart(&got.data, &read_png(&out_png).data) <= pixels / 200);
}

/// Broken Draco data (bytes that are not a Draco stream) opened directly
/// is one error line naming the file and the extension, exit 2, nothing
/// written; used as a scene's mesh, it is a placeholder box and one
/// warning line.
#[test]
fn broken_draco_data_is_one_line_opened_and_a_placeholder_in_a_scene() {
    let dir = tempfile::tempdir().unwrap();
    let (_, draco) = box_files(dir.path());
    let mut json: Value = serde_json::from_str(&std::fs::read_to_string(&draco).unwrap()).unwrap();
    let garbage: Vec<u8> = (0..96u32).map(|i| (i * 37 % 251) as u8).collect();
    json["bufferViews"][0]["byteLength"] = json!(garbage.len());
    json["buffers"][0] = json!({"byteLength": garbage.len(), "uri": data_uri(&garbage)});
    let broken = write_file(dir.path(), "broken.gltf", &json.to_string());
    let png = dir.path().join("shot.png");
    let out = viewport_cli(&[&broken, "--headless", "--size", "64x64", "--screenshot", png.to_str().unwrap()]);
    assert_bad_input(&out, "broken.gltf: mesh 0, primitive 0: KHR_draco_mesh_compression: the compressed data");
    assert!(!png.exists());

    let scene = write_file(
        dir.path(),
        "scene.json",
        r#"{"objects": [{"name": "crate", "mesh": "broken.gltf"}, {"name": "other", "mesh": "cube"}]}"#,
    );
    let out = viewport_cli(&[&scene, "--headless", "--size", "64x64", "--screenshot", png.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains("placeholder") && lines[0].contains("object \"crate\""), "{stderr}");
    assert!(lines[0].contains("broken.gltf") && lines[0].contains("KHR_draco_mesh_compression"), "{stderr}");
    assert!(png.exists());
}
