//! The CPU meshes of a scene, each loaded once, with their surfaces,
//! materials, images and skins; files that cannot be read become
//! placeholder boxes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{load_mesh, DrawError};
use nalgebra::Point3;

use super::to_point;
use crate::editor::{Editor, SkinKey};
use crate::scene::gltf::GltfFile;
use crate::scene::material::{Cutout, ImageData, Looks, Material, Surface, TextureRef};
use crate::scene::{MeshData, MeshRef, MorphData, Scene, SkinData};

/// A glTF node: its file (as objects' origins name it) and its index.
type NodeKey = (Arc<Path>, usize);

/// The box an object whose mesh file cannot be read draws and is picked
/// by: the unit cube at half size (0.5 m), so it reads as a stand-in.
fn placeholder_box() -> MeshData {
    let mut cube = MeshData::cube();
    for p in &mut cube.positions {
        *p = p.map(|c| c * 0.5);
    }
    cube
}

/// The CPU meshes of one scene: each distinct mesh loaded once (a glTF mesh
/// once per resolved path and mesh index, however the scene spells it;
/// each glTF file parsed once), with its [`Surface`] (UVs, vertex colours,
/// parts by material), and the materials and decoded base-colour images of
/// every glTF file used (each file's read once). Empty objects, and glTF
/// meshes without triangles, have no entry: they draw nothing and cannot
/// be picked.
#[derive(Debug, Default)]
pub struct LoadedMeshes {
    pub(super) data: Vec<Arc<MeshData>>,
    /// Parallel to `data`; part materials index `materials`.
    pub(super) surfaces: Vec<Surface>,
    /// Texture references index `images`.
    pub(super) materials: Vec<Material>,
    pub(super) images: Vec<Arc<ImageData>>,
    /// One line per image that could not be read (already logged).
    pub(super) warnings: Vec<String>,
    pub(super) slots: HashMap<MeshRef, usize>,
    /// Skin data by mesh and skin index, for the skinned objects.
    pub(super) skins: HashMap<SkinKey, Arc<SkinData>>,
    /// Morph targets by mesh, for the glTF meshes that have any.
    pub(super) morphs: HashMap<MeshRef, Arc<MorphData>>,
    /// The own `weights` of the glTF nodes objects were read from, where
    /// they have them.
    pub(super) node_weights: Vec<(NodeKey, Vec<f64>)>,
    /// The index in `materials` of [`Material::single_sided`], once a mesh
    /// needs it.
    single_sided: Option<usize>,
}

impl LoadedMeshes {
    /// The meshes loaded.
    pub fn mesh_refs(&self) -> impl Iterator<Item = &MeshRef> {
        self.slots.keys()
    }

    /// Builds or reads every mesh the scene uses. A glTF file that cannot be
    /// read (missing, broken, without the mesh named) is one warning line
    /// naming it and the first object using it; its objects draw a
    /// placeholder box (`docs/spec/roundtrip.md`, "Every saved file reopens").
    pub fn load(scene: &Scene) -> Result<LoadedMeshes, DrawError> {
        LoadedMeshes::load_with(scene, HashMap::new())
    }

    /// [`LoadedMeshes::load`] with glTF files already parsed (keyed by the
    /// path the scene's mesh references resolve to).
    pub fn load_with(scene: &Scene, files: HashMap<PathBuf, GltfFile>) -> Result<LoadedMeshes, DrawError> {
        LoadedMeshes::load_files(scene, files, true)
    }

    /// [`LoadedMeshes::load_with`] where a mesh that cannot be read is the
    /// error, not a placeholder: a reload takes a file whole or not at all.
    pub fn load_strict(scene: &Scene, files: HashMap<PathBuf, GltfFile>) -> Result<LoadedMeshes, DrawError> {
        LoadedMeshes::load_files(scene, files, false)
    }

