//! Piles of twins: objects whose [`super::Boxes`] source says they have the
//! same shape ([`super::Boxes::twins`]: the same mesh under the same world
//! matrix, so every exact test answers the same for each) share one leaf of
//! the pick tree. A stack of coincident copies (a hundred thousand adds at
//! one point, duplicates left in place) is then one leaf a ray visits once,
//! and a pick walks the pile's ids from the lowest only until one answers,
//! instead of testing every copy for a tie it would lose.
//!
//! The bookkeeping only: which ids form a pile and which of them holds the
//! leaf (its *keeper*). A pile has a stable key of its own, so that
//! handing the leaf to another id when the keeper leaves costs `O(1)`
//! whatever the pile's size.

use std::collections::{BTreeSet, HashMap};

#[derive(Debug)]
struct Pile {
    /// The id whose leaf the pile shares.
    keeper: u32,
    /// Every id of the pile (the keeper among them), ascending.
    ids: BTreeSet<u32>,
}

/// The piles of one tree. Empty (no allocation) in a scene without twins.
#[derive(Debug, Default)]
pub(super) struct Piles {
    piles: HashMap<u32, Pile>,
    /// The pile of each id that is in one.
    pile_of: HashMap<u32, u32>,
    next_key: u32,
}

/// What [`Piles::leave`] did with the id's leaf.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Left {
    /// The id was in no pile: its leaf (if any) is its own.
    Alone,
    /// The id was a pile's member without the leaf: nothing to do in the tree.
    Member,
    /// The id held its pile's leaf: the leaf now belongs to `to`.
    Keeper { to: u32 },
}

impl Piles {
    pub fn clear(&mut self) {
        *self = Piles::default();
    }

    pub fn is_empty(&self) -> bool {
        self.piles.is_empty()
    }

    /// The ids of `keeper`'s pile, ascending, or `None` when the id holds
    /// a leaf of its own.
    pub fn of_keeper(&self, keeper: u32) -> Option<&BTreeSet<u32>> {
        let pile = self.piles.get(self.pile_of.get(&keeper)?)?;
        (pile.keeper == keeper).then_some(&pile.ids)
    }

    /// The ids a leaf held by `leaf_id` stands for: its pile's, ascending,
    /// or `leaf_id` alone.
    pub fn ids_of(&self, leaf_id: u32) -> impl Iterator<Item = u32> + '_ {
        let pile = if self.is_empty() { None } else { self.of_keeper(leaf_id) };
        pile.into_iter().flatten().copied().chain(pile.is_none().then_some(leaf_id))
    }

    /// Whether `id` is in a pile without holding its leaf.
    pub fn is_member(&self, id: u32) -> bool {
        self.pile_of.get(&id).and_then(|k| self.piles.get(k)).is_some_and(|p| p.keeper != id)
    }

    /// Another id of `id`'s pile, if it is in one.
    pub fn other(&self, id: u32) -> Option<u32> {
        let pile = self.piles.get(self.pile_of.get(&id)?)?;
        pile.ids.iter().copied().find(|&x| x != id)
    }

    /// `id` joins the pile of `keeper` (which holds a leaf), making one
    /// when the keeper is alone.
    pub fn join(&mut self, keeper: u32, id: u32) {
        debug_assert!(!self.pile_of.contains_key(&id));
        let key = match self.pile_of.get(&keeper) {
            Some(&k) => k,
            None => {
                let k = self.next_key;
                self.next_key = self.next_key.wrapping_add(1);
                self.piles.insert(k, Pile { keeper, ids: BTreeSet::from([keeper]) });
                self.pile_of.insert(keeper, k);
                k
            }
        };
        if let Some(pile) = self.piles.get_mut(&key) {
            pile.ids.insert(id);
            self.pile_of.insert(id, key);
        }
    }

    /// `id` leaves its pile (if in one); a pile left with one id is
    /// dissolved, that id keeping the leaf on its own.
    pub fn leave(&mut self, id: u32) -> Left {
        let Some(key) = self.pile_of.remove(&id) else { return Left::Alone };
        let Some(pile) = self.piles.get_mut(&key) else { return Left::Alone };
        pile.ids.remove(&id);
        let left = if pile.keeper == id {
            // A pile always holds its keeper and one other id at least.
            let to = pile.ids.first().copied().unwrap_or(id);
            pile.keeper = to;
            Left::Keeper { to }
        } else {
            Left::Member
        };
        if pile.ids.len() < 2 {
            for rest in std::mem::take(&mut pile.ids) {
                self.pile_of.remove(&rest);
            }
            self.piles.remove(&key);
        }
        left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pile_hands_its_leaf_on_and_dissolves_at_one() {
        let mut p = Piles::default();
        p.join(5, 9);
        p.join(5, 2);
        assert_eq!(p.of_keeper(5).unwrap().iter().copied().collect::<Vec<_>>(), vec![2, 5, 9]);
        assert!(p.is_member(2) && p.is_member(9) && !p.is_member(5));
        assert_eq!(p.of_keeper(9), None);
        assert_eq!(p.leave(9), Left::Member);
        // The keeper leaves: the lowest other id holds the leaf; with one
        // id left the pile is gone.
        assert_eq!(p.leave(5), Left::Keeper { to: 2 });
        assert_eq!(p.of_keeper(2), None);
        assert!(p.is_empty() && !p.is_member(2));
        assert_eq!(p.leave(2), Left::Alone);
        p.join(1, 3);
        p.join(1, 4);
        assert_eq!(p.other(1), Some(3));
        assert_eq!(p.other(7), None);
    }
}
