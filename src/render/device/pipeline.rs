//! What the passes' pipelines share: SPIR-V, the vertex layout of meshes,
//! [`PipelineDesc`] (the few things that differ between pipelines) and the
//! dynamic state every pass sets. Dynamic rendering (no render passes);
//! viewport, scissor and the depth compare op are dynamic state, so one
//! pipeline serves both depth modes and any target size.

use std::ffi::CStr;

use ash::vk;

use bytemuck::{Pod, Zeroable};

use super::error::{RenderError, VkContext};
use super::{Destroy, Gpu, Guard};
use crate::math::DepthMode;

/// SPIR-V compiled by build.rs from `shaders/`.
pub(crate) mod spirv {
    macro_rules! shader {
        ($name:literal) => {
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".spv"))
        };
    }
    pub const SCENE_VERT: &[u8] = shader!("scene.vert");
    pub const SCENE_FRAG: &[u8] = shader!("scene.frag");
    pub const SCENE_IDS_FRAG: &[u8] = shader!("scene_ids.frag");
    pub const SCENE_GPU_VERT: &[u8] = shader!("scene_gpu.vert");
    pub const CULL_COMP: &[u8] = shader!("cull.comp");
    pub const GRID_VERT: &[u8] = shader!("grid.vert");
    pub const GRID_FRAG: &[u8] = shader!("grid.frag");
    pub const OVERLAY_VERT: &[u8] = shader!("overlay.vert");
    pub const OVERLAY_FRAG: &[u8] = shader!("overlay.frag");
    pub const OVERLAY_PLAIN_FRAG: &[u8] = shader!("overlay_plain.frag");
    pub const SCREEN_VERT: &[u8] = shader!("screen.vert");
    pub const OUTLINE_FRAG: &[u8] = shader!("outline.frag");
    pub const RECT_FRAG: &[u8] = shader!("rect.frag");
    pub const SKY_FRAG: &[u8] = shader!("sky.frag");
    pub const SHADOW_FRAG: &[u8] = shader!("shadow.frag");
}

const ENTRY: &CStr = c"main";

/// Per-vertex data of a mesh (24 bytes, no padding).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct Vertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
}

/// Per-vertex surface data of a scene mesh (48 bytes, no padding): the
/// two texture coordinate sets, the vertex colour and the tangent.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct SurfaceVertex {
    /// `TEXCOORD_0` (xy) and `TEXCOORD_1` (zw), as the file gives them.
    pub uv: [f32; 4],
    /// Linear RGBA.
    pub color: [f32; 4],
    /// The tangent (xyz) and the bitangent's sign (w); zero without one.
    pub tangent: [f32; 4],
}

/// A column-major f32 copy of an f64 matrix, as GLSL `mat4` expects it.
pub(crate) fn to_f32_cols(m: &nalgebra::Matrix4<f64>) -> [[f32; 4]; 4] {
    std::array::from_fn(|c| std::array::from_fn(|r| m[(r, c)] as f32))
}

/// The depth compare op of a depth mode (nearer or equal passes).
pub(crate) fn compare_op(depth: DepthMode) -> vk::CompareOp {
    match depth {
        DepthMode::Reversed => vk::CompareOp::GREATER_OR_EQUAL,
        DepthMode::Standard => vk::CompareOp::LESS_OR_EQUAL,
    }
}

/// Sets the viewport and scissor to the whole of `extent`.
///
/// # Safety
/// `cmd` is recording.
pub(crate) unsafe fn set_full_viewport(device: &ash::Device, cmd: vk::CommandBuffer, extent: vk::Extent2D) {
    set_viewport(device, cmd, vk::Rect2D { offset: vk::Offset2D::default(), extent });
}

/// Sets the viewport (depth 0 to 1) and the scissor to `rect`: drawing
/// into one view of several.
///
/// # Safety
/// `cmd` is recording.
pub(crate) unsafe fn set_viewport(device: &ash::Device, cmd: vk::CommandBuffer, rect: vk::Rect2D) {
    let viewport = vk::Viewport {
        x: rect.offset.x as f32,
        y: rect.offset.y as f32,
        width: rect.extent.width as f32,
        height: rect.extent.height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    device.cmd_set_viewport(cmd, 0, &[viewport]);
    device.cmd_set_scissor(cmd, 0, &[rect]);
}

/// Pushes `value` to the vertex and fragment stages at offset 0.
///
/// # Safety
/// `cmd` is recording and `layout` has a push range of at least `size_of::<T>()` bytes.
pub(crate) unsafe fn push<T: Pod>(device: &ash::Device, cmd: vk::CommandBuffer, layout: vk::PipelineLayout, value: &T) {
    device.cmd_push_constants(
        cmd,
        layout,
        vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
        0,
        bytemuck::bytes_of(value),
    );
}

/// Two shader modules, only needed while a pipeline is created.
struct Modules {
    vert: vk::ShaderModule,
    frag: vk::ShaderModule,
}

impl Destroy for Modules {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        gpu.device.destroy_shader_module(self.vert, None);
        gpu.device.destroy_shader_module(self.frag, None);
        self.vert = vk::ShaderModule::null();
        self.frag = vk::ShaderModule::null();
    }
}

