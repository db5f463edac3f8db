//! Morph targets posed on the CPU (`docs/spec/materials.md`, "Animation"):
//! a glTF mesh's vertices with no target applied, each target's position
//! and normal displacements in the same vertex order, and the mesh's
//! default weights. The vertices at weights `w` are `base + sum_i w_i *
//! delta_i`; normals get the same sum and are renormalised, and the
//! primitives without normals (flat shaded: one vertex per triangle corner)
//! get their faces' normals anew. Only meshes with targets have one.
//!
//! Tangents (for normal textures), where the mesh has them, get their
//! targets' TANGENT displacements the same way (xyz only: the bitangent
//! sign w is kept, glTF 2.0 section 3.7.2.2) and are renormalised.
//! Sums are computed in f64.

use std::ops::Range;
use std::sync::Arc;

use nalgebra::Vector3;

use super::{MeshData, Posed};

/// A mesh's morph targets (see the module docs).
#[derive(Debug)]
pub struct MorphData {
    /// The vertices with every weight 0.
    pub base: Arc<MeshData>,
    /// Per target, the position displacement of every vertex (`None` for a
    /// target that moves no position).
    positions: Vec<Option<Vec<[f32; 3]>>>,
    /// Per target, the normal displacement of every vertex.
    normals: Vec<Option<Vec<[f32; 3]>>>,
    /// The tangents with every weight 0 (one per vertex), empty for none.
    base_tangents: Vec<[f32; 4]>,
    /// Per target, the tangent (xyz) displacement of every vertex; empty
    /// while no target moves a tangent.
    tangents: Vec<Option<Vec<[f32; 3]>>>,
    /// Vertex ranges of flat-shaded primitives (three vertices a triangle,
    /// in order): their normals are the posed faces'.
    flat: Vec<Range<usize>>,
    /// The mesh's `weights` (0 for each target it leaves out).
    pub defaults: Vec<f64>,
}

impl MorphData {
    /// Checks that every displacement list has one entry per vertex and
    /// that the flat ranges lie inside the mesh and hold whole triangles.
    pub fn new(
        base: Arc<MeshData>,
        positions: Vec<Option<Vec<[f32; 3]>>>,
        normals: Vec<Option<Vec<[f32; 3]>>>,
        flat: Vec<Range<usize>>,
        defaults: Vec<f64>,
    ) -> Result<MorphData, String> {
        let n = base.positions.len();
        if positions.len() != normals.len() || positions.is_empty() {
            return Err("morph targets: position and normal lists differ in count, or there are none".into());
        }
        if positions.iter().chain(&normals).flatten().any(|d| d.len() != n) {
            return Err(format!("morph targets: a displacement list does not have {n} values"));
        }
        if positions.iter().chain(&normals).flatten().flatten().flatten().any(|x| !x.is_finite()) {
            return Err("morph targets: a displacement is not finite".into());
        }
        if flat.iter().any(|r| r.start > r.end || r.end > n || r.len() % 3 != 0) {
            return Err("morph targets: a flat-shaded range does not fit the mesh".into());
        }
        let mut defaults = defaults;
        defaults.resize(positions.len(), 0.0);
        Ok(MorphData { base, positions, normals, base_tangents: Vec::new(), tangents: Vec::new(), flat, defaults })
    }

    /// The targets with the tangents at weight 0 (`base`, one per vertex,
    /// or empty for none) and, per target, its tangent displacements
    /// (`None` for a target that moves no tangent; an empty list for
    /// none at all). A base tangent that is not finite becomes none (zero).
    pub fn with_tangents(
        self,
        mut base: Vec<[f32; 4]>,
        displacements: Vec<Option<Vec<[f32; 3]>>>,
    ) -> Result<MorphData, String> {
        let n = self.base.positions.len();
        if !base.is_empty() && base.len() != n {
            return Err(format!("morph targets: {} tangents for {n} vertices", base.len()));
        }
        if !displacements.is_empty() && displacements.len() != self.target_count() {
            return Err("morph targets: tangent displacements for another count of targets".into());
        }
        if displacements.iter().flatten().any(|d| d.len() != n) {
            return Err(format!("morph targets: a tangent displacement list does not have {n} values"));
        }
        if displacements.iter().flatten().flatten().flatten().any(|x| !x.is_finite()) {
            return Err("morph targets: a tangent displacement is not finite".into());
        }
        for t in base.iter_mut().filter(|t| !t.iter().all(|x| x.is_finite())) {
            *t = [0.0; 4];
        }
        Ok(MorphData { base_tangents: base, tangents: displacements, ..self })
    }

    /// The tangents with every weight 0 (empty where the mesh has none).
    pub fn base_tangents(&self) -> &[[f32; 4]] {
        &self.base_tangents
    }

    /// How many targets the mesh has.
    pub fn target_count(&self) -> usize {
        self.positions.len()
    }