    fn load_files(
        scene: &Scene,
        mut files: HashMap<PathBuf, GltfFile>,
        placeholders: bool,
    ) -> Result<LoadedMeshes, DrawError> {
        let mut loaded = LoadedMeshes::default();
        let mut by_key: HashMap<(PathBuf, Option<usize>, u32), Option<usize>> = HashMap::new();
        // Per glTF file: where its materials start in `loaded.materials`.
        let mut first_material: HashMap<PathBuf, usize> = HashMap::new();
        let mut done: HashSet<&MeshRef> = HashSet::new();
        // Files that could not be read, and the slot of the box they draw.
        let mut placeholder_files: HashSet<PathBuf> = HashSet::new();
        let mut placeholder: Option<usize> = None;
        for o in scene.objects() {
            if !done.insert(&o.mesh) {
                continue;
            }
            let slot = match &o.mesh {
                MeshRef::Gltf(g) => match by_key.get(&(g.path.clone(), g.mesh, g.version)) {
                    Some(&slot) => slot,
                    None => {
                        let (path, mesh) = (&g.path, &g.mesh);
                        let read = match files.entry(path.clone()) {
                            std::collections::hash_map::Entry::Occupied(e) => Ok(e.into_mut()),
                            std::collections::hash_map::Entry::Vacant(e) => GltfFile::read(path).map(|f| e.insert(f)),
                        };
                        let meshes = read.and_then(|file| {
                            let (data, surface) = match mesh {
                                None => file.merged_with_surface(),
                                Some(n) => file.mesh_with_surface(*n),
                            }?;
                            Ok((file, data, surface))
                        });
                        let slot = match meshes {
                            Ok((file, data, mut surface)) => {
                                let first = match first_material.get(path) {
                                    Some(&first) => first,
                                    None => {
                                        let first = loaded.add_looks(file.looks());
                                        first_material.insert(path.clone(), first);
                                        first
                                    }
                                };
                                for part in &mut surface.parts {
                                    part.material = match part.material {
                                        Some(m) => Some(first + m),
                                        // glTF's default material is single-sided.
                                        None => Some(loaded.single_sided_material()),
                                    };
                                }
                                (!data.indices.is_empty()).then(|| loaded.push(data, surface))
                            }
                            // A file that cannot be read (missing, broken, no
                            // such mesh): its objects keep their reference and
                            // draw a placeholder box; one warning per file.
                            Err(e) if !placeholders => return Err(e.into()),
                            Err(e) => {
                                if placeholder_files.insert(path.clone()) {
                                    let line = format!("object \"{}\": {e}: drawn as a placeholder box", o.name);
                                    log::warn!("{line}");
                                    loaded.warnings.push(line);
                                }
                                Some(*placeholder.get_or_insert_with(|| {
                                    let data = placeholder_box();
                                    let surface = Surface::plain(data.positions.len(), data.indices.len());
                                    loaded.push(data, surface)
                                }))
                            }
                        };
                        by_key.insert((path.clone(), *mesh, g.version), slot);
                        slot
                    }
                },
                MeshRef::Primitive(p) => {
                    let data = load_mesh(&o.mesh)?;
                    let mut surface = Surface::plain(data.positions.len(), data.indices.len());
                    // Closed primitives are single-sided, `plane` is not.
                    if !p.double_sided() {
                        let m = loaded.single_sided_material();
                        surface.parts.iter_mut().for_each(|part| part.material = Some(m));
                    }
                    Some(loaded.push(data, surface))
                }
                MeshRef::Empty => None,
            };
            if let Some(slot) = slot {
                loaded.slots.insert(o.mesh.clone(), slot);
            }
        }
        let placeheld =
            |o: &&crate::scene::Object| o.mesh.gltf_mesh().is_some_and(|(p, _)| placeholder_files.contains(p));
        for o in scene.objects().iter().filter(|o| o.skin.is_some() && !placeheld(o)) {
            loaded.load_skin(o, &mut files)?;
        }
        loaded.load_morphs(&files);
        // Objects read from nodes with their own morph weights.
        let objects = scene.objects();
        for i in scene.ids() {
            let Some(origin) = objects[i].origin.as_deref() else { continue };
            let Some(file) = files.get(&*origin.file) else { continue };
            if let Some(weights) = file.node_weights(origin.node) {
                loaded.node_weights.push(((origin.file.clone(), origin.node), weights));
            }
        }
        // Every file read without error: now their spec breaches.
        files.values().for_each(GltfFile::warn_problems);
        Ok(loaded)
    }

