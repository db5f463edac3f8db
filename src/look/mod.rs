//! How the scene is lit and shown (`docs/spec/materials.md`, "Shading
//! modes" and "Lighting and output"): the shading mode, the environment,
//! the sun, exposure, tone mapping, background and grid, as plain data.
//! Replay scripts (`"lighting": {...}`) and `--lighting FILE.json` read the
//! same object; every field is optional and a bad one is one line naming
//! it. The editor holds one, the frame description carries it and the
//! renderer turns it into the scene shader's lighting block.
//!
//! This room is plain CPU code, below both the editor and the renderer:
//! the lighting description (here), reading and prefiltering `.hdr`
//! environments ([`envmap`]) and the split-sum BRDF table ([`brdf`]).
//! `render/` only uploads what these compute.

pub mod brdf;
pub mod envmap;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use envmap::HdrId;

/// Which look the scene pass draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Shading {
    /// The glTF metallic-roughness model, lit by the environment and the sun.
    #[default]
    Material,
    /// Base colour x texture x vertex colour x object colour, diffuse from
    /// a light at the camera plus ambient (Blender's Solid mode).
    Solid,
}

impl Shading {
    pub fn name(self) -> &'static str {
        match self {
            Shading::Material => "material",
            Shading::Solid => "solid",
        }
    }

    pub fn parse(s: &str) -> Option<Shading> {
        match s {
            "material" => Some(Shading::Material),
            "solid" => Some(Shading::Solid),
            _ => None,
        }
    }

    /// The other mode (the Z key).
    pub fn toggled(self) -> Shading {
        match self {
            Shading::Material => Shading::Solid,
            Shading::Solid => Shading::Material,
        }
    }
}

/// Where the environment's light comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Environment {
    /// Built in, smooth, brighter above than below: radiance
    /// `colour x intensity x (0.6 + 0.4 y)` along a direction whose world
    /// `y` is `y` (1.0 straight up, 0.6 at the horizon, 0.2 straight down).
    #[default]
    Studio,
    /// The same radiance `colour x intensity` from every direction.
    Uniform,
    /// A Radiance `.hdr` file (equirectangular, `crate::look::envmap`): radiance
    /// `colour x intensity x` the file's texel along each direction, read
    /// and prefiltered once per process.
    Hdr(HdrId),
}

impl Environment {
    /// `studio`, `uniform` or the file's path, as a `lighting` object
    /// writes it.
    pub fn name(&self) -> String {
        match self {
            Environment::Studio => "studio".to_string(),
            Environment::Uniform => "uniform".to_string(),
            Environment::Hdr(id) => id.path().display().to_string(),
        }
    }
}

/// How radiance becomes a displayed value in [0, 1] (before the sRGB curve).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ToneMapping {
    /// Khronos PBR Neutral.
    #[default]
    PbrNeutral,
    /// Clamped to [0, 1].
    Linear,
}

/// A directional light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sun {
    /// The way the light travels (world space, unit length).
    pub direction: [f64; 3],
    /// Linear RGB.
    pub color: [f32; 3],
    /// Illuminance on a surface facing the sun (radiance units of
    /// `docs/spec/materials.md`: a white Lambertian surface facing a sun of
    /// illuminance `E` alone shows `E / pi`).
    pub illuminance: f32,
}

impl Default for Sun {
    /// From above, front, to the side: travelling along (-0.4, -1, -0.6).
    fn default() -> Sun {
        let d = [-0.4f64, -1.0, -0.6];
        let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        Sun { direction: d.map(|c| c / n), color: [1.0; 3], illuminance: 3.0 }
    }
}

/// Everything the `lighting` object sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lighting {
    pub shading: Shading,
    pub environment: Environment,
    /// Linear RGB: the radiance of `uniform`, the tint of `studio`.
    pub environment_color: [f32; 3],
    pub environment_intensity: f32,
    /// `None`: no sun.
    pub sun: Option<Sun>,
    pub exposure_ev: f32,
    pub tone_mapping: ToneMapping,
    /// What empty pixels show.
    pub background: Background,
    /// How blurred an environment background is: 0 sharp, 1 the most
    /// blurred prefiltered level.
    pub background_blur: f32,
    /// The environment (light and background) turned about +Y by this
    /// many degrees, counter-clockwise seen from above.
    pub environment_rotation_deg: f32,
    pub grid: bool,
    /// Which lights light the material mode: the scene's light objects or
    /// the built-in sun (`docs/spec/lights.md`).
    pub scene_lights: SceneLights,
}

