//! Reloading changed glTF files (`docs/spec/roundtrip.md`, "Reload of
//! changed glTF files"), in-process with the same pieces the window and the
//! replay use: the file opened, edited here, rewritten on disk (half-way
//! first, then whole: a mesh changed, meshes reordered, a node added and one
//! removed), reloaded, drawn, picked and undone. Each test writes its own
//! files; the expected pictures follow from the colours and places written.

use crate::support::gpu::{assert_no_validation_errors, project, renderer};
use crate::support::squares::{gltf, Node, Square};
use nalgebra::{Point2, Point3, Vector3};
use std::path::Path;
use viewport::app::open::{open_editor_for, open_scene};
use viewport::app::reload::Reloader;
use viewport::draw::SceneMeshes;
use viewport::editor::Editor;
use viewport::math::{Camera, DepthMode, Projection, Transform};
use viewport::render::Renderer;

const W: u32 = 200;
const H: u32 = 150;

fn camera() -> Camera {
    Camera {
        eye: Point3::new(0.0, 0.0, 8.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.1, far: 100.0 },
    }
}

const RED: [f32; 3] = [1.0, 0.0, 0.0];
const GREEN: [f32; 3] = [0.0, 1.0, 0.0];
const BLUE: [f32; 3] = [0.0, 0.0, 1.0];

/// The pixel colour class at world point `p`: which of red, green, blue
/// dominates, or `None` for the background.
fn class(r: &mut Renderer, meshes: &SceneMeshes, editor: &Editor, p: [f64; 3]) -> Option<usize> {
    let (mut frame, _) = meshes.frame(editor.scene(), camera(), DepthMode::Reversed, &[], (W, H));
    frame.grid = false;
    r.draw(&frame).unwrap();
    let image = r.read_color().unwrap();
    let (x, y) = project(&camera(), DepthMode::Reversed, W, H, Point3::new(p[0], p[1], p[2]));
    let c = image.pixel(x as u32, y as u32);
    (0..3).find(|&k| c[k] > 200 && (0..3).all(|j| j == k || c[j] < 60))
}

/// The object CPU picking finds under world point `p`.
fn picked(editor: &Editor, p: [f64; 3]) -> Option<String> {
    let (x, y) = project(&camera(), DepthMode::Reversed, W, H, Point3::new(p[0], p[1], p[2]));
    let (i, _) = editor.surface_at(Point2::new(x, y), |_| true)?;
    Some(editor.scene().objects()[i].name.to_string())
}

fn position(editor: &Editor, name: &str) -> Vector3<f64> {
    editor.scene().objects()[editor.scene().find(name).unwrap()].transform.position
}

