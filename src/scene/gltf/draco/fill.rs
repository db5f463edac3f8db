//! Decoded Draco attributes written as their accessors' data: the glTF
//! component types ([`Component`]), the values each type can hold, and
//! normalised integers read as fractions.

use draco_core::{DataType, PointAttribute, PointIndex};
use serde_json::Value;

/// glTF component types, by their numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Component {
    I8,
    U8,
    I16,
    U16,
    U32,
    F32,
}

impl Component {
    fn of(code: u64) -> Option<Component> {
        Some(match code {
            5120 => Component::I8,
            5121 => Component::U8,
            5122 => Component::I16,
            5123 => Component::U16,
            5125 => Component::U32,
            5126 => Component::F32,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Component::I8 => "BYTE",
            Component::U8 => "UNSIGNED_BYTE",
            Component::I16 => "SHORT",
            Component::U16 => "UNSIGNED_SHORT",
            Component::U32 => "UNSIGNED_INT",
            Component::F32 => "FLOAT",
        }
    }

    /// The least and greatest value of an integer component type.
    fn range(self) -> Option<(f64, f64)> {
        Some(match self {
            Component::I8 => (-128.0, 127.0),
            Component::U8 => (0.0, 255.0),
            Component::I16 => (-32768.0, 32767.0),
            Component::U16 => (0.0, 65535.0),
            Component::U32 => (0.0, 4_294_967_295.0),
            Component::F32 => return None,
        })
    }

    /// `value` (integral and in range for the integer types) as
    /// little-endian bytes.
    fn push(self, value: f64, out: &mut Vec<u8>) {
        match self {
            Component::I8 => out.push(value as i8 as u8),
            Component::U8 => out.push(value as u8),
            Component::I16 => out.extend((value as i16).to_le_bytes()),
            Component::U16 => out.extend((value as u16).to_le_bytes()),
            Component::U32 => out.extend((value as u32).to_le_bytes()),
            Component::F32 => out.extend((value as f32).to_le_bytes()),
        }
    }
}

/// One accessor's decoded data, in its own component type, tightly packed,
/// with its per-component bounds.
pub(super) struct Filled {
    pub(super) accessor: usize,
    pub(super) bytes: Vec<u8>,
    pub(super) min: Vec<f64>,
    pub(super) max: Vec<f64>,
    pub(super) integer: bool,
}

/// The components of one element of a glTF accessor type (vectors and
/// scalars only: matrices are never vertex attributes).
fn components(json: &Value) -> Result<usize, String> {
    match json.get("type").and_then(Value::as_str) {
        Some("SCALAR") => Ok(1),
        Some("VEC2") => Ok(2),
        Some("VEC3") => Ok(3),
        Some("VEC4") => Ok(4),
        other => Err(format!("type {} cannot hold Draco data", other.unwrap_or("(none)"))),
    }
}

/// One scalar of Draco type `t` from its little-endian bytes.
fn scalar(t: DataType, b: &[u8]) -> f64 {
    let word = |n: usize| b.iter().take(n).rev().fold(0u64, |acc, &x| acc << 8 | u64::from(x));
    match t {
        DataType::Int8 => f64::from(b[0] as i8),
        DataType::Uint8 | DataType::Bool => f64::from(b[0]),
        DataType::Int16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
        DataType::Uint16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
        DataType::Int32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DataType::Uint32 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DataType::Int64 => word(8) as i64 as f64,
        DataType::Uint64 => word(8) as f64,
        DataType::Float32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DataType::Float64 => f64::from_bits(word(8)),
        DataType::Invalid => f64::NAN,
    }
}

/// The largest value of a Draco integer type, for normalised values.
fn normal_max(t: DataType) -> Option<f64> {
    Some(match t {
        DataType::Int8 => 127.0,
        DataType::Uint8 => 255.0,
        DataType::Int16 => 32767.0,
        DataType::Uint16 => 65535.0,
        DataType::Int32 => 2_147_483_647.0,
        DataType::Uint32 => 4_294_967_295.0,
        _ => return None,
    })
}

/// Accessor `a` (JSON `json`) filled with the values of Draco attribute
/// `values` at each of the `points` points.
pub(super) fn fill_attribute(a: usize, json: &Value, values: &PointAttribute, points: usize) -> Result<Filled, String> {
    let n = components(json)?;
    let have = usize::from(values.num_components());
    if have != n {
        return Err(format!("the compressed attribute has {have} components, the accessor {n}"));
    }
    let t = values.data_type();
    let width = t.byte_length();
    let stride = usize::try_from(values.byte_stride()).ok().filter(|&s| s >= n * width && width > 0);
    let stride = stride.ok_or("the compressed attribute has an unusable layout")?;
    let data = values.buffer().data();
    let target = Component::of(json.get("componentType").and_then(Value::as_u64).unwrap_or(0))
        .ok_or("an unknown componentType")?;
    // Normalised integers read into a FLOAT accessor become their fractions.
    let scale = match (target, values.normalized(), normal_max(t)) {
        (Component::F32, true, Some(max)) => Some(max),
        _ => None,
    };
    // Each point's element, checked before anything is written.
    let element = |p: usize| -> Option<&[u8]> {
        let v = values.mapped_index(PointIndex(p as u32)).0 as usize;
        let start = (v < values.size()).then(|| v.checked_mul(stride)).flatten()?;
        data.get(start..start.checked_add(n * width)?)
    };
    if let Some(p) = (0..points).find(|&p| element(p).is_none()) {
        return Err(format!("vertex {p} has no value in the compressed data"));
    }
    let rows = (0..points).map(|p| {
        let mut row = [0.0f64; 4];
        for (c, bytes) in element(p).unwrap_or_default().chunks_exact(width).enumerate() {
            let x = scalar(t, bytes);
            row[c] = match scale {
                Some(max) => (x / max).max(-1.0),
                None => x,
            };
        }
        row
    });
    // Values of the accessor's own type come out as they went in (a float
    // through f64 and back is the same float).
    fill(a, json, n, rows)
}

/// Accessor `a` filled with `rows` (`n` components used of each), written
/// in its component type; a value the type cannot hold is an error.
pub(super) fn fill(a: usize, json: &Value, n: usize, rows: impl Iterator<Item = [f64; 4]>) -> Result<Filled, String> {
    let code = json.get("componentType").and_then(Value::as_u64).unwrap_or(0);
    let target = Component::of(code).ok_or_else(|| format!("the unknown componentType {code}"))?;
    let mut bytes = Vec::new();
    let mut min = vec![f64::INFINITY; n];
    let mut max = vec![f64::NEG_INFINITY; n];
    for row in rows {
        for (c, &x) in row.iter().take(n).enumerate() {
            let x = match target.range() {
                Some((lo, hi)) if x.fract() != 0.0 || !(lo..=hi).contains(&x) => {
                    return Err(format!("the decoded value {x} does not fit its componentType {}", target.name()));
                }
                // Read back as the accessor holds it (a float rounded to f32).
                Some(_) => x,
                None => f64::from(x as f32),
            };
            target.push(x, &mut bytes);
            min[c] = min[c].min(x);
            max[c] = max[c].max(x);
        }
    }
    Ok(Filled { accessor: a, bytes, min, max, integer: target != Component::F32 })
}
