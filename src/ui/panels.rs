//! What the UI shows, laid out for one egui pass: the toolbar, the status
//! line, the side panel (outliner and transform fields) and the view
//! widget. Each control records its rectangle in the trace and turns what
//! the user did into [`Command`]s that [`super::Ui`] applies to the editor.

use std::collections::HashSet;

use egui::{Color32, Pos2, Rect, Vec2};
use nalgebra::{Point2, UnitQuaternion, Vector3};

use super::number;
use super::outliner::Row;
use super::{px_rect, widget, UiTrace, MIN_SIZE, PANEL_TOP, PANEL_WIDTH, STATUS_HEIGHT, TOOLBAR_HEIGHT};
use crate::editor::{Command, Editor};
use crate::gizmo::{Delta, Mode};
use crate::math::Projection;

/// The status line: the live change during a drag (metres per axis, an
/// angle in degrees or scale factors), otherwise `notice` if there is one,
/// else counts and frame time.
pub fn status_text(editor: &Editor, frame_ms: f64, notice: Option<&str>) -> String {
    if let Some(t) = editor.typed_value() {
        return format!("{}  (Enter confirms, Esc cancels)", typed_label(editor, t));
    }
    if let Some(u) = editor.gizmo.last_update() {
        return match u.delta {
            Delta::Translate(d) => {
                format!("D: {:.4} m  {:.4} m  {:.4} m  ({:.4} m)", d.x, d.y, d.z, d.norm())
            }
            Delta::Rotate(q) => format!("Rot: {:.2}\u{b0}", q.angle().to_degrees()),
            Delta::Scale(s) => format!("Scale: {:.4}  {:.4}  {:.4}", s[0], s[1], s[2]),
        };
    }
    if let Some(h) = editor.gizmo.active() {
        // Grabbed, not moved yet.
        let name = h.name();
        return if name.starts_with("rotate") {
            "Rot: 0.00\u{b0}".into()
        } else if name.starts_with("scale") {
            "Scale: 1.0000  1.0000  1.0000".into()
        } else {
            "D: 0.0000 m  0.0000 m  0.0000 m  (0.0000 m)".into()
        };
    }
    if let Some(n) = notice {
        return n.to_string();
    }
    if editor.ruler_on() {
        return match editor.measurement() {
            Some((a, b)) => {
                format!("Distance: {:.3} m  (drag to measure again, V: vertices, M: ruler off)", (b - a).norm())
            }
            None => "Ruler: drag from one point to another (V: vertices, M: ruler off)".into(),
        };
    }
    format!("{} selected | {} objects | {:.2} ms", editor.selection().len(), editor.scene().len(), frame_ms)
}

/// A number typed during a drag with what it means: `Move X: 2.5 m`,
/// `Rotate Z: 90°`, `Scale Y: 1.5`.
pub(super) fn typed_label(editor: &Editor, typed: &str) -> String {
    let handle = editor.gizmo.active().map(|h| h.name()).unwrap_or_default();
    let (what, unit) = if handle.starts_with("translate") {
        ("Move", " m")
    } else if handle.starts_with("rotate") {
        ("Rotate", "\u{b0}")
    } else {
        ("Scale", "")
    };
    let axis = handle.rsplit('.').next().unwrap_or("").to_uppercase();
    let number = if typed.is_empty() { "_" } else { typed };
    format!("{what} {axis}: {number}{unit}")
}

/// Euler angles (degrees) as XYZ: the rotation is Rz * Ry * Rx.
pub(super) fn euler_deg(q: &UnitQuaternion<f64>) -> [f64; 3] {
    let (x, y, z) = q.euler_angles();
    // `+ 0.0` turns -0.0 into 0.0, so a field never shows "-0.0".
    [x.to_degrees() + 0.0, y.to_degrees() + 0.0, z.to_degrees() + 0.0]
}

/// Where a pass leaves the message of a number field's unreadable text,
/// for [`super::Ui::run`] to show in the status line.
pub(super) fn unreadable_id() -> egui::Id {
    egui::Id::new("unreadable number")
}

/// Records a named control's rectangle.
fn note(trace: &mut UiTrace, name: &str, r: &egui::Response, u: f64) {
    trace.rects.insert(name.to_string(), px_rect(r.rect, u));
}

/// A rename typed in place: in an outliner row (double click, F2) or in
/// the transform section's name field.
#[derive(Clone, Debug)]
pub(super) struct Renaming {
    pub object: usize,
    pub text: String,
    /// The field takes the keyboard (all its text selected) this pass.
    pub start: bool,
    /// In the transform section's name field, not the outliner row.
    pub in_panel: bool,
}

/// What the outliner reads and asks for besides commands.
pub(super) struct OutlinerIo<'a> {
    /// The rows shown and the objects whose children are folded away.
    pub rows: &'a [Row],
    pub collapsed: &'a HashSet<u32>,
    pub filter: &'a mut String,
    /// The filter field takes the keyboard this pass (Ctrl+F).
    pub focus_filter: bool,
    /// Scroll the active object's row into view even if it was seen.
    pub reveal_active: bool,
    pub renaming: &'a mut Option<Renaming>,
    /// Out: a disclosure arrow clicked (the object).
    pub toggled: Option<u32>,
    /// Out: a row asked to be renamed (double click).
    pub rename_row: Option<usize>,
    /// Out: the rename in place ended: confirmed (Enter, a click
    /// elsewhere) or abandoned (Esc).
    pub rename_done: Option<bool>,
}

