//! `EXT_meshopt_compression`: compressed buffer views (with the octahedral
//! filter or none) load like the plain file, and broken data is one line.

use super::*;

/// The plain and meshopt-compressed versions of a file with positions,
/// octahedral-filtered normals (bytes, so `KHR_mesh_quantization` too) and
/// triangle indices; `glb` stores the compressed data in the binary chunk.
pub(super) fn meshopt_pair(dir: &Path, filter_normals: bool) -> (PathBuf, PathBuf) {
    let oct: Vec<[i8; 4]> = ::meshopt::encoding::encode_filter_oct(&NORMALS.map(|n| [n[0], n[1], n[2], 0.0]), 8);
    // The plain file holds what the filter decodes to, so that both must
    // read alike byte for byte: the decoded bytes come from meshoptimizer's
    // own filter, run on the data here.
    let mut decoded = oct.clone();
    ::meshopt::encoding::decode_filter_oct(&mut decoded);
    let normals: Vec<[i8; 4]> = if filter_normals {
        decoded
    } else {
        NORMALS.map(|n| n.map(|x| quantize(x, 127.0) as i8)).iter().map(|n| [n[0], n[1], n[2], 0]).collect()
    };
    let positions: Vec<[f32; 3]> = POSITIONS.to_vec();

    let mut bin = Bin::default();
    let p = bin.floats(&positions, "VEC3");
    let view = bin.view(bytemuck::cast_slice(&normals), Some(4));
    let n = bin.accessor(view, 5120, true, 4, "VEC3");
    let i = bin.indices();
    let primitive = json!({"attributes": {"POSITION": p, "NORMAL": n}, "indices": i});
    let mut plain = file(&bin, json!({"mesh": 0}), primitive.clone());
    require(&mut plain, "KHR_mesh_quantization");

    // The same views, their bytes compressed into buffer 1.
    let mut compressed_bytes = Vec::new();
    let mut compressed = plain.clone();
    let streams: [(&[u8], usize, &str, &str); 3] = [
        (bytemuck::cast_slice(&positions), 12, "ATTRIBUTES", "NONE"),
        (
            bytemuck::cast_slice(if filter_normals { &oct } else { &normals }),
            4,
            "ATTRIBUTES",
            if filter_normals { "OCTAHEDRAL" } else { "NONE" },
        ),
        (bytemuck::cast_slice(&INDICES), 2, "TRIANGLES", "NONE"),
    ];
    for (v, (bytes, stride, mode, filter)) in streams.into_iter().enumerate() {
        let count = bytes.len() / stride;
        let encoded = match mode {
            "TRIANGLES" => ::meshopt::encoding::encode_index_buffer(&INDICES.map(u32::from), 4).unwrap(),
            _ => {
                let mut raw = vec![0u8; bytes.len()];
                raw.copy_from_slice(bytes);
                // Stride-sized records for the generic encoder.
                match stride {
                    12 => {
                        ::meshopt::encoding::encode_vertex_buffer(bytemuck::cast_slice::<u8, [u32; 3]>(&raw)).unwrap()
                    }
                    _ => ::meshopt::encoding::encode_vertex_buffer(bytemuck::cast_slice::<u8, [u8; 4]>(&raw)).unwrap(),
                }
            }
        };
        compressed_bytes.resize(compressed_bytes.len().next_multiple_of(4), 0);
        compressed["bufferViews"][v]["extensions"] = json!({"EXT_meshopt_compression": {
            "buffer": 1, "byteOffset": compressed_bytes.len(), "byteLength": encoded.len(),
            "byteStride": stride, "count": count, "mode": mode, "filter": filter
        }});
        compressed_bytes.extend_from_slice(&encoded);
    }
    // Buffer 0 becomes the fallback, with no data.
    compressed["buffers"] = json!([
        {"byteLength": bin.bytes.len(), "extensions": {"EXT_meshopt_compression": {"fallback": true}}},
        {"byteLength": compressed_bytes.len(), "uri": data_uri("application/octet-stream", &compressed_bytes)}
    ]);
    require(&mut compressed, "EXT_meshopt_compression");
    (write(dir, "plain.gltf", &plain), write(dir, "meshopt.gltf", &compressed))
}

#[test]
fn meshopt_compressed_views_load_like_the_plain_file() {
    for filter_normals in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (plain, compressed) = meshopt_pair(dir.path(), filter_normals);
        let want = load_gltf(&plain).unwrap();
        // The plain file is the quad (normals within a byte's step).
        near(&want.positions, &POSITIONS, 0.0, "position");
        assert_eq!(want.indices, INDICES.map(u32::from));
        assert_eq!(load_gltf(&compressed).unwrap(), want);
        // The fallback buffer's URI, were it given, is never read.
        let mut json: Value = serde_json::from_slice(&std::fs::read(&compressed).unwrap()).unwrap();
        json["buffers"][0]["uri"] = json!("no-such-file.bin");
        let with_uri = write(dir.path(), "fallback-uri.gltf", &json);
        assert_eq!(load_gltf(&with_uri).unwrap(), want);
        // Exported, the geometry is written decoded, without the extension.
        for ext in ["glb", "gltf"] {
            let out = dir.path().join(format!("out.{ext}"));
            let json = export(&compressed, &out);
            assert!(!json.to_string().contains("EXT_meshopt_compression"), "{json}");
            assert_eq!(load_gltf(&out).unwrap(), want);
        }
    }
}

#[test]
fn broken_meshopt_data_is_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let (_, compressed) = meshopt_pair(dir.path(), false);
    let mut json: Value = serde_json::from_slice(&std::fs::read(&compressed).unwrap()).unwrap();
    let garbage = vec![0x55u8; 64];
    json["buffers"][1] = json!({"byteLength": 64, "uri": data_uri("application/octet-stream", &garbage)});
    let broken = write(dir.path(), "broken.gltf", &json);
    let err = load_gltf(&broken).unwrap_err().to_string();
    assert!(err.contains("buffer view 0: EXT_meshopt_compression: the compressed data"), "{err}");
    assert!(!err.contains('\n'));
    // Required geometry extensions not read here stay refused by name.
    json["extensionsRequired"] = json!(["EXT_lossy_geometry"]);
    json["extensionsUsed"] = json!(["EXT_lossy_geometry"]);
    let other = write(dir.path(), "other.gltf", &json);
    let err = load_gltf(&other).unwrap_err().to_string();
    assert!(err.contains("requires the extension EXT_lossy_geometry"), "{err}");
}
