//! Picking and snapping on the drawn triangles: the meshes the editor
//! knows, the first surface under the cursor (object boxes as the broad
//! phase, each candidate's triangles in its own space), and the nearest
//! vertex on screen.

use std::sync::{Arc, OnceLock};

use nalgebra::{Point2, Point3};

use super::Editor;

/// Objects given new bounds at once from which [`Editor::set_mesh`] builds
/// the pick tree again rather than moving each (also at least an eighth
/// of the scene).
const REBUILD_AT: usize = 1024;
use crate::mesh::MeshData;
use crate::picking::MeshBvh;
use crate::scene::material::Cutout;
use crate::scene::MeshRef;

/// A mesh as picking sees it: its triangles, and the BVH over them, built
/// on first use and shared by every object that draws the mesh.
#[derive(Debug)]
pub struct PickMesh {
    pub data: Arc<MeshData>,
    /// Holes cut by `MASK` materials, if any.
    pub cutout: Option<Arc<Cutout>>,
    /// A posed mesh's tangents (one per vertex, xyz and the bitangent's
    /// sign w) for the draw layer; empty for a mesh without any, and for
    /// meshes that are not posed copies (the loaded mesh has its own).
    pub tangents: Vec<[f32; 4]>,
    pub(super) bvh: OnceLock<MeshBvh>,
}

impl PickMesh {
    pub fn new(data: Arc<MeshData>) -> PickMesh {
        PickMesh { data, cutout: None, tangents: Vec::new(), bvh: OnceLock::new() }
    }

    /// The nearest hit in `[0, t_max]` of a ray in the mesh's space on its
    /// solid surface (holes cut by `MASK` materials, and the back of
    /// single-sided triangles, let the ray through).
    pub fn ray(&self, origin: &Point3<f64>, dir: &nalgebra::Vector3<f64>, t_max: f64) -> Option<f64> {
        match &self.cutout {
            None => self.bvh().ray(origin, dir, t_max),
            Some(cut) => {
                let (positions, indices) = (&self.data.positions, &self.data.indices);
                let d = [dir.x, dir.y, dir.z];
                self.bvh().ray_where(origin, dir, t_max, |n, w| {
                    !cut.passes_behind(positions, indices, n, d) && cut.keeps(indices, n, w)
                })
            }
        }
    }

    /// The triangle BVH (built now if it was not yet).
    pub fn bvh(&self) -> &MeshBvh {
        self.bvh.get_or_init(|| MeshBvh::build(&self.data))
    }
}

/// How far from the camera a drop onto the ground plane may land (m).
pub const GROUND_REACH: f64 = 1000.0;

impl Editor {
    /// The triangles and local bounds of a mesh (e.g. once a glTF file is
    /// loaded); every object that uses it picks and snaps by them.
    pub fn set_mesh(&mut self, mesh: MeshRef, min: Point3<f64>, max: Point3<f64>, data: Arc<MeshData>) {
        self.pick.meshes.insert(&mesh, Arc::new(PickMesh::new(data)));
        if self.pick.known_bounds.insert(mesh.clone(), (min, max)) != Some((min, max)) {
            // Only objects whose bounds differ: a million cubes handed
            // their cube's own bounds again change nothing.
            let ids: Vec<usize> = self
                .scene
                .iter()
                .filter(|(i, o)| o.mesh == mesh && self.pick.bounds[*i] != (min, max))
                .map(|(i, _)| i)
                .collect();
            self.set_bounds_of(&ids, min, max);
            // Skinned objects keep their posed bounds.
            self.relink_skins();
        }
    }

    /// Gives the objects `ids` the local bounds `(min, max)`: moved in the
    /// pick tree one by one when they are few, the tree built again once
    /// when they are a good part of the scene (each move is a detach and a
    /// greedy re-insert, dearer per object than a build).
    fn set_bounds_of(&mut self, ids: &[usize], min: Point3<f64>, max: Point3<f64>) {
        if ids.len() < REBUILD_AT.max(self.pick.bounds.len() / 8) {
            for &i in ids {
                self.set_local_bounds(i, min, max);
            }
            return;
        }
        for &i in ids {
            self.pick.bounds.set(i, (min, max));
        }
        self.rebuild_index();
    }

    /// The holes `MASK` materials cut into a mesh handed over with
    /// [`Editor::set_mesh`]: clicks, box selection by rays and surface
    /// snapping go through them, as the drawn id buffer does.
    pub fn set_mesh_cutout(&mut self, mesh: &MeshRef, cutout: Arc<Cutout>) {
        let Some(data) = self.pick.meshes.get(mesh).map(|m| Arc::clone(&m.data)) else { return };
        self.pick.meshes.insert(mesh, Arc::new(PickMesh { cutout: Some(cutout), ..PickMesh::new(data) }));
        self.relink_skins();
    }

