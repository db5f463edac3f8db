//! Copying a scene a few slots at a time (the autosave's copy): a large
//! scene is never held up for long in one frame, and the copy is finished
//! with what changed meanwhile.

use std::collections::BTreeSet;

use super::bookmarks::Bookmarks;
use super::hierarchy::Hierarchy;
use super::object::Object;
use super::visibility::{fixture_set, hidden_set};
use super::{names, unique_version, Scene};
use crate::math::Camera;

/// A copy of a scene's slots under way ([`Scene::start_copy`]).
#[derive(Debug)]
pub struct SceneCopy {
    objects: Vec<Option<Object>>,
    /// The scene's structure when the copy started.
    structure: u64,
}

/// A finished copy ([`Scene::finish_copy`]), made a scene of its own with
/// [`CopiedScene::into_scene`] (on any thread: it builds the name index).
#[derive(Debug)]
pub struct CopiedScene {
    camera: Option<Camera>,
    bookmarks: Bookmarks,
    objects: Vec<Option<Object>>,
    live: usize,
    hidden: usize,
    fixtures: usize,
    hierarchy: Hierarchy,
}

impl CopiedScene {
    /// The copy as a scene (names indexed here).
    pub fn into_scene(self) -> Scene {
        let names = names::NameIndex::build(&self.objects);
        let hidden = if self.hidden > 0 { hidden_set(&self.objects) } else { BTreeSet::new() };
        let fixtures = if self.fixtures > 0 { fixture_set(&self.objects) } else { BTreeSet::new() };
        Scene {
            camera: self.camera,
            bookmarks: self.bookmarks,
            lighting: None,
            objects: self.objects,
            live: self.live,
            hidden,
            fixtures,
            hierarchy: self.hierarchy,
            names,
            structure: unique_version(),
            local: None,
        }
    }
}

impl Scene {
    /// Starts a copy of the scene taken in pieces ([`Scene::copy_piece`]),
    /// so that copying a large scene never holds up one frame for long.
    pub fn start_copy(&self) -> SceneCopy {
        SceneCopy { objects: Vec::with_capacity(self.objects.len()), structure: self.structure }
    }

    /// Copies up to `n` more slots into `copy`; true once every slot is copied.
    pub fn copy_piece(&self, copy: &mut SceneCopy, n: usize) -> bool {
        let from = copy.objects.len().min(self.objects.len());
        let to = (from + n).min(self.objects.len());
        copy.objects.extend_from_slice(&self.objects[from..to]);
        to == self.objects.len()
    }

    /// Finishes a copy whose every slot was taken: the slots `changed` since
    /// it started are taken again, and the hierarchy now. `None` when objects
    /// came or went or a parent changed since (start again). What it costs
    /// is what changed, the hierarchy's links and the count of hidden ones;
    /// the rest ([`CopiedScene::into_scene`]) can run on another thread.
    pub fn finish_copy(&self, mut copy: SceneCopy, changed: &[usize], camera: Option<Camera>) -> Option<CopiedScene> {
        if copy.structure != self.structure || copy.objects.len() != self.objects.len() {
            return None;
        }
        for &i in changed {
            if let (Some(slot), Some(now)) = (copy.objects.get_mut(i), self.objects.get(i)) {
                *slot = now.clone();
            }
        }
        Some(CopiedScene {
            camera,
            bookmarks: self.bookmarks,
            objects: copy.objects,
            live: self.live,
            hidden: self.hidden.len(),
            fixtures: self.fixtures.len(),
            hierarchy: self.hierarchy.clone(),
        })
    }
}