/// Lays out the whole UI for one pass; `panel`: the side panel is shown,
/// with this outliner.
pub(super) fn build(
    ui: &mut egui::Ui,
    editor: &Editor,
    u: f64,
    panel: Option<&mut OutlinerIo<'_>>,
    status: &str,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let screen = ui.ctx().content_rect();
    if screen.width() < MIN_SIZE.x || screen.height() < MIN_SIZE.y {
        // Too small to lay anything out (egui insists on positive sizes).
        return;
    }
    let cfg = editor.gizmo.config;
    let bar = egui::Panel::top("toolbar").exact_size(TOOLBAR_HEIGHT).resizable(false).show(ui, |ui| {
        // A window narrower than the toolbar scrolls it sideways (wheel or
        // drag over it) rather than cutting off its right end.
        egui::ScrollArea::horizontal().show(ui, |ui| {
            ui.horizontal_centered(|ui| {
                for (mode, label, key) in [
                    (Mode::Translate, "Move", "W"),
                    (Mode::Rotate, "Rotate", "E"),
                    (Mode::Scale, "Scale", "R"),
                    (Mode::Universal, "All", "T"),
                ] {
                    let r = ui.selectable_label(cfg.mode == mode, label).on_hover_text(format!("{label} ({key})"));
                    if r.clicked() {
                        actions.push(Command::SetMode(mode));
                    }
                    note(trace, &format!("mode.{}", mode.name()), &r, u);
                }
                ui.separator();
                let r = ui.button(cfg.space.name()).on_hover_text("World / local space (X)");
                if r.clicked() {
                    actions.push(Command::ToggleSpace);
                }
                note(trace, "space", &r, u);
                let r = ui
                    .button(format!("Pivot: {}", cfg.pivot.name()))
                    .on_hover_text("Pivot: median, individual, active, bounds (Period)");
                if r.clicked() {
                    actions.push(Command::CyclePivot);
                }
                note(trace, "pivot", &r, u);
                ui.separator();
                let mut on = editor.snap_on;
                let r =
                    ui.toggle_value(&mut on, "Snap").on_hover_text("Snapping on / off (hold Ctrl to snap while off)");
                if r.clicked() {
                    actions.push(Command::SetSnapping(on));
                }
                note(trace, "snap", &r, u);
                let mut snap = cfg.snap;
                let mut changed = false;
                let mut unreadable = None;
                for (name, value, speed, tip) in [
                    ("snap.translate", &mut snap.translate, 0.01, "Translation increment (m)"),
                    ("snap.rotate", &mut snap.rotate_deg, 0.5, "Rotation increment (degrees)"),
                    ("snap.scale", &mut snap.scale, 0.01, "Scale increment"),
                ] {
                    let id = egui::Id::new("snap field").with(name);
                    let f = number::field(ui, id, Some(*value), speed, 1e-4..=1e4, &mut unreadable);
                    ui.interact(f.rect, id.with("tip"), egui::Sense::hover()).on_hover_text(tip);
                    match f.change {
                        number::Change::Typed(v) => *value = v,
                        number::Change::Dragged(d) => *value = (*value + d).clamp(1e-4, 1e4),
                        number::Change::None => {}
                    }
                    changed |= f.change != number::Change::None;
                    trace.rects.insert(name.to_string(), px_rect(f.rect, u));
                    if let Some(e) = f.error {
                        trace.rects.insert(format!("{name}.error"), px_rect(e, u));
                    }
                }
                if let Some(message) = unreadable {
                    ui.ctx().data_mut(|d| d.insert_temp(unreadable_id(), message));
                }
                let r = ui
                    .checkbox(&mut snap.absolute, "Abs")
                    .on_hover_text("Absolute snapping: to multiples of the increment");
                changed |= r.changed();
                note(trace, "snap.absolute", &r, u);
                if changed {
                    actions.push(Command::SetSnap(snap));
                }
                ui.separator();
                let r = ui
                    .button(format!("Depth: {}", editor.depth.name()))
                    .on_hover_text("Reversed / standard depth (Shift+F2)");
                if r.clicked() {
                    actions.push(Command::ToggleDepth);
                }
                note(trace, "depth", &r, u);
                let ortho = matches!(editor.camera.projection, Projection::Orthographic { .. });
                let r = ui
                    .button(if ortho { "Ortho" } else { "Persp" })
                    .on_hover_text("Perspective / orthographic (Numpad5)");
                if r.clicked() {
                    actions.push(Command::ToggleProjection);
                }
                note(trace, "projection", &r, u);
                let shading = editor.lighting.shading;
                let r = ui
                    .button(match shading {
                        crate::look::Shading::Material => "Material",
                        crate::look::Shading::Solid => "Solid",
                    })
                    .on_hover_text(format!(
                        "Shading: material (lit as authored) / solid (Z)\nEnvironment: {}",
                        editor.lighting.environment.name()
                    ));
                if r.clicked() {
                    actions.push(Command::ToggleShading);
                }
                note(trace, "shading", &r, u);
                let on = editor.lighting.scene_lights;
                let r = ui
                    .selectable_label(on, "Lights")
                    .on_hover_text("Scene lights: the material mode lit by the glTF files' lights in place of the sun");
                if r.clicked() {
                    actions.push(Command::ToggleSceneLights);
                }
                note(trace, "scene_lights", &r, u);
            })
        });
    });
    trace.rects.insert("toolbar".into(), px_rect(bar.response.rect, u));

    let line = egui::Panel::bottom("status").exact_size(STATUS_HEIGHT).resizable(false).show(ui, |ui| {
        ui.horizontal_centered(|ui| ui.label(status));
    });
    trace.rects.insert("status".into(), px_rect(line.response.rect, u));
    trace.status = status.to_string();

    if let Some(io) = panel {
        side_panel(ui, editor, io, u, screen, actions, trace);
    }
    view_labels(ui.ctx(), editor, u);
    ring_sweep(ui.ctx(), editor, u, screen, trace);
    ruler(ui.ctx(), editor, u, trace);
    if let Some(t) = editor.typed_value() {
        // The typed number beside the cursor.
        let c = editor.cursor();
        let at = Pos2::new((c.x / u) as f32 + 16.0, (c.y / u) as f32 + 12.0);
        let painter = ui.ctx().layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::new("typed")));
        let galley = painter.layout_no_wrap(typed_label(editor, t), egui::FontId::proportional(14.0), Color32::WHITE);
        let size = galley.size() + Vec2::new(10.0, 6.0);
        // Kept on screen: left of the cursor near the right edge.
        let at = Pos2::new(at.x.min(screen.right() - size.x).max(0.0), at.y.min(screen.bottom() - size.y).max(0.0));
        let back = Rect::from_min_size(at, size);
        painter.rect_filled(back, 3.0, Color32::from_black_alpha(190));
        painter.galley(at + Vec2::new(5.0, 3.0), galley, Color32::WHITE);
        trace.rects.insert("typed".into(), px_rect(back, u));
    }
    view_widget(ui.ctx(), editor, u, screen);
}

