//! Turns a scene (or an editor's state) into what the renderer draws:
//! loads each distinct mesh once (built-in primitives, glTF files), uploads
//! it once, culls objects outside the view frustum and maps the rest to
//! instances; adds the gizmo overlay.
//!
//! Loading ([`LoadedMeshes`]) needs no GPU, so callers read every mesh file,
//! and fail on a bad one, before they create a renderer.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use nalgebra::Point3;

use crate::editor::{Editor, FrameProbe};
use crate::math::geom::Obb;
use crate::math::{Camera, DepthMode, View};
use crate::render::{DrawObject, FrameDesc, Highlight, MeshId, RenderError, Renderer};
use crate::scene::gltf::{load_gltf, GltfError, GltfFile};
use crate::scene::{MeshData, MeshRef, Scene};

/// Error while preparing a scene for drawing.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Gltf(#[from] GltfError),
}

/// Loads the CPU mesh a reference names; a glTF file that cannot be loaded
/// gives [`DrawError::Gltf`] (`<path>: <problem>`, one line). An empty
/// object's mesh has no triangles.
pub fn load_mesh(mesh: &MeshRef) -> Result<MeshData, DrawError> {
    match mesh {
        MeshRef::Primitive(p) => Ok(p.mesh()),
        MeshRef::Gltf { path, mesh: None, .. } => Ok(load_gltf(path)?),
        MeshRef::Gltf { path, mesh: Some(n), .. } => Ok(GltfFile::read(path)?.mesh(*n)?),
        MeshRef::Empty => Ok(MeshData::default()),
    }
}

/// The CPU meshes of one scene: each distinct mesh loaded once (a glTF mesh
/// once per resolved path and mesh index, however the scene spells it;
/// each glTF file parsed once). Empty objects, and glTF meshes without
/// triangles, have no entry: they draw nothing and cannot be picked.
#[derive(Debug, Default)]
pub struct LoadedMeshes {
    data: Vec<Arc<MeshData>>,
    slots: HashMap<MeshRef, usize>,
}

impl LoadedMeshes {
    /// Builds or reads every mesh the scene uses; stops at the first file
    /// that cannot be loaded.
    pub fn load(scene: &Scene) -> Result<LoadedMeshes, DrawError> {
        LoadedMeshes::load_with(scene, HashMap::new())
    }

    /// [`LoadedMeshes::load`] with glTF files already parsed (keyed by the
    /// path the scene's mesh references resolve to).
    pub fn load_with(scene: &Scene, mut files: HashMap<PathBuf, GltfFile>) -> Result<LoadedMeshes, DrawError> {
        let mut loaded = LoadedMeshes::default();
        let mut by_key: HashMap<(PathBuf, Option<usize>), Option<usize>> = HashMap::new();
        let mut done: HashSet<&MeshRef> = HashSet::new();
        for o in scene.objects() {
            if !done.insert(&o.mesh) {
                continue;
            }
            let slot = match &o.mesh {
                MeshRef::Gltf { path, mesh, .. } => match by_key.get(&(path.clone(), *mesh)) {
                    Some(&slot) => slot,
                    None => {
                        let file = match files.entry(path.clone()) {
                            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                            std::collections::hash_map::Entry::Vacant(e) => e.insert(GltfFile::read(path)?),
                        };
                        let data = match mesh {
                            None => file.merged()?,
                            Some(n) => file.mesh(*n)?,
                        };
                        let slot = (!data.indices.is_empty()).then(|| loaded.push(data));
                        by_key.insert((path.clone(), *mesh), slot);
                        slot
                    }
                },
                MeshRef::Primitive(_) => Some(loaded.push(load_mesh(&o.mesh)?)),
                MeshRef::Empty => None,
            };
            if let Some(slot) = slot {
                loaded.slots.insert(o.mesh.clone(), slot);
            }
        }
        Ok(loaded)
    }

