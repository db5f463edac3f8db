//! Unit tests of the editor through its public operations and events:
//! selection, the gizmo's drags, duplicates, deletes, undo and redo. The
//! quad view, picking, hiding and the selection's look have files of
//! their own here.

use super::*;
use crate::gizmo::{Axis, Mode, Space};
use crate::math::Transform;
use nalgebra::Vector3;

mod hide;
mod look;
mod pick;
mod quad;

fn editor() -> Editor {
    Editor::new(Scene::demo(), 1280.0, 720.0)
}

fn id(e: &Editor, name: &str) -> usize {
    e.scene().find(name).unwrap()
}

fn world_pos(e: &Editor, i: usize) -> Point3<f64> {
    e.scene().world_matrix(i).transform_point(&Point3::origin())
}

fn screen_of(e: &Editor, p: Point3<f64>) -> Point2<f64> {
    e.view().unwrap().world_to_screen(&p).unwrap()
}

fn move_to(e: &mut Editor, p: Point2<f64>) {
    e.handle(&Event::CursorMoved { x: p.x, y: p.y });
}

fn click(e: &mut Editor, p: Point2<f64>, mods: Modifiers) {
    e.handle(&Event::Modifiers(mods));
    move_to(e, p);
    e.handle(&Event::MouseDown { button: MouseButton::Left });
    e.handle(&Event::MouseUp { button: MouseButton::Left });
    e.handle(&Event::Modifiers(Modifiers::NONE));
}

/// A screen point over object `i` that is not on a gizmo handle.
fn clear_point(e: &Editor, i: usize) -> Point2<f64> {
    let v = e.view().unwrap();
    let p = world_pos(e, i);
    for d in
        [[0.0, 0.0, 0.0], [0.0, -0.35, 0.0], [0.0, 0.35, 0.0], [0.0, 0.0, 0.35], [-0.35, 0.0, 0.0], [0.0, -0.3, 0.3]]
    {
        let q = screen_of(e, p + Vector3::new(d[0], d[1], d[2]));
        let ray = v.cursor_ray(&q).unwrap();
        if e.gizmo.pick(&v, &e.targets(), q).is_none() && e.pick_box(&ray).map(|h| h.id) == Some(i) {
            return q;
        }
    }
    panic!("no clear point over object {i}");
}

const SHIFT: Modifiers = Modifiers { shift: true, ctrl: false, alt: false };
const CTRL: Modifiers = Modifiers { shift: false, ctrl: true, alt: false };

#[test]
fn click_and_shift_click_select() {
    let mut e = editor();
    let (crate_, ball) = (id(&e, "crate"), id(&e, "ball"));
    {
        let at = clear_point(&e, crate_);
        click(&mut e, at, Modifiers::NONE);
    }
    assert_eq!(e.selection(), &[crate_]);
    {
        let at = clear_point(&e, ball);
        click(&mut e, at, SHIFT);
    }
    assert_eq!(e.selection(), &[crate_, ball]);
    {
        let at = clear_point(&e, ball);
        click(&mut e, at, SHIFT);
    }
    assert_eq!(e.selection(), &[crate_]);
    // Empty space clears.
    click(&mut e, Point2::new(5.0, 5.0), Modifiers::NONE);
    assert!(e.selection().is_empty());
}

/// Drags the translate-x handle of the single selection by `dx` pixels.
fn drag_x(e: &mut Editor, dx: f64, mods: Modifiers) -> Point2<f64> {
    let v = e.view().unwrap();
    let f = e.gizmo.frame(&v, &e.targets()).unwrap();
    let m0 = screen_of(e, f.pivot + f.axes[0] * (0.6 * f.len));
    move_to(e, m0);
    assert_eq!(e.hovered_handle(), Some(Handle::TranslateAxis(Axis::X)));
    e.handle(&Event::MouseDown { button: MouseButton::Left });
    assert_eq!(e.active_handle(), Some(Handle::TranslateAxis(Axis::X)));
    e.handle(&Event::Modifiers(mods));
    let dir = (screen_of(e, f.pivot + f.axes[0] * f.len) - screen_of(e, f.pivot)).normalize();
    move_to(e, m0 + dir * dx);
    m0
}

