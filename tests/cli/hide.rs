//! Hiding through the real binary (`docs/spec/organise.md`, "Hide, unhide,
//! isolate"), on the GPU and the CPU culling paths: H on selected objects
//! lists them in the trace's `hidden`, saves them with `"hidden": true`,
//! takes them out of the picture (the pixels where they were are those of
//! a run without them) and out of clicks (nothing, or what is behind, is
//! selected there). Positions come from the orthographic front view.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::support::image::read_png;
use crate::support::replay::{object, ortho_scene, screen};

/// a alone at x = -1.5; b at x = 1.5 in front of the larger c.
fn objects() -> Vec<Value> {
    vec![
        json!({ "name": "a", "mesh": "cube", "position": [-1.5, 0, 0], "color": [1, 0, 0] }),
        json!({ "name": "b", "mesh": "cube", "position": [1.5, 0, 1], "color": [0, 1, 0] }),
        json!({ "name": "c", "mesh": "cube", "position": [1.5, 0, -1], "scale": [2, 2, 2], "color": [0, 0, 1] }),
    ]
}

fn click_at(p: [f64; 2]) -> Vec<Value> {
    vec![json!({ "mouse_move": p }), json!({ "mouse_down": "left" }), json!({ "mouse_up": "left" })]
}

/// Runs the replay with `culling`; returns the trace, the saved scene and
/// the screenshot.
fn replay(
    scene: &Value,
    script: &Value,
    culling: &str,
    dir: &Path,
) -> (Vec<Value>, Value, viewport::render::RgbaImage) {
    std::fs::write(dir.join("scene.json"), scene.to_string()).unwrap();
    std::fs::write(dir.join("script.json"), script.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_viewport"))
        .arg(dir.join("scene.json"))
        .args(["--headless", "--validation", "--no-ui", "--culling", culling, "--replay"])
        .arg(dir.join("script.json"))
        .arg("--trace")
        .arg(dir.join("trace.jsonl"))
        .arg("--save-scene")
        .arg(dir.join("out.json"))
        .arg("--screenshot")
        .arg(dir.join("shot.png"))
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(out.status.success(), "viewport failed: {}", String::from_utf8_lossy(&out.stderr));
    let trace = std::fs::read_to_string(dir.join("trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let saved = serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap();
    (trace, saved, read_png(&dir.join("shot.png")))
}

fn pixel(img: &viewport::render::RgbaImage, p: [f64; 2]) -> [u8; 4] {
    img.pixel(p[0] as u32, p[1] as u32)
}

#[test]
fn h_hides_the_selection_from_the_trace_the_file_the_picture_and_clicks() {
    let (at_a, at_b) = (screen(-1.5, 0.0), screen(1.5, 0.0));
    for culling in ["gpu", "cpu"] {
        let dir = tempfile::tempdir().unwrap();
        let mut events = vec![json!({ "key_down": "H" }), json!({ "key_up": "H" })];
        // Where a was: nothing. Where b was: c, behind it. Then nothing
        // again, so that the last picture has no gizmo or outline.
        events.extend(click_at(at_a));
        events.extend(click_at(at_b));
        events.extend(click_at(at_a));
        let script = json!({ "size": [400, 400], "select": ["a", "b"], "events": events });
        let (trace, saved, shot) = replay(&ortho_scene(json!(objects())), &script, culling, dir.path());
        assert_eq!(trace[0]["hidden"], json!(["a", "b"]), "{culling}");
        assert_eq!(trace[0]["selection"], json!([]), "{culling}: hidden objects leave the selection");
        assert_eq!(trace[4]["selection"], json!([]), "{culling}: a click where a was");
        assert_eq!(trace[7]["selection"], json!(["c"]), "{culling}: a click where b was");
        assert_eq!(trace[10]["selection"], json!([]), "{culling}");
        assert_eq!(trace[10]["hidden"], json!(["a", "b"]), "{culling}");
        assert_eq!(object(&saved, "a")["hidden"], json!(true), "{culling}");
        assert_eq!(object(&saved, "b")["hidden"], json!(true), "{culling}");
        assert!(object(&saved, "c").get("hidden").is_none(), "{culling}: shown objects carry no key");

        // The same view without a and b: the pixels where they were match.
        let without = ortho_scene(json!(objects()[2..]));
        let plain = json!({ "size": [400, 400], "events": [{ "frame": 1 }] });
        let other = tempfile::tempdir().unwrap();
        let (_, _, reference) = replay(&without, &plain, culling, other.path());
        for (name, p) in [("a", at_a), ("b", at_b)] {
            let (got, want) = (pixel(&shot, p), pixel(&reference, p));
            let diff = got.iter().zip(want).map(|(g, w)| g.abs_diff(w)).max().unwrap();
            assert!(diff <= 2, "{culling}: where {name} was: {got:?}, without it {want:?}");
        }
        // Where b was, c shows (blue), where a was nothing does (not red).
        assert!(pixel(&shot, at_b)[2] > 100 && pixel(&shot, at_b)[1] < 100, "{culling}");
        assert!(pixel(&shot, at_a)[0] < 200, "{culling}");
    }
}

fn key(name: &str) -> Vec<Value> {
    vec![json!({ "key_down": name }), json!({ "key_up": name })]
}

/// Local view (NumpadDivide) with c selected: c alone is shown and framed
/// (its box centre in the middle, the view as high as F makes it), a
/// click where b stands in front of c takes c, A selects c alone, the
/// picture there is c's blue; NumpadDivide again brings back the camera
/// exactly and every object, and no `hidden` flag was ever set. The
/// saved file of a run that ends in local view holds the camera from
/// before it and no flags.
#[test]
fn local_view_shows_only_the_selection_and_gives_the_camera_back() {
    let mut objs = objects();
    objs.push(
        json!({ "name": "d", "mesh": "cube", "parent": "c", "position": [0, 1, 0], "scale": [0.25, 0.25, 0.25] }),
    );
    let scene = ortho_scene(json!(objs));
    for culling in ["gpu", "cpu"] {
        // The camera as a run without local view reports and saves it.
        let dir = tempfile::tempdir().unwrap();
        let plain = json!({ "size": [400, 400], "events": [{ "frame": 1 }] });
        let (trace, saved, _) = replay(&scene, &plain, culling, dir.path());
        let (start, start_saved) = (trace[0]["camera"].clone(), saved["camera"].clone());
        assert_eq!(start["target"], json!([0.0, 0.0, 0.0]));
        let dir = tempfile::tempdir().unwrap();
        let mut events = key("NumpadDivide");
        events.extend(click_at([200.0, 200.0]));
        events.extend(key("A"));
        let script = json!({ "size": [400, 400], "select": ["c"], "events": events });
        let (trace, saved, shot) = replay(&scene, &script, culling, dir.path());
        let cam = &trace[1]["camera"];
        assert_eq!(trace[1]["local_view"], json!(true), "{culling}");
        // c: a cube of side 2 centred at (1.5, 0, -1); its AABB's half
        // diagonal is sqrt(3), and F makes an orthographic view 2.4 radii high.
        let t: Vec<f64> = cam["target"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        for (got, want) in t.iter().zip([1.5, 0.0, -1.0]) {
            assert!((got - want).abs() < 1e-9, "{culling}: target {t:?}");
        }
        let h = cam["height"].as_f64().unwrap();
        assert!((h - 2.4 * 3f64.sqrt()).abs() < 1e-9, "{culling}: height {h}");
        // The click at the centre, where b stands in front of c.
        assert_eq!(trace[4]["selection"], json!(["c"]), "{culling}");
        // A: the shown objects only (c and its child d).
        let mut all: Vec<String> =
            trace[6]["selection"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        all.sort();
        assert_eq!(all, ["c", "d"], "{culling}");
        assert!(trace.iter().all(|l| l["hidden"] == json!([])), "{culling}: no flag set");
        // c's blue at the centre, not b's green.
        let p = pixel(&shot, [200.0, 200.0]);
        assert!(p[2] > 100 && p[1] < 100, "{culling}: {p:?} at the centre");
        assert_eq!(saved["camera"], start_saved, "{culling}: local view's camera is not saved");
        assert!(saved["objects"].as_array().unwrap().iter().all(|o| o.get("hidden").is_none()));

        // In and out: the camera exactly as before, everything back.
        let dir = tempfile::tempdir().unwrap();
        let mut events = key("NumpadDivide");
        events.extend(key("NumpadDivide"));
        events.extend(click_at([200.0, 200.0]));
        events.extend(click_at(screen(1.5, 0.0)));
        events.extend(key("A"));
        let script = json!({ "size": [400, 400], "select": ["c"], "events": events });
        let (trace, saved, _) = replay(&scene, &script, culling, dir.path());
        assert_ne!(trace[1]["camera"], start, "{culling}: framed");
        assert!(trace[3].get("local_view").is_none(), "{culling}");
        assert_eq!(trace[3]["camera"], start, "{culling}");
        assert_eq!(trace[9]["selection"], json!(["b"]), "{culling}: b is in front of c again");
        assert_eq!(trace[11]["selection"].as_array().unwrap().len(), 4, "{culling}");
        assert_eq!(saved["camera"], start_saved, "{culling}");
    }
}

/// Runs `viewport FILE` headless over one frame with `extra` events first;
/// returns the trace's last line and the saved scene.
fn open_and_save(dir: &Path, file: &Path, events: Value) -> (Value, Value) {
    let script = dir.join("open.json");
    std::fs::write(&script, json!({ "events": events }).to_string()).unwrap();
    let (trace, saved) = (dir.join("open.jsonl"), dir.join("opened.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_viewport"))
        .arg(file)
        .args(["--headless", "--no-ui", "--validation", "--replay"])
        .arg(&script)
        .arg("--trace")
        .arg(&trace)
        .arg("--save-scene")
        .arg(&saved)
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let last = std::fs::read_to_string(&trace).unwrap().lines().last().map(|l| serde_json::from_str(l).unwrap());
    (last.unwrap(), serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap())
}

/// Exports `scene` (a file) to `out` (.gltf) headless.
fn export_to(scene: &Path, out: &Path) {
    let run = Command::new(env!("CARGO_BIN_EXE_viewport"))
        .arg(scene)
        .args(["--headless", "--no-ui", "--export"])
        .arg(out)
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
}

/// The node extras of an exported `.gltf`, by node name.
fn node_extras(gltf: &Path) -> std::collections::BTreeMap<String, Value> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(gltf).unwrap()).unwrap();
    let nodes = doc["nodes"].as_array().unwrap();
    nodes
        .iter()
        .map(|n| (n["name"].as_str().unwrap().to_string(), n.get("extras").cloned().unwrap_or(Value::Null)))
        .collect()
}

/// `docs/spec/roundtrip.md`: a hidden object is exported with
/// `"extras": {"hidden": true}` and comes back hidden, opened or imported,
/// with its own extras as they were (the key is not copied into them); a
/// second export writes the same hidden set.
#[test]
fn hidden_objects_stay_hidden_through_export_open_import_and_save() {
    let dir = tempfile::tempdir().unwrap();
    let scene = json!({ "objects": [
        { "name": "a", "mesh": "cube", "hidden": true, "extras": { "tag": 7 } },
        { "name": "b", "mesh": "cube", "position": [2, 0, 0], "hidden": true },
        { "name": "c", "mesh": "cube", "position": [4, 0, 0], "extras": { "tag": 8 } }
    ]});
    let scene_path = dir.path().join("level.json");
    std::fs::write(&scene_path, scene.to_string()).unwrap();
    let gltf = dir.path().join("level.gltf");
    export_to(&scene_path, &gltf);
    let extras = node_extras(&gltf);
    assert_eq!(extras["a"], json!({ "tag": 7, "hidden": true }));
    assert_eq!(extras["b"], json!({ "hidden": true }));
    assert_eq!(extras["c"], json!({ "tag": 8 }));

    // Opened: a and b hidden, their extras without the key.
    let (line, saved) = open_and_save(dir.path(), &gltf, json!([{ "frame": 1 }]));
    assert_eq!(line["hidden"], json!(["a", "b"]));
    assert_eq!(object(&saved, "a")["hidden"], json!(true));
    assert_eq!(object(&saved, "a")["extras"], json!({ "tag": 7 }));
    assert_eq!(object(&saved, "b")["hidden"], json!(true));
    assert!(object(&saved, "b").get("extras").is_none(), "{saved}");
    assert!(object(&saved, "c").get("hidden").is_none());
    assert_eq!(object(&saved, "c")["extras"], json!({ "tag": 8 }));

    // Saved and exported again: the same hidden set, the same extras.
    let again = dir.path().join("again.gltf");
    export_to(&dir.path().join("opened.json"), &again);
    assert_eq!(node_extras(&again), extras);

    // Imported into another scene: the imported a and b hidden too.
    let host = dir.path().join("host.json");
    std::fs::write(&host, json!({ "objects": [{ "name": "ground", "mesh": "plane" }] }).to_string()).unwrap();
    let (line, _) = open_and_save(dir.path(), &host, json!([{ "mouse_move": [640, 360] }, { "import": "level.gltf" }]));
    assert_eq!(line["hidden"], json!(["a", "b"]));
    assert_eq!(line["count"], json!(4));
}
