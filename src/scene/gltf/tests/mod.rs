//! Unit tests of `gltf.rs`, kept in their own file so the module stays short.

use super::primitive::assemble;
use super::*;
use std::path::PathBuf;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/arrow.gltf");

/// A glTF document under construction: binary data, buffer views and
/// accessors; `json` wraps them with nodes and meshes.
#[derive(Default)]
struct Doc {
    bin: Vec<u8>,
    views: Vec<String>,
    accessors: Vec<String>,
}

impl Doc {
    fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views.push(format!(r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#, self.bin.len(), bytes.len()));
        self.bin.extend_from_slice(bytes);
        self.views.len() - 1
    }

    fn accessor(&mut self, json: String) -> usize {
        self.accessors.push(json);
        self.accessors.len() - 1
    }

    fn vec3(&mut self, values: &[[f32; 3]]) -> usize {
        let bytes: Vec<u8> = values.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes);
        self.accessor(format!(r#"{{"bufferView":{view},"componentType":5126,"count":{},"type":"VEC3"}}"#, values.len()))
    }

    fn indices(&mut self, values: &[u16]) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes);
        self.accessor(format!(
            r#"{{"bufferView":{view},"componentType":5123,"count":{},"type":"SCALAR"}}"#,
            values.len()
        ))
    }

    /// The document with scene 0 rooted at node 0; `uri` is the buffer's
    /// (none for a GLB's binary chunk).
    fn json(&self, nodes: &str, meshes: &str, uri: Option<&str>) -> String {
        let uri = uri.map(|u| format!(r#","uri":"{u}""#)).unwrap_or_default();
        format!(
            r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":{nodes},"meshes":{meshes},"accessors":[{}],"bufferViews":[{}],"buffers":[{{"byteLength":{}{uri}}}]}}"#,
            self.accessors.join(","),
            self.views.join(","),
            self.bin.len()
        )
    }

    /// Writes `<name>.gltf` with its buffer in `<name>.bin` beside it.
    fn write(&self, dir: &Path, name: &str, nodes: &str, meshes: &str) -> PathBuf {
        let bin = format!("{name}.bin");
        std::fs::write(dir.join(&bin), &self.bin).unwrap();
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(&path, self.json(nodes, meshes, Some(&bin))).unwrap();
        path
    }

    /// The document as GLB bytes, its buffer in the binary chunk.
    fn glb(&self, nodes: &str, meshes: &str) -> Vec<u8> {
        glb(self.json(nodes, meshes, None).as_bytes(), &self.bin)
    }
}

fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let padded = |bytes: &[u8], fill: u8| {
        let mut v = bytes.to_vec();
        while !v.len().is_multiple_of(4) {
            v.push(fill);
        }
        v
    };
    let (json, bin) = (padded(json, b' '), padded(bin, 0));
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    for (chunk, kind) in [(&json, b"JSON"), (&bin, b"BIN\0")] {
        out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(chunk);
    }
    out
}

const ONE_MESH: &str = r#"[{"mesh":0}]"#;

/// A triangle in the XY plane, counter-clockwise seen from +Z.
const TRIANGLE: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

fn mesh(attributes: &str, extra: &str) -> String {
    format!(r#"[{{"primitives":[{{"attributes":{{{attributes}}}{extra}}}]}}]"#)
}

fn load_doc(doc: &Doc, nodes: &str, meshes: &str) -> Result<MeshData, String> {
    let dir = tempfile::tempdir().unwrap();
    load_gltf(&doc.write(dir.path(), "m", nodes, meshes)).map_err(|e| e.to_string())
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn assert_near(a: [f32; 3], b: [f32; 3]) {
    assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-5), "{a:?} != {b:?}");
}

/// Every normal is unit length and every triangle's counter-clockwise
/// face normal agrees with its vertex normals.
fn assert_consistent(m: &MeshData) {
    assert_eq!(m.positions.len(), m.normals.len());
    assert_eq!(m.indices.len() % 3, 0);
    for n in &m.normals {
        assert!((dot(*n, *n).sqrt() - 1.0).abs() < 1e-5, "normal {n:?} is not unit");
    }
    for t in m.indices.chunks(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| m.positions[i as usize]);
        let face = cross(sub(b, a), sub(c, a));
        for &i in t {
            assert!(dot(face, m.normals[i as usize]) > 0.0, "triangle {t:?} winds against its normals");
        }
    }
}

