//! The UI drawn in the viewport (`docs/spec/editing.md`, "The UI drawn in the
//! viewport"): a toolbar, a status line, the side panel (outliner and the
//! active object's transform) and the view-orientation widget, built with
//! egui and drawn by the renderer's UI pass.
//!
//! egui's input comes from our [`Event`]s, never from winit, so the window
//! and replay scripts drive the UI the same way. [`Ui::handle`] decides, per
//! event, who gets it: the UI (a press on a button, a key typed into a
//! field, the wheel over a panel), the view widget (inside its circle), or
//! the editor; what the UI takes never reaches the gizmo, selection or
//! camera. Every routed event runs one egui pass, so a click made of a
//! press and a release works in scripts exactly as in the window.
//!
//! Sizes are egui points; one point is `u` physical pixels (the UI scale).

mod dialog;
mod expr;
mod number;
pub use dialog::DialogKind;
mod outliner;
mod panels;
pub mod widget;

use panels::build;
pub use panels::status_text;

use std::collections::BTreeMap;

use egui::{Pos2, Rect, Vec2};
use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use crate::editor::quad::PERSPECTIVE;
use crate::editor::{Command, Editor, FrameProbe, Outcome};
use crate::input::{Event, Modifiers, MouseButton};
use crate::math::Transform;
use crate::render::UiDraw;

/// Toolbar height in points (at most 40).
pub const TOOLBAR_HEIGHT: f32 = 32.0;
/// Status line height in points (at most 28).
pub const STATUS_HEIGHT: f32 = 22.0;
/// The side panel's top edge, width, in points.
pub const PANEL_TOP: f32 = 210.0;
pub const PANEL_WIDTH: f32 = 280.0;
/// Below this viewport size (points) the UI is not drawn at all.
pub const MIN_SIZE: Vec2 = Vec2::new(160.0, 100.0);
/// The key that shows / hides the side panel.
pub const PANEL_KEY: &str = "N";

/// Who gets the events of a press, until its release.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Owner {
    Ui,
    /// The view widget: a click picks a ball, a drag orbits.
    Widget {
        start: Point2<f64>,
        dragged: bool,
    },
    Editor,
}

/// What the last pass laid out, for traces and tests: the status text and
/// the named controls' rectangles in physical pixels `[x0, y0, x1, y1]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiTrace {
    /// The status line's text as laid out.
    pub status: String,
    /// Whether the side panel is shown.
    pub panel: bool,
    /// The controls by name (`mode.translate`, `position.x`, `outliner.crate`, ...).
    pub rects: BTreeMap<String, [f64; 4]>,
}

/// An edit of a transform field in progress: the objects it changed, each
/// with the transform it started from.
#[derive(Clone, Debug, Default)]
struct FieldEdit {
    before: Vec<(usize, Transform)>,
}

/// The UI's state besides the editor's.
pub struct Ui {
    ctx: egui::Context,
    /// Physical pixels per point.
    scale: f64,
    /// The side panel is shown.
    pub panel: bool,
    size: (f64, f64),
    cursor: Option<Point2<f64>>,
    mods: Modifiers,
    /// egui's clock, in seconds.
    time: f64,
    events: Vec<egui::Event>,
    owner: Option<Owner>,
    /// Shapes of the last pass (tessellated when a frame is drawn).
    shapes: Vec<egui::epaint::ClippedShape>,
    set_textures: Vec<(egui::TextureId, egui::epaint::ImageDelta)>,
    free_textures: Vec<egui::TextureId>,
    trace: UiTrace,
    field_edit: Option<FieldEdit>,
    /// The frame time the status line shows (ms).
    pub frame_ms: f64,
    /// A message the status line shows instead of the counts (not during
    /// a drag), until it is taken away.
    pub notice: Option<String>,
    /// Switched off (`--no-ui`): draws nothing and passes every event on.
    off: bool,
    /// How soon egui asked to be run again (a tooltip's delay, an animation).
    repaint_after: Option<std::time::Duration>,
    /// The outliner's rows, kept while the scene's structure stays.
    outliner: outliner::Rows,
    /// The file dialog, while one is open.
    dialog: Option<dialog::PathDialog>,
    /// The add menu (Shift+A), while open: where it opened (points).
    add_menu: Option<Pos2>,
    /// The outliner's filter text (Ctrl+F, a script's `filter`).
    filter: String,
    /// A rename typed in place (an outliner row, the name field).
    renaming: Option<panels::Renaming>,
    /// The outliner scrolls the active row into view in the next pass (F2).
    reveal_active: bool,
    /// The active object the outliner last unfolded its ancestors for.
    seen_active: Option<usize>,
    /// The filter field takes the keyboard in the next pass.
    focus_filter: bool,
    /// The file the export dialog starts with.
    pub export_default: String,
    /// The file the save-as dialog starts with (the scene's file).
    pub save_default: String,
    /// What a pass's dialog asked for, handed back by [`Ui::handle`].
    pending: Option<Outcome>,
}

