//! App-level commands on top of the editor, shared by the window and the
//! replay runner so that both treat every event the same way.
//!
//! The editor carries out every [`Command`] that concerns the scene, the
//! camera or the gizmo; this layer hands the program-level ones (saving,
//! screenshots, quitting) and dropped files back to the window or replay.

use crate::editor::{keymap, Command, EditMark, Editor, FrameProbe};
use std::path::{Path, PathBuf};

use crate::input::{Event, Modifiers};
use crate::scene::SceneError;

/// What the program should do after an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing changed.
    None,
    /// Something visible may have changed.
    Redraw,
    /// Ctrl+S: save the scene to the file it came from.
    Save,
    /// F12: write a screenshot.
    Screenshot,
    /// Ctrl+Q.
    Quit,
    /// Import this glTF file into the scene (a dropped file, a script's
    /// `import`); the window or replay loads it and hands it to
    /// [`Editor::import`](crate::editor::Editor::import).
    Import(std::path::PathBuf),
    /// Ctrl+E: the UI opens its export dialog.
    ExportDialog,
    /// The export dialog confirmed: write the scene (or the selection and
    /// its descendants) as glTF to this file.
    Export { path: PathBuf, selection: bool },
    /// Ctrl+Shift+R: replace the scene with its newer autosave, if one was offered.
    Recover,
    /// Ctrl+O: the program asks about unsaved changes, then the UI opens its dialog.
    OpenDialog,
    /// Ctrl+Shift+S: the UI opens its save-as dialog.
    SaveAsDialog,
    /// Ctrl+N: the program asks about unsaved changes, then the UI opens its dialog.
    NewDialog,
    /// The open dialog confirmed: open this scene or glTF file in place of the scene.
    Open(PathBuf),
    /// The save-as dialog confirmed: save to this file, which becomes the scene's.
    SaveAs(PathBuf),
    /// The new dialog confirmed: an empty scene, saved to this file if given.
    New(Option<PathBuf>),
    /// F2: the UI edits the active object's name in its outliner row.
    RenameActive,
    /// Ctrl+F: the UI shows the panel and focuses the outliner's filter.
    FocusFilter,
    /// Shift+A: the UI opens its add menu.
    AddMenu,
    /// The add menu's choice, a script's `add`: a primitive or `empty` at the cursor.
    Add(String),
    /// Ctrl+C: the selection to the clipboard.
    Copy,
    /// Ctrl+V: the clipboard's objects into the scene.
    Paste,
}

/// Where Ctrl+S writes, and the one warning before it replaces a file this
/// session neither opened nor wrote: a `STEM.scene.json` beside an opened
/// glTF file may hold earlier edits (`docs/spec/roundtrip.md`, "Files in the
/// window"). The first Ctrl+S warns and names it, the next one writes.
#[derive(Clone, Debug, Default)]
pub struct SaveTarget {
    path: Option<PathBuf>,
    /// The file exists and this session has not written it.
    guarded: bool,
    warned: bool,
}

/// What a Ctrl+S does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveStep {
    /// Nothing to save to (the demo scene).
    NoFile,
    /// Only this warning, this time.
    Warn(String),
    /// Write the scene to this file.
    Write(PathBuf),
}

impl SaveTarget {
    /// Ctrl+S writes to `path`; `opened` when that file is the scene that was
    /// opened (it holds nothing this session would lose).
    pub fn new(path: Option<PathBuf>, opened: bool) -> SaveTarget {
        let guarded = !opened && path.as_ref().is_some_and(|p| p.exists());
        SaveTarget { path, guarded, warned: false }
    }

    /// The file Ctrl+S writes.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// A warning to show on opening, when Ctrl+S would replace earlier edits.
    pub fn opening_notice(&self) -> Option<String> {
        let p = self.path.as_ref().filter(|_| self.guarded)?;
        Some(format!("{} holds earlier edits of this model (open it to keep them)", p.display()))
    }

