//! glTF materials drawn headless (`docs/spec/assets.md`, "What is drawn"): base
//! colour textures (sRGB, the texture's `texCoord` set, NEAREST sampling)
//! from side files, data URIs and GLB buffer views; factor x COLOR_0; unlit
//! and lit; MASK cutting colour, id and depth; BLEND over opaque geometry
//! without depth writes; CPU picking goes through MASK holes as the id
//! buffer does. Each test writes its own glTF; expected pixels are
//! computed here from the texels and factors written, with the sRGB curve
//! and the lighting formula restated. Validation is on and must stay silent.

use crate::support::gpu::{assert_no_validation_errors, project, renderer_with_samples};
use crate::support::textured::{close, lit, png_rgba, quadrants, to_linear, to_srgb, unlit, Doc, Image, ImageAt, Quad};
use nalgebra::{Point2, Point3, Vector3};
use serde_json::json;
use std::path::Path;
use viewport::app::open::{open_editor_for, open_scene};
use viewport::draw::SceneMeshes;
use viewport::editor::Editor;
use viewport::math::{Camera, DepthMode, Projection};
use viewport::render::{FrameDesc, RgbaImage};

const W: u32 = 160;
const H: u32 = 120;

/// Texel colours of the quadrant texture: top-left, top-right, bottom-left,
/// bottom-right.
const TEXELS: [[u8; 4]; 4] = [[200, 30, 40, 255], [20, 180, 60, 255], [30, 60, 220, 255], [240, 220, 20, 255]];

fn camera() -> Camera {
    Camera {
        eye: Point3::new(0.0, 0.0, 4.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.1, far: 100.0 },
    }
}

/// What one frame of a glTF file shows from [`camera`]: colour, ids, depth.
struct Shot {
    color: RgbaImage,
    ids: Vec<u32>,
    depth: Vec<f32>,
    /// The editor over the same file, looking through [`camera`].
    editor: Editor,
}

impl Shot {
    /// Pixel at the projection of world point (x, y, z).
    fn at(&self, p: [f64; 3]) -> (u32, u32) {
        let (x, y) = project(&camera(), DepthMode::Reversed, W, H, Point3::new(p[0], p[1], p[2]));
        assert!(x >= 0.0 && y >= 0.0 && x < f64::from(W) && y < f64::from(H), "{p:?} is off the image");
        (x as u32, y as u32)
    }
    fn color(&self, p: [f64; 3]) -> [u8; 4] {
        let (x, y) = self.at(p);
        self.color.pixel(x, y)
    }
    fn id(&self, p: [f64; 3]) -> u32 {
        let (x, y) = self.at(p);
        self.ids[(y * W + x) as usize]
    }
    fn depth(&self, p: [f64; 3]) -> f32 {
        let (x, y) = self.at(p);
        self.depth[(y * W + x) as usize]
    }
    /// The object CPU picking finds under the centre of that pixel.
    fn picked(&self, p: [f64; 3]) -> Option<usize> {
        let (x, y) = self.at(p);
        self.editor.surface_at(Point2::new(f64::from(x) + 0.5, f64::from(y) + 0.5), |_| true).map(|(i, _)| i)
    }
}

/// Opens `path` as the viewport does, draws one frame in the solid shading
/// mode without the grid and checks the validation layer stayed silent.
fn shoot(path: &Path) -> Shot {
    shoot_with(path, 1)
}

/// As [`shoot`], with `samples` MSAA samples per pixel (the ids and depth
/// then come from the single-sample ids pass and its own shader).
fn shoot_with(path: &Path, samples: u32) -> Shot {
    shoot_lit(path, samples, |l| l.shading = viewport::look::Shading::Solid)
}

/// As [`shoot_with`], the frame's lighting set by `light`.
fn shoot_lit(path: &Path, samples: u32, light: impl FnOnce(&mut viewport::look::Lighting)) -> Shot {
    let opened = open_scene(Some(path)).expect("the glTF opens");
    let (mut editor, loaded) = open_editor_for(opened, (W, H), DepthMode::Reversed).expect("its meshes load");
    editor.camera = camera();
    assert!(loaded.warnings().is_empty(), "{:?}", loaded.warnings());
    let mut r = renderer_with_samples(W, H, samples);
    assert_eq!(r.device_info().samples, samples);
    let meshes = SceneMeshes::upload_loaded(&mut r, &loaded).expect("upload");
    let (mut frame, _) = meshes.frame(editor.scene(), camera(), DepthMode::Reversed, &[], (W, H));
    frame.grid = false;
    // `assets.md`'s look, "with today's lighting": the solid shading mode
    // (the material mode has its own tests, `pbr.rs`), unless told otherwise.
    light(&mut frame.lighting);
    r.draw(&frame).expect("draw");
    let shot =
        Shot { color: r.read_color().unwrap(), ids: r.read_ids().unwrap(), depth: r.read_depth().unwrap(), editor };
    assert_no_validation_errors(&r);
    shot
}

