//! glTF files of named nodes drawing unlit squares, for the reload tests:
//! each mesh a square of a given half size and colour, all in one data URI
//! buffer, so a test can write a model and a re-export of it in one line.

use serde_json::{json, Value};

/// A mesh of the written file: a square of half size `half` in its own XY
/// plane, one unlit colour.
pub struct Square {
    pub name: &'static str,
    pub half: f32,
    pub color: [f32; 3],
}

/// A node: name, mesh index, translation, parent (index into the list).
pub struct Node {
    pub name: &'static str,
    pub mesh: Option<usize>,
    pub at: [f32; 3],
    pub parent: Option<usize>,
}

/// The glTF text of `nodes` and `meshes` (data URI buffer, unlit materials).
pub fn gltf(nodes: &[Node], meshes: &[Square]) -> String {
    let mut bin: Vec<u8> = Vec::new();
    let mut accessors = Vec::new();
    let mut views = Vec::new();
    let mut out_meshes = Vec::new();
    let mut materials = Vec::new();
    for (k, m) in meshes.iter().enumerate() {
        let h = m.half;
        let positions = [[-h, -h, 0.0], [h, -h, 0.0], [h, h, 0.0], [-h, h, 0.0]];
        let start = bin.len();
        positions.iter().flatten().for_each(|v: &f32| bin.extend_from_slice(&v.to_le_bytes()));
        views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": 48}));
        accessors.push(json!({"bufferView": views.len() - 1, "componentType": 5126, "count": 4, "type": "VEC3",
            "min": [-h, -h, 0.0], "max": [h, h, 0.0]}));
        let start = bin.len();
        [0u16, 1, 2, 0, 2, 3].iter().for_each(|i| bin.extend_from_slice(&i.to_le_bytes()));
        views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": 12}));
        accessors.push(json!({"bufferView": views.len() - 1, "componentType": 5123, "count": 6, "type": "SCALAR"}));
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        materials.push(json!({"pbrMetallicRoughness": {"baseColorFactor": [m.color[0], m.color[1], m.color[2], 1.0]},
            "extensions": {"KHR_materials_unlit": {}}}));
        out_meshes.push(json!({"name": m.name, "primitives": [{"attributes": {"POSITION": 2 * k},
            "indices": 2 * k + 1, "material": k}]}));
    }
    let out_nodes: Vec<Value> = nodes
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let mut v = json!({"name": n.name, "translation": n.at});
            if let Some(m) = n.mesh {
                v["mesh"] = json!(m);
            }
            let children: Vec<usize> = (0..nodes.len()).filter(|&c| nodes[c].parent == Some(k)).collect();
            if !children.is_empty() {
                v["children"] = json!(children);
            }
            v
        })
        .collect();
    let roots: Vec<usize> = (0..nodes.len()).filter(|&k| nodes[k].parent.is_none()).collect();
    let uri = format!("data:application/octet-stream;base64,{}", base64::encode(&bin));
    serde_json::to_string_pretty(&json!({
        "asset": {"version": "2.0"}, "extensionsUsed": ["KHR_materials_unlit"],
        "scene": 0, "scenes": [{"nodes": roots}], "nodes": out_nodes, "meshes": out_meshes,
        "materials": materials, "accessors": accessors, "bufferViews": views,
        "buffers": [{"byteLength": bin.len(), "uri": uri}]
    }))
    .unwrap()
}
