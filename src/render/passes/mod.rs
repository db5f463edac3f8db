//! The passes of a frame. Each owns its pipeline and records itself from
//! plain inputs inside a rendering scope the renderer opens.

pub(crate) mod grid;
pub(crate) mod outline;
pub(crate) mod overlay;
pub(crate) mod rect;
pub(crate) mod scene;
pub(crate) mod shadow;
pub(crate) mod sky;
pub(crate) mod ui;
