//! Exact picking of a triangle mesh: a BVH over its triangles (built once
//! per mesh with obvhs, in the mesh's own space, shared by every object
//! that draws the mesh) and a watertight ray-triangle test in f64.
//!
//! The tree's boxes are f32 bounds of the f32 vertices, padded at build
//! time by 1e-5 of the mesh's size. obvhs walks the tree in f32 with the
//! ray starting where it enters the mesh's box, so its f32 rounding is of
//! the mesh's size (wherever the camera is) and far below the padding: a
//! ray that grazes a box is never lost. The answer always comes from the
//! exact f64 triangle test. The triangle test is the
//! watertight one (shear the ray onto +z, edge functions in 2-D, Woop,
//! Benthin and Wald 2013): a ray through a shared edge or vertex hits at
//! least one of the triangles around it, so no pixel falls through a seam.

use std::time::Duration;

use glam::Vec3A;
use nalgebra::{Point3, Vector3};
use obvhs::aabb::Aabb;
use obvhs::bvh2::builder::build_bvh2_from_tris;
use obvhs::bvh2::node::Bvh2Node;
use obvhs::bvh2::Bvh2;
use obvhs::ray::{Ray as BvhRay, RayHit};
use obvhs::triangle::Triangle;
use obvhs::BvhBuildParams;

use crate::mesh::MeshData;

/// A mesh's triangles with a BVH over them.
#[derive(Clone)]
pub struct MeshBvh {
    bvh: Bvh2,
    /// Triangles in BVH leaf order (`bvh.primitive_indices` applied).
    tris: Vec<[Point3<f64>; 3]>,
    /// Per entry of `tris`: the triangle's index in the mesh (its first
    /// index is `3 * n`).
    numbers: Vec<u32>,
}

impl std::fmt::Debug for MeshBvh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MeshBvh({} triangles, {} nodes)", self.tris.len(), self.bvh.nodes.len())
    }
}

impl MeshBvh {
    /// Builds the tree over `mesh`'s triangles (indices out of range and
    /// non-finite vertices are skipped).
    pub fn build(mesh: &MeshData) -> MeshBvh {
        let vertex = |i: u32| mesh.positions.get(i as usize).copied().filter(|v| v.iter().all(|c| c.is_finite()));
        let (numbers, tris): (Vec<u32>, Vec<[[f32; 3]; 3]>) = mesh
            .indices
            .chunks_exact(3)
            .enumerate()
            .filter_map(|(n, t)| Some((n as u32, [vertex(t[0])?, vertex(t[1])?, vertex(t[2])?])))
            .unzip();
        if tris.is_empty() {
            return MeshBvh { bvh: Bvh2::default(), tris: Vec::new(), numbers: Vec::new() };
        }
        let obvhs_tris: Vec<Triangle> = tris
            .iter()
            .map(|t| Triangle { v0: Vec3A::from(t[0]), v1: Vec3A::from(t[1]), v2: Vec3A::from(t[2]) })
            .collect();
        let mut time = Duration::ZERO;
        let mut bvh = build_bvh2_from_tris(&obvhs_tris, BvhBuildParams::medium_build(), &mut time);
        // Pad every box by a hundred-thousandth of the mesh's size: far more than the f32 rounding of a ray that starts at
        // the mesh (see `ray`), far less than anything that costs time.
        let root = *bvh.nodes[0].aabb();
        let pad = 1e-5 * (root.max - root.min).max_element().max(f32::MIN_POSITIVE) + 1e-30;
        for node in &mut bvh.nodes {
            let b = node.aabb();
            node.set_aabb(Aabb::new(b.min - Vec3A::splat(pad), b.max + Vec3A::splat(pad)));
        }
        let to_f64 = |v: [f32; 3]| Point3::new(v[0] as f64, v[1] as f64, v[2] as f64);
        let tris = bvh.primitive_indices.iter().map(|&i| tris[i as usize].map(to_f64)).collect();
        let numbers = bvh.primitive_indices.iter().map(|&i| numbers[i as usize]).collect();
        MeshBvh { bvh, tris, numbers }
    }

    pub fn triangle_count(&self) -> usize {
        self.tris.len()
    }

    /// The nearest hit `t` in `[0, t_max]` of the ray `origin + t dir`
    /// (mesh space; `dir` need not be unit), both faces counting.
    ///
    /// The tree is walked by obvhs in f32 from where the ray enters the
    /// mesh's box (so the f32 numbers are of the mesh's size, wherever the
    /// camera is); the boxes were padded at build time by far more than
    /// that rounding, and every hit is the exact f64 triangle test.
    pub fn ray(&self, origin: &Point3<f64>, dir: &Vector3<f64>, t_max: f64) -> Option<f64> {
        self.ray_where(origin, dir, t_max, |_, _| true)
    }

