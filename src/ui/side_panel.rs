//! The side panel (N): the outliner on top, then the Animation section
//! when the scene has clips, the active object's transform at the bottom
//! (the selection's transforms as number fields, the name field).

use egui::{Pos2, Rect, Vec2};
use nalgebra::{UnitQuaternion, Vector3};

use super::fixture_panel::fixture_sections;
use super::number;
use super::outliner::{outliner, OutlinerIo};
use super::rename::{name_field_focus, Renaming};
use super::trace::{note_visible, px_rect, UiTrace};
use super::{PANEL_TOP, PANEL_WIDTH, STATUS_HEIGHT};
use crate::editor::{Command, Editor};
use crate::scene::MAX_COORDINATE;

/// Euler angles (degrees) as XYZ: the rotation is Rz * Ry * Rx.
pub(super) fn euler_deg(q: &UnitQuaternion<f64>) -> [f64; 3] {
    let (x, y, z) = q.euler_angles();
    // `+ 0.0` turns -0.0 into 0.0, so a field never shows "-0.0".
    [x.to_degrees() + 0.0, y.to_degrees() + 0.0, z.to_degrees() + 0.0]
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
pub(super) fn side_panel(
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
        let tail = ui.scope(|ui| {
            transform_section(ui, editor, io, u, actions, trace);
            shadow_row(ui, editor, u, actions, trace);
            fixture_sections(ui, editor, u, actions, trace);
        });
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

/// "Casts shadows" for an active object with a mesh: ticked or not as the
/// active object is; a click sets every selected object with a mesh
/// (one undo step).
fn shadow_row(ui: &mut egui::Ui, editor: &Editor, u: f64, actions: &mut Vec<Command>, trace: &mut UiTrace) {
    let Some(o) = editor.active().and_then(|a| editor.scene().get(a)) else { return };
    if matches!(o.mesh, crate::scene::MeshRef::Empty) {
        return;
    }
    let mut on = o.cast_shadows;
    let r = ui.checkbox(&mut on, "Casts shadows");
    if r.changed() {
        actions.push(Command::SetCastShadows(on));
    }
    super::trace::note(trace, "cast_shadows", &r, u);
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
    // Three fields a row in what the widest label leaves, the same whatever
    // the values (a long one must not push its neighbours out of the panel).
    let label =
        ["position", "rotation", "scale"].map(|l| number::width_for(ui, l) - 2.0 * ui.spacing().button_padding.x);
    let gap = ui.spacing().item_spacing.x;
    let width = ((ui.available_width() - label.iter().fold(0.0f32, |a, b| a.max(*b)) - 4.0 * gap) / 3.0)
        .max(ui.spacing().interact_size.x);
    egui::Grid::new("transform").num_columns(4).show(ui, |ui| {
        for (row, (label, speed)) in [("position", 0.01), ("rotation", 0.5), ("scale", 0.01)].into_iter().enumerate() {
            ui.label(label);
            for (k, axis) in ["x", "y", "z"].iter().enumerate() {
                let values: Vec<f64> = transforms.iter().map(|t| components(t, row)[k]).collect();
                let first = values[values.len() - 1];
                let shared = values.iter().all(|v| (v - first).abs() <= 1e-9 * first.abs().max(1.0));
                let name = format!("{label}.{axis}");
                let id = egui::Id::new("transform field").with(&name);
                let range = -MAX_COORDINATE..=MAX_COORDINATE;
                let f = number::field(ui, id, shared.then_some(first), speed, range, width, &mut unreadable);
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
    number::pass_on(ui, unreadable);
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
