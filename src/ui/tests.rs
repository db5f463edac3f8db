//! Routing between the UI and the editor, in-process (no GPU): a click on a
//! toolbar button changes the gizmo and does not select; text reaches a
//! focused field only; Escape abandons and Enter confirms.

use super::side_panel::euler_deg;
use super::*;
use crate::editor::{KeyMap, NoFrame};
use crate::gizmo::Mode;
use crate::scene::Scene;
use nalgebra::UnitQuaternion;

fn setup(panel: bool) -> (Editor, Ui) {
    let mut editor = Editor::new(Scene::demo(), 800.0, 500.0);
    let mut ui = Ui::new(1.0, 800.0, 500.0, panel);
    ui.settle(&mut editor);
    (editor, ui)
}

fn centre(ui: &Ui, name: &str) -> (f64, f64) {
    let r = ui.trace().unwrap().rects[name];
    ((r[0] + r[2]) / 2.0, (r[1] + r[3]) / 2.0)
}

fn click(ui: &mut Ui, editor: &mut Editor, (x, y): (f64, f64), mods: Modifiers) {
    for e in [
        Event::CursorMoved { x, y },
        Event::MouseDown { button: MouseButton::Left },
        Event::MouseUp { button: MouseButton::Left },
    ] {
        ui.handle(editor, &e, mods, &mut NoFrame);
    }
}

#[test]
fn a_toolbar_click_changes_the_mode_and_selects_nothing() {
    let (mut editor, mut ui) = setup(false);
    let p = centre(&ui, "mode.scale");
    click(&mut ui, &mut editor, p, Modifiers::NONE);
    assert_eq!(editor.gizmo.config.mode, Mode::Scale);
    assert!(editor.selection().is_empty());
    // The same key binding still works from the keyboard.
    ui.handle(&mut editor, &Event::KeyDown { key: "E".into() }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.gizmo.config.mode, Mode::Rotate);
}

#[test]
fn typed_text_goes_to_the_focused_field_only() {
    let (mut editor, mut ui) = setup(true);
    editor.set_selection(&[0]);
    ui.run(&mut editor, false);
    let before = editor.scene().objects()[0].transform;
    // No field focused: text does nothing, keys reach the editor.
    ui.handle(&mut editor, &Event::Text { text: "9".into() }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.scene().objects()[0].transform, before);
    let p = centre(&ui, "position.y");
    click(&mut ui, &mut editor, p, Modifiers::NONE);
    ui.handle(&mut editor, &Event::Text { text: "-4".into() }, Modifiers::NONE, &mut NoFrame);
    // A key typed into the field does not reach the editor (E: rotate mode).
    ui.handle(&mut editor, &Event::KeyDown { key: "E".into() }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.gizmo.config.mode, Mode::Translate);
    ui.handle(&mut editor, &Event::KeyDown { key: "Escape".into() }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.scene().objects()[0].transform, before, "Escape abandons");
    click(&mut ui, &mut editor, p, Modifiers::NONE);
    ui.handle(&mut editor, &Event::Text { text: "-4".into() }, Modifiers::NONE, &mut NoFrame);
    ui.handle(&mut editor, &Event::KeyDown { key: "Enter".into() }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.scene().objects()[0].transform.position.y, -4.0);
    assert!(editor.undo());
    assert_eq!(editor.scene().objects()[0].transform, before);
    assert!(!editor.history().can_undo(), "the typed value was one undo step");
}

#[test]
fn status_text_names_the_drag_or_the_counts() {
    let (editor, _) = setup(false);
    assert_eq!(status_text(&editor, 1.5, None), "0 selected | 6 objects | 1.50 ms");
}

