//! Files made elsewhere, opened by the real binary: every glTF model in
//! `../shared/real-assets` and every file of the Khronos glTF-Validator's
//! test suite in `../shared/gltf-validator-suite` (`docs/spec/assets.md`).
//!
//! Those folders lie beside the clone in CI and are not part of the project,
//! so this is not in `make test` (`test = false` in Cargo.toml): `.ci/run`
//! runs it after the suite as `make check-assets`, and it fails when a folder
//! is missing rather than passing without having looked. The screenshots and
//! saved scenes of the real models stay under
//! `target/tmp/assets-check/` for a person to look at.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::image::read_png;

/// Geometry extensions the viewport cannot read; a file that needs one may
/// be refused, and the message must name it (`docs/spec/assets.md`). None
/// now: Draco, meshopt and quantized geometry are all read, so every file
/// the validator passes must open.
const UNREADABLE: [&str; 0] = [];

/// A shared folder beside the clone; its absence fails the test.
fn shared(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("shared").join(name);
    assert!(dir.is_dir(), "{} is missing: CI keeps ../shared beside the clone", dir.display());
    dir
}

/// Every `.gltf` / `.glb` file under `dir`, sorted.
fn gltf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "gltf" || e == "glb") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Runs the binary headless in `dir`; a run past 60 s is killed and
/// reported as a hang (`None`).
fn run(dir: &Path, args: &[&str]) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_viewport"))
        .args(args)
        .current_dir(dir)
        .env_remove("DISPLAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Some(child.wait_with_output().unwrap())
}

/// The stderr lines other than the adapter line every GPU run prints.
fn message_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("viewport: using "))
        .map(str::to_string)
        .collect()
}

/// Runs `check` on every item with two workers (the machine has two cores)
/// and gathers the problems it reports.
fn in_parallel<T: Sync>(items: &[T], check: impl Fn(&T) -> Vec<String> + Sync) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let problems = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let found = check(item);
                problems.lock().unwrap().extend(found);
            });
        }
    });
    let mut problems = problems.into_inner().unwrap();
    problems.sort();
    problems
}

/// The share of a screenshot's pixels that differ clearly from its corner
/// pixel (the background): how much of the picture the model covers.
fn drawn_share(shot: &Path) -> f64 {
    let img = read_png(shot);
    let background = img.pixel(0, 0);
    let drawn = (0..img.height)
        .flat_map(|y| (0..img.width).map(move |x| (x, y)))
        .filter(|&(x, y)| img.pixel(x, y).iter().zip(background).any(|(a, b)| a.abs_diff(b) > 24))
        .count();
    drawn as f64 / f64::from(img.width * img.height)
}

