//! The trace a replay writes (`--trace`, JSON lines): one [`TraceLine`]
//! per script event, with what the editor holds after it
//! (`docs/spec/automation.md`).

use serde::{Deserialize, Serialize};

use crate::scene::CameraFile;

/// A selected object's state in a trace line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceObject {
    pub position: [f64; 3],
    pub rotation: [f64; 4],
    pub scale: [f64; 3],
    pub world_position: [f64; 3],
}

/// A measurement of the ruler in a trace line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceMeasure {
    pub from: [f64; 3],
    pub to: [f64; 3],
    pub length: f64,
}

/// One view of the trace's `views` (`docs/spec/views.md`, "Quad view"):
/// its rectangle in window pixels and its camera, as in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceView {
    pub rect: [u32; 4],
    pub camera: CameraFile,
}

/// One line of a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceLine {
    pub event: usize,
    pub hovered: Option<String>,
    pub active: Option<String>,
    /// Selected objects by name (kept in name order for stable output).
    pub objects: std::collections::BTreeMap<String, TraceObject>,
    /// Selected object names in selection order (the active one last).
    pub selection: Vec<String>,
    /// Number of objects in the scene.
    pub count: usize,
    /// Objects whose own `hidden` flag is set, by name in scene order
    /// (`docs/spec/organise.md`); their descendants, hidden with them, are
    /// not listed unless flagged themselves.
    #[serde(default)]
    pub hidden: Vec<String>,
    /// Local view is on (NumpadDivide): only the selection it was entered
    /// with and their descendants are shown. Absent when off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub local_view: bool,
    /// The ruler's measurement while one is shown (`docs/spec/views.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<TraceMeasure>,
    /// The camera after the event, as in a scene file.
    pub camera: CameraFile,
    /// The camera object looked through (Numpad0, `docs/spec/lights.md`),
    /// by name; `null` while the editor camera is shown.
    #[serde(default)]
    pub view_camera: Option<String>,
    /// Every view: the single one, or Top, Front, Right and Perspective.
    #[serde(default)]
    pub views: Vec<TraceView>,
    /// What the UI laid out after the event (status text, controls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<crate::ui::UiTrace>,
    /// The animation pose shown after the event (`null`: the rest pose).
    #[serde(default)]
    pub animation: Option<TraceAnimation>,
    /// The scene's lighting after the event, every field as a `lighting`
    /// object writes it (`docs/spec/lights.md`).
    #[serde(default)]
    pub lighting: serde_json::Value,
}

/// The animation pose a trace line reports: the clip's name and the time
/// into it in seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceAnimation {
    pub clip: String,
    pub time: f64,
}
