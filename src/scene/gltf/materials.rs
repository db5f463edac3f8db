//! Reading a glTF file's materials, samplers and images into the plain
//! [`Looks`] of `scene::material`. The images the materials' textures use
//! are decoded (PNG, JPEG, WebP and Basis Universal KTX2, in parallel
//! threads); others are not opened. A texture with `KHR_texture_basisu` or
//! `EXT_texture_webp` reads the image its extension names, and falls back
//! to its plain `source` if that image cannot be read. An image that is
//! missing or unreadable is a warning naming it.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::scene::material::{
    AlphaMode, Filter, ImageData, Looks, Material, SamplerDesc, TextureRef, UvMap, UvTransform, Wrap, MAX_IMAGE_SIDE,
};

/// The extensions that name a texture's image in place of its `source`,
/// in the order they are tried.
const IMAGE_EXTENSIONS: [&str; 2] = ["KHR_texture_basisu", "EXT_texture_webp"];

/// Per texture of `document` (whose JSON is `json`), the images it may
/// read, first choice first: the images its `KHR_texture_basisu` and
/// `EXT_texture_webp` extensions name, then its `source` (the fallback).
/// Empty for a texture with none. An index out of range is passed over
/// (the checks warn).
pub(super) fn texture_images(json: &serde_json::Value, document: &gltf::Document) -> Vec<Vec<usize>> {
    let images = document.images().len();
    document
        .textures()
        .map(|t| {
            let named = IMAGE_EXTENSIONS.iter().filter_map(|ext| {
                json.pointer(&format!("/textures/{}/extensions/{ext}/source", t.index()))
                    .and_then(serde_json::Value::as_u64)
                    .and_then(|i| usize::try_from(i).ok())
            });
            let mut list: Vec<usize> = Vec::new();
            for i in named.chain(t.source().map(|s| s.index())) {
                if i < images && !list.contains(&i) {
                    list.push(i);
                }
            }
            list
        })
        .collect()
}

/// The textures any material of `document` reads.
fn textures_used(document: &gltf::Document) -> Vec<usize> {
    let mut used = Vec::new();
    for m in document.materials() {
        let pbr = m.pbr_metallic_roughness();
        let infos = [
            pbr.base_color_texture().map(|i| i.texture().index()),
            pbr.metallic_roughness_texture().map(|i| i.texture().index()),
            m.emissive_texture().map(|i| i.texture().index()),
            m.occlusion_texture().map(|i| i.texture().index()),
            m.normal_texture().map(|i| i.texture().index()),
        ];
        used.extend(infos.into_iter().flatten());
    }
    used.sort_unstable();
    used.dedup();
    used
}

