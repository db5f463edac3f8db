//! What the `material` shading mode lights with, besides the materials:
//! the per-frame lighting block (the BRDF table it samples is computed in
//! [`crate::look::brdf`]).

use bytemuck::{Pod, Zeroable};
use nalgebra::{Matrix4, Vector4};

pub(crate) use crate::look::brdf::{brdf_lut, compute_brdf_lut, half, LUT_SIZE};
use crate::look::shadow::{world_to_map, CASCADES};
use crate::look::{Environment, LightKind, Lighting, PunctualLight, SceneLights, Shading, ToneMapping};
use crate::render::desc::ShadowDesc;
use crate::render::device::pipeline::to_f32_cols;

/// The most scene lights a frame lights with (the scene shader's array).
pub(crate) const MAX_LIGHTS: usize = crate::look::LIGHTS_PER_FRAME;

/// A scene light's four rows of the lighting block, in view space.
fn light_rows(light: &PunctualLight, view: &Matrix4<f64>) -> [[f32; 4]; 4] {
    let p = view * Vector4::new(light.position[0], light.position[1], light.position[2], 1.0);
    let d = (view * Vector4::new(light.direction[0], light.direction[1], light.direction[2], 0.0)).xyz();
    let d = d.try_normalize(1e-12).unwrap_or(d);
    let (kind, cone) = match light.kind {
        LightKind::Directional => (0.0, [0.0, 0.0]),
        LightKind::Point => (1.0, [0.0, 0.0]),
        LightKind::Spot { inner, outer } => {
            // KHR_lights_punctual's angular attenuation, as scale and offset.
            let scale = 1.0 / f64::max(0.001, f64::from(inner).cos() - f64::from(outer).cos());
            (2.0, [scale as f32, (-f64::from(outer).cos() * scale) as f32])
        }
    };
    let e = light.color.map(|c| c * light.intensity);
    [
        [p.x as f32, p.y as f32, p.z as f32, kind],
        [d.x as f32, d.y as f32, d.z as f32, light.range.unwrap_or(0.0)],
        [e[0], e[1], e[2], 0.0],
        [cone[0], cone[1], 0.0, 0.0],
    ]
}

/// The scene shader's lighting block (std140, 944 bytes), in view space.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct LightingBlock {
    /// xyz: towards the sun, w: 1 with a sun.
    pub sun_dir: [f32; 4],
    /// rgb: colour x illuminance.
    pub sun_e: [f32; 4],
    /// rgb: colour x intensity, w: 0 uniform, 1 studio, 2 the maps of a
    /// `.hdr` file.
    pub env: [f32; 4],
    /// xyz: world +y in view space.
    pub up: [f32; 4],
    /// x: 2^exposure, y: 0 PBR Neutral / 1 linear, z: 0 material / 1 solid.
    pub params: [f32; 4],
    /// xyz: towards the solid mode's light (up and to the side of the
    /// world), in view space.
    pub solid_light: [f32; 4],
    /// xyz of row `i`: row `i` of the rotation from view space to the
    /// environment's (world space turned back by
    /// `environment_rotation_deg` about +Y: the `.hdr` maps are looked up
    /// by that direction); `to_world[0].w`: the specular map's last mip
    /// level; `to_world[1].w`: the background's blur.
    pub to_world: [[f32; 4]; 3],
    /// x: which light casts shadows (0 none, 1 the sun, 2 + k the frame's
    /// light k); y: the cascades' count.
    pub shadow_info: [f32; 4],
    /// Per cascade: the world size of one texel of its map, negative
    /// where nothing casts into it.
    pub shadow_texel: [f32; 4],
    /// Per cascade: view space to its map (x, y in [0, 1], z the depth).
    pub shadow: [[[f32; 4]; 4]; CASCADES],
    /// Per scene light four vec4s (`scene.frag`): position and kind,
    /// direction of travel and range, colour x intensity, spot cone scale
    /// and offset.
    pub lights: [[f32; 4]; 4 * MAX_LIGHTS],
}

