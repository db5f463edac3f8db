//! Replay scripts through the real binary: selection, hover, drags of every
//! handle kind in both depth modes and both spaces, snapping, cancel,
//! undo / redo and a child under a rotated and scaled parent. Expected
//! transforms are computed here, independently of the library: an
//! orthographic front camera maps 1 pixel to exactly 0.025 m.

use serde_json::{json, Value};

use std::path::Path;
use std::process::Command;

use crate::support::replay::{drag, object, ortho_scene, run, screen, vec3, L, PX};

fn assert_close(got: &[f64], want: &[f64], what: &str) {
    let ok = got.len() == want.len() && got.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6);
    assert!(ok, "{what}: got {got:?}, want {want:?}");
}

fn boxed() -> Value {
    ortho_scene(json!([{ "name": "box", "mesh": "cube", "scale": [0.4, 0.4, 0.4] }]))
}

/// Runs a drag in both depth modes and checks both give `want` for "box".
fn check_drag(scene: &Value, extra: Value, from: [f64; 2], to: [f64; 2], mods: &[&str], handle: &str, want: Value) {
    let mut results = Vec::new();
    for depth in ["reversed", "standard"] {
        let mut e = extra.clone();
        e["depth"] = json!(depth);
        let r = run(scene, &drag(e, from, to, mods));
        assert_eq!(r.trace[0]["hovered"], json!(handle), "{depth}: hover");
        assert_eq!(r.trace[1]["active"], json!(handle), "{depth}: grab");
        assert_eq!(r.trace[4]["active"], Value::Null, "{depth}: released");
        let b = object(&r.scene, "box");
        for key in ["position", "scale"] {
            if let Some(w) = want.get(key) {
                assert_close(&vec3(&b[key]), &vec3(w), &format!("{depth} {handle} {key}"));
            }
        }
        if let Some(w) = want.get("rotation") {
            let got: Vec<f64> = b["rotation"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
            let w: Vec<f64> = w.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
            // q and -q are the same rotation.
            let neg: Vec<f64> = w.iter().map(|v| -v).collect();
            let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
            assert!(same(&got, &w) || same(&got, &neg), "{depth} {handle} rotation: got {got:?}, want {w:?}");
        }
        results.push(r.trace[4]["objects"]["box"].clone());
    }
    assert_eq!(results[0], results[1], "reversed and standard depth agree");
}

#[test]
fn translate_axis_follows_the_cursor_projection() {
    // Grab the X shaft at half its length, drag right and off the axis.
    let (from, to) = (screen(0.5 * L, 0.0), [screen(0.5 * L, 0.0)[0] + 40.0, 230.0]);
    check_drag(&boxed(), json!({}), from, to, &[], "translate.x", json!({ "position": [40.0 * PX, 0, 0] }));
}

#[test]
fn translate_plane_and_view_handles() {
    let g = 0.3 * L; // inside the [0.2 L, 0.4 L] square
    let from = screen(g, g);
    check_drag(
        &boxed(),
        json!({}),
        from,
        [from[0] + 30.0, from[1] - 20.0],
        &[],
        "translate.xy",
        json!({
            "position": [30.0 * PX, 20.0 * PX, 0]
        }),
    );
    let from = screen(0.0, 0.0);
    check_drag(
        &boxed(),
        json!({}),
        from,
        [from[0] + 20.0, from[1] + 16.0],
        &[],
        "translate.view",
        json!({
            "position": [20.0 * PX, -16.0 * PX, 0]
        }),
    );
}

#[test]
fn rotate_ring_turns_by_the_cursor_angle() {
    let r = L / 2f64.sqrt();
    let (from, to) = (screen(r, r), screen(-r, r)); // a quarter turn counter-clockwise
    let h = std::f64::consts::FRAC_1_SQRT_2;
    check_drag(
        &boxed(),
        json!({ "gizmo": { "mode": "rotate" } }),
        from,
        to,
        &[],
        "rotate.z",
        json!({
            "rotation": [0, 0, h, h]
        }),
    );
}

#[test]
fn scale_axis_uses_the_distance_ratio() {
    let (from, to) = (screen(0.6 * L, 0.0), screen(1.2 * L, 5.0 * PX));
    check_drag(
        &boxed(),
        json!({ "gizmo": { "mode": "scale" } }),
        from,
        to,
        &[],
        "scale.x",
        json!({
            "scale": [0.8, 0.4, 0.4]
        }),
    );
}

#[test]
fn local_space_moves_along_the_rotated_axis() {
    // The box is turned 90 degrees about Z: its local X is world Y.
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let scene =
        ortho_scene(json!([{ "name": "box", "mesh": "cube", "rotation": [0, 0, h, h], "scale": [0.4, 0.4, 0.4] }]));
    let from = screen(0.0, 0.3 * L);
    check_drag(
        &scene,
        json!({ "gizmo": { "space": "local" } }),
        from,
        [from[0] + 25.0, from[1] - 40.0],
        &[],
        "translate.x",
        json!({
            "position": [0, 40.0 * PX, 0], "rotation": [0, 0, h, h]
        }),
    );
}

#[test]
fn snapping_rounds_the_total_delta() {
    let from = screen(0.5 * L, 0.0);
    // 44 px = 1.1 m, snapped to the 0.5 m increment: 1.0 m.
    check_drag(
        &boxed(),
        json!({ "gizmo": { "snap": { "translate": 0.5 } } }),
        from,
        [from[0] + 44.0, from[1]],
        &["ctrl"],
        "translate.x",
        json!({
            "position": [1.0, 0, 0]
        }),
    );
}

#[test]
fn cancel_undo_and_redo() {
    let from = screen(0.5 * L, 0.0);
    let to = [from[0] + 40.0, from[1]];
    let script = json!({
        "size": [400, 400], "select": ["box"],
        "events": [
            { "mouse_move": from }, { "mouse_down": "left" }, { "mouse_move": to },
            { "key_down": "Escape" },                                    // 3: cancelled
            { "mouse_up": "left" },
            { "mouse_move": from }, { "mouse_down": "left" }, { "mouse_move": to },
            { "mouse_down": "right" },                                   // 8: cancelled
            { "mouse_up": "left" }, { "mouse_up": "right" },
            { "mouse_move": from }, { "mouse_down": "left" }, { "mouse_move": to },
            { "mouse_up": "left" },                                      // 14: moved
            { "key_down": "Z", "mods": ["ctrl"] },                       // 15: undone
            { "key_down": "Z", "mods": ["ctrl", "shift"] }               // 16: redone
        ]
    });
    let r = run(&boxed(), &script);
    let pos = |i: usize| vec3(&r.trace[i]["objects"]["box"]["position"]);
    assert_close(&pos(2), &[1.0, 0.0, 0.0], "mid-drag");
    assert_close(&pos(3), &[0.0, 0.0, 0.0], "after Escape");
    assert_close(&pos(4), &[0.0, 0.0, 0.0], "release after Escape");
    assert_close(&pos(7), &[1.0, 0.0, 0.0], "second drag");
    assert_close(&pos(8), &[0.0, 0.0, 0.0], "after right click");
    assert_close(&pos(14), &[1.0, 0.0, 0.0], "committed drag");
    assert_close(&pos(15), &[0.0, 0.0, 0.0], "undo");
    assert_close(&pos(16), &[1.0, 0.0, 0.0], "redo");
    assert_close(&vec3(&object(&r.scene, "box")["position"]), &[1.0, 0.0, 0.0], "saved scene");
}

#[test]
fn child_under_rotated_and_scaled_parent_follows_the_cursor() {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let scene = ortho_scene(json!([
        { "name": "parent", "mesh": "cube", "rotation": [0, 0, h, h], "scale": [2, 2, 2] },
        { "name": "box", "mesh": "cube", "parent": "parent", "position": [1, 0, 0], "scale": [0.2, 0.2, 0.2] }
    ]));
    // The child sits at world (0, 2, 0); drag its world X handle by 40 px = 1 m.
    let from = screen(0.5 * L, 2.0);
    let r = run(&scene, &drag(json!({}), from, [from[0] + 40.0, from[1] + 12.0], &[]));
    assert_eq!(r.trace[1]["active"], json!("translate.x"));
    assert_close(&vec3(&r.trace[4]["objects"]["box"]["world_position"]), &[1.0, 2.0, 0.0], "child world position");
    // World (+1, 0, 0) in the parent's frame: rotate by -90 degrees about Z, divide by 2.
    assert_close(&vec3(&object(&r.scene, "box")["position"]), &[1.0, -0.5, 0.0], "child local position");
    assert_close(&vec3(&object(&r.scene, "parent")["position"]), &[0.0, 0.0, 0.0], "parent untouched");
}

#[test]
fn clicking_selects_and_shift_click_adds() {
    let scene = ortho_scene(json!([
        { "name": "a", "mesh": "cube", "position": [-2, 0, 0] },
        { "name": "b", "mesh": "sphere", "position": [2, 1, 0] }
    ]));
    let script = json!({
        "size": [400, 400],
        "events": [
            { "mouse_move": screen(-2.0, 0.2) }, { "mouse_down": "left" }, { "mouse_up": "left" },
            { "mouse_move": screen(2.0, 1.1) }, { "mouse_down": "left", "mods": ["shift"] }, { "mouse_up": "left", "mods": ["shift"] },
            { "mouse_move": screen(0.0, -4.0) }, { "mouse_down": "left" }, { "mouse_up": "left" }
        ]
    });
    let r = run(&scene, &script);
    let names = |i: usize| r.trace[i]["objects"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(2), ["a"]);
    assert_eq!(names(5), ["a", "b"]);
    assert!(names(8).is_empty(), "clicking empty space clears the selection");
}

#[test]
fn perspective_plane_drag_keeps_the_grabbed_point_under_the_cursor() {
    // Perspective camera 10 m in front of the pivot, fov 60: the XY plane
    // faces the camera, so a screen point maps to the plane by similar triangles.
    let scene = json!({
        "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "fov_y_deg": 60 },
        "objects": [{ "name": "box", "mesh": "cube", "scale": [0.4, 0.4, 0.4] }]
    });
    let half = 10.0 * (30f64).to_radians().tan(); // world half-height at the pivot
    let to_world = |s: [f64; 2]| [(s[0] - 200.0) / 200.0 * half, -(s[1] - 200.0) / 200.0 * half];
    let wpp = half / 200.0;
    let g = 0.3 * 100.0 * wpp;
    let from = [200.0 + g / wpp, 200.0 - g / wpp];
    let to = [from[0] + 50.0, from[1] - 35.0];
    let (a, b) = (to_world(from), to_world(to));
    check_drag(
        &scene,
        json!({}),
        from,
        to,
        &[],
        "translate.xy",
        json!({
            "position": [b[0] - a[0], b[1] - a[1], 0]
        }),
    );
}

#[test]
fn bad_scripts_are_one_line_and_status_2_and_leave_outputs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let png = dir.path().join("s.png");
    std::fs::write(&trace, "old").unwrap();
    std::fs::write(&png, "old").unwrap();
    let cases = [
        (r#"{"events":[{"mouse_move":[1,2],"jump":true}]}"#, "jump"),
        (r#"{"events":[{"mouse_move":[1,2]}"#, "EOF"),
        (r#"{"select":["nobody"],"events":[]}"#, "nobody"),
        (r#"{"events":[{"mouse_move":"here"}]}"#, "event"),
        (r#"{"events":[{"mouse_down":"left","key_down":"W"}]}"#, "more than one action"),
        (r#"{"size":[0,0],"events":[]}"#, "0x0"),
        (r#"{"gizmo":{"space":"galactic"},"events":[]}"#, "galactic"),
        (r#"{"events":[{"frame":1},{"key_down":"KeyQ"}]}"#, "event 1: unknown key name \"KeyQ\""),
        (r#"{"gizmo":{"pivot":"centroid"},"events":[]}"#, "centroid"),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let script = dir.path().join(format!("script{i}.json"));
        std::fs::write(&script, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_viewport"))
            .args(["--headless", "--replay"])
            .arg(&script)
            .arg("--trace")
            .arg(&trace)
            .arg("--screenshot")
            .arg(&png)
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{text}: {stderr}");
        assert!(stderr.starts_with("viewport: ") && stderr.contains(&format!("script{i}.json")), "{stderr}");
        assert!(stderr.contains(needle), "{text}: expected {needle:?} in {stderr}");
        assert_eq!(std::fs::read_to_string(&trace).unwrap(), "old");
        assert_eq!(std::fs::read_to_string(&png).unwrap(), "old");
    }
    // A missing script names the file too.
    let out = Command::new(env!("CARGO_BIN_EXE_viewport"))
        .args(["--headless", "--replay", "/nonexistent/script.json"])
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/script.json"));
    assert!(Path::new(&trace).exists());
}

#[test]
fn view_ring_turns_about_the_view_axis() {
    let r = 1.2 * L / 2f64.sqrt(); // the view ring has radius 1.2 L
    let h = std::f64::consts::FRAC_1_SQRT_2;
    check_drag(
        &boxed(),
        json!({ "gizmo": { "mode": "rotate" } }),
        screen(r, r),
        screen(-r, r),
        &[],
        "rotate.view",
        json!({
            "rotation": [0, 0, h, h]
        }),
    );
}

#[test]
fn uniform_scale_from_the_centre_disc() {
    // Uniform scale is exp((dx - dy) / size_px): 30 px right and 20 px up.
    let f = (50.0f64 / 100.0).exp();
    let from = screen(0.0, 0.0);
    check_drag(
        &boxed(),
        json!({ "gizmo": { "mode": "scale" } }),
        from,
        [from[0] + 30.0, from[1] - 20.0],
        &[],
        "scale.uniform",
        json!({
            "scale": [0.4 * f, 0.4 * f, 0.4 * f]
        }),
    );
}

#[test]
fn local_space_ring_turns_about_the_rotated_axis() {
    // Turned 90 degrees about Y, the box's local X points along world -Z, so
    // its local X ring faces the camera. A quarter turn counter-clockwise on
    // screen is +90 degrees about world +Z: Rz(90) * Ry(90) = [-1/2, 1/2, 1/2, 1/2].
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let scene =
        ortho_scene(json!([{ "name": "box", "mesh": "cube", "rotation": [0, h, 0, h], "scale": [0.4, 0.4, 0.4] }]));
    let r = L / 2f64.sqrt();
    check_drag(
        &scene,
        json!({ "gizmo": { "mode": "rotate", "space": "local" } }),
        screen(r, r),
        screen(-r, r),
        &[],
        "rotate.x",
        json!({
            "rotation": [-0.5, 0.5, 0.5, 0.5]
        }),
    );
}

/// The gizmo's shafts are drawn about 3 px thick at `size_px` 100 and
/// twice that at 200 (`size_px` follows the UI scale): the red X shaft,
/// horizontal in the front view, is counted down one pixel column.
#[test]
fn gizmo_shafts_are_about_three_pixels_thick() {
    for (size_px, expected) in [(100.0, 3.0), (200.0, 6.0)] {
        let scene = ortho_scene(json!([{ "name": "box", "mesh": "cube", "scale": [0.2, 0.2, 0.2] }]));
        let script = json!({ "size": [400, 400], "select": ["box"], "gizmo": { "size_px": size_px }, "events": [{ "frame": 1 }] });
        // Single-sampled: with MSAA a shaft's edge pixels blend, and one a
        // quarter covered (one of four samples) still reads as strongly red,
        // so a 2.4 px shaft would count 4 pixels and pass as 3.
        let img = crate::support::replay::screenshot(&scene, &script, &["--samples", "1"]);
        // Half way along the shaft (which runs from x = 200 to 200 + 0.8 * size_px).
        let x = (200.0 + 0.5 * 0.8 * size_px) as u32;
        let red = (150..250).filter(|&y| {
            let p = img.pixel(x, y);
            p[0] > 120 && i32::from(p[0]) > i32::from(p[1]) + 50 && i32::from(p[0]) > i32::from(p[2]) + 50
        });
        let n = red.count() as f64;
        // A band `expected` px wide centred on a pixel boundary covers that
        // many pixel centres, or one more where its edges touch centres.
        assert!(
            n >= expected && n <= expected + 1.0,
            "size_px {size_px}: {n} red pixels across the shaft, expected {expected}"
        );
    }
}
