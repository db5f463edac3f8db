//! GPU culling from an editor: keeps the renderer's persistent scene
//! objects (one record per id, dead slots drawing nothing) in step with the
//! editor's scene (only the records of objects moved, added or removed;
//! a full upload the first time and when new ids outgrow the records), and
//! builds frames that let the renderer's compute pass cull. The objects of
//! meshes with blended parts, which the compute pass skips, are listed in
//! the frame (frustum-culled here, sorted back to front by the renderer as
//! on the CPU path). The CPU side of such a frame costs what changed and
//! the blended objects, not the scene's size; the outline list of the
//! selection is made again only when the selection or the scene's
//! structure changed.

use std::sync::Arc;

use super::{appearance, CullStats, DrawError, Highlighter, SceneMeshes};
use crate::editor::{ChangeMark, Editor, SceneChanges};
use crate::math::View;
use crate::render::cull::compute::Pending;
use crate::render::{FrameDesc, GpuSceneFrame, Highlight, MeshId, Renderer, SceneObject};
use crate::scene::{MeshRef, Object, Scene};

/// What of an editor's scene a renderer holds ([`SceneMeshes::gpu_frame`]).
#[derive(Clone, Debug, Default)]
pub struct GpuSync {
    mark: Option<ChangeMark>,
    /// Records the renderer holds (ids below it can be updated in place).
    records: usize,
    /// The live objects whose meshes have blended parts (ascending), drawn
    /// from the frame's object list; set with every whole upload and kept
    /// in step with the objects that change.
    blended: Vec<usize>,
    /// The outline list of the last frame and what it was made from (the
    /// selection's version, the scene's structure): a large selection's
    /// list is not made again every frame.
    highlights: Option<((u64, u64), Outlined)>,
}

/// The outlined objects of a frame: id + 1 and how ([`GpuSceneFrame::highlights`]).
type Outlined = Arc<[(u32, Highlight)]>;

impl GpuSync {
    /// Forgets what was uploaded: the next frame uploads every object (a
    /// new renderer, or a scene replaced outside the editor's log).
    pub fn reset(&mut self) {
        self.mark = None;
    }
}

/// Mesh lookups that remember the last answer: runs of objects with the
/// same mesh (the usual order of large scenes) look it up once.
struct MeshRuns<'a> {
    meshes: &'a SceneMeshes,
    last: Option<(&'a MeshRef, Option<MeshId>)>,
}

impl<'a> MeshRuns<'a> {
    fn new(meshes: &'a SceneMeshes) -> MeshRuns<'a> {
        MeshRuns { meshes, last: None }
    }

    fn get(&mut self, mesh: &'a MeshRef) -> Option<MeshId> {
        match self.last {
            Some((r, m)) if *r == *mesh => m,
            _ => {
                let m = self.meshes.get(mesh);
                self.last = Some((mesh, m));
                m
            }
        }
    }

    /// Object `i` of `scene` as it is now (its world matrix made from the
    /// scene), for a renderer that asks by index.
    fn current(&mut self, scene: &'a Scene, i: u32) -> SceneObject {
        let i = i as usize;
        self.object(scene, i, || scene.world_matrix(i))
    }

    /// Object `i` of `scene` as the GPU path keeps it, `world` giving its
    /// world matrix (a dead slot: a record that draws nothing).
    fn object(&mut self, scene: &'a Scene, i: usize, world: impl FnOnce() -> nalgebra::Matrix4<f64>) -> SceneObject {
        let Some(o) = scene.get(i) else { return SceneObject::NONE };
        let world = world();
        match appearance(scene, i, o, |m| self.get(m)) {
            Some((mesh, color)) => SceneObject { mesh: Some(mesh), world, color },
            None => SceneObject { mesh: None, world, color: o.color },
        }
    }
}

impl SceneMeshes {
    /// Object `i` of `scene` as the GPU path keeps it (a dead slot: a
    /// record that draws nothing).
    pub fn scene_object(&self, scene: &Scene, i: usize) -> SceneObject {
        MeshRuns::new(self).object(scene, i, || scene.world_matrix(i))
    }

