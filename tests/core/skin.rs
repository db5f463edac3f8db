//! Skins in the editor, without a GPU: the posed triangles that picking
//! and snapping use, for the two-bone strip of `support::skinned`. The rest
//! pose gives the file's own (bind-pose) vertices; moving a joint (or its parent) poses anew, moving the
//! skinned object alone does not move the skin (glTF); deleting a joint
//! leaves the mesh unposed until undo; duplicating a model poses the copy
//! by the copied joints; importing renames the joints with the objects.

use crate::support::skinned::{write_skinned_strip, TIP_AT};
use nalgebra::{Point3, Translation3, Vector3};
use viewport::app::open::{open_editor_for, open_scene, read_import};
use viewport::editor::Editor;
use viewport::math::{DepthMode, Transform};

fn open(tag: &str) -> (Editor, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("viewport-skin-core-{tag}-{}", std::process::id()));
    let path = write_skinned_strip(&dir, "strip");
    let (editor, _) = open_editor_for(open_scene(Some(&path)).unwrap(), (320, 240), DepthMode::Reversed).unwrap();
    (editor, dir)
}

/// The posed vertices of object `i` in world space.
fn world_vertices(e: &Editor, i: usize) -> Vec<Point3<f64>> {
    let m = e.scene().world_matrix(i);
    let pm = e.posed_mesh(i).expect("posed");
    pm.data.positions.iter().map(|p| m.transform_point(&Point3::from(p.map(f64::from)))).collect()
}

fn translate(e: &mut Editor, i: usize, by: Vector3<f64>) {
    let before = e.scene().objects()[i].transform;
    let after = Transform { position: before.position + by, ..before };
    assert!(e.commit_transform(i, before, after));
}

