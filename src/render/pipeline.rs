//! Graphics pipelines. Dynamic rendering (no render passes); viewport,
//! scissor and the depth compare op are dynamic state, so one pipeline
//! serves both depth modes and any target size.

use std::ffi::CStr;

use ash::vk;

use super::context::Context;
use super::error::{RenderError, VkContext};

/// SPIR-V compiled by build.rs from `shaders/`.
pub(crate) mod spirv {
    macro_rules! shader {
        ($name:literal) => {
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".spv"))
        };
    }
    pub const SCENE_VERT: &[u8] = shader!("scene.vert");
    pub const SCENE_FRAG: &[u8] = shader!("scene.frag");
    pub const GRID_VERT: &[u8] = shader!("grid.vert");
    pub const GRID_FRAG: &[u8] = shader!("grid.frag");
    pub const OVERLAY_VERT: &[u8] = shader!("overlay.vert");
    pub const OVERLAY_FRAG: &[u8] = shader!("overlay.frag");
}

pub(crate) const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
const ENTRY: &CStr = c"main";

/// Per-vertex data of a scene mesh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Vertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
}

/// Per-instance data of a scene object (128 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SceneInstance {
    pub model_view: [[f32; 4]; 4],
    pub normal: [[f32; 4]; 3],
    pub color: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScenePush {
    pub projection: [[f32; 4]; 4],
    pub light_dir_view: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct GridPush {
    pub view_projection_rotation: [[f32; 4]; 4],
    pub eye: [f32; 4],
    pub params: [f32; 4],
}

/// Views a plain-old-data value as bytes.
pub(crate) fn bytes_of<T: Copy>(v: &T) -> &[u8] {
    // SAFETY: T is a #[repr(C)] Copy type of f32 arrays with no padding.
    unsafe { std::slice::from_raw_parts(v as *const T as *const u8, std::mem::size_of::<T>()) }
}

/// Views a slice of plain-old-data values as bytes.
pub(crate) fn slice_bytes<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: as above, for a contiguous slice.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

fn shader_module(ctx: &Context, code: &[u8]) -> Result<vk::ShaderModule, RenderError> {
    let words = ash::util::read_spv(&mut std::io::Cursor::new(code))
        .map_err(|e| RenderError::Other(format!("bad SPIR-V: {e}")))?;
    // SAFETY: valid SPIR-V produced by shaderc at build time.
    unsafe { ctx.device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None) }
        .vk("vkCreateShaderModule")
}

/// A pipeline and its layout, destroyed together.
pub(crate) struct Pipeline {
    pub raw: vk::Pipeline,
    pub layout: vk::PipelineLayout,
}

impl Pipeline {
    pub fn destroy(&mut self, ctx: &Context) {
        // SAFETY: the owner waited for the GPU.
        unsafe {
            ctx.device.destroy_pipeline(self.raw, None);
            ctx.device.destroy_pipeline_layout(self.layout, None);
        }
    }
}

/// What differs between our pipelines.
pub(crate) struct PipelineDesc<'a> {
    pub vert: &'a [u8],
    pub frag: &'a [u8],
    pub bindings: &'a [vk::VertexInputBindingDescription],
    pub attributes: &'a [vk::VertexInputAttributeDescription],
    pub topology: vk::PrimitiveTopology,
    pub push_size: u32,
    pub set_layouts: &'a [vk::DescriptorSetLayout],
    pub depth_write: bool,
    pub blend: bool,
}