    /// [`MeshBvh::ray`] counting only the hits `keep` accepts: it is given
    /// the triangle's index in the mesh and the hit's barycentric weights
    /// of the triangle's three vertices (alpha-masked surfaces cut holes
    /// this way).
    pub fn ray_where(
        &self,
        origin: &Point3<f64>,
        dir: &Vector3<f64>,
        t_max: f64,
        keep: impl Fn(u32, [f64; 3]) -> bool,
    ) -> Option<f64> {
        if self.bvh.nodes.is_empty() || !origin.iter().chain(dir.iter()).all(|v| v.is_finite()) {
            return None;
        }
        let inv = dir.map(|d| 1.0 / d);
        let t0 = self.enter(0, origin, &inv, t_max)?;
        let start = origin + dir * t0;
        let v = |p: &Vector3<f64>| Vec3A::new(p.x as f32, p.y as f32, p.z as f32);
        let f32_after = |t: f64| ((t - t0) as f32 * (1.0 + 1e-5)).max(0.0) + f32::MIN_POSITIVE;
        let ray = BvhRay::new(
            v(&start.coords),
            v(dir),
            0.0,
            if t_max.is_finite() { f32_after(t_max) } else { f32::INFINITY },
        );
        let mut best = t_max;
        let mut found = false;
        let mut hit = RayHit::none();
        let mut visit = |node: &Bvh2Node, ray: &mut BvhRay, _hit: &mut RayHit| {
            let first = node.first_index as usize;
            let range = first..first + node.prim_count as usize;
            for (tri, &number) in self.tris[range.clone()].iter().zip(&self.numbers[range]) {
                if let Some((t, weights)) = ray_triangle_weights(origin, dir, tri) {
                    // A hit exactly at `t_max` counts (the caller breaks the tie).
                    if (t < best || (!found && t == best)) && keep(number, weights) {
                        best = t;
                        found = true;
                        ray.tmax = f32_after(t);
                    }
                }
            }
            true
        };
        obvhs::fast_stack!(u32, (96, 192), self.bvh.max_depth, stack, {
            self.bvh.ray_traverse_dynamic(&mut stack, ray, &mut hit, &mut visit)
        });
        found.then_some(best)
    }

    /// Where the ray enters node `n`'s box (in f64, with a little more
    /// padding), if before `t_max`.
    fn enter(&self, n: u32, origin: &Point3<f64>, inv: &Vector3<f64>, t_max: f64) -> Option<f64> {
        let node = self.bvh.nodes.get(n as usize)?;
        let (lo, hi) = (node.aabb().min, node.aabb().max);
        let (lo, hi) = ([lo.x, lo.y, lo.z], [hi.x, hi.y, hi.z]);
        let (mut t0, mut t1) = (0.0f64, t_max);
        for k in 0..3 {
            let pad = 1e-6 * (hi[k] - lo[k]).abs() as f64 + 1e-7 * (lo[k].abs().max(hi[k].abs()) as f64) + 1e-30;
            let (a, b) = (lo[k] as f64 - pad, hi[k] as f64 + pad);
            let (ta, tb) = ((a - origin[k]) * inv[k], (b - origin[k]) * inv[k]);
            let (near, far) = if ta <= tb { (ta, tb) } else { (tb, ta) };
            // NaN (0 * inf: the ray lies in a slab plane) keeps the interval.
            if near > t0 {
                t0 = near;
            }
            if far < t1 {
                t1 = far;
            }
            if t0 > t1 {
                return None;
            }
        }
        Some(t0)
    }
}

/// Watertight ray-triangle intersection in f64: the hit `t >= 0` of
/// `origin + t dir` with the triangle (either face), if any.
pub fn ray_triangle(origin: &Point3<f64>, dir: &Vector3<f64>, tri: &[Point3<f64>; 3]) -> Option<f64> {
    ray_triangle_weights(origin, dir, tri).map(|(t, _)| t)
}

