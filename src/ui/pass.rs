//! One egui pass: the queued events run through the layout, what the
//! pass asks (commands, folds, renames, a dialog's answer) applied to the
//! editor, and the shapes tessellated for the renderer.

use egui::{Pos2, Rect, Vec2};

use super::dialog;
use super::layout::build;
use super::number::unreadable_id;
use super::outliner::OutlinerIo;
use super::status::status_text;
use super::{Ui, UiTrace};
use crate::editor::Outcome;
use crate::editor::{Command, Editor};
use crate::math::Transform;
use crate::render::UiDraw;

/// An edit of a panel field in progress: the objects it changed, each
/// with the transform, or the light and camera, it started from.
#[derive(Clone, Debug, Default)]
pub(super) struct FieldEdit {
    before: Vec<(usize, Transform)>,
    fixtures: Vec<(usize, crate::scene::fixture::Fixture)>,
}

impl Ui {
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
        let notice = self.live_notice(editor);
        let status = status_text(editor, self.frame_ms, notice.as_deref());
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
        let mut io = OutlinerIo {
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
        let environments = &self.environments[..];
        let dialog = &mut self.dialog;
        let add_at = self.add_menu;
        let mut added: Option<&'static str> = None;
        let mut answer = false;
        let mut out = self.ctx.run_ui(raw, |ui| {
            // egui may run the pass again at once (a layout that changed
            // size): the trace is the last pass's. Actions are kept, since
            // only the first pass sees the input.
            trace.rects.clear();
            build(ui, ed, environments, u, panel.then_some(&mut io), &status, &mut actions, &mut trace);
            if let Some(d) = dialog.as_mut() {
                answer |= d.show(ui.ctx(), u, &mut trace);
            }
            if let Some(at) = add_at {
                added = dialog::add_menu(ui.ctx(), at, &ed.keymap, u, &mut trace).or(added);
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
                if let Some(d) = self.dialog.take().filter(|d| d.kind == dialog::DialogKind::Export) {
                    self.last_export = Some((d.path.trim().to_string(), d.selection));
                }
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
        let unreadable = self.ctx.data_mut(|d| d.remove_temp::<String>(unreadable_id()));
        if discard {
            actions.retain(|a| {
                !matches!(a, Command::SetTransform { .. } | Command::SetFixture { .. } | Command::SetSnap(_))
            });
        } else if unreadable.is_some() {
            if let Some(text) = unreadable {
                self.say(editor, text);
            }
            again = true;
        }
        self.apply(editor, actions);
        // A refusal or a note of what the pass asked (a drop refused).
        if let Some(message) = editor.take_message() {
            self.say(editor, message);
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
            if let Command::SetFixture { object, .. } = c {
                let edit = self.field_edit.get_or_insert_with(FieldEdit::default);
                let was = editor.scene().get(object).and_then(|o| o.fixture.as_deref().copied());
                if let (false, Some(was)) = (edit.fixtures.iter().any(|&(o, _)| o == object), was) {
                    edit.fixtures.push((object, was));
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
                editor.commit_fixtures(&e.fixtures);
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
