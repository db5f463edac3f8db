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
//!
//! This file holds the UI's state and the routing of events; a pass runs
//! in `pass`, lays out through `layout` (the `toolbar`, the `status` line,
//! the `side_panel` with the `outliner`, the `view_overlays`) and records
//! what it laid out in the `trace`.

mod dialog;
mod egui_events;
pub mod environment_menu;
mod expr;
mod fixture_panel;
mod layout;
mod number;
pub use dialog::DialogKind;
mod outliner;
mod pass;
mod rename;
mod side_panel;
mod status;
mod toolbar;
mod trace;
mod view_overlays;
pub mod widget;

pub use status::status_text;
pub use trace::UiTrace;

use egui::{Pos2, Vec2};
use nalgebra::Point2;

use crate::editor::quad::PERSPECTIVE;
use crate::editor::{Command, Editor, FrameProbe, Outcome};
use crate::input::{Event, Modifiers, MouseButton};
use egui_events::{egui_key, egui_mods};
use pass::FieldEdit;
use trace::px_rect;

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
    /// a drag), until the next action or its time is up ([`Ui::say`]).
    notice: Option<status::Notice>,
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
    renaming: Option<rename::Renaming>,
    /// The outliner scrolls the active row into view in the next pass (F2).
    reveal_active: bool,
    /// The active object the outliner last unfolded its ancestors for.
    seen_active: Option<usize>,
    /// The filter field takes the keyboard in the next pass.
    focus_filter: bool,
    /// The file the export dialog starts with.
    pub export_default: String,
    /// The last export confirmed in this session: its path as typed and
    /// the "selection only" box; the export dialog starts with them.
    last_export: Option<(String, bool)>,
    /// The file the save-as dialog starts with (the scene's file).
    pub save_default: String,
    /// The `.hdr` files the toolbar's environment menu offers (the
    /// scene's folder's and `assets/`), found when a scene is opened or
    /// saved ([`environment_menu::environment_files`]).
    pub environments: Vec<std::path::PathBuf>,
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
            last_export: None,
            save_default: "scene.json".into(),
            environments: Vec::new(),
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

    /// Puts `text`, a message about the action just taken, on the status
    /// line: it stays until the next action on the scene and at most
    /// 10 s (`docs/spec/editing.md`, "Status line").
    pub fn say(&mut self, editor: &Editor, text: impl Into<String>) {
        self.notice = Some(status::Notice::passing(text.into(), editor));
    }

    /// Puts `text` (what opening a file found) on the status line until the
    /// next action on the scene; `None` clears the line.
    pub fn say_lasting(&mut self, text: Option<String>) {
        self.notice = text.map(status::Notice::lasting);
    }

    /// The message on the status line, if one is set (it may have lapsed
    /// since the last pass).
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_ref().map(|n| n.text.as_str())
    }

    /// The status line's message while it lives, dropped once it lapsed.
    fn live_notice(&mut self, editor: &Editor) -> Option<String> {
        let now = self.time;
        if self.notice.as_mut().is_some_and(|n| !n.lives(editor, now)) {
            self.notice = None;
        }
        self.notice.as_ref().map(|n| n.text.clone())
    }

    /// How long until the status line's message goes by itself: the window
    /// draws again then.
    pub fn notice_left(&self) -> Option<std::time::Duration> {
        let left = self.notice.as_ref().filter(|_| !self.off)?.left(self.time)?;
        Some(std::time::Duration::from_secs_f64(left.max(0.0)))
    }

    /// The trace's status as the line would show it now (after a command
    /// the program carried out since the last pass, or time passing).
    pub fn refresh_status(&mut self, editor: &Editor) {
        if !self.off {
            let notice = self.live_notice(editor);
            self.trace.status = status_text(editor, self.frame_ms, notice.as_deref());
        }
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
                        self.say(editor, message);
                    }
                }
            }
            Event::MouseUp { button } => {
                match self.owner {
                    Some(Owner::Widget { dragged: false, .. }) if *button == MouseButton::Left => {
                        let p = self.cursor.unwrap_or_else(|| editor.cursor());
                        let corner = widget::corner(editor, self.size.0);
                        if let Some(ball) = widget::ball_at(&editor.shown_camera(), corner, u, p) {
                            editor.execute(&Command::AxisView(widget::view_for_click(&editor.shown_camera(), &ball)));
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
            Outcome::Program(Command::ExportDialog) => {
                Some((DialogKind::Export, self.last_export.as_ref().map_or(&self.export_default, |l| &l.0).clone()))
            }
            Outcome::Program(Command::SaveAsDialog) => Some((DialogKind::SaveAs, self.save_default.clone())),
            // Ctrl+I starts in the scene file's folder, as Ctrl+O does.
            Outcome::Program(Command::ImportDialog) => Some((DialogKind::Import, folder_of(&self.save_default))),
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
            self.say(editor, message);
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

    /// Opens a file dialog with `path` in its field.
    pub fn open_dialog(&mut self, editor: &mut Editor, kind: DialogKind, path: String) {
        if self.off {
            return;
        }
        let selection = kind == DialogKind::Export && self.last_export.as_ref().is_some_and(|l| l.1);
        self.dialog = Some(dialog::PathDialog::new(kind, path, selection));
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
}

/// The folder of the file `path` names, with a separator after it ("" for
/// a bare file name): where a file dialog starts.
fn folder_of(path: &str) -> String {
    match std::path::Path::new(path).parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.join("").display().to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests;
