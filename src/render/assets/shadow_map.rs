//! The directional light's shadow maps on the GPU: one D32 layer per
//! cascade ([`crate::look::shadow`]), drawn by the shadow pass through a
//! view per layer and read by the scene shader (binding 10 of every
//! material set) through an array view and a comparing sampler. Between
//! frames the image rests in `SHADER_READ_ONLY_OPTIMAL`, so that a frame
//! without shadows still binds a valid image.

use ash::vk;
use gpu_allocator::vulkan::Allocation;

use crate::look::shadow::{CASCADES, SHADOW_MAP_SIZE};
use crate::render::device::context::Context;
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::memory::create_image_memory;
use crate::render::device::upload::one_shot;
use crate::render::device::{Destroy, Gpu, Guard};

/// The maps' format.
pub(crate) const SHADOW_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

/// Every layer, depth aspect.
fn layers(base: u32, count: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::DEPTH,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: base,
        layer_count: count,
    }
}

/// The shadow maps: the image, a view per layer (attachments), the array
/// view and sampler the scene shader reads.
pub(crate) struct ShadowImage {
    pub raw: vk::Image,
    alloc: Option<Allocation>,
    /// One 2-D view per cascade, to draw into.
    pub layer_views: Vec<vk::ImageView>,
    /// All layers as a 2-D array, to read.
    pub array_view: vk::ImageView,
    /// Compares against the stored depth (LESS_OR_EQUAL: 1 where lit),
    /// linear where the device filters depth (2 x 2 texels per tap).
    pub sampler: vk::Sampler,
}

impl Default for ShadowImage {
    fn default() -> ShadowImage {
        ShadowImage {
            raw: vk::Image::null(),
            alloc: None,
            layer_views: Vec::new(),
            array_view: vk::ImageView::null(),
            sampler: vk::Sampler::null(),
        }
    }
}

impl Destroy for ShadowImage {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        let d = &gpu.device;
        d.destroy_sampler(self.sampler, None);
        d.destroy_image_view(self.array_view, None);
        for v in self.layer_views.drain(..) {
            d.destroy_image_view(v, None);
        }
        d.destroy_image(self.raw, None);
        if let Some(a) = self.alloc.take() {
            let _ = gpu.allocator().free(a);
        }
        *self = ShadowImage::default();
    }
}

impl ShadowImage {
    /// Creates the maps (each layer cleared to the far depth) and leaves
    /// them ready to be read.
    pub fn new(ctx: &Context) -> Result<ShadowImage, RenderError> {
        let gpu = &ctx.gpu;
        let d = ctx.device();
        let mut s = Guard::new(gpu, ShadowImage::default());
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(SHADOW_FORMAT)
            .extent(vk::Extent3D { width: SHADOW_MAP_SIZE, height: SHADOW_MAP_SIZE, depth: 1 })
            .mip_levels(1)
            .array_layers(CASCADES as u32)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let this = &mut *s;
        create_image_memory(gpu, &info, "shadow maps", &mut this.raw, &mut this.alloc)?;
        let view = |ty: vk::ImageViewType, range: vk::ImageSubresourceRange| {
            let info = vk::ImageViewCreateInfo::default()
                .image(this.raw)
                .view_type(ty)
                .format(SHADOW_FORMAT)
                .subresource_range(range);
            // SAFETY: the image is alive and has this format and these layers.
            unsafe { d.create_image_view(&info, None) }.vk("vkCreateImageView")
        };
        for k in 0..CASCADES as u32 {
            let v = view(vk::ImageViewType::TYPE_2D, layers(k, 1))?;
            this.layer_views.push(v);
        }
        this.array_view = view(vk::ImageViewType::TYPE_2D_ARRAY, layers(0, CASCADES as u32))?;
        // SAFETY: plain queries and object creation; destroyed in `destroy`.
        let props = unsafe { ctx.roots.instance.get_physical_device_format_properties(ctx.physical, SHADOW_FORMAT) };
        let filter = if props.optimal_tiling_features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR) {
            vk::Filter::LINEAR
        } else {
            vk::Filter::NEAREST
        };
        let sampler = vk::SamplerCreateInfo::default()
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .compare_enable(true)
            .compare_op(vk::CompareOp::LESS_OR_EQUAL)
            .max_lod(0.0);
        // SAFETY: as above.
        this.sampler = unsafe { d.create_sampler(&sampler, None) }.vk("vkCreateSampler")?;
        let raw = this.raw;
        one_shot(ctx, |cmd| {
            let to_read = vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::NONE)
                .dst_stage_mask(vk::PipelineStageFlags2::FRAGMENT_SHADER)
                .dst_access_mask(vk::AccessFlags2::SHADER_SAMPLED_READ)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
                .image(raw)
                .subresource_range(layers(0, CASCADES as u32));
            // SAFETY: `cmd` is recording; the image is alive.
            unsafe {
                d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&[to_read]));
            }
        })?;
        Ok(s.finish())
    }

    /// The barrier before the shadow pass: every layer becomes a depth
    /// attachment (contents discarded: each is cleared), after the
    /// previous frames' reads.
    pub fn to_attachment(&self) -> vk::ImageMemoryBarrier2<'static> {
        vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::FRAGMENT_SHADER)
            .src_access_mask(vk::AccessFlags2::NONE)
            .dst_stage_mask(
                vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
            )
            .dst_access_mask(
                vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
            )
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .image(self.raw)
            .subresource_range(layers(0, CASCADES as u32))
    }

    /// The barrier after the shadow pass: the depth writes are read by the
    /// scene pass's fragment shader.
    pub fn to_read(&self) -> vk::ImageMemoryBarrier2<'static> {
        vk::ImageMemoryBarrier2::default()
            .src_stage_mask(
                vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
            )
            .src_access_mask(vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::FRAGMENT_SHADER)
            .dst_access_mask(vk::AccessFlags2::SHADER_SAMPLED_READ)
            .old_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
            .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
            .image(self.raw)
            .subresource_range(layers(0, CASCADES as u32))
    }
}
