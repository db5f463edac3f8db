//! The outliner's rows: every live object in hierarchy order (the roots by
//! id, each followed by its subtree, children by id) with its depth.
//!
//! The list is kept between frames and made again only when the scene's
//! structure changed ([`Scene::structure`]: objects added or removed, a
//! link changed, another scene), and only while the side panel is shown.
//! The panel lays out just the rows scrolled into view, so a frame costs
//! the same with a thousand objects as with a million; a change of
//! structure costs one walk of the hierarchy (8 bytes a row).

use crate::scene::Scene;

/// One row: the object's id and its depth below its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Row {
    pub id: u32,
    pub depth: u32,
}

/// The rows of the last scene structure seen, and those a filter keeps.
#[derive(Debug, Default)]
pub(super) struct Rows {
    structure: Option<u64>,
    rows: Vec<Row>,
    /// The filter's text and the structure the filtered rows are of.
    filtered_for: Option<(String, u64)>,
    filtered: Vec<Row>,
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

    /// The rows whose names contain `filter` (ignoring case) and their
    /// ancestors' rows for context; every row for an empty filter. Made
    /// again when the filter or the structure changes (one pass over the
    /// names, then the ancestors of each match).
    pub fn filtered(&mut self, scene: &Scene, filter: &str) -> &[Row] {
        if filter.is_empty() {
            return self.of(scene);
        }
        self.of(scene);
        let key = (filter.to_string(), scene.structure());
        if self.filtered_for.as_ref() != Some(&key) {
            let needle = filter.to_lowercase();
            let mut keep = std::collections::HashSet::new();
            for row in &self.rows {
                let i = row.id as usize;
                if scene.objects()[i].name.to_lowercase().contains(&needle) && keep.insert(i) {
                    keep.extend(scene.hierarchy().ancestors(i));
                }
            }
            self.filtered = self.rows.iter().copied().filter(|r| keep.contains(&(r.id as usize))).collect();
            self.filtered_for = Some(key);
        }
        &self.filtered
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
}