#[test]
fn every_real_model_opens_with_validation_saves_and_renders() {
    let root = shared("real-assets");
    let files = gltf_files(&root);
    assert!(files.len() >= 13, "expected the 13 real models, found {}", files.len());
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("assets-check");
    std::fs::create_dir_all(&out_dir).unwrap();
    let problems = in_parallel(&files, |file| {
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy().replace('/', "_");
        let shot = out_dir.join(format!("{rel}.png"));
        let saved = out_dir.join(format!("{rel}.scene.json"));
        let (shot_s, saved_s) = (shot.to_str().unwrap(), saved.to_str().unwrap());
        let f = file.to_str().unwrap();
        let args = [
            f,
            "--headless",
            "--no-ui",
            "--validation",
            "--size",
            "480x360",
            "--screenshot",
            shot_s,
            "--save-scene",
            saved_s,
        ];
        let Some(out) = run(&out_dir, &args) else { return vec![format!("{rel}: hangs")] };
        if !out.status.success() {
            return vec![format!("{rel}: exit {:?}: {:?}", out.status.code(), message_lines(&out))];
        }
        let mut problems = Vec::new();
        // Framed and drawn: a good share of the picture is not background.
        let share = drawn_share(&shot);
        if share < 0.02 {
            problems.push(format!("{rel}: the model covers only {:.1} % of the screenshot", share * 100.0));
        }
        // The first shot is in the material mode (the default) with
        // reversed depth; the solid mode with standard depth must draw
        // without a validation error too, and show the model.
        let solid = out_dir.join(format!("{rel}.solid.png"));
        let lighting = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/lighting-solid.json");
        let args = [
            f,
            "--headless",
            "--no-ui",
            "--validation",
            "--depth",
            "standard",
            "--lighting",
            lighting.to_str().unwrap(),
            "--size",
            "480x360",
            "--screenshot",
            solid.to_str().unwrap(),
        ];
        match run(&out_dir, &args) {
            Some(o) if o.status.success() => {
                if drawn_share(&solid) < 0.02 {
                    problems.push(format!("{rel}: the solid-mode shot shows almost nothing"));
                }
            }
            Some(o) => problems.push(format!(
                "{rel}: solid mode, standard depth: exit {:?}: {:?}",
                o.status.code(),
                message_lines(&o)
            )),
            None => problems.push(format!("{rel}: solid mode, standard depth: hangs")),
        }
        // The saved scene opens again, with the same objects.
        let scene: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
        let objects = scene["objects"].as_array().map_or(0, Vec::len);
        if objects == 0 {
            problems.push(format!("{rel}: the saved scene has no objects"));
        }
        let again = out_dir.join(format!("{rel}.again.json"));
        match run(&out_dir, &[saved_s, "--headless", "--size", "64x64", "--save-scene", again.to_str().unwrap()]) {
            Some(o) if o.status.success() => {
                let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&again).unwrap()).unwrap();
                if v["objects"].as_array().map_or(0, Vec::len) != objects {
                    problems.push(format!("{rel}: the saved scene reopens with other objects"));
                }
            }
            other => problems.push(format!("{rel}: the saved scene does not reopen: {other:?}")),
        }
        problems
    });
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// What the validator found: `issues.numErrors` of `FILE.report.json`.
fn validator_errors(file: &Path) -> u64 {
    let report = PathBuf::from(format!("{}.report.json", file.display()));
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("{}: {e}", report.display()));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["issues"]["numErrors"].as_u64().unwrap_or_else(|| panic!("{}: no issues.numErrors", report.display()))
}

