//! App-level commands on top of the editor, shared by the window and the
//! replay runner so that both treat every event the same way.
//!
//! The editor handles selection, camera and gizmo; this layer adds the keys
//! that concern the program rather than the scene: the depth-mode toggle,
//! saving, screenshots, importing a dropped file and quitting.

use crate::editor::{ChangeMark, Editor, FrameProbe};
use crate::input::{Event, Modifiers};

/// The key (winit `KeyCode` name) that toggles reversed / standard depth.
pub const DEPTH_TOGGLE_KEY: &str = "F2";
/// The key that writes a screenshot.
pub const SCREENSHOT_KEY: &str = "F12";

/// What the program should do after an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
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
pub fn handle(editor: &mut Editor, event: &Event, mods: Modifiers, frame: &mut dyn FrameProbe) -> Command {
    if let Event::KeyDown { key } = event {
        let plain = !mods.ctrl && !mods.alt;
        match key.as_str() {
            DEPTH_TOGGLE_KEY if plain => {
                editor.depth = editor.depth.toggled();
                return Command::Redraw;
            }
            SCREENSHOT_KEY if plain => return Command::Screenshot,
            "S" if mods.ctrl && !mods.shift => return Command::Save,
            "Q" if mods.ctrl => return Command::Quit,
            _ => {}
        }
    }
    if let Event::Drop { path } = event {
        return Command::Import(path.clone());
    }
    if editor.handle_with_frame(event, mods, frame) {
        Command::Redraw
    } else {
        Command::None
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
        assert_eq!(handle(&mut e, &key("F2"), Modifiers::NONE), Command::Redraw);
        assert_eq!(e.depth, DepthMode::Standard);
        assert_eq!(handle(&mut e, &key("S"), ctrl), Command::Save);
        assert_eq!(handle(&mut e, &key("Q"), ctrl), Command::Quit);
        assert_eq!(handle(&mut e, &key("F12"), Modifiers::NONE), Command::Screenshot);
        // E switches the gizmo to rotate: the editor saw it.
        assert_eq!(handle(&mut e, &key("E"), Modifiers::NONE), Command::Redraw);
        assert_eq!(e.gizmo.config.mode, crate::gizmo::Mode::Rotate);
    }
}