/// The side panel: the outliner on top, the active object's transform at
/// the bottom, the outliner's list taking the height the transform section
/// leaves. Only the outliner rows scrolled into view are laid out (and
/// traced).
///
/// The panel is drawn on the background layer, like the toolbar, rather
/// than in an egui area: an area fades in when it appears and spends its
/// first pass measuring itself unseen, so a screenshot or a click right
/// after the panel is shown would meet a panel that is not (fully) there
/// while the trace already has its rects.
fn side_panel(
    ui: &mut egui::Ui,
    editor: &Editor,
    io: &mut OutlinerIo<'_>,
    u: f64,
    screen: Rect,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let width = PANEL_WIDTH.min(screen.width());
    let top = PANEL_TOP;
    let bottom = (screen.max.y - STATUS_HEIGHT).max(top);
    let rect = Rect::from_min_max(Pos2::new(screen.max.x - width, top), Pos2::new(screen.max.x, bottom));
    trace.rects.insert("panel".into(), px_rect(rect, u));
    let mut ui = ui.new_child(egui::UiBuilder::new().id_salt("side panel").max_rect(rect));
    // Nothing the panel holds is drawn outside it: in a short window its
    // lower part is cut off rather than laid over the status line.
    ui.set_clip_rect(rect);
    egui::Frame::side_top_panel(ui.style()).show(&mut ui, |ui| {
        let inner = rect.shrink2(Vec2::new(8.0, 2.0)).size().max(Vec2::ZERO);
        ui.set_min_size(inner);
        ui.set_max_size(inner);
        ui.strong("Outliner");
        // The filter (Ctrl+F): rows whose names contain its text, with their ancestors.
        let field =
            ui.add(egui::TextEdit::singleline(io.filter).hint_text("Filter (Ctrl+F)").desired_width(f32::INFINITY));
        if io.focus_filter {
            field.request_focus();
        }
        note_visible(trace, "filter", field.rect, ui.clip_rect(), u);

        // The transform section's height is known once it is laid out, after
        // the list above it: the last pass's height is used, and a pass that
        // finds it changed asks egui to lay the UI out again at once.
        let memory = egui::Id::new("side panel transform height");
        let tail_then: f32 = ui.data(|d| d.get_temp(memory)).unwrap_or(0.0);
        let list_height = ui.max_rect().max.y - ui.cursor().min.y - tail_then;
        let row_height = ui.spacing().interact_size.y + ui.spacing().item_spacing.y;
        if list_height >= row_height {
            outliner(ui, editor, io, list_height, row_height, u, actions, trace);
        } else if let Some(r) = io.renaming.as_mut().filter(|r| !r.in_panel && editor.active() == Some(r.object)) {
            // No room for the list (a short window): F2 edits the name field.
            r.in_panel = true;
            r.start = true;
        }
        // The Animation section, when the scene's files have clips.
        let animation = (!editor.clips().is_empty())
            .then(|| ui.scope(|ui| animation_section(ui, editor, u, actions, trace)).response.rect.height());
        let tail = ui.scope(|ui| transform_section(ui, editor, io, u, actions, trace));
        // The sections and the gaps above them.
        let gap = ui.spacing().item_spacing.y;
        let tail_now = tail.response.rect.height() + gap + animation.map_or(0.0, |h| h + gap);
        note_visible(trace, "transform", tail.response.rect, ui.clip_rect(), u);
        if (tail_now - tail_then).abs() > 0.5 {
            ui.data_mut(|d| d.insert_temp(memory, tail_now));
            ui.ctx().request_discard("the side panel's transform section changed height");
        }
    });
}

