//! Radiance `.hdr` environments (`docs/spec/materials.md`, "Lighting and
//! output"): the file read into linear RGB radiance, then turned once into
//! what the scene shader samples: a small equirectangular irradiance map
//! (cosine-weighted radiance over the hemisphere about each normal, over
//! pi) and an equirectangular map of radiance prefiltered by the GGX lobe,
//! one mip level per roughness step (the split-sum approach; the BRDF
//! table is `render/assets/environment.rs`'s).
//!
//! The mapping between a world direction and the image is the project's
//! rule: `u = 0.5 + atan2(x, -z) / (2 pi)`, `v = acos(y) / pi` (texel rows
//! top to bottom), so the centre column looks along -Z, +Y is the top row
//! and +X is at `u = 0.75`: seen from inside, the picture is not mirrored
//! (as Blender and three.js place equirectangular images).
//!
//! Everything runs on the CPU at modest sizes: the file is first averaged
//! down to [`BASE_WIDTH`] x [`BASE_HEIGHT`]; the prefiltering samples that
//! image's mip chain at the level the sample's share of the lobe covers
//! (filtered importance sampling), so a few samples per texel do not alias.
//! Each file is read and prefiltered once per process ([`load`] keeps the
//! result by canonical path).

use std::f64::consts::PI;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::brdf::ggx_half_vector;

/// The width of the mirror level (roughness 0) of the specular map.
pub const BASE_WIDTH: u32 = 256;
/// Its height.
pub const BASE_HEIGHT: u32 = 128;
/// Mip levels of the specular map: level `k` holds roughness
/// `k / (SPECULAR_LEVELS - 1)` at `BASE_WIDTH >> k` x `BASE_HEIGHT >> k`.
pub const SPECULAR_LEVELS: u32 = 6;
/// The irradiance map's size. Its rows are not texel-centred like the
/// other images': row `j` holds the direction at `v = j / (height - 1)`, so
/// the first and last rows are the poles themselves (and the middle row the
/// horizon); the shader reads it at `v' = (v (height - 1) + 0.5) / height`.
pub const IRRADIANCE_WIDTH: u32 = 32;
pub const IRRADIANCE_HEIGHT: u32 = 17;
/// GGX samples per texel of a prefiltered level.
const SAMPLES: u32 = 128;
/// The largest side and texel count a file may have.
pub const MAX_SIDE: u32 = 16384;
pub const MAX_TEXELS: u64 = 32 * 1024 * 1024;

/// What goes wrong reading a `.hdr` file: one line naming it.
#[derive(Debug, thiserror::Error)]
pub enum EnvMapError {
    #[error("{}: cannot read: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}: not a readable Radiance .hdr image: {problem}", path.display())]
    Decode { path: PathBuf, problem: String },
    #[error("{}: the image is {width}x{height}: it has no texels", path.display())]
    Empty { path: PathBuf, width: u32, height: u32 },
    #[error("{}: the image is {width}x{height}: larger than {MAX_SIDE} per side or {MAX_TEXELS} texels", path.display())]
    TooLarge { path: PathBuf, width: u32, height: u32 },
    #[error("{}: texel ({x}, {y}) is not a finite non-negative radiance", path.display())]
    NotFinite { path: PathBuf, x: u32, y: u32 },
}

/// An equirectangular image of linear RGB, rows top (+Y) to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvImage {
    pub width: u32,
    pub height: u32,
    pub texels: Vec<[f32; 3]>,
}

/// The direction (unit, world space) at image coordinates `(u, v)` in
/// [0, 1]: the project's equirectangular rule.
pub fn direction_at(u: f64, v: f64) -> [f64; 3] {
    let theta = v * PI;
    let phi = (u - 0.5) * 2.0 * PI;
    [theta.sin() * phi.sin(), theta.cos(), -theta.sin() * phi.cos()]
}

