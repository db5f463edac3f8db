//! Writes a skinned glTF for the tests: a vertical strip in the xy plane
//! (facing +z, 0.5 wide, from y = 0 to y = 2) on a two-bone skeleton. The
//! rows at y = 0 and y = 1 follow joint `root` (at the origin), the rows at
//! y = 1.2 and y = 2 follow joint `tip` (a child of `root` at y = 1), so the
//! part from y = 1.2 up moves rigidly with `tip` and the part between 1
//! and 1.2 stretches. No normals: the loader makes flat ones, one vertex
//! per triangle corner, so posing must follow that vertex order.

use serde_json::json;
use std::path::{Path, PathBuf};

/// Half the strip's width.
pub const HALF_WIDTH: f64 = 0.25;
/// The heights of the vertex rows, and the joint (0 root, 1 tip) of each.
pub const ROWS: [(f64, u8); 4] = [(0.0, 0), (1.0, 0), (1.2, 1), (2.0, 1)];
/// Where `tip` sits in the bind pose (its translation under `root`).
pub const TIP_AT: [f64; 3] = [0.0, 1.0, 0.0];

/// Writes `dir/NAME.gltf` and `dir/NAME.bin`; nodes: 0 `strip` (the
/// skinned mesh), 1 `root` with child 2 `tip`. Returns the glTF's path.
pub fn write_skinned_strip(dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let mut positions: Vec<f32> = Vec::new();
    let mut joints: Vec<u8> = Vec::new();
    let mut weights: Vec<f32> = Vec::new();
    for (y, joint) in ROWS {
        for x in [-HALF_WIDTH, HALF_WIDTH] {
            positions.extend([x as f32, y as f32, 0.0]);
            joints.extend([joint, 0, 0, 0]);
            weights.extend([1.0, 0.0, 0.0, 0.0]);
        }
    }
    let mut indices: Vec<u16> = Vec::new();
    for r in 0..ROWS.len() as u16 - 1 {
        let (a, b, c, d) = (2 * r, 2 * r + 1, 2 * r + 3, 2 * r + 2);
        indices.extend([a, b, c, a, c, d]);
    }
    // Column-major: identity for root, a translation by -TIP_AT for tip.
    let mut ibm: Vec<f32> = vec![1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.];
    ibm.extend([1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.]);
    ibm.extend([-TIP_AT[0] as f32, -TIP_AT[1] as f32, -TIP_AT[2] as f32, 1.0]);
    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let chunks: Vec<Vec<u8>> = vec![
        f(&positions),
        joints.clone(),
        f(&weights),
        indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
        f(&ibm),
    ];
    let mut bin = Vec::new();
    let mut views = Vec::new();
    for c in &chunks {
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": c.len()}));
        bin.extend_from_slice(c);
    }
    let n = positions.len() / 3;
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "strip", "mesh": 0, "skin": 0},
            {"name": "root", "children": [2]},
            {"name": "tip", "translation": TIP_AT},
        ],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": 4}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "indices": 3}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
             "min": [-HALF_WIDTH, 0.0, 0.0], "max": [HALF_WIDTH, 2.0, 0.0]},
            {"bufferView": 1, "componentType": 5121, "count": n, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": n, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5123, "count": indices.len(), "type": "SCALAR"},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4"},
        ],
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len(), "uri": format!("{name}.bin")}],
    });
    std::fs::write(dir.join(format!("{name}.bin")), &bin).unwrap();
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    path
}
