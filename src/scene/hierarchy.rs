//! The parent links of a scene's objects, kept acyclic.
//!
//! Objects are slots `0..len` (the scene's object ids); a slot is live or
//! dead (its object deleted, kept so that every other id stays put and an
//! undo can put the object back in the same slot). Each live object has at
//! most one live parent; every object also knows its children, so walking
//! a subtree costs what the subtree holds, never the whole scene.
//!
//! Siblings are ordered by each slot's *place*, a number: a file's objects
//! take their index in the file, and an object added or given a new parent
//! takes a number above every place given before, so it goes after the
//! siblings it finds (`docs/spec/organise.md`). Undo puts an object back at
//! its old place, and so at its old position among its siblings. The fields are private: the only ways to change a link are
//! [`Hierarchy::push`] (a new object under an existing one),
//! [`Hierarchy::set_parent`] and [`Hierarchy::attach`], which refuse a link
//! that would close a cycle, and [`Hierarchy::detach`] /
//! [`Hierarchy::truncate`], which take whole subtrees out. So every walk up
//! from any object ends at a root in fewer than `len` steps, and no caller
//! needs a loop guard.

use std::collections::HashMap;

/// Why a parent link was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HierarchyError {
    #[error("object {0} does not exist")]
    NoSuchObject(usize),
    #[error("object {child} cannot be parented to {parent}: the parent chain would form a cycle")]
    Cycle { child: usize, parent: usize },
    #[error("object {0} already exists")]
    Taken(usize),
}

/// Parent and children of every object; acyclic by construction.
///
/// Compact for large flat scenes: 4 bytes an object for the parent link,
/// child lists only for objects that have children. (Indices fit `u32`: a
/// scene of 2^32 objects would not fit in memory.)
#[derive(Clone, Debug, Default)]
pub struct Hierarchy {
    /// The parent of each slot, [`ROOT`] for none, [`DEAD`] for no object.
    parent: Vec<u32>,
    /// The children of each object that has any, by place (no empty lists,
    /// so equal hierarchies compare equal).
    children: HashMap<usize, Vec<usize>>,
    /// Each slot's place among its siblings (a dead slot keeps its own, for
    /// an undo to put its object back there).
    place: Vec<u64>,
    /// Above every place given so far.
    next_place: u64,
}

impl PartialEq for Hierarchy {
    /// The same links, and the same order among siblings (the children's
    /// lists and the roots'); the place numbers themselves do not count.
    fn eq(&self, other: &Hierarchy) -> bool {
        self.parent == other.parent && self.children == other.children && self.roots() == other.roots()
    }
}

impl Eq for Hierarchy {}

/// No parent, in [`Hierarchy::parent`]'s list.
const ROOT: u32 = u32::MAX;

/// No object in this slot (deleted), in [`Hierarchy::parent`]'s list.
const DEAD: u32 = u32::MAX - 1;

fn link(parent: Option<usize>) -> u32 {
    parent.map_or(ROOT, |p| p as u32)
}

impl Hierarchy {
    pub fn new() -> Hierarchy {
        Hierarchy::default()
    }

    /// Builds the hierarchy of `parents[i]` (the parent of object `i`).
    /// Fails on an out-of-range parent or a cycle, naming the first object
    /// (in index order) that is part of one.
    pub fn from_parents(parents: &[Option<usize>]) -> Result<Hierarchy, HierarchyError> {
        let n = parents.len();
        if let Some(p) = parents.iter().flatten().find(|&&p| p >= n) {
            return Err(HierarchyError::NoSuchObject(*p));
        }
        Hierarchy::from_links(parents.iter().map(|&p| link(p)).collect())
    }

    /// The link of a root in [`Hierarchy::from_links`]'s list.
    pub const NO_PARENT: u32 = ROOT;

