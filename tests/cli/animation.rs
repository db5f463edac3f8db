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

/// Morph weights through the binary, on `support::morphed`'s quads: clicks
/// at points the test computes hit the quad `lin` exactly when its weights
/// there (interpolated here from the file's keys) have grown or widened it
/// past them, so picking follows the posed vertices; the screenshot shows
/// the widened quad; an edit returns to the rest weights; the saved file is
/// the one saved without playback, and playback adds no undo step.
mod morph {
    use crate::support::cli::viewport_cli;
    use crate::support::image::read_png;
    use crate::support::morphed::{write_morph_quads, LIN_KEYS, LIN_TIMES};
    use serde_json::{json, Value};

    /// Metres per pixel of the 400 x 400 front view, 4 m high, centred on (0, 1).
    const PX: f64 = 0.01;

    fn screen(x: f64, y: f64) -> [f64; 2] {
        [200.0 + x / PX, 200.0 - (y - 1.0) / PX]
    }

    /// `lin`'s weights at `t` (LINEAR between the keys).
    fn lin_weights(t: f64) -> [f64; 2] {
        let k = (0..LIN_TIMES.len() - 1).find(|&k| t < f64::from(LIN_TIMES[k + 1])).unwrap_or(LIN_TIMES.len() - 2);
        let (t0, t1) = (f64::from(LIN_TIMES[k]), f64::from(LIN_TIMES[k + 1]));
        let u = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
        let (a, b) = (LIN_KEYS[k].map(f64::from), LIN_KEYS[k + 1].map(f64::from));
        [a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u]
    }

    /// Points on eighths of a metre (off the grid's lines): `A` above the
    /// rest quad (y = 1.625, inside once the top, 1 + w0, is above it), `B`
    /// right of it (x = 0.875, inside once the right edge, 0.5 + w1, is
    /// past it), `OUT` beyond the widest quad of the times used.
    const A: [f64; 2] = [-0.375, 1.625];
    const B: [f64; 2] = [0.875, 0.625];
    const OUT: [f64; 2] = [1.375, 0.625];
    const BACKGROUND: [f64; 2] = [-1.625, -0.375];

    fn inside(p: [f64; 2], w: [f64; 2]) -> bool {
        p[0] > -0.5 && p[0] < 0.5 + w[1] && p[1] > 0.0 && p[1] < 1.0 + w[0]
    }

    /// Events clicking the background, then `p`; returns the index of the
    /// trace line after the click on `p`.
    fn click(events: &mut Vec<Value>, p: [f64; 2]) -> usize {
        for q in [BACKGROUND, p] {
            events.push(json!({"mouse_move": screen(q[0], q[1])}));
            events.push(json!({"mouse_down": "left"}));
            events.push(json!({"mouse_up": "left"}));
        }
        events.len() - 1
    }

