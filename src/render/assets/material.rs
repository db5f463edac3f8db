//! Materials on the GPU: textures, samplers, and one descriptor set per
//! material, plus the few numbers the fragment shader reads from push
//! constants (base colour factor, alpha cutoff, unlit, metallic, roughness,
//! emissive). A material's set holds: 0 its base-colour texture (sRGB),
//! 1 the frame's lighting block (a dynamic uniform buffer, one slot per
//! frame in flight, the slot picked by the bind's dynamic offset), 2 the
//! split-sum BRDF table, 3 its metallic-roughness texture (linear; white
//! when it has none), 4 its emissive texture (sRGB; white when none), 5
//! its occlusion texture (linear, R = `1 + strength (R - 1)`; white when
//! none), 6 its normal texture, 7 its UV block (a uniform buffer: per
//! texture the UV set it reads and its `KHR_texture_transform` matrix,
//! [`UvBlock`]; one 256-byte slot per set in a buffer per descriptor pool,
//! written once when the material is added), 8 and 9 the irradiance and
//! prefiltered specular maps of a `.hdr` environment (RGBA16F,
//! equirectangular, `crate::look::envmap`; a 1x1 black texture while the
//! environment is analytic: [`super::environment_map`]), rewritten in
//! every set when the environment changes.
//!
//! No descriptor indexing (lavapipe has none): the scene pass binds one set
//! per material batch, so a frame's CPU cost grows with the number of
//! batches, not of objects. Material 0 is the default: white, opaque, lit,
//! with a 1x1 white texture, so untextured meshes draw exactly as the
//! object's colour.

use super::shadow_map::ShadowImage;
use ash::vk;
use bytemuck::{Pod, Zeroable};

use gpu_allocator::MemoryLocation;

use crate::look::envmap::HdrId;
use crate::render::assets::environment::{brdf_lut, LightingBlock, LUT_SIZE};
use crate::render::assets::environment_map::{EnvironmentMaps, ENV_SAMPLER};
use crate::render::assets::sampler::sampler_info;
use crate::render::assets::texture::{Texture, DATA_TEXTURE_FORMAT, TEXTURE_FORMAT};
use crate::render::desc::{MaterialDesc, MaterialId, MaterialTexture, TextureId, FRAMES_IN_FLIGHT, MAX_VIEWS};
use crate::render::device::context::Context;
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::Buffer;
use crate::render::device::{Destroy, Gpu};
use crate::scene::material::{AlphaMode, Filter, ImageData, SamplerDesc, UvMap, Wrap};

/// Which scene pipeline draws a material (the draw order, too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Pass {
    Opaque,
    Mask,
    Blend,
}

/// The material's part of the scene pass's push constants (48 bytes: with
/// the frame's 80, the 128 every device offers).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct MaterialPush {
    /// Linear RGBA factor.
    pub base_color: [f32; 4],
    /// x: alpha cutoff (MASK), y: 1 for unlit, z: metallic, w: roughness.
    pub params: [f32; 4],
    /// rgb: the emissive factor (linear), w: 1 single-sided, 0 double-sided.
    pub emissive: [f32; 4],
    /// x: the normal texture's scale, y: 1 with a normal texture.
    pub normal: [f32; 4],
}

/// A material's UV block (binding 7, std140): per texture (base colour,
/// metallic-roughness, emissive, occlusion, normal) two rows, `(a, b, c,
/// set)` and `(d, e, f, 0)`: the texture reads `(a u + b v + c, d u + e v
/// + f)` of UV set `set` (0 or 1).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct UvBlock {
    pub rows: [[f32; 4]; 10],
}

impl UvBlock {
    /// The block of five textures' UV maps, in the order above.
    pub fn new(maps: [UvMap; 5]) -> UvBlock {
        let mut rows = [[0.0; 4]; 10];
        for (k, map) in maps.iter().enumerate() {
            let m = map.matrix();
            rows[2 * k] = [m[0][0], m[0][1], m[0][2], map.stream() as f32];
            rows[2 * k + 1] = [m[1][0], m[1][1], m[1][2], 0.0];
        }
        UvBlock { rows }
    }
}

