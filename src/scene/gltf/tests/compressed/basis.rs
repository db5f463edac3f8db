//! `KHR_texture_basisu`: KTX2 images holding Basis Universal ETC1S and
//! UASTC data. The reference encoder (the `basis-universal` crate) writes
//! `.basis` files; [`ktx2_from_basis`] re-wraps their codebooks and slices
//! into the KTX2 container as the KTX2 specification lays it out (and, for
//! UASTC, optionally into a Zstandard frame of raw blocks written here).
//! The texels a file's texture reads must equal what the transcoder makes of
//! the `.basis` file itself (another container, read by other code), and
//! lie within the codec's loss of the encoded picture.

use super::pictures::{picture_with, pixels_apart};
use super::*;
use basis_universal::{BasisTextureFormat, Compressor, CompressorParams};

/// Which Basis codec, and whether UASTC levels are Zstandard-wrapped.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Codec {
    Etc1s,
    Uastc,
    UastcZstd,
}

/// A 32 x 24 picture of smooth ramps, a checker and (when `alpha`) a
/// translucent right half.
fn picture_texels(alpha: bool) -> (u32, u32, Vec<u8>) {
    let (w, h) = (32u32, 24u32);
    let mut rgba = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let check = (x / 8 + y / 8) % 2 == 1;
            let a = if alpha && x >= w / 2 { 96 } else { 255 };
            rgba.extend([if check { 220 } else { 40 }, (x * 8) as u8, (y * 10) as u8, a]);
        }
    }
    (w, h, rgba)
}

/// The reference encoder's `.basis` file of `rgba` (sRGB), with the full
/// mip chain when `mips`.
fn encode_basis(w: u32, h: u32, rgba: &[u8], codec: Codec, mips: bool) -> Vec<u8> {
    let mut params = CompressorParams::new();
    let format = if codec == Codec::Etc1s { BasisTextureFormat::ETC1S } else { BasisTextureFormat::UASTC4x4 };
    params.set_basis_format(format);
    params.set_generate_mipmaps(mips);
    params.source_image_mut(0).init(rgba, w, h, 4);
    let mut compressor = Compressor::new(1);
    // SAFETY: the parameters are the encoder's defaults plus a valid
    // format, mip switch and an image of w x h RGBA texels.
    unsafe {
        assert!(compressor.init(&params));
        compressor.process().expect("the encoder runs");
    }
    compressor.basis_file().to_vec()
}

fn le16(b: &[u8], o: usize) -> usize {
    usize::from(u16::from_le_bytes([b[o], b[o + 1]]))
}
fn le24(b: &[u8], o: usize) -> usize {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], 0]) as usize
}
fn le32(b: &[u8], o: usize) -> usize {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize
}

/// A Zstandard frame (RFC 8878) of `data` in raw blocks of at most 1000
/// bytes, with its content size.
fn zstd_raw_frame(data: &[u8]) -> Vec<u8> {
    let mut f = 0xFD2F_B528u32.to_le_bytes().to_vec();
    // Frame header: single segment, a 4-byte content size.
    f.push(0b1010_0000);
    f.extend((data.len() as u32).to_le_bytes());
    let chunks: Vec<&[u8]> = data.chunks(1000).collect();
    for (k, chunk) in chunks.iter().enumerate() {
        let last = u32::from(k + 1 == chunks.len());
        // Block header: last flag, type 0 (raw), size.
        let header = last | (chunk.len() as u32) << 3;
        f.extend(&header.to_le_bytes()[..3]);
        f.extend(*chunk);
    }
    f
}