    /// [`Hierarchy::from_parents`] for a list that is already in the stored
    /// form: `links[i]` is the parent of object `i`, or
    /// [`Hierarchy::NO_PARENT`] for a root. The list becomes the hierarchy's own, so a loader that fills it
    /// while reading builds a scene of a million objects without a second
    /// copy of its parents (the only transient is a 4-byte mark an object).
    pub fn from_links(links: Vec<u32>) -> Result<Hierarchy, HierarchyError> {
        let n = links.len();
        debug_assert!(n < DEAD as usize, "slot ids fit below the sentinels");
        if let Some(&p) = links.iter().find(|&&p| p != ROOT && p as usize >= n) {
            return Err(HierarchyError::NoSuchObject(p as usize));
        }
        let up = |i: usize| match links[i] {
            ROOT => None,
            p => Some(p as usize),
        };
        // Colour each object by the walk that first reached it; meeting the
        // current walk's colour again is a cycle. Linear in the object count.
        let mut walk = vec![u32::MAX; n];
        for start in 0..n {
            let mut at = Some(start);
            while let Some(i) = at {
                if walk[i] == start as u32 {
                    return Err(HierarchyError::Cycle { child: i, parent: up(i).unwrap_or(i) });
                }
                if walk[i] != u32::MAX {
                    break;
                }
                walk[i] = start as u32;
                at = up(i);
            }
        }
        drop(walk);
        let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
        for i in 0..n {
            if let Some(p) = up(i) {
                children.entry(p).or_default().push(i);
            }
        }
        // The file's order: each object's place is its index.
        Ok(Hierarchy { parent: links, children, place: (0..n as u64).collect(), next_place: n as u64 })
    }

