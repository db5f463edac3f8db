//! `EXT_meshopt_compression`: buffer views whose bytes are stored compressed
//! by meshoptimizer's codecs in another buffer.
//!
//! Such a view names, in its extension object, where the compressed bytes
//! are (`buffer`, `byteOffset`, `byteLength`), how many elements of
//! `byteStride` bytes they hold, the codec (`mode`: `ATTRIBUTES`,
//! `TRIANGLES`, `INDICES`) and a filter applied after it (`NONE`,
//! `OCTAHEDRAL`, `QUATERNION`, `EXPONENTIAL`). The view itself points into
//! a buffer laid out as the uncompressed data would be, often a "fallback"
//! buffer that has no data (no URI, or one marked
//! `extensions.EXT_meshopt_compression.fallback: true`, which is never read).
//!
//! The views are decoded once, when the file is read, into their place in
//! that buffer (grown with zeros as needed), so accessors, the checks and
//! the export then read plain bytes. The decoding is meshoptimizer's own
//! (the `meshopt` crate), which is safe on untrusted bytes; every size it
//! is given is checked here first, since it asserts on impossible ones.

use serde_json::Value;

/// The extension's name.
pub(super) const NAME: &str = "EXT_meshopt_compression";

/// Most bytes one compressed view may decode to (a bound on what a hostile
/// `count` can make us allocate).
const MAX_VIEW_BYTES: usize = 1 << 30;

/// Per buffer, whether it is marked as the extension's fallback (its data,
/// if any, is a stand-in for loaders without the extension: not read).
pub(super) fn fallback_buffers(json: &Value) -> Vec<bool> {
    let buffers = json.get("buffers").and_then(Value::as_array);
    buffers
        .into_iter()
        .flatten()
        .map(|b| b.pointer("/extensions/EXT_meshopt_compression/fallback").and_then(Value::as_bool) == Some(true))
        .collect()
}

/// Decodes every compressed buffer view of `json` into `buffers` (see the
/// module docs). `lengths` are the buffers' declared byte lengths.
pub(super) fn decode_views(json: &Value, buffers: &mut [Vec<u8>], lengths: &[usize]) -> Result<(), String> {
    let views = json.get("bufferViews").and_then(Value::as_array);
    for (v, view) in views.into_iter().flatten().enumerate() {
        let Some(ext) = view.pointer("/extensions/EXT_meshopt_compression") else { continue };
        decode_view(view, ext, buffers, lengths).map_err(|e| format!("buffer view {v}: {NAME}: {e}"))?;
    }
    Ok(())
}

/// A non-negative integer member of `object` (`default` when absent).
fn size(object: &Value, key: &str, default: Option<usize>) -> Result<usize, String> {
    match object.get(key) {
        None => default.ok_or_else(|| format!("no {key}")),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15).map(|f| f as u64))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("{key} is not a non-negative integer")),
    }
}

fn decode_view(view: &Value, ext: &Value, buffers: &mut [Vec<u8>], lengths: &[usize]) -> Result<(), String> {
    let source = size(ext, "buffer", None)?;
    let offset = size(ext, "byteOffset", Some(0))?;
    let length = size(ext, "byteLength", None)?;
    let stride = size(ext, "byteStride", None)?;
    let count = size(ext, "count", None)?;
    let mode = ext.get("mode").and_then(Value::as_str).ok_or("no mode")?;
    let filter = ext.get("filter").map_or(Some("NONE"), Value::as_str).ok_or("filter is not a string")?;
    let target = size(view, "buffer", None)?;
    let target_offset = size(view, "byteOffset", Some(0))?;
    let target_length = size(view, "byteLength", None)?;

    let bytes = count.checked_mul(stride).filter(|&n| n <= MAX_VIEW_BYTES).ok_or("count x byteStride is too large")?;
    if bytes > target_length {
        return Err(format!("{count} elements of {stride} bytes do not fit the view's {target_length} bytes"));
    }
    let end = target_offset.checked_add(bytes).ok_or("the view's byteOffset is too large")?;
    let declared = *lengths.get(target).ok_or_else(|| format!("no buffer {target}"))?;
    if end > declared {
        return Err(format!("the decoded data runs past the end of buffer {target}"));
    }
    let compressed = buffers.get(source).ok_or_else(|| format!("no buffer {source}"))?;
    if compressed.is_empty() && length > 0 {
        return Err(format!("the compressed data is in buffer {source}, which has no data to read"));
    }
    let compressed = offset
        .checked_add(length)
        .and_then(|end| compressed.get(offset..end))
        .ok_or_else(|| format!("the compressed data runs past the end of buffer {source}"))?;

    let decoded = decode(compressed, mode, filter, count, stride)?;
    let out = &mut buffers[target];
    if out.len() < end {
        out.resize(end, 0);
    }
    out[target_offset..end].copy_from_slice(&decoded);
    Ok(())
}

