//! Property test of scene changes (`docs/spec/editing.md`, "Scene changes"): random
//! sequences of select / duplicate / delete / drag / undo / redo never lose
//! or invent an object. The objects after every step are checked against a
//! model kept here (a plain list of slots: an object's id is its slot,
//! stable for the session; a deleted object leaves its slot empty and its
//! undo fills it again; copies take new slots at the end), and undoing everything
//! gives back the original scene exactly; redoing as many steps gives back
//! the state before the undos.

use nalgebra::Vector3;
use proptest::prelude::*;
use viewport::editor::Editor;
use viewport::input::{Event, Modifiers, MouseButton};
use viewport::scene::Scene;

#[derive(Clone, Debug)]
enum Op {
    Select(Vec<usize>),
    Duplicate,
    Delete,
    Drag(f64, f64),
    Undo,
    Redo,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => prop::collection::vec(0usize..64, 1..4).prop_map(Op::Select),
        2 => Just(Op::Duplicate),
        2 => Just(Op::Delete),
        2 => (-80.0f64..80.0, -80.0f64..80.0).prop_map(|(x, y)| Op::Drag(x, y)),
        2 => Just(Op::Undo),
        1 => Just(Op::Redo),
    ]
}

fn scene() -> Scene {
    let json = r#"{
        "camera": { "eye": [4, 5, 14], "target": [0, 0, 0] },
        "objects": [
            { "name": "a", "mesh": "cube" },
            { "name": "b", "mesh": "sphere", "parent": "a", "position": [1.5, 0, 0] },
            { "name": "c", "mesh": "cone", "parent": "b", "position": [0, 1.5, 0] },
            { "name": "d", "mesh": "torus", "position": [-3, 0, 0], "rotation": [0, 0.6, 0, 0.8] },
            { "name": "e.004", "mesh": "cylinder", "position": [0, 0, -3], "scale": [2, 1, 0.5] }
        ]
    }"#;
    Scene::from_json(json, std::path::Path::new(".")).unwrap()
}

/// Slots: `None` for a dead slot, else the object's parent.
type Slots = Vec<Option<Option<usize>>>;

/// The live objects at or below `ids` in the slots (brute force).
fn closure(slots: &Slots, ids: &[usize]) -> Vec<bool> {
    (0..slots.len())
        .map(|j| {
            let mut at = slots[j].map(|_| j);
            while let Some(k) = at {
                if ids.contains(&k) {
                    return true;
                }
                at = slots[k].flatten();
            }
            false
        })
        .collect()
}

/// Drags the X arrow of the gizmo of the current selection by (dx, dy)
/// pixels, if the arrow can be found on screen.
fn drag(e: &mut Editor, dx: f64, dy: f64) {
    let Some(v) = e.view() else { return };
    let targets = e.targets();
    let Some(t) = targets.first() else { return };
    let pivot = t.world_position();
    let (Some(a), Some(b)) = (v.world_to_screen(&pivot), v.world_to_screen(&(pivot + Vector3::x() * 0.01))) else {
        return;
    };
    let dir = (b - a).try_normalize(1e-12).unwrap_or(nalgebra::Vector2::x());
    // Walk out along the arrow's image until the X shaft is hovered.
    let grab = (20..100).map(|k| a + dir * k as f64).find(|p| {
        e.handle(&Event::CursorMoved { x: p.x, y: p.y });
        e.hovered_handle().map(|h| h.name()).as_deref() == Some("translate.x")
    });
    let Some(p) = grab else { return };
    e.handle(&Event::MouseDown { button: MouseButton::Left });
    e.handle(&Event::CursorMoved { x: p.x + dx, y: p.y + dy });
    e.handle(&Event::MouseUp { button: MouseButton::Left });
}

fn key(e: &mut Editor, k: &str, mods: Modifiers) {
    e.handle(&Event::Modifiers(mods));
    e.handle(&Event::KeyDown { key: k.into() });
    e.handle(&Event::KeyUp { key: k.into() });
    e.handle(&Event::Modifiers(Modifiers::NONE));
}