/// [`ray_triangle`] with the hit's barycentric weights of the triangle's
/// three vertices (non-negative, summing to 1).
pub fn ray_triangle_weights(
    origin: &Point3<f64>,
    dir: &Vector3<f64>,
    tri: &[Point3<f64>; 3],
) -> Option<(f64, [f64; 3])> {
    // Axis along which the ray runs most, and the other two in a
    // right-handed order (swapped when the ray runs backwards along it).
    let kz = dir.iamax();
    let mut kx = (kz + 1) % 3;
    let mut ky = (kx + 1) % 3;
    if dir[kz] < 0.0 {
        std::mem::swap(&mut kx, &mut ky);
    }
    if dir[kz] == 0.0 {
        return None;
    }
    let (sx, sy, sz) = (dir[kx] / dir[kz], dir[ky] / dir[kz], 1.0 / dir[kz]);
    let [a, b, c] = [tri[0] - origin, tri[1] - origin, tri[2] - origin];
    let (ax, ay) = (a[kx] - sx * a[kz], a[ky] - sy * a[kz]);
    let (bx, by) = (b[kx] - sx * b[kz], b[ky] - sy * b[kz]);
    let (cx, cy) = (c[kx] - sx * c[kz], c[ky] - sy * c[kz]);
    let u = cx * by - cy * bx;
    let v = ax * cy - ay * cx;
    let w = bx * ay - by * ax;
    if (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0) {
        return None;
    }
    let det = u + v + w;
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let t_scaled = u * sz * a[kz] + v * sz * b[kz] + w * sz * c[kz];
    let t = t_scaled / det;
    (t >= 0.0 && t.is_finite()).then_some((t, [u / det, v / det, w / det]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn brute(mesh: &MeshData, o: &Point3<f64>, d: &Vector3<f64>) -> Option<f64> {
        let p = |i: u32| {
            let v = mesh.positions[i as usize];
            Point3::new(v[0] as f64, v[1] as f64, v[2] as f64)
        };
        mesh.indices
            .chunks_exact(3)
            .filter_map(|t| ray_triangle(o, d, &[p(t[0]), p(t[1]), p(t[2])]))
            .min_by(f64::total_cmp)
    }

    /// Moller-Trumbore, written independently, as the reference for hits
    /// well inside a triangle.
    fn moller_trumbore(o: &Point3<f64>, d: &Vector3<f64>, t: &[Point3<f64>; 3]) -> Option<(f64, f64, f64)> {
        let (e1, e2) = (t[1] - t[0], t[2] - t[0]);
        let q = d.cross(&e2);
        let det = e1.dot(&q);
        if det.abs() < 1e-12 {
            return None;
        }
        let s = o - t[0];
        let u = s.dot(&q) / det;
        let r = s.cross(&e1);
        let v = d.dot(&r) / det;
        let tt = e2.dot(&r) / det;
        (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && tt >= 0.0).then_some((tt, u, v))
    }

    #[test]
    fn watertight_test_agrees_with_moller_trumbore_away_from_edges() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(41);
        let mut hits = 0;
        for _ in 0..40_000 {
            let mut p = || Point3::new(rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0));
            let tri = [p(), p(), p()];
            let o = p();
            let d = Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
            let got = ray_triangle(&o, &d, &tri);
            match moller_trumbore(&o, &d, &tri) {
                Some((t, u, v)) if u > 1e-6 && v > 1e-6 && u + v < 1.0 - 1e-6 => {
                    let g = got.expect("a clear hit is found");
                    assert!((g - t).abs() < 1e-9 * (1.0 + t), "{g} vs {t}");
                    hits += 1;
                }
                None => assert!(got.is_none() || d.norm() < 1e-3, "no hit expected"),
                _ => {}
            }
        }
        assert!(hits > 1000, "{hits} hits");
    }

    #[test]
    fn rays_through_shared_edges_and_vertices_never_fall_through() {
        // A fan of triangles around the origin in the z = 0 plane; rays
        // straight down through the centre vertex and the shared edges.
        let n = 12;
        let mut mesh = MeshData::default();
        mesh.positions.push([0.0, 0.0, 0.0]);
        for k in 0..n {
            let a = k as f32 / n as f32 * std::f32::consts::TAU;
            mesh.positions.push([a.cos(), a.sin(), 0.0]);
        }
        for k in 0..n as u32 {
            mesh.indices.extend_from_slice(&[0, 1 + k, 1 + (k + 1) % n as u32]);
        }
        mesh.normals = vec![[0.0, 0.0, 1.0]; mesh.positions.len()];
        let bvh = MeshBvh::build(&mesh);
        let d = Vector3::new(0.0, 0.0, -1.0);
        let mut origins = vec![Point3::new(0.0, 0.0, 5.0)];
        for k in 0..n {
            let a = k as f64 / n as f64 * std::f64::consts::TAU;
            for r in [0.1, 0.37, 0.9] {
                origins.push(Point3::new(r * a.cos(), r * a.sin(), 5.0));
            }
        }
        for o in origins {
            let t = bvh.ray(&o, &d, f64::INFINITY);
            assert!(t.is_some_and(|t| (t - 5.0).abs() < 1e-12), "fell through at {o:?}: {t:?}");
        }
    }

    #[test]
    fn the_bvh_finds_the_same_nearest_hit_as_brute_force() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for mesh in [
            crate::scene::Primitive::Torus.mesh(),
            crate::scene::Primitive::Sphere.mesh(),
            crate::scene::Primitive::Cone.mesh(),
        ] {
            let bvh = MeshBvh::build(&mesh);
            assert_eq!(bvh.triangle_count() * 3, mesh.indices.len());
            let mut hits = 0;
            for _ in 0..3000 {
                let o = Point3::new(rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0));
                let target = Point3::new(rng.gen_range(-0.7..0.7), rng.gen_range(-0.7..0.7), rng.gen_range(-0.7..0.7));
                let d = target - o;
                let (a, b) = (bvh.ray(&o, &d, f64::INFINITY), brute(&mesh, &o, &d));
                assert_eq!(a, b, "ray {o:?} {d:?}");
                hits += a.is_some() as usize;
            }
            assert!(hits > 300, "{hits}");
        }
    }
}
