//! Skinned objects in the editor: each one's own posed triangles (from
//! its skin and its joints' world matrices), which picking, box selection
//! by rays, snapping, the pivot bounds and the draw layer all use, kept
//! current whenever the object, a joint, or one of their ancestors moves,
//! and after every scene change (undo, redo, duplicate, delete, import).
//!
//! A skin whose joint is not in the scene (deleted) draws its mesh unposed,
//! as a plain `path#N` mesh would, until the joint comes back (undo).

use std::collections::HashSet;
use std::sync::Arc;

use nalgebra::Point3;

use super::{mesh_bounds, Editor, PickMesh};
use crate::scene::{MeshRef, SkinData};

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
    /// by its joints (in its own space, drawn under its world matrix).
    pub fn posed_mesh(&self, i: usize) -> Option<&Arc<PickMesh>> {
        self.skinning.posed.get(&i)
    }

    /// Every posed skinned object and its triangles.
    pub fn posed_meshes(&self) -> impl Iterator<Item = (usize, &Arc<PickMesh>)> + '_ {
        self.skinning.posed.iter().map(|(&i, m)| (i, m))
    }

    /// Finds the skinned objects and their joints again (after objects
    /// came or went, or skin data arrived) and poses them all. Costs
    /// nothing while no skin data was handed over.
    pub(super) fn relink_skins(&mut self) {
        self.skinning.skin_links.clear();
        self.skinning.posed.clear();
        if self.skinning.skins.is_empty() {
            return;
        }
        let scene = &self.scene;
        for (i, o) in scene.iter() {
            let Some(skin) = &o.skin else { continue };
            // Joints by name, through the scene's name index.
            let joints = skin.joints.iter().map(|j| scene.find(j)).collect();
            self.skinning.skin_links.push(SkinLink { object: i, key: (o.mesh.clone(), skin.index), joints });
        }
        for k in 0..self.skinning.skin_links.len() {
            self.repose(k);
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
        let posed = match (joints, inverse) {
            (Some(joints), Some(inverse)) if joints.len() == data.joint_count() && !data.bind.indices.is_empty() => {
                let worlds = data.joint_worlds(&joints, i, |j| self.scene.world_matrix(j));
                Some(data.pose(&worlds, &inverse))
            }
            _ => None,
        };
        let mesh = &self.scene.objects()[i].mesh;
        let (lo, hi) = match posed {
            Some(posed) => {
                let (lo, hi) = posed.bounds();
                // MASK holes cut the same triangles, posed or not.
                let cutout = self.pick.meshes.get(mesh).and_then(|m| m.cutout.clone());
                let pick = Arc::new(PickMesh { cutout, ..PickMesh::new(Arc::new(posed)) });
                self.skinning.posed.insert(i, pick);
                (Point3::from(lo.map(f64::from)), Point3::from(hi.map(f64::from)))
            }
            None => {
                self.skinning.posed.remove(&i);
                self.pick.known_bounds.get(mesh).copied().unwrap_or_else(|| mesh_bounds(mesh))
            }
        };
        self.pick.bounds.set(i, (lo, hi));
        self.pick.set(i, &self.scene);
    }
}