/// More shown light objects than a frame takes: the status line says how
/// many are left out, in the material mode while they light the frame.
#[test]
fn the_status_line_counts_the_lights_a_frame_leaves_out() {
    let objects: Vec<String> = (0..11)
        .map(|k| {
            format!(r#"{{ "name": "l{k}", "mesh": null, "position": [{k}, 2, 0], "light": {{ "type": "point" }} }}"#)
        })
        .collect();
    let json = format!(r#"{{ "objects": [{}] }}"#, objects.join(","));
    let mut editor = Editor::new(Scene::from_json(&json, std::path::Path::new(".")).unwrap(), 800.0, 500.0);
    let over = 11 - crate::look::LIGHTS_PER_FRAME;
    assert_eq!(
        status_text(&editor, 1.5, None),
        format!("0 selected | 11 objects | 1.50 ms | {over} lights left out (the nearest 8 light the frame)")
    );
    // The built-in sun instead, or the solid mode: none left out.
    editor.lighting.scene_lights = crate::look::SceneLights::Off;
    assert_eq!(status_text(&editor, 1.5, None), "0 selected | 11 objects | 1.50 ms");
    editor.lighting.scene_lights = crate::look::SceneLights::Auto;
    editor.lighting.shading = crate::look::Shading::Solid;
    assert_eq!(editor.lights_left_out(), 0);
    editor.lighting.shading = crate::look::Shading::Material;
    // Hiding all but eight: none left out.
    editor.set_selection(&(0..over).collect::<Vec<_>>());
    assert!(editor.hide_selected());
    assert_eq!(editor.lights_left_out(), 0);
}

#[test]
fn a_new_scale_factor_rescales_the_ui_and_the_gizmo() {
    let (mut editor, mut ui) = setup(false);
    let bar = |ui: &Ui| {
        let r = ui.trace().unwrap().rects["toolbar"];
        r[3] - r[1]
    };
    let (h1, size1, hit1) = (bar(&ui), editor.gizmo.config.size_px, editor.gizmo.config.hit_px);
    ui.set_scale(2.0, &mut editor);
    assert!((bar(&ui) - 2.0 * h1).abs() < 1e-6);
    assert_eq!((editor.gizmo.config.size_px, editor.gizmo.config.hit_px), (2.0 * size1, 2.0 * hit1));
    ui.set_scale(1.0, &mut editor);
    assert_eq!((editor.gizmo.config.size_px, editor.gizmo.config.hit_px), (size1, hit1));
}

#[test]
fn euler_fields_never_show_negative_zero() {
    // A rotation whose Euler angles come out as -0.0 (a tiny negative
    // component rounded by the decomposition) shows 0.
    for q in [UnitQuaternion::identity(), UnitQuaternion::from_euler_angles(-0.0, -0.0, -0.0)] {
        for a in euler_deg(&q) {
            assert!(!(a == 0.0 && a.is_sign_negative()), "{a:?}");
        }
    }
}

#[test]
fn ctrl_shortcuts_in_a_field_type_no_letters() {
    let (mut editor, mut ui) = setup(true);
    editor.set_selection(&[0]);
    ui.run(&mut editor, false);
    let p = centre(&ui, "position.y");
    click(&mut ui, &mut editor, p, Modifiers::NONE);
    ui.handle(&mut editor, &Event::Text { text: "3".into() }, Modifiers::NONE, &mut NoFrame);
    // Ctrl+A as a window delivers it: the key, then the text X11 attaches.
    let ctrl = Modifiers { ctrl: true, ..Modifiers::NONE };
    ui.handle(&mut editor, &Event::KeyDown { key: "A".into() }, ctrl, &mut NoFrame);
    ui.handle(&mut editor, &Event::Text { text: "a".into() }, ctrl, &mut NoFrame);
    ui.handle(&mut editor, &Event::KeyUp { key: "A".into() }, ctrl, &mut NoFrame);
    // What is typed next replaces the whole field.
    ui.handle(&mut editor, &Event::Text { text: "1.5".into() }, Modifiers::NONE, &mut NoFrame);
    ui.handle(&mut editor, &Event::KeyDown { key: "Enter".into() }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.scene().objects()[0].transform.position.y, 1.5);
}

#[test]
fn a_typed_zero_scale_is_refused_and_the_scene_still_saves() {
    let (mut editor, mut ui) = setup(true);
    editor.set_selection(&[0]);
    ui.run(&mut editor, false);
    let before = editor.scene().objects()[0].transform;
    assert_ne!(before.scale.x, 0.0);
    let p = centre(&ui, "scale.x");
    click(&mut ui, &mut editor, p, Modifiers::NONE);
    ui.handle(&mut editor, &Event::Text { text: "0".into() }, Modifiers::NONE, &mut NoFrame);
    ui.handle(&mut editor, &Event::KeyDown { key: "Enter".into() }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.scene().objects()[0].transform, before, "a zero scale was taken");
    assert!(!editor.history().can_undo(), "a refused value left an undo step");
    // What the editor holds always opens again.
    let saved = editor.scene().to_json();
    let reopened = Scene::from_json(&saved, std::path::Path::new(".")).expect("the saved scene reopens");
    assert_eq!(reopened.objects()[0].transform.scale, before.scale);
    // A small non-zero value is taken as typed.
    click(&mut ui, &mut editor, p, Modifiers::NONE);
    ui.handle(&mut editor, &Event::Text { text: "0.5".into() }, Modifiers::NONE, &mut NoFrame);
    ui.handle(&mut editor, &Event::KeyDown { key: "Enter".into() }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.scene().objects()[0].transform.scale.x, 0.5);
}

/// The outliner of a scene far longer than the panel: only the rows in
/// view are laid out (and traced), in hierarchy order; a click on one
/// selects it; the wheel scrolls later rows into view; a delete takes the
/// object's row out at once.
#[test]
fn a_long_outliner_lays_out_only_the_rows_in_view() {
    let n = 100_000;
    let mut editor = Editor::new(Scene::cube_grid(n), 800.0, 500.0);
    let mut ui = Ui::new(1.0, 800.0, 500.0, true);
    ui.settle(&mut editor);
    let shown = |ui: &Ui| -> Vec<usize> {
        let rects = &ui.trace().unwrap().rects;
        let mut rows: Vec<(f64, usize)> =
            rects.iter().filter_map(|(k, r)| Some((r[1], k.strip_prefix("outliner.cube")?.parse().ok()?))).collect();
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        rows.into_iter().map(|(_, i)| i).collect()
    };
    let first = shown(&ui);
    // The list fills what the panel leaves: a few rows of 21 points, not 100,000.
    assert!((3..40).contains(&first.len()), "{} rows laid out", first.len());
    assert_eq!(first, (0..first.len()).collect::<Vec<_>>(), "roots in id order from the top");

    let p = centre(&ui, "outliner.cube2");
    click(&mut ui, &mut editor, p, Modifiers::NONE);
    assert_eq!(editor.selection(), &[2]);
    let p = centre(&ui, "outliner.cube4");
    click(&mut ui, &mut editor, p, Modifiers { shift: true, ..Modifiers::NONE });
    assert_eq!(editor.selection(), &[2, 4]);

    // Scrolling over the list brings later rows, still consecutive.
    let p = centre(&ui, "outliner.cube1");
    ui.handle(&mut editor, &Event::CursorMoved { x: p.0, y: p.1 }, Modifiers::NONE, &mut NoFrame);
    for _ in 0..5 {
        ui.handle(&mut editor, &Event::Scroll { delta: -3.0 }, Modifiers::NONE, &mut NoFrame);
        ui.run(&mut editor, false);
    }
    // egui scrolls smoothly: let its animation finish.
    for _ in 0..30 {
        ui.advance(0.05);
        ui.run(&mut editor, false);
    }
    let later = shown(&ui);
    assert!(later[0] > first[0], "the wheel scrolled the list: {later:?}");
    assert_eq!(later, (later[0]..later[0] + later.len()).collect::<Vec<_>>());

    // Deleted objects leave the list (the rows follow the scene's structure).
    editor.set_selection(&[later[1]]);
    assert!(editor.delete());
    ui.run(&mut editor, false);
    let after = shown(&ui);
    assert!(!after.contains(&later[1]) && after.contains(&(later[1] + 1)), "{after:?}");
}

/// A UI at `w` x `h` with the side panel shown over `n` cubes (`cube0`, ...).
fn panel_over_cubes(n: usize, w: f64, h: f64) -> (Editor, Ui) {
    let mut editor = Editor::new(Scene::cube_grid(n), w, h);
    let mut ui = Ui::new(1.0, w, h, true);
    ui.settle(&mut editor);
    (editor, ui)
}

/// The outliner rows traced, top to bottom: (object number, rect).
fn rows_traced(ui: &Ui) -> Vec<(usize, [f64; 4])> {
    let rects = &ui.trace().unwrap().rects;
    let mut rows: Vec<(usize, [f64; 4])> =
        rects.iter().filter_map(|(k, r)| Some((k.strip_prefix("outliner.cube")?.parse().ok()?, *r))).collect();
    rows.sort_by(|a, b| a.1[1].total_cmp(&b.1[1]));
    rows
}

/// Lets egui's smooth scrolling finish.
fn let_time_pass(ui: &mut Ui, editor: &mut Editor) {
    for _ in 0..30 {
        ui.advance(0.05);
        ui.run(editor, false);
    }
}

/// The reviewed case: 20,000 names, each far shorter than the 280 px panel.
/// A click anywhere along a row, from the name to near the panel's right
/// edge, selects that row's object, and the list stays where it was.
#[test]
fn a_click_anywhere_along_an_outliner_row_selects_it_and_does_not_scroll() {
    let (mut editor, mut ui) = panel_over_cubes(20_000, 1280.0, 720.0);
    let panel = ui.trace().unwrap().rects["panel"];
    let before = rows_traced(&ui);
    assert_eq!(before[0].0, 0);
    // Fractions of the panel's width: on the name, just past it, the
    // middle, and 42 px short of the right edge (clear of the scroll bar).
    for (row, frac) in [(2, 0.06), (3, 0.2), (4, 0.3), (5, 0.5), (6, 0.85)] {
        let x = panel[0] + frac * (panel[2] - panel[0]);
        let r = ui.trace().unwrap().rects[&format!("outliner.cube{row}")];
        let y = (r[1] + r[3]) / 2.0;
        click(&mut ui, &mut editor, (x, y), Modifiers::NONE);
        let_time_pass(&mut ui, &mut editor);
        assert_eq!(editor.selection(), &[row], "a click at x = {x} on row {row}");
        let now = rows_traced(&ui);
        assert_eq!(now[0].0, 0, "the click at x = {x} scrolled the list to {}", now[0].0);
        assert_eq!(now[0].1[1], before[0].1[1], "the list moved");
    }
    // Shift+click far right of a name adds that row.
    let r = ui.trace().unwrap().rects["outliner.cube9"];
    click(
        &mut ui,
        &mut editor,
        (panel[0] + 0.7 * (panel[2] - panel[0]), r[1] + 2.0),
        Modifiers { shift: true, ..Modifiers::NONE },
    );
    assert_eq!(editor.selection(), &[6, 9]);
}

/// The wheel over the outliner's right part, far from every name, scrolls
/// the list and does not reach the camera.
#[test]
fn the_wheel_over_the_right_part_of_the_outliner_scrolls_it() {
    let (mut editor, mut ui) = panel_over_cubes(20_000, 1280.0, 720.0);
    let panel = ui.trace().unwrap().rects["panel"];
    let first = rows_traced(&ui);
    let r = first[3].1;
    let camera = editor.camera;
    let (x, y) = (panel[0] + 0.75 * (panel[2] - panel[0]), (r[1] + r[3]) / 2.0);
    ui.handle(&mut editor, &Event::CursorMoved { x, y }, Modifiers::NONE, &mut NoFrame);
    for _ in 0..3 {
        ui.handle(&mut editor, &Event::Scroll { delta: -3.0 }, Modifiers::NONE, &mut NoFrame);
    }
    let_time_pass(&mut ui, &mut editor);
    let later = rows_traced(&ui);
    assert!(later[0].0 > first[0].0 + 3, "the list did not scroll: rows from {} to {}", first[0].0, later[0].0);
    let numbers: Vec<usize> = later.iter().map(|r| r.0).collect();
    assert_eq!(numbers, (later[0].0..later[0].0 + later.len()).collect::<Vec<_>>());
    assert_eq!(editor.camera, camera, "the wheel over the panel zoomed");
}

fn overlap(a: [f64; 4], b: [f64; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

fn inside(a: [f64; 4], b: [f64; 4]) -> bool {
    a[0] >= b[0] && a[1] >= b[1] && a[2] <= b[2] && a[3] <= b[3]
}

/// Short windows: the panel (from y = 210 down to the status line) holds
/// the outliner above the transform section and nothing of it lies over
/// the other section or the status line; where there is room the list
/// takes all of it the transform section leaves.
#[test]
fn in_short_windows_the_panel_sections_stay_apart_and_off_the_status_line() {
    for (w, h) in [(320.0, 240.0), (320.0, 300.0), (400.0, 380.0), (640.0, 420.0), (800.0, 500.0), (1280.0, 720.0)] {
        for active in [None, Some(3)] {
            let (mut editor, mut ui) = panel_over_cubes(200, w, h);
            if let Some(i) = active {
                editor.set_selection(&[i]);
                ui.run(&mut editor, false);
            }
            let rects = ui.trace().unwrap().rects.clone();
            let case = format!("{w}x{h}, active {active:?}");
            let (panel, status) = (rects["panel"], rects["status"]);
            assert_eq!(panel[3], status[1], "{case}: the panel ends at the status line");
            let rows = rows_traced(&ui);
            let fields: Vec<[f64; 4]> = ["position", "rotation", "scale"]
                .iter()
                .flat_map(|r| ["x", "y", "z"].map(|a| format!("{r}.{a}")))
                .filter_map(|k| rects.get(&k).copied())
                .collect();
            for r in rows.iter().map(|r| &r.1).chain(&fields) {
                assert!(!overlap(*r, status), "{case}: {r:?} lies over the status line {status:?}");
                assert!(inside(*r, panel), "{case}: {r:?} lies outside the panel {panel:?}");
            }
            let section = rects.get("transform").copied();
            if let Some(t) = section {
                assert!(inside(t, panel), "{case}: transform section {t:?}");
                for f in &fields {
                    assert!(inside(*f, t), "{case}: field {f:?} outside its section {t:?}");
                }
            }
            match rects.get("outliner").copied() {
                Some(list) => {
                    let t = section.unwrap_or_else(|| panic!("{case}: a list without the transform section"));
                    assert!(!overlap(list, t), "{case}: list {list:?} over the transform section {t:?}");
                    for (i, r) in &rows {
                        assert!(inside(*r, list), "{case}: row cube{i} {r:?} outside the list {list:?}");
                    }
                    // The list reaches down to the section (one item gap),
                    // and the section to the panel's bottom (its margin).
                    assert!((0.0..=4.0).contains(&(t[1] - list[3])), "{case}: gap {list:?} / {t:?}");
                    assert!((0.0..=4.0).contains(&(panel[3] - t[3])), "{case}: section {t:?} in {panel:?}");
                    assert!(!rows.is_empty(), "{case}: a list without rows");
                }
                None => assert!(rows.is_empty(), "{case}: rows without a list"),
            }
        }
    }
    // The test can fail: a panel tall enough shows both sections.
    let (_, ui) = panel_over_cubes(200, 800.0, 500.0);
    let rects = &ui.trace().unwrap().rects;
    assert!(rects.contains_key("outliner") && rects.contains_key("transform"));
}

/// In the quad view the widget sits at the perspective view's top-right
/// corner and a click on a ball turns the perspective camera, even when
/// the cursor came from an orthographic view.
#[test]
fn in_the_quad_view_the_widget_turns_the_perspective_camera() {
    let (mut editor, mut ui) = setup(false);
    editor.toggle_quad();
    let front = editor.views()[1].camera;
    // 800 x 500 split by a 1 px line: the bottom-right view spans
    // x 400..800, y 250..500; the widget's centre is 80 px left of its
    // right edge and 120 px below its top.
    let centre = (800.0 - 80.0, 250.0 + 120.0);
    let cam = editor.camera;
    let back = (cam.eye - cam.target).normalize();
    let right = cam.up.cross(&back).normalize();
    let up = back.cross(&right);
    let y = nalgebra::Vector3::y();
    let ball = (centre.0 + 56.0 * y.dot(&right), centre.1 - 56.0 * y.dot(&up));
    ui.handle(&mut editor, &Event::CursorMoved { x: 600.0, y: 100.0 }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.active_view(), 1, "the cursor is over the Front view");
    click(&mut ui, &mut editor, ball, Modifiers::NONE);
    let look = (editor.camera.target - editor.camera.eye).normalize();
    assert!((look + y).norm() < 1e-9, "the perspective camera looks down: {look:?}");
    assert_eq!(editor.views()[1].camera, front, "the Front view is left alone");
}

/// A value typed into a field and left by a press on a gizmo handle in the
/// 3D view is kept (the field takes it before the press can start a drag),
/// as one undo step; the press then acts on the moved object.
#[test]
fn a_press_on_the_gizmo_keeps_the_value_typed_into_a_field() {
    let (mut editor, mut ui) = setup(true);
    editor.set_selection(&[0]);
    ui.run(&mut editor, false);
    let before = editor.scene().objects()[0].transform;
    // The X arrow's middle, projected with the editor's own view (the
    // hover test finds it there).
    let view = editor.view().unwrap();
    let frame = editor.gizmo.frame(&view, &editor.targets()).unwrap();
    let grab = view.world_to_screen(&(frame.pivot + frame.axes[0] * (0.6 * frame.len))).unwrap();
    let p = centre(&ui, "position.y");
    click(&mut ui, &mut editor, p, Modifiers::NONE);
    let typed = before.position.y + 0.75;
    ui.handle(&mut editor, &Event::Text { text: format!("{typed}") }, Modifiers::NONE, &mut NoFrame);
    for e in [Event::CursorMoved { x: grab.x, y: grab.y }, Event::MouseDown { button: MouseButton::Left }] {
        ui.handle(&mut editor, &e, Modifiers::NONE, &mut NoFrame);
    }
    assert_eq!(editor.scene().objects()[0].transform.position.y, typed, "the typed value is kept");
    ui.handle(&mut editor, &Event::MouseUp { button: MouseButton::Left }, Modifiers::NONE, &mut NoFrame);
    assert_eq!(editor.scene().objects()[0].transform.position.y, typed);
    assert!(editor.undo());
    assert_eq!(editor.scene().objects()[0].transform, before, "one undo step");
}

#[test]
fn tooltips_and_the_add_menu_show_the_chords_in_force() {
    use super::dialog::add_menu_title;
    use super::toolbar::tip;
    let defaults = KeyMap::default();
    assert_eq!(tip(&defaults, "World / local space", Command::ToggleSpace), "World / local space (X)");
    assert_eq!(tip(&defaults, "Move", Command::SetMode(Mode::Translate)), "Move (W)");
    assert_eq!(
        tip(&defaults, "Reversed / standard depth", Command::ToggleDepth),
        "Reversed / standard depth (Shift+F2)"
    );
    assert_eq!(add_menu_title(&defaults), "Add (Shift+A)");
    // No key toggles the scene lights by default: no chord shown.
    assert_eq!(tip(&defaults, "Scene lights", Command::ToggleSceneLights), "Scene lights");
    let mine = KeyMap::from_json(
        r#"{"bindings": {"X": null, "J": "toggle_space", "Shift+A": null, "K": "add_menu", "L": "toggle_scene_lights"}}"#,
    )
    .unwrap();
    assert_eq!(tip(&mine, "World / local space", Command::ToggleSpace), "World / local space (J)");
    assert_eq!(add_menu_title(&mine), "Add (K)");
    assert_eq!(tip(&mine, "Scene lights", Command::ToggleSceneLights), "Scene lights (L)");
    // And K opens the menu where Shift+A no longer does.
    let (mut editor, mut ui) = setup(false);
    editor.keymap = mine;
    let key = |k: &str| Event::KeyDown { key: k.into() };
    let shift = Modifiers { shift: true, ..Modifiers::NONE };
    ui.handle(&mut editor, &Event::CursorMoved { x: 400.0, y: 250.0 }, Modifiers::NONE, &mut NoFrame);
    ui.handle(&mut editor, &key("A"), shift, &mut NoFrame);
    assert!(!ui.trace().unwrap().rects.contains_key("add.cube"));
    ui.handle(&mut editor, &key("K"), Modifiers::NONE, &mut NoFrame);
    assert!(ui.trace().unwrap().rects.contains_key("add.cube"));
}