#[test]
fn gizmo_drag_undo_redo() {
    let mut e = editor();
    let c = id(&e, "crate");
    e.set_selection(&[c]);
    let before = e.scene().objects()[c].transform;
    drag_x(&mut e, 80.0, Modifiers::NONE);
    e.handle(&Event::MouseUp { button: MouseButton::Left });
    let after = e.scene().objects()[c].transform;
    assert!(after.position.x > before.position.x + 0.1);
    assert_eq!(after.position.y, before.position.y);
    // The selection did not change (the gizmo had priority over picking).
    assert_eq!(e.selection(), &[c]);
    e.handle(&Event::Modifiers(CTRL));
    e.handle(&Event::KeyDown { key: "Z".into() });
    assert_eq!(e.scene().objects()[c].transform, before);
    e.handle(&Event::Modifiers(Modifiers { shift: true, ctrl: true, alt: false }));
    e.handle(&Event::KeyDown { key: "Z".into() });
    assert_eq!(e.scene().objects()[c].transform, after);
    // The pick index followed the move (incrementally), and picks it there.
    assert!((e.pick_obb(c).unwrap().center - world_pos(&e, c)).norm() < 1e-9);
    let down = crate::math::Ray::new(world_pos(&e, c) + Vector3::new(0.0, 10.0, 0.0), -Vector3::y()).unwrap();
    assert_eq!(e.pick_box(&down).map(|h| h.id), Some(c));
}

#[test]
fn escape_and_right_button_cancel() {
    let mut e = editor();
    let c = id(&e, "crate");
    e.set_selection(&[c]);
    let before = e.scene().objects()[c].transform;
    drag_x(&mut e, 60.0, Modifiers::NONE);
    assert_ne!(e.scene().objects()[c].transform, before);
    e.handle(&Event::KeyDown { key: "Escape".into() });
    assert_eq!(e.scene().objects()[c].transform, before);
    e.handle(&Event::MouseUp { button: MouseButton::Left });
    assert!(!e.history().can_undo());
    drag_x(&mut e, 60.0, Modifiers::NONE);
    e.handle(&Event::MouseDown { button: MouseButton::Right });
    assert_eq!(e.scene().objects()[c].transform, before);
}

#[test]
fn ctrl_snaps_the_total() {
    let mut e = editor();
    let c = id(&e, "crate");
    e.set_selection(&[c]);
    let x0 = e.scene().objects()[c].transform.position.x;
    drag_x(&mut e, 77.0, CTRL);
    let x = e.scene().objects()[c].transform.position.x - x0;
    let inc = e.gizmo.config.snap.translate;
    assert!(x.abs() > 0.0 && ((x / inc) - (x / inc).round()).abs() < 1e-9, "{x}");
}

/// Screen position of a world point straight from `docs/spec/conventions.md` (a
/// pinhole through eye / target / up with the vertical field of view, or the
/// orthographic height; origin top-left, y down), without the library's
/// matrices.
fn project_by_hand(cam: &Camera, (w, h): (f64, f64), p: &Point3<f64>) -> Point2<f64> {
    let (f, r, u) = camera_basis(cam);
    let d = p - cam.eye;
    let (half_h, half_w) = half_extents(cam, d.dot(&f), w / h);
    Point2::new((d.dot(&r) / half_w + 1.0) * 0.5 * w, (1.0 - d.dot(&u) / half_h) * 0.5 * h)
}

/// Forward, right and true-up unit vectors of a camera.
fn camera_basis(cam: &Camera) -> (Vector3<f64>, Vector3<f64>, Vector3<f64>) {
    let f = (cam.target - cam.eye).normalize();
    let r = f.cross(&cam.up).normalize();
    (f, r, r.cross(&f))
}

/// Half the world height and width that the view shows at view depth `z`.
fn half_extents(cam: &Camera, z: f64, aspect: f64) -> (f64, f64) {
    let half_h = match cam.projection {
        crate::math::Projection::Perspective { fov_y, .. } => z * (fov_y / 2.0).tan(),
        crate::math::Projection::Orthographic { height, .. } => height / 2.0,
    };
    (half_h, half_h * aspect)
}

/// The cursor ray through screen point `m` (origin, direction), by hand.
fn ray_by_hand(cam: &Camera, (w, h): (f64, f64), m: &Point2<f64>) -> (Point3<f64>, Vector3<f64>) {
    let (f, r, u) = camera_basis(cam);
    let (sx, sy) = (2.0 * m.x / w - 1.0, 1.0 - 2.0 * m.y / h);
    match cam.projection {
        crate::math::Projection::Perspective { .. } => {
            let (hh, hw) = half_extents(cam, 1.0, w / h);
            (cam.eye, f + r * (sx * hw) + u * (sy * hh))
        }
        crate::math::Projection::Orthographic { .. } => {
            let (hh, hw) = half_extents(cam, 1.0, w / h);
            (cam.eye + r * (sx * hw) + u * (sy * hh), f)
        }
    }
}

