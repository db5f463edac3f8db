//! The toolbar along the top: the gizmo's mode, space and pivot, snapping
//! and its increments, the depth and projection, shading and scene lights.
//! Each control records its rectangle in the trace and turns a click into
//! a [`Command`].

use super::number;
use super::trace::{note, px_rect, UiTrace};
use super::TOOLBAR_HEIGHT;
use crate::editor::{Command, Editor, KeyMap};
use crate::gizmo::Mode;
use crate::math::Projection;

/// The toolbar's groups, left to right: the gizmo's mode; space and
/// pivot; snapping; depth, projection, shading and lights.
const GROUPS: usize = 4;

/// Lays out the toolbar for one pass. Groups that do not fit the window's
/// width fold, from the right, into a menu behind a `»` button at the end
/// (`toolbar.more` in the trace), so every control stays reachable inside
/// the window; each group's width is remembered from when it was last laid
/// out (in the bar or the menu).
/// `environments`: the `.hdr` files the environment menu offers.
pub(super) fn toolbar(
    ui: &mut egui::Ui,
    editor: &Editor,
    environments: &[std::path::PathBuf],
    u: f64,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let bar = egui::Panel::top("toolbar").exact_size(TOOLBAR_HEIGHT).resizable(false).show(ui, |ui| {
        let memory = egui::Id::new("toolbar group widths");
        // Each group's width, and how far a separator with its spacing advances.
        let (mut widths, mut separator): ([f32; GROUPS], f32) = ui.data(|d| d.get_temp(memory)).unwrap_or_default();
        let gap = ui.spacing().item_spacing.x;
        // Groups, and between two a gap, a separator and a gap.
        let needed = |k: usize, widths: &[f32; GROUPS], separator: f32| {
            widths[..k].iter().sum::<f32>() + k.saturating_sub(1) as f32 * (separator + 2.0 * gap)
        };
        let room = ui.available_width();
        let shown = if needed(GROUPS, &widths, separator) <= room {
            GROUPS
        } else {
            // The `»` button (under two rows high) after a separator.
            let more = 2.0 * ui.spacing().interact_size.y + separator + 2.0 * gap;
            (0..GROUPS).rev().find(|&k| needed(k, &widths, separator) + more <= room).unwrap_or(0)
        };
        ui.horizontal_centered(|ui| {
            for (g, width) in widths.iter_mut().enumerate().take(shown) {
                *width =
                    ui.horizontal(|ui| group(g, ui, (editor, environments), u, actions, trace)).response.rect.width();
                if g + 1 < GROUPS {
                    let x = ui.cursor().min.x;
                    ui.separator();
                    separator = ui.cursor().min.x - x - gap;
                }
            }
            if shown < GROUPS {
                let menu = egui::containers::menu::MenuConfig::new()
                    .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
                let (r, _) = egui::containers::menu::MenuButton::new("\u{bb}").config(menu).ui(ui, |ui| {
                    for (g, width) in widths.iter_mut().enumerate().skip(shown) {
                        *width = ui
                            .horizontal(|ui| group(g, ui, (editor, environments), u, actions, trace))
                            .response
                            .rect
                            .width();
                    }
                });
                note(trace, "toolbar.more", &r.on_hover_text("More of the toolbar"), u);
            }
        });
        ui.data_mut(|d| d.insert_temp(memory, (widths, separator)));
    });
    trace.rects.insert("toolbar".into(), px_rect(bar.response.rect, u));
}