/// Records the part of a panel control's rectangle left visible by `clip`
/// (a row half scrolled out of the list, a field cut off by a short
/// window); nothing when none of it is.
fn note_visible(trace: &mut UiTrace, name: &str, rect: Rect, clip: Rect, u: f64) {
    let shown = rect.intersect(clip);
    if shown.is_positive() {
        trace.rects.insert(name.to_string(), px_rect(shown, u));
    }
}

/// The outliner's list, `height` points high and as wide as the panel:
/// each row spans the full width, so a click anywhere along it selects
/// that object and the wheel scrolls the list anywhere over it; the scroll
/// bar sits at the panel's right edge. Rows with children start with a
/// disclosure arrow; a double click renames a row in place; rows dragged
/// onto a row become its children, dropped under the last row roots.
#[allow(clippy::too_many_arguments)]
fn outliner(
    ui: &mut egui::Ui,
    editor: &Editor,
    io: &mut OutlinerIo<'_>,
    height: f32,
    row_height: f32,
    u: f64,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let scene = editor.scene();
    let active = editor.active();
    let shift = ui.input(|i| i.modifiers.shift);
    let rows = io.rows;
    ui.scope(|ui| {
        // Rows touch, so no gap between two of them belongs to neither.
        ui.spacing_mut().item_spacing.y = 0.0;
        let mut list =
            egui::ScrollArea::vertical().auto_shrink([false, false]).max_height(height).min_scrolled_height(height);
        // A new active object whose row is out of view (selected in the 3D
        // view) is scrolled to, into the middle of the list.
        let memory = ui.id().with("outliner.seen");
        let (seen_active, offset) = ui.data(|d| d.get_temp::<(Option<usize>, f32)>(memory)).unwrap_or((None, 0.0));
        if let Some(a) = active.filter(|a| io.reveal_active || Some(*a) != seen_active) {
            if let Some(r) = rows.iter().position(|row| row.id as usize == a) {
                let (top, bottom) = (r as f32 * row_height, (r + 1) as f32 * row_height);
                if top < offset || bottom > offset + height {
                    list = list.vertical_scroll_offset((top - 0.5 * (height - row_height)).max(0.0));
                }
            }
        }
        // Whether a dragged row was let go over a row; whether the row
        // being renamed in place was laid out.
        let mut dropped_on_row = false;
        let mut renamed_row_shown = false;
        let out = list.show_rows(ui, row_height, rows.len(), |ui, in_view| {
            for &Row { id, depth } in &rows[in_view] {
                let i = id as usize;
                let o = &scene.objects()[i];
                let mut text = egui::RichText::new(o.name.as_str());
                // Greyed while hidden, by its own flag or an ancestor's.
                let hidden = scene.is_hidden(i);
                if hidden {
                    text = text.color(Color32::GRAY);
                } else if active == Some(i) {
                    text = text.strong().color(Color32::from_rgb(255, 230, 140));
                }
                let has_children = !scene.hierarchy().children(i).is_empty();
                let renaming = io.renaming.as_mut().filter(|r| r.object == i && !r.in_panel);
                let look = RowLook { depth, selected: editor.is_selected(i), name: renaming.is_none() };
                let r = outliner_row(ui, text, look, row_height);
                r.dnd_set_drag_payload(i);
                if r.dnd_hover_payload::<usize>().is_some() {
                    let stroke = egui::Stroke::new(1.5, ui.visuals().selection.stroke.color);
                    ui.painter().rect_stroke(r.rect, 2.0, stroke, egui::StrokeKind::Inside);
                }
                if let Some(dragged) = r.dnd_release_payload::<usize>() {
                    dropped_on_row = true;
                    drop_rows(editor, *dragged, Some(i), actions);
                }
                // The arrow and the eye, registered after the row so that
                // they take the clicks on them.
                let arrow = has_children.then(|| {
                    let collapsed = io.collapsed.contains(&id);
                    disclosure_arrow(ui, r.rect, depth, r.id.with("arrow"), collapsed)
                });
                let eye = eye_button(ui, r.rect, r.id.with("eye"), o.hidden, hidden);
                if let Some(renaming) = renaming {
                    renamed_row_shown = true;
                    let field = name_field_in_row(ui, r.rect, depth, renaming);
                    if let Some(done) = field {
                        io.rename_done = Some(done);
                    }
                } else if eye.clicked() {
                    actions.push(Command::ToggleHidden { object: i });
                } else if arrow.as_ref().is_some_and(egui::Response::clicked) {
                    io.toggled = Some(id);
                } else if r.double_clicked() {
                    io.rename_row = Some(i);
                } else if r.clicked() {
                    actions.push(Command::Select { object: i, add: shift });
                }
                note_visible(trace, &format!("outliner.{}", o.name), r.rect, ui.clip_rect(), u);
                note_visible(trace, &format!("eye.{}", o.name), eye.rect, ui.clip_rect(), u);
                if let Some(a) = arrow {
                    note_visible(trace, &format!("arrow.{}", o.name), a.rect, ui.clip_rect(), u);
                }
            }
        });
        // A rename whose row scrolled out of the list has lost the keyboard
        // (egui drops the focus of what it does not lay out): it ends, as a
        // click elsewhere ends it.
        if !renamed_row_shown && io.renaming.as_ref().is_some_and(|r| !r.in_panel && !r.start) {
            io.rename_done = Some(true);
        }
        // Let go in the list but over no row (under the last one): roots.
        let list_rect = out.inner_rect;
        let over_list = ui.input(|i| i.pointer.interact_pos()).is_some_and(|p| list_rect.contains(p));
        let released = ui.input(|i| i.pointer.any_released());
        if !dropped_on_row && over_list && released {
            if let Some(dragged) = egui::DragAndDrop::take_payload::<usize>(ui.ctx()) {
                drop_rows(editor, *dragged, None, actions);
            }
        }
        note_visible(trace, "outliner", out.inner_rect, ui.clip_rect(), u);
        ui.data_mut(|d| d.insert_temp(memory, (active, out.state.offset.y)));
    });
}