/// Bytes between the UV blocks of a pool's buffer: the largest
/// `minUniformBufferOffsetAlignment` Vulkan allows.
const UV_STRIDE: u64 = 256;

/// Bytes between the slots of the lighting buffer: a multiple of the
/// largest `minUniformBufferOffsetAlignment` Vulkan allows (256) that
/// holds the block with its scene lights.
pub(crate) const LIGHTING_STRIDE: u64 = 1024;

/// A material as the scene pass uses it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GpuMaterial {
    pub set: vk::DescriptorSet,
    pub push: MaterialPush,
    pub pass: Pass,
}

/// The sRGB white texture: the base-colour and emissive texture of
/// materials without one.
const WHITE: TextureId = TextureId(1);

/// Sets per descriptor pool; pools are added as materials need them.
const SETS_PER_POOL: u32 = 64;

/// Image bindings per set (0, 2, 3, 4, 5, 6, 8, 9, 10).
const IMAGES_PER_SET: u32 = 9;

/// The format of the split-sum BRDF table.
const LUT_FORMAT: vk::Format = vk::Format::R16G16_SFLOAT;

/// Owns the material descriptor-set layout, its pools, the samplers (one
/// per distinct [`SamplerDesc`]), the textures and the materials.
#[derive(Default)]
pub(crate) struct Materials {
    pub layout: vk::DescriptorSetLayout,
    pools: Vec<vk::DescriptorPool>,
    /// Per pool, the UV blocks of its sets ([`UvBlock`], `UV_STRIDE` apart).
    uv_buffers: Vec<Buffer>,
    /// Sets still free in the last pool.
    free: u32,
    samplers: Vec<(SamplerDesc, vk::Sampler)>,
    textures: Vec<Texture>,
    /// The format of each of `textures`.
    texture_formats: Vec<vk::Format>,
    list: Vec<GpuMaterial>,
    /// The lighting block, one slot per frame in flight.
    lighting: Option<Buffer>,
    /// White in linear format: the metallic-roughness texture of materials without one.
    white_linear: TextureId,
    /// The split-sum BRDF table.
    lut: TextureId,
    /// The maps every set reads at bindings 8 and 9: the `.hdr`
    /// environment's, or black.
    env: EnvironmentMaps,
    /// The shadow maps every set reads at binding 10.
    pub shadow: ShadowImage,
}

impl Destroy for Materials {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.list.clear();
        for pool in self.pools.drain(..) {
            gpu.device.destroy_descriptor_pool(pool, None);
        }
        self.uv_buffers.destroy(gpu);
        self.uv_buffers.clear();
        for (_, sampler) in self.samplers.drain(..) {
            gpu.device.destroy_sampler(sampler, None);
        }
        self.textures.destroy(gpu);
        self.env.destroy(gpu);
        self.shadow.destroy(gpu);
        if let Some(mut b) = self.lighting.take() {
            b.destroy(gpu);
        }
        gpu.device.destroy_descriptor_set_layout(self.layout, None);
        self.layout = vk::DescriptorSetLayout::null();
        self.free = 0;
    }
}

