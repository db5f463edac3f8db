//! The data rules of [`super::check`]: an accessor's declared `min` and
//! `max` are the least and greatest value of each component of its data;
//! floats are finite; indices name vertices and are not the primitive
//! restart value; animation times start at 0 or later and increase;
//! rotations, normals and tangents are unit length; inverse bind matrices
//! end in the row 0 0 0 1.

use gltf::json::accessor::{ComponentType, Type};
use gltf::json::animation::Property;
use gltf::json::mesh::Semantic;
use gltf::json::validation::Checked;
use gltf::Document;

use super::super::accessor::read_accessor;

/// Accessors with more elements than this are not checked (the checks read
/// every element).
const MAX_CHECKED: usize = 1 << 20;

/// The raw component values of accessor `i` (each element's first
/// `multiplicity` slots used) and the multiplicity; `None` for an accessor
/// without a buffer view (zeros, which no rule is held to), a padded small
/// matrix, a large one, data that cannot be read, or data decoded from a
/// Draco-compressed primitive (listed in `decoded`; the file holds it
/// compressed, and the validator checks none of it either).
fn raw(
    document: &Document,
    buffers: &[Vec<u8>],
    decoded: &[usize],
    i: usize,
) -> Option<(Vec<[f64; 16]>, usize, ComponentType)> {
    if decoded.contains(&i) {
        return None;
    }
    let json = document.as_json().accessors.get(i)?;
    let accessor = document.accessors().nth(i)?;
    let (Checked::Valid(kind), Checked::Valid(component)) = (&json.type_, &json.component_type) else {
        return None;
    };
    let component = component.0;
    let n = kind.multiplicity();
    let padded = matches!(kind, Type::Mat2 | Type::Mat3) && component.size() < 4;
    if json.buffer_view.is_none() || accessor.count() > MAX_CHECKED || padded {
        return None;
    }
    let size = component.size();
    let decode = |b: &[u8]| -> [f64; 16] {
        std::array::from_fn(|k| {
            let Some(c) = b.get(k * size..(k + 1) * size).filter(|_| k < n) else { return 0.0 };
            match component {
                ComponentType::I8 => f64::from(c[0] as i8),
                ComponentType::U8 => f64::from(c[0]),
                ComponentType::I16 => f64::from(i16::from_le_bytes([c[0], c[1]])),
                ComponentType::U16 => f64::from(u16::from_le_bytes([c[0], c[1]])),
                ComponentType::U32 => f64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                ComponentType::F32 => f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            }
        })
    };
    let values = read_accessor(&accessor, buffers, size * n, decode).ok()?;
    Some((values, n, component))
}

/// Every data rule of the module docs, as warnings.
pub(super) fn check_data(document: &Document, buffers: &[Vec<u8>], decoded: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    let root = document.as_json();
    for (i, json) in root.accessors.iter().enumerate() {
        let Some((values, n, component)) = raw(document, buffers, decoded, i) else { continue };
        if values.iter().any(|v| v[..n].iter().any(|x| !x.is_finite())) {
            out.push(format!("/accessors/{i}: its data has a non-finite float"));
            continue;
        }
        for (bound, declared, least) in [("min", &json.min, true), ("max", &json.max, false)] {
            let Some(declared) = declared.as_ref().and_then(|v| v.as_array()) else { continue };
            for (k, d) in declared.iter().enumerate().take(n) {
                let pick = |a: f64, b: f64| if least { a.min(b) } else { a.max(b) };
                let (Some(d), Some(a)) = (d.as_f64(), values.iter().map(|v| v[k]).reduce(pick)) else { continue };
                let same = if component == ComponentType::F32 { d as f32 == a as f32 } else { d == a };
                if !same {
                    out.push(format!("/accessors/{i}/{bound}/{k}: declared {d}, but the data's {bound} is {a}"));
                }
            }
        }
    }
    let unit = |v: &[f64]| (v.iter().map(|x| x * x).sum::<f64>().sqrt() - 1.0).abs() <= 0.00769;
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let at = format!("/meshes/{m}/primitives/{p}");
            let vertices = prim.attributes.values().filter_map(|a| root.accessors.get(a.value())).map(|a| a.count.0);
            let vertices = vertices.min().unwrap_or(0);
            if let Some((values, _, component)) =
                prim.indices.as_ref().and_then(|a| raw(document, buffers, decoded, a.value()))
            {
                let restart = match component {
                    ComponentType::U8 => 255.0,
                    ComponentType::U16 => 65535.0,
                    _ => 4_294_967_295.0,
                };
                if values.iter().any(|v| v[0] == restart) {
                    out.push(format!("{at}/indices: has the primitive restart value {restart}"));
                } else if values.iter().any(|v| v[0] >= vertices as f64) {
                    out.push(format!("{at}/indices: an index beyond the {vertices} vertices"));
                }
            }
            for (semantic, a) in &prim.attributes {
                let Checked::Valid(semantic @ (Semantic::Normals | Semantic::Tangents)) = semantic else { continue };
                let Some((values, _, ComponentType::F32)) = raw(document, buffers, decoded, a.value()) else {
                    continue;
                };
                let tangent = matches!(semantic, Semantic::Tangents);
                let name = if tangent { "TANGENT" } else { "NORMAL" };
                let bad_sign = tangent && values.iter().any(|v| v[3].abs() != 1.0);
                if values.iter().any(|v| !unit(&v[..3])) || bad_sign {
                    out.push(format!("{at}/attributes/{name}: not unit length (or a tangent's w is not 1 or -1)"));
                }
            }
        }
    }
    for (a, animation) in root.animations.iter().enumerate() {
        for (c, channel) in animation.channels.iter().enumerate() {
            let Some(sampler) = animation.samplers.get(channel.sampler.value()) else { continue };
            let at = format!("/animations/{a}/channels/{c}");
            if let Some((times, _, ComponentType::F32)) = raw(document, buffers, decoded, sampler.input.value()) {
                if times.first().is_some_and(|t| t[0] < 0.0) {
                    out.push(format!("{at}: its sampler's input starts before 0"));
                }
                if times.windows(2).any(|w| w[1][0] <= w[0][0]) {
                    out.push(format!("{at}: its sampler's input does not strictly increase"));
                }
            }
            if !matches!(channel.target.path, Checked::Valid(Property::Rotation)) {
                continue;
            }
            let cubic =
                matches!(sampler.interpolation, Checked::Valid(gltf::json::animation::Interpolation::CubicSpline));
            if let Some((values, 4, ComponentType::F32)) = raw(document, buffers, decoded, sampler.output.value()) {
                // Cubic splines keep in and out tangents beside each value.
                let keys = values.iter().enumerate().filter(|(k, _)| !cubic || k % 3 == 1);
                if keys.into_iter().any(|(_, q)| !unit(&q[..4])) {
                    out.push(format!("{at}: its sampler's rotations are not unit quaternions"));
                }
            }
        }
    }
    for (s, skin) in root.skins.iter().enumerate() {
        let Some((values, 16, _)) = skin.inverse_bind_matrices.and_then(|a| raw(document, buffers, decoded, a.value()))
        else {
            continue;
        };
        if values.iter().any(|m| [m[3], m[7], m[11], m[15]] != [0.0, 0.0, 0.0, 1.0]) {
            out.push(format!("/skins/{s}/inverseBindMatrices: a matrix whose last row is not 0 0 0 1"));
        }
    }
    out
}
