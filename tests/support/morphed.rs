//! glTF files with morph-target and skin animation, written for the tests
//! (`docs/spec/materials.md`, "Animation"). The tests compute what they
//! expect from the constants here, not from the viewport's code.
//!
//! `write_morph_quads`: one quad mesh (smooth normals, facing +z) with two
//! morph targets, used by four nodes: `lin` (weights animated LINEAR),
//! `step` (STEP), `cubic` (CUBICSPLINE) and `own` (the node's own
//! `weights`, not animated). One clip, `Morph`, 2 s long.
//!
//! `write_bone_strip`: a strip along x on a two-bone skin (`root` at
//! [`ROOT_AT`], `bone` its child at [`BONE_AT`]), the weights shifting from
//! `root` to `bone` along the strip; one clip, `Bend`, turns `bone` about z
//! (LINEAR) from none to a quarter turn in 1 s.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The quad's four corners, in the mesh's space.
pub const QUAD: [[f32; 3]; 4] = [[-0.5, 0.0, 0.0], [0.5, 0.0, 0.0], [0.5, 1.0, 0.0], [-0.5, 1.0, 0.0]];
/// Target 0 ("grow"): the top corners move up by 1.
pub const GROW: [[f32; 3]; 4] = [[0.0; 3], [0.0; 3], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]];
/// Target 1 ("widen"): the right corners move right by 1...
pub const WIDEN: [[f32; 3]; 4] = [[0.0; 3], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0; 3]];
/// ... and their normals tilt towards +x.
pub const WIDEN_NORMALS: [[f32; 3]; 4] = [[0.0; 3], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0; 3]];
/// The mesh's default weights.
pub const DEFAULTS: [f32; 2] = [0.0, 0.0];
/// The node `own`'s weights.
pub const OWN: [f32; 2] = [0.5, 0.25];
/// Where the nodes sit (translations).
pub const AT: [(&str, [f32; 3]); 4] =
    [("lin", [0.0, 0.0, 0.0]), ("step", [3.0, 0.0, 0.0]), ("cubic", [-3.0, 0.0, 0.0]), ("own", [0.0, 3.0, 0.0])];

/// LINEAR keys of `lin`: times and (w0, w1).
pub const LIN_TIMES: [f32; 3] = [0.0, 1.0, 2.0];
pub const LIN_KEYS: [[f32; 2]; 3] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]];
/// STEP keys of `step`.
pub const STEP_TIMES: [f32; 2] = [0.0, 1.0];
pub const STEP_KEYS: [[f32; 2]; 2] = [[0.0, 0.0], [1.0, 1.0]];
/// CUBICSPLINE keys of `cubic` at 0 and 2 s: in-tangent, value,
/// out-tangent each (per second).
pub const CUBIC_TIMES: [f32; 2] = [0.0, 2.0];
pub const CUBIC_KEYS: [[f32; 2]; 6] = [[0.0, 0.0], [0.0, 0.0], [1.0, 0.5], [-0.5, 0.0], [1.0, 1.0], [0.0, 0.0]];

/// Where `root` and `bone` (relative to `root`) sit.
pub const ROOT_AT: [f32; 3] = [0.0, 0.5, 0.0];
pub const BONE_AT: [f32; 3] = [1.0, 0.0, 0.0];
/// The strip's node translation (glTF: it does not move the skin).
pub const STRIP_AT: [f32; 3] = [0.0, 4.0, 0.0];
/// The strip's columns: x in the bind pose, and the weight of `bone` (the
/// rest is `root`'s).
pub const COLUMNS: [(f32, f32); 5] = [(0.0, 0.0), (0.5, 0.0), (1.0, 0.5), (1.5, 1.0), (2.0, 1.0)];
/// Half the strip's height.
pub const HALF_HEIGHT: f32 = 0.1;
/// The clip `Bend`: `bone`'s rotation about z, from 0 at 0 s to a quarter
/// turn at 1 s (LINEAR).
pub const BEND_TIMES: [f32; 2] = [0.0, 1.0];