fn nearest() -> serde_json::Value {
    json!({"magFilter": 9728, "minFilter": 9728, "wrapS": 33071, "wrapT": 33071})
}

/// World centres of the quadrants of a quad of half size 1 at the origin,
/// in the texture's quadrant order.
const CENTRES: [[f64; 3]; 4] = [[-0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [-0.5, -0.5, 0.0], [0.5, -0.5, 0.0]];

/// One quad with one textured material, its UVs in `TEXCOORD_1` (set 0 is
/// a decoy that reads one texel everywhere).
fn textured_doc(material: serde_json::Value, at: ImageAt) -> Doc {
    Doc {
        quads: vec![Quad { uv_set: 1, ..Quad::new([0.0; 3], 1.0, Some(0)) }],
        materials: vec![material],
        textures: vec![json!({"source": 0, "sampler": 0})],
        samplers: vec![nearest()],
        images: vec![Image { bytes: Some(quadrants(4, TEXELS)), at }],
        lights: vec![],
    }
}

#[test]
fn an_unlit_textured_quad_shows_its_texels_from_the_named_uv_set() {
    let dir = tempfile::tempdir().unwrap();
    let doc = textured_doc(unlit([1.0; 4], Some((0, 1))), ImageAt::File("quadrants.png".into()));
    let shot = shoot(&doc.write(dir.path(), "textured.gltf"));
    for (centre, texel) in CENTRES.iter().zip(TEXELS) {
        let got = shot.color(*centre);
        assert!(close(got, [texel[0], texel[1], texel[2]], 1), "at {centre:?}: got {got:?}, texel {texel:?}");
        assert_eq!(shot.id(*centre), 1);
    }
}

/// A texture reading `TEXCOORD_3` (sets 0 to 2 are decoys of one texel)
/// shows its texels: the sets a material reads are loaded into the mesh's
/// UV streams, whatever their numbers.
#[test]
fn a_texture_of_a_higher_uv_set_shows_its_texels() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = textured_doc(unlit([1.0; 4], Some((0, 3))), ImageAt::DataUri);
    doc.quads[0].uv_set = 3;
    let shot = shoot(&doc.write(dir.path(), "set3.gltf"));
    for (centre, texel) in CENTRES.iter().zip(TEXELS) {
        let got = shot.color(*centre);
        assert!(close(got, [texel[0], texel[1], texel[2]], 1), "at {centre:?}: got {got:?}, texel {texel:?}");
    }
}

#[test]
fn a_lit_textured_quad_is_its_texels_times_the_lighting() {
    let dir = tempfile::tempdir().unwrap();
    let doc = textured_doc(lit([1.0; 4], Some((0, 1))), ImageAt::DataUri);
    let shot = shoot(&doc.write(dir.path(), "lit.gltf"));
    // The quad faces the camera (view space +z); the light comes from
    // (0.35, 0.8, 0.5) in world space, which is view space here (the
    // camera only moved along z): 30 % ambient + 70 % diffuse.
    let light = Vector3::new(0.35, 0.8, 0.5).normalize();
    let shade = 0.3 + 0.7 * light.z;
    for (centre, texel) in CENTRES.iter().zip(TEXELS) {
        let want = [0, 1, 2].map(|i| to_srgb(to_linear(texel[i]) * shade));
        let got = shot.color(*centre);
        assert!(close(got, want, 3), "at {centre:?}: got {got:?}, want {want:?}");
        // Clearly darker than unlit: the lighting is applied.
        assert!(got[..3].iter().zip(&texel[..3]).all(|(g, t)| *g < *t || *t < 40));
    }
}

