//! Editing rules of `docs/spec/editing.md` through the real binary:
//! duplicate naming and hierarchy, delete with undo / redo restoring the
//! saved file byte for byte, axis views (eye direction, distance,
//! orthographic height), the return to perspective, the fly camera, and
//! unknown key names. Expected values are computed here from the spec.
//! Pivots, snapping and picking are in `editing_snap.rs`.

use serde_json::{json, Value};

use crate::support::replay::{run, run_raw, vec3};

fn names(saved: &str) -> Vec<(String, Option<String>)> {
    let v: Value = serde_json::from_str(saved).unwrap();
    v["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["name"].as_str().unwrap().to_string(), o["parent"].as_str().map(str::to_string)))
        .collect()
}

fn key(k: &str, mods: &[&str]) -> [Value; 2] {
    [json!({ "key_down": k, "mods": mods }), json!({ "key_up": k, "mods": mods })]
}

fn script(select: &[&str], events: Vec<Value>) -> Value {
    json!({ "select": select, "events": events })
}

/// A scene with a parent and a child, a lone object and an object whose
/// name already carries a number.
fn family() -> Value {
    json!({
        "camera": { "eye": [3, 4, 12], "target": [0, 1, 0] },
        "objects": [
            { "name": "a", "mesh": "cube" },
            { "name": "a.002", "mesh": "sphere", "position": [2, 0, 0] },
            { "name": "P", "mesh": "cube", "position": [0, 2, 0], "rotation": [0, 0.3826834, 0, 0.9238795] },
            { "name": "C", "mesh": "cone", "parent": "P", "position": [1, 0, 0], "color": [0.2, 0.9, 0.3] },
            { "name": "other", "mesh": "torus", "position": [-2, 0, 0] }
        ]
    })
}

fn pairs(v: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
    v.iter().map(|(n, p)| (n.to_string(), p.map(str::to_string))).collect()
}

#[test]
fn duplicate_names_copies_with_the_lowest_free_number() {
    let ev = [key("D", &["ctrl"]), key("D", &["shift"])].concat();
    let r = run(&family(), &script(&["a"], ev));
    // a -> a.001 (a.002 is taken); a copy of a.001 -> a.003.
    assert_eq!(r.trace[0]["selection"], json!(["a.001"]));
    assert_eq!(r.trace[0]["count"], json!(6));
    assert_eq!(r.trace[2]["selection"], json!(["a.003"]));
    assert_eq!(r.trace[3]["count"], json!(7));
    let n = names(&r.saved);
    assert_eq!(n[5..], pairs(&[("a.001", None), ("a.003", None)]));
    // The copies are where the original is.
    let v: Value = serde_json::from_str(&r.saved).unwrap();
    assert_eq!(v["objects"][5]["position"], v["objects"][0]["position"]);
}

#[test]
fn duplicating_a_parent_copies_its_children_under_the_copy() {
    let r = run(&family(), &script(&["P"], key("D", &["shift"]).to_vec()));
    assert_eq!(r.trace[0]["selection"], json!(["P.001"]));
    let n = names(&r.saved);
    assert_eq!(n.len(), 7);
    assert_eq!(n[5..], pairs(&[("P.001", None), ("C.001", Some("P.001"))]));
    let v: Value = serde_json::from_str(&r.saved).unwrap();
    for k in ["position", "rotation", "scale", "color", "mesh"] {
        assert_eq!(v["objects"][6][k], v["objects"][3][k], "child copy {k}");
        assert_eq!(v["objects"][5][k], v["objects"][2][k], "parent copy {k}");
    }
    // Duplicating a child keeps it under the same parent.
    let r = run(&family(), &script(&["C"], key("D", &["ctrl"]).to_vec()));
    assert_eq!(names(&r.saved)[5], ("C.001".to_string(), Some("P".to_string())));
}

#[test]
fn delete_takes_children_and_undo_redo_restore_the_file_byte_for_byte() {
    let untouched = run(&family(), &script(&[], vec![])).saved;
    let deleted = run(&family(), &script(&["P", "a"], key("Delete", &[]).to_vec()));
    assert_eq!(names(&deleted.saved), pairs(&[("a.002", None), ("other", None)]));
    assert_eq!(deleted.trace[0]["count"], json!(2));
    assert_eq!(deleted.trace[0]["selection"], json!([]));

    let undo = [key("Delete", &[]), key("Z", &["ctrl"])].concat();
    let r = run(&family(), &script(&["P", "a"], undo.clone()));
    assert_eq!(r.saved, untouched, "undo restores the saved file exactly");
    assert_eq!(r.trace[2]["selection"], json!(["P", "a"]), "and the selection, in order");

    let redo = [undo, key("Z", &["ctrl", "shift"]).to_vec()].concat();
    let r = run(&family(), &script(&["P", "a"], redo));
    assert_eq!(r.saved, deleted.saved, "redo deletes again");

    // Duplicate, then undo: back to the original file.
    let r = run(&family(), &script(&["P"], [key("D", &["ctrl"]), key("Z", &["ctrl"])].concat()));
    assert_eq!(r.saved, untouched);
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

pub(crate) fn close(a: [f64; 3], b: [f64; 3], tol: f64) -> bool {
    norm(sub(a, b)) < tol
}

#[test]
fn axis_views_keep_target_and_distance_and_switch_to_a_matching_orthographic_height() {
    let scene = family();
    let (eye, target) = ([3.0, 4.0, 12.0], [0.0, 1.0, 0.0]);
    let dist = norm(sub(eye, target));
    // Perspective default fov 50 degrees: same apparent size at the target.
    let height = 2.0 * dist * (25.0f64).to_radians().tan();
    let cases = [
        ("Numpad1", false, [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ("Numpad1", true, [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ("Numpad3", false, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ("Numpad3", true, [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ("Numpad7", false, [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
        ("Numpad7", true, [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]),
    ];
    for depth in ["reversed", "standard"] {
        for (k, ctrl, dir, up) in cases {
            let mods: &[&str] = if ctrl { &["ctrl"] } else { &[] };
            let mut s = script(&[], vec![json!({ "key_down": k, "mods": mods }), json!({ "frame": 15 })]);
            s["depth"] = json!(depth);
            let r = run(&scene, &s);
            let cam = &r.trace[1]["camera"];
            let (e, t) = (vec3(&cam["eye"]), vec3(&cam["target"]));
            let what = format!("{depth} {k} ctrl={ctrl}");
            assert!(close(t, target, 1e-9), "{what}: target {t:?}");
            let want_eye = [target[0] + dir[0] * dist, target[1] + dir[1] * dist, target[2] + dir[2] * dist];
            assert!(close(e, want_eye, 1e-9), "{what}: eye {e:?}, want {want_eye:?}");
            // Screen up is the camera's up made perpendicular to the view.
            let u = vec3(&cam["up"]);
            assert!(close(u, up, 1e-9), "{what}: up {u:?}");
            assert_eq!(cam["projection"], json!("orthographic"), "{what}");
            assert!((cam["height"].as_f64().unwrap() - height).abs() < 1e-9, "{what}: height {}", cam["height"]);
        }
    }
}

#[test]
fn orbiting_away_from_an_axis_view_returns_to_perspective_and_numpad5_toggles() {
    let (eye, target) = ([3.0, 4.0, 12.0], [0.0, 1.0, 0.0]);
    let dist = norm(sub(eye, target));
    let events = vec![
        json!({ "key_down": "Numpad1" }),
        json!({ "mouse_move": [160, 120] }),
        json!({ "mouse_down": "middle" }),
        json!({ "mouse_move": [190, 110] }),
        json!({ "mouse_up": "middle" }),
    ];
    let r = run(&family(), &script(&[], events));
    assert_eq!(r.trace[0]["camera"]["projection"], json!("orthographic"));
    let cam = &r.trace[4]["camera"];
    assert_eq!(cam["projection"], json!("perspective"));
    assert!((cam["fov_y_deg"].as_f64().unwrap() - 50.0).abs() < 1e-9);
    // The same apparent size at the target as the orthographic view: the
    // distance that height needs at 50 degrees, i.e. the original one.
    let d = norm(sub(vec3(&cam["eye"]), vec3(&cam["target"])));
    assert!((d - dist).abs() < 1e-6, "distance {d} want {dist}");

    // Numpad5 twice: orthographic with the matching height, then back.
    let events = vec![json!({ "key_down": "Numpad5" }), json!({ "key_down": "Numpad5" })];
    let r = run(&family(), &script(&[], events));
    let h = 2.0 * dist * (25.0f64).to_radians().tan();
    assert_eq!(r.trace[0]["camera"]["projection"], json!("orthographic"));
    assert!((r.trace[0]["camera"]["height"].as_f64().unwrap() - h).abs() < 1e-9);
    assert!(close(vec3(&r.trace[0]["camera"]["eye"]), eye, 1e-9), "toggling keeps the eye");
    assert_eq!(r.trace[1]["camera"]["projection"], json!("perspective"));
    assert!(close(vec3(&r.trace[1]["camera"]["eye"]), eye, 1e-6));
}

#[test]
fn fly_moves_five_metres_per_second_of_script_frames() {
    let (eye, target) = ([3.0, 4.0, 12.0], [0.0, 1.0, 0.0]);
    let f = sub(target, eye);
    let fwd = [f[0] / norm(f), f[1] / norm(f), f[2] / norm(f)];
    let fly = |mods: &[&str], wheel: Option<f64>, key: &str| {
        let mut events = vec![json!({ "mouse_move": [160, 120] }), json!({ "mouse_down": "right" })];
        if let Some(w) = wheel {
            events.push(json!({ "scroll": w }));
        }
        events.push(json!({ "key_down": key, "mods": mods }));
        events.push(json!({ "frame": 60 }));
        let r = script(&[], events);
        let out = run(&family(), &r);
        let cam = &out.trace.last().unwrap()["camera"];
        (vec3(&cam["eye"]), vec3(&cam["target"]))
    };
    // W: 60 frames of 1/60 s at 5 m/s along the view direction.
    let (e, t) = fly(&[], None, "W");
    let want = [eye[0] + 5.0 * fwd[0], eye[1] + 5.0 * fwd[1], eye[2] + 5.0 * fwd[2]];
    assert!(close(e, want, 1e-9), "W: eye {e:?} want {want:?}");
    assert!(close(sub(t, e), sub(target, eye), 1e-9), "flying keeps the view direction");
    // E: up along world Y; Shift triples the speed; two wheel notches x1.25^2.
    let (e, _) = fly(&[], None, "E");
    assert!(close(e, [eye[0], eye[1] + 5.0, eye[2]], 1e-9), "E: {e:?}");
    let (e, _) = fly(&["shift"], None, "E");
    assert!(close(e, [eye[0], eye[1] + 15.0, eye[2]], 1e-9), "Shift+E: {e:?}");
    let (e, _) = fly(&[], Some(2.0), "Q");
    assert!(close(e, [eye[0], eye[1] - 5.0 * 1.5625, eye[2]], 1e-9), "wheel then Q: {e:?}");
}

#[test]
fn fly_turns_the_view_by_a_fifth_of_a_degree_per_pixel() {
    let (eye, target) = ([3.0, 4.0, 12.0], [0.0, 1.0, 0.0]);
    let unit = |a: [f64; 3]| {
        let n = norm(a);
        [a[0] / n, a[1] / n, a[2] / n]
    };
    let f0 = unit(sub(target, eye));
    let heading = |f: [f64; 3]| f[0].atan2(-f[2]).to_degrees();
    let pitch = |f: [f64; 3]| f[1].asin().to_degrees();
    let turn = |to: [f64; 2]| {
        let events = vec![
            json!({ "mouse_move": [160, 120] }),
            json!({ "mouse_down": "right" }),
            json!({ "mouse_move": to }),
            json!({ "mouse_up": "right" }),
            json!({ "frame": 1 }),
        ];
        let out = run(&family(), &script(&[], events));
        let cam = &out.trace.last().unwrap()["camera"];
        let (e, t) = (vec3(&cam["eye"]), vec3(&cam["target"]));
        assert!(close(e, eye, 1e-9), "turning does not move the eye: {e:?}");
        unit(sub(t, e))
    };
    // 50 px to the right: the heading turns 10 degrees to the right (towards
    // the old screen right, -(f0 x Y) = (-f.z, 0, f.x) up to length), the pitch stays.
    let f = turn([210.0, 120.0]);
    let dh = heading(f) - heading(f0);
    assert!((dh.abs() - 10.0).abs() < 1e-6, "heading turned {dh} degrees");
    let right = [-f0[2], 0.0, f0[0]];
    assert!(f[0] * right[0] + f[2] * right[2] > 0.0, "turned left: {f:?}");
    assert!((pitch(f) - pitch(f0)).abs() < 1e-6, "pitch changed: {f:?}");
    // 25 px up: the view tilts up by 5 degrees, the heading stays.
    let f = turn([160.0, 95.0]);
    assert!((pitch(f) - pitch(f0) - 5.0).abs() < 1e-6, "pitch {} from {}", pitch(f), pitch(f0));
    assert!((heading(f) - heading(f0)).abs() < 1e-6, "heading changed: {f:?}");
}

#[test]
fn numpad_decimal_frames_the_selection_as_f_does() {
    let framed = |key: &str| {
        let events = vec![json!({ "key_down": key }), json!({ "key_up": key }), json!({ "frame": 15 })];
        let out = run(&family(), &script(&["a.002"], events));
        out.trace.last().unwrap()["camera"].clone()
    };
    let (by_f, by_decimal) = (framed("F"), framed("NumpadDecimal"));
    assert_eq!(by_f, by_decimal);
    // Framing moved the camera onto the sphere at (2, 0, 0).
    let t = vec3(&by_f["target"]);
    assert!(close(t, [2.0, 0.0, 0.0], 1e-9), "target {t:?}");
}

#[test]
fn an_unknown_key_name_is_an_error_naming_the_event_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["KeyW", "Esc", "Numpad10", "w"] {
        let s = script(&[], vec![json!({ "frame": 1 }), json!({ "key_down": bad })]);
        let out = run_raw(&family(), &s, dir.path());
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("event 1") && err.contains(bad), "{err}");
        assert!(!dir.path().join("trace.jsonl").exists() && !dir.path().join("out.json").exists());
    }
}

/// Ctrl+1 stores the camera, 1 brings it back exactly after the view
/// moved; the scene file carries it and a reopened file recalls it.
#[test]
fn camera_bookmarks_are_stored_recalled_saved_and_reopened() {
    let mut events: Vec<Value> = key("Digit1", &["ctrl"]).into();
    events.extend(key("Numpad3", &[]));
    events.extend(key("Digit1", &[]));
    events.extend(key("Numpad7", &[]));
    events.extend(key("Digit2", &["ctrl"]));
    events.extend(key("Digit1", &[]));
    let r = run(&family(), &script(&[], events));
    let start = r.trace[0]["camera"].clone();
    assert_ne!(r.trace[2]["camera"], start, "Numpad3 moved the view");
    assert_eq!(r.trace[4]["camera"], start, "1 brings bookmark 1 back");
    assert_eq!(r.scene.clone()["bookmarks"]["1"], start);
    let top = r.trace[6]["camera"].clone();
    assert_eq!(r.scene.clone()["bookmarks"]["2"], top);
    assert!(r.scene.clone()["bookmarks"].get("3").is_none());

    // Reopened: 2 recalls the top view stored before.
    let mut reopened = r.scene.clone();
    reopened["camera"] = json!({ "eye": [9, 1, 2], "target": [0, 0, 0] });
    let mut events: Vec<Value> = key("Digit2", &[]).into();
    events.extend(key("Digit5", &[]));
    let r = run(&reopened, &script(&[], events));
    assert_eq!(r.trace[0]["camera"], top);
    assert_eq!(r.trace[2]["camera"], top, "an empty slot leaves the camera");
}