    fn push(&mut self, data: MeshData) -> usize {
        self.data.push(Arc::new(data));
        self.data.len() - 1
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
    /// without touching the objects it has ([`Editor::add_mesh`]).
    pub fn hand_new_to(&self, editor: &mut Editor) {
        for (mesh, &slot) in &self.slots {
            let data = &self.data[slot];
            let (lo, hi) = data.bounds();
            editor.add_mesh(mesh.clone(), to_point(lo), to_point(hi), Arc::clone(data));
        }
    }

    /// Hands the editor every mesh the scene uses (shared, not copied):
    /// it picks, snaps and places the gizmo by their triangles and bounds.
    pub fn apply_bounds(&self, editor: &mut Editor) {
        for (mesh, &slot) in &self.slots {
            let data = &self.data[slot];
            let (lo, hi) = data.bounds();
            editor.set_mesh(mesh.clone(), to_point(lo), to_point(hi), Arc::clone(data));
        }
    }
}

fn to_point(v: [f32; 3]) -> Point3<f64> {
    Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))
}

/// A mesh on the GPU and its local bounds.
#[derive(Clone, Copy, Debug)]
struct Entry {
    id: MeshId,
    min: Point3<f64>,
    max: Point3<f64>,
}

/// The GPU meshes of one scene, keyed by mesh reference.
#[derive(Debug, Default)]
pub struct SceneMeshes {
    entries: HashMap<MeshRef, Entry>,
}

/// How many objects a frame kept and culled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CullStats {
    pub drawn: usize,
    pub culled: usize,
}

impl SceneMeshes {
    /// Loads and uploads every distinct mesh the scene uses.
    pub fn upload(renderer: &mut Renderer, scene: &Scene) -> Result<SceneMeshes, DrawError> {
        SceneMeshes::upload_loaded(renderer, &LoadedMeshes::load(scene)?)
    }

    /// Uploads meshes loaded by [`LoadedMeshes::load`], each one once.
    pub fn upload_loaded(renderer: &mut Renderer, loaded: &LoadedMeshes) -> Result<SceneMeshes, DrawError> {
        let mut gpu = Vec::with_capacity(loaded.data.len());
        for data in &loaded.data {
            let (lo, hi) = data.bounds();
            gpu.push(Entry { id: renderer.add_mesh(data)?, min: to_point(lo), max: to_point(hi) });
        }
        let entries = loaded.slots.iter().map(|(mesh, &slot)| (mesh.clone(), gpu[slot])).collect();
        Ok(SceneMeshes { entries })
    }

    /// Uploads the meshes of `loaded` not already here (an import's).
    pub fn add_loaded(&mut self, renderer: &mut Renderer, loaded: &LoadedMeshes) -> Result<(), DrawError> {
        let mut uploaded: HashMap<usize, Entry> = HashMap::new();
        for (mesh, &slot) in &loaded.slots {
            if self.entries.contains_key(mesh) {
                continue;
            }
            let entry = match uploaded.get(&slot) {
                Some(e) => *e,
                None => {
                    let data = &loaded.data[slot];
                    let (lo, hi) = data.bounds();
                    let e = Entry { id: renderer.add_mesh(data)?, min: to_point(lo), max: to_point(hi) };
                    *uploaded.entry(slot).or_insert(e)
                }
            };
            self.entries.insert(mesh.clone(), entry);
        }
        Ok(())
    }

    pub fn get(&self, mesh: &MeshRef) -> Option<MeshId> {
        self.entries.get(mesh).map(|e| e.id)
    }

    /// Local bounds of a mesh, once uploaded.
    pub fn bounds(&self, mesh: &MeshRef) -> Option<(Point3<f64>, Point3<f64>)> {
        self.entries.get(mesh).map(|e| (e.min, e.max))
    }

