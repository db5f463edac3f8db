//! Orbit and zoom about the surface point under the cursor, found by reading
//! back the depth buffer and unprojecting it (seed "mouse picking
//! demystified"), in both depth modes.

use crate::support::gpu::*;
use nalgebra::{Point2, Point3};
use std::path::Path;
use viewport::draw::SceneMeshes;
use viewport::editor::Editor;
use viewport::input::{Event, Modifiers, MouseButton};
use viewport::math::DepthMode;
use viewport::scene::Scene;

const W: u32 = 320;
const H: u32 = 240;

#[test]
fn orbit_and_zoom_keep_the_point_under_the_cursor() {
    // A cube whose front face (z = 0.5) faces the camera, off to the right.
    let scene = Scene::from_json(
        r#"{ "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "fov_y_deg": 50 },
             "objects": [ { "name": "box", "mesh": "cube", "position": [2, 0, 0] } ] }"#,
        Path::new("."),
    )
    .unwrap();
    let surface = Point3::new(2.0, 0.0, 0.5);
    let mut r = renderer(W, H);
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();

    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let mut editor = Editor::new(scene.clone(), W as f64, H as f64);
        editor.depth = depth;
        let cursor = project(&editor.camera, depth, W, H, surface);
        let none = Modifiers::NONE;
        r.draw(&meshes.editor_frame(&editor).0).unwrap();
        let mut depth_at = |p: Point2<f64>| r.depth_at(p.x, p.y).expect("depth read-back");
        editor.handle_with_depth(&Event::CursorMoved { x: cursor.0, y: cursor.1 }, none, &mut depth_at);

        // Zoom in three notches: the surface point stays put on screen and
        // the eye gets 0.85^3 times as far from it.
        let before = (editor.camera.eye - surface).norm();
        assert!(editor.handle_with_depth(&Event::Scroll { delta: 3.0 }, none, &mut depth_at));
        let after = (editor.camera.eye - surface).norm();
        assert!((after / before - 0.85f64.powi(3)).abs() < 1e-4, "{depth:?}: {before} -> {after}");
        let p = project(&editor.camera, depth, W, H, surface);
        assert!((p.0 - cursor.0).abs() < 0.05 && (p.1 - cursor.1).abs() < 0.05, "{depth:?} zoom: {p:?} vs {cursor:?}");

        // Orbit with the middle button: the camera turns about the surface
        // point, which therefore stays under the cursor.
        r.draw(&meshes.editor_frame(&editor).0).unwrap();
        let mut depth_at = |p: Point2<f64>| r.depth_at(p.x, p.y).expect("depth read-back");
        let eye_before = editor.camera.eye;
        editor.handle_with_depth(&Event::MouseDown { button: MouseButton::Middle }, none, &mut depth_at);
        editor.handle_with_depth(&Event::CursorMoved { x: cursor.0 + 60.0, y: cursor.1 + 25.0 }, none, &mut depth_at);
        editor.handle_with_depth(&Event::MouseUp { button: MouseButton::Middle }, none, &mut depth_at);
        assert!((editor.camera.eye - eye_before).norm() > 0.5, "{depth:?}: the camera orbited");
        let p = project(&editor.camera, depth, W, H, surface);
        assert!((p.0 - cursor.0).abs() < 0.05 && (p.1 - cursor.1).abs() < 0.05, "{depth:?} orbit: {p:?} vs {cursor:?}");

        // Over the background there is no surface: zoom falls back to the target.
        let mut bg = Editor::new(scene.clone(), W as f64, H as f64);
        bg.depth = depth;
        r.draw(&meshes.editor_frame(&bg).0).unwrap();
        let mut depth_at = |p: Point2<f64>| r.depth_at(p.x, p.y).expect("depth read-back");
        bg.handle_with_depth(&Event::CursorMoved { x: 5.0, y: 5.0 }, none, &mut depth_at);
        bg.handle_with_depth(&Event::Scroll { delta: 1.0 }, none, &mut depth_at);
        assert!((bg.camera.target - Point3::origin()).norm() < 1e-9, "{depth:?}: target kept");
        assert!((bg.camera.eye.z - 8.5).abs() < 1e-9, "{depth:?}: zoomed towards the target");
    }
    assert_no_validation_errors(&r);
}
