//! The outliner's rows: every live object in hierarchy order (the roots by
//! id, each followed by its subtree, children by id) with its depth.
//!
//! The list is kept between frames and made again only when the scene's
//! structure changed ([`Scene::structure`]: objects added or removed, a
//! link changed, another scene), and only while the side panel is shown.
//! The panel lays out just the rows scrolled into view, so a frame costs
//! the same with a thousand objects as with a million; a change of
//! structure costs one walk of the hierarchy (8 bytes a row).

use std::collections::HashSet;

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
            self.structure = Some(scene.structure());
        }
        &self.rows
    }

    /// The rows to show: those whose names contain `filter` (ignoring
    /// case) with their ancestors' rows for context, less the rows under a
    /// folded row; every row with no filter and no fold (no copy). Made
    /// again when the filter, the structure or the folds change (one pass
    /// over the names, then the ancestors of each match).
    pub fn shown(&mut self, scene: &Scene, filter: &str) -> &[Row] {
        self.of(scene);
        if filter.is_empty() && self.collapsed.is_empty() {
            return &self.rows;
        }
        let key = (filter.to_string(), scene.structure(), self.folds);
        if self.shown_for.as_ref() != Some(&key) {
            let keep = (!filter.is_empty()).then(|| {
                let needle = filter.to_lowercase();
                let mut keep = HashSet::new();
                for row in &self.rows {
                    let i = row.id as usize;
                    if contains_ignoring_case(&scene.objects()[i].name, &needle) && keep.insert(i) {
                        keep.extend(scene.hierarchy().ancestors(i));
                    }
                }
                keep
            });
            self.shown.clear();
            // Rows deeper than this one are under a folded row.
            let mut folded_at: Option<u32> = None;
            for &row in &self.rows {
                match folded_at {
                    Some(d) if row.depth > d => continue,
                    _ => folded_at = None,
                }
                if keep.as_ref().is_some_and(|k| !k.contains(&(row.id as usize))) {
                    continue;
                }
                self.shown.push(row);
                if self.collapsed.contains(&row.id) {
                    folded_at = Some(row.depth);
                }
            }
            self.shown_for = Some(key);
        }
        &self.shown
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

/// Whether `name` contains `needle` (already lower case), ignoring case:
/// without an allocation per name where both are ASCII (a filter over a
/// million names), through `to_lowercase` otherwise.
fn contains_ignoring_case(name: &str, needle: &str) -> bool {
    if name.is_ascii() && needle.is_ascii() {
        let (h, n) = (name.as_bytes(), needle.as_bytes());
        n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
    } else {
        name.to_lowercase().contains(needle)
    }
}

/// Depth-first, pre-order: a root, then its children's subtrees in id order.
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
    /// ancestors (the root-to-object id paths compared element by element).
    fn expected(scene: &Scene) -> Vec<Row> {
        let path = |i: usize| {
            let mut p: Vec<usize> = scene.hierarchy().ancestors(i).collect();
            p.reverse();
            p.push(i);
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
    fn the_filter_ignores_case_in_ascii_and_beyond() {
        assert!(contains_ignoring_case("Lamp.001", "lamp"));
        assert!(contains_ignoring_case("desk LAMP", "lamp"));
        assert!(!contains_ignoring_case("lam", "lamp"));
        assert!(contains_ignoring_case("ÄRGER", "ärg"));
        assert!(!contains_ignoring_case("Ärger", "lamp"));
        assert!(contains_ignoring_case("anything", ""));
    }
}
