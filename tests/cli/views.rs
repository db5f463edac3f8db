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
