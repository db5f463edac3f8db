//! Writes small glTF files with materials and textures for the tests: flat
//! quads facing +z (one mesh and one node each), PNG images encoded here
//! and stored as side files, data URIs or GLB buffer views, and sRGB
//! conversions to compute expected pixels independently of the renderer.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Where an image's bytes go.
#[derive(Clone, Debug)]
pub enum ImageAt {
    /// A side file of this name (not written when the bytes are `None`).
    File(String),
    /// A `data:image/png;base64,...` URI.
    DataUri,
    /// A buffer view of the (only) buffer; with `.glb` the binary chunk.
    BufferView,
}

#[derive(Clone, Debug)]
pub struct Image {
    pub bytes: Option<Vec<u8>>,
    pub at: ImageAt,
}

/// A square in the node's xy plane, `half` wide each way, facing +z, with
/// UV (0, 0) at its top-left corner (-half, +half) and (1, 1) at the
/// bottom-right, as glTF images are addressed (rows top to bottom).
#[derive(Clone, Debug)]
pub struct Quad {
    pub translation: [f32; 3],
    pub half: f32,
    pub material: Option<usize>,
    /// `COLOR_0`, the same at every vertex (VEC4 float).
    pub color: Option<[f32; 4]>,
    /// Which `TEXCOORD_n` carries the real UVs; lower sets get (0.9, 0.9)
    /// everywhere (one texel), so reading the wrong set shows.
    pub uv_set: u32,
    /// The UVs run from 0 to this across the quad (1: the image once).
    pub uv_scale: f32,
    /// `TANGENT`, the same at every vertex (VEC4 float).
    pub tangent: Option<[f32; 4]>,
    /// `TEXCOORD_1` at the corners top-left, top-right, bottom-right,
    /// bottom-left, written beside the real UVs of set 0 (with `uv_set` 0).
    pub uv1: Option<[[f32; 2]; 4]>,
    /// The node's rotation (quaternion x, y, z, w), if any.
    pub rotation: Option<[f32; 4]>,
    /// Skinned: every vertex follows one joint, node `bone{i}` (a root
    /// at the quad's translation, inverse bind matrix identity), so the
    /// quad turns about its centre as that node turns.
    pub skinned: bool,
}

impl Quad {
    pub fn new(translation: [f32; 3], half: f32, material: Option<usize>) -> Quad {
        Quad {
            translation,
            half,
            material,
            color: None,
            uv_set: 0,
            uv_scale: 1.0,
            tangent: None,
            uv1: None,
            rotation: None,
            skinned: false,
        }
    }
}

/// A glTF document in the making.
#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub quads: Vec<Quad>,
    /// JSON of `materials`, `textures`, `samplers` as the test wants them.
    pub materials: Vec<Value>,
    pub textures: Vec<Value>,
    pub samplers: Vec<Value>,
    pub images: Vec<Image>,
    /// `KHR_lights_punctual` lights, each on a node of its own with this
    /// translation and rotation (quaternion x, y, z, w).
    pub lights: Vec<(Value, [f32; 3], [f32; 4])>,
}

