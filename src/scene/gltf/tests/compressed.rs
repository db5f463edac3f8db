//! Files from compression and optimisation pipelines (`docs/spec/materials.md`,
//! "Compressed and optimised files"): each is written here next to its plain
//! version, and both must load to the same geometry and texels, within the
//! loss the encoding allows (computed here from the encoding), before and
//! after an export.

use super::*;
use crate::scene::Scene;
use serde_json::{json, Value};

/// A quad in the XY plane (two triangles), off the origin and not square,
/// with tilted unit normals, UVs and tangents that are all distinct.
const POSITIONS: [[f32; 3]; 4] = [[-1.25, -0.5, 0.3], [2.0, -0.5, 0.3], [2.0, 1.75, -0.2], [-1.25, 1.75, -0.2]];
const NORMALS: [[f32; 3]; 4] = [[0.0, 0.6, 0.8], [0.6, 0.0, 0.8], [0.0, -0.28, 0.96], [-0.48, 0.6, 0.64]];
const UVS: [[f32; 2]; 4] = [[0.1, 0.9], [0.85, 0.95], [0.8, 0.05], [0.2, 0.15]];
const TANGENTS: [[f32; 4]; 4] =
    [[1.0, 0.0, 0.0, 1.0], [0.8, 0.0, -0.6, 1.0], [0.0, 0.96, 0.28, -1.0], [0.8, 0.6, 0.0, 1.0]];
const INDICES: [u16; 6] = [0, 1, 2, 0, 2, 3];

/// Binary data of a file under construction and the views into it.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    /// A view of `bytes` in buffer 0 (`stride` when given), 4-byte aligned.
    fn view(&mut self, bytes: &[u8], stride: Option<usize>) -> usize {
        self.bytes.resize(self.bytes.len().next_multiple_of(4), 0);
        let mut view = json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": bytes.len()});
        if let Some(s) = stride {
            view["byteStride"] = json!(s);
        }
        self.bytes.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    /// An accessor of `count` elements of `kind` in `view`.
    fn accessor(&mut self, view: usize, component: u32, normalized: bool, count: usize, kind: &str) -> usize {
        let mut a = json!({"bufferView": view, "componentType": component, "count": count, "type": kind});
        if normalized {
            a["normalized"] = json!(true);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    fn floats<const N: usize>(&mut self, values: &[[f32; N]], kind: &str) -> usize {
        let bytes: Vec<u8> = values.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(&bytes, None);
        self.accessor(view, 5126, false, values.len(), kind)
    }

    fn indices(&mut self) -> usize {
        let bytes: Vec<u8> = INDICES.iter().flat_map(|i| i.to_le_bytes()).collect();
        let view = self.view(&bytes, None);
        self.accessor(view, 5123, false, INDICES.len(), "SCALAR")
    }
}

/// A data URI of `bytes`.
fn data_uri(mime: &str, bytes: &[u8]) -> String {
    format!("data:{mime};base64,{}", base64::encode(bytes))
}

/// A glTF file of one node (`node`'s JSON) holding mesh 0, whose primitive
/// has `attributes` and `indices`, with the data of `bin` in a data URI.
fn file(bin: &Bin, node: Value, primitive: Value) -> Value {
    json!({
        "asset": {"version": "2.0"},
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [node],
        "meshes": [{"primitives": [primitive]}],
        "accessors": bin.accessors, "bufferViews": bin.views,
        "buffers": [{"byteLength": bin.bytes.len(), "uri": data_uri("application/octet-stream", &bin.bytes)}]
    })
}

/// Marks `ext` used and required in `file`.
fn require(file: &mut Value, ext: &str) {
    for key in ["extensionsUsed", "extensionsRequired"] {
        let list = file[key].as_array().cloned().unwrap_or_default();
        file[key] = json!(list.into_iter().chain([json!(ext)]).collect::<Vec<_>>());
    }
}

fn write(dir: &Path, name: &str, file: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(file).unwrap()).unwrap();
    path
}

/// Exports a scene holding the whole file at `path` as one object to
/// `out` (`.glb` or `.gltf`); returns the written JSON.
fn export(path: &Path, out: &Path) -> Value {
    let dir = path.parent().unwrap();
    let name = path.file_name().unwrap().to_str().unwrap();
    let scene = Scene::from_json(&json!({"objects": [{"name": "m", "mesh": name}]}).to_string(), dir).unwrap();
    let warnings = export::export_scene(&scene, None, out).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let bytes = std::fs::read(out).unwrap();
    if bytes.starts_with(b"glTF") {
        serde_json::from_slice(&gltf::binary::Glb::from_slice(&bytes).unwrap().json).unwrap()
    } else {
        serde_json::from_slice(&bytes).unwrap()
    }
}

fn names(v: &Value) -> Vec<&str> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).collect()
}

