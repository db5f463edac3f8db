//! Finding the objects whose names contain a text, ignoring case (the
//! outliner's filter), at a cost that follows the matches rather than the
//! scene.
//!
//! [`NameSearch`] keeps, for every three bytes that occur in a lower-cased
//! name (a trigram), the ids of the objects whose names hold them. A text
//! of three bytes or more can only be in names that hold every one of its
//! trigrams, so the search reads the shortest of those lists and checks
//! each name on it. The lists are made on the first search and then kept
//! up to date from the scene's name log (the ids given a name since), so a
//! rename or a paste costs its own names; ids whose names went or changed
//! stay on old lists until the lists are made again, and the check drops
//! them. A text of one or two bytes is in a name of three bytes or more
//! only inside one of its trigrams, so the search reads the lists of the
//! trigrams that hold it (every id on them matches, but for old entries),
//! and checks the names shorter than three bytes, kept on a list of their
//! own. Only the empty text reads every name.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::Scene;

/// Whether `name` contains `needle` (already lower case), ignoring case:
/// without an allocation where both are ASCII, through `to_lowercase`
/// otherwise.
pub fn contains_ignoring_case(name: &str, needle: &str) -> bool {
    if name.is_ascii() && needle.is_ascii() {
        let (h, n) = (name.as_bytes(), needle.as_bytes());
        n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
    } else {
        name.to_lowercase().contains(needle)
    }
}

