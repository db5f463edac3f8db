//! `KHR_mesh_quantization`: attributes stored as scaled shorts and
//! normalized bytes load like their float file, within half a step.

use super::*;

/// A textured quad with normals, tangents and UVs as floats, and its
/// `KHR_mesh_quantization` twin (millimetre shorts scaled back by the node,
/// normalized bytes and shorts): (plain, quantized).
pub(super) fn quantized_pair(dir: &Path) -> (PathBuf, PathBuf) {
    let image = json!([{"uri": data_uri("image/png", &encode_png(1, 1, &[255; 4]))}]);
    let material = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}, "normalTexture": {"index": 0}}]);
    let with_material = |mut f: Value| {
        f["materials"] = material.clone();
        f["textures"] = json!([{"source": 0}]);
        f["images"] = image.clone();
        f
    };
    let primitive = |p: usize, n: usize, t: usize, uv: usize, i: usize| json!({"attributes": {"POSITION": p, "NORMAL": n, "TANGENT": t, "TEXCOORD_0": uv}, "indices": i, "material": 0});

    let mut bin = Bin::default();
    let (p, n) = (bin.floats(&POSITIONS, "VEC3"), bin.floats(&NORMALS, "VEC3"));
    let (t, uv, i) = (bin.floats(&TANGENTS, "VEC4"), bin.floats(&UVS, "VEC2"), bin.indices());
    let plain = write(dir, "plain.gltf", &with_material(file(&bin, json!({"mesh": 0}), primitive(p, n, t, uv, i))));

    // Positions as plain shorts in millimetres, scaled back by the node;
    // normals and tangents as normalized bytes; UVs as normalized unsigned shorts.
    const MM: f32 = 1000.0;
    let mut bin = Bin::default();
    let shorts: Vec<u8> = POSITIONS
        .iter()
        .flat_map(|v| {
            v.iter().map(|x| (x * MM).round() as i16).chain([0]).flat_map(i16::to_le_bytes).collect::<Vec<_>>()
        })
        .collect();
    let view = bin.view(&shorts, Some(8));
    let p = bin.accessor(view, 5122, false, 4, "VEC3");
    let bytes = |v: &[f32]| -> Vec<u8> { v.iter().map(|x| quantize(*x, 127.0) as i8 as u8).collect() };
    let normal_bytes: Vec<u8> = NORMALS.iter().flat_map(|v| bytes(v).into_iter().chain([0])).collect();
    let view = bin.view(&normal_bytes, Some(4));
    let n = bin.accessor(view, 5120, true, 4, "VEC3");
    let tangent_bytes: Vec<u8> = TANGENTS.iter().flat_map(|v| bytes(v)).collect();
    let view = bin.view(&tangent_bytes, None);
    let t = bin.accessor(view, 5120, true, 4, "VEC4");
    let uv_shorts: Vec<u8> = UVS.iter().flatten().flat_map(|x| (quantize(*x, 65535.0) as u16).to_le_bytes()).collect();
    let view = bin.view(&uv_shorts, None);
    let uv = bin.accessor(view, 5123, true, 4, "VEC2");
    let i = bin.indices();
    let node = json!({"mesh": 0, "scale": [1.0 / MM, 1.0 / MM, 1.0 / MM]});
    let mut quantized = with_material(file(&bin, node, primitive(p, n, t, uv, i)));
    require(&mut quantized, "KHR_mesh_quantization");
    let quantized = write(dir, "quantized.gltf", &quantized);

    (plain, quantized)
}

#[test]
fn quantized_attributes_load_like_their_float_file() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, quantized) = quantized_pair(dir.path());
    const MM: f32 = 1000.0;
    let load = |path: &Path| GltfFile::read(path).unwrap().merged_with_surface().unwrap();
    let (want, want_surface) = load(&plain);
    let check = |path: &Path| {
        let (got, surface) = load(path);
        assert_eq!(got.indices, want.indices);
        // Half a millimetre, and float rounding of the scale.
        near(&got.positions, &want.positions, 0.5 / MM + 1e-6, "position");
        // A byte's half step moves a unit normal by at most sqrt(3) x 0.5 / 127
        // before renormalising, which at most doubles it.
        let step = 3f32.sqrt() / 127.0;
        near(&got.normals, &want.normals, step, "normal");
        near(&surface.tangents, &want_surface.tangents, step, "tangent");
        near(&surface.uvs, &want_surface.uvs, 0.5 / 65535.0 + 1e-7, "uv");
    };
    check(&quantized);
    // Exported, the quantized accessors are copied and the extension stays required.
    for ext in ["glb", "gltf"] {
        let out = dir.path().join(format!("quantized-out.{ext}"));
        let json = export(&quantized, &out);
        assert!(names(&json["extensionsRequired"]).contains(&"KHR_mesh_quantization"), "{json}");
        check(&out);
    }
}
