//! The rotation sector and the ruler (`docs/spec/views.md`) through the
//! binary, with expected values worked out here.

use serde_json::{json, Value};

use crate::support::replay::{run, run_ui, screen, ui_screenshot, L};

fn key(k: &str) -> Vec<Value> {
    vec![json!({ "key_down": k }), json!({ "key_up": k })]
}

/// Two flat planes seen from straight above, 10 m high over 400 px:
/// world (x, 0, z) is at pixel (200 + x / 0.025, 200 + z / 0.025).
fn planes() -> Value {
    json!({
        "camera": { "eye": [0, 10, 0], "target": [0, 0, 0], "up": [0, 0, -1],
                    "projection": "orthographic", "height": 10 },
        "objects": [
            { "name": "a", "mesh": "plane", "position": [-2, 0, 0] },
            { "name": "b", "mesh": "plane", "position": [1.5, 0, 1], "scale": [2, 1, 2] }
        ]
    })
}

fn px(x: f64, z: f64) -> [f64; 2] {
    [200.0 + x / 0.025, 200.0 + z / 0.025]
}

fn measure_drag(from: [f64; 2], to: [f64; 2]) -> Vec<Value> {
    vec![
        json!({ "mouse_move": from }),
        json!({ "mouse_down": "left" }),
        json!({ "mouse_move": [(from[0] + to[0]) / 2.0, (from[1] + to[1]) / 2.0] }),
        json!({ "mouse_move": to }),
        json!({ "mouse_up": "left" }),
    ]
}

fn length(line: &Value) -> f64 {
    line["measure"]["length"].as_f64().unwrap_or(f64::NAN)
}

/// M, then a drag with V held from beside a's corner to beside b's: the
/// length is the distance between those two corners; without V, between
/// the two ground points under the cursor. The ruler selects nothing and
/// changes nothing; M again takes the measurement away.
#[test]
fn the_ruler_measures_between_vertices_with_v_and_surface_points_without() {
    let mut events = key("M");
    events.push(json!({ "key_down": "V" }));
    // 6 px off a's corner (-2.5, -0.5) and b's corner (2.5, 2).
    let (ca, cb) = (px(-2.5, -0.5), px(2.5, 2.0));
    events.extend(measure_drag([ca[0] + 4.0, ca[1] + 4.5], [cb[0] - 5.0, cb[1] + 3.0]));
    let vertices = events.len() - 1;
    events.push(json!({ "key_up": "V" }));
    // On the ground between the planes and beyond them.
    events.extend(measure_drag(px(-0.7, 2.2), px(3.1, -1.9)));
    let ground = events.len() - 1;
    events.extend(key("M"));
    let off = events.len() - 1;
    let r = run(&planes(), &json!({ "size": [400, 400], "events": events }));
    let want = (5.0f64 * 5.0 + 2.5 * 2.5).sqrt();
    assert!((length(&r.trace[vertices]) - want).abs() < 1e-9, "{}", r.trace[vertices]["measure"]);
    assert_eq!(r.trace[vertices]["measure"]["from"], json!([-2.5, 0.0, -0.5]));
    let want = (3.8f64 * 3.8 + 4.1 * 4.1).sqrt();
    assert!((length(&r.trace[ground]) - want).abs() < 1e-9, "{}", r.trace[ground]["measure"]);
    assert!(r.trace[off].get("measure").is_none(), "M takes it away");
    assert!(r.trace.iter().all(|l| l["selection"] == json!([])), "the ruler selects nothing");
    for (name, x, z) in [("a", -2.0, 0.0), ("b", 1.5, 1.0)] {
        let o = crate::support::replay::object(&r.scene, name);
        assert_eq!(crate::support::replay::vec3(&o["position"]), [x, 0.0, z], "nothing moved");
    }
}