    /// The number of slots, live or dead: every id is below it.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether slot `i` holds an object.
    pub fn is_live(&self, i: usize) -> bool {
        self.parent.get(i).is_some_and(|&p| p != DEAD)
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// Adds an object in a new slot under `parent` (or as a root) and
    /// returns its id.
    pub fn push(&mut self, parent: Option<usize>) -> Result<usize, HierarchyError> {
        if let Some(p) = parent {
            self.check(p)?;
        }
        let i = self.parent.len();
        self.parent.push(link(parent));
        self.place.push(self.next_place);
        self.next_place += 1;
        if let Some(p) = parent {
            self.link_child(p, i);
        }
        Ok(i)
    }

    /// Drops the slots from `len` on (their objects must have no children
    /// below `len`, which holds when they are whole subtrees, e.g. the last
    /// copies).
    pub fn truncate(&mut self, len: usize) {
        for i in (len..self.len()).rev() {
            self.children.remove(&i);
            if let Some(p) = self.parent(i) {
                if p < len {
                    self.unlink(p, i);
                }
            }
        }
        self.parent.truncate(len);
        self.place.truncate(len);
    }

    /// Takes the objects `ids` out, leaving their slots dead; returns each
    /// one's parent. `ids` must hold whole subtrees (every child of each
    /// one too), so only the links into the rest are cut: the cost is the
    /// count plus the lengths of the child lists they leave. Dead or
    /// unknown ids are skipped (their parent given as `None`).
    pub fn detach(&mut self, ids: &[usize]) -> Vec<Option<usize>> {
        let parents: Vec<Option<usize>> = ids.iter().map(|&i| self.parent(i)).collect();
        for &i in ids {
            if let Some(p) = self.parent.get_mut(i) {
                *p = DEAD;
            }
        }
        for (&i, p) in ids.iter().zip(&parents) {
            self.children.remove(&i);
            if let Some(p) = *p {
                if self.is_live(p) {
                    self.unlink(p, i);
                }
            }
        }
        parents
    }

    /// Puts objects into dead slots (or new ones past the end, at `places` in
    /// order if given, so a redo gives back the first time's, else at new
    /// places) with the parents given: what [`Hierarchy::detach`] took out, or
    /// new copies. Fails, changing nothing, on a live slot, an unknown parent or a cycle.
    pub fn attach(&mut self, items: &[(usize, Option<usize>)], places: &[u64]) -> Result<(), HierarchyError> {
        let incoming: HashMap<usize, Option<usize>> = items.iter().copied().collect();
        for &(i, p) in items {
            if self.is_live(i) || incoming.len() != items.len() {
                return Err(HierarchyError::Taken(i));
            }
            if let Some(p) = p {
                if !self.is_live(p) && !incoming.contains_key(&p) {
                    return Err(HierarchyError::NoSuchObject(p));
                }
            }
        }
        // A cycle can only run through the incoming objects (the live ones
        // form a forest): colour each by the walk that first reached it.
        let mut walk: HashMap<usize, usize> = HashMap::with_capacity(items.len());
        for &(start, _) in items {
            let mut at = start;
            loop {
                match walk.get(&at) {
                    Some(&w) if w == start => {
                        return Err(HierarchyError::Cycle { child: at, parent: incoming[&at].unwrap_or(at) })
                    }
                    Some(_) => break,
                    None => {}
                }
                walk.insert(at, start);
                match incoming.get(&at) {
                    Some(Some(p)) => at = *p,
                    _ => break,
                }
            }
        }
        // Nothing can fail from here on.
        // Slots past the end (copies) take new places in the items' order;
        // dead slots (objects put back) their own.
        let end = items.iter().map(|&(i, _)| i + 1).max().unwrap_or(0);
        let old_end = self.parent.len();
        if end > old_end {
            self.parent.resize(end, DEAD);
            self.place.resize(end, 0);
        }
        for (k, &(i, p)) in items.iter().enumerate() {
            self.parent[i] = link(p);
            if i >= old_end {
                match places.get(k) {
                    Some(&place) => {
                        self.place[i] = place;
                        self.next_place = self.next_place.max(place + 1);
                    }
                    None => {
                        self.place[i] = self.next_place;
                        self.next_place += 1;
                    }
                }
            }
        }
        for &(i, p) in items {
            if let Some(p) = p {
                self.link_child(p, i);
            }
        }
        Ok(())
    }

    /// Re-parents `child`, after the new parent's children (a new place);
    /// refuses a parent that is `child` itself or one of its descendants.
    pub fn set_parent(&mut self, child: usize, parent: Option<usize>) -> Result<(), HierarchyError> {
        let place = self.next_place;
        self.set_parent_at(child, parent, place)
    }

    /// The place `set_parent` would give next ([`Hierarchy::set_parent_at`]
    /// with this and the following numbers puts objects after every
    /// sibling, in that order).
    pub fn next_place(&self) -> u64 {
        self.next_place
    }

    /// Object `i`'s place among its siblings (0 for an unknown id).
    pub fn place(&self, i: usize) -> u64 {
        self.place.get(i).copied().unwrap_or(0)
    }

    /// Re-parents `child` at `place` among the new parent's children (an
    /// undo gives the place it had, a redo the one it was given); refuses a
    /// parent that is `child` itself or one of its descendants.
    pub fn set_parent_at(&mut self, child: usize, parent: Option<usize>, place: u64) -> Result<(), HierarchyError> {
        self.check(child)?;
        if let Some(p) = parent {
            self.check(p)?;
            if p == child || self.is_ancestor(child, p) {
                return Err(HierarchyError::Cycle { child, parent: p });
            }
        }
        if let Some(old) = self.parent(child) {
            self.unlink(old, child);
        }
        self.parent[child] = link(parent);
        self.place[child] = place;
        self.next_place = self.next_place.max(place + 1);
        if let Some(p) = parent {
            self.link_child(p, child);
        }
        Ok(())
    }

    /// Puts `child` into `parent`'s list by its place (at the end, for a
    /// new place).
    fn link_child(&mut self, parent: usize, child: usize) {
        let Hierarchy { children, place, .. } = self;
        let list = children.entry(parent).or_default();
        let key = place[child];
        let at = list.partition_point(|&c| place[c] < key);
        if list.get(at) != Some(&child) {
            list.insert(at, child);
        }
    }

    /// Takes `child` off `parent`'s list (and drops the list when empty).
    fn unlink(&mut self, parent: usize, child: usize) {
        let Hierarchy { children, place, .. } = self;
        if let Some(list) = children.get_mut(&parent) {
            let key = place[child];
            let at = list.partition_point(|&c| place[c] < key);
            if list.get(at) == Some(&child) {
                list.remove(at);
            }
            if list.is_empty() {
                self.children.remove(&parent);
            }
        }
    }

    fn check(&self, i: usize) -> Result<(), HierarchyError> {
        if self.is_live(i) {
            Ok(())
        } else {
            Err(HierarchyError::NoSuchObject(i))
        }
    }

    /// The parent of `i` (`None` for a root, a dead slot or an unknown id).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parent.get(i).filter(|&&p| p != ROOT && p != DEAD).map(|&p| p as usize)
    }

