//! Coming back to a view: camera bookmarks (`docs/spec/views.md`) and
//! local view (`docs/spec/organise.md`, "Hide, unhide, isolate"):
//! NumpadDivide shows only the selected objects and their descendants,
//! framed as F frames them; pressed again it shows what was shown before
//! and puts the camera back exactly. The objects left out are hidden the
//! way H hides them (drawing, the ID buffer, picking, box selection,
//! snapping, framing all ask [`crate::scene::Scene::is_hidden`]), but no
//! object's flag changes: it is not an undo step and is not saved.

use super::Editor;

impl Editor {
    /// Whether local view is on.
    pub fn in_local_view(&self) -> bool {
        self.scene.local_view().is_some()
    }

    /// NumpadDivide: into local view with the selection (nothing to do
    /// with nothing selected), or back out of it. Costs a pass over the
    /// scene's slots each way (every object's visibility may change).
    pub fn toggle_local_view(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        if let Some(shown) = self.scene.local_view() {
            let left_out: Vec<usize> = self.scene.ids().filter(|&i| !shown.get(i).copied().unwrap_or(true)).collect();
            self.scene.set_local_view(None);
            self.refresh_visibility(&left_out);
            if let Some(camera) = self.local_camera.take() {
                self.camera = camera;
                self.navigation.auto_ortho = None;
            }
            self.rehover();
            return true;
        }
        let selected = self.selection.to_vec();
        if selected.is_empty() {
            self.message = Some("Local view: nothing selected".into());
            return false;
        }
        let mut shown = vec![false; self.scene.id_bound()];
        for i in self.scene.with_descendants(&selected) {
            shown[i] = true;
        }
        let left_out: Vec<usize> = self.scene.ids().filter(|&i| !shown[i]).collect();
        self.scene.set_local_view(Some(shown));
        self.refresh_visibility(&left_out);
        self.local_camera = Some(self.camera);
        self.focus();
        true
    }

    /// Ctrl+digit: stores the camera as bookmark `n` (1 to 9); not an undo
    /// step, but the scene counts as changed (it is saved with it).
    pub fn store_bookmark(&mut self, n: u8) -> bool {
        let camera = self.active_camera();
        let Some(slot) = (n as usize).checked_sub(1).and_then(|k| self.scene.bookmarks.get_mut(k)) else {
            return false;
        };
        *slot = Some(camera);
        self.log.other += 1;
        self.message = Some(format!("Bookmark {n} stored"));
        true
    }

    /// A digit: the camera becomes bookmark `n`, at once; a slot never
    /// stored says so.
    pub fn recall_bookmark(&mut self, n: u8) -> bool {
        let stored = (n as usize).checked_sub(1).and_then(|k| self.scene.bookmarks.get(k)).copied().flatten();
        match stored {
            Some(camera) if camera.validate().is_ok() => {
                *self.active_camera_mut() = camera;
                // The bookmark's projection is its own, not an axis view's.
                self.navigation.auto_ortho = None;
                self.rehover();
                true
            }
            _ => {
                self.message = Some(format!("No bookmark {n} (Ctrl+{n} stores one)"));
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::editor::Editor;
    use crate::scene::Scene;

    #[test]
    fn a_stored_bookmark_marks_the_scene_changed_and_is_not_an_undo_step() {
        let mut e = Editor::new(Scene::demo(), 800.0, 600.0);
        let mark = e.change_mark();
        let at = e.camera;
        assert!(!e.recall_bookmark(4), "nothing stored yet");
        assert!(e.store_bookmark(4));
        assert_ne!(e.change_mark(), mark, "unsaved");
        assert!(!e.history().can_undo(), "not an undo step");
        assert!(e.orbit_by(120.0, -40.0));
        assert_ne!(e.camera, at);
        assert!(e.recall_bookmark(4));
        assert_eq!(e.camera, at, "exactly");
        assert!(!e.store_bookmark(0) && !e.store_bookmark(10));
        assert_eq!(e.scene().bookmarks[3], Some(at));
    }

    #[test]
    fn local_view_saves_and_autosaves_the_camera_from_before_it() {
        let mut e = Editor::new(Scene::demo(), 800.0, 600.0);
        let before = e.camera;
        e.set_selection(&[0]);
        assert!(e.toggle_local_view());
        assert_ne!(e.camera, before, "framed");
        assert_eq!(e.camera_to_save(), before);
        assert_eq!(e.scene_to_save().camera, Some(before));
        assert!(e.toggle_local_view());
        assert_eq!((e.camera, e.camera_to_save()), (before, before));
    }
}