/// The image coordinates `(u, v)` of direction `d` (unit): `u` in
/// (0, 1] wrapping, `v` in [0, 1].
pub fn uv_of(d: [f64; 3]) -> (f64, f64) {
    let u = if d[0].abs() + d[2].abs() < 1e-12 { 0.5 } else { 0.5 + d[0].atan2(-d[2]) / (2.0 * PI) };
    (u, d[1].clamp(-1.0, 1.0).acos() / PI)
}

/// The solid angle of texel row `y` of an equirectangular image `w` x `h`.
pub fn texel_solid_angle(y: u32, w: u32, h: u32) -> f64 {
    let t0 = f64::from(y) / f64::from(h) * PI;
    let t1 = f64::from(y + 1) / f64::from(h) * PI;
    2.0 * PI / f64::from(w) * (t0.cos() - t1.cos())
}

impl EnvImage {
    fn at(&self, x: u32, y: u32) -> [f32; 3] {
        self.texels[(y * self.width + x) as usize]
    }

    /// Bilinear radiance at `(u, v)`: `u` repeats, `v` clamps to the edge
    /// (as the renderer's sampler).
    pub fn sample(&self, u: f64, v: f64) -> [f64; 3] {
        let (w, h) = (self.width as i64, self.height as i64);
        let x = u * w as f64 - 0.5;
        let y = (v * h as f64 - 0.5).clamp(0.0, (h - 1) as f64);
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let (x0, y0) = (x0 as i64, y0 as i64);
        let xs = [x0.rem_euclid(w) as u32, (x0 + 1).rem_euclid(w) as u32];
        let ys = [y0 as u32, (y0 + 1).min(h - 1) as u32];
        let mut out = [0.0; 3];
        for (j, wy) in [(0, 1.0 - fy), (1, fy)] {
            for (i, wx) in [(0, 1.0 - fx), (1, fx)] {
                let t = self.at(xs[i], ys[j]);
                for c in 0..3 {
                    out[c] += f64::from(t[c]) * wx * wy;
                }
            }
        }
        out
    }

    /// This image averaged (or, along a side that is smaller, linearly
    /// stretched) to `width` x `height`: each output texel averages
    /// bilinear samples spaced one source texel apart over its footprint.
    pub fn resized(&self, width: u32, height: u32) -> EnvImage {
        let kx = self.width.div_ceil(width).max(1);
        let ky = self.height.div_ceil(height).max(1);
        let mut texels = Vec::with_capacity((width * height) as usize);
        for y in 0..height {
            for x in 0..width {
                let mut sum = [0.0; 3];
                for j in 0..ky {
                    for i in 0..kx {
                        let u = (f64::from(x) + (f64::from(i) + 0.5) / f64::from(kx)) / f64::from(width);
                        let v = (f64::from(y) + (f64::from(j) + 0.5) / f64::from(ky)) / f64::from(height);
                        let s = self.sample(u, v);
                        for c in 0..3 {
                            sum[c] += s[c];
                        }
                    }
                }
                let n = f64::from(kx * ky);
                texels.push(sum.map(|s| (s / n) as f32));
            }
        }
        EnvImage { width, height, texels }
    }

    /// Half the size: each texel the mean of four.
    fn halved(&self) -> EnvImage {
        let (w, h) = ((self.width / 2).max(1), (self.height / 2).max(1));
        let mut texels = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let mut sum = [0.0f32; 3];
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let t = self.at((2 * x + dx).min(self.width - 1), (2 * y + dy).min(self.height - 1));
                    for c in 0..3 {
                        sum[c] += t[c];
                    }
                }
                texels.push(sum.map(|s| s * 0.25));
            }
        }
        EnvImage { width: w, height: h, texels }
    }
}