impl Materials {
    /// The layout, the default white texture and the default material.
    ///
    /// # Safety
    /// `self` is empty (default) and owned by the caller's guard.
    pub unsafe fn init(&mut self, ctx: &Context) -> Result<(), RenderError> {
        let d = ctx.device();
        let binding = |i: u32, ty: vk::DescriptorType| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(i)
                .descriptor_type(ty)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::FRAGMENT)
        };
        let image = vk::DescriptorType::COMBINED_IMAGE_SAMPLER;
        let bindings = [
            binding(0, image),
            binding(1, vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC),
            binding(2, image),
            binding(3, image),
            binding(4, image),
            binding(5, image),
            binding(6, image),
            binding(7, vk::DescriptorType::UNIFORM_BUFFER),
            binding(8, image),
            binding(9, image),
            binding(10, image),
        ];
        self.layout = d
            .create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings), None)
            .vk("vkCreateDescriptorSetLayout")?;
        let white = ImageData { width: 1, height: 1, rgba: vec![255; 4], basis: None };
        let white_linear = self.add_linear_texture(ctx, &white)?;
        let white = self.add_texture(ctx, &white)?;
        debug_assert_eq!(white, TextureId(1));
        self.white_linear = white_linear;
        let lut = Texture::upload_as(ctx, (LUT_SIZE, LUT_SIZE), brdf_lut(), (LUT_FORMAT, 4, false), "BRDF table")?;
        self.lut = self.push_texture(lut, LUT_FORMAT);
        self.env.init(ctx)?;
        self.shadow = ShadowImage::new(ctx)?;
        self.lighting = Some(Buffer::new(
            &ctx.gpu,
            LIGHTING_STRIDE * (FRAMES_IN_FLIGHT * MAX_VIEWS) as u64,
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            MemoryLocation::CpuToGpu,
            "lighting",
        )?);
        let default = MaterialDesc::default();
        debug_assert_eq!(default.texture, None);
        let id = self.add(ctx, &default)?;
        debug_assert_eq!(id, MaterialId::DEFAULT);
        Ok(())
    }

    /// An sRGB texture, mipmapped: BC7 for a Basis Universal image where
    /// [`Texture::upload_basis`] can, else RGBA8.
    pub fn add_texture(&mut self, ctx: &Context, image: &ImageData) -> Result<TextureId, RenderError> {
        let bc7 = vk::Format::BC7_SRGB_BLOCK;
        match Texture::upload_basis(ctx, image, bc7, "texture")? {
            Some(texture) => Ok(self.push_texture(texture, bc7)),
            None => Ok(self.push_texture(Texture::upload(ctx, image, "texture")?, TEXTURE_FORMAT)),
        }
    }

    /// A texture of linear values (metallic-roughness), mipmapped, BC7 or
    /// RGBA8 as [`Self::add_texture`] chooses.
    pub fn add_linear_texture(&mut self, ctx: &Context, image: &ImageData) -> Result<TextureId, RenderError> {
        let bc7 = vk::Format::BC7_UNORM_BLOCK;
        if let Some(texture) = Texture::upload_basis(ctx, image, bc7, "data texture")? {
            return Ok(self.push_texture(texture, bc7));
        }
        let size = (image.width, image.height);
        let texture = Texture::upload_as(ctx, size, &image.rgba, (DATA_TEXTURE_FORMAT, 4, true), "data texture")?;
        Ok(self.push_texture(texture, DATA_TEXTURE_FORMAT))
    }

    fn push_texture(&mut self, texture: Texture, format: vk::Format) -> TextureId {
        self.textures.push(texture);
        self.texture_formats.push(format);
        TextureId(self.textures.len() as u32 - 1)
    }

    /// The format of each texture, in the order they were added.
    pub fn texture_formats(&self) -> &[vk::Format] {
        &self.texture_formats
    }

    /// Writes frame `fi`'s lighting block; returns the dynamic offset that
    /// binds it.
    ///
    /// # Safety
    /// The GPU no longer reads frame `fi`'s slot (its fence was waited for).
    pub unsafe fn write_lighting(&mut self, slot: usize, block: &LightingBlock) -> Result<u32, RenderError> {
        let offset = LIGHTING_STRIDE as usize * slot;
        let buffer = self.lighting.as_mut().ok_or(RenderError::NotHostVisible("lighting"))?;
        buffer.write(offset, bytemuck::bytes_of(block), "lighting")?;
        Ok(offset as u32)
    }

    /// Adds a material; its texture must have been added.
    pub fn add(&mut self, ctx: &Context, desc: &MaterialDesc) -> Result<MaterialId, RenderError> {
        let known = |t: Option<MaterialTexture>, white: TextureId| match t {
            Some((t, s, uv)) if (t.0 as usize) < self.textures.len() => Ok((t, s, uv)),
            Some((t, _, _)) => Err(RenderError::UnknownTexture(t.0)),
            None => Ok((white, SamplerDesc::default(), UvMap::default())),
        };
        let base = known(desc.texture, WHITE)?;
        let metallic_roughness = known(desc.metallic_roughness_texture, self.white_linear)?;
        let emissive = known(desc.emissive_texture, WHITE)?;
        let occlusion = known(desc.occlusion_texture, self.white_linear)?;
        let normal = known(desc.normal_texture, self.white_linear)?;
        self.add_with_textures(ctx, desc, [base, metallic_roughness, emissive, occlusion, normal])
    }

    /// Adds a material reading `textures` (base colour, metallic-roughness,
    /// emissive, occlusion, normal), each with its sampler and UV map.
    fn add_with_textures(
        &mut self,
        ctx: &Context,
        desc: &MaterialDesc,
        textures: [MaterialTexture; 5],
    ) -> Result<MaterialId, RenderError> {
        let d = ctx.device();
        let (set, uv_slot) = self.allocate_set(ctx)?;
        let uv_block = UvBlock::new(textures.map(|t| t.2));
        let uv_buffer = self.uv_buffers.last_mut().expect("allocate_set made a pool and its buffer");
        let uv_offset = UV_STRIDE * u64::from(uv_slot);
        uv_buffer.write(uv_offset as usize, bytemuck::bytes_of(&uv_block), "material UV blocks")?;
        let uv_info = [vk::DescriptorBufferInfo::default()
            .buffer(uv_buffer.raw)
            .offset(uv_offset)
            .range(std::mem::size_of::<UvBlock>() as u64)];
        let textures = textures.map(|(t, s, _)| (t, s));
        let image_info = |this: &mut Materials, (t, s): (TextureId, SamplerDesc)| -> Result<_, RenderError> {
            Ok([vk::DescriptorImageInfo::default()
                .sampler(this.sampler(d, &s)?)
                .image_view(this.textures[t.0 as usize].view)
                .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)])
        };
        let table = SamplerDesc {
            mag: Filter::Linear,
            min: Filter::Linear,
            mipmap: None,
            wrap_u: Wrap::ClampToEdge,
            wrap_v: Wrap::ClampToEdge,
        };
        let images = [
            (0, image_info(self, textures[0])?),
            (2, image_info(self, (self.lut, table))?),
            (3, image_info(self, textures[1])?),
            (4, image_info(self, textures[2])?),
            (5, image_info(self, textures[3])?),
            (6, image_info(self, textures[4])?),
            (8, self.env_info(d, 0)?),
            (9, self.env_info(d, 1)?),
            (
                10,
                [vk::DescriptorImageInfo::default()
                    .sampler(self.shadow.sampler)
                    .image_view(self.shadow.array_view)
                    .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)],
            ),
        ];
        let lighting = self.lighting.as_ref().map_or(vk::Buffer::null(), |b| b.raw);
        let block = [vk::DescriptorBufferInfo::default()
            .buffer(lighting)
            .offset(0)
            .range(std::mem::size_of::<LightingBlock>() as u64)];
        let mut writes: Vec<vk::WriteDescriptorSet<'_>> = images
            .iter()
            .map(|(binding, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(*binding)
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .image_info(info)
            })
            .collect();
        writes.push(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(1)
                .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC)
                .buffer_info(&block),
        );
        writes.push(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(7)
                .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                .buffer_info(&uv_info),
        );
        // SAFETY: the set is new (no command buffer uses it); views,
        // samplers and the lighting buffer are alive.
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        let (pass, cutoff) = match desc.alpha {
            AlphaMode::Opaque => (Pass::Opaque, 0.0),
            AlphaMode::Mask(c) => (Pass::Mask, c),
            AlphaMode::Blend => (Pass::Blend, 0.0),
        };
        let e = desc.emissive;
        let push = MaterialPush {
            base_color: desc.base_color,
            params: [cutoff, if desc.unlit { 1.0 } else { 0.0 }, desc.metallic, desc.roughness],
            emissive: [e[0], e[1], e[2], if desc.double_sided { 0.0 } else { 1.0 }],
            normal: [desc.normal_scale, if desc.normal_texture.is_some() { 1.0 } else { 0.0 }, 0.0, 0.0],
        };
        self.list.push(GpuMaterial { set, push, pass });
        Ok(MaterialId(self.list.len() as u32 - 1))
    }

    fn sampler(&mut self, d: &ash::Device, desc: &SamplerDesc) -> Result<vk::Sampler, RenderError> {
        if let Some((_, s)) = self.samplers.iter().find(|(s, _)| s == desc) {
            return Ok(*s);
        }
        // SAFETY: valid create info; destroyed in `destroy`.
        let sampler = unsafe { d.create_sampler(&sampler_info(desc), None) }.vk("vkCreateSampler")?;
        self.samplers.push((*desc, sampler));
        Ok(sampler)
    }

    /// One set from the last pool, adding a pool (and its buffer of UV
    /// blocks) when it is full; with the set's slot in the pool.
    fn allocate_set(&mut self, ctx: &Context) -> Result<(vk::DescriptorSet, u32), RenderError> {
        let d = ctx.device();
        if self.free == 0 {
            let sizes = [
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                    descriptor_count: IMAGES_PER_SET * SETS_PER_POOL,
                },
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
                    descriptor_count: SETS_PER_POOL,
                },
                vk::DescriptorPoolSize { ty: vk::DescriptorType::UNIFORM_BUFFER, descriptor_count: SETS_PER_POOL },
            ];
            // The buffer first: a pool without one would be left unusable.
            let uv_buffer = Buffer::new(
                &ctx.gpu,
                UV_STRIDE * u64::from(SETS_PER_POOL),
                vk::BufferUsageFlags::UNIFORM_BUFFER,
                MemoryLocation::CpuToGpu,
                "material UV blocks",
            )?;
            // SAFETY: plain object creation; destroyed in `destroy`.
            let pool = unsafe {
                d.create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default().max_sets(SETS_PER_POOL).pool_sizes(&sizes),
                    None,
                )
            }
            .vk("vkCreateDescriptorPool");
            let pool = match pool {
                Ok(pool) => pool,
                Err(e) => {
                    let mut b = uv_buffer;
                    // SAFETY: no descriptor refers to the new buffer.
                    unsafe { b.destroy(&ctx.gpu) };
                    return Err(e);
                }
            };
            self.pools.push(pool);
            self.uv_buffers.push(uv_buffer);
            self.free = SETS_PER_POOL;
        }
        let pool = *self.pools.last().expect("a pool was added above");
        let layouts = [self.layout];
        // SAFETY: the pool has a free set of this layout's bindings.
        let set = unsafe {
            d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts),
            )
        }
        .vk("vkAllocateDescriptorSets")?[0];
        let slot = SETS_PER_POOL - self.free;
        self.free -= 1;
        Ok((set, slot))
    }

    /// Binding 8 (`which` 0: irradiance) or 9 (1: specular) as it is now.
    fn env_info(&mut self, d: &ash::Device, which: usize) -> Result<[vk::DescriptorImageInfo; 1], RenderError> {
        let sampler = self.sampler(d, &ENV_SAMPLER)?;
        let view = self.env.view(which);
        Ok([vk::DescriptorImageInfo::default()
            .sampler(sampler)
            .image_view(view)
            .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)])
    }

    /// The `.hdr` environment whose maps the sets read, if any.
    pub fn environment(&self) -> Option<HdrId> {
        self.env.id()
    }

    /// Uploads the maps of `.hdr` environment `id` (prefiltered on the
    /// CPU, once per process) and binds them in every set; the previous
    /// maps are destroyed.
    ///
    /// # Safety
    /// The device is idle: no pending command buffer uses the sets or the
    /// previous maps.
    pub unsafe fn set_environment(&mut self, ctx: &Context, id: HdrId) -> Result<(), RenderError> {
        if self.environment() == Some(id) {
            return Ok(());
        }
        let old = self.env.replace(ctx, id)?;
        let d = ctx.device();
        let infos = [self.env_info(d, 0)?, self.env_info(d, 1)?];
        let writes: Vec<vk::WriteDescriptorSet<'_>> = self
            .list
            .iter()
            .flat_map(|m| {
                infos.iter().zip([8, 9]).map(|(info, binding)| {
                    vk::WriteDescriptorSet::default()
                        .dst_set(m.set)
                        .dst_binding(binding)
                        .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                        .image_info(info)
                })
            })
            .collect();
        d.update_descriptor_sets(&writes, &[]);
        if let Some(mut old) = old {
            // No set refers to them any more, and the device is idle.
            old.destroy(&ctx.gpu);
        }
        Ok(())
    }

    pub fn get(&self, id: MaterialId) -> Option<&GpuMaterial> {
        self.list.get(id.0 as usize)
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }
}
