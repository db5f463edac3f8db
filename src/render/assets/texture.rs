//! Sampled textures: an sRGB RGBA8 image with its full mip chain, uploaded
//! through a staging buffer; the smaller levels are made on the GPU by
//! halving blits (`vkCmdBlitImage`, linear filter) where the format allows
//! it, else the texture has its top level only.
//!
//! A Basis Universal image (`KHR_texture_basisu`) that carries its full mip
//! chain goes to a device with BC texture compression as BC7, every level
//! transcoded from the file ([`Texture::upload_basis`]); elsewhere it takes
//! the RGBA8 path like any other image.
//!
//! The upload is one one-shot submit that ends with every level in
//! `SHADER_READ_ONLY_OPTIMAL`, visible to fragment shaders.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::render::device::context::Context;
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::{create_image_memory, one_shot, Buffer, Gpu, Guard, Image};
use crate::scene::material::ImageData;

/// The format of every texture: base colours are sRGB-encoded.
pub(crate) const TEXTURE_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;

/// A texture: an [`Image`] with all its mip levels and one view over them
/// (the render targets' image type, so one destroy serves both).
pub(crate) type Texture = Image;

/// Number of levels of a full mip chain for a `width` x `height` image.
pub(crate) fn mip_levels(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

/// The format of data textures (metallic-roughness): linear values.
pub(crate) const DATA_TEXTURE_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// Bytes of one level of `width` x `height` texels of `format`, whose
/// texels take `size` bytes (BC7: 16 bytes per 4x4 block instead).
fn level_bytes(format: vk::Format, size: usize, (width, height): (u32, u32)) -> usize {
    match format {
        vk::Format::BC7_SRGB_BLOCK | vk::Format::BC7_UNORM_BLOCK => crate::scene::ktx2::bc7_size(width, height),
        _ => width as usize * height as usize * size,
    }
}

/// Whether optimally tiled images of `format` have every feature of
/// `needed` on the device.
fn has_features(ctx: &Context, format: vk::Format, needed: vk::FormatFeatureFlags) -> bool {
    // SAFETY: the physical device belongs to the live instance.
    let props = unsafe { ctx.roots.instance.get_physical_device_format_properties(ctx.physical, format) };
    props.optimal_tiling_features.contains(needed)
}

/// Whether the device samples `format` (a block-compressed one) with
/// linear filtering and takes it from transfers.
fn can_sample(ctx: &Context, format: vk::Format) -> bool {
    use vk::FormatFeatureFlags as F;
    has_features(ctx, format, F::SAMPLED_IMAGE | F::SAMPLED_IMAGE_FILTER_LINEAR | F::TRANSFER_DST)
}

/// Whether the device can make mip levels of `format` by blits.
fn can_blit(ctx: &Context, format: vk::Format) -> bool {
    use vk::FormatFeatureFlags as F;
    has_features(ctx, format, F::BLIT_SRC | F::BLIT_DST | F::SAMPLED_IMAGE_FILTER_LINEAR)
}

fn levels_range(base: u32, count: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: base,
        level_count: count,
        base_array_layer: 0,
        layer_count: 1,
    }
}

fn layers(level: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: level,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// A layout change of `range` of `image`, after `src` and before `dst`.
fn transition(
    image: vk::Image,
    range: vk::ImageSubresourceRange,
    src: (vk::PipelineStageFlags2, vk::AccessFlags2),
    dst: (vk::PipelineStageFlags2, vk::AccessFlags2),
    layouts: (vk::ImageLayout, vk::ImageLayout),
) -> vk::ImageMemoryBarrier2<'static> {
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(src.0)
        .src_access_mask(src.1)
        .dst_stage_mask(dst.0)
        .dst_access_mask(dst.1)
        .old_layout(layouts.0)
        .new_layout(layouts.1)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range)
}

impl Texture {
    /// Uploads `image` (sRGB) and makes its mip levels.
    pub fn upload(ctx: &Context, image: &ImageData, name: &str) -> Result<Texture, RenderError> {
        Texture::upload_as(ctx, (image.width, image.height), &image.rgba, (TEXTURE_FORMAT, 4, true), name)
    }

    /// Uploads `texels` (`width` x `height` texels of `format`, `size`
    /// bytes each, rows top to bottom), with its mip levels when `mips`.
    pub fn upload_as(
        ctx: &Context,
        (width, height): (u32, u32),
        texels: &[u8],
        (format, size, mips): (vk::Format, usize, bool),
        name: &str,
    ) -> Result<Texture, RenderError> {
        let gpu = &ctx.gpu;
        let bytes = width as usize * height as usize * size;
        if width == 0 || height == 0 || texels.len() < bytes {
            return Err(RenderError::ZeroSize { what: "texture", width, height });
        }
        let levels = if mips && can_blit(ctx, format) { mip_levels(width, height) } else { 1 };
        let usage = vk::ImageUsageFlags::TRANSFER_SRC;
        let t = sampled_image(gpu, (width, height), format, levels, usage, name)?;
        let mut staging = staging_buffer(gpu, bytes)?;
        staging.write(0, &texels[..bytes], "texture staging")?;
        let (raw, src) = (t.raw, staging.raw);
        let d = ctx.device();
        one_shot(ctx, |cb| {
            // SAFETY: the image and staging buffer live until the one-shot
            // submit was waited for; every level is transitioned before use.
            unsafe { record_upload(d, cb, raw, src, (width, height), levels) }
        })?;
        drop(staging);
        Ok(t.finish())
    }
}