/// `lighting.background`: what empty pixels show.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Background {
    /// The program's own colour.
    #[default]
    Program,
    /// This sRGB colour, as displayed (no exposure or tone mapping).
    Color([f32; 3]),
    /// The environment's radiance along each pixel's view ray, exposed and
    /// tone-mapped like the scene (the material mode; the solid mode shows
    /// the program's colour).
    Environment,
}

/// `lighting.scene_lights`: which lights light the frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SceneLights {
    /// The scene's light objects when it has a shown one, else the sun.
    #[default]
    Auto,
    /// The scene's light objects only (none when it has none).
    On,
    /// The built-in sun only.
    Off,
}

impl SceneLights {
    /// Whether the scene's lights (not the sun) light a frame of a scene
    /// that has shown light objects or not (`has_lights`).
    pub fn lit(self, has_lights: bool) -> bool {
        match self {
            SceneLights::Auto => has_lights,
            SceneLights::On => true,
            SceneLights::Off => false,
        }
    }

    /// `On` for `true`, `Off` for `false`: a choice made.
    pub fn from_lit(lit: bool) -> SceneLights {
        if lit {
            SceneLights::On
        } else {
            SceneLights::Off
        }
    }

    /// The toolbar's toggle: the other of what lights the frame now.
    pub fn toggled(self, has_lights: bool) -> SceneLights {
        SceneLights::from_lit(!self.lit(has_lights))
    }
}

/// What a `KHR_lights_punctual` light is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LightKind {
    Directional,
    Point,
    /// Cone half-angles in radians.
    Spot {
        inner: f32,
        outer: f32,
    },
}

/// A light as a glTF file defines it (`KHR_lights_punctual`), before it is
/// placed by its node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightDef {
    pub kind: LightKind,
    /// Linear RGB.
    pub color: [f32; 3],
    /// Lux (directional) or candela (point, spot): radiance units as the
    /// sun's illuminance.
    pub intensity: f32,
    /// Where point and spot lights end (`None`: nowhere).
    pub range: Option<f32>,
}

/// A scene light placed in the world: its node's position and -Z axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PunctualLight {
    pub kind: LightKind,
    pub position: [f64; 3],
    /// The way the light travels (unit).
    pub direction: [f64; 3],
    pub color: [f32; 3],
    pub intensity: f32,
    pub range: Option<f32>,
}

/// The most punctual lights one frame takes (`docs/spec/lights.md`: at
/// least 1,024 is the goal; clustered shading is not built yet).
pub const LIGHTS_PER_FRAME: usize = 8;

/// Orders `lights` as a frame takes them when there are more than
/// [`LIGHTS_PER_FRAME`]: directional lights first (they reach everything),
/// then the point and spot lights nearest `eye`; lights alike keep their
/// order (scene order).
pub fn nearest_first(lights: &mut [PunctualLight], eye: &nalgebra::Point3<f64>) {
    let key = |l: &PunctualLight| match l.kind {
        LightKind::Directional => f64::NEG_INFINITY,
        _ => (nalgebra::Point3::from(l.position) - eye).norm_squared(),
    };
    lights.sort_by(|a, b| key(a).total_cmp(&key(b)));
}

impl PunctualLight {
    /// `def` placed by the world matrix `world` of its node (a light
    /// shines along its node's -Z); `None` where the matrix leaves no
    /// direction.
    pub fn placed(def: &LightDef, world: &nalgebra::Matrix4<f64>) -> Option<PunctualLight> {
        let d = -world.fixed_view::<3, 1>(0, 2).into_owned();
        let d = d.try_normalize(1e-12)?;
        let p = world.fixed_view::<3, 1>(0, 3);
        Some(PunctualLight {
            kind: def.kind,
            position: [p[0], p[1], p[2]],
            direction: [d.x, d.y, d.z],
            color: def.color,
            intensity: def.intensity,
            range: def.range,
        })
    }
}

