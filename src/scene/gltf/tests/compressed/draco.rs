//! `KHR_draco_mesh_compression`: Draco primitives decode to the original
//! sphere within the quantisation steps (in a `.gltf`, a GLB and beside a
//! fallback), broken data is one error line, and the picture matches.

use super::pictures::{picture, pixels_apart};
use super::sphere::{bounds, load_sphere, plain_sphere, sphere, with_texture, Loaded, Sphere};
use super::*;

/// The quantisation bits of the Draco test files: positions, normals, UVs
/// (colours are bytes, stored losslessly).
const DRACO_BITS: [i32; 3] = [14, 10, 12];

/// Draco attribute ids of the test files: not 0..3, so that a loader
/// reading attributes by their order rather than by id fails.
const DRACO_IDS: [u32; 4] = [7, 3, 11, 5];

/// `sphere` encoded by draco-core's own encoder with `DRACO_BITS` and
/// `DRACO_IDS`: the bytes, and the decoded vertex and triangle counts the
/// encoder reports (for the accessors).
fn draco_encode(s: &Sphere) -> (Vec<u8>, usize, usize) {
    use draco_core::{DataType, EncoderBuffer, EncoderOptions, GeometryAttributeType as G, Mesh, MeshEncoder};
    use draco_core::{PointAttribute, PointIndex};
    let n = s.positions.len();
    let mut mesh = Mesh::new();
    let mut add = |kind: G, components: u8, t: DataType, normalized: bool, id: u32, bytes: Vec<u8>| {
        let mut a = PointAttribute::new();
        a.init(kind, components, t, normalized, n);
        a.buffer_mut().write(0, &bytes);
        a.set_unique_id(id);
        mesh.add_attribute_preserve_unique_id(a)
    };
    let floats = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let ids = DRACO_IDS;
    let p = add(G::Position, 3, DataType::Float32, false, ids[0], floats(s.positions.as_flattened()));
    let nn = add(G::Normal, 3, DataType::Float32, false, ids[1], floats(s.normals.as_flattened()));
    let uv = add(G::TexCoord, 2, DataType::Float32, false, ids[2], floats(s.uvs.as_flattened()));
    add(G::Color, 4, DataType::Uint8, true, ids[3], s.colors.as_flattened().to_vec());
    for t in &s.triangles {
        mesh.add_face(t.map(PointIndex));
    }
    let mut options = EncoderOptions::new();
    for (att, bits) in [p, nn, uv].into_iter().zip(DRACO_BITS) {
        options.set_attribute_quantization(att, bits);
    }
    let mut encoder = MeshEncoder::new();
    encoder.set_mesh(mesh);
    let mut out = EncoderBuffer::new();
    let info = encoder.encode_with_info(&options, &mut out).unwrap();
    let ids: Vec<u32> = info.attributes.iter().map(|a| a.unique_id).collect();
    assert_eq!(ids, DRACO_IDS, "the encoder keeps the attribute ids");
    (out.data().to_vec(), info.num_encoded_points, info.num_encoded_faces)
}

/// The sphere as a Draco file: one compressed buffer view, accessors with
/// no data of their own (counts as decoded), the extension required.
fn draco_sphere(s: &Sphere) -> Value {
    let (compressed, points, faces) = draco_encode(s);
    let mut bin = Bin::default();
    let view = bin.view(&compressed, None);
    let accessor = |component: u32, normalized: bool, count: usize, kind: &str| {
        let mut a = json!({"componentType": component, "count": count, "type": kind});
        if normalized {
            a["normalized"] = json!(true);
        }
        a
    };
    let (min, max) = bounds(&s.positions);
    let mut position = accessor(5126, false, points, "VEC3");
    position["min"] = json!(min);
    position["max"] = json!(max);
    bin.accessors = vec![
        position,
        accessor(5126, false, points, "VEC3"),
        accessor(5126, false, points, "VEC2"),
        accessor(5121, true, points, "VEC4"),
        accessor(5123, false, 3 * faces, "SCALAR"),
    ];
    let ids = DRACO_IDS;
    let primitive = json!({
        "attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2, "COLOR_0": 3}, "indices": 4, "material": 0,
        "extensions": {"KHR_draco_mesh_compression": {"bufferView": view,
            "attributes": {"POSITION": ids[0], "NORMAL": ids[1], "TEXCOORD_0": ids[2], "COLOR_0": ids[3]}}}
    });
    let mut f = with_texture(file(&bin, json!({"mesh": 0}), primitive));
    require(&mut f, "KHR_draco_mesh_compression");
    f
}

