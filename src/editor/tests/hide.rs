//! Hide, Shift+H, Alt+H and the outliner's eye (`docs/spec/organise.md`):
//! own flags, inheritance, the selection, undo and redo, and hidden objects
//! passed by every kind of pick (clicks, boxes, surfaces, vertices, framing).

use nalgebra::{Point2, Point3};

use crate::editor::Editor;
use crate::input::{Event, Modifiers, MouseButton};
use crate::scene::Scene;

/// p > c > g stacked at x = -3; a at the origin with b straight behind it
/// (seen along -z); d at x = 3.
fn editor() -> Editor {
    let json = r#"{"camera":{"eye":[0,0,10],"target":[0,0,0]},"objects":[
        {"name":"p","mesh":"cube","position":[-3,0,0]},
        {"name":"c","mesh":"cube","parent":"p","position":[0,2,0]},
        {"name":"g","mesh":"cube","parent":"c","position":[0,2,0]},
        {"name":"a","mesh":"cube"},
        {"name":"b","mesh":"cube","position":[0,0,-5]},
        {"name":"d","mesh":"cube","position":[3,0,0]}]}"#;
    Editor::new(Scene::from_json(json, std::path::Path::new(".")).unwrap(), 1280.0, 720.0)
}

fn id(e: &Editor, name: &str) -> usize {
    e.scene().find(name).unwrap()
}

fn ids(e: &Editor, names: &[&str]) -> Vec<usize> {
    names.iter().map(|n| id(e, n)).collect()
}

fn key(e: &mut Editor, k: &str, mods: Modifiers) {
    e.handle(&Event::Modifiers(mods));
    e.handle(&Event::KeyDown { key: k.into() });
    e.handle(&Event::KeyUp { key: k.into() });
    e.handle(&Event::Modifiers(Modifiers::NONE));
}

fn click(e: &mut Editor, p: Point2<f64>) {
    e.handle(&Event::CursorMoved { x: p.x, y: p.y });
    e.handle(&Event::MouseDown { button: MouseButton::Left });
    e.handle(&Event::MouseUp { button: MouseButton::Left });
}

fn screen_of(e: &Editor, p: Point3<f64>) -> Point2<f64> {
    e.view().unwrap().world_to_screen(&p).unwrap()
}

/// Which objects show, by name, in scene order.
fn shown(e: &Editor) -> Vec<String> {
    let s = e.scene();
    s.iter().filter(|&(i, _)| !s.is_hidden(i)).map(|(_, o)| o.name.to_string()).collect()
}

const SHIFT: Modifiers = Modifiers { shift: true, ctrl: false, alt: false };
const ALT: Modifiers = Modifiers { shift: false, ctrl: false, alt: true };

#[test]
fn h_hides_the_selection_with_its_descendants_and_undo_restores_it() {
    let mut e = editor();
    let start = e.scene().clone();
    e.set_selection(&ids(&e, &["d", "p"]));
    key(&mut e, "H", Modifiers::NONE);
    assert_eq!(e.scene().hidden_ids().collect::<Vec<_>>(), ids(&e, &["p", "d"]));
    assert_eq!(shown(&e), ["a", "b"], "c and g go with p");
    assert!(!e.scene().objects()[id(&e, "c")].hidden, "the child's own flag is untouched");
    assert!(e.selection().is_empty(), "hidden objects leave the selection");
    let hidden_state = e.scene().clone();
    assert!(e.undo());
    assert_eq!(*e.scene(), start);
    assert_eq!(e.selection(), ids(&e, &["d", "p"]), "selection and its order come back");
    assert!(e.redo());
    assert_eq!(*e.scene(), hidden_state);
    assert!(e.selection().is_empty());
    // Nothing selected: H does nothing and files no step.
    assert!(!e.hide_selected());
    assert!(e.undo() && e.scene() == &start && !e.history().can_undo());
}

#[test]
fn a_childs_own_flag_outlives_its_parents() {
    let mut e = editor();
    let (p, c) = (id(&e, "p"), id(&e, "c"));
    assert!(e.toggle_hidden(c));
    assert_eq!(shown(&e), ["p", "a", "b", "d"]);
    assert!(e.toggle_hidden(p));
    assert_eq!(shown(&e), ["a", "b", "d"]);
    // Showing the parent shows it alone: c keeps its flag, and g stays under c.
    assert!(e.toggle_hidden(p));
    assert_eq!(shown(&e), ["p", "a", "b", "d"]);
    assert_eq!(e.scene().hidden_ids().collect::<Vec<_>>(), [c]);
    assert!(e.selection().is_empty(), "the eye selects nothing");
    // A hidden object cannot be selected.
    e.set_selection(&[c, id(&e, "g"), p]);
    assert_eq!(e.selection(), [p]);
    assert!(!e.select_object(c, false));
}