pub(crate) fn shader_module(gpu: &Gpu, code: &[u8], shader: &'static str) -> Result<vk::ShaderModule, RenderError> {
    let words =
        ash::util::read_spv(&mut std::io::Cursor::new(code)).map_err(|source| RenderError::Spirv { shader, source })?;
    // SAFETY: valid SPIR-V produced by shaderc at build time.
    unsafe { gpu.device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None) }
        .vk("vkCreateShaderModule")
}

/// A pipeline and its layout, destroyed together (null until built).
#[derive(Default)]
pub(crate) struct Pipeline {
    pub raw: vk::Pipeline,
    pub layout: vk::PipelineLayout,
}

impl Destroy for Pipeline {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        gpu.device.destroy_pipeline(self.raw, None);
        gpu.device.destroy_pipeline_layout(self.layout, None);
        self.raw = vk::Pipeline::null();
        self.layout = vk::PipelineLayout::null();
    }
}

/// What differs between our pipelines.
pub(crate) struct PipelineDesc<'a> {
    /// For error messages.
    pub name: &'static str,
    pub vert: &'a [u8],
    pub frag: &'a [u8],
    pub bindings: &'a [vk::VertexInputBindingDescription],
    pub attributes: &'a [vk::VertexInputAttributeDescription],
    pub topology: vk::PrimitiveTopology,
    pub push_size: u32,
    pub set_layouts: &'a [vk::DescriptorSetLayout],
    /// Whether a depth attachment is bound and tested (`depth_write` only
    /// matters then); without it the pipeline has no depth format.
    pub depth_test: bool,
    pub depth_write: bool,
    pub blend: bool,
    /// The scene pass's second colour attachment, the object-ID target.
    pub ids: IdAttachment,
    /// Specialization constants of the fragment shader: value `i` for
    /// `constant_id = i` (32-bit each).
    pub frag_constants: &'a [u32],
    /// Depth bias (constant factor, slope factor), for the shadow maps.
    pub depth_bias: Option<(f32, f32)>,
}

/// Whether a pipeline is used in the scene pass's rendering scope, which
/// has the object-ID target ([`ID_FORMAT`]) as colour attachment 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdAttachment {
    /// One colour attachment only.
    Absent,
    /// Attachment 1 is written by the fragment shader's output 1 (no blending).
    Written,
    /// Attachment 1 is bound but left untouched (write mask 0).
    Untouched,
}

/// The format of the object-ID target.
pub(crate) const ID_FORMAT: vk::Format = vk::Format::R32_UINT;

impl PipelineDesc<'_> {
    /// Builds the pipeline for one colour attachment of `color_format` and
    /// a depth attachment of `depth_format`, with `samples` samples per pixel.
    /// A `color_format` of `UNDEFINED` leaves colour attachment 0 unused (no
    /// image bound there, nothing written; the ids pass of an MSAA frame).
    pub fn build(
        &self,
        gpu: &Gpu,
        color_format: vk::Format,
        depth_format: vk::Format,
        samples: vk::SampleCountFlags,
    ) -> Result<Pipeline, RenderError> {
        let mut modules = Guard::new(gpu, Modules { vert: vk::ShaderModule::null(), frag: vk::ShaderModule::null() });
        modules.vert = shader_module(gpu, self.vert, self.name)?;
        modules.frag = shader_module(gpu, self.frag, self.name)?;
        let mut pipeline = Guard::new(gpu, Pipeline::default());
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT)
            .offset(0)
            .size(self.push_size)];
        // SAFETY: valid create info referring to locals.
        pipeline.layout = unsafe {
            gpu.device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&push).set_layouts(self.set_layouts),
                None,
            )
        }
        .vk("vkCreatePipelineLayout")?;
        let (vert, frag) = (modules.vert, modules.frag);
        let entries: Vec<vk::SpecializationMapEntry> = (0..self.frag_constants.len() as u32)
            .map(|i| vk::SpecializationMapEntry { constant_id: i, offset: 4 * i, size: 4 })
            .collect();
        let specialization =
            vk::SpecializationInfo::default().map_entries(&entries).data(bytemuck::cast_slice(self.frag_constants));
        let mut frag_stage =
            vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::FRAGMENT).module(frag).name(ENTRY);
        if !self.frag_constants.is_empty() {
            frag_stage = frag_stage.specialization_info(&specialization);
        }
        let stages = [
            vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::VERTEX).module(vert).name(ENTRY),
            frag_stage,
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(self.bindings)
            .vertex_attribute_descriptions(self.attributes);
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(self.topology);
        let viewport = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
        let mut raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::CLOCKWISE)
            .line_width(1.0);
        if let Some((constant, slope)) = self.depth_bias {
            raster = raster.depth_bias_enable(true).depth_bias_constant_factor(constant).depth_bias_slope_factor(slope);
        }
        let multisample = vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(samples);
        let depth = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(self.depth_test)
            .depth_write_enable(self.depth_test && self.depth_write)
            // Overridden every frame by cmd_set_depth_compare_op.
            .depth_compare_op(vk::CompareOp::GREATER_OR_EQUAL);
        let first = if color_format == vk::Format::UNDEFINED {
            vk::PipelineColorBlendAttachmentState::default()
        } else if self.blend {
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
        };
        // Integer attachments are never blended.
        let id_mask = match self.ids {
            IdAttachment::Written => vk::ColorComponentFlags::R,
            _ => vk::ColorComponentFlags::empty(),
        };
        let attachments = [first, vk::PipelineColorBlendAttachmentState::default().color_write_mask(id_mask)];
        let count = if self.ids == IdAttachment::Absent { 1 } else { 2 };
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments[..count]);
        let dynamic_states =
            [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR, vk::DynamicState::DEPTH_COMPARE_OP];
        let dynamic_states = if self.depth_test { &dynamic_states[..] } else { &dynamic_states[..2] };
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(dynamic_states);
        let formats = [color_format, ID_FORMAT];
        let depth_format = if self.depth_test { depth_format } else { vk::Format::UNDEFINED };
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&formats[..count])
            .depth_attachment_format(depth_format);
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
            .layout(pipeline.layout)
            .push_next(&mut rendering);
        // SAFETY: all referenced state lives until the call returns.
        let created = unsafe { gpu.device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) };
        pipeline.raw = created.map_err(|(_, e)| e).vk("vkCreateGraphicsPipelines")?[0];
        // `modules` is destroyed when it goes out of scope: the pipeline no longer needs it.
        Ok(pipeline.finish())
    }
}

