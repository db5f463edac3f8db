//! The JSON scene format of `docs/spec/automation.md`, as serde types.
//!
//! These mirror the file exactly (unknown fields are errors); [`super::Scene`]
//! is the validated in-memory form.

use nalgebra::{Point3, Vector3};
use serde::{Deserialize, Serialize};

use super::SceneError;
use crate::math::{Camera, Projection};

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
    /// Hidden by the user (`docs/spec/organise.md`); written only when set.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    /// Whether its mesh casts shadows (`docs/spec/lights.md`); written only
    /// when false.
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub cast_shadows: bool,
    /// The skin that poses the object's glTF mesh (an extension of the scene format, `docs/formats.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skin: Option<SkinFile>,
    /// Any JSON the user's tools keep with the object (glTF `extras`): kept
    /// through load, save, duplicate and export, never read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<serde_json::Value>,
    /// The light it carries (`docs/spec/lights.md`; checked on loading,
    /// [`super::fixture::light_from_file`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub light: Option<serde_json::Value>,
    /// The camera it carries ([`super::fixture::camera_from_file`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<serde_json::Value>,
}

/// `skin` of an object: skin `index` of the glTF file of the object's
/// `path#N` mesh, and its joint objects by name, in the skin's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkinFile {
    pub index: usize,
    pub joints: Vec<String>,
}

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
}

/// A whole scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraFile>,
    /// Camera bookmarks by slot, `"1"` to `"9"` (`docs/spec/views.md`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub bookmarks: std::collections::BTreeMap<String, CameraFile>,
    /// How the scene is lit and what is behind it
    /// ([`crate::look::LightingFile`], every field written when saved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lighting: Option<serde_json::Value>,
    pub objects: Vec<ObjectFile>,
}

/// Converts and validates a `camera` block.
pub fn camera_from_file(c: &CameraFile) -> Result<Camera, SceneError> {
    let near = c.near.unwrap_or(Projection::DEFAULT_NEAR);
    let far = c.far.unwrap_or(Projection::DEFAULT_FAR);
    let projection = match c.projection {
        ProjectionKind::Perspective => {
            if c.height.is_some() {
                return Err(SceneError::CameraField { field: "height", projection: "orthographic" });
            }
            Projection::Perspective { fov_y: c.fov_y_deg.unwrap_or(50.0).to_radians(), near, far }
        }
        ProjectionKind::Orthographic => {
            if c.fov_y_deg.is_some() {
                return Err(SceneError::CameraField { field: "fov_y_deg", projection: "perspective" });
            }
            Projection::Orthographic { height: c.height.unwrap_or(10.0), near, far }
        }
    };
    let cam = Camera {
        eye: Point3::from(Vector3::from(c.eye)),
        target: Point3::from(Vector3::from(c.target)),
        up: Vector3::from(c.up),
        projection,
    };
    cam.validate()?;
    Ok(cam)
}

/// The `camera` block that [`camera_from_file`] turns back into `cam`.
pub fn camera_to_file(cam: &Camera) -> CameraFile {
    let (projection, fov_y_deg, height) = match cam.projection {
        Projection::Perspective { fov_y, .. } => (ProjectionKind::Perspective, Some(fov_y.to_degrees()), None),
        Projection::Orthographic { height, .. } => (ProjectionKind::Orthographic, None, Some(height)),
    };
    CameraFile {
        eye: cam.eye.coords.into(),
        target: cam.target.coords.into(),
        up: cam.up.into(),
        projection,
        fov_y_deg,
        height,
        near: Some(cam.projection.near()),
        far: Some(cam.projection.far()),
    }
}