#[test]
fn child_follows_cursor_under_rotated_scaled_parent() {
    let mut e = editor();
    let tip = id(&e, "tip");
    e.set_selection(&[tip]);
    let p0 = world_pos(&e, tip);
    let m0 = drag_x(&mut e, 50.0, Modifiers::NONE);
    // World motion along x only (world space: the handle is world +X, even
    // though the parent is rotated and scaled).
    let p1 = world_pos(&e, tip);
    assert!((p1.y - p0.y).abs() < 1e-9 && (p1.z - p0.z).abs() < 1e-9 && p1.x > p0.x);

    // The cursor contract, computed here from the camera alone: the grabbed
    // point is the point of the X axis line through the pivot (the tip's
    // world position) under the cursor at mouse-down ...
    let (cam, size) = (e.camera, e.size());
    let (o, d) = ray_by_hand(&cam, size, &m0);
    let x = Vector3::x();
    // Closest points of the axis line p0 + s x and the ray o + t d.
    let w0 = p0 - o;
    let (b, dd) = (x.dot(&d), d.dot(&d));
    let (xd, dw) = (x.dot(&w0), d.dot(&w0));
    let den = dd - b * b; // |x| = 1
    assert!(den > 1e-6, "the X axis is not seen end-on here");
    let s = (b * dw - dd * xd) / den;
    let grabbed0 = p0 + x * s;
    assert!((project_by_hand(&cam, size, &grabbed0) - m0).norm() < 1e-6, "m0 lies on the axis image");
    // ... and after the drag it moved with the object, so it re-projects onto
    // the cursor's projection onto the image of the axis.
    let grabbed = grabbed0 + (p1 - p0);
    let m = e.cursor();
    let a = project_by_hand(&cam, size, &p0);
    let axis_dir = (project_by_hand(&cam, size, &(p0 + x)) - a).normalize();
    let foot = a + axis_dir * axis_dir.dot(&(m - a));
    // The drag moved the cursor along the image, so it is its own projection.
    assert!((foot - m).norm() < 1e-6, "cursor {m:?} off the axis image (foot {foot:?})");
    let got = project_by_hand(&cam, size, &grabbed);
    assert!((got - foot).norm() <= 1e-3, "grabbed point at {got:?}, cursor projection at {foot:?}");
    assert!((m - m0).norm() > 49.0, "the cursor really moved");
}

#[test]
fn camera_controls_and_keys() {
    let mut e = editor();
    let cam0 = e.camera;
    move_to(&mut e, Point2::new(100.0, 100.0));
    e.handle(&Event::MouseDown { button: MouseButton::Middle });
    move_to(&mut e, Point2::new(150.0, 120.0));
    e.handle(&Event::MouseUp { button: MouseButton::Middle });
    assert_ne!(e.camera.eye, cam0.eye);
    assert_eq!(e.camera.target, cam0.target);
    e.handle(&Event::Modifiers(SHIFT));
    e.handle(&Event::MouseDown { button: MouseButton::Middle });
    move_to(&mut e, Point2::new(170.0, 120.0));
    e.handle(&Event::MouseUp { button: MouseButton::Middle });
    e.handle(&Event::Modifiers(Modifiers::NONE));
    assert_ne!(e.camera.target, cam0.target);
    let d = (e.camera.eye - e.camera.target).norm();
    e.handle(&Event::Scroll { delta: 1.0 });
    assert!((e.camera.eye - e.camera.target).norm() < d);
    let c = id(&e, "ball");
    e.set_selection(&[c]);
    e.handle(&Event::KeyDown { key: "F".into() });
    assert!((e.camera.target - world_pos(&e, c)).norm() < 1e-9);
    for (k, m) in [("E", Mode::Rotate), ("R", Mode::Scale), ("T", Mode::Universal), ("W", Mode::Translate)] {
        e.handle(&Event::KeyDown { key: k.into() });
        assert_eq!(e.gizmo.config.mode, m);
    }
    e.handle(&Event::KeyDown { key: "X".into() });
    assert_eq!(e.gizmo.config.space, Space::Local);
    // A zero-sized viewport (minimised) ignores pointer work without panicking.
    e.handle(&Event::Resize { width: 0.0, height: 0.0 });
    assert!(e.view().is_none() && e.overlay().is_empty());
    click(&mut e, Point2::new(10.0, 10.0), Modifiers::NONE);
}

