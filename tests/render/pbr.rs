//! The `material` shading mode (`docs/spec/materials.md`): flat quads of
//! known base colour, metallic, roughness and emissive, facing +z, lit by a
//! `uniform` environment and a sun, seen from a camera off to the side so
//! that every pixel has its own view direction. The expected colour of a
//! pixel is computed here from the glTF 2.0 Appendix B formulas, restated
//! independently of the shader: the pixel centre's ray meets the quad's
//! plane, the normal is +z, the sun adds BRDF x E x n.l, the environment
//! `c_diff x L` and `L x` the specular BRDF integrated over the hemisphere
//! by a plain midpoint rule (no importance sampling, no table), then
//! exposure, tone mapping and the sRGB curve. Both depth modes, validation
//! on and silent.

use crate::support::gpu::{assert_no_validation_errors, project, renderer};
use crate::support::textured::{png_rgba, to_linear, to_srgb, Doc, Image, ImageAt, Quad};
use nalgebra::{Point3, Vector3, Vector4};
use serde_json::json;
use std::f64::consts::PI;
use viewport::app::open::{open_editor_for, open_scene};
use viewport::draw::SceneMeshes;
use viewport::look::{Environment, Lighting, Shading, Sun, ToneMapping};
use viewport::math::{Camera, DepthMode, Projection};
use viewport::render::RgbaImage;

const W: u32 = 200;
const H: u32 = 150;

fn camera() -> Camera {
    Camera {
        eye: Point3::new(1.5, 1.0, 4.0),
        target: Point3::new(0.0, 0.0, 0.0),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.1, far: 100.0 },
    }
}

/// A material of the test: linear base colour, metallic, roughness,
/// emissive factor.
#[derive(Clone, Copy, Debug)]
struct Mat {
    base: [f64; 3],
    metallic: f64,
    roughness: f64,
    emissive: [f64; 3],
}

impl Mat {
    fn json(&self) -> serde_json::Value {
        json!({
            "pbrMetallicRoughness": {
                "baseColorFactor": [self.base[0], self.base[1], self.base[2], 1.0],
                "metallicFactor": self.metallic,
                "roughnessFactor": self.roughness,
            },
            "emissiveFactor": self.emissive,
        })
    }
}

/// Quad centres (half size 0.45), in the order of [`MATS`].
const CENTRES: [[f64; 2]; 4] = [[-0.5, 0.5], [0.5, 0.5], [-0.5, -0.5], [0.5, -0.5]];

const MATS: [Mat; 4] = [
    // A rough dielectric.
    Mat { base: [0.6, 0.3, 0.15], metallic: 0.0, roughness: 0.9, emissive: [0.0; 3] },
    // A smooth dielectric.
    Mat { base: [0.2, 0.4, 0.6], metallic: 0.0, roughness: 0.3, emissive: [0.0; 3] },
    // A rough metal, emissive.
    Mat { base: [0.9, 0.6, 0.3], metallic: 1.0, roughness: 0.7, emissive: [0.05, 0.1, 0.2] },
    // A smooth metal.
    Mat { base: [0.7, 0.7, 0.75], metallic: 1.0, roughness: 0.35, emissive: [0.0; 3] },
];

fn lighting(tone: ToneMapping, exposure_ev: f32) -> Lighting {
    Lighting {
        shading: Shading::Material,
        environment: Environment::Uniform,
        environment_color: [0.2, 0.22, 0.25],
        environment_intensity: 1.0,
        sun: Some(Sun { direction: normalized([-0.3, -0.5, -1.0]), color: [1.0, 0.95, 0.9], illuminance: 1.5 }),
        exposure_ev,
        tone_mapping: tone,
        background: viewport::look::Background::Program,
        background_blur: 0.0,
        environment_rotation_deg: 0.0,
        shadows: false,
        shadow_distance: 100.0,
        grid: false,
        scene_lights: viewport::look::SceneLights::Off,
    }
}

fn normalized(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|c| c / n)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Appendix B's GGX distribution and height-correlated visibility.
fn d_v(nh: f64, nl: f64, nv: f64, alpha: f64) -> (f64, f64) {
    let a2 = alpha * alpha;
    let k = nh * nh * (a2 - 1.0) + 1.0;
    let d = a2 / (PI * k * k);
    let v = 0.5 / (nl * (nv * nv * (1.0 - a2) + a2).sqrt() + nv * (nl * nl * (1.0 - a2) + a2).sqrt());
    (d, v)
}

/// The specular BRDF integrated against n.l over the hemisphere, split by
/// the Schlick weight: `(A, B)` with `integral f_spec (n.l) = f0 A + B`.
/// A midpoint rule in (theta, phi) about the normal.
fn specular_integral(nv: f64, roughness: f64) -> (f64, f64) {
    let alpha = roughness * roughness;
    let v = [(1.0 - nv * nv).sqrt(), 0.0, nv];
    let (nt, np) = (600, 600);
    let (dt, dp) = (PI / 2.0 / nt as f64, PI / np as f64);
    let (mut a, mut b) = (0.0, 0.0);
    for i in 0..nt {
        let t = (i as f64 + 0.5) * dt;
        for j in 0..np {
            // Symmetric in phi about v's plane: half the circle, twice.
            let p = (j as f64 + 0.5) * dp;
            let l = [t.sin() * p.cos(), t.sin() * p.sin(), t.cos()];
            let h = normalized([l[0] + v[0], l[1] + v[1], l[2] + v[2]]);
            let (d, vis) = d_v(h[2], l[2], nv, alpha);
            let fc = (1.0 - dot(v, h)).powi(5);
            let w = d * vis * l[2] * t.sin() * dt * dp * 2.0;
            a += (1.0 - fc) * w;
            b += fc * w;
        }
    }
    (a, b)
}

