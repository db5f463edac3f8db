//! Editing rules of `docs/spec/editing.md` through the real binary:
//! pivots, absolute snapping, vertex and surface snapping, and picking
//! what is drawn (clicks, box selection, the selection outline), in the
//! orthographic front view (`support::replay`). Expected values are
//! computed here from the spec.

use serde_json::{json, Value};

use crate::editing::close;
use crate::support::replay::{drag, object, ortho_scene, run, run_raw, screen, vec3, L, PX};

/// A small cube A at (-2, 0) and a unit cube B at (1, 2), both at z = 0.
fn pair() -> Value {
    ortho_scene(json!([
        { "name": "A", "mesh": "cube", "position": [-2, 0, 0], "scale": [0.4, 0.4, 0.4] },
        { "name": "B", "mesh": "cube", "position": [1, 2, 0] }
    ]))
}

/// The pivot each mode names for `pair()` with the selection [A, B] (B active).
fn pivot_of(mode: &str) -> [f64; 2] {
    match mode {
        // Component-wise median of the origins (-2, 0) and (1, 2).
        "median" | "individual" => [-0.5, 1.0],
        "active" => [1.0, 2.0],
        // Box around A [-2.2, -1.8] x [-0.2, 0.2] and B [0.5, 1.5] x [1.5, 2.5].
        "bounds" => [(-2.2 + 1.5) / 2.0, (-0.2 + 2.5) / 2.0],
        _ => unreachable!(),
    }
}

