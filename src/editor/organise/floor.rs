//! Rays against the drawn triangles, and dropping the selection straight
//! down onto the surface below it or the ground (End).

use std::collections::HashSet;

use nalgebra::{Matrix4, Point3, Vector3};

use crate::editor::{Edit, Editor};
use crate::math::{Ray, Transform};

impl Editor {
    /// The nearest hit of `ray` on the drawn triangles of the objects
    /// `keep` accepts: the object and the distance along the ray.
    pub fn ray_hit(&self, ray: &Ray, keep: impl Fn(usize) -> bool) -> Option<(usize, f64)> {
        let hit = self.pick.index.pick_kept(&self.pick.boxes(&self.scene), ray, keep, |id, _, t_best| {
            let mesh = self.mesh_of(id)?;
            let inv = self.scene.world_inverse(id)?;
            let origin = inv.transform_point(&ray.origin);
            let dir = inv.transform_vector(&ray.dir.into_inner());
            mesh.ray(&origin, &dir, t_best)
        })?;
        Some((hit.id, hit.t))
    }

    /// End: each selected object moves straight down (world -Y) until its
    /// drawn geometry touches another (unselected) object's drawn surface
    /// below it, or the ground y = 0 where nothing is below; one already
    /// resting on or cutting into a surface stays, nothing moves up. The
    /// contact is found from the object's vertices downwards. One undo step.
    pub fn drop_to_floor(&mut self) -> bool {
        if self.gizmo.is_dragging() || self.selection.is_empty() {
            return false;
        }
        let selected: HashSet<usize> = self.scene.with_descendants(&self.selection).into_iter().collect();
        let down = Vector3::new(0.0, -1.0, 0.0);
        let mut moves: Vec<(usize, f64)> = Vec::new();
        for &i in &self.top_level(&self.selection) {
            // The vertices of the object and its descendants, in the world.
            let mut points: Vec<Point3<f64>> = Vec::new();
            for k in std::iter::once(i).chain(self.scene.hierarchy().descendants(i)) {
                let Some(mesh) = self.mesh_of(k) else { continue };
                let world = self.scene.world_matrix(k);
                points.extend(
                    mesh.data
                        .positions
                        .iter()
                        .map(|v| world.transform_point(&Point3::new(v[0].into(), v[1].into(), v[2].into()))),
                );
            }
            if points.is_empty() {
                // An empty: its origin.
                points.push(Point3::from(self.scene.world_matrix(i).fixed_view::<3, 1>(0, 3).into_owned()));
            }
            let fall = self.fall_of(&points, &selected);
            if fall.is_finite() && fall > 0.0 {
                moves.push((i, fall));
            }
        }
        if moves.is_empty() {
            return false;
        }
        let mut objects = Vec::new();
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for (i, fall) in moves {
            let parent_inv =
                self.scene.parent(i).and_then(|p| self.scene.world_inverse(p)).unwrap_or_else(Matrix4::identity);
            let t = self.scene.objects()[i].transform;
            let delta = parent_inv.transform_vector(&(down * fall));
            objects.push(i);
            before.push(t);
            after.push(Transform { position: t.position + delta, ..t });
        }
        let edit = Edit::Transform { objects, before, after };
        self.apply(&edit, true);
        self.history.push(edit);
        true
    }

    /// How far geometry with these world `points` falls straight down
    /// before it touches a surface of an object `moving` lacks, or the
    /// ground: 0 when it already rests on or cuts into one (a point below
    /// the ground, or a surface between a point and the geometry's top).
    fn fall_of(&self, points: &[Point3<f64>], moving: &HashSet<usize>) -> f64 {
        let up = Vector3::new(0.0, 1.0, 0.0);
        let top = points.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max);
        let mut fall = f64::INFINITY;
        for p in points {
            if p.y < 0.0 {
                return 0.0;
            }
            // A surface between this point and the geometry's top (seen
            // from above, as triangles face): the geometry cuts into it
            // (a cube sunk into a slab).
            if let Some(ray) = Ray::new(Point3::new(p.x, top + 1e-6, p.z), -up) {
                let below_top = self.ray_hit(&ray, |id| !moving.contains(&id)).map(|(_, t)| top + 1e-6 - t);
                if below_top.is_some_and(|y| y > p.y + 1e-6) {
                    return 0.0;
                }
            }
            let Some(ray) = Ray::new(*p, -up) else { continue };
            let hit = self.ray_hit(&ray, |id| !moving.contains(&id)).map(|(_, t)| t);
            fall = fall.min(hit.map_or(p.y, |h| h.min(p.y)));
        }
        fall
    }
}
