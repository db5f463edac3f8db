//! Skinned meshes posed by their joint objects (`docs/spec/assets.md`, "What is
//! drawn"): a two-bone strip written by the test (`support::skinned`),
//! opened as a glTF scene; its `tip` joint is turned through the editor
//! (one undo step, as a typed value is), and the id buffer, the colour
//! image, clicks, vertex snapping and the box-selection region all show
//! the strip where the test computes the turned part to be, and not where
//! it was; undo brings the rest pose back. Both depth modes.

use crate::support::gpu::*;
use crate::support::skinned::{write_skinned_strip, HALF_WIDTH, TIP_AT};
use nalgebra::{Point2, Point3, UnitQuaternion, Vector3};
use viewport::app::open::{open_editor_for, open_scene};
use viewport::draw::{RenderProbe, SceneMeshes};
use viewport::editor::{Editor, FrameProbe};
use viewport::input::{Event, MouseButton};
use viewport::math::{Camera, DepthMode, Projection};
use viewport::render::Renderer;

const W: u32 = 320;
const H: u32 = 240;

/// A front view (looking down -z), orthographic, 4 m tall.
fn camera() -> Camera {
    Camera {
        eye: Point3::new(-0.3, 1.0, 10.0),
        target: Point3::new(-0.3, 1.0, 0.0),
        up: Vector3::y(),
        projection: Projection::Orthographic { height: 4.0, near: 0.1, far: 100.0 },
    }
}

/// Poses, draws and reads back the ids.
fn draw(r: &mut Renderer, meshes: &mut SceneMeshes, editor: &Editor) -> Vec<u32> {
    meshes.pose_skins(r, editor).unwrap();
    let (mut frame, _) = meshes.editor_frame(editor);
    frame.grid = false;
    r.draw(&frame).unwrap();
    r.read_ids().unwrap()
}

/// The id drawn at world point `p` seen by [`camera`].
fn id_at(ids: &[u32], depth: DepthMode, p: [f64; 3]) -> u32 {
    let (x, y) = project(&camera(), depth, W, H, Point3::from(p));
    ids[(y as u32 * W + x as u32) as usize]
}

/// Turns object `i` (a joint at rest) 90 degrees about z, as one typed edit.
fn turn_a_quarter_about_z(editor: &mut Editor, i: usize) {
    let before = editor.scene().objects()[i].transform;
    let after = viewport::math::Transform {
        rotation: UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2),
        ..before
    };
    assert!(editor.commit_transform(i, before, after));
}

/// A click from an empty selection (no gizmo in the way).
fn click(editor: &mut Editor, at: (f64, f64)) -> Vec<usize> {
    editor.set_selection(&[]);
    editor.handle(&Event::CursorMoved { x: at.0, y: at.1 });
    editor.handle(&Event::MouseDown { button: MouseButton::Left });
    editor.handle(&Event::MouseUp { button: MouseButton::Left });
    editor.selection().to_vec()
}

