//! The piecewise reader against the whole-file parse, and the order in
//! which problems are reported.

use std::path::Path;

use super::*;

/// `text` written to a file and read by [`read_pieces`] with a `buffer`
/// of that many bytes: `None` when it gave up.
fn pieces(text: &str, buffer: usize) -> Option<Result<Scene, String>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(&path, text).unwrap();
    let read = read_pieces(std::fs::File::open(&path).unwrap(), buffer).unwrap()?;
    Some(read.finish(Path::new("base")).map_err(|e| e.to_string()))
}

fn whole(text: &str) -> Result<Scene, String> {
    Scene::from_json(text, Path::new("base")).map_err(|e| e.to_string())
}

const GOOD: &str = r#"
{ "objects" : [
    {"name": "a", "mesh": "cube", "position": [1.5, -2, 3e2], "color": [0.25, 0.5, 1]},
    {"name": "b\u00e9 {not a brace}", "mesh": "m/x.glb#2", "parent": "c", "rotation": [0, 0.6, 0, 0.8]},
    {"name": "c", "mesh": null, "scale": [2, 3, 4]}
  ],
  "camera": {"eye": [0, 1, 5], "target": [0, 0, 0], "projection": "orthographic", "height": 4}
}
"#;

#[test]
fn pieces_agree_with_the_whole_file_at_any_buffer_size() {
    let expect = whole(GOOD).unwrap();
    assert_eq!(expect.len(), 3);
    assert_eq!(expect.parent(1), Some(2));
    // 1 byte at a time (every value split, the buffer doubling), odd sizes, and all at once.
    for buffer in [1, 2, 7, 64, 100, 1 << 16] {
        assert_eq!(pieces(GOOD, buffer), Some(Ok(expect.clone())), "buffer {buffer}");
    }
    // Escaped keys, a null camera and no whitespace at all read the same way too.
    let compact = r#"{"came\u0072a":null,"objects":[{"name":"a","mesh":"cube"}]}"#;
    assert_eq!(pieces(compact, 5), Some(whole(compact)));
    assert_eq!(pieces(r#"{"objects":[]}"#, 3).unwrap().unwrap().len(), 0);
}

#[test]
fn anything_but_a_plain_scene_file_is_left_to_the_whole_file_parse() {
    for text in [
        "",
        "\u{feff}{\"objects\":[]}",
        "[]",
        "{}",
        r#"{"objects":[],}"#,
        r#"{"objects":[{"name":"a","mesh":"cube"},]}"#,
        r#"{"objects":[],"objects":[]}"#,
        r#"{"objects":[],"bogus":1}"#,
        r#"{"objects":[{"name":"a","mesh":"cube","bogus":1}]}"#,
        r#"{"objects":[{"name":"a"}]}"#,
        r#"{"objects":[]} x"#,
        r#"{"objects":[]"#,
        r#"{"asset":{"version":"2.0"}}"#,
    ] {
        assert_eq!(pieces(text, 4), None, "{text}");
        assert!(whole(text).is_err(), "{text}");
    }
}

#[test]
fn a_syntax_error_anywhere_wins_over_problems_in_earlier_objects() {
    let text = r#"{"objects":[{"name":"a","mesh":"cube"},{"name":"a","mesh":"cube"},{"name":"b","mesh":"cube",}]}"#;
    // serde_json names the column of the `}` after the comma (1-based).
    let column = text.find(",}").unwrap() + 2;
    assert_eq!(whole(text).unwrap_err(), format!("trailing comma at line 1 column {column}"));
    assert_eq!(pieces(text, 16), None);
}

#[test]
fn problems_come_in_file_order_names_first() {
    let check = |objects: &str, expect: &str| {
        let text = format!(r#"{{"objects":[{objects}]}}"#);
        assert_eq!(whole(&text).unwrap_err(), expect, "{objects}");
        assert_eq!(pieces(&text, 16), Some(Err(expect.to_string())), "{objects}");
    };
    // A duplicate name after a bad value is still reported first.
    check(
        r#"{"name":"a","mesh":"cube","scale":[0,1,1]},{"name":"b","mesh":"cube"},{"name":"b","mesh":"cube"}"#,
        "object \"b\": duplicate name",
    );
    check(r#"{"name":"a","mesh":"cube"},{"name":"","mesh":"cube"},{"name":"a","mesh":"cube"}"#, "object 1: empty name");
    // An unknown parent of object 1 before the bad value of object 2 ...
    check(
        r#"{"name":"a","mesh":"cube"},{"name":"b","mesh":"cube","parent":"zz"},{"name":"c","mesh":"cube","scale":[1,0,1]}"#,
        "object \"b\": unknown parent \"zz\"",
    );
    // ... and after the bad value of object 0.
    check(
        r#"{"name":"a","mesh":"cube","color":[2,0,0]},{"name":"b","mesh":"cube","parent":"zz"}"#,
        "object \"a\": color components must be in [0, 1]",
    );
    // In one object: the parent, then the numbers, then the mesh.
    check(r#"{"name":"a","mesh":"teapot","parent":"zz","scale":[0,1,1]}"#, "object \"a\": unknown parent \"zz\"");
    check(r#"{"name":"a","mesh":"teapot","rotation":[0,0,0,0]}"#, "object \"a\": rotation quaternion is zero");
    // A bad mesh string is the problem of the first object naming it, even
    // when a later object has another problem first checked.
    check(
        r#"{"name":"a","mesh":"cube"},{"name":"b","mesh":"t.obj"},{"name":"c","mesh":"cube","scale":[0,1,1]},{"name":"d","mesh":"t.obj"}"#,
        "object \"b\": mesh \"t.obj\" is neither a primitive (cube, sphere, cylinder, cone, torus, plane) nor a .gltf/.glb file (optionally with #N for its mesh N)",
    );
    check(
        r#"{"name":"a","mesh":"cube","parent":"b"},{"name":"b","mesh":"cube","parent":"a"}"#,
        "object \"a\": parent chain forms a cycle",
    );
}

#[test]
fn files_the_reader_gives_up_on_fail_as_a_whole_file_read_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, b"{\"objects\":[{\"name\":\"\xff\",\"mesh\":\"cube\"}]}").unwrap();
    assert!(Scene::load_streamed(&path).is_none());
    let e = Scene::load(&path).unwrap_err().to_string();
    assert_eq!(e, format!("{}: stream did not contain valid UTF-8", path.display()));
    // A missing file: the reader gives up, the read names the file.
    let missing = dir.path().join("missing.json");
    assert!(Scene::load_streamed(&missing).is_none());
    assert!(Scene::load(&missing).unwrap_err().to_string().starts_with(&missing.display().to_string()));
    // A plain file with a bad value: the streamed answer is the error.
    std::fs::write(&path, r#"{"objects":[{"name":"a","mesh":"cube","scale":[1,0,1]}]}"#).unwrap();
    let e = Scene::load_streamed(&path).unwrap().unwrap_err().to_string();
    assert_eq!(e, format!("{}: object \"a\": scale has a zero component", path.display()));
}

#[test]
fn skins_may_name_later_objects_and_their_problems_come_in_file_order() {
    let skinned = |joints: &str, second: &str| {
        format!(
            r#"{{ "objects": [
                {{"name": "body", "mesh": "m.gltf#0", "skin": {{"index": 0, "joints": {joints}}}}},
                {{"name": "hip", "mesh": null{second}}},
                {{"name": "knee", "mesh": null, "parent": "hip"}}
            ] }}"#
        )
    };
    // The joints come after the skinned object in the file.
    let text = skinned(r#"["hip", "knee"]"#, "");
    for buffer in [3, 1 << 16] {
        let scene = pieces(&text, buffer).unwrap().unwrap();
        let skin = scene.get(0).unwrap().skin.as_ref().expect("the skin was kept");
        assert_eq!((skin.index, skin.joints.clone()), (0, vec!["hip".to_string(), "knee".to_string()]));
        assert_eq!(pieces(&text, buffer), Some(whole(&text)));
    }
    // An unknown joint is the skinned object's problem.
    let err = whole(&skinned(r#"["hip", "ankle"]"#, "")).unwrap_err();
    assert!(err.contains("body") && err.contains("ankle"), "{err}");
    // A skin on a primitive mesh is refused too.
    let err = whole(&text.replace("m.gltf#0", "cube")).unwrap_err();
    assert!(err.contains("body") && err.contains("skin"), "{err}");
    // A bad value in an earlier object wins over a later bad skin ...
    let text = r#"{ "objects": [
        {"name": "first", "mesh": "cube", "scale": [0, 1, 1]},
        {"name": "body", "mesh": "m.gltf#0", "skin": {"index": 0, "joints": ["nobody"]}}
    ] }"#;
    let err = whole(text).unwrap_err();
    assert!(err.contains("first") && err.contains("zero"), "{err}");
    // ... and a bad skin wins over a later bad value.
    let err = whole(&skinned(r#"["nobody"]"#, r#", "scale": [0, 1, 1]"#)).unwrap_err();
    assert!(err.contains("body") && err.contains("nobody"), "{err}");
}
