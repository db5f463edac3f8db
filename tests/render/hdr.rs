//! Radiance `.hdr` environments (`docs/spec/materials.md`, "Lighting and
//! output"): files written here (plain RGBE scanlines, decoded here by the
//! format's own rule), drawn on quads of known materials facing known
//! ways. The expected colours come from this file's own sums over the
//! image's texels, each texel a direction by the spec's equirectangular
//! rule (restated here: the centre column looks along -Z, +X at u = 0.75,
//! +Y the top row) with its solid angle. Validation on and silent.

use crate::support::gpu::{assert_no_validation_errors, project, renderer};
use crate::support::textured::{to_srgb, Doc, Quad};
use nalgebra::{Point3, Vector3, Vector4};
use serde_json::json;
use std::f64::consts::PI;
use std::path::{Path, PathBuf};
use viewport::app::open::{open_editor_for, open_scene};
use viewport::draw::SceneMeshes;
use viewport::look::{Background, Environment, Lighting, LightingFile, Shading, Sun, ToneMapping};
use viewport::math::{Camera, DepthMode, Projection};
use viewport::render::{Renderer, RgbaImage};

const W: u32 = 160;
const H: u32 = 120;

/// Radiance (linear RGB) as the file stores it: one RGBE quadruple, a
/// shared power-of-two exponent (bytes x 2^(e - 136)).
fn rgbe(c: [f64; 3]) -> [u8; 4] {
    let m = c[0].max(c[1]).max(c[2]);
    if m < 1e-30 {
        return [0; 4];
    }
    // m = f x 2^e with f in [0.5, 1).
    let e = m.log2().floor() as i32 + 1;
    let scale = 256.0 / 2f64.powi(e);
    let b = c.map(|v| ((v * scale).floor() as i64).clamp(0, 255) as u8);
    [b[0], b[1], b[2], (e + 128) as u8]
}

fn from_rgbe(p: [u8; 4]) -> [f64; 3] {
    if p[3] == 0 {
        return [0.0; 3];
    }
    let k = 2f64.powi(i32::from(p[3]) - 136);
    [0, 1, 2].map(|i| f64::from(p[i]) * k)
}

/// The direction of texel (x, y)'s centre of a `w` x `h` image.
fn texel_direction(x: u32, y: u32, w: u32, h: u32) -> [f64; 3] {
    let u = (f64::from(x) + 0.5) / f64::from(w);
    let v = (f64::from(y) + 0.5) / f64::from(h);
    let (theta, phi) = (v * PI, (u - 0.5) * 2.0 * PI);
    [theta.sin() * phi.sin(), theta.cos(), -theta.sin() * phi.cos()]
}

/// An environment as this file sees it: per texel, its direction, solid
/// angle and the radiance the file holds.
struct Env {
    texels: Vec<([f64; 3], f64, [f64; 3])>,
}

