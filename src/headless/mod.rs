//! Off-screen runs: the same program without a window. Renders a scene into
//! an off-screen target and writes PNGs atomically.

use std::path::Path;

use crate::render::RgbaImage;
use crate::scene::{write_atomic, SceneError};

/// Encodes an RGBA8 image as PNG bytes (sRGB).
pub fn encode_png(image: &RgbaImage) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, image.width, image.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut w = enc.write_header()?;
        w.write_image_data(&image.data)?;
    }
    Ok(out)
}

/// Writes `image` to `path` as PNG, atomically.
pub fn save_png(path: &Path, image: &RgbaImage) -> Result<(), SceneError> {
    let bytes = encode_png(image).map_err(|e| SceneError::file(path, e))?;
    write_atomic(path, &bytes)
}
