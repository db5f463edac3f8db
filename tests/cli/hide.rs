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