/// A hasher for trigram keys (24 bits in a u32): one multiplication.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, k: u32) {
        self.0 = u64::from(k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Lists = HashMap<u32, Vec<u32>, BuildHasherDefault<KeyHasher>>;

/// The trigrams of the lower-cased bytes of `text`, each once, into `out`.
fn trigrams(text: &str, out: &mut Vec<u32>) {
    out.clear();
    let lower;
    let bytes = if text.is_ascii() {
        text.as_bytes()
    } else {
        lower = text.to_lowercase();
        lower.as_bytes()
    };
    out.extend(bytes.windows(3).map(|w| {
        let k = |b: u8| u32::from(b.to_ascii_lowercase());
        k(w[0]) << 16 | k(w[1]) << 8 | k(w[2])
    }));
    out.sort_unstable();
    out.dedup();
}

/// The trigram lists of a scene's names (see the module's text).
#[derive(Debug, Default)]
pub struct NameSearch {
    lists: Lists,
    /// The scene's name log these lists are of: its epoch, and how much of
    /// it was read. `None`: never made.
    read: Option<(u64, usize)>,
    /// Objects whose lower-cased names have fewer than three bytes (no
    /// trigram), with old entries as the lists have.
    short: Vec<u32>,
    /// Ids added to the lists since they were made: once they outnumber the
    /// names, the lists are made again (old entries dropped).
    added: usize,
}

impl NameSearch {
    /// The live objects of `scene` whose names contain `text` ignoring
    /// case, in id order.
    pub fn find(&mut self, scene: &Scene, text: &str) -> Vec<usize> {
        let needle = text.to_lowercase();
        if needle.is_empty() {
            return scene.ids().collect();
        }
        self.catch_up(scene);
        if needle.len() < 3 {
            return self.find_short(scene, needle.as_bytes());
        }
        let mut keys = Vec::new();
        trigrams(&needle, &mut keys);
        let mut shortest: &[u32] = &[];
        for (n, k) in keys.iter().enumerate() {
            let Some(list) = self.lists.get(k) else { return Vec::new() };
            if n == 0 || list.len() < shortest.len() {
                shortest = list;
            }
        }
        let mut found: Vec<usize> = shortest
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| scene.get(i).is_some_and(|o| contains_ignoring_case(&o.name, &needle)))
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// [`NameSearch::find`] for a text of one or two bytes: the lists of
    /// the trigrams holding it and the short names.
    fn find_short(&self, scene: &Scene, needle: &[u8]) -> Vec<usize> {
        let holds = |k: u32| {
            let t = [(k >> 16) as u8, (k >> 8) as u8, k as u8];
            t.windows(needle.len()).any(|w| w == needle)
        };
        let text = std::str::from_utf8(needle).unwrap_or("");
        let mut found: Vec<usize> = self
            .lists
            .iter()
            .filter(|(&k, _)| holds(k))
            .flat_map(|(_, ids)| ids.iter())
            .chain(&self.short)
            .map(|&i| i as usize)
            .collect();
        found.sort_unstable();
        found.dedup();
        found.retain(|&i| scene.get(i).is_some_and(|o| contains_ignoring_case(&o.name, text)));
        found
    }

    /// Brings the lists up to the scene's names: the logged ids since the
    /// last read, or every name when the log is another one or the lists
    /// hold too many old entries.
    fn catch_up(&mut self, scene: &Scene) {
        let (epoch, log) = scene.name_log();
        let mut keys = Vec::new();
        match self.read {
            Some((e, seen)) if e == epoch && seen <= log.len() && self.added <= scene.len() => {
                for &i in &log[seen..] {
                    if let Some(o) = scene.get(i as usize) {
                        self.add(i, &o.name, &mut keys);
                        self.added += 1;
                    }
                }
            }
            _ => {
                self.lists.clear();
                self.short.clear();
                self.added = 0;
                for (i, o) in scene.iter() {
                    self.add(i as u32, &o.name, &mut keys);
                }
            }
        }
        self.read = Some((epoch, log.len()));
    }

    /// Puts object `i`, named `name`, on the lists of its trigrams (or on
    /// the short names' list); `keys` is room for them.
    fn add(&mut self, i: u32, name: &str, keys: &mut Vec<u32>) {
        trigrams(name, keys);
        if keys.is_empty() {
            self.short.push(i);
        }
        for &k in keys.iter() {
            self.lists.entry(k).or_default().push(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Transform;
    use crate::scene::{MeshRef, Object, Primitive};
    use proptest::prelude::*;

    fn object(name: &str) -> Object {
        Object {
            name: name.into(),
            mesh: MeshRef::Primitive(Primitive::Cube),
            transform: Transform::IDENTITY,
            color: [1.0; 3],
            hidden: false,
            skin: None,
            extras: None,
            origin: None,
            fixture: None,
            cast_shadows: true,
        }
    }

    /// What the search must find: every live name read, by definition.
    fn brute(scene: &Scene, text: &str) -> Vec<usize> {
        let needle = text.to_lowercase();
        scene.iter().filter(|(_, o)| o.name.to_lowercase().contains(&needle)).map(|(i, _)| i).collect()
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

    #[test]
    fn searches_follow_renames_adds_removes_and_copies() {
        let names = ["Lamp.000", "desk lamp", "Cube", "ÄRGER", "clamp", "lam", "amp"];
        let mut scene = Scene::from_objects(None, names.iter().map(|n| object(n)).collect());
        let mut search = NameSearch::default();
        let texts = ["lamp", "LAM", "amp", "ärg", "ube", "la", "", "zzz", "p.0", "p", "Ä", "e", "zz"];
        let check = |search: &mut NameSearch, scene: &Scene| {
            for t in texts {
                assert_eq!(search.find(scene, t), brute(scene, t), "text {t:?}");
            }
        };
        check(&mut search, &scene);
        scene.rename(2, "Lampshade").unwrap();
        scene.rename(0, "bulb").unwrap();
        check(&mut search, &scene);
        let gone = scene.remove(&[1, 4]);
        check(&mut search, &scene);
        scene.push(object("LAMPPOST"), Some(3)).unwrap();
        check(&mut search, &scene);
        scene.restore(&gone).unwrap();
        check(&mut search, &scene);
        // A copy of the scene changes apart from the original: searching
        // one and then the other reads each one's names.
        let mut copy = scene.clone();
        copy.rename(3, "lamp again").unwrap();
        check(&mut search, &copy);
        check(&mut search, &scene);
    }

    #[test]
    fn a_long_run_of_renames_keeps_the_lists_short() {
        let mut scene = Scene::from_objects(None, (0..50).map(|i| object(&format!("obj{i}"))).collect());
        let mut search = NameSearch::default();
        for round in 0..400 {
            let i = round % 50;
            scene.rename(i, &format!("lamp{round}")).unwrap();
            assert_eq!(search.find(&scene, "lamp"), brute(&scene, "lamp"), "round {round}");
            let entries: usize = search.lists.values().map(Vec::len).sum();
            // At most the names' own trigrams plus one more name's worth per
            // live object before the lists are made again.
            assert!(entries <= 2 * 50 * 8 + 8, "round {round}: {entries} entries");
        }
    }

    proptest! {
        #[test]
        fn finds_what_reading_every_name_finds(
            names in proptest::collection::vec("[a-cA-C ÄäéÉ.]{0,7}", 1..40),
            edits in proptest::collection::vec((0usize..40, "[a-cA-CÄä]{1,5}"), 0..20),
            text in "[a-cA-CÄä.]{0,4}",
        ) {
            let mut seen = std::collections::HashSet::new();
            let unique: Vec<String> = names.into_iter().enumerate().map(|(k, n)| format!("{n}#{k}")).filter(|n| seen.insert(n.clone())).collect();
            let mut scene = Scene::from_objects(None, unique.iter().map(|n| object(n)).collect());
            let mut search = NameSearch::default();
            prop_assert_eq!(search.find(&scene, &text), brute(&scene, &text));
            for (k, (i, name)) in edits.iter().enumerate() {
                let name = format!("{name}@{k}");
                if scene.contains(*i) {
                    scene.rename(*i, &name).unwrap();
                } else {
                    scene.push(object(&name), None).unwrap();
                }
                prop_assert_eq!(search.find(&scene, &text), brute(&scene, &text));
            }
        }
    }
}
