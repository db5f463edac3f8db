//! What the window and the headless run share before the GPU is touched:
//! their options, reading the scene and its mesh files, and setting up the
//! editor over them. Everything here fails before a window opens or a
//! device is created.

use std::path::{Path, PathBuf};

use crate::draw::{DrawError, LoadedMeshes};
use crate::editor::Editor;
use crate::math::DepthMode;
use crate::scene::{Scene, SceneError};

/// How to open the viewport (window or headless).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The scene file; the built-in demo scene when `None`.
    pub scene: Option<PathBuf>,
    /// Viewport size in physical pixels.
    pub size: (u32, u32),
    pub depth: DepthMode,
    /// Enable the Khronos validation layer.
    pub validation: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { scene: None, size: (1280, 720), depth: DepthMode::Reversed, validation: false }
    }
}

/// Reads the scene file, or the built-in demo scene.
pub fn load_scene(path: Option<&Path>) -> Result<Scene, SceneError> {
    match path {
        Some(p) => Scene::load(p),
        None => Ok(Scene::demo()),
    }
}

/// Reads every mesh file of `scene` (failing on the first bad one) and sets
/// up an editor of `size` in `depth` mode that picks by the real bounds.
pub fn open_editor(scene: Scene, size: (u32, u32), depth: DepthMode) -> Result<(Editor, LoadedMeshes), DrawError> {
    let loaded = LoadedMeshes::load(&scene)?;
    let mut editor = Editor::new(scene, size.0 as f64, size.1 as f64);
    editor.depth = depth;
    loaded.apply_bounds(&mut editor);
    Ok((editor, loaded))
}
