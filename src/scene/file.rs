//! The JSON scene format of `shared/spec/automation.md`, as serde types.
//!
//! These mirror the file exactly (unknown fields are errors); [`super::Scene`]
//! is the validated in-memory form.

use serde::{Deserialize, Serialize};

fn default_up() -> [f64; 3] {
    [0.0, 1.0, 0.0]
}

/// `camera` in a scene file or a replay script.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraFile {
    pub eye: [f64; 3],
    pub target: [f64; 3],
    #[serde(default = "default_up")]
    pub up: [f64; 3],
    #[serde(default)]
    pub projection: ProjectionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fov_y_deg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub far: Option<f64>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProjectionKind {
    #[default]
    Perspective,
    Orthographic,
}

fn default_rotation() -> [f64; 4] {
    [0.0, 0.0, 0.0, 1.0]
}
fn default_scale() -> [f64; 3] {
    [1.0, 1.0, 1.0]
}
fn default_color() -> [f64; 3] {
    [0.8, 0.8, 0.8]
}

/// A string or `null`; with `deserialize_with` the field stays required.
fn nullable_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)
}

/// One entry of `objects`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectFile {
    pub name: String,
    /// A primitive, a glTF path (`path#N` for one of its meshes), or
    /// `null` for an empty object. Required, though it may be null.
    #[serde(deserialize_with = "nullable_string")]
    pub mesh: Option<String>,
    #[serde(default)]
    pub parent: Option<String>,
    #[serde(default)]
    pub position: [f64; 3],
    #[serde(default = "default_rotation")]
    pub rotation: [f64; 4],
    #[serde(default = "default_scale")]
    pub scale: [f64; 3],
    #[serde(default = "default_color")]
    pub color: [f64; 3],
    /// The skin that poses the object's glTF mesh (a README extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skin: Option<SkinFile>,
}

/// `skin` of an object: skin `index` of the glTF file of the object's
/// `path#N` mesh, and its joint objects by name, in the skin's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkinFile {
    pub index: usize,
    pub joints: Vec<String>,
}

/// A whole scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraFile>,
    pub objects: Vec<ObjectFile>,
}
