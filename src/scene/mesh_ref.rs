//! [`MeshRef`]: which mesh an object draws (a primitive, a glTF file's
//! mesh or none), as a scene file names it and as saving rewrites it.

use std::path::{Path, PathBuf};

use super::paths::{absolute_clean, relative_path};
use super::primitives::Primitive;

/// Which mesh an object draws. 16 bytes: the glTF reference, rare in
/// large scenes, is boxed so that every object does not carry its strings.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MeshRef {
    Primitive(Primitive),
    /// A glTF file's mesh ([`GltfMesh`]).
    Gltf(Box<GltfMesh>),
    /// No geometry (`"mesh": null`): draws nothing, has no triangles.
    Empty,
}

/// A glTF file's mesh as an object names it; `source` as written in the
/// scene (with its `#N`), `path` the file resolved against the scene
/// file's folder. `mesh` `None`: every mesh of the file's default scene
/// merged into one; `Some(n)`: mesh `n` alone, in its own space.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GltfMesh {
    pub source: String,
    pub path: PathBuf,
    pub mesh: Option<usize>,
    /// Which reading of the file: 0 as opened, then one more per reload
    /// that changed it (`docs/spec/roundtrip.md`, "Reload"). Never saved;
    /// it keeps the geometry of each reading apart, so that undoing a
    /// reload shows the earlier one.
    pub version: u32,
}

impl MeshRef {
    /// Mesh `mesh` of the glTF file at `path` (all of it merged for
    /// `None`), written `source` in a scene file.
    pub fn gltf(source: String, path: PathBuf, mesh: Option<usize>) -> MeshRef {
        MeshRef::Gltf(Box::new(GltfMesh { source, path, mesh, version: 0 }))
    }

    /// This glTF mesh in reading `version` of its file (other meshes as they are).
    pub fn with_version(&self, version: u32) -> MeshRef {
        match self {
            MeshRef::Gltf(g) => MeshRef::Gltf(Box::new(GltfMesh { version, ..(**g).clone() })),
            other => other.clone(),
        }
    }

    /// The glTF file and mesh (`None`: the whole file), if a glTF mesh.
    pub fn gltf_mesh(&self) -> Option<(&Path, Option<usize>)> {
        match self {
            MeshRef::Gltf(g) => Some((&g.path, g.mesh)),
            _ => None,
        }
    }

    /// The string written in a scene file (`None` for an empty object).
    pub fn source(&self) -> Option<&str> {
        match self {
            MeshRef::Primitive(p) => Some(p.name()),
            MeshRef::Gltf(g) => Some(&g.source),
            MeshRef::Empty => None,
        }
    }

    /// Reads a scene file's `mesh` string: a primitive's name, a glTF path,
    /// or `path#N` for mesh N of a glTF file; paths resolve against `base`.
    pub fn parse(text: &str, base: &Path) -> Result<MeshRef, String> {
        if let Some(p) = Primitive::from_name(text) {
            return Ok(MeshRef::Primitive(p));
        }
        let (file, mesh) = match text.rsplit_once('#') {
            Some((file, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
                let n = n.parse::<usize>().map_err(|_| format!("mesh \"{text}\": mesh index {n} is too large"))?;
                (file, Some(n))
            }
            _ => (text, None),
        };
        let lower = file.to_ascii_lowercase();
        if !(lower.ends_with(".gltf") || lower.ends_with(".glb")) {
            return Err(format!(
                "mesh \"{text}\" is neither a primitive (cube, sphere, cylinder, cone, torus, plane) nor a .gltf/.glb file (optionally with #N for its mesh N)"
            ));
        }
        Ok(MeshRef::gltf(text.to_string(), base.join(file), mesh))
    }

    /// The `mesh` string naming the same mesh from a scene file in `dir`:
    /// a glTF path is always written relative to `dir` (a pasted object's
    /// absolute path too), kept as read when it already names the same
    /// file from there.
    pub(super) fn source_from(&self, dir: &Path) -> Option<String> {
        let MeshRef::Gltf(g) = self else { return self.source().map(str::to_string) };
        let GltfMesh { source, path, mesh, .. } = &**g;
        let file = match mesh {
            Some(_) => source.rsplit_once('#').map_or(source.as_str(), |(f, _)| f),
            None => source.as_str(),
        };
        let target = absolute_clean(path);
        if Path::new(file).is_relative() && absolute_clean(&dir.join(file)) == target {
            return Some(source.clone());
        }
        let rel = relative_path(&absolute_clean(dir), &target).to_string_lossy().into_owned();
        Some(match mesh {
            Some(n) => format!("{rel}#{n}"),
            None => rel,
        })
    }
}
