//! What is drawn over the 3D view rather than beside it: the number
//! typed during a drag, a ring drag's swept sector and angle, the quad
//! view's labels, the ruler's measurement and the view-orientation
//! widget.

use egui::{Color32, Pos2, Rect, Vec2};
use nalgebra::{Point2, UnitQuaternion};

use super::status::typed_label;
use super::trace::{px_rect, UiTrace};
use super::{widget, TOOLBAR_HEIGHT};
use crate::editor::Editor;

/// The number typed during a drag, beside the cursor (traced as `typed`),
/// kept on screen.
pub(super) fn typed_value(ctx: &egui::Context, editor: &Editor, u: f64, screen: Rect, trace: &mut UiTrace) {
    let Some(t) = editor.typed_value() else { return };
    // The typed number beside the cursor.
    let c = editor.cursor();
    let at = Pos2::new((c.x / u) as f32 + 16.0, (c.y / u) as f32 + 12.0);
    let painter = ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::new("typed")));
    let galley = painter.layout_no_wrap(typed_label(editor, t), egui::FontId::proportional(14.0), Color32::WHITE);
    let size = galley.size() + Vec2::new(10.0, 6.0);
    // Kept on screen: left of the cursor near the right edge.
    let at = Pos2::new(at.x.min(screen.right() - size.x).max(0.0), at.y.min(screen.bottom() - size.y).max(0.0));
    let back = Rect::from_min_size(at, size);
    painter.rect_filled(back, 3.0, Color32::from_black_alpha(190));
    painter.galley(at + Vec2::new(5.0, 3.0), galley, Color32::WHITE);
    trace.rects.insert("typed".into(), px_rect(back, u));
}

/// During a ring drag: the sector swept from the start angle to the
/// current one, filled translucent in the ring's colour, and the angle in
/// degrees (one decimal) beside the cursor (`docs/spec/views.md`, traced
/// as `sweep`). The sector is drawn over the scene, as the gizmo is.
pub(super) fn ring_sweep(ctx: &egui::Context, editor: &Editor, u: f64, screen: Rect, trace: &mut UiTrace) {
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
pub(super) fn view_labels(ctx: &egui::Context, editor: &Editor, u: f64) {
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
pub(super) fn ruler(ctx: &egui::Context, editor: &Editor, u: f64, trace: &mut UiTrace) {
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

/// Paints the view-orientation widget (its input is handled in [`super::Ui::handle`]).
pub(super) fn view_widget(ctx: &egui::Context, editor: &Editor, u: f64, screen: Rect) {
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
    for ball in widget::balls(&editor.shown_camera(), corner, u) {
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
