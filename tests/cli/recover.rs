//! Recovering an autosave (`docs/spec/roundtrip.md`, "Never lose work"):
//! `--recover` opens a scene's autosave in its place, Ctrl+Shift+R in a
//! script takes the autosave offered on opening as one undo step while no
//! edit came first, and without an autosave `--recover` is one error line.
//! The scene file itself is never touched.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

use crate::support::cli::{assert_bad_input, viewport_cli};

/// The scene on disk: cubes `a` and `b`.
fn scene() -> Value {
    json!({ "objects": [
        { "name": "a", "mesh": "cube", "position": [0, 0, 0] },
        { "name": "b", "mesh": "cube", "position": [3, 0, 0] }
    ] })
}

/// Its autosave, newer: `a` moved, `b` deleted, `c` added.
fn autosave() -> Value {
    json!({ "objects": [
        { "name": "a", "mesh": "cube", "position": [1, 2, 3] },
        { "name": "c", "mesh": "sphere", "position": [-3, 0, 0] }
    ] })
}

/// Writes the scene and its autosave in `dir` (the scene a minute older).
fn write(dir: &Path) {
    std::fs::write(dir.join("level.json"), scene().to_string()).unwrap();
    std::fs::write(dir.join("level.autosave.json"), autosave().to_string()).unwrap();
    let old = SystemTime::now() - Duration::from_secs(60);
    std::fs::File::options().write(true).open(dir.join("level.json")).unwrap().set_modified(old).unwrap();
}

/// Object names and positions of a saved scene.
fn objects(saved: &Value) -> Vec<(String, Vec<f64>)> {
    saved["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let p = o["position"].as_array().map_or(vec![0.0; 3], |p| p.iter().map(|v| v.as_f64().unwrap()).collect());
            (o["name"].as_str().unwrap().to_string(), p)
        })
        .collect()
}

fn run(dir: &Path, args: &[&str], events: Option<Value>) -> (String, Value) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_viewport"));
    c.arg(dir.join("level.json")).args(["--headless", "--no-ui", "--size", "320x240"]).args(args);
    if let Some(events) = events {
        let script = json!({ "select": ["a"], "events": events });
        std::fs::write(dir.join("script.json"), script.to_string()).unwrap();
        c.arg("--replay").arg(dir.join("script.json"));
    }
    let out = c.arg("--save-scene").arg(dir.join("out.json")).env_remove("DISPLAY").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (stderr, serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap())
}

fn key(k: &str, mods: &[&str]) -> Value {
    json!({ "key_down": k, "mods": mods })
}

#[test]
fn recover_opens_the_autosave_in_place_of_the_scene() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path());
    let scene_text = std::fs::read_to_string(dir.path().join("level.json")).unwrap();
    let (_, saved) = run(dir.path(), &["--recover"], None);
    assert_eq!(objects(&saved), objects(&autosave()));
    assert_eq!(std::fs::read_to_string(dir.path().join("level.json")).unwrap(), scene_text, "the scene is untouched");
}

#[test]
fn recover_without_an_autosave_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("level.json"), scene().to_string()).unwrap();
    let scene = dir.path().join("level.json");
    let out = viewport_cli(&[scene.to_str().unwrap(), "--headless", "--recover"]);
    assert_bad_input(&out, "no autosave to recover");
    assert_bad_input(&viewport_cli(&[scene.to_str().unwrap(), "--autosave-secs=-1"]), "autosave-secs");
    assert_bad_input(&viewport_cli(&[scene.to_str().unwrap(), "--autosave-secs", "NaN"]), "autosave-secs");
}

#[test]
fn ctrl_shift_r_takes_the_offered_autosave_as_one_undo_step() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path());
    // Offered on opening, taken.
    let (stderr, saved) = run(dir.path(), &[], Some(json!([key("R", &["ctrl", "shift"])])));
    assert!(stderr.contains("Ctrl+Shift+R recovers it"), "{stderr}");
    assert_eq!(objects(&saved), objects(&autosave()));
    // Undone: the scene as its file holds it.
    let (_, saved) = run(dir.path(), &[], Some(json!([key("R", &["ctrl", "shift"]), key("Z", &["ctrl"])])));
    assert_eq!(objects(&saved), objects(&scene()));
    // An edit first dismisses the offer: the key then changes nothing.
    let (_, saved) = run(dir.path(), &[], Some(json!([key("Delete", &[]), key("R", &["ctrl", "shift"])])));
    assert_eq!(objects(&saved), vec![("b".to_string(), vec![3.0, 0.0, 0.0])]);
    // An autosave older than the scene is not offered.
    let new = SystemTime::now() + Duration::from_secs(60);
    std::fs::File::options().write(true).open(dir.path().join("level.json")).unwrap().set_modified(new).unwrap();
    let (stderr, saved) = run(dir.path(), &[], Some(json!([key("R", &["ctrl", "shift"])])));
    assert!(!stderr.contains("recovers it"), "{stderr}");
    assert_eq!(objects(&saved), objects(&scene()));
}
