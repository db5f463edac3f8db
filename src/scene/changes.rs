//! Structural scene changes: taking objects out with their subtrees and
//! putting them back at their places (delete and its undo), and making
//! copies with their descendants and `name.NNN` names (duplicate).

use std::collections::{HashMap, HashSet};

use super::{Hierarchy, HierarchyError, Object, Scene};

/// Objects out of a scene (or about to go in), with their indices and
/// parents in the scene they belong to: the record of one delete or
/// duplicate, which [`Scene::remove`] and [`Scene::restore`] invert.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detached {
    /// Indices in the full scene, ascending.
    pub indices: Vec<usize>,
    pub objects: Vec<Object>,
    /// Parents as indices in the full scene.
    pub parents: Vec<Option<usize>>,
}

impl Detached {
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

/// The name of a copy of `name`: `base.NNN` with the lowest free
/// three-digit number from 001, where `base` is `name` without a `.NNN`
/// suffix of its own (`editing.md`, "Scene changes").
pub fn copy_name(name: &str, taken: impl Fn(&str) -> bool) -> String {
    let base = match name.rsplit_once('.') {
        Some((b, n)) if n.len() == 3 && n.bytes().all(|c| c.is_ascii_digit()) && !b.is_empty() => b,
        _ => name,
    };
    (1..)
        .map(|k| if k < 1000 { format!("{base}.{k:03}") } else { format!("{base}.{k}") })
        .find(|c| !taken(c))
        .expect("a free name exists")
}

/// `name` where `taken` says it is free, else its first free [`copy_name`]
/// (opening and importing a glTF file keep the nodes' own names where they can).
pub fn free_name(name: &str, taken: impl Fn(&str) -> bool) -> String {
    if taken(name) {
        copy_name(name, taken)
    } else {
        name.to_string()
    }
}

impl Scene {
    /// `ids` and all their descendants, ascending, each once (invalid ids
    /// are dropped).
    pub fn with_descendants(&self, ids: &[usize]) -> Vec<usize> {
        let mut mark = vec![false; self.len()];
        for &i in ids.iter().filter(|&&i| i < self.len()) {
            if !mark[i] {
                mark[i] = true;
                for d in self.hierarchy.descendants(i) {
                    mark[d] = true;
                }
            }
        }
        (0..self.len()).filter(|&i| mark[i]).collect()
    }

    /// Removes `ids` with their descendants; what is returned puts them
    /// back exactly ([`Scene::restore`]): same indices, names, parents.
    pub fn remove(&mut self, ids: &[usize]) -> Detached {
        let gone = self.with_descendants(ids);
        let n = self.len();
        // The last objects (undoing a duplicate): no object moves.
        if gone.first().is_some_and(|&first| first + gone.len() == n) {
            let first = n - gone.len();
            let parents = (first..n).map(|i| self.hierarchy.parent(i)).collect();
            self.hierarchy.truncate(first);
            return Detached { indices: gone, objects: self.objects.split_off(first), parents };
        }
        let mut new_index = vec![usize::MAX; n];
        let mut detached = Detached::default();
        let mut kept_objects = Vec::with_capacity(n - gone.len());
        let mut kept_parents = Vec::with_capacity(n - gone.len());
        let mut g = gone.iter().peekable();
        for (i, o) in std::mem::take(&mut self.objects).into_iter().enumerate() {
            if g.peek() == Some(&&i) {
                g.next();
                detached.indices.push(i);
                detached.parents.push(self.hierarchy.parent(i));
                detached.objects.push(o);
            } else {
                new_index[i] = kept_objects.len();
                kept_objects.push(o);
                kept_parents.push(self.hierarchy.parent(i));
            }
        }
        // A kept object's parent is kept too (removal takes whole subtrees).
        let parents: Vec<Option<usize>> = kept_parents.iter().map(|p| p.map(|p| new_index[p])).collect();
        self.objects = kept_objects;
        self.hierarchy = Hierarchy::from_parents(&parents).expect("removing subtrees keeps a forest");
        detached
    }

