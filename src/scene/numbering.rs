//! The numbers copies of a name take (`cube.001`, `cube.002`, ...,
//! `cube.1000`), kept per base name so that the next free one is found at
//! once instead of by trying `.001`, `.002`, ... (which made the k-th copy
//! of a name cost k look-ups).
//!
//! For each base with a numbered name in the scene, every number below a
//! high-water mark is taken but for a few gaps (kept as ranges); the
//! lowest free number is the first gap's start, else the mark. Taking and
//! freeing a number cost O(log gaps); the scene keeps it in step with its
//! name index.

use std::collections::{BTreeMap, HashMap};

use smol_str::SmolStr;

/// The base and number of a name a copy could have been given: `base.NNN`
/// (three digits, 1 to 999) or `base.N` (four digits or more, no leading
/// zero, from 1000). Other names hold no number.
pub fn numbered(name: &str) -> Option<(&str, u64)> {
    let (base, digits) = name.rsplit_once('.')?;
    if base.is_empty() || digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    let three = digits.len() == 3 && (1..=999).contains(&n);
    let long = digits.len() >= 4 && !digits.starts_with('0') && n >= 1000;
    (three || long).then_some((base, n))
}

/// The name of copy `n` of `base`.
pub fn copy_of(base: &str, n: u64) -> String {
    if n < 1000 {
        format!("{base}.{n:03}")
    } else {
        format!("{base}.{n}")
    }
}

/// The base a copy of `name` numbers from: `name` less a three-digit
/// copy number (`a.002` -> `a`), else `name` itself.
pub fn base_of(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((b, n)) if n.len() == 3 && n.bytes().all(|c| c.is_ascii_digit()) && !b.is_empty() => b,
        _ => name,
    }
}

/// The numbers of one base that names in the scene hold.
#[derive(Clone, Debug, Default, PartialEq)]
struct Numbers {
    /// Every number from 1 below this is taken, but for `gaps`.
    mark: u64,
    /// Free numbers below `mark`: start -> end (exclusive), apart.
    gaps: BTreeMap<u64, u64>,
}

impl Numbers {
    fn take(&mut self, n: u64) {
        let mark = self.mark.max(1);
        if n >= mark {
            if n > mark {
                self.gaps.insert(mark, n);
            }
            self.mark = n + 1;
            return;
        }
        let Some((&start, &end)) = self.gaps.range(..=n).next_back() else { return };
        if n >= end {
            return;
        }
        self.gaps.remove(&start);
        if start < n {
            self.gaps.insert(start, n);
        }
        if n + 1 < end {
            self.gaps.insert(n + 1, end);
        }
    }

    fn free(&mut self, n: u64) {
        if n == 0 || n >= self.mark {
            return;
        }
        let (mut start, mut end) = (n, n + 1);
        if let Some((&s, &e)) = self.gaps.range(..=n).next_back() {
            if n < e {
                return;
            }
            if e == n {
                self.gaps.remove(&s);
                start = s;
            }
        }
        if let Some(e) = self.gaps.remove(&end) {
            end = e;
        }
        if end == self.mark {
            self.mark = start;
        } else {
            self.gaps.insert(start, end);
        }
    }

    /// The lowest free number not below `from` (1 or more).
    fn free_from(&self, from: u64) -> u64 {
        let from = from.max(1);
        if let Some((_, &end)) = self.gaps.range(..=from).next_back() {
            if from < end {
                return from;
            }
        }
        match self.gaps.range(from..).next() {
            Some((&start, _)) => start,
            None => from.max(self.mark.max(1)),
        }
    }

    fn is_empty(&self) -> bool {
        self.mark <= 1
    }
}

/// The numbered names of a scene, by base.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Numbering {
    bases: HashMap<SmolStr, Numbers>,
}

impl Numbering {
    /// A name came into the scene.
    pub(super) fn take(&mut self, name: &str) {
        if let Some((base, n)) = numbered(name) {
            self.bases.entry(base.into()).or_default().take(n);
        }
    }

    /// A name left the scene.
    pub(super) fn free(&mut self, name: &str) {
        if let Some((base, n)) = numbered(name) {
            if let Some(numbers) = self.bases.get_mut(base) {
                numbers.free(n);
                if numbers.is_empty() {
                    self.bases.remove(base);
                }
            }
        }
    }

