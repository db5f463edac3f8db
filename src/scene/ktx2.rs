//! KTX2 images carrying Basis Universal data (`KHR_texture_basisu`):
//! ETC1S (BasisLZ) and UASTC, plain or Zstandard-supercompressed, are
//! transcoded with the pure-Rust `basisu` transcoder: to RGBA8 when read
//! ([`decode`]), and to BC7 for a device that samples it ([`bc7_levels`]).
//!
//! The container's header is checked here before the transcoder sees the
//! file, so that a hostile header cannot ask for a huge allocation (a side
//! over [`MAX_IMAGE_SIDE`], an absurd uncompressed level size); the
//! transcoder then runs under `catch_unwind`, and anything it rejects or
//! trips over is one line of text.

use crate::scene::material::{ImageData, MAX_IMAGE_SIDE};

/// The twelve bytes every KTX2 file starts with.
pub const KTX2_IDENTIFIER: &[u8; 12] = b"\xabKTX 20\xbb\r\n\x1a\n";

/// `supercompressionScheme` values of the KTX2 specification.
const SCHEME_NONE: u32 = 0;
const SCHEME_BASIS_LZ: u32 = 1;
const SCHEME_ZSTD: u32 = 2;

/// The fixed part of a KTX2 header and its level index.
#[derive(Debug)]
struct Header {
    vk_format: u32,
    width: u32,
    height: u32,
    scheme: u32,
    /// Per level: (byteOffset, byteLength, uncompressedByteLength).
    levels: Vec<(u64, u64, u64)>,
}

fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
}

/// Reads and checks the header: a 2D image (no depth, layers or cube
/// faces) within [`MAX_IMAGE_SIDE`], with a level index that fits the file.
fn header(bytes: &[u8]) -> Result<Header, String> {
    if !bytes.starts_with(KTX2_IDENTIFIER) {
        return Err("not a KTX2 file".into());
    }
    let short = || "the KTX2 header is cut short".to_string();
    let field = |i: usize| u32_at(bytes, 12 + 4 * i).ok_or_else(short);
    let (vk_format, width, height, depth) = (field(0)?, field(2)?, field(3)?, field(4)?);
    let (layers, faces, level_count, scheme) = (field(5)?, field(6)?, field(7)?, field(8)?);
    if width == 0 || height == 0 {
        return Err(format!("a KTX2 image of {width}x{height} texels"));
    }
    if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(format!("a {width}x{height} KTX2 image, larger than {MAX_IMAGE_SIDE} texels a side"));
    }
    if depth > 1 || layers > 1 || faces != 1 {
        return Err(format!("a KTX2 texture of depth {depth}, {layers} layers and {faces} faces, not a 2D image"));
    }
    // Level count 0 asks the reader to make the mips: one level is stored.
    let stored = level_count.max(1);
    if stored > 32 - width.max(height).leading_zeros() {
        return Err(format!("{level_count} mip levels for a {width}x{height} KTX2 image"));
    }
    let mut levels = Vec::with_capacity(stored as usize);
    for l in 0..stored as usize {
        let o = 80 + 24 * l;
        let entry = (
            u64_at(bytes, o).ok_or_else(short)?,
            u64_at(bytes, o + 8).ok_or_else(short)?,
            u64_at(bytes, o + 16).ok_or_else(short)?,
        );
        let end = entry.0.checked_add(entry.1);
        if end.is_none_or(|end| end > bytes.len() as u64) {
            return Err(format!("KTX2 mip level {l} runs past the end of the file"));
        }
        levels.push(entry);
    }
    Ok(Header { vk_format, width, height, scheme, levels })
}

/// Checks the header for a Basis Universal file whose levels the
/// transcoder may be asked for.
fn basis_header(bytes: &[u8]) -> Result<Header, String> {
    let h = header(bytes)?;
    if h.vk_format != 0 {
        return Err(format!(
            "a KTX2 image of Vulkan format {} (only Basis Universal ETC1S and UASTC KTX2 images are read)",
            h.vk_format
        ));
    }
    if ![SCHEME_NONE, SCHEME_BASIS_LZ, SCHEME_ZSTD].contains(&h.scheme) {
        return Err(format!("KTX2 supercompression scheme {} is not Basis or Zstandard", h.scheme));
    }
    // A UASTC level is 16 bytes per 4x4 block (as BC7 is): its stored
    // (or, for Zstandard, unpacked) size must be exactly that, so that no
    // level asks the unpacker for more.
    if h.scheme != SCHEME_BASIS_LZ {
        for (l, &(_, length, unpacked)) in h.levels.iter().enumerate() {
            let (w, hh) = ((h.width >> l).max(1), (h.height >> l).max(1));
            let want = bc7_size(w, hh) as u64;
            let size = if h.scheme == SCHEME_ZSTD { unpacked } else { length };
            if size != want {
                return Err(format!("KTX2 mip level {l} holds {size} bytes, a {w}x{hh} UASTC level {want}"));
            }
        }
    }
    Ok(h)
}

