//! Tests of the scene: the demo, JSON round trips, world matrices, bad files, mesh references.

use std::path::Path;

use nalgebra::{Matrix4, Vector3};

use super::*;
use crate::math::Transform;

#[test]
fn demo_scene_loads_with_a_child_under_a_rotated_parent() {
    let s = Scene::demo();
    assert!(s.len() >= 4);
    let child = (0..s.len()).find(|&i| s.parent(i).is_some()).expect("a child");
    let parent = s.parent(child).unwrap();
    assert!(s.objects()[parent].transform.rotation.angle() > 0.1);
}

#[test]
fn round_trips_through_json() {
    let s = Scene::demo();
    let again = Scene::from_json(&s.to_json(), Path::new("assets")).unwrap();
    assert_eq!(s.len(), again.len());
    for (a, b) in s.objects().iter().zip(again.objects()) {
        assert_eq!(a.name, b.name);
        assert_eq!(s.hierarchy(), again.hierarchy());
        assert!((a.transform.matrix() - b.transform.matrix()).norm() < 1e-12);
    }
    let (a, b) = (s.camera.unwrap(), again.camera.unwrap());
    assert!((a.eye - b.eye).norm() < 1e-12);
}

#[test]
fn child_world_matrix_composes_parent() {
    let s = Scene::demo();
    let child = (0..s.len()).find(|&i| s.parent(i).is_some()).unwrap();
    let p = s.parent(child).unwrap();
    let expect = s.world_matrix(p) * s.objects()[child].transform.matrix();
    assert!((s.world_matrix(child) - expect).norm() < 1e-12);
    assert!((s.world_matrices()[child] - expect).norm() < 1e-12);
}

/// Down a chain of 40 (deeper than the ancestors `world_matrix` keeps on
/// its stack) with a branch off it, each object's world matrix is its
/// parent's times its own, multiplied from the root down: the same bits
/// from `world_matrix` and `world_matrices` (the pick boxes are derived
/// from one, the drawn objects from the other).
#[test]
fn world_matrices_compose_from_the_root_down_on_every_path() {
    use nalgebra::UnitQuaternion;
    let mut s = Scene::default();
    for k in 0..44usize {
        let f = k as f64;
        let transform = Transform {
            position: Vector3::new(1.0e4 + 0.3 * f, -0.7 * f, 0.11 * f),
            rotation: UnitQuaternion::from_euler_angles(0.1 * f, -0.05 * f, 0.02 * f),
            scale: Vector3::new(1.0 + 0.01 * f, 0.99, 1.0 - 0.005 * f),
        };
        let parent = match k {
            0 => None,
            40.. => Some(20),
            _ => Some(k - 1),
        };
        let object = Object {
            name: format!("o{k}").into(),
            mesh: MeshRef::Empty,
            transform,
            color: [1.0; 3],
            hidden: false,
            skin: None,
            extras: None,
            origin: None,
            fixture: None,
            cast_shadows: true,
        };
        s.push(object, parent).unwrap();
    }
    let mut expect: Vec<Matrix4<f64>> = Vec::new();
    for k in 0..44 {
        let local = s.objects()[k].transform.matrix();
        let parent = s.parent(k).map_or_else(Matrix4::identity, |p| expect[p]);
        expect.push(if k == 0 { local } else { parent * local });
    }
    let all = s.world_matrices();
    for k in 0..44 {
        assert_eq!(s.world_matrix(k), expect[k], "object {k}");
        assert_eq!(all[k], expect[k], "object {k}");
    }
}

