//! How a mesh's triangles look, as plain data: materials (base colour
//! factor and texture, alpha mode, unlit), samplers, decoded images, and the
//! per-vertex data that goes with them ([`Surface`]: the texture's UV set and
//! `COLOR_0`). `scene::gltf` reads them from files, `draw` uploads them and
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

/// A base-colour texture: which image, read how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureRef {
    /// Index of the image (in the file's image list while a file is read,
    /// in [`crate::draw::LoadedMeshes`]'s list once loaded).
    pub image: usize,
    pub sampler: SamplerDesc,
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
/// `MeshData::positions`) the texture coordinates its material reads and
/// the vertex colour, and its index ranges by material.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    pub uvs: Vec<[f32; 2]>,
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

    /// The surface of a mesh with `vertices` vertices and `indices` indices
    /// and no material data: UV 0, white, one part with the default material.
    pub fn plain(vertices: usize, indices: usize) -> Surface {
        Surface {
            uvs: vec![[0.0; 2]; vertices],
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
    pub texture: Option<(Arc<ImageData>, SamplerDesc)>,
}

/// The holes `MASK` materials cut into a mesh, for picking: a point of a
/// masked triangle is solid where base colour alpha x texture alpha x
/// vertex alpha reaches the cutoff, as the fragment shader decides. The
/// texture is read at the nearest texel (exactly what NEAREST samplers
/// draw; filtered ones can differ by a texel at a hole's edge).
#[derive(Clone, Debug)]
pub struct Cutout {
    /// Per vertex of the mesh.
    pub uvs: Vec<[f32; 2]>,
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
            let texture = m.texture.and_then(|t| Some((Arc::clone(images.get(t.image)?), t.sampler)));
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
            alphas: surface.colors.iter().map(|c| c[3]).collect(),
            parts,
            single_sided,
        })
    }

    /// No holes, the triangle ranges `single_sided` (sorted `(first,
    /// count)`) seen from the front only.
    pub fn single_sided(single_sided: Vec<(u32, u32)>) -> Cutout {
        Cutout { uvs: Vec::new(), alphas: Vec::new(), parts: Vec::new(), single_sided }
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
        let (mut uv, mut alpha) = ([0.0f64; 2], 0.0f64);
        for (&v, w) in corners.iter().zip(weights) {
            let v = v as usize;
            let (Some(t), Some(a)) = (self.uvs.get(v), self.alphas.get(v)) else { return true };
            uv[0] += w * f64::from(t[0]);
            uv[1] += w * f64::from(t[1]);
            alpha += w * f64::from(*a);
        }
        alpha *= f64::from(part.factor_alpha);
        if let Some((image, sampler)) = &part.texture {
            alpha *= f64::from(texel_alpha(image, sampler, uv)) / 255.0;
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
        let image = Arc::new(ImageData { width: 2, height: 1, rgba: vec![9, 9, 9, 255, 9, 9, 9, 100] });
        let mask = Material {
            alpha: AlphaMode::Mask(0.5),
            texture: Some(TextureRef { image: 0, sampler: SamplerDesc::default() }),
            ..Material::default()
        };
        let surface = Surface {
            uvs: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
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
}