/// `count` elements of `stride` bytes decoded from `compressed` by `mode`,
/// then `filter`.
fn decode(compressed: &[u8], mode: &str, filter: &str, count: usize, stride: usize) -> Result<Vec<u8>, String> {
    check_filter(mode, filter, stride)?;
    let bytes = count * stride;
    // Words, so the filters see their shorts and ints aligned.
    let mut words = vec![0u32; bytes.div_ceil(4)];
    if count > 0 {
        let out = words.as_mut_ptr().cast::<std::ffi::c_void>();
        let (src, len) = (compressed.as_ptr(), compressed.len());
        let rc = match mode {
            "ATTRIBUTES" => {
                if stride == 0 || stride > 256 || !stride.is_multiple_of(4) {
                    return Err(format!(
                        "ATTRIBUTES need a byteStride that is a multiple of 4 up to 256, not {stride}"
                    ));
                }
                // SAFETY: `out` holds count x stride bytes (rounded up to
                // words), the sizes are in the range the decoder accepts,
                // and it reads at most `len` bytes of `src`.
                unsafe { meshopt::ffi::meshopt_decodeVertexBuffer(out, count, stride, src, len) }
            }
            "TRIANGLES" | "INDICES" => {
                if stride != 2 && stride != 4 {
                    return Err(format!("{mode} need a byteStride of 2 or 4, not {stride}"));
                }
                if mode == "TRIANGLES" && !count.is_multiple_of(3) {
                    return Err(format!("TRIANGLES need a count that is a multiple of 3, not {count}"));
                }
                // SAFETY: as above, for count indices of `stride` bytes.
                unsafe {
                    if mode == "TRIANGLES" {
                        meshopt::ffi::meshopt_decodeIndexBuffer(out, count, stride, src, len)
                    } else {
                        meshopt::ffi::meshopt_decodeIndexSequence(out, count, stride, src, len)
                    }
                }
            }
            other => return Err(format!("unknown mode \"{other}\"")),
        };
        if rc != 0 {
            return Err(format!("the compressed data is malformed (meshoptimizer error {rc})"));
        }
        apply_filter(&mut words, filter, count, stride);
    } else if !matches!(mode, "ATTRIBUTES" | "TRIANGLES" | "INDICES") {
        return Err(format!("unknown mode \"{mode}\""));
    }
    let mut out: Vec<u8> = bytemuck::cast_slice(&words).to_vec();
    out.truncate(bytes);
    Ok(out)
}

/// Whether `filter` can follow `mode` at `stride` (checked before
/// decoding: meshoptimizer asserts on a stride its filter cannot take).
fn check_filter(mode: &str, filter: &str, stride: usize) -> Result<(), String> {
    let fits = match filter {
        "NONE" => return Ok(()),
        "OCTAHEDRAL" => stride == 4 || stride == 8,
        "QUATERNION" => stride == 8,
        "EXPONENTIAL" => stride.is_multiple_of(4),
        other => return Err(format!("unknown filter \"{other}\"")),
    };
    if mode != "ATTRIBUTES" {
        return Err(format!("the filter {filter} applies to ATTRIBUTES only"));
    }
    if !fits {
        return Err(format!("the filter {filter} cannot take a byteStride of {stride}"));
    }
    Ok(())
}

