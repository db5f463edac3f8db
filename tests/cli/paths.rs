//! Mesh paths in written scene files (`docs/spec/automation.md`, scene
//! files): every glTF path is written relative to the file being written,
//! whatever form it had in memory. A pasted object (its mesh held as an
//! absolute path since the copy) is written as the original is, one from
//! another folder as `../props/...`; Save As into another folder rewrites
//! them all from there.

use serde_json::{json, Value};
use std::path::{Component, Path, PathBuf};

use crate::support::cli::{viewport_cli, TRIANGLE_GLTF};

/// Each object's `mesh` string in a written scene file, by name.
fn meshes(path: &Path) -> Vec<(String, String)> {
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out: Vec<(String, String)> = saved["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["name"].as_str().unwrap().to_string(), o["mesh"].as_str().unwrap().to_string()))
        .collect();
    out.sort();
    out
}

/// The path from folder `from` to file `to` (both under one root), worked
/// out here from their components: one `..` per folder of `from` below the
/// shared part, then the rest of `to`.
fn relative(from: &Path, to: &Path) -> String {
    let (f, t): (Vec<Component>, Vec<Component>) = (from.components().collect(), to.components().collect());
    let shared = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); f.len() - shared];
    parts.extend(t[shared..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    parts.join("/")
}

#[test]
fn paste_and_save_as_write_mesh_paths_relative_to_the_written_file() {
    let root = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(root.path()).unwrap();
    let (level, props, other) = (root.join("level"), root.join("props"), root.join("other"));
    for d in [&level, &props, &other] {
        std::fs::create_dir(d).unwrap();
    }
    let (tile, x) = (level.join("tile.gltf"), props.join("x.gltf"));
    std::fs::write(&tile, TRIANGLE_GLTF).unwrap();
    std::fs::write(&x, TRIANGLE_GLTF).unwrap();
    let scene = level.join("s.json");
    let text = json!({ "objects": [
        { "name": "tile", "mesh": "tile.gltf" },
        { "name": "x", "mesh": "../props/x.gltf", "position": [2, 0, 0] } ] });
    std::fs::write(&scene, text.to_string()).unwrap();

    // Copy both, paste, then Save As into `other/`; `--save-scene` writes
    // the same scene beside the original.
    let copy = other.join("copy.json");
    let events = json!([
        { "key_down": "C", "mods": ["ctrl"] },
        { "key_down": "V", "mods": ["ctrl"] },
        { "key_down": "S", "mods": ["ctrl", "shift"] },
        { "key_down": "A", "mods": ["ctrl"] },
        { "text": copy.to_str().unwrap() },
        { "key_down": "Enter" },
    ]);
    let script = level.join("script.json");
    std::fs::write(&script, json!({ "select": ["tile", "x"], "events": events }).to_string()).unwrap();
    let out_path = level.join("out.json");
    let out = viewport_cli(&[
        scene.to_str().unwrap(),
        "--headless",
        "--size",
        "800x450",
        "--replay",
        script.to_str().unwrap(),
        "--save-scene",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let expect = |dir: &Path| -> Vec<(String, String)> {
        let (t, p) = (relative(dir, &tile), relative(dir, &x));
        let mut v = vec![
            ("tile".to_string(), t.clone()),
            ("tile.001".to_string(), t),
            ("x".to_string(), p.clone()),
            ("x.001".to_string(), p),
        ];
        v.sort();
        v
    };
    assert_eq!(relative(&level, &x), "../props/x.gltf", "the test's own path arithmetic");
    assert_eq!(meshes(&out_path), expect(&level), "beside the original");
    assert_eq!(meshes(&copy), expect(&other), "saved as into another folder");
    // Each written path names its file from the written file's folder.
    for (file, dir) in [(&out_path, &level), (&copy, &other)] {
        for (name, mesh) in meshes(file) {
            let resolved: PathBuf = std::fs::canonicalize(dir.join(&mesh)).unwrap();
            let want = if name.starts_with("tile") { &tile } else { &x };
            assert_eq!(&resolved, want, "{name} in {}", file.display());
        }
    }
}
