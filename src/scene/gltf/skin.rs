//! Reading a glTF skin: its joints (node indices), inverse bind matrices,
//! and each vertex's `JOINTS_n` / `WEIGHTS_n`, read with the same
//! bounds-checked accessor code as the rest of the mesh (the `gltf`
//! crate's readers return `None` or panic on accessors a hostile file can
//! write, see the module docs of [`super`]).

use std::sync::Arc;

use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Semantic;
use nalgebra::Matrix4;

use super::accessor::{read_accessor, read_floats};
use super::{GltfError, GltfFile};
use crate::scene::SkinData;

impl GltfFile {
    /// How many skins the file has.
    pub fn skin_count(&self) -> usize {
        self.document.skins().len()
    }

    /// The joints of skin `s`, as node indices, in the skin's order.
    pub fn skin_joints(&self, s: usize) -> Result<Vec<usize>, GltfError> {
        Ok(self.skin(s)?.joints().map(|n| n.index()).collect())
    }

    fn skin(&self, s: usize) -> Result<gltf::Skin<'_>, GltfError> {
        self.document
            .skins()
            .nth(s)
            .ok_or_else(|| self.invalid(format!("no skin {s} (the file has {} skins)", self.document.skins().len())))
    }

    /// Mesh `n` (the same vertices as [`GltfFile::mesh`]) with what skin
    /// `s` needs to pose it: per vertex its joints and weights (every
    /// `JOINTS_k` / `WEIGHTS_k` pair), and the inverse bind matrices
    /// (identity when the skin has none).
    pub fn skin_data(&self, n: usize, s: usize) -> Result<SkinData, GltfError> {
        let skin = self.skin(s)?;
        let joints = skin.joints().count();
        let inverse_bind = match skin.inverse_bind_matrices() {
            None => vec![Matrix4::identity(); joints],
            Some(a) => {
                if a.dimensions() != Dimensions::Mat4 || a.data_type() != DataType::F32 {
                    return Err(self.invalid(format!("skin {s}: inverse bind matrices must be float MAT4")));
                }
                let m = read_accessor(&a, &self.buffers, 64, |b| {
                    Matrix4::from_fn(|r, c| {
                        let k = 4 * (4 * c + r);
                        f64::from(f32::from_le_bytes([b[k], b[k + 1], b[k + 2], b[k + 3]]))
                    })
                })
                .map_err(|e| self.invalid(format!("skin {s}: {e}")))?;
                if m.len() < joints {
                    return Err(
                        self.invalid(format!("skin {s}: {} inverse bind matrices for {joints} joints", m.len()))
                    );
                }
                m.into_iter().take(joints).collect()
            }
        };
        let mut starts = vec![0u32];
        let mut links: Vec<(u32, f32)> = Vec::new();
        let (mesh, surface) = self.mesh_visiting(n, None, |primitive, sources| {
            if sources.is_empty() {
                return Ok(());
            }
            let per_vertex = influences(primitive, &self.buffers)?;
            for &v in sources {
                if let Some(list) = per_vertex.get(v as usize) {
                    links.extend(list.iter().copied());
                }
                starts.push(u32::try_from(links.len()).map_err(|_| "too many skin weights".to_string())?);
            }
            Ok(())
        })?;
        // The tangents of the normal textures' primitives pose with the mesh.
        SkinData::new(Arc::new(mesh), starts, links, inverse_bind)
            .and_then(|skin| skin.with_tangents(surface.tangents))
            .map_err(|e| self.invalid(format!("mesh {n} with skin {s}: {e}")))
    }
}

/// Per vertex of `primitive`, its (joint, weight) pairs with a non-zero
/// weight, from every `JOINTS_k` / `WEIGHTS_k` pair (an empty list for
/// every vertex when it has none: it stays in its bind place).
fn influences(primitive: &gltf::Primitive<'_>, buffers: &[Vec<u8>]) -> Result<Vec<Vec<(u32, f32)>>, String> {
    let count = primitive.get(&Semantic::Positions).map_or(0, |a| a.count());
    let mut out = vec![Vec::new(); count];
    for set in 0.. {
        let (Some(j), Some(w)) = (primitive.get(&Semantic::Joints(set)), primitive.get(&Semantic::Weights(set))) else {
            break;
        };
        if j.dimensions() != Dimensions::Vec4 || j.normalized() {
            return Err(format!("accessor {}: JOINTS_{set} must be an unnormalised VEC4", j.index()));
        }
        let joints: Vec<[u32; 4]> = match j.data_type() {
            DataType::U8 => read_accessor(&j, buffers, 4, |b| [b[0], b[1], b[2], b[3]].map(u32::from))?,
            DataType::U16 => read_accessor(&j, buffers, 8, |b| {
                std::array::from_fn(|k| u32::from(u16::from_le_bytes([b[2 * k], b[2 * k + 1]])))
            })?,
            _ => return Err(format!("accessor {}: JOINTS_{set} must be unsigned bytes or shorts", j.index())),
        };
        let weights = read_floats(&w, buffers, &format!("WEIGHTS_{set}"), &[Dimensions::Vec4])?;
        if joints.len() != count || weights.len() != count {
            return Err(format!(
                "JOINTS_{set} / WEIGHTS_{set} have {} / {} values for {count} positions",
                joints.len(),
                weights.len()
            ));
        }
        for ((list, js), ws) in out.iter_mut().zip(&joints).zip(&weights) {
            list.extend(js.iter().zip(ws).filter(|(_, &w)| w != 0.0).map(|(&j, &w)| (j, w)));
        }
    }
    Ok(out)
}