/// Lays out toolbar group `g` (see [`GROUPS`]) in a horizontal `ui`.
fn group(
    g: usize,
    ui: &mut egui::Ui,
    (editor, environments): (&Editor, &[std::path::PathBuf]),
    u: f64,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let cfg = editor.gizmo.config;
    let keys = &editor.keymap;
    match g {
        0 => {
            for (mode, label) in
                [(Mode::Translate, "Move"), (Mode::Rotate, "Rotate"), (Mode::Scale, "Scale"), (Mode::Universal, "All")]
            {
                let r = ui.selectable_label(cfg.mode == mode, label).on_hover_ui(|ui| {
                    ui.label(tip(keys, label, Command::SetMode(mode)));
                });
                if r.clicked() {
                    actions.push(Command::SetMode(mode));
                }
                note(trace, &format!("mode.{}", mode.name()), &r, u);
            }
        }
        1 => {
            let r = ui.button(cfg.space.name()).on_hover_ui(|ui| {
                ui.label(tip(keys, "World / local space", Command::ToggleSpace));
            });
            if r.clicked() {
                actions.push(Command::ToggleSpace);
            }
            note(trace, "space", &r, u);
            let r = ui.button(format!("Pivot: {}", cfg.pivot.name())).on_hover_ui(|ui| {
                ui.label(tip(keys, "Pivot: median, individual, active, bounds", Command::CyclePivot));
            });
            if r.clicked() {
                actions.push(Command::CyclePivot);
            }
            note(trace, "pivot", &r, u);
        }
        2 => {
            let mut on = editor.snap_on;
            let r = ui.toggle_value(&mut on, "Snap").on_hover_text("Snapping on / off (hold Ctrl to snap while off)");
            if r.clicked() {
                actions.push(Command::SetSnapping(on));
            }
            note(trace, "snap", &r, u);
            let mut snap = cfg.snap;
            let mut changed = false;
            let mut unreadable = None;
            // Every increment field as wide as four decimals need.
            let width = number::width_for(ui, "0.0000");
            for (name, value, speed, tip) in [
                ("snap.translate", &mut snap.translate, 0.01, "Translation increment (m)"),
                ("snap.rotate", &mut snap.rotate_deg, 0.5, "Rotation increment (degrees)"),
                ("snap.scale", &mut snap.scale, 0.01, "Scale increment"),
            ] {
                let id = egui::Id::new("snap field").with(name);
                let f = number::field(ui, id, Some(*value), speed, 1e-4..=1e4, width, &mut unreadable);
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
            number::pass_on(ui, unreadable);
            let r = ui
                .checkbox(&mut snap.absolute, "Abs")
                .on_hover_text("Absolute snapping: to multiples of the increment");
            changed |= r.changed();
            note(trace, "snap.absolute", &r, u);
            if changed {
                actions.push(Command::SetSnap(snap));
            }
        }
        _ => {
            let r = ui.button(format!("Depth: {}", editor.depth.name())).on_hover_ui(|ui| {
                ui.label(tip(keys, "Reversed / standard depth", Command::ToggleDepth));
            });
            if r.clicked() {
                actions.push(Command::ToggleDepth);
            }
            note(trace, "depth", &r, u);
            let ortho = matches!(editor.shown_camera().projection, Projection::Orthographic { .. });
            let r = ui.button(if ortho { "Ortho" } else { "Persp" }).on_hover_ui(|ui| {
                ui.label(tip(keys, "Perspective / orthographic", Command::ToggleProjection));
            });
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
                .on_hover_ui(|ui| {
                    ui.label(format!(
                        "{}\nEnvironment: {}",
                        tip(keys, "Shading: material (lit as authored) / solid", Command::ToggleShading),
                        editor.lighting.environment.name()
                    ));
                });
            if r.clicked() {
                actions.push(Command::ToggleShading);
            }
            note(trace, "shading", &r, u);
            let on = editor.lighting.scene_lights.lit(editor.scene_has_lights());
            let r = ui.selectable_label(on, "Lights").on_hover_ui(|ui| {
                ui.label(tip(
                    keys,
                    "Scene lights: the material mode lit by the glTF files' lights in place of the sun",
                    Command::ToggleSceneLights,
                ));
            });
            if r.clicked() {
                actions.push(Command::ToggleSceneLights);
            }
            note(trace, "scene_lights", &r, u);
            let menu =
                egui::containers::menu::MenuConfig::new().close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
            let (r, _) = egui::containers::menu::MenuButton::new("World")
                .config(menu)
                .ui(ui, |ui| super::environment_menu::environment_menu(ui, editor, environments, u, actions, trace));
            let r = r.on_hover_text(format!(
                "The environment ({}), what is behind the scene, exposure",
                editor.lighting.environment.name()
            ));
            note(trace, "environment", &r, u);
        }
    }
}

/// A control's tooltip: what it does and the chord that does it in
/// `keymap` (none shown when no key runs it). Made only while the tooltip
/// shows (`on_hover_ui`): finding the chords reads the whole key map.
pub(super) fn tip(keymap: &KeyMap, what: &str, command: Command) -> String {
    match keymap.shown_chords(command).first() {
        Some(chord) => format!("{what} ({chord})"),
        None => what.to_string(),
    }
}
