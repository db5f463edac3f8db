//! The log of what changed in the scene, for renderers that keep their own
//! copy of the objects (GPU culling): the objects moved, added or removed,
//! those hidden or shown, and the marks readers and the unsaved state
//! compare against.

use super::Editor;

/// A point in the editor's log of scene changes ([`Editor::change_mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeMark {
    epoch: u64,
    changed: usize,
    /// Where the log of visibility changes stood.
    visibility: usize,
    /// Changes to the scene that move no object (a camera bookmark stored).
    other: u64,
}

/// A point in the scene's edits ([`Editor::edit_mark`]): like a
/// [`ChangeMark`] but blind to animation poses, which are not saved, so
/// that showing or playing a clip leaves the scene unmodified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditMark {
    edits: u64,
    other: u64,
}

/// What changed since a [`ChangeMark`] ([`Editor::changes_since`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneChanges<'a> {
    /// The mark is from before the log's start: every object may have changed.
    All,
    /// Only the objects with these ids changed (possibly repeated): moved,
    /// added or removed. Ids are stable, so nothing else moved; an id whose
    /// slot is now dead ([`crate::scene::Scene::get`] is `None`) was removed, one at or
    /// past the scene's earlier id bound was added.
    Changed(&'a [usize]),
}

/// The objects whose world matrices changed (moved subtrees) or that came
/// or went, in order.
#[derive(Debug, Default)]
pub(super) struct ChangeLog {
    /// Bumped when the log starts over.
    epoch: u64,
    /// How many entries were dropped from the front of `changed` and of
    /// `visibility`: marks hold positions counted from the log's start.
    dropped: (usize, usize),
    /// The positions of the newest mark handed out ([`Editor::change_mark`]):
    /// a log grown long drops what is before it, which its reader (the
    /// renderer, marking every frame) has taken.
    newest: std::cell::Cell<(usize, usize)>,
    changed: Vec<usize>,
    /// Objects whose visibility (alone) may have changed, in order, each
    /// with whether it was hidden then (by its own flag, an ancestor's or
    /// local view): their records need a bit, not a new matrix, and the
    /// last entry of an object tells its state now (unless `changed` lists
    /// it, which its reader takes whole).
    visibility: Vec<(usize, bool)>,
    /// Counts changes that touch no object (bookmarks): they make the
    /// scene unsaved without asking renderers to look at any object.
    pub(super) other: u64,
    /// Counts the logged changes that are edits (not an animation pose).
    edits: u64,
    /// Set while an animation pose is written: its changes are logged for
    /// renderers but are not edits.
    pub(super) posing: bool,
}

impl ChangeLog {
    /// Logs changed objects; a log grown past twice the id bound (a long
    /// drag nobody read) starts over, asking readers to take everything.
    pub(super) fn changed(&mut self, objects: &[usize], id_bound: usize) {
        self.changed.extend_from_slice(objects);
        if !self.posing && !objects.is_empty() {
            self.edits += 1;
        }
        self.start_over_if_long(id_bound);
    }

    /// Counts an edit that renderers need not look at (objects reparented
    /// with their world matrices kept): the scene is unsaved all the same.
    pub(super) fn edited(&mut self) {
        if !self.posing {
            self.edits += 1;
        }
    }

    /// Logs objects that were hidden or shown (nothing else drawn of them
    /// changed), with whether each is hidden now: an edit.
    pub(super) fn visibility_changed(&mut self, objects: &[(usize, bool)], id_bound: usize) {
        self.visibility.extend_from_slice(objects);
        if !objects.is_empty() {
            self.edits += 1;
        }
        self.start_over_if_long(id_bound);
    }

    /// A log longer than twice the scene drops the entries before the
    /// newest mark handed out (a reader with an older mark is then asked to
    /// take everything); one still too long (no mark for a long while)
    /// starts over.
    fn start_over_if_long(&mut self, id_bound: usize) {
        let limit = 2 * id_bound.max(4096);
        if self.changed.len() + self.visibility.len() <= limit {
            return;
        }
        let (c, v) = self.newest.get();
        if let (Some(c), Some(v)) = (c.checked_sub(self.dropped.0), v.checked_sub(self.dropped.1)) {
            if c <= self.changed.len() && v <= self.visibility.len() {
                self.changed.drain(..c);
                self.visibility.drain(..v);
                self.dropped = (self.dropped.0 + c, self.dropped.1 + v);
            }
        }
        if self.changed.len() + self.visibility.len() > limit {
            self.epoch += 1;
            self.dropped = (0, 0);
            self.newest.set((0, 0));
            self.changed.clear();
            self.visibility.clear();
        }
    }

