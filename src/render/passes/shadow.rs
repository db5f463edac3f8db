//! The shadow pass: the shadow casters of each cascade drawn, depth only,
//! into the cascade's layer of the shadow maps
//! ([`crate::render::assets::shadow_map`]) from the light's orthographic
//! view (standard depth). The scene's vertex shader and instances serve
//! (each cascade has its own instances, model-view from the light's view);
//! opaque parts write depth, MASK parts the shape their alpha test keeps,
//! BLEND and unlit parts nothing. A slope-scaled depth bias and the scene
//! shader's normal offset keep lit surfaces from shadowing themselves.

use ash::vk;

use crate::render::assets::material::{MaterialPush, Pass};
use crate::render::assets::shadow_map::SHADOW_FORMAT;
use crate::render::device::error::RenderError;
use crate::render::device::pipeline::{self, spirv, IdAttachment, Pipeline, PipelineDesc};
use crate::render::device::{Destroy, Gpu, Guard};
use crate::render::passes::scene::{instance_input, record_draws, SceneInputs, MATERIAL_PUSH_OFFSET};

/// Slope-scaled depth bias of the shadow maps (in units of the depth
/// slope of each triangle).
const SLOPE_BIAS: f32 = 1.5;

/// The shadow pipelines, indexed by [`Pass`] (no BLEND one: those parts
/// cast nothing).
#[derive(Default)]
pub(crate) struct ShadowPass {
    pipelines: [Pipeline; 3],
}

impl ShadowPass {
    pub fn new(gpu: &Gpu, material_layout: vk::DescriptorSetLayout) -> Result<ShadowPass, RenderError> {
        let (bindings, attributes) = instance_input();
        let (surface, surface_attributes) = pipeline::surface_vertex_input();
        let bindings: Vec<_> = bindings.iter().copied().chain([surface]).collect();
        let attributes: Vec<_> = attributes.iter().copied().chain(surface_attributes).collect();
        let mut pass = Guard::new(gpu, ShadowPass::default());
        for (i, kind) in [Pass::Opaque, Pass::Mask].into_iter().enumerate() {
            pass.pipelines[kind as usize] = PipelineDesc {
                name: "shadow",
                vert: spirv::SCENE_VERT,
                frag: spirv::SHADOW_FRAG,
                bindings: &bindings,
                attributes: &attributes,
                topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                push_size: MATERIAL_PUSH_OFFSET + std::mem::size_of::<MaterialPush>() as u32,
                set_layouts: &[material_layout],
                depth_test: true,
                depth_write: true,
                blend: false,
                ids: IdAttachment::Absent,
                frag_constants: &[i as u32],
                depth_bias: Some((0.0, SLOPE_BIAS)),
            }
            .build(gpu, vk::Format::UNDEFINED, SHADOW_FORMAT, vk::SampleCountFlags::TYPE_1)?;
        }
        Ok(pass.finish())
    }

    /// Records one cascade's casters; returns (draw calls, instances).
    ///
    /// # Safety
    /// `cmd` is recording inside a rendering scope with the shadow map's
    /// layer as depth and one unused colour attachment, viewport and
    /// scissor set; what `inputs` names stays alive until the GPU finished.
    pub unsafe fn record(&self, d: &ash::Device, cmd: vk::CommandBuffer, inputs: &SceneInputs) -> (u32, u32) {
        // BLEND and unlit parts cast nothing.
        record_draws(d, cmd, &self.pipelines, inputs, |pass, m| pass == Pass::Blend || m.push.params[1] > 0.5)
    }
}

impl Destroy for ShadowPass {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        for p in &mut self.pipelines {
            p.destroy(gpu);
        }
    }
}