    /// A frame showing `scene` from `camera` in a `width` x `height`
    /// viewport; `selected` objects are outlined (the last one as the
    /// active object), objects outside the view frustum are left out. Each
    /// object's id is its index in the scene + 1.
    pub fn frame(
        &self,
        scene: &Scene,
        camera: Camera,
        depth: DepthMode,
        selected: &[usize],
        (width, height): (u32, u32),
    ) -> (FrameDesc, CullStats) {
        let worlds = scene.world_matrices();
        let frustum = View::new(camera, width as f64, height as f64, depth).ok().map(|v| v.frustum());
        let mut stats = CullStats::default();
        let mut frame = FrameDesc::new(camera, depth);
        for (i, o) in scene.objects().iter().enumerate() {
            let Some(e) = self.entries.get(&o.mesh) else { continue };
            if let Some(f) = &frustum {
                // A degenerate (zero-scale) object has no box and is drawn.
                let visible = Obb::from_local_aabb(&e.min, &e.max, &worlds[i]).is_none_or(|b| {
                    let (lo, hi) = b.aabb();
                    f.intersects_aabb(&lo, &hi)
                });
                if !visible {
                    stats.culled += 1;
                    continue;
                }
            }
            stats.drawn += 1;
            frame.objects.push(DrawObject {
                mesh: e.id,
                world: worlds[i],
                color: o.color,
                id: i as u32 + 1,
                highlight: if selected.last() == Some(&i) {
                    Highlight::Active
                } else if selected.contains(&i) {
                    Highlight::Selected
                } else {
                    Highlight::None
                },
            });
        }
        (frame, stats)
    }

    /// The frame for an editor's current state, gizmo overlay included.
    pub fn editor_frame(&self, editor: &Editor) -> (FrameDesc, CullStats) {
        let (w, h) = editor.size();
        let (mut frame, stats) =
            self.frame(editor.scene(), editor.camera, editor.depth, editor.selection(), (w as u32, h as u32));
        frame.overlay = editor.overlay();
        frame.selection_rect = editor.selection_rect();
        (frame, stats)
    }
}

/// The renderer's last frame as the editor reads it ([`FrameProbe`]): the
/// depth under the cursor and the objects in a selection box. The first
/// failed read (a lost device, say) is kept in `failed` for the caller: it
/// is an error, not "nothing there".
pub struct RenderProbe<'a> {
    pub renderer: &'a mut Renderer,
    pub failed: Option<RenderError>,
}

impl<'a> RenderProbe<'a> {
    pub fn new(renderer: &'a mut Renderer) -> RenderProbe<'a> {
        RenderProbe { renderer, failed: None }
    }
}

impl FrameProbe for RenderProbe<'_> {
    fn depth_at(&mut self, p: nalgebra::Point2<f64>) -> Option<f64> {
        match self.renderer.depth_at(p.x, p.y) {
            Ok(d) => d,
            Err(e) => {
                self.failed.get_or_insert(e);
                None
            }
        }
    }

