//! Skins in the export: an object with a skin and a glTF mesh `path#N`
//! gets a glTF skin whose joints are its joint objects' nodes, with the
//! inverse bind matrices of its file's skin.
//!
//! A scene's skin may name an object more than once (a deleted joint's
//! entry names the ancestor joint that took its influence) or name the
//! skinned object itself (no ancestor joint remained); glTF allows neither
//! repeated joints nor a vertex that stays put. Such a skin is written
//! with each object once: a repeated entry becomes the first entry naming
//! the same object (the editor poses it with that entry's inverse bind
//! matrix, so the pose is the same), and the skinned object's own entries
//! become one joint, its own node, with the identity matrix (glTF ignores a
//! skinned node's transform, so this keeps those vertices where the bind
//! pose has them in the object's space, as the editor draws them). The
//! mesh is then written again with its `JOINTS_n` rewritten to the new
//! joint numbers, and with the weights of two influences that became one
//! joint added together (`WEIGHTS_n`), as the validator asks.
//!
//! A skin whose joints are not all written (a selection export), whose
//! joints share no ancestor in the export, or that cannot be read is left
//! off its node, with a warning: the mesh is still written, unposed.

use std::collections::HashSet;
use std::path::Path;

use gj::accessor::{ComponentType, Type};
use gj::validation::{Checked, USize64};
use gltf::json as gj;
use serde_json::json;

use super::copy::{index, plain_elements, Use};
use super::{push, Builder, Placed};
use crate::scene::SkinRef;

