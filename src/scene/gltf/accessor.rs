//! Reading glTF accessors out of their buffers, with every offset,
//! stride and count checked (a bad one is a one-line error, never a panic).

use gltf::accessor::{DataType, Dimensions};
use gltf::Accessor;

use super::MAX_VERTICES;

/// A float attribute of one of the `dimensions` (at most 4 components;
/// missing ones are 0): 32-bit floats, which must be finite, or the integer
/// forms `KHR_mesh_quantization` allows (bytes and shorts, signed or not,
/// normalised by the glTF rule `max(c / MAX, -1)` or taken as they are).
pub(super) fn read_floats(
    accessor: &Accessor<'_>,
    buffers: &[Vec<u8>],
    what: &str,
    dimensions: &[Dimensions],
) -> Result<Vec<[f32; 4]>, String> {
    let i = accessor.index();
    let dims = accessor.dimensions();
    if !dimensions.contains(&dims) {
        return Err(format!("accessor {i}: {what} has the wrong type {dims:?}"));
    }
    let n = dims.multiplicity().min(4);
    let normalized = accessor.normalized();
    let scale = |max: f32| if normalized { 1.0 / max } else { 1.0 };
    let floor = if normalized { -1.0 } else { f32::MIN };
    let values = match accessor.data_type() {
        DataType::F32 => read_accessor(accessor, buffers, 4 * n, |b| {
            std::array::from_fn(|k| {
                if k < n {
                    f32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
                } else {
                    0.0
                }
            })
        })?,
        DataType::U8 => read_accessor(accessor, buffers, n, |b| {
            std::array::from_fn(|k| if k < n { f32::from(b[k]) * scale(255.0) } else { 0.0 })
        })?,
        DataType::I8 => read_accessor(accessor, buffers, n, |b| {
            std::array::from_fn(|k| if k < n { (f32::from(b[k] as i8) * scale(127.0)).max(floor) } else { 0.0 })
        })?,
        DataType::U16 => read_accessor(accessor, buffers, 2 * n, |b| {
            std::array::from_fn(|k| {
                if k < n {
                    f32::from(u16::from_le_bytes([b[2 * k], b[2 * k + 1]])) * scale(65535.0)
                } else {
                    0.0
                }
            })
        })?,
        DataType::I16 => read_accessor(accessor, buffers, 2 * n, |b| {
            std::array::from_fn(|k| {
                if k < n {
                    (f32::from(i16::from_le_bytes([b[2 * k], b[2 * k + 1]])) * scale(32767.0)).max(floor)
                } else {
                    0.0
                }
            })
        })?,
        DataType::U32 => return Err(format!("accessor {i}: {what} cannot be 32-bit integers")),
    };
    if values.iter().flatten().any(|x| !x.is_finite()) {
        return Err(format!("accessor {i}: {what} has a non-finite value"));
    }
    Ok(values)
}

/// A `VEC3` attribute as floats ([`read_floats`]: 32-bit floats or the
/// quantized forms).
pub(super) fn read_vec3(accessor: &Accessor<'_>, buffers: &[Vec<u8>], what: &str) -> Result<Vec<[f32; 3]>, String> {
    if accessor.dimensions() != Dimensions::Vec3 {
        return Err(format!("accessor {}: {what} must be VEC3", accessor.index()));
    }
    Ok(read_floats(accessor, buffers, what, &[Dimensions::Vec3])?.into_iter().map(|v| [v[0], v[1], v[2]]).collect())
}