#[track_caller]
fn near<const N: usize>(got: &[[f32; N]], want: &[[f32; N]], tolerance: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: count");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        for c in 0..N {
            assert!((g[c] - w[c]).abs() <= tolerance, "{what} {k}: {g:?} vs {w:?} (tolerance {tolerance})");
        }
    }
}

/// A 4 x 3 image of distinct opaque and translucent texels.
fn texels() -> (u32, u32, Vec<u8>) {
    let (w, h) = (4u32, 3u32);
    let rgba =
        (0..w * h).flat_map(|i| [(i * 20) as u8, 255 - (i * 13) as u8, (i * 7 + 3) as u8, 255 - (i % 3) as u8 * 60]);
    (w, h, rgba.collect())
}

fn encode_png(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out).write_image(rgba, w, h, image::ExtendedColorType::Rgba8).unwrap();
    out
}

fn encode_webp(w: u32, h: u32, rgba: &[u8]) -> Vec<u8> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut out)
        .write_image(rgba, w, h, image::ExtendedColorType::Rgba8)
        .unwrap();
    out
}

/// The decoded texels of the base colour texture of material 0 of `path`.
fn base_color_texels(path: &Path) -> (u32, u32, Vec<u8>) {
    let looks = GltfFile::read(path).unwrap().looks();
    assert!(looks.warnings.is_empty(), "{:?}", looks.warnings);
    let image = looks.materials[0].texture.expect("material 0 has its texture").image;
    let data = looks.images[image].as_ref().expect("its image is decoded");
    (data.width, data.height, data.rgba.clone())
}

/// A textured quad whose texture is `texture` over `images`.
fn textured_quad(images: Value, texture: Value) -> Value {
    let mut bin = Bin::default();
    let p = bin.floats(&POSITIONS, "VEC3");
    let t = bin.floats(&UVS, "VEC2");
    let i = bin.indices();
    let mut f = file(
        &bin,
        json!({"mesh": 0}),
        json!({"attributes": {"POSITION": p, "TEXCOORD_0": t}, "indices": i, "material": 0}),
    );
    f["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    f["textures"] = json!([texture]);
    f["images"] = images;
    f
}

#[test]
fn a_webp_texture_reads_the_texels_of_its_png_twin() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h, rgba) = texels();
    let png = encode_png(w, h, &rgba);
    let webp = encode_webp(w, h, &rgba);
    assert!(webp.starts_with(b"RIFF") && &webp[8..12] == b"WEBP");
    let plain = write(
        dir.path(),
        "png.gltf",
        &textured_quad(json!([{"uri": data_uri("image/png", &png)}]), json!({"source": 0})),
    );
    assert_eq!(base_color_texels(&plain), (w, h, rgba.clone()));

    // Required, the WebP image alone.
    let webp_image = json!({"uri": data_uri("image/webp", &webp)});
    let mut required = textured_quad(json!([webp_image]), json!({"extensions": {"EXT_texture_webp": {"source": 0}}}));
    require(&mut required, "EXT_texture_webp");
    let required = write(dir.path(), "required.gltf", &required);
    assert_eq!(base_color_texels(&required), (w, h, rgba.clone()));

    // Used with a fallback PNG of other texels (one black texel): the WebP
    // image is preferred.
    let black = encode_png(1, 1, &[0, 0, 0, 255]);
    let mut fallback = textured_quad(
        json!([{"uri": data_uri("image/png", &black)}, {"uri": data_uri("image/webp", &webp)}]),
        json!({"source": 0, "extensions": {"EXT_texture_webp": {"source": 1}}}),
    );
    fallback["extensionsUsed"] = json!(["EXT_texture_webp"]);
    let fallback = write(dir.path(), "fallback.gltf", &fallback);
    assert_eq!(base_color_texels(&fallback), (w, h, rgba.clone()));

    // Exported, the extension, both images and the requirement stay.
    let geometry = load_gltf(&plain).unwrap();
    for (source, is_required) in [(&required, true), (&fallback, false)] {
        for ext in ["glb", "gltf"] {
            let out = dir.path().join(format!("out-{is_required}.{ext}"));
            let json = export(source, &out);
            assert_eq!(names(&json["extensionsUsed"]), ["EXT_texture_webp"]);
            assert_eq!(names(&json["extensionsRequired"]).contains(&"EXT_texture_webp"), is_required);
            let webp_index = json["textures"][0]["extensions"]["EXT_texture_webp"]["source"].as_u64().unwrap();
            assert_eq!(json["images"][webp_index as usize]["mimeType"], "image/webp");
            assert_eq!(json["images"].as_array().unwrap().len(), if is_required { 1 } else { 2 });
            assert_eq!(base_color_texels(&out), (w, h, rgba.clone()));
            assert_eq!(load_gltf(&out).unwrap(), geometry);
        }
    }
}