/// Outliner rows one wheel notch scrolls (`docs/spec/organise.md`: at least three).
pub const ROWS_PER_NOTCH: f32 = 3.5;

impl std::fmt::Debug for Ui {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ui").field("scale", &self.scale).field("panel", &self.panel).finish_non_exhaustive()
    }
}

fn px_rect(r: Rect, u: f64) -> [f64; 4] {
    [r.min.x as f64 * u, r.min.y as f64 * u, r.max.x as f64 * u, r.max.y as f64 * u]
}

/// Our key name as egui's key, for keys a field uses.
fn egui_key(name: &str) -> Option<egui::Key> {
    use egui::Key;
    Some(match name {
        "Enter" | "NumpadEnter" => Key::Enter,
        "Escape" => Key::Escape,
        "Backspace" => Key::Backspace,
        "Delete" => Key::Delete,
        "Tab" => Key::Tab,
        "ArrowLeft" => Key::ArrowLeft,
        "ArrowRight" => Key::ArrowRight,
        "ArrowUp" => Key::ArrowUp,
        "ArrowDown" => Key::ArrowDown,
        "Home" => Key::Home,
        "End" => Key::End,
        "A" => Key::A,
        "C" => Key::C,
        "V" => Key::V,
        "X" => Key::X,
        "Z" => Key::Z,
        _ => return None,
    })
}

fn egui_mods(m: Modifiers) -> egui::Modifiers {
    egui::Modifiers { alt: m.alt, ctrl: m.ctrl, shift: m.shift, mac_cmd: false, command: m.ctrl }
}

fn egui_button(b: MouseButton) -> egui::PointerButton {
    match b {
        MouseButton::Left => egui::PointerButton::Primary,
        MouseButton::Right => egui::PointerButton::Secondary,
        MouseButton::Middle => egui::PointerButton::Middle,
    }
}

impl Ui {
    /// A UI at scale `u` for a viewport of `width` x `height` pixels.
    pub fn new(u: f64, width: f64, height: f64, panel: bool) -> Ui {
        let ctx = egui::Context::default();
        ctx.set_visuals(egui::Visuals::dark());
        // One wheel notch scrolls a list by three and a half rows (an
        // outliner row is an interact height and a gap high).
        let style = ctx.style_of(egui::Theme::Dark);
        let row = style.spacing.interact_size.y + style.spacing.item_spacing.y;
        ctx.options_mut(|o| o.input_options.line_scroll_speed = ROWS_PER_NOTCH * row);
        let mut ui = Ui {
            ctx,
            scale: if u.is_finite() && u > 0.0 { u } else { 1.0 },
            panel,
            size: (width, height),
            cursor: None,
            mods: Modifiers::NONE,
            time: 0.0,
            events: Vec::new(),
            owner: None,
            shapes: Vec::new(),
            set_textures: Vec::new(),
            free_textures: Vec::new(),
            trace: UiTrace::default(),
            field_edit: None,
            frame_ms: 0.0,
            notice: None,
            off: false,
            repaint_after: None,
            outliner: outliner::Rows::default(),
            dialog: None,
            add_menu: None,
            filter: String::new(),
            focus_filter: false,
            renaming: None,
            reveal_active: false,
            seen_active: None,
            export_default: "scene.glb".into(),
            save_default: "scene.json".into(),
            pending: None,
        };
        ui.trace.panel = panel;
        ui
    }

