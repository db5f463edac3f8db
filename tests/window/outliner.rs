//! The outliner's drag and drop with real X input (`docs/spec/organise.md`,
//! "Reparent and group"): xdotool presses on a row of the side panel,
//! moves in steps and lets go on another row, then under the last row; the
//! scene saved with Ctrl+S after each drop holds the new parent and the
//! world transform the object had. Where the rows are comes from headless
//! runs of the same program at the same size (Xvfb's scale factor is 1),
//! through their traces.

use nalgebra::{Matrix4, Quaternion, Translation3, Unit, UnitQuaternion, Vector3};
use serde_json::{json, Value};
use std::time::Duration;

use crate::support::replay::run_ui;
use crate::support::xvfb::{press_until, wait_for, WindowApp, Xvfb};

const SIZE: [u32; 2] = [800, 500];

/// A rotation as a scene file's `[x, y, z, w]`.
fn quat(axis: Vector3<f64>, deg: f64) -> [f64; 4] {
    let q = UnitQuaternion::from_axis_angle(&Unit::new_normalize(axis), deg.to_radians());
    [q.i, q.j, q.k, q.w]
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|c| c.as_f64().unwrap()).collect()
}

/// `name`'s object in a scene file.
fn object<'a>(scene: &'a Value, name: &str) -> &'a Value {
    scene["objects"].as_array().unwrap().iter().find(|o| o["name"] == name).unwrap_or_else(|| panic!("no {name}"))
}

/// `name`'s world matrix from a scene file's local transforms (T * R * S,
/// the documented defaults for missing fields), up its parents by name.
fn world(scene: &Value, name: &str) -> Matrix4<f64> {
    let o = object(scene, name);
    let t = o.get("position").map_or(Vector3::zeros(), |v| Vector3::from_vec(numbers(v)));
    let r = o.get("rotation").map_or(UnitQuaternion::identity(), |v| {
        let c = numbers(v);
        UnitQuaternion::from_quaternion(Quaternion::new(c[3], c[0], c[1], c[2]))
    });
    let s = o.get("scale").map_or(Vector3::repeat(1.0), |v| Vector3::from_vec(numbers(v)));
    let local = Translation3::from(t).to_homogeneous() * r.to_homogeneous() * Matrix4::new_nonuniform_scaling(&s);
    match o.get("parent").and_then(Value::as_str) {
        Some(p) => world(scene, p) * local,
        None => local,
    }
}

/// `m` equals `n` within 1e-9 of `n`'s largest entry.
fn assert_same(m: &Matrix4<f64>, n: &Matrix4<f64>, what: &str) {
    assert!((m - n).amax() <= 1e-9 * n.amax(), "{what}: {m} is not {n}");
}

/// Each outliner row's rectangle (pixels) and the list's, as the UI lays
/// `scene` out with the panel shown.
fn rows(scene: &Value) -> Value {
    let script = json!({ "size": SIZE, "ui": { "panel": true }, "events": [{ "mouse_move": [1, 1] }] });
    run_ui(scene, &script).trace[0]["ui"]["rects"].clone()
}

fn centre(rects: &Value, name: &str) -> (f64, f64) {
    let v = numbers(rects.get(name).unwrap_or_else(|| panic!("no {name} in {rects}")));
    ((v[0] + v[2]) / 2.0, (v[1] + v[3]) / 2.0)
}

/// Presses the left button at `from`, moves to `to` in eight steps, 40 ms
/// apart (egui sees a drag once the pointer has moved a few pixels), and
/// lets go there 200 ms later (a frame of its own on a loaded machine).
fn drag(x: &Xvfb, app: &WindowApp, from: (f64, f64), to: (f64, f64)) {
    app.move_to(x, from);
    x.run("xdotool", &["mousedown", "1"]);
    for k in 1..=8 {
        let t = k as f64 / 8.0;
        let (px, py) = (from.0 + t * (to.0 - from.0), from.1 + t * (to.1 - from.1));
        let (px, py) = ((px as i32).to_string(), (py as i32).to_string());
        x.run("xdotool", &["mousemove", "--window", &app.wid, &px, &py]);
        std::thread::sleep(Duration::from_millis(40));
    }
    std::thread::sleep(Duration::from_millis(200));
    x.run("xdotool", &["mouseup", "1"]);
}

#[test]
fn outliner_rows_dragged_with_xdotool_reparent_keeping_world_transforms() {
    // `cube` is turned 120 degrees about (1, 1, 1) (the axes cycle) and
    // scaled unevenly; `sphere`, a root elsewhere, is turned 90 degrees
    // about X and scaled unevenly too. Under `cube` its local matrix is a
    // signed permutation times a diagonal: a rotation and a scale with no
    // shear, so its world transform can be kept exactly.
    let scene = json!({ "objects": [
        { "name": "cube", "mesh": "cube", "position": [-1, 0.5, 0.25],
          "rotation": quat(Vector3::new(1.0, 1.0, 1.0), 120.0), "scale": [2, 1, 0.5] },
        { "name": "sphere", "mesh": "sphere", "position": [2, -1, 0.5],
          "rotation": quat(Vector3::x(), 90.0), "scale": [0.3, 0.5, 0.7] } ] });
    let (cube_world, sphere_world) = (world(&scene, "cube"), world(&scene, "sphere"));
    let rects = rows(&scene);
    let (cube_row, sphere_row) = (centre(&rects, "outliner.cube"), centre(&rects, "outliner.sphere"));
    assert!(sphere_row.1 > cube_row.1 + 10.0, "the sphere's row under the cube's: {rects}");

    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scene.json");
    std::fs::write(&file, scene.to_string()).unwrap();
    let size = format!("{}x{}", SIZE[0], SIZE[1]);
    // The panel starts shown in a window.
    let app = WindowApp::start_with_ui(&x, dir.path(), &file, &size);
    let title = || x.run("xdotool", &["getwindowname", &app.wid]);
    assert!(title().contains("| scene.json |"), "{}", title());
    let saved = || -> Value { serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap() };
    let save = || press_until(&x, &app.wid, "ctrl+s", "the save", || title().contains("| scene.json |").then_some(()));

    // The sphere's row onto the cube's: a child of the cube, where it was.
    drag(&x, &app, sphere_row, cube_row);
    wait_for("the drop's change (a star in the title)", || title().contains("| scene.json* |").then_some(()));
    save();
    let first = saved();
    assert_eq!(object(&first, "sphere")["parent"], json!("cube"), "{first}");
    assert_same(&world(&first, "sphere"), &sphere_world, "the sphere under the cube");
    assert_same(&world(&first, "cube"), &cube_world, "the cube");

    // Its row is now under the cube's, indented; it is dragged under the
    // last row (into the list's empty space): a root again, where it was.
    let rects = rows(&first);
    let sphere_row = centre(&rects, "outliner.sphere");
    let list = numbers(&rects["outliner"]);
    let below = (sphere_row.0, (sphere_row.1 + 40.0).min(list[3] - 5.0));
    assert!(below.1 > sphere_row.1 + 15.0, "room under the last row: {rects}");
    drag(&x, &app, sphere_row, below);
    wait_for("the second drop's change", || title().contains("| scene.json* |").then_some(()));
    save();
    app.quit_cleanly(&x);
    let second = saved();
    assert!(object(&second, "sphere").get("parent").is_none_or(Value::is_null), "a root again: {second}");
    assert_same(&world(&second, "sphere"), &sphere_world, "the sphere as a root again");
    assert_same(&world(&second, "cube"), &cube_world, "the cube");
}
