//! The environment behind the scene (`lighting.background:
//! "environment"`): one full-screen triangle per view, drawn first in the
//! scene's colour scope, whose fragment shader (`shaders/sky.frag`) shows
//! the environment's radiance along each pixel's view ray. It reads the
//! lighting block and the environment's maps through a material's set
//! (the set layout is the materials'), tests no depth and writes none, and
//! writes id 0 where the scope has the ID target.

use ash::vk;
use bytemuck::{Pod, Zeroable};
use nalgebra::Matrix4;

use crate::render::device::error::RenderError;
use crate::render::device::pipeline::{self, spirv, to_f32_cols, IdAttachment, Pipeline, PipelineDesc};
use crate::render::device::{Destroy, Gpu, Guard};

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct SkyPush {
    inverse_projection: [[f32; 4]; 4],
    /// The view's rectangle in pixels: x, y, width, height.
    rect: [f32; 4],
    /// x: 1 for an orthographic projection.
    mode: [f32; 4],
}

/// The sky pipelines: single-sampled with the ID target, and (with MSAA)
/// multisampled without it, as the scene pass's.
#[derive(Default)]
pub(crate) struct SkyPass {
    single: Pipeline,
    multisampled: Pipeline,
}

impl SkyPass {
    pub fn new(
        gpu: &Gpu,
        color_format: vk::Format,
        depth_format: vk::Format,
        samples: vk::SampleCountFlags,
        material_layout: vk::DescriptorSetLayout,
    ) -> Result<SkyPass, RenderError> {
        let mut pass = Guard::new(gpu, SkyPass::default());
        let one = vk::SampleCountFlags::TYPE_1;
        let mut variants = vec![(one, IdAttachment::Written)];
        if samples != one {
            variants.push((samples, IdAttachment::Absent));
        }
        for (count, ids) in variants {
            // Depth "tested" so that the pipeline takes the scope's depth
            // attachment; the recorded compare op is ALWAYS and nothing
            // is written.
            let built = PipelineDesc {
                name: "sky",
                vert: spirv::SCREEN_VERT,
                frag: spirv::SKY_FRAG,
                bindings: &[],
                attributes: &[],
                topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                push_size: std::mem::size_of::<SkyPush>() as u32,
                set_layouts: &[material_layout],
                depth_test: true,
                depth_write: false,
                blend: false,
                ids,
                frag_constants: &[],
                depth_bias: None,
            }
            .build(gpu, color_format, depth_format, count)?;
            if count == one {
                pass.single = built;
            } else {
                pass.multisampled = built;
            }
        }
        Ok(pass.finish())
    }

    /// Records the environment over view rectangle `rect` seen through
    /// `projection`, with material set `set` bound at the frame's lighting
    /// offset `lighting_offset`.
    ///
    /// # Safety
    /// `cmd` is recording inside the scene pass's rendering scope (the
    /// multisampled colour scope when `multisampled`), viewport and
    /// scissor set to `rect`; `set` lives until the GPU finished it.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn record(
        &self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
        projection: &Matrix4<f64>,
        rect: vk::Rect2D,
        set: vk::DescriptorSet,
        lighting_offset: u32,
        multisampled: bool,
    ) {
        let Some(inverse) = projection.try_inverse() else { return };
        let p = if multisampled { &self.multisampled } else { &self.single };
        let orthographic = projection[(3, 3)] == 1.0 && projection[(3, 2)] == 0.0;
        let push = SkyPush {
            inverse_projection: to_f32_cols(&inverse),
            rect: [rect.offset.x as f32, rect.offset.y as f32, rect.extent.width as f32, rect.extent.height as f32],
            mode: [if orthographic { 1.0 } else { 0.0 }, 0.0, 0.0, 0.0],
        };
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, p.raw);
        d.cmd_set_depth_compare_op(cmd, vk::CompareOp::ALWAYS);
        d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::GRAPHICS, p.layout, 0, &[set], &[lighting_offset]);
        pipeline::push(d, cmd, p.layout, &push);
        d.cmd_draw(cmd, 3, 1, 0, 0);
    }
}

impl Destroy for SkyPass {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.single.destroy(gpu);
        self.multisampled.destroy(gpu);
    }
}
