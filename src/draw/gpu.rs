//! GPU culling from an editor: keeps the renderer's persistent scene
//! objects in step with the editor's scene (a full upload when objects were
//! added or removed, otherwise only the moved objects' records), and builds
//! frames that let the renderer's compute pass cull. The CPU side of such a
//! frame costs what changed and what is selected, not the scene's size.

use super::{DrawError, Highlighter, SceneMeshes};
use crate::editor::{ChangeMark, Editor, SceneChanges};
use crate::render::{FrameDesc, GpuSceneFrame, Highlight, Renderer, SceneObject};
use crate::scene::Scene;

/// What of an editor's scene a renderer holds ([`SceneMeshes::gpu_frame`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct GpuSync {
    mark: Option<ChangeMark>,
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
    /// World matrices are made one at a time (no list of them beside the
    /// objects: 128 bytes an object).
    pub fn scene_objects(&self, scene: &Scene) -> Vec<SceneObject> {
        scene.world_matrices_iter().enumerate().map(|(i, w)| self.object_with(scene, i, w)).collect()
    }

    /// Brings `renderer`'s scene objects up to date with `editor` (what
    /// changed since `sync`'s mark; everything the first time and after
    /// objects were added or removed).
    pub fn sync_gpu(&self, editor: &Editor, renderer: &mut Renderer, sync: &mut GpuSync) -> Result<(), DrawError> {
        let scene = editor.scene();
        match editor.changes_since(sync.mark) {
            SceneChanges::All => renderer.set_scene_objects(&self.scene_objects(scene))?,
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

    /// The frame for an editor's current state with GPU culling: the
    /// renderer's objects synced ([`SceneMeshes::sync_gpu`]), the selection
    /// as highlights, the gizmo overlay and the selection rectangle.
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
        frame.overlay = editor.overlay();
        frame.selection_rect = editor.selection_rect();
        Ok(frame)
    }
}
