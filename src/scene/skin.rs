//! Skins: which joint objects pose an object's glTF mesh, and the CPU
//! skinning that turns the mesh's bind-pose vertices into the pose the
//! joints' current world matrices give (`docs/spec/assets.md`, "What is drawn").
//!
//! A skinned object's drawn (and picked) vertices, in the object's own
//! space, are `inverse(world(object)) * sum_i w_i * world(joint_i) *
//! inverseBind_i * v`: as glTF says, the skinned node's own transform does
//! not move the skin, its joints do. Everything is computed in f64.
//!
//! Tangents (for normal textures), where the mesh has them, are posed as
//! directions: the linear part of the same per-vertex matrix, renormalised,
//! the bitangent sign kept, and flipped where that matrix mirrors (as a
//! node matrix baked into a static mesh flips it).

use std::sync::Arc;

use nalgebra::{Matrix3, Matrix4, Point3, Vector3};

use super::{MeshData, MeshRef, SkinFile};

/// An object's skin as a scene file names it: skin `index` of the glTF file
/// its mesh (`path#N`) comes from, and the objects that are its joints, by
/// name, in the skin's joint order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SkinRef {
    pub index: usize,
    pub joints: Joints,
}

/// A skin's joint names: a list behind one thin pointer, so that a
/// `SkinRef` takes 16 bytes (and an object's boxed one 8). Reads as a
/// slice of names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
// Boxed on purpose: one 8-byte pointer in every object's record, where a
// `Vec` or a boxed slice would take 24 or 16 bytes.
#[allow(clippy::box_collection)]
pub struct Joints(Box<Vec<String>>);

impl std::ops::Deref for Joints {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.0
    }
}

impl From<Vec<String>> for Joints {
    fn from(names: Vec<String>) -> Joints {
        Joints(Box::new(names))
    }
}

impl FromIterator<String> for Joints {
    fn from_iter<I: IntoIterator<Item = String>>(names: I) -> Joints {
        Joints(Box::new(names.into_iter().collect()))
    }
}

impl<T> PartialEq<Vec<T>> for Joints
where
    String: PartialEq<T>,
{
    fn eq(&self, other: &Vec<T>) -> bool {
        self.0.len() == other.len() && self.0.iter().zip(other).all(|(a, b)| a == b)
    }
}

/// A mesh as posed on the CPU (by a skin, by morph weights or both): its
/// triangles, and per vertex its tangent (xyz) with the bitangent's sign
/// (w), in the same vertex order; `tangents` is empty for a mesh without
/// any (no normal texture).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Posed {
    pub mesh: MeshData,
    pub tangents: Vec<[f32; 4]>,
}

/// A glTF mesh with the skin that poses it: the bind-pose triangles (the
/// same vertices as the plain mesh), each vertex's joint weights, and each
/// joint's inverse bind matrix.
#[derive(Debug)]
pub struct SkinData {
    pub bind: Arc<MeshData>,
    /// The bind pose's tangents, one per vertex, or empty for none.
    tangents: Vec<[f32; 4]>,
    /// Vertex `v`'s influences are `links[starts[v]..starts[v + 1]]`.
    starts: Vec<u32>,
    /// (joint, weight); weights are normalised when posing.
    links: Vec<(u32, f32)>,
    inverse_bind: Vec<Matrix4<f64>>,
}

impl SkinData {
    /// Checks that the influences cover every vertex and name existing
    /// joints (`inverse_bind` has one matrix per joint).
    pub fn new(
        bind: Arc<MeshData>,
        starts: Vec<u32>,
        links: Vec<(u32, f32)>,
        inverse_bind: Vec<Matrix4<f64>>,
    ) -> Result<SkinData, String> {
        if starts.len() != bind.positions.len() + 1
            || starts.windows(2).any(|w| w[0] > w[1])
            || starts.last().is_some_and(|&e| e as usize != links.len())
        {
            return Err("skin weights do not match the mesh's vertices".into());
        }
        if let Some((j, _)) = links.iter().find(|(j, _)| *j as usize >= inverse_bind.len()) {
            return Err(format!("a vertex names joint {j}, but the skin has {} joints", inverse_bind.len()));
        }
        if links.iter().any(|(_, w)| !w.is_finite()) || inverse_bind.iter().flatten().any(|x| !x.is_finite()) {
            return Err("skin weights or inverse bind matrices are not finite".into());
        }
        Ok(SkinData { bind, tangents: Vec::new(), starts, links, inverse_bind })
    }

