//! How a mesh's triangles look, as plain data: materials (base colour
//! factor and texture, alpha mode, unlit), samplers, decoded images, and the
//! per-vertex data that goes with them ([`Surface`]: the UV sets
//! `TEXCOORD_0` and `TEXCOORD_1`, `COLOR_0`). `scene::gltf` reads them from files, `draw` uploads them and
//! `render` draws them.

use std::sync::Arc;

/// How a material's alpha is used (glTF `alphaMode`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored, drawn opaque.
    Opaque,
    /// Fragments with alpha below the cutoff are cut away (no colour, depth
    /// or id); the rest is opaque.
    Mask(f32),
    /// Blended over what is behind, after the opaque geometry, without
    /// depth writes.
    Blend,
}

/// A texture filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    Nearest,
    Linear,
}

/// What texture coordinates outside 0..1 read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wrap {
    Repeat,
    MirroredRepeat,
    ClampToEdge,
}

/// A glTF sampler: filters and wrap modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerDesc {
    pub mag: Filter,
    pub min: Filter,
    /// Between mip levels; `None` reads the top level only.
    pub mipmap: Option<Filter>,
    pub wrap_u: Wrap,
    pub wrap_v: Wrap,
}

impl Default for SamplerDesc {
    /// What a texture without a sampler (or a sampler without filters) gets:
    /// trilinear, repeating.
    fn default() -> SamplerDesc {
        SamplerDesc {
            mag: Filter::Linear,
            min: Filter::Linear,
            mipmap: Some(Filter::Linear),
            wrap_u: Wrap::Repeat,
            wrap_v: Wrap::Repeat,
        }
    }
}

/// `KHR_texture_transform`'s offset, rotation (radians) and scale, as the
/// file gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvTransform {
    pub offset: [f32; 2],
    pub rotation: f32,
    pub scale: [f32; 2],
}

impl Default for UvTransform {
    /// The extension's defaults: no offset, no rotation, scale 1.
    fn default() -> UvTransform {
        UvTransform { offset: [0.0; 2], rotation: 0.0, scale: [1.0; 2] }
    }
}

/// The identity of [`UvTransform::matrix`]'s form.
pub const UV_IDENTITY: [[f32; 3]; 2] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

impl UvTransform {
    /// The extension's matrix `T(offset) x R(rotation) x S(scale)` as two
    /// rows `[a, b, c]` of `u' = a u + b v + c`. The rotation turns the UVs
    /// counter-clockwise in UV space (u right, v down), so
    /// `R = [[cos, sin], [-sin, cos]]` (rows): `u' = cos sx u + sin sy v + ox`,
    /// `v' = -sin sx u + cos sy v + oy`. This is the direction of the
    /// extension's sample model (TextureTransformTest) and of every viewer
    /// that passes it; the GLSL listing of the extension's first README had
    /// the sign the other way (KhronosGroup/glTF issue 1563). Values that
    /// are not finite take their defaults.
    pub fn matrix(&self) -> [[f32; 3]; 2] {
        let finite = |v: f32, default: f64| if v.is_finite() { f64::from(v) } else { default };
        let (ox, oy) = (finite(self.offset[0], 0.0), finite(self.offset[1], 0.0));
        let (sx, sy) = (finite(self.scale[0], 1.0), finite(self.scale[1], 1.0));
        let (sin, cos) = finite(self.rotation, 0.0).sin_cos();
        [[cos * sx, sin * sy, ox], [-sin * sx, cos * sy, oy]].map(|row| row.map(|x| x as f32))
    }
}

/// Which UV set a texture reads and how it moves it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UvMap {
    /// The UV stream of the mesh the texture reads: 0 or 1. A glTF file's
    /// `TEXCOORD_0` and `TEXCOORD_1` are streams 0 and 1, unless the
    /// material's textures read other sets (`KHR_texture_transform`'s
    /// `texCoord` where it gives one, else the texture info's): then its
    /// lowest set is stream 0 and the next one stream 1 (the loader reads
    /// those sets into the streams; a third set reads stream 0, with a
    /// warning).
    pub set: u32,
    /// `KHR_texture_transform`, when the texture info has it.
    pub transform: Option<UvTransform>,
}