#[test]
fn factor_vertex_colour_and_texture_multiply_in_a_glb() {
    let dir = tempfile::tempdir().unwrap();
    let factor = [0.5, 0.8, 0.25, 1.0];
    let vertex = [0.6, 0.5, 1.0, 1.0];
    let doc = Doc {
        quads: vec![
            // Left: factor x COLOR_0, no texture.
            Quad { color: Some(vertex), ..Quad::new([-1.1, 0.0, 0.0], 0.9, Some(0)) },
            // Right: factor x texture (embedded in the GLB's binary chunk).
            Quad::new([1.1, 0.0, 0.0], 0.9, Some(1)),
        ],
        materials: vec![unlit(factor, None), unlit(factor, Some((0, 0)))],
        textures: vec![json!({"source": 0, "sampler": 0})],
        samplers: vec![nearest()],
        images: vec![Image { bytes: Some(quadrants(4, TEXELS)), at: ImageAt::BufferView }],
        lights: vec![],
    };
    let shot = shoot(&doc.write(dir.path(), "factors.glb"));
    let want: [u8; 3] = std::array::from_fn(|i| to_srgb(f64::from(factor[i]) * f64::from(vertex[i])));
    let got = shot.color([-1.1, 0.0, 0.0]);
    assert!(close(got, want, 1), "factor x COLOR_0: got {got:?}, want {want:?}");
    assert_eq!(shot.id([-1.1, 0.0, 0.0]), 1);
    // The right quad's top-left quadrant (half size 0.9).
    let p = [1.1 - 0.45, 0.45, 0.0];
    let texel = TEXELS[0];
    let want: [u8; 3] = std::array::from_fn(|i| to_srgb(to_linear(texel[i]) * f64::from(factor[i])));
    let got = shot.color(p);
    assert!(close(got, want, 1), "factor x texture: got {got:?}, want {want:?}");
    assert_eq!(shot.id(p), 2);
}

#[test]
fn mask_cuts_texels_below_the_cutoff_out_of_colour_ids_depth_and_picking() {
    let dir = tempfile::tempdir().unwrap();
    // Alphas: 140 and 255 stay (>= 0.5), 100 and 40 are cut.
    let mut texels = TEXELS;
    for (t, a) in texels.iter_mut().zip([140, 255, 100, 40]) {
        t[3] = a;
    }
    let mut material = unlit([1.0; 4], Some((0, 0)));
    material["alphaMode"] = json!("MASK");
    let doc = Doc {
        quads: vec![Quad::new([0.0; 3], 1.0, Some(0))],
        materials: vec![material],
        textures: vec![json!({"source": 0, "sampler": 0})],
        samplers: vec![nearest()],
        images: vec![Image { bytes: Some(quadrants(4, texels)), at: ImageAt::File("mask.png".into()) }],
        lights: vec![],
    };
    let path = doc.write(dir.path(), "mask.gltf");
    let background = FrameDesc::BACKGROUND.map(|c| to_srgb(f64::from(c)));
    let clear = DepthMode::Reversed.clear_depth();
    // With 4x MSAA the ids and depth come from the ids pass's own shader,
    // which must cut the same texels.
    for samples in [1, 4] {
        let shot = shoot_with(&path, samples);
        for (i, (centre, texel)) in CENTRES.iter().zip(texels).enumerate() {
            let got = shot.color(*centre);
            if texel[3] >= 128 {
                assert!(close(got, [texel[0], texel[1], texel[2]], 1), "kept quadrant {i}: {got:?}");
                assert_eq!(shot.id(*centre), 1, "kept quadrant {i}");
                assert_ne!(shot.depth(*centre), clear, "kept quadrant {i}");
                assert_eq!(shot.picked(*centre), Some(0), "a click on kept quadrant {i}");
            } else {
                assert!(close(got, background, 1), "cut quadrant {i} shows {got:?}, not the background");
                assert_eq!(shot.id(*centre), 0, "cut quadrant {i} wrote its id");
                assert_eq!(shot.depth(*centre), clear, "cut quadrant {i} wrote depth");
                assert_eq!(shot.picked(*centre), None, "a click on cut quadrant {i} picked the quad");
            }
        }
    }
}