/// Accessors of one glTF buffer, built up as data is added.
struct Buffer {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Buffer {
    fn new() -> Buffer {
        Buffer { bin: Vec::new(), views: Vec::new(), accessors: Vec::new() }
    }

    /// Adds `data` as an accessor of `count` elements of `ty` (component
    /// type `component`); returns its index.
    fn add(&mut self, data: Vec<u8>, component: u32, count: usize, ty: &str, extra: Value) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views.push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": data.len()}));
        self.bin.extend(data);
        let mut a = json!({"bufferView": self.views.len() - 1, "componentType": component, "count": count, "type": ty});
        if let (Some(a), Some(extra)) = (a.as_object_mut(), extra.as_object()) {
            a.extend(extra.clone());
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    fn floats(&mut self, v: &[f32], count: usize, ty: &str) -> usize {
        let extra = if ty == "SCALAR" && count > 0 {
            // Keyframe times need their bounds.
            let (lo, hi) = v.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            json!({"min": [lo], "max": [hi]})
        } else {
            json!({})
        };
        self.add(v.iter().flat_map(|x| x.to_le_bytes()).collect(), 5126, count, ty, extra)
    }

    fn positions(&mut self, v: &[[f32; 3]]) -> usize {
        let flat: Vec<f32> = v.iter().flatten().copied().collect();
        let lo: Vec<f32> = (0..3).map(|k| v.iter().map(|p| p[k]).fold(f32::MAX, f32::min)).collect();
        let hi: Vec<f32> = (0..3).map(|k| v.iter().map(|p| p[k]).fold(f32::MIN, f32::max)).collect();
        self.add(
            flat.iter().flat_map(|x| x.to_le_bytes()).collect(),
            5126,
            v.len(),
            "VEC3",
            json!({"min": lo, "max": hi}),
        )
    }

    fn vec3(&mut self, v: &[[f32; 3]]) -> usize {
        let flat: Vec<f32> = v.iter().flatten().copied().collect();
        self.floats(&flat, v.len(), "VEC3")
    }

    fn indices(&mut self, v: &[u16]) -> usize {
        self.add(v.iter().flat_map(|x| x.to_le_bytes()).collect(), 5123, v.len(), "SCALAR", json!({}))
    }

    /// Writes `doc` with this buffer as a data URI to `dir/name.gltf`.
    fn write(self, mut doc: Value, dir: &Path, name: &str) -> PathBuf {
        let uri = format!("data:application/octet-stream;base64,{}", base64::encode(&self.bin));
        doc["buffers"] = json!([{"byteLength": self.bin.len(), "uri": uri}]);
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        path
    }
}

/// Writes `dir/NAME.gltf` (see the module docs); returns its path.
pub fn write_morph_quads(dir: &Path, name: &str) -> PathBuf {
    let mut b = Buffer::new();
    let position = b.positions(&QUAD);
    let normal = b.vec3(&[[0.0, 0.0, 1.0]; 4]);
    let indices = b.indices(&[0, 1, 2, 0, 2, 3]);
    let grow = b.positions(&GROW);
    let widen = b.positions(&WIDEN);
    let widen_normals = b.vec3(&WIDEN_NORMALS);
    let flat = |keys: &[[f32; 2]]| keys.iter().flatten().copied().collect::<Vec<f32>>();
    let lin_t = b.floats(&LIN_TIMES, LIN_TIMES.len(), "SCALAR");
    let lin_v = b.floats(&flat(&LIN_KEYS), 2 * LIN_KEYS.len(), "SCALAR");
    let step_t = b.floats(&STEP_TIMES, STEP_TIMES.len(), "SCALAR");
    let step_v = b.floats(&flat(&STEP_KEYS), 2 * STEP_KEYS.len(), "SCALAR");
    let cubic_t = b.floats(&CUBIC_TIMES, CUBIC_TIMES.len(), "SCALAR");
    let cubic_v = b.floats(&flat(&CUBIC_KEYS), 2 * CUBIC_KEYS.len(), "SCALAR");
    let mut nodes: Vec<Value> = AT.iter().map(|(n, at)| json!({"name": n, "mesh": 0, "translation": at})).collect();
    nodes[3]["weights"] = json!(OWN);
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2, 3]}],
        "nodes": nodes,
        "meshes": [{
            "name": "quad",
            "weights": DEFAULTS,
            "primitives": [{
                "attributes": {"POSITION": position, "NORMAL": normal},
                "indices": indices,
                "targets": [{"POSITION": grow}, {"POSITION": widen, "NORMAL": widen_normals}]
            }]
        }],
        "animations": [{
            "name": "Morph",
            "samplers": [
                {"input": lin_t, "output": lin_v, "interpolation": "LINEAR"},
                {"input": step_t, "output": step_v, "interpolation": "STEP"},
                {"input": cubic_t, "output": cubic_v, "interpolation": "CUBICSPLINE"}
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "weights"}},
                {"sampler": 1, "target": {"node": 1, "path": "weights"}},
                {"sampler": 2, "target": {"node": 2, "path": "weights"}}
            ]
        }]
    });
    b.write(doc, dir, name)
}