    /// A UI that is switched off (`--no-ui`): every event goes to the
    /// editor, nothing is drawn, traces carry no `ui`.
    pub fn off(width: f64, height: f64) -> Ui {
        Ui { off: true, ..Ui::new(1.0, width, height, false) }
    }

    /// Whether the UI is shown and takes events.
    pub fn is_on(&self) -> bool {
        !self.off
    }

    /// The UI scale `u`.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Scales the gizmo's `size_px` and `hit_px` by `u` (`docs/spec/conventions.md`).
    pub fn scale_gizmo(&self, editor: &mut Editor) {
        editor.gizmo.config.size_px *= self.scale;
        editor.gizmo.config.hit_px *= self.scale;
    }

    /// A new UI scale `u` (the window moved to a screen with another scale
    /// factor): the UI and the gizmo's `size_px` and `hit_px` follow.
    pub fn set_scale(&mut self, u: f64, editor: &mut Editor) {
        if self.off || !(u.is_finite() && u > 0.0) || u == self.scale {
            return;
        }
        let ratio = u / self.scale;
        editor.gizmo.config.size_px *= ratio;
        editor.gizmo.config.hit_px *= ratio;
        self.scale = u;
        self.settle(editor);
    }

    /// What the last pass laid out (`None` when switched off).
    pub fn trace(&self) -> Option<&UiTrace> {
        (!self.off).then_some(&self.trace)
    }

    /// Runs the first passes, so that the layout is settled (fonts
    /// measured, areas sized) before the first event: a control is where
    /// the first trace line says it is.
    pub fn settle(&mut self, editor: &mut Editor) {
        if !self.off {
            for _ in 0..3 {
                self.run(editor, false);
            }
        }
    }

    /// How soon the UI wants to be drawn again without new input (the
    /// window schedules a redraw for tooltips and animations).
    pub fn repaint_after(&self) -> Option<std::time::Duration> {
        self.repaint_after.filter(|_| !self.off)
    }

    /// egui's clock (seconds).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Lets `dt` seconds pass (tooltips, animations).
    pub fn advance(&mut self, dt: f64) {
        if dt.is_finite() && dt > 0.0 {
            self.time += dt;
        }
    }

    /// Whether `p` is on a part of the UI (a bar, the panel, a popup, the widget).
    fn over_ui(&self, p: Point2<f64>) -> bool {
        let u = self.scale;
        let (w, h) = self.size;
        let on_bar = p.y < TOOLBAR_HEIGHT as f64 * u || p.y >= h - STATUS_HEIGHT as f64 * u;
        let on_panel = self.panel && p.x >= w - PANEL_WIDTH as f64 * u && p.y >= PANEL_TOP as f64 * u;
        let inside = p.x >= 0.0 && p.y >= 0.0 && p.x < w && p.y < h;
        // Popups and other areas above the background (not tooltips, which take no input).
        let pos = Pos2::new((p.x / u) as f32, (p.y / u) as f32);
        let on_area = self
            .ctx
            .layer_id_at(pos)
            .is_some_and(|l| !matches!(l.order, egui::Order::Background | egui::Order::Tooltip));
        inside && (on_bar || on_panel || on_area)
    }

