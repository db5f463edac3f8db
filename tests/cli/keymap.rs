//! The user's key map (`docs/spec/automation.md`, "Key map"): a file of
//! chords over the defaults, from `--keymap` or the user's config folder,
//! through the real binary.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

use crate::support::cli::assert_bad_input;

/// Two cubes, `a` selected by the script.
fn scene() -> Value {
    json!({ "objects": [
        { "name": "a", "mesh": "cube", "position": [0, 0, 0] },
        { "name": "b", "mesh": "cube", "position": [3, 0, 0] }
    ]})
}

/// Runs `viewport` headless in `dir` with `args`, `XDG_CONFIG_HOME` set to
/// `dir/config` (an empty folder unless the test writes a key map there).
fn viewport(dir: &Path, args: &[&str]) -> Output {
    std::fs::create_dir_all(dir.join("config")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_viewport"))
        .args(args)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env_remove("DISPLAY")
        .output()
        .unwrap()
}

/// Writes the user's own key map file under `dir/config`.
fn user_keymap(dir: &Path, text: &str) {
    let folder = dir.join("config").join("viewport");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("keymap.json"), text).unwrap();
}

/// Replays key presses on [`scene`] with `a` selected and `extra`
/// arguments; returns the object count after each press.
fn counts_after(dir: &Path, keys: &[(&str, &[&str])], extra: &[&str]) -> Vec<u64> {
    let events: Vec<Value> = keys.iter().map(|(k, mods)| json!({ "key_down": k, "mods": mods })).collect();
    std::fs::write(dir.join("scene.json"), scene().to_string()).unwrap();
    std::fs::write(dir.join("script.json"), json!({ "select": ["a"], "events": events }).to_string()).unwrap();
    let (scene, script, trace) = (dir.join("scene.json"), dir.join("script.json"), dir.join("trace.jsonl"));
    let mut args = vec![
        scene.to_str().unwrap(),
        "--headless",
        "--no-ui",
        "--replay",
        script.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = viewport(dir, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["count"].as_u64().unwrap())
        .collect()
}

const J_DUPLICATES: &str = r#"{"bindings": {"J": "duplicate", "Ctrl+D": null}}"#;

#[test]
fn the_users_file_binds_a_key_removes_a_default_and_leaves_the_others() {
    let dir = tempfile::tempdir().unwrap();
    // The defaults alone: J does nothing, Ctrl+D duplicates.
    let keys: &[(&str, &[&str])] = &[("J", &[]), ("D", &["ctrl"]), ("D", &["shift"]), ("Delete", &[])];
    assert_eq!(counts_after(dir.path(), keys, &[]), [2, 3, 4, 3]);
    // The user's file: J duplicates, Ctrl+D no longer does; Shift+D and
    // Delete keep their defaults.
    user_keymap(dir.path(), J_DUPLICATES);
    assert_eq!(counts_after(dir.path(), keys, &[]), [3, 3, 4, 3]);
}

#[test]
fn keymap_on_the_command_line_wins_over_the_users_file() {
    let dir = tempfile::tempdir().unwrap();
    user_keymap(dir.path(), r#"{"bindings": {"J": "delete"}}"#);
    let file = dir.path().join("mine.json");
    std::fs::write(&file, J_DUPLICATES).unwrap();
    let keys: &[(&str, &[&str])] = &[("J", &[]), ("J", &[])];
    assert_eq!(counts_after(dir.path(), keys, &[]), [1, 1]);
    assert_eq!(counts_after(dir.path(), keys, &["--keymap", file.to_str().unwrap()]), [3, 4]);
}

#[test]
fn a_bad_key_map_is_one_line_naming_the_problem_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    let cases = [
        (r#"{"bindings": {"J": "duplicat"}}"#, "unknown command \"duplicat\""),
        (r#"{"bindings": {"Ctrl+Jay": "duplicate"}}"#, "unknown key name \"Jay\""),
        (r#"{"bindings": {"Hyper+J": "duplicate"}}"#, "\"Hyper\""),
        (r#"{"bindings": {}, "keys": {}}"#, "unknown field `keys`"),
        (r#"{"bindings": {"J": "undo""#, "bad.json"),
    ];
    for (text, needle) in cases {
        std::fs::write(&file, text).unwrap();
        let out = viewport(dir.path(), &["--headless", "--keymap", file.to_str().unwrap()]);
        assert_bad_input(&out, needle);
        assert_bad_input(&out, "bad.json");
    }
    // A missing file named on the command line, and a bad file of the user's.
    let out = viewport(dir.path(), &["--headless", "--keymap", dir.path().join("none.json").to_str().unwrap()]);
    assert_bad_input(&out, "none.json");
    user_keymap(dir.path(), r#"{"bindings": {"J": "nothing"}}"#);
    let out = viewport(dir.path(), &["--headless", "--list-commands"]);
    assert_bad_input(&out, "keymap.json");
}

/// The command names the spec lists, in its "Key map" section.
fn spec_command_names() -> Vec<String> {
    let spec = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/spec/automation.md")).unwrap();
    let section = spec.split("## Key map").nth(1).expect("a Key map section").split("\n## ").next().unwrap();
    section.lines().filter(|l| l.starts_with("| `")).map(|l| l[3..].split('`').next().unwrap().to_string()).collect()
}

#[test]
fn list_commands_prints_every_command_of_the_spec_with_the_chords_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let names = spec_command_names();
    assert!(names.len() >= 60, "{names:?}");
    let out = viewport(dir.path(), &["--list-commands"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listing = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<&str> = listing.lines().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(listed, names, "the listing's commands are the spec's, in its order");
    let chords = |listing: &str, name: &str| -> Vec<String> {
        let line = listing.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap();
        line[name.len()..].trim().split(", ").map(str::to_string).collect()
    };
    assert!(chords(&listing, "duplicate").contains(&"Ctrl+D".to_string()));
    assert!(chords(&listing, "save").contains(&"Ctrl+S".to_string()));
    assert_eq!(chords(&listing, "toggle_scene_lights"), ["-"]);
    // With a key map: J added to duplicate, Ctrl+D gone from it.
    user_keymap(dir.path(), J_DUPLICATES);
    let out = viewport(dir.path(), &["--list-commands"]);
    let listing = String::from_utf8(out.stdout).unwrap();
    let dup = chords(&listing, "duplicate");
    assert!(dup.contains(&"J".to_string()) && !dup.contains(&"Ctrl+D".to_string()), "{dup:?}");
    assert!(dup.contains(&"Shift+D".to_string()), "{dup:?}");
}

#[test]
fn help_shows_the_chords_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let line_of = |help: &str, what: &str| help.lines().find(|l| l.contains(what)).unwrap().trim().to_string();
    let out = viewport(dir.path(), &["--help"]);
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(line_of(&help, "toggle material / solid shading").starts_with("Z "), "{help}");
    let file = dir.path().join("mine.json");
    std::fs::write(&file, r#"{"bindings": {"Z": null, "Shift+J": "toggle_shading"}}"#).unwrap();
    let out = viewport(dir.path(), &["--keymap", file.to_str().unwrap(), "--help"]);
    let help = String::from_utf8(out.stdout).unwrap();
    // Z's own chord is gone; Shift+Z, which Z's default row also gives, stays.
    assert!(line_of(&help, "toggle material / solid shading").starts_with("Shift+J, Shift+Z "), "{help}");
}
