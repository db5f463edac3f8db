//! Reading pixels: the dominant colour channel and PNG decoding.

use viewport::render::RgbaImage;

/// The dominant channel of a pixel (0 = red, 1 = green, 2 = blue), if it
/// clearly dominates.
pub fn dominant(p: [u8; 4]) -> Option<usize> {
    let (i, &max) = p[..3].iter().enumerate().max_by_key(|(_, v)| **v)?;
    let others = p[..3].iter().enumerate().filter(|(j, _)| *j != i).map(|(_, v)| *v).max()?;
    (max as i32 - others as i32 > 20).then_some(i)
}

/// Decodes a PNG (palette, RGB or RGBA) into 8-bit RGBA.
pub fn read_png(path: &std::path::Path) -> RgbaImage {
    let mut decoder = png::Decoder::new(std::fs::File::open(path).expect("png exists"));
    // Screenshots of few colours come back as palette images: expand them.
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png data");
    let data = match info.color_type {
        png::ColorType::Rgba => buf[..info.buffer_size()].to_vec(),
        png::ColorType::Rgb => buf[..info.buffer_size()].chunks(3).flat_map(|c| [c[0], c[1], c[2], 255]).collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    RgbaImage { width: info.width, height: info.height, data }
}