/// A quarter turn of the Z ring (from 225 to 315 degrees, the lower half:
/// the view widget sits in the upper right) fills the sector
/// between them in translucent blue and leaves the opposite quarter
/// alone; the angle shows beside the cursor.
#[test]
fn a_ring_drag_shows_its_swept_sector_and_angle() {
    let scene =
        crate::support::replay::ortho_scene(json!([{ "name": "box", "mesh": "cube", "scale": [0.4, 0.4, 0.4] }]));
    let r45 = L / 2f64.sqrt();
    let (from, to) = (screen(-r45, -r45), screen(r45, -r45));
    let events = json!([
        { "mouse_move": from }, { "mouse_down": "left" },
        { "mouse_move": screen(0.0, -L) }, { "mouse_move": to }
    ]);
    let script = json!({ "size": [400, 400], "select": ["box"], "gizmo": { "mode": "rotate" }, "events": events });
    let turned = ui_screenshot(&scene, &script);
    let still = json!({ "size": [400, 400], "select": ["box"], "gizmo": { "mode": "rotate" },
                        "events": [{ "mouse_move": [20, 390] }] });
    let before = ui_screenshot(&scene, &still);
    // At 290 and 110 degrees, clear of the X and Y rings (edge-on lines
    // through the centre in this view).
    let (c, s) = (290f64.to_radians().cos() * 0.6 * L, 290f64.to_radians().sin() * 0.6 * L);
    let (inside, outside) = (screen(c, s), screen(-c, -s));
    let p = |img: &viewport::render::RgbaImage, q: [f64; 2]| img.pixel(q[0] as u32, q[1] as u32);
    let (a, b) = (p(&turned, inside), p(&before, inside));
    // Tinted blue: blue gains on red.
    let tint = |p: [u8; 4]| p[2] as i32 - p[0] as i32;
    assert!(tint(a) - tint(b) >= 10, "inside the sector: {a:?}, before {b:?}");
    let (a, b) = (p(&turned, outside), p(&before, outside));
    assert!(a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 3), "opposite quarter: {a:?}, before {b:?}");
    let r = run_ui(&scene, &script);
    let line = r.trace.last().unwrap();
    let label = &line["ui"]["rects"]["sweep"];
    assert!(label.is_array(), "{}", line["ui"]["rects"]);
    assert!(line["ui"]["status"].as_str().unwrap().starts_with("Rot: 90.00"), "{}", line["ui"]["status"]);
}

// ---- The quad view (`docs/spec/views.md`, "Quad view") ----

/// Four cubes, no two sharing the two coordinates an orthographic view
/// sees, under a perspective camera that shows them apart.
const SPREAD: [(&str, [f64; 3]); 4] =
    [("a", [3.0, 0.0, 0.0]), ("b", [0.0, 3.0, 0.0]), ("c", [0.0, 0.0, 3.0]), ("d", [-2.0, -2.0, -2.0])];
/// An odd window, so that the halves differ by a pixel.
const QUAD_SIZE: [u32; 2] = [801, 601];

fn spread() -> Value {
    let objects: Vec<Value> =
        SPREAD.iter().map(|(name, p)| json!({ "name": name, "mesh": "cube", "position": p })).collect();
    json!({ "camera": { "eye": [10, 8, 12], "target": [0, 0, 0] }, "objects": objects })
}

fn quad_script(events: Vec<Value>) -> Value {
    json!({ "size": QUAD_SIZE, "views": "quad", "events": events })
}

/// View `k` of a trace line, as a placed view built here from its camera and rectangle.
fn traced_view(line: &Value, k: usize) -> viewport::math::View {
    let v = &line["views"][k];
    let file: viewport::scene::CameraFile = serde_json::from_value(v["camera"].clone()).unwrap();
    let cam = viewport::scene::camera_from_file(&file).unwrap();
    let r: Vec<f64> = v["rect"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    viewport::math::View::new(cam, r[2], r[3], viewport::math::DepthMode::Reversed).unwrap().at(r[0], r[1])
}

fn rect_of(line: &Value, k: usize) -> [f64; 4] {
    let r = line["views"][k]["rect"].as_array().unwrap();
    [0, 1, 2, 3].map(|i| r[i].as_f64().unwrap())
}

fn look(camera: &Value) -> [f64; 3] {
    let (eye, target) = (crate::support::replay::vec3(&camera["eye"]), crate::support::replay::vec3(&camera["target"]));
    let d = [target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]];
    let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    d.map(|x| x / n)
}

