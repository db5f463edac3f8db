//! Structural scene changes: taking objects out of their slots with their
//! subtrees and putting them back in the same slots (delete and its undo),
//! and making copies with their descendants and `name.NNN` names in new
//! slots (duplicate). Each costs what it changes, not the scene.

use std::collections::{HashMap, HashSet};

use super::{HierarchyError, Object, Scene};

/// Objects out of a scene (or about to go in), with their ids and parents
/// in the scene they belong to: the record of one delete or duplicate,
/// which [`Scene::remove`] and [`Scene::restore`] invert.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detached {
    /// Ids (slots) in the scene, ascending.
    pub indices: Vec<usize>,
    pub objects: Vec<Object>,
    /// Parents as ids in the scene.
    pub parents: Vec<Option<usize>>,
    /// The places among their siblings that objects past the scene's last
    /// slot take when put back, in the items' order; empty: new places
    /// after every sibling ([`Hierarchy::attach`](super::Hierarchy::attach)).
    pub places: Vec<u64>,
}

impl Detached {
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

impl Scene {
    /// `ids` and all their descendants, ascending, each once (ids without
    /// an object are dropped). Costs what they hold, not the scene.
    pub fn with_descendants(&self, ids: &[usize]) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::with_capacity(ids.len());
        for &i in ids.iter().filter(|&&i| self.contains(i)) {
            out.push(i);
            out.extend(self.hierarchy.descendants(i));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Removes `ids` with their descendants, leaving their slots dead (no
    /// other id moves); what is returned puts them back exactly
    /// ([`Scene::restore`]): same ids, names, parents. Costs what is removed
    /// (and the child lists they leave), not the scene.
    pub fn remove(&mut self, ids: &[usize]) -> Detached {
        let gone = self.with_descendants(ids);
        for &i in &gone {
            self.names.remove(i, super::names::name_of(&self.objects, i as u32));
        }
        let parents = self.hierarchy.detach(&gone);
        let objects: Vec<Object> = gone.iter().filter_map(|&i| self.objects[i].take()).collect();
        self.live -= gone.len();
        if !self.hidden.is_empty() {
            for i in &gone {
                self.hidden.remove(i);
            }
        }
        if !self.fixtures.is_empty() {
            for i in &gone {
                self.fixtures.remove(i);
            }
        }
        self.structure = super::unique_version();
        Detached { indices: gone, objects, parents, places: Vec::new() }
    }

    /// Drops the slots from `bound` on, which must be dead (the copies of
    /// an undone duplicate, removed first): the ids they had are free again
    /// for the next added objects, so undo then redo gives the same ids.
    pub fn truncate(&mut self, bound: usize) {
        debug_assert!(self.objects.iter().skip(bound).all(Option::is_none), "truncating live objects");
        if bound < self.objects.len() {
            let live_past = self.objects[bound..].iter().flatten().count();
            self.live -= live_past;
            self.objects.truncate(bound);
            self.hierarchy.truncate(bound);
            self.structure = super::unique_version();
        }
    }

    /// Puts back what [`Scene::remove`] took out (or adds the copies of
    /// [`Scene::duplicates`] in new slots at the end) in their slots. Fails,
    /// changing nothing, if the items do not fit this scene (a live slot, an
    /// unknown parent, a cycle, a name in use). Costs what is added.
    pub fn restore(&mut self, items: &Detached) -> Result<(), HierarchyError> {
        if items.objects.len() != items.indices.len() || items.parents.len() != items.indices.len() {
            return Err(HierarchyError::NoSuchObject(self.id_bound()));
        }
        if let Some(k) = items.objects.iter().position(|o| self.find(&o.name).is_some()) {
            return Err(HierarchyError::Taken(items.indices[k]));
        }
        let links: Vec<(usize, Option<usize>)> =
            items.indices.iter().copied().zip(items.parents.iter().copied()).collect();
        self.hierarchy.attach(&links, &items.places)?;
        // Only now that nothing can fail: the objects into their slots.
        let end = self.hierarchy.len();
        if self.objects.len() < end {
            self.objects.resize_with(end, || None);
        }
        for (&i, o) in items.indices.iter().zip(&items.objects) {
            self.objects[i] = Some(o.clone());
            self.names.insert(i, &o.name);
        }
        self.live += items.len();
        self.hidden.extend(items.indices.iter().zip(&items.objects).filter(|(_, o)| o.hidden).map(|(&i, _)| i));
        self.fixtures
            .extend(items.indices.iter().zip(&items.objects).filter(|(_, o)| o.fixture.is_some()).map(|(&i, _)| i));
        self.structure = super::unique_version();
        Ok(())
    }

    /// Copies of `ids` with their descendants, to add with
    /// [`Scene::restore`] in new slots after the last: each copy keeps its
    /// original's parent unless that parent is copied too; names follow
    /// [`CopyNamer::copy_name`](super::CopyNamer::copy_name): the lowest free
    /// `.NNN` of the name's base (`docs/spec/editing.md`, "Scene changes"). Costs what is copied (names are looked up in the
    /// scene's name index).
    pub fn duplicates(&self, ids: &[usize]) -> Detached {
        let mut namer = self.copy_namer();
        let originals = self.with_descendants(ids);
        // Names of the copies so far (the scene's are in its index).
        let mut new_names: HashSet<String> = HashSet::with_capacity(originals.len());
        let mut copy_of = HashMap::with_capacity(originals.len());
        let mut out = Detached::default();
        for (k, &i) in originals.iter().enumerate() {
            let index = self.id_bound() + k;
            copy_of.insert(i, index);
            let o = self.obj(i);
            let name = namer.copy_name(&o.name, |c| self.find(c).is_some() || new_names.contains(c));
            new_names.insert(name.clone());
            out.indices.push(index);
            // A copy is made here: it was read from no node.
            out.objects.push(Object { name: name.into(), origin: None, ..o.clone() });
            // Re-pointed at the parent's copy below, once every copy is known.
            out.parents.push(self.hierarchy.parent(i));
        }
        for p in out.parents.iter_mut() {
            if let Some(q) = p {
                if let Some(&c) = copy_of.get(q) {
                    *p = Some(c);
                }
            }
        }
        // A copied skin follows the copies of its joints that were copied
        // with it (a duplicated model poses by its own skeleton); joints
        // left behind stay the originals.
        if out.objects.iter().any(|o| o.skin.is_some()) {
            let renamed: HashMap<&str, &str> = originals
                .iter()
                .zip(&out.objects)
                .map(|(&i, copy)| (self.obj(i).name.as_str(), copy.name.as_str()))
                .collect();
            let skins: Vec<Option<Box<super::SkinRef>>> =
                out.objects.iter().map(|o| rename_joints(o, &renamed)).collect();
            for (o, skin) in out.objects.iter_mut().zip(skins) {
                o.skin = skin;
            }
        }
        out
    }

    /// The objects of `other` (a whole scene, e.g. an imported glTF file's
    /// nodes), to add with [`Scene::restore`] in new slots after the last:
    /// same order and hierarchy, names made unique against this scene
    /// ([`CopyNamer::free_name`](super::CopyNamer::free_name)).
    pub fn appended(&self, other: &Scene) -> Detached {
        let mut namer = self.copy_namer();
        let mut new_names: HashSet<String> = HashSet::with_capacity(other.len());
        // `other`'s ids to the new ones (its live objects packed).
        let mut new_id = vec![usize::MAX; other.id_bound()];
        for (k, i) in other.ids().enumerate() {
            new_id[i] = self.id_bound() + k;
        }
        let mut out = Detached::default();
        for (i, o) in other.iter() {
            let name = namer.free_name(&o.name, |c| self.find(c).is_some() || new_names.contains(c));
            new_names.insert(name.clone());
            out.indices.push(new_id[i]);
            out.objects.push(Object { name: name.into(), ..o.clone() });
            out.parents.push(other.hierarchy.parent(i).map(|p| new_id[p]));
        }
        // Skins name their joints as renamed.
        if other.objects().iter().any(|o| o.skin.is_some()) {
            let renamed: HashMap<&str, &str> =
                other.objects().iter().zip(&out.objects).map(|(o, n)| (o.name.as_str(), n.name.as_str())).collect();
            let skins: Vec<Option<Box<super::SkinRef>>> =
                other.objects().iter().map(|o| rename_joints(o, &renamed)).collect();
            for (o, skin) in out.objects.iter_mut().zip(skins) {
                o.skin = skin;
            }
        }
        out
    }
}

/// `o`'s skin with its joints renamed where `renamed` says.
fn rename_joints(o: &Object, renamed: &HashMap<&str, &str>) -> Option<Box<super::SkinRef>> {
    o.skin.as_ref().map(|s| {
        Box::new(super::SkinRef {
            index: s.index,
            joints: s
                .joints
                .iter()
                .map(|j| renamed.get(j.as_str()).map_or_else(|| j.clone(), |n| n.to_string()))
                .collect(),
        })
    })
}
