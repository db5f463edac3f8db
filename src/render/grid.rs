//! The grid pass: an infinite ground grid on y = 0, alpha-blended over the
//! scene, depth-tested against it without writing depth, fading with
//! distance; works in both depth modes.
//!
//! Records inside the main rendering scope, after the scene pass; the
//! object-ID attachment is bound there but the grid leaves it untouched.

use ash::vk;
use bytemuck::{Pod, Zeroable};
use nalgebra::{Matrix4, Point3};

use super::error::RenderError;
use super::pipeline::{self, spirv, to_f32_cols, IdAttachment, Pipeline, PipelineDesc};
use super::resources::{Destroy, Gpu};
use crate::math::DepthMode;

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct GridPush {
    view_projection_rotation: [[f32; 4]; 4],
    eye: [f32; 4],
    params: [f32; 4],
}

/// What the grid pass needs in one frame.
pub(crate) struct GridInputs {
    pub view: Matrix4<f64>,
    pub projection: Matrix4<f64>,
    pub eye: Point3<f64>,
    pub depth: DepthMode,
}

/// Grid cell size: 1 m near the ground, growing by 10x as the camera rises.
fn grid_cell(height: f64) -> f64 {
    let mut cell = 1.0;
    while height > 40.0 * cell && cell < 1e4 {
        cell *= 10.0;
    }
    cell
}

/// The ground grid: no vertex input, alpha-blended, depth-tested, no depth write.
#[derive(Default)]
pub(crate) struct GridPass {
    pipeline: Pipeline,
}

impl GridPass {
    /// `samples` > 1: the grid is drawn in the multisampled colour pass,
    /// which has no object-ID attachment.
    pub fn new(
        gpu: &Gpu,
        color_format: vk::Format,
        depth_format: vk::Format,
        samples: vk::SampleCountFlags,
    ) -> Result<GridPass, RenderError> {
        let pipeline = PipelineDesc {
            name: "grid",
            vert: spirv::GRID_VERT,
            frag: spirv::GRID_FRAG,
            bindings: &[],
            attributes: &[],
            topology: vk::PrimitiveTopology::TRIANGLE_STRIP,
            push_size: std::mem::size_of::<GridPush>() as u32,
            set_layouts: &[],
            depth_test: true,
            depth_write: false,
            blend: true,
            ids: if samples == vk::SampleCountFlags::TYPE_1 { IdAttachment::Untouched } else { IdAttachment::Absent },
            frag_constants: &[],
        }
        .build(gpu, color_format, depth_format, samples)?;
        Ok(GridPass { pipeline })
    }

    /// Records the grid's single draw; returns the number of draw calls.
    ///
    /// # Safety
    /// `cmd` is recording inside a rendering scope with attachments of the
    /// pass's formats, viewport and scissor set.
    pub unsafe fn record(&self, d: &ash::Device, cmd: vk::CommandBuffer, inputs: &GridInputs) -> u32 {
        let eye = inputs.eye.coords;
        let mut rotation_only = inputs.view;
        rotation_only[(0, 3)] = 0.0;
        rotation_only[(1, 3)] = 0.0;
        rotation_only[(2, 3)] = 0.0;
        let height = eye.y.abs();
        let fade_end = (30.0 + 12.0 * height).min(900.0);
        let push = GridPush {
            view_projection_rotation: to_f32_cols(&(inputs.projection * rotation_only)),
            eye: [eye.x as f32, eye.y as f32, eye.z as f32, fade_end as f32],
            params: [grid_cell(height) as f32, (fade_end * 0.3) as f32, fade_end as f32, 0.0],
        };
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline.raw);
        d.cmd_set_depth_compare_op(cmd, pipeline::compare_op(inputs.depth));
        pipeline::push(d, cmd, self.pipeline.layout, &push);
        d.cmd_draw(cmd, 4, 1, 0, 0);
        1
    }
}

impl Destroy for GridPass {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.pipeline.destroy(gpu);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn grid_cells_grow_tenfold_with_height() {
        assert_eq!(super::grid_cell(1.0), 1.0);
        assert_eq!(super::grid_cell(41.0), 10.0);
        assert_eq!(super::grid_cell(401.0), 100.0);
    }
}