/// Re-wraps a one-image `.basis` file as KTX2 (KTX2 specification,
/// sections 3, 4 and 5.1 for BasisLZ): the header, level index, a data
/// format descriptor naming the codec (colour models 163 / 166), ETC1S's
/// codebooks, tables and per-level slice positions as supercompression
/// global data, and the levels from the smallest up.
fn ktx2_from_basis(b: &[u8], codec: Codec) -> Vec<u8> {
    // .basis header: 14 slice count, 20 format, 21 flags, 39.. codebooks,
    // 57 tables, 65 slice descriptions (23 bytes each).
    let (slices, flags, descs) = (le24(b, 14), le16(b, 21), le32(b, 65));
    let uastc = codec != Codec::Etc1s;
    assert_eq!(b[20], u8::from(uastc), "the .basis format");
    let (alpha, srgb) = (flags & 4 != 0, flags & 16 != 0);
    // ETC1S keeps alpha in a slice of its own after each colour slice.
    let per_level = if alpha && !uastc { 2 } else { 1 };
    let slice = |i: usize| {
        let o = descs + 23 * i;
        assert_eq!(usize::from(b[o + 3]), i / per_level, "slices in level order");
        let (at, len) = (le32(b, o + 13), le32(b, o + 17));
        &b[at..at + len]
    };
    let levels = slices / per_level;
    let (w, h) = (le16(b, descs + 5) as u32, le16(b, descs + 7) as u32);
    // Per level: its bytes as stored, its unpacked size, and for ETC1S the
    // colour and alpha slices' (offset, length) within it.
    let mut stored: Vec<(Vec<u8>, usize, [usize; 4])> = Vec::new();
    for l in 0..levels {
        let mut bytes = slice(l * per_level).to_vec();
        let mut at = [0, bytes.len(), 0, 0];
        if per_level == 2 {
            at[2] = bytes.len();
            at[3] = slice(l * per_level + 1).len();
            bytes.extend(slice(l * per_level + 1));
        }
        let unpacked = bytes.len();
        if codec == Codec::UastcZstd {
            bytes = zstd_raw_frame(&bytes);
        }
        stored.push((bytes, unpacked, at));
    }
    // The data format descriptor: one basic block, a sample per slice
    // (ETC1S: RGB, then AAA; UASTC: RGB or RGBA).
    let samples: Vec<(u16, u8, u8)> = match (uastc, alpha) {
        (true, a) => vec![(0, 127, if a { 3 } else { 0 })],
        (false, false) => vec![(0, 63, 0)],
        (false, true) => vec![(0, 63, 0), (64, 63, 15)],
    };
    let block = 24 + 16 * samples.len();
    let mut dfd = ((4 + block) as u32).to_le_bytes().to_vec();
    dfd.extend(0u32.to_le_bytes());
    dfd.extend(2u16.to_le_bytes());
    dfd.extend((block as u16).to_le_bytes());
    dfd.extend([if uastc { 166 } else { 163 }, 1, if srgb { 2 } else { 1 }, 0, 3, 3, 0, 0]);
    dfd.extend([if uastc { 16 } else { 0 }, 0, 0, 0, 0, 0, 0, 0]);
    for (offset, bits, channel) in samples {
        dfd.extend(offset.to_le_bytes());
        dfd.extend([bits, channel, 0, 0, 0, 0]);
        dfd.extend(0u32.to_le_bytes());
        dfd.extend(u32::MAX.to_le_bytes());
    }
    // ETC1S's global data: counts and sizes, per level the slices'
    // places, then the endpoint and selector codebooks and the tables.
    let mut global = Vec::new();
    if !uastc {
        let (endpoints, selectors, tables) =
            ((le32(b, 41), le24(b, 45)), (le32(b, 50), le24(b, 54)), (le32(b, 57), le32(b, 61)));
        global.extend((le16(b, 39) as u16).to_le_bytes());
        global.extend((le16(b, 48) as u16).to_le_bytes());
        for len in [endpoints.1, selectors.1, tables.1, 0] {
            global.extend((len as u32).to_le_bytes());
        }
        for (_, _, at) in &stored {
            global.extend(0u32.to_le_bytes());
            at.iter().for_each(|x| global.extend((*x as u32).to_le_bytes()));
        }
        for (at, len) in [endpoints, selectors, tables] {
            global.extend(&b[at..at + len]);
        }
    }
    let dfd_at = 80 + 24 * levels;
    let global_at = if global.is_empty() { 0 } else { (dfd_at + dfd.len()).next_multiple_of(8) };
    let mut end = (dfd_at + dfd.len()).max(global_at + global.len());
    let mut level_at = vec![0; levels];
    for l in (0..levels).rev() {
        // UASTC levels without supercompression align to the 16-byte block.
        end = end.next_multiple_of(if codec == Codec::Uastc { 16 } else { 1 });
        level_at[l] = end;
        end += stored[l].0.len();
    }
    let mut f = vec![0u8; end];
    f[..12].copy_from_slice(b"\xabKTX 20\xbb\r\n\x1a\n");
    let scheme = match codec {
        Codec::Etc1s => 1,
        Codec::Uastc => 0,
        Codec::UastcZstd => 2,
    };
    let mut put = |at: usize, bytes: &[u8]| f[at..at + bytes.len()].copy_from_slice(bytes);
    for (i, v) in [0u32, 1, w, h, 0, 0, 1, levels as u32, scheme].into_iter().enumerate() {
        put(12 + 4 * i, &v.to_le_bytes());
    }
    put(48, &(dfd_at as u32).to_le_bytes());
    put(52, &(dfd.len() as u32).to_le_bytes());
    put(64, &(global_at as u64).to_le_bytes());
    put(72, &(global.len() as u64).to_le_bytes());
    for l in 0..levels {
        let unpacked = if uastc { stored[l].1 } else { 0 };
        for (k, v) in [level_at[l], stored[l].0.len(), unpacked].into_iter().enumerate() {
            put(80 + 24 * l + 8 * k, &(v as u64).to_le_bytes());
        }
    }
    put(dfd_at, &dfd);
    put(global_at, &global);
    for l in 0..levels {
        put(level_at[l], &stored[l].0);
    }
    f
}