impl UvMap {
    /// The matrix applied to the set's UVs (the identity without a
    /// transform); see [`UvTransform::matrix`].
    pub fn matrix(&self) -> [[f32; 3]; 2] {
        self.transform.map_or(UV_IDENTITY, |t| t.matrix())
    }

    /// The vertex stream read: 1 for `TEXCOORD_1`, else 0.
    pub fn stream(&self) -> usize {
        usize::from(self.set == 1)
    }

    /// `uv` moved by [`UvMap::matrix`].
    pub fn apply(&self, uv: [f64; 2]) -> [f64; 2] {
        let m = self.matrix().map(|row| row.map(f64::from));
        [m[0][0] * uv[0] + m[0][1] * uv[1] + m[0][2], m[1][0] * uv[0] + m[1][1] * uv[1] + m[1][2]]
    }
}

/// A texture of a material: which image, read how, from which UVs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureRef {
    /// Index of the image (in the file's image list while a file is read,
    /// in [`crate::draw::LoadedMeshes`]'s list once loaded).
    pub image: usize,
    pub sampler: SamplerDesc,
    /// Its own UV set and `KHR_texture_transform`.
    pub uv: UvMap,
}

/// How a primitive looks: base colour factor x texture x vertex colour x
/// the object's colour, lit unless `unlit`; in the `material` shading mode
/// also metallic, roughness and emissive (glTF's metallic-roughness model).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Linear RGBA.
    pub base_color: [f32; 4],
    pub texture: Option<TextureRef>,
    pub alpha: AlphaMode,
    /// `KHR_materials_unlit`: the colour as it is, without lighting.
    pub unlit: bool,
    pub metallic: f32,
    pub roughness: f32,
    /// `metallicRoughnessTexture` (B metal, G roughness, linear).
    pub metallic_roughness: Option<TextureRef>,
    /// Linear RGB: `emissiveFactor` x `KHR_materials_emissive_strength`.
    pub emissive: [f32; 3],
    /// `emissiveTexture` (sRGB).
    pub emissive_texture: Option<TextureRef>,
    /// `normalTexture` (tangent-space normals, linear) and its `scale`.
    pub normal: Option<TextureRef>,
    pub normal_scale: f32,
    /// `occlusionTexture` (R, linear), darkening the environment's light only.
    pub occlusion: Option<TextureRef>,
    /// Its `strength`: occlusion `1 + strength x (R - 1)`.
    pub occlusion_strength: f32,
    /// glTF `doubleSided`: `false` draws and picks front faces only
    /// (counter-clockwise seen from the front, clockwise under a mirroring
    /// transform).
    pub double_sided: bool,
}

impl Default for Material {
    /// White, opaque, lit, untextured, a rough dielectric (metallic 0,
    /// roughness 0.5), double-sided: what the built-in `plane` draws with
    /// ([`Material::single_sided`] for the other primitives and glTF
    /// primitives without a material).
    fn default() -> Material {
        Material {
            base_color: [1.0; 4],
            texture: None,
            alpha: AlphaMode::Opaque,
            unlit: false,
            metallic: 0.0,
            roughness: 0.5,
            metallic_roughness: None,
            emissive: [0.0; 3],
            emissive_texture: None,
            occlusion: None,
            occlusion_strength: 1.0,
            normal: None,
            normal_scale: 1.0,
            double_sided: true,
        }
    }
}

impl Material {
    /// [`Material::default`], single-sided: the built-in primitives other
    /// than `plane`, and glTF primitives without a material (glTF's default
    /// material is single-sided).
    pub fn single_sided() -> Material {
        Material { double_sided: false, ..Material::default() }
    }

    /// Every texture reference: base colour, metallic-roughness, emissive,
    /// occlusion, normal.
    pub fn textures_mut(&mut self) -> [&mut Option<TextureRef>; 5] {
        [
            &mut self.texture,
            &mut self.metallic_roughness,
            &mut self.emissive_texture,
            &mut self.occlusion,
            &mut self.normal,
        ]
    }
}

/// A decoded image: RGBA8, sRGB-encoded, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageData {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// The Basis Universal KTX2 file the texels were transcoded from, if
    /// they were: a renderer may upload its own transcode of it in a
    /// block-compressed format instead ([`crate::scene::ktx2`]). `None`
    /// once the texels are changed.
    pub basis: Option<Arc<[u8]>>,
}