/// The strip's vertices in the bind pose, two per column (bottom, top),
/// with the weight of `bone`.
pub fn strip_vertices() -> Vec<([f32; 3], f32)> {
    COLUMNS.iter().flat_map(|&(x, w)| [([x, -HALF_HEIGHT, 0.0], w), ([x, HALF_HEIGHT, 0.0], w)]).collect()
}

/// Writes `dir/NAME.gltf` (see the module docs); returns its path. Nodes:
/// 0 `strip` (the skinned mesh), 1 `root` with child 2 `bone`.
pub fn write_bone_strip(dir: &Path, name: &str) -> PathBuf {
    let mut b = Buffer::new();
    let vertices = strip_vertices();
    let positions: Vec<[f32; 3]> = vertices.iter().map(|v| v.0).collect();
    let position = b.positions(&positions);
    let normal = b.vec3(&vec![[0.0, 0.0, 1.0]; positions.len()]);
    let joints: Vec<u8> = vertices.iter().flat_map(|_| [0u8, 1, 0, 0]).collect();
    let joints = b.add(joints, 5121, vertices.len(), "VEC4", json!({}));
    let weights: Vec<f32> = vertices.iter().flat_map(|&(_, w)| [1.0 - w, w, 0.0, 0.0]).collect();
    let weights = b.floats(&weights, vertices.len(), "VEC4");
    let mut indices: Vec<u16> = Vec::new();
    for c in 0..COLUMNS.len() as u16 - 1 {
        let (a, b_, c_, d) = (2 * c, 2 * c + 2, 2 * c + 3, 2 * c + 1);
        indices.extend([a, b_, c_, a, c_, d]);
    }
    let indices = b.indices(&indices);
    // Column-major inverse bind matrices: of root at ROOT_AT, and of bone
    // at ROOT_AT + BONE_AT (both unturned in the bind pose).
    let ib = |t: [f32; 3]| [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., -t[0], -t[1], -t[2], 1.];
    let bone_bind = [ROOT_AT[0] + BONE_AT[0], ROOT_AT[1] + BONE_AT[1], ROOT_AT[2] + BONE_AT[2]];
    let ibm = b.floats(&[ib(ROOT_AT), ib(bone_bind)].concat(), 2, "MAT4");
    let times = b.floats(&BEND_TIMES, 2, "SCALAR");
    let h = std::f32::consts::FRAC_PI_4; // half of a quarter turn
    let turns = b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, h.sin(), h.cos()], 2, "VEC4");
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "strip", "mesh": 0, "skin": 0, "translation": STRIP_AT},
            {"name": "root", "children": [2], "translation": ROOT_AT},
            {"name": "bone", "translation": BONE_AT},
        ],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": position, "NORMAL": normal, "JOINTS_0": joints, "WEIGHTS_0": weights},
            "indices": indices
        }]}],
        "animations": [{
            "name": "Bend",
            "samplers": [{"input": times, "output": turns, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]
        }]
    });
    b.write(doc, dir, name)
}
