//! Typed values during a drag (`docs/spec/views.md`): digits, `-`, `.`
//! typed while an axis or ring is dragged place the selection exactly at
//! that value (metres, degrees, factor), the cursor and the button's
//! release no longer move or end it, Backspace edits, Enter confirms as
//! one undo step and Esc cancels the whole drag. Expected values are
//! worked out here.

use serde_json::{json, Value};

use crate::support::replay::{object, ortho_scene, run, screen, vec3, L};

/// A box at (0.5, -0.25, 0) turned 30 degrees about Z (the view's axis,
/// so its own axes show in the front view at their length).
fn scene() -> Value {
    let (s, c) = (15f64.to_radians().sin(), 15f64.to_radians().cos());
    ortho_scene(json!([{ "name": "box", "mesh": "cube", "position": [0.5, -0.25, 0], "rotation": [0, 0, s, c],
                          "scale": [0.4, 0.4, 0.4] }]))
}

fn at(x: f64, y: f64) -> [f64; 2] {
    screen(0.5 + x, -0.25 + y)
}

fn key(k: &str, mods: &[&str]) -> Vec<Value> {
    vec![json!({ "key_down": k, "mods": mods }), json!({ "key_up": k, "mods": mods })]
}

/// Grabs at `from`, moves a little, types `text` (one event per piece),
/// moves and releases the button elsewhere, then `end` (a key).
fn typed_drag(mode: &str, space: &str, from: [f64; 2], pieces: &[&str], end: &str) -> (Value, Vec<Value>) {
    let mut events = vec![
        json!({ "mouse_move": from }),
        json!({ "mouse_down": "left" }),
        json!({ "mouse_move": [from[0] + 7.0, from[1] - 3.0] }),
    ];
    for p in pieces {
        if *p == "Backspace" {
            events.extend(key("Backspace", &[]));
        } else {
            events.push(json!({ "text": p }));
        }
    }
    events.push(json!({ "mouse_move": [from[0] + 60.0, from[1] + 40.0] }));
    events.push(json!({ "mouse_up": "left" }));
    events.extend(key(end, &[]));
    events.extend(key("Z", &["ctrl"]));
    let script =
        json!({ "size": [400, 400], "select": ["box"], "gizmo": { "mode": mode, "space": space }, "events": events });
    (script, events)
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
}