#[test]
fn the_rest_pose_is_the_bind_pose_and_joints_pose_the_skin() {
    let (mut e, dir) = open("rest");
    let strip = e.scene().find("strip").unwrap();
    let (root, tip) = (e.scene().find("root").unwrap(), e.scene().find("tip").unwrap());
    // Rest pose: the file's vertices, exactly (root and tip at their bind places).
    let rest = world_vertices(&e, strip);
    let mut expected: Vec<[f64; 2]> = Vec::new();
    for (y, _) in crate::support::skinned::ROWS {
        for x in [-0.25, 0.25] {
            // As the file stores them (f32).
            expected.push([x, f64::from(y as f32)]);
        }
    }
    assert_eq!(rest.len(), 18, "three flat-shaded vertices per triangle, six triangles");
    for p in &rest {
        assert!(expected.iter().any(|q| q[0] == p.x && q[1] == p.y && p.z == 0.0), "{p}");
    }
    for q in &expected {
        assert!(rest.iter().any(|p| q[0] == p.x && q[1] == p.y), "{q:?} is drawn");
    }

    // Moving the tip by d moves the vertices above y = 1.1 by d, the others not.
    let d = Vector3::new(0.7, 0.2, -0.3);
    translate(&mut e, tip, d);
    for (p, q) in world_vertices(&e, strip).iter().zip(&rest) {
        let want = if q.y > 1.1 { q + d } else { *q };
        assert!((p - want).norm() < 1e-6, "{p} vs {want}");
    }
    // Moving the root (the tip's parent) moves them all.
    let r = Vector3::new(-2.0, 0.0, 1.0);
    translate(&mut e, root, r);
    for (p, q) in world_vertices(&e, strip).iter().zip(&rest) {
        let want = if q.y > 1.1 { q + d + r } else { q + r };
        assert!((p - want).norm() < 1e-6, "{p} vs {want}");
    }
    // Moving the skinned object itself does not move the skin (its joints
    // place it), but its posed triangles follow into its new space.
    translate(&mut e, strip, Vector3::new(5.0, 0.0, 0.0));
    for (p, q) in world_vertices(&e, strip).iter().zip(&rest) {
        let want = if q.y > 1.1 { q + d + r } else { q + r };
        assert!((p - want).norm() < 1e-6, "{p} vs {want}");
    }
    // Undo, three times: the rest pose again.
    for _ in 0..3 {
        assert!(e.undo());
    }
    for (p, q) in world_vertices(&e, strip).iter().zip(&rest) {
        assert!((p - q).norm() < 1e-9);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `docs/spec/roundtrip.md`: a deleted joint hands its influence to its
/// nearest remaining ancestor joint. The tip, moved 1 m along x, is
/// deleted: its part of the strip follows the root again, as the root's
/// own part does (back at rest, the root never moved); undo brings the tip
/// back with its move.
#[test]
fn a_deleted_joint_hands_its_vertices_to_its_parent_until_undo() {
    let (mut e, dir) = open("delete");
    let strip = e.scene().find("strip").unwrap();
    let tip = e.scene().find("tip").unwrap();
    translate(&mut e, tip, Vector3::new(1.0, 0.0, 0.0));
    e.set_selection(&[tip]);
    assert!(e.delete());
    let strip = e.scene().find("strip").unwrap_or(strip);
    assert!(e.posed_mesh(strip).is_some(), "posed by the root alone");
    let joints = e.scene().objects()[strip].skin.as_ref().unwrap().joints.to_vec();
    assert_eq!(joints, vec!["root".to_string(), "root".to_string()]);
    // At the tip's rest place (0, 1.6) the strip is hit, at the moved
    // place (1, 1.6) nothing.
    let ray_hit = |e: &Editor, x: f64| {
        let v = e.view().unwrap();
        let s = v.world_to_screen(&Point3::new(x, 1.6, 0.0)).unwrap();
        e.surface_at(s, |_| true).map(|(i, _)| i)
    };
    e.camera.eye = Point3::new(0.0, 1.0, 8.0);
    e.camera.target = Point3::new(0.0, 1.0, 0.0);
    assert_eq!(ray_hit(&e, 0.0), Some(strip));
    assert_eq!(ray_hit(&e, 1.0), None);
    assert!(e.undo());
    assert!(e.posed_mesh(strip).is_some());
    assert_eq!(e.scene().objects()[strip].skin.as_ref().unwrap().joints.to_vec(), vec!["root", "tip"]);
    assert_eq!(ray_hit(&e, 1.0), Some(strip));
    assert_eq!(ray_hit(&e, 0.0), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_duplicated_model_is_posed_by_its_copied_joints() {
    let (mut e, dir) = open("dup");
    let strip = e.scene().find("strip").unwrap();
    let root = e.scene().find("root").unwrap();
    e.set_selection(&[strip, root]);
    assert!(e.duplicate());
    let copy = e.scene().find("strip.001").unwrap();
    let skin = e.scene().objects()[copy].skin.clone().unwrap();
    assert_eq!(skin.joints, vec!["root.001".to_string(), "tip.001".to_string()]);
    let rest = world_vertices(&e, strip);
    let tip_copy = e.scene().find("tip.001").unwrap();
    translate(&mut e, tip_copy, Vector3::new(0.0, 0.0, 2.0));
    assert_eq!(world_vertices(&e, strip), rest, "the original keeps its pose");
    let moved = world_vertices(&e, copy).iter().zip(&rest).filter(|(p, q)| (*p - *q).norm() > 1.9).count();
    assert_eq!(moved, 9, "the copy's corners above y = 1.1 (nine of eighteen) moved");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_import_renames_the_joints_with_the_objects() {
    let (mut e, dir) = open("import");
    let read = read_import(&dir.join("strip.gltf")).unwrap();
    viewport::app::open::import_into(&mut e, &read);
    let copy = e.scene().find("strip.001").unwrap();
    assert_eq!(e.scene().objects()[copy].skin.as_ref().unwrap().joints, vec!["root.001", "tip.001"]);
    // Posed by its own joints: the imported root was placed (moved), and
    // the copy's vertices sit relative to it as the original's to its root.
    let (root, root_copy) = (e.scene().find("root").unwrap(), e.scene().find("root.001").unwrap());
    let shift = e.scene().world_matrix(root_copy) * e.scene().world_inverse(root).unwrap();
    let tip_at = Translation3::from(Vector3::from(TIP_AT)).to_homogeneous();
    assert!((shift * tip_at - e.scene().world_matrix(e.scene().find("tip.001").unwrap())).amax() < 1e-9);
    let original = e.scene().find("strip").unwrap();
    for (p, q) in world_vertices(&e, copy).iter().zip(world_vertices(&e, original)) {
        let want = shift.transform_point(&q);
        assert!((p - want).norm() < 1e-6, "{p} vs {want}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