/// The identity 4x4 matrix as little-endian f32s (column-major, as glTF).
fn identity_bytes() -> Vec<u8> {
    let mut m = [0f32; 16];
    for k in 0..4 {
        m[5 * k] = 1.0;
    }
    m.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl Builder {
    /// Writes the skin of object `object` (whose mesh, copied from the
    /// file at `path`, is written as `mesh`, `fresh` when no other object
    /// uses it yet): returns the skin and the mesh its node uses (with
    /// other joint numbers where the skin has fewer joints), or why the
    /// skin is left off.
    pub(super) fn skin_for(
        &mut self,
        placed: &Placed<'_>,
        object: usize,
        skin: &SkinRef,
        path: &Path,
        mesh: u32,
        fresh: bool,
    ) -> Result<(u32, u32), String> {
        let scene = placed.scene;
        let mut entries = Vec::with_capacity(skin.joints.len());
        for name in skin.joints.iter() {
            let id = scene.find(name).ok_or_else(|| format!("joint \"{name}\" is not in the scene"))?;
            if !placed.keep[id] {
                return Err(format!("joint \"{name}\" is not exported"));
            }
            entries.push(id);
        }
        // The written joints (ids), the source entry whose inverse bind
        // matrix each takes (`None`: the identity), and each entry's joint.
        let mut joints: Vec<usize> = Vec::new();
        let mut matrix_of: Vec<Option<usize>> = Vec::new();
        let mut map: Vec<u32> = Vec::with_capacity(entries.len());
        for (k, &id) in entries.iter().enumerate() {
            match joints.iter().position(|&j| j == id) {
                Some(j) => map.push(j as u32),
                None => {
                    map.push(joints.len() as u32);
                    joints.push(id);
                    matrix_of.push((id != object).then_some(k));
                }
            }
        }
        if joints.is_empty() {
            return Err("it has no joints".into());
        }
        let unchanged = joints.len() == entries.len() && matrix_of.iter().all(Option::is_some);

        // The validator asks for an ancestor (or one of them) shared by all
        // joints; the skeleton, where written, must be one.
        let mut common = placed.chain(joints[0]);
        for &j in &joints[1..] {
            let chain: HashSet<usize> = placed.chain(j).into_iter().collect();
            common.retain(|c| chain.contains(c));
        }
        if common.is_empty() {
            return Err("its joints share no ancestor in the export".into());
        }
        let skinned = self.meshes[mesh as usize]["primitives"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["attributes"].get("JOINTS_0").is_some());
        if !skinned {
            return Err("its mesh has no JOINTS_0".into());
        }

        self.with_source(path, |b, s| {
            let raw = s.json["skins"].get(skin.index).cloned().ok_or("the file has no such skin")?;
            let count = raw["joints"].as_array().map_or(0, Vec::len);
            if count != entries.len() {
                return Err(format!("the file's skin has {count} joints, the scene's {}", entries.len()));
            }
            let source_matrices = index(&raw["inverseBindMatrices"]);
            let (matrices, mesh) = if unchanged {
                (source_matrices.map(|a| b.copy_accessor(s, a, Use::Data)).transpose()?, mesh)
            } else {
                let source = match source_matrices {
                    Some(a) => {
                        let float_mat4 = s.file.document.accessors().nth(a).is_some_and(|a| {
                            a.dimensions() == gltf::accessor::Dimensions::Mat4
                                && a.data_type() == gltf::accessor::DataType::F32
                        });
                        if !float_mat4 {
                            return Err("its inverse bind matrices are not float MAT4".into());
                        }
                        Some(plain_elements(s, a)?.ok_or("its inverse bind matrices are sparse")?)
                    }
                    None => None,
                };
                let mut bytes = Vec::with_capacity(64 * joints.len());
                for from in &matrix_of {
                    match (from, &source) {
                        (Some(k), Some(source)) => bytes.extend_from_slice(
                            source.get(64 * k..64 * (k + 1)).ok_or("too few inverse bind matrices")?,
                        ),
                        _ => bytes.extend(identity_bytes()),
                    }
                }
                let view = b.add_view(&bytes, None, None);
                let a = b.add_accessor(view, joints.len(), ComponentType::F32, Type::Mat4, None);
                (Some(a), b.remap_joints(mesh, &map, fresh)?)
            };
            let skeleton = index(&raw["skeleton"])
                .and_then(|n| placed.origin_object(path, n))
                .filter(|o| common.contains(o))
                .map(|o| placed.node_of[o]);
            let mut out = json!({ "joints": joints.iter().map(|&j| placed.node_of[j]).collect::<Vec<u32>>() });
            if let Some(a) = matrices {
                out["inverseBindMatrices"] = json!(a);
            }
            if let Some(k) = skeleton {
                out["skeleton"] = json!(k);
            }
            for key in ["name", "extras"] {
                if let Some(v) = raw.get(key) {
                    out[key] = v.clone();
                }
            }
            Ok((push(&mut b.skins, out), mesh))
        })
    }

    /// Written mesh `mesh` with joint `j` made `map[j]` in every
    /// primitive's `JOINTS_n`, and the weights of influences that became
    /// the same joint of a vertex added into the first of them: changed in
    /// place when `in_place` (no other object uses it, and later ones get
    /// a copy of their own), else a copy.
    fn remap_joints(&mut self, mesh: u32, map: &[u32], in_place: bool) -> Result<u32, String> {
        let key = (mesh, map.to_vec());
        if let Some(&m) = self.remapped.get(&key) {
            return Ok(m);
        }
        let mut out = self.meshes[mesh as usize].clone();
        for p in out["primitives"].as_array_mut().into_iter().flatten() {
            let attributes = &mut p["attributes"];
            let mut sets = Vec::new();
            for k in 0.. {
                let j = attributes.get(format!("JOINTS_{k}")).and_then(index);
                let w = attributes.get(format!("WEIGHTS_{k}")).and_then(index);
                match (j, w) {
                    (Some(j), Some(w)) => sets.push((j as u32, w as u32)),
                    _ => break,
                }
            }
            if sets.is_empty() {
                continue;
            }
            for (k, (j, w)) in self.remap_sets(&sets, map)?.into_iter().enumerate() {
                attributes[format!("JOINTS_{k}")] = json!(j);
                attributes[format!("WEIGHTS_{k}")] = json!(w);
            }
        }
        let m = if in_place {
            self.meshes[mesh as usize] = out;
            self.mesh_index.retain(|_, m| *m != Some(mesh));
            mesh
        } else {
            push(&mut self.meshes, out)
        };
        self.remapped.insert(key, m);
        Ok(m)
    }

    /// New `JOINTS_n` / `WEIGHTS_n` accessors for the written pairs `sets`
    /// of one primitive, joints renumbered by `map` (see [`Self::remap_joints`]).
    fn remap_sets(&mut self, sets: &[(u32, u32)], map: &[u32]) -> Result<Vec<(u32, u32)>, String> {
        let mut joints = Vec::new();
        let mut weights = Vec::new();
        for &(j, w) in sets {
            joints.push(self.vec4s(j, &[ComponentType::U8, ComponentType::U16])?);
            weights.push(self.vec4s(w, &[ComponentType::F32, ComponentType::U8, ComponentType::U16])?);
        }
        let count = joints[0].values.len() / 4;
        if joints.iter().chain(&weights).any(|a| a.values.len() != 4 * count) {
            return Err("its JOINTS_n and WEIGHTS_n have different counts".into());
        }
        // Per vertex, every influence of every set in turn.
        let n = 4 * sets.len();
        let mut vj = vec![0u32; n];
        let mut vw = vec![0f64; n];
        for v in 0..count {
            for c in 0..n {
                let (set, k) = (c / 4, 4 * v + c % 4);
                vj[c] = joints[set].values[k] as u32;
                vw[c] = weights[set].values[k];
            }
            for c in 0..n {
                if vw[c] == 0.0 {
                    vj[c] = 0;
                    continue;
                }
                let joint = *map
                    .get(vj[c] as usize)
                    .ok_or_else(|| format!("a vertex names joint {}, but the skin has {}", vj[c], map.len()))?;
                match (0..c).find(|&e| vw[e] != 0.0 && vj[e] == joint) {
                    Some(e) => {
                        vw[e] += vw[c];
                        vw[c] = 0.0;
                        vj[c] = 0;
                    }
                    None => vj[c] = joint,
                }
            }
            for c in 0..n {
                let (set, k) = (c / 4, 4 * v + c % 4);
                joints[set].values[k] = f64::from(vj[c]);
                weights[set].values[k] = vw[c];
            }
        }
        let mut out = Vec::new();
        for (j, w) in joints.iter().zip(&weights) {
            out.push((self.add_vec4s(j), self.add_vec4s(w)));
        }
        Ok(out)
    }

    /// The values of written VEC4 accessor `a` (one of `types`), as f64s:
    /// integers as they are (not normalised).
    fn vec4s(&self, a: u32, types: &[ComponentType]) -> Result<Vec4s, String> {
        let accessor = self.root.accessors.get(a as usize).ok_or("no such accessor")?;
        let component = match accessor.component_type {
            Checked::Valid(gj::accessor::GenericComponentType(c)) if types.contains(&c) => c,
            _ => return Err(format!("accessor {a}: joints or weights of an unexpected component type")),
        };
        if accessor.type_ != Checked::Valid(Type::Vec4) || accessor.sparse.is_some() {
            return Err(format!("accessor {a}: joints or weights not a plain VEC4"));
        }
        let view = accessor.buffer_view.ok_or("joints or weights without data")?;
        let view = &self.root.buffer_views[view.value()];
        let size = component.size();
        let stride = view.byte_stride.map_or(4 * size, |s| s.0);
        let start = view.byte_offset.map_or(0, |o| o.0 as usize) + accessor.byte_offset.map_or(0, |o| o.0 as usize);
        let count = accessor.count.0 as usize;
        let mut values = Vec::with_capacity(4 * count);
        for v in 0..count {
            for k in 0..4 {
                let at = start + v * stride + k * size;
                let b = self.bin.get(at..at + size).ok_or("joints or weights past the buffer")?;
                values.push(match component {
                    ComponentType::U8 => f64::from(b[0]),
                    ComponentType::U16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
                    _ => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                });
            }
        }
        Ok(Vec4s { accessor: accessor.clone(), component, values })
    }

    /// A new vertex accessor like `a.accessor` holding `a.values`.
    fn add_vec4s(&mut self, a: &Vec4s) -> u32 {
        let mut bytes = Vec::with_capacity(a.values.len() * a.component.size());
        for &x in &a.values {
            match a.component {
                ComponentType::U8 => bytes.push(x.round().clamp(0.0, 255.0) as u8),
                ComponentType::U16 => bytes.extend((x.round().clamp(0.0, 65535.0) as u16).to_le_bytes()),
                _ => bytes.extend((x as f32).to_le_bytes()),
            }
        }
        let view = self.add_view(&bytes, Some(gj::buffer::Target::ArrayBuffer), None);
        let accessor = gj::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64((a.values.len() / 4) as u64),
            min: None,
            max: None,
            name: None,
            sparse: None,
            ..a.accessor.clone()
        };
        self.root.push(accessor).value() as u32
    }
}

/// A VEC4 accessor's values read back from the export's buffer.
struct Vec4s {
    accessor: gj::Accessor,
    component: ComponentType,
    values: Vec<f64>,
}
