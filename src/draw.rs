//! Turns a scene into what the renderer draws: uploads each distinct mesh
//! once and maps objects to instances.

use std::collections::HashMap;

use crate::math::{Camera, DepthMode};
use crate::render::{DrawObject, FrameDesc, MeshId, RenderError, Renderer};
use crate::scene::{MeshRef, Scene};

/// Error while preparing a scene for drawing.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error("{0}")]
    Mesh(String),
}

/// The GPU meshes of one scene, keyed by mesh reference.
#[derive(Debug, Default)]
pub struct SceneMeshes {
    ids: HashMap<MeshRef, MeshId>,
}

impl SceneMeshes {
    /// Uploads every distinct mesh the scene uses.
    pub fn upload(renderer: &mut Renderer, scene: &Scene) -> Result<SceneMeshes, DrawError> {
        let mut ids = HashMap::new();
        for o in &scene.objects {
            if ids.contains_key(&o.mesh) {
                continue;
            }
            let data = match &o.mesh {
                MeshRef::Primitive(p) => p.mesh(),
                MeshRef::Gltf { path, .. } => {
                    return Err(DrawError::Mesh(format!("{}: glTF meshes are not supported yet", path.display())))
                }
            };
            ids.insert(o.mesh.clone(), renderer.add_mesh(&data)?);
        }
        Ok(SceneMeshes { ids })
    }

    pub fn get(&self, mesh: &MeshRef) -> Option<MeshId> {
        self.ids.get(mesh).copied()
    }

    /// A frame showing `scene` from `camera`; `selected` objects are tinted.
    pub fn frame(&self, scene: &Scene, camera: Camera, depth: DepthMode, selected: &[usize]) -> FrameDesc {
        let worlds = scene.world_matrices();
        let mut frame = FrameDesc::new(camera, depth);
        frame.objects = scene
            .objects
            .iter()
            .enumerate()
            .filter_map(|(i, o)| {
                Some(DrawObject {
                    mesh: self.get(&o.mesh)?,
                    world: worlds[i],
                    color: o.color,
                    tint: if selected.contains(&i) { 1.0 } else { 0.0 },
                })
            })
            .collect();
        frame
    }
}