    /// The index of [`Material::single_sided`] in `materials`, added on
    /// first use.
    fn single_sided_material(&mut self) -> usize {
        *self.single_sided.get_or_insert_with(|| {
            self.materials.push(Material::single_sided());
            self.materials.len() - 1
        })
    }

    fn push(&mut self, data: MeshData, surface: Surface) -> usize {
        self.data.push(Arc::new(data));
        self.surfaces.push(surface);
        self.data.len() - 1
    }

    /// Adds a file's materials and images (logging a warning per image
    /// that could not be read); returns the index of its first material.
    fn add_looks(&mut self, looks: Looks) -> usize {
        for w in &looks.warnings {
            log::warn!("{w}");
        }
        self.warnings.extend(looks.warnings);
        let mut image_slots = Vec::with_capacity(looks.images.len());
        for image in looks.images {
            image_slots.push(image.map(|i| {
                self.images.push(i);
                self.images.len() - 1
            }));
        }
        let first = self.materials.len();
        for mut m in looks.materials {
            for t in m.textures_mut() {
                *t = t.and_then(|t| Some(TextureRef { image: image_slots[t.image]?, ..t }));
            }
            self.materials.push(m);
        }
        first
    }

    /// The surface (UVs, colours, parts) of the mesh `mesh` refers to.
    pub fn surface(&self, mesh: &MeshRef) -> Option<&Surface> {
        self.slots.get(mesh).and_then(|&slot| self.surfaces.get(slot))
    }

    /// Every glTF material of the scene (part materials index this).
    pub fn materials(&self) -> &[Material] {
        &self.materials
    }

    /// The decoded base-colour images (material textures index this).
    pub fn images(&self) -> &[Arc<ImageData>] {
        &self.images
    }

    /// The images and mesh files that could not be read, one line each
    /// (they were logged as warnings when loaded).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The mesh data `mesh` refers to, when the scene uses it.
    pub fn get(&self, mesh: &MeshRef) -> Option<&MeshData> {
        self.slots.get(mesh).and_then(|&slot| self.data.get(slot)).map(|d| &**d)
    }

    /// How many distinct meshes were loaded.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Hands the editor the meshes it does not know yet (an import's),
    /// with their `MASK` holes, without touching the objects it has
    /// ([`Editor::add_mesh`]).
    pub fn hand_new_to(&self, editor: &mut Editor) {
        for (mesh, lo, hi, data, cut) in self.pick_meshes() {
            editor.add_mesh(mesh.clone(), lo, hi, data, cut);
        }
        self.hand_skins_to(editor);
    }

    /// Hands the editor every mesh the scene uses (shared, not copied):
    /// it picks, snaps and places the gizmo by their triangles and bounds,
    /// with the holes `MASK` materials cut.
    pub fn apply_bounds(&self, editor: &mut Editor) {
        for (mesh, lo, hi, data, cut) in self.pick_meshes() {
            editor.set_mesh(mesh.clone(), lo, hi, data);
            if let Some(cut) = cut {
                editor.set_mesh_cutout(mesh, cut);
            }
        }
        self.hand_skins_to(editor);
    }

    /// What the editor picks by, per mesh: its reference, local bounds,
    /// triangles (shared) and `MASK` holes.
    #[allow(clippy::type_complexity)]
    fn pick_meshes(
        &self,
    ) -> impl Iterator<Item = (&MeshRef, Point3<f64>, Point3<f64>, Arc<MeshData>, Option<Arc<Cutout>>)> + '_ {
        self.slots.iter().map(|(mesh, &slot)| {
            let data = &self.data[slot];
            let (lo, hi) = data.bounds();
            let cut = Cutout::new(&self.surfaces[slot], &self.materials, &self.images).map(Arc::new);
            (mesh, to_point(lo), to_point(hi), Arc::clone(data), cut)
        })
    }
}
