//! The overlay pass: gizmo geometry drawn after the scene.
//!
//! Each [`MeshKind`] has one canonical mesh (see `gizmo::overlay` for their
//! exact shapes) and one instanced draw per frame, whatever the handle count.
//! The pass renders against its own cleared depth buffer and samples the
//! scene's depth (one combined image sampler per frame in flight) to fade
//! the parts that scene geometry hides.

use ash::vk;

use super::context::Context;
use super::error::{RenderError, VkContext};
use super::pipeline::{instanced_vertex_input, spirv, Pipeline, PipelineDesc};
use crate::gizmo::MeshKind;

/// Drawing order: opaque kinds first, translucent planes and discs last.
pub(crate) const KINDS: [MeshKind; 6] =
    [MeshKind::Shaft, MeshKind::Cone, MeshKind::Cube, MeshKind::Ring, MeshKind::PlaneQuad, MeshKind::Disc];

/// Alpha factor for gizmo parts behind scene geometry.
pub(crate) const HIDDEN_ALPHA: f32 = 0.25;

/// Per-instance data of a gizmo piece (80 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OverlayGpuInstance {
    pub model_view: [[f32; 4]; 4],
    pub color: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct OverlayPush {
    pub projection: [[f32; 4]; 4],
    pub params: [f32; 4],
}

/// Descriptor objects of the overlay pass, one set per frame in flight.
pub(crate) struct OverlayDescriptors {
    pub layout: vk::DescriptorSetLayout,
    pub pool: vk::DescriptorPool,
    pub sets: Vec<vk::DescriptorSet>,
    pub sampler: vk::Sampler,
}

impl OverlayDescriptors {
    pub fn new(ctx: &Context, frames: usize) -> Result<OverlayDescriptors, RenderError> {
        let mut d = OverlayDescriptors {
            layout: vk::DescriptorSetLayout::null(),
            pool: vk::DescriptorPool::null(),
            sets: Vec::new(),
            sampler: vk::Sampler::null(),
        };
        let made = (|| {
            let bindings = [vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::FRAGMENT)];
            // SAFETY: plain object creation; destroyed in `destroy`.
            unsafe {
                d.layout = ctx
                    .device
                    .create_descriptor_set_layout(
                        &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                        None,
                    )
                    .vk("vkCreateDescriptorSetLayout")?;
                let sizes = [vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                    descriptor_count: frames as u32,
                }];
                d.pool = ctx
                    .device
                    .create_descriptor_pool(
                        &vk::DescriptorPoolCreateInfo::default().max_sets(frames as u32).pool_sizes(&sizes),
                        None,
                    )
                    .vk("vkCreateDescriptorPool")?;
                let layouts = vec![d.layout; frames];
                d.sets = ctx
                    .device
                    .allocate_descriptor_sets(
                        &vk::DescriptorSetAllocateInfo::default().descriptor_pool(d.pool).set_layouts(&layouts),
                    )
                    .vk("vkAllocateDescriptorSets")?;
                d.sampler = ctx
                    .device
                    .create_sampler(
                        &vk::SamplerCreateInfo::default()
                            .mag_filter(vk::Filter::NEAREST)
                            .min_filter(vk::Filter::NEAREST)
                            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE),
                        None,
                    )
                    .vk("vkCreateSampler")?;
            }
            Ok(())
        })();
        match made {
            Ok(()) => Ok(d),
            Err(e) => {
                d.destroy(ctx);
                Err(e)
            }
        }
    }

    /// Points frame `frame`'s set at the scene depth view.
    ///
    /// # Safety
    /// The frame's previous submission has completed (its fence was waited).
    pub unsafe fn bind_scene_depth(&self, ctx: &Context, frame: usize, depth_view: vk::ImageView) {
        let image = [vk::DescriptorImageInfo {
            sampler: self.sampler,
            image_view: depth_view,
            image_layout: vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL,
        }];
        let write = vk::WriteDescriptorSet::default()
            .dst_set(self.sets[frame])
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
            .image_info(&image);
        ctx.device.update_descriptor_sets(&[write], &[]);
    }

    pub fn destroy(&mut self, ctx: &Context) {
        // SAFETY: the renderer waited for the device; null handles are ignored.
        unsafe {
            ctx.device.destroy_sampler(self.sampler, None);
            ctx.device.destroy_descriptor_pool(self.pool, None);
            ctx.device.destroy_descriptor_set_layout(self.layout, None);
        }
        self.sets.clear();
        self.sampler = vk::Sampler::null();
        self.pool = vk::DescriptorPool::null();
        self.layout = vk::DescriptorSetLayout::null();
    }
}

/// The overlay pipeline: alpha-blended, depth-tested and -written against the
/// overlay's own depth, reading the scene depth through set 0.
pub(crate) fn overlay_pipeline(
    ctx: &Context,
    color_format: vk::Format,
    set_layout: vk::DescriptorSetLayout,
) -> Result<Pipeline, RenderError> {
    // 4 model-view columns and the colour: five vec4s.
    let (bindings, attributes) = instanced_vertex_input(std::mem::size_of::<OverlayGpuInstance>() as u32, 5);
    PipelineDesc {
        vert: spirv::OVERLAY_VERT,
        frag: spirv::OVERLAY_FRAG,
        bindings: &bindings,
        attributes: &attributes,
        topology: vk::PrimitiveTopology::TRIANGLE_LIST,
        push_size: std::mem::size_of::<OverlayPush>() as u32,
        set_layouts: &[set_layout],
        depth_write: true,
        blend: true,
    }
    .build(ctx, color_format)
}
