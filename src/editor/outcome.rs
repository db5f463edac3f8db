//! What an event asks of the program once the editor has seen it: nothing,
//! a new frame, or a program command for the one dispatch above the
//! editor (`app::dispatch`), which the window and the headless runner share.

use std::path::PathBuf;

use super::Command;

/// What the program should do after an event.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Nothing changed.
    None,
    /// Something visible may have changed.
    Redraw,
    /// A program command ([`Command::is_program`]) a key ran: saving,
    /// screenshots, quitting, the clipboard, the file dialogs, the UI's
    /// menus and fields.
    Program(Command),
    /// Import this glTF file into the scene (a dropped file, a script's
    /// `import`).
    Import(PathBuf),
    /// The export dialog confirmed: write the scene (or the selection and
    /// its descendants) as glTF to this file.
    Export { path: PathBuf, selection: bool },
    /// The open dialog confirmed: open this scene or glTF file in place of the scene.
    Open(PathBuf),
    /// The save-as dialog confirmed: save to this file, which becomes the scene's.
    SaveAs(PathBuf),
    /// The new dialog confirmed: an empty scene, saved to this file if given.
    New(Option<PathBuf>),
    /// The add menu's choice, a script's `add`: a primitive or `empty` at the cursor.
    Add(String),
}

impl Outcome {
    /// [`Outcome::Redraw`] when `changed`, else [`Outcome::None`].
    pub fn redraw_if(changed: bool) -> Outcome {
        if changed {
            Outcome::Redraw
        } else {
            Outcome::None
        }
    }

    /// Whether the editor changed something visible.
    pub fn redraws(&self) -> bool {
        *self == Outcome::Redraw
    }
}