    /// Carries out a Ctrl+S of `editor`'s scene and prints its line on
    /// stderr: writes the file, or only warns, or says there is none.
    /// Returns what it did; a failed write is the error.
    pub fn save(&mut self, editor: &Editor) -> Result<SaveStep, SceneError> {
        let step = self.request();
        match &step {
            SaveStep::Write(path) => {
                editor.scene_to_save().save(path)?;
                self.written();
                eprintln!("viewport: saved {}", path.display());
            }
            SaveStep::Warn(warning) => eprintln!("viewport: {warning}"),
            SaveStep::NoFile => {
                eprintln!("viewport: the built-in demo scene has no file to save to; open a scene file to save");
            }
        }
        Ok(step)
    }

    /// A Ctrl+S: what to do now.
    fn request(&mut self) -> SaveStep {
        match &self.path {
            None => SaveStep::NoFile,
            Some(p) if self.guarded && !self.warned => {
                self.warned = true;
                SaveStep::Warn(format!(
                    "{} holds edits this session did not make: Ctrl+S again replaces it",
                    p.display()
                ))
            }
            Some(p) => SaveStep::Write(p.clone()),
        }
    }

    /// The scene was written to the file: later saves need no warning.
    fn written(&mut self) {
        self.guarded = false;
    }
}

/// Edits not yet saved to the scene's file, and the quit that protects
/// them: while there are some, the first quit request (Ctrl+Q, the window's
/// close button) only warns and the next one quits, as an editor asks
/// before it drops work. Any change to the scene counts (an undo back to
/// the saved state too, as in Blender); the camera, the selection and an
/// animation pose do not.
#[derive(Clone, Copy, Debug)]
pub struct Unsaved {
    /// `None`: the scene as opened is not what its file holds (a recovered autosave).
    saved: Option<EditMark>,
    warned: bool,
}

impl Unsaved {
    /// The editor's scene as it is now counts as saved.
    pub fn new(editor: &Editor) -> Unsaved {
        Unsaved { saved: Some(editor.edit_mark()), warned: false }
    }

    /// The editor's scene differs from its file already (`--recover`).
    pub fn modified() -> Unsaved {
        Unsaved { saved: None, warned: false }
    }

    /// The scene was just written to its file.
    pub fn saved(&mut self, editor: &Editor) {
        *self = Unsaved::new(editor);
    }

    /// Whether the scene changed since it was opened or last saved.
    pub fn is_modified(&self, editor: &Editor) -> bool {
        Some(editor.edit_mark()) != self.saved
    }

    /// A quit request: true to quit now, false when it only warns (the
    /// first request while the scene has unsaved changes).
    pub fn may_quit(&mut self, editor: &Editor) -> bool {
        if !self.is_modified(editor) || self.warned {
            return true;
        }
        self.warned = true;
        false
    }
}

