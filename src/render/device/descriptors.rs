//! Descriptor sets per frame in flight and the sampler that fetches
//! texels as they are.

use ash::vk;

use super::error::{RenderError, VkContext};

/// A descriptor-set layout of `bindings`, a pool sized by `sizes` for
/// `frames` sets, and one set per frame in flight. Each handle is written
/// out as soon as it exists, so the caller's guard destroys what was made.
///
/// # Safety
/// `layout` and `pool` must be null or owned by the caller's guard.
pub(crate) unsafe fn per_frame_sets(
    d: &ash::Device,
    bindings: &[vk::DescriptorSetLayoutBinding<'_>],
    sizes: &[vk::DescriptorPoolSize],
    frames: usize,
    layout: &mut vk::DescriptorSetLayout,
    pool: &mut vk::DescriptorPool,
) -> Result<Vec<vk::DescriptorSet>, RenderError> {
    // SAFETY: plain object creation; the caller's guard owns the results.
    unsafe {
        *layout = d
            .create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings), None)
            .vk("vkCreateDescriptorSetLayout")?;
        *pool = d
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default().max_sets(frames as u32).pool_sizes(sizes),
                None,
            )
            .vk("vkCreateDescriptorPool")?;
        let layouts = vec![*layout; frames];
        d.allocate_descriptor_sets(
            &vk::DescriptorSetAllocateInfo::default().descriptor_pool(*pool).set_layouts(&layouts),
        )
        .vk("vkAllocateDescriptorSets")
    }
}

/// A sampler that reads texels as they are: nearest, clamped to the edge
/// (depth and object-id images are fetched, never filtered).
pub(crate) fn nearest_clamp_sampler() -> vk::SamplerCreateInfo<'static> {
    vk::SamplerCreateInfo::default()
        .mag_filter(vk::Filter::NEAREST)
        .min_filter(vk::Filter::NEAREST)
        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
}