const CTRL: Modifiers = Modifiers { shift: false, ctrl: true, alt: false };
const CTRL_SHIFT: Modifiers = Modifiers { shift: true, ctrl: true, alt: false };

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn scene_changes_never_lose_or_invent_objects(ops in prop::collection::vec(op(), 1..24)) {
        let original = scene();
        let mut e = Editor::new(original.clone(), 640.0, 480.0);
        // The model: parents of the current objects, and the stacks of
        // parent lists to go back and forth through.
        let mut model: Slots = (0..original.len()).map(|i| Some(original.parent(i))).collect();
        let mut undo: Vec<Slots> = Vec::new();
        let mut redo: Vec<Slots> = Vec::new();
        for op in &ops {
            match op {
                Op::Select(ids) => {
                    // The k-th live objects of the model.
                    let live: Vec<usize> = (0..model.len()).filter(|&j| model[j].is_some()).collect();
                    let ids: Vec<usize> = ids.iter().filter(|_| !live.is_empty()).map(|i| live[i % live.len()]).collect();
                    e.set_selection(&ids);
                }
                Op::Duplicate => {
                    let sel = e.selection().to_vec();
                    key(&mut e, "D", CTRL);
                    if !sel.is_empty() {
                        let copied = closure(&model, &sel);
                        let before = model.clone();
                        let base = model.len();
                        let order: Vec<usize> = (0..before.len()).filter(|&j| copied[j]).collect();
                        for &j in &order {
                            let p = before[j].flatten().map(|p| order.iter().position(|&o| o == p).map_or(p, |k| base + k));
                            model.push(Some(p));
                        }
                        // The copies of the selection, in selection order.
                        let expect: Vec<usize> =
                            sel.iter().map(|s| base + order.iter().position(|o| o == s).unwrap()).collect();
                        prop_assert_eq!(e.selection(), &expect[..]);
                        undo.push(before);
                        redo.clear();
                        prop_assert_eq!(e.selection().len(), sel.len(), "the copies of the selection are selected");
                    }
                }
                Op::Delete => {
                    let sel = e.selection().to_vec();
                    key(&mut e, "Delete", Modifiers::NONE);
                    if !sel.is_empty() {
                        let gone = closure(&model, &sel);
                        let before = model.clone();
                        // The slots empty out; no other object moves.
                        for (slot, g) in model.iter_mut().zip(&gone) {
                            if *g {
                                *slot = None;
                            }
                        }
                        undo.push(before);
                        redo.clear();
                        prop_assert!(e.selection().is_empty());
                    }
                }
                Op::Drag(dx, dy) => {
                    let transforms: Vec<_> = e.scene().objects().iter().map(|o| o.transform).collect();
                    drag(&mut e, *dx, *dy);
                    let moved = e.scene().objects().iter().zip(&transforms).any(|(o, t)| o.transform != *t);
                    if moved {
                        undo.push(model.clone());
                        redo.clear();
                    }
                    prop_assert!(!moved || e.history().can_undo(), "a drag that moved something is an undo step");
                }
                Op::Undo => {
                    let did = e.undo();
                    prop_assert_eq!(did, !undo.is_empty());
                    if let Some(m) = undo.pop() {
                        redo.push(std::mem::replace(&mut model, m));
                    }
                }
                Op::Redo => {
                    key(&mut e, "Z", CTRL_SHIFT);
                    if let Some(m) = redo.pop() {
                        undo.push(std::mem::replace(&mut model, m));
                    }
                }
            }
            let got: Slots = (0..e.scene().id_bound()).map(|i| e.scene().get(i).map(|_| e.scene().parent(i))).collect();
            prop_assert_eq!(&got, &model, "after {:?}", op);
            prop_assert_eq!(e.scene().len(), model.iter().flatten().count());
            // Picking sees exactly the objects there are: the incrementally
            // kept index answers like one built from scratch.
            let fresh = Editor::new(e.scene().clone(), 640.0, 480.0);
            for k in 0..6 {
                let c = nalgebra::Point2::new(107.0 * k as f64 % 640.0, 61.0 * k as f64 % 480.0 + 120.0);
                prop_assert_eq!(e.surface_at(c, |_| true).map(|h| h.0), fresh.surface_at(c, |_| true).map(|h| h.0));
            }
            // Names stay unique.
            let mut names: Vec<&str> = e.scene().objects().iter().map(|o| o.name.as_str()).collect();
            names.sort();
            names.dedup();
            prop_assert_eq!(names.len(), e.scene().len());
        }
        let end = e.scene().clone();
        let mut undone = 0;
        while e.undo() {
            undone += 1;
        }
        prop_assert_eq!(undone, undo.len());
        prop_assert_eq!(e.scene(), &original, "undoing everything restores the original scene");
        for _ in 0..undone {
            prop_assert!(e.redo());
        }
        prop_assert_eq!(e.scene(), &end, "redoing what was undone restores the last state");
    }
}
