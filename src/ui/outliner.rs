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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Transform;
    use crate::scene::{MeshRef, Object, Primitive};

    /// The order by its definition: an object's row comes after its
    /// parent's, and two objects are ordered as their first differing
    /// ancestors (the root-to-object paths of places compared element by
    /// element).
    fn expected(scene: &Scene) -> Vec<Row> {
        let h = scene.hierarchy();
        let path = |i: usize| {
            let mut p: Vec<u64> = h.ancestors(i).map(|a| h.place(a)).collect();
            p.reverse();
            p.push(h.place(i));
            p
        };
        let mut ids: Vec<usize> = scene.iter().map(|(i, _)| i).collect();
        ids.sort_by_key(|&i| path(i));
        ids.into_iter().map(|i| Row { id: i as u32, depth: path(i).len() as u32 - 1 }).collect()
    }

    fn object(name: &str) -> Object {
        let (mesh, transform) = (MeshRef::Primitive(Primitive::Cube), Transform::IDENTITY);
        Object {
            name: name.into(),
            mesh,
            transform,
            color: [1.0; 3],
            hidden: false,
            skin: None,
            extras: None,
            origin: None,
        }
    }

    #[test]
    fn rows_follow_the_hierarchy_and_are_made_again_only_when_it_changes() {
        let mut scene = Scene::default();
        let a = scene.push(object("a"), None).unwrap();
        let b = scene.push(object("b"), None).unwrap();
        let c = scene.push(object("c"), Some(b)).unwrap();
        scene.push(object("d"), Some(a)).unwrap();
        scene.push(object("e"), Some(c)).unwrap();
        scene.push(object("f"), Some(b)).unwrap();
        let mut rows = Rows::default();
        let first = rows.of(&scene).to_vec();
        assert_eq!(first, expected(&scene));
        assert_eq!(first.iter().map(|r| r.id).collect::<Vec<_>>(), vec![0, 3, 1, 2, 4, 5]);

        // A move keeps the structure: the same list, not walked again.
        let before = rows.rows.as_ptr();
        scene.object_mut(c).unwrap().transform.position.x = 3.0;
        assert_eq!(rows.of(&scene).as_ptr(), before);

        // Removing a subtree and putting it back change it.
        let gone = scene.remove(&[c]);
        assert_eq!(rows.of(&scene), expected(&scene).as_slice());
        assert_eq!(rows.of(&scene).len(), 4);
        scene.restore(&gone).unwrap();
        assert_eq!(rows.of(&scene), first.as_slice());

        // Another scene with as many objects is another structure.
        let other = Scene::cube_grid(6);
        assert_eq!(rows.of(&other), expected(&other).as_slice());
    }

    #[test]
    fn folded_rows_hide_their_subtrees_and_unfold_for_an_object() {
        let mut scene = Scene::default();
        let a = scene.push(object("a"), None).unwrap();
        let b = scene.push(object("b"), Some(a)).unwrap();
        let c = scene.push(object("c"), Some(b)).unwrap();
        scene.push(object("d"), Some(a)).unwrap();
        let e = scene.push(object("e"), None).unwrap();
        let mut rows = Rows::default();
        let ids = |rows: &[Row]| rows.iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids(rows.shown(&scene, "")), [0, 1, 2, 3, 4]);
        rows.toggle(b as u32);
        assert_eq!(ids(rows.shown(&scene, "")), [0, 1, 3, 4]);
        rows.toggle(a as u32);
        assert_eq!(ids(rows.shown(&scene, "")), [0, 4]);
        // The filter keeps c's ancestors, the folds still apply.
        assert_eq!(ids(rows.shown(&scene, "C")), [0]);
        rows.expand_to(&scene, c);
        assert!(!rows.is_collapsed(a as u32) && !rows.is_collapsed(b as u32));
        assert_eq!(ids(rows.shown(&scene, "c")), [0, 1, 2]);
        assert_eq!(ids(rows.shown(&scene, "")), [0, 1, 2, 3, 4]);
        rows.toggle(e as u32);
        assert_eq!(ids(rows.shown(&scene, "")), [0, 1, 2, 3, 4], "a leaf's fold hides nothing");
    }

    #[test]
    fn the_filter_shows_its_matches_and_their_ancestors_in_row_order() {
        // A tree of 300 objects, each under an earlier one or a root, some
        // named lamp; the filter's rows are the full order's rows of the
        // matches and their ancestors, through renames and removals.
        let mut scene = Scene::default();
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for i in 0..300u64 {
            let parent = (i > 0 && next(4) > 0).then(|| next(i) as usize);
            let name = if next(10) == 0 { format!("Lamp{i}") } else { format!("obj{i}") };
            scene.push(object(&name), parent).unwrap();
        }
        let mut rows = Rows::default();
        let check = |rows: &mut Rows, scene: &Scene| {
            let mut keep = HashSet::new();
            for (i, o) in scene.iter() {
                if o.name.to_lowercase().contains("lamp") {
                    keep.insert(i);
                    keep.extend(scene.hierarchy().ancestors(i));
                }
            }
            let want: Vec<Row> = expected(scene).into_iter().filter(|r| keep.contains(&(r.id as usize))).collect();
            assert!(want.len() > 20, "{} rows", want.len());
            assert_eq!(rows.shown(scene, "LAMP"), want.as_slice());
        };
        check(&mut rows, &scene);
        for i in (0..300).step_by(7) {
            scene.rename(i, &format!("lamp_renamed{i}")).unwrap();
        }
        check(&mut rows, &scene);
        scene.remove(&[3, 50, 120]);
        check(&mut rows, &scene);
    }
}
