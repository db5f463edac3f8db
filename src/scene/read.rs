//! Reading a scene: [`Scene::load`] and the other ways in (a file already
//! read, JSON text, a parsed [`SceneFile`]). The streamed reader behind
//! them is `load/`.

use std::path::Path;

use super::bookmarks::bookmarks_from_file;
use super::error::SceneError;
use super::file::{camera_from_file, SceneFile};
use super::{load, Scene};

impl Scene {
    /// Reads and validates a scene file, a few megabytes at a time (never
    /// the whole file in memory, see `load.rs`). Relative glTF paths resolve
    /// against the file's folder.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        if let Some(loaded) = Scene::load_streamed(path) {
            return loaded;
        }
        // Not plainly a scene file: read whole and parsed again, for the
        // exact error (with line and column).
        let text = std::fs::read_to_string(path).map_err(|e| SceneError::Read(e).in_file(path))?;
        let base = path.parent().unwrap_or(Path::new("."));
        Scene::from_json(&text, base).map_err(|e| e.in_file(path))
    }

    /// [`Scene::load`] where the file is plainly a scene file: `None` when
    /// it cannot be read or is anything else (JSON that does not parse as
    /// a scene file, glTF, ...), for the caller to read it whole and say why.
    pub fn load_streamed(path: &Path) -> Option<Result<Scene, SceneError>> {
        let read = load::read_pieces(path, load::BUFFER, load::SPLIT_MIN).ok()??;
        let base = path.parent().unwrap_or(Path::new("."));
        Some(read.finish(base).map_err(|e| e.in_file(path)))
    }

    /// [`Scene::load`] of a file already read: `bytes` is its content.
    pub fn load_bytes(path: &Path, bytes: Vec<u8>) -> Result<Scene, SceneError> {
        let text = String::from_utf8(bytes).map_err(|e| {
            SceneError::Read(std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error())).in_file(path)
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Scene::from_json(&text, base).map_err(|e| e.in_file(path))
    }

    /// Parses and validates scene JSON; glTF paths resolve against `base`.
    pub fn from_json(text: &str, base: &Path) -> Result<Scene, SceneError> {
        serde_json::from_str::<load::StreamedFile>(text)?.finish(base)
    }

    /// Validates a parsed scene file (the same checks as [`Scene::load`]).
    pub fn from_file(file: &SceneFile, base: &Path) -> Result<Scene, SceneError> {
        let camera = file.camera.as_ref().map(camera_from_file).transpose()?;
        // Checked where the streamed reader checks them: before the objects.
        let bookmarks = bookmarks_from_file(&file.bookmarks)?;
        let lighting = match &file.lighting {
            Some(v) => load::lighting_from_file(Some(serde_json::from_value(v.clone())?), base)?,
            None => None,
        };
        let mut builder = load::Builder::default();
        for o in &file.objects {
            builder.push(o.clone());
        }
        let mut scene = builder.finish(camera, base)?;
        scene.bookmarks = bookmarks;
        scene.lighting = lighting;
        Ok(scene)
    }
}
