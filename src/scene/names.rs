//! The scene's objects by name, and the views of its slots.
//!
//! [`NameIndex`] is a hash table of object ids (with 32 hash bits: 8 bytes each) hashed and
//! compared through the scene's own name strings, so no name is stored
//! twice: finding a name, and so choosing a copy's name, costs O(1) instead
//! of a set of every name in the scene. [`Objects`] and [`ObjectMut`] are
//! how callers read and edit the objects in their slots.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::numbering::{CopyNamer, Numbering};
use super::{MeshRef, Object, SkinRef};
use crate::math::Transform;

/// The table hash of a name whose hash's low 32 bits are `short`: spread
/// over 64 bits (the table takes its tag from the top bits).
fn spread(short: u32) -> u64 {
    u64::from(short).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Object ids by name, each with 32 bits of its name's hash (so that
/// growing the table reads no names); built by the scene loader (which
/// also finds duplicate names with it) and kept in step by every
/// [`super::Scene`] mutation. Names are compared through `name_of`, the
/// owner's own strings by id.
///
/// It also logs the ids given a name since it was made ([`NameIndex::log`]),
/// so that a substring search over the names ([`super::search::NameSearch`])
/// catches up with what changed instead of reading every name again.
#[derive(Default)]
pub(super) struct NameIndex {
    table: HashTable<(u32, u32)>,
    hasher: std::hash::RandomState,
    /// Ids given a name (added, renamed, put back), oldest first, since
    /// the log started (`epoch`); the names that went are not logged.
    log: Vec<u32>,
    /// A number unique in the process for each log started (0: none
    /// started; a reader of 0 always starts over).
    epoch: u64,
    /// The copy numbers the names hold, by base (`cube.001`...).
    numbers: Numbering,
}

impl Clone for NameIndex {
    /// A copy's log starts afresh: the copy and the original change apart
    /// from here, and a reader must not take one's log for the other's.
    fn clone(&self) -> NameIndex {
        NameIndex {
            table: self.table.clone(),
            hasher: self.hasher.clone(),
            log: Vec::new(),
            epoch: super::unique_version(),
            numbers: self.numbers.clone(),
        }
    }
}

impl std::fmt::Debug for NameIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NameIndex").field("len", &self.table.len()).finish()
    }
}

/// The name of the object in slot `k` ("" for a dead slot, which the
/// index never holds).
pub(super) fn name_of(objects: &[Option<Object>], k: u32) -> &str {
    objects.get(k as usize).and_then(Option::as_ref).map_or("", |o| o.name.as_str())
}

impl NameIndex {
    /// The index of every live object of `objects`.
    pub(super) fn build(objects: &[Option<Object>]) -> NameIndex {
        let mut index = NameIndex::default();
        for (i, _) in objects.iter().enumerate().filter(|(_, o)| o.is_some()) {
            index.insert(i, name_of(objects, i as u32));
        }
        index.start_log();
        index
    }

    /// Starts the log afresh (a new epoch, nothing logged): for an index
    /// just built, whose names a reader reads whole anyway.
    pub(super) fn start_log(&mut self) {
        self.log.clear();
        self.epoch = super::unique_version();
    }

    /// The log's epoch and the ids given a name since it started, oldest
    /// first (an id appears again for each new name).
    pub(super) fn log(&self) -> (u64, &[u32]) {
        (self.epoch, &self.log)
    }

