//! What the `material` shading mode lights with, besides the materials:
//! the split-sum BRDF table and the per-frame lighting block.
//!
//! The table holds, for `n.v` (x) and roughness (y) at texel centres, the
//! scale `A` and bias `B` of the specular environment term
//! `L x (f0 x A + B)`: `A = integral of (1 - Fc) D V (n.l)`, `B = integral
//! of Fc D V (n.l)` over the hemisphere, `Fc = (1 - v.h)^5`, with the GGX
//! `D` (`alpha = roughness^2`) and the height-correlated Smith visibility
//! `V` of the scene shader. It is integrated once per process on the CPU
//! by importance-sampling GGX half vectors (a Hammersley set) and kept as
//! half floats (RG16F, filterable on every Vulkan device).

use std::sync::OnceLock;

use bytemuck::{Pod, Zeroable};
use nalgebra::{Matrix4, Vector4};

use crate::lighting::{Environment, LightKind, Lighting, PunctualLight, Shading, ToneMapping};

/// The most scene lights a frame lights with (the scene shader's array).
pub(crate) const MAX_LIGHTS: usize = 8;

/// Texels per side of the BRDF table.
pub(crate) const LUT_SIZE: u32 = 64;
/// Samples per texel.
const LUT_SAMPLES: u32 = 1024;

fn radical_inverse(mut bits: u32) -> f64 {
    bits = bits.reverse_bits();
    f64::from(bits) * (1.0 / 4_294_967_296.0)
}

/// Half vector `i` of `samples` GGX-distributed ones about +z for
/// `a2 = alpha^2` (a Hammersley set): what the BRDF table and the `.hdr`
/// environments' prefiltering (`crate::envmap`) both integrate with.
pub(crate) fn ggx_half_vector(i: u32, samples: u32, a2: f64) -> [f64; 3] {
    let (u1, u2) = ((f64::from(i) + 0.5) / f64::from(samples), radical_inverse(i));
    let phi = 2.0 * std::f64::consts::PI * u2;
    let cos_t = ((1.0 - u1) / (1.0 + (a2 - 1.0) * u1)).sqrt();
    let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
    [sin_t * phi.cos(), sin_t * phi.sin(), cos_t]
}

/// `(A, B)` for `n.v` = `nv` and `roughness`, integrated with `samples`
/// GGX-distributed half vectors.
pub(crate) fn split_sum(nv: f64, roughness: f64, samples: u32) -> (f64, f64) {
    let alpha = roughness * roughness;
    let a2 = (alpha * alpha).max(1e-12);
    let v = [(1.0 - nv * nv).max(0.0).sqrt(), 0.0, nv];
    let (mut a, mut b) = (0.0, 0.0);
    for i in 0..samples {
        let h = ggx_half_vector(i, samples, a2);
        let vh = v[0] * h[0] + v[1] * h[1] + v[2] * h[2];
        let l = [2.0 * vh * h[0] - v[0], 2.0 * vh * h[1] - v[1], 2.0 * vh * h[2] - v[2]];
        let (nl, nh) = (l[2], h[2]);
        if nl <= 0.0 || vh <= 0.0 {
            continue;
        }
        let vis = 0.5 / (nl * (nv * nv * (1.0 - a2) + a2).sqrt() + nv * (nl * nl * (1.0 - a2) + a2).sqrt());
        // D V (n.l) over the pdf of l, D (n.h) / (4 v.h).
        let weight = vis * nl * 4.0 * vh / nh;
        let fc = (1.0 - vh).powi(5);
        a += (1.0 - fc) * weight;
        b += fc * weight;
    }
    (a / f64::from(samples), b / f64::from(samples))
}