/// A range of a mesh's indices drawn with one material.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// First index (into `MeshData::indices`) and number of indices.
    pub first: u32,
    pub count: u32,
    /// Index of the material (in the file's material list while a file is
    /// read, in [`crate::draw::LoadedMeshes`]'s list once loaded); `None`:
    /// the default material.
    pub material: Option<usize>,
}

/// What a mesh has beyond its triangles: per vertex (parallel to
/// `MeshData::positions`) the texture coordinates as the file gives them
/// (each texture applies its own transform when drawn) and the vertex
/// colour, and its index ranges by material.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// `TEXCOORD_0` (zero where absent).
    pub uvs: Vec<[f32; 2]>,
    /// `TEXCOORD_1`: empty while no primitive of the mesh has a texture
    /// reading set 1, else one per vertex (zero where a primitive has none).
    pub uvs1: Vec<[f32; 2]>,
    /// Linear RGBA (`COLOR_0`, white where absent).
    pub colors: Vec<[f32; 4]>,
    /// Per vertex the tangent (xyz) and the bitangent's sign (w) for
    /// normal textures; empty while no primitive of the mesh has a normal
    /// texture, else one per vertex (zero where a primitive has none).
    pub tangents: Vec<[f32; 4]>,
    pub parts: Vec<Part>,
}

impl Surface {
    /// Sets the tangents of vertices `first..first + tangents.len()`,
    /// giving the earlier vertices none (zero) if these are the first.
    pub fn push_tangents(&mut self, first: usize, tangents: &[[f32; 4]]) {
        self.tangents.resize(first, [0.0; 4]);
        self.tangents.extend_from_slice(tangents);
    }

    /// Sets the `TEXCOORD_1` of vertices `first..first + uvs.len()`,
    /// giving the earlier vertices zero if these are the first.
    pub fn push_uvs1(&mut self, first: usize, uvs: &[[f32; 2]]) {
        self.uvs1.resize(first, [0.0; 2]);
        self.uvs1.extend_from_slice(uvs);
    }

    /// The surface of a mesh with `vertices` vertices and `indices` indices
    /// and no material data: UV 0, white, one part with the default material.
    pub fn plain(vertices: usize, indices: usize) -> Surface {
        Surface {
            uvs: vec![[0.0; 2]; vertices],
            uvs1: Vec::new(),
            colors: vec![[1.0; 4]; vertices],
            tangents: Vec::new(),
            parts: vec![Part { first: 0, count: indices as u32, material: None }],
        }
    }

    /// Adds a part, merged into the last one when it continues it with the
    /// same material.
    pub fn push_part(&mut self, part: Part) {
        if part.count == 0 {
            return;
        }
        match self.parts.last_mut() {
            Some(last) if last.material == part.material && last.first + last.count == part.first => {
                last.count += part.count
            }
            _ => self.parts.push(part),
        }
    }
}

/// A `MASK` part of a mesh as picking sees it: which triangles, and what
/// decides their alpha.
#[derive(Clone, Debug)]
pub struct MaskPart {
    /// Triangles `first..first + count` (triangle `n` is indices `3n..3n+3`).
    pub first: u32,
    pub count: u32,
    pub factor_alpha: f32,
    pub cutoff: f32,
    /// The base colour texture with its sampler and its UVs.
    pub texture: Option<(Arc<ImageData>, SamplerDesc, UvMap)>,
}

/// The holes `MASK` materials cut into a mesh, for picking: a point of a
/// masked triangle is solid where base colour alpha x texture alpha x
/// vertex alpha reaches the cutoff, as the fragment shader decides (the
/// texture at its own UV set, moved by its `KHR_texture_transform`). The
/// texture is read at the nearest texel (exactly what NEAREST samplers
/// draw; filtered ones can differ by a texel at a hole's edge).
#[derive(Clone, Debug)]
pub struct Cutout {
    /// Per vertex of the mesh: `TEXCOORD_0`, and `TEXCOORD_1` (empty when
    /// the mesh has none; then read as zero, as drawn).
    pub uvs: Vec<[f32; 2]>,
    pub uvs1: Vec<[f32; 2]>,
    pub alphas: Vec<f32>,
    /// Sorted by `first`, not overlapping.
    pub parts: Vec<MaskPart>,
    /// Triangle ranges `(first, count)` of single-sided materials, sorted,
    /// not overlapping: rays reaching their back side pass through.
    pub single_sided: Vec<(u32, u32)>,
}

