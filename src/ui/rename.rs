//! Renaming an object in place, in its outliner row (double click, F2) or
//! in the transform section's name field: the rename in progress, the
//! field taking the keyboard, and the rename applied to the editor.

use super::Ui;
use crate::editor::Editor;

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

/// Takes the keyboard with all the text selected on a rename's first
/// pass; `Some(confirmed)` once the field lets the keyboard go.
pub(super) fn name_field_focus(ui: &egui::Ui, field: &egui::Response, renaming: &mut Renaming) -> Option<bool> {
    if std::mem::take(&mut renaming.start) {
        take_keyboard_selected(ui.ctx(), field, &renaming.text);
        return None;
    }
    field.lost_focus().then(|| !ui.input(|i| i.key_pressed(egui::Key::Escape)))
}

/// Gives text field `field` the keyboard with all of its `text` selected,
/// so that typing replaces it (renames, number fields, path dialogs).
pub(super) fn take_keyboard_selected(ctx: &egui::Context, field: &egui::Response, text: &str) {
    field.request_focus();
    let mut state = egui::text_edit::TextEditState::load(ctx, field.id).unwrap_or_default();
    let all =
        egui::text::CCursorRange::two(egui::text::CCursor::new(0), egui::text::CCursor::new(text.chars().count()));
    state.cursor.set_char_range(Some(all));
    state.store(ctx, field.id);
}

impl Ui {
    /// Starts renaming object `i` in its outliner row, its text selected.
    pub(super) fn start_rename(&mut self, editor: &Editor, i: usize) {
        let Some(o) = editor.scene().get(i) else { return };
        self.renaming = Some(Renaming { object: i, text: o.name.to_string(), start: true, in_panel: false });
    }

    /// A confirmed rename: object `i` takes `name` (made unique); a
    /// refusal goes to the status line. An unchanged name does nothing.
    pub fn rename_object(&mut self, editor: &mut Editor, i: usize, name: &str) {
        if editor.scene().get(i).is_none_or(|o| o.name == name) {
            return;
        }
        let said = match editor.rename(i, name) {
            Ok(given) if given != name => Some(format!("Renamed to {given} (\"{name}\" is taken)")),
            Ok(_) => None,
            Err(why) => Some(format!("Not renamed: {why}")),
        };
        if let Some(text) = said {
            self.say(editor, text);
        }
    }
}
