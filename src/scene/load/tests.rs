//! The piecewise reader against the whole-file parse, and the order in
//! which problems are reported.

use std::path::Path;

use super::*;

/// `text` written to a file and read by [`read_pieces`] with a `buffer`
/// of that many bytes: `None` when it gave up. Read by one thread and by
/// two (a second from the middle on, where it can), which must agree.
fn pieces(text: &str, buffer: usize) -> Option<Result<Scene, String>> {
    let one = pieces_split(text, buffer, u64::MAX).map(|r| r.0);
    let two = pieces_split(text, buffer, 0).map(|r| r.0);
    assert_eq!(one, two, "one thread and two disagree on {text}");
    one
}

/// [`pieces`] with files of `split_min` bytes or more read by two threads,
/// and how many objects the second read.
fn pieces_split(text: &str, buffer: usize, split_min: u64) -> Option<(Result<Scene, String>, usize)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(&path, text).unwrap();
    let read = read_pieces(&path, buffer, split_min).unwrap()?;
    let taken_over = read.objects.taken_over;
    Some((read.finish(Path::new("base")).map_err(|e| e.to_string()), taken_over))
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
        // Cut off right after the array opens (no byte left to give back).
        r#"{"objects":["#,
        "{\"objects\": [   \n  ",
        r#"{"camera":{"eye":[1,2,3],"target":[0,0,0]},"objects":["#,
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
        assert_eq!((skin.index, skin.joints.to_vec()), (0, vec!["hip".to_string(), "knee".to_string()]));
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

