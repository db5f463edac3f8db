//! Writes a rigged glTF for the export tests: a hierarchy with a skinned
//! strip, its two joints, a camera, a `KHR_lights_punctual` spot light, two
//! animations and node extras. The values written are kept in [`Rig`], so
//! that tests compute what an export must hold from them.
//!
//! Nodes: 0 `rig` (translated by [`RIG_AT`]; children `strip` and `root`),
//! 1 `strip` (mesh 0, skin 0), 2 `root` (child `tip`), 3 `tip` (at
//! [`TIP_AT`] under `root`), 4 `cam` (camera 0), 5 `lamp` (light 0).
//! Animation `wave` moves `root` (translation, linear) and turns `tip`
//! (rotation, step); animation `blink` scales `lamp`.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Where `rig` sits; `root` and `strip` are at its origin.
pub const RIG_AT: [f32; 3] = [0.5, 0.0, 0.0];
/// `tip` under `root`.
pub const TIP_AT: [f32; 3] = [0.0, 1.0, 0.0];

/// The vertex rows of the strip: height, then (joint, weight) pairs; the
/// row at 1.1 is shared half and half by `root` (0) and `tip` (1).
pub const ROWS: [(f32, [(u8, f32); 2]); 5] = [
    (0.0, [(0, 1.0), (0, 0.0)]),
    (1.0, [(0, 1.0), (0, 0.0)]),
    (1.1, [(0, 0.5), (1, 0.5)]),
    (1.2, [(1, 1.0), (0, 0.0)]),
    (2.0, [(1, 1.0), (0, 0.0)]),
];

/// What the file holds, as the tests compare it.
pub struct Rig {
    pub path: PathBuf,
    /// Inverse bind matrices of `root` and `tip`, column-major.
    pub inverse_bind: [[f32; 16]; 2],
    /// Key times shared by `wave`'s two samplers.
    pub times: Vec<f32>,
    /// `root`'s translations and `tip`'s rotations (x, y, z, w) at `times`.
    pub translations: Vec<[f32; 3]>,
    pub rotations: Vec<[f32; 4]>,
    /// `blink`'s key times and `lamp`'s scales.
    pub blink_times: Vec<f32>,
    pub scales: Vec<[f32; 3]>,
    /// The JSON of camera 0 and light 0, and of `rig`'s and `lamp`'s extras.
    pub camera: Value,
    pub light: Value,
    pub rig_extras: Value,
    pub lamp_extras: Value,
    /// Per vertex, its JOINTS_0 and WEIGHTS_0 as written.
    pub joints: Vec<[u8; 4]>,
    pub weights: Vec<[f32; 4]>,
}

fn translation(t: [f32; 3]) -> [f32; 16] {
    [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., t[0], t[1], t[2], 1.]
}

/// A unit quaternion (x, y, z, w) of `angle` radians about z.
fn about_z(angle: f32) -> [f32; 4] {
    [0.0, 0.0, (angle / 2.0).sin(), (angle / 2.0).cos()]
}

