//! The program layer's error: one variant per lower layer's typed error.
//! The hosts ([`crate::window`], [`crate::headless`]) wrap it in their own
//! error types; only the CLI turns any of them into text (one line, exit 2).

use std::path::PathBuf;

use crate::draw::DrawError;
use crate::editor::keymap::KeyMapError;
use crate::files::WriteError;
use crate::render::RenderError;
use crate::scene::gltf::export::ExportError;
use crate::scene::SceneError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Scene(#[from] SceneError),
    #[error(transparent)]
    Draw(#[from] DrawError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Export(#[from] ExportError),
    /// A key map file (`--keymap`, the user's) that cannot be read or used.
    #[error("{}: {source}", path.display())]
    KeyMap { path: PathBuf, source: KeyMapError },
    #[error("{}: {source}", path.display())]
    ReadKeyMap { path: PathBuf, source: std::io::Error },
}

/// `From` each lower layer's error for a host's error type whose variant
/// `App` wraps [`Error`], so that `?` works on them there as it does here.
macro_rules! wraps_app_errors {
    ($host:ty) => {
        impl From<$crate::app::Error> for $host {
            fn from(e: $crate::app::Error) -> Self {
                Self::App(e)
            }
        }
        $crate::app::error::wraps_app_errors!(@each $host, $crate::scene::SceneError, $crate::draw::DrawError,
            $crate::render::RenderError, $crate::files::WriteError, $crate::scene::gltf::export::ExportError);
    };
    (@each $host:ty, $($lower:ty),*) => {
        $(impl From<$lower> for $host {
            fn from(e: $lower) -> Self {
                Self::App($crate::app::Error::from(e))
            }
        })*
    };
}
pub(crate) use wraps_app_errors;
