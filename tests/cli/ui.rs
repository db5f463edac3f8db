//! The UI drawn in the viewport (`docs/spec/editing.md`): toolbar, status line, side
//! panel, view widget, typed text, event routing and the UI scale, driven by
//! replay scripts through the real binary exactly as a user would. Where a
//! control sits is read from a first run's trace (`ui.rects`); what a click
//! does is checked in the gizmo, selection, camera and saved scene, with
//! expectations computed here.

use serde_json::{json, Value};

use crate::support::cli::TRIANGLE_GLTF;
use crate::support::replay::{object, run, run_raw_with, run_ui, ui_screenshot, vec3};

/// 800 x 500 pixels, orthographic front view 10 m high: 0.02 m per pixel,
/// the origin at (400, 250).
const W: f64 = 800.0;
const H: f64 = 500.0;
const PX: f64 = 10.0 / H;

fn at(x: f64, y: f64) -> [f64; 2] {
    [W / 2.0 + x / PX, H / 2.0 - y / PX]
}

fn scene(objects: Value) -> Value {
    json!({
        "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 10 },
        "objects": objects
    })
}

fn one_box() -> Value {
    scene(json!([
        { "name": "box", "mesh": "cube", "scale": [0.4, 0.4, 0.4] },
        { "name": "ball", "mesh": "sphere", "position": [-3, -2, 0], "scale": [0.4, 0.4, 0.4] }
    ]))
}

/// The script's settings with `events`.
fn script(settings: Value, events: Value) -> Value {
    let mut s = json!({ "size": [W as u32, H as u32], "events": events });
    for (k, v) in settings.as_object().unwrap() {
        s[k] = v.clone();
    }
    s
}

/// The centre of each named control as the UI lays it out for `settings`.
fn controls(scene: &Value, settings: &Value) -> Value {
    let r = run_ui(scene, &script(settings.clone(), json!([{ "mouse_move": [1, 1] }])));
    r.trace[0]["ui"]["rects"].clone()
}

fn centre(rects: &Value, name: &str) -> [f64; 2] {
    let r = rects.get(name).unwrap_or_else(|| panic!("no control {name} in {rects}"));
    let v: Vec<f64> = r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    [(v[0] + v[2]) / 2.0, (v[1] + v[3]) / 2.0]
}

fn click(p: [f64; 2]) -> Vec<Value> {
    vec![json!({ "mouse_move": p }), json!({ "mouse_down": "left" }), json!({ "mouse_up": "left" })]
}

#[test]
fn ui_toolbar_buttons_change_what_the_gizmo_offers() {
    let settings = json!({ "select": ["box"] });
    let rects = controls(&one_box(), &settings);
    let l = 100.0 * PX;
    // A point on the X shaft and one on the Z ring (45 degrees up right).
    let shaft = at(0.5 * l, 0.0);
    let ring = at(l * std::f64::consts::FRAC_1_SQRT_2, l * std::f64::consts::FRAC_1_SQRT_2);
    for (button, on_shaft, on_ring) in [
        // The Y ring, edge-on in the front view, lies along the X shaft.
        ("mode.rotate", json!("rotate.y"), json!("rotate.z")),
        ("mode.scale", json!("scale.x"), Value::Null),
        ("mode.translate", json!("translate.x"), Value::Null),
    ] {
        let mut events = click(centre(&rects, button));
        events.push(json!({ "mouse_move": shaft }));
        events.push(json!({ "mouse_move": ring }));
        let r = run_ui(&one_box(), &script(settings.clone(), json!(events)));
        assert_eq!(r.trace[3]["hovered"], on_shaft, "{button}: shaft");
        assert_eq!(r.trace[4]["hovered"], on_ring, "{button}: ring");
        // The click stayed in the UI: the selection is unchanged.
        assert_eq!(r.trace[2]["selection"], json!(["box"]), "{button}");
    }
    // Without a click the gizmo stays in translate mode (the test can fail).
    let r = run_ui(&one_box(), &script(settings, json!([{ "mouse_move": ring }])));
    assert_eq!(r.trace[0]["hovered"], Value::Null);
}

#[test]
fn ui_typing_into_the_x_field_moves_the_object_as_one_undo_step() {
    let settings = json!({ "select": ["box"], "ui": { "panel": true } });
    let rects = controls(&one_box(), &settings);
    let mut events = click(centre(&rects, "position.x"));
    events.push(json!({ "text": "2.5" }));
    events.push(json!({ "key_down": "Enter" }));
    let r = run_ui(&one_box(), &script(settings.clone(), json!(events.clone())));
    assert_eq!(vec3(&r.trace[3]["objects"]["box"]["position"]), [0.0, 0.0, 0.0], "typing alone changes nothing");
    assert_eq!(vec3(&r.trace[4]["objects"]["box"]["position"]), [2.5, 0.0, 0.0]);
    assert_eq!(vec3(&object(&r.scene, "box")["position"]), [2.5, 0.0, 0.0]);
    assert_eq!(r.trace[4]["selection"], json!(["box"]));

    // Ctrl+Z undoes the typed value in one step; Ctrl+Shift+Z redoes it.
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    events.push(json!({ "key_down": "Z", "mods": ["ctrl", "shift"] }));
    let r = run_ui(&one_box(), &script(settings.clone(), json!(events)));
    assert_eq!(vec3(&r.trace[5]["objects"]["box"]["position"]), [0.0, 0.0, 0.0]);
    assert_eq!(vec3(&r.trace[6]["objects"]["box"]["position"]), [2.5, 0.0, 0.0]);

    // Escape abandons the edit.
    let mut events = click(centre(&rects, "position.x"));
    events.push(json!({ "text": "7" }));
    events.push(json!({ "key_down": "Escape" }));
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    assert_eq!(vec3(&object(&r.scene, "box")["position"]), [0.0, 0.0, 0.0]);
}