/// Rows dragged from `dragged`'s row and let go on `parent`'s row (`None`:
/// under the last row): the selection moves if the dragged row is in it,
/// else the dragged object alone (selected first). A row let go on itself,
/// or a hidden row not selected, does nothing.
fn drop_rows(editor: &Editor, dragged: usize, parent: Option<usize>, actions: &mut Vec<Command>) {
    // A row let go on itself, or a hidden row that is not selected (it
    // cannot be: the drop would move the selection instead).
    if parent == Some(dragged) || (!editor.is_selected(dragged) && editor.scene().is_hidden(dragged)) {
        return;
    }
    if !editor.is_selected(dragged) {
        actions.push(Command::Select { object: dragged, add: false });
    }
    actions.push(Command::ReparentSelection { parent });
}

/// How an outliner row is drawn.
struct RowLook {
    depth: u32,
    selected: bool,
    /// Its name is drawn (not while it is renamed in place).
    name: bool,
}

/// Indentation of a row's arrow, in points.
fn indent(depth: u32) -> f32 {
    12.0 * depth as f32
}

/// The disclosure arrow of a row with children: pointing right while
/// folded, down while open; a click toggles it.
fn disclosure_arrow(ui: &mut egui::Ui, row: Rect, depth: u32, id: egui::Id, collapsed: bool) -> egui::Response {
    let side = row.height();
    let left = row.left() + ui.spacing().button_padding.x + indent(depth);
    let rect = Rect::from_min_size(Pos2::new(left, row.top()), Vec2::splat(side));
    let r = ui.interact(rect, id, egui::Sense::click()).on_hover_text(if collapsed { "Expand" } else { "Collapse" });
    if ui.is_rect_visible(rect) {
        let colour = if r.hovered() { ui.visuals().strong_text_color() } else { ui.visuals().text_color() };
        let (c, h) = (rect.center(), side * 0.2);
        let points = if collapsed {
            vec![c + Vec2::new(-h * 0.6, -h), c + Vec2::new(h, 0.0), c + Vec2::new(-h * 0.6, h)]
        } else {
            vec![c + Vec2::new(-h, -h * 0.6), c + Vec2::new(h, -h * 0.6), c + Vec2::new(0.0, h)]
        };
        ui.painter().add(egui::Shape::convex_polygon(points, colour, egui::Stroke::NONE));
    }
    r
}

/// Where a row's name starts: after its indentation and its arrow's room.
fn name_left(ui: &egui::Ui, row: Rect, depth: u32) -> f32 {
    row.left() + ui.spacing().button_padding.x + indent(depth) + row.height()
}

/// The name field over a row being renamed; `Some(confirmed)` when the
/// rename ends this pass (Enter or a click elsewhere: confirmed; Esc: not).
fn name_field_in_row(ui: &mut egui::Ui, row: Rect, depth: u32, renaming: &mut Renaming) -> Option<bool> {
    let rect = Rect::from_min_max(
        Pos2::new(name_left(ui, row, depth), row.top()),
        Pos2::new(row.right() - row.height(), row.bottom()),
    );
    let id = egui::Id::new("rename in place");
    let field = ui.put(rect, egui::TextEdit::singleline(&mut renaming.text).id(id).margin(Vec2::new(2.0, 0.0)));
    name_field_focus(ui, &field, renaming)
}

/// Takes the keyboard with all the text selected on a rename's first
/// pass; `Some(confirmed)` once the field lets the keyboard go.
fn name_field_focus(ui: &egui::Ui, field: &egui::Response, renaming: &mut Renaming) -> Option<bool> {
    if std::mem::take(&mut renaming.start) {
        field.request_focus();
        let mut state = egui::text_edit::TextEditState::load(ui.ctx(), field.id).unwrap_or_default();
        let all = egui::text::CCursorRange::two(
            egui::text::CCursor::new(0),
            egui::text::CCursor::new(renaming.text.chars().count()),
        );
        state.cursor.set_char_range(Some(all));
        state.store(ui.ctx(), field.id);
        return None;
    }
    field.lost_focus().then(|| !ui.input(|i| i.key_pressed(egui::Key::Escape)))
}

