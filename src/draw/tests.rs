//! Unit tests of mesh loading, bounds handed to the editor and culling.

use super::*;
use crate::input::{Event, MouseButton};
use std::path::Path;

const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");

#[test]
fn each_gltf_file_loads_once() {
    let scene = Scene::load(&Path::new(ASSETS).join("gltf-demo.json")).unwrap();
    let loaded = LoadedMeshes::load(&scene).unwrap();
    // The floor plane, and one arrow for the two objects that use it.
    assert_eq!(loaded.len(), 2);
    let arrows: Vec<&MeshData> = scene
        .objects()
        .iter()
        .filter(|o| matches!(o.mesh, MeshRef::Gltf(_)))
        .map(|o| loaded.get(&o.mesh).unwrap())
        .collect();
    assert_eq!(arrows.len(), 2);
    assert!(std::ptr::eq(arrows[0], arrows[1]));
    assert_eq!(arrows[0].positions.len(), 48);
}

#[test]
fn each_gltf_mesh_index_loads_once_and_empties_load_nothing() {
    let scene = Scene::from_json(
        r#"{"objects":[{"name":"a","mesh":"arrow.gltf#0"},{"name":"b","mesh":"./arrow.gltf#0"},
            {"name":"c","mesh":"arrow.gltf"},{"name":"d","mesh":null}]}"#,
        Path::new(ASSETS),
    )
    .unwrap();
    let loaded = LoadedMeshes::load(&scene).unwrap();
    // Mesh 0 (shared by two spellings) and the merged file.
    assert_eq!(loaded.len(), 2);
    let o = scene.objects();
    assert!(std::ptr::eq(loaded.get(&o[0].mesh).unwrap(), loaded.get(&o[1].mesh).unwrap()));
    assert!(loaded.get(&o[3].mesh).is_none());
    let bad = Scene::from_json(r#"{"objects":[{"name":"a","mesh":"arrow.gltf#7"}]}"#, Path::new(ASSETS)).unwrap();
    // No mesh 7: a warning naming the file and the mesh, and a placeholder
    // box (half the unit cube) for the object.
    let loaded = LoadedMeshes::load(&bad).unwrap();
    let w = loaded.warnings().join("\n");
    assert!(w.contains("object \"a\"") && w.contains("arrow.gltf") && w.contains("no mesh 7"), "{w}");
    let bx = loaded.get(&bad.objects()[0].mesh).unwrap();
    assert_eq!(bx.bounds(), ([-0.25; 3], [0.25; 3]));
}

#[test]
fn the_editor_picks_gltf_objects_by_their_real_bounds() {
    let scene = Scene::from_json(
        r#"{"camera":{"eye":[0,0,10],"target":[0,0,0]},"objects":[{"name":"arrow","mesh":"arrow.gltf"}]}"#,
        Path::new(ASSETS),
    )
    .unwrap();
    let loaded = LoadedMeshes::load(&scene).unwrap();
    // Near the arrow's tip (local y up to 0.75): outside the unit cube
    // the editor assumes for a glTF mesh, inside the arrow's bounds.
    let click_tip = |editor: &mut Editor| {
        let at = editor.view().unwrap().world_to_screen(&Point3::new(0.0, 0.7, 0.0)).unwrap();
        editor.handle(&Event::CursorMoved { x: at.x, y: at.y });
        editor.handle(&Event::MouseDown { button: MouseButton::Left });
        editor.handle(&Event::MouseUp { button: MouseButton::Left });
        editor.selection().to_vec()
    };
    let mut editor = Editor::new(scene.clone(), 400.0, 300.0);
    assert!(click_tip(&mut editor).is_empty());
    let mut editor = Editor::new(scene, 400.0, 300.0);
    loaded.apply_bounds(&mut editor);
    assert_eq!(click_tip(&mut editor), vec![0]);
}

#[test]
fn objects_outside_the_frustum_are_culled() {
    // Meshes are only needed for their bounds here: build entries by hand.
    let scene = Scene::from_json(
        r#"{ "camera": {"eye":[0,0,10],"target":[0,0,0]}, "objects": [
            { "name": "front", "mesh": "cube" },
            { "name": "behind", "mesh": "cube", "position": [0, 0, 20] },
            { "name": "far_left", "mesh": "cube", "position": [-100, 0, 0] },
            { "name": "edge", "mesh": "cube", "position": [4.8, 0, 0], "scale": [2, 1, 1] } ] }"#,
        std::path::Path::new("."),
    )
    .unwrap();
    let mut meshes = SceneMeshes::default();
    meshes.entries.insert(
        scene.objects()[0].mesh.clone(),
        Entry { id: MeshId(0), min: Point3::new(-0.5, -0.5, -0.5), max: Point3::new(0.5, 0.5, 0.5) },
    );
    let cam = scene.camera.unwrap();
    let (frame, stats) = meshes.frame(&scene, cam, DepthMode::Reversed, &[], (400, 300));
    assert_eq!(stats, CullStats { drawn: 2, culled: 2 });
    assert_eq!(frame.objects.len(), 2);
    // Same answer in standard depth.
    let (_, stats) = meshes.frame(&scene, cam, DepthMode::Standard, &[], (400, 300));
    assert_eq!(stats, CullStats { drawn: 2, culled: 2 });
}
