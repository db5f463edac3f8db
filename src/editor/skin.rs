//! Skinned objects in the editor: each one's own posed triangles (from
//! its skin and its joints' world matrices), which picking, box selection
//! by rays, snapping, the pivot bounds and the draw layer all use, kept
//! current whenever the object, a joint, or one of their ancestors moves,
//! and after every scene change (undo, redo, duplicate, delete, import).
//!
//! A skin whose joint is not in the scene (deleted) draws its mesh unposed,
//! as a plain `path#N` mesh would, until the joint comes back (undo).
//!
//! Objects whose mesh has morph targets are posed here too: at the weights
//! an animation shows, else their glTF node's own `weights`, else the
//! mesh's defaults (which the shared mesh already shows, so such objects
//! have no posed copy). Morph targets apply before the skin (glTF).

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use nalgebra::Point3;

use super::{mesh_bounds, Editor, PickMesh};
use crate::scene::{MeshRef, MorphData, Posed, SkinData};

/// Which skin data an object's skin needs: its mesh and the skin index.
pub type SkinKey = (MeshRef, usize);

/// A skinned object with its joints resolved to object indices (`None`
/// for a joint no longer in the scene).
#[derive(Clone, Debug)]
pub(super) struct SkinLink {
    pub(super) object: usize,
    key: SkinKey,
    joints: Vec<Option<usize>>,
}

impl Editor {
    /// The skin data of a mesh and skin index (read once a glTF file is
    /// loaded); every object using them is posed by its joints.
    pub fn set_skin(&mut self, key: SkinKey, data: Arc<SkinData>) {
        self.skinning.skins.insert(key, data);
        self.relink_skins();
    }

    /// Whether the skin data of `key` was handed over.
    pub fn has_skin(&self, key: &SkinKey) -> bool {
        self.skinning.skins.contains_key(key)
    }

    /// The posed triangles of object `i`, if it is a skinned object posed
    /// by its joints or an object whose morph weights are not its mesh's
    /// defaults (in its own space, drawn under its world matrix).
    pub fn posed_mesh(&self, i: usize) -> Option<&Arc<PickMesh>> {
        self.skinning.posed.get(&i)
    }