/// Writes `path` (`w` x `h`, flat RGBE scanlines) with radiance `f(d)`
/// along each texel's direction; returns what the file holds.
fn write_hdr(path: &Path, w: u32, h: u32, f: impl Fn([f64; 3]) -> [f64; 3]) -> Env {
    let mut bytes = format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {h} +X {w}\n").into_bytes();
    let mut texels = Vec::new();
    for y in 0..h {
        let t0 = f64::from(y) / f64::from(h) * PI;
        let t1 = f64::from(y + 1) / f64::from(h) * PI;
        let omega = 2.0 * PI / f64::from(w) * (t0.cos() - t1.cos());
        for x in 0..w {
            let d = texel_direction(x, y, w, h);
            let p = rgbe(f(d));
            bytes.extend_from_slice(&p);
            texels.push((d, omega, from_rgbe(p)));
        }
    }
    std::fs::write(path, bytes).unwrap();
    Env { texels }
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalized(v: [f64; 3]) -> [f64; 3] {
    let n = dot(v, v).sqrt();
    v.map(|c| c / n)
}

/// A material: linear base colour, metallic, roughness (double-sided).
fn material(base: [f64; 3], metallic: f64, roughness: f64) -> serde_json::Value {
    json!({
        "pbrMetallicRoughness": {
            "baseColorFactor": [base[0], base[1], base[2], 1.0],
            "metallicFactor": metallic,
            "roughnessFactor": roughness,
        },
        "doubleSided": true,
    })
}

fn lighting(environment: Environment) -> Lighting {
    Lighting {
        shading: Shading::Material,
        environment,
        environment_color: [1.0; 3],
        environment_intensity: 1.0,
        sun: None,
        exposure_ev: 0.0,
        tone_mapping: ToneMapping::Linear,
        background: Background::Program,
        background_blur: 0.0,
        environment_rotation_deg: 0.0,
        shadows: false,
        shadow_distance: 100.0,
        grid: false,
        scene_lights: viewport::look::SceneLights::Off,
    }
}

/// The lighting of a `lighting` object naming `file` (as scripts and
/// `--lighting` read it).
fn hdr_lighting(file: &Path, over: &Lighting) -> Lighting {
    let l: LightingFile = serde_json::from_value(json!({ "environment": file })).unwrap();
    l.over(over).unwrap()
}

/// Draws `path` once per lighting, in one renderer (the environment changes
/// between frames), from `camera`.
fn shoot(path: &Path, depth: DepthMode, camera: Camera, lightings: &[Lighting]) -> Vec<RgbaImage> {
    let (editor, loaded) = open_editor_for(open_scene(Some(path)).unwrap(), (W, H), depth).unwrap();
    let mut r: Renderer = renderer(W, H);
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let (mut frame, _) = meshes.frame(editor.scene(), camera, depth, &[], (W, H));
    frame.grid = false;
    let mut out = Vec::new();
    for l in lightings {
        frame.lighting = *l;
        r.draw(&frame).unwrap();
        out.push(r.read_color().unwrap());
    }
    assert_no_validation_errors(&r);
    out
}

/// The largest per-channel difference between two images.
fn max_difference(a: &RgbaImage, b: &RgbaImage) -> i32 {
    let mut worst = 0;
    for y in 0..H {
        for x in 0..W {
            let (p, q) = (a.pixel(x, y), b.pixel(x, y));
            for k in 0..3 {
                worst = worst.max((i32::from(p[k]) - i32::from(q[k])).abs());
            }
        }
    }
    worst
}

fn front_camera() -> Camera {
    Camera {
        eye: Point3::new(1.2, 0.8, 3.5),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.1, far: 100.0 },
    }
}

#[test]
fn a_constant_file_draws_as_the_uniform_environment_of_its_radiance() {
    let dir = tempfile::tempdir().unwrap();
    // Half the radiance in the file, intensity 2: the same light.
    let radiance = [0.25, 0.5, 0.375];
    let env = write_hdr(&dir.path().join("grey.hdr"), 32, 16, |_| radiance);
    assert!(env.texels.iter().all(|t| t.2 == radiance), "exactly representable");
    let doc = Doc {
        quads: vec![
            Quad::new([-0.55, 0.0, 0.0], 0.5, Some(0)),
            Quad::new([0.55, 0.0, 0.0], 0.5, Some(1)),
            Quad::new([0.0, 0.0, -1.0], 2.0, Some(2)),
        ],
        materials: vec![
            // A rough dielectric, a smooth metal, a mirror behind them.
            material([0.6, 0.3, 0.15], 0.0, 0.9),
            material([0.7, 0.7, 0.75], 1.0, 0.3),
            material([0.9, 0.8, 0.7], 1.0, 0.0),
        ],
        ..Doc::default()
    };
    let path = doc.write(dir.path(), "quads.gltf");
    let sun = Some(Sun { direction: normalized([-0.3, -0.5, -1.0]), color: [1.0; 3], illuminance: 1.0 });
    let uniform =
        Lighting { environment_color: radiance.map(|c| (2.0 * c) as f32), sun, ..lighting(Environment::Uniform) };
    let hdr = hdr_lighting(
        &dir.path().join("grey.hdr"),
        &Lighting { environment_intensity: 2.0, sun, ..lighting(Environment::Studio) },
    );
    assert!(matches!(hdr.environment, Environment::Hdr(_)));
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let shots = shoot(&path, depth, front_camera(), &[uniform, hdr]);
        let worst = max_difference(&shots[0], &shots[1]);
        assert!(worst <= 3, "{depth:?}: pixels differ by up to {worst} levels");
        // The quads are there and lit (not the background).
        let (x, y) = project(&front_camera(), depth, W, H, Point3::new(-0.55, 0.0, 0.0));
        assert!(shots[1].pixel(x as u32, y as u32)[0] > 60);
    }
}

