//! The data rule of [`super::check`]: an accessor's declared `min` and `max`
//! must be the least and greatest value of each component of its data.

use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;
use gltf::Document;

use super::read_accessor;

/// Accessors with more elements than this are not compared (the check
/// reads every element).
const MAX_CHECKED: usize = 1 << 20;

/// A warning per accessor whose `min` or `max` disagrees with its data.
pub(super) fn check_bounds(document: &Document, buffers: &[Vec<u8>]) -> Vec<String> {
    let mut out = Vec::new();
    for (accessor, json) in document.accessors().zip(&document.as_json().accessors) {
        let (Checked::Valid(kind), Checked::Valid(component)) = (&json.type_, &json.component_type) else {
            continue;
        };
        // Without a buffer view the data is zeros (plus any sparse values),
        // which the validator does not hold to the bounds either.
        if (json.min.is_none() && json.max.is_none()) || json.buffer_view.is_none() || accessor.count() > MAX_CHECKED {
            continue;
        }
        let n = kind.multiplicity();
        // Small matrix columns are padded to 4 bytes: not read here.
        if matches!(kind, Type::Mat2 | Type::Mat3) && component.0.size() < 4 {
            continue;
        }
        let Some(actual) = extremes(&accessor, buffers, component.0, n) else { continue };
        let i = accessor.index();
        for (bound, declared, pick) in [("min", &json.min, 0), ("max", &json.max, 1)] {
            let Some(declared) = declared.as_ref().and_then(|v| v.as_array()) else { continue };
            for (k, (d, a)) in declared.iter().zip(&actual).enumerate() {
                let (Some(d), Some(a)) = (d.as_f64(), a.map(|a| if pick == 0 { a.0 } else { a.1 })) else { continue };
                let same = if component.0 == ComponentType::F32 { d as f32 == a as f32 } else { d == a };
                if !same {
                    out.push(format!("/accessors/{i}/{bound}/{k}: declared {d}, but the data's {bound} is {a}"));
                }
            }
        }
    }
    out
}

/// The least and greatest raw value of each of the `n` components (`None`
/// for an empty accessor), or `None` when the data cannot be read.
fn extremes(
    accessor: &gltf::Accessor<'_>,
    buffers: &[Vec<u8>],
    component: ComponentType,
    n: usize,
) -> Option<Vec<Option<(f64, f64)>>> {
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
    let values = read_accessor(accessor, buffers, size * n, decode).ok()?;
    let mut out = vec![None; n.min(16)];
    for v in &values {
        for (k, slot) in out.iter_mut().enumerate() {
            let x = v[k];
            *slot = Some(slot.map_or((x, x), |(lo, hi): (f64, f64)| (lo.min(x), hi.max(x))));
        }
    }
    Some(out)
}
