//! App-level commands on top of the editor, shared by the window and the
//! replay runner so that both treat every event the same way.
//!
//! The editor carries out every [`Command`] that concerns the scene, the
//! camera or the gizmo; this layer hands the program-level ones (saving,
//! screenshots, quitting) and dropped files back to the window or replay.

use crate::editor::{keymap, ChangeMark, Command, Editor, FrameProbe};
use crate::input::{Event, Modifiers};

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
}

/// Edits not yet saved to the scene's file, and the quit that protects
/// them: while there are some, the first quit request (Ctrl+Q, the window's
/// close button) only warns and the next one quits, as an editor asks
/// before it drops work. Any change to the scene counts (an undo back to
/// the saved state too, as in Blender); the camera and the selection do not.
#[derive(Clone, Copy, Debug)]
pub struct Unsaved {
    saved: ChangeMark,
    warned: bool,
}

impl Unsaved {
    /// The editor's scene as it is now counts as saved.
    pub fn new(editor: &Editor) -> Unsaved {
        Unsaved { saved: editor.change_mark(), warned: false }
    }

    /// The scene was just written to its file.
    pub fn saved(&mut self, editor: &Editor) {
        *self = Unsaved::new(editor);
    }

    /// Whether the scene changed since it was opened or last saved.
    pub fn is_modified(&self, editor: &Editor) -> bool {
        editor.change_mark() != self.saved
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
        assert_eq!(handle(&mut e, &key("F2"), Modifiers::NONE), Outcome::Redraw);
        assert_eq!(e.depth, DepthMode::Standard);
        assert_eq!(handle(&mut e, &key("S"), ctrl), Outcome::Save);
        assert_eq!(handle(&mut e, &key("Q"), ctrl), Outcome::Quit);
        assert_eq!(handle(&mut e, &key("F12"), Modifiers::NONE), Outcome::Screenshot);
        // E switches the gizmo to rotate: the editor saw it.
        assert_eq!(handle(&mut e, &key("E"), Modifiers::NONE), Outcome::Redraw);
        assert_eq!(e.gizmo.config.mode, crate::gizmo::Mode::Rotate);
    }
}