    /// Like [`Editor::set_mesh`] for a mesh no object uses yet (one about to
    /// be imported), with the holes its `MASK` materials cut: nothing else
    /// is touched, so the cost does not grow with the scene. A mesh already
    /// known is left as it is.
    pub fn add_mesh(
        &mut self,
        mesh: MeshRef,
        min: Point3<f64>,
        max: Point3<f64>,
        data: Arc<MeshData>,
        cutout: Option<Arc<Cutout>>,
    ) {
        if !self.pick.meshes.contains(&mesh) {
            self.pick.meshes.insert(&mesh, Arc::new(PickMesh { cutout, ..PickMesh::new(data) }));
            self.pick.known_bounds.insert(mesh, (min, max));
        }
    }

    /// Calls `f` with every object whose pick box may be in `frustum` (see
    /// [`BoxTree::visit_in_frustum`](crate::picking::BoxTree::visit_in_frustum)):
    /// frames are culled through the tree the editor keeps up to date, so
    /// their cost follows what is in view.
    pub fn visit_in_frustum(&self, frustum: &crate::math::Frustum, f: impl FnMut(usize)) {
        self.pick.index.visit_in_frustum(frustum, f);
    }

    /// Makes sure every primitive the scene uses has its triangles here,
    /// and every object knows its mesh's entry.
    pub(super) fn add_primitive_meshes(&mut self) {
        for (i, o) in self.scene.iter() {
            if let MeshRef::Primitive(p) = o.mesh {
                if !self.pick.meshes.contains(&o.mesh) {
                    let data = Arc::new(p.mesh());
                    // Closed primitives are picked from outside only, as drawn.
                    let cutout = (!p.double_sided())
                        .then(|| Arc::new(Cutout::single_sided(vec![(0, data.indices.len() as u32 / 3)])));
                    self.pick.meshes.insert(&o.mesh, Arc::new(PickMesh { cutout, ..PickMesh::new(data) }));
                }
            }
            self.pick.meshes.link(i, &o.mesh);
        }
    }

    /// The triangles object `i` draws: its posed ones if it is a posed
    /// skin, else its mesh's (`None` for a file mesh not handed over with
    /// [`Editor::set_mesh`]).
    pub(super) fn mesh_of(&self, i: usize) -> Option<&PickMesh> {
        if !self.skinning.posed.is_empty() {
            if let Some(posed) = self.skinning.posed.get(&i) {
                return Some(posed);
            }
        }
        self.pick.meshes.of(i)
    }

    /// The first surface under `cursor` on the drawn triangles of the objects
    /// `keep` accepts: the object and the world point. Oriented boxes are the
    /// broad phase, visited while they can still hold a nearer hit; each
    /// candidate's triangle BVH is searched in the object's own space (the
    /// ray through the inverse world matrix, in f64).
    pub fn surface_at(&self, cursor: Point2<f64>, keep: impl Fn(usize) -> bool) -> Option<(usize, Point3<f64>)> {
        let ray = self.view()?.cursor_ray(&cursor)?;
        let (id, t) = self.ray_hit(&ray, keep)?;
        Some((id, ray.at(t)))
    }

    /// Where a dropped file or an added object lands (`docs/spec/assets.md`,
    /// `docs/spec/organise.md`): the surface point under the cursor; over
    /// empty space the ground plane (y = 0) under the cursor when the
    /// cursor's ray meets it in front of the camera within 1 km; else the
    /// camera target.
    pub fn drop_point(&self) -> Point3<f64> {
        let cursor = self.cursor();
        if let Some((_, p)) = self.surface_at(cursor, |_| true) {
            return p;
        }
        let ground = self.view().and_then(|v| v.cursor_ray(&cursor)).and_then(|ray| {
            let (o, d) = (ray.origin, ray.dir.into_inner());
            let t = -o.y / d.y;
            (d.y != 0.0 && t.is_finite() && t > 0.0 && (ray.at(t) - o).norm() <= GROUND_REACH).then(|| ray.at(t))
        });
        ground.unwrap_or(self.shown_camera().target)
    }

    /// The vertex of the drawn meshes of the objects `keep` accepts whose
    /// screen position is nearest `cursor`, if one is within `radius_px`.
    pub fn vertex_near(
        &self,
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
                // (One candidate a pile of twins: the same vertices.)
                self.pick.index.pick_kept(&self.pick.boxes(&self.scene), &ray, &keep, |id, _, _| {
                    if !candidates.contains(&id) {
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
            for v in &mesh.data.positions {
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

#[cfg(test)]
impl Editor {
    /// The nearest pick box `ray` hits (boxes alone, no triangles).
    pub(super) fn pick_box(&self, ray: &crate::math::Ray) -> Option<crate::picking::SceneHit> {
        self.pick.index.pick_with(&self.pick.boxes(&self.scene), ray, |_, t, _| Some(t))
    }

    /// Object `i`'s pick box, as the tree derives it.
    pub(super) fn pick_obb(&self, i: usize) -> Option<crate::math::Obb> {
        crate::picking::Boxes::obb(&self.pick.boxes(&self.scene), i)
    }
}