impl Cutout {
    /// The cutout of a mesh whose `surface` parts index `materials`
    /// (textures index `images`); `None` when no part is masked or
    /// single-sided.
    pub fn new(surface: &Surface, materials: &[Material], images: &[Arc<ImageData>]) -> Option<Cutout> {
        let mut parts = Vec::new();
        let mut single_sided = Vec::new();
        for p in &surface.parts {
            let Some(m) = p.material.and_then(|m| materials.get(m)) else { continue };
            if !m.double_sided && p.count >= 3 {
                single_sided.push((p.first / 3, p.count / 3));
            }
            let AlphaMode::Mask(cutoff) = m.alpha else { continue };
            let texture = m.texture.and_then(|t| Some((Arc::clone(images.get(t.image)?), t.sampler, t.uv)));
            parts.push(MaskPart {
                first: p.first / 3,
                count: p.count / 3,
                factor_alpha: m.base_color[3],
                cutoff,
                texture,
            });
        }
        single_sided.sort_unstable();
        if parts.is_empty() {
            return (!single_sided.is_empty()).then(|| Cutout::single_sided(single_sided));
        }
        parts.sort_by_key(|p| p.first);
        Some(Cutout {
            uvs: surface.uvs.clone(),
            uvs1: surface.uvs1.clone(),
            alphas: surface.colors.iter().map(|c| c[3]).collect(),
            parts,
            single_sided,
        })
    }

    /// No holes, the triangle ranges `single_sided` (sorted `(first,
    /// count)`) seen from the front only.
    pub fn single_sided(single_sided: Vec<(u32, u32)>) -> Cutout {
        Cutout { uvs: Vec::new(), uvs1: Vec::new(), alphas: Vec::new(), parts: Vec::new(), single_sided }
    }

    /// Whether a ray along `dir` (in the mesh's space) meets the back of
    /// triangle `triangle` of a single-sided material: the side its
    /// corners wind clockwise from. In the mesh's own space this does not
    /// depend on whether the object's matrix mirrors (glTF turns the
    /// winding with the determinant, and so does the ray).
    pub fn passes_behind(&self, positions: &[[f32; 3]], indices: &[u32], triangle: u32, dir: [f64; 3]) -> bool {
        let at = self.single_sided.partition_point(|&(first, count)| first + count <= triangle);
        if self.single_sided.get(at).is_none_or(|&(first, _)| first > triangle) {
            return false;
        }
        let Some(corners) = indices.get(3 * triangle as usize..3 * triangle as usize + 3) else { return false };
        let p = |i: usize| positions.get(corners[i] as usize).map(|p| p.map(f64::from));
        let (Some(a), Some(b), Some(c)) = (p(0), p(1), p(2)) else { return false };
        let (u, v) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
        let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2] > 0.0
    }

    /// Whether the point of triangle `triangle` (of `indices`) with
    /// barycentric `weights` is solid.
    pub fn keeps(&self, indices: &[u32], triangle: u32, weights: [f64; 3]) -> bool {
        let at = self.parts.partition_point(|p| p.first + p.count <= triangle);
        let Some(part) = self.parts.get(at).filter(|p| p.first <= triangle) else { return true };
        let Some(corners) = indices.get(3 * triangle as usize..3 * triangle as usize + 3) else { return true };
        let map = part.texture.as_ref().map_or(UvMap::default(), |t| t.2);
        let (mut uv, mut alpha) = ([0.0f64; 2], 0.0f64);
        for (&v, w) in corners.iter().zip(weights) {
            let v = v as usize;
            let Some(a) = self.alphas.get(v) else { return true };
            let t = match map.stream() {
                1 if self.uvs1.is_empty() => [0.0; 2],
                1 => match self.uvs1.get(v) {
                    Some(t) => *t,
                    None => return true,
                },
                _ => match self.uvs.get(v) {
                    Some(t) => *t,
                    None => return true,
                },
            };
            uv[0] += w * f64::from(t[0]);
            uv[1] += w * f64::from(t[1]);
            alpha += w * f64::from(*a);
        }
        alpha *= f64::from(part.factor_alpha);
        if let Some((image, sampler, map)) = &part.texture {
            // The transform is affine: moving the interpolated UV is moving
            // the corners' UVs and interpolating.
            alpha *= f64::from(texel_alpha(image, sampler, map.apply(uv))) / 255.0;
        }
        alpha >= f64::from(part.cutoff)
    }
}