#[test]
fn sample_arrow_has_the_expected_shape() {
    let m = load_gltf(Path::new(SAMPLE)).unwrap();
    // Document order: the shaft (node 1) comes before the head (node 2).
    assert!(m.positions[..36].iter().all(|p| p[1] <= 0.25 + 1e-6), "shaft first");
    // Shaft: an indexed 12-triangle cube without normals, unwelded for
    // flat normals (36 vertices). Head: a non-indexed tetrahedron with
    // normals (12 vertices, 4 triangles).
    assert_eq!(m.positions.len(), 48);
    assert_eq!(m.indices.len(), 3 * 16);
    assert_consistent(&m);
    // Root (0, -0.75, 0) over: shaft T(0, 0.5, 0) S(0.2, 1, 0.2) of the
    // unit cube -> x, z in [-0.1, 0.1], y in [0, 1]; head T(0, 1, 0)
    // R(+90 deg about Z) S(0.5, 0.4, 0.4) of the tetrahedron with apex
    // (1, 0, 0) and base (0, 1, 0), (0, -0.5, +-sqrt(3)/2) -> apex
    // (0, 1.5, 0), base (-0.4, 1, 0), (0.2, 1, +-0.4 sqrt(3)/2).
    let half_z = 0.4 * 3f32.sqrt() / 2.0;
    let (lo, hi) = m.bounds();
    assert_near(lo, [-0.4, -0.75, -half_z]);
    assert_near(hi, [0.2, 0.75, half_z]);
    assert!(m.positions.iter().any(|&p| sub(p, [0.0, 0.75, 0.0]).iter().all(|d| d.abs() < 1e-5)), "apex");
}

#[test]
fn the_sample_as_glb_loads_the_same() {
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("arrow.glb");
    std::fs::write(&path, glb(text.as_bytes(), &[])).unwrap();
    assert_eq!(load_gltf(&path).unwrap(), load_gltf(Path::new(SAMPLE)).unwrap());
}

