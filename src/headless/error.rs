//! What ends a headless run: a script that cannot be read or replayed, or
//! the program's own error.

use std::path::PathBuf;

use super::script::ScriptError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    App(crate::app::Error),
    #[error("{}: {source}", path.display())]
    Script { path: PathBuf, source: ScriptError },
    #[error("{}: {source}", path.display())]
    ReadScript { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

crate::app::error::wraps_app_errors!(Error);

/// A script step that cannot be carried out on the scene as it is when it comes.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("event {event}: no animation clip {clip} (the scene's clips: {known})")]
    NoClip { event: usize, clip: String, known: String },
}