/// Vertex input of a mesh's own stream: binding 0 per vertex ([`Vertex`]:
/// position at location 0, normal at 1).
pub(crate) fn mesh_vertex_input() -> (vk::VertexInputBindingDescription, [vk::VertexInputAttributeDescription; 2]) {
    let binding = vk::VertexInputBindingDescription {
        binding: 0,
        stride: std::mem::size_of::<Vertex>() as u32,
        input_rate: vk::VertexInputRate::VERTEX,
    };
    let attribute = |location, offset| vk::VertexInputAttributeDescription {
        location,
        binding: 0,
        format: vk::Format::R32G32B32_SFLOAT,
        offset,
    };
    (binding, [attribute(0, 0), attribute(1, 12)])
}

/// Vertex input of a mesh's surface stream, what the material shader
/// reads: binding 2 per vertex ([`SurfaceVertex`]: both texture coordinate
/// sets at location 11, colour at 12, tangent at 13).
pub(crate) fn surface_vertex_input() -> (vk::VertexInputBindingDescription, [vk::VertexInputAttributeDescription; 3]) {
    let binding = vk::VertexInputBindingDescription {
        binding: 2,
        stride: std::mem::size_of::<SurfaceVertex>() as u32,
        input_rate: vk::VertexInputRate::VERTEX,
    };
    let attribute = |location, format, offset: usize| vk::VertexInputAttributeDescription {
        location,
        binding: 2,
        format,
        offset: offset as u32,
    };
    (
        binding,
        [
            attribute(11, vk::Format::R32G32B32A32_SFLOAT, std::mem::offset_of!(SurfaceVertex, uv)),
            attribute(12, vk::Format::R32G32B32A32_SFLOAT, std::mem::offset_of!(SurfaceVertex, color)),
            attribute(13, vk::Format::R32G32B32A32_SFLOAT, std::mem::offset_of!(SurfaceVertex, tangent)),
        ],
    )
}

/// Vertex input of an instanced mesh: the mesh's stream
/// ([`mesh_vertex_input`]) and binding 1 per instance: `vec4s` consecutive
/// vec4s from location 2, `instance_stride` bytes apart.
pub(crate) fn instanced_vertex_input(
    instance_stride: u32,
    vec4s: u32,
) -> ([vk::VertexInputBindingDescription; 2], Vec<vk::VertexInputAttributeDescription>) {
    let (mesh, mesh_attributes) = mesh_vertex_input();
    let bindings = [
        mesh,
        vk::VertexInputBindingDescription {
            binding: 1,
            stride: instance_stride,
            input_rate: vk::VertexInputRate::INSTANCE,
        },
    ];
    let mut attributes = mesh_attributes.to_vec();
    attributes.extend((0..vec4s).map(|i| vk::VertexInputAttributeDescription {
        location: 2 + i,
        binding: 1,
        format: vk::Format::R32G32B32A32_SFLOAT,
        offset: 16 * i,
    }));
    (bindings, attributes)
}
