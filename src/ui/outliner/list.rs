//! The outliner's list as the side panel lays it out: only the rows
//! scrolled into view, each with its disclosure arrow and eye; a click
//! selects, a double click renames in place, rows dragged onto a row
//! become its children.

use std::collections::HashSet;

use egui::{Color32, Pos2, Rect, Vec2};

use super::Row;
use crate::editor::{Command, Editor};
use crate::ui::rename::{name_field_focus, Renaming};
use crate::ui::trace::{note_visible, UiTrace};

/// What the outliner reads and asks for besides commands.
pub(in crate::ui) struct OutlinerIo<'a> {
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

/// The outliner's list, `height` points high and as wide as the panel:
/// each row spans the full width, so a click anywhere along it selects
/// that object and the wheel scrolls the list anywhere over it; the scroll
/// bar sits at the panel's right edge. Rows with children start with a
/// disclosure arrow; a double click renames a row in place; rows dragged
/// onto a row become its children, dropped under the last row roots.
#[allow(clippy::too_many_arguments)]
pub(in crate::ui) fn outliner(
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