/// The pixel ray of pixel (x, y)'s centre: the eye and its unit direction.
fn pixel_ray(camera: &Camera, depth: DepthMode, x: u32, y: u32) -> ([f64; 3], [f64; 3]) {
    let m = camera.projection_matrix(f64::from(W) / f64::from(H), depth) * camera.view_matrix();
    let inv = m.try_inverse().unwrap();
    let nx = 2.0 * (f64::from(x) + 0.5) / f64::from(W) - 1.0;
    let ny = 2.0 * (f64::from(y) + 0.5) / f64::from(H) - 1.0;
    let unproject = |z: f64| {
        let p = inv * Vector4::new(nx, ny, z, 1.0);
        [p.x / p.w, p.y / p.w, p.z / p.w]
    };
    // Any depth of the pixel lies on its ray from the eye.
    let (a, e) = (unproject(0.5), camera.eye);
    ([e.x, e.y, e.z], normalized([a[0] - e.x, a[1] - e.y, a[2] - e.z]))
}

/// A quad at the origin facing `n` (one of the axes), and a camera in
/// front of it, a little off its axis.
fn facing(n: [f64; 3]) -> ([f32; 4], Camera) {
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let (rotation, side, up) = match n {
        [1.0, 0.0, 0.0] => ([0.0, s, 0.0, s], [0.0, 0.3, 0.4], Vector3::y()),
        [-1.0, 0.0, 0.0] => ([0.0, -s, 0.0, s], [0.0, 0.3, -0.4], Vector3::y()),
        [0.0, 0.0, 1.0] => ([0.0, 0.0, 0.0, 1.0], [0.4, 0.3, 0.0], Vector3::y()),
        [0.0, 0.0, -1.0] => ([0.0, 1.0, 0.0, 0.0], [-0.4, 0.3, 0.0], Vector3::y()),
        [0.0, 1.0, 0.0] => ([-s, 0.0, 0.0, s], [0.4, 0.0, 0.3], Vector3::z()),
        [0.0, -1.0, 0.0] => ([s, 0.0, 0.0, s], [0.4, 0.0, -0.3], Vector3::z()),
        _ => panic!("an axis"),
    };
    let eye = Point3::new(3.0 * n[0] + side[0], 3.0 * n[1] + side[1], 3.0 * n[2] + side[2]);
    let camera = Camera {
        eye,
        target: Point3::origin(),
        up,
        projection: Projection::Perspective { fov_y: 40f64.to_radians(), near: 0.1, far: 100.0 },
    };
    (rotation, camera)
}

/// Appendix B's GGX distribution x height-correlated visibility.
fn d_v(nh: f64, nl: f64, nv: f64, alpha: f64) -> f64 {
    let a2 = alpha * alpha;
    let k = nh * nh * (a2 - 1.0) + 1.0;
    let d = a2 / (PI * k * k);
    d * 0.5 / (nl * (nv * nv * (1.0 - a2) + a2).sqrt() + nv * (nl * nl * (1.0 - a2) + a2).sqrt())
}

/// The environment's light off a white rough dielectric (base 1, metallic
/// 0, roughness 1) of normal `n` seen along `v`: the diffuse term
/// `c_diff x` the cosine-weighted radiance over pi, plus the specular BRDF
/// (Schlick Fresnel, f0 0.04) against each texel's radiance, both as sums
/// over the file's texels.
fn rough_white(env: &Env, n: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    let nv = dot(n, v);
    let mut out = [0.0; 3];
    for (l, omega, radiance) in &env.texels {
        let nl = dot(n, *l);
        if nl <= 0.0 {
            continue;
        }
        let h = normalized([l[0] + v[0], l[1] + v[1], l[2] + v[2]]);
        let f = 0.04 + 0.96 * (1.0 - dot(v, h)).powi(5);
        let brdf = 1.0 / PI + f * d_v(dot(n, h), nl, nv, 1.0);
        for c in 0..3 {
            out[c] += radiance[c] * brdf * nl * omega;
        }
    }
    out
}