/// Writes `dir/NAME.gltf` and `dir/NAME.bin`.
pub fn write_rig(dir: &Path, name: &str) -> Rig {
    std::fs::create_dir_all(dir).unwrap();
    let mut positions: Vec<f32> = Vec::new();
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for (y, links) in ROWS {
        for x in [-0.25f32, 0.25] {
            positions.extend([x, y, 0.0]);
            joints.push([links[0].0, links[1].0, 0, 0]);
            weights.push([links[0].1, links[1].1, 0.0, 0.0]);
        }
    }
    let mut indices: Vec<u16> = Vec::new();
    for r in 0..ROWS.len() as u16 - 1 {
        let (a, b, c, d) = (2 * r, 2 * r + 1, 2 * r + 3, 2 * r + 2);
        indices.extend([a, b, c, a, c, d]);
    }
    // The joints' bind pose is where the file puts them: root at RIG_AT,
    // tip above it.
    let inverse_bind = [
        translation(RIG_AT.map(|x| -x)),
        translation([-RIG_AT[0] - TIP_AT[0], -RIG_AT[1] - TIP_AT[1], -RIG_AT[2] - TIP_AT[2]]),
    ];
    let times = vec![0.0f32, 0.5, 1.25];
    let translations = vec![[0.0f32, 0.0, 0.0], [0.25, 0.5, 0.0], [-0.5, 0.125, 0.25]];
    let rotations = vec![about_z(0.0), about_z(0.7), about_z(-0.4)];
    let blink_times = vec![0.0f32, 2.0];
    let scales = vec![[1.0f32, 1.0, 1.0], [2.0, 0.5, 1.5]];

    let f = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let flat3 = |v: &[[f32; 3]]| v.iter().flatten().copied().collect::<Vec<f32>>();
    let chunks: Vec<Vec<u8>> = vec![
        f(&positions),
        joints.iter().flatten().copied().collect(),
        f(&weights.iter().flatten().copied().collect::<Vec<f32>>()),
        indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
        f(&inverse_bind.iter().flatten().copied().collect::<Vec<f32>>()),
        f(&times),
        f(&flat3(&translations)),
        f(&rotations.iter().flatten().copied().collect::<Vec<f32>>()),
        f(&blink_times),
        f(&flat3(&scales)),
    ];
    let mut bin = Vec::new();
    let mut views = Vec::new();
    for (k, c) in chunks.iter().enumerate() {
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        let mut view = json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": c.len()});
        match k {
            0..=2 => view["target"] = json!(34962),
            3 => view["target"] = json!(34963),
            _ => {}
        }
        views.push(view);
        bin.extend_from_slice(c);
    }
    let n = positions.len() / 3;
    let camera = json!({"name": "eye", "type": "perspective",
        "perspective": {"aspectRatio": 1.5, "yfov": 0.8, "znear": 0.1, "zfar": 100.0}});
    let light = json!({"name": "bulb", "type": "spot", "color": [1.0, 0.5, 0.25], "intensity": 12.0,
        "range": 20.0, "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.6}});
    let rig_extras = json!({"role": "rig", "tags": ["a", "b"]});
    let lamp_extras = json!({"watts": 60});
    let doc = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [
            light,
            {"name": "unused", "type": "directional", "intensity": 3.0}
        ]}},
        "scene": 0,
        "scenes": [{"nodes": [0, 4, 5]}],
        "nodes": [
            {"name": "rig", "children": [1, 2], "translation": RIG_AT, "extras": rig_extras},
            {"name": "strip", "mesh": 0, "skin": 0},
            {"name": "root", "children": [3]},
            {"name": "tip", "translation": TIP_AT},
            {"name": "cam", "camera": 0, "translation": [0.0, 1.0, 6.0]},
            {"name": "lamp", "translation": [1.0, 3.0, 1.0], "rotation": about_z(0.3),
             "extensions": {"KHR_lights_punctual": {"light": 0}}, "extras": lamp_extras},
        ],
        "cameras": [camera],
        "skins": [{"joints": [2, 3], "inverseBindMatrices": 4, "skeleton": 2}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "indices": 3}]}],
        "animations": [
            {"name": "wave",
             "samplers": [{"input": 5, "output": 6, "interpolation": "LINEAR"},
                          {"input": 5, "output": 7, "interpolation": "STEP"}],
             "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}},
                          {"sampler": 1, "target": {"node": 3, "path": "rotation"}}]},
            {"name": "blink",
             "samplers": [{"input": 8, "output": 9}],
             "channels": [{"sampler": 0, "target": {"node": 5, "path": "scale"}}]},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
             "min": [-0.25, 0.0, 0.0], "max": [0.25, 2.0, 0.0]},
            {"bufferView": 1, "componentType": 5121, "count": n, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": n, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5123, "count": indices.len(), "type": "SCALAR"},
            {"bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4"},
            {"bufferView": 5, "componentType": 5126, "count": times.len(), "type": "SCALAR",
             "min": [times[0]], "max": [times[times.len() - 1]]},
            {"bufferView": 6, "componentType": 5126, "count": translations.len(), "type": "VEC3"},
            {"bufferView": 7, "componentType": 5126, "count": rotations.len(), "type": "VEC4"},
            {"bufferView": 8, "componentType": 5126, "count": blink_times.len(), "type": "SCALAR",
             "min": [blink_times[0]], "max": [blink_times[1]]},
            {"bufferView": 9, "componentType": 5126, "count": scales.len(), "type": "VEC3"},
        ],
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len(), "uri": format!("{name}.bin")}],
    });
    std::fs::write(dir.join(format!("{name}.bin")), &bin).unwrap();
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    Rig {
        path,
        inverse_bind,
        times,
        translations,
        rotations,
        blink_times,
        scales,
        camera,
        light,
        rig_extras,
        lamp_extras,
        joints,
        weights,
    }
}