#[test]
fn each_pivot_mode_rotates_two_objects_about_its_point() {
    let origins = [("A", [-2.0, 0.0]), ("B", [1.0, 2.0])];
    let h = std::f64::consts::FRAC_1_SQRT_2;
    for mode in ["median", "individual", "active", "bounds"] {
        let c = pivot_of(mode);
        // A quarter turn counter-clockwise on the Z ring (radius L about the pivot).
        let r = L * h;
        let (from, to) = (screen(c[0] + r, c[1] + r), screen(c[0] - r, c[1] + r));
        let s = drag(json!({ "gizmo": { "mode": "rotate", "pivot": mode }, "select": ["A", "B"] }), from, to, &[]);
        let r = run(&pair(), &s);
        let (trace, saved) = (r.trace, r.scene);
        assert_eq!(trace[1]["active"], json!("rotate.z"), "{mode}: grabbed the Z ring at the pivot");
        for (name, p) in origins {
            let o = object(&saved, name);
            // (x, y) -> c + R90 (p - c), or unchanged about its own origin.
            let want = if mode == "individual" { p } else { [c[0] - (p[1] - c[1]), c[1] + (p[0] - c[0])] };
            let got = [o["position"][0].as_f64().unwrap(), o["position"][1].as_f64().unwrap()];
            assert!(
                (got[0] - want[0]).abs() < 1e-6 && (got[1] - want[1]).abs() < 1e-6,
                "{mode} {name}: {got:?} want {want:?}"
            );
            let q: Vec<f64> = o["rotation"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
            assert!((q[2].abs() - h).abs() < 1e-6 && (q[3].abs() - h).abs() < 1e-6, "{mode} {name}: {q:?}");
        }
    }
}

#[test]
fn each_pivot_mode_translates_two_objects_by_the_same_delta_from_its_point() {
    // The spec: translation moves every selected object by the drag's delta;
    // the gizmo sits at the mode's pivot (`individual` translates as median).
    let origins = [("A", [-2.0, 0.0]), ("B", [1.0, 2.0])];
    for mode in ["median", "individual", "active", "bounds"] {
        let c = pivot_of(mode);
        // The X arrow from 0.5 L to 0.5 L + 1.5 m (60 px), 2 px off the axis.
        let (from, to) = (screen(c[0] + 0.5 * L, c[1]), screen(c[0] + 0.5 * L + 1.5, c[1] + 2.0 * PX));
        let s = drag(json!({ "gizmo": { "pivot": mode }, "select": ["A", "B"] }), from, to, &[]);
        let r = run(&pair(), &s);
        assert_eq!(r.trace[1]["active"], json!("translate.x"), "{mode}: grabbed the X arrow at the pivot");
        for (name, p) in origins {
            let o = object(&r.scene, name);
            let got = [o["position"][0].as_f64().unwrap(), o["position"][1].as_f64().unwrap()];
            assert!(
                (got[0] - (p[0] + 1.5)).abs() < 1e-6 && (got[1] - p[1]).abs() < 1e-9,
                "{mode} {name}: {got:?} want {:?}",
                [p[0] + 1.5, p[1]]
            );
        }
    }
}

#[test]
fn each_pivot_mode_scales_two_objects_about_its_point() {
    let origins = [("A", [-2.0, 0.0], 0.4), ("B", [1.0, 2.0], 1.0)];
    for mode in ["median", "individual", "active", "bounds"] {
        let c = pivot_of(mode);
        // The X scale handle from 0.6 L to 1.2 L: a factor of 2 along X.
        let (from, to) = (screen(c[0] + 0.6 * L, c[1]), screen(c[0] + 1.2 * L, c[1] + 3.0 * PX));
        let s = drag(json!({ "gizmo": { "mode": "scale", "pivot": mode }, "select": ["A", "B"] }), from, to, &[]);
        let r = run(&pair(), &s);
        let (trace, saved) = (r.trace, r.scene);
        assert_eq!(trace[1]["active"], json!("scale.x"), "{mode}");
        for (name, p, size) in origins {
            let o = object(&saved, name);
            let want_x = if mode == "individual" { p[0] } else { c[0] + 2.0 * (p[0] - c[0]) };
            let got = [o["position"][0].as_f64().unwrap(), o["position"][1].as_f64().unwrap()];
            assert!((got[0] - want_x).abs() < 1e-6 && (got[1] - p[1]).abs() < 1e-6, "{mode} {name}: {got:?}");
            assert!((o["scale"][0].as_f64().unwrap() - 2.0 * size).abs() < 1e-6, "{mode} {name} scale");
            assert!((o["scale"][1].as_f64().unwrap() - size).abs() < 1e-6, "{mode} {name} scale y");
        }
    }
}

#[test]
fn absolute_snapping_rounds_the_pivot_coordinate_on_world_and_local_axes() {
    let snap_x = |absolute: bool| {
        let scene = ortho_scene(
            json!([{ "name": "box", "mesh": "cube", "position": [0.3, 0.1, 0], "scale": [0.4, 0.4, 0.4] }]),
        );
        // 16 px right along X is 0.4 m: the pivot would be at x = 0.7.
        let (from, to) = (screen(0.3 + 0.6 * L, 0.1), screen(0.3 + 0.6 * L + 0.4, 0.1));
        let gizmo = json!({ "snap": { "translate": 0.5, "absolute": absolute } });
        let r = run(&scene, &drag(json!({ "gizmo": gizmo, "select": ["box"] }), from, to, &["ctrl"]));
        let (_, saved) = (r.trace, r.scene);
        object(&saved, "box")["position"][0].as_f64().unwrap()
    };
    assert!((snap_x(true) - 0.5).abs() < 1e-9, "absolute: x = 0.7 rounds to 0.5");
    assert!((snap_x(false) - 0.8).abs() < 1e-9, "relative: the 0.4 m delta rounds to 0.5");

    // Local X of an object turned 45 degrees about Z is (h, h, 0).
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let local = |absolute: bool| {
        let scene = ortho_scene(json!([{ "name": "box", "mesh": "cube", "position": [0.3, 0.1, 0],
            "rotation": [0, 0, (std::f64::consts::PI / 8.0).sin(), (std::f64::consts::PI / 8.0).cos()],
            "scale": [0.4, 0.4, 0.4] }]));
        let on_axis = |s: f64| screen(0.3 + s * h, 0.1 + s * h);
        // 0.5 m along the axis from 0.6 L out.
        let (from, to) = (on_axis(0.6 * L), on_axis(0.6 * L + 0.5));
        let gizmo = json!({ "space": "local", "snap": { "translate": 0.5, "absolute": absolute } });
        let r = run(&scene, &drag(json!({ "gizmo": gizmo, "select": ["box"] }), from, to, &["ctrl"]));
        let (trace, saved) = (r.trace, r.scene);
        assert_eq!(trace[1]["active"], json!("translate.x"));
        let p = &object(&saved, "box")["position"];
        [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()]
    };
    // The pivot's coordinate along the axis starts at 0.4 h, moves by 0.5
    // and rounds to 1.0: a delta of 1.0 - 0.4 h along the axis.
    let c0 = 0.4 * h;
    let d = 1.0 - c0;
    let got = local(true);
    assert!((got[0] - (0.3 + d * h)).abs() < 1e-6 && (got[1] - (0.1 + d * h)).abs() < 1e-6, "absolute local {got:?}");
    let got = local(false);
    assert!(
        (got[0] - (0.3 + 0.5 * h)).abs() < 1e-6 && (got[1] - (0.1 + 0.5 * h)).abs() < 1e-6,
        "relative local {got:?}"
    );
}

#[test]
fn absolute_snapping_on_the_xy_plane_handle_rounds_both_moved_coordinates() {
    let scene =
        ortho_scene(json!([{ "name": "box", "mesh": "cube", "position": [0.3, 0.1, 0], "scale": [0.4, 0.4, 0.4] }]));
    // The XY square spans 0.2 L..0.4 L from the pivot on both axes; grab its
    // middle and move (1.1, 0.8) m: the pivot would be at (1.4, 0.9).
    let grab = [0.3 + 0.3 * L, 0.1 + 0.3 * L];
    let (from, to) = (screen(grab[0], grab[1]), screen(grab[0] + 1.1, grab[1] + 0.8));
    let snapped = |absolute: bool| {
        let gizmo = json!({ "snap": { "translate": 0.5, "absolute": absolute } });
        let r = run(&scene, &drag(json!({ "gizmo": gizmo, "select": ["box"] }), from, to, &["ctrl"]));
        assert_eq!(r.trace[1]["active"], json!("translate.xy"));
        let p = &object(&r.scene, "box")["position"];
        [p[0].as_f64().unwrap(), p[1].as_f64().unwrap(), p[2].as_f64().unwrap()]
    };
    // Absolute: each moved world coordinate to the nearest multiple of 0.5.
    let got = snapped(true);
    assert!((got[0] - 1.5).abs() < 1e-9 && (got[1] - 1.0).abs() < 1e-9 && got[2] == 0.0, "absolute {got:?}");
    // Relative: the delta (1.1, 0.8) rounds to (1.0, 1.0).
    let got = snapped(false);
    assert!((got[0] - 1.3).abs() < 1e-9 && (got[1] - 1.1).abs() < 1e-9 && got[2] == 0.0, "relative {got:?}");
}

#[test]
fn vertex_snap_puts_the_pivot_on_the_nearest_corner_of_a_rotated_cube() {
    // A unit cube at (2, 1, 0) turned 30 degrees about Z: its corner
    // (0.5, 0.5, z) lands at (2 + 0.5 cos 30 - 0.5 sin 30, 1 + 0.5 sin 30 + 0.5 cos 30).
    let (s30, c30) = (30f64.to_radians().sin(), 30f64.to_radians().cos());
    let corner = [2.0 + 0.5 * c30 - 0.5 * s30, 1.0 + 0.5 * s30 + 0.5 * c30];
    let q = [0.0, 0.0, 15f64.to_radians().sin(), 15f64.to_radians().cos()];
    let scene = ortho_scene(json!([
        { "name": "box", "mesh": "cube", "scale": [0.4, 0.4, 0.4] },
        { "name": "rc", "mesh": "cube", "position": [2, 1, 0], "rotation": q }
    ]));
    let target = screen(corner[0], corner[1]);
    let near = [target[0] + 3.0, target[1] + 2.0]; // within 20 px of the corner only
    let from = screen(0.6 * L, 0.0);
    let events = |v: bool| {
        let mut e = vec![json!({ "mouse_move": from }), json!({ "mouse_down": "left" })];
        if v {
            e.push(json!({ "key_down": "V" }));
        }
        e.push(json!({ "mouse_move": near }));
        e.push(json!({ "mouse_up": "left" }));
        json!({ "size": [400, 400], "select": ["box"], "events": e })
    };
    let r = run(&scene, &events(true));
    let (trace, saved) = (r.trace, r.scene);
    assert_eq!(trace[1]["active"], json!("translate.x"));
    let p = &object(&saved, "box")["position"];
    // Along the X arrow only: the pivot's x becomes the corner's x.
    assert!((p[0].as_f64().unwrap() - corner[0]).abs() < 1e-9, "vertex snap x = {}", p[0]);
    assert_eq!((p[1].as_f64().unwrap(), p[2].as_f64().unwrap()), (0.0, 0.0));
    // Without V the drag follows the cursor: the grabbed point (0.6 L along
    // the arrow) ends 3 px (0.075 m) right of the corner.
    let r = run(&scene, &events(false));
    let (_, saved) = (r.trace, r.scene);
    let x = object(&saved, "box")["position"][0].as_f64().unwrap();
    assert!((x - (corner[0] + 3.0 * PX - 0.6 * L)).abs() < 1e-6, "plain drag x = {x}");
}

#[test]
fn surface_snap_puts_the_pivot_on_the_surface_under_the_cursor() {
    // A wall 0.2 m thick whose front face is the plane z = -1.9.
    let scene = ortho_scene(json!([
        { "name": "box", "mesh": "cube", "scale": [0.4, 0.4, 0.4] },
        { "name": "wall", "mesh": "cube", "position": [0, 0, -2], "scale": [6, 6, 0.2] }
    ]));
    let to = screen(1.0, 0.5);
    let s = json!({ "size": [400, 400], "select": ["box"], "events": [
        { "mouse_move": screen(0.0, 0.0) },
        { "mouse_down": "left" },
        { "mouse_move": [210, 195], "mods": ["ctrl", "shift"] },
        { "mouse_move": to, "mods": ["ctrl", "shift"] },
        { "mouse_up": "left", "mods": ["ctrl", "shift"] }
    ]});
    let r = run(&scene, &s);
    let (trace, saved) = (r.trace, r.scene);
    assert_eq!(trace[1]["active"], json!("translate.view"));
    let p = vec3(&object(&saved, "box")["position"]);
    assert!(close(p, [1.0, 0.5, -1.9], 1e-6), "onto the wall's face: {p:?}");
    // Over the background (beyond the wall) the drag is as usual: in the view plane.
    let s = json!({ "size": [400, 400], "select": ["box"], "events": [
        { "mouse_move": screen(0.0, 0.0) },
        { "mouse_down": "left" },
        { "mouse_move": screen(4.0, 4.5), "mods": ["ctrl", "shift"] },
        { "mouse_up": "left", "mods": ["ctrl", "shift"] }
    ]});
    let r = run(&scene, &s);
    let (_, saved) = (r.trace, r.scene);
    let p = vec3(&object(&saved, "box")["position"]);
    assert!((p[2]).abs() < 1e-9 && p[0] > 3.0, "background: stays in the view plane: {p:?}");
}

#[test]
fn clicks_pick_the_drawn_triangles_not_the_boxes() {
    // A torus facing the camera (its hole on the view axis), a ball behind
    // the hole, and a sphere whose box corner is empty.
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let scene = ortho_scene(json!([
        { "name": "ring", "mesh": "torus", "rotation": [h, 0, 0, h], "scale": [4, 4, 4] },
        { "name": "ball", "mesh": "sphere", "position": [0, 0, -3], "scale": [0.5, 0.5, 0.5] },
        { "name": "orb", "mesh": "sphere", "position": [3, -3, 0], "scale": [2, 2, 2] }
    ]));
    let click = |p: [f64; 2]| {
        let s = json!({ "size": [400, 400], "events": [
            { "mouse_move": p }, { "mouse_down": "left" }, { "mouse_up": "left" }
        ]});
        run(&scene, &s).trace[2]["selection"].clone()
    };
    // Through the hole: the ball behind it, not the torus in front.
    assert_eq!(click(screen(0.0, 0.0)), json!(["ball"]));
    // The hole away from the ball: nothing (the torus's box covers it).
    assert_eq!(click(screen(0.9, 0.9)), json!([]));
    // On the ring itself (major radius 2, tube 0.6 after scaling).
    assert_eq!(click(screen(2.0, 0.0)), json!(["ring"]));
    // The corner of the orb's box, outside the sphere: nothing.
    assert_eq!(click(screen(3.0 + 0.9, -3.0 + 0.9)), json!([]));
    assert_eq!(click(screen(3.0 + 0.5, -3.0 + 0.5)), json!(["orb"]));
}

#[test]
fn box_selection_takes_visible_objects_and_adds_removes_and_cancels() {
    // A and B in a row, C above, D hidden right behind A.
    let scene = ortho_scene(json!([
        { "name": "A", "mesh": "cube", "position": [-2, 0, 0], "scale": [0.4, 0.4, 0.4] },
        { "name": "B", "mesh": "sphere", "position": [2, 0, 0], "scale": [0.4, 0.4, 0.4] },
        { "name": "C", "mesh": "cone", "position": [0, 2, 0], "scale": [0.4, 0.4, 0.4] },
        { "name": "D", "mesh": "cube", "position": [-2, 0, -3], "scale": [0.2, 0.2, 0.2] }
    ]));
    let boxed = |from: [f64; 2], to: [f64; 2], mods: &[&str]| -> Vec<Value> {
        vec![
            json!({ "mouse_move": from }),
            json!({ "mouse_down": "left" }),
            json!({ "mouse_move": [(from[0] + to[0]) / 2.0, (from[1] + to[1]) / 2.0], "mods": mods }),
            json!({ "mouse_move": to, "mods": mods }),
            json!({ "mouse_up": "left", "mods": mods }),
        ]
    };
    let row = boxed(screen(-4.0, 1.5), screen(4.0, -1.5), &[]);
    let add_c = boxed(screen(-1.0, 3.0), screen(1.0, 1.5), &["shift"]);
    let drop_a = boxed(screen(-3.0, 1.0), screen(-1.0, -1.0), &["ctrl"]);
    let events: Vec<Value> = [row, add_c, drop_a].concat();
    let r = run(&scene, &json!({ "size": [400, 400], "events": events }));
    assert_eq!(r.trace[4]["selection"], json!(["A", "B"]), "the row, not the hidden D nor C");
    assert_eq!(r.trace[9]["selection"], json!(["A", "B", "C"]), "Shift adds");
    assert_eq!(r.trace[14]["selection"], json!(["B", "C"]), "Ctrl removes");

    // Esc or a right click during the drag cancels: the selection stays.
    for cancel in [json!({ "key_down": "Escape" }), json!({ "mouse_down": "right" })] {
        let mut events = boxed(screen(-4.0, 1.5), screen(4.0, -1.5), &[]);
        events.insert(4, cancel.clone());
        let r = run(&scene, &json!({ "size": [400, 400], "select": ["C"], "events": events }));
        assert_eq!(r.trace[5]["selection"], json!(["C"]), "{cancel}: cancelled");
    }
}

/// Writes a flat L-shaped glTF mesh in the z = 0 plane, facing +Z: the
/// square [0, 2] x [0, 2] without its top-right quarter (the notch).
fn write_l_gltf(dir: &std::path::Path) {
    let pts: [[f32; 3]; 6] = [[0., 0., 0.], [2., 0., 0.], [2., 1., 0.], [1., 1., 0.], [1., 2., 0.], [0., 2., 0.]];
    // A fan from the corner at the origin, which sees the whole outline.
    let idx: [u16; 12] = [0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5];
    let mut bin: Vec<u8> = pts.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
    bin.extend(idx.iter().flat_map(|i| i.to_le_bytes()));
    std::fs::write(dir.join("l.bin"), &bin).unwrap();
    let gltf = json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "uri": "l.bin", "byteLength": bin.len() }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 72 },
            { "buffer": 0, "byteOffset": 72, "byteLength": 24 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 6, "type": "VEC3",
              "min": [0, 0, 0], "max": [2, 2, 0] },
            { "bufferView": 1, "componentType": 5123, "count": 12, "type": "SCALAR" }
        ],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1 }] }],
        "nodes": [{ "mesh": 0 }],
        "scenes": [{ "nodes": [0] }],
        "scene": 0
    });
    std::fs::write(dir.join("l.gltf"), gltf.to_string()).unwrap();
}

