//! What ends a window session: the window system's failures, or the
//! program's own error.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    App(crate::app::Error),
    #[error("cannot connect to the display: {0}")]
    Display(#[from] winit::error::EventLoopError),
    #[error("cannot open a window: {0}")]
    Window(#[from] winit::error::OsError),
    #[error("window handle: {0}")]
    WindowHandle(#[from] raw_window_handle::HandleError),
}

crate::app::error::wraps_app_errors!(Error);