    /// Handles one event: routes it to the UI, the view widget or the
    /// editor (through [`Editor::respond`]), then runs a UI pass.
    pub fn handle(
        &mut self,
        editor: &mut Editor,
        event: &Event,
        mods: Modifiers,
        frame: &mut dyn FrameProbe,
    ) -> Outcome {
        if self.off {
            return editor.respond(event, mods, frame);
        }
        let u = self.scale;
        let mut to_editor = false;
        // Escape in a field: the edit is abandoned.
        let mut abandon = false;
        let mut redraw = true;
        if mods != self.mods {
            self.mods = mods;
            self.events.push(egui::Event::ModifiersChanged(egui_mods(mods)));
        }
        match event {
            Event::Resize { width, height } => {
                if width.is_finite() && height.is_finite() {
                    self.size = (width.max(0.0), height.max(0.0));
                }
                to_editor = true;
            }
            Event::Modifiers(_) | Event::Drop { .. } => to_editor = true,
            Event::CursorMoved { x, y } => {
                let p = Point2::new(*x, *y);
                let prev = self.cursor.replace(p);
                self.events.push(egui::Event::PointerMoved(Pos2::new((x / u) as f32, (y / u) as f32)));
                match self.owner {
                    Some(Owner::Widget { start, dragged }) => {
                        let dragged = dragged || (p - start).norm() >= crate::editor::CLICK_SLOP_PX;
                        self.owner = Some(Owner::Widget { start, dragged });
                        if dragged {
                            let from = prev.unwrap_or(start);
                            editor.orbit_by(p.x - from.x, p.y - from.y);
                        }
                    }
                    Some(Owner::Ui) => {}
                    Some(Owner::Editor) => to_editor = true,
                    None => {
                        let on_widget = widget::contains(widget::corner(editor, self.size.0), u, p);
                        if self.over_ui(p) || on_widget {
                            // The UI shows what the pointer is over; the gizmo lets go of its hover.
                            editor.unhover();
                            if on_widget {
                                // Keys over the widget act on the view it shows.
                                editor.activate_view(PERSPECTIVE);
                            }
                        } else {
                            to_editor = true;
                        }
                    }
                }
            }
            Event::MouseDown { button } => {
                let p = self.cursor.unwrap_or_else(|| editor.cursor());
                if self.owner.is_none() {
                    let corner = widget::corner(editor, self.size.0);
                    self.owner = Some(if *button == MouseButton::Left && widget::contains(corner, u, p) {
                        // The widget shows, and turns, the perspective camera.
                        editor.activate_view(PERSPECTIVE);
                        Owner::Widget { start: p, dragged: false }
                    } else if self.over_ui(p) {
                        Owner::Ui
                    } else {
                        Owner::Editor
                    });
                }
                to_editor = self.owner == Some(Owner::Editor);
                self.pointer_button(*button, true);
                if to_editor && self.ctx.egui_wants_keyboard_input() {
                    // A press in the 3D view while a field is being typed
                    // into: the field takes its text first, before the
                    // press can start a drag that would refuse the value
                    // (egui lets go of a field only when a click ends
                    // elsewhere: focus is taken from it here, and it
                    // applies its text in the next pass).
                    if let Some(id) = self.ctx.memory(|m| m.focused()) {
                        self.ctx.memory_mut(|m| m.surrender_focus(id));
                    }
                    self.run(editor, false);
                    if let Some(message) = editor.take_message() {
                        self.notice = Some(message);
                    }
                }
            }
            Event::MouseUp { button } => {
                match self.owner {
                    Some(Owner::Widget { dragged: false, .. }) if *button == MouseButton::Left => {
                        let p = self.cursor.unwrap_or_else(|| editor.cursor());
                        let corner = widget::corner(editor, self.size.0);
                        if let Some(ball) = widget::ball_at(&editor.camera, corner, u, p) {
                            editor.execute(&Command::AxisView(widget::view_for_click(&editor.camera, &ball)));
                        }
                    }
                    Some(Owner::Editor) | None => to_editor = true,
                    _ => {}
                }
                if *button == MouseButton::Left || self.owner == Some(Owner::Editor) {
                    self.owner = None;
                }
                self.pointer_button(*button, false);
            }
            Event::Scroll { delta } => {
                let p = self.cursor.unwrap_or_else(|| editor.cursor());
                if self.owner.is_none() && self.over_ui(p) {
                    self.events.push(egui::Event::MouseWheel {
                        unit: egui::MouseWheelUnit::Line,
                        delta: Vec2::new(0.0, *delta as f32),
                        modifiers: egui_mods(mods),
                        phase: egui::TouchPhase::Move,
                    });
                } else {
                    to_editor = true;
                }
            }
            Event::KeyDown { key } | Event::KeyUp { key } => {
                let pressed = matches!(event, Event::KeyDown { .. });
                if pressed && key == "Escape" && (self.dialog.is_some() || self.add_menu.is_some()) {
                    self.dialog = None;
                    self.add_menu = None;
                } else if self.ctx.egui_wants_keyboard_input() {
                    abandon = pressed && key == "Escape";
                    if let Some(k) = egui_key(key) {
                        self.events.push(egui::Event::Key {
                            key: k,
                            physical_key: None,
                            pressed,
                            repeat: false,
                            modifiers: egui_mods(mods),
                        });
                    }
                    // Releases still reach the editor (held keys end).
                    to_editor = !pressed;
                } else if pressed && key == PANEL_KEY && !mods.ctrl && !mods.alt && !editor.gizmo.is_dragging() {
                    self.panel = !self.panel;
                } else {
                    to_editor = true;
                }
            }
            Event::Text { text } => {
                // With Ctrl held a key is a shortcut (Ctrl+A selects all,
                // Ctrl+Z undoes the typing), not a character, whatever text
                // the platform attached to it.
                if self.ctx.egui_wants_keyboard_input() && !mods.ctrl {
                    self.events.push(egui::Event::Text(text.clone()));
                } else if editor.gizmo.takes_typed() {
                    // A number typed during a drag.
                    to_editor = true;
                } else {
                    redraw = false;
                }
            }
        }
        let mut command = if to_editor { editor.respond(event, mods, frame) } else { Outcome::None };
        // The export and save-as dialogs open here; open and new ask the
        // program first (unsaved changes), which calls `open_dialog`.
        let opens = match command {
            Outcome::Program(Command::ExportDialog) => Some((DialogKind::Export, self.export_default.clone())),
            Outcome::Program(Command::SaveAsDialog) => Some((DialogKind::SaveAs, self.save_default.clone())),
            _ => None,
        };
        // F2: the active object's row, shown and scrolled to, takes its name.
        if command == Outcome::Program(Command::RenameActive) && !self.off {
            if let Some(&i) = editor.selection().last() {
                self.panel = true;
                self.reveal_active = true;
                self.start_rename(editor, i);
                // Its row unfolded; where the filter hides it, the name field.
                self.outliner.expand_to(editor.scene(), i);
                let filter = self.filter.clone();
                if !self.outliner.shown(editor.scene(), &filter).iter().any(|r| r.id as usize == i) {
                    if let Some(r) = self.renaming.as_mut() {
                        r.in_panel = true;
                    }
                }
            }
            command = Outcome::Redraw;
        }
        if let Some((kind, path)) = opens {
            self.open_dialog(editor, kind, path);
            command = Outcome::Redraw;
        }
        if command == Outcome::Program(Command::FocusFilter) && !self.off {
            self.panel = true;
            self.focus_filter = true;
            command = Outcome::Redraw;
        }
        if command == Outcome::Program(Command::AddMenu) && !self.off {
            let c = editor.cursor();
            self.add_menu = Some(Pos2::new((c.x / self.scale) as f32, (c.y / self.scale) as f32));
            command = Outcome::Redraw;
            // Laid out once unseen first, as a dialog is.
            self.run(editor, false);
        }
        // A refusal or a note of the command just run.
        if let Some(message) = editor.take_message() {
            self.notice = Some(message);
            if command == Outcome::None {
                command = Outcome::Redraw;
            }
        }
        self.run(editor, false);
        if let Some(pending) = self.pending.take() {
            command = pending;
        }
        if abandon {
            // egui's number field applies the text it kept in the pass after
            // it lost focus, Escape or not: run that pass now and drop what it asks.
            self.run(editor, true);
        }
        if redraw && command == Outcome::None {
            command = Outcome::Redraw;
        }
        command
    }

