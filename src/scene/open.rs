//! Opening a file given on the command line: a scene file, or a glTF file
//! whose node tree becomes the scene (`docs/spec/assets.md`, "Opening a
//! glTF file").

use std::path::{Path, PathBuf};

use nalgebra::{Matrix3, Matrix4, Quaternion, Rotation3, UnitQuaternion, Vector3};

/// The one line for a file that is neither format.
pub use super::error::ACCEPTED_FORMATS;
use super::gltf::{GltfError, GltfFile, GltfNode};
use super::{MeshRef, NodeOrigin, Object, Scene, SceneError, SkinRef};
use crate::math::Transform;

/// What a file given to the viewport holds, told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A scene file (JSON without an `asset` field).
    Scene,
    /// glTF 2.0: a GLB (magic `glTF`) or JSON with an `asset` field.
    Gltf,
}

/// Only the `asset` field of a JSON object; other fields are skipped.
#[derive(serde::Deserialize)]
struct AssetProbe {
    #[serde(default)]
    asset: Option<serde::de::IgnoredAny>,
}

/// Reads `path` and tells a scene file from a glTF file by its content
/// (the bytes come back, so that the file is read once). JSON that does
/// not parse counts as a scene file, so that its error says where it breaks.
pub fn read_file_kind(path: &Path) -> Result<(FileKind, Vec<u8>), SceneError> {
    let bytes = std::fs::read(path).map_err(|e| SceneError::Read(e).in_file(path))?;
    match file_kind(&bytes) {
        Some(kind) => Ok((kind, bytes)),
        None => Err(SceneError::Unrecognized.in_file(path)),
    }
}

/// What a file's bytes hold; `None` for neither format.
pub fn file_kind(bytes: &[u8]) -> Option<FileKind> {
    if bytes.starts_with(b"glTF") {
        return Some(FileKind::Gltf);
    }
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if text.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    match serde_json::from_slice::<AssetProbe>(text) {
        Ok(AssetProbe { asset: Some(_) }) => Some(FileKind::Gltf),
        _ => Some(FileKind::Scene),
    }
}

/// The scene the glTF file at `path` (whose content is `bytes`) opens as,
/// and the parsed file (to load its meshes from without reading it again).
pub fn scene_from_gltf(path: &Path, bytes: &[u8]) -> Result<(Scene, GltfFile), SceneError> {
    let file = GltfFile::from_bytes(path, bytes)?;
    let nodes = file.nodes()?;
    let invalid = |problem: String| SceneError::from(GltfError::Invalid { path: path.to_path_buf(), problem });
    let base = path.parent().unwrap_or(Path::new(""));
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut scene = Scene::default();
    let mut taken = std::collections::HashSet::new();
    // Copies of one name (a file of unnamed nodes) continue from the last.
    let no_names = super::numbering::Numbering::default();
    let mut namer = super::numbering::CopyNamer::new(&no_names);
    let origin_file: std::sync::Arc<Path> = base.join(&file_name).into();
    for node in &nodes {
        let what = match &node.name {
            Some(name) => format!("node {} (\"{name}\")", node.index),
            None => format!("node {}", node.index),
        };
        let transform = node_transform(node).map_err(|p| invalid(format!("{what}: {p}")))?;
        let wanted = node.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "node".to_string());
        let name = namer.free_name(&wanted, |c| taken.contains(c));
        taken.insert(name.clone());
        let mesh = match node.mesh {
            Some(n) => MeshRef::gltf(format!("{file_name}#{n}"), base.join(&file_name), Some(n)),
            None => MeshRef::Empty,
        };
        scene
            .push(
                Object {
                    name: name.into(),
                    mesh,
                    transform,
                    color: [1.0, 1.0, 1.0],
                    hidden: node.hidden,
                    cast_shadows: true,
                    skin: None,
                    extras: node.extras.clone().map(Box::new),
                    origin: Some(Box::new(NodeOrigin { file: origin_file.clone(), node: node.index })),
                    fixture: file.fixture_of_node(node.index),
                },
                node.parent,
            )
            .map_err(|e| invalid(format!("{what}: {e}")))?;
    }
    link_skins(&mut scene, &nodes, &file)?;
    Ok((scene, file))
}

/// Gives each object of a skinned node with a mesh its skin, naming the
/// objects of the skin's joint nodes. A skin with a joint outside the
/// opened scene cannot be posed: a warning, and the mesh draws unposed.
fn link_skins(scene: &mut Scene, nodes: &[GltfNode], file: &GltfFile) -> Result<(), SceneError> {
    let object_of: std::collections::HashMap<usize, usize> =
        nodes.iter().enumerate().map(|(k, n)| (n.index, k)).collect();
    for (k, node) in nodes.iter().enumerate() {
        let (Some(s), Some(_)) = (node.skin, node.mesh) else { continue };
        let joints = file.skin_joints(s)?;
        let names: Option<Vec<String>> =
            joints.iter().map(|j| object_of.get(j).map(|&o| scene.objects()[o].name.to_string())).collect();
        match names {
            Some(joints) if !joints.is_empty() => {
                if let Some(o) = scene.object_mut(k) {
                    *o.skin = Some(Box::new(SkinRef { index: s, joints: joints.into() }));
                }
            }
            _ => log::warn!(
                "{}: node {}: skin {s} has a joint outside the scene (or none); its mesh is drawn unposed",
                file.path().display(),
                node.index
            ),
        }
    }
    Ok(())
}

