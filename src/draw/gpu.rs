//! GPU culling from an editor: keeps the renderer's persistent scene
//! objects in step with the editor's scene (a full upload when objects were
//! added or removed, otherwise only the moved objects' records), and builds
//! frames that let the renderer's compute pass cull. The objects of meshes
//! with blended parts, which the compute pass skips, are listed in the
//! frame (frustum-culled here, sorted back to front by the renderer as on
//! the CPU path). The CPU side of such a frame costs what changed, what is
//! selected and the blended objects, not the scene's size.

use super::{CullStats, DrawError, Highlighter, SceneMeshes};
use crate::editor::{ChangeMark, Editor, SceneChanges};
use crate::math::View;
use crate::render::{FrameDesc, GpuSceneFrame, Highlight, Renderer, SceneObject};
use crate::scene::Scene;

/// What of an editor's scene a renderer holds ([`SceneMeshes::gpu_frame`]).
#[derive(Clone, Debug, Default)]
pub struct GpuSync {
    mark: Option<ChangeMark>,
    /// The objects whose meshes have blended parts (ascending), drawn from
    /// the frame's object list; set with every whole upload.
    blended: Vec<usize>,
}

impl GpuSync {
    /// Forgets what was uploaded: the next frame uploads every object (a
    /// new renderer, or a scene replaced outside the editor's log).
    pub fn reset(&mut self) {
        self.mark = None;
    }
}

impl SceneMeshes {
    /// Object `i` of `scene` as the GPU path keeps it.
    pub fn scene_object(&self, scene: &Scene, i: usize) -> SceneObject {
        self.object_with(scene, i, scene.world_matrix(i))
    }

    fn object_with(&self, scene: &Scene, i: usize, world: nalgebra::Matrix4<f64>) -> SceneObject {
        let o = &scene.objects()[i];
        SceneObject { mesh: self.get(&o.mesh), world, color: o.color }
    }

    /// Every object of `scene`, in scene order (object `i` has id `i + 1`).
    pub fn scene_objects(&self, scene: &Scene) -> Vec<SceneObject> {
        let worlds = scene.world_matrices();
        worlds.into_iter().enumerate().map(|(i, w)| self.object_with(scene, i, w)).collect()
    }

    /// Brings `renderer`'s scene objects up to date with `editor` (what
    /// changed since `sync`'s mark; everything the first time and after
    /// objects were added or removed).
    pub fn sync_gpu(&self, editor: &Editor, renderer: &mut Renderer, sync: &mut GpuSync) -> Result<(), DrawError> {
        let scene = editor.scene();
        match editor.changes_since(sync.mark) {
            SceneChanges::All => {
                renderer.set_scene_objects(&self.scene_objects(scene))?;
                sync.blended = self.blended_objects(scene, renderer);
            }
            SceneChanges::Moved([]) => {}
            SceneChanges::Moved(moved) => {
                let mut ids = moved.to_vec();
                ids.sort_unstable();
                ids.dedup();
                let changed: Vec<(u32, SceneObject)> =
                    ids.into_iter().map(|i| (i as u32, self.scene_object(scene, i))).collect();
                renderer.update_scene_objects(&changed)?;
            }
        }
        sync.mark = Some(editor.change_mark());
        Ok(())
    }

    /// The objects of `scene` (ascending) whose meshes have blended parts.
    fn blended_objects(&self, scene: &Scene, renderer: &Renderer) -> Vec<usize> {
        let objects = scene.objects().iter().enumerate();
        objects
            .filter(|(_, o)| self.get(&o.mesh).is_some_and(|m| renderer.mesh_is_blended(m)))
            .map(|(i, _)| i)
            .collect()
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
        let mut frame = FrameDesc::new(editor.camera, editor.depth);
        let highlight = Highlighter::new(editor.selection());
        let highlights = editor
            .selection()
            .iter()
            .filter(|&&i| self.get(&editor.scene().objects()[i].mesh).is_some())
            .map(|&i| (i as u32 + 1, highlight.of(i)))
            .filter(|(_, h)| *h != Highlight::None)
            .collect();
        frame.gpu_scene = Some(GpuSceneFrame { highlights });
        if !sync.blended.is_empty() {
            let (w, h) = editor.size();
            let frustum = View::new(editor.camera, w, h, editor.depth).ok().map(|v| v.frustum());
            let scene = editor.scene();
            let mut stats = CullStats::default();
            for &i in &sync.blended {
                let world = scene.world_matrix(i);
                self.push_object(&mut frame, &mut stats, scene, i, &world, frustum.as_ref(), &highlight, None);
            }
        }
        frame.overlay = editor.overlay();
        frame.selection_rect = editor.selection_rect();
        Ok(frame)
    }
}
