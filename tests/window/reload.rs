//! A used glTF file re-exported while the window is open: the window shows
//! the new geometry without any key press (`docs/spec/roundtrip.md`, "Reload
//! of changed glTF files"), and a half-written file first changes nothing.

use crate::support::image::{dominant, read_png};
use crate::support::textured::{unlit, Doc, Quad};
use crate::support::xvfb::{wait_for, WindowApp, Xvfb};

/// A glTF with one unlit square of half size 1 at the origin, of `color`.
fn square(color: [f32; 4]) -> Doc {
    Doc {
        quads: vec![Quad::new([0.0; 3], 1.0, Some(0))],
        materials: vec![unlit(color, None)],
        textures: vec![],
        samplers: vec![],
        images: vec![],
    }
}

/// How many screen pixels have each primary colour dominant.
fn counts(x: &Xvfb, dir: &std::path::Path) -> [usize; 3] {
    let shot = dir.join("screen.png");
    x.run("import", &["-window", "root", shot.to_str().unwrap()]);
    let image = read_png(&shot);
    let mut out = [0; 3];
    for y in 0..image.height {
        for x in 0..image.width {
            if let Some(k) = dominant(image.pixel(x, y)) {
                out[k] += 1;
            }
        }
    }
    out
}

#[test]
fn a_reexported_model_shows_up_in_the_window_without_a_key_press() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    // The exporter's folder: the model and its .bin.
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    square([1.0, 0.0, 0.0, 1.0]).write(&models, "sign.gltf");
    let scene = dir.path().join("scene.json");
    // Front view, 4 m high over 200 px: the 2 m square covers a quarter of the window.
    std::fs::write(
        &scene,
        r#"{ "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 4 },
             "objects": [ { "name": "sign", "mesh": "models/sign.gltf#0" } ] }"#,
    )
    .unwrap();
    let app = WindowApp::start(&x, dir.path(), &scene, "200x200");
    let before = wait_for("the red square", || Some(counts(&x, dir.path())).filter(|c| c[0] > 5000));
    // (The red x axis of the grid shows beside the square: a few hundred pixels.)
    assert!(before[2] < 1000, "{before:?}");

    // An exporter still writing: half a file. Nothing changes, one warning.
    let text = std::fs::read_to_string(models.join("sign.gltf")).unwrap();
    std::fs::write(models.join("sign.gltf"), &text[..text.len() / 2]).unwrap();
    app.wait_for_output("the warning", "could not reload");
    let during = counts(&x, dir.path());
    assert!(during[0] > 5000 && during[2] < 1000, "the old square stays: {during:?}");

    // The finished re-export (written beside, then renamed over, as exporters do).
    let staging = dir.path().join("staging");
    std::fs::create_dir(&staging).unwrap();
    square([0.0, 0.0, 1.0, 1.0]).write(&staging, "sign.gltf");
    std::fs::rename(staging.join("sign.bin"), models.join("sign.bin")).unwrap();
    std::fs::rename(staging.join("sign.gltf"), models.join("sign.gltf")).unwrap();
    app.wait_for_output("the reload", "reloaded");
    let after = wait_for("the blue square", || Some(counts(&x, dir.path())).filter(|c| c[2] > 5000));
    assert!(after[0] < 1000, "no red square left: {after:?}");
    assert!(app.stderr().matches("could not reload").count() == 1, "one warning: {}", app.stderr());
    app.quit_cleanly(&x);
}
