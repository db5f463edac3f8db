//! Picking and snapping on the drawn triangles: the meshes the editor
//! knows, the first surface under the cursor (object boxes as the broad
//! phase, each candidate's triangles in its own space), and the nearest
//! vertex on screen.

use std::collections::HashMap;
use std::sync::Arc;

use nalgebra::{Point2, Point3};

use super::Editor;
use crate::mesh::MeshData;
use crate::picking;
use crate::scene::MeshRef;

impl Editor {
    /// The triangles and local bounds of a mesh (e.g. once a glTF file is
    /// loaded); every object that uses it picks and snaps by them.
    pub fn set_mesh(&mut self, mesh: MeshRef, min: Point3<f64>, max: Point3<f64>, data: Arc<MeshData>) {
        self.meshes.insert(mesh.clone(), data);
        if self.known_bounds.insert(mesh.clone(), (min, max)) != Some((min, max)) {
            let ids: Vec<usize> = (0..self.scene.len()).filter(|&i| self.scene.objects()[i].mesh == mesh).collect();
            for i in ids {
                self.set_local_bounds(i, min, max);
            }
        }
    }

    /// The triangles object `i` draws (generated once for a primitive;
    /// `None` for a file mesh not handed over with [`Editor::set_mesh`]).
    pub(super) fn mesh_of(&mut self, i: usize) -> Option<Arc<MeshData>> {
        let mesh = &self.scene.objects().get(i)?.mesh;
        if let Some(m) = self.meshes.get(mesh) {
            return Some(Arc::clone(m));
        }
        let MeshRef::Primitive(p) = mesh else { return None };
        let data = Arc::new(p.mesh());
        self.meshes.insert(mesh.clone(), Arc::clone(&data));
        Some(data)
    }

    /// The first surface under `cursor` on the drawn triangles of the objects
    /// `keep` accepts: the object and the world point. Oriented boxes are the
    /// broad phase; each candidate's triangles are tested in its own space.
    pub fn surface_at(&mut self, cursor: Point2<f64>, keep: impl Fn(usize) -> bool) -> Option<(usize, Point3<f64>)> {
        let ray = self.view()?.cursor_ray(&cursor)?;
        // Meshes of every candidate first (the closure below cannot borrow self mutably).
        let mut candidates: Vec<usize> = Vec::new();
        self.index.pick_with(&ray, |id, _| {
            candidates.push(id);
            None
        });
        let meshes: HashMap<usize, Arc<MeshData>> =
            candidates.iter().filter(|&&i| keep(i)).filter_map(|&i| Some((i, self.mesh_of(i)?))).collect();
        let hit = self.index.pick_with(&ray, |id, _| {
            let mesh = meshes.get(&id)?;
            let inv = self.scene.world_matrix(id).try_inverse()?;
            let origin = inv.transform_point(&ray.origin);
            let dir = inv.transform_vector(&ray.dir.into_inner());
            picking::ray_mesh(&origin, &dir, mesh)
        })?;
        Some((hit.id, ray.at(hit.t)))
    }

    /// The vertex of the drawn meshes of the objects `keep` accepts whose
    /// screen position is nearest `cursor`, if one is within `radius_px`.
    pub fn vertex_near(
        &mut self,
        cursor: Point2<f64>,
        radius_px: f64,
        keep: impl Fn(usize) -> bool,
    ) -> Option<Point3<f64>> {
        let view = self.view()?;
        // Candidates: objects whose boxes rays through a grid of points
        // around the cursor enter (4 px apart, covering the whole circle).
        let mut candidates: Vec<usize> = Vec::new();
        let steps = (radius_px / 4.0).ceil() as i32;
        for gy in -steps..=steps {
            for gx in -steps..=steps {
                let q = cursor + nalgebra::Vector2::new(gx as f64, gy as f64) * (radius_px / steps.max(1) as f64);
                let Some(ray) = view.cursor_ray(&q) else { continue };
                self.index.pick_with(&ray, |id, _| {
                    if keep(id) && !candidates.contains(&id) {
                        candidates.push(id);
                    }
                    None
                });
            }
        }
        let mut best: Option<(f64, Point3<f64>)> = None;
        for i in candidates {
            let Some(mesh) = self.mesh_of(i) else { continue };
            let world = self.scene.world_matrix(i);
            for v in &mesh.positions {
                let p = world.transform_point(&Point3::new(v[0] as f64, v[1] as f64, v[2] as f64));
                let Some(s) = view.world_to_screen(&p) else { continue };
                let d = (s - cursor).norm();
                if d <= radius_px && best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, p));
                }
            }
        }
        best.map(|(_, p)| p)
    }
}
