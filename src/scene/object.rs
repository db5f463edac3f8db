//! [`Object`]: one object of a scene, the glTF node it came from
//! ([`NodeOrigin`]), and the rule for the transforms a scene can hold.

use std::path::Path;

use smol_str::SmolStr;

use super::mesh_ref::MeshRef;
use super::skin::SkinRef;
use crate::math::Transform;

/// One object of the scene. Its parent is held by the scene's
/// [`Hierarchy`](super::Hierarchy) ([`Scene::parent`](super::Scene::parent)), which keeps the links acyclic.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// Names up to 23 bytes are held inline (no heap block): a million
    /// `cube_N` names cost nothing beyond the record.
    pub name: SmolStr,
    pub mesh: MeshRef,
    /// Local transform, relative to the parent.
    pub transform: Transform,
    /// Linear RGB in [0, 1].
    pub color: [f32; 3],
    /// Hidden by the user (H): neither drawn nor picked, and neither are
    /// its descendants (`docs/spec/organise.md`). Its own flag only: whether
    /// it shows also depends on its ancestors ([`Scene::is_hidden`](super::Scene::is_hidden)). Set
    /// through [`Scene::set_hidden`](super::Scene::set_hidden) once the object is in a scene, so
    /// that the scene's count of hidden objects stays right. Fits in the
    /// record's padding.
    pub hidden: bool,
    /// Whether its mesh casts shadows (`docs/spec/lights.md`, "Shadows";
    /// the scene file's `cast_shadows`, true unless set false). Fits in
    /// the record's padding beside `hidden`.
    pub cast_shadows: bool,
    /// The joints that pose its glTF mesh ([`skin`](super::skin)), if it is skinned.
    /// Boxed: 8 bytes in every record (skins are rare in large scenes).
    pub skin: Option<Box<SkinRef>>,
    /// The object's `extras` (any JSON), kept as it came; boxed like `skin`.
    pub extras: Option<Box<serde_json::Value>>,
    /// The glTF node it was read from (opened or imported); `None` for
    /// objects made here and for scene files' objects. Not saved.
    pub origin: Option<Box<NodeOrigin>>,
    /// The light and camera it carries (`docs/spec/lights.md`), if any.
    /// Set before the object joins a scene, which keeps an index of them.
    pub fixture: Option<Box<super::fixture::Fixture>>,
}

impl Object {
    /// The light it carries, if any.
    pub fn light(&self) -> Option<&super::fixture::LightObject> {
        self.fixture.as_ref()?.light.as_ref()
    }

    /// The camera it carries, if any.
    pub fn camera(&self) -> Option<&super::fixture::CameraObject> {
        self.fixture.as_ref()?.camera.as_ref()
    }
}

/// The glTF node an object was read from: export copies its light, camera
/// and animations, a reload matches it to the file's new nodes
/// (`docs/spec/roundtrip.md`). Copies made here have none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeOrigin {
    /// The file as the scene's meshes name it (resolved path).
    pub file: std::sync::Arc<Path>,
    /// The node's index in the file as last read.
    pub node: usize,
}

/// Scale components closer to zero than this are refused: a scene file
/// cannot hold them, and the object would have no inverse.
pub const MIN_SCALE: f64 = 1e-9;

/// Positions and scale components beyond this size are refused: a world
/// matrix built from several of them could overflow, and at 1e15 m an f64
/// position is already only good to an eighth of a metre.
pub const MAX_COORDINATE: f64 = 1e15;

/// Why a scene file could not hold this transform (`None`: it can). The one
/// rule for loading scene files, opening glTF nodes and typed edits.
pub fn transform_problem(t: &Transform) -> Option<&'static str> {
    let all = t.position.iter().chain(t.scale.iter()).chain(t.rotation.coords.iter());
    if !all.into_iter().all(|x| x.is_finite()) {
        Some("non-finite number")
    } else if t.position.iter().chain(t.scale.iter()).any(|x| x.abs() > MAX_COORDINATE) {
        Some("a position or scale beyond 1e15")
    } else if t.scale.iter().any(|s| s.abs() < MIN_SCALE) {
        Some("scale has a zero component")
    } else {
        None
    }
}
