//! The parent links of a scene's objects, kept acyclic.
//!
//! Objects are indices `0..len`. Each has at most one parent; every object
//! also knows its children, so walking a subtree costs what the subtree
//! holds, never the whole scene. The fields are private: the only ways to
//! change a link are [`Hierarchy::push`] (a new object under an existing
//! one) and [`Hierarchy::set_parent`], which refuses a link that would close
//! a cycle. So every walk up from any object ends at a root in fewer than
//! `len` steps, and no caller needs a loop guard.

use std::collections::HashMap;

/// Why a parent link was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HierarchyError {
    #[error("object {0} does not exist")]
    NoSuchObject(usize),
    #[error("object {child} cannot be parented to {parent}: the parent chain would form a cycle")]
    Cycle { child: usize, parent: usize },
}

/// Parent and children of every object; acyclic by construction.
///
/// Compact for large flat scenes: 4 bytes an object for the parent link,
/// child lists only for objects that have children. (Indices fit `u32`: a
/// scene of 2^32 objects would not fit in memory.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hierarchy {
    /// The parent of each object, [`ROOT`] for none.
    parent: Vec<u32>,
    /// The children of each object that has any, in the order they were
    /// attached (no empty lists, so equal hierarchies compare equal).
    children: HashMap<usize, Vec<usize>>,
}

/// No parent, in [`Hierarchy::parent`]'s list.
const ROOT: u32 = u32::MAX;

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
        // Colour each object by the walk that first reached it; meeting the
        // current walk's colour again is a cycle. Linear in the object count.
        let mut walk = vec![usize::MAX; n];
        for start in 0..n {
            let mut at = Some(start);
            while let Some(i) = at {
                if walk[i] == start {
                    return Err(HierarchyError::Cycle { child: i, parent: parents[i].unwrap_or(i) });
                }
                if walk[i] != usize::MAX {
                    break;
                }
                walk[i] = start;
                at = parents[i];
            }
        }
        let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, p) in parents.iter().enumerate() {
            if let Some(p) = p {
                children.entry(*p).or_default().push(i);
            }
        }
        Ok(Hierarchy { parent: parents.iter().map(|&p| link(p)).collect(), children })
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// Adds an object under `parent` (or as a root) and returns its index.
    pub fn push(&mut self, parent: Option<usize>) -> Result<usize, HierarchyError> {
        if let Some(p) = parent {
            self.check(p)?;
        }
        let i = self.parent.len();
        self.parent.push(link(parent));
        if let Some(p) = parent {
            self.children.entry(p).or_default().push(i);
        }
        Ok(i)
    }

    /// Drops the objects from `len` on (they must have no children below
    /// `len`, which holds when they are whole subtrees, e.g. the last copies).
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
    }

    /// Re-parents `child`; refuses a parent that is `child` itself or one of
    /// its descendants.
    pub fn set_parent(&mut self, child: usize, parent: Option<usize>) -> Result<(), HierarchyError> {
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
        if let Some(p) = parent {
            self.children.entry(p).or_default().push(child);
        }
        Ok(())
    }

    /// Takes `child` off `parent`'s list (and drops the list when empty).
    fn unlink(&mut self, parent: usize, child: usize) {
        if let Some(list) = self.children.get_mut(&parent) {
            list.retain(|&c| c != child);
            if list.is_empty() {
                self.children.remove(&parent);
            }
        }
    }

    fn check(&self, i: usize) -> Result<(), HierarchyError> {
        if i < self.len() {
            Ok(())
        } else {
            Err(HierarchyError::NoSuchObject(i))
        }
    }

    /// The parent of `i` (`None` for a root or an unknown index).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parent.get(i).filter(|&&p| p != ROOT).map(|&p| p as usize)
    }

    /// The children of `i`, in attachment order.
    pub fn children(&self, i: usize) -> &[usize] {
        self.children.get(&i).map_or(&[], Vec::as_slice)
    }

    /// Parent, grandparent, ... up to the root (not `i` itself).
    pub fn ancestors(&self, i: usize) -> Ancestors<'_> {
        Ancestors { hierarchy: self, at: self.parent(i) }
    }

    /// Every object below `i`, depth first, children in attachment order
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

    /// The objects without a parent, in index order.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter(|&i| self.parent[i] == ROOT)
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
        assert_eq!(h.roots().collect::<Vec<_>>(), vec![0, 4]);
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
        assert_eq!(h, Hierarchy::from_parents(&[None, Some(0), None, Some(0), None]).unwrap());
    }

    #[test]
    fn truncating_whole_subtrees_unlinks_them() {
        // 0 <- 1 <- 2, 0 <- 3, 4 alone, then 5 under 0 and 6 under 5 (a copy).
        let mut h = Hierarchy::from_parents(&[None, Some(0), Some(1), Some(0), None, Some(0), Some(5)]).unwrap();
        h.truncate(5);
        assert_eq!(h, sample());
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