impl Default for Lighting {
    fn default() -> Lighting {
        Lighting {
            shading: Shading::Material,
            environment: Environment::Studio,
            environment_color: [1.0; 3],
            environment_intensity: 1.0,
            sun: Some(Sun::default()),
            exposure_ev: 0.0,
            tone_mapping: ToneMapping::PbrNeutral,
            background: Background::Program,
            background_blur: 0.0,
            environment_rotation_deg: 0.0,
            grid: true,
            scene_lights: SceneLights::Auto,
        }
    }
}

/// A field that may be given as `null` (kept apart from an absent one).
fn nullable<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A `lighting` object as written: only the fields it sets.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LightingFile {
    shading: Option<String>,
    environment: Option<String>,
    environment_color: Option<[f64; 3]>,
    environment_intensity: Option<f64>,
    #[serde(default, deserialize_with = "nullable")]
    sun: Option<Option<SunFile>>,
    exposure_ev: Option<f64>,
    tone_mapping: Option<String>,
    /// `null`: the program's colour.
    #[serde(default, deserialize_with = "nullable")]
    background: Option<Option<serde_json::Value>>,
    background_blur: Option<f64>,
    environment_rotation_deg: Option<f64>,
    grid: Option<bool>,
    scene_lights: Option<serde_json::Value>,
    /// The folder a relative `.hdr` path is read from (the lighting or
    /// script file's); `None`: the working directory.
    #[serde(skip)]
    dir: Option<PathBuf>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct SunFile {
    direction: Option<[f64; 3]>,
    color: Option<[f64; 3]>,
    illuminance: Option<f64>,
}

fn color(name: &str, c: [f64; 3], max: f64) -> Result<[f32; 3], String> {
    if c.iter().all(|v| v.is_finite() && (0.0..=max).contains(v)) {
        Ok(c.map(|v| v as f32))
    } else {
        Err(format!("lighting.{name} needs three numbers from 0 to {max}, got {c:?}"))
    }
}

fn non_negative(name: &str, v: f64) -> Result<f32, String> {
    if v.is_finite() && (0.0..=1e6).contains(&v) {
        Ok(v as f32)
    } else {
        Err(format!("lighting.{name} must be a number from 0 to 1e6, got {v}"))
    }
}

impl LightingFile {
    /// Relative `.hdr` paths are read from `dir` from now on.
    pub fn relative_to(&mut self, dir: &Path) {
        self.dir = Some(dir.to_path_buf());
    }

    /// The lighting `self` asks for over `base`; a `.hdr` environment is
    /// read (and prefiltered) here, once per process and file.
    pub fn over(&self, base: &Lighting) -> Result<Lighting, String> {
        self.apply(base, true)
    }

    /// Checks every field but does not read a `.hdr` file (whose folder
    /// may not be known yet).
    pub fn check(&self) -> Result<(), String> {
        self.apply(&Lighting::default(), false).map(|_| ())
    }

    fn apply(&self, base: &Lighting, files: bool) -> Result<Lighting, String> {
        let mut l = *base;
        if let Some(s) = &self.shading {
            l.shading = Shading::parse(s)
                .ok_or_else(|| format!("lighting.shading must be \"material\" or \"solid\", got \"{s}\""))?;
        }
        if let Some(e) = &self.environment {
            l.environment = match e.as_str() {
                "studio" => Environment::Studio,
                "uniform" => Environment::Uniform,
                path if path.to_ascii_lowercase().ends_with(".hdr") && !files => l.environment,
                path if path.to_ascii_lowercase().ends_with(".hdr") => {
                    let path = match &self.dir {
                        Some(dir) => dir.join(path),
                        None => PathBuf::from(path),
                    };
                    Environment::Hdr(
                        crate::look::envmap::load(&path).map_err(|e| format!("lighting.environment: {e}"))?,
                    )
                }
                other => {
                    return Err(format!(
                        "lighting.environment must be \"studio\", \"uniform\" or a .hdr file, got \"{other}\""
                    ))
                }
            };
        }
        if let Some(c) = self.environment_color {
            l.environment_color = color("environment_color", c, 1e6)?;
        }
        if let Some(v) = self.environment_intensity {
            l.environment_intensity = non_negative("environment_intensity", v)?;
        }
        match &self.sun {
            None => {}
            Some(None) => l.sun = None,
            Some(Some(s)) => {
                let mut sun = l.sun.unwrap_or_default();
                if let Some(d) = s.direction {
                    let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                    if !n.is_finite() || n < 1e-9 {
                        return Err(format!("lighting.sun.direction must be a non-zero finite vector, got {d:?}"));
                    }
                    sun.direction = d.map(|c| c / n);
                }
                if let Some(c) = s.color {
                    sun.color = color("sun.color", c, 1e6)?;
                }
                if let Some(v) = s.illuminance {
                    sun.illuminance = non_negative("sun.illuminance", v)?;
                }
                l.sun = Some(sun);
            }
        }
        if let Some(v) = self.exposure_ev {
            if !v.is_finite() || v.abs() > 64.0 {
                return Err(format!("lighting.exposure_ev must be a number from -64 to 64, got {v}"));
            }
            l.exposure_ev = v as f32;
        }
        if let Some(t) = &self.tone_mapping {
            l.tone_mapping = match t.as_str() {
                "pbr_neutral" => ToneMapping::PbrNeutral,
                "linear" => ToneMapping::Linear,
                _ => return Err(format!("lighting.tone_mapping must be \"pbr_neutral\" or \"linear\", got \"{t}\"")),
            };
        }
        if let Some(b) = &self.background {
            l.background = match b {
                None => Background::Program,
                Some(serde_json::Value::String(e)) if e == "environment" => Background::Environment,
                Some(other) => match serde_json::from_value::<[f64; 3]>(other.clone()) {
                    Ok(c) => Background::Color(color("background", c, 1.0)?),
                    Err(_) => {
                        return Err(format!(
                            "lighting.background must be \"environment\" or three numbers from 0 to 1, got {other}"
                        ))
                    }
                },
            };
        }
        if let Some(v) = self.background_blur {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(format!("lighting.background_blur must be a number from 0 to 1, got {v}"));
            }
            l.background_blur = v as f32;
        }
        if let Some(v) = self.environment_rotation_deg {
            if !(v.is_finite() && v.abs() <= 3600.0) {
                return Err(format!("lighting.environment_rotation_deg must be a number from -3600 to 3600, got {v}"));
            }
            l.environment_rotation_deg = v as f32;
        }
        if let Some(g) = self.grid {
            l.grid = g;
        }
        if let Some(s) = &self.scene_lights {
            l.scene_lights = match s {
                serde_json::Value::Bool(b) => SceneLights::from_lit(*b),
                serde_json::Value::String(a) if a == "auto" => SceneLights::Auto,
                other => return Err(format!("lighting.scene_lights must be \"auto\", true or false, got {other}")),
            };
        }
        Ok(l)
    }
}

