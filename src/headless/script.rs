//! Replay scripts (`docs/spec/automation.md`, "Replay script") and the
//! trace they produce.
//!
//! A script is parsed and validated completely (unknown fields, event
//! shapes, modifier and button names, object names) before anything runs, so
//! a bad script fails with one message and no output.

use serde::Deserialize;

use crate::gizmo::{GizmoConfig, Mode, Pivot, Snap, Space};
use crate::input::{Event, Modifiers, MouseButton};
use crate::look::LightingFile;
use crate::math::{Camera, DepthMode};
use crate::scene::{camera_from_file, CameraFile, Scene, SceneError};

/// Why a replay script was refused (before anything ran).
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The script's camera block.
    #[error(transparent)]
    Camera(#[from] SceneError),
    #[error("select: unknown object \"{0}\"")]
    UnknownObject(String),
    /// A bad top-level value (size, depth, a gizmo setting).
    #[error("{0}")]
    Setting(String),
    #[error("event {index}: {problem}")]
    Event { index: usize, problem: String },
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    size: Option<[u32; 2]>,
    depth: Option<String>,
    camera: Option<CameraFile>,
    select: Option<Vec<String>>,
    gizmo: Option<GizmoFile>,
    /// The UI scale `u` (`docs/spec/editing.md`); 1 when absent.
    ui_scale: Option<f64>,
    ui: Option<UiFile>,
    /// Shading mode and lights (`docs/spec/materials.md`), over the run's.
    lighting: Option<serde_json::Value>,
    /// `"quad"` or `"single"` (`docs/spec/views.md`, "Quad view").
    views: Option<String>,
    /// Decoded one by one, so that a message can name the event.
    events: Vec<serde_json::Value>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GizmoFile {
    mode: Option<String>,
    space: Option<String>,
    size_px: Option<f64>,
    hit_px: Option<f64>,
    snap: Option<SnapFile>,
    pivot: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UiFile {
    /// Show the side panel (hidden in headless runs by default).
    panel: Option<bool>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SnapFile {
    translate: Option<f64>,
    rotate_deg: Option<f64>,
    scale: Option<f64>,
    absolute: Option<bool>,
}

/// One event object: exactly one action field, plus optional `mods`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventFile {
    mouse_move: Option<[f64; 2]>,
    mouse_down: Option<String>,
    mouse_up: Option<String>,
    key_down: Option<String>,
    key_up: Option<String>,
    scroll: Option<f64>,
    /// Characters typed into the focused UI field.
    text: Option<String>,
    frame: Option<u32>,
    /// A glTF file to import (relative to the script file), as if dropped.
    import: Option<String>,
    /// A glTF file to export the scene to (relative to the script file).
    export: Option<String>,
    /// With `export`: only the selected objects and their descendants.
    selection: Option<bool>,
    /// `true`: reload the used glTF files that changed on disk.
    reload: Option<bool>,
    /// A primitive's name or `empty`, added at the cursor (as Shift+A's menu).
    add: Option<String>,
    /// `[old, new]`: renames the object named `old`.
    rename: Option<[String; 2]>,
    /// The outliner's filter text (empty: every row).
    filter: Option<String>,
    /// A clip's pose at a time (`null`: the rest pose), `docs/spec/materials.md`.
    #[serde(default, deserialize_with = "present")]
    animation: Option<Option<AnimationFile>>,
    /// A `lighting` object applied over the scene's lighting as one undo
    /// step (as the toolbar's environment menu does).
    lighting: Option<LightingFile>,
    mods: Option<Vec<String>>,
}

/// `Some` for a field that is there, `null` included (serde's plain
/// `Option` reads `null` as absent).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// An `animation` event's object.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnimationFile {
    clip: ClipName,
    #[serde(default)]
    time: f64,
    #[serde(default)]
    play: bool,
}

/// A clip by name or by its index among the scene's clips.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum ClipName {
    Index(usize),
    Name(String),
}

