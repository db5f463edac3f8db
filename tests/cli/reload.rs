//! `{"reload": true}` through the binary (`docs/spec/roundtrip.md`, "Reload
//! of changed glTF files" and "Every saved file reopens"): a scene whose
//! prop file is missing opens with a placeholder box and one warning; the
//! script then writes the prop file (an export of another object, so the
//! file changes during the run) and reloads: the prop shows the real mesh,
//! its reference is saved as written, and undo brings the placeholder back.
//! Pixels follow from the orthographic front view (`support::replay`).

use serde_json::{json, Value};
use std::process::Command;

use crate::support::image::{dominant, read_png};
use crate::support::replay::{object, ortho_scene, screen};

fn scene() -> Value {
    ortho_scene(json!([
        { "name": "maker", "mesh": "cube", "position": [-2, 0, 0], "color": [1, 0, 0] },
        { "name": "prop", "mesh": "props/prop.glb#0", "position": [2, 0, 0], "color": [1, 1, 1] }
    ]))
}

/// Runs `events` over [`scene`] in a fresh folder with `props/` present
/// but empty; returns stderr, the saved scene and the screenshot.
fn run(events: Value) -> (String, Value, viewport::render::RgbaImage) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("props")).unwrap();
    std::fs::write(dir.path().join("scene.json"), scene().to_string()).unwrap();
    let script = json!({ "size": [400, 400], "select": ["maker"], "events": events });
    std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_viewport"))
        .arg(dir.path().join("scene.json"))
        .args(["--headless", "--validation", "--no-ui", "--culling", "gpu", "--replay"])
        .arg(dir.path().join("script.json"))
        .arg("--save-scene")
        .arg(dir.path().join("out.json"))
        .arg("--screenshot")
        .arg(dir.path().join("shot.png"))
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let saved = serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.json")).unwrap()).unwrap();
    (stderr, saved, read_png(&dir.path().join("shot.png")))
}

fn colour_at(image: &viewport::render::RgbaImage, x: f64, y: f64) -> Option<usize> {
    let [px, py] = screen(x, y);
    dominant(image.pixel(px as u32, py as u32))
}

#[test]
fn a_missing_prop_file_comes_in_with_reload_and_goes_with_undo() {
    // Before: the placeholder, a 0.5 m box (grey, its edge at 2.25).
    let (stderr, saved, image) = run(json!([{ "frame": 1 }]));
    assert_eq!(stderr.matches("placeholder").count(), 1, "one warning: {stderr}");
    assert!(stderr.contains("prop.glb"), "{stderr}");
    assert_eq!(object(&saved, "prop")["mesh"], "props/prop.glb#0", "the reference is saved unchanged");
    assert_eq!(colour_at(&image, 2.0, 0.0), None, "grey placeholder");
    assert_eq!(colour_at(&image, -2.35, -0.35), Some(0), "the red maker (beside its gizmo)");

    // The prop file written (the red cube exported), then reloaded: the
    // prop draws the 1 m red cube (its edge at 2.5).
    let written = json!([{ "export": "props/prop.glb", "selection": true }, { "reload": true }, { "frame": 1 }]);
    let (stderr, saved, image) = run(written.clone());
    assert!(stderr.contains("reloaded"), "{stderr}");
    assert_eq!(object(&saved, "prop")["mesh"], "props/prop.glb#0");
    assert_eq!(colour_at(&image, 2.0, 0.0), Some(0), "the real mesh");
    assert_eq!(colour_at(&image, 2.4, 0.4), Some(0), "a 1 m cube, not the 0.5 m box");

    // A second reload without a change does nothing; undo takes the reload back.
    let mut events = written.as_array().unwrap().clone();
    events.push(json!({ "reload": true }));
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    events.push(json!({ "frame": 1 }));
    let (stderr, _, image) = run(Value::Array(events));
    assert_eq!(stderr.matches("reloaded").count(), 1, "{stderr}");
    assert_eq!(colour_at(&image, 2.4, 0.4), None, "the placeholder again");
    assert_eq!(colour_at(&image, -2.35, -0.35), Some(0), "the maker stays");
}