    /// The log's current end: positions counted from its start.
    fn end(&self) -> (usize, usize) {
        (self.dropped.0 + self.changed.len(), self.dropped.1 + self.visibility.len())
    }
}

impl Editor {
    /// The current point of the change log.
    pub fn change_mark(&self) -> ChangeMark {
        let mark = self.log_position();
        self.log.newest.set((mark.changed, mark.visibility));
        mark
    }

    /// [`Editor::change_mark`] for the editor's own caches: not a reader's
    /// mark, so a long log does not keep what is after it.
    pub(super) fn log_position(&self) -> ChangeMark {
        let (changed, visibility) = self.log.end();
        ChangeMark { epoch: self.log.epoch, changed, visibility, other: self.log.other }
    }

    /// The current point of the scene's edits (poses left out).
    pub fn edit_mark(&self) -> EditMark {
        EditMark { edits: self.log.edits, other: self.log.other }
    }

    /// What changed in the scene since `mark` (`None`: everything). Reading
    /// costs what changed, not the scene.
    pub fn changes_since(&self, mark: Option<ChangeMark>) -> SceneChanges<'_> {
        match mark {
            // Both of the mark's positions must still be in the log.
            Some(m) if m.epoch == self.log.epoch && m.visibility >= self.log.dropped.1 => {
                match m.changed.checked_sub(self.log.dropped.0) {
                    Some(at) if at <= self.log.changed.len() => SceneChanges::Changed(&self.log.changed[at..]),
                    _ => SceneChanges::All,
                }
            }
            _ => SceneChanges::All,
        }
    }

    /// The objects hidden or shown since `mark`, in order and possibly
    /// repeated, each with whether it was hidden then: an object's last
    /// entry is its state now, and nothing else of it changed unless
    /// [`Editor::changes_since`] lists it too. Empty when the mark is from
    /// before the log's start, where [`Editor::changes_since`] says
    /// [`SceneChanges::All`].
    pub fn visibility_since(&self, mark: Option<ChangeMark>) -> &[(usize, bool)] {
        match mark {
            Some(m) if m.epoch == self.log.epoch => match m.visibility.checked_sub(self.log.dropped.1) {
                Some(at) if at <= self.log.visibility.len() => &self.log.visibility[at..],
                _ => &[],
            },
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Transform;
    use crate::scene::Scene;

    fn moved(e: &mut Editor, i: usize, x: f64) {
        let t = Transform { position: nalgebra::Vector3::new(x, 0.0, 0.0), ..e.scene().objects()[i].transform };
        assert!(e.set_transform(i, t));
    }

    /// A long log drops what is before the newest mark (a renderer marking
    /// every frame keeps reading only what changed); an older mark is then
    /// asked to take everything; with no mark for a long while the log
    /// starts over.
    #[test]
    fn a_long_log_keeps_what_the_newest_mark_has_not_read() {
        let mut e = Editor::new(Scene::cube_grid(10), 800.0, 600.0);
        let old = e.change_mark();
        let mut recent = e.change_mark();
        let mut since = 0;
        // 9000 moves, a mark every 100 (a frame): past the 8192 limit.
        for k in 0..9000 {
            if k % 100 == 0 {
                let SceneChanges::Changed(ids) = e.changes_since(Some(recent)) else { panic!("{k}: the newest mark") };
                assert_eq!(ids.len(), since, "{k}");
                recent = e.change_mark();
                since = 0;
            }
            moved(&mut e, k % 10, k as f64);
            since += 1;
        }
        let SceneChanges::Changed(ids) = e.changes_since(Some(recent)) else { panic!("the recent mark is kept") };
        assert_eq!(ids, (8900..9000).map(|k| k % 10).collect::<Vec<_>>().as_slice());
        assert_eq!(e.changes_since(Some(old)), SceneChanges::All, "the old mark's entries were dropped");
        // Visibility too: a hide after the recent mark is listed.
        e.set_selection(&[3]);
        assert!(e.hide_selected());
        assert_eq!(e.visibility_since(Some(recent)), &[(3, true)]);
        // No mark for more than the limit: the log starts over.
        for k in 0..9000 {
            moved(&mut e, k % 10, -(k as f64));
        }
        assert_eq!(e.changes_since(Some(recent)), SceneChanges::All);
        assert!(e.visibility_since(Some(recent)).is_empty());
        let now = e.change_mark();
        moved(&mut e, 4, 1.5);
        assert_eq!(e.changes_since(Some(now)), SceneChanges::Changed(&[4]));
    }
}