    /// Every slot of `scene`, by id (object `i` has id `i + 1`; a dead
    /// slot's record draws nothing), one at a time: world matrices are
    /// made as they are read, and an upload writes each straight into
    /// staging memory (no list of them beside the scene).
    /// Runs of objects with the same mesh (the usual order of large scenes)
    /// look the mesh up once.
    pub fn scene_objects<'a>(&'a self, scene: &'a Scene) -> impl Iterator<Item = SceneObject> + 'a {
        let mut runs = MeshRuns::new(self);
        scene.world_matrices_iter().enumerate().map(move |(i, world)| runs.object(scene, i, || world))
    }

    /// Brings `renderer`'s scene objects up to date with `editor`: what
    /// changed since `sync`'s mark, record by record (ids are stable, so a
    /// delete or its undo rewrites only the records of the objects that
    /// went or came back, and new objects take new records and the free
    /// member slots of their meshes). Everything is uploaded the first time.
    /// When new objects outgrow the records held, the renderer makes room
    /// for half as many again by copying the records on the device, so a
    /// run of duplicates never uploads the scene again.
    pub fn sync_gpu(&self, editor: &Editor, renderer: &mut Renderer, sync: &mut GpuSync) -> Result<(), DrawError> {
        let scene = editor.scene();
        let changes = editor.changes_since(sync.mark);
        let bound = scene.id_bound();
        if let SceneChanges::All = changes {
            renderer.set_scene_objects(bound, self.scene_objects(scene))?;
            sync.records = bound;
            sync.blended = self.blended_objects(scene, renderer);
        } else if let SceneChanges::Changed(changed) = changes {
            let shown_or_hidden = editor.visibility_since(sync.mark);
            if changed.is_empty() && shown_or_hidden.is_empty() {
                sync.mark = Some(editor.change_mark());
                return self.settle(scene, renderer);
            }
            if bound > sync.records {
                renderer.grow_scene_objects(bound + bound / 2)?;
                sync.records = bound + bound / 2;
            }
            // Ids past the records (so past every live one) came and went
            // since the last sync (a duplicate undone before the next
            // frame): the renderer never held them, and nothing changes.
            let mut ids: Vec<usize> = changed.iter().copied().filter(|&i| i < sync.records).collect();
            ids.sort_unstable();
            ids.dedup();
            let any_blended = !sync.blended.is_empty() || self.entries.values().any(|e| renderer.mesh_is_blended(e.id));
            // Objects hidden or shown, nothing else of them changed: a bit
            // each for the cull (the whole record where the renderer cannot
            // take the record back, and always when blended meshes are
            // about, whose objects are listed apart). The log says each
            // one's state; the last entry of an object is its state now, so
            // no object is read: objects spread through a large scene cost
            // their bits.
            let mut states = Pending::new();
            for &(i, hidden) in shown_or_hidden.iter().filter(|&&(i, _)| i < sync.records) {
                if ids.binary_search(&i).is_err() {
                    states.insert(i as u32, hidden);
                }
            }
            states.settle();
            let last: Vec<(u32, bool)> = states.keys().zip(states.values().iter().copied()).collect();
            if any_blended {
                ids.extend(last.iter().map(|&(i, _)| i as usize));
            } else if !last.is_empty() {
                let whole = renderer.set_scene_objects_shown(&last)?;
                ids.extend(whole.into_iter().map(|i| i as usize));
            }
            ids.sort_unstable();
            ids.dedup();
            if any_blended {
                for &i in &ids {
                    let blended = scene.get(i).is_some_and(|o| self.is_blended(scene, i, o, renderer));
                    match (sync.blended.binary_search(&i), blended) {
                        (Err(at), true) => sync.blended.insert(at, i),
                        (Ok(at), false) => {
                            sync.blended.remove(at);
                        }
                        _ => {}
                    }
                }
            }
            // Each record made as the renderer reads it (no list of them).
            let mut runs = MeshRuns::new(self);
            let ids: Vec<u32> = ids.into_iter().map(|i| i as u32).collect();
            renderer.update_scene_objects_with(&ids, |i| runs.current(scene, i))?;
            self.settle(scene, renderer)?;
        }
        sync.mark = Some(editor.change_mark());
        Ok(())
    }