    /// The skin with the bind pose's tangents (xyz and the bitangent's
    /// sign w, one per vertex; empty for none), which posing turns with
    /// the vertices. A tangent that is not finite becomes none (zero).
    pub fn with_tangents(self, mut tangents: Vec<[f32; 4]>) -> Result<SkinData, String> {
        if !tangents.is_empty() && tangents.len() != self.bind.positions.len() {
            return Err(format!("{} tangents for {} vertices", tangents.len(), self.bind.positions.len()));
        }
        for t in tangents.iter_mut().filter(|t| !t.iter().all(|x| x.is_finite())) {
            *t = [0.0; 4];
        }
        Ok(SkinData { tangents, ..self })
    }

    /// The bind pose's tangents (empty where the mesh has none).
    pub fn tangents(&self) -> &[[f32; 4]] {
        &self.tangents
    }

    /// The world matrix each joint entry poses with, for a skin whose
    /// entries name the objects `joints` of skinned object `object`
    /// (`world` gives an object's world matrix). A deleted joint's entry
    /// names its nearest remaining ancestor joint, already named by an
    /// earlier entry: its vertices follow that joint as that joint's own
    /// do (the earlier entry's inverse bind matrix is used). An entry naming
    /// the skinned object itself (no ancestor joint remained) keeps its
    /// vertices where the bind pose has them in the object's space.
    pub fn joint_worlds(
        &self,
        joints: &[usize],
        object: usize,
        world: impl Fn(usize) -> Matrix4<f64>,
    ) -> Vec<Matrix4<f64>> {
        let inverse = |k: usize| self.inverse_bind[k].try_inverse().unwrap_or_else(Matrix4::identity);
        joints
            .iter()
            .enumerate()
            .map(|(k, &x)| {
                let w = world(x);
                let first = joints.iter().position(|&y| y == x).unwrap_or(k);
                // The object's own entries first: every one of them, not
                // only the first, keeps its vertices in the bind pose.
                if x == object && k < self.inverse_bind.len() {
                    w * inverse(k)
                } else if first < k && first < self.inverse_bind.len() && k < self.inverse_bind.len() {
                    w * self.inverse_bind[first] * inverse(k)
                } else {
                    w
                }
            })
            .collect()
    }

    /// How many joints the skin has.
    pub fn joint_count(&self) -> usize {
        self.inverse_bind.len()
    }

    /// The vertices posed by the joints' world matrices (`joint_worlds`, in
    /// the skin's joint order), in the space of the object whose world
    /// inverse is `object_inverse`. A vertex without weight keeps its bind
    /// position in the object's space; normals go by the inverse-transpose
    /// of each vertex's blended matrix, tangents by its linear part (see the
    /// module docs).
    pub fn pose(&self, joint_worlds: &[Matrix4<f64>], object_inverse: &Matrix4<f64>) -> Posed {
        self.pose_from(&self.bind, &self.tangents, joint_worlds, object_inverse)
    }