    /// Runs the quads file with `events`; the trace, the saved scene, the
    /// screenshot's path.
    fn run(dir: &std::path::Path, events: Vec<Value>) -> (Vec<Value>, String, std::path::PathBuf) {
        let file = write_morph_quads(dir, "quads");
        let script = json!({
            "size": [400, 400],
            "camera": {"eye": [0, 1, 10], "target": [0, 1, 0], "projection": "orthographic", "height": 4},
            "events": events,
        });
        let s = dir.join("s.json");
        std::fs::write(&s, script.to_string()).unwrap();
        let (t, saved, png) = (dir.join("t.jsonl"), dir.join("saved.json"), dir.join("shot.png"));
        let out = viewport_cli(&[
            file.to_str().unwrap(),
            "--headless",
            "--validation",
            "--no-ui",
            "--replay",
            s.to_str().unwrap(),
            "--trace",
            t.to_str().unwrap(),
            "--save-scene",
            saved.to_str().unwrap(),
            "--screenshot",
            png.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let trace =
            std::fs::read_to_string(&t).unwrap_or_default().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (trace, std::fs::read_to_string(&saved).unwrap(), png)
    }

    #[test]
    fn morph_weights_play_pick_and_draw_as_the_keys_say_and_are_never_saved() {
        let dir = tempfile::tempdir().unwrap();
        let mut events = Vec::new();
        let mut checks: Vec<(usize, [f64; 2], [f64; 2])> = Vec::new();
        for t in [0.25, 0.75, 1.75] {
            events.push(json!({"animation": {"clip": "Morph", "time": t}}));
            for p in [A, B, OUT] {
                let line = click(&mut events, p);
                checks.push((line, p, lin_weights(t)));
            }
        }
        // Played: from 0.25 s, 30 frames are half a second.
        events.push(json!({"animation": {"clip": "Morph", "time": 0.25, "play": true}}));
        events.push(json!({"frame": 30}));
        let line = click(&mut events, A);
        checks.push((line, A, lin_weights(0.75)));
        // `lin` is selected (A hit it); an edit (Ctrl+D) returns to the
        // rest weights and stops playback.
        for k in [json!({"key_down": "D", "mods": ["ctrl"]}), json!({"key_up": "D", "mods": ["ctrl"]})] {
            events.push(k);
        }
        let edited = events.len() - 1;
        let line = click(&mut events, A);
        checks.push((line, A, [0.0, 0.0]));
        // Undo twice: the duplicate goes, then nothing is left to undo.
        for _ in 0..2 {
            events.push(json!({"key_down": "Z", "mods": ["ctrl"]}));
            events.push(json!({"key_up": "Z", "mods": ["ctrl"]}));
        }
        let undone = events.len() - 1;
        // Shown at the end: the screenshot holds the widened quad.
        events.push(json!({"animation": {"clip": "Morph", "time": 1.75}}));
        let (trace, saved, png) = run(dir.path(), events);

        for (line, p, w) in checks {
            let want = if inside(p, w) { json!(["lin"]) } else { json!([]) };
            assert_eq!(trace[line]["selection"], want, "click at {p:?} with weights {w:?} (trace line {line})");
        }
        assert!(trace[edited]["animation"].is_null(), "the edit stopped playback");
        let names: Vec<&String> = trace[undone]["objects"].as_object().map(|o| o.keys().collect()).unwrap_or_default();
        assert!(!names.iter().any(|n| n.contains(".001")), "the duplicate was undone: {names:?}");
        assert!(!trace[undone - 1]["objects"].as_object().is_some_and(|o| o.keys().any(|n| n.contains(".001"))));

        // Drawn at 1.75 s (weights 1, 0.75): B is on the quad, OUT is not.
        let image = read_png(&png);
        let px = |p: [f64; 2]| {
            let s = screen(p[0], p[1]);
            image.pixel(s[0] as u32, s[1] as u32)
        };
        assert!(inside(B, lin_weights(1.75)) && !inside(OUT, lin_weights(1.75)));
        assert!(px(B).iter().take(3).all(|&c| c > 100), "on the widened quad: {:?}", px(B));
        assert!(px(OUT).iter().take(3).all(|&c| c < 100), "beyond it: {:?}", px(OUT));

        // The saved file is what a run without playback saves.
        let quiet = tempfile::tempdir().unwrap();
        let (_, saved_quiet, _) = run(quiet.path(), Vec::new());
        let norm = |s: &str, d: &std::path::Path| s.replace(d.to_str().unwrap(), "DIR");
        let (a, b): (Value, Value) = (
            serde_json::from_str(&norm(&saved, dir.path())).unwrap(),
            serde_json::from_str(&norm(&saved_quiet, quiet.path())).unwrap(),
        );
        assert_eq!(a["objects"], b["objects"], "playback changed the saved objects");
        assert!(a.to_string().contains("quads.gltf#0"), "{a}");
        assert!(!a.to_string().contains("weights"), "no weights saved: {a}");
    }
}