    /// Every posed skinned object and its triangles.
    pub fn posed_meshes(&self) -> impl Iterator<Item = (usize, &Arc<PickMesh>)> + '_ {
        self.skinning.posed.iter().map(|(&i, m)| (i, m))
    }

    /// Morph targets of meshes (read once a glTF file is loaded), and the
    /// own `weights` of glTF nodes (by file and node index): every object
    /// using such a mesh is posed by its weights, those of the node it was
    /// read from where that node has its own. What is known already is
    /// kept; the objects are posed again once, if anything was new.
    pub fn set_morphs(
        &mut self,
        morphs: impl IntoIterator<Item = (MeshRef, Arc<MorphData>)>,
        node_weights: impl IntoIterator<Item = ((Arc<Path>, usize), Vec<f64>)>,
    ) {
        let mut new = false;
        for (mesh, data) in morphs {
            if let std::collections::hash_map::Entry::Vacant(e) = self.skinning.morphs.entry(mesh) {
                e.insert(data);
                new = true;
            }
        }
        for (key, weights) in node_weights {
            if self.skinning.node_weights.get(&key) != Some(&weights) {
                self.skinning.node_weights.insert(key, weights);
                new = true;
            }
        }
        if new {
            self.relink_skins();
        }
    }

    /// Whether the morph targets of `mesh` were handed over.
    pub fn has_morph(&self, mesh: &MeshRef) -> bool {
        self.skinning.morphs.contains_key(mesh)
    }

    /// The morph weights object `i` shows (an animation's, else its node's,
    /// else its mesh's defaults); `None` when its mesh has no morph targets.
    pub fn morph_weights(&self, i: usize) -> Option<Vec<f64>> {
        let data = self.skinning.morphs.get(&self.scene.get(i)?.mesh)?;
        Some(self.own_weights(i).map_or_else(|| data.defaults.clone(), <[f64]>::to_vec))
    }

    /// Whether object `i`'s mesh has morph targets handed over.
    pub(super) fn is_morphed(&self, i: usize) -> bool {
        !self.skinning.morphs.is_empty()
            && self.scene.get(i).is_some_and(|o| self.skinning.morphs.contains_key(&o.mesh))
    }

    /// The weights object `i` shows other than its mesh's defaults.
    fn own_weights(&self, i: usize) -> Option<&[f64]> {
        if let Some(w) = self.skinning.shown_weights.get(&i) {
            return Some(w);
        }
        if self.skinning.node_weights.is_empty() {
            return None;
        }
        let origin = self.scene.get(i)?.origin.as_deref()?;
        self.skinning.node_weights.get(&(origin.file.clone(), origin.node)).map(Vec::as_slice)
    }

    /// Object `i`'s mesh and tangents at its weights, where they are not
    /// the mesh's defaults (its shared mesh shows those).
    fn morphed(&self, i: usize) -> Option<Posed> {
        if self.skinning.morphs.is_empty() {
            return None;
        }
        let data = self.skinning.morphs.get(&self.scene.get(i)?.mesh)?;
        let weights = self.own_weights(i)?;
        (!data.at_defaults(weights)).then(|| data.apply(weights))
    }

    /// Sets the weights an animation pose shows (replacing any shown
    /// before) and poses the objects whose weights changed.
    pub(super) fn show_weights(&mut self, weights: Vec<(usize, Vec<f64>)>) {
        let mut changed: Vec<usize> = Vec::new();
        let before = std::mem::take(&mut self.skinning.shown_weights);
        for (i, w) in weights {
            if before.get(&i) != Some(&w) {
                changed.push(i);
            }
            self.skinning.shown_weights.insert(i, w);
        }
        changed.extend(before.keys().filter(|i| !self.skinning.shown_weights.contains_key(i)));
        self.repose_objects(&changed);
    }

    /// Poses the objects `objects` again (those skinned or with morph targets).
    fn repose_objects(&mut self, objects: &[usize]) {
        if objects.is_empty() {
            return;
        }
        let wanted: HashSet<usize> = objects.iter().copied().collect();
        for k in 0..self.skinning.skin_links.len() {
            if wanted.contains(&self.skinning.skin_links[k].object) {
                self.repose(k);
            }
        }
        for k in 0..self.skinning.morph_links.len() {
            let i = self.skinning.morph_links[k];
            if wanted.contains(&i) {
                let posed = self.morphed(i);
                self.set_posed(i, posed);
            }
        }
    }

    /// Finds the skinned objects and their joints again (after objects
    /// came or went, or skin or morph data arrived) and poses them all, and
    /// the objects with morph targets. Costs nothing while no skin or
    /// morph data was handed over.
    pub(super) fn relink_skins(&mut self) {
        self.skinning.skin_links.clear();
        self.skinning.morph_links.clear();
        self.skinning.posed.clear();
        if self.skinning.skins.is_empty() && self.skinning.morphs.is_empty() {
            return;
        }
        let scene = &self.scene;
        let morphs = &self.skinning.morphs;
        for (i, o) in scene.iter() {
            let Some(skin) = &o.skin else {
                if !morphs.is_empty() && morphs.contains_key(&o.mesh) {
                    self.skinning.morph_links.push(i);
                }
                continue;
            };
            // Joints by name, through the scene's name index.
            let joints = skin.joints.iter().map(|j| scene.find(j)).collect();
            self.skinning.skin_links.push(SkinLink { object: i, key: (o.mesh.clone(), skin.index), joints });
        }
        for k in 0..self.skinning.skin_links.len() {
            self.repose(k);
        }
        for k in 0..self.skinning.morph_links.len() {
            let i = self.skinning.morph_links[k];
            let posed = self.morphed(i);
            self.set_posed(i, posed);
        }
    }

    /// Poses the skinned objects that the objects in `moved` (moved with
    /// their subtrees) carry along: those that moved or whose joints did.
    pub(super) fn repose_moved(&mut self, moved: &[usize]) {
        if self.skinning.skin_links.is_empty() {
            return;
        }
        let moved: HashSet<usize> = moved.iter().copied().collect();
        for k in 0..self.skinning.skin_links.len() {
            let l = &self.skinning.skin_links[k];
            if moved.contains(&l.object) || l.joints.iter().flatten().any(|j| moved.contains(j)) {
                self.repose(k);
            }
        }
    }

    /// Poses the object of link `k`: its own triangles, bounds and pick box;
    /// unposed (the mesh shared with plain objects) while a joint is
    /// missing or the skin does not fit the mesh.
    fn repose(&mut self, k: usize) {
        let l = &self.skinning.skin_links[k];
        let i = l.object;
        let Some(data) = self.skinning.skins.get(&l.key) else { return };
        let joints: Option<Vec<usize>> = l.joints.iter().copied().collect();
        let inverse = self.scene.world_inverse(i);
        // Morph targets first, then the skin.
        let morphed = self.morphed(i);
        let posed = match (joints, inverse) {
            (Some(joints), Some(inverse)) if joints.len() == data.joint_count() && !data.bind.indices.is_empty() => {
                let worlds = data.joint_worlds(&joints, i, |j| self.scene.world_matrix(j));
                Some(match &morphed {
                    Some(m) => data.pose_from(&m.mesh, &m.tangents, &worlds, &inverse),
                    None => data.pose(&worlds, &inverse),
                })
            }
            _ => morphed,
        };
        self.set_posed(i, posed);
    }

    /// Gives object `i` its posed triangles (and tangents), bounds and pick
    /// box; `None` shows its mesh as shared with plain objects.
    fn set_posed(&mut self, i: usize, posed: Option<Posed>) {
        let mesh = &self.scene.objects()[i].mesh;
        let (lo, hi) = match posed {
            Some(Posed { mesh: posed, tangents }) => {
                let (lo, hi) = posed.bounds();
                // MASK holes cut the same triangles, posed or not.
                let cutout = self.pick.meshes.get(mesh).and_then(|m| m.cutout.clone());
                let pick = Arc::new(PickMesh { cutout, tangents, ..PickMesh::new(Arc::new(posed)) });
                self.skinning.posed.insert(i, pick);
                (Point3::from(lo.map(f64::from)), Point3::from(hi.map(f64::from)))
            }
            None => {
                self.skinning.posed.remove(&i);
                self.pick.known_bounds.get(mesh).copied().unwrap_or_else(|| mesh_bounds(mesh))
            }
        };
        self.pick.bounds.set(i, (lo, hi));
        self.pick.set(i, &self.scene, &self.skinning.posed);
    }
}