#[test]
fn shift_h_keeps_the_selection_and_its_ancestors_and_alt_h_selects_what_it_shows() {
    let mut e = editor();
    let start = e.scene().clone();
    let (c, d) = (id(&e, "c"), id(&e, "d"));
    assert!(e.toggle_hidden(d));
    let before = e.scene().clone();
    e.set_selection(&[c]);
    key(&mut e, "H", SHIFT);
    // The parent stays (an ancestor of a selected object); g goes (a descendant).
    assert_eq!(shown(&e), ["p", "c"]);
    assert_eq!(e.scene().hidden_ids().collect::<Vec<_>>(), ids(&e, &["g", "a", "b", "d"]));
    assert_eq!(e.selection(), [c]);
    let after_shift_h = e.scene().clone();
    // Alt+H clears every flag, d's included, and adds those objects to the
    // selection in scene order (the last active).
    key(&mut e, "H", ALT);
    assert_eq!(*e.scene(), start);
    let mut expect = vec![c];
    expect.extend(ids(&e, &["g", "a", "b", "d"]));
    assert_eq!(e.selection(), expect);
    assert_eq!(e.active(), Some(d));
    assert!(!e.unhide_all(), "nothing hidden: no step");
    assert!(e.undo());
    assert_eq!((e.scene(), e.selection()), (&after_shift_h, &[c][..]));
    assert!(e.undo());
    assert_eq!((e.scene(), e.selection()), (&before, &[c][..]));
    assert!(e.redo() && e.redo());
    assert_eq!((e.scene(), e.selection()), (&start, &expect[..]));
}

#[test]
fn hidden_objects_are_not_clicked_boxed_snapped_to_or_framed() {
    let mut e = editor();
    let (a, b, d) = (id(&e, "a"), id(&e, "b"), id(&e, "d"));
    let at = screen_of(&e, Point3::new(0.1, 0.1, 0.5));
    click(&mut e, at);
    assert_eq!(e.selection(), [a]);
    let corner = Point3::new(0.5, 0.5, 0.5);
    let near_corner = screen_of(&e, corner) + nalgebra::Vector2::new(2.0, -2.0);
    assert!(e
        .vertex_near(near_corner, crate::editor::VERTEX_SNAP_PX, |_| true)
        .is_some_and(|v| (v - corner).norm() < 1e-6));
    let whole = (Point2::new(0.0, 0.0), Point2::new(1280.0, 720.0));
    let mut everything = ids(&e, &["p", "c", "g", "a", "d"]);
    everything.sort_unstable();
    assert_eq!(e.objects_in_rect(whole.0, whole.1), everything, "b is behind a");
    key(&mut e, "H", Modifiers::NONE);
    // The click now reaches b behind a, and so does a ray for surfaces.
    click(&mut e, at);
    assert_eq!(e.selection(), [b]);
    assert_eq!(e.surface_at(at, |_| true).map(|h| h.0), Some(b));
    assert!(e
        .vertex_near(near_corner, crate::editor::VERTEX_SNAP_PX, |_| true)
        .is_none_or(|v| (v - corner).norm() > 1e-3));
    let mut boxed = ids(&e, &["p", "c", "g", "b", "d"]);
    boxed.sort_unstable();
    assert_eq!(e.objects_in_rect(whole.0, whole.1), boxed);
    // Hide all but d: a click where a and b were selects nothing, and
    // framing with nothing selected frames d alone.
    e.set_selection(&[d]);
    key(&mut e, "H", SHIFT);
    e.set_selection(&[]);
    click(&mut e, at);
    assert!(e.selection().is_empty());
    assert_eq!(e.objects_in_rect(whole.0, whole.1), [d]);
    assert!(e.focus());
    assert!((e.camera.target - Point3::new(3.0, 0.0, 0.0)).norm() < 1e-9, "{:?}", e.camera.target);
}

/// Hidden flags are inherited through reparenting too: an object taken
/// under a hidden parent hides with it (gone from clicks and boxes, logged
/// hidden for renderers), one taken out from under it shows again, and
/// undo gives back each state.
#[test]
fn reparenting_under_a_hidden_parent_hides_and_out_from_under_it_shows() {
    let mut e = editor();
    let (p, d) = (id(&e, "p"), id(&e, "d"));
    let at_d = screen_of(&e, Point3::new(3.0, 0.1, 0.5));
    let whole = (Point2::new(0.0, 0.0), Point2::new(1280.0, 720.0));
    assert!(e.toggle_hidden(p));
    // A reparent that turns no object logs no visibility.
    let mark = e.change_mark();
    e.reparent(&[id(&e, "a")], Some(d)).unwrap();
    assert!(e.visibility_since(Some(mark)).is_empty());
    assert!(e.undo());
    let mark = e.change_mark();
    e.reparent(&[d], Some(p)).unwrap();
    assert!(e.scene().is_hidden(d) && !e.scene().objects()[d].hidden, "hidden by its parent, its own flag unset");
    assert_eq!(shown(&e), ["a", "b"]);
    assert_eq!(e.visibility_since(Some(mark)).last(), Some(&(d, true)), "renderers are told");
    click(&mut e, at_d);
    assert!(e.selection().is_empty(), "d is passed by a click");
    assert!(!e.objects_in_rect(whole.0, whole.1).contains(&d));
    // Taken out again (Alt+P on it: a root), it shows.
    let mark = e.change_mark();
    e.reparent(&[d], None).unwrap();
    assert!(!e.scene().is_hidden(d));
    assert_eq!(e.visibility_since(Some(mark)).last(), Some(&(d, false)));
    click(&mut e, at_d);
    assert_eq!(e.selection(), [d]);
    // Undo twice: under p (hidden), then a root again (shown).
    e.set_selection(&[]);
    assert!(e.undo());
    assert!(e.scene().is_hidden(d));
    click(&mut e, at_d);
    assert!(e.selection().is_empty());
    assert!(e.undo());
    assert!(!e.scene().is_hidden(d) && e.scene().parent(d).is_none());
    click(&mut e, at_d);
    assert_eq!(e.selection(), [d]);
}