/// Khronos PBR Neutral, restated.
fn pbr_neutral(c: [f64; 3]) -> [f64; 3] {
    let start = 0.8 - 0.04;
    let desaturation = 0.15;
    let x = c[0].min(c[1]).min(c[2]);
    let offset = if x < 0.08 { x - 6.25 * x * x } else { 0.04 };
    let c = c.map(|v| v - offset);
    let peak = c[0].max(c[1]).max(c[2]);
    if peak < start {
        return c;
    }
    let d = 1.0 - start;
    let new_peak = 1.0 - d * d / (peak + d - start);
    let c = c.map(|v| v * new_peak / peak);
    let g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    c.map(|v| v + (new_peak - v) * g)
}

/// The sRGB colour the material mode should show at a surface point `p`
/// (on the plane z = 0, normal +z) of material `m`.
fn expected(m: &Mat, p: [f64; 3], l: &Lighting) -> [u8; 3] {
    expected_linear(m, p, l).map(to_srgb)
}

/// [`expected`] before the sRGB curve (tone-mapped, linear).
fn expected_linear(m: &Mat, p: [f64; 3], l: &Lighting) -> [f64; 3] {
    expected_with_normal(m, p, l, [0.0, 0.0, 1.0])
}

/// [`expected_linear`] with shading normal `n` (unit) at `p`.
fn expected_with_normal(m: &Mat, p: [f64; 3], l: &Lighting, n: [f64; 3]) -> [f64; 3] {
    let eye = camera().eye;
    let v = normalized([eye.x - p[0], eye.y - p[1], eye.z - p[2]]);
    let nv = dot(n, v);
    let c_diff = m.base.map(|c| c * (1.0 - m.metallic));
    let f0: [f64; 3] = std::array::from_fn(|i| 0.04 * (1.0 - m.metallic) + m.base[i] * m.metallic);
    let alpha = m.roughness * m.roughness;
    // Energy compensation (docs/spec/lights.md): the specular lobe times
    // 1 + f0 (1 / E - 1), E = A + B the lobe's directional albedo.
    let (a, b) = specular_integral(nv, m.roughness);
    let comp: [f64; 3] = std::array::from_fn(|i| 1.0 + f0[i] * (1.0 / (a + b) - 1.0));
    let mut out = [0.0; 3];
    if let Some(sun) = &l.sun {
        let ld = sun.direction.map(|c| -c);
        let nl = dot(n, ld);
        if nl > 0.0 {
            let h = normalized([ld[0] + v[0], ld[1] + v[1], ld[2] + v[2]]);
            let (d, vis) = d_v(dot(n, h), nl, nv, alpha);
            let vh = dot(v, h);
            for i in 0..3 {
                let f = f0[i] + (1.0 - f0[i]) * (1.0 - vh).powi(5);
                let brdf = (1.0 - f) * c_diff[i] / PI + comp[i] * f * d * vis;
                out[i] += brdf * f64::from(sun.color[i] * sun.illuminance) * nl;
            }
        }
    }
    for i in 0..3 {
        let radiance = f64::from(l.environment_color[i] * l.environment_intensity);
        out[i] += c_diff[i] * radiance + radiance * (f0[i] * a + b) * comp[i];
        out[i] += m.emissive[i];
        out[i] *= f64::from(l.exposure_ev).exp2();
    }
    match l.tone_mapping {
        ToneMapping::PbrNeutral => pbr_neutral(out),
        ToneMapping::Linear => out,
    }
}

/// The point of plane z = 0 that pixel (x, y)'s centre shows.
fn surface_point(depth: DepthMode, x: u32, y: u32) -> [f64; 3] {
    let c = camera();
    let m = c.projection_matrix(f64::from(W) / f64::from(H), depth) * c.view_matrix();
    let inv = m.try_inverse().unwrap();
    let ndc = |px: f64, py: f64| (2.0 * px / f64::from(W) - 1.0, 2.0 * py / f64::from(H) - 1.0);
    let (nx, ny) = ndc(f64::from(x) + 0.5, f64::from(y) + 0.5);
    let unproject = |z: f64| {
        let p = inv * Vector4::new(nx, ny, z, 1.0);
        Vector3::new(p.x / p.w, p.y / p.w, p.z / p.w)
    };
    let (a, b) = (unproject(0.2), unproject(0.8));
    let t = -a.z / (b.z - a.z);
    let p = a + (b - a) * t;
    [p.x, p.y, p.z]
}

fn doc() -> Doc {
    Doc {
        quads: (0..4).map(|i| Quad::new([CENTRES[i][0] as f32, CENTRES[i][1] as f32, 0.0], 0.45, Some(i))).collect(),
        materials: MATS.iter().map(Mat::json).collect(),
        ..Doc::default()
    }
}

/// One frame of `path` with `lighting`, no grid.
fn shoot(path: &std::path::Path, depth: DepthMode, lighting: &Lighting) -> RgbaImage {
    shoot_from(path, depth, lighting, camera())
}

/// [`shoot`] from `camera`.
fn shoot_from(path: &std::path::Path, depth: DepthMode, lighting: &Lighting, camera: Camera) -> RgbaImage {
    let (editor, loaded) = open_editor_for(open_scene(Some(path)).unwrap(), (W, H), depth).unwrap();
    let mut r = renderer(W, H);
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let (mut frame, _) = meshes.frame(editor.scene(), camera, depth, &[], (W, H));
    frame.grid = false;
    frame.lighting = *lighting;
    r.draw(&frame).unwrap();
    let image = r.read_color().unwrap();
    assert_no_validation_errors(&r);
    image
}

/// Pixels spread over each quad (inside its edges).
fn samples(depth: DepthMode) -> Vec<(usize, u32, u32)> {
    let mut out = Vec::new();
    for (i, c) in CENTRES.iter().enumerate() {
        for (dx, dy) in [(0.0, 0.0), (-0.3, 0.3), (0.3, -0.3), (0.3, 0.3), (-0.3, -0.3), (0.0, 0.35)] {
            let (x, y) = project(&camera(), depth, W, H, Point3::new(c[0] + dx, c[1] + dy, 0.0));
            out.push((i, x as u32, y as u32));
        }
    }
    out
}

