//! Organising through the binary (`docs/spec/organise.md`): select all and
//! none, the script's `add`, copy and paste (the run's own clipboard),
//! Ctrl+G, Ctrl+P / Alt+P and End, each checked in the trace and the saved
//! scene against values the test computes.

use serde_json::{json, Value};

use crate::support::replay::{object, ortho_scene, run_raw_with, screen, vec3};

/// A click at world (x, y) in the front view, Shift held when `add`.
fn click(x: f64, y: f64, add: bool) -> [Value; 3] {
    let mods: &[&str] = if add { &["shift"] } else { &[] };
    [
        json!({ "mouse_move": screen(x, y) }),
        json!({ "mouse_down": "left", "mods": mods }),
        json!({ "mouse_up": "left", "mods": mods }),
    ]
}

fn events(parts: Vec<Vec<Value>>) -> Value {
    Value::Array(parts.into_iter().flatten().collect())
}

fn key(k: &str, mods: &[&str]) -> Value {
    json!({ "key_down": k, "mods": mods })
}

fn run(events: Value) -> (Vec<Value>, Value) {
    run_with(events, false)
}

/// As [`run`], with the UI (dialogs need it).
fn run_ui(events: Value) -> (Vec<Value>, Value) {
    run_with(events, true)
}

fn run_with(events: Value, ui: bool) -> (Vec<Value>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let scene = ortho_scene(json!([
        { "name": "floor", "mesh": "cube", "position": [0, -0.5, 0], "scale": [20, 1, 20] },
        { "name": "box", "mesh": "cube", "position": [-2, 4, 0], "extras": { "price": 3 } },
        { "name": "ball", "mesh": "sphere", "position": [2, 1, 0] }
    ]));
    let script = json!({ "size": [400, 400], "select": ["box"], "events": events });
    let out = run_raw_with(&scene, &script, dir.path(), ui);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace = std::fs::read_to_string(dir.path().join("trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let saved = serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.json")).unwrap()).unwrap();
    (trace, saved)
}

