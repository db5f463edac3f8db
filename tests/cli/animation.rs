//! glTF animation through the binary on a file the test writes
//! (`docs/spec/materials.md`, "Animation"): a node translated LINEAR, a
//! rotation with STEP, a translation with CUBICSPLINE. The poses at given
//! times equal what the test computes from its own keys; playing advances
//! 1/60 s per frame; the saved scene holds the file's rest pose; an edit
//! returns to the rest pose and stops playback; playback adds no undo step
//! (undoing the edit, then once more, changes nothing else).

use crate::support::cli::viewport_cli;
use serde_json::{json, Value};

/// Little-endian f32 bytes.
fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const TURN: [f32; 4] = [0.0, std::f32::consts::FRAC_1_SQRT_2, 0.0, std::f32::consts::FRAC_1_SQRT_2];
/// CUBICSPLINE keys at 0 and 2 s: (in tangent, value, out tangent) each.
const CUBIC: [[f32; 3]; 6] = [[0.0; 3], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0; 3]];

/// Three empty nodes and one clip "Moves" animating them; written as a
/// `.gltf` with its buffer as a data URI.
fn animated_gltf(dir: &std::path::Path) -> String {
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut add = |data: Vec<u8>, count: usize, ty: &str, minmax: Option<(f32, f32)>| {
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": data.len()}));
        bin.extend(data);
        let mut a = json!({"bufferView": views.len() - 1, "componentType": 5126, "count": count, "type": ty});
        if let Some((lo, hi)) = minmax {
            a["min"] = json!([lo]);
            a["max"] = json!([hi]);
        }
        accessors.push(a);
        accessors.len() - 1
    };
    let t01 = add(bytes(&[0.0, 1.0]), 2, "SCALAR", Some((0.0, 1.0)));
    let lin = add(bytes(&[0.0, 0.0, 0.0, 2.0, 0.0, 0.0]), 2, "VEC3", None);
    let step = add(bytes(&[[0.0, 0.0, 0.0, 1.0], TURN].concat()), 2, "VEC4", None);
    let t02 = add(bytes(&[0.0, 2.0]), 2, "SCALAR", Some((0.0, 2.0)));
    let cubic = add(bytes(&CUBIC.concat()), 6, "VEC3", None);
    let uri = format!("data:application/octet-stream;base64,{}", base64_encode(&bin));
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [{"name": "mover"}, {"name": "stepper"}, {"name": "cubic"}],
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": views,
        "accessors": accessors,
        "animations": [{
            "name": "Moves",
            "samplers": [
                {"input": t01, "output": lin, "interpolation": "LINEAR"},
                {"input": t01, "output": step, "interpolation": "STEP"},
                {"input": t02, "output": cubic, "interpolation": "CUBICSPLINE"}
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 2, "target": {"node": 2, "path": "translation"}}
            ]
        }]
    });
    let path = dir.join("moves.gltf");
    std::fs::write(&path, doc.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

fn base64_encode(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(T[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The expected poses at clip time `t`, worked out here from the keys.
fn mover_at(t: f64) -> f64 {
    2.0 * t.clamp(0.0, 1.0)
}

fn stepper_turned_at(t: f64) -> bool {
    t >= 1.0
}

/// The cubic Hermite of the CUBICSPLINE keys (interval 2 s; tangents
/// scaled by it), at time `t` in [0, 2].
fn cubic_at(t: f64) -> [f64; 3] {
    let (dt, s) = (2.0, t / 2.0);
    let (h00, h10, h01, h11) = (
        2.0 * s.powi(3) - 3.0 * s * s + 1.0,
        s.powi(3) - 2.0 * s * s + s,
        -2.0 * s.powi(3) + 3.0 * s * s,
        s.powi(3) - s * s,
    );
    let (v0, m0, m1, v1) = (CUBIC[1], CUBIC[2], CUBIC[3], CUBIC[4]);
    std::array::from_fn(|k| {
        h00 * f64::from(v0[k]) + h10 * dt * f64::from(m0[k]) + h01 * f64::from(v1[k]) + h11 * dt * f64::from(m1[k])
    })
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn run(events: Value) -> (std::process::Output, Vec<Value>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let file = animated_gltf(dir.path());
    let script = json!({"select": ["mover", "stepper", "cubic"], "events": events});
    let s = dir.path().join("s.json");
    std::fs::write(&s, script.to_string()).unwrap();
    let (t, saved) = (dir.path().join("t.jsonl"), dir.path().join("saved.json"));
    let args = [
        file.as_str(),
        "--headless",
        "--size",
        "64x64",
        "--replay",
        s.to_str().unwrap(),
        "--trace",
        t.to_str().unwrap(),
        "--save-scene",
        saved.to_str().unwrap(),
    ];
    let out = viewport_cli(&args);
    let trace =
        std::fs::read_to_string(&t).unwrap_or_default().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let saved = std::fs::read_to_string(&saved).map(|s| serde_json::from_str(&s).unwrap()).unwrap_or(Value::Null);
    (out, trace, saved)
}

/// Checks a trace line's three objects against the poses at time `t`.
fn check_pose(line: &Value, t: f64) {
    let o = &line["objects"];
    let x = num(&o["mover"]["position"][0]);
    assert!((x - mover_at(t)).abs() < 1e-6, "mover at {t}: {x}, expected {}", mover_at(t));
    let q: Vec<f64> = o["stepper"]["rotation"].as_array().unwrap().iter().map(num).collect();
    let turned = (q[1] - f64::from(TURN[1])).abs() < 1e-6 && (q[3] - f64::from(TURN[3])).abs() < 1e-6;
    let rest = q[1].abs() < 1e-9 && (q[3] - 1.0).abs() < 1e-9;
    assert!(if stepper_turned_at(t) { turned } else { rest }, "stepper at {t}: {q:?}");
    let p: Vec<f64> = o["cubic"]["position"].as_array().unwrap().iter().map(num).collect();
    let want = cubic_at(t);
    assert!((0..3).all(|k| (p[k] - want[k]).abs() < 1e-5), "cubic at {t}: {p:?}, expected {want:?}");
}

#[test]
fn linear_step_and_cubic_spline_channels_pose_as_the_keys_say() {
    let (out, trace, saved) = run(json!([
        {"animation": {"clip": "Moves", "time": 0.25}},
        {"animation": {"clip": "Moves", "time": 0.99}},
        {"animation": {"clip": "Moves", "time": 1.0}},
        {"animation": {"clip": "Moves", "time": 1.5}},
        {"animation": {"clip": 0, "time": 0.5, "play": true}},
        {"frame": 30},
    ]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for (line, t) in trace.iter().zip([0.25, 0.99, 1.0, 1.5, 0.5, 1.0]) {
        assert!((num(&line["animation"]["time"]) - t).abs() < 1e-9, "{}", line["animation"]);
        check_pose(line, t);
    }
    // Saved while a pose is shown: the file's rest pose (no translation,
    // no rotation) is what the scene holds.
    for o in saved["objects"].as_array().unwrap() {
        let p: Vec<f64> = o["position"].as_array().map_or(vec![0.0; 3], |a| a.iter().map(num).collect());
        assert!(p.iter().all(|v| v.abs() < 1e-12), "{} saved at {p:?}", o["name"]);
        if let Some(r) = o["rotation"].as_array() {
            assert!((num(&r[3]) - 1.0).abs() < 1e-12, "{} saved turned", o["name"]);
        }
    }
}

#[test]
fn playback_is_no_undo_step_and_an_edit_returns_to_the_rest_pose() {
    let key = |k: &str| [json!({"key_down": k, "mods": ["ctrl"]}), json!({"key_up": k, "mods": ["ctrl"]})];
    let mut events = vec![json!({"animation": {"clip": "Moves", "time": 0.25, "play": true}}), json!({"frame": 6})];
    // An edit while playing (Ctrl+D duplicates the selection): back to the
    // rest pose first, playback stopped.
    events.extend(key("D"));
    events.push(json!({"frame": 6}));
    // Undo twice: the duplicate goes; then there is nothing left to undo
    // (playback added no step), so nothing moves.
    events.extend(key("Z"));
    events.extend(key("Z"));
    let (out, trace, _) = run(json!(events));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    check_pose(&trace[1], 0.35);
    let duplicated = &trace[3];
    assert!(duplicated["animation"].is_null(), "the edit stopped playback: {}", duplicated["animation"]);
    assert!(trace[4]["animation"].is_null(), "frames do not play it again");
    let at_rest = |line: &Value| {
        let objects = line["objects"].as_object().unwrap();
        assert_eq!(objects.len(), 3, "{objects:?}");
        for (name, o) in objects {
            let p: Vec<f64> = o["position"].as_array().unwrap().iter().map(num).collect();
            assert!(p.iter().all(|v| v.abs() < 1e-12), "{name} at {p:?}, not the rest pose");
        }
    };
    // The copies (selected after Ctrl+D) were made of the rest pose.
    at_rest(&trace[4]);
    // After both undos the originals are selected again, still at rest.
    let last = trace.last().unwrap();
    at_rest(last);
    let names: Vec<&String> = last["objects"].as_object().unwrap().keys().collect();
    assert!(names.iter().all(|n| ["mover", "stepper", "cubic"].contains(&n.as_str())), "{names:?}");
}
