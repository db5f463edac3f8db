//! The window's autosave (`docs/spec/roundtrip.md`, "Never lose work"): an
//! edit, the autosave written within the interval, the process killed with
//! SIGKILL, and `--recover` brings the edit back while the scene file is
//! untouched; and a process killed at random moments during a stream of
//! autosaves of a large scene always leaves a complete, readable autosave.

use crate::support::xvfb::{wait_for, WindowApp, Xvfb};
use std::time::Duration;

/// Runs `viewport SCENE --recover --headless --save-scene OUT` and returns
/// the recovered scene's object names.
fn recovered(dir: &std::path::Path, scene: &std::path::Path) -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_viewport"))
        .arg(scene)
        .args(["--recover", "--headless", "--no-ui", "--size", "64x64", "--save-scene"])
        .arg(dir.join("recovered.json"))
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let saved = viewport::scene::Scene::load(&dir.join("recovered.json")).unwrap();
    saved.objects().iter().map(|o| o.name.to_string()).collect()
}

#[test]
fn an_edit_survives_sigkill_through_the_autosave() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene.json");
    // Orthographic front view, 10 m over 400 px: `box` covers the centre.
    let text = r#"{ "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 10 },
        "objects": [ { "name": "box", "mesh": "cube", "position": [0, 0, 0] },
                     { "name": "keep", "mesh": "cube", "position": [3, 3, 0] } ] }"#;
    std::fs::write(&scene, text).unwrap();
    let mut app = WindowApp::start_with(&x, dir.path(), &scene, "400x400", &["--no-ui", "--autosave-secs", "1"]);
    // Select the box and delete it.
    app.move_to(&x, (200.0, 200.0));
    x.run("xdotool", &["click", "1"]);
    std::thread::sleep(Duration::from_millis(200));
    x.run("xdotool", &["key", "Delete"]);
    let autosave = dir.path().join("scene.autosave.json");
    wait_for("the autosave", || autosave.exists().then_some(()));
    app.child.kill().unwrap(); // SIGKILL
    app.child.wait().unwrap();
    assert_eq!(std::fs::read_to_string(&scene).unwrap(), text, "the scene file is untouched");
    assert_eq!(recovered(dir.path(), &scene), ["keep"], "the delete is in the autosave");
}

#[test]
fn killing_during_autosaves_never_leaves_a_partial_one() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("level.json");
    // 20,000 small cubes on a grid (about 4 MB of autosave), one big cube at the centre.
    let mut objects =
        vec![r#"{ "name": "hub", "mesh": "cube", "position": [0, 0, 0], "scale": [2, 2, 2] }"#.to_string()];
    for i in 0..20_000 {
        objects.push(format!(
            r#"{{ "name": "c{i}", "mesh": "cube", "position": [{}, {}, -5], "scale": [0.1, 0.1, 0.1] }}"#,
            (i % 200) as f64 * 0.2 - 20.0,
            (i / 200) as f64 * 0.2 - 10.0
        ));
    }
    let text = format!(
        r#"{{ "camera": {{ "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 10 }},
            "objects": [{}] }}"#,
        objects.join(",\n")
    );
    std::fs::write(&scene, &text).unwrap();
    let autosave = dir.path().join("level.autosave.json");
    let mut seen = 0;
    for round in 0..3u64 {
        let mut app = WindowApp::start_with(&x, dir.path(), &scene, "400x400", &["--no-ui", "--autosave-secs", "0.02"]);
        app.move_to(&x, (200.0, 200.0));
        x.run("xdotool", &["click", "1"]);
        // A stream of edits (each Ctrl+D copies the hub), so that autosaves follow one another.
        let mut keys = std::process::Command::new("xdotool")
            .args(["key", "--delay", "30", "--repeat", "200", "ctrl+d"])
            .env("DISPLAY", &x.display)
            .spawn()
            .unwrap();
        // Kill at a different moment each round, after some autosaves.
        wait_for("an autosave", || autosave.exists().then_some(()));
        std::thread::sleep(Duration::from_millis(150 + 170 * round));
        app.child.kill().unwrap();
        app.child.wait().unwrap();
        let _ = keys.kill();
        let _ = keys.wait();
        let saved = viewport::scene::Scene::load(&autosave).expect("the autosave is complete");
        assert!(saved.len() > 20_001, "round {round}: the autosave holds the copies ({})", saved.len());
        seen += 1;
        std::fs::remove_file(&autosave).unwrap();
    }
    assert_eq!(seen, 3);
    assert_eq!(std::fs::read_to_string(&scene).unwrap(), text, "the scene file is untouched");
}

/// Each object's `mesh` string in a scene file, if it parses (an autosave
/// being replaced is read whole or not at all: it is renamed into place).
fn mesh_strings(path: &std::path::Path) -> Option<Vec<(String, String)>> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let objects = v["objects"].as_array()?;
    Some(objects.iter().map(|o| (o["name"].as_str().unwrap().into(), o["mesh"].as_str().unwrap().into())).collect())
}

#[test]
fn an_autosave_writes_pasted_meshes_relative_to_itself() {
    let x = Xvfb::start();
    let root = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(root.path()).unwrap();
    let (level, props) = (root.join("level"), root.join("props"));
    std::fs::create_dir(&level).unwrap();
    std::fs::create_dir(&props).unwrap();
    // One triangle in the props folder.
    let tri = props.join("x.gltf");
    std::fs::write(&tri, crate::support::cli::TRIANGLE_GLTF).unwrap();
    let scene = level.join("level.json");
    std::fs::write(&scene, r#"{ "objects": [ { "name": "x", "mesh": "../props/x.gltf" } ] }"#).unwrap();
    let app = WindowApp::start_with(&x, &level, &scene, "320x240", &["--no-ui", "--autosave-secs", "0.2"]);
    // Select all, copy (the X clipboard, held by this window), paste; sent
    // again while no autosave shows the paste (a key can be lost while the
    // server settles focus; another round only pastes more copies).
    let autosave = level.join("level.autosave.json");
    let pasted = wait_for("an autosave of the paste", || {
        x.run("xdotool", &["windowfocus", "--sync", &app.wid]);
        for key in ["ctrl+a", "ctrl+c", "ctrl+v"] {
            x.run("xdotool", &["key", key]);
            std::thread::sleep(Duration::from_millis(150));
        }
        std::thread::sleep(Duration::from_millis(800));
        mesh_strings(&autosave).filter(|m| m.len() > 1)
    });
    app.quit_cleanly(&x);
    // Every copy names the props file from the autosave's folder, as the
    // scene file itself does.
    for (name, mesh) in &pasted {
        assert_eq!(mesh, "../props/x.gltf", "{name} in {pasted:?}");
    }
}
