//! Writing scene files: [`Scene::save`], [`Scene::to_json`] and
//! [`Scene::to_file`]. Saving goes one object at a time: [`FileView`]
//! serialises as the scene's [`SceneFile`] would, building each object's
//! entry only while it is written, so saving holds no copy of the scene.

use std::io::Write as _;
use std::path::Path;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::bookmarks::bookmarks_to_file;
use super::error::SceneError;
use super::file::{camera_to_file, ObjectFile, SceneFile, SkinFile};
use super::fixture::{camera_to_file as camera_object_to_file, light_to_file};
use super::Scene;
use crate::files::write_atomic_with;

impl Scene {
    /// The scene as its file form (mesh paths as they were read).
    pub fn to_file(&self) -> SceneFile {
        self.file_form(None)
    }

    /// The scene as a file in folder `dir` (`None`: mesh paths as read).
    fn file_form(&self, dir: Option<&Path>) -> SceneFile {
        SceneFile {
            camera: self.camera.as_ref().map(camera_to_file),
            bookmarks: bookmarks_to_file(&self.bookmarks),
            lighting: self.lighting.as_ref().map(|l| lighting_to_file(l, dir)),
            objects: self.hierarchy.by_place().into_iter().map(|i| self.object_file(i, dir)).collect(),
        }
    }

    /// Object `i` as its file entry (see [`Scene::file_form`]).
    fn object_file(&self, i: usize, dir: Option<&Path>) -> ObjectFile {
        let o = self.obj(i);
        let q = o.transform.rotation.quaternion();
        ObjectFile {
            name: o.name.to_string(),
            mesh: match dir {
                Some(dir) => o.mesh.source_from(dir),
                None => o.mesh.source().map(str::to_string),
            },
            parent: self.parent(i).map(|p| self.obj(p).name.to_string()),
            position: o.transform.position.into(),
            rotation: [q.i, q.j, q.k, q.w],
            scale: o.transform.scale.into(),
            color: o.color.map(f64::from),
            hidden: o.hidden,
            cast_shadows: o.cast_shadows,
            skin: o.skin.as_ref().map(|s| SkinFile { index: s.index, joints: s.joints.to_vec() }),
            extras: o.extras.as_deref().cloned(),
            light: o.light().map(light_to_file),
            camera: o.camera().map(camera_object_to_file),
        }
    }

    /// Pretty JSON of [`Scene::to_file`].
    pub fn to_json(&self) -> String {
        let view = FileView { scene: self, dir: None };
        serde_json::to_string_pretty(&view).expect("scene serialises") + "\n"
    }

    /// Writes the scene to `path` atomically (streamed into a temporary
    /// file, then renamed), with glTF paths rewritten to name the same files
    /// from its folder. One object's entry is built at a time.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let view = FileView { scene: self, dir: Some(dir) };
        Ok(write_atomic_with(path, |w| {
            serde_json::to_writer_pretty(&mut *w, &view)?;
            w.write_all(b"\n")
        })?)
    }
}

/// Lighting `l` as a scene file's `lighting` object: every field, a `.hdr`
/// environment's path relative to `dir` (`None`: the path it was read
/// from, as mesh paths are).
fn lighting_to_file(l: &crate::look::Lighting, dir: Option<&Path>) -> serde_json::Value {
    let mut v = l.to_json();
    if let (crate::look::Environment::Hdr(id), Some(dir)) = (l.environment, dir) {
        let rel = super::paths::relative_path(&super::paths::absolute_clean(dir), &id.path());
        v["environment"] = serde_json::json!(rel.to_string_lossy().replace('\\', "/"));
    }
    v
}

/// `scene` as its file, mesh paths as seen from `dir` (`None`: as read).
struct FileView<'a> {
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
        let lighting = self.scene.lighting.as_ref().map(|l| lighting_to_file(l, self.dir));
        let fields =
            1 + usize::from(camera.is_some()) + usize::from(!bookmarks.is_empty()) + usize::from(lighting.is_some());
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
        match &lighting {
            Some(l) => file.serialize_field("lighting", l)?,
            None => file.skip_field("lighting")?,
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