#[test]
fn ui_typed_expressions_in_the_x_field() {
    let settings = json!({ "select": ["box"], "ui": { "panel": true } });
    let rects = controls(&one_box(), &settings);
    for (text, x) in [("1+2", 3.0), ("2,5", 2.5), ("=2*3", 6.0), ("-(0.5+1)/2", -0.75)] {
        let mut events = click(centre(&rects, "position.x"));
        events.push(json!({ "text": text }));
        events.push(json!({ "key_down": "Enter" }));
        let r = run_ui(&one_box(), &script(settings.clone(), json!(events)));
        assert_eq!(vec3(&object(&r.scene, "box")["position"]), [x, 0.0, 0.0], "{text}");
    }

    // Text that cannot be read keeps the old value and says so.
    let mut events = click(centre(&rects, "position.x"));
    events.push(json!({ "text": "1+*2" }));
    events.push(json!({ "key_down": "Enter" }));
    events.push(json!({ "mouse_move": [1, 1] }));
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    assert_eq!(vec3(&object(&r.scene, "box")["position"]), [0.0, 0.0, 0.0]);
    let status = r.trace[5]["ui"]["status"].as_str().unwrap();
    assert!(status.starts_with("Not a number: \"1+*2\""), "{status}");
}

#[test]
fn ui_outliner_click_selects_and_shift_click_adds() {
    let settings = json!({ "ui": { "panel": true } });
    let rects = controls(&one_box(), &settings);
    let mut events = click(centre(&rects, "outliner.ball"));
    events.push(json!({ "mouse_move": centre(&rects, "outliner.box") }));
    events.push(json!({ "mouse_down": "left", "mods": ["shift"] }));
    events.push(json!({ "mouse_up": "left", "mods": ["shift"] }));
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    assert_eq!(r.trace[2]["selection"], json!(["ball"]));
    assert_eq!(r.trace[5]["selection"], json!(["ball", "box"]));
}

#[test]
fn ui_n_toggles_the_side_panel() {
    let r = run_ui(&one_box(), &script(json!({}), json!([{ "key_down": "N" }, { "key_down": "N" }])));
    assert_eq!(r.trace[0]["ui"]["panel"], json!(true));
    assert!(r.trace[0]["ui"]["rects"].get("outliner.box").is_some());
    assert_eq!(r.trace[1]["ui"]["panel"], json!(false));
}

#[test]
fn ui_a_click_on_the_ui_does_not_select_the_object_behind_it() {
    // Objects under the toolbar, the status line and the panel.
    let objects = json!([
        { "name": "top", "mesh": "cube", "position": [-2, (H / 2.0 - 15.0) * PX, 0] },
        { "name": "bottom", "mesh": "cube", "position": [-2, -(H / 2.0 - 10.0) * PX, 0] },
        { "name": "side", "mesh": "cube", "position": [(W / 2.0 - 60.0) * PX, -1.5, 0] }
    ]);
    let s = scene(objects);
    let points = [
        ("top", [W / 2.0 - 100.0, 15.0]),
        ("bottom", [W / 2.0 - 100.0, H - 10.0]),
        ("side", [W - 60.0, H / 2.0 + 75.0]),
    ];
    for (name, p) in points {
        let events = json!(click(p));
        // The 3D view alone selects the object there ...
        let alone = run(&s, &script(json!({}), events.clone()));
        assert_eq!(alone.trace[2]["selection"], json!([name]), "{name} without the UI");
        // ... the UI takes the click.
        let with_ui = run_ui(&s, &script(json!({ "ui": { "panel": true } }), events));
        assert_eq!(with_ui.trace[2]["selection"], json!([]), "{name} under the UI");
    }
}