impl std::fmt::Display for ClipName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClipName::Index(i) => write!(f, "{i}"),
            ClipName::Name(n) => write!(f, "\"{}\"", n.escape_debug()),
        }
    }
}

/// A script's `animation` event: show `clip` at `time` seconds, playing
/// from there when `play`.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationStep {
    pub clip: ClipName,
    pub time: f64,
    pub play: bool,
}

/// What one script step does.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// An input event, with the modifiers held during it.
    Input(Event, Modifiers),
    /// Draw `n` frames (no input).
    Frame(u32),
    /// Export the scene (or the selection and its descendants) as glTF.
    Export { path: std::path::PathBuf, selection: bool },
    /// Reload every used glTF file whose content changed since it was read.
    Reload,
    /// Add a primitive or an empty at the cursor's last position.
    Add(String),
    /// Rename the object named first to the second name.
    Rename(String, String),
    /// Set the outliner's filter.
    Filter(String),
    /// Show a clip's pose (`None`: return to the rest pose).
    Animation(Option<AnimationStep>),
    /// The scene's lighting changed as this object says (one undo step).
    Lighting(Box<LightingFile>),
}

/// A validated replay script.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub size: Option<(u32, u32)>,
    pub depth: Option<DepthMode>,
    pub camera: Option<Camera>,
    /// Indices into the scene's objects.
    pub select: Option<Vec<usize>>,
    pub gizmo: GizmoConfig,
    /// The UI scale `u` (1 unless the script sets `ui_scale`).
    pub ui_scale: f64,
    /// Whether the side panel starts shown (`"ui": {"panel": true}`).
    pub panel: bool,
    /// The `lighting` object, applied over the run's lighting.
    pub lighting: Option<LightingFile>,
    /// Whether the quad view is on before the events (`"views": "quad"`).
    pub quad: bool,
    pub steps: Vec<Step>,
}

fn positive(name: &str, v: f64) -> Result<f64, String> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("{name} must be a positive number, got {v}"))
    }
}

fn button(s: &str) -> Result<MouseButton, String> {
    MouseButton::parse(s).ok_or_else(|| format!("unknown mouse button \"{s}\" (expected left, right or middle)"))
}

fn key_name(s: &str) -> Result<String, String> {
    if crate::input::is_key_name(s) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "unknown key name \"{}\" (winit KeyCode names without the Key prefix, e.g. W, Escape, F2, Numpad7)",
            s.escape_debug()
        ))
    }
}