/// An f32 in [0, 65504] as IEEE half-float bits (round to nearest).
pub(crate) fn half(x: f32) -> u16 {
    let x = x.clamp(0.0, 65504.0);
    if x < 6.103_515_6e-5 {
        // Subnormal: steps of 2^-24.
        return (x * 16_777_216.0).round() as u16;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mant = bits & 0x7f_ffff;
    let mut h = ((exp as u32) << 10) | (mant >> 13);
    if mant & 0x1fff > 0x1000 || (mant & 0x1fff == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    h as u16
}

/// The BRDF table as RG16F texels, rows by roughness, computed once.
pub(crate) fn brdf_lut() -> &'static [u8] {
    static LUT: OnceLock<Vec<u8>> = OnceLock::new();
    LUT.get_or_init(compute_brdf_lut)
}

/// The BRDF table computed afresh (what the first renderer of a process
/// pays once).
pub(crate) fn compute_brdf_lut() -> Vec<u8> {
    let n = LUT_SIZE as usize;
    let mut out = vec![0u8; n * n * 4];
    for j in 0..n {
        let roughness = (j as f64 + 0.5) / n as f64;
        for i in 0..n {
            let nv = (i as f64 + 0.5) / n as f64;
            let (a, b) = split_sum(nv, roughness, LUT_SAMPLES);
            let k = (j * n + i) * 4;
            out[k..k + 2].copy_from_slice(&half(a as f32).to_le_bytes());
            out[k + 2..k + 4].copy_from_slice(&half(b as f32).to_le_bytes());
        }
    }
    out
}

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

/// The scene shader's lighting block (std140, 656 bytes), in view space.
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
    /// xyz of row `i`: row `i` of the rotation from view to world space
    /// (the `.hdr` maps are looked up by world direction); `to_world[0].w`:
    /// the specular map's last mip level.
    pub to_world: [[f32; 4]; 3],
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
        if l.scene_lights {
            let used = lights.len().min(MAX_LIGHTS);
            for (k, light) in lights.iter().take(used).enumerate() {
                block.lights[4 * k..4 * k + 4].copy_from_slice(&light_rows(light, view));
            }
            block.params[3] = used as f32;
        }
        block
    }

    fn without_lights(l: &Lighting, view: &Matrix4<f64>) -> LightingBlock {
        let to_view = |v: [f64; 3]| {
            let w = (view * Vector4::new(v[0], v[1], v[2], 0.0)).xyz();
            let w = w.try_normalize(1e-12).unwrap_or(w);
            [w.x as f32, w.y as f32, w.z as f32]
        };
        let (sun_dir, sun_e) = match &l.sun {
            Some(s) if !l.scene_lights => {
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
        let row = |i: usize, w: f32| [back[(i, 0)] as f32, back[(i, 1)] as f32, back[(i, 2)] as f32, w];
        let last_level = (crate::envmap::SPECULAR_LEVELS - 1) as f32;
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
            to_world: [row(0, last_level), row(1, 0.0), row(2, 0.0)],
            lights: [[0.0; 4]; 4 * MAX_LIGHTS],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_round_trip_the_table_range() {
        assert_eq!(half(0.0), 0);
        assert_eq!(half(1.0), 0x3c00);
        assert_eq!(half(0.5), 0x3800);
        assert_eq!(half(65504.0), 0x7bff);
        assert_eq!(half(1e-5), 168); // subnormal
    }

    #[test]
    fn the_split_sum_of_a_rough_dielectric_and_a_mirror() {
        // A mirror: D V (n.l) integrates to 1, all of it in A but Fc.
        let (a, b) = split_sum(1.0, 0.02, 256);
        assert!((a + b - 1.0).abs() < 0.01, "{a} {b}");
        assert!(b < 1e-3);
        // Grazing angles give Fresnel more weight.
        let (a, b) = split_sum(0.1, 0.5, 1024);
        assert!(b > 0.05 && a > 0.2, "{a} {b}");
        // Rough: much energy lost to single scattering (a + b well below
        // 1; about 0.38 here). `tests/render/pbr.rs` checks the table
        // against its own hemisphere integral.
        let (a, b) = split_sum(0.7, 1.0, 1024);
        assert!(a + b < 0.6 && a + b > 0.3, "{a} {b}");
    }
}