#[test]
fn an_empty_object_is_never_picked_but_can_be_selected_focused_and_duplicated() {
    let scene = Scene::from_json(
        r#"{"camera":{"eye":[0,0,10],"target":[0,0,0]},"objects":[{"name":"e","mesh":null,"position":[1,0,0]}]}"#,
        std::path::Path::new("."),
    )
    .unwrap();
    let mut e = Editor::new(scene, 400.0, 300.0);
    let at = screen_of(&e, Point3::new(1.0, 0.0, 0.0));
    click(&mut e, at, Modifiers::NONE);
    assert!(e.selection().is_empty(), "nothing drawn, nothing picked");
    e.set_selection(&[0]);
    assert!(!e.overlay().is_empty(), "the gizmo shows on a selected empty");
    assert!(e.focus());
    assert!((e.camera.target - Point3::new(1.0, 0.0, 0.0)).norm() < 1e-9);
    e.handle(&Event::Modifiers(Modifiers { shift: true, ..Modifiers::NONE }));
    e.handle(&Event::KeyDown { key: "D".into() });
    e.handle(&Event::KeyUp { key: "D".into() });
    e.handle(&Event::Modifiers(Modifiers::NONE));
    assert_eq!(e.scene().len(), 2);
    assert_eq!(e.scene().objects()[1].mesh, MeshRef::Empty);
}

/// Two cubes at exactly the same place: the box entry of the second can
/// round past the first's exact hit on the shared face. The tie must still
/// go to the lower id (as in the object-ID buffer, which keeps the first
/// drawn), whatever order the tree visits them in.
#[test]
fn exactly_coincident_objects_pick_the_lower_id() {
    for x in [-3.784841148574653, 0.0, 1.25, 7.5] {
        let objects: Vec<String> = (0..6)
            .map(|k| {
                let mesh = if k == 0 || k == 5 { "cube" } else { "sphere" };
                let pos = if k == 0 || k == 5 { format!("[{x}, 0, 0]") } else { format!("[{}, 4, -9]", 3 * k) };
                format!(r#"{{ "name": "o{k}", "mesh": "{mesh}", "position": {pos} }}"#)
            })
            .collect();
        let json = format!(
            r#"{{ "camera": {{ "eye": [4, 5, 14], "target": [0, 0, 0] }}, "objects": [{}] }}"#,
            objects.join(",")
        );
        let e = Editor::new(Scene::from_json(&json, std::path::Path::new(".")).unwrap(), 640.0, 480.0);
        let c = screen_of(&e, Point3::new(x, 0.2, 0.5));
        assert_eq!(e.surface_at(c, |_| true).map(|h| h.0), Some(0), "cube at x = {x}");
    }
}

#[test]
fn transforms_a_scene_file_cannot_hold_are_refused_or_clamped() {
    let mut e = Editor::new(Scene::demo(), 800.0, 500.0);
    let before = e.scene().objects()[1].transform;
    for bad in [0.0, -0.0, 1e-12, f64::NAN, f64::INFINITY] {
        let mut t = before;
        t.scale.y = bad;
        assert!(!e.set_transform(1, t), "scale {bad} was taken");
        assert!(!e.commit_transform(1, before, t), "scale {bad} was committed");
        assert_eq!(e.scene().objects()[1].transform, before);
    }
    let mut t = before;
    t.position.x = f64::NAN;
    assert!(!e.set_transform(1, t));
    assert!(!e.history().can_undo());
    // Every transform the editor holds passes the loader's rule.
    let text = e.scene().to_json();
    assert!(Scene::from_json(&text, std::path::Path::new(".")).is_ok());
}

/// A mesh handed over with new bounds for many objects (past the point
/// where the pick tree is built again rather than each object moved):
/// every object of that mesh, and only those, picks by the new bounds.
#[test]
fn new_bounds_for_many_objects_rebuild_the_pick_tree() {
    use crate::math::{Obb, Ray};
    use crate::scene::Object;
    let n = 3000;
    let objects: Vec<Object> = (0..n)
        .map(|i| Object {
            name: format!("o{i}").into(),
            // Every third object is a cube, the rest one glTF mesh.
            mesh: if i % 3 == 0 {
                MeshRef::Primitive(Primitive::Cube)
            } else {
                MeshRef::gltf("m.glb#0".into(), "m.glb".into(), Some(0))
            },
            transform: Transform {
                position: nalgebra::Vector3::new((i % 60) as f64 * 3.0, 0.0, (i / 60) as f64 * 3.0),
                ..Transform::IDENTITY
            },
            color: [1.0; 3],
            hidden: false,
            skin: None,
            extras: None,
            origin: None,
            fixture: None,
            cast_shadows: true,
        })
        .collect();
    let mut e = Editor::new(Scene::from_objects(None, objects), 1280.0, 720.0);
    let (min, max) = (Point3::new(-1.2, -0.1, -1.2), Point3::new(1.2, 0.1, 1.2));
    let gltf = MeshRef::gltf("m.glb#0".into(), "m.glb".into(), Some(0));
    e.set_mesh(gltf.clone(), min, max, Arc::new(Primitive::Cube.mesh()));
    let cube = Primitive::Cube.bounds();
    let cube = (Point3::from(cube.0), Point3::from(cube.1));
    // The nearest box along each ray, from the bounds the test expects.
    let expected = |ray: &Ray| {
        let mut best: Option<(f64, usize)> = None;
        for (i, o) in e.scene().objects().iter().enumerate() {
            let (lo, hi) = if o.mesh == gltf { (min, max) } else { cube };
            let world = e.scene().world_matrix(i);
            if let Some(t) = Obb::from_local_aabb(&lo, &hi, &world).and_then(|b| b.intersect_ray(ray)) {
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, i));
                }
            }
        }
        best.map(|(_, i)| i)
    };
    let mut hits = 0;
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(5);
    for k in 0..400 {
        // Straight down at random points of the grid: the wider glTF
        // boxes now reach over gaps the cube-sized ones left.
        let (x, z) = (rand::Rng::gen_range(&mut rng, -1.0..178.0), rand::Rng::gen_range(&mut rng, -1.0..148.0));
        let ray = Ray::new(Point3::new(x, 10.0, z), -nalgebra::Vector3::y()).unwrap();
        let got = e.pick_box(&ray).map(|h| h.id);
        assert_eq!(got, expected(&ray), "ray {k}");
        hits += got.is_some() as usize;
    }
    assert!(hits > 100, "{hits} hits");
    assert!((0..n).all(|i| e.pick.bounds[i] == if i % 3 == 0 { cube } else { (min, max) }));
}