impl EventFile {
    fn step(&self) -> Result<Step, String> {
        let mods = Modifiers::parse(self.mods.iter().flatten().map(String::as_str))?;
        let mut steps = Vec::new();
        if let Some([x, y]) = self.mouse_move {
            if !x.is_finite() || !y.is_finite() {
                return Err("mouse_move needs two finite numbers".into());
            }
            steps.push(Step::Input(Event::CursorMoved { x, y }, mods));
        }
        if let Some(b) = &self.mouse_down {
            steps.push(Step::Input(Event::MouseDown { button: button(b)? }, mods));
        }
        if let Some(b) = &self.mouse_up {
            steps.push(Step::Input(Event::MouseUp { button: button(b)? }, mods));
        }
        if let Some(k) = &self.key_down {
            steps.push(Step::Input(Event::KeyDown { key: key_name(k)? }, mods));
        }
        if let Some(k) = &self.key_up {
            steps.push(Step::Input(Event::KeyUp { key: key_name(k)? }, mods));
        }
        if let Some(d) = self.scroll {
            if !d.is_finite() {
                return Err("scroll needs a finite number".into());
            }
            steps.push(Step::Input(Event::Scroll { delta: d }, mods));
        }
        if let Some(t) = &self.text {
            steps.push(Step::Input(Event::Text { text: t.clone() }, mods));
        }
        if let Some(p) = &self.import {
            if p.is_empty() {
                return Err("import needs a file path".into());
            }
            steps.push(Step::Input(Event::Drop { path: p.into() }, mods));
        }
        if let Some(p) = &self.export {
            crate::scene::gltf::export::ExportKind::of(std::path::Path::new(p)).map_err(|e| e.to_string())?;
            if self.mods.is_some() {
                return Err("export takes no mods".into());
            }
            steps.push(Step::Export { path: p.into(), selection: self.selection.unwrap_or(false) });
        } else if self.selection.is_some() {
            return Err("selection goes with export".into());
        }
        if let Some(r) = self.reload {
            if !r {
                return Err("reload takes true".into());
            }
            if self.mods.is_some() {
                return Err("reload takes no mods".into());
            }
            steps.push(Step::Reload);
        }
        if let Some(name) = &self.add {
            if crate::editor::organise::add_mesh(name).is_none() {
                return Err(format!(
                    "add takes one of {}, got \"{}\"",
                    crate::editor::organise::ADD_NAMES.join(", "),
                    name.escape_debug()
                ));
            }
            if self.mods.is_some() {
                return Err("add takes no mods".into());
            }
            steps.push(Step::Add(name.clone()));
        }
        if let Some(l) = &self.lighting {
            if self.mods.is_some() {
                return Err("lighting takes no mods".into());
            }
            l.check()?;
            steps.push(Step::Lighting(Box::new(l.clone())));
        }
        if let Some(text) = &self.filter {
            if self.mods.is_some() {
                return Err("filter takes no mods".into());
            }
            steps.push(Step::Filter(text.clone()));
        }
        if let Some([old, new]) = &self.rename {
            if self.mods.is_some() {
                return Err("rename takes no mods".into());
            }
            steps.push(Step::Rename(old.clone(), new.clone()));
        }
        if let Some(n) = self.frame {
            if self.mods.is_some() {
                return Err("frame takes no mods".into());
            }
            steps.push(Step::Frame(n));
        }
        if let Some(a) = &self.animation {
            if self.mods.is_some() {
                return Err("animation takes no mods".into());
            }
            let step = match a {
                None => None,
                Some(a) if !a.time.is_finite() => return Err("animation.time must be a finite number".into()),
                Some(a) => Some(AnimationStep { clip: a.clip.clone(), time: a.time, play: a.play }),
            };
            steps.push(Step::Animation(step));
        }
        match steps.len() {
            1 => Ok(steps.pop().expect("one step")),
            0 => Err(
                "needs one of mouse_move, mouse_down, mouse_up, key_down, key_up, scroll, text, frame, import, export, reload, add, rename, filter, animation"
                    .into(),
            ),
            _ => Err("has more than one action; give one per event".into()),
        }
    }
}

