//! The viewport in real X windows: each test starts its own Xvfb (its own
//! display number, picked by Xvfb) and its own temporary directory, so the
//! tests run in parallel. One test executable; each file under `window/` is a
//! module.

mod support;

/// The autosave: SIGKILL then --recover; kills during autosaves.
#[path = "window/autosave.rs"]
mod autosave;
/// Copy in one window, paste in another, through the X clipboard.
#[path = "window/clipboard.rs"]
mod clipboard;
/// Editing with real X input: select, drag, screenshot, save.
#[path = "window/editing.rs"]
mod editing;
/// Start, present, resize, depth toggle, quit and close.
#[path = "window/lifecycle.rs"]
mod lifecycle;
/// The outliner: rows dragged with xdotool onto a row and under the last.
#[path = "window/outliner.rs"]
mod outliner;
/// A used glTF file changed on disk: the new geometry shows without a key press.
#[path = "window/reload.rs"]
mod reload;
/// The UI: a toolbar button clicked with xdotool.
#[path = "window/ui.rs"]
mod ui;
/// The swapchain through a minimise, in-process.
#[path = "window/zero_size.rs"]
mod zero_size;
