//! The binary with glTF meshes in the scene: the sample scene renders
//! headless with its glTF objects drawn, and a missing or corrupt mesh file
//! gives one line naming it, exit status 2 and untouched output files.
//! Run with `VK_DRIVER_FILES` pointing at lavapipe (as `make test` does).

use crate::support::cli::{assert_bad_input, viewport_cli, write_file};

use std::path::Path;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/gltf-demo.json");

/// Renders `scene` headless at 160x120 and returns the PNG's pixels.
fn render(scene: &Path, png: &Path) -> Vec<u8> {
    let out = viewport_cli(&[
        scene.to_str().unwrap(),
        "--headless",
        // GPU culling by name: auto is CPU culling on lavapipe.
        "--culling",
        "gpu",
        "--size",
        "160x120",
        "--screenshot",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
    assert_eq!((reader.info().width, reader.info().height), (160, 120));
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    pixels.truncate(frame.buffer_size());
    pixels
}

#[test]
fn the_gltf_demo_renders_its_gltf_objects() {
    let dir = tempfile::tempdir().unwrap();
    let with_arrows = render(Path::new(DEMO), &dir.path().join("out.png"));

    // The same scene without its glTF objects must look clearly different.
    let mut scene: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(DEMO).unwrap()).unwrap();
    let objects = scene["objects"].as_array_mut().unwrap();
    let before = objects.len();
    objects.retain(|o| !o["mesh"].as_str().unwrap().ends_with(".gltf"));
    assert!(objects.len() < before, "the demo scene has glTF objects");
    let bare = dir.path().join("bare.json");
    std::fs::write(&bare, scene.to_string()).unwrap();
    let without = render(&bare, &dir.path().join("bare.png"));

    assert_eq!(with_arrows.len(), without.len());
    let changed = with_arrows.chunks(4).zip(without.chunks(4)).filter(|(a, b)| a != b).count();
    assert!(changed > 300, "only {changed} pixels show the glTF objects");
}

#[test]
fn a_missing_or_corrupt_mesh_file_is_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| write_file(dir.path(), name, text);
    let png = write("existing.png", "keep me");
    let json = write("existing.json", "keep me too");
    write("broken.gltf", r#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attri"#);
    let missing =
        write("missing.json", r#"{"objects":[{"name":"a","mesh":"cube"},{"name":"b","mesh":"models/gone.glb"}]}"#);
    let corrupt = write("corrupt.json", r#"{"objects":[{"name":"a","mesh":"broken.gltf"}]}"#);

    // The line names the object whose mesh it is, then the file.
    for (scene, needle) in [
        (&missing, "object \"b\": "),
        (&missing, "models/gone.glb: missing file"),
        (&corrupt, "object \"a\": "),
        (&corrupt, "broken.gltf: not a glTF file"),
    ] {
        let out = viewport_cli(&[scene, "--headless", "--screenshot", &png, "--save-scene", &json]);
        assert_bad_input(&out, needle);
        assert_eq!(std::fs::read_to_string(&png).unwrap(), "keep me", "{scene} touched the screenshot");
        assert_eq!(std::fs::read_to_string(&json).unwrap(), "keep me too", "{scene} touched the saved scene");
    }
}