/// `"views": "quad"`: four views tiling the window around a 1 px line,
/// Top, Front and Right orthographic at the perspective camera's target,
/// and the perspective camera last (the trace's `camera`).
#[test]
fn a_quad_script_traces_four_views_tiling_the_window() {
    let r = run(&spread(), &quad_script(vec![json!({ "frame": 1 })]));
    let line = &r.trace[0];
    assert_eq!(line["views"].as_array().unwrap().len(), 4, "{}", line["views"]);
    let [w, h] = QUAD_SIZE.map(f64::from);
    let (lw, th) = (((QUAD_SIZE[0] - 1) / 2) as f64, ((QUAD_SIZE[1] - 1) / 2) as f64);
    let want = [
        [0.0, 0.0, lw, th],
        [lw + 1.0, 0.0, w - lw - 1.0, th],
        [0.0, th + 1.0, lw, h - th - 1.0],
        [lw + 1.0, th + 1.0, w - lw - 1.0, h - th - 1.0],
    ];
    for (k, want) in want.iter().enumerate() {
        assert_eq!(rect_of(line, k), *want, "view {k}");
    }
    for (k, dir) in [[0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [-1.0, 0.0, 0.0]].iter().enumerate() {
        let cam = &line["views"][k]["camera"];
        assert_eq!(cam["projection"], json!("orthographic"), "view {k}");
        assert_eq!(crate::support::replay::vec3(&cam["target"]), [0.0; 3], "view {k}");
        let got = look(cam);
        assert!((0..3).all(|i| (got[i] - dir[i]).abs() < 1e-9), "view {k} looks along {got:?}");
    }
    assert_eq!(line["views"][3]["camera"], line["camera"]);
}

/// A click in each view selects the cube that view shows there: cube k's
/// centre as view k shows it, from the traced camera and rectangle.
#[test]
fn a_click_in_each_view_selects_what_it_shows_there() {
    let first = run(&spread(), &quad_script(vec![json!({ "frame": 1 })]));
    let mut events = Vec::new();
    let mut ends = Vec::new();
    for (k, (_, p)) in SPREAD.iter().enumerate() {
        let at = traced_view(&first.trace[0], k).world_to_screen(&nalgebra::Point3::from(*p)).unwrap();
        let r = rect_of(&first.trace[0], k);
        assert!(at.x > r[0] && at.x < r[0] + r[2] && at.y > r[1] && at.y < r[1] + r[3], "cube {k} in view {k}");
        // Nothing selected first, so no gizmo is in the way.
        events.push(json!({ "key_down": "A", "mods": ["alt"] }));
        events.push(json!({ "key_up": "A", "mods": ["alt"] }));
        events.extend([
            json!({ "mouse_move": [at.x, at.y] }),
            json!({ "mouse_down": "left" }),
            json!({ "mouse_up": "left" }),
        ]);
        ends.push(events.len() - 1);
    }
    let r = run(&spread(), &quad_script(events));
    for (k, (name, _)) in SPREAD.iter().enumerate() {
        assert_eq!(r.trace[ends[k]]["selection"], json!([name]), "click in view {k}");
    }
}

/// The wheel over a view zooms that view alone.
#[test]
fn the_wheel_zooms_only_the_view_under_the_cursor() {
    let first = run(&spread(), &quad_script(vec![json!({ "frame": 1 })]));
    let mut events = vec![json!({ "frame": 1 })];
    for k in 0..4 {
        let r = rect_of(&first.trace[0], k);
        events.push(json!({ "mouse_move": [r[0] + r[2] / 2.0, r[1] + r[3] / 2.0] }));
        events.push(json!({ "scroll": 1.0 }));
    }
    let r = run(&spread(), &quad_script(events));
    for k in 0..4 {
        let (before, after) = (&r.trace[2 * k + 1]["views"], &r.trace[2 * k + 2]["views"]);
        for j in 0..4 {
            let changed = before[j]["camera"] != after[j]["camera"];
            assert_eq!(changed, j == k, "the wheel over view {k}: view {j}");
        }
    }
}

/// Ctrl+Alt+Q splits the view and joins it again; a script without
/// `views` starts with one view over the whole window.
#[test]
fn ctrl_alt_q_toggles_the_quad_view() {
    let toggle =
        || [json!({ "key_down": "Q", "mods": ["ctrl", "alt"] }), json!({ "key_up": "Q", "mods": ["ctrl", "alt"] })];
    let mut events = vec![json!({ "frame": 1 })];
    events.extend(toggle());
    events.extend(toggle());
    let r = run(&spread(), &json!({ "size": QUAD_SIZE, "events": events }));
    let count = |i: usize| r.trace[i]["views"].as_array().unwrap().len();
    assert_eq!((count(0), count(2), count(4)), (1, 4, 1));
    assert_eq!(rect_of(&r.trace[0], 0), [0.0, 0.0, 801.0, 601.0]);
    assert_eq!(r.trace[0]["views"][0]["camera"], r.trace[0]["camera"]);
}

/// An unknown `views` value is one line naming it, exit status 2, and no
/// trace written.
#[test]
fn an_unknown_views_value_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::support::replay::run_raw(&spread(), &json!({ "views": "triple", "events": [] }), dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("views must be \"quad\" or \"single\", got \"triple\""), "{err}");
    assert!(!dir.path().join("trace.jsonl").exists());
}