#[test]
fn node_transforms_compose_down_the_hierarchy() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    // Parent translates by (0, 5, 0); the child's column-major matrix
    // scales by 2 and translates by (10, 0, 0).
    let nodes = r#"[{"translation":[0,5,0],"children":[1]},
                    {"mesh":0,"matrix":[2,0,0,0, 0,2,0,0, 0,0,2,0, 10,0,0,1]}]"#;
    let m = load_doc(&doc, nodes, &mesh(&format!(r#""POSITION":{p}"#), "")).unwrap();
    assert_eq!(m.positions, vec![[10.0, 5.0, 0.0], [12.0, 5.0, 0.0], [10.0, 7.0, 0.0]]);
    assert_eq!(m.indices, vec![0, 1, 2], "indices generated for a non-indexed primitive");
    assert_eq!(m.normals, vec![[0.0, 0.0, 1.0]; 3]);
}

#[test]
fn a_mirroring_node_flips_the_winding() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let n = doc.vec3(&[[0.0, 0.0, 1.0]; 3]);
    let nodes = r#"[{"mesh":0,"scale":[-1,1,1]}]"#;
    let m = load_doc(&doc, nodes, &mesh(&format!(r#""POSITION":{p},"NORMAL":{n}"#), "")).unwrap();
    assert_eq!(m.positions[1], [-1.0, 0.0, 0.0]);
    assert_eq!(m.indices, vec![0, 2, 1]);
    assert_consistent(&m);
}

#[test]
fn normals_go_through_the_inverse_transpose() {
    let mut doc = Doc::default();
    // A triangle in the plane x + y = 1, facing (1, 1, 0).
    let p = doc.vec3(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let n = doc.vec3(&[[s, s, 0.0]; 3]);
    let nodes = r#"[{"mesh":0,"scale":[2,1,1]}]"#;
    let m = load_doc(&doc, nodes, &mesh(&format!(r#""POSITION":{p},"NORMAL":{n}"#), "")).unwrap();
    // Stretched plane x/2 + y = 1 faces (1, 2, 0) / sqrt(5), not (2, 1, 0).
    let k = 5f32.sqrt().recip();
    for normal in &m.normals {
        assert_near(*normal, [k, 2.0 * k, 0.0]);
    }
    assert_consistent(&m);
}

#[test]
fn primitives_without_normals_get_flat_unit_normals() {
    let mut doc = Doc::default();
    // A unit quad in the XZ plane facing +Y, and a tilted triangle.
    let p = doc.vec3(&[[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0]]);
    let i = doc.indices(&[0, 1, 2, 0, 2, 3]);
    let q = doc.vec3(&[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 3.0, 3.0]]);
    let meshes = format!(
        r#"[{{"primitives":[{{"attributes":{{"POSITION":{p}}},"indices":{i}}},{{"attributes":{{"POSITION":{q}}}}}]}}]"#
    );
    let m = load_doc(&doc, ONE_MESH, &meshes).unwrap();
    assert_eq!(m.positions.len(), 9, "unwelded: three vertices per triangle");
    assert_eq!(m.indices, (0..9).collect::<Vec<u32>>());
    for normal in &m.normals[..6] {
        assert_eq!(*normal, [0.0, 1.0, 0.0]);
    }
    let s = std::f32::consts::FRAC_1_SQRT_2;
    for normal in &m.normals[6..] {
        assert_near(*normal, [0.0, -s, s]);
    }
    assert_consistent(&m);
}

#[test]
fn strips_and_fans_become_triangle_lists() {
    assert_eq!(assemble(Mode::TriangleStrip, &[0, 1, 2, 3]), vec![[0, 1, 2], [1, 3, 2]]);
    assert_eq!(assemble(Mode::TriangleFan, &[0, 1, 2, 3]), vec![[1, 2, 0], [2, 3, 0]]);
    assert_eq!(assemble(Mode::Triangles, &[0, 1, 2, 3]), vec![[0, 1, 2]]);
    assert!(assemble(Mode::TriangleFan, &[]).is_empty());
    assert!(assemble(Mode::TriangleStrip, &[0, 1]).is_empty());
}

#[test]
fn points_and_lines_are_skipped() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let lines_and_triangles = format!(
        r#"[{{"primitives":[{{"attributes":{{"POSITION":{p}}},"mode":1}},{{"attributes":{{"POSITION":{p}}}}}]}}]"#
    );
    assert_eq!(load_doc(&doc, ONE_MESH, &lines_and_triangles).unwrap().indices.len(), 3);
    let points = mesh(&format!(r#""POSITION":{p}"#), r#","mode":0"#);
    assert_eq!(load_doc(&doc, ONE_MESH, &points).unwrap(), MeshData::default());
}

#[test]
fn sparse_accessors_override_their_base_values() {
    let mut doc = Doc::default();
    let p = doc.vec3(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [9.0, 9.0, 9.0]]);
    let idx = doc.view(&[2, 0]);
    let values = doc.view(&[0.0f32, 1.0, 0.0].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>());
    let sparse = doc.accessor(format!(
        r#"{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","sparse":{{"count":1,
            "indices":{{"bufferView":{idx},"componentType":5121}},"values":{{"bufferView":{values}}}}}}}"#
    ));
    assert_eq!(p, 0);
    let m = load_doc(&doc, ONE_MESH, &mesh(&format!(r#""POSITION":{sparse}"#), "")).unwrap();
    assert_eq!(m.positions, TRIANGLE.to_vec());
}

#[test]
fn quantized_positions_and_normals_are_read() {
    // Normalised shorts: 32767 -> 1, -32768 -> -1 (clamped), 16384 -> 16384/32767.
    let shorts: [[i16; 3]; 3] = [[0, 0, 0], [32767, 0, -32768], [0, 16384, 0]];
    let mut doc = Doc::default();
    let mut bytes = Vec::new();
    for v in shorts {
        bytes.extend(v.iter().flat_map(|c| c.to_le_bytes()));
        bytes.extend([0, 0]); // each element padded to 4-byte alignment
    }
    let view = doc.view(&bytes);
    doc.views[view] = doc.views[view].replace('}', r#","byteStride":8}"#);
    let p = doc
        .accessor(format!(r#"{{"bufferView":{view},"componentType":5122,"normalized":true,"count":3,"type":"VEC3"}}"#));
    // Plain unsigned bytes, taken as they are.
    let ubytes = doc.view(&[1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0]);
    doc.views[ubytes] = doc.views[ubytes].replace('}', r#","byteStride":4}"#);
    let q = doc.accessor(format!(r#"{{"bufferView":{ubytes},"componentType":5121,"count":3,"type":"VEC3"}}"#));
    let required = |json: String, ext: &str| {
        json.replacen('{', &format!(r#"{{"extensionsUsed":["{ext}"],"extensionsRequired":["{ext}"],"#), 1)
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.gltf");
    let bin = dir.path().join("q.bin");
    std::fs::write(&bin, &doc.bin).unwrap();
    let write = |attributes: String, ext: &str| {
        let json = doc.json(ONE_MESH, &mesh(&attributes, ""), Some("q.bin"));
        std::fs::write(&path, required(json, ext)).unwrap();
        load_gltf(&path)
    };
    let m = write(format!(r#""POSITION":{p}"#), "KHR_mesh_quantization").unwrap();
    let expected = [[0.0, 0.0, 0.0], [1.0, 0.0, -1.0], [0.0, 16384.0 / 32767.0, 0.0]];
    for (got, want) in m.positions.iter().zip(expected) {
        for k in 0..3 {
            assert!((got[k] - want[k]).abs() < 1e-6, "{got:?} vs {want:?}");
        }
    }
    let m = write(format!(r#""POSITION":{q}"#), "KHR_mesh_quantization").unwrap();
    assert_eq!(&m.positions[..3], &[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]);
    // Draco is read now: required by a file whose primitive has no
    // compressed data, the plain accessors are read.
    let m = write(format!(r#""POSITION":{q}"#), "KHR_draco_mesh_compression").unwrap();
    assert_eq!(&m.positions[..3], &[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]);
    // A required extension nothing here reads is refused by name.
    let err = write(format!(r#""POSITION":{q}"#), "EXT_lossy_geometry").unwrap_err().to_string();
    assert!(err.contains("requires the extension EXT_lossy_geometry"), "{err}");
}

#[test]
fn morph_targets_apply_at_the_meshs_default_weights() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let n = doc.vec3(&[[0.0, 0.0, 1.0]; 3]);
    // Target 0 lifts the third vertex by 2 in y and tips its normal to +x;
    // target 1 would move everything far away, at weight 0 (its default).
    let d0 = doc.vec3(&[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]]);
    let dn = doc.vec3(&[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, -1.0]]);
    let d1 = doc.vec3(&[[100.0, 0.0, 0.0]; 3]);
    let targets = format!(r#","targets":[{{"POSITION":{d0},"NORMAL":{dn}}},{{"POSITION":{d1}}}]"#);
    let meshes = |weights: &str| {
        format!(r#"[{{"primitives":[{{"attributes":{{"POSITION":{p},"NORMAL":{n}}}{targets}}}]{weights}}}]"#)
    };
    let m = load_doc(&doc, ONE_MESH, &meshes(r#","weights":[0.5]"#)).unwrap();
    assert_eq!(m.positions, vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]);
    // (0, 0, 1) + 0.5 * (1, 0, -1) = (0.5, 0, 0.5), renormalised.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert!(m.normals[2].iter().zip([h, 0.0, h]).all(|(a, b)| (a - b).abs() < 1e-6), "{:?}", m.normals[2]);
    assert_eq!(m.normals[0], [0.0, 0.0, 1.0]);
    // Without weights the targets do nothing.
    let rest = load_doc(&doc, ONE_MESH, &meshes("")).unwrap();
    assert_eq!(rest.positions, TRIANGLE.to_vec());
    // A target with the wrong count is an error, not a panic.
    let short = doc.vec3(&[[0.0, 1.0, 0.0]; 2]);
    let bad = format!(
        r#"[{{"primitives":[{{"attributes":{{"POSITION":{p}}},"targets":[{{"POSITION":{short}}}]}}],"weights":[1]}}]"#
    );
    assert!(load_doc(&doc, ONE_MESH, &bad).unwrap_err().contains("morph target 0 has 2 values for 3 vertices"));
}

#[test]
fn morph_data_holds_the_unmorphed_mesh_and_each_targets_displacements() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let n = doc.vec3(&[[0.0, 0.0, 1.0]; 3]);
    let d0 = doc.vec3(&[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]]);
    let dn = doc.vec3(&[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, -1.0]]);
    let d1 = doc.vec3(&[[0.0, 0.0, 1.0]; 3]);
    // Primitive 0 smooth (NORMAL), primitive 1 flat (no NORMAL): its three
    // corners come out as three vertices of their own.
    let targets = format!(r#""targets":[{{"POSITION":{d0},"NORMAL":{dn}}},{{"POSITION":{d1}}}]"#);
    let meshes = format!(
        r#"[{{"primitives":[{{"attributes":{{"POSITION":{p},"NORMAL":{n}}},{targets}}},{{"attributes":{{"POSITION":{p}}},{targets}}}],"weights":[0.5]}},{{"primitives":[{{"attributes":{{"POSITION":{p}}}}}]}}]"#
    );
    let dir = tempfile::tempdir().unwrap();
    let nodes = r#"[{"mesh":0,"children":[1,2]},{"mesh":0,"weights":[0,1]},{"mesh":1}]"#;
    let path = doc.write(dir.path(), "m", nodes, &meshes);
    let file = GltfFile::read(&path).unwrap();
    assert_eq!(file.morph_target_count(0), 2);
    assert_eq!(file.morph_target_count(1), 0);
    assert!(file.morph_data(1).unwrap().is_none());
    assert_eq!(file.node_weights(0), None);
    assert_eq!(file.node_weights(1), Some(vec![0.0, 1.0]));
    assert_eq!(file.node_weights(2), None, "no targets: no weights");
    let m = file.morph_data(0).unwrap().unwrap();
    assert_eq!(m.defaults, vec![0.5, 0.0]);
    assert_eq!(m.target_count(), 2);
    // The base is the mesh with no target applied, in the loaded order.
    let loaded = file.mesh(0).unwrap();
    assert_eq!(m.base.positions.len(), loaded.positions.len());
    assert_eq!(&m.base.positions[..3], &TRIANGLE);
    assert_eq!(&m.base.positions[3..], &TRIANGLE);
    // At the defaults it gives the loaded mesh.
    let at = m.apply(&m.defaults).mesh;
    for (a, b) in at.positions.iter().zip(&loaded.positions).chain(at.normals.iter().zip(&loaded.normals)) {
        assert_near(*a, *b);
    }
    // Target 1 alone moves every vertex of both primitives by +z; the flat
    // primitive's normals stay its face's.
    let w = m.apply(&[0.0, 1.0]).mesh;
    for (a, b) in w.positions.iter().zip(&m.base.positions) {
        assert_near(*a, [b[0], b[1], b[2] + 1.0]);
    }
    assert!(w.normals[3..].iter().all(|n| *n == [0.0, 0.0, 1.0]), "{:?}", w.normals);
    // Target 0 at 1: the smooth primitive's normal tips, the flat one's
    // face (0,0),(1,0),(0,3) keeps +z as its normal.
    let w = m.apply(&[1.0, 0.0]).mesh;
    assert_near(w.positions[2], [0.0, 3.0, 0.0]);
    assert_near(w.positions[5], [0.0, 3.0, 0.0]);
    assert_near(w.normals[2], [1.0, 0.0, 0.0]);
    assert_near(w.normals[5], [0.0, 0.0, 1.0]);

    // Opened as a scene and exported, node 1 keeps its own weights; the
    // others had none and get none.
    let scene = crate::app::open::open_scene(Some(&path)).unwrap().scene;
    let out = dir.path().join("out.gltf");
    let warnings = export::export_scene(&scene, None, &out).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let weights: Vec<&serde_json::Value> = (0..3).map(|k| &json["nodes"][k]["weights"]).collect();
    assert_eq!(weights, [&serde_json::Value::Null, &serde_json::json!([0.0, 1.0]), &serde_json::Value::Null]);
    let again = GltfFile::read(&out).unwrap();
    assert_eq!(again.node_weights(1), Some(vec![0.0, 1.0]));
}

/// A primitive with a normal texture and its own TANGENT, and one morph
/// target moving the tangents: the loaded mesh shows them at the mesh's
/// default weight, the morph data holds the unmorphed ones and moves them
/// by the target's displacements (xyz; w kept), renormalised.
#[test]
fn morph_targets_move_the_files_tangents() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let n = doc.vec3(&[[0.0, 0.0, 1.0]; 3]);
    let base: [[f32; 4]; 3] = [[1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, -1.0], [0.0, 1.0, 0.0, 1.0]];
    let bytes: Vec<u8> = base.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    let view = doc.view(&bytes);
    let t = doc.accessor(format!(r#"{{"bufferView":{view},"componentType":5126,"count":3,"type":"VEC4"}}"#));
    let uv_bytes: Vec<u8> = [0.0f32, 0.0, 1.0, 0.0, 0.0, 1.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let view = doc.view(&uv_bytes);
    let uv = doc.accessor(format!(r#"{{"bufferView":{view},"componentType":5126,"count":3,"type":"VEC2"}}"#));
    let d = [[0.0f32, 2.0, 0.0], [0.0, 0.0, 4.0], [0.0, 0.0, 0.0]];
    let dt = doc.vec3(&d);
    let meshes = format!(
        r#"[{{"primitives":[{{"attributes":{{"POSITION":{p},"NORMAL":{n},"TANGENT":{t},"TEXCOORD_0":{uv}}},"material":0,"targets":[{{"TANGENT":{dt}}}]}}],"weights":[0.5]}}]"#
    );
    let dir = tempfile::tempdir().unwrap();
    let path = doc.write(dir.path(), "m", ONE_MESH, &meshes);
    let json = std::fs::read_to_string(&path).unwrap().replacen(
        r#"{"asset""#,
        r#"{"materials":[{"normalTexture":{"index":0}}],"textures":[{"source":0}],"images":[{"uri":"n.png"}],"asset""#,
        1,
    );
    std::fs::write(&path, json).unwrap();
    let file = GltfFile::read(&path).unwrap();
    // normalise(base + w d), worked out per vertex.
    let moved = |k: usize, w: f32| {
        let s: [f32; 3] = std::array::from_fn(|c| base[k][c] + w * d[k][c]);
        let len = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
        s.map(|x| x / len)
    };
    let xyz = |t: [f32; 4]| [t[0], t[1], t[2]];
    let (_, surface) = file.mesh_with_surface(0).unwrap();
    for (k, t) in surface.tangents.iter().enumerate() {
        assert_near(xyz(*t), moved(k, 0.5));
        assert_eq!(t[3], base[k][3], "w is kept");
    }
    assert_eq!(surface.tangents.len(), 3);
    let m = file.morph_data(0).unwrap().unwrap();
    assert_eq!(m.base_tangents(), &base[..]);
    let at = m.apply(&[1.0]);
    for (k, t) in at.tangents.iter().enumerate() {
        assert_near(xyz(*t), moved(k, 1.0));
        assert_eq!(t[3], base[k][3], "w is kept");
    }
    assert_eq!(at.tangents.len(), 3);
}

#[test]
fn the_viewports_hidden_key_is_split_off_a_nodes_extras() {
    use super::split_hidden;
    use serde_json::json;
    assert_eq!(split_hidden(Some(json!({ "hidden": true }))), (None, true));
    assert_eq!(split_hidden(Some(json!({ "hidden": true, "tag": 1 }))), (Some(json!({ "tag": 1 })), true));
    assert_eq!(split_hidden(Some(json!({ "hidden": false, "tag": 1 }))), (Some(json!({ "tag": 1 })), false));
    // Not the viewport's key: kept as written.
    assert_eq!(split_hidden(Some(json!({ "hidden": "yes" }))), (Some(json!({ "hidden": "yes" })), false));
    assert_eq!(split_hidden(Some(json!([1, 2]))), (Some(json!([1, 2])), false));
    assert_eq!(split_hidden(None), (None, false));
}

mod compressed;
mod errors;
