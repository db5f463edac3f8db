//! Writing scene files one object at a time: [`FileView`] serialises as
//! the scene's [`super::SceneFile`] would, building each object's entry
//! only while it is written, so saving holds no copy of the scene.

use std::path::Path;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::{bookmarks_to_file, camera_to_file, Scene};

/// `scene` as its file, mesh paths as seen from `dir` (`None`: as read).
pub(super) struct FileView<'a> {
    pub scene: &'a Scene,
    pub dir: Option<&'a Path>,
}

/// The `objects` array of a [`FileView`].
struct Objects<'a>(&'a FileView<'a>);

impl Serialize for FileView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The fields, order and skipped `camera` of `SceneFile`'s derive.
        let camera = self.scene.camera.as_ref().map(camera_to_file);
        let bookmarks = bookmarks_to_file(&self.scene.bookmarks);
        let fields = 1 + usize::from(camera.is_some()) + usize::from(!bookmarks.is_empty());
        let mut file = s.serialize_struct("SceneFile", fields)?;
        match &camera {
            Some(c) => file.serialize_field("camera", c)?,
            None => file.skip_field("camera")?,
        }
        if bookmarks.is_empty() {
            file.skip_field("bookmarks")?;
        } else {
            file.serialize_field("bookmarks", &bookmarks)?;
        }
        file.serialize_field("objects", &Objects(self))?;
        file.end()
    }
}

impl Serialize for Objects<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let FileView { scene, dir } = self.0;
        // By place, so that siblings keep their order through the file.
        s.collect_seq(scene.hierarchy.by_place().into_iter().map(|i| scene.object_file(i, *dir)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived serialisation of the whole `SceneFile`, the reference.
    fn derived(scene: &Scene) -> String {
        serde_json::to_string_pretty(&scene.to_file()).unwrap() + "\n"
    }

    #[test]
    fn streamed_files_are_byte_for_byte_the_derived_ones() {
        let demo = Scene::demo();
        // The demo has a camera and a child (a `parent` field to write).
        assert!(demo.camera.is_some() && (0..demo.len()).any(|i| demo.parent(i).is_some()));
        let mut no_camera = demo.clone();
        no_camera.camera = None;
        for scene in [demo, no_camera, Scene::default()] {
            assert_eq!(scene.to_json(), derived(&scene));
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s.json");
            scene.save(&path).unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), derived(&scene));
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        }
    }
}