/// Reads the materials of `document` and decodes the images their textures
/// use (in parallel). `texture_images` are [`texture_images`]'s: a texture
/// reads the first of its images that decodes, trying the next ones only
/// when one fails. `buffers` are the file's buffers, `base` the folder side
/// files are read from; `file` names the glTF in warnings.
pub fn read_looks(
    document: &gltf::Document,
    texture_images: &[Vec<usize>],
    buffers: &[Vec<u8>],
    base: &Path,
    file: &Path,
) -> Looks {
    let images: Vec<gltf::Image<'_>> = document.images().collect();
    let mut decoded: Vec<Option<Result<Arc<ImageData>, String>>> = vec![None; images.len()];
    // Per texture: the image it reads, once one decoded.
    let mut chosen: Vec<Option<usize>> = vec![None; texture_images.len()];
    let pending: Vec<usize> = textures_used(document).into_iter().filter(|&t| t < texture_images.len()).collect();
    // Round k decodes the k-th choice of every texture whose earlier
    // choices all failed (round 0: every first choice).
    let rounds = texture_images.iter().map(Vec::len).max().unwrap_or(0);
    for k in 0..rounds {
        let mut wanted: Vec<usize> = pending
            .iter()
            .filter(|&&t| chosen[t].is_none())
            .filter(|&&t| {
                texture_images[t][..k.min(texture_images[t].len())].iter().all(|&i| matches!(decoded[i], Some(Err(_))))
            })
            .filter_map(|&t| texture_images[t].get(k).copied())
            .filter(|&i| decoded[i].is_none())
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let results = parallel_map(&wanted, |&i| decode_image(&images[i], buffers, base));
        for (&i, result) in wanted.iter().zip(results) {
            decoded[i] = Some(result.map(Arc::new));
        }
        for &t in &pending {
            if chosen[t].is_none() {
                chosen[t] = texture_images[t].iter().copied().find(|&i| matches!(decoded[i], Some(Ok(_))));
            }
        }
    }
    let materials: Vec<Material> = document.materials().map(|m| material(&m, &chosen)).collect();
    let mut out = Looks { materials, images: vec![None; images.len()], warnings: Vec::new() };
    for (i, result) in decoded.into_iter().enumerate() {
        match result {
            Some(Ok(image)) => out.images[i] = Some(image),
            Some(Err(problem)) => {
                // The images the textures that tried this one read instead.
                let mut instead: Vec<usize> =
                    pending.iter().filter(|&&t| texture_images[t].contains(&i)).filter_map(|&t| chosen[t]).collect();
                instead.dedup();
                let outcome = match instead.first() {
                    Some(&j) => format!("its textures read their fallback, {}", image_name(&images[j])),
                    None => "its materials draw with their colour factor alone".to_string(),
                };
                out.warnings.push(format!("{}: {}: {problem}; {outcome}", file.display(), image_name(&images[i])));
            }
            None => {}
        }
    }
    out
}

/// How warnings name an image: its index, its `name` and its URI (not a
/// data URI's contents).
fn image_name(image: &gltf::Image<'_>) -> String {
    let mut s = format!("image {}", image.index());
    if let Some(name) = image.name() {
        s.push_str(&format!(" \"{name}\""));
    }
    if let gltf::image::Source::Uri { uri, .. } = image.source() {
        if !uri.starts_with("data:") {
            s.push_str(&format!(" ({uri})"));
        }
    }
    s
}

/// Which of [`uv_maps`]'s entries is which texture (the order of
/// [`Material::textures_mut`]).
const BASE_COLOR: usize = 0;
const METALLIC_ROUGHNESS: usize = 1;
const EMISSIVE: usize = 2;
const OCCLUSION: usize = 3;
pub(super) const NORMAL: usize = 4;

/// The UV stream and `KHR_texture_transform` of each texture info of `m`,
/// in the order of [`Material::textures_mut`] (base colour,
/// metallic-roughness, emissive, occlusion, normal; `None` where the
/// material has no such texture), and the `TEXCOORD_n` set each of the
/// mesh's two UV streams reads for this material ([`uv_layout`]).
pub(super) fn uv_maps(m: &gltf::Material<'_>) -> ([Option<UvMap>; 5], [u32; 2]) {
    uv_layout(file_uv_maps(m))
}

/// Gives the sets a material's textures read to the mesh's two UV streams:
/// sets 0 and 1 to streams 0 and 1 when the textures read no other; else
/// the lowest set read to stream 0 and the next one to stream 1. A texture
/// of a third set reads stream 0 (the only case not drawn as the file
/// says; the caller warns). `maps` hold sets as the file gives them; the
/// result's hold streams.
pub(super) fn uv_layout(mut maps: [Option<UvMap>; 5]) -> ([Option<UvMap>; 5], [u32; 2]) {
    let mut sets: Vec<u32> = maps.iter().flatten().map(|m| m.set).collect();
    sets.sort_unstable();
    sets.dedup();
    let sources = if sets.iter().all(|&s| s <= 1) { [0, 1] } else { [sets[0], sets.get(1).copied().unwrap_or(1)] };
    for m in maps.iter_mut().flatten() {
        m.set = sources.iter().position(|&s| s == m.set).unwrap_or(0) as u32;
    }
    (maps, sources)
}