fn selection(line: &Value) -> Vec<String> {
    line["selection"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

#[test]
fn select_all_none_add_copy_paste_group_and_drop_through_a_script() {
    let (trace, saved) = run(json!([
        key("A", &[]),
        key("A", &["alt"]),
        key("A", &["ctrl"]),
        { "add": "cone" },
        key("C", &["ctrl"]),
        key("V", &["ctrl"]),
    ]));
    assert_eq!(selection(&trace[0]).len(), 3, "A selects every object");
    assert_eq!(selection(&trace[0]).last().map(String::as_str), Some("box"), "the active one stays active");
    assert!(selection(&trace[1]).is_empty(), "Alt+A selects nothing");
    assert_eq!(selection(&trace[2]).len(), 3, "Ctrl+A selects every object");
    assert_eq!(selection(&trace[3]), ["cone"], "the added cone is the selection");
    assert_eq!(trace[3]["count"], 4);
    assert_eq!(selection(&trace[5]), ["cone.001"]);
    assert_eq!(object(&saved, "cone.001")["position"], object(&saved, "cone")["position"]);

    // Copy with extras, paste, group the copy with the ball, drop the group.
    let (trace, saved) =
        run(json!([key("C", &["ctrl"]), key("V", &["ctrl"]), key("Z", &["ctrl"]), key("V", &["ctrl"]),]));
    assert_eq!(selection(&trace[1]), ["box.001"]);
    assert_eq!(trace[2]["count"], 3, "undo takes the paste back");
    assert_eq!(object(&saved, "box.001")["extras"], json!({ "price": 3 }), "extras survive copy and paste");
    assert_eq!(vec3(&object(&saved, "box.001")["position"]), [-2.0, 4.0, 0.0]);

    let (trace, saved) = run(json!([key("End", &[])]));
    // The unit box lands on the floor's top face (y = 0): its centre at 0.5.
    let y = vec3(&object(&saved, "box")["position"])[1];
    assert!((y - 0.5).abs() < 1e-9, "{y}");
    assert_eq!(trace.len(), 1);

    // Ctrl+G groups box and ball under `group`; Alt+P on the ball makes it a root again.
    let (_, saved) = run(events(vec![click(2.0, 1.0, true).to_vec(), vec![key("G", &["ctrl"])]]));
    assert_eq!(object(&saved, "box")["parent"], "group");
    assert_eq!(object(&saved, "ball")["parent"], "group");
    // World positions kept: group at the median of the two origins.
    let g = vec3(&object(&saved, "group")["position"]);
    assert!((g[0] - 0.0).abs() < 1e-9 && (g[1] - 2.5).abs() < 1e-9, "{g:?}");
    let b = vec3(&object(&saved, "box")["position"]);
    assert!((b[0] + 2.0).abs() < 1e-9 && (b[1] - 1.5).abs() < 1e-9, "local under the group: {b:?}");
}

#[test]
fn ctrl_p_parents_to_the_active_object_and_refuses_a_cycle() {
    let first = vec![click(2.0, 1.0, true).to_vec(), vec![key("P", &["ctrl"])]];
    let (trace, saved) = run(events(first.clone()));
    assert_eq!(selection(&trace[2]), ["box", "ball"]);
    assert_eq!(object(&saved, "box")["parent"], "ball");
    // World kept: box at (-2, 4, 0) under ball at (2, 1, 0).
    assert_eq!(vec3(&object(&saved, "box")["position"]), [-4.0, 3.0, 0.0]);
    // Then ball selected and box active: box as the parent of its own parent is refused.
    let mut refused = first.clone();
    // (Alt+A first: a click on the active ball would grab its gizmo.)
    refused.push(vec![key("A", &["alt"])]);
    refused.push(click(2.0, 1.0, false).to_vec());
    refused.push(click(-2.0, 4.0, true).to_vec());
    refused.push(vec![key("P", &["ctrl"])]);
    let (trace, saved) = run(events(refused.clone()));
    assert_eq!(selection(trace.last().unwrap()), ["ball", "box"]);
    assert_eq!(object(&saved, "box")["parent"], "ball", "nothing changed");
    assert!(object(&saved, "ball").get("parent").is_none_or(Value::is_null));
    // Alt+P: both roots, box back at its world place.
    refused.push(vec![key("P", &["alt"])]);
    let (_, saved) = run(events(refused));
    assert!(object(&saved, "box").get("parent").is_none_or(Value::is_null), "Alt+P made the selection roots");
    assert_eq!(vec3(&object(&saved, "box")["position"]), [-2.0, 4.0, 0.0]);
}

#[test]
fn f2_and_the_scripts_rename_give_unique_names() {
    // The script's rename, then F2's dialog on the active box: a taken name gets `.NNN`.
    let (trace, saved) = run_ui(json!([
        { "rename": ["ball", "orb"] },
        key("F2", &[]),
        key("A", &["ctrl"]),
        { "text": "orb" },
        { "key_down": "Enter" },
    ]));
    assert!(object(&saved, "orb").is_object());
    assert!(object(&saved, "orb.001").is_object(), "the box took orb.001");
    assert_eq!(selection(trace.last().unwrap()), ["orb.001"]);
    // Shift+F2 is the depth toggle now.
    let (_, saved) = run_ui(json!([key("F2", &["shift"])]));
    assert!(object(&saved, "box").is_object(), "nothing renamed");
}

/// The names of the saved scene's objects, in file order.
fn file_order(saved: &Value) -> Vec<String> {
    saved["objects"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap().to_string()).collect()
}

/// The outliner's rows top to bottom, from the trace's rectangles.
fn outliner_rows(line: &Value) -> Vec<String> {
    let rects = line["ui"]["rects"].as_object().expect("the trace has the UI's rectangles");
    let mut rows: Vec<(f64, String)> =
        rects.iter().filter_map(|(k, r)| Some((r[1].as_f64()?, k.strip_prefix("outliner.")?.to_string()))).collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    rows.into_iter().map(|(_, n)| n).collect()
}

/// The outliner's rows when `saved` is opened in a run with the UI.
fn rows_when_opened(saved: &Value) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let script = json!({ "size": [400, 400], "ui": { "panel": true }, "events": [key("A", &["alt"])] });
    let out = run_raw_with(saved, &script, dir.path(), true);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace = std::fs::read_to_string(dir.path().join("trace.jsonl")).unwrap();
    outliner_rows(&serde_json::from_str(trace.lines().last().unwrap()).unwrap())
}

#[test]
fn reparented_objects_go_after_the_new_parents_children_and_undo_puts_them_back() {
    // box (preselected) under ball, then floor (the first object) under
    // ball too: floor goes after box, though it came first in the file.
    let mut parts = vec![click(2.0, 1.0, true).to_vec(), vec![key("P", &["ctrl"]), key("A", &["alt"])]];
    parts.push(click(0.0, -0.75, false).to_vec());
    parts.push(click(2.0, 1.0, true).to_vec());
    parts.push(vec![key("P", &["ctrl"])]);
    let (trace, saved) = run(events(parts.clone()));
    assert_eq!(selection(trace.last().unwrap()), ["floor", "ball"]);
    assert_eq!(object(&saved, "floor")["parent"], "ball");
    assert_eq!(file_order(&saved), ["ball", "box", "floor"], "the file keeps the children's order");
    assert_eq!(rows_when_opened(&saved), ["ball", "box", "floor"]);
    // Undo both: the first order again; redo the first: box after ball.
    parts.push(vec![key("Z", &["ctrl"]), key("Z", &["ctrl"])]);
    let (_, saved) = run(events(parts.clone()));
    assert_eq!(file_order(&saved), ["floor", "box", "ball"]);
    parts.push(vec![key("Z", &["ctrl", "shift"])]);
    let (_, saved) = run(events(parts));
    assert_eq!(file_order(&saved), ["floor", "ball", "box"]);
    assert_eq!(rows_when_opened(&saved), ["floor", "ball", "box"]);
}