#[test]
fn a_turned_joint_moves_the_drawn_and_picked_skin() {
    let dir = std::env::temp_dir().join(format!("viewport-skin-render-{}", std::process::id()));
    let path = write_skinned_strip(&dir, "strip");
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let (mut editor, loaded) = open_editor_for(open_scene(Some(&path)).unwrap(), (W, H), depth).unwrap();
        editor.camera = camera();
        let strip = editor.scene().find("strip").unwrap();
        let tip = editor.scene().find("tip").unwrap();
        let mut r = renderer(W, H);
        let mut meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
        let px = |p: [f64; 3]| project(&camera(), depth, W, H, Point3::from(p));
        let id_at = |ids: &[u32], p: [f64; 3]| id_at(ids, depth, p);
        // A point of the strip's upper part in the rest pose, and where the
        // test puts that part once `tip` turns 90 degrees about z: a point
        // (x, y) of the part goes to tip + R (p - tip) = (1 - y, 1 + x), so
        // the part from y = 1.2 to 2 lies at x in [-1, -0.2], y in 1 +- 0.25.
        let old = [0.0, 1.6, 0.0];
        let new = [-0.6, 1.0, 0.0];
        let turned = |p: [f64; 3]| [TIP_AT[0] - (p[1] - TIP_AT[1]), TIP_AT[1] + (p[0] - TIP_AT[0]), p[2]];
        assert!((turned([0.0, 1.6, 0.0])[0] - -0.6).abs() < 1e-12);

        let ids = draw(&mut r, &mut meshes, &editor);
        assert_eq!(id_at(&ids, old), strip as u32 + 1, "rest pose, {depth:?}");
        assert_eq!(id_at(&ids, new), 0, "rest pose, {depth:?}");
        assert_eq!(click(&mut editor, px(old)), vec![strip]);
        assert!(click(&mut editor, px(new)).is_empty());

        turn_a_quarter_about_z(&mut editor, tip);
        // Drawn: ids and colour.
        let ids = draw(&mut r, &mut meshes, &editor);
        assert_eq!(id_at(&ids, new), strip as u32 + 1, "turned, {depth:?}");
        assert_eq!(id_at(&ids, old), 0, "turned, {depth:?}");
        let color = r.read_color().unwrap();
        let lit = |p: [f64; 3]| {
            let (x, y) = px(p);
            color.pixel(x as u32, y as u32).iter().take(3).all(|&c| c > 150)
        };
        assert!(lit(new) && !lit(old), "the white strip is drawn where it was turned to");
        // Picked: a click on the turned part selects the strip, one where it
        // was selects nothing.
        assert_eq!(click(&mut editor, px(new)), vec![strip]);
        assert!(click(&mut editor, px(old)).is_empty());
        // Vertex snapping reaches the turned tip's corner (x = +0.25, y = 2).
        let corner = turned([HALF_WIDTH, 2.0, 0.0]);
        let (cx, cy) = px(corner);
        let snapped = editor.vertex_near(Point2::new(cx + 3.0, cy - 2.0), 20.0, |i| i == strip).unwrap();
        assert!((snapped - Point3::from(corner)).norm() < 1e-5, "{snapped} vs {corner:?}");
        // Box selection reads the id buffer: a box around the new place
        // holds the strip, one around the old place nothing.
        let mut probe = RenderProbe::new(&mut r);
        let boxed = |probe: &mut RenderProbe, p: [f64; 3]| {
            let (x, y) = px(p);
            probe.objects_in(Point2::new(x - 4.0, y - 4.0), Point2::new(x + 4.0, y + 4.0)).unwrap()
        };
        assert_eq!(boxed(&mut probe, new), vec![strip]);
        assert!(boxed(&mut probe, old).is_empty());
        // Undo: the rest pose again (the GPU mesh's vertices rewritten).
        assert!(editor.undo());
        let ids = draw(&mut r, &mut meshes, &editor);
        assert_eq!(id_at(&ids, old), strip as u32 + 1);
        assert_eq!(id_at(&ids, new), 0);
        assert_no_validation_errors(&r);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A mesh first drawn unskinned (a scene object naming `strip.gltf#0`
/// without a skin), then imported with its skin: the imported copy is
/// drawn posed by its own joints all the same.
#[test]
fn an_imported_skin_of_a_mesh_already_drawn_plain_is_posed() {
    let dir = std::env::temp_dir().join(format!("viewport-skin-import-{}", std::process::id()));
    let path = write_skinned_strip(&dir, "strip");
    let scene = r#"{"objects": [{"name": "plain", "mesh": "strip.gltf#0", "position": [2, 0, 0]}]}"#;
    std::fs::write(dir.join("scene.json"), scene).unwrap();
    let depth = DepthMode::Reversed;
    let opened = open_scene(Some(&dir.join("scene.json"))).unwrap();
    let (mut editor, loaded) = open_editor_for(opened, (W, H), depth).unwrap();
    editor.camera = camera();
    let mut r = renderer(W, H);
    let mut meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    // Imported under the cursor (the viewport's centre, over the
    // background): the roots' origins go to the camera target.
    let read = viewport::app::open::read_import(&path).unwrap();
    viewport::app::open::import_into(&mut editor, &read);
    meshes.add_loaded(&mut r, &read.loaded).unwrap();
    let at = camera().target.coords;
    let (strip, tip) = (editor.scene().find("strip").unwrap(), editor.scene().find("tip").unwrap());
    turn_a_quarter_about_z(&mut editor, tip);
    let ids = draw(&mut r, &mut meshes, &editor);
    let id_at = |p: [f64; 3]| id_at(&ids, depth, p);
    // The upper part's point (0, 1.6) of the file, moved by the import and
    // turned about the tip: (1 - y, 1 + x) in file space, then + at.
    assert_eq!(id_at([at.x - 0.6, at.y + 1.0, 0.0]), strip as u32 + 1);
    assert_eq!(id_at([at.x, at.y + 1.6, 0.0]), 0);
    assert_no_validation_errors(&r);
    let _ = std::fs::remove_dir_all(&dir);
}

/// With GPU culling asked for (`--gpu-culling`), a scene with posed skins is
/// drawn by the CPU path (the GPU records name the shared, unposed mesh), so
/// the turned part shows where the joint put it; a scene without skins
/// takes the GPU path.
#[test]
fn with_gpu_culling_a_posed_skin_is_drawn_posed() {
    use viewport::draw::GpuSync;
    let dir = std::env::temp_dir().join(format!("viewport-skin-gpu-{}", std::process::id()));
    let path = write_skinned_strip(&dir, "strip");
    let depth = DepthMode::Reversed;
    let (mut editor, loaded) = open_editor_for(open_scene(Some(&path)).unwrap(), (W, H), depth).unwrap();
    editor.camera = camera();
    let (strip, tip) = (editor.scene().find("strip").unwrap(), editor.scene().find("tip").unwrap());
    let mut r = renderer(W, H);
    let mut meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let mut sync = GpuSync::default();
    turn_a_quarter_about_z(&mut editor, tip);
    let mut frame = meshes.frame_for(&editor, &mut r, Some(&mut sync)).unwrap();
    assert!(frame.gpu_scene.is_none(), "posed skins are drawn by the CPU path");
    frame.grid = false;
    r.draw(&frame).unwrap();
    let ids = r.read_ids().unwrap();
    // The same points as above: the upper part turned from (0, 1.6) to (-0.6, 1).
    let id_at = |p: [f64; 3]| id_at(&ids, depth, p);
    assert_eq!(id_at([-0.6, 1.0, 0.0]), strip as u32 + 1);
    assert_eq!(id_at([0.0, 1.6, 0.0]), 0);
    // Without the skinned object (deleted) the GPU path draws again.
    editor.set_selection(&[strip]);
    assert!(editor.delete());
    let frame = meshes.frame_for(&editor, &mut r, Some(&mut sync)).unwrap();
    assert!(frame.gpu_scene.is_some(), "a scene without posed skins takes the GPU path");
    r.draw(&frame).unwrap();
    assert_no_validation_errors(&r);
    let _ = std::fs::remove_dir_all(&dir);
}
