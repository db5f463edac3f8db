//! Importing a glTF file into an open scene (`docs/spec/assets.md`, "Importing into
//! an open scene"), through a script's `{"import": PATH}` as a dropped file
//! would be: names made unique, the roots at the surface point under the
//! cursor (the camera target over the background), the roots selected, one
//! undo step, drawn and pickable. Expected points come from the orthographic
//! front view (`support::replay`), where a pixel is 0.025 m.

use serde_json::{json, Value};

use crate::open_gltf::write_gltf;
use crate::support::replay::{object, ortho_scene, run_raw, run_raw_with, screen, screenshot, vec3};

fn key(k: &str, mods: &[&str]) -> [Value; 2] {
    [json!({ "key_down": k, "mods": mods }), json!({ "key_up": k, "mods": mods })]
}

fn click(at: [f64; 2]) -> [Value; 3] {
    [json!({ "mouse_move": at }), json!({ "mouse_down": "left" }), json!({ "mouse_up": "left" })]
}

/// The scene: a wall whose front face is the plane z = -1, filling the
/// view, and a small object called `crate` (a name the import repeats).
fn scene() -> Value {
    ortho_scene(json!([
        { "name": "wall", "mesh": "cube", "position": [0, 0, -1.5], "scale": [40, 40, 1] },
        { "name": "crate", "mesh": "cube", "position": [-4, -4, 0], "scale": [0.2, 0.2, 0.2] }
    ]))
}

/// `model.gltf` beside the script: a root node `crate` far from the origin
/// with a child `lid` drawing a tetrahedron of half size 0.5 (seen along
/// z it covers a 1 x 1 square around its centre).
fn write_model(dir: &std::path::Path) {
    write_gltf(
        dir,
        "model",
        &[("lid-mesh", [0.0, 0.0, 0.0], 0.5)],
        json!([
            { "name": "crate", "children": [1], "translation": [5, 5, 5] },
            { "name": "lid", "mesh": 0, "translation": [0, 1, 0] }
        ]),
        json!([{ "nodes": [0] }]),
        json!({}),
    );
}