#[test]
fn diffuse_light_comes_from_the_side_of_the_file_a_quad_faces() {
    // Red from +X, green from above, blue from the front (-Z), dim
    // elsewhere: each face's mix tells where the image was placed.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sides.hdr");
    let env = write_hdr(&file, 64, 32, |d| {
        [
            if d[0] > 0.0 { 0.75 } else { 0.0625 },
            if d[1] > 0.0 { 0.75 } else { 0.0625 },
            if d[2] < 0.0 { 0.75 } else { 0.0625 },
        ]
    });
    let l = hdr_lighting(&file, &lighting(Environment::Studio));
    let mut bad = Vec::new();
    let normals: [[f64; 3]; 6] =
        [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0]];
    for (k, n) in normals.into_iter().enumerate() {
        let (rotation, camera) = facing(n);
        let quad = Quad { rotation: Some(rotation), ..Quad::new([0.0; 3], 0.8, Some(0)) };
        let doc = Doc { quads: vec![quad], materials: vec![material([1.0; 3], 0.0, 1.0)], ..Doc::default() };
        let path = doc.write(dir.path(), &format!("face{k}.gltf"));
        let depth = if k % 2 == 0 { DepthMode::Reversed } else { DepthMode::Standard };
        let image = &shoot(&path, depth, camera, &[l])[0];
        let (cx, cy) = project(&camera, depth, W, H, Point3::origin());
        for (dx, dy) in [(0, 0), (-12, 8), (12, -8)] {
            let (x, y) = ((cx as i32 + dx) as u32, (cy as i32 + dy) as u32);
            let (_, ray) = pixel_ray(&camera, depth, x, y);
            let want = rough_white(&env, n, ray.map(|c| -c)).map(to_srgb);
            let got = image.pixel(x, y);
            if (0..3).any(|c| (i32::from(got[c]) - i32::from(want[c])).abs() > 3) {
                bad.push(format!("normal {n:?} pixel ({x}, {y}): got {got:?}, want {want:?}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_mirror_shows_the_file_in_the_reflected_direction() {
    // A smooth environment (linear in the direction: prefiltering and the
    // map's resolution barely matter), on white mirrors (metallic 1,
    // roughness 0: the reflected radiance itself, the split sum's A + B
    // being 1 for a mirror) facing four ways.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("smooth.hdr");
    let radiance = |d: [f64; 3]| [0.5 + 0.4 * d[0], 0.5 + 0.4 * d[1], 0.5 - 0.4 * d[2]];
    write_hdr(&file, 128, 64, radiance);
    let l = hdr_lighting(&file, &lighting(Environment::Studio));
    let mut bad = Vec::new();
    let normals: [[f64; 3]; 4] = [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]];
    for (k, n) in normals.into_iter().enumerate() {
        let (rotation, camera) = facing(n);
        let quad = Quad { rotation: Some(rotation), ..Quad::new([0.0; 3], 0.8, Some(0)) };
        let doc = Doc { quads: vec![quad], materials: vec![material([1.0; 3], 1.0, 0.0)], ..Doc::default() };
        let path = doc.write(dir.path(), &format!("mirror{k}.gltf"));
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            let image = &shoot(&path, depth, camera, &[l])[0];
            let (cx, cy) = project(&camera, depth, W, H, Point3::origin());
            for (dx, dy) in [(0, 0), (-15, 10), (15, -10), (15, 12)] {
                let (x, y) = ((cx as i32 + dx) as u32, (cy as i32 + dy) as u32);
                let (_, ray) = pixel_ray(&camera, depth, x, y);
                let k = 2.0 * dot(ray, n);
                let r = normalized([ray[0] - k * n[0], ray[1] - k * n[1], ray[2] - k * n[2]]);
                // Decoded as the file holds it (RGBE steps of 1/256).
                let want = from_rgbe(rgbe(radiance(r))).map(to_srgb);
                let got = image.pixel(x, y);
                if (0..3).any(|c| (i32::from(got[c]) - i32::from(want[c])).abs() > 3) {
                    bad.push(format!("{depth:?} normal {n:?} pixel ({x}, {y}) r {r:.3?}: got {got:?}, want {want:?}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn changing_the_environment_between_frames_rebinds_the_maps() {
    // One renderer: uniform, file A, file B, studio, file A again; each
    // file frame matches the uniform frame of the same radiance drawn in
    // the same renderer.
    let dir = tempfile::tempdir().unwrap();
    let (ra, rb) = ([0.5, 0.125, 0.0625], [0.0625, 0.25, 0.5]);
    let a: PathBuf = dir.path().join("a.hdr");
    let b: PathBuf = dir.path().join("b.hdr");
    write_hdr(&a, 16, 8, |_| ra);
    write_hdr(&b, 16, 8, |_| rb);
    let doc = Doc {
        quads: vec![Quad::new([-0.5, 0.0, 0.0], 0.45, Some(0)), Quad::new([0.5, 0.0, 0.0], 0.45, Some(1))],
        materials: vec![material([0.8, 0.8, 0.8], 0.0, 0.6), material([0.9, 0.9, 0.9], 1.0, 0.2)],
        ..Doc::default()
    };
    let path = doc.write(dir.path(), "two.gltf");
    let base = lighting(Environment::Studio);
    let uniform = |c: [f64; 3]| Lighting { environment_color: c.map(|v| v as f32), ..lighting(Environment::Uniform) };
    let (la, lb) = (hdr_lighting(&a, &base), hdr_lighting(&b, &base));
    assert_ne!(la.environment, lb.environment);
    // Read once: naming the file again gives the same environment.
    assert_eq!(hdr_lighting(&dir.path().join(".").join("a.hdr"), &base).environment, la.environment);
    let shots = shoot(&path, DepthMode::Reversed, front_camera(), &[uniform(ra), la, lb, base, la, uniform(rb)]);
    for (got, want, what) in [(1, 0, "A after uniform"), (2, 5, "B after A"), (4, 0, "A after studio")] {
        let worst = max_difference(&shots[got], &shots[want]);
        assert!(worst <= 3, "{what}: pixels differ by up to {worst} levels");
    }
    assert!(max_difference(&shots[1], &shots[2]) > 40, "A and B look different");
}

/// Draws `path` with `lighting` from `camera` in a renderer of `samples`
/// per pixel: the colour and the ids.
fn shoot_with_ids(path: &Path, depth: DepthMode, camera: Camera, l: &Lighting, samples: u32) -> (RgbaImage, Vec<u32>) {
    let (editor, loaded) = open_editor_for(open_scene(Some(path)).unwrap(), (W, H), depth).unwrap();
    let mut r: Renderer = crate::support::gpu::renderer_with_samples(W, H, samples);
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).unwrap();
    let (mut frame, _) = meshes.frame(editor.scene(), camera, depth, &[], (W, H));
    frame.grid = false;
    frame.lighting = *l;
    r.draw(&frame).unwrap();
    let out = (r.read_color().unwrap(), r.read_ids().unwrap());
    assert_no_validation_errors(&r);
    out
}

/// `d` turned back by 90 degrees about +Y: where a direction of the
/// environment turned by 90 degrees (-Z seen along -X) is read from.
fn turned_back(d: [f64; 3]) -> [f64; 3] {
    [-d[2], d[1], d[0]]
}

#[test]
fn the_environment_is_drawn_behind_the_scene_and_turns_with_its_light() {
    // A smooth file (prefiltering and resolution barely matter) behind a
    // small white mirror at the origin: each empty pixel shows the
    // radiance along its own ray, the mirror the radiance along the
    // reflected one; turned by 90 degrees, both read the file at the
    // direction turned back. Ids stay 0 behind, the mirror's where it is.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("smooth.hdr");
    let radiance = |d: [f64; 3]| [0.5 + 0.4 * d[0], 0.5 + 0.4 * d[1], 0.5 - 0.4 * d[2]];
    write_hdr(&file, 128, 64, radiance);
    let doc = Doc {
        quads: vec![Quad::new([0.0; 3], 0.3, Some(0))],
        materials: vec![material([1.0; 3], 1.0, 0.0)],
        ..Doc::default()
    };
    let path = doc.write(dir.path(), "mirror.gltf");
    let base = Lighting { background: Background::Environment, ..hdr_lighting(&file, &lighting(Environment::Studio)) };
    let camera = front_camera();
    let mut bad = Vec::new();
    let (mut behind, mut on_mirror) = (0, 0);
    for (turn, samples) in [(0.0, 1), (90.0, 1), (90.0, 4)] {
        let l = Lighting { environment_rotation_deg: turn, ..base };
        let read = |d: [f64; 3]| if turn == 0.0 { radiance(d) } else { radiance(turned_back(d)) };
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            let (image, ids) = shoot_with_ids(&path, depth, camera, &l, samples);
            for y in (3..H).step_by(9) {
                for x in (4..W).step_by(9) {
                    let (eye, ray) = pixel_ray(&camera, depth, x, y);
                    // Where the ray meets the quad's plane z = 0.
                    let t = -eye[2] / ray[2];
                    let (px, py) = (eye[0] + t * ray[0], eye[1] + t * ray[1]);
                    let inside = t > 0.0 && px.abs() < 0.28 && py.abs() < 0.28;
                    let outside = !(t > 0.0 && px.abs() < 0.33 && py.abs() < 0.33);
                    let id = ids[(y * W + x) as usize];
                    let want = if inside {
                        on_mirror += 1;
                        if id == 0 {
                            bad.push(format!("turn {turn} {depth:?}: mirror pixel ({x}, {y}) has id 0"));
                        }
                        let r = [ray[0], ray[1], -ray[2]];
                        from_rgbe(rgbe(read(r))).map(to_srgb)
                    } else if outside {
                        behind += 1;
                        if id != 0 {
                            bad.push(format!("turn {turn} {depth:?}: empty pixel ({x}, {y}) has id {id}"));
                        }
                        from_rgbe(rgbe(read(ray))).map(to_srgb)
                    } else {
                        continue;
                    };
                    let got = image.pixel(x, y);
                    if (0..3).any(|c| (i32::from(got[c]) - i32::from(want[c])).abs() > 3) {
                        bad.push(format!(
                            "turn {turn} x{samples} {depth:?} ({x}, {y}) ray {ray:.3?}: got {got:?}, want {want:?}"
                        ));
                    }
                }
            }
        }
    }
    assert!(behind > 500 && on_mirror > 20, "{behind} empty and {on_mirror} mirror pixels checked");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_studio_behind_follows_its_formula_with_exposure_and_blur_softens_a_file() {
    // Studio, exposure -1, linear: 0.5 x (0.6 + 0.4 y) along each ray.
    let dir = tempfile::tempdir().unwrap();
    let doc = Doc {
        quads: vec![Quad::new([0.0; 3], 0.3, Some(0))],
        materials: vec![material([1.0; 3], 0.0, 1.0)],
        ..Doc::default()
    };
    let path = doc.write(dir.path(), "quad.gltf");
    let camera = Camera { eye: Point3::new(0.0, 1.5, 3.0), ..front_camera() };
    let studio = Lighting { background: Background::Environment, exposure_ev: -1.0, ..lighting(Environment::Studio) };
    let (image, _) = shoot_with_ids(&path, DepthMode::Reversed, camera, &studio, 1);
    let mut checked = 0;
    for (x, y) in [(2, 2), (80, 3), (150, 10), (5, 110), (155, 117), (40, 60)] {
        let (_, ray) = pixel_ray(&camera, DepthMode::Reversed, x, y);
        let want = to_srgb(0.5 * (0.6 + 0.4 * ray[1]));
        let got = image.pixel(x, y);
        assert!((0..3).all(|c| (i32::from(got[c]) - i32::from(want)).abs() <= 2), "({x}, {y}): {got:?}, want {want}");
        checked += 1;
    }
    assert_eq!(checked, 6);
    // A checker of 16 x 8 cells (radiance 0.9 and 0.1): sharp, the empty
    // pixels differ widely; at blur 1 (the most blurred level) they come
    // close to the mean.
    let file = dir.path().join("checker.hdr");
    write_hdr(&file, 256, 128, |d| {
        let u = 0.5 + d[0].atan2(-d[2]) / (2.0 * PI);
        let v = d[1].clamp(-1.0, 1.0).acos() / PI;
        let odd = ((u * 16.0).floor() as i64 + (v * 8.0).floor() as i64) % 2 != 0;
        if odd {
            [0.9; 3]
        } else {
            [0.1; 3]
        }
    });
    let sharp = Lighting { background: Background::Environment, ..hdr_lighting(&file, &lighting(Environment::Studio)) };
    let spread = |l: &Lighting| {
        let (image, ids) = shoot_with_ids(&path, DepthMode::Reversed, camera, l, 1);
        let values: Vec<f64> = (0..H)
            .flat_map(|y| (0..W).map(move |x| (x, y)))
            .filter(|&(x, y)| ids[(y * W + x) as usize] == 0)
            .map(|(x, y)| f64::from(image.pixel(x, y)[0]))
            .collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64).sqrt()
    };
    let (s0, s1) = (spread(&sharp), spread(&Lighting { background_blur: 1.0, ..sharp }));
    assert!(s0 > 60.0, "a sharp checker spreads widely: {s0}");
    assert!(s1 < 0.25 * s0, "blurred {s1} against sharp {s0}");
}