/// Handles one event with the modifiers held during it. `frame` reads the
/// last drawn frame (the depth under the cursor for orbit and zoom, the
/// objects in a selection box); `&mut NoFrame` where there is none.
pub fn handle(editor: &mut Editor, event: &Event, mods: Modifiers, frame: &mut dyn FrameProbe) -> Outcome {
    if let Event::KeyDown { key } = event {
        match keymap::lookup(key, mods) {
            Some(Command::Save) => return Outcome::Save,
            Some(Command::Screenshot) => return Outcome::Screenshot,
            Some(Command::Quit) => return Outcome::Quit,
            Some(Command::ExportDialog) => return Outcome::ExportDialog,
            Some(Command::Recover) => return Outcome::Recover,
            Some(Command::OpenDialog) => return Outcome::OpenDialog,
            Some(Command::SaveAsDialog) => return Outcome::SaveAsDialog,
            Some(Command::NewDialog) => return Outcome::NewDialog,
            Some(Command::AddMenu) => return Outcome::AddMenu,
            Some(Command::FocusFilter) => return Outcome::FocusFilter,
            Some(Command::RenameActive) => return Outcome::RenameActive,
            Some(Command::Copy) => return Outcome::Copy,
            Some(Command::Paste) => return Outcome::Paste,
            _ => {}
        }
    }
    if let Event::Drop { path } = event {
        return Outcome::Import(path.clone());
    }
    if editor.handle_with_frame(event, mods, frame) {
        Outcome::Redraw
    } else {
        Outcome::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::DepthMode;
    use crate::scene::Scene;

    #[test]
    fn saving_over_a_file_this_session_did_not_open_or_write_warns_once() {
        let dir = std::env::temp_dir().join(format!("viewport-save-target-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let existing = dir.join("Fox.scene.json");
        std::fs::write(&existing, "{}").unwrap();
        // Beside an opened glTF: warn, then write, then write without asking.
        let mut t = SaveTarget::new(Some(existing.clone()), false);
        assert!(t.opening_notice().is_some_and(|n| n.contains("Fox.scene.json")));
        assert!(matches!(t.request(), SaveStep::Warn(w) if w.contains("Fox.scene.json")));
        assert_eq!(t.request(), SaveStep::Write(existing.clone()));
        t.written();
        assert_eq!(t.request(), SaveStep::Write(existing.clone()));
        // The opened scene file itself, or a file that is not there yet: no warning.
        assert_eq!(SaveTarget::new(Some(existing.clone()), true).request(), SaveStep::Write(existing.clone()));
        let new = dir.join("New.scene.json");
        assert_eq!(SaveTarget::new(Some(new.clone()), false).request(), SaveStep::Write(new));
        assert_eq!(SaveTarget::new(None, false).request(), SaveStep::NoFile);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unsaved_changes_make_the_first_quit_a_warning() {
        let mut e = Editor::new(Scene::demo(), 640.0, 480.0);
        let mut unsaved = Unsaved::new(&e);
        // Looking around and selecting change no scene.
        e.set_selection(&[1]);
        e.handle(&Event::Scroll { delta: 2.0 });
        assert!(!unsaved.is_modified(&e));
        assert!(unsaved.may_quit(&e));
        // A duplicate does: the first request warns, the next one quits.
        e.duplicate();
        assert!(unsaved.is_modified(&e));
        assert!(!unsaved.may_quit(&e));
        assert!(unsaved.may_quit(&e));
        // Saved: quitting is free again until the next change, an undo too.
        unsaved.saved(&e);
        assert!(!unsaved.is_modified(&e));
        assert!(unsaved.may_quit(&e));
        assert!(e.undo());
        assert!(unsaved.is_modified(&e));
        assert!(!unsaved.may_quit(&e));
    }

    #[test]
    fn app_keys_map_to_commands_and_the_rest_reaches_the_editor() {
        let mut e = Editor::new(Scene::demo(), 640.0, 480.0);
        let key = |k: &str| Event::KeyDown { key: k.into() };
        let handle = |e: &mut Editor, ev: &Event, m| handle(e, ev, m, &mut crate::editor::NoFrame);
        let ctrl = Modifiers { ctrl: true, ..Modifiers::NONE };
        assert_eq!(e.depth, DepthMode::Reversed);
        let shift = Modifiers { shift: true, ..Modifiers::NONE };
        assert_eq!(handle(&mut e, &key("F2"), shift), Outcome::Redraw);
        assert_eq!(e.depth, DepthMode::Standard);
        assert_eq!(handle(&mut e, &key("S"), ctrl), Outcome::Save);
        assert_eq!(handle(&mut e, &key("Q"), ctrl), Outcome::Quit);
        assert_eq!(handle(&mut e, &key("F12"), Modifiers::NONE), Outcome::Screenshot);
        // E switches the gizmo to rotate: the editor saw it.
        assert_eq!(handle(&mut e, &key("E"), Modifiers::NONE), Outcome::Redraw);
        assert_eq!(e.gizmo.config.mode, crate::gizmo::Mode::Rotate);
    }
}