fn run_in(dir: &std::path::Path, script: &Value) -> (Vec<Value>, Value) {
    let out = run_raw(&scene(), script, dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace = std::fs::read_to_string(dir.join("trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let saved = serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap();
    (trace, saved)
}

#[test]
fn an_import_lands_under_the_cursor_selected_and_is_one_undo_step() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    // The cursor over the wall at world (2, 1): the surface point is (2, 1, -1).
    let at = screen(2.0, 1.0);
    let mut events = vec![json!({ "mouse_move": at }), json!({ "import": "model.gltf" })];
    events.extend(key("Z", &["ctrl"])); // 2, 3: undo
    events.extend(key("Z", &["ctrl", "shift"])); // 4, 5: redo
                                                 // 6..8: a click on the lid's mesh (the 1 x 1 square around (2, 2)), clear
                                                 // of the gizmo's handles at (2, 1): it is drawn and picked.
    events.extend(click(screen(1.6, 2.3)));
    let (trace, saved) = run_in(dir.path(), &json!({ "size": [400, 400], "events": events }));

    let imported = &trace[1];
    assert_eq!(imported["count"], json!(4));
    assert_eq!(imported["selection"], json!(["crate.001"]));
    let p = vec3(&imported["objects"]["crate.001"]["world_position"]);
    for (got, want) in p.iter().zip([2.0, 1.0, -1.0]) {
        assert!((got - want).abs() < 1e-6, "root at {p:?}");
    }
    // Undo takes both objects out and restores the selection; redo puts them back.
    assert_eq!(trace[2]["count"], json!(2));
    assert_eq!(trace[2]["selection"], json!([]));
    assert_eq!(trace[4]["count"], json!(4));
    assert_eq!(trace[4]["selection"], json!(["crate.001"]));
    assert_eq!(trace[8]["selection"], json!(["lid"]), "the imported mesh is drawn where it lies");

    // Saved: the hierarchy, the mesh reference beside the saved file, and
    // the child's transform as the file gave it.
    let lid = object(&saved, "lid");
    assert_eq!(lid["parent"], json!("crate.001"));
    assert_eq!(lid["mesh"], json!("model.gltf#0"));
    assert_eq!(vec3(&lid["position"]), [0.0, 1.0, 0.0]);
    assert_eq!(object(&saved, "crate")["mesh"], json!("cube"), "the scene's own crate is untouched");
}

#[test]
fn over_the_background_the_roots_centre_goes_to_the_camera_target() {
    let dir = tempfile::tempdir().unwrap();
    write_gltf(
        dir.path(),
        "pair",
        &[("", [0.0, 0.0, 0.0], 0.25)],
        json!([{ "name": "a", "mesh": 0, "translation": [1, 0, 0] }, { "name": "b", "mesh": 0, "translation": [3, 2, 0] }]),
        json!([{ "nodes": [0, 1] }]),
        json!({}),
    );
    // No wall: the background is under the cursor; the target is the origin.
    let scene =
        ortho_scene(json!([{ "name": "a", "mesh": "cube", "position": [-4, -4, 0], "scale": [0.2, 0.2, 0.2] }]));
    let script =
        json!({ "size": [400, 400], "events": [{ "mouse_move": screen(3.0, 3.0) }, { "import": "pair.gltf" }] });
    let out = run_raw(&scene, &script, dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.json")).unwrap()).unwrap();
    // The roots' centre (2, 1, 0) moves to (0, 0, 0); they keep their layout.
    assert_eq!(vec3(&object(&saved, "a.001")["position"]), [-1.0, -1.0, 0.0]);
    assert_eq!(vec3(&object(&saved, "b")["position"]), [1.0, 1.0, 0.0]);
}

#[test]
fn an_import_that_cannot_be_read_is_one_line_and_writes_nothing() {
    for (name, needle) in [("missing.gltf", "missing.gltf"), ("script.json", "only glTF files")] {
        let dir = tempfile::tempdir().unwrap();
        let script = json!({ "events": [{ "import": name }] });
        let out = run_raw(&scene(), &script, dir.path());
        crate::support::cli::assert_bad_input(&out, needle);
        assert!(!dir.path().join("out.json").exists() && !dir.path().join("trace.jsonl").exists());
    }
    // The event is checked like the others.
    let r = run_raw(&scene(), &json!({ "events": [{ "import": "" }] }), tempfile::tempdir().unwrap().path());
    crate::support::cli::assert_bad_input(&r, "import needs a file path");
}

#[test]
fn importing_twice_names_the_second_copy_apart() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    let events = [json!({ "import": "model.gltf" }), json!({ "import": "model.gltf" })];
    let r = run_in(dir.path(), &json!({ "size": [400, 400], "events": events })).1;
    let names: Vec<&str> = r["objects"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["wall", "crate", "crate.001", "lid", "crate.002", "lid.001"]);
}

/// A selected empty shows its axis cross (`docs/spec/assets.md`); unselected, nothing.
/// The empty is turned -45 degrees about Z, so its X arm points right and
/// down on screen, away from every translate handle (which follow the
/// world axes and lie right, up and in the up-right quadrant).
#[test]
fn a_selected_empty_is_drawn_as_an_axis_cross() {
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let scene = ortho_scene(json!([
        { "name": "marker", "mesh": null, "rotation": [0, 0, -(0.3826834323650898_f64), 0.9238795325112867] }
    ]));
    let shot = |select: &[&str]| {
        let script = json!({ "size": [400, 400], "select": select, "events": [{ "frame": 1 }] });
        screenshot(&scene, &script, &[])
    };
    // 25 px along the X arm from the centre (200, 200): right and down.
    let (x, y) = ((200.0 + 25.0 * s) as u32, (200.0 + 25.0 * s) as u32);
    let selected = shot(&["marker"]);
    let p = selected.pixel(x, y);
    assert!(p[0] > 150 && p[0] > p[1] + 60 && p[0] > p[2] + 60, "the X arm is red at ({x}, {y}): {p:?}");
    // The Y arm, right and up.
    let (x, y) = ((200.0 + 25.0 * s) as u32, (200.0 - 25.0 * s) as u32);
    let p = selected.pixel(x, y);
    assert!(p[1] > 120 && p[1] > p[0] + 40 && p[1] > p[2] + 40, "the Y arm is green at ({x}, {y}): {p:?}");
    let unselected = shot(&[]);
    let (x, y) = ((200.0 + 25.0 * s) as u32, (200.0 + 25.0 * s) as u32);
    let p = unselected.pixel(x, y);
    assert!(!(p[0] > p[1] + 60 && p[0] > p[2] + 60), "nothing red without the selection: {p:?}");
}

/// Ctrl+I: the import dialog (the UI's path field in a script: Ctrl+A,
/// text, Enter) imports the file as a dropped one at the same cursor
/// would be (the run of a script's `import` there, with the UI too): the
/// same place, selected, one undo step.
#[test]
fn ctrl_i_imports_the_file_typed_into_its_dialog() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    let model = dir.path().join("model.gltf");
    let at = screen(2.0, 1.0);
    let trace_of = |events: Vec<Value>| -> Vec<Value> {
        let script = json!({ "size": [400, 400], "events": events });
        let out = run_raw_with(&scene(), &script, dir.path(), true);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::read_to_string(dir.path().join("trace.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let dropped = trace_of(vec![json!({ "mouse_move": at }), json!({ "import": "model.gltf" })]);
    let mut events = vec![json!({ "mouse_move": at })];
    events.extend(key("I", &["ctrl"])); // 1, 2
    events.extend(key("A", &["ctrl"])); // 3, 4: the prefilled folder selected
    events.push(json!({ "text": model.to_str().unwrap() })); // 5
    events.push(json!({ "key_down": "Enter" })); // 6
    events.extend(key("Z", &["ctrl"])); // 7, 8
    let trace = trace_of(events);
    assert!(trace[1]["ui"]["rects"].get("import.path").is_some(), "the dialog is open");
    assert_eq!(trace[5]["count"], json!(2), "nothing imported before Enter");
    let imported = &trace[6];
    assert_eq!(imported["count"], json!(4));
    assert_eq!(imported["selection"], json!(["crate.001"]));
    let p = vec3(&imported["objects"]["crate.001"]["world_position"]);
    let q = vec3(&dropped[1]["objects"]["crate.001"]["world_position"]);
    for (got, want) in p.iter().zip(q) {
        assert!((got - want).abs() < 1e-9, "root at {p:?}, a drop at {q:?}");
    }
    assert_eq!(trace[7]["count"], json!(2), "one undo step takes it out");
}
