//! [`Pending`]: values queued by index for the next frame's copies, the
//! last one given for an index winning, read back in index order.

/// Values by index, the last one given for an index winning: appended as
/// they come (a batch of ascending indices stays sorted for free), sorted
/// and rid of repeats once, when read. Cheaper than an ordered map for the
/// thousands of records an edit of many objects queues for the next
/// frame's copies, and for the states of the objects hidden and shown
/// since the last frame (`draw/gpu.rs`); indices and values are kept
/// apart, so settled values are one slice (records go to staging memory in
/// one copy).
#[derive(Debug)]
pub(crate) struct Pending<T> {
    keys: Vec<u32>,
    values: Vec<T>,
    /// Whether `keys` is strictly ascending.
    settled: bool,
}

impl<T: Copy> Pending<T> {
    pub(crate) fn new() -> Pending<T> {
        Pending { keys: Vec::new(), values: Vec::new(), settled: true }
    }

    pub(crate) fn insert(&mut self, index: u32, value: T) {
        if self.keys.last().is_some_and(|&last| last >= index) {
            self.settled = false;
        }
        self.keys.push(index);
        self.values.push(value);
    }

    /// Sorts by index and keeps the last value of each.
    pub(crate) fn settle(&mut self) {
        if self.settled {
            return;
        }
        // Stable: for equal indices, the later value ends last.
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        order.sort_by_key(|&k| self.keys[k]);
        let mut keys = Vec::with_capacity(order.len());
        let mut values = Vec::with_capacity(order.len());
        for (at, &k) in order.iter().enumerate() {
            if order.get(at + 1).is_none_or(|&next| self.keys[next] != self.keys[k]) {
                keys.push(self.keys[k]);
                values.push(self.values[k]);
            }
        }
        (self.keys, self.values) = (keys, values);
        self.settled = true;
    }

    /// Distinct indices queued ([`Pending::settle`] first).
    pub(crate) fn len(&self) -> usize {
        debug_assert!(self.settled);
        self.keys.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        self.keys.reserve(additional);
        self.values.reserve(additional);
    }

    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        self.values.clear();
        self.settled = true;
    }

    /// Indices, ascending ([`Pending::settle`] first).
    pub(crate) fn keys(&self) -> impl Iterator<Item = u32> + '_ {
        debug_assert!(self.settled);
        self.keys.iter().copied()
    }

    /// Values in index order ([`Pending::settle`] first).
    pub(crate) fn values(&self) -> &[T] {
        debug_assert!(self.settled);
        &self.values
    }
}

#[cfg(test)]
mod tests {
    use super::Pending;

    /// Against a map that keeps the last value of each index.
    #[test]
    fn pending_items_settle_in_index_order_keeping_the_last_value() {
        let mut p: Pending<u64> = Pending::new();
        let mut want = std::collections::BTreeMap::new();
        // Ascending first (settled for free), then repeats and indices
        // out of order, from a fixed pseudo-random sequence.
        for i in 0..50u32 {
            p.insert(i * 3, u64::from(i));
            want.insert(i * 3, u64::from(i));
        }
        p.settle();
        assert_eq!(p.keys().collect::<Vec<_>>(), want.keys().copied().collect::<Vec<_>>());
        let mut x = 12345u64;
        for v in 0..400u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let i = (x >> 40) as u32 % 97;
            p.insert(i, 1000 + v);
            want.insert(i, 1000 + v);
        }
        p.settle();
        assert_eq!(p.len(), want.len());
        assert_eq!(p.keys().collect::<Vec<_>>(), want.keys().copied().collect::<Vec<_>>());
        assert_eq!(p.values(), want.values().copied().collect::<Vec<_>>().as_slice());
        p.clear();
        assert!(p.is_empty());
    }
}