/// The largest extent of `v` on any axis: Draco quantises every component
/// of an attribute over one cube of that size.
fn extent<const N: usize>(v: &[[f32; N]]) -> f32 {
    (0..N)
        .map(|k| {
            let (lo, hi) = v.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| (lo.min(p[k]), hi.max(p[k])));
            hi - lo
        })
        .fold(0.0, f32::max)
}

/// `got` against the sphere it was encoded from, within the quantisation
/// steps that `DRACO_BITS` give, vertex by vertex and triangle by triangle
/// (Draco may reorder both, and turn a triangle's corners).
#[track_caller]
fn assert_sphere_within_the_steps(got: &Loaded, s: &Sphere) {
    let (positions, normals, uvs, colors, triangles) = got;
    let steps = |bits: i32| ((1u32 << bits) - 1) as f32;
    // Half a step of the cube each attribute is quantised over, and the
    // rounding of the f32 arithmetic that undoes it.
    let position_tolerance = extent(&s.positions) / steps(DRACO_BITS[0]) / 2.0 + 1e-6;
    let uv_tolerance = extent(&s.uvs) / steps(DRACO_BITS[2]) / 2.0 + 1e-6;
    // Octahedral normals: each of the two coordinates is off by at most half
    // a step of [-1, 1], e = 1 / (2^bits - 1); the point on the octahedron
    // then moves by at most sqrt(e^2 + e^2 + (2e)^2) = sqrt(6) e, and
    // normalising it (|p| >= 1/sqrt(3) there) by at most sqrt(3) times
    // that: sqrt(18) e.
    let normal_tolerance = 18f32.sqrt() / steps(DRACO_BITS[1]) + 1e-6;
    let close = |a: &[f32], b: &[f32], t: f32| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= t);
    // Each decoded vertex is one original vertex, told by position and UV.
    let mut original = Vec::new();
    for (k, (p, uv)) in positions.iter().zip(uvs).enumerate() {
        let matches: Vec<usize> = (0..s.positions.len())
            .filter(|&i| close(p, &s.positions[i], position_tolerance) && close(uv, &s.uvs[i], uv_tolerance))
            .collect();
        assert_eq!(matches.len(), 1, "decoded vertex {k} ({p:?}, {uv:?}) matches original vertices {matches:?}");
        let i = matches[0];
        assert!(
            close(&normals[k], &s.normals[i], normal_tolerance),
            "normal {k}: {:?} vs {:?}",
            normals[k],
            s.normals[i]
        );
        // Bytes as stored: the same fractions, up to f32 rounding.
        let want = s.colors[i].map(|c| f32::from(c) / 255.0);
        assert!(close(&colors[k], &want, 1e-6), "colour {k}: {:?} vs {want:?}", colors[k]);
        original.push(i as u32);
    }
    // The same triangles, each wound as before (turned to start at its
    // least corner).
    let turned = |t: [u32; 3]| {
        let at = (0..3).min_by_key(|&k| t[k]).unwrap();
        [t[at], t[(at + 1) % 3], t[(at + 2) % 3]]
    };
    let mut want: Vec<[u32; 3]> = s.triangles.iter().map(|&t| turned(t)).collect();
    let mut have: Vec<[u32; 3]> = triangles.iter().map(|t| turned(t.map(|i| original[i as usize]))).collect();
    want.sort_unstable();
    have.sort_unstable();
    assert_eq!(have, want, "the decoded triangles");
}

