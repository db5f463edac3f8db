//! Ctrl+S in scripts and the warning before replacing earlier edits
//! (`docs/spec/roundtrip.md`, "Files in the window"): a `STEM.scene.json`
//! beside an opened glTF file that this session did not write is replaced
//! only by a second Ctrl+S.

use crate::support::cli::{viewport_cli, write_file};
use crate::support::textured::{lit, Doc, Quad};

use serde_json::{json, Value};

fn ctrl_s(times: usize) -> Value {
    let events: Vec<Value> = (0..times).map(|_| json!({"key_down": "S", "mods": ["ctrl"]})).collect();
    json!({ "events": events })
}

#[test]
fn saving_an_opened_gltf_warns_before_replacing_earlier_edits() {
    let dir = tempfile::tempdir().unwrap();
    let doc =
        Doc { quads: vec![Quad::new([0.0; 3], 1.0, Some(0))], materials: vec![lit([0.5; 4], None)], ..Doc::default() };
    let model = doc.write(dir.path(), "model.gltf");
    let scene_file = dir.path().join("model.scene.json");
    let earlier = r#"{"objects": [{"name": "kept", "mesh": "cube"}]}"#;
    std::fs::write(&scene_file, earlier).unwrap();
    let run = |times: usize| {
        let script = write_file(dir.path(), "script.json", &ctrl_s(times).to_string());
        let out = viewport_cli(&[model.to_str().unwrap(), "--headless", "--size", "64x64", "--replay", &script]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };

    // Opening says that the file holds earlier edits; one Ctrl+S only warns.
    let stderr = run(1);
    assert!(stderr.contains("model.scene.json holds earlier edits"), "{stderr}");
    assert!(stderr.contains("Ctrl+S again replaces it"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&scene_file).unwrap(), earlier);

    // The second Ctrl+S of the same session writes the opened model's scene.
    let stderr = run(2);
    assert!(stderr.contains("saved"), "{stderr}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&scene_file).unwrap()).unwrap();
    assert_ne!(saved["objects"][0]["name"], "kept");
    assert!(saved["objects"][0]["mesh"].as_str().unwrap().contains("model.gltf"), "{saved}");
}

#[test]
fn ctrl_s_in_a_script_saves_the_opened_scene_file_without_asking() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write_file(dir.path(), "s.json", r#"{"objects": [{"name": "a", "mesh": "cube"}]}"#);
    // Delete the object, then Ctrl+S: the file it came from is written.
    let script = json!({"select": ["a"], "events": [{"key_down": "Delete"}, {"key_down": "S", "mods": ["ctrl"]}]});
    let script = write_file(dir.path(), "script.json", &script.to_string());
    let out = viewport_cli(&[&scene, "--headless", "--size", "64x64", "--replay", &script]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("did not make"));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&scene).unwrap()).unwrap();
    assert_eq!(saved["objects"].as_array().unwrap().len(), 0);
}