    /// Puts back what [`Scene::remove`] took out (or adds the copies of
    /// [`Scene::duplicates`]) at their indices; the objects after them
    /// move up. Fails, changing nothing, if the items do not fit this scene.
    pub fn restore(&mut self, items: &Detached) -> Result<(), HierarchyError> {
        // Appended at the end, parents first (a duplicate): no object moves.
        let n = self.len();
        let appended = items.indices.iter().enumerate().all(|(k, &i)| i == n + k);
        if appended && items.parents.iter().zip(&items.indices).all(|(p, &i)| p.is_none_or(|p| p < i)) {
            for (o, p) in items.objects.iter().zip(&items.parents) {
                self.hierarchy.push(*p)?;
                self.objects.push(o.clone());
            }
            return Ok(());
        }
        let total = self.len() + items.indices.len();
        if items.indices.windows(2).any(|w| w[0] >= w[1]) || items.indices.last().is_some_and(|&i| i >= total) {
            return Err(HierarchyError::NoSuchObject(total));
        }
        // Index of each present object after the insertion.
        let mut new_index = Vec::with_capacity(self.len());
        let mut at = items.indices.iter().peekable();
        let mut slot = 0;
        for _ in 0..self.len() {
            while at.peek() == Some(&&slot) {
                at.next();
                slot += 1;
            }
            new_index.push(slot);
            slot += 1;
        }
        let mut parents: Vec<Option<usize>> = vec![None; total];
        for i in 0..self.len() {
            parents[new_index[i]] = self.hierarchy.parent(i).map(|p| new_index[p]);
        }
        for (&i, p) in items.indices.iter().zip(&items.parents) {
            parents[i] = *p;
        }
        if parents.iter().flatten().any(|&p| p >= total) {
            return Err(HierarchyError::NoSuchObject(total));
        }
        let hierarchy = Hierarchy::from_parents(&parents)?;
        // Only now that nothing can fail: move the objects into place.
        let mut objects: Vec<Option<Object>> = (0..total).map(|_| None).collect();
        for (i, o) in std::mem::take(&mut self.objects).into_iter().enumerate() {
            objects[new_index[i]] = Some(o);
        }
        for (&i, o) in items.indices.iter().zip(&items.objects) {
            objects[i] = Some(o.clone());
        }
        self.objects = objects.into_iter().map(|o| o.expect("every slot filled")).collect();
        self.hierarchy = hierarchy;
        Ok(())
    }

    /// Copies of `ids` with their descendants, to append with
    /// [`Scene::restore`]: each copy keeps its original's parent unless that
    /// parent is copied too; names follow [`copy_name`].
    pub fn duplicates(&self, ids: &[usize]) -> Detached {
        let originals = self.with_descendants(ids);
        // Names in use: the scene's (borrowed) and the copies' so far.
        let existing: HashSet<&str> = self.objects.iter().map(|o| o.name.as_str()).collect();
        let mut new_names: HashSet<String> = HashSet::with_capacity(originals.len());
        let mut copy_of = HashMap::with_capacity(originals.len());
        let mut out = Detached::default();
        for (k, &i) in originals.iter().enumerate() {
            let index = self.len() + k;
            copy_of.insert(i, index);
            let name = copy_name(&self.objects[i].name, |c| existing.contains(c) || new_names.contains(c));
            new_names.insert(name.clone());
            out.indices.push(index);
            out.objects.push(Object { name, ..self.objects[i].clone() });
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
                .map(|(&i, copy)| (self.objects[i].name.as_str(), copy.name.as_str()))
                .collect();
            let skins: Vec<Option<super::SkinRef>> = out.objects.iter().map(|o| rename_joints(o, &renamed)).collect();
            for (o, skin) in out.objects.iter_mut().zip(skins) {
                o.skin = skin;
            }
        }
        out
    }

    /// The objects of `other` (a whole scene, e.g. an imported glTF file's
    /// nodes), to append with [`Scene::restore`]: same order and hierarchy,
    /// names made unique against this scene ([`free_name`]).
    pub fn appended(&self, other: &Scene) -> Detached {
        let existing: HashSet<&str> = self.objects.iter().map(|o| o.name.as_str()).collect();
        let mut new_names: HashSet<String> = HashSet::with_capacity(other.len());
        let mut out = Detached::default();
        for (k, o) in other.objects.iter().enumerate() {
            let name = free_name(&o.name, |c| existing.contains(c) || new_names.contains(c));
            new_names.insert(name.clone());
            out.indices.push(self.len() + k);
            out.objects.push(Object { name, ..o.clone() });
            out.parents.push(other.hierarchy.parent(k).map(|p| self.len() + p));
        }
        // Skins name their joints as renamed.
        if other.objects.iter().any(|o| o.skin.is_some()) {
            let renamed: HashMap<&str, &str> =
                other.objects.iter().zip(&out.objects).map(|(o, n)| (o.name.as_str(), n.name.as_str())).collect();
            let skins: Vec<Option<super::SkinRef>> = other.objects.iter().map(|o| rename_joints(o, &renamed)).collect();
            for (o, skin) in out.objects.iter_mut().zip(skins) {
                o.skin = skin;
            }
        }
        out
    }
}

/// `o`'s skin with its joints renamed where `renamed` says.
fn rename_joints(o: &Object, renamed: &HashMap<&str, &str>) -> Option<super::SkinRef> {
    o.skin.as_ref().map(|s| super::SkinRef {
        index: s.index,
        joints: s.joints.iter().map(|j| renamed.get(j.as_str()).map_or_else(|| j.clone(), |n| n.to_string())).collect(),
    })
}
