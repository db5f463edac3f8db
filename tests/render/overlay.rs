//! The overlay pass: the gizmo is drawn over the scene, solid where nothing
//! hides it and faint where scene geometry does, in both depth modes, with
//! one instanced draw per gizmo mesh kind.

use crate::support::gpu::*;
use crate::support::image::*;
use nalgebra::{Point2, Point3, Vector3};
use std::path::Path;
use viewport::gizmo::{Gizmo, GizmoConfig, Mode, Target};
use viewport::math::{Camera, DepthMode, Projection, View};
use viewport::scene::Scene;

const W: u32 = 480;
const H: u32 = 320;

fn setup() -> (Scene, Camera) {
    // A small crate at the pivot, and a grey slab between it and the camera
    // that hides the pivot and the first part of the X axis.
    let json = r#"{ "objects": [
        { "name": "crate", "mesh": "cube", "position": [0, 0, 0], "scale": [0.3, 0.3, 0.3], "color": [0.8, 0.5, 0.2] },
        { "name": "slab", "mesh": "cube", "position": [-0.8, 0, 3], "scale": [4.6, 3, 0.2], "color": [0.5, 0.5, 0.5] } ] }"#;
    let scene = Scene::from_json(json, Path::new(".")).unwrap();
    let camera = Camera {
        eye: Point3::new(0.5, 2.0, 10.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: 1000.0 },
    };
    (scene, camera)
}

#[test]
fn gizmo_is_solid_where_visible_and_faint_behind_the_occluder() {
    let (scene, camera) = setup();
    let mut r = renderer(W, H);
    let meshes = viewport::draw::SceneMeshes::upload(&mut r, &scene).unwrap();
    let gizmo = Gizmo::new(GizmoConfig { mode: Mode::Translate, ..GizmoConfig::default() });
    let targets = [Target::root(scene.objects()[0].transform)];

    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let view = View::new(camera, W as f64, H as f64, depth).unwrap();
        let (mut frame, _) = meshes.frame(&scene, camera, depth, &[0], (W, H));
        frame.grid = false;
        r.draw(&frame).unwrap();
        let plain = r.read_color().unwrap();
        let scene_depth = r.read_depth().unwrap();

        frame.overlay = gizmo.instances(&view, &targets);
        assert!(!frame.overlay.is_empty());
        let stats = r.draw(&frame).unwrap();
        let with_gizmo = r.read_color().unwrap();
        // Translate mode draws shafts, cones, plane quads and the view disc:
        // four kinds, one draw each, whatever the number of handles.
        let kinds: std::collections::HashSet<_> = frame.overlay.iter().map(|o| o.mesh).collect();
        assert_eq!(stats.overlay_draw_calls as usize, kinds.len(), "{depth:?}");
        assert_eq!(stats.overlay_instances as usize, frame.overlay.len());

        // Walk along the X axis; classify each sample by the scene depth.
        let g = gizmo.frame(&view, &targets).unwrap();
        let (mut solid, mut faint) = (0, 0);
        for i in 1..20 {
            let t = 0.04 * i as f64; // stays on the shaft (it ends at 0.8 L)
            let p = g.pivot + g.axes[0] * (t * g.len);
            let proj = view.project(&p).unwrap();
            let (x, y) = (proj.screen.x as u32, proj.screen.y as u32);
            let sd = scene_depth[(y * W + x) as usize] as f64;
            let hidden = match depth {
                DepthMode::Reversed => proj.depth < sd,
                DepthMode::Standard => proj.depth > sd,
            };
            let (a, b) = (plain.pixel(x, y), with_gizmo.pixel(x, y));
            let red_gain = b[0] as i32 - a[0] as i32;
            if hidden {
                // Faint: the slab still shows, tinted towards red.
                assert!(red_gain > 5 && red_gain < 90, "{depth:?} t={t}: hidden part {a:?} -> {b:?}");
                assert!(b[1] > 60, "{depth:?} t={t}: slab grey must still show through, got {b:?}");
                faint += 1;
            } else {
                assert_eq!(dominant(b), Some(0), "{depth:?} t={t}: visible part must be solid red, got {b:?}");
                solid += 1;
            }
        }
        assert!(solid >= 3 && faint >= 3, "{depth:?}: the setup must show both ({solid} solid, {faint} faint)");

        // The pivot itself is behind the slab, yet the gizmo is drawn there (faintly).
        let pivot = view.world_to_screen(&g.pivot).unwrap();
        let _ = Point2::new(pivot.x, pivot.y);
        assert_ne!(plain.pixel(pivot.x as u32, pivot.y as u32), with_gizmo.pixel(pivot.x as u32, pivot.y as u32));
    }
    assert_no_validation_errors(&r);
}

#[test]
fn overlay_draw_count_does_not_grow_with_handles() {
    let (scene, camera) = setup();
    let mut r = renderer(W, H);
    let meshes = viewport::draw::SceneMeshes::upload(&mut r, &scene).unwrap();
    let view = View::new(camera, W as f64, H as f64, DepthMode::Reversed).unwrap();
    let targets = [Target::root(scene.objects()[0].transform)];
    let (mut frame, _) = meshes.frame(&scene, camera, DepthMode::Reversed, &[], (W, H));
    // Universal mode has the most handles; repeat them to triple the count.
    let gizmo = Gizmo::new(GizmoConfig { mode: Mode::Universal, ..GizmoConfig::default() });
    let one = gizmo.instances(&view, &targets);
    frame.overlay = [one.clone(), one.clone(), one.clone()].concat();
    let stats = r.draw(&frame).unwrap();
    let kinds: std::collections::HashSet<_> = one.iter().map(|o| o.mesh).collect();
    assert!(stats.overlay_draw_calls as usize <= kinds.len() && kinds.len() <= 6);
    assert_eq!(stats.overlay_instances as usize, 3 * one.len());
    r.wait_idle().expect("wait for the GPU");
    assert_no_validation_errors(&r);
}