/// What the transcoder makes of the top level of a `.basis` file.
fn transcoded(basis: &[u8]) -> Vec<u8> {
    let t = basisu::Transcoder::new(basis).unwrap();
    t.transcode(0, basisu::TargetFormat::Rgba32, basisu::DecodeFlags::NONE).unwrap()
}

/// The largest and the mean difference of two pictures' channels.
fn loss(a: &[u8], b: &[u8]) -> (u8, f64) {
    let most = a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap();
    let mean = a.iter().zip(b).map(|(x, y)| f64::from(x.abs_diff(*y))).sum::<f64>() / a.len() as f64;
    (most, mean)
}

/// A quad whose texture reads `ktx2` through the extension (required, no
/// fallback).
fn basis_quad(dir: &Path, name: &str, ktx2: &[u8]) -> PathBuf {
    let mut f = textured_quad(
        json!([{"uri": data_uri("image/ktx2", ktx2)}]),
        json!({"extensions": {"KHR_texture_basisu": {"source": 0}}}),
    );
    require(&mut f, "KHR_texture_basisu");
    write(dir, name, &f)
}

const CODECS: [Codec; 3] = [Codec::Etc1s, Codec::Uastc, Codec::UastcZstd];

#[test]
fn basis_textures_read_what_the_transcoder_makes_of_their_basis_files() {
    let dir = tempfile::tempdir().unwrap();
    for codec in CODECS {
        for alpha in [false, true] {
            let (w, h, rgba) = picture_texels(alpha);
            let basis = encode_basis(w, h, &rgba, codec, true);
            let ktx2 = ktx2_from_basis(&basis, codec);
            let path = basis_quad(dir.path(), &format!("{codec:?}-{alpha}.gltf"), &ktx2);
            let (gw, gh, got) = base_color_texels(&path);
            assert_eq!((gw, gh), (w, h), "{codec:?}");
            assert!(got == transcoded(&basis), "{codec:?} alpha {alpha}: other texels than the .basis file's");
            // Within the codec's loss of the encoded picture: UASTC is
            // near lossless; ETC1S shares endpoints across blocks.
            let (most, mean) = loss(&got, &rgba);
            let (most_allowed, mean_allowed) = if codec == Codec::Etc1s { (64, 8.0) } else { (6, 1.5) };
            assert!(most <= most_allowed && mean <= mean_allowed, "{codec:?} alpha {alpha}: loss {most} / {mean:.2}");
            // The alpha channel survives (translucent right half).
            let right = &got[((w / 2 + 4) * 4 + 3) as usize];
            assert!(if alpha { right.abs_diff(96) <= 16 } else { *right == 255 }, "{codec:?}: alpha {right}");
        }
    }
}

#[test]
fn a_basis_texture_falls_back_to_its_source_image_when_its_ktx2_is_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h, rgba) = picture_texels(false);
    let basis = encode_basis(w, h, &rgba, Codec::Uastc, true);
    let ktx2 = ktx2_from_basis(&basis, Codec::Uastc);
    let fallback = [10u8, 200, 30, 255];
    let png = encode_png(1, 1, &fallback);
    let quad = |ktx2: &[u8]| {
        let mut f = textured_quad(
            json!([{"uri": data_uri("image/png", &png)}, {"uri": data_uri("image/ktx2", ktx2), "name": "packed"}]),
            json!({"source": 0, "extensions": {"KHR_texture_basisu": {"source": 1}}}),
        );
        f["extensionsUsed"] = json!(["KHR_texture_basisu"]);
        f
    };
    // Readable: the KTX2 image is preferred to the PNG.
    let good = write(dir.path(), "good.gltf", &quad(&ktx2));
    assert_eq!(base_color_texels(&good), (w, h, transcoded(&basis)));

    // Cut short: one warning naming it, and the PNG is read.
    let cut = write(dir.path(), "cut.gltf", &quad(&ktx2[..ktx2.len() - 40]));
    let looks = GltfFile::read(&cut).unwrap().looks();
    assert_eq!(looks.warnings.len(), 1, "{:?}", looks.warnings);
    assert!(
        looks.warnings[0].contains("image 1 \"packed\"") && looks.warnings[0].contains("fallback, image 0"),
        "{:?}",
        looks.warnings
    );
    let image = looks.materials[0].texture.expect("the fallback is read").image;
    assert_eq!(image, 0);
    assert_eq!(looks.images[0].as_ref().unwrap().rgba, fallback);

    // Without a fallback, the material draws its factor, with one warning.
    let alone = basis_quad(dir.path(), "alone.gltf", &ktx2[..ktx2.len() - 40]);
    let looks = GltfFile::read(&alone).unwrap().looks();
    assert_eq!(looks.warnings.len(), 1, "{:?}", looks.warnings);
    assert!(looks.warnings[0].contains("colour factor alone"), "{:?}", looks.warnings);
    assert!(looks.materials[0].texture.is_none());
}