#[test]
fn clicks_beside_a_concave_outline_select_what_is_behind_or_nothing() {
    let scene = ortho_scene(json!([
        { "name": "L", "mesh": "l.gltf" },
        { "name": "ball", "mesh": "sphere", "position": [1.6, 1.6, -2], "scale": [0.3, 0.3, 0.3] }
    ]));
    let click = |p: [f64; 2]| {
        let dir = tempfile::tempdir().unwrap();
        write_l_gltf(dir.path());
        let s = json!({ "size": [400, 400], "events": [
            { "mouse_move": p }, { "mouse_down": "left" }, { "mouse_up": "left" }
        ]});
        let out = run_raw(&scene, &s, dir.path());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let trace = std::fs::read_to_string(dir.path().join("trace.jsonl")).unwrap();
        let last: Value = serde_json::from_str(trace.lines().last().unwrap()).unwrap();
        last["selection"].clone()
    };
    // In the notch (inside the L's bounding box): the ball behind it, or
    // nothing where the ball is not.
    assert_eq!(click(screen(1.6, 1.6)), json!(["ball"]));
    assert_eq!(click(screen(1.2, 1.85)), json!([]));
    // On either arm of the L.
    assert_eq!(click(screen(0.5, 1.5)), json!(["L"]));
    assert_eq!(click(screen(1.5, 0.5)), json!(["L"]));
}