    /// The children of `i`, by place.
    pub fn children(&self, i: usize) -> &[usize] {
        self.children.get(&i).map_or(&[], Vec::as_slice)
    }

    /// Parent, grandparent, ... up to the root (not `i` itself).
    pub fn ancestors(&self, i: usize) -> Ancestors<'_> {
        Ancestors { hierarchy: self, at: self.parent(i) }
    }

    /// Every object below `i`, depth first, children by place
    /// (not `i` itself). Costs what the subtree holds.
    pub fn descendants(&self, i: usize) -> Descendants<'_> {
        let mut stack: Vec<usize> = self.children(i).to_vec();
        stack.reverse();
        Descendants { hierarchy: self, stack }
    }

    /// Whether `a` is a strict ancestor of `b`.
    pub fn is_ancestor(&self, a: usize, b: usize) -> bool {
        self.ancestors(b).any(|p| p == a)
    }

    /// The live objects without a parent, by place.
    pub fn roots(&self) -> Vec<usize> {
        let mut roots: Vec<usize> = (0..self.len()).filter(|&i| self.parent[i] == ROOT).collect();
        self.sort_by_place(&mut roots);
        roots
    }

    /// The live objects in the order a file keeps their places: by place
    /// (which is by id until an object is given a new parent).
    pub fn by_place(&self) -> Vec<usize> {
        let mut ids: Vec<usize> = (0..self.len()).filter(|&i| self.is_live(i)).collect();
        self.sort_by_place(&mut ids);
        ids
    }

    /// Sorts `ids` by place, with a pass only when they already are.
    fn sort_by_place(&self, ids: &mut [usize]) {
        if !ids.is_sorted_by_key(|&i| self.place[i]) {
            ids.sort_unstable_by_key(|&i| self.place[i]);
        }
    }
}

/// Iterator of [`Hierarchy::ancestors`].
pub struct Ancestors<'a> {
    hierarchy: &'a Hierarchy,
    at: Option<usize>,
}

impl Iterator for Ancestors<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        let i = self.at?;
        self.at = self.hierarchy.parent(i);
        Some(i)
    }
}

/// Iterator of [`Hierarchy::descendants`].
pub struct Descendants<'a> {
    hierarchy: &'a Hierarchy,
    stack: Vec<usize>,
}