impl Texture {
    /// Uploads `image`'s Basis Universal file as BC7 (`format`: its sRGB
    /// or its UNORM variant), every level transcoded from the file. `None`
    /// (upload the RGBA8 texels instead) for an image without such a file,
    /// a file without the full mip chain, a device that cannot sample the
    /// format, or block compression turned off; a file the transcoder
    /// fails on is a warning, then `None`.
    pub fn upload_basis(
        ctx: &Context,
        image: &ImageData,
        format: vk::Format,
        name: &str,
    ) -> Result<Option<Texture>, RenderError> {
        let Some(file) = image.basis.as_deref() else { return Ok(None) };
        if !ctx.bc_textures || !can_sample(ctx, format) {
            return Ok(None);
        }
        let levels = match crate::scene::ktx2::bc7_levels(file) {
            Ok(Some(levels)) => levels,
            Ok(None) => return Ok(None),
            Err(problem) => {
                log::warn!("a Basis Universal texture kept as RGBA8: {problem}");
                return Ok(None);
            }
        };
        let levels: Vec<&[u8]> = levels.iter().map(Vec::as_slice).collect();
        Texture::upload_levels(ctx, (image.width, image.height), &levels, (format, 0), name).map(Some)
    }

    /// Uploads a texture whose mip levels are given (`levels[k]`: the
    /// texels of level `k`, `width >> k` x `height >> k` of them, rows top
    /// to bottom), in `format` of `size` bytes per texel (ignored for BC7,
    /// whose levels are 4x4 blocks of 16 bytes).
    pub fn upload_levels(
        ctx: &Context,
        (width, height): (u32, u32),
        levels: &[&[u8]],
        (format, size): (vk::Format, usize),
        name: &str,
    ) -> Result<Texture, RenderError> {
        let gpu = &ctx.gpu;
        let count = levels.len() as u32;
        let dims = |k: u32| ((width >> k).max(1), (height >> k).max(1));
        let fits = levels.iter().enumerate().all(|(k, l)| l.len() == level_bytes(format, size, dims(k as u32)));
        if width == 0 || height == 0 || count == 0 || count > mip_levels(width, height) || !fits {
            return Err(RenderError::ZeroSize { what: "texture with given levels", width, height });
        }
        let t = sampled_image(gpu, (width, height), format, count, vk::ImageUsageFlags::empty(), name)?;
        let bytes: usize = levels.iter().map(|l| l.len()).sum();
        let mut staging = staging_buffer(gpu, bytes)?;
        let mut copies = Vec::with_capacity(levels.len());
        let mut offset = 0;
        for (k, level) in levels.iter().enumerate() {
            staging.write(offset, level, "texture staging")?;
            let (w, h) = dims(k as u32);
            copies.push(
                vk::BufferImageCopy::default()
                    .buffer_offset(offset as u64)
                    .image_subresource(layers(k as u32))
                    .image_extent(vk::Extent3D { width: w, height: h, depth: 1 }),
            );
            offset += level.len();
        }
        let (raw, src) = (t.raw, staging.raw);
        let d = ctx.device();
        use vk::{AccessFlags2 as A, ImageLayout as L, PipelineStageFlags2 as S};
        one_shot(ctx, |cb| {
            // SAFETY: the image and staging buffer live until the one-shot
            // submit was waited for; every level is written, then made
            // readable by fragment shaders.
            unsafe {
                let barrier = |b: vk::ImageMemoryBarrier2<'_>| {
                    d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().image_memory_barriers(&[b]));
                };
                barrier(transition(
                    raw,
                    levels_range(0, count),
                    (S::NONE, A::NONE),
                    (S::COPY, A::TRANSFER_WRITE),
                    (L::UNDEFINED, L::TRANSFER_DST_OPTIMAL),
                ));
                d.cmd_copy_buffer_to_image(cb, src, raw, L::TRANSFER_DST_OPTIMAL, &copies);
                barrier(transition(
                    raw,
                    levels_range(0, count),
                    (S::COPY, A::TRANSFER_WRITE),
                    (S::FRAGMENT_SHADER, A::SHADER_SAMPLED_READ),
                    (L::TRANSFER_DST_OPTIMAL, L::SHADER_READ_ONLY_OPTIMAL),
                ));
            }
        })?;
        drop(staging);
        Ok(t.finish())
    }
}

