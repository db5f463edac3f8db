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
        while self.bin.len() % 4 != 0 {
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
        while v.len() % 4 != 0 {
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

fn assert_error(result: Result<MeshData, GltfError>, path: &Path, needle: &str) {
    let message = result.expect_err("must fail").to_string();
    assert!(message.starts_with(&format!("{}: ", path.display())), "{message}");
    assert!(message.contains(needle), "expected {needle:?} in {message:?}");
    assert!(!message.contains('\n'), "{message:?}");
}

#[test]
fn a_missing_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nowhere.glb");
    let message = load_gltf(&path).unwrap_err().to_string();
    assert_eq!(message, format!("{}: missing file", path.display()));
}

#[test]
fn corrupt_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let noise: Vec<u8> = (0u32..512).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let text = std::fs::read(SAMPLE).unwrap();
    let header = |version: u32, length: u32| {
        let mut h = b"glTF".to_vec();
        h.extend_from_slice(&version.to_le_bytes());
        h.extend_from_slice(&length.to_le_bytes());
        h.extend_from_slice(&[0; 16]);
        h
    };
    let cases: Vec<(PathBuf, &str)> = vec![
        (write("noise.gltf", &noise), "not a glTF file"),
        (write("noise.glb", &noise), "not a glTF file: no GLB header"),
        (write("empty.gltf", b""), "not a glTF file"),
        (write("half.gltf", &text[..text.len() / 2]), "not a glTF file"),
        (write("json.gltf", br#"{"objects":[]}"#), "not a glTF file"),
        (write("v1.gltf", br#"{"asset":{"version":"1.0"}}"#), "unsupported glTF version"),
        (write("short.glb", b"glTF\x02\0"), "truncated GLB header"),
        (write("version.glb", &header(1, 28)), "unsupported GLB version 1"),
        // A declared length below the header's own size.
        (write("tiny.glb", &header(2, 0)), "bad GLB length 0"),
        (write("long.glb", &header(2, 4096)), "truncated GLB"),
        (write("chunk.glb", &header(2, 28)), "not a glTF file: bad GLB"),
    ];
    for (path, needle) in cases {
        assert_error(load_gltf(&path), &path, needle);
    }
    // Nothing with triangles at all is legal: an empty mesh.
    let path = write("empty-scene.gltf", br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}]}"#);
    assert_eq!(load_gltf(&path).unwrap(), MeshData::default());
}

#[test]
fn truncated_and_mutated_files_never_panic() {
    let text = std::fs::read(SAMPLE).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.glb");
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let i = doc.indices(&[0, 1, 2]);
    let good = doc.glb(ONE_MESH, &mesh(&format!(r#""POSITION":{p}"#), &format!(r#","indices":{i}"#)));
    assert!(mesh_from_bytes(&good, dir.path(), true).is_ok());
    for cut in (0..good.len()).step_by(3) {
        let _ = mesh_from_bytes(&good[..cut], dir.path(), true);
    }
    for cut in (0..text.len()).step_by(37) {
        let _ = mesh_from_bytes(&text[..cut], dir.path(), false);
    }
    let mut state = 0x9e37_79b9_u32;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as usize
    };
    // Overwrite bytes all over the GLB (header, JSON, binary chunk).
    for _ in 0..2000 {
        let mut bytes = good.clone();
        for _ in 0..3 {
            let at = random() % bytes.len();
            bytes[at] = random() as u8;
        }
        std::fs::write(&path, &bytes).unwrap();
        if let Err(e) = load_gltf(&path) {
            assert!(!e.to_string().contains('\n'));
        }
    }
    // Change digits of the sample's JSON: valid JSON with wrong counts,
    // offsets, indices, component types and base64 data.
    let digits: Vec<usize> = (0..text.len()).filter(|&i| text[i].is_ascii_digit()).collect();
    for _ in 0..2000 {
        let mut bytes = text.clone();
        for _ in 0..2 {
            bytes[digits[random() % digits.len()]] = b"0123456789"[random() % 10];
        }
        let _ = mesh_from_bytes(&bytes, dir.path(), false);
    }
}

#[test]
fn out_of_range_indices_are_errors() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let i = doc.indices(&[0, 1, 3]);
    let err = load_doc(&doc, ONE_MESH, &mesh(&format!(r#""POSITION":{p}"#), &format!(r#","indices":{i}"#)));
    let err = err.unwrap_err();
    assert!(err.contains("index 3 is out of range (3 vertices)"), "{err}");
}

#[test]
fn bad_data_is_an_error_not_a_panic() {
    let meshes = |p: usize| mesh(&format!(r#""POSITION":{p}"#), "");
    // A NaN position.
    let mut doc = Doc::default();
    let p = doc.vec3(&[[0.0, f32::NAN, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let err = load_doc(&doc, ONE_MESH, &meshes(p)).unwrap_err();
    assert!(err.contains("POSITION has a non-finite value"), "{err}");
    // An accessor longer than its buffer view.
    let mut doc = Doc::default();
    let view = doc.view(&[0; 24]);
    let p = doc.accessor(format!(r#"{{"bufferView":{view},"componentType":5126,"count":3,"type":"VEC3"}}"#));
    let err = load_doc(&doc, ONE_MESH, &meshes(p)).unwrap_err();
    assert!(err.contains("runs past the end of buffer view"), "{err}");
    // Positions of the wrong type.
    let mut doc = Doc::default();
    let view = doc.view(&[0; 36]);
    let p = doc.accessor(format!(r#"{{"bufferView":{view},"componentType":5126,"count":3,"type":"VEC4"}}"#));
    let err = load_doc(&doc, ONE_MESH, &meshes(p)).unwrap_err();
    assert!(err.contains("POSITION must be VEC3"), "{err}");
    // A node that is its own grandchild.
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let err = load_doc(&doc, r#"[{"children":[1]},{"mesh":0,"children":[0]}]"#, &meshes(p)).unwrap_err();
    assert!(err.contains("appears twice"), "{err}");
}

#[test]
fn a_missing_buffer_file_is_named() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let dir = tempfile::tempdir().unwrap();
    let path = doc.write(dir.path(), "m", ONE_MESH, &mesh(&format!(r#""POSITION":{p}"#), ""));
    std::fs::remove_file(dir.path().join("m.bin")).unwrap();
    assert_error(load_gltf(&path), &path, r#"buffer 0 ("m.bin") is missing"#);
    // The binary file exists but is shorter than declared.
    std::fs::write(dir.path().join("m.bin"), [0u8; 8]).unwrap();
    assert_error(load_gltf(&path), &path, "buffer 0 has 8 bytes, the file declares 36");
}

#[test]
fn relative_buffer_uris_are_percent_decoded() {
    assert_eq!(percent_decode("my%20mesh.bin").as_deref(), Some("my mesh.bin"));
    assert_eq!(percent_decode("a%2"), None);
    assert_eq!(percent_decode("a%zz"), None);
    assert_eq!(percent_decode("%FF"), None, "not UTF-8");
}

/// Writes `json` as `m.gltf` in a fresh directory and loads it.
fn load_json(json: &str) -> Result<MeshData, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.gltf");
    std::fs::write(&path, json).unwrap();
    load_gltf(&path).map_err(|e| e.to_string())
}

#[test]
fn legal_files_the_strict_crate_refuses_open() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let good = doc.json(ONE_MESH, &mesh(&format!(r#""POSITION":{p}"#), ""), None);
    let bin_uri = |json: &str| {
        json.replace(
            r#""buffers":[{"byteLength":36}]"#,
            &format!(
                r#""buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,{}"}}]"#,
                b64(&doc.bin)
            ),
        )
    };
    let triangle = load_json(&bin_uri(&good)).unwrap();
    assert_eq!(triangle.indices.len(), 3);

    // An accessor with neither buffer view nor sparse data reads as zeros:
    // a primitive of three points at the origin is still a (degenerate) triangle.
    let zeros = good.replace(r#""accessors":["#, r#""accessors":[{"componentType":5126,"count":3,"type":"VEC3"},"#);
    let zeros = zeros.replace(r#""POSITION":0"#, r#""POSITION":0,"NORMAL":0"#);
    let m = load_json(&bin_uri(&zeros)).unwrap();
    assert!(m.positions.iter().flatten().all(|&x| x == 0.0), "{m:?}");

    // A primitive without POSITION draws nothing.
    let no_position = good.replace(&format!(r#""POSITION":{p}"#), &format!(r#""NORMAL":{p}"#));
    assert_eq!(load_json(&bin_uri(&no_position)).unwrap(), MeshData::default());

    // An unknown accessor type is fine on an accessor nothing reads, an
    // error on one the mesh uses.
    let unused = good.replace(r#""accessors":["#, r#""accessors":[{"componentType":5126,"count":1,"type":"VEC9"},"#);
    let unused = unused.replace(&format!(r#""POSITION":{p}"#), &format!(r#""POSITION":{}"#, p + 1));
    assert_eq!(load_json(&bin_uri(&unused)).unwrap(), triangle);
    let used = good.replace(r#""type":"VEC3""#, r#""type":"VEC9""#);
    assert!(load_json(&bin_uri(&used)).unwrap_err().contains("accessors[0].type"));

    // A light of a type the crate does not know.
    let light = good.replace(
        r#""asset":{"version":"2.0"}"#,
        r#""asset":{"version":"2.0"},"extensionsUsed":["KHR_lights_punctual"],"extensions":{"KHR_lights_punctual":{"lights":[{"type":"laser"}]}}"#,
    );
    assert_eq!(load_json(&bin_uri(&light)).unwrap(), triangle);

    // Integers written as floats.
    let floats = good.replace(r#""nodes":[0]"#, r#""nodes":[0.0]"#).replace(r#""mesh":0"#, r#""mesh":0.0"#);
    assert_eq!(load_json(&bin_uri(&floats)).unwrap(), triangle);
}

#[test]
fn buffers_with_nothing_to_read_only_matter_when_used() {
    let mut doc = Doc::default();
    let p = doc.vec3(&TRIANGLE);
    let meshes = mesh(&format!(r#""POSITION":{p}"#), "");
    // A second, URI-less buffer in a GLB is a placeholder: fine unused.
    let json = doc.json(ONE_MESH, &meshes, None).replace(
        r#""buffers":[{"byteLength":36}]"#,
        r#""buffers":[{"byteLength":36},{"byteLength":1024},{"byteLength":8,"uri":"https://example.com/b.bin"}]"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.glb");
    std::fs::write(&path, glb(json.as_bytes(), &doc.bin)).unwrap();
    assert_eq!(load_gltf(&path).unwrap().indices.len(), 3);
    // Used, the primitive is left out (a warning), not the file refused.
    let used = json.replace(r#""buffer":0"#, r#""buffer":1"#);
    std::fs::write(&path, glb(used.as_bytes(), &doc.bin)).unwrap();
    assert_eq!(load_gltf(&path).unwrap(), MeshData::default());
    let file = GltfFile::read(&path).unwrap();
    assert_eq!(file.mesh(0).unwrap(), MeshData::default());
    // A `.gltf` buffer without a URI likewise.
    let gltf = doc.json(ONE_MESH, &meshes, None);
    assert_eq!(load_json(&gltf).unwrap(), MeshData::default());
}

#[test]
fn a_plain_text_data_uri_is_percent_decoded() {
    // Four bytes: 0x00 0x00 0x80 0x3f = 1.0f32, spelled with % escapes.
    let json = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"data:application/gltf-buffer,%00%00%80%3f"}],
        "bufferViews":[{"buffer":0,"byteLength":4}],"accessors":[{"bufferView":0,"componentType":5126,"count":1,"type":"SCALAR"}]}"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.gltf");
    std::fs::write(&path, json).unwrap();
    let file = GltfFile::read(&path).unwrap();
    assert_eq!(file.buffers[0], vec![0, 0, 0x80, 0x3f]);
    assert_eq!(f32::from_le_bytes([0, 0, 0x80, 0x3f]), 1.0);
    // A broken escape is an error naming the buffer.
    std::fs::write(&path, json.replace("%3f", "%3")).unwrap();
    assert!(GltfFile::read(&path).unwrap_err().to_string().contains("buffer 0: bad data URI"));
}

/// Standard base64 with padding (RFC 4648), written here so the test does
/// not use the decoder it checks.
fn b64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
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
    // A geometry extension we cannot read is refused by name.
    let err = write(format!(r#""POSITION":{q}"#), "KHR_draco_mesh_compression").unwrap_err().to_string();
    assert!(err.contains("requires the extension KHR_draco_mesh_compression"), "{err}");
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
