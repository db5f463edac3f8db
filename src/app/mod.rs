//! The program, between the editor and its hosts (the window, the
//! headless runner): the document (its file, unsaved state, save target),
//! autosave, reloading changed files, the clipboard, opening and importing
//! files, and the one dispatch of program commands.
//!
//! Nothing here names winit or a headless target; both hosts call into
//! this room, never the other way round.

pub mod autosave;
pub mod clipboard;
pub mod dispatch;
pub mod document;
pub mod error;
pub mod keys;
pub mod open;
pub mod reload;
pub mod save;

pub use dispatch::{dispatch, Host, Program};
pub use error::Error;
