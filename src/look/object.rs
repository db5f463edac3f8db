//! The `lighting` object as scripts, `--lighting` files and scene files
//! write it: reading it over a base ([`LightingFile::over`], each bad field
//! one line naming it) and writing it whole ([`Lighting::to_json`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{srgb_to_linear, Background, Environment, Lighting, SceneLights, Shading, ToneMapping};

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
    shadows: Option<bool>,
    shadow_distance: Option<f64>,
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
        if let Some(s) = self.shadows {
            l.shadows = s;
        }
        if let Some(v) = self.shadow_distance {
            if !(v.is_finite() && v > 0.0 && v <= 1e6) {
                return Err(format!("lighting.shadow_distance must be a number above 0, up to 1e6, got {v}"));
            }
            l.shadow_distance = v as f32;
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
            "shadows": self.shadows,
            "shadow_distance": f64::from(self.shadow_distance),
            "grid": self.grid,
            "scene_lights": match self.scene_lights {
                SceneLights::Auto => serde_json::json!("auto"),
                SceneLights::On => serde_json::json!(true),
                SceneLights::Off => serde_json::json!(false),
            },
        })
    }
}