fn reload(reloader: &mut Reloader, editor: &mut Editor, r: &mut Renderer, meshes: &mut SceneMeshes) -> Vec<String> {
    let done = reloader.reload(editor).expect("no drag in progress");
    for loaded in &done.loaded {
        meshes.add_loaded(r, loaded).unwrap();
    }
    done.warnings
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_reload_keeps_the_edits_takes_the_new_nodes_and_undoes_as_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.gltf");
    let before = [
        Node { name: "root", mesh: None, at: [0.0; 3], parent: None },
        Node { name: "a", mesh: Some(0), at: [-1.5, 0.0, 0.0], parent: Some(0) },
        Node { name: "b", mesh: Some(1), at: [1.5, 0.0, 0.0], parent: Some(0) },
        Node { name: "c", mesh: Some(0), at: [0.0, 1.5, 0.0], parent: Some(0) },
    ];
    let squares = [Square { name: "left", half: 0.5, color: RED }, Square { name: "right", half: 0.5, color: GREEN }];
    write(&path, &gltf(&before, &squares));

    let opened = open_scene(Some(&path)).unwrap();
    let mut reloader = opened.reloader();
    let (mut editor, loaded) = open_editor_for(opened, (W, H), DepthMode::Reversed).unwrap();
    editor.camera = camera();
    let mut r = renderer(W, H);
    let mut meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    assert_eq!(class(&mut r, &meshes, &editor, [-1.5, 0.0, 0.0]), Some(0), "a is red before");

    // Edits made here: `a` moved down, `b` copied and the copy moved down.
    let a = editor.scene().find("a").unwrap();
    let start = editor.scene().objects()[a].transform;
    let moved = Transform { position: Vector3::new(-1.5, -1.5, 0.0), ..start };
    assert!(editor.commit_transform(a, start, moved));
    editor.set_selection(&[editor.scene().find("b").unwrap()]);
    assert!(editor.duplicate());
    let copy = editor.scene().find("b.001").unwrap();
    let copy_start = editor.scene().objects()[copy].transform;
    assert!(editor.commit_transform(
        copy,
        copy_start,
        Transform { position: Vector3::new(1.5, -1.5, 0.0), ..copy_start }
    ));
    let objects_before = editor.scene().len();

    // The re-export: meshes swapped in order, `left` now blue and larger;
    // `b` moved in the file; `c` gone; `d` new.
    let after = [
        Node { name: "root", mesh: None, at: [0.0; 3], parent: None },
        Node { name: "d", mesh: Some(1), at: [0.0, 0.0, 0.0], parent: Some(0) },
        Node { name: "a", mesh: Some(1), at: [-1.5, 0.0, 0.0], parent: Some(0) },
        Node { name: "b", mesh: Some(0), at: [1.5, 1.0, 0.0], parent: Some(0) },
    ];
    let squares_after =
        [Square { name: "right", half: 0.5, color: GREEN }, Square { name: "left", half: 0.6, color: BLUE }];
    let text = gltf(&after, &squares_after);

    // Written half-way first: one warning naming the file, the scene unchanged.
    write(&path, &text[..text.len() / 2]);
    let warnings = reload(&mut reloader, &mut editor, &mut r, &mut meshes);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("model.gltf"), "{warnings:?}");
    assert_eq!(editor.scene().len(), objects_before);
    assert_eq!(class(&mut r, &meshes, &editor, [-1.5, -1.5, 0.0]), Some(0), "a is still red");
    // The same broken content again: no second warning.
    assert!(reload(&mut reloader, &mut editor, &mut r, &mut meshes).is_empty());

    // Then whole.
    write(&path, &text);
    assert!(reload(&mut reloader, &mut editor, &mut r, &mut meshes).is_empty());
    let names: Vec<String> = editor.scene().objects().iter().map(|o| o.name.to_string()).collect();
    assert!(names.contains(&"d".to_string()) && !names.contains(&"c".to_string()), "{names:?}");
    assert!(names.contains(&"b.001".to_string()), "the copy made here stays: {names:?}");
    // The edit kept; the unedited node takes the file's new place.
    assert_eq!(position(&editor, "a"), Vector3::new(-1.5, -1.5, 0.0));
    assert_eq!(position(&editor, "b"), Vector3::new(1.5, 1.0, 0.0));
    let d = editor.scene().find("d").unwrap();
    assert_eq!(editor.scene().parent(d), editor.scene().find("root"));
    // New geometry drawn: `a` follows its mesh by name (`left`, now blue);
    // the copy follows `right` (still green) though its index changed.
    assert_eq!(class(&mut r, &meshes, &editor, [-1.5, -1.5, 0.0]), Some(2), "a is blue now");
    assert_eq!(class(&mut r, &meshes, &editor, [0.0, 0.0, 0.0]), Some(2), "d is drawn");
    assert_eq!(class(&mut r, &meshes, &editor, [1.5, 1.0, 0.0]), Some(1), "b moved with the file");
    assert_eq!(class(&mut r, &meshes, &editor, [1.5, -1.5, 0.0]), Some(1), "the copy keeps its mesh");
    assert_eq!(class(&mut r, &meshes, &editor, [0.0, 1.5, 0.0]), None, "c is gone");
    // ... and picked: the larger square reaches 0.55 from `a`'s centre.
    assert_eq!(picked(&editor, [-1.5 + 0.55, -1.5, 0.0]).as_deref(), Some("a"));
    assert_eq!(picked(&editor, [0.0, 0.0, 0.0]).as_deref(), Some("d"));
    let saved = editor.scene_to_save().to_json();
    assert!(saved.contains("\"model.gltf#1\""), "a names the moved mesh: {saved}");

    // One undo step brings back the earlier reading.
    assert!(editor.undo());
    let names: Vec<String> = editor.scene().objects().iter().map(|o| o.name.to_string()).collect();
    assert!(names.contains(&"c".to_string()) && !names.contains(&"d".to_string()), "{names:?}");
    assert_eq!(position(&editor, "b"), Vector3::new(1.5, 0.0, 0.0));
    assert_eq!(position(&editor, "a"), Vector3::new(-1.5, -1.5, 0.0));
    assert_eq!(class(&mut r, &meshes, &editor, [-1.5, -1.5, 0.0]), Some(0), "a is red again");
    assert_eq!(class(&mut r, &meshes, &editor, [0.0, 1.5, 0.0]), Some(0), "c is back");
    assert_eq!(picked(&editor, [-1.5 + 0.55, -1.5, 0.0]), None, "the old square is smaller");
    // The step before it is the copy's move.
    assert!(editor.undo());
    assert_eq!(position(&editor, "b.001"), position(&editor, "b"));
    // Redo twice: the reload again.
    assert!(editor.redo() && editor.redo());
    assert_eq!(class(&mut r, &meshes, &editor, [-1.5, -1.5, 0.0]), Some(2));
    assert!(editor.scene().find("d").is_some());
    assert_no_validation_errors(&r);
}

