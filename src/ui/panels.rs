//! What the UI shows, laid out for one egui pass: the toolbar, the status
//! line, the side panel (outliner and transform fields) and the view
//! widget. Each control records its rectangle in the trace and turns what
//! the user did into [`Action`]s that [`super::Ui`] applies to the editor.

use egui::{Color32, Pos2, Rect, Vec2};
use nalgebra::{Point2, UnitQuaternion, Vector3};

use super::outliner::Row;
use super::{px_rect, widget, Action, UiTrace, MIN_SIZE, PANEL_TOP, PANEL_WIDTH, STATUS_HEIGHT, TOOLBAR_HEIGHT};
use crate::editor::Editor;
use crate::gizmo::{Delta, Mode, Pivot};
use crate::math::Projection;

/// The status line: the live change during a drag (metres per axis, an
/// angle in degrees or scale factors), otherwise counts and frame time.
pub fn status_text(editor: &Editor, frame_ms: f64) -> String {
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
    format!("{} selected | {} objects | {:.2} ms", editor.selection().len(), editor.scene().len(), frame_ms)
}

/// Euler angles (degrees) as XYZ: the rotation is Rz * Ry * Rx.
pub(super) fn euler_deg(q: &UnitQuaternion<f64>) -> [f64; 3] {
    let (x, y, z) = q.euler_angles();
    // `+ 0.0` turns -0.0 into 0.0, so a field never shows "-0.0".
    [x.to_degrees() + 0.0, y.to_degrees() + 0.0, z.to_degrees() + 0.0]
}

/// Records a named control's rectangle.
fn note(trace: &mut UiTrace, name: &str, r: &egui::Response, u: f64) {
    trace.rects.insert(name.to_string(), px_rect(r.rect, u));
}

/// Lays out the whole UI for one pass; `panel`: the side panel is shown,
/// with these outliner rows.
pub(super) fn build(
    ui: &mut egui::Ui,
    editor: &Editor,
    u: f64,
    panel: Option<&[Row]>,
    status: &str,
    actions: &mut Vec<Action>,
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
                        actions.push(Action::Mode(mode));
                    }
                    note(trace, &format!("mode.{}", mode.name()), &r, u);
                }
                ui.separator();
                let r = ui.button(cfg.space.name()).on_hover_text("World / local space (X)");
                if r.clicked() {
                    actions.push(Action::ToggleSpace);
                }
                note(trace, "space", &r, u);
                let r = ui
                    .button(format!("Pivot: {}", cfg.pivot.name()))
                    .on_hover_text("Pivot: median, individual, active, bounds (Period)");
                if r.clicked() {
                    let next = match cfg.pivot {
                        Pivot::Median => Pivot::Individual,
                        Pivot::Individual => Pivot::Active,
                        Pivot::Active => Pivot::Bounds,
                        Pivot::Bounds => Pivot::Median,
                    };
                    actions.push(Action::Pivot(next));
                }
                note(trace, "pivot", &r, u);
                ui.separator();
                let mut on = editor.snap_on;
                let r =
                    ui.toggle_value(&mut on, "Snap").on_hover_text("Snapping on / off (hold Ctrl to snap while off)");
                if r.clicked() {
                    actions.push(Action::SnapOn(on));
                }
                note(trace, "snap", &r, u);
                let mut snap = cfg.snap;
                let mut changed = false;
                for (name, value, speed, tip) in [
                    ("snap.translate", &mut snap.translate, 0.01, "Translation increment (m)"),
                    ("snap.rotate", &mut snap.rotate_deg, 0.5, "Rotation increment (degrees)"),
                    ("snap.scale", &mut snap.scale, 0.01, "Scale increment"),
                ] {
                    let r = ui
                        .add(egui::DragValue::new(value).speed(speed).range(1e-4..=1e4).update_while_editing(false))
                        .on_hover_text(tip);
                    changed |= r.changed();
                    note(trace, name, &r, u);
                }
                let r = ui
                    .checkbox(&mut snap.absolute, "Abs")
                    .on_hover_text("Absolute snapping: to multiples of the increment");
                changed |= r.changed();
                note(trace, "snap.absolute", &r, u);
                if changed {
                    actions.push(Action::Snap(snap));
                }
                ui.separator();
                let r = ui
                    .button(format!("Depth: {}", editor.depth.name()))
                    .on_hover_text("Reversed / standard depth (F2)");
                if r.clicked() {
                    actions.push(Action::ToggleDepth);
                }
                note(trace, "depth", &r, u);
                let ortho = matches!(editor.camera.projection, Projection::Orthographic { .. });
                let r = ui
                    .button(if ortho { "Ortho" } else { "Persp" })
                    .on_hover_text("Perspective / orthographic (Numpad5)");
                if r.clicked() {
                    actions.push(Action::ToggleProjection);
                }
                note(trace, "projection", &r, u);
            })
        });
    });
    trace.rects.insert("toolbar".into(), px_rect(bar.response.rect, u));

    let line = egui::Panel::bottom("status").exact_size(STATUS_HEIGHT).resizable(false).show(ui, |ui| {
        ui.horizontal_centered(|ui| ui.label(status));
    });
    trace.rects.insert("status".into(), px_rect(line.response.rect, u));
    trace.status = status.to_string();

    if let Some(rows) = panel {
        side_panel(ui.ctx(), editor, rows, u, screen, actions, trace);
    }
    view_widget(ui.ctx(), editor, u, screen);
}

