//! Saving: where Ctrl+S writes ([`SaveTarget`]) and the edits not saved
//! yet ([`Unsaved`]), which guard the quit.

use std::path::{Path, PathBuf};

use crate::editor::{EditMark, Editor};
use crate::scene::SceneError;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Event;
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
}
