//! Copying a mesh of a glTF file into the export as it is in its file:
//! every primitive with every attribute, its indices, morph targets and
//! material, and the material's textures, samplers and images. Accessor
//! data is re-packed into the export's buffer (interleaved views are split,
//! vertex elements kept 4-byte aligned); image bytes are copied unchanged,
//! never decoded. The JSON of meshes, materials, textures and samplers is
//! copied with its indices renumbered, so extensions and extras pass through
//! as the file wrote them. Image bytes are kept apart until the file is
//! written: a `.glb` embeds them, a `.gltf` writes them as side files.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use gj::validation::{Checked, USize64};
use gltf::json as gj;
use serde_json::{json, Value};

use super::{push, Builder};
use crate::scene::gltf::materials::image_bytes;
use crate::scene::gltf::GltfFile;

/// One source file: its parsed form and buffers, its JSON as written, and
/// what of it the export already holds (old index -> new index).
pub(super) struct Source {
    pub(super) file: GltfFile,
    pub(super) json: Value,
    required: BTreeSet<String>,
    accessors: HashMap<(usize, Use), u32>,
    materials: HashMap<(usize, [u32; 3]), u32>,
    textures: HashMap<usize, u32>,
    samplers: HashMap<usize, u32>,
    images: HashMap<usize, u32>,
}

impl Source {
    fn read(path: &Path) -> Result<Source, String> {
        // Read once: parsed for the data, and as JSON for what it says.
        let bytes = GltfFile::read_bytes(path).map_err(|e| e.to_string())?;
        let file = GltfFile::from_bytes(path, &bytes).map_err(|e| e.to_string())?;
        let json_bytes = if bytes.starts_with(b"glTF") {
            gltf::binary::Glb::from_slice(&bytes).map_err(|e| e.to_string())?.json.into_owned()
        } else {
            bytes
        };
        let json: Value = serde_json::from_slice(&json_bytes).map_err(|e| e.to_string())?;
        let required = strings(&json["extensionsRequired"]);
        Ok(Source {
            file,
            json,
            required,
            accessors: HashMap::new(),
            materials: HashMap::new(),
            textures: HashMap::new(),
            samplers: HashMap::new(),
            images: HashMap::new(),
        })
    }
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_string)).collect()
}

pub(super) fn index(v: &Value) -> Option<usize> {
    v.as_u64().map(|i| i as usize)
}

/// Whether an object value under `key` is a texture reference (a
/// `textureInfo`: `baseColorTexture`, `normalTexture`, and the `...Texture`
/// members of material extensions).
fn is_texture_info(key: &str, v: &Value) -> bool {
    key.ends_with("Texture") && v.get("index").is_some_and(Value::is_u64)
}

/// Whether accessor `i` of the source, as the attribute `semantic` of a
/// primitive (of a morph target when `target`), has a format that only
/// `KHR_mesh_quantization` allows.
fn is_quantized(s: &Source, semantic: &str, i: usize, target: bool) -> bool {
    use gltf::accessor::DataType;
    let Some(a) = s.file.document.accessors().nth(i) else { return false };
    let float = a.data_type() == DataType::F32;
    let normalized_unsigned = a.normalized() && matches!(a.data_type(), DataType::U8 | DataType::U16);
    match semantic {
        "POSITION" | "NORMAL" | "TANGENT" => !float,
        _ if semantic.starts_with("TEXCOORD_") => !(float || normalized_unsigned),
        // Morph targets of other attributes are floats in glTF itself.
        _ if target => !float,
        _ => false,
    }
}

/// How an accessor is used, which decides its buffer view's target and
/// alignment.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Use {
    Vertex,
    Index,
    /// Animation samplers' input and output, inverse bind matrices: no
    /// target and no stride (the validator refuses either there).
    Data,
}

impl Builder {
    /// Copies mesh `n` of the glTF file at `path`; an object colour other
    /// than white multiplies a copy of each material's base colour factor.
    pub(super) fn copy_mesh(&mut self, path: &Path, n: usize, color: [f32; 3]) -> Result<u32, String> {
        self.with_source(path, |b, s| b.copy_mesh_from(s, n, color))
    }