    /// From the object-ID buffer: the ids of the pixels whose centres lie
    /// in the box (a small region read-back).
    fn objects_in(&mut self, min: nalgebra::Point2<f64>, max: nalgebra::Point2<f64>) -> Option<Vec<usize>> {
        // Pixel (x, y) has its centre at (x + 0.5, y + 0.5).
        let first = |v: f64| (v - 0.5).ceil().max(0.0);
        let last = |v: f64| (v - 0.5).floor();
        let (x0, y0, x1, y1) = (first(min.x), first(min.y), last(max.x), last(max.y));
        if !(x0 <= x1 && y0 <= y1 && x1.is_finite() && y1.is_finite()) {
            return Some(Vec::new());
        }
        let (w, h) = ((x1 - x0) as u32 + 1, (y1 - y0) as u32 + 1);
        match self.renderer.read_region(x0 as u32, y0 as u32, w, h) {
            Ok(region) => {
                let mut ids: Vec<usize> = region.ids.iter().filter(|&&id| id > 0).map(|&id| id as usize - 1).collect();
                ids.sort_unstable();
                ids.dedup();
                Some(ids)
            }
            // No frame yet: the editor casts rays instead.
            Err(RenderError::NothingDrawn) => None,
            Err(e) => {
                self.failed.get_or_insert(e);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Event, MouseButton};
    use std::path::Path;

    const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");

    #[test]
    fn each_gltf_file_loads_once() {
        let scene = Scene::load(&Path::new(ASSETS).join("gltf-demo.json")).unwrap();
        let loaded = LoadedMeshes::load(&scene).unwrap();
        // The floor plane, and one arrow for the two objects that use it.
        assert_eq!(loaded.len(), 2);
        let arrows: Vec<&MeshData> = scene
            .objects()
            .iter()
            .filter(|o| matches!(o.mesh, MeshRef::Gltf { .. }))
            .map(|o| loaded.get(&o.mesh).unwrap())
            .collect();
        assert_eq!(arrows.len(), 2);
        assert!(std::ptr::eq(arrows[0], arrows[1]));
        assert_eq!(arrows[0].positions.len(), 48);
    }

    #[test]
    fn each_gltf_mesh_index_loads_once_and_empties_load_nothing() {
        let scene = Scene::from_json(
            r#"{"objects":[{"name":"a","mesh":"arrow.gltf#0"},{"name":"b","mesh":"./arrow.gltf#0"},
                {"name":"c","mesh":"arrow.gltf"},{"name":"d","mesh":null}]}"#,
            Path::new(ASSETS),
        )
        .unwrap();
        let loaded = LoadedMeshes::load(&scene).unwrap();
        // Mesh 0 (shared by two spellings) and the merged file.
        assert_eq!(loaded.len(), 2);
        let o = scene.objects();
        assert!(std::ptr::eq(loaded.get(&o[0].mesh).unwrap(), loaded.get(&o[1].mesh).unwrap()));
        assert!(loaded.get(&o[3].mesh).is_none());
        let bad = Scene::from_json(r#"{"objects":[{"name":"a","mesh":"arrow.gltf#7"}]}"#, Path::new(ASSETS)).unwrap();
        let e = LoadedMeshes::load(&bad).unwrap_err().to_string();
        assert!(e.contains("arrow.gltf") && e.contains("no mesh 7"), "{e}");
    }

    #[test]
    fn the_editor_picks_gltf_objects_by_their_real_bounds() {
        let scene = Scene::from_json(
            r#"{"camera":{"eye":[0,0,10],"target":[0,0,0]},"objects":[{"name":"arrow","mesh":"arrow.gltf"}]}"#,
            Path::new(ASSETS),
        )
        .unwrap();
        let loaded = LoadedMeshes::load(&scene).unwrap();
        // Near the arrow's tip (local y up to 0.75): outside the unit cube
        // the editor assumes for a glTF mesh, inside the arrow's bounds.
        let click_tip = |editor: &mut Editor| {
            let at = editor.view().unwrap().world_to_screen(&Point3::new(0.0, 0.7, 0.0)).unwrap();
            editor.handle(&Event::CursorMoved { x: at.x, y: at.y });
            editor.handle(&Event::MouseDown { button: MouseButton::Left });
            editor.handle(&Event::MouseUp { button: MouseButton::Left });
            editor.selection().to_vec()
        };
        let mut editor = Editor::new(scene.clone(), 400.0, 300.0);
        assert!(click_tip(&mut editor).is_empty());
        let mut editor = Editor::new(scene, 400.0, 300.0);
        loaded.apply_bounds(&mut editor);
        assert_eq!(click_tip(&mut editor), vec![0]);
    }

    #[test]
    fn objects_outside_the_frustum_are_culled() {
        // Meshes are only needed for their bounds here: build entries by hand.
        let scene = Scene::from_json(
            r#"{ "camera": {"eye":[0,0,10],"target":[0,0,0]}, "objects": [
                { "name": "front", "mesh": "cube" },
                { "name": "behind", "mesh": "cube", "position": [0, 0, 20] },
                { "name": "far_left", "mesh": "cube", "position": [-100, 0, 0] },
                { "name": "edge", "mesh": "cube", "position": [4.8, 0, 0], "scale": [2, 1, 1] } ] }"#,
            std::path::Path::new("."),
        )
        .unwrap();
        let mut meshes = SceneMeshes::default();
        meshes.entries.insert(
            scene.objects()[0].mesh.clone(),
            Entry { id: MeshId(0), min: Point3::new(-0.5, -0.5, -0.5), max: Point3::new(0.5, 0.5, 0.5) },
        );
        let cam = scene.camera.unwrap();
        let (frame, stats) = meshes.frame(&scene, cam, DepthMode::Reversed, &[], (400, 300));
        assert_eq!(stats, CullStats { drawn: 2, culled: 2 });
        assert_eq!(frame.objects.len(), 2);
        // Same answer in standard depth.
        let (_, stats) = meshes.frame(&scene, cam, DepthMode::Standard, &[], (400, 300));
        assert_eq!(stats, CullStats { drawn: 2, culled: 2 });
    }
}
