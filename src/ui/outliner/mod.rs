//! The outliner's rows: every live object in hierarchy order (the roots by
//! place, each followed by its subtree, children by place: see
//! [`crate::scene::Hierarchy`]) with its depth.
//!
//! The list is kept between frames and made again only when the scene's
//! structure changed ([`Scene::structure`]: objects added or removed, a
//! link changed, another scene), and only while the side panel is shown.
//! The panel lays out just the rows scrolled into view, so a frame costs
//! the same with a thousand objects as with a million; a change of
//! structure costs one walk of the hierarchy (12 bytes a row: the row and
//! where it is). The filter finds its matches through the scene's name
//! search ([`NameSearch`]) and places them and their ancestors by where
//! their rows are, so a new filter text costs what it shows.
//!
//! The list as the side panel draws it is in `list`.

mod list;
#[cfg(test)]
mod tests;

pub(super) use list::{outliner, OutlinerIo};

use std::collections::HashSet;

use crate::scene::search::NameSearch;
use crate::scene::Scene;

/// One row: the object's id and its depth below its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Row {
    pub id: u32,
    pub depth: u32,
}

/// The rows of the last scene structure seen, the objects whose children
/// are folded away (the disclosure arrows), and the rows shown with the
/// filter and the folds applied.
#[derive(Debug, Default)]
pub(super) struct Rows {
    structure: Option<u64>,
    rows: Vec<Row>,
    /// Each id's index in `rows` (by id; dead slots hold `u32::MAX`).
    row_of: Vec<u32>,
    /// The names' trigram lists, for the filter.
    search: NameSearch,
    /// Objects whose rows hide their descendants' rows. Not saved.
    collapsed: HashSet<u32>,
    /// Counts changes of `collapsed`.
    folds: u64,
    /// The filter's text, the structure and the folds the shown rows are of.
    shown_for: Option<(String, u64, u64)>,
    shown: Vec<Row>,
}

impl Rows {
    /// The rows of `scene`, walked again only if its structure changed
    /// since the last call.
    pub fn of(&mut self, scene: &Scene) -> &[Row] {
        if self.structure != Some(scene.structure()) {
            self.rows = walk(scene);
            self.row_of.clear();
            self.row_of.resize(scene.id_bound(), u32::MAX);
            for (k, row) in self.rows.iter().enumerate() {
                self.row_of[row.id as usize] = k as u32;
            }
            self.structure = Some(scene.structure());
        }
        &self.rows
    }

    /// The rows to show: those whose names contain `filter` (ignoring
    /// case) with their ancestors' rows for context, less the rows under a
    /// folded row; every row with no filter and no fold (no copy). Made
    /// again when the filter, the structure or the folds change: with a
    /// filter, from its matches and their ancestors only; with folds alone,
    /// in one pass over the rows.
    pub fn shown(&mut self, scene: &Scene, filter: &str) -> &[Row] {
        self.of(scene);
        if filter.is_empty() && self.collapsed.is_empty() {
            return &self.rows;
        }
        let key = (filter.to_string(), scene.structure(), self.folds);
        if self.shown_for.as_ref() != Some(&key) {
            self.shown.clear();
            if filter.is_empty() {
                self.shown_with_folds();
            } else {
                self.shown_with_filter(scene, filter);
            }
            self.shown_for = Some(key);
        }
        &self.shown
    }

    /// Every row but those under a folded row.
    fn shown_with_folds(&mut self) {
        // Rows deeper than this one are under a folded row.
        let mut folded_at: Option<u32> = None;
        for &row in &self.rows {
            match folded_at {
                Some(d) if row.depth > d => continue,
                _ => folded_at = None,
            }
            self.shown.push(row);
            if self.collapsed.contains(&row.id) {
                folded_at = Some(row.depth);
            }
        }
    }

    /// The matches of `filter` and their ancestors, in row order, less
    /// those with a folded ancestor (an ancestor of a kept row is kept, so
    /// a fold shown hides exactly the kept rows below it).
    fn shown_with_filter(&mut self, scene: &Scene, filter: &str) {
        let h = scene.hierarchy();
        let mut keep: HashSet<usize> = HashSet::new();
        for i in self.search.find(scene, filter) {
            if keep.insert(i) {
                for a in h.ancestors(i) {
                    if !keep.insert(a) {
                        break; // its ancestors are in already
                    }
                }
            }
        }
        let mut at: Vec<u32> = keep
            .into_iter()
            .filter(|&i| self.collapsed.is_empty() || !h.ancestors(i).any(|a| self.collapsed.contains(&(a as u32))))
            .filter_map(|i| self.row_of.get(i).copied().filter(|&k| k != u32::MAX))
            .collect();
        at.sort_unstable();
        self.shown.extend(at.into_iter().map(|k| self.rows[k as usize]));
    }

    /// What the last [`Rows::shown`] with `filter` returned, and the folds.
    pub fn last_shown(&self, filter: &str) -> (&[Row], &HashSet<u32>) {
        let rows = if filter.is_empty() && self.collapsed.is_empty() { &self.rows } else { &self.shown };
        (rows, &self.collapsed)
    }

    /// Whether object `id`'s children are folded away.
    #[cfg(test)]
    pub fn is_collapsed(&self, id: u32) -> bool {
        self.collapsed.contains(&id)
    }

    /// Folds or unfolds object `id`'s children (its disclosure arrow).
    pub fn toggle(&mut self, id: u32) {
        if !self.collapsed.remove(&id) {
            self.collapsed.insert(id);
        }
        self.folds += 1;
    }

    /// Unfolds every ancestor of object `i`, so that its row is shown.
    pub fn expand_to(&mut self, scene: &Scene, i: usize) {
        if self.collapsed.is_empty() {
            return;
        }
        let mut changed = false;
        for a in scene.hierarchy().ancestors(i) {
            changed |= self.collapsed.remove(&(a as u32));
        }
        if changed {
            self.folds += 1;
        }
    }
}

/// Depth-first, pre-order: a root, then its children's subtrees in order.
fn walk(scene: &Scene) -> Vec<Row> {
    let h = scene.hierarchy();
    let mut rows = Vec::with_capacity(scene.len());
    let mut stack: Vec<(usize, u32)> = Vec::new();
    for root in h.roots() {
        stack.push((root, 0));
        while let Some((i, depth)) = stack.pop() {
            rows.push(Row { id: i as u32, depth });
            stack.extend(h.children(i).iter().rev().map(|&c| (c, depth + 1)));
        }
    }
    rows
}
