//! Tests of the Draco decoding: component types, skins, panics, limits and
//! mutated data.

use super::*;
use draco_core::{DataType, EncoderBuffer, EncoderOptions, GeometryAttributeType as G, MeshEncoder};
use draco_core::{PointAttribute, PointIndex};
use rand::{Rng, SeedableRng};
use std::path::Path;

/// A 3 x 3 grid of points (8 triangles) with joints (bytes), weights
/// (floats) and colours (normalised bytes), all distinct per point.
struct Grid {
    positions: Vec<[f32; 3]>,
    joints: Vec<[u8; 4]>,
    weights: Vec<[f32; 4]>,
    colors: Vec<[u8; 4]>,
    triangles: Vec<[u32; 3]>,
}

fn grid() -> Grid {
    let mut g = Grid { positions: vec![], joints: vec![], weights: vec![], colors: vec![], triangles: vec![] };
    for k in 0..9u8 {
        let (x, y) = (f32::from(k % 3), f32::from(k / 3));
        g.positions.push([x * 0.5, y * 0.25, 0.1 * x * y]);
        g.joints.push([k, k + 1, 20 - k, 3]);
        let w = f32::from(k) / 16.0;
        g.weights.push([0.5 - w / 2.0, 0.25 + w / 4.0, 0.125 + w / 8.0, 0.125 + w / 8.0]);
        g.colors.push([k * 25, 255 - k * 20, 7 * k, 255]);
    }
    for r in 0..2u32 {
        for c in 0..2u32 {
            let a = r * 3 + c;
            g.triangles.push([a, a + 1, a + 4]);
            g.triangles.push([a, a + 4, a + 3]);
        }
    }
    g
}

/// `g` encoded at `speed` (10: sequentially, the points and triangles
/// keeping their order; below: EdgeBreaker), positions quantised to 12
/// bits, the rest lossless; ids 0 to 3 in the order positions, joints,
/// weights, colours.
fn encode(g: &Grid, speed: i32) -> Vec<u8> {
    let n = g.positions.len();
    let mut mesh = Mesh::new();
    let mut add = |kind: G, components: u8, t: DataType, normalized: bool, bytes: Vec<u8>| {
        let mut a = PointAttribute::new();
        a.init(kind, components, t, normalized, n);
        a.buffer_mut().write(0, &bytes);
        mesh.add_attribute(a)
    };
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let p = add(G::Position, 3, DataType::Float32, false, floats(g.positions.as_flattened()));
    add(G::Generic, 4, DataType::Uint8, false, g.joints.as_flattened().to_vec());
    add(G::Generic, 4, DataType::Float32, false, floats(g.weights.as_flattened()));
    add(G::Color, 4, DataType::Uint8, true, g.colors.as_flattened().to_vec());
    for t in &g.triangles {
        mesh.add_face(t.map(PointIndex));
    }
    let mut options = EncoderOptions::new();
    options.set_global_int("encoding_speed", speed);
    options.set_global_int("decoding_speed", speed);
    options.set_attribute_quantization(p, 12);
    let mut encoder = MeshEncoder::new();
    encoder.set_mesh(mesh);
    let mut out = EncoderBuffer::new();
    encoder.encode(&options, &mut out).unwrap();
    out.data().to_vec()
}

/// A file of one Draco primitive over `compressed` (in buffer 0):
/// joints read into unsigned shorts (widened), colours into floats.
fn file(g: &Grid, compressed: &[u8]) -> (Value, Vec<Vec<u8>>) {
    let n = g.positions.len();
    let json = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": [NAME, "KHR_materials_variants"], "extensionsRequired": [NAME],
        "buffers": [{"byteLength": compressed.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": compressed.len()}],
        "accessors": [
            {"componentType": 5126, "count": n, "type": "VEC3", "min": [0, 0, 0], "max": [1, 0.5, 0.4]},
            {"componentType": 5123, "count": n, "type": "VEC4"},
            {"componentType": 5126, "count": n, "type": "VEC4"},
            {"componentType": 5126, "count": n, "type": "VEC4"},
            {"componentType": 5125, "count": 3 * g.triangles.len(), "type": "SCALAR"}
        ],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "COLOR_0": 3}, "indices": 4,
            "extensions": {NAME: {"bufferView": 0,
                "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "COLOR_0": 3}},
                "KHR_materials_variants": {"mappings": []}}
        }]}]
    });
    (json, vec![compressed.to_vec()])
}