/// [`uv_maps`] with the sets as the file gives them.
fn file_uv_maps(m: &gltf::Material<'_>) -> [Option<UvMap>; 5] {
    let pbr = m.pbr_metallic_roughness();
    let info = |i: Option<gltf::texture::Info<'_>>| {
        i.map(|i| {
            let transform = i
                .texture_transform()
                .map(|t| (UvTransform { offset: t.offset(), rotation: t.rotation(), scale: t.scale() }, t.tex_coord()));
            uv_map(i.tex_coord(), transform)
        })
    };
    let normal =
        m.normal_texture().map(|i| uv_map(i.tex_coord(), i.extension_value(TRANSFORM).and_then(transform_from_json)));
    let occlusion = m
        .occlusion_texture()
        .map(|i| uv_map(i.tex_coord(), i.extension_value(TRANSFORM).and_then(transform_from_json)));
    [
        info(pbr.base_color_texture()),
        info(pbr.metallic_roughness_texture()),
        info(m.emissive_texture()),
        occlusion,
        normal,
    ]
}

const TRANSFORM: &str = "KHR_texture_transform";

/// A texture info's UVs: its `texCoord`, replaced by the transform's
/// where that gives one.
fn uv_map(tex_coord: u32, transform: Option<(UvTransform, Option<u32>)>) -> UvMap {
    let set = transform.and_then(|(_, set)| set).unwrap_or(tex_coord);
    UvMap { set, transform: transform.map(|(t, _)| t) }
}

/// `KHR_texture_transform` read from its JSON (the `gltf` crate models it
/// on `textureInfo` only, not on the normal and occlusion texture infos);
/// members missing or of the wrong type take the extension's defaults.
fn transform_from_json(v: &serde_json::Value) -> Option<(UvTransform, Option<u32>)> {
    let v = v.as_object()?;
    let number = |x: Option<&serde_json::Value>, default: f32| {
        x.and_then(serde_json::Value::as_f64).map_or(default, |x| x as f32)
    };
    let pair = |key: &str, default: f32| {
        let a = v.get(key).and_then(serde_json::Value::as_array);
        [0, 1].map(|k| number(a.and_then(|a| a.get(k)), default))
    };
    let transform = UvTransform {
        offset: pair("offset", 0.0),
        rotation: number(v.get("rotation"), 0.0),
        scale: pair("scale", 1.0),
    };
    let set = v.get("texCoord").and_then(serde_json::Value::as_u64).and_then(|s| u32::try_from(s).ok());
    Some((transform, set))
}