/// Reads a Radiance `.hdr` file (RGBE, as the `image` crate decodes it).
pub fn read_hdr(path: &Path) -> Result<EnvImage, EnvMapError> {
    use image::ImageDecoder;
    let file = std::fs::File::open(path).map_err(|source| EnvMapError::Read { path: path.to_path_buf(), source })?;
    let decode = |e: image::ImageError| EnvMapError::Decode {
        path: path.to_path_buf(),
        problem: e.to_string().replace('\n', " "),
    };
    let decoder = image::codecs::hdr::HdrDecoder::new(std::io::BufReader::new(file)).map_err(decode)?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return Err(EnvMapError::Empty { path: path.to_path_buf(), width, height });
    }
    if width > MAX_SIDE || height > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_TEXELS {
        return Err(EnvMapError::TooLarge { path: path.to_path_buf(), width, height });
    }
    let mut texels = vec![[0.0f32; 3]; (width * height) as usize];
    decoder.read_image(bytemuck::cast_slice_mut(&mut texels)).map_err(decode)?;
    if let Some(k) = texels.iter().position(|t| t.iter().any(|c| !c.is_finite() || *c < 0.0)) {
        let k = k as u32;
        return Err(EnvMapError::NotFinite { path: path.to_path_buf(), x: k % width, y: k / width });
    }
    Ok(EnvImage { width, height, texels })
}

/// What the scene shader samples for one environment.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvMaps {
    /// The file (canonical), for messages and the UI.
    pub path: PathBuf,
    /// Per direction `n`: the integral of radiance x max(n.l, 0) over pi
    /// ([`IRRADIANCE_WIDTH`] x [`IRRADIANCE_HEIGHT`], poles on the first
    /// and last rows).
    pub irradiance: EnvImage,
    /// [`SPECULAR_LEVELS`] mip levels, level `k` prefiltered for roughness
    /// `k / (SPECULAR_LEVELS - 1)`.
    pub specular: Vec<EnvImage>,
}