    /// Starts renaming object `i` in its outliner row, its text selected.
    fn start_rename(&mut self, editor: &Editor, i: usize) {
        let Some(o) = editor.scene().get(i) else { return };
        self.renaming = Some(panels::Renaming { object: i, text: o.name.to_string(), start: true, in_panel: false });
    }

    /// A confirmed rename: object `i` takes `name` (made unique); a
    /// refusal goes to the status line. An unchanged name does nothing.
    pub fn rename_object(&mut self, editor: &mut Editor, i: usize, name: &str) {
        if editor.scene().get(i).is_none_or(|o| o.name == name) {
            return;
        }
        self.notice = match editor.rename(i, name) {
            Ok(given) if given != name => Some(format!("Renamed to {given} (\"{name}\" is taken)")),
            Ok(_) => None,
            Err(why) => Some(format!("Not renamed: {why}")),
        };
    }

    /// Opens a file dialog with `path` in its field.
    pub fn open_dialog(&mut self, editor: &mut Editor, kind: DialogKind, path: String) {
        if self.off {
            return;
        }
        self.dialog = Some(dialog::PathDialog::new(kind, path));
        // egui lays a new window out invisibly first: that pass now, so
        // the dialog is shown and takes clicks from the next event on.
        self.run(editor, false);
    }