/// A 2D image of `format` with `levels` mip levels, sampled and written by
/// transfers (and `usage` besides), with its view; not yet written.
fn sampled_image<'a>(
    gpu: &'a Gpu,
    (width, height): (u32, u32),
    format: vk::Format,
    levels: u32,
    usage: vk::ImageUsageFlags,
    name: &str,
) -> Result<Guard<'a, Image>, RenderError> {
    let mut t = Guard::new(gpu, Image { extent: vk::Extent2D { width, height }, ..Image::null() });
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(format)
        .extent(vk::Extent3D { width, height, depth: 1 })
        .mip_levels(levels)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST | usage)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    let tex = &mut *t;
    create_image_memory(gpu, &info, name, &mut tex.raw, &mut tex.alloc)?;
    let view_info = vk::ImageViewCreateInfo::default()
        .image(t.raw)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(format)
        .subresource_range(levels_range(0, levels));
    // SAFETY: the image is alive and has this format and these levels.
    t.view = unsafe { gpu.device.create_image_view(&view_info, None) }.vk("vkCreateImageView")?;
    Ok(t)
}

/// A host-written buffer of `bytes` to copy texels from.
fn staging_buffer(gpu: &Gpu, bytes: usize) -> Result<Guard<'_, Buffer>, RenderError> {
    let buffer = Buffer::new(
        gpu,
        bytes as u64,
        vk::BufferUsageFlags::TRANSFER_SRC,
        MemoryLocation::CpuToGpu,
        "texture staging",
    )?;
    Ok(Guard::new(gpu, buffer))
}

/// Copies the staging buffer into level 0, blits each level from the one
/// above, and leaves every level readable by fragment shaders.
///
/// # Safety
/// `cb` is recording; `image` has `levels` levels of `extent` at the top
/// and is in the undefined layout; `src` holds the top level's texels.
unsafe fn record_upload(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    image: vk::Image,
    src: vk::Buffer,
    (width, height): (u32, u32),
    levels: u32,
) {
    use vk::{AccessFlags2 as A, ImageLayout as L, PipelineStageFlags2 as S};
    let barrier = |barriers: &[vk::ImageMemoryBarrier2<'_>]| {
        d.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().image_memory_barriers(barriers));
    };
    barrier(&[transition(
        image,
        levels_range(0, levels),
        (S::NONE, A::NONE),
        (S::COPY | S::BLIT, A::TRANSFER_WRITE),
        (L::UNDEFINED, L::TRANSFER_DST_OPTIMAL),
    )]);
    let copy = vk::BufferImageCopy::default().image_subresource(layers(0)).image_extent(vk::Extent3D {
        width,
        height,
        depth: 1,
    });
    d.cmd_copy_buffer_to_image(cb, src, image, L::TRANSFER_DST_OPTIMAL, &[copy]);
    let size = |level: u32| ((width >> level).max(1) as i32, (height >> level).max(1) as i32);
    for level in 1..levels {
        // The level above: written (copy or blit), now read by this blit.
        barrier(&[transition(
            image,
            levels_range(level - 1, 1),
            (S::COPY | S::BLIT, A::TRANSFER_WRITE),
            (S::BLIT, A::TRANSFER_READ),
            (L::TRANSFER_DST_OPTIMAL, L::TRANSFER_SRC_OPTIMAL),
        )]);
        let ((sw, sh), (dw, dh)) = (size(level - 1), size(level));
        let blit = vk::ImageBlit {
            src_subresource: layers(level - 1),
            src_offsets: [vk::Offset3D::default(), vk::Offset3D { x: sw, y: sh, z: 1 }],
            dst_subresource: layers(level),
            dst_offsets: [vk::Offset3D::default(), vk::Offset3D { x: dw, y: dh, z: 1 }],
        };
        d.cmd_blit_image(
            cb,
            image,
            L::TRANSFER_SRC_OPTIMAL,
            image,
            L::TRANSFER_DST_OPTIMAL,
            &[blit],
            vk::Filter::LINEAR,
        );
    }
    // Every level but the last was a blit source; the last was written.
    let mut done = Vec::with_capacity(2);
    if levels > 1 {
        done.push(transition(
            image,
            levels_range(0, levels - 1),
            (S::BLIT, A::TRANSFER_READ),
            (S::FRAGMENT_SHADER, A::SHADER_SAMPLED_READ),
            (L::TRANSFER_SRC_OPTIMAL, L::SHADER_READ_ONLY_OPTIMAL),
        ));
    }
    done.push(transition(
        image,
        levels_range(levels - 1, 1),
        (S::COPY | S::BLIT, A::TRANSFER_WRITE),
        (S::FRAGMENT_SHADER, A::SHADER_SAMPLED_READ),
        (L::TRANSFER_DST_OPTIMAL, L::SHADER_READ_ONLY_OPTIMAL),
    ));
    barrier(&done);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_mip_chain_ends_at_one_texel() {
        assert_eq!(mip_levels(1, 1), 1);
        assert_eq!(mip_levels(2, 2), 2);
        assert_eq!(mip_levels(2048, 2048), 12);
        assert_eq!(mip_levels(300, 17), 9);
    }
}