/// Transcodes `levels` of a checked file to `target`, each of the size
/// `size(level)` must give; every failure (a panic in the transcoder too)
/// is one line.
fn transcode(
    bytes: &[u8],
    levels: u32,
    target: basisu::TargetFormat,
    size: impl Fn(u32) -> usize,
) -> Result<Vec<Vec<u8>>, String> {
    // The transcoder smooths ETC1S chroma across blocks when it makes BC7
    // by default; not here, so that BC7 and RGBA8 show the same texels on
    // every device (and the CPU's texels, read for alpha picking, agree).
    let flags = basisu::DecodeFlags::NO_ETC1S_CHROMA_FILTERING;
    // Unwind safety: nothing the closure captures outlives a panic in it
    // except `size`, which is only read.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<Vec<Vec<u8>>, String> {
        let t = basisu::Transcoder::new(bytes).map_err(|e| format!("corrupt Basis Universal data ({e:?})"))?;
        if t.is_video() {
            return Err("a Basis Universal video, not an image".into());
        }
        (0..levels)
            .map(|l| {
                let out = t
                    .transcode(l, target, flags)
                    .map_err(|e| format!("cannot transcode the Basis Universal data ({e:?})"))?;
                if out.len() == size(l) {
                    Ok(out)
                } else {
                    Err("the Basis Universal transcoder gave a level of the wrong size".to_string())
                }
            })
            .collect()
    }))
    .map_err(|_| "corrupt Basis Universal data (the transcoder failed)".to_string())?
}

/// Decodes the top level of a Basis Universal KTX2 file into RGBA8 (rows
/// top to bottom, as `KHR_texture_basisu` stores them), keeping the file
/// for [`bc7_levels`].
pub fn decode(bytes: &[u8]) -> Result<ImageData, String> {
    let h = basis_header(bytes)?;
    let texels = h.width as usize * h.height as usize * 4;
    let mut levels = transcode(bytes, 1, basisu::TargetFormat::Rgba32, |_| texels)?;
    let rgba = levels.pop().ok_or("no level transcoded")?;
    Ok(ImageData { width: h.width, height: h.height, rgba, basis: Some(bytes.into()) })
}

/// Bytes of a BC7 level of `width` x `height` texels (16 per 4x4 block).
pub fn bc7_size(width: u32, height: u32) -> usize {
    width.div_ceil(4) as usize * height.div_ceil(4) as usize * 16
}

/// The BC7 blocks of every mip level of a Basis Universal KTX2 file, level
/// 0 first; `None` when the file does not carry the full mip chain (down
/// to one texel), since block-compressed levels cannot be made by blits:
/// such a file is better drawn from its RGBA8 texels with mips made on the
/// GPU.
pub fn bc7_levels(bytes: &[u8]) -> Result<Option<Vec<Vec<u8>>>, String> {
    let h = basis_header(bytes)?;
    let full = 32 - h.width.max(h.height).leading_zeros();
    if h.levels.len() as u32 != full {
        return Ok(None);
    }
    let size = |l: u32| bc7_size((h.width >> l).max(1), (h.height >> l).max(1));
    transcode(bytes, full, basisu::TargetFormat::Bc7Rgba, size).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header of `fields` (vkFormat .. supercompressionScheme) with an
    /// index of `levels`, padded to `len` bytes.
    fn file(fields: [u32; 9], levels: &[(u64, u64, u64)], len: usize) -> Vec<u8> {
        let mut b = KTX2_IDENTIFIER.to_vec();
        fields.iter().for_each(|f| b.extend(f.to_le_bytes()));
        b.resize(80, 0);
        for &(o, l, u) in levels {
            [o, l, u].iter().for_each(|x| b.extend(x.to_le_bytes()));
        }
        b.resize(len.max(b.len()), 0);
        b
    }

    #[test]
    fn hostile_headers_are_refused_before_transcoding() {
        let level = [(152, 16, 16)];
        let cases: [(Vec<u8>, &str); 8] = [
            (b"\xabKTX 20\xbb\r\n\x1a\n".to_vec(), "cut short"),
            (file([0, 1, 0, 4, 0, 0, 1, 1, 0], &level, 200), "0x4"),
            (file([0, 1, 100_000, 4, 0, 0, 1, 1, 0], &level, 200), "larger than 16384"),
            (file([0, 1, 4, 4, 0, 6, 1, 1, 0], &level, 200), "not a 2D image"),
            (file([0, 1, 4, 4, 0, 0, 6, 1, 0], &level, 200), "not a 2D image"),
            (file([0, 1, 4, 4, 0, 0, 1, 9, 0], &level, 200), "9 mip levels"),
            (file([0, 1, 4, 4, 0, 0, 1, 1, 0], &[(152, 1 << 40, 0)], 200), "past the end"),
            (file([0, 1, 4, 4, 0, 0, 1, 1, 2], &[(104, 16, 1 << 40)], 200), "holds 1099511627776 bytes"),
        ];
        for (bytes, expected) in cases {
            let error = decode(&bytes).unwrap_err();
            assert!(error.contains(expected), "{error} (expected {expected})");
        }
        let rgba8 = file([43, 1, 4, 4, 0, 0, 1, 1, 0], &[(104, 64, 64)], 200);
        assert!(decode(&rgba8).unwrap_err().contains("Vulkan format 43"));
        let scheme = file([0, 1, 4, 4, 0, 0, 1, 1, 3], &[(104, 16, 16)], 200);
        assert!(decode(&scheme).unwrap_err().contains("scheme 3"));
    }
}