/// The alpha of the texel nearest `uv`, wrapped as the sampler wraps.
fn texel_alpha(image: &ImageData, sampler: &SamplerDesc, uv: [f64; 2]) -> u8 {
    let wrap = |c: f64, size: u32, mode: Wrap| -> usize {
        let n = i64::from(size);
        let i = (c * size as f64).floor();
        let i = if i.is_finite() { i.clamp(-1e15, 1e15) as i64 } else { 0 };
        let i = match mode {
            Wrap::ClampToEdge => i.clamp(0, n - 1),
            Wrap::Repeat => i.rem_euclid(n),
            Wrap::MirroredRepeat => {
                let m = i.rem_euclid(2 * n);
                if m < n {
                    m
                } else {
                    2 * n - 1 - m
                }
            }
        };
        i as usize
    };
    let x = wrap(uv[0], image.width, sampler.wrap_u);
    let y = wrap(uv[1], image.height, sampler.wrap_v);
    image.rgba.get((y * image.width as usize + x) * 4 + 3).copied().unwrap_or(255)
}

/// The materials and base-colour images of one glTF file.
#[derive(Clone, Debug, Default)]
pub struct Looks {
    /// In the file's order; texture references index `images`.
    pub materials: Vec<Material>,
    /// Per glTF image: the decoded image, `None` where it is not used as a
    /// base colour or could not be read (then a warning says why).
    pub images: Vec<Option<Arc<ImageData>>>,
    /// One line per image that could not be read, naming it.
    pub warnings: Vec<String>,
}