fn quat(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

/// Quaternion product a * b, as [x, y, z, w].
fn mul(a: &[f64], b: &[f64]) -> Vec<f64> {
    let (ax, ay, az, aw) = (a[0], a[1], a[2], a[3]);
    let (bx, by, bz, bw) = (b[0], b[1], b[2], b[3]);
    vec![
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// Mode, space, where to grab, what to type, the handle grabbed.
type Case<'a> = (&'a str, &'a str, [f64; 2], &'a [&'a str], &'a str);

#[test]
fn typed_values_place_the_selection_exactly_and_undo_as_one_step() {
    let start = scene();
    let start_pos = [0.5, -0.25, 0.0];
    let (s15, c15) = (15f64.to_radians().sin(), 15f64.to_radians().cos());
    let start_rot = [0.0, 0.0, s15, c15];
    let r45 = std::f64::consts::FRAC_1_SQRT_2 * L;
    // The box's own X axis (local space): 30 degrees up from the screen's x.
    let (c30, s30) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
    let cases: [Case; 4] = [
        ("translate", "world", at(0.5 * L, 0.0), &["2", ".5"], "translate.x"),
        ("translate", "world", at(0.0, 0.5 * L), &["0.759", "Backspace", "-"], "translate.y"),
        ("rotate", "world", at(r45, r45), &["9", "0"], "rotate.z"),
        ("scale", "local", at(0.6 * L * c30, 0.6 * L * s30), &["1.5"], "scale.x"),
    ];
    for (mode, space, from, pieces, handle) in cases {
        let (script, events) = typed_drag(mode, space, from, pieces, "Enter");
        let r = run(&start, &script);
        let n = events.len();
        // Released, still dragging; Enter ends it; Ctrl+Z takes it back.
        assert_eq!(r.trace[2]["active"], json!(handle), "{handle}: grabbed");
        assert_eq!(r.trace[n - 5]["active"], json!(handle), "{handle}: the release does not end it");
        assert_eq!(r.trace[n - 4]["active"], Value::Null, "{handle}: Enter ends it");
        let placed = &r.trace[n - 4]["objects"]["box"];
        let (pos, rot, scale) = (vec3(&placed["position"]), quat(&placed["rotation"]), vec3(&placed["scale"]));
        match handle {
            "translate.x" => assert!(close(&pos, &[0.5 + 2.5, -0.25, 0.0]), "{pos:?}"),
            "translate.y" => assert!(close(&pos, &[0.5, -0.25 - 0.75, 0.0]), "{pos:?}"),
            "rotate.z" => {
                // 90 degrees about world Z, after the start rotation.
                let q = mul(&[0.0, 0.0, 45f64.to_radians().sin(), 45f64.to_radians().cos()], &start_rot);
                let neg: Vec<f64> = q.iter().map(|v| -v).collect();
                assert!(close(&rot, &q) || close(&rot, &neg), "{rot:?} want {q:?}");
                assert!(close(&pos, &start_pos), "turned about its own origin: {pos:?}");
            }
            _ => {
                // Along its own X axis: 0.4 x 1.5, nothing else changed.
                assert!(close(&scale, &[0.6, 0.4, 0.4]), "{scale:?}");
                assert!(close(&pos, &start_pos) && close(&rot, &start_rot), "{pos:?} {rot:?}");
            }
        }
        let undone = &r.trace[n - 2]["objects"]["box"];
        assert!(close(&vec3(&undone["position"]), &start_pos), "{handle}: one undo step");
        assert!(close(&quat(&undone["rotation"]), &start_rot), "{handle}: one undo step");
        assert!(close(&vec3(&undone["scale"]), &[0.4; 3]), "{handle}: one undo step");
    }
}

#[test]
fn esc_after_typing_restores_the_start_and_records_nothing() {
    let (script, events) = typed_drag("translate", "world", at(0.5 * L, 0.0), &["3"], "Escape");
    let r = run(&scene(), &script);
    let n = events.len();
    assert!(close(&vec3(&r.trace[n - 5]["objects"]["box"]["position"]), &[3.5, -0.25, 0.0]), "typed 3");
    assert!(close(&vec3(&r.trace[n - 4]["objects"]["box"]["position"]), &[0.5, -0.25, 0.0]), "Esc");
    assert_eq!(r.trace[n - 4]["active"], Value::Null);
    // Nothing to undo: Ctrl+Z leaves it, and the saved file has the start.
    assert!(close(&vec3(&object(&r.scene, "box")["position"]), &[0.5, -0.25, 0.0]));
}

/// With the UI drawn, the typed number shows in the status line and beside
/// the cursor, and the value lands as without the UI.
#[test]
fn the_typed_number_shows_in_the_status_line_and_beside_the_cursor() {
    let (script, events) = typed_drag("translate", "world", at(0.5 * L, 0.0), &["-1", ".25"], "Enter");
    let r = crate::support::replay::run_ui(&scene(), &script);
    let n = events.len();
    let line = &r.trace[n - 5];
    let status = line["ui"]["status"].as_str().unwrap();
    assert!(status.starts_with("Move X: -1.25 m"), "{status}");
    let label = &line["ui"]["rects"]["typed"];
    let cursor = [at(0.5 * L, 0.0)[0] + 60.0, at(0.5 * L, 0.0)[1] + 40.0];
    let b: Vec<f64> = label.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    // Near the cursor (within 40 px of the rectangle), on the 400 px screen.
    let dx = (b[0] - cursor[0]).max(cursor[0] - b[2]).max(0.0);
    let dy = (b[1] - cursor[1]).max(cursor[1] - b[3]).max(0.0);
    assert!(dx.hypot(dy) < 40.0, "{label} {cursor:?}");
    assert!(b[0] >= 0.0 && b[2] <= 400.0 && b[3] <= 400.0, "on screen: {label}");
    assert!(close(&vec3(&r.trace[n - 4]["objects"]["box"]["position"]), &[0.5 - 1.25, -0.25, 0.0]));
    assert!(r.trace[n - 4]["ui"]["rects"].get("typed").is_none());
}
