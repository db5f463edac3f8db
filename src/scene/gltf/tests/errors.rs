//! Unit tests of `gltf.rs` for bad and unusual input: missing, corrupt,
//! truncated and hostile files give one-line errors and never panic;
//! legal files the strict parser refuses still open.

use super::super::parse::percent_decode;
use super::*;

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
