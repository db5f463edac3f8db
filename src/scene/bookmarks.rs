//! Camera bookmarks 1 to 9 (`docs/spec/views.md`) and their block in a
//! scene file.

use std::collections::BTreeMap;

use super::error::SceneError;
use super::file::{camera_from_file, camera_to_file, CameraFile};
use crate::math::Camera;

/// Camera bookmarks: slot `k` holds bookmark `k + 1`.
pub type Bookmarks = [Option<Camera>; 9];

/// The `bookmarks` block of a scene file: `"1"` to `"9"`, the empty ones left out.
pub fn bookmarks_to_file(b: &Bookmarks) -> BTreeMap<String, CameraFile> {
    b.iter().enumerate().filter_map(|(k, c)| Some(((k + 1).to_string(), camera_to_file(c.as_ref()?)))).collect()
}

/// Reads a `bookmarks` block: keys `"1"` to `"9"`, each a valid camera.
pub fn bookmarks_from_file(m: &BTreeMap<String, CameraFile>) -> Result<Bookmarks, SceneError> {
    let mut out: Bookmarks = Default::default();
    for (key, c) in m {
        let k = match key.as_str() {
            "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" => key.parse::<usize>().unwrap_or(1) - 1,
            _ => return Err(SceneError::BookmarkSlot(key.clone())),
        };
        out[k] = Some(camera_from_file(c)?);
    }
    Ok(out)
}