/// The eye at the right end of an outliner row (`row`): a click toggles
/// the object's own `hidden` flag. Drawn open (a ring with a pupil) when
/// the object's own flag is clear, struck through when set; faint when
/// only an ancestor hides the object.
fn eye_button(ui: &mut egui::Ui, row: Rect, id: egui::Id, own: bool, hidden: bool) -> egui::Response {
    let side = row.height();
    let rect = Rect::from_min_size(Pos2::new(row.right() - side, row.top()), Vec2::splat(side));
    let r = ui.interact(rect, id, egui::Sense::click()).on_hover_text(if own { "Show" } else { "Hide" });
    if ui.is_rect_visible(rect) {
        let colour = if r.hovered() {
            ui.visuals().strong_text_color()
        } else if hidden && !own {
            Color32::DARK_GRAY
        } else {
            ui.visuals().text_color()
        };
        let (c, radius) = (rect.center(), side * 0.22);
        let stroke = egui::Stroke::new(1.2, colour);
        ui.painter().circle_stroke(c, radius, stroke);
        if own {
            let d = Vec2::splat(radius * 1.4);
            ui.painter().line_segment([c - d, c + d], stroke);
        } else {
            ui.painter().circle_filled(c, radius * 0.45, colour);
        }
    }
    r
}

/// One outliner row: the whole width of the list, `height` high, the name
/// after its indentation and its arrow's room, framed when selected or
/// hovered as a selectable label is. It senses drags (dragging rows).
fn outliner_row(ui: &mut egui::Ui, text: egui::RichText, look: RowLook, height: f32) -> egui::Response {
    let (rect, r) = ui.allocate_exact_size(Vec2::new(ui.available_width(), height), egui::Sense::click_and_drag());
    let name = text.text().to_string();
    let selected = look.selected;
    r.widget_info(|| egui::WidgetInfo::selected(egui::WidgetType::SelectableLabel, true, selected, &name));
    if ui.is_rect_visible(rect) {
        let style = ui.style().interact_selectable(&r, selected);
        if selected || r.hovered() || r.has_focus() {
            ui.painter().rect(rect, style.corner_radius, style.weak_bg_fill, style.bg_stroke, egui::StrokeKind::Inside);
        }
        if look.name {
            let left = name_left(ui, rect, look.depth);
            let room = (rect.right() - left - ui.spacing().button_padding.x - height).max(0.0);
            let galley = egui::WidgetText::from(text).into_galley(
                ui,
                Some(egui::TextWrapMode::Truncate),
                room,
                egui::TextStyle::Button,
            );
            let at = Pos2::new(left, rect.center().y - galley.size().y / 2.0);
            ui.painter().galley(at, galley, style.text_color());
        }
    }
    r
}

/// The Animation section (`docs/spec/materials.md`, "Animation"): the
/// clip list, play / pause, a time slider and the time in seconds. The
/// clip shown, else the first, is the one the controls act on.
fn animation_section(ui: &mut egui::Ui, editor: &Editor, u: f64, actions: &mut Vec<Command>, trace: &mut UiTrace) {
    let clips = editor.clips();
    let shown = editor.animation();
    let current = shown.as_ref().map_or(0, |a| a.clip).min(clips.len().saturating_sub(1));
    let Some(clip) = clips.get(current) else { return };
    let playing = shown.as_ref().is_some_and(|a| a.playing);
    let mut time = shown.as_ref().map_or(0.0, |a| a.time);
    let visible = ui.clip_rect();
    ui.separator();
    ui.strong("Animation");
    let mut chosen = current;
    let combo = egui::ComboBox::from_id_salt("animation clip").selected_text(clip.name.as_str()).width(180.0).show_ui(
        ui,
        |ui| {
            for (k, c) in clips.iter().enumerate() {
                ui.selectable_value(&mut chosen, k, c.name.as_str());
            }
        },
    );
    note_visible(trace, "animation.clip", combo.response.rect, visible, u);
    if chosen != current {
        actions.push(Command::ShowAnimation { clip: chosen, time: 0.0, playing });
    }
    ui.horizontal(|ui| {
        let r = ui.button(if playing { "Pause" } else { "Play" }).on_hover_text("Play / pause (Space)");
        note_visible(trace, "animation.play", r.rect, visible, u);
        if r.clicked() {
            actions.push(Command::ShowAnimation { clip: current, time, playing: !playing });
        }
        let r = ui.button("Rest").on_hover_text("Back to the scene's own pose");
        note_visible(trace, "animation.rest", r.rect, visible, u);
        if r.clicked() {
            actions.push(Command::StopAnimation);
        }
    });
    ui.horizontal(|ui| {
        let duration = clip.duration.max(1e-3);
        let r = ui.add(egui::Slider::new(&mut time, 0.0..=duration).show_value(false));
        note_visible(trace, "animation.time", r.rect, visible, u);
        if r.changed() {
            actions.push(Command::ShowAnimation { clip: current, time, playing: false });
        }
        ui.label(format!("{time:.2} s"));
    });
}