impl PipelineDesc<'_> {
    pub fn build(&self, ctx: &Context, color_format: vk::Format) -> Result<Pipeline, RenderError> {
        let vert = shader_module(ctx, self.vert)?;
        let frag = match shader_module(ctx, self.frag) {
            Ok(f) => f,
            Err(e) => {
                unsafe { ctx.device.destroy_shader_module(vert, None) };
                return Err(e);
            }
        };
        let result = self.build_with(ctx, color_format, vert, frag);
        // SAFETY: modules are no longer needed once the pipeline exists.
        unsafe {
            ctx.device.destroy_shader_module(vert, None);
            ctx.device.destroy_shader_module(frag, None);
        }
        result
    }

    fn build_with(
        &self,
        ctx: &Context,
        color_format: vk::Format,
        vert: vk::ShaderModule,
        frag: vk::ShaderModule,
    ) -> Result<Pipeline, RenderError> {
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT)
            .offset(0)
            .size(self.push_size)];
        // SAFETY: valid create infos referring to locals.
        let layout = unsafe {
            ctx.device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&push).set_layouts(self.set_layouts),
                None,
            )
        }
        .vk("vkCreatePipelineLayout")?;

        let stages = [
            vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::VERTEX).module(vert).name(ENTRY),
            vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::FRAGMENT).module(frag).name(ENTRY),
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(self.bindings)
            .vertex_attribute_descriptions(self.attributes);
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(self.topology);
        let viewport = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::CLOCKWISE)
            .line_width(1.0);
        let multisample =
            vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let depth = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(true)
            .depth_write_enable(self.depth_write)
            // Overridden every frame by cmd_set_depth_compare_op.
            .depth_compare_op(vk::CompareOp::GREATER_OR_EQUAL);
        let attachment = [if self.blend {
            vk::PipelineColorBlendAttachmentState::default()
                .blend_enable(true)
                .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
                .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .color_blend_op(vk::BlendOp::ADD)
                .src_alpha_blend_factor(vk::BlendFactor::ONE)
                .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                .alpha_blend_op(vk::BlendOp::ADD)
                .color_write_mask(vk::ColorComponentFlags::RGBA)
        } else {
            vk::PipelineColorBlendAttachmentState::default().color_write_mask(vk::ColorComponentFlags::RGBA)
        }];
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachment);
        let dynamic_states =
            [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR, vk::DynamicState::DEPTH_COMPARE_OP];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let formats = [color_format];
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&formats)
            .depth_attachment_format(DEPTH_FORMAT);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(layout)
            .push_next(&mut rendering);
        // SAFETY: all referenced state lives until the call returns.
        match unsafe { ctx.device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) } {
            Ok(p) => Ok(Pipeline { raw: p[0], layout }),
            Err((_, e)) => {
                unsafe { ctx.device.destroy_pipeline_layout(layout, None) };
                Err(RenderError::Vk { call: "vkCreateGraphicsPipelines", result: e })
            }
        }
    }
}

/// Vertex input of an instanced mesh: binding 0 per vertex ([`Vertex`]:
/// position at location 0, normal at 1), binding 1 per instance: `vec4s`
/// consecutive vec4s from location 2, `instance_stride` bytes apart.
pub(crate) fn instanced_vertex_input(
    instance_stride: u32,
    vec4s: u32,
) -> ([vk::VertexInputBindingDescription; 2], Vec<vk::VertexInputAttributeDescription>) {
    let bindings = [
        vk::VertexInputBindingDescription {
            binding: 0,
            stride: std::mem::size_of::<Vertex>() as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        },
        vk::VertexInputBindingDescription {
            binding: 1,
            stride: instance_stride,
            input_rate: vk::VertexInputRate::INSTANCE,
        },
    ];
    let mut attributes = vec![
        vk::VertexInputAttributeDescription {
            location: 0,
            binding: 0,
            format: vk::Format::R32G32B32_SFLOAT,
            offset: 0,
        },
        vk::VertexInputAttributeDescription {
            location: 1,
            binding: 0,
            format: vk::Format::R32G32B32_SFLOAT,
            offset: 12,
        },
    ];
    attributes.extend((0..vec4s).map(|i| vk::VertexInputAttributeDescription {
        location: 2 + i,
        binding: 1,
        format: vk::Format::R32G32B32A32_SFLOAT,
        offset: 16 * i,
    }));
    (bindings, attributes)
}

/// The scene pipeline: per-vertex position + normal, per-instance data.
pub(crate) fn scene_pipeline(ctx: &Context, color_format: vk::Format) -> Result<Pipeline, RenderError> {
    // 4 model-view columns, 3 normal-matrix columns, 1 colour: eight vec4s.
    let (bindings, attributes) = instanced_vertex_input(std::mem::size_of::<SceneInstance>() as u32, 8);
    PipelineDesc {
        vert: spirv::SCENE_VERT,
        frag: spirv::SCENE_FRAG,
        bindings: &bindings,
        attributes: &attributes,
        topology: vk::PrimitiveTopology::TRIANGLE_LIST,
        push_size: std::mem::size_of::<ScenePush>() as u32,
        set_layouts: &[],
        depth_write: true,
        blend: false,
    }
    .build(ctx, color_format)
}

/// The ground grid: no vertex input, alpha-blended, depth-tested, no depth write.
pub(crate) fn grid_pipeline(ctx: &Context, color_format: vk::Format) -> Result<Pipeline, RenderError> {
    PipelineDesc {
        vert: spirv::GRID_VERT,
        frag: spirv::GRID_FRAG,
        bindings: &[],
        attributes: &[],
        topology: vk::PrimitiveTopology::TRIANGLE_STRIP,
        push_size: std::mem::size_of::<GridPush>() as u32,
        set_layouts: &[],
        depth_write: false,
        blend: true,
    }
    .build(ctx, color_format)
}
