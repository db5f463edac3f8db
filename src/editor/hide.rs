//! Hiding and showing objects (`docs/spec/organise.md`, "Hide, unhide,
//! isolate"): H, Shift+H, Alt+H and the outliner's eye, each one undo step
//! ([`Edit::Hide`]). An object's own flag lives in the scene; whether it
//! shows also follows its ancestors ([`crate::scene::Scene::is_hidden`]).
//! The pick tree leaves hidden objects out (their boxes are `None`), and
//! the change log lists every object whose visibility may have changed,
//! with whether it is hidden, so the GPU path sets or clears a bit each.

use super::{Edit, Editor};

impl Editor {
    /// H: hides the selected objects (and so their descendants); they
    /// leave the selection. False with nothing selected or during a drag.
    pub fn hide_selected(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let mut ids: Vec<usize> =
            self.selection.iter().copied().filter(|&i| self.scene.get(i).is_some_and(|o| !o.hidden)).collect();
        ids.sort_unstable();
        self.change_hidden(ids, true)
    }

    /// Shift+H: hides every object that is neither selected nor an
    /// ancestor of a selected one. Costs the scene (it may change every
    /// object's flag), as the edit itself does.
    pub fn hide_unselected(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let mut keep = vec![false; self.scene.id_bound()];
        for &i in self.selection.iter() {
            keep[i] = true;
            for p in self.scene.hierarchy().ancestors(i) {
                if std::mem::replace(&mut keep[p], true) {
                    // Its ancestors are marked already.
                    break;
                }
            }
        }
        let ids: Vec<usize> = self.scene.iter().filter(|&(i, o)| !keep[i] && !o.hidden).map(|(i, _)| i).collect();
        self.change_hidden(ids, true)
    }

    /// Alt+H: clears every object's own flag; the objects it showed join
    /// the selection (the last of them active). Costs the hidden objects
    /// (none to find when none is hidden).
    pub fn unhide_all(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let ids: Vec<usize> = self.scene.hidden_ids().collect();
        self.change_hidden(ids, false)
    }

    /// The outliner's eye: flips object `i`'s own flag. Showing it does
    /// not select it.
    pub fn toggle_hidden(&mut self, i: usize) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let Some(o) = self.scene.get(i) else { return false };
        let hide = !o.hidden;
        let selection_before = self.selection.to_vec();
        self.record_hidden(vec![i], hide, selection_before, |_| Vec::new())
    }

    /// Sets the own flags of `ids` (ascending, each changing) to `hide` as
    /// one undo step: hiding drops what is hidden now from the selection,
    /// showing adds the shown objects to it.
    fn change_hidden(&mut self, ids: Vec<usize>, hide: bool) -> bool {
        let selection_before = self.selection.to_vec();
        self.record_hidden(ids, hide, selection_before, |ids| if hide { Vec::new() } else { ids.to_vec() })
    }

    /// Writes `hide` to the flags of `ids`, sets the selection (kept but
    /// for what is hidden now, plus what `added` gives), and files the step.
    fn record_hidden(
        &mut self,
        ids: Vec<usize>,
        hide: bool,
        selection_before: Vec<usize>,
        added: impl FnOnce(&[usize]) -> Vec<usize>,
    ) -> bool {
        if ids.is_empty() {
            return false;
        }
        let after = vec![hide; ids.len()];
        self.write_hidden(&ids, &after);
        let scene = &self.scene;
        let mut selection: Vec<usize> = selection_before.iter().copied().filter(|&i| !scene.is_hidden(i)).collect();
        let added = added(&ids);
        // Already selected ones move to the end, the order in which they
        // were shown; the last shown becomes active.
        if !added.is_empty() {
            let added_set: std::collections::HashSet<usize> = added.iter().copied().collect();
            selection.retain(|i| !added_set.contains(i));
            selection.extend(added.iter().copied().filter(|&i| !scene.is_hidden(i)));
        }
        self.selection.set(selection.iter().copied());
        self.history.push(Edit::Hide {
            before: vec![!hide; ids.len()],
            after,
            objects: ids,
            selection_before,
            selection_after: selection,
        });
        self.rehover();
        true
    }

    /// Writes own flags and brings the pick tree and the change log up to
    /// date for the objects and their subtrees (whose visibility follows):
    /// costs what changed, not the scene.
    pub(super) fn write_hidden(&mut self, ids: &[usize], flags: &[bool]) {
        for (&i, &h) in ids.iter().zip(flags) {
            self.scene.set_hidden(i, h);
        }
        let touched = self.scene.with_descendants(ids);
        self.refresh_visibility(&touched);
    }

    /// Brings the pick tree and the change log up to date for objects
    /// whose visibility may have changed (their subtrees included): the
    /// hidden ones' leaves are parked, the shown ones' taken back, a flag
    /// each (no tree surgery unless a box changed meanwhile).
    pub(super) fn refresh_visibility(&mut self, ids: &[usize]) {
        let states: Vec<(usize, bool)> = ids.iter().map(|&i| (i, self.scene.is_hidden(i))).collect();
        let gone: Vec<usize> = states.iter().filter(|&&(_, h)| h).map(|&(i, _)| i).collect();
        let shown: Vec<usize> = states.iter().filter(|&&(_, h)| !h).map(|&(i, _)| i).collect();
        self.log.visibility_changed(&states, self.scene.id_bound());
        self.pick.park_many(&gone);
        self.pick.unpark_many(&shown, &self.scene, &self.skinning.posed);
    }
}
