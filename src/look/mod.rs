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
mod object;
pub mod shadow;

pub use object::LightingFile;

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
    /// Whether lights cast shadows in the material mode.
    pub shadows: bool,
    /// How far from the camera directional lights' shadows reach, metres.
    pub shadow_distance: f32,
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
            shadows: true,
            shadow_distance: 100.0,
            grid: true,
            scene_lights: SceneLights::Auto,
        }
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