/// Runs `f(row)` for rows `0..rows` on the machine's threads; returns the
/// rows in order.
fn par_rows<T: Send>(rows: u32, f: impl Fn(u32) -> Vec<T> + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(rows.max(1) as usize);
    let per = (rows as usize).div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let (a, b) = ((t * per) as u32, (((t + 1) * per) as u32).min(rows));
                    (a..b).flat_map(f).collect::<Vec<T>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a prefiltering thread panicked")).collect()
    })
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalize(a: [f64; 3]) -> [f64; 3] {
    let n = dot(a, a).sqrt();
    a.map(|c| c / n)
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Trilinear radiance along `d` from `chain` (a mip chain) at level `lod`.
fn sample_chain(chain: &[EnvImage], d: [f64; 3], lod: f64) -> [f64; 3] {
    let (u, v) = uv_of(d);
    let lod = lod.clamp(0.0, (chain.len() - 1) as f64);
    let l0 = lod.floor() as usize;
    let t = lod - l0 as f64;
    let a = chain[l0].sample(u, v);
    if t <= 0.0 || l0 + 1 >= chain.len() {
        return a;
    }
    let b = chain[l0 + 1].sample(u, v);
    std::array::from_fn(|c| a[c] * (1.0 - t) + b[c] * t)
}

/// One GGX sample of a lobe about the z axis (with n = v = z): the light
/// direction `l` in that frame and the mip level of the source it reads.
struct LobeSample {
    l: [f64; 3],
    lod: f64,
}

/// The samples of the GGX lobe of `roughness` (Hammersley half vectors
/// reflected about them), the same for every texel but for the frame; each
/// reads the level of `base`'s chain whose texels cover its share of the
/// lobe (filtered importance sampling).
fn lobe(roughness: f64, base: &EnvImage) -> Vec<LobeSample> {
    let alpha = roughness * roughness;
    let a2 = (alpha * alpha).max(1e-12);
    let texel = 4.0 * PI / f64::from(base.width * base.height);
    (0..SAMPLES)
        .filter_map(|i| {
            let h = ggx_half_vector(i, SAMPLES, a2);
            let cos_t = h[2];
            // l = 2 (v.h) h - v with v = (0, 0, 1) and v.h = cos_t.
            let l = [2.0 * cos_t * h[0], 2.0 * cos_t * h[1], 2.0 * cos_t * cos_t - 1.0];
            if l[2] <= 0.0 {
                return None;
            }
            // The pdf of l: D(h) (n.h) / (4 v.h), with n = v: D / 4.
            let k = cos_t * cos_t * (a2 - 1.0) + 1.0;
            let pdf = a2 / (PI * k * k) / 4.0;
            let share = 1.0 / (f64::from(SAMPLES) * pdf);
            Some(LobeSample { l, lod: 0.5 * (share / texel).log2() + 1.0 })
        })
        .collect()
}

/// Radiance prefiltered by `lobe` turned about `r`: each sample weighted
/// by n.l.
fn prefilter(chain: &[EnvImage], r: [f64; 3], lobe: &[LobeSample]) -> [f64; 3] {
    let helper = if r[1].abs() < 0.999 { [0.0, 1.0, 0.0] } else { [1.0, 0.0, 0.0] };
    let t = normalize(cross(helper, r));
    let b = cross(r, t);
    let (mut sum, mut weight) = ([0.0; 3], 0.0);
    for s in lobe {
        let l: [f64; 3] = std::array::from_fn(|c| t[c] * s.l[0] + b[c] * s.l[1] + r[c] * s.l[2]);
        let radiance = sample_chain(chain, l, s.lod);
        for c in 0..3 {
            sum[c] += radiance[c] * s.l[2];
        }
        weight += s.l[2];
    }
    sum.map(|s| s / weight.max(1e-12))
}

/// The irradiance map of `source` (irradiance / pi per normal): a plain
/// sum over its texels, each weighted by its solid angle and max(n.l, 0),
/// over the same sum of weights (exact for a constant image).
fn irradiance(source: &EnvImage) -> EnvImage {
    let (w, h) = (source.width, source.height);
    // Per source texel: its direction and solid angle.
    let at: Vec<([f64; 3], f64)> = (0..h)
        .flat_map(|y| {
            let omega = texel_solid_angle(y, w, h);
            let v = (f64::from(y) + 0.5) / f64::from(h);
            (0..w).map(move |x| (direction_at((f64::from(x) + 0.5) / f64::from(w), v), omega))
        })
        .collect();
    let texels: Vec<_> = at.into_iter().zip(source.texels.iter().copied()).map(|((d, o), t)| (d, o, t)).collect();
    let texels = &texels;
    let out = par_rows(IRRADIANCE_HEIGHT, |y| {
        (0..IRRADIANCE_WIDTH)
            .map(|x| {
                let n = direction_at(
                    (f64::from(x) + 0.5) / f64::from(IRRADIANCE_WIDTH),
                    f64::from(y) / f64::from(IRRADIANCE_HEIGHT - 1),
                );
                let (mut sum, mut weight) = ([0.0; 3], 0.0);
                for (d, omega, t) in texels {
                    let c = dot(n, *d);
                    if c > 0.0 {
                        let wgt = c * omega;
                        for k in 0..3 {
                            sum[k] += f64::from(t[k]) * wgt;
                        }
                        weight += wgt;
                    }
                }
                sum.map(|s| (s / weight) as f32)
            })
            .collect()
    });
    EnvImage { width: IRRADIANCE_WIDTH, height: IRRADIANCE_HEIGHT, texels: out }
}

/// The irradiance map and the prefiltered specular levels of `image`.
pub fn precompute(image: &EnvImage) -> (EnvImage, Vec<EnvImage>) {
    let base = image.resized(BASE_WIDTH, BASE_HEIGHT);
    let mut chain = vec![base];
    while chain.last().is_some_and(|l| l.width > 1 && l.height > 1) {
        let next = chain.last().expect("the chain has its base").halved();
        chain.push(next);
    }
    let irradiance_source = chain.iter().find(|l| l.width <= 64).expect("the chain goes down to one texel high");
    let irradiance = irradiance(irradiance_source);
    let mut specular = vec![chain[0].clone()];
    for k in 1..SPECULAR_LEVELS {
        let roughness = f64::from(k) / f64::from(SPECULAR_LEVELS - 1);
        let (w, h) = (BASE_WIDTH >> k, BASE_HEIGHT >> k);
        let chain = &chain;
        let lobe = &lobe(roughness, &chain[0]);
        let texels = par_rows(h, |y| {
            (0..w)
                .map(|x| {
                    let r = direction_at((f64::from(x) + 0.5) / f64::from(w), (f64::from(y) + 0.5) / f64::from(h));
                    prefilter(chain, r, lobe).map(|c| c as f32)
                })
                .collect()
        });
        specular.push(EnvImage { width: w, height: h, texels });
    }
    (irradiance, specular)
}

/// A `.hdr` environment read and prefiltered by [`load`]: cheap to copy,
/// compared by file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HdrId(u32);

impl HdrId {
    /// The environment's maps.
    pub fn maps(self) -> Arc<EnvMaps> {
        let cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(&cache[self.0 as usize])
    }

    /// The file it was read from (canonical).
    pub fn path(self) -> PathBuf {
        self.maps().path.clone()
    }
}

/// Every environment read in this process, in order of [`HdrId`].
static CACHE: Mutex<Vec<Arc<EnvMaps>>> = Mutex::new(Vec::new());

/// Reads and prefilters the `.hdr` file at `path`, once per process: a
/// later call for the same file (by canonical path) returns the same id
/// without reading it again.
pub fn load(path: &Path) -> Result<HdrId, EnvMapError> {
    let canonical = path.canonicalize().map_err(|source| EnvMapError::Read { path: path.to_path_buf(), source })?;
    let find = |cache: &[Arc<EnvMaps>]| cache.iter().position(|m| m.path == canonical).map(|i| HdrId(i as u32));
    if let Some(id) = find(&CACHE.lock().unwrap_or_else(|p| p.into_inner())) {
        return Ok(id);
    }
    let image = read_hdr(path)?;
    let (irradiance, specular) = precompute(&image);
    let maps = Arc::new(EnvMaps { path: canonical.clone(), irradiance, specular });
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    // Another thread may have read the same file meanwhile.
    if let Some(id) = find(&cache) {
        return Ok(id);
    }
    cache.push(maps);
    Ok(HdrId(cache.len() as u32 - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_centre_column_looks_along_minus_z_and_x_is_at_three_quarters() {
        let close = |a: [f64; 3], b: [f64; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12);
        assert!(close(direction_at(0.5, 0.5), [0.0, 0.0, -1.0]));
        assert!(close(direction_at(0.75, 0.5), [1.0, 0.0, 0.0]));
        assert!(close(direction_at(0.25, 0.5), [-1.0, 0.0, 0.0]));
        assert!(close(direction_at(0.0, 0.5), [0.0, 0.0, 1.0]));
        assert!(close(direction_at(0.3, 0.0), [0.0, 1.0, 0.0]));
        for (u, v) in [(0.1, 0.2), (0.5, 0.5), (0.75, 0.9), (0.99, 0.4)] {
            let (u2, v2) = uv_of(direction_at(u, v));
            assert!((u - u2).abs() < 1e-9 && (v - v2).abs() < 1e-9, "{u} {v}: {u2} {v2}");
        }
        // The solid angles of the rows add up to the sphere.
        let total: f64 = (0..7).map(|y| texel_solid_angle(y, 5, 7) * 5.0).sum();
        assert!((total - 4.0 * PI).abs() < 1e-9);
    }

    #[test]
    fn a_constant_image_stays_constant_in_every_map() {
        let image = EnvImage { width: 64, height: 32, texels: vec![[0.5, 1.5, 3.0]; 64 * 32] };
        let (irr, spec) = precompute(&image);
        assert_eq!(spec.len(), SPECULAR_LEVELS as usize);
        for (k, level) in spec.iter().enumerate() {
            assert_eq!((level.width, level.height), (BASE_WIDTH >> k, BASE_HEIGHT >> k));
        }
        for t in irr.texels.iter().chain(spec.iter().flat_map(|l| &l.texels)) {
            for (c, want) in [0.5f32, 1.5, 3.0].iter().enumerate() {
                assert!((t[c] - want).abs() < 1e-4 * want, "{t:?}");
            }
        }
    }

    #[test]
    fn irradiance_of_a_bright_upper_half_follows_the_cosine_integral() {
        // Radiance 1 above the horizon, 0 below: irradiance / pi is
        // (1 + n.y) / 2 for a normal of height n.y.
        let (w, h) = (128u32, 64u32);
        let texels = (0..w * h).map(|k| if k / w < h / 2 { [1.0; 3] } else { [0.0; 3] }).collect();
        let (irr, _) = precompute(&EnvImage { width: w, height: h, texels });
        for y in 0..IRRADIANCE_HEIGHT {
            let n = direction_at(0.5, f64::from(y) / f64::from(IRRADIANCE_HEIGHT - 1));
            let want = (1.0 + n[1]) / 2.0;
            let got = f64::from(irr.at(3, y)[0]);
            assert!((got - want).abs() < 0.02, "row {y}: {got} vs {want}");
        }
    }

    #[test]
    fn a_rough_level_blurs_and_a_smooth_one_keeps_a_bright_patch() {
        // A bright patch about -Z on a dark sphere.
        let (w, h) = (256u32, 128u32);
        let texels = (0..w * h)
            .map(|k| {
                let d = direction_at((f64::from(k % w) + 0.5) / f64::from(w), (f64::from(k / w) + 0.5) / f64::from(h));
                if d[2] < -0.95 {
                    [10.0; 3]
                } else {
                    [0.0; 3]
                }
            })
            .collect();
        let (_, spec) = precompute(&EnvImage { width: w, height: h, texels });
        let centre = |l: &EnvImage| l.sample(0.5, 0.5)[0];
        let side = |l: &EnvImage| l.sample(0.75, 0.5)[0];
        assert!(centre(&spec[0]) > 9.0 && side(&spec[0]) < 1e-3);
        // Blurrier with roughness: the centre darkens, the energy spreads.
        for k in 1..spec.len() {
            assert!(centre(&spec[k]) < centre(&spec[k - 1]), "level {k}");
        }
        assert!(side(&spec[5]) > 0.01);
    }

    #[test]
    fn bad_files_are_one_line_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.hdr");
        let garbage = dir.path().join("garbage.hdr");
        std::fs::write(&garbage, b"this is not an image").unwrap();
        let empty = dir.path().join("empty.hdr");
        std::fs::write(&empty, b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 0 +X 0\n").unwrap();
        let truncated = dir.path().join("truncated.hdr");
        let mut bytes = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4 +X 4\n".to_vec();
        bytes.extend_from_slice(&[128, 128, 128, 129, 128, 128]);
        std::fs::write(&truncated, bytes).unwrap();
        let huge = dir.path().join("huge.hdr");
        std::fs::write(&huge, b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 16000 +X 16000\n").unwrap();
        for (path, needle) in [
            (&missing, "cannot read"),
            (&garbage, "not a readable Radiance"),
            (&empty, "no texels"),
            (&truncated, "not a readable Radiance"),
            (&huge, "larger than"),
        ] {
            let e = read_hdr(path).unwrap_err().to_string();
            assert!(e.contains(needle) && e.contains(&*path.display().to_string()), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
        assert!(load(&missing).is_err());
    }
}