#[test]
fn a_missing_mesh_file_is_a_placeholder_until_it_appears_and_is_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    let scene_path = dir.path().join("level.scene.json");
    std::fs::write(
        &scene_path,
        r#"{"objects": [{"name": "prop", "mesh": "props/prop.gltf#0", "position": [0, 0, 0]}]}"#,
    )
    .unwrap();
    let opened = open_scene(Some(&scene_path)).unwrap();
    let mut reloader = opened.reloader();
    let (mut editor, loaded) = open_editor_for(opened, (W, H), DepthMode::Reversed).unwrap();
    assert_eq!(loaded.warnings().len(), 1, "one warning for the missing file");
    assert!(loaded.warnings()[0].contains("prop.gltf"), "{:?}", loaded.warnings());
    editor.camera = camera();
    let mut r = renderer(W, H);
    let mut meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    // The placeholder: a 0.5 m box, lit grey (no primary colour).
    assert_eq!(class(&mut r, &meshes, &editor, [0.0, 0.0, 0.0]), None);
    assert_eq!(picked(&editor, [0.0, 0.0, 0.0]).as_deref(), Some("prop"));
    assert_eq!(picked(&editor, [0.4, 0.0, 0.0]), None, "the box is 0.5 m wide");
    // Nothing changed on disk yet: a reload is quiet and changes nothing.
    assert!(reload(&mut reloader, &mut editor, &mut r, &mut meshes).is_empty());
    assert!(!editor.history().can_undo());

    // The file appears.
    std::fs::create_dir_all(dir.path().join("props")).unwrap();
    let squares = [Square { name: "prop", half: 0.8, color: BLUE }];
    let nodes = [Node { name: "prop", mesh: Some(0), at: [0.0; 3], parent: None }];
    write(&dir.path().join("props/prop.gltf"), &gltf(&nodes, &squares));
    assert!(reload(&mut reloader, &mut editor, &mut r, &mut meshes).is_empty());
    assert_eq!(class(&mut r, &meshes, &editor, [0.0, 0.0, 0.0]), Some(2), "the real mesh is drawn");
    assert_eq!(picked(&editor, [0.7, 0.0, 0.0]).as_deref(), Some("prop"), "and picked");
    // The reference is saved as it was written.
    let saved = editor.scene_to_save().to_json();
    assert!(saved.contains("\"props/prop.gltf#0\""), "{saved}");
    assert_no_validation_errors(&r);
}

/// Node keys: names with their order among same-named siblings, so that a
/// re-export that renames nothing matches every node, however it renumbers.
#[test]
fn node_keys_tell_same_named_siblings_apart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.gltf");
    let nodes = [
        Node { name: "arm", mesh: None, at: [0.0; 3], parent: None },
        Node { name: "bolt", mesh: Some(0), at: [0.0; 3], parent: Some(0) },
        Node { name: "bolt", mesh: Some(0), at: [1.0, 0.0, 0.0], parent: Some(0) },
        Node { name: "arm", mesh: None, at: [0.0; 3], parent: None },
        Node { name: "bolt", mesh: Some(0), at: [0.0; 3], parent: Some(3) },
    ];
    write(&path, &gltf(&nodes, &[Square { name: "m", half: 0.1, color: RED }]));
    let file = viewport::scene::gltf::GltfFile::read(&path).unwrap();
    let keys = viewport::app::reload::node_keys(&file.nodes().unwrap());
    let key = |parts: &[(&str, usize)]| parts.iter().map(|(n, k)| (n.to_string(), *k)).collect::<Vec<_>>();
    assert_eq!(
        keys,
        vec![
            key(&[("arm", 0)]),
            key(&[("arm", 0), ("bolt", 0)]),
            key(&[("arm", 0), ("bolt", 1)]),
            key(&[("arm", 1)]),
            key(&[("arm", 1), ("bolt", 0)]),
        ]
    );
}