    /// Names copies against the names the index holds.
    pub(super) fn copy_namer(&self) -> CopyNamer<'_> {
        CopyNamer::new(&self.numbers)
    }

    /// The low 32 bits of `name`'s hash.
    fn short(&self, name: &str) -> u32 {
        self.hasher.hash_one(name) as u32
    }

    /// The id named `name`, comparing names through `name_of`.
    pub(super) fn find_by<'a>(&self, name: &str, name_of: impl Fn(u32) -> &'a str) -> Option<usize> {
        let short = self.short(name);
        let found = self.table.find(spread(short), |&(k, h)| h == short && name_of(k) == name);
        found.map(|&(k, _)| k as usize)
    }

    /// The live object of `objects` named `name`.
    pub(super) fn find(&self, name: &str, objects: &[Option<Object>]) -> Option<usize> {
        self.find_by(name, |k| name_of(objects, k))
    }

    /// Adds object `id` named `name` (not in the index yet).
    pub(super) fn insert(&mut self, id: usize, name: &str) {
        let short = self.short(name);
        self.insert_short(id, short);
        self.numbers.take(name);
        self.log_name(id);
    }

    /// Logs that `id` has a new name. A log longer than twice the names
    /// (plus some slack) starts again: its readers read every name once
    /// more, which costs no more than the renames that filled the log.
    fn log_name(&mut self, id: usize) {
        if self.log.len() >= 2 * self.table.len() + 4096 {
            self.start_log();
        } else {
            self.log.push(id as u32);
        }
    }

    /// Adds object `id` named `name` unless the name is taken (names
    /// compared through `name_of`); false if it is. The name is hashed once.
    pub(super) fn insert_new<'a>(&mut self, id: usize, name: &str, name_of: impl Fn(u32) -> &'a str) -> bool {
        let short = self.short(name);
        if self.table.find(spread(short), |&(k, h)| h == short && name_of(k) == name).is_some() {
            return false;
        }
        self.insert_short(id, short);
        self.numbers.take(name);
        self.log_name(id);
        true
    }

    fn insert_short(&mut self, id: usize, short: u32) {
        // Ids fit u32: the hierarchy's links are u32 too.
        self.table.insert_unique(spread(short), (id as u32, short), |&(_, h)| spread(h));
    }

    /// Drops object `id`, named `name`.
    pub(super) fn remove(&mut self, id: usize, name: &str) {
        let short = self.short(name);
        if let Ok(entry) = self.table.find_entry(spread(short), |&(k, _)| k as usize == id) {
            entry.remove();
            self.numbers.free(name);
        }
    }
}

/// The objects of a scene by id ([`super::Scene::objects`]): indexing takes
/// an id (and panics on a dead slot, like an index past a `Vec`'s end),
/// [`Objects::iter`] goes through the live objects in id order (file order)
/// and [`Objects::len`] counts them. Ids are below
/// [`super::Scene::id_bound`], not below `len`, once objects were deleted.
#[derive(Clone, Copy)]
pub struct Objects<'a> {
    pub(super) slots: &'a [Option<Object>],
    pub(super) live: usize,
}

impl<'a> Objects<'a> {
    /// The live objects, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &'a Object> + 'a {
        self.slots.iter().flatten()
    }

    /// The number of live objects.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Object `id`, if its slot is live.
    pub fn get(&self, id: usize) -> Option<&'a Object> {
        self.slots.get(id).and_then(Option::as_ref)
    }
}

impl std::ops::Index<usize> for Objects<'_> {
    type Output = Object;
    fn index(&self, id: usize) -> &Object {
        self.get(id).unwrap_or_else(|| panic!("no object {id}"))
    }
}

impl<'a> IntoIterator for Objects<'a> {
    type Item = &'a Object;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'a, Option<Object>>>;
    fn into_iter(self) -> Self::IntoIter {
        self.slots.iter().flatten()
    }
}

/// The fields of an object that can be edited in place
/// ([`super::Scene::object_mut`]); the name is not among them, so the
/// scene's name index stays right and names stay unique.
pub struct ObjectMut<'a> {
    pub mesh: &'a mut MeshRef,
    /// Local transform, relative to the parent.
    pub transform: &'a mut Transform,
    /// Linear RGB in [0, 1].
    pub color: &'a mut [f32; 3],
    /// Whether its mesh casts shadows.
    pub cast_shadows: &'a mut bool,
    pub skin: &'a mut Option<Box<SkinRef>>,
    /// The glTF node it was read from ([`super::NodeOrigin`]).
    pub origin: &'a mut Option<Box<super::NodeOrigin>>,
}

impl<'a> ObjectMut<'a> {
    pub(super) fn new(o: &'a mut Object) -> ObjectMut<'a> {
        let Object { name: _, mesh, transform, color, hidden: _, cast_shadows, skin, extras: _, origin, fixture: _ } =
            o;
        ObjectMut { mesh, transform, color, cast_shadows, skin, origin }
    }
}