    /// [`SkinData::pose`] of `bind` and its `tangents` in place of the
    /// skin's own bind-pose vertices: the same mesh with its morph targets
    /// applied (glTF morphs first, then skins). A mesh of another vertex
    /// count poses the skin's own vertices; tangents of another count, the
    /// skin's own tangents.
    pub fn pose_from(
        &self,
        bind: &MeshData,
        tangents: &[[f32; 4]],
        joint_worlds: &[Matrix4<f64>],
        object_inverse: &Matrix4<f64>,
    ) -> Posed {
        let n = self.bind.positions.len();
        let bind = if bind.positions.len() == n && bind.normals.len() == n { bind } else { &*self.bind };
        let tangents = if tangents.len() == n { tangents } else { &self.tangents[..] };
        let joints: Vec<Matrix4<f64>> =
            joint_worlds.iter().zip(&self.inverse_bind).map(|(w, ib)| object_inverse * w * ib).collect();
        let mut out = MeshData {
            positions: Vec::with_capacity(bind.positions.len()),
            normals: Vec::with_capacity(bind.normals.len()),
            indices: bind.indices.clone(),
        };
        let mut posed_tangents = Vec::with_capacity(tangents.len());
        let to_f32 = |v: &Vector3<f64>| [v.x as f32, v.y as f32, v.z as f32];
        for (v, (p, n)) in bind.positions.iter().zip(&bind.normals).enumerate() {
            let links = &self.links[self.starts[v] as usize..self.starts[v + 1] as usize];
            let mut m = Matrix4::zeros();
            let mut sum = 0.0;
            for &(j, w) in links {
                if let Some(joint) = joints.get(j as usize) {
                    m += joint * f64::from(w);
                    sum += f64::from(w);
                }
            }
            let m = if sum.abs() > 1e-12 { m / sum } else { Matrix4::identity() };
            let p = m.transform_point(&Point3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2])));
            out.positions.push([p.x as f32, p.y as f32, p.z as f32]);
            let linear: Matrix3<f64> = m.fixed_view::<3, 3>(0, 0).into_owned();
            let determinant = linear.determinant();
            let cofactor = Matrix3::from_columns(&[
                linear.column(1).cross(&linear.column(2)),
                linear.column(2).cross(&linear.column(0)),
                linear.column(0).cross(&linear.column(1)),
            ]) * determinant.signum();
            let local = Vector3::new(f64::from(n[0]), f64::from(n[1]), f64::from(n[2]));
            let turned = cofactor * local;
            let norm = turned.norm();
            out.normals.push(if norm > 1e-30 && norm.is_finite() { to_f32(&(turned / norm)) } else { *n });
            if let Some(t) = tangents.get(v) {
                posed_tangents.push(pose_tangent(t, &linear, determinant < 0.0));
            }
        }
        Posed { mesh: out, tangents: posed_tangents }
    }
}

/// Tangent `t` (xyz, bitangent sign w) turned by `linear` as a direction
/// and renormalised; the sign flips where `linear` mirrors. A tangent
/// without a direction (none, or flattened away) keeps its own xyz.
pub(super) fn pose_tangent(t: &[f32; 4], linear: &Matrix3<f64>, mirrored: bool) -> [f32; 4] {
    let d = linear * Vector3::new(f64::from(t[0]), f64::from(t[1]), f64::from(t[2]));
    let norm = d.norm();
    let w = if mirrored { -t[3] } else { t[3] };
    if norm > 1e-30 && norm.is_finite() {
        let d = d / norm;
        [d.x as f32, d.y as f32, d.z as f32, w]
    } else {
        [t[0], t[1], t[2], w]
    }
}

/// The joint names of `skin` once the objects `gone` (by name) are deleted
/// from the scene: each entry naming a deleted joint names instead its
/// nearest remaining ancestor (`ancestors` lists a deleted joint's, nearest
/// first) whose own entry comes earlier, else `object` (the skinned object
/// itself). `None` when no entry names a deleted object.
pub fn joints_without(
    skin: &SkinRef,
    object: &str,
    gone: impl Fn(&str) -> bool,
    ancestors: impl Fn(&str) -> Vec<String>,
) -> Option<Joints> {
    if !skin.joints.iter().any(|j| gone(j)) {
        return None;
    }
    let out: Vec<String> = skin
        .joints
        .iter()
        .enumerate()
        .map(|(k, name)| {
            if !gone(name) {
                return name.clone();
            }
            // An ancestor whose own entry comes earlier: that entry is then
            // the first naming it, and its inverse bind matrix the one used.
            let earlier = &skin.joints[..k];
            let heir = ancestors(name).into_iter().find(|a| !gone(a) && earlier.contains(a));
            heir.unwrap_or_else(|| object.to_string())
        })
        .collect();
    Some(out.into())
}

