//! Skinned objects in the draw layer: the skin data loaded with the
//! meshes (handed to the editor, which poses the objects), and per posed
//! object its own GPU mesh, whose vertices are rewritten when the editor
//! poses it anew ([`SceneMeshes::pose_skins`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::{to_point, DrawError, Entry, LoadedMeshes, SceneMeshes};
use crate::editor::{Editor, PickMesh, SkinKey};
use crate::render::{MeshId, MeshPart, MeshSurface, Renderer};
use crate::scene::gltf::GltfFile;
use crate::scene::{MeshRef, Object};

/// What a posed copy of a mesh draws besides its vertices: the UVs,
/// colours and material parts of the mesh it poses (its tangents are
/// posed with the vertices).
#[derive(Debug)]
pub(super) struct SkinSurface {
    pub uvs: Vec<[f32; 2]>,
    /// `TEXCOORD_1`, empty when the mesh's textures read none.
    pub uvs1: Vec<[f32; 2]>,
    pub colors: Vec<[f32; 4]>,
    pub parts: Vec<MeshPart>,
}

/// The GPU mesh showing one posed state of a skinned object.
#[derive(Debug)]
pub(super) struct PosedEntry {
    /// Held so that its address (the key) is not reused while this lives.
    _pick: Arc<PickMesh>,
    mesh: MeshRef,
    pub entry: Entry,
}

/// The key of a posed mesh: the address of the editor's posed triangles
/// (a new pose is a new allocation).
pub(super) fn posed_key(pick: &Arc<PickMesh>) -> usize {
    Arc::as_ptr(pick) as usize
}

impl LoadedMeshes {
    /// Reads the skin data an object's skin needs (once per mesh and skin),
    /// checking that the skin has as many joints as the object names.
    pub(super) fn load_skin(&mut self, o: &Object, files: &mut HashMap<PathBuf, GltfFile>) -> Result<(), DrawError> {
        let (Some(skin), Some((path, Some(n)))) = (&o.skin, o.mesh.gltf_mesh()) else { return Ok(()) };
        let key: SkinKey = (o.mesh.clone(), skin.index);
        if !self.skins.contains_key(&key) {
            let file = match files.entry(path.to_path_buf()) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert(GltfFile::read(path)?),
            };
            let data = file.skin_data(n, skin.index)?;
            self.skins.insert(key.clone(), Arc::new(data));
        }
        let joints = self.skins[&key].joint_count();
        if joints != skin.joints.len() {
            return Err(DrawError::Skin {
                name: o.name.to_string(),
                problem: format!("skin {} has {joints} joints, the object names {}", skin.index, skin.joints.len()),
            });
        }
        Ok(())
    }

    /// Reads the morph targets of every glTF mesh loaded that has any
    /// (meshes without targets cost a look at their primitives). Targets
    /// that cannot be read are a warning: the mesh draws at its default
    /// weights, as loaded.
    pub(super) fn load_morphs(&mut self, files: &HashMap<PathBuf, GltfFile>) {
        for mesh in self.slots.keys() {
            let Some((path, Some(n))) = mesh.gltf_mesh() else { continue };
            let Some(file) = files.get(path) else { continue };
            if self.morphs.contains_key(mesh) || file.morph_target_count(n) == 0 {
                continue;
            }
            match file.morph_data(n) {
                Ok(Some(data)) => {
                    self.morphs.insert(mesh.clone(), Arc::new(data));
                }
                Ok(None) => {}
                Err(e) => {
                    let line = format!("{e}: morph weights are not posed");
                    log::warn!("{line}");
                    self.warnings.push(line);
                }
            }
        }
    }

    /// Hands the editor the skin data and morph targets it does not have yet.
    pub(super) fn hand_skins_to(&self, editor: &mut Editor) {
        for (key, data) in &self.skins {
            if !editor.has_skin(key) {
                editor.set_skin(key.clone(), Arc::clone(data));
            }
        }
        if !self.morphs.is_empty() || !self.node_weights.is_empty() {
            let morphs = self.morphs.iter().map(|(m, d)| (m.clone(), Arc::clone(d)));
            editor.set_morphs(morphs, self.node_weights.iter().cloned());
        }
    }

    /// Whether some object poses mesh `mesh` with a skin or its morph targets.
    pub(super) fn is_skinned(&self, mesh: &MeshRef) -> bool {
        self.morphs.contains_key(mesh) || self.skins.keys().any(|(m, _)| m == mesh)
    }
}

