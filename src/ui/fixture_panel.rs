//! The side panel's Light and Camera sections (`docs/spec/lights.md`, "In
//! the window"): the active object's light (type, colour, intensity, range
//! with "infinite", cone angles) and camera (projection, field of view or
//! height, near, far with "infinite"). A change applies to every selected
//! object carrying a light (or a camera), each keeping its other values;
//! a field the selected objects do not share shows `—`. The editor checks
//! each value as a scene file would, and the field's edit is one undo step
//! (`pass.rs`).

use super::number;
use super::trace::{note_visible, px_rect, UiTrace};
use crate::editor::{Command, Editor};
use crate::scene::fixture::{CameraObject, Fixture, LightObject, LightType};

/// The largest intensity, range or distance a field takes.
const MOST: f64 = 1e12;

/// The far plane a camera gets when "infinite" is unticked.
fn finite_far(c: &CameraObject) -> f64 {
    1000f64.max(c.near * 10.0)
}

/// The range a light gets when "infinite" is unticked.
const FINITE_RANGE: f64 = 10.0;

/// The light and camera sections for the active object, where it carries
/// either.
pub(super) fn fixture_sections(
    ui: &mut egui::Ui,
    editor: &Editor,
    u: f64,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let Some(active) = editor.active() else { return };
    let scene = editor.scene();
    let Some(o) = scene.get(active) else { return };
    let selected: Vec<(usize, Fixture)> =
        editor.selection().iter().filter_map(|&i| Some((i, *scene.get(i)?.fixture.as_deref()?))).collect();
    if o.light().is_some() {
        let lights: Vec<(usize, Fixture, LightObject)> =
            selected.iter().filter_map(|&(i, f)| Some((i, f, f.light?))).collect();
        light_section(ui, &lights, u, actions, trace);
    }
    if o.camera().is_some() {
        let cameras: Vec<(usize, Fixture, CameraObject)> =
            selected.iter().filter_map(|&(i, f)| Some((i, f, f.camera?))).collect();
        camera_section(ui, &cameras, u, actions, trace);
    }
}

/// The value every item shares (the last, the active one's, within 1e-9
/// relative), `None` where they differ.
fn shared<T>(items: &[T], get: impl Fn(&T) -> f64) -> Option<f64> {
    let last = get(items.last()?);
    items.iter().all(|t| (get(t) - last).abs() <= 1e-9 * last.abs().max(1.0)).then_some(last)
}

/// A number field row: `label`, the field traced as `name`; returns the
/// new value for an old one when the field changed.
#[allow(clippy::too_many_arguments)]
fn number_row(
    ui: &mut egui::Ui,
    label: &str,
    name: &str,
    value: Option<f64>,
    speed: f64,
    width: f32,
    u: f64,
    trace: &mut UiTrace,
    unreadable: &mut Option<String>,
) -> Option<Box<dyn Fn(f64) -> f64>> {
    ui.label(label);
    let id = egui::Id::new("fixture field").with(name);
    let f = number::field(ui, id, value, speed, -MOST..=MOST, width, unreadable);
    note_visible(trace, name, f.rect, ui.clip_rect(), u);
    if let Some(e) = f.error {
        trace.rects.insert(format!("{name}.error"), px_rect(e, u));
    }
    match f.change {
        number::Change::Typed(v) => Some(Box::new(move |_| v)),
        number::Change::Dragged(d) => Some(Box::new(move |old| old + d)),
        number::Change::None => None,
    }
}

/// A row of choices traced as `name.CHOICE`; the one clicked, if any.
fn choices<T: Copy + PartialEq>(
    ui: &mut egui::Ui,
    name: &str,
    options: &[(T, &str, &str)],
    current: Option<T>,
    u: f64,
    trace: &mut UiTrace,
) -> Option<T> {
    let mut picked = None;
    ui.horizontal(|ui| {
        for &(value, key, label) in options {
            let r = ui.selectable_label(current == Some(value), label);
            note_visible(trace, &format!("{name}.{key}"), r.rect, ui.clip_rect(), u);
            if r.clicked() {
                picked = Some(value);
            }
        }
    });
    picked
}

/// A section's title, with how many objects it edits when several.
fn title(ui: &mut egui::Ui, what: &str, objects: usize) {
    ui.separator();
    ui.strong(if objects > 1 { format!("{what} ({objects} objects)") } else { what.to_string() });
}

/// A field's width: what the panel leaves after the labels.
fn field_width(ui: &egui::Ui) -> f32 {
    (ui.available_width() * 0.45).max(ui.spacing().interact_size.x)
}

