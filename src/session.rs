//! App-level commands on top of the editor, shared by the window and the
//! replay runner so that both treat every event the same way.
//!
//! The editor handles selection, camera and gizmo; this layer adds the keys
//! that concern the program rather than the scene: the depth-mode toggle,
//! saving, screenshots, importing a dropped file and quitting.

use crate::editor::{Editor, FrameProbe};
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