    /// Makes the world boxes earlier frames left to make, within this
    /// frame's budget ([`Renderer::settle_scene_objects`]).
    fn settle(&self, scene: &Scene, renderer: &mut Renderer) -> Result<(), DrawError> {
        let mut runs = MeshRuns::new(self);
        renderer.settle_scene_objects(|i| runs.current(scene, i))?;
        Ok(())
    }

    /// The live objects of `scene` (ascending ids) whose meshes have
    /// blended parts (none without looking at the objects when no mesh has).
    fn blended_objects(&self, scene: &Scene, renderer: &Renderer) -> Vec<usize> {
        if !self.entries.values().any(|e| renderer.mesh_is_blended(e.id)) {
            return Vec::new();
        }
        scene.iter().filter(|&(i, o)| self.is_blended(scene, i, o, renderer)).map(|(i, _)| i).collect()
    }

    /// Whether `o` draws a mesh with blended parts (drawn from the frame's
    /// object list).
    fn is_blended(&self, scene: &Scene, i: usize, o: &Object, renderer: &Renderer) -> bool {
        appearance(scene, i, o, |m| self.get(m)).is_some_and(|(m, _)| renderer.mesh_is_blended(m))
    }

    /// The frame for an editor's current state with GPU culling: the
    /// renderer's objects synced ([`SceneMeshes::sync_gpu`]), the objects
    /// of blended meshes that meet the frustum as the frame's object list
    /// (as the CPU path lists them), the selection as highlights, the gizmo
    /// overlay and the selection rectangle.
    pub fn gpu_frame(
        &self,
        editor: &Editor,
        renderer: &mut Renderer,
        sync: &mut GpuSync,
    ) -> Result<FrameDesc, DrawError> {
        self.sync_gpu(editor, renderer, sync)?;
        let mut frame = FrameDesc::new(editor.shown_camera(), editor.depth);
        let highlight = Highlighter::of_editor(editor);
        let key = (editor.selection_version(), editor.scene().structure());
        let highlights = match &sync.highlights {
            Some((k, list)) if *k == key => list.clone(),
            _ => {
                // Every listed object is selected (no flag to look up): the
                // last one is the active one. Selected objects that draw
                // nothing (empties, hidden ones) are listed too: with no
                // pixels in the ID target they are outlined nowhere, and a
                // large selection spread through a large scene is listed
                // without reading its objects.
                let list: Outlined =
                    editor.selection().iter().map(|&i| (i as u32 + 1, highlight.of_selected(i))).collect();
                sync.highlights = Some((key, list.clone()));
                list
            }
        };
        frame.gpu_scene = Some(GpuSceneFrame { highlights });
        if !sync.blended.is_empty() {
            // In one view: those in its frustum; in several: all of them
            // (each view's clipping does the rest).
            let (w, h) = editor.size();
            let frustum = View::new(editor.shown_camera(), w, h, editor.depth).ok().map(|v| v.frustum());
            let frustum = frustum.filter(|_| !editor.is_quad());
            let scene = editor.scene();
            let mut stats = CullStats::default();
            for &i in &sync.blended {
                let world = scene.world_matrix(i);
                self.push_object(&mut frame, &mut stats, scene, i, &world, frustum.as_ref(), &highlight, None);
            }
        }
        frame.overlay = editor.overlay();
        super::set_views(editor, &mut frame);
        self.light_frame(editor, &mut frame);
        frame.selection_rect = editor.selection_rect();
        Ok(frame)
    }
}