fn check(image: &RgbaImage, depth: DepthMode, l: &Lighting) {
    let mut bad = Vec::new();
    for (i, x, y) in samples(depth) {
        let p = surface_point(depth, x, y);
        let want = expected(&MATS[i], p, l);
        let got = image.pixel(x, y);
        if (0..3).any(|k| (i32::from(got[k]) - i32::from(want[k])).abs() > 3) {
            bad.push(format!("quad {i} pixel ({x}, {y}) at {p:.3?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(bad.is_empty(), "{depth:?} {:?}:\n{}", l.tone_mapping, bad.join("\n"));
}

#[test]
fn dielectrics_and_metals_rough_and_smooth_follow_appendix_b_in_both_depth_modes() {
    let dir = tempfile::tempdir().unwrap();
    let path = doc().write(dir.path(), "pbr.gltf");
    let l = lighting(ToneMapping::Linear, 0.0);
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        check(&shoot(&path, depth, &l), depth, &l);
    }
}

#[test]
fn exposure_and_pbr_neutral_follow_the_formulas() {
    let dir = tempfile::tempdir().unwrap();
    let path = doc().write(dir.path(), "pbr.gltf");
    for l in [lighting(ToneMapping::PbrNeutral, 0.0), lighting(ToneMapping::PbrNeutral, 1.5)] {
        check(&shoot(&path, DepthMode::Reversed, &l), DepthMode::Reversed, &l);
    }
}

#[test]
fn a_white_rough_dielectric_in_a_uniform_environment_shows_about_its_radiance() {
    // The spec's unit of radiance: white, roughness 1, dielectric, no sun.
    let white = Mat { base: [1.0; 3], metallic: 0.0, roughness: 1.0, emissive: [0.0; 3] };
    let doc = Doc { quads: vec![Quad::new([0.0; 3], 1.0, Some(0))], materials: vec![white.json()], ..Doc::default() };
    let dir = tempfile::tempdir().unwrap();
    let path = doc.write(dir.path(), "white.gltf");
    let l = Lighting { sun: None, environment_color: [0.4; 3], ..lighting(ToneMapping::Linear, 0.0) };
    let image = shoot(&path, DepthMode::Reversed, &l);
    let (x, y) = project(&camera(), DepthMode::Reversed, W, H, Point3::origin());
    let got = image.pixel(x as u32, y as u32);
    // L plus the dielectric's few per cent of specular.
    let lo = to_srgb(0.4);
    let hi = to_srgb(0.4 * 1.08);
    assert!((lo..=hi).contains(&got[0]), "{got:?} not in {lo}..={hi}");
    assert_eq!(got[0], got[1]);
}

#[test]
fn rough_metals_in_a_uniform_environment_keep_their_energy() {
    // A white metal of roughness 1 under a uniform sky reflects all of it
    // (a white furnace: f0 = 1 makes the compensated lobe (A + B) / E = 1),
    // and a coloured one (f0 the base colour) L (f0 A + B)(1 + f0 (1/E - 1))
    // per channel, A and B integrated here. Without the compensation both
    // would be visibly darker (checked, so the test can fail).
    let l = Lighting { sun: None, environment_color: [0.4; 3], ..lighting(ToneMapping::Linear, 0.0) };
    for base in [[1.0, 1.0, 1.0], [0.95, 0.64, 0.54]] {
        let m = Mat { base, metallic: 1.0, roughness: 1.0, emissive: [0.0; 3] };
        let doc = Doc { quads: vec![Quad::new([0.0; 3], 1.0, Some(0))], materials: vec![m.json()], ..Doc::default() };
        let dir = tempfile::tempdir().unwrap();
        let path = doc.write(dir.path(), "metal.gltf");
        let image = shoot(&path, DepthMode::Reversed, &l);
        for p in [[0.0, 0.0], [-0.6, 0.5], [0.6, -0.5]] {
            let (x, y) = project(&camera(), DepthMode::Reversed, W, H, Point3::new(p[0], p[1], 0.0));
            let (x, y) = (x as u32, y as u32);
            let q = surface_point(DepthMode::Reversed, x, y);
            let eye = camera().eye;
            let nv = normalized([eye.x - q[0], eye.y - q[1], eye.z - q[2]])[2];
            let (a, b) = specular_integral(nv, 1.0);
            let e = a + b;
            let got = image.pixel(x, y);
            for c in 0..3 {
                let f0 = base[c];
                let want = 0.4 * (f0 * a + b) * (1.0 + f0 * (1.0 / e - 1.0));
                if base == [1.0; 3] {
                    assert!((want - 0.4).abs() < 1e-3, "a white furnace: {want}");
                }
                let (want, single) = (to_srgb(want), to_srgb(0.4 * (f0 * a + b)));
                assert!((i32::from(got[c]) - i32::from(want)).abs() <= 3, "{base:?} at {p:?}: {got:?}, want {want}");
                assert!(i32::from(want) - i32::from(single) > 12, "{base:?}: compensated {want}, single {single}");
            }
        }
    }
}

#[test]
fn a_metallic_roughness_texture_scales_the_factors_blue_metal_green_roughness() {
    // Texture (B 255, G 179): with factors 1 and 0.8 that is metallic 1,
    // roughness 0.8 x 179/255 (linear values, no sRGB decoding), drawn like
    // the factors alone would draw them.
    let g = 179u8;
    let roughness = 0.8 * f64::from(g) / 255.0;
    let image = png_rgba(2, 2, &[0, g, 255, 255].repeat(4));
    let textured = json!({
        "pbrMetallicRoughness": {
            "baseColorFactor": [0.9, 0.6, 0.3, 1.0],
            "metallicFactor": 1.0,
            "roughnessFactor": 0.8,
            "metallicRoughnessTexture": {"index": 0},
        },
    });
    let doc = Doc {
        quads: vec![Quad::new([0.0; 3], 1.0, Some(0))],
        materials: vec![textured],
        textures: vec![json!({"source": 0})],
        images: vec![Image { bytes: Some(image), at: ImageAt::DataUri }],
        ..Doc::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = doc.write(dir.path(), "mr.gltf");
    let l = lighting(ToneMapping::Linear, 0.0);
    let shot = shoot(&path, DepthMode::Reversed, &l);
    let m = Mat { base: [0.9, 0.6, 0.3], metallic: 1.0, roughness, emissive: [0.0; 3] };
    for p in [[0.0, 0.0], [-0.6, 0.5], [0.6, -0.5]] {
        let (x, y) = project(&camera(), DepthMode::Reversed, W, H, Point3::new(p[0], p[1], 0.0));
        let (x, y) = (x as u32, y as u32);
        let want = expected(&m, surface_point(DepthMode::Reversed, x, y), &l);
        let got = shot.pixel(x, y);
        assert!((0..3).all(|k| (i32::from(got[k]) - i32::from(want[k])).abs() <= 3), "{got:?} vs {want:?}");
    }
    // Read as sRGB, the same green would be a roughness far from this one.
    assert!((to_linear(g) - f64::from(g) / 255.0).abs() > 0.2);
}

#[test]
fn solid_mode_keeps_the_look_of_before() {
    // Solid: base colour x (0.3 + 0.7 diffuse) from the light (0.35, 0.8,
    // 0.5) of view space; the quad's normal in view space is the world +z
    // rotated by the camera.
    let dir = tempfile::tempdir().unwrap();
    let path = doc().write(dir.path(), "pbr.gltf");
    let l = Lighting { shading: Shading::Solid, ..lighting(ToneMapping::Linear, 0.0) };
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let image = shoot(&path, depth, &l);
        let view = camera().view_matrix();
        let n = (view * Vector4::new(0.0, 0.0, 1.0, 0.0)).xyz().normalize();
        let light = (view * Vector4::new(0.35, 0.8, 0.5, 0.0)).xyz().normalize();
        let shade = 0.3 + 0.7 * n.dot(&light).max(0.0);
        for (i, x, y) in samples(depth) {
            let want = MATS[i].base.map(|c| to_srgb(c * shade));
            let got = image.pixel(x, y);
            assert!((0..3).all(|k| (i32::from(got[k]) - i32::from(want[k])).abs() <= 1), "{got:?} vs {want:?}");
        }
    }
}

#[test]
fn single_sided_quads_show_their_front_only_in_both_modes_double_sided_ones_both_sides() {
    // Quad 0 (left, x = -0.6) single-sided, quad 1 (right) double-sided,
    // both facing +z (counter-clockwise seen from +z). From +z both show;
    // from -z only quad 1, quad 0's pixels keep the background.
    let mut single = MATS[0].json();
    single["doubleSided"] = json!(false);
    let mut double = MATS[1].json();
    double["doubleSided"] = json!(true);
    let doc = Doc {
        quads: vec![Quad::new([-0.6, 0.0, 0.0], 0.45, Some(0)), Quad::new([0.6, 0.0, 0.0], 0.45, Some(1))],
        materials: vec![single, double],
        ..Doc::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = doc.write(dir.path(), "sides.gltf");
    let behind = Camera { eye: Point3::new(0.5, 0.8, -4.0), ..camera() };
    for shading in [Shading::Material, Shading::Solid] {
        let l = Lighting { shading, ..lighting(ToneMapping::Linear, 0.0) };
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            for (cam, front) in [(camera(), true), (behind, false)] {
                let image = shoot_from(&path, depth, &l, cam);
                let background = image.pixel(1, 1);
                for (quad, x) in [(0, -0.6), (1, 0.6)] {
                    let (px, py) = project(&cam, depth, W, H, Point3::new(x, 0.0, 0.0));
                    let got = image.pixel(px as u32, py as u32);
                    let drawn = got != background;
                    let want = front || quad == 1;
                    assert_eq!(
                        drawn, want,
                        "{shading:?} {depth:?} front {front}: quad {quad} at ({px}, {py}) is {got:?}, background {background:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn khr_texture_transform_moves_turns_and_scales_a_checker_and_picks_its_uv_set() {
    // A 2 x 2 NEAREST checker (red where texel x + y is even, blue where
    // odd) on an unlit quad (half size 1, UVs 0..1 across it, in
    // TEXCOORD_1; TEXCOORD_0 is one constant texel). The texture info
    // names set 0, the transform's texCoord set 1. Each pixel's expected
    // colour: its surface point -> UV -> the transform -> the texel.
    let (red, blue) = ([255u8, 0, 0, 255], [0u8, 0, 255, 255]);
    let image = png_rgba(2, 2, &[red, blue, blue, red].concat());
    let (offset, rotation, scale) = ([0.3, -0.2], 0.5f64, [1.5, 0.8]);
    let material = json!({
        "pbrMetallicRoughness": {
            "baseColorTexture": {"index": 0, "texCoord": 0, "extensions": {"KHR_texture_transform": {
                "offset": offset, "rotation": rotation, "scale": scale, "texCoord": 1}}},
        },
        "extensions": {"KHR_materials_unlit": {}},
    });
    let mut quad = Quad::new([0.0; 3], 1.0, Some(0));
    quad.uv_set = 1;
    let doc = Doc {
        quads: vec![quad],
        materials: vec![material],
        textures: vec![json!({"source": 0, "sampler": 0})],
        samplers: vec![json!({"magFilter": 9728, "minFilter": 9728})],
        images: vec![Image { bytes: Some(image), at: ImageAt::DataUri }],
        lights: vec![],
    };
    let dir = tempfile::tempdir().unwrap();
    let path = doc.write(dir.path(), "transform.gltf");
    let image = shoot(&path, DepthMode::Reversed, &lighting(ToneMapping::Linear, 0.0));
    let (mut checked, mut bad) = (0, Vec::new());
    for y in (0..H).step_by(2) {
        for x in (0..W).step_by(2) {
            let p = surface_point(DepthMode::Reversed, x, y);
            if p[0].abs() > 0.95 || p[1].abs() > 0.95 {
                continue;
            }
            // The quad's UVs: (0, 0) at (-1, 1), (1, 1) at (1, -1).
            let (u, v) = ((p[0] + 1.0) / 2.0, (1.0 - p[1]) / 2.0);
            let (s, c) = rotation.sin_cos();
            let tu = c * scale[0] * u + s * scale[1] * v + offset[0];
            let tv = -s * scale[0] * u + c * scale[1] * v + offset[1];
            // Texel coordinates; skip pixels near a texel edge.
            let (fx, fy) = (tu * 2.0, tv * 2.0);
            let near = |f: f64| (f - f.round()).abs() < 0.06;
            if near(fx) || near(fy) {
                continue;
            }
            let odd = (fx.floor() as i64 + fy.floor() as i64).rem_euclid(2) == 1;
            let want = if odd { blue } else { red };
            let got = image.pixel(x, y);
            checked += 1;
            if (0..3).any(|k| got[k].abs_diff(want[k]) > 2) {
                bad.push(format!("({x}, {y}) at {p:.3?} uv ({tu:.3}, {tv:.3}): got {got:?}, want {want:?}"));
            }
        }
    }
    assert!(checked > 500, "{checked} pixels checked");
    assert!(bad.is_empty(), "{} of {checked} wrong:\n{}", bad.len(), bad[..bad.len().min(20)].join("\n"));
}

#[test]
fn an_occlusion_map_of_strength_half_halves_the_environment_term_only() {
    // Occlusion texture R = 0 everywhere, strength 0.5: occlusion
    // 1 + 0.5 x (0 - 1) = 0.5 on the environment's diffuse and specular,
    // the sun's term untouched. Expected: the sun term + half the
    // environment term, each from the formulas above (`expected` with the
    // environment at half radiance, then the sun term added once).
    let m = Mat { base: [0.6, 0.3, 0.15], metallic: 0.0, roughness: 0.6, emissive: [0.0; 3] };
    let mut material = m.json();
    material["occlusionTexture"] = json!({"index": 0, "strength": 0.5});
    let doc = Doc {
        quads: vec![Quad::new([0.0; 3], 1.0, Some(0))],
        materials: vec![material],
        textures: vec![json!({"source": 0})],
        images: vec![Image { bytes: Some(png_rgba(2, 2, &[0, 255, 255, 255].repeat(4))), at: ImageAt::DataUri }],
        ..Doc::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = doc.write(dir.path(), "occlusion.gltf");
    let l = lighting(ToneMapping::Linear, 0.0);
    let shot = shoot(&path, DepthMode::Reversed, &l);
    // Linear radiance: with the environment alone at half radiance, plus
    // the sun alone (environment black).
    let half_env = Lighting { sun: None, environment_color: l.environment_color.map(|c| c * 0.5), ..l };
    let sun_only = Lighting { environment_color: [0.0; 3], ..l };
    let occluded = Lighting { environment_color: [0.0; 3], sun: None, ..l };
    let full = expected_linear;
    for p in [[0.0, 0.0], [-0.6, 0.5], [0.6, -0.5]] {
        let (x, y) = project(&camera(), DepthMode::Reversed, W, H, Point3::new(p[0], p[1], 0.0));
        let (x, y) = (x as u32, y as u32);
        let q = surface_point(DepthMode::Reversed, x, y);
        let (a, b, none) = (full(&m, q, &half_env), full(&m, q, &sun_only), full(&m, q, &occluded));
        let want: [u8; 3] = std::array::from_fn(|k| to_srgb(a[k] + b[k] - none[k]));
        let unoccluded = expected(&m, q, &l);
        let got = shot.pixel(x, y);
        assert!((0..3).all(|k| (i32::from(got[k]) - i32::from(want[k])).abs() <= 3), "{got:?} vs {want:?}");
        assert!(unoccluded[0] > want[0] + 10, "the occlusion shows: {unoccluded:?} vs {want:?}");
    }
}

/// A normal texture holding one tangent-space normal everywhere turns
/// the lit normal as the tangent frame says: with MikkTSpace tangents the
/// tangent runs along increasing u (+x on the quad) and the bitangent
/// along increasing v (-y: UV (0, 0) is the top-left corner); with the
/// file's TANGENT (0, 1, 0, w 1) the tangent is +y and the bitangent
/// normal x tangent = -x. The texture's x and y are scaled by `scale`.
/// Expected colours: the formulas above with the normal the test works
/// out from the texel bytes.
/// The texel of a normal texture holding the direction `n` (normalised)
/// and the normal a shader decodes from it.
fn normal_texel(n: [f64; 3]) -> ([u8; 3], [f64; 3]) {
    let texel = normalized(n).map(|c| ((c + 1.0) * 0.5 * 255.0).round() as u8);
    (texel, texel.map(|b| f64::from(b) / 255.0 * 2.0 - 1.0))
}

/// A file of `quad` whose material is `m` with a normal texture of one
/// colour, `texel`, at `scale`.
fn normal_map_doc(m: &Mat, texel: [u8; 3], quad: Quad, scale: serde_json::Value) -> Doc {
    let mut material = m.json();
    material["normalTexture"] = json!({"index": 0, "scale": scale});
    Doc {
        quads: vec![quad],
        materials: vec![material],
        textures: vec![json!({"source": 0})],
        images: vec![Image {
            bytes: Some(png_rgba(2, 2, &[texel[0], texel[1], texel[2], 255].repeat(4))),
            at: ImageAt::DataUri,
        }],
        ..Doc::default()
    }
}

#[test]
fn a_normal_texture_turns_the_lit_normal_in_the_tangent_frame() {
    // The texel: a normal leaning +x and +y in tangent space.
    let (texel, decoded) = normal_texel([0.6, 0.45, 0.66]);
    let m = Mat { base: [0.6, 0.5, 0.4], metallic: 0.0, roughness: 0.5, emissive: [0.0; 3] };
    // A strong sun: the turned normal shows clearly.
    let base = lighting(ToneMapping::Linear, 0.0);
    let l = Lighting { sun: base.sun.map(|s| Sun { illuminance: 3.0, ..s }), ..base };
    // (file's tangent, normal texture scale, tangent frame T and B)
    let cases = [
        (None, 1.0, [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
        (None, 0.5, [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
        (Some([0.0, 1.0, 0.0, 1.0]), 1.0, [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]),
    ];
    for (tangent, scale, t, b) in cases {
        let doc = normal_map_doc(&m, texel, Quad { tangent, ..Quad::new([0.0; 3], 1.0, Some(0)) }, json!(scale));
        let dir = tempfile::tempdir().unwrap();
        let path = doc.write(dir.path(), "normal.gltf");
        let shot = shoot(&path, DepthMode::Reversed, &l);
        let (x, y, z) = (decoded[0] * scale, decoded[1] * scale, decoded[2]);
        let n = normalized(std::array::from_fn(|k| t[k] * x + b[k] * y + z * [0.0, 0.0, 1.0][k]));
        let mut shown = 0;
        for p in [[0.0, 0.0], [-0.6, 0.5], [0.6, -0.5]] {
            let (px, py) = project(&camera(), DepthMode::Reversed, W, H, Point3::new(p[0], p[1], 0.0));
            let (px, py) = (px as u32, py as u32);
            let q = surface_point(DepthMode::Reversed, px, py);
            let want = expected_with_normal(&m, q, &l, n).map(to_srgb);
            let flat = expected(&m, q, &l);
            let got = shot.pixel(px, py);
            let close = |a: [u8; 3]| (0..3).all(|k| (i32::from(got[k]) - i32::from(a[k])).abs() <= 3);
            assert!(close(want), "{tangent:?} x{scale}: pixel {got:?}, want {want:?} (flat {flat:?})");
            let apart = (0..3).any(|k| want[k].abs_diff(flat[k]) > 8);
            assert!(!apart || !close(flat), "{tangent:?} x{scale}: the normal texture shows: {got:?} vs flat {flat:?}");
            shown += usize::from(apart);
        }
        assert!(shown >= 2, "{tangent:?} x{scale}: the normal texture barely changes the picture here");
    }
}

/// A skinned quad with a normal texture, posed by turning its joint 90
/// degrees about the quad's normal (+z): the posed copy's tangents turn
/// with it, so the lit normal is the texel's in the turned tangent frame
/// `R T`, `R B` (the quad itself covers the same square). Both tangent
/// sources: the file's TANGENT (+y, w 1: bitangent -x) and MikkTSpace (+x,
/// bitangent -y). The expected colours come from the formulas above with
/// the normal the test works out; the colour of the tangent left unturned
/// (and of no normal texture) must not show. Drawn once turned from the
/// start (a posed copy uploaded) and once turned after a frame at rest
/// (the spare copy's vertices and tangents rewritten), then back at rest
/// by undo.
#[test]
fn a_posed_skin_turns_its_normal_texture_with_its_joint() {
    use nalgebra::UnitQuaternion;
    use viewport::editor::Editor;
    // The texel: a normal leaning -x and +y in tangent space, so that
    // the turned, the unturned and the unmapped normal face the sun apart.
    let (texel, decoded) = normal_texel([-0.5, 0.5, 0.7]);
    let m = Mat { base: [0.6, 0.5, 0.4], metallic: 0.0, roughness: 0.5, emissive: [0.0; 3] };
    let base = lighting(ToneMapping::Linear, 0.0);
    let l = Lighting { sun: base.sun.map(|s| Sun { illuminance: 3.0, ..s }), ..base };
    // The quarter turn about +z: (x, y, z) -> (-y, x, z).
    let quarter = |v: [f64; 3]| [-v[1], v[0], v[2]];
    // The lit normal in the tangent frame T, B (the normal is +z).
    let lit_normal = |t: [f64; 3], b: [f64; 3]| {
        normalized(std::array::from_fn(|k| t[k] * decoded[0] + b[k] * decoded[1] + [0.0, 0.0, decoded[2]][k]))
    };
    let depth = DepthMode::Reversed;
    let cases =
        [(Some([0.0, 1.0, 0.0, 1.0]), [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]), (None, [1.0, 0.0, 0.0], [0.0, -1.0, 0.0])];
    for (tangent, t, b) in cases {
        let quad = Quad { tangent, skinned: true, ..Quad::new([0.0; 3], 1.0, Some(0)) };
        let doc = normal_map_doc(&m, texel, quad, json!(1.0));
        let dir = tempfile::tempdir().unwrap();
        let path = doc.write(dir.path(), "skinned-normal.gltf");
        let rest = lit_normal(t, b);
        let turned = lit_normal(quarter(t), quarter(b));
        // Checks a frame against the normal `n`, and that `others` (with
        // what they are) do not show.
        let check = |shot: &RgbaImage, n: [f64; 3], others: &[([f64; 3], &str)], what: &str| {
            // The centre first: there every other colour must differ.
            for (k, p) in [[0.0, 0.0], [-0.6, 0.5], [0.6, -0.5]].into_iter().enumerate() {
                let (px, py) = project(&camera(), depth, W, H, Point3::new(p[0], p[1], 0.0));
                let (px, py) = (px as u32, py as u32);
                let q = surface_point(depth, px, py);
                let want = expected_with_normal(&m, q, &l, n).map(to_srgb);
                let got = shot.pixel(px, py);
                let close = |a: [u8; 3]| (0..3).all(|k| (i32::from(got[k]) - i32::from(a[k])).abs() <= 3);
                assert!(close(want), "{tangent:?} {what} at {p:?}: pixel {got:?}, want {want:?}");
                for (other, name) in others {
                    let o = expected_with_normal(&m, q, &l, *other).map(to_srgb);
                    let apart = (0..3).any(|k| want[k].abs_diff(o[k]) > 8);
                    assert!(k > 0 || apart, "{tangent:?} {what}: the {name} colour {o:?} is too near {want:?}");
                    assert!(!apart || !close(o), "{tangent:?} {what} at {p:?}: {got:?} is the {name} colour {o:?}");
                }
            }
        };
        let shoot = |r: &mut viewport::render::Renderer, meshes: &mut SceneMeshes, editor: &Editor| {
            meshes.pose_skins(r, editor).unwrap();
            let (mut frame, _) = meshes.editor_frame(editor);
            frame.overlay.clear();
            r.draw(&frame).unwrap();
            r.read_color().unwrap()
        };
        let turn = |editor: &mut Editor| {
            let bone = editor.scene().find("bone0").unwrap();
            let before = editor.scene().objects()[bone].transform;
            let rotation = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2);
            assert!(editor.commit_transform(bone, before, viewport::math::Transform { rotation, ..before }));
        };
        let flat = [0.0, 0.0, 1.0];
        for turn_first in [true, false] {
            let (mut editor, loaded) = open_editor_for(open_scene(Some(&path)).unwrap(), (W, H), depth).unwrap();
            editor.camera = camera();
            editor.lighting = l;
            let mut r = renderer(W, H);
            let mut meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
            if turn_first {
                turn(&mut editor);
                let shot = shoot(&mut r, &mut meshes, &editor);
                check(&shot, turned, &[(rest, "unturned tangent"), (flat, "unmapped")], "turned, uploaded");
            } else {
                let shot = shoot(&mut r, &mut meshes, &editor);
                check(&shot, rest, &[(turned, "turned tangent"), (flat, "unmapped")], "at rest, uploaded");
                turn(&mut editor);
                let shot = shoot(&mut r, &mut meshes, &editor);
                check(&shot, turned, &[(rest, "unturned tangent"), (flat, "unmapped")], "turned, rewritten");
                assert!(editor.undo());
                let shot = shoot(&mut r, &mut meshes, &editor);
                check(&shot, rest, &[(turned, "turned tangent")], "at rest again, rewritten");
            }
            assert_no_validation_errors(&r);
        }
    }
}

/// A frame of `path` as the editor draws it (its lights placed by their
/// objects), with `lighting`.
fn shoot_editor(path: &std::path::Path, lighting: &Lighting) -> RgbaImage {
    let (mut editor, loaded) = open_editor_for(open_scene(Some(path)).unwrap(), (W, H), DepthMode::Reversed).unwrap();
    editor.camera = camera();
    editor.lighting = *lighting;
    let mut r = renderer(W, H);
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let (mut frame, _) = meshes.editor_frame(&editor);
    frame.overlay.clear();
    r.draw(&frame).unwrap();
    let image = r.read_color().unwrap();
    assert_no_validation_errors(&r);
    image
}

/// `"scene_lights": true` lights the material mode with the file's
/// `KHR_lights_punctual` lights in place of the sun, as the extension
/// defines them: a point light's candela over the squared distance (with
/// the range's window `clamp(1 - (d / range)^4, 0, 1)`), a spot's cone
/// attenuation `clamp(cos x scale + offset, 0, 1)^2` from its inner and
/// outer angles, a directional light's lux along its node's -Z. Expected
/// colours: the formulas above with, per pixel, a sun standing in for the
/// light (direction and illuminance the test works out). Off, the sun
/// lights the scene and the lights do nothing.
#[test]
fn scene_lights_light_the_scene_as_khr_lights_punctual_defines_them() {
    let m = Mat { base: [0.7, 0.6, 0.5], metallic: 0.0, roughness: 0.6, emissive: [0.0; 3] };
    let dark = Lighting {
        environment_color: [0.0; 3],
        scene_lights: viewport::look::SceneLights::On,
        ..lighting(ToneMapping::Linear, 0.0)
    };
    // (light JSON, node translation, node rotation)
    let tilt = (0.35f32 / 2.0).sin_cos(); // 0.35 rad about +x
    let cases = [
        (
            json!({"type": "point", "intensity": 6.0, "color": [1.0, 0.9, 0.8]}),
            [0.3f32, -0.2, 1.6],
            [0.0f32, 0.0, 0.0, 1.0],
        ),
        (json!({"type": "point", "intensity": 9.0, "range": 2.2}), [-0.2, 0.1, 1.5], [0.0, 0.0, 0.0, 1.0]),
        (
            json!({"type": "spot", "intensity": 12.0, "spot": {"innerConeAngle": 0.15, "outerConeAngle": 0.45}}),
            [0.0, 0.0, 2.0],
            [0.0, 0.0, 0.0, 1.0],
        ),
        (json!({"type": "directional", "intensity": 2.5}), [0.0, 0.0, 5.0], [tilt.0, 0.0, 0.0, tilt.1]),
    ];
    for (light, t, q) in cases {
        let doc = Doc {
            quads: vec![Quad::new([0.0; 3], 1.0, Some(0))],
            materials: vec![m.json()],
            lights: vec![(light.clone(), t, q)],
            ..Doc::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let path = doc.write(dir.path(), "lights.gltf");
        let shot = shoot_editor(&path, &dark);
        let kind = light["type"].as_str().unwrap();
        let intensity = light["intensity"].as_f64().unwrap();
        let colour: [f64; 3] = match light.get("color") {
            Some(c) => [0, 1, 2].map(|k| c[k].as_f64().unwrap()),
            None => [1.0; 3],
        };
        // The node's -Z turned by its rotation (about +x by the test's angle).
        let (s, c) = (2.0 * f64::from(tilt.0) * f64::from(tilt.1), 1.0 - 2.0 * f64::from(tilt.0).powi(2));
        let travel = if kind == "directional" { [0.0, s, -c] } else { [0.0, 0.0, -1.0] };
        let mut lit = 0;
        for p in [[0.0, 0.0], [-0.6, 0.5], [0.6, -0.5], [0.8, 0.7], [-0.75, -0.7]] {
            let (px, py) = project(&camera(), DepthMode::Reversed, W, H, Point3::new(p[0], p[1], 0.0));
            let (px, py) = (px as u32, py as u32);
            let at = surface_point(DepthMode::Reversed, px, py);
            let pos = t.map(f64::from);
            let to = [pos[0] - at[0], pos[1] - at[1], pos[2] - at[2]];
            let d2 = dot(to, to);
            let (towards, e) = match kind {
                "directional" => (travel.map(|v| -v), intensity),
                _ => {
                    let l = normalized(to);
                    let mut e = intensity / d2;
                    if let Some(r) = light.get("range").and_then(|r| r.as_f64()) {
                        e *= (1.0 - (d2 / (r * r)).powi(2)).clamp(0.0, 1.0);
                    }
                    if kind == "spot" {
                        let (inner, outer): (f64, f64) = (0.15, 0.45);
                        let scale = 1.0 / (inner.cos() - outer.cos()).max(0.001);
                        let cd = dot(travel, l.map(|v| -v));
                        let a = (cd * scale - outer.cos() * scale).clamp(0.0, 1.0);
                        e *= a * a;
                    }
                    (l, e)
                }
            };
            let stand_in = Lighting {
                sun: Some(Sun {
                    direction: towards.map(|v| -v),
                    color: colour.map(|c| c as f32),
                    illuminance: e as f32,
                }),
                scene_lights: viewport::look::SceneLights::Off,
                ..dark
            };
            let want = expected_with_normal(&m, at, &stand_in, [0.0, 0.0, 1.0]).map(to_srgb);
            let got = shot.pixel(px, py);
            assert!(
                (0..3).all(|k| (i32::from(got[k]) - i32::from(want[k])).abs() <= 3),
                "{kind}: pixel ({px}, {py}) {got:?}, want {want:?}"
            );
            lit += usize::from(want.iter().any(|&v| v > 20));
        }
        assert!(lit >= 2, "{kind}: the light reaches the samples");
    }
    // Off: the file's lights do nothing; the sun lights as before.
    let doc = Doc {
        quads: vec![Quad::new([0.0; 3], 1.0, Some(0))],
        materials: vec![m.json()],
        lights: vec![(json!({"type": "point", "intensity": 50.0}), [0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0])],
        ..Doc::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = doc.write(dir.path(), "lights.gltf");
    let sun = Lighting { scene_lights: viewport::look::SceneLights::Off, ..dark };
    let shot = shoot_editor(&path, &sun);
    let (px, py) = project(&camera(), DepthMode::Reversed, W, H, Point3::new(0.0, 0.0, 0.0));
    let want = expected(&m, surface_point(DepthMode::Reversed, px as u32, py as u32), &sun);
    let got = shot.pixel(px as u32, py as u32);
    assert!((0..3).all(|k| (i32::from(got[k]) - i32::from(want[k])).abs() <= 3), "off: {got:?} vs {want:?}");
}

/// A light object's icon (a small sun) is always drawn, in the object's
/// colour, or the active object's outline colour while it is the active
/// object (with the empty's axis cross); hidden or deleted, it is gone.
#[test]
fn a_light_shows_its_icon_always_and_in_the_selection_colour_when_selected() {
    let light_at = [0.3f32, -0.2, 1.6];
    let doc = Doc {
        quads: vec![Quad::new([0.0; 3], 1.0, None)],
        lights: vec![(json!({"type": "point", "intensity": 6.0}), light_at, [0.0, 0.0, 0.0, 1.0])],
        ..Doc::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = doc.write(dir.path(), "light.gltf");
    let (mut editor, loaded) = open_editor_for(open_scene(Some(&path)).unwrap(), (W, H), DepthMode::Reversed).unwrap();
    editor.camera = camera();
    let mut r = renderer(W, H);
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let light = (0..editor.scene().objects().len())
        .find(|&i| editor.scene().objects()[i].mesh == viewport::scene::MeshRef::Empty)
        .expect("the light's node is an empty");
    let overlay = |editor: &viewport::editor::Editor| meshes.editor_frame(editor).0.overlay;
    // Away from the cursor and unselected: the icon, in the object's colour.
    let c = editor.scene().objects()[light].color;
    let shown = overlay(&editor);
    assert!(!shown.is_empty());
    assert!(shown.iter().all(|i| i.color == [c[0], c[1], c[2], 1.0]), "{:?}", shown[0].color);
    // Selected (the active object): the active outline's colour, and the
    // empty's axis cross besides.
    editor.set_selection(&[light]);
    let selected = overlay(&editor);
    assert!(selected.len() > shown.len(), "the icon and the axis cross");
    let active = [1.0, 0.85, 0.3, 1.0];
    assert_eq!(selected.iter().filter(|i| i.color == active).count(), shown.len());
    // Hidden: nothing.
    assert!(editor.hide_selected());
    assert!(overlay(&editor).is_empty());
    // Shown again (and selected, as Alt+H does) it shows; deleted, it is gone.
    assert!(editor.unhide_all());
    assert_eq!(overlay(&editor).len(), selected.len());
    assert!(editor.delete());
    assert!(overlay(&editor).is_empty());
    assert_no_validation_errors(&r);
}