    /// Runs `f` on the glTF file at `path`, read the first time it is asked
    /// for (a file that cannot be read gives its error each time).
    pub(super) fn with_source<T>(
        &mut self,
        path: &Path,
        f: impl FnOnce(&mut Builder, &mut Source) -> Result<T, String>,
    ) -> Result<T, String> {
        let path_buf: PathBuf = path.to_path_buf();
        let mut source = match self.files.remove(&path_buf) {
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                self.files.insert(path_buf, Err(e.clone()));
                return Err(e);
            }
            None => match Source::read(path) {
                Ok(s) => s,
                Err(e) => {
                    self.files.insert(path_buf, Err(e.clone()));
                    return Err(e);
                }
            },
        };
        let result = f(self, &mut source);
        self.files.insert(path_buf, Ok(source));
        result
    }

    fn copy_mesh_from(&mut self, s: &mut Source, n: usize, color: [f32; 3]) -> Result<u32, String> {
        let mut mesh = s.json["meshes"].get(n).cloned().ok_or("no such mesh")?;
        let primitives = mesh["primitives"].as_array_mut().ok_or("a mesh without primitives")?;
        let mut quantized = false;
        for p in primitives {
            if let Some(attributes) = p["attributes"].as_object_mut() {
                for (semantic, a) in attributes.iter_mut() {
                    let i = index(a).ok_or("bad attribute")?;
                    quantized |= is_quantized(s, semantic, i, false);
                    *a = json!(self.copy_accessor(s, i, Use::Vertex)?);
                }
            }
            if let Some(i) = index(&p["indices"]) {
                p["indices"] = json!(self.copy_accessor(s, i, Use::Index)?);
            }
            for target in p.get_mut("targets").and_then(Value::as_array_mut).into_iter().flatten() {
                for (semantic, a) in target.as_object_mut().into_iter().flat_map(|t| t.iter_mut()) {
                    let i = index(a).ok_or("bad morph target")?;
                    quantized |= is_quantized(s, semantic, i, true);
                    *a = json!(self.copy_accessor(s, i, Use::Vertex)?);
                }
            }
            if let Some(m) = index(&p["material"]) {
                p["material"] = json!(self.copy_material(s, m, color)?);
            }
            // Primitive extensions name things of the file that are not
            // copied (variants, compressed buffer views): left out.
            if let Some(o) = p.as_object_mut() {
                o.remove("extensions");
            }
        }
        if quantized {
            self.note_extension(s, "KHR_mesh_quantization");
        }
        Ok(push(&mut self.meshes, mesh))
    }

    /// Copies accessor `i` (and its sparse parts) with its data re-packed.
    pub(super) fn copy_accessor(&mut self, s: &mut Source, i: usize, usage: Use) -> Result<u32, String> {
        if let Some(&a) = s.accessors.get(&(i, usage)) {
            return Ok(a);
        }
        let accessor = s.file.document.accessors().nth(i).ok_or("no such accessor")?;
        let size = accessor.size();
        let count = accessor.count();
        let (stride, target) = match usage {
            Use::Vertex => (size.next_multiple_of(4), Some(gj::buffer::Target::ArrayBuffer)),
            Use::Index => (size, Some(gj::buffer::Target::ElementArrayBuffer)),
            Use::Data => (size, None),
        };
        let view = match accessor.view() {
            Some(_) => {
                let bytes = packed(s, &accessor, stride)?;
                let byte_stride = (stride != size).then_some(stride);
                Some(self.add_view(&bytes, target, byte_stride))
            }
            None => None,
        };
        let sparse = match accessor.sparse() {
            Some(sp) => Some(self.copy_sparse(s, &sp, size)?),
            None => None,
        };
        // The bounds as read: a Draco-compressed accessor's are those of its
        // decoded data (`draco.rs`), which is what is written.
        let declared = s.file.document.as_json().accessors.get(i);
        let new = self.root.push(gj::Accessor {
            buffer_view: view,
            byte_offset: None,
            count: USize64(count as u64),
            component_type: Checked::Valid(gj::accessor::GenericComponentType(accessor.data_type())),
            extensions: None,
            extras: None,
            type_: Checked::Valid(accessor.dimensions()),
            min: declared.and_then(|a| a.min.clone()),
            max: declared.and_then(|a| a.max.clone()),
            name: accessor.name().map(str::to_string),
            normalized: accessor.normalized(),
            sparse,
        });
        let new = new.value() as u32;
        s.accessors.insert((i, usage), new);
        Ok(new)
    }

    fn copy_sparse(
        &mut self,
        s: &Source,
        sp: &gltf::accessor::sparse::Sparse<'_>,
        value_size: usize,
    ) -> Result<gj::accessor::sparse::Sparse, String> {
        let n = sp.count();
        let slice = |view: gltf::buffer::View<'_>, offset: usize, len: usize| -> Result<Vec<u8>, String> {
            let buffer = s.file.buffers.get(view.buffer().index()).ok_or("no such buffer")?;
            let start = view.offset() + offset;
            buffer.get(start..start + len).map(<[u8]>::to_vec).ok_or_else(|| "sparse data past its buffer".into())
        };
        let idx = sp.indices();
        let idx_size = match idx.index_type() {
            gltf::accessor::sparse::IndexType::U8 => 1,
            gltf::accessor::sparse::IndexType::U16 => 2,
            gltf::accessor::sparse::IndexType::U32 => 4,
        };
        let idx_bytes = slice(idx.view(), idx.offset(), idx_size * n)?;
        let vals = sp.values();
        let val_bytes = slice(vals.view(), vals.offset(), value_size * n)?;
        let idx_view = self.add_view(&idx_bytes, None, None);
        let val_view = self.add_view(&val_bytes, None, None);
        let component = match idx.index_type() {
            gltf::accessor::sparse::IndexType::U8 => gj::accessor::ComponentType::U8,
            gltf::accessor::sparse::IndexType::U16 => gj::accessor::ComponentType::U16,
            gltf::accessor::sparse::IndexType::U32 => gj::accessor::ComponentType::U32,
        };
        Ok(gj::accessor::sparse::Sparse {
            count: USize64(n as u64),
            indices: gj::accessor::sparse::Indices {
                buffer_view: idx_view,
                byte_offset: USize64(0),
                component_type: Checked::Valid(gj::accessor::IndexComponentType(component)),
                extensions: None,
                extras: None,
            },
            values: gj::accessor::sparse::Values {
                buffer_view: val_view,
                byte_offset: USize64(0),
                extensions: None,
                extras: None,
            },
            extensions: None,
            extras: None,
        })
    }

    /// Copies material `m` with its textures; a colour other than white
    /// multiplies the copy's base colour factor.
    fn copy_material(&mut self, s: &mut Source, m: usize, color: [f32; 3]) -> Result<u32, String> {
        let key = (m, color.map(f32::to_bits));
        if let Some(&c) = s.materials.get(&key) {
            return Ok(c);
        }
        let mut material = s.json["materials"].get(m).cloned().ok_or("no such material")?;
        self.renumber_textures(s, &mut material)?;
        if color != [1.0; 3] {
            let pbr = &mut material["pbrMetallicRoughness"];
            if !pbr.is_object() {
                *pbr = json!({});
            }
            let mut factor: Vec<f64> = pbr["baseColorFactor"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_f64).collect())
                .filter(|f: &Vec<f64>| f.len() == 4)
                .unwrap_or(vec![1.0; 4]);
            for k in 0..3 {
                factor[k] *= f64::from(color[k]);
            }
            pbr["baseColorFactor"] = json!(factor);
        }
        self.note_extensions(s, &material);
        let new = push(&mut self.materials, material);
        s.materials.insert(key, new);
        Ok(new)
    }

    /// Renumbers every texture reference inside `value` (a material or one
    /// of its parts), copying the textures.
    fn renumber_textures(&mut self, s: &mut Source, value: &mut Value) -> Result<(), String> {
        match value {
            Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    if is_texture_info(key, v) {
                        let t = index(&v["index"]).ok_or("bad texture index")?;
                        v["index"] = json!(self.copy_texture(s, t)?);
                        self.note_extensions(s, v);
                    }
                    self.renumber_textures(s, v)?;
                }
            }
            Value::Array(items) => {
                for v in items {
                    self.renumber_textures(s, v)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Copies texture `t` with its sampler and image (and the images its
    /// extensions name, such as `KHR_texture_basisu`'s `source`).
    fn copy_texture(&mut self, s: &mut Source, t: usize) -> Result<u32, String> {
        if let Some(&c) = s.textures.get(&t) {
            return Ok(c);
        }
        let mut texture = s.json["textures"].get(t).cloned().ok_or("no such texture")?;
        if let Some(i) = index(&texture["sampler"]) {
            let sampler = match s.samplers.get(&i) {
                Some(&c) => c,
                None => {
                    let raw = s.json["samplers"].get(i).cloned().ok_or("no such sampler")?;
                    let c = push(&mut self.samplers, raw);
                    s.samplers.insert(i, c);
                    c
                }
            };
            texture["sampler"] = json!(sampler);
        }
        if let Some(i) = index(&texture["source"]) {
            texture["source"] = json!(self.copy_image(s, i)?);
        }
        for ext in texture.get_mut("extensions").and_then(Value::as_object_mut).into_iter().flat_map(|e| e.values_mut())
        {
            if let Some(i) = index(&ext["source"]) {
                ext["source"] = json!(self.copy_image(s, i)?);
            }
        }
        self.note_extensions(s, &texture);
        let new = push(&mut self.textures, texture);
        s.textures.insert(t, new);
        Ok(new)
    }

    /// Copies image `i`'s bytes unchanged into a buffer view.
    fn copy_image(&mut self, s: &mut Source, i: usize) -> Result<u32, String> {
        if let Some(&c) = s.images.get(&i) {
            return Ok(c);
        }
        let image = s.file.document.images().nth(i).ok_or("no such image")?;
        let base = s.file.path.parent().unwrap_or(Path::new(""));
        let bytes = image_bytes(&image, &s.file.buffers, base).map_err(|e| format!("image {i}: {e}"))?;
        let raw = &s.json["images"][i];
        let mime = raw["mimeType"].as_str().map(str::to_string).or_else(|| sniff_mime(&bytes).map(str::to_string));
        // Where the bytes go depends on the file written (see `write`).
        let mut out = json!({});
        if let Some(mime) = &mime {
            out["mimeType"] = json!(mime);
        }
        self.image_data.push(bytes);
        for key in ["name", "extras", "extensions"] {
            if let Some(v) = raw.get(key) {
                out[key] = v.clone();
            }
        }
        let new = push(&mut self.images, out);
        s.images.insert(i, new);
        Ok(new)
    }

    /// Records the extensions `value` uses (its `extensions` keys).
    pub(super) fn note_extensions(&mut self, s: &Source, value: &Value) {
        for name in value.get("extensions").and_then(Value::as_object).into_iter().flat_map(|e| e.keys()) {
            self.used.insert(name.clone());
            if s.required.contains(name) {
                self.required.insert(name.clone());
            }
        }
    }

    /// Records that the file uses extension `name` (required where the
    /// source file requires it).
    pub(super) fn note_extension(&mut self, s: &Source, name: &str) {
        self.used.insert(name.to_string());
        if s.required.contains(name) {
            self.required.insert(name.to_string());
        }
    }
}

/// The elements of `accessor` (which has a buffer view), each `stride`
/// bytes apart (zeros after each element's own bytes); sparse parts are not
/// applied.
fn packed(s: &Source, accessor: &gltf::Accessor<'_>, stride: usize) -> Result<Vec<u8>, String> {
    let view = accessor.view().ok_or("an accessor without a buffer view")?;
    let size = accessor.size();
    let count = accessor.count();
    let from = view.stride().unwrap_or(size);
    let start = view.offset() + accessor.offset();
    let buffer = s.file.buffers.get(view.buffer().index()).ok_or("no such buffer")?;
    let mut bytes = vec![0u8; stride * count];
    for k in 0..count {
        let at = start + k * from;
        let src = buffer.get(at..at + size).ok_or("accessor data past its buffer")?;
        bytes[k * stride..k * stride + size].copy_from_slice(src);
    }
    Ok(bytes)
}

/// The elements of accessor `i` of the source, tightly packed, for data
/// read here (inverse bind matrices): `None` when it has no buffer view or
/// sparse parts.
pub(super) fn plain_elements(s: &Source, i: usize) -> Result<Option<Vec<u8>>, String> {
    let accessor = s.file.document.accessors().nth(i).ok_or("no such accessor")?;
    if accessor.view().is_none() || accessor.sparse().is_some() {
        return Ok(None);
    }
    packed(s, &accessor, accessor.size()).map(Some)
}

/// The image type its first bytes name (PNG, JPEG, WebP, KTX2).
fn sniff_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8]) {
        Some("image/jpeg")
    } else if bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else if bytes.starts_with(b"\xABKTX 20") {
        Some("image/ktx2")
    } else {
        None
    }
}
