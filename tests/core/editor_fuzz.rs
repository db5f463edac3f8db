//! Fuzz-style robustness of the whole editor: 2e5 random input events (now with duplicate, delete, views, vertex snap, pivots and box selection) with
//! a fixed seed over the demo scene, with degenerate cameras (eye == target,
//! zero fov) and vanishing scales injected (the smallest the editor holds), cursors far outside the viewport and
//! zero-sized viewports. Nothing may panic or become NaN / infinite, and a
//! translate drag never takes an object that started in front of the camera
//! behind it.

use nalgebra::{Point3, Vector3};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use viewport::editor::Editor;
use viewport::gizmo::Handle;
use viewport::input::{Event, Modifiers, MouseButton};
use viewport::math::Projection;
use viewport::scene::{transform_problem, Scene, MIN_SCALE};

const KEYS: [&str; 19] = [
    "W",
    "E",
    "R",
    "T",
    "X",
    "F",
    "Z",
    "Y",
    "Escape",
    "Q",
    "D",
    "Delete",
    "V",
    "Period",
    "Numpad1",
    "Numpad3",
    "Numpad7",
    "Numpad5",
    "NumpadDecimal",
];

#[test]
fn two_hundred_thousand_random_editor_events() {
    let mut rng = StdRng::seed_from_u64(0xed17_0003);
    let mut e = Editor::new(Scene::demo(), 1280.0, 720.0);
    let (mut degenerate, mut drags, mut depth_checks) = (0, 0, 0);
    let mut start_depths: Vec<(usize, f64)> = Vec::new();
    for step in 0..200_000u32 {
        let was_dragging = e.active_handle().is_some();
        let mut aimed = false;
        let event = match rng.gen_range(0..100) {
            0..=49 => {
                let r = if rng.gen_bool(0.03) { 1.0e7 } else { 300.0 };
                let c = e.cursor();
                Event::CursorMoved { x: c.x + rng.gen_range(-r..r) * 0.2, y: c.y + rng.gen_range(-r..r) * 0.2 }
            }
            50..=57 => Event::MouseDown {
                button: [MouseButton::Left, MouseButton::Left, MouseButton::Middle, MouseButton::Right]
                    [rng.gen_range(0..4)],
            },
            58..=67 => Event::MouseUp {
                button: [MouseButton::Left, MouseButton::Middle, MouseButton::Right][rng.gen_range(0..3)],
            },
            68..=75 => Event::Modifiers(Modifiers {
                shift: rng.gen_bool(0.3),
                ctrl: rng.gen_bool(0.3),
                alt: rng.gen_bool(0.1),
            }),
            76..=83 => Event::KeyDown { key: KEYS[rng.gen_range(0..KEYS.len())].to_string() },
            84..=87 => Event::Scroll { delta: rng.gen_range(-3.0..3.0) },
            88 => Event::Resize {
                width: if rng.gen_bool(0.2) { 0.0 } else { rng.gen_range(1.0..3000.0f64).round() },
                height: if rng.gen_bool(0.2) { 0.0 } else { rng.gen_range(1.0..2000.0f64).round() },
            },
            89 => Event::Resize { width: 1280.0, height: 720.0 },
            90..=91 => {
                // Inject a degenerate camera, or restore a good one.
                let mut cam = e.camera;
                let broken = match rng.gen_range(0..4) {
                    0 => {
                        cam.target = cam.eye;
                        true
                    }
                    1 => {
                        cam.projection = Projection::Perspective { fov_y: 0.0, near: 0.05, far: 1000.0 };
                        true
                    }
                    _ => {
                        cam = viewport::math::Camera::default();
                        false
                    }
                };
                // eye == target and a zero field of view are degenerate by
                // the conventions; the validation must say so.
                if broken {
                    assert!(cam.validate().is_err(), "step {step}: {cam:?} passed validation");
                }
                if !was_dragging {
                    // Count only the degenerate cameras the editor really got.
                    if broken {
                        degenerate += 1;
                    }
                    e.camera = cam;
                }
                continue;
            }
            92 => {
                // A vanishing scale on a random object (and sometimes a huge
                // position): the smallest scale a scene file holds, since the
                // editor refuses zero (checked below).
                let n = e.scene().len();
                if n == 0 {
                    continue;
                }
                // Ids are slots (deleted objects leave theirs empty): the k-th live one.
                let i = e.scene().ids().nth(rng.gen_range(0..n)).unwrap();
                let mut t = e.scene().objects()[i].transform;
                let axis = rng.gen_range(0..3);
                t.scale[axis] = 0.0;
                if rng.gen_bool(0.3) {
                    t.position = Vector3::new(1.0e4, -1.0e4, 1.0e4);
                }
                let before = e.scene().objects()[i].transform;
                assert!(!e.set_transform(i, t), "a zero scale was taken");
                assert_eq!(e.scene().objects()[i].transform, before);
                t.scale[axis] = MIN_SCALE;
                // Typed values are ignored during a drag.
                let dragging = e.gizmo.is_dragging();
                assert_eq!(e.set_transform(i, t), !dragging, "the smallest legal scale was refused");
                continue;
            }
            93..=94 => {
                let n = e.scene().len();
                if !was_dragging && n > 0 {
                    let k = rng.gen_range(1..3);
                    let live: Vec<usize> = e.scene().ids().collect();
                    let ids: Vec<usize> = (0..k).map(|_| live[rng.gen_range(0..n)]).collect();
                    e.set_selection(&ids);
                }
                continue;
            }
            95..=98 => {
                // Aim at the gizmo: somewhere on or near one of its handles
                // (of a random object when a box or a delete left nothing selected).
                let (Some(v), false) = (e.view(), was_dragging) else { continue };
                // Deletes can empty the scene: a user would undo them.
                while e.scene().len() < 3 && e.undo() {}
                if e.selection().is_empty() && !e.scene().is_empty() {
                    let n = e.scene().len();
                    let live: Vec<usize> = e.scene().ids().collect();
                    let ids: Vec<usize> = (0..rng.gen_range(1..4)).map(|_| live[rng.gen_range(0..n)]).collect();
                    e.set_selection(&ids);
                }
                // A user stops flying (right button up) before grabbing a handle.
                if e.is_flying() {
                    e.handle(&Event::MouseUp { button: MouseButton::Right });
                }
                let Some(f) = e.gizmo.frame(&v, &e.targets()) else { continue };
                let dir = match rng.gen_range(0..4) {
                    3 => Vector3::zeros(),
                    k => f.axes[k],
                };
                let p = f.pivot + dir * (rng.gen_range(0.1..1.0) * f.len);
                let Some(s) = v.world_to_screen(&p) else { continue };
                aimed = true;
                Event::CursorMoved { x: s.x + rng.gen_range(-4.0..4.0), y: s.y + rng.gen_range(-4.0..4.0) }
            }
            _ => Event::KeyUp { key: "W".into() },
        };
        e.handle(&event);
        if aimed && rng.gen_bool(0.7) {
            e.handle(&Event::MouseDown { button: MouseButton::Left });
        }
        let dragging = e.active_handle();
        if let (false, Some(_)) = (was_dragging, dragging) {
            drags += 1;
            let v = e.view().expect("a drag needs a view");
            start_depths = e.selection().iter().map(|&i| (i, v.view_depth(&world(&e, i)))).collect();
        }
        for (i, o) in e.scene().iter() {
            assert!(o.transform.is_finite(), "step {step}: object {i} {:?}", o.transform);
            // Whatever drags and typed values did, a scene file holds it.
            assert_eq!(transform_problem(&o.transform), None, "step {step}: object {i} {:?}", o.transform);
        }
        for m in e.world_matrices() {
            assert!(m.iter().all(|v| v.is_finite()), "step {step}");
        }
        assert!(e.camera.eye.iter().chain(e.camera.target.iter()).all(|v| v.is_finite()));
        for inst in e.overlay() {
            assert!(inst.model.iter().all(|v| v.is_finite()), "step {step}");
        }
        if let (Some(h), Some(v)) = (dragging, e.view()) {
            let translate = matches!(h, Handle::TranslateAxis(_) | Handle::TranslatePlane(_) | Handle::TranslateView);
            for &(i, z0) in &start_depths {
                if translate && z0 >= v.near() && z0 <= v.far() {
                    depth_checks += 1;
                    let z = v.view_depth(&world(&e, i));
                    assert!(z >= v.near() * (1.0 - 1e-6), "step {step}: {h:?} moved object {i} behind ({z0} -> {z})");
                }
            }
        }
    }
    // About 1 % of the steps try to inject one (2 % pick the camera branch,
    // half of those break it), minus the ones made during a drag.
    println!("degenerate cameras injected: {degenerate}, drags: {drags}, depth checks: {depth_checks}");
    assert!(degenerate > 500, "degenerate cameras injected: {degenerate}");
    assert!(drags > 100, "drags started: {drags}");
    assert!(depth_checks > 200, "depth checks: {depth_checks}");
}

fn world(e: &Editor, i: usize) -> Point3<f64> {
    e.scene().world_matrix(i).transform_point(&Point3::origin())
}