/// A scene file's `skin` of an object whose mesh is `mesh`: it needs a
/// glTF `path#N` mesh and joints that name objects of the file.
pub(super) fn check_skin(s: &SkinFile, mesh: &MeshRef, is_object: impl Fn(&str) -> bool) -> Result<SkinRef, String> {
    if !matches!(mesh.gltf_mesh(), Some((_, Some(_)))) {
        return Err("a skin needs a glTF mesh named as \"path#N\"".into());
    }
    if s.joints.is_empty() {
        return Err("skin has no joints".into());
    }
    if let Some(j) = s.joints.iter().find(|j| !is_object(j.as_str())) {
        return Err(format!("skin: unknown joint \"{j}\""));
    }
    Ok(SkinRef { index: s.index, joints: s.joints.clone().into() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion};

    /// Two vertices on two joints, one shared half and half.
    fn two_joint_skin() -> SkinData {
        let bind = MeshData {
            positions: vec![[0.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            indices: vec![0, 1, 2],
        };
        // Joint 1 sits at y = 1 in the bind pose.
        let ib1 = Translation3::new(0.0, -1.0, 0.0).to_homogeneous();
        SkinData::new(
            Arc::new(bind),
            vec![0, 1, 2, 4],
            vec![(0, 1.0), (1, 1.0), (0, 0.5), (1, 0.5)],
            vec![Matrix4::identity(), ib1],
        )
        .unwrap()
    }

    #[test]
    fn the_bind_pose_gives_the_bind_vertices_and_a_moved_joint_moves_its_vertices() {
        let s = two_joint_skin();
        let rest = [Matrix4::identity(), Translation3::new(0.0, 1.0, 0.0).to_homogeneous()];
        let posed = s.pose(&rest, &Matrix4::identity()).mesh;
        assert_eq!(posed.positions, s.bind.positions);
        assert_eq!(posed.normals, s.bind.normals);
        // Joint 1 turned 90 degrees about z at (0, 1, 0): (0, 2) goes to (-1, 1).
        let turned = Translation3::new(0.0, 1.0, 0.0).to_homogeneous()
            * UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2).to_homogeneous();
        let posed = s.pose(&[Matrix4::identity(), turned], &Matrix4::identity()).mesh;
        let near = |a: [f32; 3], b: [f64; 3]| (0..3).all(|k| (f64::from(a[k]) - b[k]).abs() < 1e-6);
        assert!(near(posed.positions[0], [0.0, 0.0, 0.0]));
        assert!(near(posed.positions[1], [-1.0, 1.0, 0.0]), "{:?}", posed.positions[1]);
        // Half of (1, 1) unmoved and half of it turned: (1, 1) -> (0, 2) by joint 1.
        assert!(near(posed.positions[2], [0.5, 1.5, 0.0]), "{:?}", posed.positions[2]);
        // The object's own transform does not move the skin: the vertices
        // come back in its space.
        let object = Translation3::new(5.0, 0.0, 0.0).to_homogeneous();
        let inv = object.try_inverse().unwrap();
        let posed = s.pose(&[Matrix4::identity(), turned], &inv).mesh;
        assert!(near(posed.positions[1], [-6.0, 1.0, 0.0]));
    }

    #[test]
    fn a_morphed_bind_mesh_is_skinned_in_place_of_the_skins_own() {
        let s = two_joint_skin();
        // The morphed vertices: vertex 1 (on joint 1) lifted to y = 3.
        let mut morphed = (*s.bind).clone();
        morphed.positions[1] = [0.0, 3.0, 0.0];
        // Joint 1 (bind place y = 1) moved to y = 2: the lifted vertex,
        // 2 above the joint, ends at y = 4.
        let worlds = [Matrix4::identity(), Translation3::new(0.0, 2.0, 0.0).to_homogeneous()];
        let posed = s.pose_from(&morphed, &[], &worlds, &Matrix4::identity()).mesh;
        assert_eq!(posed.positions[1], [0.0, 4.0, 0.0]);
        assert_eq!(posed.positions[0], [0.0, 0.0, 0.0]);
        // A mesh of another vertex count poses the skin's own vertices.
        let short = MeshData { positions: vec![[9.0; 3]], normals: vec![[0.0, 0.0, 1.0]], indices: vec![] };
        assert_eq!(s.pose_from(&short, &[], &worlds, &Matrix4::identity()).mesh.positions[1], [0.0, 3.0, 0.0]);
    }

    /// `v` turned by `angle` about the unit `axis` (Rodrigues' formula,
    /// written out here).
    fn rodrigues(v: [f64; 3], axis: [f64; 3], angle: f64) -> [f64; 3] {
        let (s, c) = angle.sin_cos();
        let [x, y, z] = v;
        let [a, b, d] = axis;
        let dot = a * x + b * y + d * z;
        let cross = [b * z - d * y, d * x - a * z, a * y - b * x];
        [
            x * c + cross[0] * s + a * dot * (1.0 - c),
            y * c + cross[1] * s + b * dot * (1.0 - c),
            z * c + cross[2] * s + d * dot * (1.0 - c),
        ]
    }

    fn unit3(v: [f64; 3]) -> [f64; 3] {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|x| x / n)
    }

    fn near4(got: [f32; 4], want: [f64; 3], w: f32) -> bool {
        (0..3).all(|k| (f64::from(got[k]) - want[k]).abs() < 1e-5) && got[3] == w
    }

    #[test]
    fn posed_tangents_turn_with_their_joints_and_keep_the_bitangent_sign() {
        // Vertex 0 on joint 0, vertex 1 on joint 1, vertex 2 half and half.
        let tangents = [[1.0, 0.0, 0.0, 1.0], [0.0, 0.6, 0.8, -1.0], [0.0, 1.0, 0.0, 1.0]];
        let s = two_joint_skin().with_tangents(tangents.to_vec()).unwrap();
        assert_eq!(
            s.pose(&[Matrix4::identity(), Translation3::new(0.0, 1.0, 0.0).to_homogeneous()], &Matrix4::identity())
                .tangents,
            tangents.to_vec(),
            "the bind pose keeps them"
        );
        // Joint 1 turned 0.9 rad about a slanted axis, where it sits.
        let axis = unit3([1.0, 2.0, 3.0]);
        let angle = 0.9;
        let turn = UnitQuaternion::from_axis_angle(
            &nalgebra::Unit::new_normalize(Vector3::new(axis[0], axis[1], axis[2])),
            angle,
        );
        let joint1 = Translation3::new(0.0, 1.0, 0.0).to_homogeneous() * turn.to_homogeneous();
        let posed = s.pose(&[Matrix4::identity(), joint1], &Matrix4::identity());
        let t = |k: usize| [0, 1, 2].map(|c| f64::from(tangents[k][c]));
        assert!(near4(posed.tangents[0], t(0), 1.0), "{:?}", posed.tangents[0]);
        let turned = rodrigues(t(1), axis, angle);
        assert!(near4(posed.tangents[1], turned, -1.0), "{:?} vs {turned:?}", posed.tangents[1]);
        // Half unmoved, half turned: the normalised blend.
        let r = rodrigues(t(2), axis, angle);
        let blend = unit3([0, 1, 2].map(|c| 0.5 * t(2)[c] + 0.5 * r[c]));
        assert!(near4(posed.tangents[2], blend, 1.0), "{:?} vs {blend:?}", posed.tangents[2]);
        // An object space that mirrors x: the tangent's x turns over and
        // the bitangent sign flips, as a mirroring node matrix does.
        let mirror = Matrix4::new_nonuniform_scaling(&Vector3::new(-1.0, 1.0, 1.0));
        let posed = s.pose(&[Matrix4::identity(), joint1], &mirror);
        let flipped = [-turned[0], turned[1], turned[2]];
        assert!(near4(posed.tangents[1], flipped, 1.0), "{:?} vs {flipped:?}", posed.tangents[1]);
        assert!(near4(posed.tangents[0], [-1.0, 0.0, 0.0], -1.0), "{:?}", posed.tangents[0]);
        // A morphed mesh's own tangents are posed in place of the skin's.
        let own = [[0.0, 0.0, 1.0, 1.0]; 3];
        let posed = s.pose_from(&s.bind, &own, &[Matrix4::identity(), joint1], &Matrix4::identity());
        let z = rodrigues([0.0, 0.0, 1.0], axis, angle);
        assert!(near4(posed.tangents[1], z, 1.0), "{:?} vs {z:?}", posed.tangents[1]);
        // A mesh without tangents poses none; tangents of another count
        // are refused.
        assert!(two_joint_skin().pose(&[Matrix4::identity(), joint1], &Matrix4::identity()).tangents.is_empty());
        assert!(two_joint_skin().with_tangents(vec![[1.0, 0.0, 0.0, 1.0]]).is_err());
    }

    #[test]
    fn a_deleted_joint_hands_its_vertices_to_its_ancestor_joint() {
        let s = two_joint_skin();
        // Joint 1 deleted: its entry names joint 0's object (index 0 here).
        let skin = SkinRef { index: 0, joints: vec!["root".to_string(), "tip".to_string()].into() };
        let joints = joints_without(&skin, "strip", |n| n == "tip", |_| vec!["root".to_string()]).unwrap();
        assert_eq!(joints, vec!["root".to_string(), "root".to_string()]);
        // Nothing deleted: nothing to change; no ancestor joint: the object.
        assert!(joints_without(&skin, "strip", |_| false, |_| vec![]).is_none());
        let orphan = joints_without(&skin, "strip", |n| n == "tip", |_| vec![]).unwrap();
        assert_eq!(orphan, vec!["root".to_string(), "strip".to_string()]);

        // Objects: 7 = root, 9 = the skinned object. The rest pose keeps
        // the bind vertices; turning root turns the former tip's vertices
        // with it, as root's own, expected here from the bind positions.
        let rest = |o: usize| if o == 7 { s.inverse_bind[0].try_inverse().unwrap() } else { Matrix4::identity() };
        let worlds = s.joint_worlds(&[7, 7], 9, rest);
        let posed = s.pose(&worlds, &Matrix4::identity()).mesh;
        for (a, b) in posed.positions.iter().zip(&s.bind.positions) {
            assert!((0..3).all(|k| (a[k] - b[k]).abs() < 1e-5), "{a:?} vs {b:?}");
        }
        let turn = Matrix4::from_axis_angle(&Vector3::z_axis(), 0.5);
        let turned =
            |o: usize| if o == 7 { turn * s.inverse_bind[0].try_inverse().unwrap() } else { Matrix4::identity() };
        let posed = s.pose(&s.joint_worlds(&[7, 7], 9, turned), &Matrix4::identity()).mesh;
        for (a, b) in posed.positions.iter().zip(&s.bind.positions) {
            let want = turn.transform_point(&Point3::new(f64::from(b[0]), f64::from(b[1]), f64::from(b[2])));
            assert!((0..3).all(|k| (f64::from(a[k]) - want[k]).abs() < 1e-5), "{a:?} vs {want:?}");
        }
        // The skinned object itself as the heir: the vertices stay put in
        // its space whatever the entry's own inverse bind matrix, also when
        // it is the heir of every entry.
        let shifted = SkinData::new(
            s.bind.clone(),
            s.starts.clone(),
            s.links.clone(),
            vec![Translation3::new(0.5, 0.0, 0.0).to_homogeneous(), s.inverse_bind[1]],
        )
        .unwrap();
        for (skin, joints) in [(&s, [7, 9]), (&shifted, [9, 9])] {
            let posed = skin.pose(&skin.joint_worlds(&joints, 9, rest), &Matrix4::identity()).mesh;
            for (a, b) in posed.positions.iter().zip(&s.bind.positions) {
                assert!((0..3).all(|k| (a[k] - b[k]).abs() < 1e-5), "{joints:?}: {a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn bad_influences_are_refused() {
        let bind = Arc::new(MeshData { positions: vec![[0.0; 3]], normals: vec![[0.0, 1.0, 0.0]], indices: vec![] });
        assert!(SkinData::new(bind.clone(), vec![0, 1], vec![(2, 1.0)], vec![Matrix4::identity()])
            .unwrap_err()
            .contains("joint 2"));
        assert!(SkinData::new(bind, vec![0, 1, 1], vec![(0, 1.0)], vec![Matrix4::identity()]).is_err());
    }
}