/// A `SCALAR` unsigned-integer index accessor, widened to u32.
pub(super) fn read_indices(accessor: &Accessor<'_>, buffers: &[Vec<u8>]) -> Result<Vec<u32>, String> {
    if accessor.dimensions() != Dimensions::Scalar {
        return Err(format!("accessor {}: indices must be SCALAR", accessor.index()));
    }
    match accessor.data_type() {
        DataType::U8 => read_accessor(accessor, buffers, 1, |b| u32::from(b[0])),
        DataType::U16 => read_accessor(accessor, buffers, 2, |b| u32::from(u16::from_le_bytes([b[0], b[1]]))),
        DataType::U32 => read_accessor(accessor, buffers, 4, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        _ => Err(format!("accessor {}: indices must be unsigned bytes, shorts or ints", accessor.index())),
    }
}

/// The elements of `accessor` (each `size` bytes, decoded by `decode`, which
/// is always given exactly `size` bytes), with sparse substitutions applied.
pub(super) fn read_accessor<T: Copy + Default>(
    accessor: &Accessor<'_>,
    buffers: &[Vec<u8>],
    size: usize,
    decode: impl Fn(&[u8]) -> T,
) -> Result<Vec<T>, String> {
    let i = accessor.index();
    let count = accessor.count();
    let mut values = match accessor.view() {
        Some(view) => {
            let bytes = view_bytes(&view, buffers)?;
            let stride = view.stride().unwrap_or(size);
            if stride < size {
                return Err(format!("buffer view {}: stride {stride} is smaller than an element", view.index()));
            }
            strided(bytes, accessor.offset(), count, stride, size)
                .ok_or_else(|| format!("accessor {i} runs past the end of buffer view {}", view.index()))?
                .map(&decode)
                .collect()
        }
        None => {
            // All zeros (sparse values follow); nothing in the file bounds the
            // count, so cap it.
            if count > MAX_VERTICES {
                return Err(format!("accessor {i}: count {count} is too large"));
            }
            vec![T::default(); count]
        }
    };
    if let Some(sparse) = accessor.sparse() {
        let n = sparse.count();
        let indices = sparse.indices();
        let index_view = indices.view();
        let index_size = indices.index_type().size();
        let index_bytes = view_bytes(&index_view, buffers)?;
        let targets: Vec<usize> = strided(index_bytes, indices.offset(), n, index_size, index_size)
            .ok_or_else(|| {
                format!("accessor {i}: sparse indices run past the end of buffer view {}", index_view.index())
            })?
            .map(|b| b.iter().rev().fold(0usize, |acc, &byte| acc << 8 | usize::from(byte)))
            .collect();
        let value_view = sparse.values().view();
        let value_bytes = view_bytes(&value_view, buffers)?;
        let replacements = strided(value_bytes, sparse.values().offset(), n, size, size).ok_or_else(|| {
            format!("accessor {i}: sparse values run past the end of buffer view {}", value_view.index())
        })?;
        for (target, bytes) in targets.into_iter().zip(replacements) {
            let slot =
                values.get_mut(target).ok_or_else(|| format!("accessor {i}: sparse index {target} is out of range"))?;
            *slot = decode(bytes);
        }
    }
    Ok(values)
}

/// The bytes of a buffer view.
pub(super) fn view_bytes<'b>(view: &gltf::buffer::View<'_>, buffers: &'b [Vec<u8>]) -> Result<&'b [u8], String> {
    let buffer = view.buffer().index();
    if buffers.get(buffer).is_some_and(Vec::is_empty) && view.length() > 0 {
        return Err(format!("buffer view {} uses buffer {buffer}, which has no data to read", view.index()));
    }
    view.offset()
        .checked_add(view.length())
        .and_then(|end| buffers.get(buffer)?.get(view.offset()..end))
        .ok_or_else(|| format!("buffer view {} runs past the end of buffer {buffer}", view.index()))
}

/// `count` elements of `size` bytes, `stride` apart, starting at `offset`;
/// `None` where they do not fit in `bytes`.
pub(super) fn strided(
    bytes: &[u8],
    offset: usize,
    count: usize,
    stride: usize,
    size: usize,
) -> Option<impl Iterator<Item = &[u8]>> {
    let len = match count {
        0 => 0,
        n => stride.checked_mul(n - 1)?.checked_add(size)?,
    };
    let data = bytes.get(offset..offset.checked_add(len)?)?;
    Some(data.chunks(stride).map(move |c| &c[..size]))
}
