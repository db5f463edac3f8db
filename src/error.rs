//! The program's error: one variant per layer's typed error, plus the
//! window system's. Only the CLI turns it into text (one line, exit 2).

use std::path::PathBuf;

use crate::draw::DrawError;
use crate::files::WriteError;
use crate::render::RenderError;
use crate::scene::gltf::export::ExportError;
use crate::scene::SceneError;
use crate::script::ScriptError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Scene(#[from] SceneError),
    #[error("{}: {source}", path.display())]
    Script { path: PathBuf, source: ScriptError },
    /// A `--lighting` file that cannot be read or has a bad field.
    #[error("{0}")]
    Lighting(String),
    #[error("{}: {source}", path.display())]
    ReadScript { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Draw(#[from] DrawError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Export(#[from] ExportError),
    #[error(transparent)]
    Replay(#[from] crate::headless::ReplayError),
    #[error("cannot connect to the display: {0}")]
    Display(#[from] winit::error::EventLoopError),
    #[error("cannot open a window: {0}")]
    Window(#[from] winit::error::OsError),
    #[error("window handle: {0}")]
    WindowHandle(#[from] raw_window_handle::HandleError),
}
