//! Files from compression and optimisation pipelines (`docs/spec/materials.md`,
//! "Compressed and optimised files"): each is written here next to its plain
//! version, and both must load to the same geometry and texels, within the
//! loss the encoding allows (computed here from the encoding), before and
//! after an export.
//!
//! This file holds what the tests share: the quad they are made of, the
//! file under construction ([`Bin`]) and the helpers that write, export and
//! read files. The tests stand by what they compress: `webp.rs`,
//! `quantized.rs`, `meshopt.rs`, `draco.rs` (on the sphere of `sphere.rs`)
//! and `basis.rs`; `pictures.rs` draws files headless and compares them.

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

/// `x` quantized to a normalized integer of `max` steps (rounded).
fn quantize(x: f32, max: f32) -> f32 {
    (x * max).round()
}

mod basis;
mod draco;
mod meshopt;
mod pictures;
mod quantized;
mod sphere;
mod webp;
