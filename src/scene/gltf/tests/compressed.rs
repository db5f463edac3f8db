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
    // Required geometry extensions not read here stay refused by name.
    json["extensionsRequired"] = json!(["EXT_lossy_geometry"]);
    json["extensionsUsed"] = json!(["EXT_lossy_geometry"]);
    let other = write(dir.path(), "other.gltf", &json);
    let err = load_gltf(&other).unwrap_err().to_string();
    assert!(err.contains("requires the extension EXT_lossy_geometry"), "{err}");
}

/// The headless picture of `path` (material mode, 1x, validation on) from
/// a fixed camera in front of the quad: its colours, and how many pixels
/// the quad covers (ids).
fn picture(path: &Path) -> (Vec<u8>, usize) {
    let (colour, covered, _) = picture_with(path, |_| ());
    (colour, covered)
}

/// [`picture`], with `setup` run on the renderer before the scene is
/// uploaded; also gives the format of every texture.
fn picture_with(
    path: &Path,
    setup: impl FnOnce(&mut crate::render::Renderer),
) -> (Vec<u8>, usize, Vec<ash::vk::Format>) {
    use crate::draw::SceneMeshes;
    use crate::math::{Camera, DepthMode, Projection};
    use crate::render::{ContextDesc, Renderer};
    use nalgebra::{Point3, Vector3};
    const W: u32 = 160;
    const H: u32 = 120;
    let opened = crate::app::open::open_scene(Some(path)).unwrap();
    let (mut editor, loaded) = crate::app::open::open_editor_for(opened, (W, H), DepthMode::Reversed).unwrap();
    editor.camera = Camera {
        eye: Point3::new(0.375, 0.625, 4.0),
        target: Point3::new(0.375, 0.625, 0.05),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 0.8, near: 0.1, far: 100.0 },
    };
    let mut r = Renderer::headless(&ContextDesc { validation: true, samples: 1 }, W, H).unwrap();
    setup(&mut r);
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let (desc, _) = meshes.editor_frame(&editor);
    r.draw(&desc).unwrap();
    let colour = r.read_color().unwrap().data;
    let covered = r.read_ids().unwrap().iter().filter(|&&id| id != 0).count();
    assert_eq!(r.validation().errors(), 0, "{:?}", r.validation().error_messages());
    (colour, covered, r.texture_formats().to_vec())
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

/// A UV sphere around the point the pictures look at, with unit normals,
/// UVs over the whole texture and per-vertex colours (bytes): every
/// vertex distinct (the seam's and the poles' by their UVs).
struct Sphere {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
    colors: Vec<[u8; 4]>,
    triangles: Vec<[u32; 3]>,
}

fn sphere() -> Sphere {
    const SEGMENTS: u32 = 16;
    const RINGS: u32 = 10;
    let centre = [0.375f32, 0.625, 0.0];
    let mut s = Sphere { positions: vec![], normals: vec![], uvs: vec![], colors: vec![], triangles: vec![] };
    for r in 0..=RINGS {
        for k in 0..=SEGMENTS {
            let theta = std::f32::consts::PI * r as f32 / RINGS as f32;
            let phi = std::f32::consts::TAU * k as f32 / SEGMENTS as f32;
            // Longitude 0 faces +z (the camera); the poles are on y.
            let n = [theta.sin() * phi.sin(), theta.cos(), theta.sin() * phi.cos()];
            s.positions.push([centre[0] + n[0], centre[1] + n[1], centre[2] + n[2]]);
            s.normals.push(n);
            // Pole vertices sit mid-segment in u, so that none share UVs.
            let pole = r == 0 || r == RINGS;
            let u = (k as f32 + if pole { 0.5 } else { 0.0 }) / SEGMENTS as f32;
            s.uvs.push([u.min(1.0), r as f32 / RINGS as f32]);
            s.colors.push([255 - (k * 5) as u8, 200 + (r * 5) as u8, 150 + (k * 6) as u8, 255]);
        }
    }
    for r in 0..RINGS {
        for k in 0..SEGMENTS {
            // a b above c d, seen from outside: a c d and a d b wind
            // counter-clockwise; the poles' degenerate halves are left out.
            let a = r * (SEGMENTS + 1) + k;
            let (b, c, d) = (a + 1, a + SEGMENTS + 1, a + SEGMENTS + 2);
            if r + 1 < RINGS {
                s.triangles.push([a, c, d]);
            }
            if r > 0 {
                s.triangles.push([a, d, b]);
            }
        }
    }
    s
}

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

/// The textured material of the sphere files (the `texels` image).
fn with_texture(mut f: Value) -> Value {
    let (w, h, rgba) = texels();
    f["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    f["textures"] = json!([{"source": 0}]);
    f["images"] = json!([{"uri": data_uri("image/png", &encode_png(w, h, &rgba))}]);
    f
}

/// The sphere as a plain file: float positions, normals and UVs, colours
/// as normalized bytes, 16-bit indices; the POSITION bounds declared.
fn plain_sphere(s: &Sphere) -> Value {
    let mut bin = Bin::default();
    let p = bin.floats(&s.positions, "VEC3");
    let (n, uv) = (bin.floats(&s.normals, "VEC3"), bin.floats(&s.uvs, "VEC2"));
    let view = bin.view(s.colors.as_flattened(), None);
    let c = bin.accessor(view, 5121, true, s.colors.len(), "VEC4");
    let indices: Vec<u8> = s.triangles.iter().flatten().flat_map(|&i| (i as u16).to_le_bytes()).collect();
    let view = bin.view(&indices, None);
    let i = bin.accessor(view, 5123, false, indices.len() / 2, "SCALAR");
    let (min, max) = bounds(&s.positions);
    bin.accessors[p]["min"] = json!(min);
    bin.accessors[p]["max"] = json!(max);
    let primitive = json!({"attributes": {"POSITION": p, "NORMAL": n, "TEXCOORD_0": uv, "COLOR_0": c},
        "indices": i, "material": 0});
    with_texture(file(&bin, json!({"mesh": 0}), primitive))
}

fn bounds(v: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let pick = |f: fn(f32, f32) -> f32, start: f32| std::array::from_fn(|k| v.iter().map(|p| p[k]).fold(start, f));
    (pick(f32::min, f32::INFINITY), pick(f32::max, f32::NEG_INFINITY))
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

/// The loaded sphere: merged positions, normals, UVs, colours, triangles.
type Loaded = (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<[f32; 2]>, Vec<[f32; 4]>, Vec<[u32; 3]>);

fn load_sphere(path: &Path) -> Loaded {
    let file = GltfFile::read(path).unwrap();
    assert!(file.problems.is_empty(), "{}: {:?}", path.display(), file.problems);
    let (mesh, surface) = file.merged_with_surface().unwrap();
    let triangles = mesh.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    (mesh.positions, mesh.normals, surface.uvs, surface.colors, triangles)
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

mod basis;