#[test]
fn blend_mixes_a_half_transparent_quad_over_an_opaque_one_without_writing_depth() {
    let dir = tempfile::tempdir().unwrap();
    let mut glass = unlit([0.0, 0.0, 1.0, 0.5], None);
    glass["alphaMode"] = json!("BLEND");
    // The glass comes first in the file: it is still drawn after the wall.
    let doc = Doc {
        quads: vec![Quad::new([0.0, 0.0, 0.5], 0.5, Some(0)), Quad::new([0.0; 3], 1.0, Some(1))],
        materials: vec![glass, unlit([1.0, 0.0, 0.0, 1.0], None)],
        ..Doc::default()
    };
    let path = doc.write(dir.path(), "blend.gltf");
    // With 4x MSAA the ids and depth come from the ids pass's own shader.
    for samples in [1, 4] {
        let shot = shoot_with(&path, samples);
        // Blending on an sRGB target happens on linear values.
        let half = to_srgb(0.5);
        let centre = [0.0, 0.0, 0.5];
        let got = shot.color(centre);
        assert!(close(got, [half, 0, half], 2), "glass over the wall: got {got:?}");
        let wall_only = [0.8, 0.8, 0.0];
        assert!(close(shot.color(wall_only), [255, 0, 0], 1));
        // The glass is what is seen (its id), but the depth is the wall's.
        assert_eq!(shot.id(centre), 1);
        assert_eq!(shot.id(wall_only), 2);
        let (behind, wall) = (shot.depth(centre), shot.depth(wall_only));
        assert!((behind - wall).abs() < 1e-6, "the blended quad wrote depth: {behind} vs the wall's {wall}");
    }
}

#[test]
fn wrap_modes_repeat_mirror_and_clamp_as_the_sampler_says() {
    let dir = tempfile::tempdir().unwrap();
    // UVs run 0..2 across each quad (half size 0.6, centres at x = -1.4, 0, 1.4):
    // the quad's quarter nearest (0, 0) shows the whole image, the others
    // show what the wrap mode makes of 1..2.
    let sampler = |wrap: u32| json!({"magFilter": 9728, "minFilter": 9728, "wrapS": wrap, "wrapT": wrap});
    let doc = Doc {
        quads: [-1.4, 0.0, 1.4]
            .iter()
            .enumerate()
            .map(|(i, &x)| Quad { uv_scale: 2.0, ..Quad::new([x, 0.0, 0.0], 0.6, Some(i)) })
            .collect(),
        materials: (0..3).map(|i| unlit([1.0; 4], Some((i, 0)))).collect(),
        textures: (0..3).map(|i| json!({"source": 0, "sampler": i})).collect(),
        samplers: vec![sampler(10497), sampler(33648), sampler(33071)],
        images: vec![Image { bytes: Some(quadrants(4, TEXELS)), at: ImageAt::File("q.png".into()) }],
        lights: vec![],
    };
    let shot = shoot(&doc.write(dir.path(), "wrap.gltf"));
    // A point of the quad at x0 with UV (u, v): u = (x - x0 + 0.6) / 0.6,
    // v = (0.6 - y) / 0.6.
    let at = |x0: f64, u: f64, v: f64| [x0 - 0.6 + 0.6 * u, 0.6 - 0.6 * v, 0.0];
    // (u, v) -> the texel quadrant each mode reads.
    let cases: [(f64, f64, [usize; 3]); 4] = [
        (0.25, 0.25, [0, 0, 0]),
        // u = 1.25: repeat reads 0.25 (left), mirror 0.75 (right), clamp the right edge.
        (1.25, 0.25, [0, 1, 1]),
        (1.25, 1.25, [0, 3, 3]),
        // u = 1.75: repeat 0.75 (right), mirror 0.25 (left), clamp the right edge.
        (1.75, 0.25, [1, 0, 1]),
    ];
    for (u, v, quadrant) in cases {
        for (mode, x0) in [-1.4, 0.0, 1.4].into_iter().enumerate() {
            let texel = TEXELS[quadrant[mode]];
            let got = shot.color(at(x0, u, v));
            assert!(
                close(got, [texel[0], texel[1], texel[2]], 1),
                "mode {mode} at uv ({u}, {v}): got {got:?}, want quadrant {}",
                quadrant[mode]
            );
        }
    }
}

#[test]
fn minified_textures_read_the_mip_levels_made_on_upload() {
    let dir = tempfile::tempdir().unwrap();
    // A 256 x 256 checkerboard of single black and white texels on a quad
    // about 10 pixels wide: trilinear filtering reads a small level, where
    // blits (in linear light) averaged the squares to 0.5; without mip
    // levels each pixel blends the few top-level texels around its centre
    // in sRGB-decoded light unevenly (162 on lavapipe, this test's mutant).
    let rgba: Vec<u8> =
        (0..256 * 256).flat_map(|i| if (i % 256 + i / 256) % 2 == 0 { [0, 0, 0, 255] } else { [255; 4] }).collect();
    let doc = Doc {
        quads: vec![Quad::new([0.0; 3], 0.15, Some(0))],
        materials: vec![unlit([1.0; 4], Some((0, 0)))],
        textures: vec![json!({"source": 0, "sampler": 0})],
        samplers: vec![json!({"magFilter": 9729, "minFilter": 9987})],
        images: vec![Image { bytes: Some(crate::support::textured::png_rgba(256, 256, &rgba)), at: ImageAt::DataUri }],
        lights: vec![],
    };
    let shot = shoot(&doc.write(dir.path(), "mips.gltf"));
    let grey = to_srgb(0.5);
    for p in [[0.0, 0.0, 0.0], [-0.08, 0.08, 0.0], [0.08, -0.08, 0.0]] {
        let got = shot.color(p);
        assert!(close(got, [grey; 3], 6), "at {p:?}: got {got:?}, want about {grey}");
    }
}

