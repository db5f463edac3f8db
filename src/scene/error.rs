//! [`SceneError`]: why a scene could not be read, validated or saved, and
//! the line for a file that is neither a scene file nor glTF.

use std::path::{Path, PathBuf};

use super::gltf::GltfError;
use crate::files::WriteError;
use crate::math::CameraError;

/// The one line for a file that is neither format.
pub const ACCEPTED_FORMATS: &str =
    "neither a scene file (JSON) nor a glTF 2.0 file (.gltf JSON with an \"asset\" field, or .glb binary)";

/// Why a scene could not be read, validated or saved.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// A problem in a scene file, with the file's path in front.
    #[error("{}: {source}", path.display())]
    InFile { path: PathBuf, source: Box<SceneError> },
    #[error(transparent)]
    Read(std::io::Error),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("bookmarks: \"{0}\" is not a slot (1 to 9)")]
    BookmarkSlot(String),
    #[error("camera: {0}")]
    Camera(#[from] CameraError),
    /// A camera block with a field its projection does not use.
    #[error("camera: \"{field}\" is only for {projection} cameras")]
    CameraField { field: &'static str, projection: &'static str },
    #[error("object {0}: empty name")]
    EmptyName(usize),
    #[error("object \"{0}\": duplicate name")]
    DuplicateName(String),
    #[error("object \"{name}\": unknown parent \"{parent}\"")]
    UnknownParent { name: String, parent: String },
    #[error("object \"{0}\": parent chain forms a cycle")]
    Cycle(String),
    /// A glTF file opened as the scene that cannot be read or has a bad node.
    #[error(transparent)]
    Gltf(#[from] GltfError),
    /// A file that is neither a scene file nor glTF.
    #[error("{}", ACCEPTED_FORMATS)]
    Unrecognized,
    /// A scene file where only glTF will do (importing).
    #[error("only glTF files (.gltf, .glb) can be imported; this is a scene file")]
    NotGltf,
    /// `--recover` without an autosave to recover.
    #[error("no autosave to recover: {} does not exist", .0.display())]
    NoAutosave(PathBuf),
    /// The demo's autosave needs a state folder (`$XDG_STATE_HOME` or `$HOME`).
    #[error("no state folder for the autosave: neither XDG_STATE_HOME nor HOME is set")]
    NoStateFolder,
    /// A bad value in the `lighting` object (the message names the field).
    #[error("{0}")]
    Lighting(String),
    /// A bad value in an object (non-finite number, zero scale, unknown mesh, ...).
    #[error("object \"{name}\": {problem}")]
    Object { name: String, problem: String },
}

impl SceneError {
    /// This error, said of the file at `path`.
    pub fn in_file(self, path: &Path) -> SceneError {
        SceneError::InFile { path: path.to_path_buf(), source: Box::new(self) }
    }
}