#[test]
fn bad_scenes_are_rejected_with_a_named_problem() {
    let cases = [
        (r#"{"objects":[{"name":"a","mesh":"cube","bogus":1}]}"#, "bogus"),
        (r#"{"objects":[{"name":"a","mesh":"cube"},{"name":"a","mesh":"cube"}]}"#, "duplicate"),
        (r#"{"objects":[{"name":"a","mesh":"cube","parent":"b"}]}"#, "unknown parent"),
        (r#"{"objects":[{"name":"a","mesh":"teapot"}]}"#, "teapot"),
        (r#"{"objects":[{"name":"a","mesh":"cube","scale":[1,0,1]}]}"#, "zero"),
        (r#"{"objects":[{"name":"a","mesh":"cube","rotation":[0,0,0,0]}]}"#, "zero"),
        (r#"{"objects":[{"name":"a","mesh":"cube","position":[0,2e15,0]}]}"#, "beyond 1e15"),
        (r#"{"objects":[{"name":"a","mesh":"cube","scale":[1,1,-1.5e15]}]}"#, "beyond 1e15"),
        (r#"{"objects":[{"name":"a","mesh":"cube","parent":"b"},{"name":"b","mesh":"cube","parent":"a"}]}"#, "cycle"),
        (r#"{"camera":{"eye":[1,1,1],"target":[1,1,1]},"objects":[]}"#, "coincide"),
        (r#"{"objects":[{"name":"a","mesh":"cube"}"#, "EOF"),
    ];
    for (json, needle) in cases {
        let e = Scene::from_json(json, Path::new(".")).unwrap_err().to_string();
        assert!(e.contains(needle), "{json}: {e}");
    }
}

#[test]
fn atomic_save_leaves_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    Scene::demo().save(&path).unwrap();
    assert!(Scene::load(&path).is_ok());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// The record every object of a scene takes: a million objects take
/// a million of these. `MeshRef` is a tag and a pointer (the glTF
/// reference is boxed), a skin a thin pointer and an index, the
/// transform stays f64 (24 + 32 + 24 bytes), the colour 3 f32, the
/// name a `String` (its text on the heap).
#[test]
fn an_object_record_is_compact() {
    use std::mem::size_of;
    assert_eq!(size_of::<MeshRef>(), 16);
    assert_eq!(size_of::<Option<Box<SkinRef>>>(), 8);
    assert_eq!(size_of::<Transform>(), 80);
    // The name: 24 bytes, and names up to 23 bytes need no heap block.
    assert_eq!(size_of::<smol_str::SmolStr>(), 24);
    assert!(!smol_str::SmolStr::new("cube_999999").is_heap_allocated());
    assert!(smol_str::SmolStr::new("a name longer than 23 bytes").is_heap_allocated());
    // 24 (name) + 16 (mesh) + 80 (transform) + 12 (colour) + 1 (hidden) +
    // 8 (skin) + 8 (extras) + 8 (origin) + 8 (light and camera), rounded up
    // to the 8-byte alignment: 165 -> 168 (the light and camera box cost
    // 8 MB at 1M objects).
    assert_eq!(size_of::<Option<Box<serde_json::Value>>>(), 8);
    assert_eq!(size_of::<Option<Box<crate::scene::NodeOrigin>>>(), 8);
    assert_eq!(size_of::<Option<Box<crate::scene::fixture::Fixture>>>(), 8);
    assert_eq!(size_of::<Object>(), 168);
}

/// A dead slot costs no more than a live one: a niche of the record (the
/// name's or the mesh's) holds the `None`.
#[test]
fn a_slot_is_the_size_of_an_object() {
    assert_eq!(std::mem::size_of::<Option<Object>>(), std::mem::size_of::<Object>());
}

#[test]
fn removed_objects_leave_dead_slots_and_come_back_in_them() {
    let json = r#"{"objects":[{"name":"a","mesh":"cube"},{"name":"b","mesh":"cube","parent":"a"},
        {"name":"c","mesh":"cube"},{"name":"d","mesh":"cube","parent":"c"}]}"#;
    let mut s = Scene::from_json(json, Path::new(".")).unwrap();
    let original = s.clone();
    let out = s.remove(&[0]);
    assert_eq!(out.indices, [0, 1], "a with its child");
    assert_eq!((s.len(), s.id_bound()), (2, 4));
    assert_eq!((s.find("a"), s.find("b"), s.find("d")), (None, None, Some(3)));
    assert!(s.get(0).is_none() && s.objects()[2].name == "c");
    assert_eq!(s.ids().collect::<Vec<_>>(), [2, 3]);
    assert_eq!(s.world_matrices()[0], Matrix4::zeros(), "a dead slot has no world matrix");
    // The saved file lists the live objects in id order.
    let names: Vec<String> = s.to_file().objects.into_iter().map(|o| o.name).collect();
    assert_eq!(names, ["c", "d"]);
    // Copies take new slots after the last, named against the live names.
    let copies = s.duplicates(&[2]);
    assert_eq!(copies.indices, [4, 5]);
    assert_eq!(copies.parents, [None, Some(4)]);
    assert_eq!(copies.objects.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), ["c.001", "d.001"]);
    s.restore(&out).unwrap();
    assert_eq!(s, original, "back in the same slots");
    assert_eq!(s.find("b"), Some(1));
    assert_eq!(s.restore(&out), Err(HierarchyError::Taken(0)), "the slots are live again");
    assert_eq!(s, original, "a refused restore changes nothing");
    // Appended copies, removed and truncated, leave the scene as it was.
    s.restore(&copies).unwrap();
    assert_eq!((s.len(), s.find("d.001")), (6, Some(5)));
    s.remove(&[4]);
    s.truncate(4);
    assert_eq!(s, original);
}

mod mesh_ref_tests {
    use std::path::{Path, PathBuf};

    use super::super::*;

    #[test]
    fn hash_n_names_one_mesh_and_null_is_an_empty_object() {
        let s = Scene::from_json(
            r#"{"objects":[{"name":"a","mesh":"m/x.glb#3"},{"name":"b","mesh":null},{"name":"c","mesh":"x.gltf"}]}"#,
            Path::new("base"),
        )
        .unwrap();
        assert_eq!(s.objects()[0].mesh, MeshRef::gltf("m/x.glb#3".into(), PathBuf::from("base/m/x.glb"), Some(3)));
        assert_eq!(s.objects()[1].mesh, MeshRef::Empty);
        assert!(matches!(s.objects()[2].mesh.gltf_mesh(), Some((_, None))));
        let json = s.to_json();
        assert!(json.contains(r#""mesh": "m/x.glb#3""#) && json.contains(r#""mesh": null"#), "{json}");
        assert_eq!(Scene::from_json(&json, Path::new("base")).unwrap(), s);
        // `mesh` stays a required field; a `#` that is not a mesh index is refused.
        for bad in [r#"{"objects":[{"name":"a"}]}"#, r#"{"objects":[{"name":"a","mesh":"x.glb#one"}]}"#] {
            assert!(Scene::from_json(bad, Path::new(".")).is_err(), "{bad}");
        }
    }

    #[test]
    fn saving_elsewhere_rewrites_gltf_paths_to_name_the_same_files() {
        let dir = tempfile::tempdir().unwrap();
        let models = dir.path().join("models");
        let scene = Scene::from_json(
            r#"{"objects":[{"name":"a","mesh":"x.glb#1"},{"name":"b","mesh":"y.gltf"},{"name":"c","mesh":null}]}"#,
            &models,
        )
        .unwrap();
        let out = dir.path().join("out/s.json");
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        scene.save(&out).unwrap();
        let again = Scene::load(&out).unwrap();
        let sources: Vec<_> = again.objects().iter().map(|o| o.mesh.source().map(str::to_string)).collect();
        assert_eq!(sources, [Some("../models/x.glb#1".to_string()), Some("../models/y.gltf".to_string()), None]);
        // Saved beside the meshes, the paths are kept as written.
        let beside = models.join("s.json");
        std::fs::create_dir_all(&models).unwrap();
        scene.save(&beside).unwrap();
        assert_eq!(Scene::load(&beside).unwrap().objects()[0].mesh.source(), Some("x.glb#1"));
    }
}

#[test]
fn hidden_flags_load_save_count_and_hide_descendants() {
    let json = r#"{"objects":[{"name":"a","mesh":"cube","hidden":true},{"name":"b","mesh":"cube","parent":"a"},
        {"name":"c","mesh":"cube","parent":"b","hidden":true},{"name":"d","mesh":"cube"}]}"#;
    let mut s = Scene::from_json(json, Path::new(".")).unwrap();
    assert_eq!(s.hidden_count(), 2);
    assert_eq!(s.hidden_ids().collect::<Vec<_>>(), [0, 2]);
    // b inherits a's state; its own flag stays clear.
    assert_eq!((0..4).map(|i| s.is_hidden(i)).collect::<Vec<_>>(), [true, true, true, false]);
    assert!(!s.objects()[1].hidden);
    // Only the flagged objects carry the key, and it reads back the same.
    let file = s.to_file();
    assert_eq!(file.objects.iter().map(|o| o.hidden).collect::<Vec<_>>(), [true, false, true, false]);
    assert_eq!(s.to_json().matches("\"hidden\"").count(), 2);
    assert_eq!(Scene::from_json(&s.to_json(), Path::new(".")).unwrap(), s);
    // Showing a shows b, but not c, which is hidden itself.
    assert!(s.set_hidden(0, false));
    assert!(!s.set_hidden(0, false), "no change");
    assert_eq!((0..4).map(|i| s.is_hidden(i)).collect::<Vec<_>>(), [false, false, true, false]);
    assert_eq!(s.hidden_count(), 1);
    // Removing and restoring keeps the count.
    let out = s.remove(&[1]);
    assert_eq!(s.hidden_count(), 0);
    assert_eq!(s.hidden_ids().count(), 0);
    s.restore(&out).unwrap();
    assert_eq!(s.hidden_count(), 1);
    // Copies keep the flag.
    let copies = s.duplicates(&[1]);
    assert_eq!(copies.objects.iter().map(|o| o.hidden).collect::<Vec<_>>(), [false, true]);
    s.restore(&copies).unwrap();
    assert_eq!(s.hidden_count(), 2);
}
