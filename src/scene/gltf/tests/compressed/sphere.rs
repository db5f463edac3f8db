//! The UV sphere the Draco tests encode, and its plain (uncompressed)
//! file and loaded form.

use super::*;

/// A UV sphere around the point the pictures look at, with unit normals,
/// UVs over the whole texture and per-vertex colours (bytes): every
/// vertex distinct (the seam's and the poles' by their UVs).
pub(super) struct Sphere {
    pub(super) positions: Vec<[f32; 3]>,
    pub(super) normals: Vec<[f32; 3]>,
    pub(super) uvs: Vec<[f32; 2]>,
    pub(super) colors: Vec<[u8; 4]>,
    pub(super) triangles: Vec<[u32; 3]>,
}

pub(super) fn sphere() -> Sphere {
    const SEGMENTS: u32 = 16;
    const RINGS: u32 = 10;
    let centre = [0.375f32, 0.625, 0.0];
    let mut s = Sphere { positions: vec![], normals: vec![], uvs: vec![], colors: vec![], triangles: vec![] };
    for r in 0..=RINGS {
        for k in 0..=SEGMENTS {
            let theta = std::f32::consts::PI * r as f32 / RINGS as f32;
            let phi = std::f32::consts::TAU * k as f32 / SEGMENTS as f32;
            // Longitude 0 faces +z (the camera); the poles are on y.
            let n = [theta.sin() * phi.sin(), theta.cos(), theta.sin() * phi.cos()];
            s.positions.push([centre[0] + n[0], centre[1] + n[1], centre[2] + n[2]]);
            s.normals.push(n);
            // Pole vertices sit mid-segment in u, so that none share UVs.
            let pole = r == 0 || r == RINGS;
            let u = (k as f32 + if pole { 0.5 } else { 0.0 }) / SEGMENTS as f32;
            s.uvs.push([u.min(1.0), r as f32 / RINGS as f32]);
            s.colors.push([255 - (k * 5) as u8, 200 + (r * 5) as u8, 150 + (k * 6) as u8, 255]);
        }
    }
    for r in 0..RINGS {
        for k in 0..SEGMENTS {
            // a b above c d, seen from outside: a c d and a d b wind
            // counter-clockwise; the poles' degenerate halves are left out.
            let a = r * (SEGMENTS + 1) + k;
            let (b, c, d) = (a + 1, a + SEGMENTS + 1, a + SEGMENTS + 2);
            if r + 1 < RINGS {
                s.triangles.push([a, c, d]);
            }
            if r > 0 {
                s.triangles.push([a, d, b]);
            }
        }
    }
    s
}

/// The textured material of the sphere files (the `texels` image).
pub(super) fn with_texture(mut f: Value) -> Value {
    let (w, h, rgba) = texels();
    f["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    f["textures"] = json!([{"source": 0}]);
    f["images"] = json!([{"uri": data_uri("image/png", &encode_png(w, h, &rgba))}]);
    f
}

/// The sphere as a plain file: float positions, normals and UVs, colours
/// as normalized bytes, 16-bit indices; the POSITION bounds declared.
pub(super) fn plain_sphere(s: &Sphere) -> Value {
    let mut bin = Bin::default();
    let p = bin.floats(&s.positions, "VEC3");
    let (n, uv) = (bin.floats(&s.normals, "VEC3"), bin.floats(&s.uvs, "VEC2"));
    let view = bin.view(s.colors.as_flattened(), None);
    let c = bin.accessor(view, 5121, true, s.colors.len(), "VEC4");
    let indices: Vec<u8> = s.triangles.iter().flatten().flat_map(|&i| (i as u16).to_le_bytes()).collect();
    let view = bin.view(&indices, None);
    let i = bin.accessor(view, 5123, false, indices.len() / 2, "SCALAR");
    let (min, max) = bounds(&s.positions);
    bin.accessors[p]["min"] = json!(min);
    bin.accessors[p]["max"] = json!(max);
    let primitive = json!({"attributes": {"POSITION": p, "NORMAL": n, "TEXCOORD_0": uv, "COLOR_0": c},
        "indices": i, "material": 0});
    with_texture(file(&bin, json!({"mesh": 0}), primitive))
}

pub(super) fn bounds(v: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let pick = |f: fn(f32, f32) -> f32, start: f32| std::array::from_fn(|k| v.iter().map(|p| p[k]).fold(start, f));
    (pick(f32::min, f32::INFINITY), pick(f32::max, f32::NEG_INFINITY))
}

/// The loaded sphere: merged positions, normals, UVs, colours, triangles.
pub(super) type Loaded = (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<[f32; 2]>, Vec<[f32; 4]>, Vec<[u32; 3]>);

pub(super) fn load_sphere(path: &Path) -> Loaded {
    let file = GltfFile::read(path).unwrap();
    assert!(file.problems.is_empty(), "{}: {:?}", path.display(), file.problems);
    let (mesh, surface) = file.merged_with_surface().unwrap();
    let triangles = mesh.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    (mesh.positions, mesh.normals, surface.uvs, surface.colors, triangles)
}