impl Script {
    /// Parses and validates a script against `scene` (for `select`).
    pub fn from_json(text: &str, scene: &Scene) -> Result<Script, ScriptError> {
        let file: ScriptFile = serde_json::from_str(text)?;
        let size = match file.size {
            None => None,
            Some([w, h]) if w > 0 && h > 0 && w <= 16384 && h <= 16384 => Some((w, h)),
            Some([w, h]) => {
                return Err(ScriptError::Setting(format!("size must be between 1x1 and 16384x16384, got {w}x{h}")))
            }
        };
        let depth = file
            .depth
            .as_deref()
            .map(|d| {
                DepthMode::parse(d).ok_or_else(|| format!("depth must be \"reversed\" or \"standard\", got \"{d}\""))
            })
            .transpose()
            .map_err(ScriptError::Setting)?;
        let camera = file.camera.as_ref().map(camera_from_file).transpose()?;
        let select = file
            .select
            .as_ref()
            .map(|names| {
                names
                    .iter()
                    .map(|n| scene.find(n).ok_or_else(|| ScriptError::UnknownObject(n.clone())))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let gizmo =
            file.gizmo.as_ref().map_or(Ok(GizmoConfig::default()), gizmo_config).map_err(ScriptError::Setting)?;
        let steps = file
            .events
            .iter()
            .enumerate()
            .map(|(index, e)| {
                serde_json::from_value::<EventFile>(e.clone())
                    .map_err(|m| m.to_string())
                    .and_then(|e| e.step())
                    .map_err(|problem| ScriptError::Event { index, problem })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ui_scale = match file.ui_scale {
            None => 1.0,
            Some(v) if v.is_finite() && (0.25..=8.0).contains(&v) => v,
            Some(v) => return Err(ScriptError::Setting(format!("ui_scale must be between 0.25 and 8, got {v}"))),
        };
        let panel = file.ui.as_ref().and_then(|u| u.panel).unwrap_or(false);
        let lighting = file
            .lighting
            .map(|v| {
                let l: LightingFile = serde_json::from_value(v).map_err(|e| format!("lighting: {e}"))?;
                // Every value checked now, before anything runs; a .hdr
                // file is read once its folder is known (`read_script`).
                l.check()?;
                Ok::<_, String>(l)
            })
            .transpose()
            .map_err(ScriptError::Setting)?;
        let quad = file.views.as_deref().map_or(Ok(false), quad_of).map_err(ScriptError::Setting)?;
        Ok(Script { size, depth, camera, select, gizmo, ui_scale, panel, lighting, quad, steps })
    }
}

/// Whether a script's `views` value asks for the quad view.
fn quad_of(views: &str) -> Result<bool, String> {
    match views {
        "quad" => Ok(true),
        "single" => Ok(false),
        other => Err(format!("views must be \"quad\" or \"single\", got \"{other}\"")),
    }
}

/// The gizmo settings of a script over the defaults.
fn gizmo_config(g: &GizmoFile) -> Result<GizmoConfig, String> {
    let mut gizmo = GizmoConfig::default();
    {
        if let Some(m) = &g.mode {
            gizmo.mode = Mode::parse(m)
                .ok_or_else(|| format!("gizmo.mode must be translate, rotate, scale or universal, got \"{m}\""))?;
        }
        if let Some(s) = &g.space {
            gizmo.space = Space::parse(s).ok_or_else(|| format!("gizmo.space must be world or local, got \"{s}\""))?;
        }
        if let Some(v) = g.size_px {
            gizmo.size_px = positive("gizmo.size_px", v)?;
        }
        if let Some(v) = g.hit_px {
            gizmo.hit_px = positive("gizmo.hit_px", v)?;
        }
        if let Some(s) = &g.snap {
            let d = Snap::default();
            gizmo.snap = Snap {
                translate: s.translate.map(|v| positive("gizmo.snap.translate", v)).transpose()?.unwrap_or(d.translate),
                rotate_deg: s
                    .rotate_deg
                    .map(|v| positive("gizmo.snap.rotate_deg", v))
                    .transpose()?
                    .unwrap_or(d.rotate_deg),
                scale: s.scale.map(|v| positive("gizmo.snap.scale", v)).transpose()?.unwrap_or(d.scale),
                absolute: s.absolute.unwrap_or(d.absolute),
            };
        }
        if let Some(p) = &g.pivot {
            gizmo.pivot = Pivot::parse(p)
                .ok_or_else(|| format!("gizmo.pivot must be median, individual, active or bounds, got \"{p}\""))?;
        }
    }
    Ok(gizmo)
}

pub use super::trace::{TraceAnimation, TraceLine, TraceMeasure, TraceObject, TraceView};

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn scene() -> Scene {
        Scene::demo()
    }

    #[test]
    fn the_spec_example_parses() {
        let text = r#"{
          "size": [1280, 720], "depth": "reversed",
          "camera": { "eye": [4, 3, 5], "target": [0, 0, 0], "fov_y_deg": 60 },
          "select": ["crate"],
          "gizmo": { "mode": "translate", "space": "world", "size_px": 100, "hit_px": 8,
                     "snap": { "translate": 0.5, "rotate_deg": 15, "scale": 0.1 } },
          "events": [
            { "mouse_move": [700.0, 300.0] }, { "mouse_down": "left" }, { "mouse_move": [760.5, 250.0] },
            { "key_down": "Escape" }, { "mouse_up": "left", "mods": ["ctrl"] },
            { "key_down": "Z", "mods": ["ctrl"] }, { "scroll": -1.0 }, { "frame": 1 } ] }"#;
        let s = Script::from_json(text, &scene()).unwrap();
        assert_eq!(s.size, Some((1280, 720)));
        assert_eq!(s.select, Some(vec![scene().find("crate").unwrap()]));
        assert_eq!(s.steps.len(), 8);
        assert_eq!(s.steps[0], Step::Input(Event::CursorMoved { x: 700.0, y: 300.0 }, Modifiers::NONE));
        let ctrl = Modifiers { ctrl: true, ..Modifiers::NONE };
        assert_eq!(s.steps[4], Step::Input(Event::MouseUp { button: MouseButton::Left }, ctrl));
        assert_eq!(s.steps[7], Step::Frame(1));
        let _ = Path::new(".");
    }

    #[test]
    fn views_picks_the_quad_or_the_single_view() {
        let quad = |text: &str| Script::from_json(text, &scene()).unwrap().quad;
        assert!(quad(r#"{"views":"quad","events":[]}"#));
        assert!(!quad(r#"{"views":"single","events":[]}"#));
        assert!(!quad(r#"{"events":[]}"#));
    }

    #[test]
    fn bad_scripts_name_the_problem() {
        let cases = [
            (r#"{"events":[{"mouse_move":[1,2]}],"extra":1}"#, "extra"),
            (r#"{"events":[{"mouse_move":[1,2],"mouse_down":"left"}]}"#, "event 0: has more than one action"),
            (r#"{"events":[{}]}"#, "event 0: needs one of"),
            (r#"{"events":[{"mouse_down":"thumb"}]}"#, "thumb"),
            (r#"{"events":[{"mouse_move":[1]}]}"#, "event 0: invalid length"),
            (r#"{"events":[{"mouse_move":[1,2]},{"scroll":"up"}]}"#, "event 1: invalid type"),
            (r#"{"events":[{"mouse_move":[1,2]},{"wheel":1}]}"#, "event 1: unknown field `wheel`"),
            (r#"{"events":[{"mouse_move":[1,2],"mods":["meta"]}]}"#, "meta"),
            (r#"{"events":[{"key_down":"Key W"}]}"#, "Key W"),
            (r#"{"select":["ghost"],"events":[]}"#, "ghost"),
            (r#"{"gizmo":{"mode":"bend"},"events":[]}"#, "bend"),
            (r#"{"gizmo":{"size_px":0},"events":[]}"#, "size_px"),
            (r#"{"size":[0,0],"events":[]}"#, "size"),
            (r#"{"depth":"deep","events":[]}"#, "deep"),
            (r#"{"camera":{"eye":[0,0,0],"target":[0,0,0]},"events":[]}"#, "coincide"),
            (r#"{"events":[{"frame":1,"mods":["ctrl"]}]}"#, "frame takes no mods"),
            (r#"{"ui_scale":0,"events":[]}"#, "ui_scale"),
            (r#"{"ui":{"panel":1},"events":[]}"#, "invalid type"),
            (r#"{"ui":{"side":true},"events":[]}"#, "unknown field `side`"),
            (r#"{"events":[{"text":5}]}"#, "event 0: invalid type"),
            (r#"{"events":[{"text":"1","key_down":"A"}]}"#, "more than one action"),
            (r#"{"events":"#, "EOF"),
            (r#"{"events":[{"reload":false}]}"#, "reload takes true"),
            (r#"{"events":[{"reload":true,"frame":1}]}"#, "more than one action"),
            (r#"{"lighting":{"shading":"wire"},"events":[]}"#, "lighting.shading"),
            (r#"{"lighting":{"sunlight":1},"events":[]}"#, "lighting: unknown field `sunlight`"),
            (r#"{"lighting":{"environment":"a.png"},"events":[]}"#, "lighting.environment must be"),
            (r#"{"views":"triple","events":[]}"#, "views must be \"quad\" or \"single\", got \"triple\""),
            (r#"{"views":4,"events":[]}"#, "invalid type"),
        ];
        for (text, needle) in cases {
            let e = Script::from_json(text, &scene()).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