/// A small xorshift generator, so that the damaged files are the same on
/// every run.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn damaged_ktx2_files_are_an_error_or_an_image_never_a_crash() {
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    let (w, h, rgba) = picture_texels(true);
    let mut outcomes = [0usize; 2];
    for codec in CODECS {
        let ktx2 = ktx2_from_basis(&encode_basis(w, h, &rgba, codec, true), codec);
        for _ in 0..300 {
            let mut bytes = ktx2.clone();
            match rng.below(3) {
                0 => bytes.truncate(rng.below(bytes.len())),
                _ => {
                    for _ in 0..1 + rng.below(4) {
                        let at = rng.below(bytes.len());
                        bytes[at] = rng.below(256) as u8;
                    }
                }
            }
            match crate::scene::ktx2::decode(&bytes) {
                Ok(image) => {
                    assert_eq!(image.rgba.len(), image.width as usize * image.height as usize * 4);
                    outcomes[0] += 1;
                }
                Err(problem) => {
                    assert!(!problem.is_empty() && !problem.contains('\n'), "{problem:?}");
                    outcomes[1] += 1;
                }
            }
        }
    }
    // Both outcomes happen: the damage was not all in ignored bytes.
    assert!(outcomes[0] > 0 && outcomes[1] > 100, "{outcomes:?}");
}

/// Basis files draw like PNG files of the texels they decode to: as BC7
/// where the file has its full mip chain (lavapipe and desktop GPUs sample
/// BC7), as RGBA8 without the chain or with block compression turned off.
/// Exported copies keep the KTX2 image and the extension.
#[test]
fn basis_textured_quads_draw_and_export_like_their_png_twins() {
    use ash::vk::Format;
    let dir = tempfile::tempdir().unwrap();
    let (w, h, rgba) = picture_texels(false);
    let pixels = 160 * 120;
    let bc7 = |formats: &[Format]| formats.contains(&Format::BC7_SRGB_BLOCK);
    for codec in [Codec::Etc1s, Codec::Uastc] {
        let png_twin = |name: &str, basis: &[u8]| {
            let png = encode_png(w, h, &transcoded(basis));
            write(dir.path(), name, &textured_quad(json!([{"uri": data_uri("image/png", &png)}]), json!({"source": 0})))
        };
        let basis = encode_basis(w, h, &rgba, codec, true);
        assert_eq!(basisu::Transcoder::new(&basis).unwrap().level_count(), 6, "32 x 24 down to 1 x 1");
        let ktx2 = basis_quad(dir.path(), &format!("{codec:?}.gltf"), &ktx2_from_basis(&basis, codec));
        let (want, covered, formats) = picture_with(&png_twin(&format!("{codec:?}-png.gltf"), &basis), |_| ());
        assert!(covered > pixels / 5, "{codec:?}: the quad covers {covered} pixels");
        assert!(!bc7(&formats));

        // BC7: the transcoder's BC7 blocks of the same file, within BC7's
        // own loss of its RGBA8 texels.
        let (got, _, formats) = picture_with(&ktx2, |_| ());
        assert!(bc7(&formats), "{codec:?}: {formats:?}");
        let apart = pixels_apart(&want, &got);
        assert!(apart <= pixels / 100, "{codec:?}: {apart} pixels apart as BC7");

        // RGBA8, by choice or for want of the mip chain: the same pixels.
        let (got, _, formats) = picture_with(&ktx2, |r| r.set_block_compressed_textures(false));
        assert!(!bc7(&formats));
        assert_eq!(pixels_apart(&want, &got), 0, "{codec:?} as RGBA8");
        let single = encode_basis(w, h, &rgba, codec, false);
        let single_ktx2 = basis_quad(dir.path(), &format!("{codec:?}-1.gltf"), &ktx2_from_basis(&single, codec));
        let (got, _, formats) = picture_with(&single_ktx2, |_| ());
        assert!(!bc7(&formats));
        let (want, _, _) = picture_with(&png_twin(&format!("{codec:?}-1-png.gltf"), &single), |_| ());
        assert_eq!(pixels_apart(&want, &got), 0, "{codec:?} without mips");

        for ext in ["glb", "gltf"] {
            let out = dir.path().join(format!("{codec:?}-out.{ext}"));
            let json = export(&ktx2, &out);
            assert_eq!(names(&json["extensionsRequired"]), ["KHR_texture_basisu"]);
            assert_eq!(json["images"][0]["mimeType"], "image/ktx2");
            assert_eq!(base_color_texels(&out), (w, h, transcoded(&basis)));
        }
    }
}