#[test]
fn draco_primitives_decode_to_the_original_vertices_within_the_quantisation_step() {
    let dir = tempfile::tempdir().unwrap();
    let s = sphere();
    let plain = write(dir.path(), "plain.gltf", &plain_sphere(&s));
    let draco = draco_sphere(&s);
    let compressed = write(dir.path(), "draco.gltf", &draco);
    // The plain file is the sphere exactly; the Draco file within the steps.
    let want = load_sphere(&plain);
    assert_eq!(want.0, s.positions);
    assert_eq!(want.4, s.triangles);
    let got = load_sphere(&compressed);
    assert_sphere_within_the_steps(&got, &s);
    // The steps are fine enough to matter: the positions did move.
    assert!(got.0.iter().zip(&s.positions).any(|(a, b)| a != b) || got.0.len() != s.positions.len());

    // The same in a GLB, the compressed data in the binary chunk.
    let glb = dir.path().join("draco.glb");
    let mut json = draco.clone();
    let bytes = base64::decode(json["buffers"][0]["uri"].as_str().unwrap().split(',').nth(1).unwrap()).unwrap();
    json["buffers"][0].as_object_mut().unwrap().remove("uri");
    std::fs::write(&glb, glb_bytes(&json, &bytes)).unwrap();
    assert_eq!(load_sphere(&glb), got);

    // Beside an uncompressed fallback (other data, in the accessors' own
    // views) with the extension only used: Draco is read, not the fallback.
    let mut fallback = draco.clone();
    let shifted: Vec<[f32; 3]> = s.positions.iter().map(|p| [p[0] + 5.0, p[1], p[2]]).collect();
    let mut bin = Bin::default();
    bin.view(&bytes, None);
    let p = bin.floats(&shifted, "VEC3");
    fallback["bufferViews"] = json!(bin.views);
    fallback["accessors"][0]["bufferView"] = json!(bin.accessors[p]["bufferView"]);
    fallback["buffers"][0] =
        json!({"byteLength": bin.bytes.len(), "uri": data_uri("application/octet-stream", &bin.bytes)});
    fallback.as_object_mut().unwrap().remove("extensionsRequired");
    // (The poles' last vertices are used by no triangle, and Draco drops
    // them: the view holds more than the decoded count, which is valid.)
    assert!(got.0.len() <= shifted.len());
    let fallback = write(dir.path(), "fallback.gltf", &fallback);
    assert_eq!(load_sphere(&fallback), got);

    // Exported, the geometry is written decoded, without the extension,
    // and reads back as the Draco file did, with true bounds.
    for ext in ["glb", "gltf"] {
        let out = dir.path().join(format!("out.{ext}"));
        let json = export(&compressed, &out);
        assert!(!json.to_string().contains("KHR_draco_mesh_compression"), "{json}");
        assert_eq!(load_sphere(&out), got);
    }
}

/// A GLB of `json` with `bin` as its binary chunk.
fn glb_bytes(json: &Value, bin: &[u8]) -> Vec<u8> {
    glb(&serde_json::to_vec(json).unwrap(), bin)
}

