//! Turns a scene (or an editor's state) into what the renderer draws:
//! uploads each distinct mesh once, culls objects outside the view frustum
//! and maps the rest to instances; adds the gizmo overlay.

use std::collections::HashMap;

use nalgebra::Point3;

use crate::editor::Editor;
use crate::math::geom::Obb;
use crate::math::{Camera, DepthMode, View};
use crate::render::{DrawObject, FrameDesc, MeshId, RenderError, Renderer};
use crate::scene::{MeshData, MeshRef, Scene};

/// Error while preparing a scene for drawing.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error("{0}")]
    Mesh(String),
}

/// Loads the CPU mesh a reference names.
pub fn load_mesh(mesh: &MeshRef) -> Result<MeshData, DrawError> {
    match mesh {
        MeshRef::Primitive(p) => Ok(p.mesh()),
        MeshRef::Gltf { path, .. } => {
            Err(DrawError::Mesh(format!("{}: glTF meshes are not supported yet", path.display())))
        }
    }
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
    /// Uploads every distinct mesh the scene uses.
    pub fn upload(renderer: &mut Renderer, scene: &Scene) -> Result<SceneMeshes, DrawError> {
        let mut entries = HashMap::new();
        for o in &scene.objects {
            if entries.contains_key(&o.mesh) {
                continue;
            }
            let data = load_mesh(&o.mesh)?;
            let (lo, hi) = data.bounds();
            let id = renderer.add_mesh(&data)?;
            let to64 = |v: [f32; 3]| Point3::new(v[0] as f64, v[1] as f64, v[2] as f64);
            entries.insert(o.mesh.clone(), Entry { id, min: to64(lo), max: to64(hi) });
        }
        Ok(SceneMeshes { entries })
    }

    pub fn get(&self, mesh: &MeshRef) -> Option<MeshId> {
        self.entries.get(mesh).map(|e| e.id)
    }

    /// Local bounds of a mesh, once uploaded.
    pub fn bounds(&self, mesh: &MeshRef) -> Option<(Point3<f64>, Point3<f64>)> {
        self.entries.get(mesh).map(|e| (e.min, e.max))
    }

    /// A frame showing `scene` from `camera` in a `width` x `height`
    /// viewport; `selected` objects are tinted, objects outside the view
    /// frustum are left out.
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
        for (i, o) in scene.objects.iter().enumerate() {
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
                tint: if selected.contains(&i) { 1.0 } else { 0.0 },
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
        (frame, stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            scene.objects[0].mesh.clone(),
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