    /// The mesh and its tangents at `weights` (a missing weight counts as
    /// 0, one beyond the targets is ignored, a non-finite one is 0).
    pub fn apply(&self, weights: &[f64]) -> Posed {
        let used: Vec<(usize, f64)> = weights
            .iter()
            .copied()
            .enumerate()
            .filter(|&(k, w)| k < self.target_count() && w.is_finite() && w != 0.0)
            .collect();
        let base = &self.base;
        let mut positions: Vec<Vector3<f64>> = base.positions.iter().map(|p| Vector3::from(p.map(f64::from))).collect();
        let mut normals: Vec<Vector3<f64>> = base.normals.iter().map(|p| Vector3::from(p.map(f64::from))).collect();
        let mut tangents: Vec<Vector3<f64>> =
            self.base_tangents.iter().map(|t| Vector3::new(t[0], t[1], t[2]).map(f64::from)).collect();
        let mut moved_normals = false;
        let mut moved_tangents = false;
        for &(k, w) in &used {
            if let Some(d) = &self.positions[k] {
                for (p, d) in positions.iter_mut().zip(d) {
                    *p += Vector3::from(d.map(f64::from)) * w;
                }
            }
            if let Some(d) = &self.normals[k] {
                moved_normals = true;
                for (n, d) in normals.iter_mut().zip(d) {
                    *n += Vector3::from(d.map(f64::from)) * w;
                }
            }
            if let (Some(Some(d)), false) = (self.tangents.get(k), tangents.is_empty()) {
                moved_tangents = true;
                for (t, d) in tangents.iter_mut().zip(d) {
                    *t += Vector3::from(d.map(f64::from)) * w;
                }
            }
        }
        let to_f32 = |v: &Vector3<f64>| [v.x as f32, v.y as f32, v.z as f32];
        let mut out = MeshData {
            positions: positions.iter().map(to_f32).collect(),
            normals: if moved_normals {
                normals.iter().zip(&base.normals).map(|(n, old)| unit(n).map_or(*old, |u| to_f32(&u))).collect()
            } else {
                base.normals.clone()
            },
            indices: base.indices.clone(),
        };
        for range in &self.flat {
            for t in range.clone().step_by(3) {
                let [a, b, c] = [t, t + 1, t + 2].map(|i| positions[i]);
                let n = unit(&(b - a).cross(&(c - a))).unwrap_or_else(Vector3::y);
                out.normals[t..t + 3].fill(to_f32(&n));
            }
        }
        // A vertex without a tangent (zero: its primitive has no normal
        // texture) keeps none; one whose sum has no direction keeps its own.
        let tangents = if moved_tangents {
            tangents
                .iter()
                .zip(&self.base_tangents)
                .map(|(t, old)| match unit(t) {
                    Some(u) if old[..3].iter().any(|&x| x != 0.0) => [u.x as f32, u.y as f32, u.z as f32, old[3]],
                    _ => *old,
                })
                .collect()
        } else {
            self.base_tangents.clone()
        };
        Posed { mesh: out, tangents }
    }

    /// Whether `weights` are the mesh's defaults (its shared mesh then
    /// shows them already).
    pub fn at_defaults(&self, weights: &[f64]) -> bool {
        (0..self.target_count()).all(|k| weights.get(k).copied().unwrap_or(0.0) == self.defaults[k])
    }
}