/// Largest image side accepted (the Vulkan minimum guarantee for 2-D
/// images is 4096; every desktop driver and lavapipe give 16384).
pub const MAX_IMAGE_SIDE: u32 = 16384;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_merge_when_they_continue_with_the_same_material() {
        let mut s = Surface::default();
        s.push_part(Part { first: 0, count: 3, material: Some(1) });
        s.push_part(Part { first: 3, count: 6, material: Some(1) });
        s.push_part(Part { first: 9, count: 3, material: None });
        s.push_part(Part { first: 12, count: 0, material: Some(2) });
        assert_eq!(
            s.parts,
            vec![Part { first: 0, count: 9, material: Some(1) }, Part { first: 9, count: 3, material: None }]
        );
    }

    #[test]
    fn cutouts_read_the_nearest_texel_times_the_factor_and_vertex_alpha() {
        // A 2 x 1 image: left texel opaque, right one alpha 100.
        let image = Arc::new(ImageData { width: 2, height: 1, rgba: vec![9, 9, 9, 255, 9, 9, 9, 100], basis: None });
        let mask = Material {
            alpha: AlphaMode::Mask(0.5),
            texture: Some(TextureRef { image: 0, sampler: SamplerDesc::default(), uv: UvMap::default() }),
            ..Material::default()
        };
        let surface = Surface {
            uvs: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
            uvs1: Vec::new(),
            colors: vec![[1.0; 4]; 6],
            tangents: Vec::new(),
            parts: vec![Part { first: 0, count: 3, material: None }, Part { first: 3, count: 3, material: Some(0) }],
        };
        let indices = [0, 1, 2, 3, 4, 5];
        let cut = Cutout::new(&surface, &[mask], &[image]).unwrap();
        // u = 0.1 reads the left texel, u = 0.9 the right one.
        assert!(cut.keeps(&indices, 1, [0.9, 0.1, 0.0]));
        assert!(!cut.keeps(&indices, 1, [0.1, 0.9, 0.0]));
        // The unmasked triangle is solid everywhere.
        assert!(cut.keeps(&indices, 0, [0.1, 0.9, 0.0]));
        // Repeat wraps u = 1.1 onto the left texel.
        assert_eq!(texel_alpha(&cut.parts[0].texture.as_ref().unwrap().0, &SamplerDesc::default(), [1.1, 0.0]), 255);
        assert!(Cutout::new(&surface, &[Material::default()], &[]).is_none());
    }

    #[test]
    fn uv_transform_matrices_match_hand_computed_values() {
        let close = |a: [[f32; 3]; 2], b: [[f64; 3]; 2]| {
            a.iter().flatten().zip(b.iter().flatten()).all(|(x, y)| (f64::from(*x) - y).abs() < 1e-6)
        };
        // Offset, no turn, no scale: a translation.
        let t = UvTransform { offset: [0.25, -0.5], ..UvTransform::default() };
        assert!(close(t.matrix(), [[1.0, 0.0, 0.25], [0.0, 1.0, -0.5]]), "{:?}", t.matrix());
        // A quarter turn with scale (2, 3): T x R x S with R = [[0, 1], [-1, 0]]
        // (rows), so u' = 3 v + 0.25, v' = -2 u - 0.5.
        let t = UvTransform { offset: [0.25, -0.5], rotation: std::f32::consts::FRAC_PI_2, scale: [2.0, 3.0] };
        assert!(close(t.matrix(), [[0.0, 3.0, 0.25], [-2.0, 0.0, -0.5]]), "{:?}", t.matrix());
        let map = UvMap { set: 1, transform: Some(t) };
        let moved = map.apply([0.1, 0.2]);
        assert!((moved[0] - 0.85).abs() < 1e-6 && (moved[1] + 0.7).abs() < 1e-6, "{moved:?}");
        // 30 degrees: +u turns towards -v (up in an image, counter-clockwise
        // with v pointing down), as TextureTransformTest draws it.
        let t = UvTransform { rotation: 30f32.to_radians(), ..UvTransform::default() };
        let (c, s) = (3f64.sqrt() / 2.0, 0.5);
        assert!(close(t.matrix(), [[c, s, 0.0], [-s, c, 0.0]]), "{:?}", t.matrix());
        // Without a transform: the identity; non-finite values take defaults.
        assert_eq!(UvMap::default().matrix(), UV_IDENTITY);
        let t = UvTransform { offset: [f32::NAN, 1.0], rotation: f32::INFINITY, scale: [f32::NAN, 2.0] };
        assert!(close(t.matrix(), [[1.0, 0.0, 0.0], [0.0, 2.0, 1.0]]), "{:?}", t.matrix());
        assert_eq!((UvMap { set: 1, transform: None }.stream(), UvMap { set: 2, transform: None }.stream()), (1, 0));
    }

    #[test]
    fn cutouts_read_the_base_colour_textures_own_set_and_transform() {
        // Left texel opaque, right texel alpha 100; the texture reads
        // TEXCOORD_1 moved by +0.5 in u, so u1 = 0.1 reads the right texel.
        let image = Arc::new(ImageData { width: 2, height: 1, rgba: vec![9, 9, 9, 255, 9, 9, 9, 100], basis: None });
        let uv = UvMap { set: 1, transform: Some(UvTransform { offset: [0.5, 0.0], ..UvTransform::default() }) };
        let mask = Material {
            alpha: AlphaMode::Mask(0.5),
            texture: Some(TextureRef { image: 0, sampler: SamplerDesc::default(), uv }),
            ..Material::default()
        };
        let surface = Surface {
            // Set 0 would read the left texel everywhere.
            uvs: vec![[0.1, 0.0]; 3],
            uvs1: vec![[0.1, 0.0], [0.6, 0.0], [0.1, 0.0]],
            colors: vec![[1.0; 4]; 3],
            tangents: Vec::new(),
            parts: vec![Part { first: 0, count: 3, material: Some(0) }],
        };
        let cut = Cutout::new(&surface, &[mask], &[image]).unwrap();
        // u1 = 0.1 -> 0.6: right texel, cut; u1 = 0.6 -> 1.1: wraps left, kept.
        assert!(!cut.keeps(&[0, 1, 2], 0, [1.0, 0.0, 0.0]));
        assert!(cut.keeps(&[0, 1, 2], 0, [0.0, 1.0, 0.0]));
    }
}