/// A toolbar button and its key are the same command: switching the mode
/// hovers again at the cursor, so the handle shown as hovered is the one
/// the new mode has there, with no mouse move. Expected: a second editor
/// switched before the cursor arrived.
#[test]
fn a_mode_command_hovers_again_at_the_cursor() {
    let mut e = editor();
    let cube = id(&e, "crate");
    e.set_selection(&[cube]);
    // A point on the translate gizmo's X shaft, 0.6 of its length out.
    let pivot = world_pos(&e, cube);
    let v = e.view().unwrap();
    let length = v.world_per_pixel(&pivot).unwrap() * e.gizmo.config.size_px;
    let p = screen_of(&e, pivot + Vector3::x() * 0.6 * length);
    move_to(&mut e, p);
    let before = e.gizmo.hovered();
    assert!(before.is_some(), "no handle under {p:?}");
    for mode in [Mode::Rotate, Mode::Scale, Mode::Universal, Mode::Translate] {
        assert!(e.execute(&Command::SetMode(mode)));
        let mut fresh = editor();
        fresh.set_selection(&[cube]);
        fresh.execute(&Command::SetMode(mode));
        move_to(&mut fresh, p);
        assert_eq!(e.gizmo.hovered(), fresh.gizmo.hovered(), "{mode:?}");
    }
    // Rotate shows no shaft there: the stale translate hover would differ.
    e.execute(&Command::SetMode(Mode::Rotate));
    assert_ne!(e.gizmo.hovered(), before);
}

/// The side panel's pivot button and the Period key cycle the same way.
#[test]
fn the_pivot_cycle_visits_every_pivot_once() {
    let mut e = editor();
    let start = e.gizmo.config.pivot;
    let mut seen = vec![start];
    for _ in 0..3 {
        e.handle(&Event::KeyDown { key: "Period".into() });
        seen.push(e.gizmo.config.pivot);
    }
    e.execute(&Command::CyclePivot);
    assert_eq!(e.gizmo.config.pivot, start);
    seen.sort_by_key(|p| *p as u8);
    seen.dedup();
    assert_eq!(seen.len(), 4);
}
