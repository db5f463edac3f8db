//! Writing output files: atomically (a temporary file in the same folder,
//! then a rename), so readers see either the old file or the whole new one
//! and a failure never leaves half a file. PNG encoding for screenshots.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Why an output file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a file path", path.display())]
    NotAFile { path: PathBuf },
    #[error("{}: cannot encode PNG: {source}", path.display())]
    Png { path: PathBuf, source: png::EncodingError },
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Writes what `write` streams (into a buffered writer, statically
/// dispatched: serialisers write many small pieces) to `path`, through a
/// temporary file and a rename: a failure of `write` leaves no file.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| WriteError::NotAFile { path: path.to_path_buf() })?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut w = BufWriter::with_capacity(1 << 16, File::create(&tmp)?);
        write(&mut w)?;
        let f = w.into_inner().map_err(std::io::IntoInnerError::into_error)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(source) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(WriteError::Io { path: path.to_path_buf(), source });
    }
    Ok(())
}

/// Encodes tightly packed RGBA8 pixels (sRGB) as PNG bytes.
pub fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut w = enc.write_header()?;
        w.write_image_data(rgba)?;
    }
    Ok(out)
}

/// Writes RGBA8 pixels to `path` as PNG, atomically.
pub fn save_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), WriteError> {
    let bytes = encode_png(width, height, rgba).map_err(|source| WriteError::Png { path: path.into(), source })?;
    write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_whole_files_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // A folder that does not exist: an error naming the path, nothing written.
        let bad = dir.path().join("missing").join("out.txt");
        let e = write_atomic(&bad, b"x").unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_stream_that_fails_half_way_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_atomic(&path, b"old").unwrap();
        let e = write_atomic_with(&path, |w| {
            w.write_all(&[b'x'; 100_000])?;
            Err(std::io::Error::other("broke half way"))
        })
        .unwrap_err();
        assert!(e.to_string().contains("broke half way"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // Streamed in pieces larger than the buffer, the whole comes through.
        write_atomic_with(&path, |w| (0..3).try_for_each(|i| w.write_all(&[b'a' + i; 70_000]))).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 210_000);
        assert_eq!((bytes[0], bytes[70_000], bytes[209_999]), (b'a', b'b', b'c'));
    }

    #[test]
    fn png_round_trips_through_the_decoder() {
        let rgba: Vec<u8> = (0..2 * 3 * 4).map(|i| (i * 10) as u8).collect();
        let bytes = encode_png(2, 3, &rgba).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (2, 3));
        assert_eq!(&buf[..info.buffer_size()], &rgba[..]);
    }
}