/// The camera's unit (right, up, back) vectors, computed here.
fn axes(eye: [f64; 3], target: [f64; 3], up: [f64; 3]) -> ([f64; 3], [f64; 3], [f64; 3]) {
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross =
        |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let norm = |a: [f64; 3]| {
        let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        [a[0] / n, a[1] / n, a[2] / n]
    };
    let back = norm(sub(eye, target));
    let right = norm(cross(up, back));
    (right, cross(back, right), back)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Where the ball of `axis` is (`docs/spec/editing.md`): centre (W - 80u, 120u) + 56u (a.right, -a.up).
fn ball(axis: [f64; 3], eye: [f64; 3], u: f64) -> [f64; 2] {
    let (right, up, _) = axes(eye, [0.0; 3], [0.0, 1.0, 0.0]);
    [W - 80.0 * u + 56.0 * u * dot(axis, right), 120.0 * u - 56.0 * u * dot(axis, up)]
}

fn direction(camera: &Value) -> [f64; 3] {
    let (e, t) = (vec3(&camera["eye"]), vec3(&camera["target"]));
    let d = [e[0] - t[0], e[1] - t[1], e[2] - t[2]];
    let n = dot(d, d).sqrt();
    [d[0] / n, d[1] / n, d[2] / n]
}

#[test]
fn ui_widget_balls_show_the_views_editing_md_names_in_both_depth_modes() {
    let eye = [4.0, 3.0, 5.0];
    let s = json!({ "camera": { "eye": eye, "target": [0, 0, 0], "fov_y_deg": 50 },
                    "objects": [{ "name": "box", "mesh": "cube" }] });
    // +X right, -X left, +Y top (screen up -Z), -Y bottom (up +Z), +Z front, -Z back.
    let cases: [([f64; 3], [f64; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
    ];
    for depth in ["reversed", "standard"] {
        for (axis, up) in cases {
            let p = ball(axis, eye, 1.0);
            // Clicking the same ball again (now at the widget's centre,
            // facing the viewer) shows the opposite side.
            let mut events = click(p);
            events.extend(click([W - 80.0, 120.0]));
            let r = run_ui(&s, &script(json!({ "depth": depth }), json!(events)));
            let cam = &r.trace[2]["camera"];
            let d = direction(cam);
            assert!(dot(d, axis) > 1.0 - 1e-9, "{depth} {axis:?}: looking from {d:?}");
            assert!(dot(vec3(&cam["up"]), up) > 1.0 - 1e-9, "{depth} {axis:?}: up {}", cam["up"]);
            assert_eq!(cam["projection"], json!("orthographic"), "an axis view is orthographic");
            let d2 = direction(&r.trace[5]["camera"]);
            assert!(dot(d2, axis) < -1.0 + 1e-9, "{depth} {axis:?}: again gives the opposite, got {d2:?}");
        }
    }
    // A drag that starts on the widget orbits; the selection stays.
    let start = [W - 80.0 + 30.0, 120.0 + 30.0];
    let events = json!([{ "mouse_move": start }, { "mouse_down": "left" }, { "mouse_move": [start[0] + 40.0, start[1]] },
                        { "mouse_up": "left" }]);
    let r = run_ui(&s, &script(json!({ "select": ["box"] }), events));
    let d = direction(&r.trace[3]["camera"]);
    assert!(dot(d, direction(&r.trace[0]["camera"])) < 0.999, "the drag turned the camera");
    assert_eq!(r.trace[3]["selection"], json!(["box"]));
}

/// The numbers in a status text.
fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).filter_map(|t| t.parse().ok()).collect()
}

#[test]
fn ui_status_line_shows_the_live_drag_delta_and_counts() {
    let settings = json!({ "select": ["box"] });
    let l = 100.0 * PX;
    let from = at(0.5 * l, 0.0);
    let to = [from[0] + 37.0, from[1] + 20.0];
    let events =
        json!([{ "mouse_move": from }, { "mouse_down": "left" }, { "mouse_move": to }, { "mouse_up": "left" }]);
    let r = run_ui(&one_box(), &script(settings.clone(), events));
    let moved = vec3(&r.trace[2]["objects"]["box"]["position"]);
    assert!((moved[0] - 37.0 * PX).abs() < 1e-9, "{moved:?}");
    let status = r.trace[2]["ui"]["status"].as_str().unwrap();
    let n = numbers(status);
    for k in 0..3 {
        assert!((n[k] - moved[k]).abs() < 5e-5, "{status}: axis {k} shows {} for {}", n[k], moved[k]);
    }
    // Otherwise: selection count and object count.
    let idle = r.trace[3]["ui"]["status"].as_str().unwrap();
    assert!(idle.starts_with("1 selected | 2 objects"), "{idle}");

    // A rotation shows its angle in degrees.
    let rects = controls(&one_box(), &settings);
    let ring = |deg: f64| {
        let a = deg.to_radians();
        at(l * a.cos(), l * a.sin())
    };
    let mut events = click(centre(&rects, "mode.rotate"));
    events.extend([
        json!({ "mouse_move": ring(45.0) }),
        json!({ "mouse_down": "left" }),
        json!({ "mouse_move": ring(75.0) }),
    ]);
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    let status = r.trace[5]["ui"]["status"].as_str().unwrap();
    assert!((numbers(status)[0] - 30.0).abs() < 0.01, "{status}");
}

#[test]
fn ui_scale_2_doubles_the_toolbar_the_widget_and_the_gizmo_hover_distance() {
    // 1600 x 1000 at 0.01 m per pixel, so the doubled widget stays clear of the gizmo.
    let s = json!({ "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 10 },
                    "objects": [{ "name": "box", "mesh": "cube", "scale": [0.2, 0.2, 0.2] }] });
    let run_at = |u: f64, events: Value| {
        run_ui(&s, &json!({ "size": [1600, 1000], "ui_scale": u, "select": ["box"], "events": events }))
    };
    let toolbar_height = |u: f64| {
        let r = run_at(u, json!([{ "mouse_move": [1, 1] }]));
        let t: Vec<f64> =
            r.trace[0]["ui"]["rects"]["toolbar"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        t[3] - t[1]
    };
    let (h1, h2) = (toolbar_height(1.0), toolbar_height(2.0));
    assert!(h1 > 10.0 && h1 <= 40.0 && (h2 - 2.0 * h1).abs() < 1e-6, "{h1} {h2}");
    // On the shaft at 150 px (beyond L = 100 px, inside 2L), and 12 px off the
    // shaft (beyond hit_px 8, inside 16).
    let probe = json!([{ "mouse_move": [800 + 150, 500] }, { "mouse_move": [800 + 50, 500 + 12] }]);
    let one = run_at(1.0, probe.clone());
    let two = run_at(2.0, probe);
    assert_eq!([&one.trace[0]["hovered"], &one.trace[1]["hovered"]], [&Value::Null, &Value::Null]);
    assert_eq!([&two.trace[0]["hovered"], &two.trace[1]["hovered"]], [&json!("translate.x"), &json!("translate.x")]);
    // The widget: the +Y ball of the front view is at (W - 160, 240 - 112) at u = 2.
    let r = run_at(2.0, json!(click([1600.0 - 160.0, 240.0 - 112.0])));
    assert!(dot(direction(&r.trace[2]["camera"]), [0.0, 1.0, 0.0]) > 1.0 - 1e-9, "top view");
    let r = run_at(1.0, json!(click([1600.0 - 160.0, 240.0 - 112.0])));
    assert!(dot(direction(&r.trace[2]["camera"]), [0.0, 0.0, 1.0]) > 1.0 - 1e-9, "u = 1: no ball there");
}

#[test]
fn ui_tiny_viewports_run_without_a_panic() {
    for size in [[1, 1], [50, 30], [161, 101], [300, 120]] {
        let events = json!([{ "mouse_move": [0.5, 0.5] }, { "mouse_down": "left" }, { "mouse_up": "left" },
                            { "key_down": "N" }, { "text": "1" }, { "frame": 1 }]);
        run_ui(&one_box(), &json!({ "size": size, "ui": { "panel": true }, "events": events }));
    }
}

/// The status line (`docs/spec/editing.md`, "Status line"): a message goes
/// with the next action on the scene (a valid edit, an undo, an import) and
/// after 10 s at most; the trace's status is what the line shows.
#[test]
fn ui_a_status_message_goes_with_the_next_action_or_after_ten_seconds() {
    let settings = json!({ "select": ["box"], "ui": { "panel": true } });
    let rects = controls(&one_box(), &settings);
    let field = centre(&rects, "position.x");
    // A refused text stays in the field to be fixed: Ctrl+A replaces it.
    let typed = |text: &str| {
        let mut e = click(field);
        e.push(json!({ "key_down": "A", "mods": ["ctrl"] }));
        e.push(json!({ "text": text }));
        e.push(json!({ "key_down": "Enter" }));
        e
    };
    // The counts line as the status shows it with the box selected.
    let counts = |status: &str| status.starts_with("1 selected | 2 objects | ");
    let refused = |status: &str| status.starts_with("Not a number: \"1/0\"");
    let mut events = Vec::new();
    events.extend(typed("1/0")); // 0..=5
    events.extend(typed("2")); // 6..=11: a valid edit
    events.extend(typed("1/0")); // 12..=17
                                 // The refused text keeps the field (Ctrl+Z there undoes typing):
                                 // Escape leaves it, then Ctrl+Z undoes the edit.
    events.push(json!({ "key_down": "Escape" })); // 18
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] })); // 19: undo
    events.extend(typed("1/0")); // 20..=25
    events.push(json!({ "frame": 590 })); // 26: 9.83 s later
    events.push(json!({ "frame": 20 })); // 27: 10.17 s after it was said
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    let status = |k: usize| r.trace[k]["ui"]["status"].as_str().unwrap().to_string();
    assert!(refused(&status(5)), "{}", status(5));
    assert!(refused(&status(10)), "typing is no action on the scene: {}", status(10));
    assert!(counts(&status(11)), "after a valid edit: {}", status(11));
    assert_eq!(vec3(&r.trace[11]["objects"]["box"]["position"]), [2.0, 0.0, 0.0]);
    assert!(refused(&status(17)), "{}", status(17));
    assert!(refused(&status(18)), "leaving the field is no action on the scene: {}", status(18));
    assert!(counts(&status(19)), "after undo: {}", status(19));
    assert_eq!(vec3(&r.trace[19]["objects"]["box"]["position"]), [0.0, 0.0, 0.0]);
    assert!(refused(&status(26)), "within 10 s: {}", status(26));
    assert!(counts(&status(27)), "after 10 s: {}", status(27));

    // "Pasted 1 object", then an import: the line shows the counts again
    // (the import selects what it brought: one object of four).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tri.gltf"), TRIANGLE_GLTF).unwrap();
    let events = json!([
        { "key_down": "C", "mods": ["ctrl"] },
        { "key_down": "V", "mods": ["ctrl"] },
        { "mouse_move": at(2.0, 2.0) },
        { "import": "tri.gltf" },
    ]);
    let out = run_raw_with(&one_box(), &script(json!({ "select": ["box"] }), events), dir.path(), true);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace: Vec<Value> = std::fs::read_to_string(dir.path().join("trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let status = |k: usize| trace[k]["ui"]["status"].as_str().unwrap().to_string();
    assert_eq!(status(0), "Copied 1 object", "the trace shows the copy's message at once");
    assert_eq!(status(1), "Pasted 1 object");
    assert_eq!(status(2), "Pasted 1 object", "moving the cursor is no action");
    assert!(status(3).starts_with("1 selected | 4 objects | "), "after the import: {}", status(3));
}

/// A long number in a panel field (`docs/spec/organise.md`, "Typed
/// expressions"): while typed, refused as too large, and accepted as a
/// value too long to show plainly, the nine transform fields keep the
/// rectangles they had, inside the panel and the window.
#[test]
fn ui_a_long_number_keeps_every_field_in_place() {
    let settings = json!({ "select": ["box"], "ui": { "panel": true } });
    let names: Vec<String> = ["position", "rotation", "scale"]
        .iter()
        .flat_map(|row| ["x", "y", "z"].map(|a| format!("{row}.{a}")))
        .collect();
    let long = "99999999999999999999999999";
    let mut events = vec![json!({ "mouse_move": [1, 1] })]; // 0: the layout before
    let rects = controls(&one_box(), &settings);
    events.extend(click(centre(&rects, "position.x"))); // 1..=3
    events.push(json!({ "text": long })); // 4: typed, not confirmed
    events.push(json!({ "key_down": "Enter" })); // 5: refused
    events.push(json!({ "key_down": "A", "mods": ["ctrl"] })); // 6
    events.push(json!({ "text": "123456789012.5" })); // 7
    events.push(json!({ "key_down": "Enter" })); // 8: accepted
    events.push(json!({ "mouse_move": [1, 1] })); // 9
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    let rect = |k: usize, name: &str| -> Vec<f64> {
        let v = &r.trace[k]["ui"]["rects"][name];
        v.as_array().unwrap_or_else(|| panic!("no {name} at {k}")).iter().map(|x| x.as_f64().unwrap()).collect()
    };
    for k in [4, 5, 8, 9] {
        for name in &names {
            assert_eq!(rect(k, name), rect(0, name), "{name} after event {k}");
            assert!(rect(k, name)[2] <= W, "{name} inside the window");
        }
    }
    let status = r.trace[5]["ui"]["status"].as_str().unwrap();
    assert!(status.starts_with(&format!("Out of range: \"{long}\"")), "{status}");
    assert_eq!(vec3(&r.trace[5]["objects"]["box"]["position"]), [0.0, 0.0, 0.0], "refused");
    assert_eq!(vec3(&r.trace[8]["objects"]["box"]["position"]), [123456789012.5, 0.0, 0.0], "accepted");
    assert_eq!(vec3(&object(&r.scene, "box")["position"]), [123456789012.5, 0.0, 0.0]);
}

/// A window narrower than the toolbar (`docs/usage.md`): the groups that
/// do not fit fold into the `»` menu at its end, so at 480 and 640 px every
/// control of the toolbar is inside the window, in the bar or in the open
/// menu, and works from there. The controls are those a wide window's
/// toolbar shows.
#[test]
fn ui_a_narrow_toolbar_folds_its_last_groups_into_a_menu() {
    let rects_at = |w: u32, events: Value| {
        let r = run_ui(&one_box(), &json!({ "size": [w, 360], "events": events }));
        r.trace
    };
    let wide = rects_at(1400, json!([{ "mouse_move": [1, 200] }]));
    let bar = wide[0]["ui"]["rects"]["toolbar"].clone();
    let bottom = bar[3].as_f64().unwrap();
    let controls: Vec<String> = wide[0]["ui"]["rects"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, r)| *k != "toolbar" && r[3].as_f64().unwrap() <= bottom)
        .map(|(k, _)| k.clone())
        .collect();
    assert!(controls.len() >= 14 && controls.contains(&"scene_lights".to_string()), "{controls:?}");
    assert!(!wide[0]["ui"]["rects"].as_object().unwrap().contains_key("toolbar.more"), "nothing folds at 1400 px");
    for w in [480u32, 640] {
        let first = rects_at(w, json!([{ "mouse_move": [1, 200] }]));
        let more = centre(&first[0]["ui"]["rects"], "toolbar.more");
        // Open the menu; the frames let its first (sizing) pass go by.
        let events = json!([
            { "mouse_move": more }, { "mouse_down": "left" }, { "mouse_up": "left" },
            { "mouse_move": [1, 200] }, { "frame": 30 },
        ]);
        let open = rects_at(w, events.clone());
        for (k, line) in [(0, &first[0]), (4, &open[4])] {
            let rects = line["ui"]["rects"].as_object().unwrap();
            for (name, r) in rects.iter().filter(|(n, _)| controls.contains(n) || *n == "toolbar.more") {
                let v: Vec<f64> = r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
                assert!(v[0] >= 0.0 && v[2] <= f64::from(w) && v[1] >= 0.0, "{name} at {w} px (event {k}): {v:?}");
            }
            if k == 4 {
                for c in &controls {
                    assert!(rects.contains_key(c), "{c} reachable at {w} px: {:?}", rects.keys());
                }
            }
        }
        // A folded control works from the menu: Persp -> Ortho.
        let mut events = events.as_array().unwrap().clone();
        events.extend(click(centre(&open[4]["ui"]["rects"], "projection")));
        let r = run_ui(&one_box(), &json!({ "size": [w, 360], "events": events }));
        assert_eq!(r.trace[4]["camera"]["projection"], "orthographic");
        assert_eq!(r.trace[7]["camera"]["projection"], "perspective", "at {w} px");
    }
}