/// A headless screenshot through the binary: selecting the ball adds a thin
/// ring just outside its silhouette (a circle of known radius in the front
/// view) in the active outline's light yellow, changes nothing else, and
/// keeps the ball's own blue.
#[test]
fn the_selection_outline_rings_the_selected_object_in_a_screenshot() {
    let scene = ortho_scene(json!([
        { "name": "ball", "mesh": "sphere", "scale": [2, 2, 2], "color": [0.1, 0.3, 0.9] },
        { "name": "box", "mesh": "cube", "position": [3, -3, 0], "color": [0.2, 0.8, 0.2] }
    ]));
    let shot = |select: &[&str], depth: &str, size_px: f64| {
        let s = json!({ "size": [400, 400], "depth": depth, "select": select,
            "gizmo": { "size_px": size_px }, "events": [{ "frame": 1 }] });
        crate::support::replay::screenshot(&scene, &s, &[])
    };
    for depth in ["reversed", "standard"] {
        // A sub-pixel gizmo, so these frames differ only by the outline.
        let (plain, selected) = (shot(&[], depth, 0.001), shot(&["ball"], depth, 0.001));
        // The same selection with the gizmo drawn over it (100 px handles).
        let with_gizmo = shot(&["ball"], depth, 100.0);
        // The ball's outline on screen: radius 1 m = 40 px about (200, 200).
        let (mut ring, mut inside_kept, mut ring_under_gizmo) = (0, 0, 0);
        for y in 0..400u32 {
            for x in 0..400u32 {
                let (a, b) = (plain.pixel(x, y), selected.pixel(x, y));
                let r = ((x as f64 + 0.5 - 200.0).powi(2) + (y as f64 + 0.5 - 200.0).powi(2)).sqrt();
                if a != b {
                    assert!((39.0..=43.5).contains(&r), "{depth}: pixel ({x}, {y}) at r = {r:.1} changed");
                    assert!(b[0] > 200 && b[1] > 170 && b[2] < b[1], "{depth}: outline colour {b:?}");
                    ring += 1;
                    ring_under_gizmo += usize::from(with_gizmo.pixel(x, y) == b);
                } else if r < 38.0 {
                    inside_kept += 1;
                }
            }
        }
        // A 2 px ring around a 40 px circle has about 2 pi 41 2 = 515 pixels.
        assert!(ring > 350, "{depth}: only {ring} outline pixels");
        // The gizmo's shafts cross the ring in two places and its XY plane
        // square (translucent) over a short arc (about 10 % of the ring, as
        // seen in the screenshot); everywhere else the outline shows unchanged
        // with the overlay drawn.
        assert!(
            ring_under_gizmo * 4 > ring * 3,
            "{depth}: {ring_under_gizmo} of {ring} outline pixels left by the gizmo"
        );
        assert!(inside_kept > 4000, "{depth}: the ball's own pixels keep their colour");
        let centre = selected.pixel(200, 200);
        assert!(centre[2] > centre[0] && centre[2] > centre[1], "{depth}: the ball stays blue: {centre:?}");
    }
}