impl Doc {
    /// Writes `dir/NAME` (`.gltf` with a `.bin` beside it, or `.glb` with
    /// everything inside) and returns its path.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let glb = name.ends_with(".glb");
        let mut bin: Vec<u8> = Vec::new();
        let (mut views, mut accessors, mut meshes, mut nodes) = (vec![], vec![], vec![], vec![]);
        let mut view = |bin: &mut Vec<u8>, bytes: &[u8]| {
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()}));
            bin.extend_from_slice(bytes);
            views.len() - 1
        };
        let floats = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        for (i, q) in self.quads.iter().enumerate() {
            let h = q.half;
            let positions = [-h, h, 0.0, h, h, 0.0, h, -h, 0.0, -h, -h, 0.0];
            let v = view(&mut bin, &floats(&positions));
            accessors.push(json!({"bufferView": v, "componentType": 5126, "count": 4, "type": "VEC3",
                                  "min": [-h, -h, 0.0], "max": [h, h, 0.0]}));
            let mut attributes = json!({"POSITION": accessors.len() - 1});
            for set in 0..=q.uv_set {
                let k = q.uv_scale;
                let uvs: [f32; 8] = if set == q.uv_set { [0.0, 0.0, k, 0.0, k, k, 0.0, k] } else { [0.9; 8] };
                let v = view(&mut bin, &floats(&uvs));
                accessors.push(json!({"bufferView": v, "componentType": 5126, "count": 4, "type": "VEC2"}));
                attributes[format!("TEXCOORD_{set}")] = json!(accessors.len() - 1);
            }
            if let Some(uv1) = q.uv1 {
                assert_eq!(q.uv_set, 0, "uv1 goes beside the real UVs of set 0");
                let v = view(&mut bin, &floats(uv1.as_flattened()));
                accessors.push(json!({"bufferView": v, "componentType": 5126, "count": 4, "type": "VEC2"}));
                attributes["TEXCOORD_1"] = json!(accessors.len() - 1);
            }
            if let Some(c) = q.color {
                let v = view(&mut bin, &floats(&[c, c, c, c].concat()));
                accessors.push(json!({"bufferView": v, "componentType": 5126, "count": 4, "type": "VEC4"}));
                attributes["COLOR_0"] = json!(accessors.len() - 1);
            }
            if let Some(t) = q.tangent {
                let v = view(&mut bin, &floats(&[t, t, t, t].concat()));
                accessors.push(json!({"bufferView": v, "componentType": 5126, "count": 4, "type": "VEC4"}));
                attributes["TANGENT"] = json!(accessors.len() - 1);
            }
            if q.skinned {
                let v = view(&mut bin, &[0u8; 16]);
                accessors.push(json!({"bufferView": v, "componentType": 5121, "count": 4, "type": "VEC4"}));
                attributes["JOINTS_0"] = json!(accessors.len() - 1);
                let v = view(&mut bin, &floats(&[1.0, 0.0, 0.0, 0.0].repeat(4)));
                accessors.push(json!({"bufferView": v, "componentType": 5126, "count": 4, "type": "VEC4"}));
                attributes["WEIGHTS_0"] = json!(accessors.len() - 1);
            }
            let indices: [u16; 6] = [0, 3, 2, 0, 2, 1];
            let v = view(&mut bin, &indices.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
            accessors.push(json!({"bufferView": v, "componentType": 5123, "count": 6, "type": "SCALAR"}));
            let mut primitive = json!({"attributes": attributes, "indices": accessors.len() - 1});
            if let Some(m) = q.material {
                primitive["material"] = json!(m);
            }
            meshes.push(json!({"primitives": [primitive]}));
            nodes.push(json!({"name": format!("quad{i}"), "mesh": i, "translation": q.translation}));
            if let Some(r) = q.rotation {
                nodes.last_mut().expect("just pushed")["rotation"] = json!(r);
            }
        }
        for (k, (_, t, r)) in self.lights.iter().enumerate() {
            nodes.push(json!({"name": format!("light{k}"), "translation": t, "rotation": r,
                              "extensions": {"KHR_lights_punctual": {"light": k}}}));
        }
        let mut skins = vec![];
        for (i, q) in self.quads.iter().enumerate().filter(|(_, q)| q.skinned) {
            nodes.push(json!({"name": format!("bone{i}"), "translation": q.translation}));
            skins.push(json!({"joints": [nodes.len() - 1]}));
            nodes[i]["skin"] = json!(skins.len() - 1);
        }
        let mut images = vec![];
        for image in &self.images {
            images.push(match (&image.at, &image.bytes) {
                (ImageAt::File(file), bytes) => {
                    if let Some(bytes) = bytes {
                        std::fs::write(dir.join(file), bytes).unwrap();
                    }
                    json!({"uri": file})
                }
                (ImageAt::DataUri, Some(bytes)) => json!({"uri": format!("data:image/png;base64,{}", base64(bytes))}),
                (ImageAt::BufferView, Some(bytes)) => {
                    json!({"bufferView": view(&mut bin, bytes), "mimeType": "image/png"})
                }
                (_, None) => panic!("embedded images need bytes"),
            });
        }
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let stem = name.trim_end_matches(".glb").trim_end_matches(".gltf");
        let mut buffer = json!({"byteLength": bin.len()});
        if !glb {
            buffer["uri"] = json!(format!("{stem}.bin"));
            std::fs::write(dir.join(format!("{stem}.bin")), &bin).unwrap();
        }
        let mut doc = json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": ["KHR_materials_unlit"],
            "scene": 0,
            "scenes": [{"nodes": (0..nodes.len()).collect::<Vec<_>>()}],
            "nodes": nodes, "meshes": meshes, "accessors": accessors, "bufferViews": views,
            "buffers": [buffer],
        });
        for (key, list) in [("materials", &self.materials), ("textures", &self.textures), ("samplers", &self.samplers)]
        {
            if !list.is_empty() {
                doc[key] = json!(list);
            }
        }
        if !images.is_empty() {
            doc["images"] = json!(images);
        }
        if !skins.is_empty() {
            doc["skins"] = json!(skins);
        }
        if !self.lights.is_empty() {
            doc["extensionsUsed"] = json!(["KHR_materials_unlit", "KHR_lights_punctual"]);
            let lights: Vec<&Value> = self.lights.iter().map(|(l, _, _)| l).collect();
            doc["extensions"] = json!({"KHR_lights_punctual": {"lights": lights}});
        }
        let path = dir.join(name);
        if glb {
            let mut text = doc.to_string().into_bytes();
            while !text.len().is_multiple_of(4) {
                text.push(b' ');
            }
            let total = 12 + 8 + text.len() + 8 + bin.len();
            let mut out = Vec::with_capacity(total);
            out.extend_from_slice(b"glTF");
            out.extend(2u32.to_le_bytes());
            out.extend((total as u32).to_le_bytes());
            out.extend((text.len() as u32).to_le_bytes());
            out.extend_from_slice(b"JSON");
            out.extend(text);
            out.extend((bin.len() as u32).to_le_bytes());
            out.extend_from_slice(b"BIN\0");
            out.extend(bin);
            std::fs::write(&path, out).unwrap();
        } else {
            std::fs::write(&path, doc.to_string()).unwrap();
        }
        path
    }
}

