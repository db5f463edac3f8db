//! The selection's flags and the cached look of the selection (the gizmo's
//! placement, the selected empties) against fresh computations, through
//! random edits.

use nalgebra::UnitQuaternion;
use rand::{Rng, SeedableRng};

use crate::editor::select::Selection;
use crate::editor::*;
use crate::gizmo::{Mode, Pivot, Placement, Space};
use crate::scene::Object;

/// Every operation on a `Selection` against a plain list.
#[test]
fn selection_flags_agree_with_a_plain_list() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut s = Selection::default();
    let mut model: Vec<usize> = Vec::new();
    for _ in 0..3000 {
        let before = s.version();
        let i = rng.gen_range(0..40);
        match rng.gen_range(0..6) {
            0 => {
                s.push(i);
                if !model.contains(&i) {
                    model.push(i);
                }
            }
            5 => {
                let ids: Vec<usize> = (0..rng.gen_range(0..6)).map(|_| rng.gen_range(0..40)).collect();
                s.extend(ids.iter().copied());
                for i in ids {
                    if !model.contains(&i) {
                        model.push(i);
                    }
                }
            }
            1 => {
                s.remove(i);
                model.retain(|&m| m != i);
            }
            2 => {
                let ids: Vec<usize> = (0..rng.gen_range(0..12)).map(|_| rng.gen_range(0..40)).collect();
                s.set(ids.iter().copied());
                model.clear();
                for i in ids {
                    if !model.contains(&i) {
                        model.push(i);
                    }
                }
            }
            3 => {
                let m = rng.gen_range(1..4);
                s.retain(|i| i % m == 0);
                model.retain(|i| i % m == 0);
            }
            4 => {
                s.clear();
                model.clear();
            }
            _ => unreachable!(),
        }
        assert_ne!(s.version(), before, "every change gets a new version");
        assert_eq!(&s[..], &model[..]);
        for k in 0..45 {
            assert_eq!(s.contains(k), model.contains(&k), "id {k} in {model:?}");
        }
    }
}

/// The demo scene with an empty under the first child, so that selections
/// hold an empty, a parent and its child.
fn editor() -> Editor {
    let mut scene = Scene::demo();
    let child = (0..scene.len()).find(|&i| scene.parent(i).is_some()).unwrap();
    let empty = Object {
        name: "marker".into(),
        mesh: MeshRef::Empty,
        transform: crate::math::Transform {
            position: nalgebra::Vector3::new(0.3, 0.5, 0.0),
            ..crate::math::Transform::IDENTITY
        },
        color: [1.0; 3],
        hidden: false,
        skin: None,
        extras: None,
        origin: None,
        fixture: None,
        cast_shadows: true,
    };
    scene.push(empty, Some(child)).unwrap();
    Editor::new(scene, 1280.0, 720.0)
}

/// The look as the editor keeps it equals the look worked out afresh, and
/// so do the hovered handle and the overlay.
fn check(e: &mut Editor, rng: &mut rand::rngs::StdRng) {
    let look = e.selection_look();
    assert_eq!(look.placement, Placement::of(&e.targets(), &e.gizmo.config));
    let empties: Vec<usize> =
        e.selection().iter().copied().filter(|&i| e.scene().objects()[i].mesh == MeshRef::Empty).collect();
    assert_eq!(look.empties, empties);
    let Some(v) = e.view() else { return };
    // The overlay: the gizmo from the targets, then a cross per empty.
    let mut fresh = e.gizmo.instances(&v, &e.targets());
    for &i in &empties {
        let world = e.scene().world_matrix(i);
        let origin = Point3::new(world[(0, 3)], world[(1, 3)], world[(2, 3)]);
        fresh.extend(crate::gizmo::axis_cross(&world, v.world_per_pixel(&origin).unwrap()));
    }
    assert_eq!(e.overlay(), fresh);
    if !e.gizmo.is_dragging() {
        // Hover near the gizmo (or anywhere): the handle the targets give.
        let p = match look.placement.and_then(|p| e.gizmo.frame_at(&v, &p)) {
            Some(f) => {
                let tip = f.pivot + f.axes[rng.gen_range(0..3)] * (f.len * rng.gen_range(0.0..1.2));
                v.world_to_screen(&tip).unwrap_or(Point2::new(640.0, 360.0))
            }
            None => Point2::new(rng.gen_range(0.0..1280.0), rng.gen_range(0.0..720.0)),
        };
        e.handle(&Event::CursorMoved { x: p.x, y: p.y });
        assert_eq!(e.hovered_handle(), e.gizmo.pick(&v, &e.targets(), p));
    }
}

#[test]
fn the_kept_selection_look_follows_every_change() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let mut e = editor();
    let n = e.scene().id_bound();
    let mut drags = 0;
    for step in 0..400 {
        let ids: Vec<usize> = e.scene().ids().collect();
        match rng.gen_range(0..12) {
            0 | 1 => {
                let pick: Vec<usize> = ids.iter().copied().filter(|_| rng.gen_bool(0.4)).collect();
                e.set_selection(&pick);
            }
            2 => {
                e.select_object(ids[rng.gen_range(0..ids.len())], rng.gen_bool(0.5));
            }
            // A drag of the hovered handle, if the cursor is on one.
            3 if e.hovered_handle().is_some() => {
                e.handle(&Event::MouseDown { button: MouseButton::Left });
                let c = e.cursor();
                for k in 1..4 {
                    e.handle(&Event::CursorMoved { x: c.x + 9.0 * k as f64, y: c.y - 4.0 * k as f64 });
                    check(&mut e, &mut rng);
                }
                e.handle(&Event::MouseUp { button: MouseButton::Left });
                drags += 1;
            }
            4 => {
                e.undo();
            }
            5 => {
                e.redo();
            }
            6 => {
                e.duplicate();
            }
            7 if e.scene().len() > n / 2 => {
                e.delete();
            }
            8 => {
                let i = ids[rng.gen_range(0..ids.len())];
                let mut t = e.scene().objects()[i].transform;
                t.position.x += rng.gen_range(-1.0..1.0);
                t.rotation *= UnitQuaternion::from_euler_angles(0.0, rng.gen_range(-0.5..0.5), 0.0);
                e.set_transform(i, t);
            }
            9 => {
                let c = &mut e.gizmo.config;
                c.pivot = [Pivot::Median, Pivot::Individual, Pivot::Active, Pivot::Bounds][rng.gen_range(0..4)];
                c.space = if rng.gen_bool(0.5) { Space::Local } else { Space::World };
                c.mode = [Mode::Translate, Mode::Rotate, Mode::Scale][rng.gen_range(0..3)];
            }
            10 => {
                let i = ids[rng.gen_range(0..ids.len())];
                let h = rng.gen_range(0.2..2.0);
                e.set_local_bounds(i, Point3::new(-h, -0.5, -0.5), Point3::new(h, 0.5, 0.5));
            }
            _ => {}
        }
        check(&mut e, &mut rng);
        assert!(step < 399 || drags > 5, "only {drags} drags happened");
    }
}