/// One run on a validator file (directly or through a scene file) against
/// the rules of `docs/spec/assets.md`: no hang, crash or panic; exit 0 with both
/// outputs, or exit 2 with one line and nothing written; a file the
/// validator passes opens unless the line names an unreadable extension.
fn check_validator_run(name: &str, how: &str, dir: &Path, input: &str, valid: bool) -> Vec<String> {
    let (shot, saved) = (dir.join("o.png"), dir.join("o.json"));
    let args =
        [input, "--headless", "--validation", "--size", "64x64", "--screenshot", "o.png", "--save-scene", "o.json"];
    let Some(out) = run(dir, &args) else { return vec![format!("{name} ({how}): hangs")] };
    let lines = message_lines(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let written = shot.exists() || saved.exists();
    let _ = (std::fs::remove_file(&shot), std::fs::remove_file(&saved));
    if stderr.contains("panicked") {
        return vec![format!("{name} ({how}): panics: {stderr}")];
    }
    match out.status.code() {
        Some(0) if !written => vec![format!("{name} ({how}): exit 0 but no screenshot or scene written")],
        // A file the validator finds errors in opens only with a warning
        // that says what is wrong.
        Some(0) if !valid && lines.is_empty() => {
            vec![format!("{name} ({how}): invalid by the validator but opened without a warning")]
        }
        Some(0) => Vec::new(),
        Some(2) => {
            let mut problems = Vec::new();
            if lines.len() != 1 || !lines[0].starts_with("viewport: ") {
                problems.push(format!("{name} ({how}): exit 2 without exactly one error line: {lines:?}"));
            }
            if written {
                problems.push(format!("{name} ({how}): exit 2 but an output was written"));
            }
            if valid && !lines.iter().any(|l| UNREADABLE.iter().any(|x| l.contains(x))) {
                problems.push(format!("{name} ({how}): valid by the validator but refused: {lines:?}"));
            }
            problems
        }
        code => vec![format!("{name} ({how}): exit {code:?} (a crash?): {lines:?}")],
    }
}

#[test]
fn every_validator_suite_file_opens_or_is_refused_in_one_line() {
    let root = shared("gltf-validator-suite");
    let files = gltf_files(&root);
    assert!(files.len() >= 372, "expected the validator's 372 files, found {}", files.len());
    let valid = files.iter().filter(|f| validator_errors(f) == 0).count();
    assert!(valid >= 129, "expected 129 files without errors, found {valid}");
    let problems = in_parallel(&files, |file| {
        let name = file.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let valid = validator_errors(file) == 0;
        let dir = tempfile::tempdir().unwrap();
        let mut problems = check_validator_run(&name, "opened", dir.path(), file.to_str().unwrap(), valid);
        // The same file as the mesh of a scene file (its meshes merged).
        let scene = serde_json::json!({"objects": [{"name": "model", "mesh": file.to_str().unwrap()}]});
        std::fs::write(dir.path().join("scene.json"), scene.to_string()).unwrap();
        problems.extend(check_validator_run(&name, "as a mesh", dir.path(), "scene.json", valid));
        problems
    });
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// Runs the Khronos glTF-Validator (`tools/gltf-validate.js`, with the npm
/// package that `make check-assets` installs) on `file`: `Ok(())` with no
/// errors, else what it printed.
fn khronos_validate(file: &Path) -> Result<(), String> {
    let modules = std::env::var("GLTF_VALIDATOR_MODULES")
        .expect("GLTF_VALIDATOR_MODULES names the validator's node_modules (make check-assets sets it)");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools").join("gltf-validate.js");
    let out = Command::new("node").arg(script).arg(file).env("NODE_PATH", modules).output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

/// `docs/spec/roundtrip.md`, "Export": every real model and every file of
/// the validator's suite that it passes and the viewport opens is exported
/// as `.glb` and as `.gltf`; the validator finds no error in either, the
/// viewport opens both again with validation on, and a real model's export
/// shows the same picture as the model.
#[test]
fn every_real_model_and_valid_suite_file_exports_a_file_the_validator_passes() {
    let real = gltf_files(&shared("real-assets"));
    let suite: Vec<PathBuf> =
        gltf_files(&shared("gltf-validator-suite")).into_iter().filter(|f| validator_errors(f) == 0).collect();
    assert!(real.len() >= 13 && suite.len() >= 129, "{} real, {} valid suite files", real.len(), suite.len());
    let real_models = real.clone();
    let files: Vec<PathBuf> = real.into_iter().chain(suite).collect();
    let exported = std::sync::atomic::AtomicUsize::new(0);
    let problems = in_parallel(&files, |file| {
        let name = file.to_string_lossy().into_owned();
        let dir = tempfile::tempdir().unwrap();
        let mut problems = Vec::new();
        for out_name in ["o.glb", "o.gltf"] {
            let out_path = dir.path().join(out_name);
            let args = [file.to_str().unwrap(), "--headless", "--size", "64x64", "--export", out_name];
            let Some(out) = run(dir.path(), &args) else { return vec![format!("{name}: export hangs")] };
            match out.status.code() {
                Some(0) => {}
                // A file the viewport refuses (an unreadable extension) has
                // nothing to export; its refusal is checked above.
                Some(2) if !out_path.exists() => return problems,
                code => return vec![format!("{name}: export exit {code:?}: {:?}", message_lines(&out))],
            }
            if let Err(report) = khronos_validate(&out_path) {
                problems.push(format!("{name} -> {out_name}: the validator finds errors: {report}"));
            }
            let again = [out_name, "--headless", "--validation", "--size", "64x64", "--save-scene", "again.json"];
            match run(dir.path(), &again) {
                Some(o) if o.status.success() => {}
                other => problems.push(format!("{name} -> {out_name}: does not reopen: {other:?}")),
            }
            // A real model: the export opens to the same picture (skinned
            // ones posed by the same joints).
            if real_models.contains(file) {
                let shot = |input: &str, png: &str| {
                    let args = [input, "--headless", "--no-ui", "--size", "320x240", "--screenshot", png];
                    run(dir.path(), &args).filter(|o| o.status.success()).map(|_| read_png(&dir.path().join(png)))
                };
                match (shot(file.to_str().unwrap(), "a.png"), shot(out_name, "b.png")) {
                    (Some(a), Some(b)) => {
                        let diff = a.data.iter().zip(&b.data).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
                        if diff > 2 || a.data.len() != b.data.len() {
                            problems.push(format!("{name} -> {out_name}: the picture differs by {diff} levels"));
                        }
                    }
                    _ => problems.push(format!("{name} -> {out_name}: no screenshots to compare")),
                }
            }
        }
        exported.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        problems
    });
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    assert!(exported.into_inner() >= 13 + 100, "most files export");
}

/// `docs/spec/roundtrip.md`, "Every saved file reopens": the Khronos fox
/// with a spine joint deleted saves a scene that opens again (its skin
/// hands the joint's influence to the joint above it).
#[test]
fn the_fox_with_a_joint_deleted_saves_a_scene_that_reopens() {
    let fox = shared("real-assets").join("Fox.glb");
    let dir = tempfile::tempdir().unwrap();
    let script = serde_json::json!({"select": ["b_Spine01_02"], "events": [{"key_down": "Delete"}]});
    std::fs::write(dir.path().join("s.json"), script.to_string()).unwrap();
    let args =
        [fox.to_str().unwrap(), "--headless", "--size", "64x64", "--replay", "s.json", "--save-scene", "fox.json"];
    let out = run(dir.path(), &args).expect("no hang");
    assert!(out.status.success(), "{:?}", message_lines(&out));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("fox.json")).unwrap()).unwrap();
    let names: Vec<&str> = saved["objects"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert!(!names.contains(&"b_Spine01_02"));
    let again =
        run(dir.path(), &["fox.json", "--headless", "--validation", "--size", "64x64", "--save-scene", "again.json"])
            .expect("no hang");
    assert!(again.status.success(), "the saved fox does not reopen: {:?}", message_lines(&again));
}

/// The keyframes of SimpleSkin's one animation, read from the file itself:
/// its times and its rotations (x, y, z, w) of node 2, decoded from the
/// data URI of the buffer its sampler's accessors use.
fn simple_skin_keys(file: &Path) -> (Vec<f64>, Vec<[f64; 4]>) {
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let sampler = &doc["animations"][0]["samplers"][0];
    assert_eq!(doc["animations"][0]["channels"][0]["target"], serde_json::json!({"node": 2, "path": "rotation"}));
    assert_eq!(sampler["interpolation"], "LINEAR");
    let floats = |accessor: u64| -> Vec<f64> {
        let a = &doc["accessors"][accessor as usize];
        let view = &doc["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let uri = doc["buffers"][view["buffer"].as_u64().unwrap() as usize]["uri"].as_str().unwrap();
        let bytes = base64::decode(uri.split_once(',').unwrap().1).unwrap();
        let start = (view["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0)) as usize;
        let width = if a["type"] == "VEC4" { 4 } else { 1 };
        let n = a["count"].as_u64().unwrap() as usize * width;
        (0..n)
            .map(|k| f64::from(f32::from_le_bytes(bytes[start + 4 * k..start + 4 * k + 4].try_into().unwrap())))
            .collect()
    };
    let times = floats(sampler["input"].as_u64().unwrap());
    let values = floats(sampler["output"].as_u64().unwrap()).chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    (times, values)
}

/// The angle about +Z of a rotation about +Z given as a quaternion (any length).
fn angle_about_z(q: [f64; 4]) -> f64 {
    assert!(q[0].abs() < 1e-9 && q[1].abs() < 1e-9, "SimpleSkin's keys turn about Z: {q:?}");
    2.0 * q[2].atan2(q[3])
}

/// The rotation angle of SimpleSkin's animated joint at time `t` (wrapped
/// into the clip), by interpolating the keys' angles: for rotations about
/// one axis, less than half a turn apart, that is what slerp gives.
fn simple_skin_angle(times: &[f64], values: &[[f64; 4]], t: f64) -> f64 {
    let t = t.rem_euclid(*times.last().unwrap());
    let k = times.iter().rposition(|&x| x <= t).unwrap().min(times.len() - 2);
    let u = (t - times[k]) / (times[k + 1] - times[k]);
    let (a, b) = (angle_about_z(values[k]), angle_about_z(values[k + 1]));
    a + (b - a) * u
}

/// Runs SimpleSkin with a script of `events`, its animated joint (node 2,
/// the object `node.002`) selected; returns the output, the trace and
/// the saved scene.
fn simple_skin_run(events: serde_json::Value) -> (Output, Vec<serde_json::Value>, Option<serde_json::Value>) {
    let file = shared("real-assets").join("SimpleSkin.gltf");
    let dir = tempfile::tempdir().unwrap();
    let script = serde_json::json!({"select": ["node.002"], "events": events});
    std::fs::write(dir.path().join("s.json"), script.to_string()).unwrap();
    let args = [
        file.to_str().unwrap(),
        "--headless",
        "--size",
        "64x64",
        "--replay",
        "s.json",
        "--trace",
        "t.jsonl",
        "--save-scene",
        "saved.json",
    ];
    let out = run(dir.path(), &args).expect("no hang");
    let trace = std::fs::read_to_string(dir.path().join("t.jsonl"))
        .map(|t| t.lines().map(|l| serde_json::from_str(l).unwrap()).collect())
        .unwrap_or_default();
    let saved = std::fs::read_to_string(dir.path().join("saved.json")).ok().map(|s| serde_json::from_str(&s).unwrap());
    (out, trace, saved)
}

/// The z angle of the selected joint in a trace line.
fn traced_angle(line: &serde_json::Value) -> f64 {
    let r: Vec<f64> =
        line["objects"]["node.002"]["rotation"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    angle_about_z([r[0], r[1], r[2], r[3]])
}

#[test]
fn simple_skin_animation_poses_plays_loops_and_saves_the_rest_pose() {
    let (times, values) = simple_skin_keys(&shared("real-assets").join("SimpleSkin.gltf"));
    let (out, trace, saved) = simple_skin_run(serde_json::json!([
        {"animation": {"clip": 0, "time": 0.25}},
        {"frame": 10},
        {"animation": {"clip": 0, "time": 0.25, "play": true}},
        {"frame": 30},
        {"animation": {"clip": 0, "time": 5.25, "play": true}},
        {"frame": 30},
        {"animation": null},
        {"animation": {"clip": 0, "time": 1.2}},
    ]));
    assert!(out.status.success(), "{:?}", message_lines(&out));
    assert_eq!(trace.len(), 8);
    let expect = |line: &serde_json::Value, t: f64| {
        let a = &line["animation"];
        assert_eq!(a["clip"], "Animation 0", "{a}");
        let traced = a["time"].as_f64().unwrap();
        assert!((traced - t).abs() < 1e-9, "time {traced}, expected {t}");
        let (got, want) = (traced_angle(line), simple_skin_angle(&times, &values, t));
        assert!((got - want).abs() < 1e-5, "at {t} s: angle {got}, expected {want}");
    };
    // Shown paused: frames do not move it.
    expect(&trace[0], 0.25);
    expect(&trace[1], 0.25);
    // Playing: 30 frames are half a second.
    expect(&trace[2], 0.25);
    expect(&trace[3], 0.75);
    // Past the clip's end it loops (5.75 s in a 5.5 s clip).
    expect(&trace[5], 5.75 - times.last().unwrap());
    // Back to the rest pose: no animation, the file's rotation.
    assert!(trace[6]["animation"].is_null());
    assert_eq!(trace[6]["objects"]["node.002"]["rotation"], serde_json::json!([0.0, 0.0, 0.0, 1.0]));
    expect(&trace[7], 1.2);
    // A pose is shown at the end, but the saved scene holds the rest pose.
    let saved = saved.expect("saved");
    let joint = saved["objects"].as_array().unwrap().iter().find(|o| o["name"] == "node.002").unwrap();
    assert_eq!(joint["rotation"], serde_json::json!([0.0, 0.0, 0.0, 1.0]));
}

#[test]
fn a_clip_that_does_not_exist_is_one_line_and_exit_2() {
    for clip in [serde_json::json!("Walk"), serde_json::json!(1)] {
        let (out, trace, saved) = simple_skin_run(serde_json::json!([{"animation": {"clip": clip, "time": 0}}]));
        assert_eq!(out.status.code(), Some(2));
        let lines = message_lines(&out);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains(&clip.to_string()), "{lines:?}");
        assert!(trace.is_empty() && saved.is_none(), "nothing is written");
    }
}

#[test]
fn the_fox_walks_by_name() {
    let fox = shared("real-assets").join("Fox.glb");
    let dir = tempfile::tempdir().unwrap();
    let script = serde_json::json!({"events": [
        {"animation": {"clip": "Walk", "time": 0.1, "play": true}},
        {"frame": 6},
        {"animation": {"clip": "Survey", "time": 0}},
    ]});
    std::fs::write(dir.path().join("s.json"), script.to_string()).unwrap();
    let args = [fox.to_str().unwrap(), "--headless", "--size", "64x64", "--replay", "s.json", "--trace", "t.jsonl"];
    let out = run(dir.path(), &args).expect("no hang");
    assert!(out.status.success(), "{:?}", message_lines(&out));
    let trace: Vec<serde_json::Value> = std::fs::read_to_string(dir.path().join("t.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(trace[1]["animation"]["clip"], "Walk");
    assert!((trace[1]["animation"]["time"].as_f64().unwrap() - 0.2).abs() < 1e-9);
    assert_eq!(trace[2]["animation"], serde_json::json!({"clip": "Survey", "time": 0.0}));
}

/// MorphStressTest's clips animate only morph weights: they are listed
/// and play, and a pose draws a different picture from the rest pose
/// while the saved scene stays the one saved at rest.
#[test]
fn morph_stress_test_plays_its_weights() {
    let file = shared("real-assets").join("MorphStressTest.gltf");
    let dir = tempfile::tempdir().unwrap();
    let shot = |name: &str, events: serde_json::Value| {
        let script = serde_json::json!({"events": events});
        std::fs::write(dir.path().join(format!("{name}.json")), script.to_string()).unwrap();
        let (s, t, png, saved) =
            (format!("{name}.json"), format!("{name}.jsonl"), format!("{name}.png"), format!("{name}.saved.json"));
        let args = [
            file.to_str().unwrap(),
            "--headless",
            "--validation",
            "--size",
            "160x120",
            "--no-ui",
            "--replay",
            &s,
            "--trace",
            &t,
            "--screenshot",
            &png,
            "--save-scene",
            &saved,
        ];
        let out = run(dir.path(), &args).expect("no hang");
        assert!(out.status.success(), "{:?}", message_lines(&out));
        let trace: Vec<serde_json::Value> = std::fs::read_to_string(dir.path().join(&t))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let image = read_png(&dir.path().join(&png));
        let saved: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(&saved)).unwrap()).unwrap();
        (trace, image, saved)
    };
    let (_, rest, saved_rest) = shot("rest", serde_json::json!([{"frame": 1}]));
    for (clip, time) in [("Individuals", 0.5), ("TheWave", 1.0), ("Pulse", 1.0)] {
        let (trace, posed, saved) = shot(
            clip,
            serde_json::json!([
                {"animation": {"clip": clip, "time": time - 0.25, "play": true}},
                {"frame": 15},
            ]),
        );
        let a = &trace[1]["animation"];
        assert_eq!(a["clip"], clip);
        assert!((a["time"].as_f64().unwrap() - time).abs() < 1e-9, "{a}");
        let differing = rest.data.chunks(4).zip(posed.data.chunks(4)).filter(|(p, q)| p != q).count();
        assert!(differing > 50, "{clip} at {time} s: {differing} pixels differ from the rest pose");
        assert_eq!(saved["objects"], saved_rest["objects"], "{clip}: the saved scene is the rest pose");
    }
}
