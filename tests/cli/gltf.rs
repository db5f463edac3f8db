//! The binary with glTF meshes in the scene: the sample scene renders
//! headless with its glTF objects drawn, and a missing or corrupt mesh file
//! gives one line naming it, exit status 2 and untouched output files.
//! Run with `VK_DRIVER_FILES` pointing at lavapipe (as `make test` does).

use crate::support::cli::{viewport_cli, write_file};
use crate::support::image::read_png;

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

/// `docs/spec/roundtrip.md`, "Every saved file reopens": a scene whose mesh
/// file is missing or broken still opens. One warning per file names it and
/// the first object using it; the objects draw a placeholder box where they
/// are; the saved scene keeps their mesh references unchanged.
#[test]
fn a_missing_or_corrupt_mesh_file_opens_as_placeholder_boxes_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| write_file(dir.path(), name, text);
    write("broken.gltf", r#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attri"#);
    let camera = r#""camera": {"eye": [0, 0, 6], "target": [0, 0, 0], "fov_y_deg": 40}"#;
    let missing = write(
        "missing.json",
        &format!(
            r#"{{{camera}, "objects":[{{"name":"a","mesh":"models/gone.glb","position":[-1,0,0],"color":[0.9,0.1,0.1]}},
            {{"name":"b","mesh":"models/gone.glb","position":[1,0,0]}},{{"name":"c","mesh":"broken.gltf#0","position":[0,-1.5,0]}}]}}"#
        ),
    );
    let png = dir.path().join("shot.png");
    let json = dir.path().join("saved.json");
    let out = viewport_cli(&[
        &missing,
        "--headless",
        "--no-ui",
        "--size",
        "200x200",
        "--screenshot",
        png.to_str().unwrap(),
        "--save-scene",
        json.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("placeholder")).collect();
    assert_eq!(warnings.len(), 2, "one line per file: {stderr}");
    assert!(
        warnings.iter().any(|l| l.contains("object \"a\"") && l.contains("models/gone.glb: missing file")),
        "{stderr}"
    );
    assert!(warnings.iter().any(|l| l.contains("object \"c\"") && l.contains("broken.gltf")), "{stderr}");
    // The saved scene names the same files.
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let meshes: Vec<&str> = saved["objects"].as_array().unwrap().iter().map(|o| o["mesh"].as_str().unwrap()).collect();
    assert_eq!(meshes, vec!["models/gone.glb", "models/gone.glb", "broken.gltf#0"]);
    // A box is drawn at each object's place: object a's red at the left of
    // the centre, where nothing else is.
    let img = read_png(&png);
    let (w, h) = (img.width as f64, img.height as f64);
    // x = -1 at distance 6 with a 40 degree field of view.
    let x = w / 2.0 - (1.0 / 6.0) / (20f64.to_radians().tan()) * h / 2.0;
    let p = img.pixel(x as u32, (h / 2.0) as u32);
    assert!(p[0] > 2 * p[1].max(p[2]) && p[0] > 60, "no red box at ({x}, {}): {p:?}", h / 2.0);
}