    /// Sets the outliner's filter (a script's `filter`): the rows whose
    /// names contain `text`, with their ancestors.
    pub fn set_filter(&mut self, text: &str) {
        self.filter = text.to_string();
    }

    /// Which file dialog is open, if one is.
    pub fn dialog(&self) -> Option<DialogKind> {
        self.dialog.as_ref().map(|d| d.kind)
    }

    fn pointer_button(&mut self, button: MouseButton, pressed: bool) {
        let Some(p) = self.cursor else { return };
        let u = self.scale;
        self.events.push(egui::Event::PointerButton {
            pos: Pos2::new((p.x / u) as f32, (p.y / u) as f32),
            button: egui_button(button),
            pressed,
            modifiers: egui_mods(self.mods),
        });
    }

    /// Runs one egui pass over the queued events and applies what the UI asks.
    /// `discard`: drop the field edits the pass asks for.
    pub fn run(&mut self, editor: &mut Editor, discard: bool) {
        let u = self.scale;
        let (w, h) = self.size;
        let mut raw = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, Vec2::new((w / u) as f32, (h / u) as f32))),
            time: Some(self.time),
            events: std::mem::take(&mut self.events),
            focused: true,
            ..Default::default()
        };
        raw.viewports.entry(egui::ViewportId::ROOT).or_default().native_pixels_per_point = Some(u as f32);
        let mut actions = Vec::new();
        let mut trace = UiTrace { panel: self.panel, ..UiTrace::default() };
        let status = status_text(editor, self.frame_ms, self.notice.as_deref());
        let ed: &Editor = editor;
        // A new active object (a click in the 3D view) has its ancestors' rows unfolded.
        if ed.active() != self.seen_active {
            self.seen_active = ed.active();
            if let Some(a) = ed.active() {
                self.outliner.expand_to(ed.scene(), a);
            }
        }
        if self.renaming.as_ref().is_some_and(|r| !ed.scene().contains(r.object)) {
            self.renaming = None;
        }
        let filter_now = self.filter.clone();
        if self.panel {
            self.outliner.shown(ed.scene(), &filter_now);
        }
        let (rows, collapsed) = self.outliner.last_shown(&filter_now);
        let mut io = panels::OutlinerIo {
            rows,
            collapsed,
            filter: &mut self.filter,
            focus_filter: std::mem::take(&mut self.focus_filter),
            reveal_active: std::mem::take(&mut self.reveal_active),
            renaming: &mut self.renaming,
            toggled: None,
            rename_row: None,
            rename_done: None,
        };
        let panel = self.panel;
        let dialog = &mut self.dialog;
        let add_at = self.add_menu;
        let mut added: Option<&'static str> = None;
        let mut answer = false;
        let mut out = self.ctx.run_ui(raw, |ui| {
            // egui may run the pass again at once (a layout that changed
            // size): the trace is the last pass's. Actions are kept, since
            // only the first pass sees the input.
            trace.rects.clear();
            build(ui, ed, u, panel.then_some(&mut io), &status, &mut actions, &mut trace);
            if let Some(d) = dialog.as_mut() {
                answer |= d.show(ui.ctx(), u, &mut trace);
            }
            if let Some(at) = add_at {
                added = dialog::add_menu(ui.ctx(), at, u, &mut trace).or(added);
            }
        });
        let (toggled, rename_row, rename_done) = (io.toggled, io.rename_row, io.rename_done);
        if let Some(id) = toggled {
            self.outliner.toggle(id);
        }
        if let Some(i) = rename_row {
            self.start_rename(editor, i);
        }
        if let Some(confirmed) = rename_done {
            if let Some(r) = self.renaming.take().filter(|_| confirmed) {
                self.rename_object(editor, r.object, &r.text);
            }
        }
        // A fold or a rename started changes the rows: laid out again now,
        // so that what the user sees (and the trace) follows at once.
        let mut again = toggled.is_some() || rename_row.is_some();
        if let Some(name) = added {
            self.add_menu = None;
            self.pending = Some(Outcome::Add(name.to_string()));
        }
        if answer {
            if let Some(outcome) = self.dialog.as_ref().and_then(dialog::PathDialog::outcome) {
                self.dialog = None;
                self.pending = Some(outcome);
            }
        }
        for (id, deltas) in out.textures_delta.set.drain() {
            for d in deltas {
                self.set_textures.push((id, d));
            }
        }
        self.free_textures.extend(out.textures_delta.free.drain());
        self.shapes = std::mem::take(&mut out.shapes);
        self.repaint_after = out
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map(|v| v.repaint_delay)
            .filter(|d| *d < std::time::Duration::from_secs(60));
        self.trace = trace;
        // A number field's text that could not be read (the field kept its value).
        let unreadable = self.ctx.data_mut(|d| d.remove_temp::<String>(panels::unreadable_id()));
        if discard {
            actions.retain(|a| !matches!(a, Command::SetTransform { .. } | Command::SetSnap(_)));
        } else if unreadable.is_some() {
            self.notice = unreadable;
            again = true;
        }
        self.apply(editor, actions);
        // A refusal or a note of what the pass asked (a drop refused).
        if let Some(message) = editor.take_message() {
            self.notice = Some(message);
            again = true;
        }
        if again {
            self.run(editor, false);
        }
    }

    /// Runs the commands of a pass through the editor. A transform field's
    /// first change keeps the transform it started from, for the one undo
    /// step the edit becomes when the field is left.
    fn apply(&mut self, editor: &mut Editor, commands: Vec<Command>) {
        for c in commands {
            if let Command::SetTransform { object, .. } = c {
                let edit = self.field_edit.get_or_insert_with(FieldEdit::default);
                if !edit.before.iter().any(|&(o, _)| o == object) {
                    edit.before.push((object, editor.rest_transform(object).unwrap_or_default()));
                }
            }
            editor.execute(&c);
        }
        // A field edit ends when no field has focus and nothing is dragged:
        // then it is one undo step.
        let editing = self.ctx.memory(|m| m.focused().is_some()) || self.ctx.egui_is_using_pointer();
        if !editing {
            if let Some(e) = self.field_edit.take() {
                editor.commit_transforms(&e.before);
            }
        }
    }

    /// The UI of the current state, tessellated for the renderer; takes the
    /// texture changes made since the last frame.
    pub fn draw(&mut self, editor: &mut Editor) -> UiDraw {
        if self.off {
            return UiDraw::default();
        }
        self.run(editor, false);
        let u = self.scale as f32;
        let primitives = self.ctx.tessellate(self.shapes.clone(), u);
        UiDraw {
            primitives,
            set_textures: std::mem::take(&mut self.set_textures),
            free_textures: std::mem::take(&mut self.free_textures),
            pixels_per_point: u,
        }
    }
}

#[cfg(test)]
mod tests;
