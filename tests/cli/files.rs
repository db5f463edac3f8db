//! The file commands in scripts as in the window (`docs/spec/roundtrip.md`,
//! "Files in the window"): Ctrl+Shift+S saves under a new name that Ctrl+S
//! then writes to; Ctrl+O opens another file in place of the scene; Ctrl+N
//! starts an empty scene; with unsaved changes Ctrl+O and Ctrl+N only warn
//! on the first press. Each dialog's path field takes Ctrl+A, text and Enter.

use serde_json::{json, Value};
use std::path::Path;

use crate::support::cli::{viewport_cli, write_file};

fn ctrl(k: &str) -> Value {
    json!({"key_down": k, "mods": ["ctrl"]})
}

fn ctrl_shift(k: &str) -> Value {
    json!({"key_down": k, "mods": ["ctrl", "shift"]})
}

/// Types `path` into the open dialog's field and confirms it.
fn answer(path: &Path) -> [Value; 3] {
    [ctrl("A"), json!({"text": path.to_str().unwrap()}), json!({"key_down": "Enter"})]
}

/// Runs `events` over `scene` headless with the UI; returns stderr and the
/// `--save-scene` result (names of its objects).
fn run(dir: &Path, scene: &str, events: Vec<Value>) -> (String, Vec<String>) {
    let script = write_file(dir, "script.json", &json!({"select": ["a"], "events": events}).to_string());
    let out_path = dir.join("out.json");
    let out = viewport_cli(&[
        scene,
        "--headless",
        "--size",
        "800x450",
        "--replay",
        &script,
        "--save-scene",
        out_path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (stderr, names(&out_path))
}

fn names(path: &Path) -> Vec<String> {
    let scene = viewport::scene::Scene::load(path).unwrap();
    scene.objects().iter().map(|o| o.name.to_string()).collect()
}

fn two_cubes() -> String {
    json!({"objects": [{"name": "a", "mesh": "cube"}, {"name": "b", "mesh": "cube", "position": [2, 0, 0]}]})
        .to_string()
}

#[test]
fn save_as_makes_the_new_file_the_scenes_file() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write_file(dir.path(), "level.json", &two_cubes());
    let copy = dir.path().join("copy.json");
    let mut events = vec![ctrl_shift("S")];
    events.extend(answer(&copy));
    // Then an edit and Ctrl+S: written to the copy, not to the original.
    events.extend([json!({"key_down": "Delete"}), ctrl("S")]);
    let (stderr, _) = run(dir.path(), &scene, events);
    assert!(stderr.contains(&format!("saved {}", copy.display())), "{stderr}");
    assert_eq!(names(&copy), ["b"], "Ctrl+S wrote the copy");
    assert_eq!(std::fs::read_to_string(&scene).unwrap(), two_cubes(), "the original is untouched");
}

#[test]
fn open_replaces_the_scene_after_a_warning_about_unsaved_changes() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write_file(dir.path(), "level.json", &two_cubes());
    let other = write_file(
        dir.path(),
        "other.json",
        &json!({"objects": [{"name": "x", "mesh": "sphere"}, {"name": "y", "mesh": "cone"}, {"name": "z", "mesh": "cube"}]})
            .to_string(),
    );
    // Unchanged: Ctrl+O opens the dialog at once.
    let mut events = vec![ctrl("O")];
    events.extend(answer(Path::new(&other)));
    let (stderr, saved) = run(dir.path(), &scene, events);
    assert!(stderr.contains("opened"), "{stderr}");
    assert_eq!(saved, ["x", "y", "z"]);

    // After an edit the first Ctrl+O only warns: typing then goes nowhere.
    let mut events = vec![json!({"key_down": "Delete"}), ctrl("O")];
    events.extend(answer(Path::new(&other)));
    let (stderr, saved) = run(dir.path(), &scene, events.clone());
    assert!(stderr.contains("Unsaved changes"), "{stderr}");
    assert_eq!(saved, ["b"], "still the edited scene");
    // The second Ctrl+O goes on.
    let mut events = vec![json!({"key_down": "Delete"}), ctrl("O"), ctrl("O")];
    events.extend(answer(Path::new(&other)));
    let (_, saved) = run(dir.path(), &scene, events);
    assert_eq!(saved, ["x", "y", "z"]);
    assert_eq!(std::fs::read_to_string(&scene).unwrap(), two_cubes());

    // A file that cannot be opened: a notice, the scene stays.
    let mut events = vec![ctrl("O")];
    events.extend(answer(&dir.path().join("missing.json")));
    let (stderr, saved) = run(dir.path(), &scene, events);
    assert!(stderr.contains("missing.json"), "{stderr}");
    assert_eq!(saved, ["a", "b"]);
}

#[test]
fn new_starts_an_empty_scene_that_ctrl_s_writes_to_the_named_file() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write_file(dir.path(), "level.json", &two_cubes());
    let fresh = dir.path().join("fresh.json");
    let mut events = vec![ctrl("N")];
    events.extend(answer(&fresh));
    events.push(ctrl("S"));
    let (stderr, saved) = run(dir.path(), &scene, events);
    assert!(saved.is_empty(), "{saved:?}");
    assert!(stderr.contains(&format!("saved {}", fresh.display())), "{stderr}");
    assert!(names(&fresh).is_empty());
    assert_eq!(std::fs::read_to_string(&scene).unwrap(), two_cubes());
}