fn light_section(
    ui: &mut egui::Ui,
    lights: &[(usize, Fixture, LightObject)],
    u: f64,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let Some(&(_, _, active)) = lights.last() else { return };
    title(ui, "Light", lights.len());
    let set = |actions: &mut Vec<Command>, change: &dyn Fn(&mut LightObject)| {
        for &(object, f, mut l) in lights {
            change(&mut l);
            actions.push(Command::SetFixture { object, fixture: Fixture { light: Some(l), ..f } });
        }
    };
    let same_kind = lights.iter().all(|l| l.2.kind == active.kind);
    let kinds = [
        (LightType::Directional, "directional", "Sun"),
        (LightType::Point, "point", "Point"),
        (LightType::Spot, "spot", "Spot"),
    ];
    if let Some(kind) = choices(ui, "light.type", &kinds, same_kind.then_some(active.kind), u, trace) {
        set(actions, &|l| l.kind = kind);
    }
    let mut unreadable = None;
    let width = field_width(ui);
    egui::Grid::new("light").num_columns(2).show(ui, |ui| {
        ui.label("colour");
        let mut rgb = active.color.map(|c| c as f32);
        let r = ui.color_edit_button_rgb(&mut rgb);
        note_visible(trace, "light.color", r.rect, ui.clip_rect(), u);
        if r.changed() {
            let c = rgb.map(|c| f64::from(c).clamp(0.0, 1.0));
            set(actions, &|l| l.color = c);
        }
        ui.end_row();
        let unit = if active.kind == LightType::Directional { "intensity (lx)" } else { "intensity (cd)" };
        let v = shared(lights, |l| l.2.intensity);
        if let Some(f) = number_row(ui, unit, "light.intensity", v, 0.1, width, u, trace, &mut unreadable) {
            set(actions, &|l| l.intensity = f(l.intensity));
        }
        ui.end_row();
        if active.kind != LightType::Directional {
            let infinite = lights.iter().all(|l| l.2.range.is_none());
            let v = if infinite { None } else { shared(lights, |l| l.2.range.unwrap_or(f64::NAN)) };
            if let Some(f) = number_row(ui, "range (m)", "light.range", v, 0.05, width, u, trace, &mut unreadable) {
                set(actions, &|l| l.range = Some(f(l.range.unwrap_or(FINITE_RANGE))));
            }
            ui.end_row();
            ui.label("");
            let mut ticked = infinite;
            let r = ui.checkbox(&mut ticked, "infinite");
            note_visible(trace, "light.range_infinite", r.rect, ui.clip_rect(), u);
            if r.changed() {
                set(actions, &|l| l.range = if ticked { None } else { Some(l.range.unwrap_or(FINITE_RANGE)) });
            }
            ui.end_row();
        }
        if active.kind == LightType::Spot {
            for (label, name, inner) in
                [("inner cone (°)", "light.inner_cone_deg", true), ("outer cone (°)", "light.outer_cone_deg", false)]
            {
                let get = |l: &LightObject| if inner { l.inner_cone_deg } else { l.outer_cone_deg };
                let v = shared(lights, |l| get(&l.2));
                if let Some(f) = number_row(ui, label, name, v, 0.5, width, u, trace, &mut unreadable) {
                    set(actions, &|l| {
                        if inner {
                            l.inner_cone_deg = f(l.inner_cone_deg);
                        } else {
                            l.outer_cone_deg = f(l.outer_cone_deg);
                        }
                    });
                }
                ui.end_row();
            }
        }
    });
    number::pass_on(ui, unreadable);
}

fn camera_section(
    ui: &mut egui::Ui,
    cameras: &[(usize, Fixture, CameraObject)],
    u: f64,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let Some(&(_, _, active)) = cameras.last() else { return };
    title(ui, "Camera", cameras.len());
    let set = |actions: &mut Vec<Command>, change: &dyn Fn(&mut CameraObject)| {
        for &(object, f, mut c) in cameras {
            change(&mut c);
            actions.push(Command::SetFixture { object, fixture: Fixture { camera: Some(c), ..f } });
        }
    };
    let same = cameras.iter().all(|c| c.2.orthographic == active.orthographic);
    let kinds = [(false, "perspective", "Perspective"), (true, "orthographic", "Orthographic")];
    if let Some(ortho) = choices(ui, "camera.projection", &kinds, same.then_some(active.orthographic), u, trace) {
        set(actions, &|c| {
            c.orthographic = ortho;
            // An orthographic camera needs a far plane.
            if ortho && c.far.is_none() {
                c.far = Some(finite_far(c));
            }
        });
    }
    let mut unreadable = None;
    let width = field_width(ui);
    egui::Grid::new("camera").num_columns(2).show(ui, |ui| {
        if active.orthographic {
            let v = shared(cameras, |c| c.2.height);
            if let Some(f) = number_row(ui, "height (m)", "camera.height", v, 0.05, width, u, trace, &mut unreadable) {
                set(actions, &|c| c.height = f(c.height));
            }
        } else {
            let v = shared(cameras, |c| c.2.fov_y_deg);
            let label = "field of view (°)";
            if let Some(f) = number_row(ui, label, "camera.fov_y_deg", v, 0.5, width, u, trace, &mut unreadable) {
                set(actions, &|c| c.fov_y_deg = f(c.fov_y_deg));
            }
        }
        ui.end_row();
        let v = shared(cameras, |c| c.2.near);
        if let Some(f) = number_row(ui, "near (m)", "camera.near", v, 0.01, width, u, trace, &mut unreadable) {
            set(actions, &|c| c.near = f(c.near));
        }
        ui.end_row();
        let infinite = cameras.iter().all(|c| c.2.far.is_none());
        let v = if infinite { None } else { shared(cameras, |c| c.2.far.unwrap_or(f64::NAN)) };
        if let Some(f) = number_row(ui, "far (m)", "camera.far", v, 0.5, width, u, trace, &mut unreadable) {
            set(actions, &|c| c.far = Some(f(c.far.unwrap_or_else(|| finite_far(c)))));
        }
        ui.end_row();
        if !active.orthographic {
            ui.label("");
            let mut ticked = infinite;
            let r = ui.checkbox(&mut ticked, "infinite");
            note_visible(trace, "camera.far_infinite", r.rect, ui.clip_rect(), u);
            if r.changed() {
                set(actions, &|c| c.far = if ticked { None } else { Some(c.far.unwrap_or_else(|| finite_far(c))) });
            }
            ui.end_row();
        }
    });
    number::pass_on(ui, unreadable);
}
