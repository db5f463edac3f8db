//! Images that cannot be used (`docs/spec/assets.md`, "What is drawn" and "Errors"):
//! a missing side file or a broken KTX2 image (a header of zeros) is one
//! warning line naming it, the
//! file still opens (exit 0, no validation error), and the material draws
//! with its colour factor alone. The glTF is written here.

use crate::support::cli::viewport_cli;
use crate::support::image::read_png;
use crate::support::textured::{close, to_srgb, unlit, Doc, Image, ImageAt, Quad};
use serde_json::json;

#[test]
fn a_missing_or_broken_ktx2_image_is_one_warning_and_its_material_draws_the_factor() {
    let dir = tempfile::tempdir().unwrap();
    let (left, right) = ([0.2, 0.6, 0.9, 1.0], [0.9, 0.5, 0.1, 1.0]);
    let mut ktx2 = b"\xabKTX 20\xbb\r\n\x1a\n".to_vec();
    ktx2.extend([0u8; 64]);
    let doc = Doc {
        quads: vec![Quad::new([-1.1, 0.0, 0.0], 1.0, Some(0)), Quad::new([1.1, 0.0, 0.0], 1.0, Some(1))],
        materials: vec![unlit(left, Some((0, 0))), unlit(right, Some((1, 0)))],
        textures: vec![json!({"source": 0}), json!({"source": 1})],
        images: vec![
            Image { bytes: None, at: ImageAt::File("missing.png".into()) },
            Image { bytes: Some(ktx2), at: ImageAt::File("fancy.ktx2".into()) },
        ],
        ..Doc::default()
    };
    let gltf = doc.write(dir.path(), "looks.gltf");
    let shot = dir.path().join("shot.png");
    let out = viewport_cli(&[
        gltf.to_str().unwrap(),
        "--headless",
        "--no-ui",
        "--size",
        "240x120",
        "--validation",
        // GPU culling by name (auto is CPU culling on lavapipe): blended
        // objects leave the GPU cull for the sorted list.
        "--culling",
        "gpu",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let naming = |needle: &str| stderr.lines().filter(|l| l.contains(needle)).count();
    assert_eq!(naming("missing.png"), 1, "one line names the missing image: {stderr}");
    assert_eq!(naming("fancy.ktx2"), 1, "one line names the KTX2 image: {stderr}");
    assert!(stderr.lines().any(|l| l.contains("fancy.ktx2") && l.contains("KTX2")), "{stderr}");
    assert!(stderr.lines().any(|l| l.contains("missing.png") && l.contains("missing")), "{stderr}");
    assert!(!stderr.contains("panicked"));
    // Unlit, so each quad is its factor wherever it is seen.
    let image = read_png(&shot);
    for factor in [left, right] {
        let want = [0, 1, 2].map(|i| to_srgb(f64::from(factor[i])));
        let count = (0..image.height)
            .flat_map(|y| (0..image.width).map(move |x| (x, y)))
            .filter(|&(x, y)| close(image.pixel(x, y), want, 1))
            .count();
        assert!(count > 500, "{count} pixels of the factor colour {want:?}");
    }
}