/// `v` normalised, where it has a direction.
fn unit(v: &Vector3<f64>) -> Option<Vector3<f64>> {
    let n = v.norm();
    (n > 1e-30 && n.is_finite()).then(|| v / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A triangle with smooth normals (vertices 0..3) and a flat-shaded
    /// triangle (vertices 3..6); target 0 lifts vertex 1 and tilts its
    /// normal, target 1 moves vertex 5 along z.
    fn two_targets() -> MorphData {
        let base = MeshData {
            positions: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
            normals: vec![[0.0, 0.0, 1.0]; 6],
            indices: vec![0, 1, 2, 3, 4, 5],
        };
        let mut lift = vec![[0.0; 3]; 6];
        lift[1] = [0.0, 2.0, 0.0];
        let mut tilt = vec![[0.0; 3]; 6];
        tilt[1] = [1.0, 0.0, 0.0];
        let mut push = vec![[0.0; 3]; 6];
        push[5] = [0.0, 0.0, 1.0];
        MorphData::new(
            Arc::new(base),
            vec![Some(lift), Some(push)],
            vec![Some(tilt), None],
            vec![Range { start: 3, end: 6 }],
            vec![0.5],
        )
        .unwrap()
    }

    fn near(a: [f32; 3], b: [f64; 3]) -> bool {
        (0..3).all(|k| (f64::from(a[k]) - b[k]).abs() < 1e-6)
    }

    #[test]
    fn morph_the_weighted_sum_of_displacements_is_added() {
        let m = two_targets();
        assert_eq!(m.defaults, vec![0.5, 0.0], "a weight left out is 0");
        let zero = m.apply(&[]).mesh;
        assert_eq!(zero.positions, m.base.positions);
        assert_eq!(zero.normals, m.base.normals);
        let p = m.apply(&[0.25, 0.5]).mesh;
        assert!(near(p.positions[1], [1.0, 0.5, 0.0]), "{:?}", p.positions[1]);
        assert!(near(p.positions[5], [0.0, 1.0, 0.5]), "{:?}", p.positions[5]);
        assert!(near(p.positions[0], [0.0, 0.0, 0.0]));
        // The normal (0, 0, 1) + 0.25 (1, 0, 0), renormalised.
        let s = (1.0f64 + 0.0625).sqrt();
        assert!(near(p.normals[1], [0.25 / s, 0.0, 1.0 / s]), "{:?}", p.normals[1]);
        assert!(near(p.normals[0], [0.0, 0.0, 1.0]));
        // The flat triangle (0,0,0), (1,0,0), (0,1,0.5): its face normal
        // is (1,0,0) x (0,1,0.5) = (0, -0.5, 1), normalised, at all three.
        let f = (0.25f64 + 1.0).sqrt();
        for v in 3..6 {
            assert!(near(p.normals[v], [0.0, -0.5 / f, 1.0 / f]), "{v}: {:?}", p.normals[v]);
        }
        // Negative weights subtract; weights past the targets are ignored.
        let n = m.apply(&[-1.0, 0.0, 7.0]).mesh;
        assert!(near(n.positions[1], [1.0, -2.0, 0.0]));
        assert!(m.at_defaults(&[0.5]) && m.at_defaults(&[0.5, 0.0]) && !m.at_defaults(&[0.5, 0.1]));
    }

    #[test]
    fn morph_tangent_displacements_move_the_tangents_and_keep_w() {
        // Vertex 0 has tangent +x (w -1), vertex 1 +y (w 1), vertex 2 none.
        let base_tangents = vec![[1.0, 0.0, 0.0, -1.0], [0.0, 1.0, 0.0, 1.0], [0.0; 4]];
        let mut d = vec![[0.0; 3]; 6];
        d[0] = [0.0, 2.0, 1.0];
        d[1] = [3.0, 0.0, 0.0];
        d[2] = [1.0, 1.0, 1.0];
        let m = two_targets().with_tangents([base_tangents.clone(), vec![[0.0; 4]; 3]].concat(), vec![Some(d), None]);
        let m = m.unwrap();
        let p = m.apply(&[0.5, 0.0]);
        // normalise(base + 0.5 d), worked out by hand for each vertex.
        let expect = |b: [f64; 3], d: [f64; 3]| {
            let s = [b[0] + 0.5 * d[0], b[1] + 0.5 * d[1], b[2] + 0.5 * d[2]];
            let n = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
            s.map(|x| x / n)
        };
        let t0 = expect([1.0, 0.0, 0.0], [0.0, 2.0, 1.0]);
        let t1 = expect([0.0, 1.0, 0.0], [3.0, 0.0, 0.0]);
        let got = |k: usize| [p.tangents[k][0], p.tangents[k][1], p.tangents[k][2]];
        assert!(near(got(0), t0) && p.tangents[0][3] == -1.0, "{:?} vs {t0:?}", p.tangents[0]);
        assert!(near(got(1), t1) && p.tangents[1][3] == 1.0, "{:?} vs {t1:?}", p.tangents[1]);
        assert_eq!(p.tangents[2], [0.0; 4], "a vertex without a tangent keeps none");
        // At weight 0 the base tangents; a target without TANGENT moves none.
        assert_eq!(m.apply(&[0.0, 1.0]).tangents, m.base_tangents());
        // Wrong counts are refused.
        assert!(two_targets().with_tangents(vec![[0.0; 4]; 2], vec![]).is_err());
        assert!(two_targets().with_tangents(vec![], vec![Some(vec![[0.0; 3]; 6])]).is_err());
        assert!(two_targets().with_tangents(vec![], vec![Some(vec![[f32::NAN; 3]; 6]), None]).is_err());
    }

    #[test]
    fn morph_bad_displacements_are_refused() {
        let base =
            Arc::new(MeshData { positions: vec![[0.0; 3]; 3], normals: vec![[0.0, 0.0, 1.0]; 3], indices: vec![] });
        assert!(MorphData::new(base.clone(), vec![Some(vec![[0.0; 3]; 2])], vec![None], vec![], vec![]).is_err());
        assert!(MorphData::new(base.clone(), vec![Some(vec![[f32::NAN; 3]; 3])], vec![None], vec![], vec![]).is_err());
        assert!(MorphData::new(base.clone(), vec![None], vec![None], vec![Range { start: 0, end: 2 }], vec![]).is_err());
        assert!(MorphData::new(base, vec![], vec![], vec![], vec![]).is_err());
    }
}
