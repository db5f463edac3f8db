//! `EXT_texture_webp`: a WebP texture reads the texels of its PNG twin,
//! required or beside a fallback, and keeps the extension through export.

use super::*;

#[test]
fn a_webp_texture_reads_the_texels_of_its_png_twin() {
    let dir = tempfile::tempdir().unwrap();
    let (w, h, rgba) = texels();
    let png = encode_png(w, h, &rgba);
    let webp = encode_webp(w, h, &rgba);
    assert!(webp.starts_with(b"RIFF") && &webp[8..12] == b"WEBP");
    let plain = write(
        dir.path(),
        "png.gltf",
        &textured_quad(json!([{"uri": data_uri("image/png", &png)}]), json!({"source": 0})),
    );
    assert_eq!(base_color_texels(&plain), (w, h, rgba.clone()));

    // Required, the WebP image alone.
    let webp_image = json!({"uri": data_uri("image/webp", &webp)});
    let mut required = textured_quad(json!([webp_image]), json!({"extensions": {"EXT_texture_webp": {"source": 0}}}));
    require(&mut required, "EXT_texture_webp");
    let required = write(dir.path(), "required.gltf", &required);
    assert_eq!(base_color_texels(&required), (w, h, rgba.clone()));

    // Used with a fallback PNG of other texels (one black texel): the WebP
    // image is preferred.
    let black = encode_png(1, 1, &[0, 0, 0, 255]);
    let mut fallback = textured_quad(
        json!([{"uri": data_uri("image/png", &black)}, {"uri": data_uri("image/webp", &webp)}]),
        json!({"source": 0, "extensions": {"EXT_texture_webp": {"source": 1}}}),
    );
    fallback["extensionsUsed"] = json!(["EXT_texture_webp"]);
    let fallback = write(dir.path(), "fallback.gltf", &fallback);
    assert_eq!(base_color_texels(&fallback), (w, h, rgba.clone()));

    // Exported, the extension, both images and the requirement stay.
    let geometry = load_gltf(&plain).unwrap();
    for (source, is_required) in [(&required, true), (&fallback, false)] {
        for ext in ["glb", "gltf"] {
            let out = dir.path().join(format!("out-{is_required}.{ext}"));
            let json = export(source, &out);
            assert_eq!(names(&json["extensionsUsed"]), ["EXT_texture_webp"]);
            assert_eq!(names(&json["extensionsRequired"]).contains(&"EXT_texture_webp"), is_required);
            let webp_index = json["textures"][0]["extensions"]["EXT_texture_webp"]["source"].as_u64().unwrap();
            assert_eq!(json["images"][webp_index as usize]["mimeType"], "image/webp");
            assert_eq!(json["images"].as_array().unwrap().len(), if is_required { 1 } else { 2 });
            assert_eq!(base_color_texels(&out), (w, h, rgba.clone()));
            assert_eq!(load_gltf(&out).unwrap(), geometry);
        }
    }
}