/// An unlit material with a base colour factor and optionally a texture.
pub fn unlit(factor: [f32; 4], texture: Option<(usize, u32)>) -> Value {
    let mut m = lit(factor, texture);
    m["extensions"] = json!({"KHR_materials_unlit": {}});
    m
}

/// A lit material; `texture` is (texture index, texCoord set).
pub fn lit(factor: [f32; 4], texture: Option<(usize, u32)>) -> Value {
    let mut pbr = json!({"baseColorFactor": factor});
    if let Some((index, set)) = texture {
        pbr["baseColorTexture"] = json!({"index": index, "texCoord": set});
    }
    json!({"pbrMetallicRoughness": pbr})
}

/// A `size` x `size` RGBA image whose four quadrants have the colours
/// `[top-left, top-right, bottom-left, bottom-right]`.
pub fn quadrants(size: u32, colors: [[u8; 4]; 4]) -> Vec<u8> {
    let mut rgba = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        for x in 0..size {
            let q = usize::from(y >= size / 2) * 2 + usize::from(x >= size / 2);
            rgba.extend_from_slice(&colors[q]);
        }
    }
    png_rgba(size, size, &rgba)
}

/// Encodes RGBA8 pixels as a PNG.
pub fn png_rgba(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header().unwrap().write_image_data(rgba).unwrap();
    out
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                s.push(ABC[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// sRGB-encoded byte -> linear.
pub fn to_linear(c: u8) -> f64 {
    let c = f64::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear -> sRGB-encoded byte.
pub fn to_srgb(l: f64) -> u8 {
    let l = l.clamp(0.0, 1.0);
    let c = if l <= 0.0031308 { l * 12.92 } else { 1.055 * l.powf(1.0 / 2.4) - 0.055 };
    (c * 255.0).round() as u8
}

/// Whether each colour channel is within `tolerance` of the expected one.
pub fn close(got: [u8; 4], want: [u8; 3], tolerance: i32) -> bool {
    (0..3).all(|i| (i32::from(got[i]) - i32::from(want[i])).abs() <= tolerance)
}