/// A scene file of `n` objects: parents named before and after, a mesh
/// first named late, a skin whose joints come later, and the names given.
fn many(n: usize, name: impl Fn(usize) -> String) -> String {
    let objects: Vec<String> = (0..n)
        .map(|i| {
            let mesh = match i % 7 {
                0 => r#""cube""#.to_string(),
                1 if i > n / 2 + 10 => r#""late.glb#1""#.to_string(),
                2 => "null".to_string(),
                _ => r#""sphere""#.to_string(),
            };
            let parent = match i % 5 {
                0 if i > 0 => format!(r#", "parent": {}"#, serde_json::to_string(&name(i - 1)).unwrap()),
                1 if i + 3 < n => format!(r#", "parent": {}"#, serde_json::to_string(&name(i + 3)).unwrap()),
                _ => String::new(),
            };
            let skin = if i == 8 {
                format!(r#", "mesh2": 0, "skin": {{"index": 0, "joints": [{}]}}"#, serde_json::to_string(&name(n - 1)).unwrap())
                    .replace(r#", "mesh2": 0"#, "")
            } else {
                String::new()
            };
            let mesh = if i == 8 { r#""m.gltf#0""#.to_string() } else { mesh };
            format!(
                "    {{\"name\": {}, \"mesh\": {mesh}{parent}{skin}, \"position\": [{}, 0.5, -{i}], \"color\": [0.25, 0.5, 1]}}",
                serde_json::to_string(&name(i)).unwrap(),
                i as f64 * 1.5
            )
        })
        .collect();
    format!(
        "{{\n  \"objects\": [\n{}\n  ],\n  \"camera\": {{\"eye\": [0, 1, 5], \"target\": [0, 0, 0]}}\n}}\n",
        objects.join(",\n")
    )
}

#[test]
fn a_second_thread_reads_the_second_half_and_agrees_with_one() {
    let text = many(400, |i| format!("o{i}"));
    let expect = whole(&text).unwrap();
    assert_eq!(expect.len(), 400);
    for buffer in [5, 1000, 1 << 20] {
        let (two, taken_over) = pieces_split(&text, buffer, 0).unwrap();
        assert_eq!(two, Ok(expect.clone()), "buffer {buffer}");
        // About half the objects came from the second thread.
        assert!((150..250).contains(&taken_over), "buffer {buffer}: {taken_over} taken over");
    }
    // Below the size given, one thread reads it all.
    assert_eq!(pieces_split(&text, 1 << 20, text.len() as u64 + 1).unwrap().1, 0);
}

#[test]
fn a_guess_inside_a_string_is_dropped() {
    // One name, long enough to hold the middle of the file, is made of
    // `}, {`: the second thread's guess is inside it, so the first thread
    // never arrives there and reads on alone.
    let long = "}, {\" ".repeat(20_000);
    let text = many(300, |i| if i == 150 { long.clone() } else { format!("o{i}") });
    let expect = whole(&text).unwrap();
    assert_eq!(expect.objects()[150].name, long);
    let (two, taken_over) = pieces_split(&text, 64, 0).unwrap();
    assert_eq!(two, Ok(expect));
    assert_eq!(taken_over, 0);
}

#[test]
fn problems_across_the_halves_come_in_file_order() {
    // A bad value late in the first half, a duplicate of an early name in
    // the second: the duplicate wins (names first), then the bad value.
    let base = many(300, |i| format!("o{i}"));
    let dup = base.replace(r#""name": "o250""#, r#""name": "o3""#);
    let bad = dup.replace(r#""position": [148.5, 0.5, -99]"#, r#""position": [148.5, 0.5, -99], "scale": [0, 1, 1]"#);
    assert_ne!(bad, dup);
    assert_eq!(whole(&bad).unwrap_err(), "object \"o3\": duplicate name");
    let (two, taken_over) = pieces_split(&bad, 4096, 0).unwrap();
    assert_eq!(two, Err("object \"o3\": duplicate name".to_string()));
    assert!(taken_over > 0);
    let bad_only =
        base.replace(r#""position": [148.5, 0.5, -99]"#, r#""position": [148.5, 0.5, -99], "scale": [0, 1, 1]"#);
    let later = bad_only
        .replace(r#""position": [375, 0.5, -250]"#, r#""position": [375, 0.5, -250], "rotation": [0, 0, 0, 0]"#);
    assert_ne!(later, bad_only);
    assert_eq!(pieces(&later, 4096), Some(whole(&later)));
    assert_eq!(whole(&later).unwrap_err(), "object \"o99\": scale has a zero component");
    // A syntax error in the second half: both give up (the whole-file
    // parse names it).
    let broken = base.replace(r#""name": "o260""#, r#""name": "o260",,"#);
    assert_eq!(pieces_split(&broken, 4096, 0), None);
}

#[test]
fn extras_read_the_same_in_pieces_by_one_thread_or_two() {
    let text = r#"{"objects": [
        {"name": "a", "mesh": "cube", "extras": {"hp": 3, "s": "} {", "list": [1, {"x": null}]}},
        {"name": "b", "mesh": "cube"},
        {"name": "c", "mesh": null, "extras": "plain", "parent": "a"}
    ]}"#;
    let expect = whole(text).unwrap();
    assert_eq!(
        expect.objects()[0].extras.as_deref(),
        Some(&serde_json::json!({"hp": 3, "s": "} {", "list": [1, {"x": null}]}))
    );
    assert_eq!(expect.objects()[1].extras, None);
    assert_eq!(expect.objects()[2].extras.as_deref(), Some(&serde_json::json!("plain")));
    for buffer in [1, 7, 64, 1 << 16] {
        assert_eq!(pieces(text, buffer), Some(Ok(expect.clone())), "buffer {buffer}");
    }
    // Saved and read again: the same.
    assert_eq!(whole(&expect.to_json()).unwrap(), expect);
}

#[test]
fn hidden_flags_read_the_same_in_pieces_and_whole() {
    let text = r#"{"objects":[{"name":"a","mesh":"cube","hidden":true},{"name":"b","mesh":"cube"},
        {"name":"c","mesh":"cube","hidden":false},{"name":"d","mesh":"cube","hidden":true}]}"#;
    let expect = whole(text).unwrap();
    assert_eq!(expect.hidden_ids().collect::<Vec<_>>(), [0, 3]);
    for buffer in [1, 7, 1 << 16] {
        let read = pieces(text, buffer).unwrap().unwrap();
        assert_eq!(read, expect, "buffer {buffer}");
        assert_eq!(read.hidden_count(), 2);
    }
}