/// The point of the plane z = 0 that pixel (x, y)'s centre shows, from
/// [`camera`].
fn surface_point(x: u32, y: u32) -> [f64; 3] {
    let c = camera();
    let m = c.projection_matrix(f64::from(W) / f64::from(H), DepthMode::Reversed) * c.view_matrix();
    let inv = m.try_inverse().unwrap();
    let (nx, ny) = ((f64::from(x) + 0.5) * 2.0 / f64::from(W) - 1.0, (f64::from(y) + 0.5) * 2.0 / f64::from(H) - 1.0);
    let unproject = |z: f64| {
        let p = inv * nalgebra::Vector4::new(nx, ny, z, 1.0);
        Vector3::new(p.x / p.w, p.y / p.w, p.z / p.w)
    };
    let (a, b) = (unproject(0.2), unproject(0.8));
    let p = a + (b - a) * (-a.z / (b.z - a.z));
    [p.x, p.y, p.z]
}

/// `KHR_texture_transform` as its README defines it, restated here:
/// `T(offset) x R(rotation) x S(scale)` applied to (u, v, 1), the rotation
/// counter-clockwise in UV space (u right, v down), so u' = cos sx u +
/// sin sy v + ox and v' = -sin sx u + cos sy v + oy (the direction of the
/// extension's TextureTransformTest model).
fn khr_transform(offset: [f64; 2], rotation: f64, scale: [f64; 2], uv: [f64; 2]) -> [f64; 2] {
    let (su, sv) = (scale[0] * uv[0], scale[1] * uv[1]);
    let (s, c) = rotation.sin_cos();
    [c * su + s * sv + offset[0], -s * su + c * sv + offset[1]]
}