/// `x` quantized to a normalized integer of `max` steps (rounded).
fn quantize(x: f32, max: f32) -> f32 {
    (x * max).round()
}

/// A textured quad with normals, tangents and UVs as floats, and its
/// `KHR_mesh_quantization` twin (millimetre shorts scaled back by the node,
/// normalized bytes and shorts): (plain, quantized).
fn quantized_pair(dir: &Path) -> (PathBuf, PathBuf) {
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

/// The plain and meshopt-compressed versions of a file with positions,
/// octahedral-filtered normals (bytes, so `KHR_mesh_quantization` too) and
/// triangle indices; `glb` stores the compressed data in the binary chunk.
fn meshopt_pair(dir: &Path, filter_normals: bool) -> (PathBuf, PathBuf) {
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
    // Other required geometry extensions stay refused by name.
    json["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
    json["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
    let draco = write(dir.path(), "draco.gltf", &json);
    let err = load_gltf(&draco).unwrap_err().to_string();
    assert!(err.contains("requires the extension KHR_draco_mesh_compression"), "{err}");
}

/// The headless picture of `path` (material mode, 1x, validation on) from
/// a fixed camera in front of the quad: its colours, and how many pixels
/// the quad covers (ids).
fn picture(path: &Path) -> (Vec<u8>, usize) {
    use crate::draw::SceneMeshes;
    use crate::math::{Camera, DepthMode, Projection};
    use crate::render::{ContextDesc, Renderer};
    use nalgebra::{Point3, Vector3};
    const W: u32 = 160;
    const H: u32 = 120;
    let opened = crate::setup::open_scene(Some(path)).unwrap();
    let (mut editor, loaded) = crate::setup::open_editor_for(opened, (W, H), DepthMode::Reversed).unwrap();
    editor.camera = Camera {
        eye: Point3::new(0.375, 0.625, 4.0),
        target: Point3::new(0.375, 0.625, 0.05),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 0.8, near: 0.1, far: 100.0 },
    };
    let mut r = Renderer::headless(&ContextDesc { validation: true, samples: 1 }, W, H).unwrap();
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let (desc, _) = meshes.editor_frame(&editor);
    r.draw(&desc).unwrap();
    let colour = r.read_color().unwrap().data;
    let covered = r.read_ids().unwrap().iter().filter(|&&id| id != 0).count();
    assert_eq!(r.validation().errors(), 0, "{:?}", r.validation().error_messages());
    (colour, covered)
}

/// How many pixels of two pictures differ by more than 8 levels in a channel.
fn pixels_apart(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4).zip(b.chunks_exact(4)).filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 8)).count()
}

/// Compressed files draw the picture of their plain twins: the same
/// pixels for lossless WebP texels and meshopt streams, and at most a few
/// edge pixels for quantized attributes (half a millimetre, a byte's step
/// of the normals); the quad covers a good part of each picture.
#[test]
fn compressed_files_draw_the_picture_of_their_plain_twins() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h, rgba) = texels();
    let png = write(
        dir.path(),
        "png.gltf",
        &textured_quad(json!([{"uri": data_uri("image/png", &encode_png(w, h, &rgba))}]), json!({"source": 0})),
    );
    let mut webp = textured_quad(
        json!([{"uri": data_uri("image/webp", &encode_webp(w, h, &rgba))}]),
        json!({"extensions": {"EXT_texture_webp": {"source": 0}}}),
    );
    require(&mut webp, "EXT_texture_webp");
    let webp = write(dir.path(), "webp.gltf", &webp);
    let meshopt_dir = tempfile::tempdir().unwrap();
    let (meshopt_plain, meshopt) = meshopt_pair(meshopt_dir.path(), true);
    let quantized_dir = tempfile::tempdir().unwrap();
    let (float, quantized) = quantized_pair(quantized_dir.path());
    let pixels = 160 * 120;
    // The comparison tells different pictures apart: the textured quad
    // against the untextured one.
    assert!(pixels_apart(&picture(&png).0, &picture(&meshopt_plain).0) > pixels / 5);
    for (name, plain, compressed, allowed) in [
        ("EXT_texture_webp", &png, &webp, 0),
        ("EXT_meshopt_compression", &meshopt_plain, &meshopt, 0),
        ("KHR_mesh_quantization", &float, &quantized, pixels / 200),
    ] {
        let (want, covered) = picture(plain);
        assert!(covered > pixels / 5, "{name}: the quad covers {covered} of {pixels} pixels");
        let (got, got_covered) = picture(compressed);
        assert!(got_covered.abs_diff(covered) <= pixels / 200, "{name}: {got_covered} against {covered} pixels");
        let apart = pixels_apart(&want, &got);
        assert!(apart <= allowed, "{name}: {apart} pixels differ by more than 8 levels (at most {allowed})");
    }
}
