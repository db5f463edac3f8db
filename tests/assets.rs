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
/// be refused, and the message must name it (`docs/spec/assets.md`).
const UNREADABLE: [&str; 3] = ["KHR_draco_mesh_compression", "EXT_meshopt_compression", "KHR_mesh_quantization"];

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