impl SceneMeshes {
    /// Keeps what posed copies of the meshes `loaded` skins need (their
    /// UVs, colours and material parts), for meshes uploaded now or before
    /// (a mesh first used unskinned, then imported with a skin).
    pub(super) fn add_skin_surfaces(&mut self, loaded: &LoadedMeshes) {
        for (mesh, &slot) in &loaded.slots {
            if self.skin_surfaces.contains_key(mesh) || !loaded.is_skinned(mesh) {
                continue;
            }
            let (Some(parts), Some(surface)) = (self.parts_of.get(mesh), loaded.surfaces.get(slot)) else { continue };
            let copy = SkinSurface {
                uvs: surface.uvs.clone(),
                uvs1: surface.uvs1.clone(),
                colors: surface.colors.clone(),
                parts: parts.clone(),
            };
            self.skin_surfaces.insert(mesh.clone(), Arc::new(copy));
        }
    }

    /// Gives every object the editor has posed a GPU mesh with its posed
    /// vertices: a pose seen before keeps its mesh; a new pose rewrites
    /// the vertices of a mesh no object shows any more (an earlier pose of
    /// the same mesh), or uploads one. Call before
    /// [`SceneMeshes::editor_frame`] after the editor changed; without it
    /// skinned objects draw their last uploaded pose, or unposed.
    pub fn pose_skins(&mut self, renderer: &mut Renderer, editor: &Editor) -> Result<(), DrawError> {
        let live: HashMap<usize, (usize, &Arc<PickMesh>)> =
            editor.posed_meshes().map(|(i, m)| (posed_key(m), (i, m))).collect();
        let gone: Vec<usize> = self.posed.keys().filter(|k| !live.contains_key(k)).copied().collect();
        for k in gone {
            if let Some(p) = self.posed.remove(&k) {
                self.spare.entry(p.mesh).or_default().push(p.entry.id);
            }
        }
        for (key, (i, pick)) in live {
            if self.posed.contains_key(&key) {
                continue;
            }
            let mesh = &editor.scene().objects()[i].mesh;
            let Some(surface) = self.skin_surfaces.get(mesh) else { continue };
            let data = &pick.data;
            // The posed tangents, where the mesh has a normal texture.
            let tangents = (!pick.tangents.is_empty() && pick.tangents.len() == data.positions.len())
                .then_some(&pick.tangents[..]);
            let full = MeshSurface {
                uvs: &surface.uvs,
                uvs1: (!surface.uvs1.is_empty()).then_some(&surface.uvs1[..]),
                colors: &surface.colors,
                tangents,
                parts: &surface.parts,
            };
            let id: MeshId = match self.spare.get_mut(mesh).and_then(Vec::pop) {
                Some(id) => {
                    // Without tangents the spare's surface (UVs, colours)
                    // is this mesh's already; with them it is rewritten.
                    renderer.set_mesh_vertices(id, data, tangents.is_some().then_some(full))?;
                    id
                }
                None => renderer.add_mesh_surface(data, full)?,
            };
            let (lo, hi) = data.bounds();
            let entry = Entry { id, min: to_point(lo), max: to_point(hi) };
            self.posed.insert(key, PosedEntry { _pick: Arc::clone(pick), mesh: mesh.clone(), entry });
        }
        Ok(())
    }
}