impl Lighting {
    /// Reads a `lighting` object (JSON text) over the defaults.
    pub fn from_json(text: &str) -> Result<Lighting, String> {
        let file: LightingFile = serde_json::from_str(text).map_err(|e| format!("lighting: {e}"))?;
        file.over(&Lighting::default())
    }

    /// Reads `--lighting FILE.json`; errors name the file. A relative
    /// `.hdr` path is read from the JSON file's folder.
    pub fn read(path: &Path) -> Result<Lighting, String> {
        let named = |e: String| format!("{}: {e}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| named(e.to_string()))?;
        let mut file: LightingFile = serde_json::from_str(&text).map_err(|e| named(format!("lighting: {e}")))?;
        file.relative_to(path.parent().unwrap_or(Path::new("")));
        file.over(&Lighting::default()).map_err(named)
    }

    /// The linear clear colour of empty pixels: a `background` colour
    /// decoded from sRGB, else `default` (which an environment background
    /// then covers).
    pub fn clear_color(&self, default: [f32; 3]) -> [f32; 3] {
        match self.background {
            Background::Color(c) => c.map(srgb_to_linear),
            _ => default,
        }
    }

    /// Whether empty pixels show the environment: asked for, in the
    /// material mode.
    pub fn draws_environment(&self) -> bool {
        self.background == Background::Environment && self.shading == Shading::Material
    }

    /// The whole object as a `lighting` object writes it (every field; a
    /// `.hdr` environment by the path it was read from, which a scene file
    /// rewrites relative to its folder).
    pub fn to_json(&self) -> serde_json::Value {
        let f3 = |c: [f32; 3]| serde_json::json!(c.map(f64::from));
        serde_json::json!({
            "shading": self.shading.name(),
            "environment": self.environment.name(),
            "environment_color": f3(self.environment_color),
            "environment_intensity": f64::from(self.environment_intensity),
            "environment_rotation_deg": f64::from(self.environment_rotation_deg),
            "sun": self.sun.map(|s| serde_json::json!({
                "direction": s.direction,
                "color": f3(s.color),
                "illuminance": f64::from(s.illuminance),
            })),
            "exposure_ev": f64::from(self.exposure_ev),
            "tone_mapping": match self.tone_mapping {
                ToneMapping::PbrNeutral => "pbr_neutral",
                ToneMapping::Linear => "linear",
            },
            "background": match self.background {
                Background::Program => serde_json::Value::Null,
                Background::Color(c) => f3(c),
                Background::Environment => serde_json::json!("environment"),
            },
            "background_blur": f64::from(self.background_blur),
            "grid": self.grid,
            "scene_lights": match self.scene_lights {
                SceneLights::Auto => serde_json::json!("auto"),
                SceneLights::On => serde_json::json!(true),
                SceneLights::Off => serde_json::json!(false),
            },
        })
    }
}

/// The sRGB transfer function's inverse.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_optional_and_sun_null_turns_it_off() {
        assert_eq!(Lighting::from_json("{}").unwrap(), Lighting::default());
        let l = Lighting::from_json(
            r#"{"shading":"solid","environment":"uniform","environment_color":[0.5,0.25,1],
                "environment_intensity":2,"sun":null,"exposure_ev":-1,"tone_mapping":"linear",
                "background":[0.18,0.18,0.2],"grid":false,"scene_lights":false}"#,
        )
        .unwrap();
        assert_eq!(l.shading, Shading::Solid);
        assert_eq!(l.environment, Environment::Uniform);
        assert_eq!(l.environment_color, [0.5, 0.25, 1.0]);
        assert_eq!(l.sun, None);
        assert_eq!(l.tone_mapping, ToneMapping::Linear);
        assert!(!l.grid);
        let sun = Lighting::from_json(r#"{"sun":{"direction":[0,-2,0],"illuminance":5}}"#).unwrap().sun.unwrap();
        assert_eq!(sun.direction, [0.0, -1.0, 0.0]);
        assert_eq!(sun.illuminance, 5.0);
        assert_eq!(sun.color, [1.0; 3]);
    }

    #[test]
    fn bad_fields_are_one_line_naming_them() {
        for (text, needle) in [
            (r#"{"shading":"wire"}"#, "lighting.shading"),
            (r#"{"environment":"no/such/sky.hdr"}"#, "lighting.environment: no/such/sky.hdr: cannot read"),
            (r#"{"environment":"sky"}"#, "lighting.environment"),
            (r#"{"environment_color":[1,-1,0]}"#, "environment_color"),
            (r#"{"sun":{"direction":[0,0,0]}}"#, "sun.direction"),
            (r#"{"sun":{"power":1}}"#, "unknown field `power`"),
            (r#"{"tone_mapping":"aces"}"#, "tone_mapping"),
            (r#"{"exposure":1}"#, "unknown field `exposure`"),
            (r#"{"background":[2,0,0]}"#, "background"),
            (r#"{"grid":1}"#, "invalid type"),
        ] {
            let e = Lighting::from_json(text).unwrap_err();
            assert!(e.contains(needle), "{text}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    /// Past the limit the frame keeps directional lights, then the point
    /// and spot lights nearest the eye; lights alike keep scene order.
    #[test]
    fn the_lights_nearest_the_eye_come_first() {
        let light = |kind: LightKind, x: f64| PunctualLight {
            kind,
            position: [x, 0.0, 0.0],
            direction: [0.0, -1.0, 0.0],
            color: [1.0; 3],
            intensity: x as f32,
            range: None,
        };
        let mut lights = vec![
            light(LightKind::Point, 5.0),
            light(LightKind::Spot { inner: 0.1, outer: 0.5 }, 1.0),
            light(LightKind::Point, -3.0),
            light(LightKind::Directional, 40.0),
            light(LightKind::Point, 3.0),
        ];
        nearest_first(&mut lights, &nalgebra::Point3::origin());
        let order: Vec<f32> = lights.iter().map(|l| l.intensity).collect();
        assert_eq!(order, [40.0, 1.0, -3.0, 3.0, 5.0]);
    }
}
