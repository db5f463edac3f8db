//! Headless pictures of test files, and the test that compressed files
//! draw the picture of their plain twins.

use super::meshopt::meshopt_pair;
use super::quantized::quantized_pair;
use super::*;

/// The headless picture of `path` (material mode, 1x, validation on) from
/// a fixed camera in front of the quad: its colours, and how many pixels
/// the quad covers (ids).
pub(super) fn picture(path: &Path) -> (Vec<u8>, usize) {
    let (colour, covered, _) = picture_with(path, |_| ());
    (colour, covered)
}

/// [`picture`], with `setup` run on the renderer before the scene is
/// uploaded; also gives the format of every texture.
pub(super) fn picture_with(
    path: &Path,
    setup: impl FnOnce(&mut crate::render::Renderer),
) -> (Vec<u8>, usize, Vec<ash::vk::Format>) {
    use crate::draw::SceneMeshes;
    use crate::math::{Camera, DepthMode, Projection};
    use crate::render::{ContextDesc, Renderer};
    use nalgebra::{Point3, Vector3};
    const W: u32 = 160;
    const H: u32 = 120;
    let opened = crate::app::open::open_scene(Some(path)).unwrap();
    let (mut editor, loaded) = crate::app::open::open_editor_for(opened, (W, H), DepthMode::Reversed).unwrap();
    editor.camera = Camera {
        eye: Point3::new(0.375, 0.625, 4.0),
        target: Point3::new(0.375, 0.625, 0.05),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 0.8, near: 0.1, far: 100.0 },
    };
    let mut r = Renderer::headless(&ContextDesc { validation: true, samples: 1 }, W, H).unwrap();
    setup(&mut r);
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let (desc, _) = meshes.editor_frame(&editor);
    r.draw(&desc).unwrap();
    let colour = r.read_color().unwrap().data;
    let covered = r.read_ids().unwrap().iter().filter(|&&id| id != 0).count();
    assert_eq!(r.validation().errors(), 0, "{:?}", r.validation().error_messages());
    (colour, covered, r.texture_formats().to_vec())
}

/// How many pixels of two pictures differ by more than 8 levels in a channel.
pub(super) fn pixels_apart(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4).zip(b.chunks_exact(4)).filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 8)).count()
}

/// Compressed files draw the picture of their plain twins: the same
/// pixels for lossless WebP texels and meshopt streams, and at most a few
/// edge pixels for quantized attributes (half a millimetre, a byte's step
/// of the normals); the quad covers a good part of each picture.
#[test]
fn compressed_files_draw_the_picture_of_their_plain_twins() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h, rgba) = texels();
    let png = write(
        dir.path(),
        "png.gltf",
        &textured_quad(json!([{"uri": data_uri("image/png", &encode_png(w, h, &rgba))}]), json!({"source": 0})),
    );
    let mut webp = textured_quad(
        json!([{"uri": data_uri("image/webp", &encode_webp(w, h, &rgba))}]),
        json!({"extensions": {"EXT_texture_webp": {"source": 0}}}),
    );
    require(&mut webp, "EXT_texture_webp");
    let webp = write(dir.path(), "webp.gltf", &webp);
    let meshopt_dir = tempfile::tempdir().unwrap();
    let (meshopt_plain, meshopt) = meshopt_pair(meshopt_dir.path(), true);
    let quantized_dir = tempfile::tempdir().unwrap();
    let (float, quantized) = quantized_pair(quantized_dir.path());
    let pixels = 160 * 120;
    // The comparison tells different pictures apart: the textured quad
    // against the untextured one.
    assert!(pixels_apart(&picture(&png).0, &picture(&meshopt_plain).0) > pixels / 5);
    for (name, plain, compressed, allowed) in [
        ("EXT_texture_webp", &png, &webp, 0),
        ("EXT_meshopt_compression", &meshopt_plain, &meshopt, 0),
        ("KHR_mesh_quantization", &float, &quantized, pixels / 200),
    ] {
        let (want, covered) = picture(plain);
        assert!(covered > pixels / 5, "{name}: the quad covers {covered} of {pixels} pixels");
        let (got, got_covered) = picture(compressed);
        assert!(got_covered.abs_diff(covered) <= pixels / 200, "{name}: {got_covered} against {covered} pixels");
        let apart = pixels_apart(&want, &got);
        assert!(apart <= allowed, "{name}: {apart} pixels differ by more than 8 levels (at most {allowed})");
    }
}
