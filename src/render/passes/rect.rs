//! The box-selection rectangle: a 1 px border and a faint translucent fill,
//! drawn last (over the overlay) as a full-screen triangle whose fragment
//! shader keeps only the rectangle's pixels (see `shaders/rect.frag`).

use ash::vk;
use bytemuck::{Pod, Zeroable};

use crate::render::device::error::RenderError;
use crate::render::device::pipeline::{self, spirv, IdAttachment, Pipeline, PipelineDesc};
use crate::render::device::{Destroy, Gpu};

/// Border colour (linear RGB, alpha blended).
pub const RECT_BORDER: [f32; 4] = [0.9, 0.9, 0.9, 0.9];
/// Fill colour (linear RGB, alpha blended).
pub const RECT_FILL: [f32; 4] = [0.8, 0.8, 0.85, 0.08];

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct RectPush {
    rect: [f32; 4],
    border: [f32; 4],
    fill: [f32; 4],
    /// x: 1 to fill the outside of the rectangle instead (no border).
    mode: [f32; 4],
}

/// What darkens the view outside a camera's frame (black, blended).
pub const OUTSIDE_FRAME: [f32; 4] = [0.0, 0.0, 0.0, 0.55];

#[derive(Default)]
pub(crate) struct RectPass {
    pipeline: Pipeline,
}

impl RectPass {
    pub fn new(gpu: &Gpu, color_format: vk::Format) -> Result<RectPass, RenderError> {
        let pipeline = PipelineDesc {
            name: "selection rectangle",
            vert: spirv::SCREEN_VERT,
            frag: spirv::RECT_FRAG,
            bindings: &[],
            attributes: &[],
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            push_size: std::mem::size_of::<RectPush>() as u32,
            set_layouts: &[],
            depth_test: false,
            depth_write: false,
            blend: true,
            ids: IdAttachment::Absent,
            frag_constants: &[],
            depth_bias: None,
        }
        .build(gpu, color_format, vk::Format::UNDEFINED, vk::SampleCountFlags::TYPE_1)?;
        Ok(RectPass { pipeline })
    }

    /// Records the rectangle (x0, y0, x1, y1 in pixels).
    ///
    /// # Safety
    /// `cmd` is recording inside a rendering scope with one colour
    /// attachment of the pass's format and no depth; viewport and scissor set.
    pub unsafe fn record(&self, d: &ash::Device, cmd: vk::CommandBuffer, rect: [f32; 4]) {
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline.raw);
        let push = RectPush { rect, border: RECT_BORDER, fill: RECT_FILL, mode: [0.0; 4] };
        pipeline::push(d, cmd, self.pipeline.layout, &push);
        d.cmd_draw(cmd, 3, 1, 0, 0);
    }

    /// Darkens everything outside `frame` (x0, y0, x1, y1 in pixels: a
    /// camera's frame while looking through it).
    ///
    /// # Safety
    /// As [`RectPass::record`].
    pub unsafe fn record_outside(&self, d: &ash::Device, cmd: vk::CommandBuffer, frame: [f32; 4]) {
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline.raw);
        let push = RectPush { rect: frame, border: OUTSIDE_FRAME, fill: OUTSIDE_FRAME, mode: [1.0, 0.0, 0.0, 0.0] };
        pipeline::push(d, cmd, self.pipeline.layout, &push);
        d.cmd_draw(cmd, 3, 1, 0, 0);
    }
}

impl Destroy for RectPass {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.pipeline.destroy(gpu);
    }
}