/// Every texture reads its own UV set through its own transform
/// (`docs/spec/materials.md`): a MASK material whose base colour texture
/// (a 2 x 2 alpha checker, TEXCOORD_0, one transform) cuts the quad, and
/// whose emissive texture (four colours, TEXCOORD_1 = (1 - u, v), another
/// transform with a rotation and an offset) colours what stays. The base
/// colour is black and there is no light, so a kept pixel is the emissive
/// texel alone. Each pixel's texels are computed here from its surface
/// point; colour, ids (also with 4x MSAA, the ids pass's own shader) and
/// CPU picking must agree.
#[test]
fn each_texture_reads_its_own_uv_set_through_its_own_transform() {
    let dir = tempfile::tempdir().unwrap();
    let (base_offset, base_rotation, base_scale) = ([0.25, 0.1], -0.4, [1.6, 1.3]);
    let (emissive_offset, emissive_rotation, emissive_scale) = ([0.3, -0.2], 0.6, [1.5, 1.2]);
    let material = json!({
        "pbrMetallicRoughness": {
            "baseColorFactor": [0.0, 0.0, 0.0, 1.0],
            "metallicFactor": 0.0,
            "roughnessFactor": 1.0,
            "baseColorTexture": {"index": 0, "texCoord": 0, "extensions": {"KHR_texture_transform": {
                "offset": base_offset, "rotation": base_rotation, "scale": base_scale}}},
        },
        "emissiveFactor": [1.0, 1.0, 1.0],
        "emissiveTexture": {"index": 1, "texCoord": 1, "extensions": {"KHR_texture_transform": {
            "offset": emissive_offset, "rotation": emissive_rotation, "scale": emissive_scale}}},
        "alphaMode": "MASK",
    });
    // Alpha checker: texels (0, 0) and (1, 1) opaque, the others clear.
    let checker = png_rgba(2, 2, &[[255, 255, 255, 255], [255, 255, 255, 0], [255, 255, 255, 0], [255; 4]].concat());
    let uv1 = [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
    let repeat_nearest = json!({"magFilter": 9728, "minFilter": 9728});
    let doc = Doc {
        quads: vec![Quad { uv1: Some(uv1), ..Quad::new([0.0; 3], 1.0, Some(0)) }],
        materials: vec![material],
        textures: vec![json!({"source": 0, "sampler": 0}), json!({"source": 1, "sampler": 0})],
        samplers: vec![repeat_nearest],
        images: vec![
            Image { bytes: Some(checker), at: ImageAt::DataUri },
            Image { bytes: Some(quadrants(2, TEXELS)), at: ImageAt::DataUri },
        ],
        lights: vec![],
    };
    let path = doc.write(dir.path(), "own_uvs.gltf");
    let mut text: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    text["extensionsUsed"] = json!(["KHR_texture_transform"]);
    std::fs::write(&path, text.to_string()).unwrap();
    let background = FrameDesc::BACKGROUND.map(|c| to_srgb(f64::from(c)));
    // Texel of a 2 x 2 repeating texture at `uv`, `None` near a texel edge.
    let texel = |uv: [f64; 2]| -> Option<(usize, usize)> {
        let f = uv.map(|c| c * 2.0);
        if f.iter().any(|c| (c - c.round()).abs() < 0.08) {
            return None;
        }
        let [x, y] = f.map(|c| (c.floor() as i64).rem_euclid(2) as usize);
        Some((x, y))
    };
    for samples in [1, 4] {
        let shot = shoot_lit(&path, samples, |l| {
            l.shading = viewport::look::Shading::Material;
            l.sun = None;
            l.environment_color = [0.0; 3];
            l.exposure_ev = 0.0;
            l.tone_mapping = viewport::look::ToneMapping::Linear;
            l.scene_lights = viewport::look::SceneLights::Off;
        });
        let (mut kept, mut cut, mut telling, mut bad) = (0, 0, 0, Vec::new());
        for y in 0..H {
            for x in 0..W {
                let p = surface_point(x, y);
                if p[0].abs() > 0.97 || p[1].abs() > 0.97 {
                    continue;
                }
                // The quad's UVs: set 0 (0, 0) at (-1, 1) to (1, 1) at (1, -1);
                // set 1 mirrored in u.
                let uv0 = [(p[0] + 1.0) / 2.0, (1.0 - p[1]) / 2.0];
                let uv1 = [1.0 - uv0[0], uv0[1]];
                let base = texel(khr_transform(base_offset, base_rotation, base_scale, uv0));
                let emissive = texel(khr_transform(emissive_offset, emissive_rotation, emissive_scale, uv1));
                let (Some(base), Some(emissive)) = (base, emissive) else { continue };
                let got = shot.color.pixel(x, y);
                let id = shot.ids[(y * W + x) as usize];
                let opaque = base.0 == base.1;
                if opaque {
                    kept += 1;
                    let want = TEXELS[emissive.1 * 2 + emissive.0];
                    // Had the emissive texture read the base colour's UVs:
                    let wrong = texel(khr_transform(base_offset, base_rotation, base_scale, uv0));
                    telling += usize::from(wrong.is_some_and(|w| w != emissive));
                    if !close(got, [want[0], want[1], want[2]], 2) || id != 1 {
                        bad.push(format!("kept ({x}, {y}) uv0 {uv0:.3?}: got {got:?} id {id}, want {want:?}"));
                    }
                } else {
                    cut += 1;
                    if !close(got, background, 1) || id != 0 {
                        bad.push(format!("cut ({x}, {y}) uv0 {uv0:.3?}: got {got:?} id {id}"));
                    }
                }
                // CPU picking goes through the same holes (every 7th pixel: it is slow).
                if (x + y) % 7 == 0 {
                    let picked = shot.editor.surface_at(Point2::new(f64::from(x) + 0.5, f64::from(y) + 0.5), |_| true);
                    if picked.map(|(i, _)| i) != opaque.then_some(0) {
                        bad.push(format!("pick ({x}, {y}): {picked:?}, opaque {opaque}"));
                    }
                }
            }
        }
        assert!(kept > 300 && cut > 300, "{samples} samples: {kept} kept and {cut} cut pixels checked");
        assert!(telling > kept / 3, "the test tells the UV sets apart: {telling} of {kept}");
        assert!(bad.is_empty(), "{samples} samples: {} wrong:\n{}", bad.len(), bad[..bad.len().min(20)].join("\n"));
    }
}