/// The selected objects' transforms (position, rotation as XYZ Euler
/// degrees, scale) as number fields below the active object's name, after
/// a separator; or a line saying there is no active object. With several
/// objects selected each component shows their shared value or `—`; a
/// typed value is set on every one of them, a drag adds to each.
fn transform_section(
    ui: &mut egui::Ui,
    editor: &Editor,
    io: &mut OutlinerIo<'_>,
    u: f64,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    ui.separator();
    let Some(i) = editor.active() else {
        ui.label("No active object");
        return;
    };
    let scene = editor.scene();
    let selected = editor.selection();
    if selected.len() > 1 {
        ui.strong(format!("Transform ({} objects)", selected.len()));
    } else {
        ui.strong("Transform");
    }
    name_field(ui, i, scene.objects()[i].name.as_str(), io, u, trace);
    // The objects' own transforms, also while an animation pose moves them.
    let transforms: Vec<_> =
        selected.iter().map(|&o| editor.rest_transform(o).unwrap_or(scene.objects()[o].transform)).collect();
    let components = |t: &crate::math::Transform, row: usize| -> [f64; 3] {
        match row {
            0 => t.position.into(),
            1 => euler_deg(&t.rotation),
            _ => t.scale.into(),
        }
    };
    let clip = ui.clip_rect();
    let mut unreadable = None;
    egui::Grid::new("transform").num_columns(4).show(ui, |ui| {
        for (row, (label, speed)) in [("position", 0.01), ("rotation", 0.5), ("scale", 0.01)].into_iter().enumerate() {
            ui.label(label);
            for (k, axis) in ["x", "y", "z"].iter().enumerate() {
                let values: Vec<f64> = transforms.iter().map(|t| components(t, row)[k]).collect();
                let first = values[values.len() - 1];
                let shared = values.iter().all(|v| (v - first).abs() <= 1e-9 * first.abs().max(1.0));
                let name = format!("{label}.{axis}");
                let id = egui::Id::new("transform field").with(&name);
                let f = number::field(ui, id, shared.then_some(first), speed, f64::MIN..=f64::MAX, &mut unreadable);
                note_visible(trace, &name, f.rect, clip, u);
                if let Some(e) = f.error {
                    trace.rects.insert(format!("{name}.error"), px_rect(e, u));
                }
                let set = |old: f64| match f.change {
                    number::Change::Typed(v) => v,
                    number::Change::Dragged(d) => old + d,
                    number::Change::None => old,
                };
                if f.change == number::Change::None {
                    continue;
                }
                for (&o, t) in selected.iter().zip(&transforms) {
                    let mut c = components(t, row);
                    c[k] = set(c[k]);
                    if !c.iter().all(|x| x.is_finite()) {
                        continue;
                    }
                    let mut nt = *t;
                    match row {
                        0 => nt.position = Vector3::from(c),
                        1 => {
                            let r = c.map(f64::to_radians);
                            nt.rotation = UnitQuaternion::from_euler_angles(r[0], r[1], r[2]);
                        }
                        _ => nt.scale = Vector3::from(c),
                    }
                    actions.push(Command::SetTransform { object: o, transform: nt });
                }
            }
            ui.end_row();
        }
    });
    if let Some(message) = unreadable {
        ui.ctx().data_mut(|d| d.insert_temp(unreadable_id(), message));
    }
}

/// The active object's name as an editable field (`name` in the trace):
/// a click in it starts a rename, Enter or a click elsewhere confirms it,
/// Esc abandons it.
fn name_field(ui: &mut egui::Ui, i: usize, name: &str, io: &mut OutlinerIo<'_>, u: f64, trace: &mut UiTrace) {
    let ours = io.renaming.as_ref().is_some_and(|r| r.in_panel && r.object == i);
    let mut text = match io.renaming.as_ref() {
        Some(r) if ours => r.text.clone(),
        _ => name.to_string(),
    };
    let field = ui
        .horizontal(|ui| {
            ui.label("Name");
            ui.add(egui::TextEdit::singleline(&mut text).id(egui::Id::new("name field")).desired_width(f32::INFINITY))
        })
        .inner;
    note_visible(trace, "name", field.rect, ui.clip_rect(), u);
    if ours {
        let renaming = io.renaming.as_mut().expect("ours");
        renaming.text = text;
        if let Some(done) = name_field_focus(ui, &field, renaming) {
            io.rename_done = Some(done);
        }
    } else if field.has_focus() {
        *io.renaming = Some(Renaming { object: i, text, start: false, in_panel: true });
    }
}

/// During a ring drag: the sector swept from the start angle to the
/// current one, filled translucent in the ring's colour, and the angle in
/// degrees (one decimal) beside the cursor (`docs/spec/views.md`, traced
/// as `sweep`). The sector is drawn over the scene, as the gizmo is.
fn ring_sweep(ctx: &egui::Context, editor: &Editor, u: f64, screen: Rect, trace: &mut UiTrace) {
    let (Some(s), Some(view)) = (editor.gizmo.sweep(), editor.view()) else { return };
    let name = editor.gizmo.active().map(|h| h.name()).unwrap_or_default();
    let colour = match name.as_str() {
        "rotate.x" => Color32::from_rgba_unmultiplied(230, 70, 70, 90),
        "rotate.y" => Color32::from_rgba_unmultiplied(110, 200, 60, 90),
        "rotate.z" => Color32::from_rgba_unmultiplied(70, 120, 240, 90),
        _ => Color32::from_rgba_unmultiplied(230, 230, 230, 70),
    };
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::new("ring sweep")));
    let to_screen =
        |p: nalgebra::Point3<f64>| view.world_to_screen(&p).map(|q| Pos2::new((q.x / u) as f32, (q.y / u) as f32));
    // One triangle per 3 degrees of the sweep, fanned from the centre.
    let steps = ((s.angle.abs().to_degrees() / 3.0).ceil() as usize).clamp(1, 1200);
    let at = |k: usize| {
        let a = s.angle * k as f64 / steps as f64;
        let q = UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_unchecked(s.axis), a);
        s.centre + q * s.start * s.radius
    };
    if let Some(c) = to_screen(s.centre) {
        let mut mesh = egui::Mesh::default();
        mesh.colored_vertex(c, colour);
        let mut ok = true;
        for k in 0..=steps {
            match to_screen(at(k)) {
                Some(p) => mesh.colored_vertex(p, colour),
                None => ok = false,
            }
        }
        if ok && s.angle != 0.0 {
            for k in 1..=steps as u32 {
                mesh.add_triangle(0, k, k + 1);
            }
            painter.add(egui::Shape::mesh(mesh));
        }
    }
    let cursor = editor.cursor();
    let text = format!("{:.1}\u{b0}", s.angle.to_degrees());
    let galley = painter.layout_no_wrap(text, egui::FontId::proportional(14.0), Color32::WHITE);
    let size = galley.size() + Vec2::new(10.0, 6.0);
    let at = Pos2::new((cursor.x / u) as f32 + 16.0, (cursor.y / u) as f32 - 12.0 - size.y);
    let at =
        Pos2::new(at.x.min(screen.right() - size.x).max(0.0), at.y.clamp(0.0, (screen.bottom() - size.y).max(0.0)));
    let back = Rect::from_min_size(at, size);
    painter.rect_filled(back, 3.0, Color32::from_black_alpha(170));
    painter.galley(at + Vec2::new(5.0, 3.0), galley, Color32::WHITE);
    trace.rects.insert("sweep".into(), px_rect(back, u));
}

