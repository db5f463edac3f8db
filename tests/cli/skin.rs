//! Skins through the real binary: a glTF with a two-bone strip
//! (`support::skinned`) opened directly, its `tip` joint dragged with the
//! translate gizmo by a replay script; the screenshot and clicks show the
//! strip's upper part where the test computes it, the saved scene keeps the
//! skin and opens to the same picture, and bad skin references in a scene
//! file are one line and exit 2.

use crate::support::cli::{assert_bad_input, viewport_cli, write_file};
use crate::support::image::read_png;
use crate::support::replay::{object, vec3};
use crate::support::skinned::{write_skinned_strip, TIP_AT};
use serde_json::{json, Value};
use std::path::Path;

/// Metres per pixel of the script's front view (4 m over 400 px).
const PX: f64 = 0.01;

/// World (x, y) on z = 0 -> pixel of the 400x400 front view centred on (0, 1).
fn screen(x: f64, y: f64) -> [f64; 2] {
    [200.0 + x / PX, 200.0 - (y - 1.0) / PX]
}

fn click(at: [f64; 2]) -> [Value; 3] {
    [json!({ "mouse_move": at }), json!({ "mouse_down": "left" }), json!({ "mouse_up": "left" })]
}

#[test]
fn a_dragged_joint_moves_the_skin_and_the_saved_scene_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let gltf = write_skinned_strip(dir.path(), "strip");
    let d = 1.0; // the drag's distance in metres (100 px)
    let grab = screen(TIP_AT[0] + 0.6, TIP_AT[1]);
    let to = [grab[0] + d / PX, grab[1]];
    // A point of the upper part (rows at y = 1.2 and 2, on the tip) before
    // and after the tip moves by d along x; the stretched part between
    // y = 1 and 1.2 stays below y = 1.2. An eighth of a metre left of the
    // strip's centre line, so that neither lies on a line of the grid that
    // this front view draws in the plane z = 0 (x = 0 is its green Y axis).
    let (old, new) = (screen(-0.125, 1.6), screen(d - 0.125, 1.6));
    let background = [30.0, 30.0];
    let mut events = vec![
        json!({ "mouse_move": grab }),
        json!({ "mouse_down": "left" }),
        json!({ "mouse_move": [(grab[0] + to[0]) / 2.0, grab[1]] }),
        json!({ "mouse_move": to }),
        json!({ "mouse_up": "left" }),
    ];
    for at in [background, new, background, old] {
        events.extend(click(at));
    }
    let script = json!({
        "size": [400, 400],
        "camera": { "eye": [0, 1, 10], "target": [0, 1, 0], "projection": "orthographic", "height": 4 },
        "select": ["tip"],
        "gizmo": { "mode": "translate", "space": "world", "size_px": 100 },
        "events": events,
    });
    let script_path = write_file(dir.path(), "script.json", &script.to_string());
    let (trace, png, saved) =
        (dir.path().join("trace.jsonl"), dir.path().join("shot.png"), dir.path().join("strip.saved.json"));
    let out = viewport_cli(&[
        gltf.to_str().unwrap(),
        "--headless",
        "--validation",
        "--no-ui",
        // GPU culling by name (auto is CPU culling on lavapipe): posed skins
        // take the CPU path frame by frame, the GPU copy catching up.
        "--culling",
        "gpu",
        "--replay",
        &script_path,
        "--trace",
        trace.to_str().unwrap(),
        "--screenshot",
        png.to_str().unwrap(),
        "--save-scene",
        saved.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace: Vec<Value> =
        std::fs::read_to_string(&trace).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(trace[1]["active"], json!("translate.x"), "the drag grabbed the x arrow");
    // Clicks: the moved part picks the strip, its old place nothing.
    let selection = |event: usize| trace[event]["selection"].clone();
    assert_eq!(selection(7), json!([]));
    assert_eq!(selection(10), json!(["strip"]), "a click on the moved part");
    assert_eq!(selection(13), json!([]));
    assert_eq!(selection(16), json!([]), "a click where the part was");
    // Drawn: white where the part went, background where it was.
    let image = read_png(&png);
    let px = |p: [f64; 2]| image.pixel(p[0] as u32, p[1] as u32);
    assert!(px(new).iter().take(3).all(|&c| c > 150), "moved part: {:?}", px(new));
    assert!(px(old).iter().take(3).all(|&c| c < 100), "old place: {:?}", px(old));

    // Saved: the skin with its joints, the tip where it was dragged.
    let scene: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(object(&scene, "strip")["skin"], json!({"index": 0, "joints": ["root", "tip"]}));
    let tip = vec3(&object(&scene, "tip")["position"]);
    assert!((tip[0] - (TIP_AT[0] + d)).abs() < 1e-6 && (tip[1] - TIP_AT[1]).abs() < 1e-6, "{tip:?}");
    // Opening the saved scene gives the same picture.
    let again = dir.path().join("again.png");
    let out = viewport_cli(&[
        saved.to_str().unwrap(),
        "--headless",
        "--validation",
        "--no-ui",
        // GPU culling by name (auto is CPU culling on lavapipe): posed skins
        // take the CPU path frame by frame, the GPU copy catching up.
        "--culling",
        "gpu",
        "--size",
        "400x400",
        "--screenshot",
        again.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let again = read_png(&again);
    let differing = image.data.iter().zip(&again.data).filter(|(a, b)| a != b).count();
    assert_eq!(differing, 0, "the reopened scene draws the same picture");
}

/// A scene file with the strip and its joints, `skin` as given.
fn scene_with_skin(dir: &Path, mesh: &str, skin: Value) -> String {
    let scene = json!({ "objects": [
        { "name": "strip", "mesh": mesh, "skin": skin },
        { "name": "root", "mesh": null },
        { "name": "tip", "mesh": null, "parent": "root", "position": TIP_AT },
    ]});
    write_file(dir, "scene.json", &scene.to_string())
}

#[test]
fn bad_skin_references_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    write_skinned_strip(dir.path(), "strip");
    let png = dir.path().join("out.png");
    let run = |mesh: &str, skin: Value| {
        let scene = scene_with_skin(dir.path(), mesh, skin);
        viewport_cli(&[&scene, "--headless", "--screenshot", png.to_str().unwrap()])
    };
    let good = run("strip.gltf#0", json!({"index": 0, "joints": ["root", "tip"]}));
    assert!(good.status.success(), "{}", String::from_utf8_lossy(&good.stderr));
    std::fs::remove_file(&png).unwrap();
    assert_bad_input(&run("strip.gltf#0", json!({"index": 0, "joints": ["root", "nope"]})), "unknown joint \"nope\"");
    assert_bad_input(&run("strip.gltf#0", json!({"index": 3, "joints": ["root", "tip"]})), "no skin 3");
    assert_bad_input(&run("strip.gltf#0", json!({"index": 0, "joints": ["root"]})), "skin 0 has 2 joints");
    assert_bad_input(&run("cube", json!({"index": 0, "joints": ["root", "tip"]})), "a skin needs a glTF mesh");
    assert_bad_input(&run("strip.gltf#0", json!({"index": 0, "joints": ["root", "tip"], "bones": 2})), "bones");
    assert!(!png.exists(), "nothing written");
}

/// `docs/spec/roundtrip.md`, "Every saved file reopens": deleting a joint
/// object hands its influence to its nearest remaining ancestor joint, so
/// the saved skin names only objects that exist and the file reopens, with
/// the strip drawn whole where it was; undo brings the joint back.
#[test]
fn deleting_a_joint_saves_a_skin_that_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let gltf = write_skinned_strip(dir.path(), "strip");
    let camera = json!({ "eye": [0, 1, 10], "target": [0, 1, 0], "projection": "orthographic", "height": 4 });
    let run = |events: Value, saved: &Path, shot: &Path| {
        let script = json!({"size": [400, 400], "camera": camera, "select": ["tip"], "events": events});
        let script = write_file(dir.path(), "script.json", &script.to_string());
        let args = [gltf.to_str().unwrap(), "--headless", "--validation", "--no-ui", "--replay", &script];
        let extra = ["--save-scene", saved.to_str().unwrap(), "--screenshot", shot.to_str().unwrap()];
        let out = viewport_cli(&[&args[..], &extra[..]].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(saved).unwrap()).unwrap();
        let strip = v["objects"].as_array().unwrap().iter().find(|o| o["name"] == "strip").unwrap().clone();
        strip["skin"]["joints"].clone()
    };
    let (deleted, deleted_png) = (dir.path().join("deleted.json"), dir.path().join("deleted.png"));
    assert_eq!(run(json!([{"key_down": "Delete"}]), &deleted, &deleted_png), json!(["root", "root"]));
    let undone = dir.path().join("undone.json");
    let undo = json!([{"key_down": "Delete"}, {"key_down": "Z", "mods": ["ctrl"]}]);
    assert_eq!(run(undo, &undone, &dir.path().join("undone.png")), json!(["root", "tip"]));

    // The saved scene opens, and shows the strip as it was drawn after the delete.
    let again = dir.path().join("again.png");
    let script =
        write_file(dir.path(), "cam.json", &json!({"size": [400, 400], "camera": camera, "events": []}).to_string());
    let out = viewport_cli(&[
        deleted.to_str().unwrap(),
        "--headless",
        "--validation",
        "--no-ui",
        "--replay",
        &script,
        "--screenshot",
        again.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (a, b) = (read_png(&deleted_png), read_png(&again));
    let diff = a.data.iter().zip(&b.data).map(|(x, y)| x.abs_diff(*y)).max().unwrap();
    assert!(diff <= 2, "the reopened scene differs by {diff} levels");
    // The upper part (bound to the deleted tip) is still drawn: a strip
    // pixel at y = 1.6.
    let p = b.pixel(200 - 12, (200.0 - 0.6 / PX) as u32);
    let bg = b.pixel(30, 30);
    assert!(p.iter().zip(bg).any(|(x, y)| x.abs_diff(y) > 24), "no strip at y = 1.6: {p:?} vs {bg:?}");
}
