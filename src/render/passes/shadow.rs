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
use crate::render::desc::MaterialId;
use crate::render::device::error::RenderError;
use crate::render::device::pipeline::{self, instanced_vertex_input, spirv, IdAttachment, Pipeline, PipelineDesc};
use crate::render::device::{Destroy, Gpu, Guard};
use crate::render::passes::scene::{plan, Bound, SceneInputs, SceneInstance, ScenePush, MATERIAL_PUSH_OFFSET};

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
        let (bindings, mut attributes) = instanced_vertex_input(std::mem::size_of::<SceneInstance>() as u32, 8);
        attributes.push(vk::VertexInputAttributeDescription {
            location: 10,
            binding: 1,
            format: vk::Format::R32_UINT,
            offset: std::mem::offset_of!(SceneInstance, id) as u32,
        });
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
        if inputs.batches.is_empty() {
            return (0, 0);
        }
        let push = ScenePush::new(&inputs.projection);
        let materials = inputs.materials;
        let pass_of = |id: MaterialId| materials.get(id).map_or(Pass::Opaque, |m| m.pass);
        let draws = plan(&inputs.batches.runs, |m| &inputs.meshes[m].parts, pass_of);
        let (mut bound, mut mesh) = (Bound::for_slot(inputs.lighting_slot), None);
        let (mut calls, mut instances) = (0, 0);
        for draw in draws.iter().filter(|d| d.pass != Pass::Blend) {
            let Some(m) = materials.get(draw.material) else { continue };
            // Unlit materials cast nothing.
            if m.push.params[1] > 0.5 {
                continue;
            }
            bound.bind(d, cmd, &self.pipelines, (draw.pass, draw.material), m, inputs.depth, &push, |_| {});
            if mesh != Some(draw.mesh) {
                if !inputs.meshes[draw.mesh].bind_scene(d, cmd, inputs.instance_buffer) {
                    continue;
                }
                mesh = Some(draw.mesh);
            }
            let first = inputs.first_instance + draw.instances.0;
            d.cmd_draw_indexed(cmd, draw.indices.1, draw.instances.1, draw.indices.0, 0, first);
            calls += 1;
            instances += draw.instances.1;
        }
        (calls, instances)
    }
}

impl Destroy for ShadowPass {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        for p in &mut self.pipelines {
            p.destroy(gpu);
        }
    }
}