impl Iterator for Descendants<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        let i = self.stack.pop()?;
        self.stack.extend(self.hierarchy.children(i).iter().rev());
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0 <- 1 <- 2, 0 <- 3, 4 alone.
    fn sample() -> Hierarchy {
        Hierarchy::from_parents(&[None, Some(0), Some(1), Some(0), None]).unwrap()
    }

    #[test]
    fn walks_up_and_down() {
        let h = sample();
        assert_eq!(h.ancestors(2).collect::<Vec<_>>(), vec![1, 0]);
        assert_eq!(h.ancestors(0).count(), 0);
        assert_eq!(h.descendants(0).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(h.descendants(2).count(), 0);
        assert_eq!(h.roots(), vec![0, 4]);
        assert!(h.is_ancestor(0, 2) && !h.is_ancestor(2, 0) && !h.is_ancestor(3, 2));
    }

    #[test]
    fn cycles_and_bad_indices_are_refused() {
        assert_eq!(
            Hierarchy::from_parents(&[Some(1), Some(0)]).unwrap_err(),
            HierarchyError::Cycle { child: 0, parent: 1 }
        );
        assert!(matches!(Hierarchy::from_parents(&[Some(0)]), Err(HierarchyError::Cycle { child: 0, .. })));
        assert_eq!(Hierarchy::from_parents(&[Some(5)]).unwrap_err(), HierarchyError::NoSuchObject(5));
        // A chain that runs into a cycle further on is caught too.
        assert!(Hierarchy::from_parents(&[Some(1), Some(2), Some(1)]).is_err());

        // The stored form refuses the same, and a dead slot's sentinel is no parent.
        const R: u32 = Hierarchy::NO_PARENT;
        assert_eq!(Hierarchy::from_links(vec![1, 0]).unwrap_err(), HierarchyError::Cycle { child: 0, parent: 1 });
        assert_eq!(Hierarchy::from_links(vec![R, 7]).unwrap_err(), HierarchyError::NoSuchObject(7));
        assert!(Hierarchy::from_links(vec![R, u32::MAX - 1]).is_err());
        assert!(Hierarchy::from_links(vec![R, 2, 3, 1]).is_err());
        assert_eq!(Hierarchy::from_links(vec![R, 0, 1, 0, R]).unwrap(), sample());

        let mut h = sample();
        assert_eq!(h.set_parent(0, Some(2)), Err(HierarchyError::Cycle { child: 0, parent: 2 }));
        assert_eq!(h.set_parent(1, Some(1)), Err(HierarchyError::Cycle { child: 1, parent: 1 }));
        assert_eq!(h, sample(), "a refused link changes nothing");
        assert_eq!(h.push(Some(9)), Err(HierarchyError::NoSuchObject(9)));
    }

    #[test]
    fn reparenting_moves_the_child_between_lists() {
        let mut h = sample();
        h.set_parent(1, Some(4)).unwrap();
        assert_eq!(h.children(0), &[3]);
        assert_eq!(h.descendants(4).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(h.ancestors(2).collect::<Vec<_>>(), vec![1, 4]);
        let i = h.push(Some(2)).unwrap();
        assert_eq!(i, 5);
        assert_eq!(h.ancestors(5).collect::<Vec<_>>(), vec![2, 1, 4]);
    }

    #[test]
    fn moving_the_last_child_away_leaves_the_hierarchy_built_from_the_links() {
        let mut h = sample();
        h.set_parent(2, Some(4)).unwrap();
        h.set_parent(2, None).unwrap();
        assert!(h.children(1).is_empty());
        let built = Hierarchy::from_parents(&[None, Some(0), None, Some(0), None]).unwrap();
        assert_eq!((&h.parent, &h.children), (&built.parent, &built.children));
        assert_ne!(h, built, "2 is the last root now, not between 0 and 4");
        assert_eq!(h.roots(), vec![0, 4, 2]);
    }

    #[test]
    fn truncating_whole_subtrees_unlinks_them() {
        // 0 <- 1 <- 2, 0 <- 3, 4 alone, then 5 under 0 and 6 under 5 (a copy).
        let mut h = Hierarchy::from_parents(&[None, Some(0), Some(1), Some(0), None, Some(0), Some(5)]).unwrap();
        h.truncate(5);
        assert_eq!(h, sample());
    }

    #[test]
    fn detaching_leaves_dead_slots_and_attaching_puts_the_links_back() {
        // 0 <- 1 <- 2, 0 <- 3, 4 alone.
        let mut h = sample();
        assert_eq!(h.detach(&[1, 2]), vec![Some(0), Some(1)]);
        assert!(!h.is_live(1) && !h.is_live(2) && h.is_live(3));
        assert_eq!(h.len(), 5, "ids stay put");
        assert_eq!(h.children(0), &[3]);
        assert_eq!(h.parent(2), None);
        assert_eq!(h.roots(), vec![0, 4], "dead slots are no roots");
        assert_eq!(h.push(Some(1)), Err(HierarchyError::NoSuchObject(1)));
        // A live slot, a dead parent outside the items and a cycle are refused.
        assert_eq!(h.attach(&[(3, None)], &[]), Err(HierarchyError::Taken(3)));
        assert_eq!(h.attach(&[(2, Some(1))], &[]), Err(HierarchyError::NoSuchObject(1)));
        assert!(matches!(h.attach(&[(1, Some(2)), (2, Some(1))], &[]), Err(HierarchyError::Cycle { .. })));
        // Children (2 under 1) before parents are fine; lists stay sorted.
        h.attach(&[(2, Some(1)), (1, Some(0))], &[]).unwrap();
        assert_eq!(h, sample());
        // Past the end: new slots, the gap dead.
        h.attach(&[(7, Some(4))], &[]).unwrap();
        assert_eq!((h.len(), h.is_live(5), h.children(4)), (8, false, &[7][..]));
    }

    #[test]
    fn a_new_child_goes_after_its_siblings_and_comes_back_to_its_place() {
        // 0 <- 1 <- 2, 0 <- 3, 4 alone: 4 under 0 goes after 1 and 3
        // though its id is larger than neither... and 1 under 4's old
        // sibling list order: roots are by place too.
        let mut h = sample();
        let (place, old) = (h.next_place(), h.place(4));
        h.set_parent(4, Some(0)).unwrap();
        assert_eq!(h.children(0), &[1, 3, 4]);
        h.set_parent(1, Some(0)).unwrap();
        assert_eq!(h.children(0), &[3, 4, 1], "moved within the same parent: to the end");
        assert_eq!(h.descendants(0).collect::<Vec<_>>(), vec![3, 4, 1, 2]);
        h.set_parent(3, None).unwrap();
        assert_eq!(h.roots(), vec![0, 3], "a new root goes after the others");
        // Undone in reverse with the places they had: the same hierarchy.
        h.set_parent_at(3, Some(0), 3).unwrap();
        h.set_parent_at(1, Some(0), 1).unwrap();
        h.set_parent_at(4, None, old).unwrap();
        assert_eq!(h, sample());
        assert_eq!(h.roots(), vec![0, 4]);
        // Redone with the places given the first time.
        h.set_parent_at(4, Some(0), place).unwrap();
        assert_eq!(h.children(0), &[1, 3, 4]);
        // Taken out and put back: the same places.
        let parents = h.detach(&[1, 2]);
        assert_eq!(h.children(0), &[3, 4]);
        h.attach(&[(1, parents[0]), (2, parents[1])], &[]).unwrap();
        assert_eq!(h.children(0), &[1, 3, 4]);
        // The order a file keeps: 4 after 3 now.
        assert_eq!(h.by_place(), vec![0, 1, 2, 3, 4], "4's place is past 3's");
        h.set_parent(2, Some(0)).unwrap();
        assert_eq!(h.by_place(), vec![0, 1, 3, 4, 2]);
        // Read back from that order, the children come out the same.
        let order = h.by_place();
        let at: Vec<usize> = (0..5).map(|i| order.iter().position(|&j| j == i).unwrap()).collect();
        let file: Vec<Option<usize>> = order.iter().map(|&i| h.parent(i).map(|p| at[p])).collect();
        let read = Hierarchy::from_parents(&file).unwrap();
        let back: Vec<usize> = read.children(at[0]).iter().map(|&k| order[k]).collect();
        assert_eq!(back, h.children(0));
    }

    /// Against a brute-force walk on random forests.
    #[test]
    fn agrees_with_brute_force_on_random_forests() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        for _ in 0..200 {
            let n = rng.gen_range(1..40);
            // Parents always have a smaller index: a forest.
            let parents: Vec<Option<usize>> =
                (0..n).map(|i| (i > 0 && rng.gen_bool(0.7)).then(|| rng.gen_range(0..i))).collect();
            let h = Hierarchy::from_parents(&parents).unwrap();
            let up = |i: usize| {
                let mut chain = Vec::new();
                let mut at = parents[i];
                while let Some(p) = at {
                    chain.push(p);
                    at = parents[p];
                }
                chain
            };
            for i in 0..n {
                assert_eq!(h.ancestors(i).collect::<Vec<_>>(), up(i));
                let mut down: Vec<usize> = h.descendants(i).collect();
                down.sort();
                let expect_down: Vec<usize> = (0..n).filter(|&j| up(j).contains(&i)).collect();
                assert_eq!(down, expect_down);
            }
        }
    }
}
