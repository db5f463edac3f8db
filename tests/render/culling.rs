//! `SceneMeshes::editor_frame` culls by walking the editor's pick tree;
//! `SceneMeshes::frame` tests every object. On random cameras (perspective
//! and orthographic, both depth modes, near planes cutting objects, a
//! scene far from the origin), and after objects moved, were duplicated and
//! deleted, both give the same draw list: the same ids in the same order,
//! the same world matrices and highlights.

use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use viewport::draw::SceneMeshes;
use viewport::editor::Editor;
use viewport::input::{Event, Modifiers};
use viewport::math::DepthMode;
use viewport::scene::Scene;

use crate::support::cameras::random_camera;
use crate::support::gpu::{assert_no_validation_errors, renderer};

fn draw_list(frame: &viewport::render::FrameDesc) -> Vec<(u32, [f64; 16], String)> {
    frame.objects.iter().map(|o| (o.id, o.world.as_slice().try_into().unwrap(), format!("{:?}", o.highlight))).collect()
}

#[test]
fn the_tree_walk_draws_what_the_full_scan_draws() {
    let mut r = renderer(64, 64);
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for far in [false, true] {
        let mut scene = Scene::cube_grid(3000);
        if far {
            for i in 0..scene.len() {
                scene.object_mut(i).unwrap().transform.position += Vector3::new(2.0e5, -1.0e5, 3.0e5);
            }
        }
        // Children (and grandchildren) that follow their parents' moves.
        for k in 0..300 {
            let parent = if k < 150 { (k * 19) % 3000 } else { 3000 + k - 150 };
            let mut child = scene.objects()[parent].clone();
            child.name = format!("child{k}").into();
            child.transform.position = Vector3::new(0.0, 1.5, 0.0);
            scene.push(child, Some(parent)).unwrap();
        }
        let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
        let centre = scene.world_matrix(1500).column(3).xyz();
        let mut e = Editor::new(scene, 800.0, 600.0);
        // Edits the tree must follow: moves (of parents too), a duplicate, a delete.
        for k in 0..30 {
            let i = if k % 3 == 0 { (k * 19 * 5) % 3000 } else { (k * 97) % e.scene().len() };
            let mut t = e.scene().objects()[i].transform;
            t.position += Vector3::new(rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0));
            e.set_transform(i, t);
        }
        e.set_selection(&(0..40).map(|k| k * 13).collect::<Vec<_>>());
        let ctrl = Modifiers { ctrl: true, ..Modifiers::NONE };
        e.handle_with_mods(&Event::KeyDown { key: "D".into() }, ctrl);
        e.set_selection(&[7, 900, 2999]);
        e.handle_with_mods(&Event::KeyDown { key: "Delete".into() }, Modifiers::NONE);
        e.set_selection(&(100..160).collect::<Vec<_>>());
        let (mut kept, mut culled) = (0, 0);
        for round in 0..30 {
            e.camera = random_camera(&mut rng, centre, 60.0, round % 3 == 0);
            for depth in [DepthMode::Reversed, DepthMode::Standard] {
                e.depth = depth;
                let (walked, stats) = meshes.editor_frame(&e);
                let (scanned, _) = meshes.frame(e.scene(), e.camera, depth, e.selection(), (800, 600));
                assert_eq!(draw_list(&walked), draw_list(&scanned), "far {far}, round {round}, {depth:?}");
                kept += stats.drawn;
                culled += e.scene().len() - stats.drawn;
            }
        }
        assert!(kept > 1000 && culled > 1000, "cameras that keep and cull: {kept} kept, {culled} culled");
    }
    assert_no_validation_errors(&r);
}