fn material(m: &gltf::Material<'_>, texture_images: &[Option<usize>]) -> Material {
    let pbr = m.pbr_metallic_roughness();
    let file_sets = file_uv_maps(m);
    let (uv, sources) = uv_layout(file_sets);
    for set in file_sets.iter().flatten().map(|u| u.set).filter(|s| !sources.contains(s)) {
        log::warn!(
            "material {}: its textures read more than two UV sets; TEXCOORD_{set} is not drawn, its texture reads TEXCOORD_{}",
            m.index().map_or("(default)".to_string(), |i| i.to_string()),
            sources[0]
        );
    }
    // A texture none of whose images could be read draws the factor alone.
    let reference = |t: gltf::Texture<'_>, k: usize| {
        Some(TextureRef {
            image: (*texture_images.get(t.index())?)?,
            sampler: sampler(&t.sampler()),
            uv: uv[k].unwrap_or_default(),
        })
    };
    let texture = pbr.base_color_texture().and_then(|info| reference(info.texture(), BASE_COLOR));
    let metallic_roughness =
        pbr.metallic_roughness_texture().and_then(|info| reference(info.texture(), METALLIC_ROUGHNESS));
    let emissive_texture = m.emissive_texture().and_then(|info| reference(info.texture(), EMISSIVE));
    let occlusion_info = m.occlusion_texture();
    let occlusion = occlusion_info.as_ref().and_then(|info| reference(info.texture(), OCCLUSION));
    let occlusion_strength = occlusion_info.map_or(1.0, |info| info.strength());
    let occlusion_strength = if occlusion_strength.is_finite() { occlusion_strength.clamp(0.0, 1.0) } else { 1.0 };
    let normal_info = m.normal_texture();
    let normal = normal_info.as_ref().and_then(|info| reference(info.texture(), NORMAL));
    let normal_scale = normal_info.map_or(1.0, |info| info.scale());
    let normal_scale = if normal_scale.is_finite() { normal_scale } else { 1.0 };
    let unit = |v: f32| if v.is_finite() { v.clamp(0.0, 1.0) } else { 1.0 };
    let strength = m.emissive_strength().filter(|s| s.is_finite() && *s >= 0.0).unwrap_or(1.0);
    let emissive = m.emissive_factor().map(|c| unit(c) * strength);
    let alpha = match m.alpha_mode() {
        gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
        gltf::material::AlphaMode::Mask => AlphaMode::Mask(m.alpha_cutoff().unwrap_or(0.5)),
        gltf::material::AlphaMode::Blend => AlphaMode::Blend,
    };
    let base_color = pbr.base_color_factor().map(|c| if c.is_finite() { c.clamp(0.0, 1.0) } else { 1.0 });
    Material {
        base_color,
        texture,
        alpha,
        unlit: m.unlit(),
        metallic: unit(pbr.metallic_factor()),
        roughness: unit(pbr.roughness_factor()),
        metallic_roughness,
        emissive,
        emissive_texture,
        occlusion,
        occlusion_strength,
        normal,
        normal_scale,
        double_sided: m.double_sided(),
    }
}

fn sampler(s: &gltf::texture::Sampler<'_>) -> SamplerDesc {
    use gltf::texture::{MagFilter, MinFilter, WrappingMode};
    let default = SamplerDesc::default();
    let mag = match s.mag_filter() {
        Some(MagFilter::Nearest) => Filter::Nearest,
        Some(MagFilter::Linear) => Filter::Linear,
        None => default.mag,
    };
    let (min, mipmap) = match s.min_filter() {
        Some(MinFilter::Nearest) => (Filter::Nearest, None),
        Some(MinFilter::Linear) => (Filter::Linear, None),
        Some(MinFilter::NearestMipmapNearest) => (Filter::Nearest, Some(Filter::Nearest)),
        Some(MinFilter::LinearMipmapNearest) => (Filter::Linear, Some(Filter::Nearest)),
        Some(MinFilter::NearestMipmapLinear) => (Filter::Nearest, Some(Filter::Linear)),
        Some(MinFilter::LinearMipmapLinear) => (Filter::Linear, Some(Filter::Linear)),
        None => (default.min, default.mipmap),
    };
    let wrap = |w: WrappingMode| match w {
        WrappingMode::ClampToEdge => Wrap::ClampToEdge,
        WrappingMode::MirroredRepeat => Wrap::MirroredRepeat,
        WrappingMode::Repeat => Wrap::Repeat,
    };
    SamplerDesc { mag, min, mipmap, wrap_u: wrap(s.wrap_s()), wrap_v: wrap(s.wrap_t()) }
}

/// Runs `f` on every item on up to as many threads as there are cores;
/// results in item order.
fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        // A worker only panics if `f` does; pass that on.
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// The encoded bytes of an image and decodes them.
fn decode_image(image: &gltf::Image<'_>, buffers: &[Vec<u8>], base: &Path) -> Result<ImageData, String> {
    let bytes = image_bytes(image, buffers, base)?;
    decode(&bytes)
}