impl LightingBlock {
    /// The block of lighting `l` seen through `view`, with the scene's
    /// `lights` (world space; the first [`MAX_LIGHTS`] used) in place of the
    /// sun when `l.scene_lights` is on.
    pub fn new(l: &Lighting, view: &Matrix4<f64>, lights: &[PunctualLight]) -> LightingBlock {
        let mut block = LightingBlock::without_lights(l, view);
        if l.scene_lights == SceneLights::On {
            let used = lights.len().min(MAX_LIGHTS);
            for (k, light) in lights.iter().take(used).enumerate() {
                block.lights[4 * k..4 * k + 4].copy_from_slice(&light_rows(light, view));
            }
            block.params[3] = used as f32;
        }
        block
    }

    /// Adds `shadows` seen through `view`.
    pub fn with_shadows(mut self, shadows: Option<&ShadowDesc>, view: &Matrix4<f64>) -> LightingBlock {
        let Some(s) = shadows else { return self };
        let back = view.try_inverse().unwrap_or_else(Matrix4::identity);
        for (k, c) in s.cascades.iter().enumerate() {
            self.shadow[k] = to_f32_cols(&(world_to_map(c) * back));
            // Negative: nothing casts into it (its layer is not drawn).
            let sign = if s.casters[k].is_empty() { -1.0 } else { 1.0 };
            self.shadow_texel[k] = sign * c.texel as f32;
        }
        self.shadow_info = [s.light.map_or(1.0, |k| 2.0 + k as f32), CASCADES as f32, 0.0, 0.0];
        self
    }

    fn without_lights(l: &Lighting, view: &Matrix4<f64>) -> LightingBlock {
        let to_view = |v: [f64; 3]| {
            let w = (view * Vector4::new(v[0], v[1], v[2], 0.0)).xyz();
            let w = w.try_normalize(1e-12).unwrap_or(w);
            [w.x as f32, w.y as f32, w.z as f32]
        };
        let (sun_dir, sun_e) = match &l.sun {
            Some(s) if l.scene_lights != SceneLights::On => {
                let d = to_view(s.direction.map(|c| -c));
                let e = s.color.map(|c| c * s.illuminance);
                ([d[0], d[1], d[2], 1.0], [e[0], e[1], e[2], 0.0])
            }
            _ => ([0.0, 0.0, 1.0, 0.0], [0.0; 4]),
        };
        let c = l.environment_color.map(|c| c * l.environment_intensity);
        let kind = match l.environment {
            Environment::Uniform => 0.0,
            Environment::Studio => 1.0,
            Environment::Hdr(_) => 2.0,
        };
        let up = to_view([0.0, 1.0, 0.0]);
        let rotation = view.fixed_view::<3, 3>(0, 0).into_owned();
        let back = rotation.try_inverse().unwrap_or_else(|| rotation.transpose());
        // The environment turned by `environment_rotation_deg` about +Y: a
        // world direction is looked up in the file turned back by as much.
        let turn = nalgebra::Rotation3::from_axis_angle(
            &nalgebra::Vector3::y_axis(),
            -f64::from(l.environment_rotation_deg).to_radians(),
        );
        let back = turn.matrix() * back;
        let row = |i: usize, w: f32| [back[(i, 0)] as f32, back[(i, 1)] as f32, back[(i, 2)] as f32, w];
        let last_level = (crate::look::envmap::SPECULAR_LEVELS - 1) as f32;
        let solid = to_view([0.35, 0.8, 0.5]);
        LightingBlock {
            sun_dir,
            sun_e,
            env: [c[0], c[1], c[2], kind],
            up: [up[0], up[1], up[2], 0.0],
            params: [
                l.exposure_ev.exp2(),
                if l.tone_mapping == ToneMapping::Linear { 1.0 } else { 0.0 },
                if l.shading == Shading::Solid { 1.0 } else { 0.0 },
                0.0,
            ],
            solid_light: [solid[0], solid[1], solid[2], 0.0],
            to_world: [row(0, last_level), row(1, l.background_blur.clamp(0.0, 1.0)), row(2, 0.0)],
            shadow_info: [0.0; 4],
            shadow_texel: [0.0; 4],
            shadow: [[[0.0; 4]; 4]; CASCADES],
            lights: [[0.0; 4]; 4 * MAX_LIGHTS],
        }
    }
}
