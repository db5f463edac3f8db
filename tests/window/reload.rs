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
        lights: vec![],
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

/// The full round in a window: a glTF opened as the scene, every object
/// copied here (Ctrl+D), the file re-exported (its meshes reordered, one
/// changed, a node moved, one added, one removed), reloaded without a key
/// press; Ctrl+S shows what the scene holds: the copies kept, the new node
/// in, the removed one out, each mesh followed by name. Ctrl+Z takes the
/// reload back as one step (the next Ctrl+S shows it).
#[test]
fn a_reexport_of_the_opened_gltf_keeps_what_was_made_here_and_undoes_in_one_step() {
    use crate::support::squares::{gltf, Node, Square};
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.gltf");
    let (red, green, blue) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    let before = [
        Node { name: "root", mesh: None, at: [0.0; 3], parent: None },
        Node { name: "a", mesh: Some(0), at: [-1.5, 0.0, 0.0], parent: Some(0) },
        Node { name: "b", mesh: Some(1), at: [1.5, 0.0, 0.0], parent: Some(0) },
        Node { name: "c", mesh: Some(0), at: [0.0, 1.5, 0.0], parent: Some(0) },
    ];
    let squares = [Square { name: "left", half: 0.5, color: red }, Square { name: "right", half: 0.5, color: green }];
    std::fs::write(&path, gltf(&before, &squares)).unwrap();
    let app = WindowApp::start(&x, dir.path(), &path, "240x200");
    wait_for("the red squares", || Some(counts(&x, dir.path())).filter(|c| c[0] > 500));
    // Everything copied here.
    x.run("xdotool", &["key", "a"]);
    x.run("xdotool", &["key", "ctrl+d"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    // Red: the squares a and c, the gizmo's x handle and the grid's x axis.
    let red_before = counts(&x, dir.path())[0];

    let after = [
        Node { name: "root", mesh: None, at: [0.0; 3], parent: None },
        Node { name: "d", mesh: Some(1), at: [0.0, -1.5, 0.0], parent: Some(0) },
        Node { name: "a", mesh: Some(1), at: [-1.5, 0.0, 0.0], parent: Some(0) },
        Node { name: "b", mesh: Some(0), at: [1.5, 1.0, 0.0], parent: Some(0) },
    ];
    let reordered =
        [Square { name: "right", half: 0.5, color: green }, Square { name: "left", half: 0.5, color: blue }];
    let staged = dir.path().join("model.gltf.part");
    std::fs::write(&staged, gltf(&after, &reordered)).unwrap();
    std::fs::rename(&staged, &path).unwrap();
    app.wait_for_output("the reload", "reloaded");
    // The two red squares turned blue: what stays red is the gizmo's handle
    // and the axis. Waited for as a whole: a frame drawn while the reload
    // was being taken in may show the blue squares before the red ones left.
    let shown = wait_for("the blue squares in place of the red ones", || {
        Some(counts(&x, dir.path())).filter(|c| c[2] > 500 && c[0] + c[2] / 3 < red_before)
    });
    let square = shown[2] / 3;
    assert!(shown[0] + square < red_before, "red before {red_before}, now {shown:?}");

    let saved_path = dir.path().join("model.scene.json");
    let saved = |n: usize| -> serde_json::Value {
        x.run("xdotool", &["key", "ctrl+s"]);
        wait_for("the save", || (app.stderr().matches("saved").count() >= n).then_some(()));
        serde_json::from_str(&std::fs::read_to_string(&saved_path).unwrap()).unwrap()
    };
    let find = |scene: &serde_json::Value, name: &str| -> Option<serde_json::Value> {
        scene["objects"].as_array().unwrap().iter().find(|o| o["name"] == name).cloned()
    };
    let now = saved(1);
    assert!(find(&now, "d").is_some(), "the new node came in");
    assert!(find(&now, "c").is_none(), "the removed node went");
    for copy in ["root.001", "a.001", "b.001", "c.001"] {
        assert!(find(&now, copy).is_some(), "{copy}, made here, stays");
    }
    assert_eq!(find(&now, "a").unwrap()["mesh"], "model.gltf#1", "a follows its mesh by name");
    assert_eq!(find(&now, "c.001").unwrap()["mesh"], "model.gltf#1", "so does the copy of c");
    assert_eq!(find(&now, "b").unwrap()["position"], serde_json::json!([1.5, 1.0, 0.0]), "b moved with the file");

    // One undo takes the whole reload back.
    x.run("xdotool", &["key", "ctrl+z"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let undone = saved(2);
    assert!(find(&undone, "c").is_some() && find(&undone, "d").is_none());
    assert_eq!(find(&undone, "a").unwrap()["mesh"], "model.gltf#0");
    assert!(find(&undone, "a.001").is_some(), "the copies are an earlier step");
    app.quit_cleanly(&x);
}