/// How close a `matrix` must come to translation * rotation * scale.
pub const TRS_TOLERANCE: f64 = 1e-5;

/// A node's local transform; a `matrix` is decomposed and refused where it
/// is not translation * rotation * scale within [`TRS_TOLERANCE`].
pub fn node_transform(node: &GltfNode) -> Result<Transform, String> {
    let t = if node.has_matrix {
        decompose(&node.matrix)?
    } else {
        let [x, y, z, w] = node.rotation;
        let q = Quaternion::new(w, x, y, z);
        if q.norm().is_nan() || q.norm() <= 1e-9 {
            return Err("rotation quaternion is zero".into());
        }
        Transform {
            position: Vector3::from(node.translation),
            rotation: UnitQuaternion::from_quaternion(q),
            scale: Vector3::from(node.scale),
        }
    };
    match super::transform_problem(&t) {
        Some(problem) => Err(problem.into()),
        None => Ok(t),
    }
}

/// Splits a column-major node matrix into translation, rotation, scale.
pub fn decompose(m: &Matrix4<f64>) -> Result<Transform, String> {
    if !m.iter().all(|x| x.is_finite()) {
        return Err("non-finite matrix".into());
    }
    let linear: Matrix3<f64> = m.fixed_view::<3, 3>(0, 0).into_owned();
    if linear.column_iter().any(|c| c.norm() < 1e-12) {
        return Err("its matrix has a zero scale".into());
    }
    let (t, error) = closest_trs(m, 1e-12);
    let size = m.iter().fold(1.0f64, |a, x| a.max(x.abs()));
    if error > TRS_TOLERANCE * size {
        return Err("its matrix is not a translation, rotation and scale (it shears or projects)".into());
    }
    Ok(t)
}

/// The translation, rotation and scale closest to `m` (each scale at least
/// `min_scale` in size; a mirror goes into the x scale, so that what is
/// left is a rotation, the one closest to the linear part), and how far
/// that transform's matrix is from `m` (0 without shear or projection).
pub fn closest_trs(m: &Matrix4<f64>, min_scale: f64) -> (Transform, f64) {
    let linear: Matrix3<f64> = m.fixed_view::<3, 3>(0, 0).into_owned();
    let mut scale = Vector3::new(linear.column(0).norm(), linear.column(1).norm(), linear.column(2).norm());
    for s in scale.iter_mut() {
        *s = s.max(min_scale);
    }
    if linear.determinant() < 0.0 {
        scale.x = -scale.x;
    }
    let r =
        Matrix3::from_columns(&[linear.column(0) / scale.x, linear.column(1) / scale.y, linear.column(2) / scale.z]);
    let rotation = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix(&r));
    let t = Transform { position: m.fixed_view::<3, 1>(0, 3).into_owned(), rotation, scale };
    let error = (t.matrix() - m).amax();
    (t, error)
}

/// Where Ctrl+S saves a scene opened from the glTF file `path`:
/// `STEM.scene.json` beside it.
pub fn gltf_save_path(path: &Path) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "scene".into());
    path.with_file_name(format!("{stem}.scene.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trs_matrices_decompose_and_sheared_ones_do_not() {
        let t = Transform {
            position: Vector3::new(1.0, -2.0, 3.0),
            rotation: UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1),
            scale: Vector3::new(2.0, 0.5, -3.0),
        };
        let back = decompose(&t.matrix()).unwrap();
        assert!((back.matrix() - t.matrix()).amax() < 1e-12);
        let mut sheared = t.matrix();
        sheared[(0, 1)] += 0.1;
        assert!(decompose(&sheared).unwrap_err().contains("not a translation, rotation and scale"));
        let mut projective = Matrix4::identity();
        projective[(3, 2)] = -1.0;
        assert!(decompose(&projective).is_err());
    }

    #[test]
    fn the_first_bytes_tell_the_format() {
        assert_eq!(file_kind(b"glTF\x02\0\0\0"), Some(FileKind::Gltf));
        assert_eq!(file_kind(br#" {"objects": [], "asset": {"version": "2.0"}}"#), Some(FileKind::Gltf));
        assert_eq!(file_kind(br#"{"objects": []}"#), Some(FileKind::Scene));
        assert_eq!(file_kind(br#"{"objects": [ broken"#), Some(FileKind::Scene));
        assert_eq!(file_kind(b"[1, 2]"), None);
        assert_eq!(file_kind(b"\x89PNG"), None);
        assert_eq!(file_kind(b""), None);
    }

    #[test]
    fn the_save_path_is_beside_the_gltf() {
        assert_eq!(gltf_save_path(Path::new("a/Fox.glb")), PathBuf::from("a/Fox.scene.json"));
    }
}