/// The quad view: each view's name in its top-left corner (below the
/// toolbar for the top row), as Blender labels its views.
fn view_labels(ctx: &egui::Context, editor: &Editor, u: f64) {
    if !editor.is_quad() {
        return;
    }
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Background, egui::Id::new("view labels")));
    let names = ["Top", "Front", "Right", "Perspective"];
    for (v, name) in editor.views().iter().zip(names) {
        let [x, y, _, _] = v.rect.map(|c| c as f32 / u as f32);
        let at = Pos2::new(x + 8.0, y.max(TOOLBAR_HEIGHT) + 6.0);
        painter.text(at, egui::Align2::LEFT_TOP, name, egui::FontId::proportional(13.0), Color32::from_gray(200));
    }
}

/// The ruler's measurement: a line between its points and the distance in
/// metres (three decimals) at its middle (traced as `measure`: the label
/// in the view input acts on), drawn in every view, clipped to it.
fn ruler(ctx: &egui::Context, editor: &Editor, u: f64, trace: &mut UiTrace) {
    let Some((a, b)) = editor.measurement() else { return };
    let active = editor.active_view();
    for k in 0..editor.views().len() {
        let Some(view) = editor.view_of(k) else { continue };
        let to_screen =
            |p: nalgebra::Point3<f64>| view.world_to_screen(&p).map(|q| Pos2::new((q.x / u) as f32, (q.y / u) as f32));
        let (Some(pa), Some(pb)) = (to_screen(a), to_screen(b)) else { continue };
        let o = view.origin();
        let clip = Rect::from_min_size(
            Pos2::new((o.x / u) as f32, (o.y / u) as f32),
            Vec2::new((view.width() / u) as f32, (view.height() / u) as f32),
        );
        let painter =
            ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::new("ruler"))).with_clip_rect(clip);
        let yellow = Color32::from_rgb(255, 220, 60);
        painter.line_segment([pa, pb], egui::Stroke::new(3.0, Color32::from_black_alpha(160)));
        painter.line_segment([pa, pb], egui::Stroke::new(1.5, yellow));
        for p in [pa, pb] {
            painter.circle_filled(p, 3.5, yellow);
        }
        let text = format!("{:.3} m", (b - a).norm());
        let galley = painter.layout_no_wrap(text, egui::FontId::proportional(14.0), Color32::BLACK);
        let size = galley.size() + Vec2::new(10.0, 6.0);
        let back = Rect::from_center_size(pa + (pb - pa) * 0.5, size);
        painter.rect_filled(back, 3.0, yellow);
        painter.galley(back.min + Vec2::new(5.0, 3.0), galley, Color32::BLACK);
        if k == active {
            trace.rects.insert("measure".into(), px_rect(back, u));
        }
    }
}

/// Paints the view-orientation widget (its input is handled in [`Ui::handle`]).
fn view_widget(ctx: &egui::Context, editor: &Editor, u: f64, screen: Rect) {
    let width = screen.width() as f64 * u;
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::new("view widget")));
    let pt = |p: Point2<f64>| Pos2::new((p.x / u) as f32, (p.y / u) as f32);
    let corner = widget::corner(editor, width);
    let c = pt(widget::centre(corner, u));
    painter.circle_filled(c, widget::REACH as f32, Color32::from_rgba_unmultiplied(255, 255, 255, 10));
    let colour = |letter: char, positive: bool| {
        let (r, g, b) = match letter {
            'X' => (230, 70, 70),
            'Y' => (110, 200, 60),
            _ => (70, 120, 240),
        };
        if positive {
            Color32::from_rgb(r, g, b)
        } else {
            Color32::from_rgb(r / 2 + 30, g / 2 + 30, b / 2 + 30)
        }
    };
    for ball in widget::balls(&editor.camera, corner, u) {
        let p = pt(ball.centre);
        let col = colour(ball.letter, ball.positive);
        if ball.positive {
            painter.line_segment([c, p], egui::Stroke::new(2.0, col));
        }
        painter.circle_filled(p, widget::BALL_RADIUS as f32, col);
        if ball.positive {
            painter.text(p, egui::Align2::CENTER_CENTER, ball.letter, egui::FontId::proportional(12.0), Color32::BLACK);
        }
    }
}