    /// The lowest number of `base` from `from` on that no name holds.
    pub(super) fn free_from(&self, base: &str, from: u64) -> u64 {
        self.bases.get(base).map_or(from.max(1), |n| n.free_from(from))
    }
}

/// Names copies against a scene's numbering, several in one go: each base
/// continues from the number it gave last, so that k copies of one name
/// made at once cost O(k log gaps), not O(k^2).
pub struct CopyNamer<'a> {
    numbering: &'a Numbering,
    next: HashMap<String, u64>,
}

impl<'a> CopyNamer<'a> {
    pub(super) fn new(numbering: &'a Numbering) -> CopyNamer<'a> {
        CopyNamer { numbering, next: HashMap::new() }
    }

    /// The lowest free copy name of `name` (its base's lowest number that
    /// no name in the scene holds and this namer has not given) for which
    /// `taken` is false (`taken` sees names held elsewhere: a number it
    /// refuses is passed over).
    pub fn copy_name(&mut self, name: &str, taken: impl Fn(&str) -> bool) -> String {
        let base = base_of(name);
        let mut from = self.next.get(base).copied().unwrap_or(1);
        loop {
            let n = self.numbering.free_from(base, from);
            let candidate = copy_of(base, n);
            from = n + 1;
            if !taken(&candidate) {
                self.next.insert(base.to_string(), from);
                return candidate;
            }
        }
    }

    /// `name` itself when `taken` is false for it, else [`CopyNamer::copy_name`].
    pub fn free_name(&mut self, name: &str, taken: impl Fn(&str) -> bool) -> String {
        if taken(name) {
            self.copy_name(name, taken)
        } else {
            name.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_names_are_the_ones_copies_get() {
        assert_eq!(numbered("cube.001"), Some(("cube", 1)));
        assert_eq!(numbered("cube.999"), Some(("cube", 999)));
        assert_eq!(numbered("cube.1000"), Some(("cube", 1000)));
        assert_eq!(numbered("a.b.012"), Some(("a.b", 12)));
        for none in ["cube", "cube.000", "cube.01", "cube.0999", "cube.0100", ".001", "cube.", "cube.12a"] {
            assert_eq!(numbered(none), None, "{none}");
        }
        assert_eq!(copy_of("cube", 7), "cube.007");
        assert_eq!(copy_of("cube", 1234), "cube.1234");
        assert_eq!(base_of("cube.002"), "cube");
        assert_eq!(base_of("cube.1000"), "cube.1000");
    }

    /// Random takes and frees against a plain set: the lowest free number
    /// from any start is the set's.
    #[test]
    fn the_lowest_free_number_matches_a_set_of_taken_ones() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let mut numbers = Numbers::default();
        let mut taken = std::collections::BTreeSet::new();
        for _ in 0..20_000 {
            let n = rng.gen_range(1..60u64);
            if rng.gen_bool(0.55) {
                if taken.insert(n) {
                    numbers.take(n);
                }
            } else if taken.remove(&n) {
                numbers.free(n);
            }
            let from = rng.gen_range(0..70u64);
            let expect = (from.max(1)..).find(|k| !taken.contains(k)).unwrap();
            assert_eq!(numbers.free_from(from), expect, "from {from}, taken {taken:?}, {numbers:?}");
            assert_eq!(numbers.is_empty(), taken.is_empty());
        }
    }

    #[test]
    fn a_namer_gives_ascending_free_numbers_skipping_what_it_is_told() {
        let mut numbering = Numbering::default();
        for name in ["a", "a.001", "a.002", "a.004", "b.010"] {
            numbering.take(name);
        }
        let mut namer = CopyNamer::new(&numbering);
        assert_eq!(namer.copy_name("a", |_| false), "a.003");
        assert_eq!(namer.copy_name("a.002", |_| false), "a.005");
        assert_eq!(namer.copy_name("a", |c| c == "a.006"), "a.007");
        assert_eq!(namer.copy_name("b", |_| false), "b.001");
        assert_eq!(namer.free_name("c", |_| false), "c");
        assert_eq!(namer.free_name("b.010", |c| c == "b.010"), "b.002");
        numbering.free("a.002");
        assert_eq!(CopyNamer::new(&numbering).copy_name("a", |_| false), "a.002");
    }
}