/// The `N`-component elements of accessor `a` of a rewritten file.
fn read<const N: usize, T>(root: &Value, buffers: &[Vec<u8>], a: usize, size: usize, f: fn(&[u8]) -> T) -> Vec<[T; N]> {
    let accessor = &root["accessors"][a];
    let view = &root["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let buffer = &buffers[view["buffer"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap() as usize;
    let bytes = &buffer[start..start + view["byteLength"].as_u64().unwrap() as usize];
    assert_eq!(bytes.len(), accessor["count"].as_u64().unwrap() as usize * N * size);
    bytes.chunks_exact(N * size).map(|e| std::array::from_fn(|c| f(&e[c * size..(c + 1) * size]))).collect()
}

#[test]
fn every_attribute_is_written_in_its_accessors_component_type() {
    let g = grid();
    let (mut root, mut buffers) = file(&g, &encode(&g, 10));
    let mut decoded = decode_primitives(&mut root, &mut buffers).unwrap();
    decoded.sort_unstable();
    assert_eq!(decoded, vec![0, 1, 2, 3, 4]);
    // The file now reads plain data: one new buffer, no extension left
    // (the primitive's other extension stays).
    assert_eq!(buffers.len(), 2);
    assert_eq!(root["buffers"][1]["byteLength"], json!(buffers[1].len()));
    assert_eq!(root["extensionsUsed"], json!(["KHR_materials_variants"]));
    assert!(root.get("extensionsRequired").is_none());
    let primitive = &root["meshes"][0]["primitives"][0];
    assert_eq!(primitive["extensions"], json!({"KHR_materials_variants": {"mappings": []}}));
    assert!(super::super::lenient::document_from_tree(root.clone()).is_ok());

    let f32s = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    // Positions within half a step of 12 bits over the grid's extent (1).
    let positions = read::<3, f32>(&root, &buffers, 0, 4, f32s);
    let half_step = 1.0 / 4095.0 / 2.0 + 1e-6;
    for (got, want) in positions.iter().zip(&g.positions) {
        assert!((0..3).all(|c| (got[c] - want[c]).abs() <= half_step), "{got:?} vs {want:?}");
    }
    // The declared bounds are the decoded data's.
    for (key, pick) in [("min", f32::min as fn(f32, f32) -> f32), ("max", f32::max)] {
        let want: Vec<f64> = (0..3).map(|c| f64::from(positions.iter().map(|p| p[c]).reduce(pick).unwrap())).collect();
        assert_eq!(root["accessors"][0][key], json!(want), "{key}");
    }
    // Joints widened to shorts, weights exact, colours as fractions.
    let joints = read::<4, u16>(&root, &buffers, 1, 2, |b| u16::from_le_bytes([b[0], b[1]]));
    assert_eq!(joints, g.joints.iter().map(|j| j.map(u16::from)).collect::<Vec<_>>());
    assert_eq!(read::<4, f32>(&root, &buffers, 2, 4, f32s), g.weights);
    let colors = read::<4, f32>(&root, &buffers, 3, 4, f32s);
    for (got, want) in colors.iter().zip(&g.colors) {
        assert!((0..4).all(|c| (got[c] - f32::from(want[c]) / 255.0).abs() < 1e-6), "{got:?} vs {want:?}");
    }
    let indices = read::<1, u32>(&root, &buffers, 4, 4, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    assert_eq!(indices.concat(), g.triangles.concat());
}

/// Joints (bytes, widened to shorts) and weights (floats) decoded from
/// Draco pose a skin as the file gives them: joint k moved by k along x
/// moves each vertex by its weighted mean joint index.
#[test]
fn draco_joints_and_weights_pose_a_skin() {
    use nalgebra::{Matrix4, Vector3};
    let g = grid();
    let compressed = encode(&g, 10);
    let (mut json, _) = file(&g, &compressed);
    json["buffers"][0]["uri"] = json!(format!("data:application/octet-stream;base64,{}", base64::encode(&compressed)));
    json["extensionsUsed"] = json!([NAME]);
    json["meshes"][0]["primitives"][0]["extensions"].as_object_mut().unwrap().remove("KHR_materials_variants");
    const JOINTS: usize = 21;
    // Joint 0 (node 1) is the parent of the others.
    let root = json!({"children": (2..=JOINTS).collect::<Vec<_>>()});
    let leaves = (1..JOINTS).map(|_| json!({}));
    json["nodes"] = Value::Array([json!({"mesh": 0, "skin": 0}), root].into_iter().chain(leaves).collect());
    json["skins"] = json!([{"joints": (1..=JOINTS).collect::<Vec<_>>()}]);
    json["scene"] = json!(0);
    json["scenes"] = json!([{"nodes": [0, 1]}]);
    let file = super::super::GltfFile::from_bytes(Path::new("skin.gltf"), &serde_json::to_vec(&json).unwrap()).unwrap();
    assert!(file.problems.is_empty(), "{:?}", file.problems);
    let skin = file.skin_data(0, 0).unwrap();
    let worlds: Vec<Matrix4<f64>> =
        (0..JOINTS).map(|k| Matrix4::new_translation(&Vector3::new(k as f64, 0.0, 0.0))).collect();
    let posed = skin.pose(&worlds, &Matrix4::identity()).mesh;
    // Without normals each triangle has its own three vertices, in the
    // order of the (sequentially encoded, so unchanged) triangles.
    let half_step = 1.0 / 4095.0 / 2.0 + 1e-5;
    for (t, triangle) in g.triangles.iter().enumerate() {
        for (c, &v) in triangle.iter().enumerate() {
            let v = v as usize;
            let weights = g.weights[v];
            let shift: f32 =
                (0..4).map(|i| weights[i] * f32::from(g.joints[v][i])).sum::<f32>() / weights.iter().sum::<f32>();
            let want = [g.positions[v][0] + shift, g.positions[v][1], g.positions[v][2]];
            let got = posed.positions[3 * t + c];
            assert!((0..3).all(|k| (got[k] - want[k]).abs() <= half_step), "vertex {v}: {got:?} vs {want:?}");
        }
    }
}

#[test]
fn a_panic_in_the_decoder_is_an_error_line() {
    let result: Result<(), String> = guarded(|| panic!("a decoder bug"));
    assert_eq!(result.unwrap_err(), PANICKED);
    // The hook passes other panics on, and this thread decodes again.
    assert!(std::panic::catch_unwind(|| panic!("elsewhere")).is_err());
    assert!(!DECODING.with(Cell::get));
}

/// The budget of a file's primitives: a stream that decodes to more
/// vertices than remain is refused as too large, by the decoder itself
/// or once decoded.
#[test]
fn streams_past_the_files_limits_are_too_large() {
    let g = grid();
    let bytes = encode(&g, 10);
    let tight = |points: u64, faces: u64, size: u64| {
        decode_mesh(&bytes, &mut Budget { points, faces, bytes: size }).map(|m| m.num_points())
    };
    let mut budget = Budget { points: 20, faces: 20, bytes: 1 << 20 };
    assert_eq!(decode_mesh(&bytes, &mut budget).unwrap().num_points(), 9);
    assert_eq!((budget.points, budget.faces), (11, 12));
    for err in [tight(8, 20, 1 << 20), tight(20, 7, 1 << 20), tight(20, 20, 16)] {
        assert!(err.unwrap_err().starts_with("too large: "));
    }
}

/// Hostile data: a few hundred mutations of valid streams (sequential
/// and EdgeBreaker; bytes changed, cut short, bytes inserted) each
/// decode to a mesh or to an error, through the whole primitive, and
/// draco-core panicked on none.
#[test]
fn mutated_draco_data_is_read_or_refused_never_a_panic() {
    let g = grid();
    let mut rng = rand::rngs::StdRng::seed_from_u64(25);
    for speed in [10, 5, 0] {
        let good = encode(&g, speed);
        let (mut read, mut refused) = (0, 0);
        for round in 0..300 {
            let mut bytes = good.clone();
            match round % 4 {
                0 | 1 => {
                    for _ in 0..rng.gen_range(1..=6) {
                        let at = rng.gen_range(0..bytes.len());
                        bytes[at] = rng.gen();
                    }
                }
                2 => bytes.truncate(rng.gen_range(0..bytes.len())),
                _ => {
                    let at = rng.gen_range(0..=bytes.len());
                    let extra: Vec<u8> = (0..rng.gen_range(1..16)).map(|_| rng.gen()).collect();
                    bytes.splice(at..at, extra);
                }
            }
            let (mut root, mut buffers) = file(&g, &bytes);
            match decode_primitives(&mut root, &mut buffers) {
                Ok(_) => read += 1,
                Err(e) => {
                    assert!(!e.contains(PANICKED), "speed {speed}, round {round}: draco-core panicked");
                    assert!(!e.contains('\n'), "{e}");
                    refused += 1;
                }
            }
        }
        assert!(refused > 75, "speed {speed}: {refused} refused, {read} read");
    }
}