/// How many pixels of `rect` differ between two screenshots.
fn pixels_differing(a: &viewport::render::RgbaImage, b: &viewport::render::RgbaImage, rect: [f64; 4]) -> usize {
    let mut n = 0;
    for y in rect[1] as u32..rect[3] as u32 {
        for x in rect[0] as u32..rect[2] as u32 {
            let i = 4 * (y * a.width + x) as usize;
            n += usize::from(a.data[i..i + 4] != b.data[i..i + 4]);
        }
    }
    n
}

/// The side panel is drawn whole in the very first picture that has it,
/// not faded in over the next frames: the screenshot with no frame event
/// (and after one frame) matches the one after 30 frames over the panel's
/// rect, whether the script starts with the panel or shows it with N.
#[test]
fn ui_the_side_panel_is_drawn_whole_at_once() {
    let settings = json!({ "ui": { "panel": true } });
    let rects = controls(&one_box(), &settings);
    let panel: Vec<f64> = rects["panel"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let panel = [panel[0], panel[1], panel[2], panel[3]];
    let area = ((panel[2] - panel[0]) * (panel[3] - panel[1])) as usize;
    let shot = |settings: &Value, events: Value| ui_screenshot(&one_box(), &script(settings.clone(), events));
    let settled = shot(&settings, json!([{ "frame": 30 }]));
    // Without the panel the same rect shows the scene: the test can fail.
    let hidden = shot(&json!({}), json!([{ "frame": 30 }]));
    assert!(pixels_differing(&settled, &hidden, panel) > area / 2, "the panel is not drawn after 30 frames");
    for (what, picture) in [
        ("no frame", shot(&settings, json!([]))),
        ("one frame", shot(&settings, json!([{ "frame": 1 }]))),
        ("N, no frame", shot(&json!({}), json!([{ "key_down": "N" }]))),
    ] {
        let n = pixels_differing(&picture, &settled, panel);
        assert_eq!(n, 0, "{what}: {n} of the panel's {area} pixels differ from the settled panel");
    }
    // N's panel settles to the same picture as the script's.
    let toggled = shot(&json!({}), json!([{ "key_down": "N" }, { "frame": 30 }]));
    assert_eq!(pixels_differing(&toggled, &settled, panel), 0);
}

#[test]
fn ui_the_outliner_eye_hides_and_shows_one_object_as_undo_steps() {
    let settings = json!({ "ui": { "panel": true }, "select": ["box"] });
    let rects = controls(&one_box(), &settings);
    let mut events = click(centre(&rects, "eye.box"));
    events.extend(click(centre(&rects, "eye.box")));
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    assert_eq!(r.trace[2]["hidden"], json!(["box"]));
    assert_eq!(r.trace[2]["selection"], json!([]), "the eye's click does not select the row");
    assert_eq!(r.trace[5]["hidden"], json!([]));
    assert_eq!(r.trace[5]["selection"], json!([]), "showing selects nothing");
    assert_eq!(r.trace[6]["hidden"], json!(["box"]), "Ctrl+Z hides it again");
    assert_eq!(object(&r.scene, "box")["hidden"], json!(true));
}

/// The indices of the outliner rows `line`'s trace shows (rows named `cN`).
fn shown_rows(line: &Value) -> Vec<usize> {
    let mut rows: Vec<usize> = line["ui"]["rects"]
        .as_object()
        .unwrap()
        .keys()
        .filter_map(|k| k.strip_prefix("outliner.c")?.parse().ok())
        .collect();
    rows.sort_unstable();
    rows
}

/// The outliner (`docs/spec/organise.md`, "Rename and find"): one wheel
/// notch scrolls at least three rows, and an object selected in the 3D
/// view whose row is out of view is scrolled to.
#[test]
fn the_outliner_scrolls_three_rows_a_notch_and_to_an_object_picked_in_the_view() {
    // 200 small cubes in a column far to the left, out of view; c150 at the origin.
    let objects: Vec<Value> = (0..200)
        .map(|i| {
            let p = if i == 150 { [0.0, 0.0, 0.0] } else { [-100.0, i as f64, 0.0] };
            json!({ "name": format!("c{i}"), "mesh": "cube", "position": p, "scale": [0.5, 0.5, 0.5] })
        })
        .collect();
    let s = scene(Value::Array(objects));
    let settings = json!({ "ui": { "panel": true } });
    let rects = controls(&s, &settings);
    let list = centre(&rects, "outliner");
    let r = run_ui(&s, &script(settings.clone(), json!([{ "mouse_move": list }, { "scroll": -1.0 }, { "frame": 30 }])));
    let before = shown_rows(&r.trace[0]);
    let after = shown_rows(&r.trace[2]);
    assert_eq!(before.first(), Some(&0), "{before:?}");
    assert!(!before.contains(&150));
    let moved = after.first().unwrap() - before.first().unwrap();
    assert!(moved >= 3, "one notch scrolled {moved} rows ({before:?} -> {after:?})");

    // A click on c150 in the 3D view brings its row into view.
    let mut events = click(at(0.0, 0.0));
    events.push(json!({ "frame": 2 }));
    let r = run_ui(&s, &script(settings, Value::Array(events)));
    let last = r.trace.last().unwrap();
    assert_eq!(last["selection"], json!(["c150"]));
    assert!(shown_rows(last).contains(&150), "{:?}", shown_rows(last));
}

/// The names of the outliner rows `line`'s trace shows.
fn outliner_names(line: &Value) -> Vec<String> {
    let mut names: Vec<String> = line["ui"]["rects"]
        .as_object()
        .unwrap()
        .keys()
        .filter_map(|k| k.strip_prefix("outliner.").map(str::to_string))
        .collect();
    names.sort();
    names
}

/// The outliner's filter (`docs/spec/organise.md`, "Rename and find"): the
/// rows whose names contain the text, ignoring case, with their ancestors;
/// a script's `filter` and Ctrl+F with typed text alike; empty shows all.
#[test]
fn ui_the_outliner_filter_keeps_matches_and_their_ancestors() {
    let s = scene(json!([
        { "name": "arm", "mesh": "cube", "position": [3, 0, 0] },
        { "name": "lamp", "mesh": "cube", "parent": "arm", "position": [0, 1, 0] },
        { "name": "box1", "mesh": "cube", "position": [-3, 0, 0] },
        { "name": "box2", "mesh": "cube", "position": [-3, 2, 0] },
        { "name": "Glamour", "mesh": "sphere", "position": [0, -2, 0] }
    ]));
    let settings = json!({ "ui": { "panel": true } });
    let events = json!([
        { "filter": "LAM" },
        { "frame": 1 },
        { "filter": "" },
        { "key_down": "F", "mods": ["ctrl"] },
        { "text": "box" },
        { "frame": 1 }
    ]);
    let r = run_ui(&s, &script(settings, events));
    assert_eq!(outliner_names(&r.trace[1]), ["Glamour", "arm", "lamp"]);
    assert_eq!(outliner_names(&r.trace[2]), ["Glamour", "arm", "box1", "box2", "lamp"]);
    assert_eq!(outliner_names(&r.trace[5]), ["box1", "box2"]);
    // The filter changes nothing in the scene.
    assert_eq!(r.trace[5]["count"], 5);
}

/// Presses at `from`, moves in steps to `to` and lets go there.
fn drag_to(from: [f64; 2], to: [f64; 2]) -> Vec<Value> {
    let mut events = vec![json!({ "mouse_move": from }), json!({ "mouse_down": "left" })];
    for k in 1..=4 {
        let t = k as f64 / 4.0;
        events.push(json!({ "mouse_move": [from[0] + t * (to[0] - from[0]), from[1] + t * (to[1] - from[1])] }));
    }
    events.push(json!({ "mouse_up": "left" }));
    events
}

fn keys(name: &str, mods: &[&str]) -> Vec<Value> {
    vec![json!({ "key_down": name, "mods": mods }), json!({ "key_up": name, "mods": mods })]
}

/// A row dragged onto another becomes its child with its world place
/// kept; dragged under the last row it is a root again; each drop is one
/// undo step.
#[test]
fn ui_outliner_rows_dragged_onto_a_row_or_under_the_last_reparent() {
    let settings = json!({ "ui": { "panel": true } });
    // box: at (1, 0, 0), scaled (0.5, 2, 1), turned 90 degrees about Z.
    let scene = scene(json!([
        { "name": "box", "mesh": "cube", "position": [1, 0, 0], "scale": [0.5, 2, 1],
          "rotation": [0, 0, std::f64::consts::FRAC_1_SQRT_2, std::f64::consts::FRAC_1_SQRT_2] },
        { "name": "ball", "mesh": "sphere", "position": [-3, -2, 0], "scale": [0.4, 0.4, 0.4] }
    ]));
    let rects = controls(&scene, &settings);
    let (box_row, ball_row) = (centre(&rects, "outliner.box"), centre(&rects, "outliner.ball"));
    let list = rects["outliner"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect::<Vec<_>>();
    let below = [ball_row[0], (ball_row[1] + 40.0).min(list[3] - 5.0)];
    assert!(below[1] > ball_row[1] + 15.0, "room under the last row: {list:?}");

    let mut events = drag_to(ball_row, box_row);
    let first = events.len();
    let r = run_ui(&scene, &script(settings.clone(), json!(events.clone())));
    let ball = object(&r.scene, "ball");
    assert_eq!(ball["parent"], json!("box"));
    // Local = inverse(box world) * ball world: the offset (-4, -2, 0)
    // turned back by -90 degrees about Z is (-2, 4, 0), divided by the scale.
    let p = vec3(&ball["position"]);
    for (got, want) in p.iter().zip([-2.0 / 0.5, 4.0 / 2.0, 0.0]) {
        assert!((got - want).abs() < 1e-9, "{p:?}");
    }
    assert_eq!(r.trace[first - 1]["selection"], json!(["ball"]), "the dragged row was selected first");

    // Under the last row: a root again, where it was.
    events.extend(drag_to(centre(&rects, "outliner.ball"), below));
    let second = events.len();
    events.extend(keys("Z", &["ctrl"]));
    let r = run_ui(&scene, &script(settings.clone(), json!(events.clone())));
    let last = &r.trace[second - 1]["objects"]["ball"];
    let w = vec3(&last["world_position"]);
    assert!(w.iter().zip([-3.0, -2.0, 0.0]).all(|(g, e)| (g - e).abs() < 1e-9), "{w:?}");
    // One Ctrl+Z takes the second drop back: under box again.
    assert_eq!(object(&r.scene, "ball")["parent"], json!("box"));

    // A row dropped on its own child is refused with a message.
    let mut events = drag_to(ball_row, box_row);
    events.extend(click(centre(&rects, "outliner.box")));
    events.extend(drag_to(box_row, ball_row));
    let r = run_ui(&scene, &script(settings, json!(events.clone())));
    assert_eq!(object(&r.scene, "ball")["parent"], json!("box"));
    assert!(object(&r.scene, "box").get("parent").is_none_or(Value::is_null));
    let status = r.trace.last().unwrap()["ui"]["status"].as_str().unwrap();
    assert!(status.starts_with("Not done"), "{status}");
}

/// A parent's arrow folds its children's rows away and unfolds them; a
/// child selected in the 3D view unfolds its parent's row.
#[test]
fn ui_outliner_arrows_fold_rows_and_a_selection_unfolds_them() {
    let settings = json!({ "ui": { "panel": true } });
    let scene = scene(json!([
        { "name": "box", "mesh": "cube", "scale": [0.4, 0.4, 0.4] },
        { "name": "ball", "mesh": "sphere", "parent": "box", "position": [-5, 0, 0] }
    ]));
    let rects = controls(&scene, &settings);
    assert!(rects.get("arrow.ball").is_none(), "a row without children has no arrow");
    let mut events = click(centre(&rects, "arrow.box"));
    // ball's world place: (-2, 0, 0), in the view at at(-2, 0).
    events.extend(click(at(-2.0, 0.0)));
    events.extend(click(centre(&rects, "arrow.box")));
    let r = run_ui(&scene, &script(settings, json!(events)));
    let has = |k: usize, name: &str| r.trace[k]["ui"]["rects"].get(format!("outliner.{name}")).is_some();
    assert!(has(1, "box") && has(1, "ball"), "open at first");
    assert!(has(2, "box") && !has(2, "ball"), "folded");
    assert_eq!(r.trace[2]["selection"], json!([]), "the arrow does not select");
    assert_eq!(r.trace[5]["selection"], json!(["ball"]));
    assert!(has(5, "ball"), "a selection in the view unfolds its ancestors");
    assert!(!has(8, "ball"), "folded again");
    assert_eq!(r.trace[8]["selection"], json!(["ball"]));
}

/// A double click on a row edits its name in place: Enter confirms, Esc
/// abandons; the transform section's name field renames the active object;
/// a name in use gets a number.
#[test]
fn ui_rows_and_the_name_field_rename_in_place() {
    let settings = json!({ "ui": { "panel": true }, "select": ["box"] });
    let rects = controls(&one_box(), &settings);
    let row = centre(&rects, "outliner.ball");
    let double = |p: [f64; 2]| {
        let mut e = click(p);
        e.extend(click(p)[1..].to_vec());
        e
    };
    let mut events = double(row);
    events.push(json!({ "text": "orb" }));
    events.extend(keys("Enter", &[]));
    let r = run_ui(&one_box(), &script(settings.clone(), json!(events)));
    assert!(object(&r.scene, "orb").is_object(), "{}", r.saved);
    assert_eq!(r.trace.last().unwrap()["selection"], json!(["orb"]));

    let mut events = double(row);
    events.push(json!({ "text": "orb" }));
    events.extend(keys("Escape", &[]));
    let r = run_ui(&one_box(), &script(settings.clone(), json!(events)));
    assert!(object(&r.scene, "ball").is_object(), "Esc abandons");

    // The name field: box is active; "ball" is taken.
    let mut events = click(centre(&rects, "name"));
    events.extend(keys("A", &["ctrl"]));
    events.push(json!({ "text": "ball" }));
    events.extend(keys("Enter", &[]));
    events.extend(keys("Z", &["ctrl"]));
    let undo = events.len() - 2;
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    assert_eq!(r.trace[undo - 1]["selection"], json!(["ball.001"]));
    assert_eq!(r.trace[undo]["selection"], json!(["box"]), "one undo step");
}

/// Text that cannot be read keeps the field in edit mode with its text and
/// a message under it: `1+` refused, then `2` typed after it makes `1+2`.
#[test]
fn ui_an_unreadable_number_stays_in_edit_mode_with_its_message() {
    let settings = json!({ "select": ["box"], "ui": { "panel": true } });
    let rects = controls(&one_box(), &settings);
    let mut events = click(centre(&rects, "position.x"));
    events.push(json!({ "text": "1+" }));
    events.push(json!({ "key_down": "Enter" }));
    let refused = events.len() - 1;
    events.push(json!({ "text": "2" }));
    events.push(json!({ "key_down": "Enter" }));
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    let line = &r.trace[refused];
    assert_eq!(vec3(&line["objects"]["box"]["position"]), [0.0, 0.0, 0.0]);
    let status = line["ui"]["status"].as_str().unwrap();
    assert!(status.starts_with("Not a number: \"1+\""), "{status}");
    let (field, message) = (&line["ui"]["rects"]["position.x"], &line["ui"]["rects"]["position.x.error"]);
    assert!(message[1].as_f64().unwrap() >= field[3].as_f64().unwrap(), "the message is under the field");
    assert!(r.trace.last().unwrap()["ui"]["rects"].get("position.x.error").is_none(), "gone once read");
    assert_eq!(vec3(&object(&r.scene, "box")["position"]), [3.0, 0.0, 0.0], "1+ then 2: 1+2");
}

/// With two objects selected a typed value is set on both, a drag adds
/// the same change to each; each is one undo step.
#[test]
fn ui_the_transform_fields_edit_every_selected_object() {
    let settings = json!({ "select": ["ball", "box"], "ui": { "panel": true } });
    let rects = controls(&one_box(), &settings);
    let mut events = click(centre(&rects, "position.y"));
    events.push(json!({ "text": "1.5" }));
    events.push(json!({ "key_down": "Enter" }));
    let typed = events.len() - 1;
    let x = centre(&rects, "position.x");
    events.extend(drag_to(x, [x[0] + 50.0, x[1]]));
    let dragged = events.len() - 1;
    events.extend(keys("Z", &["ctrl"]));
    let undone = events.len() - 2;
    events.extend(keys("Z", &["ctrl"]));
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    let pos = |k: usize, name: &str| vec3(&r.trace[k]["objects"][name]["position"]);
    assert_eq!(pos(typed, "box"), [0.0, 1.5, 0.0]);
    assert_eq!(pos(typed, "ball"), [-3.0, 1.5, 0.0]);
    // 50 points at 0.01 a point: +0.5 on each.
    for (name, x0) in [("box", 0.0), ("ball", -3.0)] {
        let p = pos(dragged, name);
        assert!((p[0] - (x0 + 0.5)).abs() < 1e-6 && p[1] == 1.5, "{name}: {p:?}");
    }
    assert_eq!(pos(undone, "box"), [0.0, 1.5, 0.0], "one step undoes the drag");
    assert_eq!(pos(undone, "ball"), [-3.0, 1.5, 0.0]);
    assert_eq!(vec3(&object(&r.scene, "ball")["position"]), [-3.0, -2.0, 0.0], "and one the typed value");
    assert_eq!(vec3(&object(&r.scene, "box")["position"]), [0.0, 0.0, 0.0]);
}

/// F2 on an object whose row the filter hides edits the panel's name
/// field instead, at once.
#[test]
fn ui_f2_with_the_row_filtered_away_renames_in_the_name_field() {
    let settings = json!({ "select": ["box"], "ui": { "panel": true } });
    let mut events = vec![json!({ "filter": "ball" })];
    events.extend(keys("F2", &[]));
    events.extend(keys("A", &["ctrl"]));
    events.push(json!({ "text": "crate" }));
    events.extend(keys("Enter", &[]));
    let r = run_ui(&one_box(), &script(settings, json!(events)));
    assert!(object(&r.scene, "crate").is_object(), "{}", r.saved);
    assert!(object(&r.scene, "ball").is_object());
}