/// Applies `filter` (accepted by [`check_filter`]) in place to `count`
/// decoded attributes of `stride` bytes.
fn apply_filter(words: &mut [u32], filter: &str, count: usize, stride: usize) {
    let data = words.as_mut_ptr().cast::<std::ffi::c_void>();
    // SAFETY (each call): `data` holds count x stride bytes, 4-byte aligned,
    // and `check_filter` accepted the stride for this filter.
    match filter {
        "OCTAHEDRAL" => unsafe { meshopt::ffi::meshopt_decodeFilterOct(data, count, stride) },
        "QUATERNION" => unsafe { meshopt::ffi::meshopt_decodeFilterQuat(data, count, stride) },
        "EXPONENTIAL" => unsafe { meshopt::ffi::meshopt_decodeFilterExp(data, count, stride) },
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One compressed view of `count` elements of `stride` bytes, its data
    /// at the start of buffer 0, decoding into buffer 1 at offset 8.
    fn file(mode: &str, filter: &str, stride: usize, count: usize, compressed: &[u8]) -> Value {
        json!({
            "bufferViews": [{
                "buffer": 1, "byteOffset": 8, "byteLength": stride * count,
                "extensions": {"EXT_meshopt_compression": {
                    "buffer": 0, "byteLength": compressed.len(), "byteStride": stride,
                    "count": count, "mode": mode, "filter": filter
                }}
            }],
            "buffers": [{"byteLength": compressed.len()}, {"byteLength": 8 + stride * count,
                "extensions": {"EXT_meshopt_compression": {"fallback": true}}}]
        })
    }

    fn run(json: &Value, compressed: &[u8]) -> Result<Vec<u8>, String> {
        let lengths: Vec<usize> =
            json["buffers"].as_array().unwrap().iter().map(|b| b["byteLength"].as_u64().unwrap() as usize).collect();
        let mut buffers = vec![compressed.to_vec(), Vec::new()];
        decode_views(json, &mut buffers, &lengths)?;
        Ok(buffers.swap_remove(1))
    }

    #[test]
    fn attributes_and_indices_decode_into_the_fallback_buffer() {
        assert_eq!(fallback_buffers(&file("ATTRIBUTES", "NONE", 4, 1, &[])), vec![false, true]);
        let vertices: Vec<[u16; 4]> = (0..40u16).map(|i| [i, i * 3, 1000 - i, 7]).collect();
        let compressed = meshopt::encoding::encode_vertex_buffer(&vertices).unwrap();
        let out = run(&file("ATTRIBUTES", "NONE", 8, vertices.len(), &compressed), &compressed).unwrap();
        assert_eq!(&out[..8], &[0; 8], "the bytes before the view stay zero");
        assert_eq!(&out[8..], bytemuck::cast_slice::<[u16; 4], u8>(&vertices));

        let indices: Vec<u32> = vec![0, 1, 2, 2, 1, 3, 3, 1, 4];
        let compressed = meshopt::encoding::encode_index_buffer(&indices, 5).unwrap();
        let out = run(&file("TRIANGLES", "NONE", 2, indices.len(), &compressed), &compressed).unwrap();
        let want: Vec<u16> = indices.iter().map(|&i| i as u16).collect();
        assert_eq!(&out[8..], bytemuck::cast_slice::<u16, u8>(&want));

        let compressed = meshopt::encoding::encode_index_sequence(&indices, 5).unwrap();
        let out = run(&file("INDICES", "NONE", 4, indices.len(), &compressed), &compressed).unwrap();
        assert_eq!(&out[8..], bytemuck::cast_slice::<u32, u8>(&indices));
    }

    #[test]
    fn filters_restore_their_values() {
        // Octahedral unit normals in 8-bit components: within the encoding's step.
        let normals = [[0.0, 0.0, 1.0, 0.0], [0.6, 0.8, 0.0, 0.0], [-0.48, 0.6, -0.64, 0.0]];
        let encoded = meshopt::encoding::encode_filter_oct::<i8>(&normals, 8);
        let compressed = meshopt::encoding::encode_vertex_buffer(&encoded).unwrap();
        let out = run(&file("ATTRIBUTES", "OCTAHEDRAL", 4, 3, &compressed), &compressed).unwrap();
        for (k, n) in normals.iter().enumerate() {
            for c in 0..3 {
                let got = f32::from(out[8 + 4 * k + c] as i8) / 127.0;
                assert!((got - n[c]).abs() < 0.03, "normal {k}: {got} vs {}", n[c]);
            }
        }
        // Exponential floats: exact for values with few mantissa bits.
        let values: [[f32; 1]; 4] = [[1.5], [-0.25], [1024.0], [0.0]];
        let flat: Vec<f32> = values.iter().flatten().copied().collect();
        let encoded = meshopt::encoding::encode_filter_exp(&values, 24, meshopt::encoding::EncodeExpMode::Separate);
        let compressed = meshopt::encoding::encode_vertex_buffer(&encoded).unwrap();
        let out = run(&file("ATTRIBUTES", "EXPONENTIAL", 4, 4, &compressed), &compressed).unwrap();
        let got: Vec<f32> = out[8..].chunks(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        assert_eq!(got, flat);
        // Quaternions: a unit quaternion comes back within the 12-bit step.
        let q = [[0.0f32, 0.0, std::f32::consts::FRAC_1_SQRT_2, std::f32::consts::FRAC_1_SQRT_2]];
        let encoded = meshopt::encoding::encode_filter_quat(&q, 12);
        let compressed = meshopt::encoding::encode_vertex_buffer(&encoded).unwrap();
        let out = run(&file("ATTRIBUTES", "QUATERNION", 8, 1, &compressed), &compressed).unwrap();
        for c in 0..4 {
            let got = f32::from(i16::from_le_bytes([out[8 + 2 * c], out[9 + 2 * c]])) / 32767.0;
            assert!((got - q[0][c]).abs() < 1e-3, "component {c}: {got} vs {}", q[0][c]);
        }
    }

    #[test]
    fn bad_views_are_errors_not_panics() {
        let vertices: Vec<[u8; 4]> = (0..10u8).map(|i| [i; 4]).collect();
        let good = meshopt::encoding::encode_vertex_buffer(&vertices).unwrap();
        let err = |json: Value, bytes: &[u8]| run(&json, bytes).unwrap_err();
        assert!(err(file("ATTRIBUTES", "NONE", 6, 10, &good), &good).contains("multiple of 4"));
        assert!(err(file("TRIANGLES", "NONE", 2, 4, &good), &good).contains("multiple of 3"));
        assert!(err(file("INDICES", "NONE", 1, 4, &good), &good).contains("2 or 4"));
        assert!(err(file("PACKED", "NONE", 4, 10, &good), &good).contains("unknown mode"));
        assert!(err(file("ATTRIBUTES", "SWIRL", 4, 10, &good), &good).contains("unknown filter"));
        assert!(err(file("ATTRIBUTES", "QUATERNION", 4, 10, &good), &good).contains("cannot take"));
        assert!(err(file("TRIANGLES", "OCTAHEDRAL", 4, 3, &good), &good).contains("ATTRIBUTES only"));
        // Garbage and truncated data.
        assert!(err(file("ATTRIBUTES", "NONE", 4, 10, &[7; 30]), &[7; 30]).contains("malformed"));
        let cut = &good[..good.len() / 2];
        assert!(err(file("ATTRIBUTES", "NONE", 4, 10, cut), cut).contains("malformed"));
        // A count the view cannot hold, and one too large to allocate.
        let mut big = file("ATTRIBUTES", "NONE", 4, 10, &good);
        big["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["count"] = json!(11);
        assert!(err(big.clone(), &good).contains("do not fit"));
        big["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["count"] = json!(1u64 << 40);
        assert!(err(big, &good).contains("too large"));
        // Compressed bytes past their buffer.
        let mut past = file("ATTRIBUTES", "NONE", 4, 10, &good);
        past["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["byteOffset"] = json!(4);
        assert!(err(past, &good).contains("past the end of buffer 0"));
    }
}
