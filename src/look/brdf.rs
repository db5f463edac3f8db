//! The split-sum BRDF table of image-based lighting, computed on the CPU.
//!
//! The table holds, for `n.v` (x) and roughness (y) at texel centres, the
//! scale `A` and bias `B` of the specular environment term
//! `L x (f0 x A + B)`: `A = integral of (1 - Fc) D V (n.l)`, `B = integral
//! of Fc D V (n.l)` over the hemisphere, `Fc = (1 - v.h)^5`, with the GGX
//! `D` (`alpha = roughness^2`) and the height-correlated Smith visibility
//! `V` of the scene shader. It is integrated once per process
//! by importance-sampling GGX half vectors (a Hammersley set) and kept as
//! half floats (RG16F, filterable on every Vulkan device); the renderer
//! uploads it (`render::assets`).

use std::sync::OnceLock;

/// Texels per side of the BRDF table.
pub const LUT_SIZE: u32 = 64;
/// Samples per texel.
const LUT_SAMPLES: u32 = 1024;

fn radical_inverse(mut bits: u32) -> f64 {
    bits = bits.reverse_bits();
    f64::from(bits) * (1.0 / 4_294_967_296.0)
}

/// Half vector `i` of `samples` GGX-distributed ones about +z for
/// `a2 = alpha^2` (a Hammersley set): what the BRDF table and the `.hdr`
/// environments' prefiltering (`crate::look::envmap`) both integrate with.
pub fn ggx_half_vector(i: u32, samples: u32, a2: f64) -> [f64; 3] {
    let (u1, u2) = ((f64::from(i) + 0.5) / f64::from(samples), radical_inverse(i));
    let phi = 2.0 * std::f64::consts::PI * u2;
    let cos_t = ((1.0 - u1) / (1.0 + (a2 - 1.0) * u1)).sqrt();
    let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
    [sin_t * phi.cos(), sin_t * phi.sin(), cos_t]
}

/// `(A, B)` for `n.v` = `nv` and `roughness`, integrated with `samples`
/// GGX-distributed half vectors.
pub fn split_sum(nv: f64, roughness: f64, samples: u32) -> (f64, f64) {
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
pub fn half(x: f32) -> u16 {
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
pub fn brdf_lut() -> &'static [u8] {
    static LUT: OnceLock<Vec<u8>> = OnceLock::new();
    LUT.get_or_init(compute_brdf_lut)
}

/// The BRDF table computed afresh (what the first renderer of a process
/// pays once).
pub fn compute_brdf_lut() -> Vec<u8> {
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