pub(super) fn image_bytes(image: &gltf::Image<'_>, buffers: &[Vec<u8>], base: &Path) -> Result<Vec<u8>, String> {
    match image.source() {
        gltf::image::Source::View { view, .. } => {
            let buffer = view.buffer().index();
            view.offset()
                .checked_add(view.length())
                .and_then(|end| buffers.get(buffer)?.get(view.offset()..end))
                .map(<[u8]>::to_vec)
                .ok_or_else(|| format!("buffer view {} runs past the end of buffer {buffer}", view.index()))
        }
        gltf::image::Source::Uri { uri, .. } if uri.starts_with("data:") => {
            gltf::buffer::Data::from_source(gltf::buffer::Source::Uri(uri), None)
                .map(|d| d.0)
                .map_err(|e| format!("bad data URI: {e}"))
        }
        gltf::image::Source::Uri { uri, .. } if uri.contains(':') => Err("unsupported URI (not a file)".into()),
        gltf::image::Source::Uri { uri, .. } => {
            let name = super::parse::percent_decode(uri).ok_or("bad URI")?;
            std::fs::read(base.join(&name)).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => "missing file".to_string(),
                _ => format!("cannot read: {e}"),
            })
        }
    }
}

/// Decodes PNG, JPEG, WebP or Basis Universal KTX2 bytes (told by their
/// first bytes) into RGBA8.
pub fn decode(bytes: &[u8]) -> Result<ImageData, String> {
    let format = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        image::ImageFormat::Png
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        image::ImageFormat::Jpeg
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        image::ImageFormat::WebP
    } else if bytes.starts_with(crate::scene::ktx2::KTX2_IDENTIFIER) {
        return crate::scene::ktx2::decode(bytes);
    } else {
        return Err("not a PNG, JPEG, WebP or KTX2 image".into());
    };
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    reader.limits(limits);
    let decoded = reader.decode().map_err(|e| format!("cannot decode: {e}"))?.into_rgba8();
    let (width, height) = decoded.dimensions();
    if width == 0 || height == 0 {
        return Err("empty image".into());
    }
    Ok(ImageData { width, height, rgba: decoded.into_raw(), basis: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_formats_are_named() {
        assert!(decode(b"\xabKTX 20\xbb\r\n\x1a\n rest").unwrap_err().contains("KTX2 header is cut short"));
        assert!(decode(b"RIFF\0\0\0\0WEBPVP8 ").unwrap_err().contains("cannot decode"));
        assert!(decode(b"GIF89a").unwrap_err().contains("not a PNG, JPEG, WebP or KTX2"));
        assert!(decode(b"\x89PNG\r\n\x1a\n truncated").unwrap_err().contains("cannot decode"));
    }

    #[test]
    fn a_materials_uv_sets_go_to_the_two_streams_lowest_first() {
        let map = |set| Some(UvMap { set, transform: None });
        let layout = |sets: [Option<u32>; 5]| {
            let (maps, sources) = uv_layout(sets.map(|s| s.and_then(map)));
            (maps.map(|m| m.map(|m| m.set)), sources)
        };
        // Sets 0 and 1 stay where they are.
        assert_eq!(layout([Some(1), None, Some(0), None, None]), ([Some(1), None, Some(0), None, None], [0, 1]));
        // A lone higher set is stream 0.
        assert_eq!(layout([Some(2), Some(2), None, None, None]).1, [2, 1]);
        assert_eq!(layout([Some(2), Some(2), None, None, None]).0, [Some(0), Some(0), None, None, None]);
        // 0 and 3: 3 is stream 1; 1 and 2: 1 is stream 0, 2 stream 1.
        assert_eq!(layout([Some(0), None, None, Some(3), None]), ([Some(0), None, None, Some(1), None], [0, 3]));
        assert_eq!(layout([None, Some(2), Some(1), None, None]), ([None, Some(1), Some(0), None, None], [1, 2]));
        // A third set reads stream 0.
        assert_eq!(layout([Some(0), Some(1), Some(2), None, None]), ([Some(0), Some(1), Some(0), None, None], [0, 1]));
    }

    #[test]
    fn parallel_map_keeps_the_order() {
        let items: Vec<u32> = (0..100).collect();
        assert_eq!(parallel_map(&items, |x| x * 2), items.iter().map(|x| x * 2).collect::<Vec<_>>());
    }
}
