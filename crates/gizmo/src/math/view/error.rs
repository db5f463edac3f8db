//! [`ViewError`]: why a [`View`](super::View) cannot be built, from our own
//! camera or from an engine's matrices.

use crate::math::camera::CameraError;

/// Why a [`View`](super::View) cannot be built.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewError {
    /// The camera of [`View::new`](super::View::new) is invalid.
    Camera(CameraError),
    /// The viewport size (width, height) is not positive and finite.
    Viewport(f64, f64),
    /// A matrix (or one derived from it) is not invertible.
    Singular,
    /// A matrix given to [`View::from_matrices`](super::View::from_matrices) has a NaN or infinite entry.
    NotFinite,
    /// The matrices given to [`View::from_matrices`](super::View::from_matrices) are invertible but do
    /// not describe a camera the gizmo can use; the text says why.
    Unsupported(&'static str),
}

impl std::fmt::Display for ViewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ViewError::Camera(e) => e.fmt(f),
            ViewError::Viewport(w, h) => write!(f, "viewport size must be positive and finite, got {w} x {h}"),
            ViewError::Singular => write!(f, "camera matrices are not invertible"),
            ViewError::NotFinite => write!(f, "camera matrices have a non-finite entry"),
            ViewError::Unsupported(why) => write!(f, "unsupported camera matrices: {why}"),
        }
    }
}

impl std::error::Error for ViewError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ViewError::Camera(e) => Some(e),
            _ => None,
        }
    }
}

impl From<CameraError> for ViewError {
    fn from(e: CameraError) -> ViewError {
        ViewError::Camera(e)
    }
}
