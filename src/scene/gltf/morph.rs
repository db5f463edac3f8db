//! Reading a glTF mesh's morph targets for posing on the CPU
//! ([`MorphData`]): the mesh with no target applied, in the vertex order
//! [`GltfFile::mesh`] gives (flat-shaded primitives repeat a vertex per
//! triangle corner), and each target's POSITION / NORMAL / TANGENT
//! displacements carried into that order, with the mesh's tangents at no
//! weight (where a normal texture has any). Accessors are read with the
//! same bounds-checked code as the rest of the mesh.

use std::sync::Arc;

use gltf::mesh::Semantic;

use super::materials::{uv_maps, NORMAL};
use super::primitive::target_values;
use super::{GltfError, GltfFile};
use crate::scene::MorphData;

/// Per target, displacements of every output vertex so far (`None` while
/// no primitive gave that target any).
type Displacements = Vec<Option<Vec<[f32; 3]>>>;

impl GltfFile {
    /// How many morph targets mesh `n` has (its primitives' most; 0 for a
    /// mesh that does not exist).
    pub fn morph_target_count(&self, n: usize) -> usize {
        let Some(mesh) = self.document.meshes().nth(n) else { return 0 };
        mesh.primitives().map(|p| p.morph_targets().len()).max().unwrap_or(0)
    }

    /// Node `node`'s own `weights`, which replace its mesh's defaults;
    /// `None` where it has none (or no mesh with targets).
    pub fn node_weights(&self, node: usize) -> Option<Vec<f64>> {
        let node = self.document.nodes().nth(node)?;
        let mesh = node.mesh()?;
        if self.morph_target_count(mesh.index()) == 0 {
            return None;
        }
        node.weights().map(|w| w.iter().map(|&x| if x.is_finite() { f64::from(x) } else { 0.0 }).collect())
    }

    /// Mesh `n`'s morph targets, `None` for a mesh without any.
    pub fn morph_data(&self, n: usize) -> Result<Option<MorphData>, GltfError> {
        let count = self.morph_target_count(n);
        if count == 0 {
            return Ok(None);
        }
        let mut positions: Displacements = vec![None; count];
        let mut normals: Displacements = vec![None; count];
        let mut tangents: Displacements = vec![None; count];
        let mut flat = Vec::new();
        let mut total = 0usize;
        // No weight: every target off.
        let (base, surface) = self.mesh_visiting(n, Some(&[][..]), |primitive, sources| {
            let start = total;
            total += sources.len();
            if sources.is_empty() {
                return Ok(());
            }
            let smooth = primitive.get(&Semantic::Normals).is_some();
            if !smooth {
                flat.push(start..total);
            }
            let vertices = primitive.get(&Semantic::Positions).map_or(0, |a| a.count());
            // Tangents exist only for a normal texture: without one a
            // target's TANGENT has nothing to move.
            let mapped = uv_maps(&primitive.material()).0[NORMAL].is_some();
            for (k, target) in primitive.morph_targets().enumerate() {
                let normal = if smooth { target.normals() } else { None };
                let tangent = if mapped { target.tangents() } else { None };
                for (accessor, what, into) in [
                    (target.positions(), "POSITION", &mut positions[k]),
                    (normal, "NORMAL", &mut normals[k]),
                    (tangent, "TANGENT", &mut tangents[k]),
                ] {
                    let Some(a) = accessor else { continue };
                    let d = target_values(&a, &self.buffers, what, k, vertices)?;
                    let list = into.get_or_insert_with(Vec::new);
                    list.resize(start, [0.0; 3]);
                    list.extend(sources.iter().map(|&s| d[s as usize]));
                }
            }
            Ok(())
        })?;
        for list in positions.iter_mut().chain(&mut normals).chain(&mut tangents).flatten() {
            list.resize(total, [0.0; 3]);
        }
        let defaults = self
            .document
            .meshes()
            .nth(n)
            .and_then(|m| {
                m.weights().map(|w| w.iter().map(|&x| if x.is_finite() { f64::from(x) } else { 0.0 }).collect())
            })
            .unwrap_or_default();
        let tangents = if tangents.iter().any(Option::is_some) { tangents } else { Vec::new() };
        MorphData::new(Arc::new(base), positions, normals, flat, defaults)
            .and_then(|m| m.with_tangents(surface.tangents, tangents))
            .map(Some)
            .map_err(|e| self.invalid(format!("mesh {n}: {e}")))
    }
}
