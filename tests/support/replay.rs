//! Replay scripts through the real binary, and the orthographic front view
//! the replay tests compute their expectations in: one pixel of a 400x400
//! image is exactly 0.025 m, and the gizmo's axis length L is 100 px.

use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Output};

/// Metres per pixel: height 10 m over 400 px.
pub const PX: f64 = 0.025;
/// Gizmo axis length (size_px 100).
pub const L: f64 = 100.0 * PX;

/// World (x, y) on the z = 0 plane -> screen pixels for the front view.
pub fn screen(x: f64, y: f64) -> [f64; 2] {
    [200.0 + x / PX, 200.0 - y / PX]
}

/// A scene seen by the orthographic front camera.
pub fn ortho_scene(objects: Value) -> Value {
    json!({
        "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 10 },
        "objects": objects
    })
}

/// What a replay wrote: the trace lines and the saved scene (text and JSON).
pub struct Run {
    pub trace: Vec<Value>,
    pub saved: String,
    pub scene: Value,
}

/// Runs `viewport SCENE --headless --validation --no-ui --culling gpu
/// --replay SCRIPT --trace --save-scene` in `dir`, whatever the outcome: the
/// 3D view alone, as the tests of picking, gizmos and views see it. GPU
/// culling is asked for by name (`--culling auto`, the default, is CPU
/// culling on lavapipe), so the replays keep exercising the GPU path's
/// upkeep through edits, undo and imports.
pub fn run_raw(scene: &Value, script: &Value, dir: &Path) -> Output {
    run_raw_with(scene, script, dir, false)
}

/// As [`run_raw`], with the UI (toolbar, status line, view widget) when `ui`.
pub fn run_raw_with(scene: &Value, script: &Value, dir: &Path, ui: bool) -> Output {
    let scene_path = dir.join("scene.json");
    let script_path = dir.join("script.json");
    std::fs::write(&scene_path, scene.to_string()).unwrap();
    std::fs::write(&script_path, script.to_string()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_viewport"))
        .arg(&scene_path)
        .args(["--headless", "--validation", "--culling", "gpu"])
        .args(if ui { &[][..] } else { &["--no-ui"][..] })
        .arg("--replay")
        .arg(&script_path)
        .arg("--trace")
        .arg(dir.join("trace.jsonl"))
        .arg("--save-scene")
        .arg(dir.join("out.json"))
        .env_remove("DISPLAY")
        .output()
        .unwrap()
}

/// Replays `script` over `scene` headless with validation, the 3D view
/// alone (`--no-ui`) and `extra` arguments, and returns the screenshot.
/// GPU culling unless `extra` names a `--culling` (see [`run_raw`]).
pub fn screenshot(scene: &Value, script: &Value, extra: &[&str]) -> viewport::render::RgbaImage {
    let mut args = vec!["--no-ui"];
    if !extra.contains(&"--culling") {
        args.extend(["--culling", "gpu"]);
    }
    args.extend(extra);
    shot(scene, script, &args)
}

/// The screenshot after `script` over `scene` with the UI drawn (headless,
/// validation on, the default culling).
pub fn ui_screenshot(scene: &Value, script: &Value) -> viewport::render::RgbaImage {
    shot(scene, script, &[])
}

/// Replays `script` over `scene` headless with validation and `args`, and
/// returns the screenshot.
fn shot(scene: &Value, script: &Value, args: &[&str]) -> viewport::render::RgbaImage {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scene.json"), scene.to_string()).unwrap();
    std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
    let png = dir.path().join("shot.png");
    let out = Command::new(env!("CARGO_BIN_EXE_viewport"))
        .arg(dir.path().join("scene.json"))
        .args(["--headless", "--validation"])
        .args(args)
        .arg("--replay")
        .arg(dir.path().join("script.json"))
        .arg("--screenshot")
        .arg(&png)
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(out.status.success(), "viewport failed: {}", String::from_utf8_lossy(&out.stderr));
    crate::support::image::read_png(&png)
}

/// Runs a script that must succeed: one trace line per event, in order.
pub fn run(scene: &Value, script: &Value) -> Run {
    run_with(scene, script, false)
}

/// As [`run`], with the UI drawn and routing events.
pub fn run_ui(scene: &Value, script: &Value) -> Run {
    run_with(scene, script, true)
}

fn run_with(scene: &Value, script: &Value, ui: bool) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let out = run_raw_with(scene, script, dir.path(), ui);
    assert!(out.status.success(), "viewport failed: {}", String::from_utf8_lossy(&out.stderr));
    let trace: Vec<Value> = std::fs::read_to_string(dir.path().join("trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events = script["events"].as_array().unwrap().len();
    assert_eq!(trace.len(), events, "one trace line per event");
    for (i, line) in trace.iter().enumerate() {
        assert_eq!(line["event"], json!(i));
    }
    let saved = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    Run { trace, scene: serde_json::from_str(&saved).unwrap(), saved }
}

pub fn vec3(v: &Value) -> [f64; 3] {
    let a = v.as_array().unwrap();
    [a[0].as_f64().unwrap(), a[1].as_f64().unwrap(), a[2].as_f64().unwrap()]
}

/// The object called `name` in a saved scene.
pub fn object<'a>(scene: &'a Value, name: &str) -> &'a Value {
    scene["objects"].as_array().unwrap().iter().find(|o| o["name"] == name).unwrap()
}

/// A 400x400 script selecting "box" that presses at `from`, moves to `to`
/// through the midpoint with `mods` held, and releases; `script_extra`'s
/// fields are added (or replace the selection).
pub fn drag(script_extra: Value, from: [f64; 2], to: [f64; 2], mods: &[&str]) -> Value {
    let mut s = json!({
        "size": [400, 400],
        "select": ["box"],
        "events": [
            { "mouse_move": from },
            { "mouse_down": "left" },
            { "mouse_move": [(from[0] + to[0]) / 2.0, (from[1] + to[1]) / 2.0], "mods": mods },
            { "mouse_move": to, "mods": mods },
            { "mouse_up": "left", "mods": mods }
        ]
    });
    for (k, v) in script_extra.as_object().unwrap() {
        s[k] = v.clone();
    }
    s
}