/// The side panel: outliner and the active object's transform. Only the
/// outliner rows scrolled into view are laid out (and traced).
fn side_panel(
    ctx: &egui::Context,
    editor: &Editor,
    rows: &[Row],
    u: f64,
    screen: Rect,
    actions: &mut Vec<Action>,
    trace: &mut UiTrace,
) {
    let width = PANEL_WIDTH.min(screen.width());
    let top = PANEL_TOP;
    let bottom = (screen.max.y - STATUS_HEIGHT).max(top);
    let rect = Rect::from_min_max(Pos2::new(screen.max.x - width, top), Pos2::new(screen.max.x, bottom));
    trace.rects.insert("panel".into(), px_rect(rect, u));
    egui::Area::new(egui::Id::new("side panel")).fixed_pos(rect.min).order(egui::Order::Middle).show(ctx, |ui| {
        egui::Frame::side_top_panel(ui.style()).show(ui, |ui| {
            let inner = rect.shrink2(Vec2::new(8.0, 2.0)).size().max(Vec2::ZERO);
            ui.set_min_size(inner);
            ui.set_max_size(inner);
            ui.strong("Outliner");
            let scene = editor.scene();
            let active = editor.active();
            let shift = ui.input(|i| i.modifiers.shift);
            // A row is one selectable label (`interact_size` high).
            let row_height = ui.spacing().interact_size.y;
            let list = egui::ScrollArea::vertical().max_height((inner.y * 0.5).max(40.0));
            list.show_rows(ui, row_height, rows.len(), |ui, in_view| {
                for &Row { id, depth } in &rows[in_view] {
                    let i = id as usize;
                    let o = &scene.objects()[i];
                    let mut text = egui::RichText::new(o.name.as_str());
                    if active == Some(i) {
                        text = text.strong().color(Color32::from_rgb(255, 230, 140));
                    }
                    let r = ui
                        .horizontal(|ui| {
                            ui.add_space(12.0 * depth as f32);
                            ui.selectable_label(editor.is_selected(i), text)
                        })
                        .inner;
                    if r.clicked() {
                        actions.push(Action::Select(i, shift));
                    }
                    note(trace, &format!("outliner.{}", o.name), &r, u);
                }
            });
            ui.separator();
            let Some(i) = active else {
                ui.label("No active object");
                return;
            };
            let t = scene.objects()[i].transform;
            ui.strong(format!("Transform: {}", scene.objects()[i].name));
            let euler = euler_deg(&t.rotation);
            let rows: [(&str, [f64; 3], f64); 3] =
                [("position", t.position.into(), 0.01), ("rotation", euler, 0.5), ("scale", t.scale.into(), 0.01)];
            egui::Grid::new("transform").num_columns(4).show(ui, |ui| {
                for (row, values, speed) in rows {
                    ui.label(row);
                    let mut v = values;
                    let mut changed = false;
                    for (k, axis) in ["x", "y", "z"].iter().enumerate() {
                        let r = ui.add(
                            egui::DragValue::new(&mut v[k]).speed(speed).max_decimals(4).update_while_editing(false),
                        );
                        changed |= r.changed();
                        note(trace, &format!("{row}.{axis}"), &r, u);
                    }
                    ui.end_row();
                    if changed && v.iter().all(|x| x.is_finite()) {
                        let mut nt = t;
                        match row {
                            "position" => nt.position = Vector3::from(v),
                            "rotation" => {
                                let r = v.map(f64::to_radians);
                                nt.rotation = UnitQuaternion::from_euler_angles(r[0], r[1], r[2]);
                            }
                            _ => nt.scale = Vector3::from(v),
                        }
                        actions.push(Action::Transform(i, nt));
                    }
                }
            });
        });
    });
}

/// Paints the view-orientation widget (its input is handled in [`Ui::handle`]).
fn view_widget(ctx: &egui::Context, editor: &Editor, u: f64, screen: Rect) {
    let width = screen.width() as f64 * u;
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::new("view widget")));
    let pt = |p: Point2<f64>| Pos2::new((p.x / u) as f32, (p.y / u) as f32);
    let c = pt(widget::centre(width, u));
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
    for ball in widget::balls(&editor.camera, width, u) {
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