#[test]
fn broken_draco_data_is_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = draco_sphere(&sphere());
    let compressed = base64::decode(good["buffers"][0]["uri"].as_str().unwrap().split(',').nth(1).unwrap()).unwrap();
    let with_data = |bytes: &[u8]| {
        let mut f = good.clone();
        f["bufferViews"][0]["byteLength"] = json!(bytes.len());
        f["buffers"][0] = json!({"byteLength": bytes.len(), "uri": data_uri("application/octet-stream", bytes)});
        f
    };
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut f = good.clone();
        edit(&mut f);
        f
    };
    let cases: Vec<(&str, Value, &str)> = vec![
        ("truncated", with_data(&compressed[..compressed.len() / 2]), "the compressed data is malformed"),
        ("garbage", with_data(&[0x55; 64]), "the compressed data is malformed"),
        ("empty", with_data(&[]), "the compressed data is malformed"),
        (
            "an id not in the data",
            edited(&|f| {
                f["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]["attributes"]["NORMAL"] =
                    json!(99)
            }),
            "NORMAL: the compressed mesh has no attribute with id 99",
        ),
        (
            "an attribute the primitive lacks",
            edited(&|f| {
                f["meshes"][0]["primitives"][0]["attributes"].as_object_mut().unwrap().remove("COLOR_0");
            }),
            "COLOR_0 is not one of the primitive's attributes",
        ),
        (
            "a vertex count off by one",
            edited(&|f| f["accessors"][1]["count"] = json!(f["accessors"][1]["count"].as_u64().unwrap() + 1)),
            "accessor 1 (NORMAL) has count",
        ),
        (
            "an index count off by three",
            edited(&|f| f["accessors"][4]["count"] = json!(f["accessors"][4]["count"].as_u64().unwrap() - 3)),
            "accessor 4 (indices) has count",
        ),
        (
            "a type of other size",
            edited(&|f| f["accessors"][2]["type"] = json!("VEC3")),
            "has 2 components, the accessor 3",
        ),
        (
            "UVs into shorts, which cannot hold them",
            edited(&|f| {
                f["accessors"][2]["componentType"] = json!(5123);
            }),
            "does not fit its componentType UNSIGNED_SHORT",
        ),
        (
            "signed indices",
            edited(&|f| f["accessors"][4]["componentType"] = json!(5122)),
            "accessor 4 (indices) must be unsigned",
        ),
        (
            "morph targets",
            edited(&|f| f["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": 1}])),
            "the extension does not allow morph targets",
        ),
        (
            "strips",
            edited(&|f| f["meshes"][0]["primitives"][0]["mode"] = json!(5)),
            "TRIANGLE_STRIP primitives are not read",
        ),
        (
            "a view past its buffer",
            edited(&|f| f["bufferViews"][0]["byteLength"] = json!(compressed.len() + 8)),
            "runs past the end of buffer 0",
        ),
    ];
    for (name, file, want) in cases {
        let path = write(dir.path(), "broken.gltf", &file);
        let Err(err) = load_gltf(&path) else { panic!("{name}: the file was read") };
        let err = err.to_string();
        assert!(err.contains("mesh 0, primitive 0: KHR_draco_mesh_compression: "), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert!(!err.contains('\n'), "{name}: {err}");
    }
}

/// A Draco file draws the picture of its plain twin, within the codec's
/// loss. Positions move by at most half a step of 2 m over 14 bits, 0.06 mm,
/// where a pixel at the sphere's front spans about 21 mm: only a pixel whose
/// centre lies that close to an edge can change, so a handful at most; the
/// normals' error (at most 0.0042) moves shading by about one level and the
/// UVs' (half of 1/4095) a texel's colour by far less than one: neither
/// reaches the 8 levels counted. Allowed: 0.1 % of the pixels.
#[test]
fn a_draco_file_draws_the_picture_of_its_plain_twin() {
    let dir = tempfile::tempdir().unwrap();
    let s = sphere();
    let plain = write(dir.path(), "plain.gltf", &plain_sphere(&s));
    let draco = write(dir.path(), "draco.gltf", &draco_sphere(&s));
    let mut bare = plain_sphere(&s);
    bare["meshes"][0]["primitives"][0].as_object_mut().unwrap().remove("material");
    let bare = write(dir.path(), "bare.gltf", &bare);
    let pixels = 160 * 120;
    let (want, covered) = picture(&plain);
    assert!(covered > pixels / 5, "the sphere covers {covered} of {pixels} pixels");
    // The comparison tells different pictures apart: the sphere without
    // its texture.
    assert!(pixels_apart(&want, &picture(&bare).0) > pixels / 20);
    let (got, got_covered) = picture(&draco);
    let allowed = pixels / 1000;
    assert!(got_covered.abs_diff(covered) <= allowed, "{got_covered} against {covered} pixels");
    let apart = pixels_apart(&want, &got);
    assert!(apart <= allowed, "{apart} pixels differ by more than 8 levels (at most {allowed})");
}