/// A box dragged in the Top view selects what that view shows in it, read
/// from the object-ID buffer of the frame (headless runs read the ids):
/// the expected set is worked out here from the traced Top view, as the
/// cubes whose projected corners reach into the box (none hides another
/// from above).
#[test]
fn a_box_in_the_top_view_selects_what_that_view_shows_in_it() {
    let first = run(&spread(), &quad_script(vec![json!({ "frame": 1 })]));
    let top = traced_view(&first.trace[0], 0);
    let r = rect_of(&first.trace[0], 0);
    let at = |p: [f64; 3]| top.world_to_screen(&nalgebra::Point3::from(p)).unwrap();
    // From beyond cube d to beyond cube a, both in the Top view.
    let (pa, pd) = (at(SPREAD[0].1), at(SPREAD[3].1));
    let (x0, x1) = (pa.x.min(pd.x) - 30.0, pa.x.max(pd.x) + 30.0);
    let (y0, y1) = (pa.y.min(pd.y) - 30.0, pa.y.max(pd.y) + 30.0);
    assert!(x0 > r[0] && y0 > r[1] && x1 < r[0] + r[2] && y1 < r[1] + r[3], "the box lies in the Top view");
    let expected: Vec<&str> = SPREAD
        .iter()
        .filter(|(_, p)| {
            (0..8).any(|c| {
                let corner = [0, 1, 2].map(|k| p[k] + if c & (1 << k) == 0 { -0.5 } else { 0.5 });
                let s = at(corner);
                s.x > x0 && s.x < x1 && s.y > y0 && s.y < y1
            })
        })
        .map(|(name, _)| *name)
        .collect();
    assert!(!expected.is_empty() && expected.len() < 4, "the box takes some cubes, not all: {expected:?}");
    let events = vec![
        json!({ "mouse_move": [x0, y0] }),
        json!({ "mouse_down": "left" }),
        json!({ "mouse_move": [(x0 + x1) / 2.0, (y0 + y1) / 2.0] }),
        json!({ "mouse_move": [x1, y1] }),
        json!({ "frame": 1 }),
        json!({ "mouse_up": "left" }),
    ];
    let out = run(&spread(), &quad_script(events));
    let mut got: Vec<String> = out.trace.last().unwrap()["selection"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    got.sort();
    assert_eq!(got, expected);
}
